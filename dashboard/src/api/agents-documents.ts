/**
 * The agents table's document (issue 16 item 5): one page of the `agents` connection — history
 * included — with a filter, an order and cursors, and the result shapes. The row fields use the
 * same aliases as the fleet subscription's agents (`outcome` is the worker's raw name, `usage.input`
 * is TokenUsage.inputTokens), so a live `AgentStatusChanged` agent updates a listed row as is.
 */
import type { Agent, AgentStatus } from "./types.js";

/** What an agents-table row shows: a subset of the subscription's {@link Agent}. */
export type AgentRow = Pick<
  Agent,
  | "id"
  | "agentId"
  | "name"
  | "status"
  | "terminal"
  | "model"
  | "outcome"
  | "startedAt"
  | "finishedAt"
  | "goneAt"
  | "turns"
  | "estimatedCostUsd"
  | "usage"
  | "workspace"
> & { spec: Pick<Agent["spec"], "prompt" | "label"> };

/** GraphQL `AgentOrderField`. */
export type AgentOrderField = "STARTED_AT" | "FINISHED_AT" | "NAME" | "STATUS" | "COST" | "TOKENS";

/** GraphQL `AgentOrder`. */
export interface AgentOrder {
  field: AgentOrderField;
  direction: "ASC" | "DESC";
}

/** GraphQL `AgentFilter` as the table sends it. */
export interface AgentFilterInput {
  status?: AgentStatus[];
  workspace?: string;
  search?: string;
}

/** Variables of {@link AGENTS_PAGE}. */
export interface AgentsPageVariables {
  first?: number;
  after?: string;
  last?: number;
  before?: string;
  filter: AgentFilterInput;
  orderBy: AgentOrder;
}

/** The answer of {@link AGENTS_PAGE}. */
export interface AgentsPageResult {
  agents: {
    totalCount: number;
    edges: { cursor: string; node: AgentRow }[];
    pageInfo: {
      hasNextPage: boolean;
      hasPreviousPage: boolean;
      startCursor: string | null;
      endCursor: string | null;
    };
  } | null;
}

/** One page of runs: filtered, ordered, by cursor (forward with first/after, back with last/before). */
export const AGENTS_PAGE = `query DashboardAgentsPage(
  $first: Int, $after: String, $last: Int, $before: String, $filter: AgentFilter, $orderBy: AgentOrder
) {
  agents(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: $orderBy) {
    totalCount
    edges {
      cursor
      node {
        id agentId name status terminal model outcome: outcomeName startedAt finishedAt goneAt turns
        estimatedCostUsd
        usage { input: inputTokens output: outputTokens cacheRead: cacheReadTokens cacheCreation: cacheCreationTokens }
        workspace { name }
        spec { prompt label }
      }
    }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;
