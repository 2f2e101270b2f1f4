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

/** Kinds of things an operation can name. */
export type EntityType =
  | 'AGENT'
  | 'TOKEN'
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
  /** The workspace, agent or token does not exist. */
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
  /** OutputEvent. */
  | 'OUTPUT'
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

/** Which events to watch fleet-wide. */
export type FleetEventFilter = {
  /** Only this agent. */
  agentId?: string | null | undefined;
  /** Only these kinds. */
  kinds?: Array<EventKind> | null | undefined;
  /** Only this workspace. */
  workspace?: string | null | undefined;
};

/** Health of a workspace's caliband as seen by the last poll. */
export type HealthState =
  /** The last `list` succeeded. */
  | 'HEALTHY'
  /** Not polled yet. */
  | 'UNKNOWN'
  /** The last `list` failed; see `reason`. */
  | 'UNREACHABLE';

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
  /** Default model. */
  model?: string | null | undefined;
  /** Provider for every spawn; omit for caliban's default. */
  provider?: Provider | null | undefined;
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

/** Dimensions usage rows can be grouped by. */
export type UsageGroupBy =
  /** UTC day. */
  | 'DAY'
  | 'MODEL'
  | 'WORKSPACE';

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
      | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
      | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
      | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
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
    | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
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

export type WorkspaceSummaryFragment = { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null };

type TimelineEvent_AgentDiscoveredEvent_Fragment = { __typename: 'AgentDiscoveredEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus };

type TimelineEvent_AgentFinishedEvent_Fragment = { __typename: 'AgentFinishedEvent', outcome: RunOutcome, outcomeName: string, turns: number, model: string | null, estimatedCostUsd: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number } };

type TimelineEvent_AgentGoneEvent_Fragment = { __typename: 'AgentGoneEvent', replacedBy: string | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, goneReason: AgentGoneReason };

type TimelineEvent_AgentSpawnedEvent_Fragment = { __typename: 'AgentSpawnedEvent', name: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean } };

type TimelineEvent_GapEvent_Fragment = { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string };

type TimelineEvent_IngestGapEvent_Fragment = { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_InputEndedEvent_Fragment = { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_InputFailedEvent_Fragment = { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null };

type TimelineEvent_InputSentEvent_Fragment = { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_OutputEvent_Fragment = { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

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
  | TimelineEvent_GapEvent_Fragment
  | TimelineEvent_IngestGapEvent_Fragment
  | TimelineEvent_InputEndedEvent_Fragment
  | TimelineEvent_InputFailedEvent_Fragment
  | TimelineEvent_InputSentEvent_Fragment
  | TimelineEvent_OutputEvent_Fragment
  | TimelineEvent_StatusChangedEvent_Fragment
  | TimelineEvent_StorePersistFailedEvent_Fragment
  | TimelineEvent_ToolFinishedEvent_Fragment
  | TimelineEvent_ToolStartedEvent_Fragment
  | TimelineEvent_TurnCompletedEvent_Fragment
  | TimelineEvent_TurnStartedEvent_Fragment
  | TimelineEvent_WorkerLogEvent_Fragment
  | TimelineEvent_WorkspaceHealthEvent_Fragment
;

export type StatusQueryVariables = Exact<{ [key: string]: never; }>;


export type StatusQuery = { version: string, readiness: { ready: boolean, migrationsApplied: boolean, storeWritable: boolean, workspacesTotal: number, workspacesHealthy: number, workspacesUnreachable: number }, fleet: { host: string }, workspaces: Array<{ name: string, root: string, health: { state: HealthState, reason: string | null, since: string } }>, metrics: { eventsAppendedTotal: number, appendFailuresTotal: number, framesIngestedTotal: number, unknownFramesTotal: number, invalidLinesTotal: number, pollsTotal: number, pollFailuresTotal: number, ingestGapsTotal: number, ingestCommitFailuresTotal: number, activeAttaches: number, ingestLagBytes: number, busSubscribers: number, busDroppedTotal: number } | null };

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
    | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
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
    | { __typename: 'GapEvent', id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: OutputStream, text: string, id: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
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

export type WorkspacesQueryVariables = Exact<{ [key: string]: never; }>;


export type WorkspacesQuery = { workspaces: Array<{ id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null }> };

export type WorkspaceQueryVariables = Exact<{
  name: string;
}>;


export type WorkspaceQuery = { workspace: { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null } | null };

export type AddWorkspaceMutationVariables = Exact<{
  name: string;
  root: string;
  config?: ProviderConfigInput | null | undefined;
}>;


export type AddWorkspaceMutation = { addWorkspace:
    | { __typename: 'AddWorkspacePayload', created: boolean, workspace: { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null } }
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
    | { __typename: 'UpdateWorkspaceConfigPayload', applied: boolean, pendingOn: Array<string>, orphaned: Array<string>, workspace: { id: string, name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null } }
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
}`) as unknown as TypedDocumentString<WorkspaceQuery, WorkspaceQueryVariables>;
export const AddWorkspaceDocument = new TypedDocumentString(`
    mutation AddWorkspace($name: String!, $root: String!, $config: ProviderConfigInput) {
  addWorkspace(input: {name: $name, root: $root, config: $config}) {
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
}`) as unknown as TypedDocumentString<UpdateWorkspaceConfigMutation, UpdateWorkspaceConfigMutationVariables>;