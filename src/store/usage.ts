/**
 * Usage aggregation over a time window: tokens, estimated cost (USD), turns and run outcomes,
 * grouped by any of workspace, model and UTC day. Timestamps are compared as instants (the store
 * keeps them as epoch milliseconds), never as strings (reference latent bug, §4.3).
 *
 * A turn is a stored `turn_completed` event, and its tokens and cost are that event's: the same rule
 * the agent rows follow (`agentTotals` in src/fleet/normalize.ts decides which `TurnEnd` frames
 * become such events, and the agent's `turns`, tokens and cost are the sums over them), so a run's
 * `usage` and its agent's fields always agree (issue 12 item 11). `RunEnd`'s own totals, the
 * daemon's report, are not counted here.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import { ValidationFailed } from "../errors.js";
import { dialectOf, type SqlDialect } from "./dialect.js";

/** Dimensions usage can be grouped by. */
export type UsageGroupBy = "workspace" | "model" | "day";

/** Query of {@link aggregateUsage}: window [since, until) and grouping. */
export interface UsageQuery {
  since: Date;
  until: Date;
  groupBy: readonly UsageGroupBy[];
  /** Count only these workspaces (a workspace-scoped token's view); absent = all. */
  workspaces?: readonly string[] | null;
}

/** One usage row. Token counts in tokens, cost in USD. Grouping fields are null when not grouped. */
export interface UsageRow {
  workspace: string | null;
  model: string | null;
  /** UTC day `YYYY-MM-DD`. */
  day: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** Sum of the costs that could be estimated. */
  estimatedCostUsd: number;
  /** Turns whose model had no known price (their cost is not in `estimatedCostUsd`). */
  unpricedTurns: number;
  /** Counted turns: `turn_completed` events in the window (see the module comment). */
  turns: number;
  /** Runs that ended in the window, by terminal status (killed, done, failed, crashed). */
  outcomes: { done: number; failed: number; killed: number; crashed: number };
}

/** A usage row with zero usage for the given grouping values. */
export function emptyUsageRow(keys: Partial<Pick<UsageRow, "workspace" | "model" | "day">>): UsageRow {
  return {
    workspace: keys.workspace ?? null,
    model: keys.model ?? null,
    day: keys.day ?? null,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    estimatedCostUsd: 0,
    unpricedTurns: 0,
    turns: 0,
    outcomes: { done: 0, failed: 0, killed: 0, crashed: 0 },
  };
}

/** The SQL of one grouping dimension over Event rows aliased `e`. */
function dimSql(sql: SqlDialect, d: UsageGroupBy): string {
  switch (d) {
    case "workspace":
      return "e.workspace";
    case "model":
      return `COALESCE(${sql.jsonText("e.payload", ["model"])}, '')`;
    case "day":
      return sql.day("e.ts");
  }
}

/**
 * Aggregate usage.
 * @throws ValidationFailed when `since` is not before `until`.
 */
