/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Which runs to list. */
export type AgentFilter = {
  /** Include runs caliband no longer lists. Default true. */
  includeGone?: boolean | null | undefined;
  /** Only runs started at or after this instant. */
  since?: string | null | undefined;
  /** Only these statuses. */
  status?: Array<AgentStatus> | null | undefined;
  /** Only this workspace. */
  workspace?: string | null | undefined;
};

/** caliband's agent status (protocol §2.1); UNKNOWN for a status this gateway does not know. */
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

/** One environment variable. */
export type EnvVarInput = {
  /** Variable name. */
  name: string;
  /** Value. Write-only: queries never return it. Omit it to keep the value currently stored for this name (updateWorkspaceConfig). */
  value?: string | null | undefined;
};

/** Kinds of fleet events. */
export type EventKind =
  | 'AGENT_DISCOVERED'
  | 'AGENT_FINISHED'
  | 'AGENT_GONE'
  | 'AGENT_SPAWNED'
  | 'INGEST_GAP'
  | 'INPUT_ENDED'
  | 'INPUT_FAILED'
  | 'INPUT_SENT'
  | 'OUTPUT'
  | 'STATUS_CHANGED'
  | 'STORE_PERSIST_FAILED'
  | 'TOOL_FINISHED'
  | 'TOOL_STARTED'
  | 'TURN_COMPLETED'
  | 'TURN_STARTED'
  | 'WORKER_LOG'
  | 'WORKSPACE_HEALTH';

/** Health of a workspace's caliband as seen by the last poll. */
export type HealthState =
  /** The last `list` succeeded. */
  | 'HEALTHY'
  /** Not polled yet. */
  | 'UNKNOWN'
  /** The last `list` failed; see `reason`. */
  | 'UNREACHABLE';

/** LLM providers caliband workers accept (protocol §2.2 SpawnSpec.provider). */
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

/** What to spawn (every SpawnSpec field, protocol §2.2). */
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


