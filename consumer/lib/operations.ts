/** The consumer's operations, each typed with its generated result and variables types. */
import { operation } from "./documents.js";
import type {
  AgentDeferredTimelineQuery,
  AgentDeferredTimelineQueryVariables,
  AgentEventsSubscription,
  AgentEventsSubscriptionVariables,
  AgentTimelineQuery,
  AgentTimelineQueryVariables,
  KillAgentMutation,
  KillAgentMutationVariables,
  NodeByIdQuery,
  NodeByIdQueryVariables,
  NodesByIdsQuery,
  NodesByIdsQueryVariables,
  SpawnAgentMutation,
  SpawnAgentMutationVariables,
  WorkspacesQuery,
  WorkspacesQueryVariables,
} from "../generated/graphql.js";

/** `spawnAgent(input:)` → SpawnAgentPayload { created, agent } or an Error. */
export const SpawnAgent = operation<SpawnAgentMutation, SpawnAgentMutationVariables>("SpawnAgent");
/** `killAgent(input:)` → KillAgentPayload or an Error (NotFoundError with entity and key). */
export const KillAgent = operation<KillAgentMutation, KillAgentMutationVariables>("KillAgent");
/** Every registered workspace with its global id. */
export const Workspaces = operation<WorkspacesQuery, WorkspacesQueryVariables>("Workspaces");
/** `node(id:)`: a Workspace or Agent by global id, or null. */
export const NodeById = operation<NodeByIdQuery, NodeByIdQueryVariables>("NodeById");
/** `nodes(ids:)`: each id's Node or null, in order. */
export const NodesByIds = operation<NodesByIdsQuery, NodesByIdsQueryVariables>("NodesByIds");
/** An agent's stored events (one page of up to 500), by agent id. */
export const AgentTimeline = operation<AgentTimelineQuery, AgentTimelineQueryVariables>("AgentTimeline");
/** Subscription: an agent's events after `after` (all when null), then live, until it ends. */
export const AgentEvents = operation<AgentEventsSubscription, AgentEventsSubscriptionVariables>(
  "AgentEvents",
);
/** AgentTimeline with the events in a `@defer`red fragment. */
export const AgentDeferredTimeline = operation<
  AgentDeferredTimelineQuery,
  AgentDeferredTimelineQueryVariables
>("AgentDeferredTimeline");

/** One event as AgentEvents delivers it. */
export type StreamedEvent = AgentEventsSubscription["agentEvents"];
