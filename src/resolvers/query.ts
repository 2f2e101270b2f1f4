/**
 * Root query fields: the fleet, workspaces, agents (history included), events, usage, metrics.
 * Resolvers read through Prisma (the store's read side) and the fleet's served view; they hold
 * no state. Every field needs the viewer role; a token limited to workspaces sees only those
 * (lists are filtered by {@link visibleWhere}; naming another workspace or its agent is a
 * ForbiddenError).
 */
import os from "node:os";
import { z } from "zod";
import { builder } from "../schema/builder.js";
import { PAGE_ARGS, agentOfCursor, prismaCursorArgs } from "../schema/connections.js";
import { UsageGroupByEnum } from "../schema/enums.js";
import { EventConnectionRef, EventFilterRef, resolveEventPage } from "../schema/events.js";
import {
  AGENT_ORDER_SQL,
  AgentConnectionRef,
  AgentFilterRef,
  AgentOrderRef,
  DEFAULT_AGENT_ORDER,
  agentFilterSql,
  type AgentOrderArg,
  type SqlCondition,
} from "../schema/agent.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import { UsageRowRef } from "../schema/usage.js";
import { aggregateUsage } from "../store/usage.js";
import { dialectOf } from "../store/dialect.js";
import type { FleetMetrics } from "../fleet/metrics.js";
import type { QueueMetrics } from "../queue/queue.js";
import { visibleWorkspaces } from "../auth/roles.js";
import type { GraphQLContext } from "../schema/context.js";
import { NotFound, ValidationFailed } from "../errors.js";

/** Prisma `where` limiting rows to the workspaces the principal may see (empty = no limit). */
export function visibleWhere(ctx: GraphQLContext, column = "workspace"): Record<string, unknown> {
  const only = visibleWorkspaces(ctx.auth);
  return only === null ? {} : { [column]: { in: [...only] } };
}

interface FleetRoot {
  host: string;
}

const FleetRef = builder.objectRef<FleetRoot>("Fleet").implement({
  description: "This gateway's fleet as a whole (its workspaces are Query.workspaces).",
  fields: (t) => ({
    host: t.exposeString("host", { description: "Host name of the gateway." }),
  }),
});

/**
 * Process metrics of the gateway (Prometheus-style names; counters are totals since start),
 * the launch queue's included (`queue`, src/queue/queue.ts `QueueMetrics`).
 */
interface MetricsView extends FleetMetrics {
  queue: QueueMetrics;
  /** Bytes of stdout.ndjson written by workers but not yet ingested, summed over agents (gauge). */
  ingest_lag_bytes: number;
  events_appended_total: number;
  append_failures_total: number;
  bus_subscribers: number;
  bus_dropped_total: number;
}

