/**
 * Shapes of the GraphQL results the dashboard reads, written by hand to match the documents in
 * `documents.ts` (the SDK's generated types belong to another package).
 */

/** caliband's agent status, as the schema's `AgentStatus` enum. */
export type AgentStatus =
  "SPAWNING" | "RUNNING" | "IDLE" | "DONE" | "FAILED" | "KILLED" | "CRASHED" | "UNKNOWN";

/** Every status, in the order the workspace cards list them. */
export const AGENT_STATUSES: readonly AgentStatus[] = [
  "SPAWNING",
  "RUNNING",
  "IDLE",
  "DONE",
  "FAILED",
  "KILLED",
  "CRASHED",
  "UNKNOWN",
];

/** The schema's `HealthState`. */
export type HealthState = "HEALTHY" | "UNREACHABLE" | "UNKNOWN";

/** The schema's `Provider` enum. */
export type Provider = "ANTHROPIC" | "OPENAI" | "OLLAMA" | "GOOGLE";

/** Every provider, for the launch form. */
export const PROVIDERS: readonly Provider[] = ["ANTHROPIC", "OPENAI", "OLLAMA", "GOOGLE"];

/** Token counts (`TokenUsage`). */
export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** Why a run ended FAILED or CRASHED (`RunFailure`): the end of its worker.log and the inferred exit code. */
export interface RunFailure {
  /** Last lines of worker.log (secrets redacted); null when it could not be read. */
  logTail: string | null;
  logTruncated: boolean;
  /** Inferred from the RunEnd's stop condition; null when not known. */
  exitCode: number | null;
  /** Why `logTail` is null. */
  reason: string | null;
}

/** The agent fields of `AGENT_FIELDS`. */
export interface Agent {
  /** Global Node id. */
  id: string;
  agentId: string;
  name: string;
  status: AgentStatus;
  terminal: boolean;
  interactive: boolean;
  isolated: boolean;
  model: string | null;
  outcome: string | null;
  startedAt: string;
  finishedAt: string | null;
  goneAt: string | null;
  turns: number;
  estimatedCostUsd: number | null;
  usage: TokenUsage;
  workspace: { name: string };
  spec: {
    prompt: string;
    label: string | null;
    model: string | null;
    provider: Provider | null;
    source: string | null;
    toolAllowlist: string[] | null;
  };
  respawnedFrom: { agentId: string } | null;
  /** Null unless the run ended FAILED or CRASHED. */
  failure: RunFailure | null;
}

/** Health of a workspace's daemon. */
export interface WorkspaceHealth {
  state: HealthState;
  reason: string | null;
  since: string;
}

/** One item of the `fleetChanges` subscription. */
export type FleetChange =
  | { __typename: "AgentAppeared"; seed: boolean; spawnedByProspero: boolean; agent: Agent }
  | { __typename: "AgentStatusChanged"; from: AgentStatus; to: AgentStatus; agent: Agent }
  | {
      __typename: "AgentGone";
      agentId: string;
      workspace: { name: string };
      reason: "REMOVED" | "RESPAWNED" | "VANISHED";
      replacedBy: string | null;
    }
  | {
      __typename: "WorkspaceHealthChanged";
      seed: boolean;
      health: WorkspaceHealth;
      workspace: { name: string; root: string };
    }
  | { __typename: "FleetSeedComplete"; fellBehind: boolean }
  | LaunchChanged
  | ScheduleChanged
  /** A run's captured changes changed (the agent view reads them again: agent-documents.ts). */
  | { __typename: "ChangesCaptured"; cursor: string; agentId: string };

/** A `LaunchChanged` item of `fleetChanges`: one launch moved from `from` to `to`. */
export interface LaunchChanged {
  __typename: "LaunchChanged";
  cursor: string;
  /** `from` (aliased apart from AgentStatusChanged's). */
  launchFrom: LaunchState | null;
  /** `to`. */
  launchTo: LaunchState;
  /** `reason`: which retry, why it failed, who cancelled it. */
  launchReason: string | null;
  attempt: number | null;
  /** The launch as stored when the item was delivered. */
  launch: Launch;
}

