/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Which runs to list; every given condition must hold. */
export type AgentFilter = {
  /** Include runs caliband no longer lists (removed, respawned, vanished). Default true. */
  includeGone?: boolean | null | undefined;
  /** Only runs whose name, label or initial prompt (its first 4096 characters) contains this text, ignoring case (1–200 characters). */
  search?: string | null | undefined;
  /** Only runs started at or after this instant. */
  since?: string | null | undefined;
  /** Only these statuses. */
  status?: Array<AgentStatus> | null | undefined;
  /** Only runs of this workspace. */
  workspace?: string | null | undefined;
};

/** Why caliband no longer lists an agent. */
export type AgentGoneReason =
  /** Removed through Prospero (removeAgent). */
  | 'REMOVED'
  /** Replaced by a respawn (see replacedBy). */
  | 'RESPAWNED'
  /** Disappeared from its daemon's list (removed on the daemon directly, or its record was lost). */
  | 'VANISHED';

/** The status of an agent run as its caliband reports it (or as Prospero concluded when the run ended out of its daemon's sight). UNKNOWN: a status this gateway does not know. */
export type AgentStatus =
  /** Was running when its daemon restarted, or disappeared from its daemon's list while live (removed on the daemon directly, lost record, respawned away): it ended without an outcome we could observe (terminal). */
  | 'CRASHED'
  /** The worker exited 0 (terminal). */
  | 'DONE'
  /** The worker exited non-zero or could not launch (terminal). */
  | 'FAILED'
  /** An interactive agent waiting for input. */
  | 'IDLE'
  /** Stopped by a kill request, or removed with force while live (caliband stops the worker; terminal). */
  | 'KILLED'
  /** The worker is working on a turn. */
  | 'RUNNING'
  /** Registered, worker not launched yet. */
  | 'SPAWNING'
  /** A status string this gateway does not know. */
  | 'UNKNOWN';

/** How one attempt of a launch ended. UNKNOWN: an outcome this gateway does not know; its raw name is in `outcomeName`. */
export type AttemptOutcome =
  /** The launch was cancelled during this attempt. */
  | 'CANCELLED'
  /** The attempt's run failed (see `error` and `transient`). */
  | 'FAILED'
  /** The spawn was recorded but never reached a run (the gateway stopped before the daemon's reply and no matching run was found at restart). */
  | 'LOST'
  /** The attempt's run ended successfully. */
  | 'SUCCEEDED'
  /** The attempt's run exceeded the timeout and was killed. */
  | 'TIMED_OUT'
  /** An outcome this gateway does not know (see outcomeName). */
  | 'UNKNOWN';

/** Which audit rows to list (all conditions must hold). */
export type AuditFilter = {
  /** Only operations on this agent. */
  agentId?: string | null | undefined;
  /** Only denied attempts. */
  deniedOnly?: boolean | null | undefined;
  /** Only this root field, e.g. `spawnAgent`. */
  operation?: string | null | undefined;
  /** At or after this instant. */
  since?: string | null | undefined;
  /** Only requests made with this token. */
  tokenName?: string | null | undefined;
  /** Before this instant. */
  until?: string | null | undefined;
  /** Only operations on this workspace. */
  workspace?: string | null | undefined;
};

/** The period a budget's spend is summed over (UTC). */
export type BudgetPeriod =
  /** The current UTC day (from midnight UTC). */
  | 'DAY'
  /** The current UTC calendar month (from the 1st, midnight UTC). */
  | 'MONTH';

/** Whose estimated spend a budget limits. */
export type BudgetScope =
  /** Runs using one LLM provider (key: its wire name, e.g. `anthropic`). */
  | 'PROVIDER'
  /** Runs of one workspace (key: its name). */
  | 'WORKSPACE';

/** What a concurrency cap counts: live runs of the whole fleet, a workspace, a provider or a model. */
export type CapScope =
  /** Every live run of the fleet (key is empty). */
  | 'GLOBAL'
  /** Live runs using one model (key: the model name). */
  | 'MODEL'
  /** Live runs using one LLM provider (key: its wire name, e.g. `anthropic`). */
  | 'PROVIDER'
  /** Live runs of one workspace (key: its name). */
  | 'WORKSPACE';

/** Whether what a run changed in its repository is captured (issue 16). UNKNOWN: a state this gateway does not know. */
export type ChangeCaptureState =
  /** A snapshot is stored (see `headCommit`; `reason` may note that it is not the final one). */
  | 'CAPTURED'
  /** Retention removed the run's snapshot refs. */
  | 'EXPIRED'
  /** No snapshot could be taken: `reason` says why. */
  | 'NOT_CAPTURED'
  /** Capture is turned off for the workspace, or impossible there (not a git repository): `reason` says which. */
  | 'OFF'
  /** Watched; no snapshot taken yet. */
  | 'PENDING'
  /** A state this gateway does not know. */
  | 'UNKNOWN';

/** A cron schedule of launches. */
export type CreateScheduleInput = {
  /** Cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first; croner syntax (e.g. `*\/15 * * * *`, or `@daily`). Fire times must be at least a minute apart. */
  cron: string;
  /** What to do at start about firings missed while the gateway was down. Default SKIP. */
  missed?: ScheduleMissed | null | undefined;
  /** Name for people (1–100 characters). */
  name: string;
  /** What a firing does while the schedule's previous launch is still active. Default SKIP. */
  overlap?: ScheduleOverlap | null | undefined;
  /** Create it paused (no firings). Default false. */
  paused?: boolean | null | undefined;
  /** What each firing enqueues. */
  template: LaunchTemplateInput;
  /** IANA time zone the expression is read in, e.g. `Europe/Paris`. Default UTC. */
  timeZone?: string | null | undefined;
  /** Workspace name. */
  workspace: string;
};

/** A new API token. */
export type CreateTokenInput = {
  /** When it stops working (at most 10 years ahead); omit for never. */
  expiresAt?: string | null | undefined;
  /** Name, unique among active tokens (1–64 letters, digits, '.', '_', '-', '@'). */
  name: string;
  /** What it may do. */
  role: Role;
  /** Limit it to these workspaces (names); omit for every workspace. */
  workspaces?: Array<string> | null | undefined;
};

/** A webhook to register. */
export type CreateWebhookInput = {
  /** The notification types it receives (at least one). */
  events: Array<WebhookEventType>;
  /** The body it receives. Default JSON. */
  format?: WebhookFormat | null | undefined;
  /** Name for people (1–100 characters). */
  name: string;
  /** The HMAC-SHA256 key of its signatures (16–256 characters, no spaces); omit it to have 32 random bytes generated. Write-only: returned once by this mutation, never shown again, stored redacted in the audit log. */
  secret?: string | null | undefined;
  /** Where to POST: an http or https URL of at most 2048 characters, without credentials or fragment, not this gateway itself. Redirects are not followed. Stored redacted in the audit log (a hook URL can be a credential); reads show it with token-like parts as `…`. */
  url: string;
};

/** A launch to queue: everything spawnAgent takes (but clientRequestId: dedupKey plays its part), plus when, how urgently, how long and how often to try. */
export type EnqueueLaunchInput = {
  /** Unique among launches not yet final (1–200 characters): enqueueing it again returns the existing launch with created: false, or a ConflictError when the spec differs. Free again once that launch is final. */
  dedupKey?: string | null | undefined;
  /** Agent template path (stored only by caliband today). */
  frontmatterPath?: string | null | undefined;
  /** Wait for operator input at each end of turn. Default false. */
  interactive?: boolean | null | undefined;
  /** Run in its own git worktree. Default true. */
  isolated?: boolean | null | undefined;
  /** Label (becomes the agent's name). */
  label?: string | null | undefined;
  /** Model; default the workspace's (when the run starts). */
  model?: string | null | undefined;
  /** Not dispatched before this time. A time up to 60 s in the past means now; further in the past is refused as a mistake. */
  notBefore?: string | null | undefined;
  /** 0 (lowest) – 100 (highest); higher dispatches first, equal priorities oldest first. Default 50. */
  priority?: number | null | undefined;
  /** Initial prompt. */
  prompt: string;
  /** Provider; default the workspace's (when the run starts). */
  provider?: Provider | null | undefined;
  /** Retries of transient failures; default one attempt (no retry). */
  retry?: RetryPolicyInput | null | undefined;
  /** Source checkout name (see Workspace.sources); default the workspace root. */
  source?: string | null | undefined;
  /** Run timeout, ms (1000–604800000, i.e. up to 7 days): a run still going after this long is killed and the launch ends TIMED_OUT. Default the workspace's launch timeout (Workspace.launchTimeoutMs), else none. */
  timeoutMs?: number | null | undefined;
  /** Tools the agent may use; default caliban's set. */
  toolAllowlist?: Array<string> | null | undefined;
  /** Workspace name. */
  workspace: string;
};

/** Kinds of things an operation can name. */
export type EntityType =
  | 'AGENT'
  | 'INBOX_ITEM'
  | 'LAUNCH'
  | 'SCHEDULE'
  | 'TOKEN'
  | 'WEBHOOK'
  | 'WORKSPACE';

/** One environment variable. */
export type EnvVarInput = {
  /** Variable name. */
  name: string;
  /** Value. Write-only: queries never return it. Omit it to keep the value currently stored for this name (updateWorkspaceConfig). */
  value?: string | null | undefined;
};

/** Stable machine-readable code of an error. The same names appear as `extensions.code` on top-level GraphQL errors for the same kind of failure. */
export type ErrorCode =
  /** Input that failed validation. */
  | 'BAD_USER_INPUT'
  /** The caliband binary cannot be run. */
  | 'CALIBAND_NOT_INSTALLED'
  /** Collides with existing state. */
  | 'CONFLICT'
  /** caliband refused the request. */
  | 'DAEMON_REFUSED'
  /** caliband was started but died or did not answer. */
  | 'DAEMON_START_FAILED'
  /** The token may not do this. */
  | 'FORBIDDEN'
  /** Not allowed in the target's current state. */
  | 'INVALID_STATE'
  /** The workspace, agent, token, launch or schedule does not exist. */
  | 'NOT_FOUND'
  /** The workspace's provider configuration is incoherent. */
  | 'PROVIDER_MISCONFIGURED'
  /** The credentials are no longer valid. */
  | 'UNAUTHENTICATED'
  /** The workspace's caliband could not be reached. */
  | 'UNREACHABLE';

/** Kinds of fleet events, one per FleetEvent type (`OUTPUT` is OutputEvent). GAP is a delivery signal of subscriptions, never stored: a filter on it alone matches no stored event. */
export type EventKind =
  /** AgentDiscoveredEvent. */
  | 'AGENT_DISCOVERED'
  /** AgentFinishedEvent. */
  | 'AGENT_FINISHED'
  /** AgentGoneEvent. */
  | 'AGENT_GONE'
  /** AgentSpawnedEvent. */
  | 'AGENT_SPAWNED'
  /** ChangesCapturedEvent. */
  | 'CHANGES_CAPTURED'
  /** GapEvent (subscriptions only). */
  | 'GAP'
  /** IngestGapEvent. */
  | 'INGEST_GAP'
  /** InputEndedEvent. */
  | 'INPUT_ENDED'
  /** InputFailedEvent. */
  | 'INPUT_FAILED'
  /** InputSentEvent. */
  | 'INPUT_SENT'
  /** LaunchChangedEvent. */
  | 'LAUNCH_CHANGED'
  /** OutputEvent. */
  | 'OUTPUT'
  /** ScheduleChangedEvent. */
  | 'SCHEDULE_CHANGED'
  /** StatusChangedEvent. */
  | 'STATUS_CHANGED'
  /** StorePersistFailedEvent. */
  | 'STORE_PERSIST_FAILED'
  /** ToolFinishedEvent. */
  | 'TOOL_FINISHED'
  /** ToolStartedEvent. */
  | 'TOOL_STARTED'
  /** TurnCompletedEvent. */
  | 'TURN_COMPLETED'
  /** TurnStartedEvent. */
  | 'TURN_STARTED'
  /** WorkerLogEvent. */
  | 'WORKER_LOG'
  /** WorkspaceHealthEvent. */
  | 'WORKSPACE_HEALTH';

/** How a file changed (git's name-status without renames). UNKNOWN: a status this gateway does not know. */
export type FileChangeStatus =
  /** A new file. */
  | 'ADDED'
  /** Removed. */
  | 'DELETED'
  /** Its content (or mode) changed. */
  | 'MODIFIED'
  /** Its type changed (a regular file became a symlink, or the reverse). */
  | 'TYPE_CHANGED'
  /** A status this gateway does not know. */
  | 'UNKNOWN';

/** What made a schedule fire. UNKNOWN: a trigger this gateway does not know. */
export type FiringTrigger =
  /** A fire time of the cron expression. */
  | 'CRON'
  /** Run now (runSchedule). */
  | 'MANUAL'
  /** A fire time missed while the gateway was down, run once at start (missed policy RUN_ONCE). */
  | 'MISSED'
  /** A trigger this gateway does not know. */
  | 'UNKNOWN';

/** Which events to watch fleet-wide. */
export type FleetEventFilter = {
  /** Only this agent. */
  agentId?: string | null | undefined;
  /** Only these kinds. */
  kinds?: Array<EventKind> | null | undefined;
  /** Only this workspace. */
  workspace?: string | null | undefined;
};

/** A health check of the monitor (the ids of `--health-threshold`, upper-cased). UNKNOWN: a check this gateway does not know. */
export type HealthCheckKind =
  /** A running agent (not an interactive agent idle between turns) has produced no event for longer than the threshold. */
  | 'AGENT_STUCK'
  /** A workspace's caliband has been unreachable for longer than the threshold. */
  | 'DAEMON_UNREACHABLE'
  /** The database (file and write-ahead log) is larger than the threshold. */
  | 'DATABASE_SIZE'
  /** Free space on the filesystem of the data dir is below the threshold. */
  | 'DATA_DISK_FREE'
  /** Events stored per hour (over the last hour) are above the threshold. */
  | 'EVENT_GROWTH'
  /** Bytes of agents' transcripts written by caliband but not yet stored by Prospero. */
  | 'INGEST_LAG'
  /** The oldest launch ready to run (not held by notBefore or a retry backoff) has waited longer than the threshold. */
  | 'QUEUE_WAIT'
  /** A check this gateway does not know. */
  | 'UNKNOWN'
  /** Free space on the filesystem of a workspace's root is below the threshold. */
  | 'WORKSPACE_DISK_FREE'
  /** Disk used by a workspace's `.caliban/worktrees` (isolated agents' worktrees) is above the threshold. */
  | 'WORKTREES_DISK_USED';