const MetricsRef = builder.objectRef<MetricsView>("Metrics").implement({
  description: "Counters since the gateway started and current gauges.",
  fields: (t) => ({
    eventsAppendedTotal: t.exposeInt("events_appended_total", {
      description: "Events committed to the store.",
    }),
    appendFailuresTotal: t.exposeInt("append_failures_total", {
      description: "Events that could not be stored.",
    }),
    framesIngestedTotal: t.exposeInt("frames_ingested_total", { description: "TurnEvent lines stored." }),
    unknownFramesTotal: t.exposeInt("unknown_frames_total", {
      description: "Frames of an unknown type (stored raw, skipped).",
    }),
    invalidLinesTotal: t.exposeInt("invalid_lines_total", {
      description: "Lines that are not valid frames.",
    }),
    pollsTotal: t.exposeInt("polls_total", { description: "caliband polls attempted." }),
    pollFailuresTotal: t.exposeInt("poll_failures_total", { description: "caliband polls that failed." }),
    pollRoundDurationMs: t.exposeFloat("poll_round_duration_ms", {
      description:
        "Wall time of the last completed poll round, in milliseconds (0 until one completed): from the round's start until every workspace's poll in it settled.",
    }),
    ingestGapsTotal: t.exposeInt("ingest_gaps_total", {
      description: "Times output lines were lost before being read.",
    }),
    ingestCommitFailuresTotal: t.exposeInt("ingest_commit_failures_total", {
      description: "Ingest commits retried.",
    }),
    activeAttaches: t.exposeInt("active_attaches", { description: "Per-agent stream connections open now." }),
    agentWorkspaceConflictsTotal: t.exposeInt("agent_workspace_conflicts_total", {
      description:
        "Agent ids a workspace's daemon listed that were already recorded for another workspace (left there; each workspace and id counted once).",
    }),
    ingestLagBytes: t.exposeInt("ingest_lag_bytes", {
      description: "Bytes written by workers not yet ingested.",
    }),
    busSubscribers: t.exposeInt("bus_subscribers", { description: "Live subscriptions now." }),
    busDroppedTotal: t.exposeInt("bus_dropped_total", {
      description: "Events dropped from slow subscribers' buffers (then refilled).",
    }),
    queueDepth: t.int({
      description: "Launches QUEUED now, fleet-wide (gauge).",
      resolve: (m) => m.queue.queued,
    }),
    launchesDispatchedTotal: t.int({
      description: "Launch attempts dispatched (spawn or respawn sent) since start (counter).",
      resolve: (m) => m.queue.dispatches_total,
    }),
    launchRetriesTotal: t.int({
      description: "Retries scheduled after transient provider failures since start (counter).",
      resolve: (m) => m.queue.retries_total,
    }),
    launchTimeoutsTotal: t.int({
      description: "Launches ended TIMED_OUT since start (counter).",
      resolve: (m) => m.queue.timeouts_total,
    }),
    launchCancellationsTotal: t.int({
      description: "Launches cancelled since start (counter).",
      resolve: (m) => m.queue.cancellations_total,
    }),
    launchesAdoptedTotal: t.int({
      description:
        "Runs adopted at restart instead of spawned again (attempt recorded, daemon's reply lost) since start (counter).",
      resolve: (m) => m.queue.adopted_total,
    }),
    launchWaitMsSum: t.float({
      description:
        "Sum of the queue waits (enqueued, or ready to retry, until dispatched) of the dispatches counted in launchWaitMsCount, in milliseconds (counter; a Float: it may exceed 2^31). Mean wait = launchWaitMsSum / launchWaitMsCount.",
      resolve: (m) => m.queue.wait_ms_sum,
    }),
    launchWaitMsCount: t.int({
      description: "Dispatches whose wait is summed in launchWaitMsSum (counter).",
      resolve: (m) => m.queue.wait_ms_count,
    }),
    oldestQueuedAgeMs: t.float({
      description: "Age of the oldest QUEUED launch, in milliseconds; 0 when none is queued (gauge).",
      resolve: (m) => m.queue.oldest_queued_age_ms,
    }),
    inboxOpen: t.int({
      nullable: true,
      description:
        "OPEN inbox items the token may see (gauge; issue 15). Null (with an error) when it could not be counted.",
      resolve: (_m, _a, ctx) => ctx.inbox.openCount(visibleWorkspaces(ctx.auth)),
    }),
  }),
});

const EventSourceInput = builder.inputType("EventSourceInput", {
  isOneOf: true,
  description: "Whose events: exactly one of an agent's stream or a whole workspace.",
  fields: (t) => ({
    agentId: t.string({ required: false, description: "One agent's stream (caliband agent id), by seq." }),
    workspace: t.string({
      required: false,
      description: "Every event of a workspace (its agents' included), in commit order.",
    }),
  }),
});

/** One page of {@link agentPageIds}. */
interface AgentPageQuery {
  where: SqlCondition;
  order: AgentOrderArg;
  /** The agent id of the `after` (forward) or `before` (backward) cursor; null = from the start or end. */
  cursor: string | null;
  /** Page backwards (`last`/`before`): the `limit` runs just before the cursor (or the end). */
  backward: boolean;
  /** Rows wanted (Pothos asks one more than the page to learn whether there is a next one). */
  limit: number;
}

/**
 * Agent ids of one page, in the connection's order (also for a backward page): keyset paging on
 * (value is null, value, id) so a cursor — an agent id — is a position in every order, and runs
 * without a value (no finish time, no cost) come after all others in both directions.
 */
