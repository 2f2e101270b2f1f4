/**
 * The GraphQL documents of the dashboard, as plain strings (see `types.ts` for their result
 * shapes). Field aliases keep same-named fields of different types apart, and keep the
 * dashboard's own short names (`usage.input` is TokenUsage.inputTokens; `outcome` and
 * `stopReason` are the raw names the worker reported, e.g. `EndOfTurn`; `launchFrom`/`launchTo`
 * are a LaunchChanged's states, apart from an AgentStatusChanged's `from`/`to`).
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

/** Launch fields shown by the queue tables (and delivered with every `LaunchChanged`). */
const LAUNCH_FIELDS = `
  id launchId state stateName workspace { name } spec { prompt label model provider }
  dedupKey priority notBefore timeoutMs retry { maxAttempts backoffMs maxBackoffMs } retryAt attemptCount
  queuePosition waitingFor { kind message until scope key inUse max spentUsd limitUsd } reason
  agent { agentId name status } schedule { scheduleId name } createdBy
  createdAt updatedAt dispatchedAt startedAt finishedAt
`;

/** Schedule fields shown by the queue view. */
const SCHEDULE_FIELDS = `
  id scheduleId name workspace { name } cron timeZone overlap missed paused nextFireAt lastFireAt deletedAt
  updatedAt template { priority spec { prompt label } }
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
    ... on LaunchChanged {
      cursor launchFrom: from launchTo: to launchReason: reason attempt launch { ${LAUNCH_FIELDS} }
    }
    ... on ScheduleChanged {
      cursor change scheduleReason: reason fireAt schedule { ${SCHEDULE_FIELDS} }
      firedLaunch: launch { ${LAUNCH_FIELDS} }
    }
    ... on ChangesCaptured { cursor agentId }
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

/**
 * The queue view in one request: caps and budgets, the waiting launches in dispatch order, the
 * dispatched and running ones, the most recent final ones (newest first) and the schedules.
 * Asked again after each LaunchChanged / ScheduleChanged (debounced), never on a timer.
 */
export const QUEUE_QUERY = `query DashboardQueue {
  queue {
    depth running dispatched oldestQueuedAt
    caps { scope key max inUse }
    budgets { scope key period limitUsd spentUsd periodStart exhausted }
  }
  waiting: launches(filter: { states: [QUEUED] }, first: 100) { totalCount edges { node { ${LAUNCH_FIELDS} } } }
  active: launches(filter: { states: [DISPATCHED, RUNNING] }, first: 100) {
    totalCount edges { node { ${LAUNCH_FIELDS} } }
  }
  recent: launches(filter: { states: [SUCCEEDED, FAILED, TIMED_OUT, CANCELLED] }, first: 20) {
    totalCount edges { node { ${LAUNCH_FIELDS} } }
  }
  schedules(first: 100) { totalCount edges { node { ${SCHEDULE_FIELDS} } } }
}`;

/** One launch with its spec, attempts and state changes (the launch panel). */
export const LAUNCH_QUERY = `query DashboardLaunch($launchId: String!) {
  launch(launchId: $launchId) {
    ${LAUNCH_FIELDS}
    spec { prompt label model provider source isolated interactive toolAllowlist }
    attempts {
      n kind agentId agent { agentId name status } requestedAt endedAt outcome outcomeName error transient respawnOf
    }
    transitions(last: 200) { totalCount edges { node { at from to reason attempt } } }
  }
}`;

/** Queue a launch. */
export const ENQUEUE_LAUNCH = `mutation DashboardEnqueue($input: EnqueueLaunchInput!) {
  result: enqueueLaunch(input: $input) {
    __typename
    ... on EnqueueLaunchPayload { created launch { ${LAUNCH_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Cancel a launch that is not final (its run, if any, is killed). */
export const CANCEL_LAUNCH = `mutation DashboardCancelLaunch($launchId: String!) {
  result: cancelLaunch(input: { launchId: $launchId }) {
    __typename
    ... on CancelLaunchPayload { launch { ${LAUNCH_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Pause a schedule (no firings until resumed). */
export const PAUSE_SCHEDULE = `mutation DashboardPauseSchedule($scheduleId: String!) {
  result: pauseSchedule(input: { scheduleId: $scheduleId }) {
    __typename
    ... on PauseSchedulePayload { schedule { ${SCHEDULE_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Resume a paused schedule. */
export const RESUME_SCHEDULE = `mutation DashboardResumeSchedule($scheduleId: String!) {
  result: resumeSchedule(input: { scheduleId: $scheduleId }) {
    __typename
    ... on ResumeSchedulePayload { schedule { ${SCHEDULE_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Fire a schedule now (its launch goes through the same queue, caps and budgets). */
export const RUN_SCHEDULE = `mutation DashboardRunSchedule($scheduleId: String!) {
  result: runSchedule(input: { scheduleId: $scheduleId }) {
    __typename
    ... on RunSchedulePayload { schedule { ${SCHEDULE_FIELDS} } launch { ${LAUNCH_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Inbox item fields shown by the inbox view (and delivered with every `inboxChanges` item). */
const INBOX_ITEM_FIELDS = `
  id itemId kind state workspace { name } agent { agentId name status } launch { launchId }
  title body answerHint canAnswer canApprove check subject
  openedAt updatedAt snoozedUntil closedAt resolution closedBy closeReason escalations
`;

/**
 * The inbox: OPEN and SNOOZED items (the default filter) within the token's scope, and how many
 * are OPEN (the header badge). Read at start and after every (re)subscription; live changes come
 * from `INBOX_CHANGES`.
 */
export const INBOX_QUERY = `query DashboardInbox {
  inbox(first: 100) { totalCount openCount edges { node { ${INBOX_ITEM_FIELDS} } } }
}`;

/** Live changes of the inbox (no seed: the view reads `INBOX_QUERY` after subscribing). */
export const INBOX_CHANGES = `subscription DashboardInboxChanges {
  inboxChanges { change openCount item { ${INBOX_ITEM_FIELDS} } }
}`;

/** Answer a QUESTION (input to the agent) or send changes to a PLAN. */
export const ANSWER_INBOX_ITEM = `mutation DashboardAnswerInboxItem($item: ID!, $text: String!) {
  result: answerInboxItem(input: { item: $item, text: $text }) {
    __typename
    ... on AnswerInboxItemPayload { item { ${INBOX_ITEM_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Approve a PLAN (the agent is told to go ahead). */
export const APPROVE_INBOX_ITEM = `mutation DashboardApproveInboxItem($item: ID!) {
  result: approveInboxItem(input: { item: $item }) {
    __typename
    ... on ApproveInboxItemPayload { item { ${INBOX_ITEM_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Acknowledge an item (a failure or an alert): it closes. */
export const ACKNOWLEDGE_INBOX_ITEM = `mutation DashboardAcknowledgeInboxItem($item: ID!) {
  result: acknowledgeInboxItem(input: { item: $item }) {
    __typename
    ... on AcknowledgeInboxItemPayload { item { ${INBOX_ITEM_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Hide an item until `until` (then it is OPEN again). */
export const SNOOZE_INBOX_ITEM = `mutation DashboardSnoozeInboxItem($item: ID!, $until: DateTime!) {
  result: snoozeInboxItem(input: { item: $item, until: $until }) {
    __typename
    ... on SnoozeInboxItemPayload { item { ${INBOX_ITEM_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;

/** Dismiss an item (it closes without an answer). */
export const DISMISS_INBOX_ITEM = `mutation DashboardDismissInboxItem($item: ID!) {
  result: dismissInboxItem(input: { item: $item }) {
    __typename
    ... on DismissInboxItemPayload { item { ${INBOX_ITEM_FIELDS} } }
    ${ERROR_FIELDS}
  }
}`;