/** Health of a workspace's caliband as seen by the last poll. */
export type HealthState =
  /** The last `list` succeeded. */
  | 'HEALTHY'
  /** Not polled yet. */
  | 'UNKNOWN'
  /** The last `list` failed; see `reason`. */
  | 'UNREACHABLE';

/** Which inbox items; every given condition must hold. */
export type InboxFilter = {
  /** Only items about this agent. */
  agentId?: string | null | undefined;
  /** Only items of these kinds. */
  kinds?: Array<InboxItemKind> | null | undefined;
  /** Only items in these states. Default for `inbox`: [OPEN, SNOOZED] (give CLOSED too for history). */
  states?: Array<InboxItemState> | null | undefined;
  /** Only items of this workspace. */
  workspace?: string | null | undefined;
};

/** What an inbox item waits for. UNKNOWN: a kind this gateway does not know. */
export type InboxItemKind =
  /** A health check fails (the monitor's message is the body); it closes by itself when the check passes again. */
  | 'ALERT'
  /** An agent shared a plan (its EnterPlanMode/ExitPlanMode tool call) and waits for approval: approve it or send changes. */
  | 'PLAN'
  /** An interactive agent waits for input after a turn; the body is its last assistant message. Answering sends input to it. */
  | 'QUESTION'
  /** A run failed, crashed or timed out and nobody acknowledged it yet; the body says why. */
  | 'RUN_FAILED'
  /** A kind this gateway does not know. */
  | 'UNKNOWN';

/** Where an inbox item is. UNKNOWN: a state this gateway does not know. */
export type InboxItemState =
  /** Done: answered, approved, acknowledged, dismissed, or resolved by itself (see resolution). Kept as history. */
  | 'CLOSED'
  /** Needs a person. */
  | 'OPEN'
  /** Hidden until snoozedUntil, then OPEN again (and notified again). */
  | 'SNOOZED'
  /** A state this gateway does not know. */
  | 'UNKNOWN';

/** How an inbox item closed. UNKNOWN: a resolution this gateway does not know. */
export type InboxResolution =
  /** A person acknowledged it. */
  | 'ACKNOWLEDGED'
  /** A person sent input to the agent (an answer, or changes to a plan). */
  | 'ANSWERED'
  /** A person approved the plan. */
  | 'APPROVED'
  /** A person dismissed it as not needed. */
  | 'DISMISSED'
  /** It closed by itself: the agent resumed, the run ended, the launch was retried, the check passes again (closeReason says which). */
  | 'RESOLVED'
  /** A resolution this gateway does not know. */
  | 'UNKNOWN';

/** Which launches to list; every given condition must hold. */
export type LaunchFilter = {
  /** Only launches enqueued with this dedup key. */
  dedupKey?: string | null | undefined;
  /** Only launches fired by this schedule (12-hex id). */
  scheduleId?: string | null | undefined;
  /** Only launches in these states. Exactly [QUEUED] lists them in dispatch order (priority, then oldest first) instead of newest first. */
  states?: Array<LaunchState> | null | undefined;
  /** Only launches of this workspace. */
  workspace?: string | null | undefined;
};

/** Where a launch is in its life: QUEUED → DISPATCHED → RUNNING → SUCCEEDED | FAILED | TIMED_OUT | CANCELLED (a retry goes back to QUEUED; CANCELLED is reachable from every non-final state). UNKNOWN: a state this gateway does not know; its raw name is in `stateName`. */
export type LaunchState =
  /** Cancelled through cancelLaunch (final). */
  | 'CANCELLED'
  /** An attempt is recorded and its spawn is on its way to the daemon. */
  | 'DISPATCHED'
  /** The run failed permanently, or every attempt allowed failed (final; see `reason`). */
  | 'FAILED'
  /** Waiting to be dispatched (see `waitingFor`); also a retry waiting for its backoff. */
  | 'QUEUED'
  /** The attempt's run exists (see `agent`). */
  | 'RUNNING'
  /** The run ended successfully (final). */
  | 'SUCCEEDED'
  /** The run exceeded the launch's timeout and was killed by Prospero (final). */
  | 'TIMED_OUT'
  /** A state this gateway does not know (see stateName). */
  | 'UNKNOWN';

/** What each firing of a schedule enqueues (the workspace is the schedule's). */
export type LaunchTemplateInput = {
  /** Wait for operator input at each end of turn. Default false. */
  interactive?: boolean | null | undefined;
  /** Run in its own git worktree. Default true. */
  isolated?: boolean | null | undefined;
  /** Label (becomes the agent's name). */
  label?: string | null | undefined;
  /** Model; default the workspace's (when the run starts). */
  model?: string | null | undefined;
  /** 0 (lowest) – 100 (highest); higher dispatches first, equal priorities oldest first. Default 50. */
  priority?: number | null | undefined;
  /** Initial prompt. */
  prompt: string;
  /** Provider; default the workspace's (when the run starts). */
  provider?: Provider | null | undefined;
  /** Retries of transient failures; default one attempt (no retry). */
  retry?: RetryPolicyInput | null | undefined;
  /** Source checkout name (see Workspace.sources); default the workspace root. */
  source?: string | null | undefined;
  /** Run timeout, ms (1000–604800000, i.e. up to 7 days): a run still going after this long is killed and the launch ends TIMED_OUT. Default the workspace's launch timeout (Workspace.launchTimeoutMs), else none. */
  timeoutMs?: number | null | undefined;
  /** Tools the agent may use; default caliban's set. */
  toolAllowlist?: Array<string> | null | undefined;
};

/** Which part of the assistant's output a text belongs to. */
export type OutputStream =
  /** The answer. */
  | 'TEXT'
  /** The model's visible reasoning. */
  | 'THINKING';

/** LLM providers caliband workers accept. */
export type Provider =
  | 'ANTHROPIC'
  | 'GOOGLE'
  | 'OLLAMA'
  | 'OPENAI';

/** A workspace's provider configuration (replaces the whole configuration). */
export type ProviderConfigInput = {
  /** NAME of a gateway environment variable holding the API key (the value is never stored). */
  apiKeyFromEnv?: string | null | undefined;
  /** Provider API base URL (http/https). */
  baseUrl?: string | null | undefined;
  /** Extra environment for the daemon. */
  env?: Array<EnvVarInput> | null | undefined;
  /** Default model (1–200 characters). */
  model?: string | null | undefined;
  /** Provider for every spawn; omit for caliban's default. */
  provider?: Provider | null | undefined;
};

/** A caliband on another host, started with `--listen` (TCP + TLS + bearer token; caliban ADR 0051). Only the endpoint is named here: its CA and token are the operator's, read by the gateway from the endpoint's own directory in a credentials directory (`--caliband-credentials-dir`, default `<data dir>/calibands`): `<host>_<port>/ca.pem` and `<host>_<port>/token`, or the token from the variable PROSPERO_CALIBAND_TOKEN_<HOST>_<PORT> (docs/deploy.md). An endpoint the operator has not provisioned is a ValidationError. */
export type RemoteCalibandInput = {
  /** The daemon's control listener: `tcp://host:port` (a DNS name, an IPv4 address or a bracketed IPv6 address). */
  endpoint: string;
  /** Name the daemon's certificate must match (SNI and verification). The operator's: the endpoint's `server-name` credentials file, else its host; given here, it must be that name (the default). */
  serverName?: string | null | undefined;
};

/** How a launch retries transient provider failures (rate limits, overload, connection resets, timeouts — issue 14 item 7); permanent failures are never retried. Each retry waits backoffMs, doubled per further retry with jitter, at most maxBackoffMs. */
export type RetryPolicyInput = {
  /** Nominal delay before the first retry, ms (100–3600000); doubled per further retry up to maxBackoffMs, and the real delay is 50–100 % of it (equal jitter). Default 10000. */
  backoffMs?: number | null | undefined;
  /** Attempts in all, the first one included (1 = never retry); 1–20. Required: a retry policy without a limit is a ValidationError. */
  maxAttempts?: number | null | undefined;
  /** Longest delay between two attempts, ms (at least backoffMs, at most 86400000: 24 h). Default 300000, or backoffMs when that is larger. */
  maxBackoffMs?: number | null | undefined;
};

/** What a token may do. Each role includes the ones before it. */
export type Role =
  /** Operator, plus workspaces, provider configuration, daemon restarts, tokens and the audit log. */
  | 'ADMIN'
  /** Viewer, plus spawn, kill, respawn, remove, drain and input of agents. */
  | 'OPERATOR'
  /** Queries and subscriptions. */
  | 'VIEWER';

/** Why a run ended, as the worker reported it (caliband's StopCondition). UNKNOWN: a condition this gateway does not know; its name is in `outcomeName`. */
export type RunOutcome =
  /** The run was cancelled. */
  | 'CANCELLED'
  /** Context compaction failed. */
  | 'COMPACTION_FAILED'
  /** The provider's content filter stopped it. */
  | 'CONTENT_FILTER'
  /** The model ended its turn with nothing left to do. */
  | 'END_OF_TURN'
  /** A hook refused to continue. */
  | 'HOOK_DENIED'
  /** The token budget ran out. */
  | 'MAX_TOKENS_EXHAUSTED'
  /** The run's turn limit was reached. */
  | 'MAX_TURNS_REACHED'
  /** The LLM provider failed (see detail). */
  | 'PROVIDER_ERROR'
  /** The model refused. */
  | 'REFUSAL'
  /** The provider stream stayed idle too long. */
  | 'STREAM_IDLE'
  /** The thinking budget ran out. */
  | 'THINKING_BUDGET_EXHAUSTED'
  /** A condition this gateway does not know (see outcomeName). */
  | 'UNKNOWN';

/** Which schedules to list; every given condition must hold. */
export type ScheduleFilter = {
  /** Include deleted schedules (their firings stay in history). Default false. */
  includeDeleted?: boolean | null | undefined;
  /** Only schedules of this workspace. */
  workspace?: string | null | undefined;
};

/** What the gateway does at start for firings it missed while it was down. */
export type ScheduleMissed =
  /** Fire once for all of them, then follow the schedule. */
  | 'RUN_ONCE'
  /** Skip them (each recorded as skipped). */
  | 'SKIP';

/** What a firing does while the schedule's previous launch is still active. */
export type ScheduleOverlap =
  /** Enqueue it; both may run at once (caps still apply). */
  | 'ALLOW'
  /** Enqueue it; it waits until the previous launch is final. */
  | 'QUEUE'
  /** Skip the firing (recorded with its reason). */
  | 'SKIP';

/** A spend limit to set or remove: new dispatch in the scope waits while the period's estimated spend is at the limit; running work finishes. */
export type SetBudgetInput = {
  /** The workspace name (WORKSPACE) or provider name in lower case as caliband spells it, e.g. `anthropic`, or `default` for runs whose spec and workspace name none (PROVIDER). */
  key: string;
  /** Limit, USD (more than 0, at most 1000000). Must be given: null removes the budget. */
  limitUsd?: number | null | undefined;
  /** The UTC day or month. */
  period: BudgetPeriod;
  /** What the budget counts. */
  scope: BudgetScope;
};

/** A concurrency cap to set or remove: at most `max` live runs in the scope. */
export type SetCapInput = {
  /** The workspace name (WORKSPACE), provider name in lower case as caliband spells it, e.g. `anthropic`, or `default` for runs whose spec and workspace name none (PROVIDER), or model name (MODEL); omit for GLOBAL (required for the others). */
  key?: string | null | undefined;
  /** Most live runs, 0–10000 (0 pauses dispatch in the scope). Must be given: null removes the cap (the GLOBAL cap cannot be removed). */
  max?: number | null | undefined;
  /** What the cap counts. */
  scope: CapScope;
};

/** What took a run's snapshot (issue 16). UNKNOWN: a trigger this gateway does not know. */
export type SnapshotTrigger =
  /** Right before Prospero killed the run. */
  | 'KILL'
  /** The run ended (RunEnd). */
  | 'RUN_END'
  /** The run was first seen (in-place runs: the state the run started from). */
  | 'START'
  /** The run was seen in a terminal status (killed elsewhere, failed). */
  | 'STOPPED'
  /** A turn ended (TurnEnd). */
  | 'TURN_END'
  /** A trigger this gateway does not know. */
  | 'UNKNOWN';

/** What to spawn (every field of caliband's spawn spec). */
export type SpawnAgentInput = {
  /** Idempotency key: repeating a spawn with the same key returns the first agent with created: false. */
  clientRequestId?: string | null | undefined;
  /** Agent template path (stored only by caliband today). */
  frontmatterPath?: string | null | undefined;
  /** Wait for operator input at each end of turn. Default false. */
  interactive?: boolean | null | undefined;
  /** Run in its own git worktree. Default true. */
  isolated?: boolean | null | undefined;
  /** Label (becomes the agent's name). */
  label?: string | null | undefined;
  /** Model; default the workspace's. */
  model?: string | null | undefined;
  /** Initial prompt. */
  prompt: string;
  /** Provider; default the workspace's. */
  provider?: Provider | null | undefined;
  /** Source checkout name (see Workspace.sources); default the workspace root. */
  source?: string | null | undefined;
  /** Tools the agent may use; default caliban's set. */
  toolAllowlist?: Array<string> | null | undefined;
  /** Workspace name. */
  workspace: string;
};

/** Why the model ended a turn (the provider's stop reason as caliband reports it). UNKNOWN: a reason this gateway does not know; its text is in `stopReasonName`. */
export type StopReason =
  /** The provider's content filter stopped it. */
  | 'CONTENT_FILTER'
  /** The model finished its answer. */
  | 'END_TURN'
  /** The turn hit its output-token limit. */
  | 'MAX_TOKENS'
  /** The model refused. */
  | 'REFUSAL'
  /** A stop sequence was produced. */
  | 'STOP_SEQUENCE'
  /** The model called tools; another turn follows. */
  | 'TOOL_USE'
  /** A reason this gateway does not know (see stopReasonName). */
  | 'UNKNOWN';

/** Changes to a webhook; absent (or null) fields stay as they are. */
export type UpdateWebhookInput = {
  /** False: it receives nothing and its pending deliveries wait; true: they resume and new notifications come again. */
  enabled?: boolean | null | undefined;
  /** New notification types (at least one). */
  events?: Array<WebhookEventType> | null | undefined;
  /** New body format. */
  format?: WebhookFormat | null | undefined;
  /** New name (1–100 characters). */
  name?: string | null | undefined;
  /** New URL (the rules of createWebhook; stored redacted in the audit log). */
  url?: string | null | undefined;
  /** The Webhook's id or its 12-hex webhookId. */
  webhook: string | number;
};