async function agentPageIds(db: PrismaClient, q: AgentPageQuery): Promise<string[]> {
  if (q.limit === 0) return [];
  const sql = dialectOf(db);
  const { expr, nullable, time } = AGENT_ORDER_SQL[q.order.field];
  // A value bound against the order expression: a time is bound from ms.
  const value = time ? sql.time : "?";
  const asc = q.order.direction === "ASC";
  const conditions = [q.where.sql];
  const params = [...q.where.params];
  if (q.cursor !== null) {
    const at = await db.$queryRawUnsafe<{ v: unknown }[]>(
      sql.text(`SELECT ${time ? sql.ms(expr) : expr} AS "v" FROM "Agent" WHERE "id" = ?`),
      q.cursor,
    );
    const raw = at[0]?.v ?? null;
    const v = time && typeof raw === "bigint" ? Number(raw) : raw;
    // Forward: rows after (v, id); backward: rows before it. `beyond` compares values the
    // way the order runs (forward) or against it (backward).
    const beyond = asc !== q.backward ? ">" : "<";
    const idOp = q.backward ? "<" : ">";
    if (v === null) {
      // The cursor row has no value: the null block is last.
      conditions.push(
        q.backward ? `(${expr} IS NOT NULL OR "id" ${idOp} ?)` : `(${expr} IS NULL AND "id" ${idOp} ?)`,
      );
      params.push(q.cursor);
    } else {
      const step = `(${expr} ${beyond} ${value} OR (${expr} = ${value} AND "id" ${idOp} ?))`;
      conditions.push(
        !nullable ? step : q.backward ? `(${expr} IS NOT NULL AND ${step})` : `(${expr} IS NULL OR ${step})`,
      );
      params.push(v, v, q.cursor);
    }
  }
  // A backward page reads the order reversed from the cursor, then turns it around.
  const dir = (forward: boolean) => (forward !== q.backward ? "ASC" : "DESC");
  const orderSql = [
    ...(nullable ? [`(${expr} IS NULL) ${dir(true)}`] : []),
    `${expr} ${dir(asc)}`,
    `"id" ${dir(true)}`,
  ].join(", ");
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    sql.text(`SELECT "id" FROM "Agent" WHERE ${conditions.join(" AND ")} ORDER BY ${orderSql} LIMIT ?`),
    ...params,
    q.limit,
  );
  const ids = rows.map((r) => r.id);
  return q.backward ? ids.reverse() : ids;
}

