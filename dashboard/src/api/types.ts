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
  | { __typename: "FleetSeedComplete"; fellBehind: boolean };

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