/** Dimensions usage rows can be grouped by. */
export type UsageGroupBy =
  /** UTC day. */
  | 'DAY'
  | 'MODEL'
  | 'WORKSPACE';

/** Why a queued launch is not dispatched yet. */
export type WaitKind =
  /** A budget is spent for the period (`scope`, `key`, `period`, `spentUsd`, `limitUsd`). */
  | 'BUDGET'
  /** A concurrency cap is full (`scope`, `key`, `inUse`, `max`). */
  | 'CAP'
  /** Its last dispatch could not reach the workspace's caliband; tried again at `until`. */
  | 'DAEMON_UNREACHABLE'
  /** Its `notBefore` is ahead (`until`). */
  | 'NOT_BEFORE'
  /** Its schedule's previous launch is still active (overlap policy QUEUE; `previousLaunch`). */
  | 'PREVIOUS_RUN'
  /** Its provider is backing off after a burst of transient failures (`until`). */
  | 'PROVIDER_BACKOFF'
  /** Waiting before its next attempt (`until`). */
  | 'RETRY_BACKOFF'
  /** A reason this schema does not know yet (a newer gateway's). */
  | 'UNKNOWN';

/** Where a delivery is: PENDING (attempts left) → DELIVERED | FAILED. */
export type WebhookDeliveryState =
  /** The receiver answered 2xx (final). */
  | 'DELIVERED'
  /** Every attempt failed, or the webhook was deleted first (final; see lastError). */
  | 'FAILED'
  /** Not delivered yet: the next attempt is at nextAttemptAt (retries back off to 5 min). */
  | 'PENDING'
  /** A state this gateway does not know. */
  | 'UNKNOWN';

/** A notification type a webhook can receive; the JSON body's `type` and the `X-Prospero-Event` header carry its dotted name (INBOX_OPENED = `inbox.opened`, RUN_FAILED = `run.failed`, …). */
export type WebhookEventType =
  /** `alert.opened`: A health check started failing. */
  | 'ALERT_OPENED'
  /** `alert.resolved`: A failing health check cleared. */
  | 'ALERT_RESOLVED'
  /** `inbox.closed`: An inbox item closed (answered, approved, acknowledged, dismissed or resolved). */
  | 'INBOX_CLOSED'
  /** `inbox.escalated`: An inbox item stayed open longer than --inbox-escalate-after-ms. */
  | 'INBOX_ESCALATED'
  /** `inbox.opened`: An inbox item opened (any kind), or a snoozed one came back (`data.reopened`). */
  | 'INBOX_OPENED'
  /** `ping`: A test notification (testWebhook); always sent, whatever the hook's events. */
  | 'PING'
  /** `run.failed`: A run failed or crashed. */
  | 'RUN_FAILED'
  /** `run.timed_out`: A launch's run exceeded its timeout. */
  | 'RUN_TIMED_OUT'
  /** `schedule.skipped`: A schedule's fire time was skipped (overlap policy, missed while down, …). */
  | 'SCHEDULE_SKIPPED'
  /** A type this gateway does not know. */
  | 'UNKNOWN';

/** The body a webhook receives (docs/webhooks.md). */
export type WebhookFormat =
  /** Prospero's JSON body, version 1 (`{"version":1,"id":…,"type":…,…}`), signed. */
  | 'JSON'
  /** A Slack incoming-webhook body (`text` and `blocks`), signed like JSON. */
  | 'SLACK'
  /** A format this gateway does not know. */
  | 'UNKNOWN';

