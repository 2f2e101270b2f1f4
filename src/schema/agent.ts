/**
 * `Agent`: one run (Relay Node), read from the run table so runs caliband no longer lists stay
 * queryable. Live fields (status, usage) are updated in the same transactions as the events that
 * justify them, so they never disagree with history.
 */
import { z } from "zod";
import { AGENT_ID, isTerminal } from "../caliband/wire.js";
import { ValidationFailed } from "../errors.js";
import { runFailureOf } from "../store/agents.js";
import { builder, registerNode } from "./builder.js";
import { PAGE_ARGS, connectionTotal } from "./connections.js";
import { AgentStatusEnum, RunOutcomeEnum, outcomeValue, statusValue } from "./enums.js";
import { EventConnectionRef, EventFilterRef, TokenUsageRef, resolveEventPage } from "./events.js";
import { AgentSpecRef, specView } from "./spec.js";
import type { SqlDialect } from "../store/dialect.js";

/** Why a failed or crashed run failed (the row's failure columns, issue 12 item 7). */
interface RunFailureView {
  logTail: string | null;
  logTruncated: boolean;
  exitCode: number | null;
  reason: string | null;
}

/** GraphQL `RunFailure` (also the run report's `failure`, src/schema/report.ts). */
export const RunFailureRef = builder.objectRef<RunFailureView>("RunFailure").implement({
  description:
    "Why a run ended FAILED or CRASHED, as recorded when it ended (its WorkerLogEvent): the end of the worker's log and the exit code its RunEnd implies.",
  fields: (t) => ({
    logTail: t.exposeString("logTail", {
      nullable: true,
      description:
        "The last lines of the worker's `<session_dir>/worker.log` (its stdout and stderr: where preflight failures such as a missing API key show up), at most 40 lines and 8 KiB, token-shaped secrets replaced by `[redacted]`, escape sequences and control characters other than LF and TAB removed; null when the file could not be read (see `reason`).",
    }),
    logTruncated: t.exposeBoolean("logTruncated", {
      description: "Earlier lines (or the start of an over-long line) were left out of `logTail`.",
    }),
    exitCode: t.exposeInt("exitCode", {
      nullable: true,
      description:
        "The worker's exit code, inferred from the run's RunEnd stop condition (0 EndOfTurn, 75 MaxTurnsReached, 124 Cancelled, 1 any failure; caliban's worker exit codes) because caliband does not report exit codes; null when no RunEnd was read (a preflight failure, a fatal stream error, a lost worker) or its stop condition is unknown.",
    }),
    reason: t.exposeString("reason", {
      nullable: true,
      description:
        "Why `logTail` is null: the file does not exist here (a daemon on another machine, or removed with the session dir) or could not be read; null when it was read.",
    }),
  }),
});

registerNode("Agent", AGENT_ID);

/** The Agent node type. */
export const AgentRef = builder.prismaNode("Agent", {
  id: { field: "id" },
  // node(id:)/nodes(ids:) answer null for an id that names no run (not an internal error).
  nullable: true,
  description: "One agent run. Kept after caliband forgets it (rm, respawn), so history stays queryable.",
  // A token limited to workspaces can reach no other workspace's run, whatever the path.
  authScopes: (a, ctx) => ctx.auth.workspaces === null || { workspace: a.workspace },
  fields: (t) => ({
    agentId: t.exposeString("id", {
      description: "caliband's 12-hex agent id (use with agent(agentId:) and mutations).",
    }),
    name: t.exposeString("name", { description: "Label, or agent-<id>." }),
    workspace: t.relation("workspaceRef", { description: "Workspace the run belongs to." }),
    status: t.field({
      type: AgentStatusEnum,
      description: "caliband status.",
      resolve: (a) => statusValue(a.status),
    }),
    terminal: t.boolean({
      description: "True for killed, done, failed and crashed.",
      resolve: (a) => isTerminal(a.status),
    }),
    interactive: t.exposeBoolean("interactive", {
      description: "Waits for operator input at each end of turn.",
    }),
    isolated: t.exposeBoolean("isolated", { description: "Runs in its own git worktree." }),
    startedAt: t.field({
      type: "DateTime",
      description: "When caliband started it.",
      resolve: (a) => a.startedAt,
    }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When a terminal status was recorded.",
      resolve: (a) => a.finishedAt,
    }),
    goneAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When caliband stopped listing it (removed or respawned); null while listed.",
      resolve: (a) => a.goneAt,
    }),
    spec: t.field({
      type: AgentSpecRef,
      description: "The spawn spec.",
      resolve: (a) => specView(a.spec, { isolated: a.isolated, interactive: a.interactive }),
    }),
    model: t.exposeString("model", {
      nullable: true,
      description: "Model actually used (latest TurnStart), else the spec's.",
    }),
    outcome: t.field({
      type: RunOutcomeEnum,
      nullable: true,
      description: "Why the run ended, as its worker reported it; null when no end of run was read.",
      resolve: (a) => (a.outcome === null ? null : outcomeValue(a.outcome)),
    }),
    outcomeName: t.exposeString("outcome", {
      nullable: true,
      description:
        "The stop condition as the worker named it, e.g. `EndOfTurn` (kept for UNKNOWN outcomes); null when none was read.",
    }),
    failure: t.field({
      type: RunFailureRef,
      nullable: true,
      description:
        "Why the run failed: recorded when it ends FAILED or CRASHED (null before, and for a run that did not fail).",
      resolve: (a) => runFailureOf(a),
    }),
    usage: t.field({
      type: TokenUsageRef,
      description: "Tokens used so far.",
      resolve: (a) => ({
        input: a.inputTokens,
        output: a.outputTokens,
        cacheRead: a.cacheReadTokens,
        cacheCreation: a.cacheCreationTokens,
      }),
    }),
    turns: t.exposeInt("turns", { description: "Completed turns." }),
    estimatedCostUsd: t.exposeFloat("costUsd", {
      nullable: true,
      description: "Estimated cost in USD; null when the model's price is unknown (never a fake 0).",
    }),
    respawnedFrom: t.relation("respawnedFromRun", {
      nullable: true,
      description: "The run this one replaced.",
    }),
    events: t.field({
      type: EventConnectionRef,
      description:
        "This run's events in stream order (by seq). Intended for one agent at a time (it costs a query per agent); pages with first/after or last/before.",
      args: {
        after: t.arg.string({ required: false, description: "Return events after this cursor." }),
        before: t.arg.string({ required: false, description: "Return events before this cursor." }),
        first: t.arg.int({
          required: false,
          description: "Return at most this many events from the start (0–500, default 50; not with `last`).",
        }),
        last: t.arg.int({
          required: false,
          description: "Return at most this many events from the end (0–500; not with `first`).",
        }),
        filter: t.arg({ type: EventFilterRef, required: false, description: "Only these events." }),
      },
      validate: PAGE_ARGS,
      resolve: (a, args, ctx) =>
        resolveEventPage(ctx, { streamKey: a.id }, { ...args, kinds: args.filter?.kinds ?? null }),
    }),
  }),
});

