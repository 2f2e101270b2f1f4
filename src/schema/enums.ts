/** Enums shared by several schema modules. */
import { AGENT_STATUSES } from "../caliband/wire.js";
import { builder } from "./builder.js";

/** GraphQL agent statuses: caliband's (protocol §2.1) upper-cased, plus UNKNOWN for future values. */
export const AgentStatusEnum = builder.enumType("AgentStatus", {
  description:
    "The status of an agent run as its caliband reports it (or as Prospero concluded when the run ended out of its daemon's sight). UNKNOWN: a status this gateway does not know.",
  values: {
    SPAWNING: { value: "spawning", description: "Registered, worker not launched yet." },
    RUNNING: { value: "running", description: "The worker is working on a turn." },
    IDLE: { value: "idle", description: "An interactive agent waiting for input." },
    KILLED: {
      value: "killed",
      description:
        "Stopped by a kill request, or removed with force while live (caliband stops the worker; terminal).",
    },
    DONE: { value: "done", description: "The worker exited 0 (terminal)." },
    FAILED: { value: "failed", description: "The worker exited non-zero or could not launch (terminal)." },
    CRASHED: {
      value: "crashed",
      description:
        "Was running when its daemon restarted, or disappeared from its daemon's list while live (removed on the daemon directly, lost record, respawned away): it ended without an outcome we could observe (terminal).",
    },
    UNKNOWN: { value: "unknown", description: "A status string this gateway does not know." },
  } as const,
});

/** Map a raw caliband status string onto the enum's internal values. */
export function statusValue(raw: string): (typeof AGENT_STATUSES)[number] | "unknown" {
  return (AGENT_STATUSES as readonly string[]).includes(raw)
    ? (raw as (typeof AGENT_STATUSES)[number])
    : "unknown";
}

/** GraphQL `HealthState`: a workspace daemon's health from the poll loop. */
export const HealthStateEnum = builder.enumType("HealthState", {
  description: "Health of a workspace's caliband as seen by the last poll.",
  values: {
    UNKNOWN: { value: "unknown", description: "Not polled yet." },
    HEALTHY: { value: "healthy", description: "The last `list` succeeded." },
    UNREACHABLE: { value: "unreachable", description: "The last `list` failed; see `reason`." },
  } as const,
});

/** GraphQL `Provider`: the LLM providers caliband workers accept (internal values are the wire names). */
export const ProviderEnum = builder.enumType("Provider", {
  description: "LLM providers caliband workers accept.",
  values: {
    ANTHROPIC: { value: "anthropic" },
    OPENAI: { value: "openai" },
    OLLAMA: { value: "ollama" },
    GOOGLE: { value: "google" },
  } as const,
});

/** GraphQL `UsageGroupBy`: the dimensions `usage` rows are grouped by. */
export const UsageGroupByEnum = builder.enumType("UsageGroupBy", {
  description: "Dimensions usage rows can be grouped by.",
  values: {
    WORKSPACE: { value: "workspace" },
    MODEL: { value: "model" },
    DAY: { value: "day", description: "UTC day." },
  } as const,
});

/** Roles of API tokens (issue 11); each includes the ones before it. */
export const RoleEnum = builder.enumType("Role", {
  description: "What a token may do. Each role includes the ones before it.",
  values: {
    VIEWER: { value: "viewer", description: "Queries and subscriptions." },
    OPERATOR: {
      value: "operator",
      description: "Viewer, plus spawn, kill, respawn, remove, drain and input of agents.",
    },
    ADMIN: {
      value: "admin",
      description:
        "Operator, plus workspaces, provider configuration, daemon restarts, tokens and the audit log.",
    },
  } as const,
});