builder.queryFields((t) => ({
  fleet: t.field({
    type: FleetRef,
    description: "This gateway's fleet as a whole. Viewer role.",
    authScopes: { role: "viewer" },
    resolve: () => ({ host: os.hostname() }),
  }),
  workspaces: t.prismaField({
    type: ["Workspace"],
    description: "Registered workspaces the token may see, by name. Viewer role.",
    authScopes: { role: "viewer" },
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.workspace.findMany({
        ...query,
        where: { removedAt: null, ...visibleWhere(ctx, "name") },
        orderBy: { name: "asc" },
      }),
  }),
  workspace: t.prismaField({
    type: "Workspace",
    nullable: true,
    description: "One registered workspace by name, or null. Viewer role, within the token's workspaces.",
    authScopes: (_r, args) => ({ role: "viewer", workspace: args.name }),
    args: { name: t.arg.string({ required: true, description: "Workspace name." }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.workspace.findFirst({ ...query, where: { name: args.name, removedAt: null } }),
  }),
  agents: t.prismaConnection(
    {
      type: "Agent",
      cursor: "id",
      nullable: true,
      description:
        "Runs across the fleet — including ones caliband no longer lists — newest first unless `orderBy` says otherwise. Viewer role; only the token's workspaces. Null (with an error) when an argument is bad.",
      authScopes: { role: "viewer" },
      args: {
        filter: t.arg({ type: AgentFilterRef, required: false, description: "Which runs." }),
        orderBy: t.arg({
          type: AgentOrderRef,
          required: false,
          description: "Order of the runs; default STARTED_AT DESC (newest first). Ties: agent id.",
        }),
      },
      validate: prismaCursorArgs("agent"),
      // AND: a filter on another workspace must not widen the token's view.
      totalCount: async (_root, args, ctx) => {
        const sql = dialectOf(ctx.prisma);
        const where = agentFilterSql(args.filter, visibleWorkspaces(ctx.auth), sql);
        const rows = await ctx.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
          sql.text(`SELECT COUNT(*) AS "n" FROM "Agent" WHERE ${where.sql}`),
          ...where.params,
        );
        return Number(rows[0]?.n ?? 0);
      },
      resolve: async (query, _root, args, ctx) => {
        // A cursor is a position only among the runs the token may see: one naming another
        // workspace's run (or none) is refused alike, so it tells nothing about that run.
        for (const c of [args.after, args.before]) {
          if (c == null) continue;
          const seen = await ctx.prisma.agent.count({
            where: { AND: [visibleWhere(ctx), { id: agentOfCursor(c) }] },
          });
          if (seen === 0)
            throw new ValidationFailed([
              { path: [c === args.after ? "after" : "before"], message: "not a cursor of this connection" },
            ]);
        }
        // The page is chosen in SQL (keyset on the order's value and the id: every order, the
        // computed ones included, with stable cursors), then read through Prisma for the selection.
        const {
          take,
          skip: _skip,
          cursor: _cursor,
          ...selection
        } = query as typeof query & {
          take?: number;
          skip?: number;
          cursor?: unknown;
        };
        const backward = args.before != null || args.last != null;
        const ids = await agentPageIds(ctx.prisma, {
          where: agentFilterSql(args.filter, visibleWorkspaces(ctx.auth), dialectOf(ctx.prisma)),
          order: (args.orderBy as AgentOrderArg | null | undefined) ?? DEFAULT_AGENT_ORDER,
          cursor:
            args.after != null
              ? agentOfCursor(args.after)
              : args.before != null
                ? agentOfCursor(args.before)
                : null,
          backward,
          limit: Math.abs(take ?? 0),
        });
        if (ids.length === 0) return [];
        const rows = await ctx.prisma.agent.findMany({ ...selection, where: { id: { in: ids } } });
        const byId = new Map(rows.map((r) => [r.id, r]));
        return ids.flatMap((id) => {
          const row = byId.get(id);
          return row ? [row] : [];
        });
      },
    },
    AgentConnectionRef,
  ),
  agent: t.prismaField({
    type: "Agent",
    nullable: true,
    description:
      "One run by caliband id (also after caliband forgot it), or null. Viewer role, within the token's workspaces.",
    authScopes: (_r, args) => ({ role: "viewer", agent: args.agentId }),
    // An agent outside the token's workspaces reads as unknown (null), not as a refusal.
    unauthorizedResolver: () => null,
    args: { agentId: t.arg.string({ required: true, description: "caliband's 12-hex agent id." }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.agent.findUnique({ ...query, where: { id: args.agentId } }),
  }),
  events: t.field({
    type: EventConnectionRef,
    nullable: true,
    description:
      "Stored events in order, oldest first: one agent's stream (by seq) or everything in a workspace (by commit order). Pages with first/after or last/before. Viewer role, within the token's workspaces. Null (with a NOT_FOUND error) for an unknown agent or workspace.",
    authScopes: (_r, args) => ({
      role: "viewer",
      ...(args.of.agentId != null ? { agent: args.of.agentId } : {}),
      ...(args.of.workspace != null ? { workspace: args.of.workspace } : {}),
    }),
    args: {
      of: t.arg({ type: EventSourceInput, required: true, description: "Whose events." }),
      filter: t.arg({ type: EventFilterRef, required: false, description: "Only these events." }),
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
    },
    validate: PAGE_ARGS,
    resolve: async (_root, args, ctx) => {
      const page = { ...args, kinds: args.filter?.kinds ?? null };
      if (args.of.agentId != null) {
        const known = await ctx.prisma.agent.findUnique({
          where: { id: args.of.agentId },
          select: { id: true },
        });
        if (!known) throw new NotFound("agent", args.of.agentId);
        return resolveEventPage(ctx, { streamKey: args.of.agentId }, page);
      }
      const workspace = args.of.workspace!;
      const known = await ctx.prisma.workspace.findUnique({
        where: { name: workspace },
        select: { name: true },
      });
      if (!known) throw new NotFound("workspace", workspace);
      return resolveEventPage(ctx, { workspace }, page);
    },
  }),
  usage: t.field({
    type: [UsageRowRef],
    nullable: true,
    description:
      "Token usage, estimated cost (USD), turns and outcomes in [since, until), grouped; only the token's workspaces count. Viewer role.",
    authScopes: { role: "viewer" },
    args: {
      since: t.arg({
        type: "DateTime",
        required: false,
        description: "Window start (inclusive); default until − 7 days.",
      }),
      until: t.arg({
        type: "DateTime",
        required: false,
        description: "Window end (exclusive); default now.",
      }),
      groupBy: t.arg({
        type: [UsageGroupByEnum],
        required: false,
        description: "Grouping; default [WORKSPACE].",
      }),
    },
    validate: z
      // Loose: the other arguments (groupBy) pass through untouched.
      .looseObject({ since: z.date().nullish(), until: z.date().nullish() })
      .refine((a) => !a.since || !a.until || a.since < a.until, {
        message: "since must be before until",
        path: ["since"],
      }),
    resolve: (_root, args, ctx) => {
      const until = args.until ?? new Date();
      const since = args.since ?? new Date(until.getTime() - 7 * 86_400_000);
      return aggregateUsage(ctx.prisma, {
        since,
        until,
        groupBy: args.groupBy ?? ["workspace"],
        workspaces: visibleWorkspaces(ctx.auth),
      });
    },
  }),
  metrics: t.field({
    type: MetricsRef,
    nullable: true,
    description: "Gateway counters and gauges. Viewer role.",
    authScopes: { role: "viewer" },
    resolve: async (_root, _args, ctx) => ({
      ...ctx.fleet.metrics,
      ingest_lag_bytes: await ctx.fleet.ingest.lagBytes(),
      events_appended_total: ctx.store.stats.appended,
      append_failures_total: ctx.store.stats.appendFailures,
      bus_subscribers: ctx.bus.listenerCount(),
      bus_dropped_total: ctx.bus.stats.dropped,
      queue: ctx.queue.metrics(),
    }),
  }),
}));