export type AgentsQuery = { agents: { edges: Array<{ cursor: string, node: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AgentQueryVariables = Exact<{
  agentId: string;
}>;


export type AgentQuery = { agent: { id: string, agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, spec: { prompt: string, model: string | null, provider: Provider | null, toolAllowlist: Array<string> | null, source: string | null, label: string | null, frontmatterPath: string | null, isolated: boolean, interactive: boolean }, respawnedFrom: { agentId: string } | null, failure: { logTail: string | null, logTruncated: boolean, exitCode: number | null, reason: string | null } | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } | null };

export type SpawnAgentMutationVariables = Exact<{
  input: SpawnAgentInput;
}>;


export type SpawnAgentMutation = { spawnAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'SpawnAgentPayload', created: boolean, agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type KillAgentMutationVariables = Exact<{
  agentId: string;
}>;


export type KillAgentMutation = { killAgent:
    | { __typename: 'AgentPayload', agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RespawnAgentMutationVariables = Exact<{
  agentId: string;
  force?: boolean | null | undefined;
}>;


export type RespawnAgentMutation = { respawnAgent:
    | { __typename: 'AgentPayload', agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RemoveAgentMutationVariables = Exact<{
  agentId: string;
  force?: boolean | null | undefined;
}>;


export type RemoveAgentMutation = { removeAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'RemoveAgentPayload', agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type DrainAgentMutationVariables = Exact<{
  agentId: string;
  timeoutMs?: number | null | undefined;
}>;


export type DrainAgentMutation = { drainAgent:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'DrainAgentPayload', killed: boolean, agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type SendAgentInputMutationVariables = Exact<{
  agentId: string;
  text: string;
}>;


export type SendAgentInputMutation = { sendAgentInput:
    | { __typename: 'AgentPayload', agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type EndAgentInputMutationVariables = Exact<{
  agentId: string;
}>;


export type EndAgentInputMutation = { endAgentInput:
    | { __typename: 'AgentPayload', agent: { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { tokenId: string, name: string, role: Role, workspaces: Array<string> | null, expiresAt: string | null, authenticatedBy: string } };

export type TokenFieldsFragment = { id: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean };

export type TokensQueryVariables = Exact<{
  includeRevoked?: boolean | null | undefined;
}>;


export type TokensQuery = { tokens: Array<{ id: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean }> };

export type CreateTokenMutationVariables = Exact<{
  input: CreateTokenInput;
}>;


export type CreateTokenMutation = { createToken:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'CreateTokenPayload', secret: string, token: { id: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean } }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RevokeTokenMutationVariables = Exact<{
  token: string;
}>;


export type RevokeTokenMutation = { revokeToken:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'RevokeTokenPayload', token: { id: string, name: string, role: Role, workspaces: Array<string> | null, createdAt: string, createdBy: string | null, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null, active: boolean, bootstrap: boolean } }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type AuditLogQueryVariables = Exact<{
  filter?: AuditFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { edges: Array<{ cursor: string, node: { id: number, ts: string, tokenName: string | null, tokenId: string | null, role: string | null, remoteAddress: string | null, operation: string, operationName: string | null, workspace: string | null, agentId: string | null, args: unknown, result: string, denied: boolean } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AgentEventsPageQueryVariables = Exact<{
  agentId: string;
  after?: string | null | undefined;
  first?: number | null | undefined;
  kinds?: Array<EventKind> | EventKind | null | undefined;
}>;


export type AgentEventsPageQuery = { events: { nodes: Array<
      | { __typename: 'AgentDiscoveredEvent', name: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus }
      | { __typename: 'AgentFinishedEvent', outcome: string, turns: number, model: string | null, estimatedCostUsd: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } }
      | { __typename: 'AgentGoneEvent', reason: string, replacedBy: string | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'AgentSpawnedEvent', name: string, spec: unknown, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'Gap', seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
      | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'InputEndedEvent', ended: boolean, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'InputFailedEvent', reason: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
      | { __typename: 'InputSentEvent', text: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: string, text: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
      | { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } }
      | { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string }
      | { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null }
      | { __typename: 'WorkspaceHealthEvent', state: HealthState, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null }
    >, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AgentEventsSubscriptionVariables = Exact<{
  agentId: string;
  after?: string | null | undefined;
}>;


export type AgentEventsSubscription = { agentEvents:
    | { __typename: 'AgentDiscoveredEvent', name: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus }
    | { __typename: 'AgentFinishedEvent', outcome: string, turns: number, model: string | null, estimatedCostUsd: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } }
    | { __typename: 'AgentGoneEvent', reason: string, replacedBy: string | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'AgentSpawnedEvent', name: string, spec: unknown, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'Gap', seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string }
    | { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputEndedEvent', ended: boolean, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'InputFailedEvent', reason: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null }
    | { __typename: 'InputSentEvent', text: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: string, text: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null }
    | { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } }
    | { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string }
    | { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null }
    | { __typename: 'WorkspaceHealthEvent', state: HealthState, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null }
   };

type ErrorFields_CalibandNotInstalledError_Fragment = { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string };

type ErrorFields_ConflictError_Fragment = { __typename: 'ConflictError', code: string, message: string };

type ErrorFields_DaemonRefusedError_Fragment = { __typename: 'DaemonRefusedError', code: string, message: string };

type ErrorFields_DaemonStartFailedError_Fragment = { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string };

type ErrorFields_ForbiddenError_Fragment = { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string };

type ErrorFields_InvalidStateError_Fragment = { __typename: 'InvalidStateError', status: string | null, code: string, message: string };

type ErrorFields_NotFoundError_Fragment = { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string };

type ErrorFields_ProviderMisconfiguredError_Fragment = { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string };

type ErrorFields_UnauthenticatedError_Fragment = { __typename: 'UnauthenticatedError', code: string, message: string };

type ErrorFields_UnreachableError_Fragment = { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string };

type ErrorFields_ValidationError_Fragment = { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> };

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

export type TokenUsageFieldsFragment = { input: number, output: number, cacheRead: number, cacheCreation: number };

export type ProviderConfigFieldsFragment = { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> };

export type AgentSummaryFragment = { agentId: string, name: string, status: AgentStatus, terminal: boolean, model: string | null, interactive: boolean, isolated: boolean, startedAt: string, finishedAt: string | null, goneAt: string | null, turns: number, outcome: string | null, estimatedCostUsd: number | null, workspace: { name: string }, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } };

export type WorkspaceSummaryFragment = { name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null };

type TimelineEvent_AgentDiscoveredEvent_Fragment = { __typename: 'AgentDiscoveredEvent', name: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, discoveredStatus: AgentStatus };

type TimelineEvent_AgentFinishedEvent_Fragment = { __typename: 'AgentFinishedEvent', outcome: string, turns: number, model: string | null, estimatedCostUsd: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, outcomeDetail: string | null, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } };

type TimelineEvent_AgentGoneEvent_Fragment = { __typename: 'AgentGoneEvent', reason: string, replacedBy: string | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_AgentSpawnedEvent_Fragment = { __typename: 'AgentSpawnedEvent', name: string, spec: unknown, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_Gap_Fragment = { __typename: 'Gap', seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, gapReason: string };

type TimelineEvent_IngestGapEvent_Fragment = { __typename: 'IngestGapEvent', detail: string, missedLines: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_InputEndedEvent_Fragment = { __typename: 'InputEndedEvent', ended: boolean, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_InputFailedEvent_Fragment = { __typename: 'InputFailedEvent', reason: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, undeliveredText: string | null };

type TimelineEvent_InputSentEvent_Fragment = { __typename: 'InputSentEvent', text: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_OutputEvent_Fragment = { __typename: 'OutputEvent', turnIndex: number, blockIndex: number, stream: string, text: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_StatusChangedEvent_Fragment = { __typename: 'StatusChangedEvent', from: AgentStatus, to: AgentStatus, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_StorePersistFailedEvent_Fragment = { __typename: 'StorePersistFailedEvent', detail: string, lostSeq: number, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_ToolFinishedEvent_Fragment = { __typename: 'ToolFinishedEvent', turnIndex: number, toolUseId: string, name: string, ok: boolean, input: unknown, inputRaw: string, resultText: string, truncated: boolean, durationMs: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_ToolStartedEvent_Fragment = { __typename: 'ToolStartedEvent', turnIndex: number, toolUseId: string, name: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null };

type TimelineEvent_TurnCompletedEvent_Fragment = { __typename: 'TurnCompletedEvent', turnIndex: number, model: string | null, stopReason: string, ttftMs: number | null, tbtMs: number | null, estimatedCostUsd: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, usage: { input: number, output: number, cacheRead: number, cacheCreation: number } };

type TimelineEvent_TurnStartedEvent_Fragment = { __typename: 'TurnStartedEvent', turnIndex: number, messageId: string, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, turnModel: string };

type TimelineEvent_WorkerLogEvent_Fragment = { __typename: 'WorkerLogEvent', logTail: string | null, logTruncated: boolean, logBytes: number | null, exitCode: number | null, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, endStatus: AgentStatus, logReason: string | null };

type TimelineEvent_WorkspaceHealthEvent_Fragment = { __typename: 'WorkspaceHealthEvent', state: HealthState, seq: number, cursor: string, ts: string, streamKey: string, workspace: string, agentId: string | null, healthReason: string | null };

export type TimelineEventFragment =
  | TimelineEvent_AgentDiscoveredEvent_Fragment
  | TimelineEvent_AgentFinishedEvent_Fragment
  | TimelineEvent_AgentGoneEvent_Fragment
  | TimelineEvent_AgentSpawnedEvent_Fragment
  | TimelineEvent_Gap_Fragment
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


export type StatusQuery = { version: string, readiness: { ready: boolean, migrationsApplied: boolean, storeWritable: boolean, workspacesTotal: number, workspacesHealthy: number, workspacesUnreachable: number }, fleet: { host: string, workspaces: Array<{ name: string, root: string, health: { state: HealthState, reason: string | null, since: string } }> }, metrics: { eventsAppendedTotal: number, appendFailuresTotal: number, framesIngestedTotal: number, unknownFramesTotal: number, invalidLinesTotal: number, pollsTotal: number, pollFailuresTotal: number, ingestGapsTotal: number, ingestCommitFailuresTotal: number, activeAttaches: number, ingestLagBytes: number, busSubscribers: number, busDroppedTotal: number } };

export type AgentStatusesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type AgentStatusesQuery = { agents: { edges: Array<{ node: { status: AgentStatus, workspace: { name: string } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type UsageQueryVariables = Exact<{
  since?: string | null | undefined;
  until?: string | null | undefined;
  groupBy?: Array<UsageGroupBy> | UsageGroupBy | null | undefined;
}>;


export type UsageQuery = { usage: Array<{ workspace: string | null, model: string | null, day: string | null, inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheCreationTokens: number, estimatedCostUsd: number, unpricedTurns: number, turns: number, outcomes: { done: number, failed: number, killed: number, crashed: number } }> };

export type WorkspacesQueryVariables = Exact<{ [key: string]: never; }>;


export type WorkspacesQuery = { workspaces: Array<{ name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null }> };

export type WorkspaceQueryVariables = Exact<{
  name: string;
}>;


export type WorkspaceQuery = { workspace: { name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null } | null };

export type AddWorkspaceMutationVariables = Exact<{
  name: string;
  root: string;
  config?: ProviderConfigInput | null | undefined;
}>;


export type AddWorkspaceMutation = { addWorkspace:
    | { __typename: 'AddWorkspacePayload', created: boolean, workspace: { name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null } }
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type RemoveWorkspaceMutationVariables = Exact<{
  name: string;
}>;


export type RemoveWorkspaceMutation = { removeWorkspace:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'RemoveWorkspacePayload', name: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
   };

export type UpdateWorkspaceConfigMutationVariables = Exact<{
  name: string;
  config: ProviderConfigInput;
  force?: boolean | null | undefined;
}>;


export type UpdateWorkspaceConfigMutation = { updateWorkspaceConfig:
    | { __typename: 'CalibandNotInstalledError', bin: string, errno: string | null, hint: string, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'DaemonRefusedError', code: string, message: string }
    | { __typename: 'DaemonStartFailedError', endpoint: string, reason: string, logPath: string, exitCode: number | null, signal: string | null, nextAttemptAt: string | null, code: string, message: string }
    | { __typename: 'ForbiddenError', requiredRole: Role | null, workspaceName: string | null, code: string, message: string }
    | { __typename: 'InvalidStateError', status: string | null, code: string, message: string }
    | { __typename: 'NotFoundError', entity: string, id: string, code: string, message: string }
    | { __typename: 'ProviderMisconfiguredError', field: string | null, code: string, message: string }
    | { __typename: 'UnauthenticatedError', code: string, message: string }
    | { __typename: 'UnreachableError', endpoint: string, reason: string, code: string, message: string }
    | { __typename: 'UpdateWorkspaceConfigPayload', applied: boolean, pendingOn: Array<string>, orphaned: Array<string>, workspace: { name: string, root: string, registered: boolean, registeredAt: string, health: { state: HealthState, reason: string | null, since: string }, config: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> }, pendingConfig: { provider: Provider | null, model: string | null, baseUrl: string | null, apiKeyFromEnv: string | null, apiKeySet: boolean, env: Array<{ name: string, valueSet: boolean }> } | null } }
    | { __typename: 'ValidationError', code: string, message: string, fieldErrors: Array<{ path: Array<string>, message: string }> }
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
    `, {"fragmentName":"TokenUsageFields"}) as unknown as TypedDocumentString<TokenUsageFieldsFragment, unknown>;
export const AgentSummaryFragmentDoc = new TypedDocumentString(`
    fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}
    fragment TokenUsageFields on TokenUsage {
  input
  output
  cacheRead
  cacheCreation
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
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec
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
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
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
    reason
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
  ... on Gap {
    gapReason: reason
  }
}
    fragment TokenUsageFields on TokenUsage {
  input
  output
  cacheRead
  cacheCreation
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<SpawnAgentMutation, SpawnAgentMutationVariables>;
export const KillAgentDocument = new TypedDocumentString(`
    mutation KillAgent($agentId: String!) {
  killAgent(agentId: $agentId) {
    __typename
    ... on AgentPayload {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<KillAgentMutation, KillAgentMutationVariables>;
export const RespawnAgentDocument = new TypedDocumentString(`
    mutation RespawnAgent($agentId: String!, $force: Boolean) {
  respawnAgent(agentId: $agentId, force: $force) {
    __typename
    ... on AgentPayload {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<RespawnAgentMutation, RespawnAgentMutationVariables>;
export const RemoveAgentDocument = new TypedDocumentString(`
    mutation RemoveAgent($agentId: String!, $force: Boolean) {
  removeAgent(agentId: $agentId, force: $force) {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<RemoveAgentMutation, RemoveAgentMutationVariables>;
export const DrainAgentDocument = new TypedDocumentString(`
    mutation DrainAgent($agentId: String!, $timeoutMs: Int) {
  drainAgent(agentId: $agentId, timeoutMs: $timeoutMs) {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<DrainAgentMutation, DrainAgentMutationVariables>;
export const SendAgentInputDocument = new TypedDocumentString(`
    mutation SendAgentInput($agentId: String!, $text: String!) {
  sendAgentInput(agentId: $agentId, text: $text) {
    __typename
    ... on AgentPayload {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
  estimatedCostUsd
  usage {
    ...TokenUsageFields
  }
}`) as unknown as TypedDocumentString<SendAgentInputMutation, SendAgentInputMutationVariables>;
export const EndAgentInputDocument = new TypedDocumentString(`
    mutation EndAgentInput($agentId: String!) {
  endAgentInput(agentId: $agentId) {
    __typename
    ... on AgentPayload {
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
    id
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
  input
  output
  cacheRead
  cacheCreation
}
fragment AgentSummary on Agent {
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
    id
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
  revokeToken(token: $token) {
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
    id
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
    edges {
      cursor
      node {
        id
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
  events(agentId: $agentId, after: $after, first: $first, kinds: $kinds) {
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
  input
  output
  cacheRead
  cacheCreation
}
fragment TimelineEvent on FleetEvent {
  __typename
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec
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
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
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
    reason
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
  ... on Gap {
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
  input
  output
  cacheRead
  cacheCreation
}
fragment TimelineEvent on FleetEvent {
  __typename
  seq
  cursor
  ts
  streamKey
  workspace
  agentId
  ... on AgentSpawnedEvent {
    name
    spec
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
    ttftMs
    tbtMs
    estimatedCostUsd
    usage {
      ...TokenUsageFields
    }
  }
  ... on AgentFinishedEvent {
    outcome
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
    reason
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
  ... on Gap {
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
    workspaces {
      name
      root
      health {
        state
        reason
        since
      }
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
  addWorkspace(name: $name, root: $root, config: $config) {
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
    id
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
  removeWorkspace(name: $name) {
    __typename
    ... on RemoveWorkspacePayload {
      name
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
    id
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
  updateWorkspaceConfig(name: $name, config: $config, force: $force) {
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
    id
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