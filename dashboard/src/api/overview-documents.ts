/**
 * The overview's GraphQL document (issue 16 item 5) and the shape of its answer, written by hand to
 * match it (as `types.ts` does for `documents.ts`). Registered as a trusted document by
 * `npm run documents` (every exported document string of `dashboard/src/api/*.ts`).
 */

/** Usage fields of one `UsageGroup` row, with the dashboard's short token names. */
const USAGE_FIELDS = `
  day workspace model
  input: inputTokens output: outputTokens cacheRead: cacheReadTokens cacheCreation: cacheCreationTokens
  costUsd: estimatedCostUsd unpricedTurns turns
  outcomes { done failed killed crashed }
`;

/**
 * The overview in one request: the totals since `$today` (the viewer's local midnight, ungrouped:
 * at most one row) and the last days since `$since` (a UTC midnight) per UTC day and workspace,
 * and per UTC day and model. Only the token's workspaces count (the gateway's rule). Asked again
 * after the fleetChanges items that change totals (throttled, `UsageRefresher`), never on a timer.
 */
export const OVERVIEW_QUERY = `query DashboardOverview($today: DateTime!, $since: DateTime!) {
  today: usage(groupBy: [], since: $today) { ${USAGE_FIELDS} }
  byWorkspace: usage(groupBy: [DAY, WORKSPACE], since: $since) { ${USAGE_FIELDS} }
  byModel: usage(groupBy: [DAY, MODEL], since: $since) { ${USAGE_FIELDS} }
}`;

/** Runs that ended in a window, by terminal status (`Outcomes`). */
export interface Outcomes {
  done: number;
  failed: number;
  killed: number;
  crashed: number;
}

/** One `UsageGroup` row as `OVERVIEW_QUERY` asks for it. Tokens in tokens, cost in USD. */
export interface UsageGroupRow {
  /** UTC day `YYYY-MM-DD`; null when not grouped by day. */
  day: string | null;
  /** Null when not grouped by workspace. */
  workspace: string | null;
  /** Null when not grouped by model, or for turns without a model. */
  model: string | null;
  /** Input tokens (cache reads and writes included). */
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
  /** Estimated cost of the turns whose model has a known price. */
  costUsd: number;
  /** Turns whose model has no known price (their cost is not in `costUsd`). */
  unpricedTurns: number;
  turns: number;
  outcomes: Outcomes;
}

/** The answer of `OVERVIEW_QUERY` (each field null when the gateway refused it). */
export interface OverviewSnapshot {
  today: UsageGroupRow[] | null;
  byWorkspace: UsageGroupRow[] | null;
  byModel: UsageGroupRow[] | null;
}