/** The one connection type of agent runs (Query.agents, Workspace.agents). */
export const AgentConnectionRef = builder.connectionObject(
  {
    type: AgentRef,
    name: "AgentConnection",
    description: "A page of agent runs.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Runs matching the field's filter, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "AgentEdge", description: "An agent run and its cursor." },
);

/** Longest `AgentFilter.search`, in characters. */
export const SEARCH_MAX = 200;

/** Which runs an agent connection lists (every condition must hold). */
export const AgentFilterRef = builder.inputType("AgentFilter", {
  description: "Which runs to list; every given condition must hold.",
  fields: (t) => ({
    workspace: t.string({ required: false, description: "Only runs of this workspace." }),
    status: t.field({ type: [AgentStatusEnum], required: false, description: "Only these statuses." }),
    since: t.field({
      type: "DateTime",
      required: false,
      description: "Only runs started at or after this instant.",
    }),
    includeGone: t.boolean({
      required: false,
      description: "Include runs caliband no longer lists (removed, respawned, vanished). Default true.",
    }),
    search: t.string({
      required: false,
      description: `Only runs whose name, label or initial prompt (its first 4096 characters) contains this text, ignoring case (1–${SEARCH_MAX} characters).`,
      validate: z
        .string()
        .min(1, "must not be empty")
        .max(SEARCH_MAX, `must be at most ${SEARCH_MAX} characters`),
    }),
  }),
});

/** Filter values of {@link AgentFilterRef}. */
export interface AgentFilterArg {
  workspace?: string | null;
  status?: readonly string[] | null;
  since?: Date | null;
  includeGone?: boolean | null;
  /** Case-insensitive substring of `Agent.searchText` (src/store/agents.ts `agentSearchText`). */
  search?: string | null;
}

/** The Prisma `where` of an agent filter (AND-ed with the caller's visibility rule). */
export function agentFilterWhere(f: AgentFilterArg | null | undefined): Record<string, unknown> {
  return {
    ...(f?.workspace ? { workspace: f.workspace } : {}),
    ...(f?.status ? { status: { in: [...f.status] } } : {}),
    ...(f?.since ? { startedAt: { gte: f.since } } : {}),
    ...(f?.includeGone === false ? { goneAt: null } : {}),
    // searchText is stored lower-cased. Prisma's `contains` is SQLite's LIKE without an escape, so
    // a `%` or `_` would match any characters here (Workspace.agents): refused, rather than
    // answered wrong; Query.agents uses agentFilterSql, an exact substring.
    ...(f?.search ? { searchText: { contains: likeSafeSearch(f.search).toLowerCase() } } : {}),
  };
}

/**
 * A search text Prisma's `contains` matches exactly (no LIKE wildcard in it).
 * @throws ValidationFailed (["filter", "search"]) for a text with `%` or `_`.
 */
function likeSafeSearch(text: string): string {
  if (/[%_]/.test(text))
    throw new ValidationFailed([
      {
        path: ["filter", "search"],
        message: "'%' and '_' can be searched for with Query.agents(filter: {workspace, search}) only",
      },
    ]);
  return text;
}

/**
 * A SQL condition on the `Agent` table with its bound parameters (values are never interpolated).
 */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/**
 * The same filter as {@link agentFilterWhere} as SQL over `"Agent"` (for the ordered pages of
 * Query.agents, see src/resolvers/query.ts); `visible` is the token's workspaces (null = all).
 * Timestamps are bound as epoch milliseconds ({@link SqlDialect.time}); search is a plain substring
 * (`%` and `_` are not wildcards). Placeholders are `?`: pass the statement through `sql.text`.
 */
export function agentFilterSql(
  f: AgentFilterArg | null | undefined,
  visible: readonly string[] | null,
  sql: SqlDialect,
): SqlCondition {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (visible !== null) {
    parts.push(visible.length ? `"workspace" IN (${visible.map(() => "?").join(", ")})` : "1 = 0");
    params.push(...visible);
  }
  if (f?.workspace) {
    parts.push(`"workspace" = ?`);
    params.push(f.workspace);
  }
  if (f?.status) {
    parts.push(f.status.length ? `"status" IN (${f.status.map(() => "?").join(", ")})` : "1 = 0");
    params.push(...f.status);
  }
  if (f?.since) {
    parts.push(`"startedAt" >= ${sql.time}`);
    params.push(f.since.getTime());
  }
  if (f?.includeGone === false) parts.push(`"goneAt" IS NULL`);
  if (f?.search) {
    parts.push(sql.contains(`"searchText"`));
    params.push(f.search.toLowerCase());
  }
  return { sql: parts.length ? parts.join(" AND ") : "1 = 1", params };
}

/** Columns an agent connection can be ordered by (GraphQL `AgentOrderField`). */
export type AgentOrderField = "STARTED_AT" | "FINISHED_AT" | "NAME" | "STATUS" | "COST" | "TOKENS";

/** GraphQL `AgentOrderField`. */
export const AgentOrderFieldEnum = builder.enumType("AgentOrderField", {
  description: "What agent runs can be ordered by.",
  values: {
    STARTED_AT: { description: "When caliband started the run." },
    FINISHED_AT: { description: "When it ended (runs still active have none and come last)." },
    NAME: { description: "Its name (label or agent-<id>), ignoring case." },
    STATUS: {
      description:
        "Its status, in life order: spawning, running, idle, done, failed, crashed, killed, unknown.",
    },
    COST: { description: "Estimated cost in USD (runs of an unpriced model have none and come last)." },
    TOKENS: { description: "Input plus output tokens." },
  } as const,
});

/** GraphQL `OrderDirection`. */
export const OrderDirectionEnum = builder.enumType("OrderDirection", {
  description: "Ascending or descending.",
  values: {
    ASC: { description: "Smallest (earliest, A) first." },
    DESC: { description: "Largest (latest, Z) first." },
  } as const,
});

/** An order of agent runs (GraphQL `AgentOrder`). */
export interface AgentOrderArg {
  field: AgentOrderField;
  direction: "ASC" | "DESC";
}

/** How Query.agents orders runs by default (newest first, as before issue 16). */
export const DEFAULT_AGENT_ORDER: AgentOrderArg = { field: "STARTED_AT", direction: "DESC" };

/** GraphQL `AgentOrder`. */
export const AgentOrderRef = builder.inputType("AgentOrder", {
  description:
    "How to order runs. Runs without a value (no finish time, no cost) come last in both directions; equal values are ordered by agent id; cursors stay positions in this order.",
  fields: (t) => ({
    field: t.field({ type: AgentOrderFieldEnum, required: true, description: "What to order by." }),
    direction: t.field({ type: OrderDirectionEnum, required: true, description: "Which way." }),
  }),
});

/**
 * SQL expression of each order field over `"Agent"` (nullable ones: FINISHED_AT, COST); `time`
 * marks a DateTime column, whose cursor value is read with {@link SqlDialect.ms} and bound with
 * {@link SqlDialect.time}.
 */
export const AGENT_ORDER_SQL: Readonly<
  Record<AgentOrderField, { expr: string; nullable: boolean; time: boolean }>
> = {
  STARTED_AT: { expr: `"startedAt"`, nullable: false, time: true },
  FINISHED_AT: { expr: `"finishedAt"`, nullable: true, time: true },
  NAME: { expr: `lower("name")`, nullable: false, time: false },
  STATUS: {
    expr: `(CASE "status" WHEN 'spawning' THEN 0 WHEN 'running' THEN 1 WHEN 'idle' THEN 2 WHEN 'done' THEN 3 WHEN 'failed' THEN 4 WHEN 'crashed' THEN 5 WHEN 'killed' THEN 6 ELSE 7 END)`,
    nullable: false,
    time: false,
  },
  COST: { expr: `"costUsd"`, nullable: true, time: false },
  TOKENS: { expr: `("inputTokens" + "outputTokens")`, nullable: false, time: false },
};