/** Stable codes of typed mutation errors (`Error.code`); the same names as top-level `extensions.code`. */
const ERROR_CODES = {
  NOT_FOUND: { description: "The workspace, agent, token, launch or schedule does not exist." },
  INVALID_STATE: { description: "Not allowed in the target's current state." },
  CONFLICT: { description: "Collides with existing state." },
  PROVIDER_MISCONFIGURED: { description: "The workspace's provider configuration is incoherent." },
  UNREACHABLE: { description: "The workspace's caliband could not be reached." },
  CALIBAND_NOT_INSTALLED: { description: "The caliband binary cannot be run." },
  DAEMON_START_FAILED: { description: "caliband was started but died or did not answer." },
  DAEMON_REFUSED: { description: "caliband refused the request." },
  BAD_USER_INPUT: { description: "Input that failed validation." },
  UNAUTHENTICATED: { description: "The credentials are no longer valid." },
  FORBIDDEN: { description: "The token may not do this." },
} as const;

/** Every code of {@link ErrorCodeEnum}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** GraphQL `ErrorCode`: `Error.code` of every typed mutation error ({@link ErrorCode}). */
export const ErrorCodeEnum = builder.enumType("ErrorCode", {
  description:
    "Stable machine-readable code of an error. The same names appear as `extensions.code` on top-level GraphQL errors for the same kind of failure.",
  values: ERROR_CODES,
});

/**
 * caliband's StopCondition variants (the name of the `stopped_for` of a RunEnd, caliband's
 * externally tagged enum) with their GraphQL names; {@link RunOutcomeEnum} adds UNKNOWN for a
 * variant added after this gateway was built.
 */
const RUN_OUTCOMES = {
  EndOfTurn: { name: "END_OF_TURN", description: "The model ended its turn with nothing left to do." },
  MaxTurnsReached: { name: "MAX_TURNS_REACHED", description: "The run's turn limit was reached." },
  Cancelled: { name: "CANCELLED", description: "The run was cancelled." },
  ProviderError: { name: "PROVIDER_ERROR", description: "The LLM provider failed (see detail)." },
  HookDenied: { name: "HOOK_DENIED", description: "A hook refused to continue." },
  CompactionFailed: { name: "COMPACTION_FAILED", description: "Context compaction failed." },
  MaxTokensExhausted: { name: "MAX_TOKENS_EXHAUSTED", description: "The token budget ran out." },
  Refusal: { name: "REFUSAL", description: "The model refused." },
  ContentFilter: { name: "CONTENT_FILTER", description: "The provider's content filter stopped it." },
  StreamIdle: { name: "STREAM_IDLE", description: "The provider stream stayed idle too long." },
  ThinkingBudgetExhausted: { name: "THINKING_BUDGET_EXHAUSTED", description: "The thinking budget ran out." },
} as const;

/** A StopCondition name {@link RunOutcomeEnum} knows. */
type KnownOutcome = keyof typeof RUN_OUTCOMES;

/** GraphQL `RunOutcome`: internal values are StopCondition names, `unknown` for others ({@link outcomeValue}). */
export const RunOutcomeEnum = builder.enumType("RunOutcome", {
  description:
    "Why a run ended, as the worker reported it (caliband's StopCondition). UNKNOWN: a condition this gateway does not know; its name is in `outcomeName`.",
  values: {
    ...Object.fromEntries(
      Object.entries(RUN_OUTCOMES).map(([value, o]) => [o.name, { value, description: o.description }]),
    ),
    UNKNOWN: { value: "unknown", description: "A condition this gateway does not know (see outcomeName)." },
  } as Record<string, { value: KnownOutcome | "unknown"; description: string }>,
});

/** Map a stored StopCondition name onto {@link RunOutcomeEnum}'s internal values. */
export function outcomeValue(raw: string): KnownOutcome | "unknown" {
  return Object.hasOwn(RUN_OUTCOMES, raw) ? (raw as KnownOutcome) : "unknown";
}