export type AgentsQueryVariables = Exact<{
  filter?: AgentFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AgentsQuery = { agents: { edges: Array<{ cursor: string, node: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type AgentQueryVariables = Exact<{
  agentId: string;
}>;


export type AgentQuery = { agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean }, respawnedFrom: { agentId: string } | null, failure: { logTail: string | null, logTruncated: boolean, exitCode: number | null, reason: string | null } | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } | null };

export type SpawnAgentMutationVariables = Exact<{
  input: SpawnAgentInput;
}>;


export type SpawnAgentMutation = { spawnAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ConflictError', code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: ErrorCode, message: string }
    | { __typename: 'SpawnAgentPayload', created: boolean, agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type KillAgentMutationVariables = Exact<{
  agentId: string;
}>;


export type KillAgentMutation = { killAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'KillAgentPayload', agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RespawnAgentMutationVariables = Exact<{
  agentId: string;
  force?: boolean | null | undefined;
}>;


export type RespawnAgentMutation = { respawnAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: ErrorCode, message: string }
    | { __typename: 'RespawnAgentPayload', agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RemoveAgentMutationVariables = Exact<{
  agentId: string;
  force?: boolean | null | undefined;
}>;


export type RemoveAgentMutation = { removeAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'RemoveAgentPayload', agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type DrainAgentMutationVariables = Exact<{
  agentId: string;
  timeoutMs?: number | null | undefined;
}>;


export type DrainAgentMutation = { drainAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DrainAgentPayload', killed: boolean, agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type SendAgentInputMutationVariables = Exact<{
  agentId: string;
  text: string;
}>;


export type SendAgentInputMutation = { sendAgentInput:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'SendAgentInputPayload', agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type EndAgentInputMutationVariables = Exact<{
  agentId: string;
}>;


export type EndAgentInputMutation = { endAgentInput:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'EndAgentInputPayload', agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { tokenId: string, name: string, role: Role, workspaces: Array<string> | null, expiresAt: string | null, authenticatedBy: string } };

export type TokenFieldsFragment = { id: string, tokenId: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean };

export type TokensQueryVariables = Exact<{
  includeRevoked?: boolean | null | undefined;
}>;


export type TokensQuery = { tokens: Array<{ id: string, tokenId: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean }> | null };

export type CreateTokenMutationVariables = Exact<{
  input: CreateTokenInput;
}>;


export type CreateTokenMutation = { createToken:
    | { __typename: 'ConflictError', code: ErrorCode, message: string }
    | { __typename: 'CreateTokenPayload', secret: string, token: { id: string, tokenId: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RevokeTokenMutationVariables = Exact<{
  token: string;
}>;


export type RevokeTokenMutation = { revokeToken:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'RevokeTokenPayload', token: { id: string, tokenId: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type AuditLogQueryVariables = Exact<{
  filter?: AuditFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, position: number, ts: string, tokenName: string | null, tokenId: string | null, role: string | null, remoteAddress: string | null, operation: string, operationName: string | null, workspace: string | null, agentId: string | null, args: unknown, result: string, denied: boolean } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type RunChangesFieldsFragment = { state: ChangeCaptureState, reason: string | null, baseCommit: string | null, headCommit: string | null, ref: string | null, trigger: SnapshotTrigger | null, turnIndex: number | null, snapshots: number, final: boolean, capturedAt: string | null, fileCount: number, additions: number, deletions: number, skippedFiles: number, skippedBytes: number, capNote: string | null, overlaps: Array<{ files: Array<string>, fileCount: number, agent: { agentId: string, name: string, status: AgentStatus } }>, applied: { branch: string, commit: string, at: string, by: string } | null };

export type ChangedFileFieldsFragment = { path: string, status: FileChangeStatus, additions: number | null, deletions: number | null, binary: boolean };

export type FilePatchFieldsFragment = { path: string, status: FileChangeStatus, additions: number | null, deletions: number | null, binary: boolean, text: string | null, truncated: boolean, omitted: string | null };

export type AgentChangesQueryVariables = Exact<{
  agentId: string;
}>;


export type AgentChangesQuery = { agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, workspace: { name: string }, changes: { state: ChangeCaptureState, reason: string | null, baseCommit: string | null, headCommit: string | null, ref: string | null, trigger: SnapshotTrigger | null, turnIndex: number | null, snapshots: number, final: boolean, capturedAt: string | null, fileCount: number, additions: number, deletions: number, skippedFiles: number, skippedBytes: number, capNote: string | null, overlaps: Array<{ files: Array<string>, fileCount: number, agent: { agentId: string, name: string, status: AgentStatus } }>, applied: { branch: string, commit: string, at: string, by: string } | null } } | null };

export type AgentChangedFilesQueryVariables = Exact<{
  agentId: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AgentChangedFilesQuery = { agent: { agentId: string, changes: { state: ChangeCaptureState, files: { totalCount: number, edges: Array<{ cursor: string, node: { path: string, status: FileChangeStatus, additions: number | null, deletions: number | null, binary: boolean } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null } } | null };

export type AgentPatchQueryVariables = Exact<{
  agentId: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AgentPatchQuery = { agent: { agentId: string, changes: { state: ChangeCaptureState, reason: string | null, patch: { totalCount: number, edges: Array<{ cursor: string, node: { path: string, status: FileChangeStatus, additions: number | null, deletions: number | null, binary: boolean, text: string | null, truncated: boolean, omitted: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null } } | null };

export type WorkspaceChangesQueryVariables = Exact<{
  name: string;
}>;


export type WorkspaceChangesQuery = { workspace: { name: string, changeCapture: { enabled: boolean, active: boolean, reason: string | null }, changeOverlaps: Array<{ files: Array<string>, fileCount: number, a: { agentId: string, name: string, status: AgentStatus }, b: { agentId: string, name: string, status: AgentStatus } }> } | null };

export type ApplyChangesMutationVariables = Exact<{
  agentId: string;
  branch: string;
}>;


export type ApplyChangesMutation = { applyChanges:
    | { __typename: 'ApplyChangesPayload', branch: string, commit: string, agent: { agentId: string, name: string, workspace: { name: string, root: string } } }
    | { __typename: 'ConflictError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type SetChangeCaptureMutationVariables = Exact<{
  workspace: string;
  enabled: boolean;
}>;


export type SetChangeCaptureMutation = { setChangeCapture:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'SetChangeCapturePayload', workspace: { name: string, changeCapture: { enabled: boolean, active: boolean, reason: string | null } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type AgentEventsPageQueryVariables = Exact<{
  agentId: string;
  after?: string | null | undefined;
  first?: number | null | undefined;
  kinds?: Array<EventKind> | EventKind | null | undefined;
}>;


export type AgentEventsPageQuery = { events: { nodes: Array<
      | { __typename: 'AgentDiscoveredEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus }
      | { __typename: 'AgentFinishedEvent', outcome: RunOutcome, outcomeName: string, turns: number, model: string | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
      | { __typename: 'AgentGoneEvent', replacedBy: string | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, goneReason: AgentGoneReason }
      | { __typename: 'AgentSpawnedEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean } }
      | { __typename: 'ChangesCapturedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
      | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
      | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'LaunchChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'ScheduleChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: StopReason, stopReasonName: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
      | { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string }
      | { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null }
      | { __typename: 'WorkspaceHealthEvent', state: HealthState, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null }
    >, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type AgentEventsSubscriptionVariables = Exact<{
  agentId: string;
  after?: string | null | undefined;
}>;


export type AgentEventsSubscription = { agentEvents:
    | { __typename: 'AgentDiscoveredEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus }
    | { __typename: 'AgentFinishedEvent', outcome: RunOutcome, outcomeName: string, turns: number, model: string | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
    | { __typename: 'AgentGoneEvent', replacedBy: string | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, goneReason: AgentGoneReason }
    | { __typename: 'AgentSpawnedEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean } }
    | { __typename: 'ChangesCapturedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'LaunchChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ScheduleChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: StopReason, stopReasonName: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
    | { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string }
    | { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null }
    | { __typename: 'WorkspaceHealthEvent', state: HealthState, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null }
   };

type ErrorFields_CalibandNotInstalledError_Fragment = { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string };

type ErrorFields_ConflictError_Fragment = { __typename: 'ConflictError', code: ErrorCode, message: string };

type ErrorFields_DaemonRefusedError_Fragment = { __typename: 'DaemonRefusedError', code: ErrorCode, message: string };

type ErrorFields_DaemonStartFailedError_Fragment = { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string };

type ErrorFields_ForbiddenError_Fragment = { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string };

type ErrorFields_InvalidStateError_Fragment = { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string };

type ErrorFields_NotFoundError_Fragment = { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string };

type ErrorFields_ProviderMisconfiguredError_Fragment = { __typename: 'ProviderMisconfiguredError', field: string | null, code: ErrorCode, message: string };

type ErrorFields_UnauthenticatedError_Fragment = { __typename: 'UnauthenticatedError', code: ErrorCode, message: string };

type ErrorFields_UnreachableError_Fragment = { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string };

type ErrorFields_ValidationError_Fragment = { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> };

export type ErrorFieldsFragment =
  | ErrorFields_CalibandNotInstalledError_Fragment
  | ErrorFields_ConflictError_Fragment
  | ErrorFields_DaemonRefusedError_Fragment
  | ErrorFields_DaemonStartFailedError_Fragment
  | ErrorFields_ForbiddenError_Fragment
  | ErrorFields_InvalidStateError_Fragment
  | ErrorFields_NotFoundError_Fragment
  | ErrorFields_ProviderMisconfiguredError_Fragment
  | ErrorFields_UnauthenticatedError_Fragment
  | ErrorFields_UnreachableError_Fragment
  | ErrorFields_ValidationError_Fragment
;

export type TokenUsageFieldsFragment = { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number };

export type ProviderConfigFieldsFragment = { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> };

export type AgentSummaryFragment = { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: RunOutcome | null, outcomeName: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } };

export type WorkspaceSummaryFragment = { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null, remote: { endpoint: string, serverName: string, credentials: { directory: string, tokenFile: string | null, tokenFromEnv: string | null } | null } | null };

type TimelineEvent_AgentDiscoveredEvent_Fragment = { __typename: 'AgentDiscoveredEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus };

type TimelineEvent_AgentFinishedEvent_Fragment = { __typename: 'AgentFinishedEvent', outcome: RunOutcome, outcomeName: string, turns: number, model: string | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } };

type TimelineEvent_AgentGoneEvent_Fragment = { __typename: 'AgentGoneEvent', replacedBy: string | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, goneReason: AgentGoneReason };

type TimelineEvent_AgentSpawnedEvent_Fragment = { __typename: 'AgentSpawnedEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean } };

type TimelineEvent_ChangesCapturedEvent_Fragment = { __typename: 'ChangesCapturedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_GapEvent_Fragment = { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string };

type TimelineEvent_IngestGapEvent_Fragment = { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_InputEndedEvent_Fragment = { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_InputFailedEvent_Fragment = { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null };

type TimelineEvent_InputSentEvent_Fragment = { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_LaunchChangedEvent_Fragment = { __typename: 'LaunchChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_OutputEvent_Fragment = { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_ScheduleChangedEvent_Fragment = { __typename: 'ScheduleChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_StatusChangedEvent_Fragment = { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_StorePersistFailedEvent_Fragment = { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_ToolFinishedEvent_Fragment = { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_ToolStartedEvent_Fragment = { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_TurnCompletedEvent_Fragment = { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: StopReason, stopReasonName: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } };

type TimelineEvent_TurnStartedEvent_Fragment = { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string };

type TimelineEvent_WorkerLogEvent_Fragment = { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null };

type TimelineEvent_WorkspaceHealthEvent_Fragment = { __typename: 'WorkspaceHealthEvent', state: HealthState, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null };

export type TimelineEventFragment =
  | TimelineEvent_AgentDiscoveredEvent_Fragment
  | TimelineEvent_AgentFinishedEvent_Fragment
  | TimelineEvent_AgentGoneEvent_Fragment
  | TimelineEvent_AgentSpawnedEvent_Fragment
  | TimelineEvent_ChangesCapturedEvent_Fragment
  | TimelineEvent_GapEvent_Fragment
  | TimelineEvent_IngestGapEvent_Fragment
  | TimelineEvent_InputEndedEvent_Fragment
  | TimelineEvent_InputFailedEvent_Fragment
  | TimelineEvent_InputSentEvent_Fragment
  | TimelineEvent_LaunchChangedEvent_Fragment
  | TimelineEvent_OutputEvent_Fragment
  | TimelineEvent_ScheduleChangedEvent_Fragment
  | TimelineEvent_StatusChangedEvent_Fragment
  | TimelineEvent_StorePersistFailedEvent_Fragment
  | TimelineEvent_ToolFinishedEvent_Fragment
  | TimelineEvent_ToolStartedEvent_Fragment
  | TimelineEvent_TurnCompletedEvent_Fragment
  | TimelineEvent_TurnStartedEvent_Fragment
  | TimelineEvent_WorkerLogEvent_Fragment
  | TimelineEvent_WorkspaceHealthEvent_Fragment
;

export type HealthCheckResultFieldsFragment = { check: HealthCheckKind, subject: string | null, ok: boolean, value: number | null, threshold: number, unit: string, message: string, since: string | null, workspace: { name: string } | null };

export type HealthThresholdFieldsFragment = { check: HealthCheckKind, value: number, defaultValue: number, min: number, max: number, unit: string, isDefault: boolean, description: string };

export type HealthQueryVariables = Exact<{
  refresh?: boolean | null | undefined;
}>;


export type HealthQuery = { health: { ok: boolean, checkedAt: string | null, results: Array<{ check: HealthCheckKind, subject: string | null, ok: boolean, value: number | null, threshold: number, unit: string, message: string, since: string | null, workspace: { name: string } | null }>, failing: Array<{ check: HealthCheckKind, subject: string | null, ok: boolean, value: number | null, threshold: number, unit: string, message: string, since: string | null, workspace: { name: string } | null }>, thresholds: Array<{ check: HealthCheckKind, value: number, defaultValue: number, min: number, max: number, unit: string, isDefault: boolean, description: string }> } | null };

export type SetHealthThresholdMutationVariables = Exact<{
  check: HealthCheckKind;
  value?: number | null | undefined;
}>;


export type SetHealthThresholdMutation = { setHealthThreshold:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'SetHealthThresholdPayload', threshold: { check: HealthCheckKind, value: number, defaultValue: number, min: number, max: number, unit: string, isDefault: boolean, description: string } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type InboxItemFieldsFragment = { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null };

export type InboxQueryVariables = Exact<{
  filter?: InboxFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type InboxQuery = { inbox: { totalCount: number, openCount: number, edges: Array<{ cursor: string, node: { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type AnswerInboxItemMutationVariables = Exact<{
  item: string | number;
  text: string;
}>;


export type AnswerInboxItemMutation = { answerInboxItem:
    | { __typename: 'AnswerInboxItemPayload', item: { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type ApproveInboxItemMutationVariables = Exact<{
  item: string | number;
  text?: string | null | undefined;
}>;


export type ApproveInboxItemMutation = { approveInboxItem:
    | { __typename: 'ApproveInboxItemPayload', item: { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type AcknowledgeInboxItemMutationVariables = Exact<{
  item: string | number;
}>;


export type AcknowledgeInboxItemMutation = { acknowledgeInboxItem:
    | { __typename: 'AcknowledgeInboxItemPayload', item: { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type SnoozeInboxItemMutationVariables = Exact<{
  item: string | number;
  until: string;
}>;


export type SnoozeInboxItemMutation = { snoozeInboxItem:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'SnoozeInboxItemPayload', item: { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type DismissInboxItemMutationVariables = Exact<{
  item: string | number;
}>;


export type DismissInboxItemMutation = { dismissInboxItem:
    | { __typename: 'DismissInboxItemPayload', item: { id: string, itemId: string, kind: InboxItemKind, state: InboxItemState, title: string, body: string, answerHint: string, canAnswer: boolean, canApprove: boolean, check: HealthCheckKind | null, subject: string | null, openedAt: string, updatedAt: string, snoozedUntil: string | null, closedAt: string | null, resolution: InboxResolution | null, closedBy: string | null, closeReason: string | null, escalations: number, lastNotifiedAt: string, workspace: { name: string } | null, agent: { agentId: string, name: string, status: AgentStatus } | null, launch: { launchId: string } | null } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type LaunchWaitFieldsFragment = { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null };

export type CapFieldsFragment = { scope: CapScope, key: string, max: number, inUse: number };

export type BudgetFieldsFragment = { scope: BudgetScope, key: string, period: BudgetPeriod, limitUsd: number, spentUsd: number, periodStart: string, exhausted: boolean };

export type LaunchSummaryFragment = { id: string, launchId: string, state: LaunchState, stateName: string, priority: number, dedupKey: string | null, notBefore: string | null, timeoutMs: number | null, attemptCount: number, queuePosition: number | null, reason: string | null, retryAt: string | null, createdBy: string | null, createdAt: string, dispatchedAt: string | null, startedAt: string | null, finishedAt: string | null, updatedAt: string, workspace: { name: string }, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, waitingFor: { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null } | null, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null }, agent: { agentId: string, status: AgentStatus } | null, schedule: { scheduleId: string, name: string } | null };

export type LaunchesQueryVariables = Exact<{
  filter?: LaunchFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type LaunchesQuery = { launches: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, launchId: string, state: LaunchState, stateName: string, priority: number, dedupKey: string | null, notBefore: string | null, timeoutMs: number | null, attemptCount: number, queuePosition: number | null, reason: string | null, retryAt: string | null, createdBy: string | null, createdAt: string, dispatchedAt: string | null, startedAt: string | null, finishedAt: string | null, updatedAt: string, workspace: { name: string }, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, waitingFor: { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null } | null, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null }, agent: { agentId: string, status: AgentStatus } | null, schedule: { scheduleId: string, name: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type LaunchQueryVariables = Exact<{
  launchId: string;
  transitionsFirst?: number | null | undefined;
  transitionsAfter?: string | null | undefined;
}>;


export type LaunchQuery = { launch: { id: string, launchId: string, state: LaunchState, stateName: string, priority: number, dedupKey: string | null, notBefore: string | null, timeoutMs: number | null, attemptCount: number, queuePosition: number | null, reason: string | null, retryAt: string | null, createdBy: string | null, createdAt: string, dispatchedAt: string | null, startedAt: string | null, finishedAt: string | null, updatedAt: string, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean }, attempts: Array<{ n: number, kind: string, agentId: string | null, requestedAt: string, endedAt: string | null, outcome: AttemptOutcome | null, outcomeName: string | null, error: string | null, transient: boolean | null, respawnOf: string | null, agent: { agentId: string, status: AgentStatus } | null }>, transitions: { totalCount: number, edges: Array<{ cursor: string, node: { from: LaunchState | null, to: LaunchState, reason: string | null, attempt: number | null, at: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } }, workspace: { name: string }, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, waitingFor: { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null } | null, agent: { agentId: string, status: AgentStatus } | null, schedule: { scheduleId: string, name: string } | null } | null };

export type QueueStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type QueueStatusQuery = { queue: { depth: number, dispatched: number, running: number, oldestQueuedAt: string | null, caps: Array<{ scope: CapScope, key: string, max: number, inUse: number }>, budgets: Array<{ scope: BudgetScope, key: string, period: BudgetPeriod, limitUsd: number, spentUsd: number, periodStart: string, exhausted: boolean }> } | null };

export type EnqueueLaunchMutationVariables = Exact<{
  input: EnqueueLaunchInput;
}>;


export type EnqueueLaunchMutation = { enqueueLaunch:
    | { __typename: 'ConflictError', code: ErrorCode, message: string }
    | { __typename: 'EnqueueLaunchPayload', created: boolean, launch: { id: string, launchId: string, state: LaunchState, stateName: string, priority: number, dedupKey: string | null, notBefore: string | null, timeoutMs: number | null, attemptCount: number, queuePosition: number | null, reason: string | null, retryAt: string | null, createdBy: string | null, createdAt: string, dispatchedAt: string | null, startedAt: string | null, finishedAt: string | null, updatedAt: string, workspace: { name: string }, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, waitingFor: { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null } | null, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null }, agent: { agentId: string, status: AgentStatus } | null, schedule: { scheduleId: string, name: string } | null } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type CancelLaunchMutationVariables = Exact<{
  launchId: string;
}>;


export type CancelLaunchMutation = { cancelLaunch:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'CancelLaunchPayload', launch: { id: string, launchId: string, state: LaunchState, stateName: string, priority: number, dedupKey: string | null, notBefore: string | null, timeoutMs: number | null, attemptCount: number, queuePosition: number | null, reason: string | null, retryAt: string | null, createdBy: string | null, createdAt: string, dispatchedAt: string | null, startedAt: string | null, finishedAt: string | null, updatedAt: string, workspace: { name: string }, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, waitingFor: { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null } | null, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null }, agent: { agentId: string, status: AgentStatus } | null, schedule: { scheduleId: string, name: string } | null } }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type SetCapMutationVariables = Exact<{
  input: SetCapInput;
}>;


export type SetCapMutation = { setCap:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'SetCapPayload', cap: { scope: CapScope, key: string, max: number, inUse: number } | null, caps: Array<{ scope: CapScope, key: string, max: number, inUse: number }> }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type SetBudgetMutationVariables = Exact<{
  input: SetBudgetInput;
}>;


export type SetBudgetMutation = { setBudget:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'SetBudgetPayload', budget: { scope: BudgetScope, key: string, period: BudgetPeriod, limitUsd: number, spentUsd: number, periodStart: string, exhausted: boolean } | null, budgets: Array<{ scope: BudgetScope, key: string, period: BudgetPeriod, limitUsd: number, spentUsd: number, periodStart: string, exhausted: boolean }> }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RunReportQueryVariables = Exact<{
  agentId: string;
}>;


export type RunReportQuery = { agent: { id: string, agentId: string, name: string, workspace: { name: string }, report: { final: boolean, status: AgentStatus, outcome: RunOutcome | null, outcomeName: string | null, outcomeDetail: string | null, startedAt: string, finishedAt: string | null, durationMs: number | null, turns: number, estimatedCostUsd: number | null, toolCallCount: number, toolFailureCount: number, changes: ChangeCaptureState, changesReason: string | null, filesChanged: number | null, additions: number | null, deletions: number | null, finalMessage: string | null, markdown: string, failure: { logTail: string | null, logTruncated: boolean, exitCode: number | null, reason: string | null } | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number }, toolCalls: Array<{ name: string, calls: number, failures: number }>, files: Array<{ path: string, status: FileChangeStatus, additions: number | null, deletions: number | null, binary: boolean }> } } | null };

export type ScheduleSummaryFragment = { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } };

export type SchedulesQueryVariables = Exact<{
  filter?: ScheduleFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type SchedulesQuery = { schedules: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type ScheduleQueryVariables = Exact<{
  scheduleId: string;
  upcoming?: number | null | undefined;
  firingsLast?: number | null | undefined;
}>;


export type ScheduleQuery = { schedule: { upcoming: Array<string>, id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, firings: { totalCount: number, edges: Array<{ cursor: string, node: { fireAt: string, at: string, trigger: FiringTrigger, skippedReason: string | null, launch: { launchId: string, state: LaunchState } | null } }> }, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } } | null };

export type CreateScheduleMutationVariables = Exact<{
  input: CreateScheduleInput;
}>;


export type CreateScheduleMutation = { createSchedule:
    | { __typename: 'CreateSchedulePayload', schedule: { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type PauseScheduleMutationVariables = Exact<{
  scheduleId: string;
}>;


export type PauseScheduleMutation = { pauseSchedule:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'PauseSchedulePayload', schedule: { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type ResumeScheduleMutationVariables = Exact<{
  scheduleId: string;
}>;


export type ResumeScheduleMutation = { resumeSchedule:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'ResumeSchedulePayload', schedule: { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type DeleteScheduleMutationVariables = Exact<{
  scheduleId: string;
}>;


export type DeleteScheduleMutation = { deleteSchedule:
    | { __typename: 'DeleteSchedulePayload', schedule: { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RunScheduleMutationVariables = Exact<{
  scheduleId: string;
}>;


export type RunScheduleMutation = { runSchedule:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'RunSchedulePayload', schedule: { id: string, scheduleId: string, name: string, cron: string, timeZone: string, overlap: ScheduleOverlap, missed: ScheduleMissed, paused: boolean, nextFireAt: string | null, lastFireAt: string | null, deletedAt: string | null, createdBy: string | null, createdAt: string, updatedAt: string, workspace: { name: string }, template: { priority: number, timeoutMs: number | null, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null } } }, launch: { id: string, launchId: string, state: LaunchState, stateName: string, priority: number, dedupKey: string | null, notBefore: string | null, timeoutMs: number | null, attemptCount: number, queuePosition: number | null, reason: string | null, retryAt: string | null, createdBy: string | null, createdAt: string, dispatchedAt: string | null, startedAt: string | null, finishedAt: string | null, updatedAt: string, workspace: { name: string }, retry: { maxAttempts: number, backoffMs: number, maxBackoffMs: number }, waitingFor: { kind: WaitKind, message: string, until: string | null, scope: string | null, key: string | null, inUse: number | null, max: number | null, spentUsd: number | null, limitUsd: number | null, period: BudgetPeriod | null } | null, spec: { prompt: string, label: string | null, model: string | null, provider: Provider | null }, agent: { agentId: string, status: AgentStatus } | null, schedule: { scheduleId: string, name: string } | null } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type StatusQueryVariables = Exact<{ [key: string]: never; }>;


export type StatusQuery = { version: string, readiness: { ready: boolean, migrationsApplied: boolean, storeWritable: boolean, workspacesTotal: number, workspacesHealthy: number, workspacesUnreachable: number }, fleet: { host: string }, workspaces: Array<{ name: string, root: string, remote: { endpoint: string } | null, health: { state: HealthState, reason: string | null, since: string } }>, metrics: { eventsAppendedTotal: number, appendFailuresTotal: number, framesIngestedTotal: number, unknownFramesTotal: number, invalidLinesTotal: number, pollsTotal: number, pollFailuresTotal: number, ingestGapsTotal: number, ingestCommitFailuresTotal: number, activeAttaches: number, ingestLagBytes: number, busSubscribers: number, busDroppedTotal: number } | null };

export type AgentStatusesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AgentStatusesQuery = { agents: { edges: Array<{ node: { status: AgentStatus, workspace: { name: string } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type WorkspaceEventsSubscriptionVariables = Exact<{
  workspace: string;
  after?: string | null | undefined;
}>;


export type WorkspaceEventsSubscription = { workspaceEvents:
    | { __typename: 'AgentDiscoveredEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus }
    | { __typename: 'AgentFinishedEvent', outcome: RunOutcome, outcomeName: string, turns: number, model: string | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
    | { __typename: 'AgentGoneEvent', replacedBy: string | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, goneReason: AgentGoneReason }
    | { __typename: 'AgentSpawnedEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean } }
    | { __typename: 'ChangesCapturedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'LaunchChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ScheduleChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: StopReason, stopReasonName: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
    | { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string }
    | { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null }
    | { __typename: 'WorkspaceHealthEvent', state: HealthState, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null }
   };

export type FleetEventsSubscriptionVariables = Exact<{
  filter?: FleetEventFilter | null | undefined;
  after?: string | null | undefined;
}>;


export type FleetEventsSubscription = { fleetEvents:
    | { __typename: 'AgentDiscoveredEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus }
    | { __typename: 'AgentFinishedEvent', outcome: RunOutcome, outcomeName: string, turns: number, model: string | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
    | { __typename: 'AgentGoneEvent', replacedBy: string | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, goneReason: AgentGoneReason }
    | { __typename: 'AgentSpawnedEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean } }
    | { __typename: 'ChangesCapturedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'LaunchChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ScheduleChangedEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: StopReason, stopReasonName: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } }
    | { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string }
    | { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null }
    | { __typename: 'WorkspaceHealthEvent', state: HealthState, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null }
   };

export type UsageQueryVariables = Exact<{
  since?: string | null | undefined;
  until?: string | null | undefined;
  groupBy?: Array<UsageGroupBy> | UsageGroupBy | null | undefined;
}>;


export type UsageQuery = { usage: Array<{ workspace: string | null, model: string | null, day: string | null, inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number, estimatedCostUsd: number, unpricedTurns: number, turns: number, outcomes: { done: number, failed: number, killed: number, crashed: number } }> | null };

export type WebhookFieldsFragment = { id: string, webhookId: string, name: string, url: string, format: WebhookFormat, events: Array<WebhookEventType>, enabled: boolean, createdAt: string, createdBy: string | null };

export type WebhookDeliveryFieldsFragment = { id: string, deliveryId: string, eventType: WebhookEventType, notificationId: string, state: WebhookDeliveryState, attempts: number, lastStatus: number | null, lastError: string | null, createdAt: string, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null };

export type WebhooksQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type WebhooksQuery = { webhooks: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, webhookId: string, name: string, url: string, format: WebhookFormat, events: Array<WebhookEventType>, enabled: boolean, createdAt: string, createdBy: string | null, lastDelivery: { id: string, deliveryId: string, eventType: WebhookEventType, notificationId: string, state: WebhookDeliveryState, attempts: number, lastStatus: number | null, lastError: string | null, createdAt: string, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } | null };

export type WebhookQueryVariables = Exact<{
  id: string | number;
  deliveriesFirst?: number | null | undefined;
}>;


export type WebhookQuery = { webhook: { id: string, webhookId: string, name: string, url: string, format: WebhookFormat, events: Array<WebhookEventType>, enabled: boolean, createdAt: string, createdBy: string | null, deliveries: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, deliveryId: string, eventType: WebhookEventType, notificationId: string, state: WebhookDeliveryState, attempts: number, lastStatus: number | null, lastError: string | null, createdAt: string, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type CreateWebhookMutationVariables = Exact<{
  input: CreateWebhookInput;
}>;


export type CreateWebhookMutation = { createWebhook:
    | { __typename: 'CreateWebhookPayload', secret: string, webhook: { id: string, webhookId: string, name: string, url: string, format: WebhookFormat, events: Array<WebhookEventType>, enabled: boolean, createdAt: string, createdBy: string | null } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type UpdateWebhookMutationVariables = Exact<{
  input: UpdateWebhookInput;
}>;


export type UpdateWebhookMutation = { updateWebhook:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UpdateWebhookPayload', webhook: { id: string, webhookId: string, name: string, url: string, format: WebhookFormat, events: Array<WebhookEventType>, enabled: boolean, createdAt: string, createdBy: string | null } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type DeleteWebhookMutationVariables = Exact<{
  webhook: string | number;
}>;


export type DeleteWebhookMutation = { deleteWebhook:
    | { __typename: 'DeleteWebhookPayload', webhook: { id: string, webhookId: string, name: string, url: string, format: WebhookFormat, events: Array<WebhookEventType>, enabled: boolean, createdAt: string, createdBy: string | null } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type TestWebhookMutationVariables = Exact<{
  webhook: string | number;
}>;


export type TestWebhookMutation = { testWebhook:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', status: AgentStatus | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'TestWebhookPayload', delivery: { id: string, deliveryId: string, eventType: WebhookEventType, notificationId: string, state: WebhookDeliveryState, attempts: number, lastStatus: number | null, lastError: string | null, createdAt: string, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type WorkspacesQueryVariables = Exact<{ [key: string]: never; }>;


export type WorkspacesQuery = { workspaces: Array<{ id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null, remote: { endpoint: string, serverName: string, credentials: { directory: string, tokenFile: string | null, tokenFromEnv: string | null } | null } | null }> };

export type WorkspaceQueryVariables = Exact<{
  name: string;
}>;


export type WorkspaceQuery = { workspace: { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null, remote: { endpoint: string, serverName: string, credentials: { directory: string, tokenFile: string | null, tokenFromEnv: string | null } | null } | null } | null };

export type AddWorkspaceMutationVariables = Exact<{
  name: string;
  root: string;
  config?: ProviderConfigInput | null | undefined;
  remote?: RemoteCalibandInput | null | undefined;
}>;


export type AddWorkspaceMutation = { addWorkspace:
    | { __typename: 'AddWorkspacePayload', created: boolean, workspace: { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null, remote: { endpoint: string, serverName: string, credentials: { directory: string, tokenFile: string | null, tokenFromEnv: string | null } | null } | null } }
    | { __typename: 'ConflictError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RemoveWorkspaceMutationVariables = Exact<{
  name: string;
}>;


export type RemoveWorkspaceMutation = { removeWorkspace:
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'RemoveWorkspacePayload', workspace: { name: string } }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type UpdateWorkspaceConfigMutationVariables = Exact<{
  name: string;
  config: ProviderConfigInput;
  force?: boolean | null | undefined;
}>;


export type UpdateWorkspaceConfigMutation = { updateWorkspaceConfig:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'DaemonRefusedError', code: ErrorCode, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', entity: EntityType, key: string, code: ErrorCode, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: ErrorCode, message: string }
    | { __typename: 'UnauthenticatedError', code: ErrorCode, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: ErrorCode, message: string }
    | { __typename: 'UpdateWorkspaceConfigPayload', applied: boolean, pendingOn: Array<string>, orphaned: Array<string>, workspace: { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null, remote: { endpoint: string, serverName: string, credentials: { directory: string, tokenFile: string | null, tokenFromEnv: string | null } | null } | null } }
    | { __typename: 'ValidationError', code: ErrorCode, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const TokenFieldsFragmentDoc = new TypedDocumentString(`
    fragment TokenFields on ApiToken {
  id
  tokenId
  name
  role
  workspaces
  createdAt
  createdBy
  expiresAt
  lastUsedAt
  revokedAt
  active
  bootstrap
}
    `, {"fragmentName":"TokenFields"}) as unknown as TypedDocumentString<TokenFieldsFragment, unknown>;
export const RunChangesFieldsFragmentDoc = new TypedDocumentString(`
    fragment RunChangesFields on RunChanges {
  state
  reason
  baseCommit
  headCommit
  ref
  trigger
  turnIndex
  snapshots
  final
  capturedAt
  fileCount
  additions
  deletions
  skippedFiles
  skippedBytes
  capNote
  overlaps {
    agent {
      agentId
      name
      status
    }
    files
    fileCount
  }
  applied {
    branch
    commit
    at
    by
  }
}
    `, {"fragmentName":"RunChangesFields"}) as unknown as TypedDocumentString<RunChangesFieldsFragment, unknown>;
export const ChangedFileFieldsFragmentDoc = new TypedDocumentString(`
    fragment ChangedFileFields on ChangedFile {
  path
  status
  additions
  deletions
  binary
}
    `, {"fragmentName":"ChangedFileFields"}) as unknown as TypedDocumentString<ChangedFileFieldsFragment, unknown>;
export const FilePatchFieldsFragmentDoc = new TypedDocumentString(`
    fragment FilePatchFields on FilePatch {
  path
  status
  additions
  deletions
  binary
  text
  truncated
  omitted
}
    `, {"fragmentName":"FilePatchFields"}) as unknown as TypedDocumentString<FilePatchFieldsFragment, unknown>;
export const ErrorFieldsFragmentDoc = new TypedDocumentString(`
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
    `, {"fragmentName":"ErrorFields"}) as unknown as TypedDocumentString<ErrorFieldsFragment, unknown>;
export const TokenUsageFieldsFragmentDoc = new TypedDocumentString(`
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
    `, {"fragmentName":"TokenUsageFields"}) as unknown as TypedDocumentString<TokenUsageFieldsFragment, unknown>;
export const AgentSummaryFragmentDoc = new TypedDocumentString(`
    fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}`, {"fragmentName":"AgentSummary"}) as unknown as TypedDocumentString<AgentSummaryFragment, unknown>;
export const ProviderConfigFieldsFragmentDoc = new TypedDocumentString(`
    fragment ProviderConfigFields on ProviderConfig {
  provider
  model
  baseUrl
  apiKeyFromEnv
  apiKeySet
  env {
    name
    valueSet
  }
}
    `, {"fragmentName":"ProviderConfigFields"}) as unknown as TypedDocumentString<ProviderConfigFieldsFragment, unknown>;
export const WorkspaceSummaryFragmentDoc = new TypedDocumentString(`
    fragment WorkspaceSummary on Workspace {
  id
  name
  root
  registered
  registeredAt
  health {
    state
    reason
    since
  }
  config {
    ...ProviderConfigFields
  }
  pendingConfig {
    ...ProviderConfigFields
  }
  remote {
    endpoint
    serverName
    credentials {
      directory
      tokenFile
      tokenFromEnv
    }
  }
}
    fragment ProviderConfigFields on ProviderConfig {
  provider
  model
  baseUrl
  apiKeyFromEnv
  apiKeySet
  env {
    name
    valueSet
  }
}`, {"fragmentName":"WorkspaceSummary"}) as unknown as TypedDocumentString<WorkspaceSummaryFragment, unknown>;
export const TimelineEventFragmentDoc = new TypedDocumentString(`
    fragment TimelineEvent on FleetEvent {
  __typename
  id
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
  }
  ... on AgentDiscoveredEvent {
    name
    discoveredStatus: status
  }
  ... on StatusChangedEvent {
    from
    to
  }
  ... on TurnStartedEvent {
    turnIndex
    turnModel: model
    messageId
  }
  ... on OutputEvent {
    turnIndex
    blockIndex
    stream
    text
  }
  ... on ToolStartedEvent {
    turnIndex
    toolUseId
    name
  }
  ... on ToolFinishedEvent {
    turnIndex
    toolUseId
    name
    ok
    input
    inputRaw
    resultText
    truncated
    durationMs
  }
  ... on TurnCompletedEvent {
    turnIndex
    model
    stopReason
    stopReasonName
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
    outcomeName
    outcomeDetail: detail
    turns
    model
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on InputSentEvent {
    text
  }
  ... on InputEndedEvent {
    ended
  }
  ... on InputFailedEvent {
    undeliveredText: text
    reason
  }
  ... on AgentGoneEvent {
    goneReason: reason
    replacedBy
  }
  ... on IngestGapEvent {
    detail
    missedLines
  }
  ... on StorePersistFailedEvent {
    detail
    lostSeq
  }
  ... on WorkspaceHealthEvent {
    state
    healthReason: reason
  }
  ... on WorkerLogEvent {
    endStatus: status
    logTail
    logTruncated
    logBytes
    exitCode
    logReason: reason
  }
  ... on GapEvent {
    gapReason: reason
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}`, {"fragmentName":"TimelineEvent"}) as unknown as TypedDocumentString<TimelineEventFragment, unknown>;
export const HealthCheckResultFieldsFragmentDoc = new TypedDocumentString(`
    fragment HealthCheckResultFields on HealthCheckResult {
  check
  subject
  workspace {
    name
  }
  ok
  value
  threshold
  unit
  message
  since
}
    `, {"fragmentName":"HealthCheckResultFields"}) as unknown as TypedDocumentString<HealthCheckResultFieldsFragment, unknown>;
export const HealthThresholdFieldsFragmentDoc = new TypedDocumentString(`
    fragment HealthThresholdFields on HealthThreshold {
  check
  value
  defaultValue
  min
  max
  unit
  isDefault
  description
}
    `, {"fragmentName":"HealthThresholdFields"}) as unknown as TypedDocumentString<HealthThresholdFieldsFragment, unknown>;
export const InboxItemFieldsFragmentDoc = new TypedDocumentString(`
    fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}
    `, {"fragmentName":"InboxItemFields"}) as unknown as TypedDocumentString<InboxItemFieldsFragment, unknown>;
export const CapFieldsFragmentDoc = new TypedDocumentString(`
    fragment CapFields on Cap {
  scope
  key
  max
  inUse
}
    `, {"fragmentName":"CapFields"}) as unknown as TypedDocumentString<CapFieldsFragment, unknown>;
export const BudgetFieldsFragmentDoc = new TypedDocumentString(`
    fragment BudgetFields on Budget {
  scope
  key
  period
  limitUsd
  spentUsd
  periodStart
  exhausted
}
    `, {"fragmentName":"BudgetFields"}) as unknown as TypedDocumentString<BudgetFieldsFragment, unknown>;
export const LaunchWaitFieldsFragmentDoc = new TypedDocumentString(`
    fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}
    `, {"fragmentName":"LaunchWaitFields"}) as unknown as TypedDocumentString<LaunchWaitFieldsFragment, unknown>;
export const LaunchSummaryFragmentDoc = new TypedDocumentString(`
    fragment LaunchSummary on Launch {
  id
  launchId
  workspace {
    name
  }
  state
  stateName
  priority
  dedupKey
  notBefore
  timeoutMs
  retry {
    maxAttempts
    backoffMs
    maxBackoffMs
  }
  attemptCount
  queuePosition
  waitingFor {
    ...LaunchWaitFields
  }
  reason
  retryAt
  spec {
    prompt
    label
    model
    provider
  }
  agent {
    agentId
    status
  }
  schedule {
    scheduleId
    name
  }
  createdBy
  createdAt
  dispatchedAt
  startedAt
  finishedAt
  updatedAt
}
    fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}`, {"fragmentName":"LaunchSummary"}) as unknown as TypedDocumentString<LaunchSummaryFragment, unknown>;
export const ScheduleSummaryFragmentDoc = new TypedDocumentString(`
    fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}
    `, {"fragmentName":"ScheduleSummary"}) as unknown as TypedDocumentString<ScheduleSummaryFragment, unknown>;
export const WebhookFieldsFragmentDoc = new TypedDocumentString(`
    fragment WebhookFields on Webhook {
  id
  webhookId
  name
  url
  format
  events
  enabled
  createdAt
  createdBy
}
    `, {"fragmentName":"WebhookFields"}) as unknown as TypedDocumentString<WebhookFieldsFragment, unknown>;
export const WebhookDeliveryFieldsFragmentDoc = new TypedDocumentString(`
    fragment WebhookDeliveryFields on WebhookDelivery {
  id
  deliveryId
  eventType
  notificationId
  state
  attempts
  lastStatus
  lastError
  createdAt
  lastAttemptAt
  nextAttemptAt
  deliveredAt
}
    `, {"fragmentName":"WebhookDeliveryFields"}) as unknown as TypedDocumentString<WebhookDeliveryFieldsFragment, unknown>;
export const AgentsDocument = new TypedDocumentString(`
    query Agents($filter: AgentFilter, $first: Int, $after: String) {
  agents(filter: $filter, first: $first, after: $after) {
    edges {
      cursor
      node {
        ...AgentSummary
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<AgentsQuery, AgentsQueryVariables>;
export const AgentDocument = new TypedDocumentString(`
    query Agent($agentId: String!) {
  agent(agentId: $agentId) {
    ...AgentSummary
    id
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
    respawnedFrom {
      agentId
    }
    failure {
      logTail
      logTruncated
      exitCode
      reason
    }
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<AgentQuery, AgentQueryVariables>;
export const SpawnAgentDocument = new TypedDocumentString(`
    mutation SpawnAgent($input: SpawnAgentInput!) {
  spawnAgent(input: $input) {
    __typename
    ... on SpawnAgentPayload {
      created
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<SpawnAgentMutation, SpawnAgentMutationVariables>;
export const KillAgentDocument = new TypedDocumentString(`
    mutation KillAgent($agentId: String!) {
  killAgent(input: {agentId: $agentId}) {
    __typename
    ... on KillAgentPayload {
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<KillAgentMutation, KillAgentMutationVariables>;
export const RespawnAgentDocument = new TypedDocumentString(`
    mutation RespawnAgent($agentId: String!, $force: Boolean) {
  respawnAgent(input: {agentId: $agentId, force: $force}) {
    __typename
    ... on RespawnAgentPayload {
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<RespawnAgentMutation, RespawnAgentMutationVariables>;
export const RemoveAgentDocument = new TypedDocumentString(`
    mutation RemoveAgent($agentId: String!, $force: Boolean) {
  removeAgent(input: {agentId: $agentId, force: $force}) {
    __typename
    ... on RemoveAgentPayload {
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<RemoveAgentMutation, RemoveAgentMutationVariables>;
export const DrainAgentDocument = new TypedDocumentString(`
    mutation DrainAgent($agentId: String!, $timeoutMs: Int) {
  drainAgent(input: {agentId: $agentId, timeoutMs: $timeoutMs}) {
    __typename
    ... on DrainAgentPayload {
      killed
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<DrainAgentMutation, DrainAgentMutationVariables>;
export const SendAgentInputDocument = new TypedDocumentString(`
    mutation SendAgentInput($agentId: String!, $text: String!) {
  sendAgentInput(input: {agentId: $agentId, text: $text}) {
    __typename
    ... on SendAgentInputPayload {
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<SendAgentInputMutation, SendAgentInputMutationVariables>;
export const EndAgentInputDocument = new TypedDocumentString(`
    mutation EndAgentInput($agentId: String!) {
  endAgentInput(input: {agentId: $agentId}) {
    __typename
    ... on EndAgentInputPayload {
      agent {
        ...AgentSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment AgentSummary on Agent {
  id
  agentId
  name
  workspace {
    name
  }
  status
  terminal
  model
  interactive
  isolated
  startedAt
  finishedAt
  goneAt
  turns
  outcome
  outcomeName
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<EndAgentInputMutation, EndAgentInputMutationVariables>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    tokenId
    name
    role
    workspaces
    expiresAt
    authenticatedBy
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const TokensDocument = new TypedDocumentString(`
    query Tokens($includeRevoked: Boolean) {
  tokens(includeRevoked: $includeRevoked) {
    ...TokenFields
  }
}
    fragment TokenFields on ApiToken {
  id
  tokenId
  name
  role
  workspaces
  createdAt
  createdBy
  expiresAt
  lastUsedAt
  revokedAt
  active
  bootstrap
}`) as unknown as TypedDocumentString<TokensQuery, TokensQueryVariables>;
export const CreateTokenDocument = new TypedDocumentString(`
    mutation CreateToken($input: CreateTokenInput!) {
  createToken(input: $input) {
    __typename
    ... on CreateTokenPayload {
      secret
      token {
        ...TokenFields
      }
    }
    ...ErrorFields
  }
}
    fragment TokenFields on ApiToken {
  id
  tokenId
  name
  role
  workspaces
  createdAt
  createdBy
  expiresAt
  lastUsedAt
  revokedAt
  active
  bootstrap
}
fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}`) as unknown as TypedDocumentString<CreateTokenMutation, CreateTokenMutationVariables>;
export const RevokeTokenDocument = new TypedDocumentString(`
    mutation RevokeToken($token: String!) {
  revokeToken(input: {token: $token}) {
    __typename
    ... on RevokeTokenPayload {
      token {
        ...TokenFields
      }
    }
    ...ErrorFields
  }
}
    fragment TokenFields on ApiToken {
  id
  tokenId
  name
  role
  workspaces
  createdAt
  createdBy
  expiresAt
  lastUsedAt
  revokedAt
  active
  bootstrap
}
fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}`) as unknown as TypedDocumentString<RevokeTokenMutation, RevokeTokenMutationVariables>;
export const AuditLogDocument = new TypedDocumentString(`
    query AuditLog($filter: AuditFilter, $first: Int, $after: String) {
  auditLog(filter: $filter, first: $first, after: $after) {
    totalCount
    edges {
      cursor
      node {
        id
        position
        ts
        tokenName
        tokenId
        role
        remoteAddress
        operation
        operationName
        workspace
        agentId
        args
        result
        denied
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<AuditLogQuery, AuditLogQueryVariables>;
export const AgentChangesDocument = new TypedDocumentString(`
    query AgentChanges($agentId: String!) {
  agent(agentId: $agentId) {
    agentId
    name
    status
    terminal
    workspace {
      name
    }
    changes {
      ...RunChangesFields
    }
  }
}
    fragment RunChangesFields on RunChanges {
  state
  reason
  baseCommit
  headCommit
  ref
  trigger
  turnIndex
  snapshots
  final
  capturedAt
  fileCount
  additions
  deletions
  skippedFiles
  skippedBytes
  capNote
  overlaps {
    agent {
      agentId
      name
      status
    }
    files
    fileCount
  }
  applied {
    branch
    commit
    at
    by
  }
}`) as unknown as TypedDocumentString<AgentChangesQuery, AgentChangesQueryVariables>;
export const AgentChangedFilesDocument = new TypedDocumentString(`
    query AgentChangedFiles($agentId: String!, $first: Int, $after: String) {
  agent(agentId: $agentId) {
    agentId
    changes {
      state
      files(first: $first, after: $after) {
        totalCount
        edges {
          cursor
          node {
            ...ChangedFileFields
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
}
    fragment ChangedFileFields on ChangedFile {
  path
  status
  additions
  deletions
  binary
}`) as unknown as TypedDocumentString<AgentChangedFilesQuery, AgentChangedFilesQueryVariables>;
export const AgentPatchDocument = new TypedDocumentString(`
    query AgentPatch($agentId: String!, $first: Int, $after: String) {
  agent(agentId: $agentId) {
    agentId
    changes {
      state
      reason
      patch(first: $first, after: $after) {
        totalCount
        edges {
          cursor
          node {
            ...FilePatchFields
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
}
    fragment FilePatchFields on FilePatch {
  path
  status
  additions
  deletions
  binary
  text
  truncated
  omitted
}`) as unknown as TypedDocumentString<AgentPatchQuery, AgentPatchQueryVariables>;
export const WorkspaceChangesDocument = new TypedDocumentString(`
    query WorkspaceChanges($name: String!) {
  workspace(name: $name) {
    name
    changeCapture {
      enabled
      active
      reason
    }
    changeOverlaps {
      a {
        agentId
        name
        status
      }
      b {
        agentId
        name
        status
      }
      files
      fileCount
    }
  }
}
    `) as unknown as TypedDocumentString<WorkspaceChangesQuery, WorkspaceChangesQueryVariables>;
export const ApplyChangesDocument = new TypedDocumentString(`
    mutation ApplyChanges($agentId: String!, $branch: String!) {
  applyChanges(input: {agentId: $agentId, branch: $branch}) {
    __typename
    ... on ApplyChangesPayload {
      branch
      commit
      agent {
        agentId
        name
        workspace {
          name
          root
        }
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}`) as unknown as TypedDocumentString<ApplyChangesMutation, ApplyChangesMutationVariables>;
export const SetChangeCaptureDocument = new TypedDocumentString(`
    mutation SetChangeCapture($workspace: String!, $enabled: Boolean!) {
  setChangeCapture(input: {workspace: $workspace, enabled: $enabled}) {
    __typename
    ... on SetChangeCapturePayload {
      workspace {
        name
        changeCapture {
          enabled
          active
          reason
        }
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}`) as unknown as TypedDocumentString<SetChangeCaptureMutation, SetChangeCaptureMutationVariables>;
export const AgentEventsPageDocument = new TypedDocumentString(`
    query AgentEventsPage($agentId: String!, $after: String, $first: Int, $kinds: [EventKind!]) {
  events(
    of: {agentId: $agentId}
    after: $after
    first: $first
    filter: {kinds: $kinds}
  ) {
    nodes {
      ...TimelineEvent
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment TimelineEvent on FleetEvent {
  __typename
  id
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
  }
  ... on AgentDiscoveredEvent {
    name
    discoveredStatus: status
  }
  ... on StatusChangedEvent {
    from
    to
  }
  ... on TurnStartedEvent {
    turnIndex
    turnModel: model
    messageId
  }
  ... on OutputEvent {
    turnIndex
    blockIndex
    stream
    text
  }
  ... on ToolStartedEvent {
    turnIndex
    toolUseId
    name
  }
  ... on ToolFinishedEvent {
    turnIndex
    toolUseId
    name
    ok
    input
    inputRaw
    resultText
    truncated
    durationMs
  }
  ... on TurnCompletedEvent {
    turnIndex
    model
    stopReason
    stopReasonName
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
    outcomeName
    outcomeDetail: detail
    turns
    model
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on InputSentEvent {
    text
  }
  ... on InputEndedEvent {
    ended
  }
  ... on InputFailedEvent {
    undeliveredText: text
    reason
  }
  ... on AgentGoneEvent {
    goneReason: reason
    replacedBy
  }
  ... on IngestGapEvent {
    detail
    missedLines
  }
  ... on StorePersistFailedEvent {
    detail
    lostSeq
  }
  ... on WorkspaceHealthEvent {
    state
    healthReason: reason
  }
  ... on WorkerLogEvent {
    endStatus: status
    logTail
    logTruncated
    logBytes
    exitCode
    logReason: reason
  }
  ... on GapEvent {
    gapReason: reason
  }
}`) as unknown as TypedDocumentString<AgentEventsPageQuery, AgentEventsPageQueryVariables>;
export const AgentEventsDocument = new TypedDocumentString(`
    subscription AgentEvents($agentId: String!, $after: String) {
  agentEvents(agentId: $agentId, after: $after) {
    ...TimelineEvent
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment TimelineEvent on FleetEvent {
  __typename
  id
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
  }
  ... on AgentDiscoveredEvent {
    name
    discoveredStatus: status
  }
  ... on StatusChangedEvent {
    from
    to
  }
  ... on TurnStartedEvent {
    turnIndex
    turnModel: model
    messageId
  }
  ... on OutputEvent {
    turnIndex
    blockIndex
    stream
    text
  }
  ... on ToolStartedEvent {
    turnIndex
    toolUseId
    name
  }
  ... on ToolFinishedEvent {
    turnIndex
    toolUseId
    name
    ok
    input
    inputRaw
    resultText
    truncated
    durationMs
  }
  ... on TurnCompletedEvent {
    turnIndex
    model
    stopReason
    stopReasonName
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
    outcomeName
    outcomeDetail: detail
    turns
    model
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on InputSentEvent {
    text
  }
  ... on InputEndedEvent {
    ended
  }
  ... on InputFailedEvent {
    undeliveredText: text
    reason
  }
  ... on AgentGoneEvent {
    goneReason: reason
    replacedBy
  }
  ... on IngestGapEvent {
    detail
    missedLines
  }
  ... on StorePersistFailedEvent {
    detail
    lostSeq
  }
  ... on WorkspaceHealthEvent {
    state
    healthReason: reason
  }
  ... on WorkerLogEvent {
    endStatus: status
    logTail
    logTruncated
    logBytes
    exitCode
    logReason: reason
  }
  ... on GapEvent {
    gapReason: reason
  }
}`) as unknown as TypedDocumentString<AgentEventsSubscription, AgentEventsSubscriptionVariables>;
export const HealthDocument = new TypedDocumentString(`
    query Health($refresh: Boolean) {
  health(refresh: $refresh) {
    ok
    checkedAt
    results {
      ...HealthCheckResultFields
    }
    failing {
      ...HealthCheckResultFields
    }
    thresholds {
      ...HealthThresholdFields
    }
  }
}
    fragment HealthCheckResultFields on HealthCheckResult {
  check
  subject
  workspace {
    name
  }
  ok
  value
  threshold
  unit
  message
  since
}
fragment HealthThresholdFields on HealthThreshold {
  check
  value
  defaultValue
  min
  max
  unit
  isDefault
  description
}`) as unknown as TypedDocumentString<HealthQuery, HealthQueryVariables>;
export const SetHealthThresholdDocument = new TypedDocumentString(`
    mutation SetHealthThreshold($check: HealthCheckKind!, $value: Float) {
  setHealthThreshold(input: {check: $check, value: $value}) {
    __typename
    ... on SetHealthThresholdPayload {
      threshold {
        ...HealthThresholdFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment HealthThresholdFields on HealthThreshold {
  check
  value
  defaultValue
  min
  max
  unit
  isDefault
  description
}`) as unknown as TypedDocumentString<SetHealthThresholdMutation, SetHealthThresholdMutationVariables>;
export const InboxDocument = new TypedDocumentString(`
    query Inbox($filter: InboxFilter, $first: Int, $after: String) {
  inbox(filter: $filter, first: $first, after: $after) {
    totalCount
    openCount
    edges {
      cursor
      node {
        ...InboxItemFields
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}`) as unknown as TypedDocumentString<InboxQuery, InboxQueryVariables>;
export const AnswerInboxItemDocument = new TypedDocumentString(`
    mutation AnswerInboxItem($item: ID!, $text: String!) {
  answerInboxItem(input: {item: $item, text: $text}) {
    __typename
    ... on AnswerInboxItemPayload {
      item {
        ...InboxItemFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}`) as unknown as TypedDocumentString<AnswerInboxItemMutation, AnswerInboxItemMutationVariables>;
export const ApproveInboxItemDocument = new TypedDocumentString(`
    mutation ApproveInboxItem($item: ID!, $text: String) {
  approveInboxItem(input: {item: $item, text: $text}) {
    __typename
    ... on ApproveInboxItemPayload {
      item {
        ...InboxItemFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}`) as unknown as TypedDocumentString<ApproveInboxItemMutation, ApproveInboxItemMutationVariables>;
export const AcknowledgeInboxItemDocument = new TypedDocumentString(`
    mutation AcknowledgeInboxItem($item: ID!) {
  acknowledgeInboxItem(input: {item: $item}) {
    __typename
    ... on AcknowledgeInboxItemPayload {
      item {
        ...InboxItemFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}`) as unknown as TypedDocumentString<AcknowledgeInboxItemMutation, AcknowledgeInboxItemMutationVariables>;
export const SnoozeInboxItemDocument = new TypedDocumentString(`
    mutation SnoozeInboxItem($item: ID!, $until: DateTime!) {
  snoozeInboxItem(input: {item: $item, until: $until}) {
    __typename
    ... on SnoozeInboxItemPayload {
      item {
        ...InboxItemFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}`) as unknown as TypedDocumentString<SnoozeInboxItemMutation, SnoozeInboxItemMutationVariables>;
export const DismissInboxItemDocument = new TypedDocumentString(`
    mutation DismissInboxItem($item: ID!) {
  dismissInboxItem(input: {item: $item}) {
    __typename
    ... on DismissInboxItemPayload {
      item {
        ...InboxItemFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment InboxItemFields on InboxItem {
  id
  itemId
  kind
  state
  workspace {
    name
  }
  agent {
    agentId
    name
    status
  }
  launch {
    launchId
  }
  title
  body
  answerHint
  canAnswer
  canApprove
  check
  subject
  openedAt
  updatedAt
  snoozedUntil
  closedAt
  resolution
  closedBy
  closeReason
  escalations
  lastNotifiedAt
}`) as unknown as TypedDocumentString<DismissInboxItemMutation, DismissInboxItemMutationVariables>;
export const LaunchesDocument = new TypedDocumentString(`
    query Launches($filter: LaunchFilter, $first: Int, $after: String) {
  launches(filter: $filter, first: $first, after: $after) {
    totalCount
    edges {
      cursor
      node {
        ...LaunchSummary
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}
fragment LaunchSummary on Launch {
  id
  launchId
  workspace {
    name
  }
  state
  stateName
  priority
  dedupKey
  notBefore
  timeoutMs
  retry {
    maxAttempts
    backoffMs
    maxBackoffMs
  }
  attemptCount
  queuePosition
  waitingFor {
    ...LaunchWaitFields
  }
  reason
  retryAt
  spec {
    prompt
    label
    model
    provider
  }
  agent {
    agentId
    status
  }
  schedule {
    scheduleId
    name
  }
  createdBy
  createdAt
  dispatchedAt
  startedAt
  finishedAt
  updatedAt
}`) as unknown as TypedDocumentString<LaunchesQuery, LaunchesQueryVariables>;
export const LaunchDocument = new TypedDocumentString(`
    query Launch($launchId: String!, $transitionsFirst: Int, $transitionsAfter: String) {
  launch(launchId: $launchId) {
    ...LaunchSummary
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
    attempts {
      n
      kind
      agentId
      agent {
        agentId
        status
      }
      requestedAt
      endedAt
      outcome
      outcomeName
      error
      transient
      respawnOf
    }
    transitions(first: $transitionsFirst, after: $transitionsAfter) {
      totalCount
      edges {
        cursor
        node {
          from
          to
          reason
          attempt
          at
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
}
    fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}
fragment LaunchSummary on Launch {
  id
  launchId
  workspace {
    name
  }
  state
  stateName
  priority
  dedupKey
  notBefore
  timeoutMs
  retry {
    maxAttempts
    backoffMs
    maxBackoffMs
  }
  attemptCount
  queuePosition
  waitingFor {
    ...LaunchWaitFields
  }
  reason
  retryAt
  spec {
    prompt
    label
    model
    provider
  }
  agent {
    agentId
    status
  }
  schedule {
    scheduleId
    name
  }
  createdBy
  createdAt
  dispatchedAt
  startedAt
  finishedAt
  updatedAt
}`) as unknown as TypedDocumentString<LaunchQuery, LaunchQueryVariables>;
export const QueueStatusDocument = new TypedDocumentString(`
    query QueueStatus {
  queue {
    depth
    dispatched
    running
    oldestQueuedAt
    caps {
      ...CapFields
    }
    budgets {
      ...BudgetFields
    }
  }
}
    fragment CapFields on Cap {
  scope
  key
  max
  inUse
}
fragment BudgetFields on Budget {
  scope
  key
  period
  limitUsd
  spentUsd
  periodStart
  exhausted
}`) as unknown as TypedDocumentString<QueueStatusQuery, QueueStatusQueryVariables>;
export const EnqueueLaunchDocument = new TypedDocumentString(`
    mutation EnqueueLaunch($input: EnqueueLaunchInput!) {
  enqueueLaunch(input: $input) {
    __typename
    ... on EnqueueLaunchPayload {
      created
      launch {
        ...LaunchSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}
fragment LaunchSummary on Launch {
  id
  launchId
  workspace {
    name
  }
  state
  stateName
  priority
  dedupKey
  notBefore
  timeoutMs
  retry {
    maxAttempts
    backoffMs
    maxBackoffMs
  }
  attemptCount
  queuePosition
  waitingFor {
    ...LaunchWaitFields
  }
  reason
  retryAt
  spec {
    prompt
    label
    model
    provider
  }
  agent {
    agentId
    status
  }
  schedule {
    scheduleId
    name
  }
  createdBy
  createdAt
  dispatchedAt
  startedAt
  finishedAt
  updatedAt
}`) as unknown as TypedDocumentString<EnqueueLaunchMutation, EnqueueLaunchMutationVariables>;
export const CancelLaunchDocument = new TypedDocumentString(`
    mutation CancelLaunch($launchId: String!) {
  cancelLaunch(input: {launchId: $launchId}) {
    __typename
    ... on CancelLaunchPayload {
      launch {
        ...LaunchSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}
fragment LaunchSummary on Launch {
  id
  launchId
  workspace {
    name
  }
  state
  stateName
  priority
  dedupKey
  notBefore
  timeoutMs
  retry {
    maxAttempts
    backoffMs
    maxBackoffMs
  }
  attemptCount
  queuePosition
  waitingFor {
    ...LaunchWaitFields
  }
  reason
  retryAt
  spec {
    prompt
    label
    model
    provider
  }
  agent {
    agentId
    status
  }
  schedule {
    scheduleId
    name
  }
  createdBy
  createdAt
  dispatchedAt
  startedAt
  finishedAt
  updatedAt
}`) as unknown as TypedDocumentString<CancelLaunchMutation, CancelLaunchMutationVariables>;
export const SetCapDocument = new TypedDocumentString(`
    mutation SetCap($input: SetCapInput!) {
  setCap(input: $input) {
    __typename
    ... on SetCapPayload {
      cap {
        ...CapFields
      }
      caps {
        ...CapFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment CapFields on Cap {
  scope
  key
  max
  inUse
}`) as unknown as TypedDocumentString<SetCapMutation, SetCapMutationVariables>;
export const SetBudgetDocument = new TypedDocumentString(`
    mutation SetBudget($input: SetBudgetInput!) {
  setBudget(input: $input) {
    __typename
    ... on SetBudgetPayload {
      budget {
        ...BudgetFields
      }
      budgets {
        ...BudgetFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment BudgetFields on Budget {
  scope
  key
  period
  limitUsd
  spentUsd
  periodStart
  exhausted
}`) as unknown as TypedDocumentString<SetBudgetMutation, SetBudgetMutationVariables>;
export const RunReportDocument = new TypedDocumentString(`
    query RunReport($agentId: String!) {
  agent(agentId: $agentId) {
    id
    agentId
    name
    workspace {
      name
    }
    report {
      final
      status
      outcome
      outcomeName
      outcomeDetail
      failure {
        logTail
        logTruncated
        exitCode
        reason
      }
      startedAt
      finishedAt
      durationMs
      turns
      usage {
        ...TokenUsageFields
      }
      estimatedCostUsd
      toolCalls {
        name
        calls
        failures
      }
      toolCallCount
      toolFailureCount
      changes
      changesReason
      filesChanged
      additions
      deletions
      files {
        path
        status
        additions
        deletions
        binary
      }
      finalMessage
      markdown
    }
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}`) as unknown as TypedDocumentString<RunReportQuery, RunReportQueryVariables>;
export const SchedulesDocument = new TypedDocumentString(`
    query Schedules($filter: ScheduleFilter, $first: Int, $after: String) {
  schedules(filter: $filter, first: $first, after: $after) {
    totalCount
    edges {
      cursor
      node {
        ...ScheduleSummary
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<SchedulesQuery, SchedulesQueryVariables>;
export const ScheduleDocument = new TypedDocumentString(`
    query Schedule($scheduleId: String!, $upcoming: Int, $firingsLast: Int) {
  schedule(scheduleId: $scheduleId) {
    ...ScheduleSummary
    upcoming(count: $upcoming)
    firings(last: $firingsLast) {
      totalCount
      edges {
        cursor
        node {
          fireAt
          at
          trigger
          skippedReason
          launch {
            launchId
            state
          }
        }
      }
    }
  }
}
    fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<ScheduleQuery, ScheduleQueryVariables>;
export const CreateScheduleDocument = new TypedDocumentString(`
    mutation CreateSchedule($input: CreateScheduleInput!) {
  createSchedule(input: $input) {
    __typename
    ... on CreateSchedulePayload {
      schedule {
        ...ScheduleSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<CreateScheduleMutation, CreateScheduleMutationVariables>;
export const PauseScheduleDocument = new TypedDocumentString(`
    mutation PauseSchedule($scheduleId: String!) {
  pauseSchedule(input: {scheduleId: $scheduleId}) {
    __typename
    ... on PauseSchedulePayload {
      schedule {
        ...ScheduleSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<PauseScheduleMutation, PauseScheduleMutationVariables>;
export const ResumeScheduleDocument = new TypedDocumentString(`
    mutation ResumeSchedule($scheduleId: String!) {
  resumeSchedule(input: {scheduleId: $scheduleId}) {
    __typename
    ... on ResumeSchedulePayload {
      schedule {
        ...ScheduleSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<ResumeScheduleMutation, ResumeScheduleMutationVariables>;
export const DeleteScheduleDocument = new TypedDocumentString(`
    mutation DeleteSchedule($scheduleId: String!) {
  deleteSchedule(input: {scheduleId: $scheduleId}) {
    __typename
    ... on DeleteSchedulePayload {
      schedule {
        ...ScheduleSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<DeleteScheduleMutation, DeleteScheduleMutationVariables>;
export const RunScheduleDocument = new TypedDocumentString(`
    mutation RunSchedule($scheduleId: String!) {
  runSchedule(input: {scheduleId: $scheduleId}) {
    __typename
    ... on RunSchedulePayload {
      schedule {
        ...ScheduleSummary
      }
      launch {
        ...LaunchSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment LaunchWaitFields on LaunchWait {
  kind
  message
  until
  scope
  key
  inUse
  max
  spentUsd
  limitUsd
  period
}
fragment LaunchSummary on Launch {
  id
  launchId
  workspace {
    name
  }
  state
  stateName
  priority
  dedupKey
  notBefore
  timeoutMs
  retry {
    maxAttempts
    backoffMs
    maxBackoffMs
  }
  attemptCount
  queuePosition
  waitingFor {
    ...LaunchWaitFields
  }
  reason
  retryAt
  spec {
    prompt
    label
    model
    provider
  }
  agent {
    agentId
    status
  }
  schedule {
    scheduleId
    name
  }
  createdBy
  createdAt
  dispatchedAt
  startedAt
  finishedAt
  updatedAt
}
fragment ScheduleSummary on Schedule {
  id
  scheduleId
  name
  workspace {
    name
  }
  cron
  timeZone
  overlap
  missed
  paused
  nextFireAt
  lastFireAt
  deletedAt
  createdBy
  createdAt
  updatedAt
  template {
    priority
    timeoutMs
    retry {
      maxAttempts
      backoffMs
      maxBackoffMs
    }
    spec {
      prompt
      label
      model
      provider
    }
  }
}`) as unknown as TypedDocumentString<RunScheduleMutation, RunScheduleMutationVariables>;
export const StatusDocument = new TypedDocumentString(`
    query Status {
  version
  readiness {
    ready
    migrationsApplied
    storeWritable
    workspacesTotal
    workspacesHealthy
    workspacesUnreachable
  }
  fleet {
    host
  }
  workspaces {
    name
    root
    remote {
      endpoint
    }
    health {
      state
      reason
      since
    }
  }
  metrics {
    eventsAppendedTotal
    appendFailuresTotal
    framesIngestedTotal
    unknownFramesTotal
    invalidLinesTotal
    pollsTotal
    pollFailuresTotal
    ingestGapsTotal
    ingestCommitFailuresTotal
    activeAttaches
    ingestLagBytes
    busSubscribers
    busDroppedTotal
  }
}
    `) as unknown as TypedDocumentString<StatusQuery, StatusQueryVariables>;
export const AgentStatusesDocument = new TypedDocumentString(`
    query AgentStatuses($first: Int, $after: String) {
  agents(first: $first, after: $after, filter: {includeGone: false}) {
    edges {
      node {
        status
        workspace {
          name
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<AgentStatusesQuery, AgentStatusesQueryVariables>;
export const WorkspaceEventsDocument = new TypedDocumentString(`
    subscription WorkspaceEvents($workspace: String!, $after: String) {
  workspaceEvents(workspace: $workspace, after: $after) {
    ...TimelineEvent
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment TimelineEvent on FleetEvent {
  __typename
  id
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
  }
  ... on AgentDiscoveredEvent {
    name
    discoveredStatus: status
  }
  ... on StatusChangedEvent {
    from
    to
  }
  ... on TurnStartedEvent {
    turnIndex
    turnModel: model
    messageId
  }
  ... on OutputEvent {
    turnIndex
    blockIndex
    stream
    text
  }
  ... on ToolStartedEvent {
    turnIndex
    toolUseId
    name
  }
  ... on ToolFinishedEvent {
    turnIndex
    toolUseId
    name
    ok
    input
    inputRaw
    resultText
    truncated
    durationMs
  }
  ... on TurnCompletedEvent {
    turnIndex
    model
    stopReason
    stopReasonName
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
    outcomeName
    outcomeDetail: detail
    turns
    model
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on InputSentEvent {
    text
  }
  ... on InputEndedEvent {
    ended
  }
  ... on InputFailedEvent {
    undeliveredText: text
    reason
  }
  ... on AgentGoneEvent {
    goneReason: reason
    replacedBy
  }
  ... on IngestGapEvent {
    detail
    missedLines
  }
  ... on StorePersistFailedEvent {
    detail
    lostSeq
  }
  ... on WorkspaceHealthEvent {
    state
    healthReason: reason
  }
  ... on WorkerLogEvent {
    endStatus: status
    logTail
    logTruncated
    logBytes
    exitCode
    logReason: reason
  }
  ... on GapEvent {
    gapReason: reason
  }
}`) as unknown as TypedDocumentString<WorkspaceEventsSubscription, WorkspaceEventsSubscriptionVariables>;
export const FleetEventsDocument = new TypedDocumentString(`
    subscription FleetEvents($filter: FleetEventFilter, $after: String) {
  fleetEvents(filter: $filter, after: $after) {
    ...TimelineEvent
  }
}
    fragment TokenUsageFields on TokenUsage {
  inputTokens
  outputTokens
  cacheReadTokens
  cacheCreationTokens
}
fragment TimelineEvent on FleetEvent {
  __typename
  id
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec {
      prompt
      model
      provider
      toolAllowlist
      source
      label
      frontmatterPath
      isolated
      interactive
    }
  }
  ... on AgentDiscoveredEvent {
    name
    discoveredStatus: status
  }
  ... on StatusChangedEvent {
    from
    to
  }
  ... on TurnStartedEvent {
    turnIndex
    turnModel: model
    messageId
  }
  ... on OutputEvent {
    turnIndex
    blockIndex
    stream
    text
  }
  ... on ToolStartedEvent {
    turnIndex
    toolUseId
    name
  }
  ... on ToolFinishedEvent {
    turnIndex
    toolUseId
    name
    ok
    input
    inputRaw
    resultText
    truncated
    durationMs
  }
  ... on TurnCompletedEvent {
    turnIndex
    model
    stopReason
    stopReasonName
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
    outcomeName
    outcomeDetail: detail
    turns
    model
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on InputSentEvent {
    text
  }
  ... on InputEndedEvent {
    ended
  }
  ... on InputFailedEvent {
    undeliveredText: text
    reason
  }
  ... on AgentGoneEvent {
    goneReason: reason
    replacedBy
  }
  ... on IngestGapEvent {
    detail
    missedLines
  }
  ... on StorePersistFailedEvent {
    detail
    lostSeq
  }
  ... on WorkspaceHealthEvent {
    state
    healthReason: reason
  }
  ... on WorkerLogEvent {
    endStatus: status
    logTail
    logTruncated
    logBytes
    exitCode
    logReason: reason
  }
  ... on GapEvent {
    gapReason: reason
  }
}`) as unknown as TypedDocumentString<FleetEventsSubscription, FleetEventsSubscriptionVariables>;
export const UsageDocument = new TypedDocumentString(`
    query Usage($since: DateTime, $until: DateTime, $groupBy: [UsageGroupBy!]) {
  usage(since: $since, until: $until, groupBy: $groupBy) {
    workspace
    model
    day
    inputTokens
    outputTokens
    cacheReadTokens
    cacheCreationTokens
    estimatedCostUsd
    unpricedTurns
    turns
    outcomes {
      done
      failed
      killed
      crashed
    }
  }
}
    `) as unknown as TypedDocumentString<UsageQuery, UsageQueryVariables>;
export const WebhooksDocument = new TypedDocumentString(`
    query Webhooks($first: Int, $after: String) {
  webhooks(first: $first, after: $after) {
    totalCount
    edges {
      cursor
      node {
        ...WebhookFields
        lastDelivery {
          ...WebhookDeliveryFields
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    fragment WebhookFields on Webhook {
  id
  webhookId
  name
  url
  format
  events
  enabled
  createdAt
  createdBy
}
fragment WebhookDeliveryFields on WebhookDelivery {
  id
  deliveryId
  eventType
  notificationId
  state
  attempts
  lastStatus
  lastError
  createdAt
  lastAttemptAt
  nextAttemptAt
  deliveredAt
}`) as unknown as TypedDocumentString<WebhooksQuery, WebhooksQueryVariables>;
export const WebhookDocument = new TypedDocumentString(`
    query Webhook($id: ID!, $deliveriesFirst: Int) {
  webhook(id: $id) {
    ...WebhookFields
    deliveries(first: $deliveriesFirst) {
      totalCount
      edges {
        cursor
        node {
          ...WebhookDeliveryFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
}
    fragment WebhookFields on Webhook {
  id
  webhookId
  name
  url
  format
  events
  enabled
  createdAt
  createdBy
}
fragment WebhookDeliveryFields on WebhookDelivery {
  id
  deliveryId
  eventType
  notificationId
  state
  attempts
  lastStatus
  lastError
  createdAt
  lastAttemptAt
  nextAttemptAt
  deliveredAt
}`) as unknown as TypedDocumentString<WebhookQuery, WebhookQueryVariables>;
export const CreateWebhookDocument = new TypedDocumentString(`
    mutation CreateWebhook($input: CreateWebhookInput!) {
  createWebhook(input: $input) {
    __typename
    ... on CreateWebhookPayload {
      webhook {
        ...WebhookFields
      }
      secret
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment WebhookFields on Webhook {
  id
  webhookId
  name
  url
  format
  events
  enabled
  createdAt
  createdBy
}`) as unknown as TypedDocumentString<CreateWebhookMutation, CreateWebhookMutationVariables>;
export const UpdateWebhookDocument = new TypedDocumentString(`
    mutation UpdateWebhook($input: UpdateWebhookInput!) {
  updateWebhook(input: $input) {
    __typename
    ... on UpdateWebhookPayload {
      webhook {
        ...WebhookFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment WebhookFields on Webhook {
  id
  webhookId
  name
  url
  format
  events
  enabled
  createdAt
  createdBy
}`) as unknown as TypedDocumentString<UpdateWebhookMutation, UpdateWebhookMutationVariables>;
export const DeleteWebhookDocument = new TypedDocumentString(`
    mutation DeleteWebhook($webhook: ID!) {
  deleteWebhook(input: {webhook: $webhook}) {
    __typename
    ... on DeleteWebhookPayload {
      webhook {
        ...WebhookFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment WebhookFields on Webhook {
  id
  webhookId
  name
  url
  format
  events
  enabled
  createdAt
  createdBy
}`) as unknown as TypedDocumentString<DeleteWebhookMutation, DeleteWebhookMutationVariables>;
export const TestWebhookDocument = new TypedDocumentString(`
    mutation TestWebhook($webhook: ID!) {
  testWebhook(input: {webhook: $webhook}) {
    __typename
    ... on TestWebhookPayload {
      delivery {
        ...WebhookDeliveryFields
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment WebhookDeliveryFields on WebhookDelivery {
  id
  deliveryId
  eventType
  notificationId
  state
  attempts
  lastStatus
  lastError
  createdAt
  lastAttemptAt
  nextAttemptAt
  deliveredAt
}`) as unknown as TypedDocumentString<TestWebhookMutation, TestWebhookMutationVariables>;
export const WorkspacesDocument = new TypedDocumentString(`
    query Workspaces {
  workspaces {
    ...WorkspaceSummary
  }
}
    fragment ProviderConfigFields on ProviderConfig {
  provider
  model
  baseUrl
  apiKeyFromEnv
  apiKeySet
  env {
    name
    valueSet
  }
}
fragment WorkspaceSummary on Workspace {
  id
  name
  root
  registered
  registeredAt
  health {
    state
    reason
    since
  }
  config {
    ...ProviderConfigFields
  }
  pendingConfig {
    ...ProviderConfigFields
  }
  remote {
    endpoint
    serverName
    credentials {
      directory
      tokenFile
      tokenFromEnv
    }
  }
}`) as unknown as TypedDocumentString<WorkspacesQuery, WorkspacesQueryVariables>;
export const WorkspaceDocument = new TypedDocumentString(`
    query Workspace($name: String!) {
  workspace(name: $name) {
    ...WorkspaceSummary
  }
}
    fragment ProviderConfigFields on ProviderConfig {
  provider
  model
  baseUrl
  apiKeyFromEnv
  apiKeySet
  env {
    name
    valueSet
  }
}
fragment WorkspaceSummary on Workspace {
  id
  name
  root
  registered
  registeredAt
  health {
    state
    reason
    since
  }
  config {
    ...ProviderConfigFields
  }
  pendingConfig {
    ...ProviderConfigFields
  }
  remote {
    endpoint
    serverName
    credentials {
      directory
      tokenFile
      tokenFromEnv
    }
  }
}`) as unknown as TypedDocumentString<WorkspaceQuery, WorkspaceQueryVariables>;
export const AddWorkspaceDocument = new TypedDocumentString(`
    mutation AddWorkspace($name: String!, $root: String!, $config: ProviderConfigInput, $remote: RemoteCalibandInput) {
  addWorkspace(
    input: {name: $name, root: $root, config: $config, remote: $remote}
  ) {
    __typename
    ... on AddWorkspacePayload {
      created
      workspace {
        ...WorkspaceSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment ProviderConfigFields on ProviderConfig {
  provider
  model
  baseUrl
  apiKeyFromEnv
  apiKeySet
  env {
    name
    valueSet
  }
}
fragment WorkspaceSummary on Workspace {
  id
  name
  root
  registered
  registeredAt
  health {
    state
    reason
    since
  }
  config {
    ...ProviderConfigFields
  }
  pendingConfig {
    ...ProviderConfigFields
  }
  remote {
    endpoint
    serverName
    credentials {
      directory
      tokenFile
      tokenFromEnv
    }
  }
}`) as unknown as TypedDocumentString<AddWorkspaceMutation, AddWorkspaceMutationVariables>;
export const RemoveWorkspaceDocument = new TypedDocumentString(`
    mutation RemoveWorkspace($name: String!) {
  removeWorkspace(input: {workspace: $name}) {
    __typename
    ... on RemoveWorkspacePayload {
      workspace {
        name
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}`) as unknown as TypedDocumentString<RemoveWorkspaceMutation, RemoveWorkspaceMutationVariables>;
export const UpdateWorkspaceConfigDocument = new TypedDocumentString(`
    mutation UpdateWorkspaceConfig($name: String!, $config: ProviderConfigInput!, $force: Boolean) {
  updateWorkspaceConfig(input: {workspace: $name, config: $config, force: $force}) {
    __typename
    ... on UpdateWorkspaceConfigPayload {
      applied
      pendingOn
      orphaned
      workspace {
        ...WorkspaceSummary
      }
    }
    ...ErrorFields
  }
}
    fragment ErrorFields on Error {
  __typename
  code
  message
  ... on NotFoundError {
    entity
    key
  }
  ... on InvalidStateError {
    status
  }
  ... on UnreachableError {
    endpoint
    reason
  }
  ... on CalibandNotInstalledError {
    bin
    errno
    hint
    nextAttemptAt
  }
  ... on DaemonStartFailedError {
    endpoint
    reason
    logPath
    exitCode
    signal
    nextAttemptAt
  }
  ... on ProviderMisconfiguredError {
    field
  }
  ... on ValidationError {
    fieldErrors {
      path
      message
    }
  }
  ... on ForbiddenError {
    requiredRole
    workspaceName
  }
}
fragment ProviderConfigFields on ProviderConfig {
  provider
  model
  baseUrl
  apiKeyFromEnv
  apiKeySet
  env {
    name
    valueSet
  }
}
fragment WorkspaceSummary on Workspace {
  id
  name
  root
  registered
  registeredAt
  health {
    state
    reason
    since
  }
  config {
    ...ProviderConfigFields
  }
  pendingConfig {
    ...ProviderConfigFields
  }
  remote {
    endpoint
    serverName
    credentials {
      directory
      tokenFile
      tokenFromEnv
    }
  }
}`) as unknown as TypedDocumentString<UpdateWorkspaceConfigMutation, UpdateWorkspaceConfigMutationVariables>;