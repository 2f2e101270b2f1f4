/**
 * Prospero's typed client SDK: `createProsperoClient` (HTTP queries and mutations, graphql-ws
 * subscriptions with reconnect, resumable `agentEvents`), its errors, helpers for typed mutation
 * results, and every generated document and type (`src/sdk/generated`, from `schema.graphql` and
 * `src/sdk/operations/*.graphql`; regenerate with `npm run codegen`), and Apollo's `possibleTypes`.
 */
export {
  createProsperoClient,
  graphqlEndpoint,
  webSocketEndpoint,
  type ProsperoClient,
  type ProsperoClientOptions,
  type RequestOptions,
  type SubscribeOptions,
} from "./client.js";
export { GraphQLRequestError, NetworkError, type GraphQLErrorItem } from "./errors.js";
export type { ProsperoDocument, ResultOf, VariablesOf } from "./documents.js";
export type { RetryOptions, SubscriptionHandlers } from "./subscriptions.js";
export type {
  AgentEvent,
  AgentEventsOptions,
  AgentEventsResult,
  AgentStreamItem,
  EventStreamOptions,
  EventStreamResult,
  GapEvent,
  StreamEvent,
  StreamItem,
} from "./agent-events.js";
export { isMutationError, type MutationError } from "./results.js";
export { possibleTypes } from "./possible-types.js";
export * from "./generated/graphql.js";