/** The provider stop reasons caliband reports (TurnEnd `stop_reason`), with their descriptions. */
const STOP_REASONS = {
  end_turn: "The model finished its answer.",
  tool_use: "The model called tools; another turn follows.",
  max_tokens: "The turn hit its output-token limit.",
  stop_sequence: "A stop sequence was produced.",
  content_filter: "The provider's content filter stopped it.",
  refusal: "The model refused.",
} as const;

/** A stop reason {@link StopReasonEnum} knows. */
type KnownStopReason = keyof typeof STOP_REASONS;

/** GraphQL `StopReason`: internal values are the raw stop reasons, `unknown` for others ({@link stopReasonValue}). */
export const StopReasonEnum = builder.enumType("StopReason", {
  description:
    "Why the model ended a turn (the provider's stop reason as caliband reports it). UNKNOWN: a reason this gateway does not know; its text is in `stopReasonName`.",
  values: {
    ...Object.fromEntries(
      Object.entries(STOP_REASONS).map(([value, description]) => [
        value.toUpperCase(),
        { value, description },
      ]),
    ),
    UNKNOWN: { value: "unknown", description: "A reason this gateway does not know (see stopReasonName)." },
  } as Record<string, { value: KnownStopReason | "unknown"; description: string }>,
});

/** Map a raw stop reason onto {@link StopReasonEnum}'s internal values. */
export function stopReasonValue(raw: string): KnownStopReason | "unknown" {
  return Object.hasOwn(STOP_REASONS, raw) ? (raw as KnownStopReason) : "unknown";
}

/** GraphQL `AgentGoneReason`: internal values are the stored `agent_gone` reasons. */
export const AgentGoneReasonEnum = builder.enumType("AgentGoneReason", {
  description: "Why caliband no longer lists an agent.",
  values: {
    REMOVED: { value: "removed", description: "Removed through Prospero (removeAgent)." },
    RESPAWNED: { value: "respawned", description: "Replaced by a respawn (see replacedBy)." },
    VANISHED: {
      value: "vanished",
      description:
        "Disappeared from its daemon's list (removed on the daemon directly, or its record was lost).",
    },
  } as const,
});

/** GraphQL `OutputStream`: internal values are the stored `output` streams (`text`, `thinking`). */
export const OutputStreamEnum = builder.enumType("OutputStream", {
  description: "Which part of the assistant's output a text belongs to.",
  values: {
    TEXT: { value: "text", description: "The answer." },
    THINKING: { value: "thinking", description: "The model's visible reasoning." },
  } as const,
});

/** GraphQL `EntityType`: `NotFoundError.entity` (internal values are the domain's `NotFound.entity`). */
export const EntityTypeEnum = builder.enumType("EntityType", {
  description: "Kinds of things an operation can name.",
  values: {
    WORKSPACE: { value: "workspace" },
    AGENT: { value: "agent" },
    TOKEN: { value: "token" },
    LAUNCH: { value: "launch" },
    SCHEDULE: { value: "schedule" },
    INBOX_ITEM: { value: "inbox item" },
    WEBHOOK: { value: "webhook" },
  } as const,
});

// Launch queue (issue 14) -------------------------------------------------------------------------

/** The launch states {@link LaunchStateEnum} knows (src/queue/types.ts), with their descriptions. */
const LAUNCH_STATE_VALUES = {
  QUEUED: {
    value: "QUEUED",
    description: "Waiting to be dispatched (see `waitingFor`); also a retry waiting for its backoff.",
  },
  DISPATCHED: {
    value: "DISPATCHED",
    description: "An attempt is recorded and its spawn is on its way to the daemon.",
  },
  RUNNING: { value: "RUNNING", description: "The attempt's run exists (see `agent`)." },
  SUCCEEDED: { value: "SUCCEEDED", description: "The run ended successfully (final)." },
  FAILED: {
    value: "FAILED",
    description: "The run failed permanently, or every attempt allowed failed (final; see `reason`).",
  },
  TIMED_OUT: {
    value: "TIMED_OUT",
    description: "The run exceeded the launch's timeout and was killed by Prospero (final).",
  },
  CANCELLED: { value: "CANCELLED", description: "Cancelled through cancelLaunch (final)." },
} as const;