export async function aggregateUsage(db: PrismaClient, q: UsageQuery): Promise<UsageRow[]> {
  if (!(q.since.getTime() < q.until.getTime())) {
    throw new ValidationFailed([{ path: ["since"], message: "must be before until" }]);
  }
  const sql = dialectOf(db);
  const dims = [...new Set(q.groupBy)].sort() as UsageGroupBy[];
  const only = q.workspaces ?? null;
  if (only !== null && only.length === 0) return [];
  // Parameters after since/until: the allowed workspace names (bound, never interpolated).
  const inList = only === null ? "" : ` IN (${only.map(() => "?").join(", ")})`;
  // Column aliases are quoted: PostgreSQL folds unquoted names to lower case.
  const select = dims.map((d) => `${dimSql(sql, d)} AS "${d}"`);
  const groupBy = dims.length ? `GROUP BY ${dims.map((d) => dimSql(sql, d)).join(", ")}` : "";
  const num = (path: string[]) => sql.jsonNumber("e.payload", path);
  const turnSql = `SELECT ${[
    ...select,
    `SUM(${num(["usage", "input"])}) AS "inputTokens"`,
    `SUM(${num(["usage", "output"])}) AS "outputTokens"`,
    `SUM(${num(["usage", "cacheRead"])}) AS "cacheReadTokens"`,
    `SUM(${num(["usage", "cacheCreation"])}) AS "cacheCreationTokens"`,
    `SUM(COALESCE(${num(["estimatedCostUsd"])}, 0)) AS "cost"`,
    `SUM(CASE WHEN ${num(["estimatedCostUsd"])} IS NULL THEN 1 ELSE 0 END) AS "unpriced"`,
    `COUNT(*) AS "turns"`,
  ].join(
    ", ",
  )} FROM "Event" e WHERE e.kind = 'turn_completed' AND e.ts >= ${sql.time} AND e.ts < ${sql.time}${inList ? ` AND e.workspace${inList}` : ""} ${groupBy}`;
  // Outcomes: terminal status transitions in the window; their model is the run's model.
  const outcomeDim = (d: UsageGroupBy) => (d === "model" ? `COALESCE(a.model, '')` : dimSql(sql, d));
  const outcomeDims = dims.map((d) => `${outcomeDim(d)} AS "${d}"`);
  const outcomeGroup = dims.length ? `GROUP BY ${dims.map(outcomeDim).join(", ")}` : "";
  const to = sql.jsonText("e.payload", ["to"]);
  const outcomeSql = `SELECT ${[
    ...outcomeDims,
    `SUM(CASE WHEN ${to} = 'done' THEN 1 ELSE 0 END) AS "done"`,
    `SUM(CASE WHEN ${to} = 'failed' THEN 1 ELSE 0 END) AS "failed"`,
    `SUM(CASE WHEN ${to} = 'killed' THEN 1 ELSE 0 END) AS "killed"`,
    `SUM(CASE WHEN ${to} = 'crashed' THEN 1 ELSE 0 END) AS "crashed"`,
  ].join(", ")} FROM "Event" e LEFT JOIN "Agent" a ON a.id = e."agentId"
    WHERE e.kind = 'status_changed' AND ${to} IN ('done','failed','killed','crashed')
      AND e.ts >= ${sql.time} AND e.ts < ${sql.time}${inList ? ` AND e.workspace${inList}` : ""} ${outcomeGroup}`;
  const since = q.since.getTime();
  const until = q.until.getTime();
  type Raw = Record<string, unknown>;
  const params = [since, until, ...(only ?? [])];
  const turns = await db.$queryRawUnsafe<Raw[]>(sql.text(turnSql), ...params);
  const outcomes = await db.$queryRawUnsafe<Raw[]>(sql.text(outcomeSql), ...params);
  const key = (r: Raw) => JSON.stringify(dims.map((d) => r[d] ?? null));
  const rows = new Map<string, UsageRow>();
  const rowFor = (r: Raw): UsageRow => {
    const k = key(r);
    let row = rows.get(k);
    if (!row) {
      const dim = (d: UsageGroupBy) =>
        dims.includes(d) ? (String(r[d] ?? "") === "" && d === "model" ? null : String(r[d])) : null;
      row = emptyUsageRow({ workspace: dim("workspace"), model: dim("model"), day: dim("day") });
      rows.set(k, row);
    }
    return row;
  };
  const n = (v: unknown) => Number(v ?? 0);
  for (const r of turns) {
    if (n(r.turns) === 0) continue;
    const row = rowFor(r);
    row.inputTokens += n(r.inputTokens);
    row.outputTokens += n(r.outputTokens);
    row.cacheReadTokens += n(r.cacheReadTokens);
    row.cacheCreationTokens += n(r.cacheCreationTokens);
    row.estimatedCostUsd += n(r.cost);
    row.unpricedTurns += n(r.unpriced);
    row.turns += n(r.turns);
  }
  for (const r of outcomes) {
    if (n(r.done) + n(r.failed) + n(r.killed) + n(r.crashed) === 0) continue;
    const row = rowFor(r);
    row.outcomes.done += n(r.done);
    row.outcomes.failed += n(r.failed);
    row.outcomes.killed += n(r.killed);
    row.outcomes.crashed += n(r.crashed);
  }
  return [...rows.values()].sort((a, b) =>
    JSON.stringify([a.workspace, a.model, a.day]).localeCompare(
      JSON.stringify([b.workspace, b.model, b.day]),
    ),
  );
}