/** A `ScheduleChanged` item of `fleetChanges`. */
export interface ScheduleChanged {
  __typename: "ScheduleChanged";
  cursor: string;
  change: ScheduleChange;
  /** `reason`: why a fire time was skipped, or other detail. */
  scheduleReason: string | null;
  fireAt: string | null;
  /** The schedule as stored when the item was delivered (a deleted one too: `deletedAt`). */
  schedule: Schedule;
  /** `launch`: the launch a firing enqueued (FIRED). */
  firedLaunch: Launch | null;
}

/** Fields every fleet event has. */
interface EventBase {
  seq: number;
  cursor: string;
  ts: string;
}

/** One item of the `agentEvents` subscription (the kinds the timeline shows; others are skipped). */
export type FleetEvent = EventBase &
  (
    | { __typename: "AgentSpawnedEvent"; name: string }
    | { __typename: "AgentDiscoveredEvent"; name: string; discoveredStatus: AgentStatus }
    | { __typename: "StatusChangedEvent"; from: AgentStatus; to: AgentStatus }
    | { __typename: "TurnStartedEvent"; turnIndex: number; startModel: string }
    | {
        __typename: "OutputEvent";
        turnIndex: number;
        blockIndex: number;
        stream: "TEXT" | "THINKING";
        text: string;
      }
    | { __typename: "ToolStartedEvent"; turnIndex: number; toolUseId: string; name: string }
    | {
        __typename: "ToolFinishedEvent";
        turnIndex: number;
        toolUseId: string;
        name: string;
        input: unknown;
        inputRaw: string;
        ok: boolean;
        resultText: string;
        truncated: boolean;
        durationMs: number | null;
      }
    | {
        __typename: "TurnCompletedEvent";
        turnIndex: number;
        turnModel: string | null;
        stopReason: string;
        usage: TokenUsage;
        estimatedCostUsd: number | null;
        ttftMs: number | null;
      }
    | {
        __typename: "AgentFinishedEvent";
        outcome: string;
        detail: string | null;
        turns: number;
        runModel: string | null;
        usage: TokenUsage;
        estimatedCostUsd: number | null;
      }
    | { __typename: "InputSentEvent"; text: string }
    | { __typename: "InputEndedEvent" }
    | { __typename: "InputFailedEvent"; undeliveredText: string | null; reason: string }
    | {
        __typename: "AgentGoneEvent";
        goneReason: "REMOVED" | "RESPAWNED" | "VANISHED";
        replacedBy: string | null;
      }
    | { __typename: "IngestGapEvent"; gapDetail: string; missedLines: number | null }
    | { __typename: "StorePersistFailedEvent"; failDetail: string; lostSeq: number }
    | {
        __typename: "WorkerLogEvent";
        endStatus: AgentStatus;
        logTail: string | null;
        logTruncated: boolean;
        exitCode: number | null;
        logReason: string | null;
      }
    | { __typename: "GapEvent"; reason: string }
    | { __typename: "WorkspaceHealthEvent" }
  );

/** A typed mutation error (`... on Error { code message }`). */
export interface MutationError {
  __typename: string;
  code: string;
  message: string;
  fieldErrors?: { path: string[]; message: string }[];
}

/** The schema's `LaunchState`: QUEUED → DISPATCHED → RUNNING → one of the four final states. */
export type LaunchState =
  "QUEUED" | "DISPATCHED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "CANCELLED" | "UNKNOWN";

/** States a launch never leaves (UNKNOWN counts as final: nothing can be done with it). */
export const FINAL_LAUNCH_STATES: ReadonlySet<LaunchState> = new Set([
  "SUCCEEDED",
  "FAILED",
  "TIMED_OUT",
  "CANCELLED",
  "UNKNOWN",
]);

