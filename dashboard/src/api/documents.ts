/**
 * The GraphQL documents of the dashboard, as plain strings (see `types.ts` for their result
 * shapes). Field aliases keep same-named fields of different types apart, and keep the
 * dashboard's own short names (`usage.input` is TokenUsage.inputTokens; `outcome` and
 * `stopReason` are the raw names the worker reported, e.g. `EndOfTurn`).
 */

/** Agent fields shown by the table and the agent view. */
const AGENT_FIELDS = `
  id agentId name status terminal interactive isolated model outcome: outcomeName startedAt finishedAt
  goneAt turns estimatedCostUsd
  usage { input: inputTokens output: outputTokens cacheRead: cacheReadTokens cacheCreation: cacheCreationTokens }
  workspace { name }
  spec { prompt label model provider source toolAllowlist }
  respawnedFrom { agentId }
  failure { logTail logTruncated exitCode reason }
`;

/** Typed errors of every mutation result. */
const ERROR_FIELDS = `
  ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }
`;

/** Seed of the fleet, then live changes (re-seeds on every (re)subscription: the dashboard keeps no cursor). */
export const FLEET_CHANGES = `subscription DashboardFleetChanges {
  fleetChanges {
    __typename
    ... on AgentAppeared { seed spawnedByProspero agent { ${AGENT_FIELDS} } }
    ... on AgentStatusChanged { from to agent { ${AGENT_FIELDS} } }
    ... on AgentGone { agentId workspace { name } reason replacedBy }
    ... on WorkspaceHealthChanged { seed health { state reason since } workspace { name root } }
    ... on FleetSeedComplete { fellBehind }
  }
}`;

/** One agent's events after a cursor, then live; completes after its terminal status. */
export const AGENT_EVENTS = `subscription DashboardAgentEvents($agentId: String!, $after: String) {
  agentEvents(agentId: $agentId, after: $after) {
    __typename seq cursor ts
    ... on AgentSpawnedEvent { name }
    ... on AgentDiscoveredEvent { name discoveredStatus: status }
    ... on StatusChangedEvent { from to }
    ... on TurnStartedEvent { turnIndex startModel: model }
    ... on OutputEvent { turnIndex blockIndex stream text }
    ... on ToolStartedEvent { turnIndex toolUseId name }
    ... on ToolFinishedEvent { turnIndex toolUseId name input inputRaw ok resultText truncated durationMs }
    ... on TurnCompletedEvent {
      turnIndex turnModel: model stopReason: stopReasonName estimatedCostUsd ttftMs
      usage { input: inputTokens output: outputTokens cacheRead: cacheReadTokens cacheCreation: cacheCreationTokens }
    }
    ... on AgentFinishedEvent {
      outcome: outcomeName detail turns runModel: model estimatedCostUsd
      usage { input: inputTokens output: outputTokens cacheRead: cacheReadTokens cacheCreation: cacheCreationTokens }
    }
    ... on InputSentEvent { text }
    ... on InputFailedEvent { undeliveredText: text reason }
    ... on AgentGoneEvent { goneReason: reason replacedBy }
    ... on IngestGapEvent { gapDetail: detail missedLines }
    ... on StorePersistFailedEvent { failDetail: detail lostSeq }
    ... on WorkerLogEvent { endStatus: status logTail logTruncated exitCode logReason: reason }
    ... on GapEvent { reason }
  }
}`;

/** One agent (also one caliband no longer lists). */
export const AGENT_QUERY = `query DashboardAgent($agentId: String!) {
  agent(agentId: $agentId) { ${AGENT_FIELDS} }
}`;

/** What the launch form offers for a workspace: its sources and provider defaults. */
export const WORKSPACE_QUERY = `query DashboardWorkspace($name: String!) {
  workspace(name: $name) { name sources { name path } config { provider model } }
}`;

/** Spawn an agent. */
export const SPAWN_AGENT = `mutation DashboardSpawn($input: SpawnAgentInput!) {
  result: spawnAgent(input: $input) {
    __typename
    ... on SpawnAgentPayload { created agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Kill a live agent. */
export const KILL_AGENT = `mutation DashboardKill($agentId: String!) {
  result: killAgent(input: { agentId: $agentId }) {
    __typename
    ... on KillAgentPayload { agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Run an agent's spec again (force kills a live one first). */
export const RESPAWN_AGENT = `mutation DashboardRespawn($agentId: String!, $force: Boolean) {
  result: respawnAgent(input: { agentId: $agentId, force: $force }) {
    __typename
    ... on RespawnAgentPayload { agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Remove an agent from caliband (history stays; force stops a live one). */
export const REMOVE_AGENT = `mutation DashboardRemove($agentId: String!, $force: Boolean) {
  result: removeAgent(input: { agentId: $agentId, force: $force }) {
    __typename
    ... on RemoveAgentPayload { agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Stop gracefully: end input, wait, kill only if still running. */
export const DRAIN_AGENT = `mutation DashboardDrain($agentId: String!, $timeoutMs: Int) {
  result: drainAgent(input: { agentId: $agentId, timeoutMs: $timeoutMs }) {
    __typename
    ... on DrainAgentPayload { killed agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Send a message to an interactive agent. */
export const SEND_INPUT = `mutation DashboardSend($agentId: String!, $text: String!) {
  result: sendAgentInput(input: { agentId: $agentId, text: $text }) {
    __typename
    ... on SendAgentInputPayload { agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Tell an interactive agent no more input will come. */
export const END_INPUT = `mutation DashboardEndInput($agentId: String!) {
  result: endAgentInput(input: { agentId: $agentId }) {
    __typename
    ... on EndAgentInputPayload { agent { ${AGENT_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;