/** A stored launch state {@link LaunchStateEnum} knows. */
type KnownLaunchState = keyof typeof LAUNCH_STATE_VALUES;

/**
 * GraphQL `LaunchState`: internal values are the stored states (`Launch.state`), `unknown` for a
 * state this gateway does not know ({@link launchStateValue}). As a filter value UNKNOWN matches no
 * launch.
 */
export const LaunchStateEnum = builder.enumType("LaunchState", {
  description:
    "Where a launch is in its life: QUEUED → DISPATCHED → RUNNING → SUCCEEDED | FAILED | TIMED_OUT | CANCELLED (a retry goes back to QUEUED; CANCELLED is reachable from every non-final state). UNKNOWN: a state this gateway does not know; its raw name is in `stateName`.",
  values: {
    ...LAUNCH_STATE_VALUES,
    UNKNOWN: { value: "unknown", description: "A state this gateway does not know (see stateName)." },
  } as Record<string, { value: KnownLaunchState | "unknown"; description: string }>,
});

/** Map a stored launch state onto {@link LaunchStateEnum}'s internal values. */
export function launchStateValue(raw: string): KnownLaunchState | "unknown" {
  return Object.hasOwn(LAUNCH_STATE_VALUES, raw) ? (raw as KnownLaunchState) : "unknown";
}

/** The stored attempt outcomes (`LaunchAttempt.outcome`) with their GraphQL names. */
const ATTEMPT_OUTCOMES = {
  succeeded: { name: "SUCCEEDED", description: "The attempt's run ended successfully." },
  failed: { name: "FAILED", description: "The attempt's run failed (see `error` and `transient`)." },
  timed_out: { name: "TIMED_OUT", description: "The attempt's run exceeded the timeout and was killed." },
  cancelled: { name: "CANCELLED", description: "The launch was cancelled during this attempt." },
  lost: {
    name: "LOST",
    description:
      "The spawn was recorded but never reached a run (the gateway stopped before the daemon's reply and no matching run was found at restart).",
  },
} as const;

/** A stored attempt outcome {@link AttemptOutcomeEnum} knows. */
type KnownAttemptOutcome = keyof typeof ATTEMPT_OUTCOMES;

/** GraphQL `AttemptOutcome`: internal values are the stored outcomes, `unknown` for others ({@link attemptOutcomeValue}). */
export const AttemptOutcomeEnum = builder.enumType("AttemptOutcome", {
  description:
    "How one attempt of a launch ended. UNKNOWN: an outcome this gateway does not know; its raw name is in `outcomeName`.",
  values: {
    ...Object.fromEntries(
      Object.entries(ATTEMPT_OUTCOMES).map(([value, o]) => [o.name, { value, description: o.description }]),
    ),
    UNKNOWN: { value: "unknown", description: "An outcome this gateway does not know (see outcomeName)." },
  } as Record<string, { value: KnownAttemptOutcome | "unknown"; description: string }>,
});

/** Map a stored attempt outcome onto {@link AttemptOutcomeEnum}'s internal values. */
export function attemptOutcomeValue(raw: string): KnownAttemptOutcome | "unknown" {
  return Object.hasOwn(ATTEMPT_OUTCOMES, raw) ? (raw as KnownAttemptOutcome) : "unknown";
}

/** GraphQL `CapScope` (internal values: src/queue/types.ts `CapScope`). */
export const CapScopeEnum = builder.enumType("CapScope", {
  description:
    "What a concurrency cap counts: live runs of the whole fleet, a workspace, a provider or a model.",
  values: {
    GLOBAL: { value: "GLOBAL", description: "Every live run of the fleet (key is empty)." },
    WORKSPACE: { value: "WORKSPACE", description: "Live runs of one workspace (key: its name)." },
    PROVIDER: {
      value: "PROVIDER",
      description: "Live runs using one LLM provider (key: its wire name, e.g. `anthropic`).",
    },
    MODEL: { value: "MODEL", description: "Live runs using one model (key: the model name)." },
  } as const,
});