/** The schema's `WaitKind`. */
export type WaitKind =
  | "CAP"
  | "BUDGET"
  | "NOT_BEFORE"
  | "RETRY_BACKOFF"
  | "PROVIDER_BACKOFF"
  | "PREVIOUS_RUN"
  | "DAEMON_UNREACHABLE";

/** Why a queued launch waits (`LaunchWait`), as of the dispatcher's last pass. */
export interface LaunchWait {
  kind: WaitKind;
  /** In words, e.g. "cap global: 5 of 5 runs in use". */
  message: string;
  until: string | null;
  scope: string | null;
  key: string | null;
  inUse: number | null;
  max: number | null;
  spentUsd: number | null;
  limitUsd: number | null;
}

/** The launch fields of `LAUNCH_FIELDS` (queue tables and `LaunchChanged`). */
export interface Launch {
  /** Global Node id. */
  id: string;
  launchId: string;
  state: LaunchState;
  /** The stored state name (meaningful when `state` is UNKNOWN). */
  stateName: string;
  workspace: { name: string };
  spec: { prompt: string; label: string | null; model: string | null; provider: Provider | null };
  dedupKey: string | null;
  /** 0 (lowest) … 100 (highest). */
  priority: number;
  notBefore: string | null;
  timeoutMs: number | null;
  retry: { maxAttempts: number; backoffMs: number; maxBackoffMs: number };
  retryAt: string | null;
  attemptCount: number;
  /** 1-based among QUEUED launches in dispatch order; null unless QUEUED. */
  queuePosition: number | null;
  waitingFor: LaunchWait | null;
  reason: string | null;
  agent: { agentId: string; name: string; status: AgentStatus } | null;
  schedule: { scheduleId: string; name: string } | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  dispatchedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

/** The schema's `AttemptOutcome`. */
export type AttemptOutcome = "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "CANCELLED" | "LOST" | "UNKNOWN";

/** One attempt of a launch (`LaunchAttempt`). */
export interface LaunchAttempt {
  n: number;
  kind: string;
  agentId: string | null;
  agent: { agentId: string; name: string; status: AgentStatus } | null;
  requestedAt: string;
  endedAt: string | null;
  outcome: AttemptOutcome | null;
  outcomeName: string | null;
  error: string | null;
  transient: boolean | null;
  respawnOf: string | null;
}

/** One stored state change of a launch (`LaunchTransition`). */
export interface LaunchTransition {
  at: string;
  from: LaunchState | null;
  to: LaunchState;
  reason: string | null;
  attempt: number | null;
}

/** A launch with its attempts and transitions (the launch panel, `LAUNCH_QUERY`). */
export interface LaunchDetail extends Launch {
  spec: Launch["spec"] & {
    source: string | null;
    isolated: boolean;
    interactive: boolean;
    toolAllowlist: string[] | null;
  };
  attempts: LaunchAttempt[];
  transitions: { totalCount: number; edges: { node: LaunchTransition }[] };
}

/** The schema's `CapScope`. */
export type CapScope = "GLOBAL" | "WORKSPACE" | "PROVIDER" | "MODEL";

/** A concurrency cap with the live runs it counts (`Cap`). */
export interface Cap {
  scope: CapScope;
  key: string;
  max: number;
  inUse: number;
}

/** A spend budget with the current period's spend (`Budget`). */
export interface Budget {
  scope: "WORKSPACE" | "PROVIDER";
  key: string;
  period: "DAY" | "MONTH";
  limitUsd: number;
  spentUsd: number;
  periodStart: string;
  exhausted: boolean;
}

/** The queue at a glance (`Queue`). */
export interface QueueSummary {
  depth: number;
  running: number;
  dispatched: number;
  oldestQueuedAt: string | null;
  caps: Cap[];
  budgets: Budget[];
}

/** The schema's `ScheduleChange`. */
export type ScheduleChange =
  "CREATED" | "UPDATED" | "PAUSED" | "RESUMED" | "DELETED" | "FIRED" | "SKIPPED" | "UNKNOWN";

/** The schedule fields of `SCHEDULE_FIELDS`. */
export interface Schedule {
  /** Global Node id. */
  id: string;
  scheduleId: string;
  name: string;
  workspace: { name: string };
  cron: string;
  timeZone: string;
  overlap: "SKIP" | "QUEUE" | "ALLOW";
  missed: "SKIP" | "RUN_ONCE";
  paused: boolean;
  /** Null while paused or once deleted. */
  nextFireAt: string | null;
  lastFireAt: string | null;
  deletedAt: string | null;
  updatedAt: string;
  template: { priority: number; spec: { prompt: string; label: string | null } };
}

/** A page of a connection: its nodes and how many match in all. */
export interface Page<T> {
  totalCount: number;
  edges: { node: T }[];
}

/** What the queue view reads in one request (`QUEUE_QUERY`). */
export interface QueueSnapshot {
  queue: QueueSummary | null;
  waiting: Page<Launch> | null;
  active: Page<Launch> | null;
  recent: Page<Launch> | null;
  schedules: Page<Schedule> | null;
}

/** The schema's `InboxItemKind`: what an inbox item waits for. */
export type InboxItemKind = "QUESTION" | "PLAN" | "RUN_FAILED" | "ALERT" | "UNKNOWN";

/** The schema's `InboxItemState`: OPEN needs a person, SNOOZED is hidden until `snoozedUntil`. */
export type InboxItemState = "OPEN" | "SNOOZED" | "CLOSED" | "UNKNOWN";

/** The schema's `InboxResolution`: how an item closed. */
export type InboxResolution = "ANSWERED" | "APPROVED" | "ACKNOWLEDGED" | "DISMISSED" | "RESOLVED" | "UNKNOWN";

/** The schema's `InboxChangeKind`: what an `inboxChanges` item reports. */
export type InboxChangeKind = "OPENED" | "UPDATED" | "SNOOZED" | "REOPENED" | "ESCALATED" | "CLOSED";

/** The inbox item fields of `INBOX_ITEM_FIELDS` (the inbox view, `inboxChanges`, the mutations). */
export interface InboxItem {
  /** Global Node id. */
  id: string;
  /** 12 lowercase hex characters (the `#/inbox/<itemId>` route, the CLI's id). */
  itemId: string;
  kind: InboxItemKind;
  state: InboxItemState;
  /** Null for a fleet-wide alert. */
  workspace: { name: string } | null;
  /** The run concerned (questions, plans, failures, an alert about one run). */
  agent: { agentId: string; name: string; status: AgentStatus } | null;
  /** The run's launch, when it came from the queue. */
  launch: { launchId: string } | null;
  /** One line (from the agent or the monitor: untrusted text). */
  title: string;
  /** The question, the plan, the failure reason or the alert message (untrusted text). */
  body: string;
  /** What answering means, in words ("Send input to the agent"). */
  answerHint: string;
  canAnswer: boolean;
  canApprove: boolean;
  /** ALERT: the health check, e.g. `DAEMON_UNREACHABLE`. */
  check: string | null;
  /** ALERT: what the check is about (workspace, path, agent id); null = fleet-wide. */
  subject: string | null;
  openedAt: string;
  updatedAt: string;
  snoozedUntil: string | null;
  closedAt: string | null;
  resolution: InboxResolution | null;
  /** Token name of who closed it; null when it closed by itself. */
  closedBy: string | null;
  closeReason: string | null;
  /** Times it was notified again for being open too long. */
  escalations: number;
}

/** One item of the `inboxChanges` subscription. */
export interface InboxChanged {
  change: InboxChangeKind;
  /** The item as stored after the change. */
  item: InboxItem;
  /** OPEN items within the token's scope after the change (the header badge). */
  openCount: number;
}

/** What the inbox view reads in one request (`INBOX_QUERY`): OPEN and SNOOZED items. */
export interface InboxSnapshot {
  inbox: (Page<InboxItem> & { openCount: number }) | null;
}