/** GraphQL `BudgetScope` (internal values: src/queue/types.ts `BudgetScope`). */
export const BudgetScopeEnum = builder.enumType("BudgetScope", {
  description: "Whose estimated spend a budget limits.",
  values: {
    WORKSPACE: { value: "WORKSPACE", description: "Runs of one workspace (key: its name)." },
    PROVIDER: {
      value: "PROVIDER",
      description: "Runs using one LLM provider (key: its wire name, e.g. `anthropic`).",
    },
  } as const,
});

/** GraphQL `BudgetPeriod` (internal values: src/queue/types.ts `BudgetPeriod`). */
export const BudgetPeriodEnum = builder.enumType("BudgetPeriod", {
  description: "The period a budget's spend is summed over (UTC).",
  values: {
    DAY: { value: "DAY", description: "The current UTC day (from midnight UTC)." },
    MONTH: { value: "MONTH", description: "The current UTC calendar month (from the 1st, midnight UTC)." },
  } as const,
});

/** GraphQL `WaitKind`: internal values are src/queue/types.ts `WaitReason.kind`. */
export const WaitKindEnum = builder.enumType("WaitKind", {
  description: "Why a queued launch is not dispatched yet.",
  values: {
    CAP: { value: "CAP", description: "A concurrency cap is full (`scope`, `key`, `inUse`, `max`)." },
    BUDGET: {
      value: "BUDGET",
      description: "A budget is spent for the period (`scope`, `key`, `period`, `spentUsd`, `limitUsd`).",
    },
    NOT_BEFORE: { value: "NOT_BEFORE", description: "Its `notBefore` is ahead (`until`)." },
    RETRY_BACKOFF: { value: "RETRY_BACKOFF", description: "Waiting before its next attempt (`until`)." },
    PROVIDER_BACKOFF: {
      value: "PROVIDER_BACKOFF",
      description: "Its provider is backing off after a burst of transient failures (`until`).",
    },
    PREVIOUS_RUN: {
      value: "PREVIOUS_RUN",
      description: "Its schedule's previous launch is still active (overlap policy QUEUE; `previousLaunch`).",
    },
    DAEMON_UNREACHABLE: {
      value: "DAEMON_UNREACHABLE",
      description: "Its last dispatch could not reach the workspace's caliband; tried again at `until`.",
    },
    UNKNOWN: { value: "UNKNOWN", description: "A reason this schema does not know yet (a newer gateway's)." },
  } as const,
});

/** GraphQL `ScheduleOverlap` (internal values: the stored `Schedule.overlap`). */
export const ScheduleOverlapEnum = builder.enumType("ScheduleOverlap", {
  description: "What a firing does while the schedule's previous launch is still active.",
  values: {
    SKIP: { value: "SKIP", description: "Skip the firing (recorded with its reason)." },
    QUEUE: { value: "QUEUE", description: "Enqueue it; it waits until the previous launch is final." },
    ALLOW: { value: "ALLOW", description: "Enqueue it; both may run at once (caps still apply)." },
  } as const,
});

/** GraphQL `ScheduleMissed` (internal values: the stored `Schedule.missed`). */
export const ScheduleMissedEnum = builder.enumType("ScheduleMissed", {
  description: "What the gateway does at start for firings it missed while it was down.",
  values: {
    SKIP: { value: "SKIP", description: "Skip them (each recorded as skipped)." },
    RUN_ONCE: { value: "RUN_ONCE", description: "Fire once for all of them, then follow the schedule." },
  } as const,
});

/** The stored `schedule_changed` changes with their descriptions. */
const SCHEDULE_CHANGES = {
  created: "The schedule was created.",
  updated: "The schedule was changed.",
  paused: "The schedule was paused.",
  resumed: "The schedule was resumed.",
  deleted: "The schedule was deleted (its firings stay in history).",
  fired: "A fire time became a launch (`launch`).",
  skipped: "A fire time was skipped (`reason`).",
} as const;

/** A stored schedule change {@link ScheduleChangeEnum} knows. */
type KnownScheduleChange = keyof typeof SCHEDULE_CHANGES;

/** GraphQL `ScheduleChange`: internal values are the stored changes, `unknown` for others ({@link scheduleChangeValue}). */
export const ScheduleChangeEnum = builder.enumType("ScheduleChange", {
  description: "What happened to a schedule. UNKNOWN: a change this gateway does not know.",
  values: {
    ...Object.fromEntries(
      Object.entries(SCHEDULE_CHANGES).map(([value, description]) => [
        value.toUpperCase(),
        { value, description },
      ]),
    ),
    UNKNOWN: { value: "unknown", description: "A change this gateway does not know." },
  } as Record<string, { value: KnownScheduleChange | "unknown"; description: string }>,
});

/** Map a stored schedule change onto {@link ScheduleChangeEnum}'s internal values. */
export function scheduleChangeValue(raw: string): KnownScheduleChange | "unknown" {
  return Object.hasOwn(SCHEDULE_CHANGES, raw) ? (raw as KnownScheduleChange) : "unknown";
}

/** The stored `ScheduleFiring.trigger` values with their descriptions. */
const FIRING_TRIGGERS = {
  cron: "A fire time of the cron expression.",
  missed: "A fire time missed while the gateway was down, run once at start (missed policy RUN_ONCE).",
  manual: "Run now (runSchedule).",
} as const;

/** A stored trigger {@link FiringTriggerEnum} knows. */
type KnownFiringTrigger = keyof typeof FIRING_TRIGGERS;

/** GraphQL `FiringTrigger`: internal values are the stored triggers, `unknown` for others ({@link firingTriggerValue}). */
export const FiringTriggerEnum = builder.enumType("FiringTrigger", {
  description: "What made a schedule fire. UNKNOWN: a trigger this gateway does not know.",
  values: {
    ...Object.fromEntries(
      Object.entries(FIRING_TRIGGERS).map(([value, description]) => [
        value.toUpperCase(),
        { value, description },
      ]),
    ),
    UNKNOWN: { value: "unknown", description: "A trigger this gateway does not know." },
  } as Record<string, { value: KnownFiringTrigger | "unknown"; description: string }>,
});

/** Map a stored firing trigger onto {@link FiringTriggerEnum}'s internal values. */
export function firingTriggerValue(raw: string): KnownFiringTrigger | "unknown" {
  return Object.hasOwn(FIRING_TRIGGERS, raw) ? (raw as KnownFiringTrigger) : "unknown";
}

/** The change-capture states {@link ChangeCaptureStateEnum} knows (RunCapture.state, issue 16). */
const CAPTURE_STATE_VALUES = {
  PENDING: { value: "PENDING", description: "Watched; no snapshot taken yet." },
  CAPTURED: {
    value: "CAPTURED",
    description: "A snapshot is stored (see `headCommit`; `reason` may note that it is not the final one).",
  },
  NOT_CAPTURED: { value: "NOT_CAPTURED", description: "No snapshot could be taken: `reason` says why." },
  OFF: {
    value: "OFF",
    description:
      "Capture is turned off for the workspace, or impossible there (not a git repository): `reason` says which.",
  },
  EXPIRED: { value: "EXPIRED", description: "Retention removed the run's snapshot refs." },
} as const;

/** A stored capture state {@link ChangeCaptureStateEnum} knows. */
type KnownCaptureState = keyof typeof CAPTURE_STATE_VALUES;

/** GraphQL `ChangeCaptureState`: internal values are the stored states, `unknown` for others ({@link captureStateValue}). */
export const ChangeCaptureStateEnum = builder.enumType("ChangeCaptureState", {
  description:
    "Whether what a run changed in its repository is captured (issue 16). UNKNOWN: a state this gateway does not know.",
  values: {
    ...CAPTURE_STATE_VALUES,
    UNKNOWN: { value: "unknown", description: "A state this gateway does not know." },
  } as Record<string, { value: KnownCaptureState | "unknown"; description: string }>,
});

/** Map a stored capture state onto {@link ChangeCaptureStateEnum}'s internal values. */
export function captureStateValue(raw: string): KnownCaptureState | "unknown" {
  return Object.hasOwn(CAPTURE_STATE_VALUES, raw) ? (raw as KnownCaptureState) : "unknown";
}

/** What took a snapshot (RunCapture.trigger, issue 16). */
const SNAPSHOT_TRIGGER_VALUES = {
  START: {
    value: "START",
    description: "The run was first seen (in-place runs: the state the run started from).",
  },
  TURN_END: { value: "TURN_END", description: "A turn ended (TurnEnd)." },
  RUN_END: { value: "RUN_END", description: "The run ended (RunEnd)." },
  KILL: { value: "KILL", description: "Right before Prospero killed the run." },
  STOPPED: {
    value: "STOPPED",
    description: "The run was seen in a terminal status (killed elsewhere, failed).",
  },
} as const;

/** A stored snapshot trigger {@link SnapshotTriggerEnum} knows. */
type KnownSnapshotTrigger = keyof typeof SNAPSHOT_TRIGGER_VALUES;

/** GraphQL `SnapshotTrigger` ({@link snapshotTriggerValue}). */
export const SnapshotTriggerEnum = builder.enumType("SnapshotTrigger", {
  description: "What took a run's snapshot (issue 16). UNKNOWN: a trigger this gateway does not know.",
  values: {
    ...SNAPSHOT_TRIGGER_VALUES,
    UNKNOWN: { value: "unknown", description: "A trigger this gateway does not know." },
  } as Record<string, { value: KnownSnapshotTrigger | "unknown"; description: string }>,
});

/** Map a stored snapshot trigger onto {@link SnapshotTriggerEnum}'s internal values. */
export function snapshotTriggerValue(raw: string): KnownSnapshotTrigger | "unknown" {
  return Object.hasOwn(SNAPSHOT_TRIGGER_VALUES, raw) ? (raw as KnownSnapshotTrigger) : "unknown";
}

/** How a file changed between a run's base and head (CapturedFile.status, issue 16). */
const FILE_CHANGE_VALUES = {
  ADDED: { value: "ADDED", description: "A new file." },
  MODIFIED: { value: "MODIFIED", description: "Its content (or mode) changed." },
  DELETED: { value: "DELETED", description: "Removed." },
  TYPE_CHANGED: {
    value: "TYPE_CHANGED",
    description: "Its type changed (a regular file became a symlink, or the reverse).",
  },
} as const;

/** A stored file change {@link FileChangeStatusEnum} knows. */
type KnownFileChange = keyof typeof FILE_CHANGE_VALUES;

/** GraphQL `FileChangeStatus` ({@link fileChangeValue}). */
export const FileChangeStatusEnum = builder.enumType("FileChangeStatus", {
  description:
    "How a file changed (git's name-status without renames). UNKNOWN: a status this gateway does not know.",
  values: {
    ...FILE_CHANGE_VALUES,
    UNKNOWN: { value: "unknown", description: "A status this gateway does not know." },
  } as Record<string, { value: KnownFileChange | "unknown"; description: string }>,
});

/** Map a stored file change onto {@link FileChangeStatusEnum}'s internal values. */
export function fileChangeValue(raw: string): KnownFileChange | "unknown" {
  return Object.hasOwn(FILE_CHANGE_VALUES, raw) ? (raw as KnownFileChange) : "unknown";
}
