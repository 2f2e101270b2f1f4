/**
 * Root query fields: the fleet, workspaces, agents (history included), events, usage, metrics.
 * Resolvers read through Prisma (the store's read side) and the fleet's served view; they hold
 * no state. Every field needs the viewer role; a token limited to workspaces sees only those
 * (lists are filtered by {@link visibleWhere}; naming another workspace or its agent is a
 * ForbiddenError).
 */
import os from "node:os";
import { GraphQLError } from "graphql";
import { z } from "zod";
import { builder } from "../schema/builder.js";
import { AgentStatusEnum, UsageGroupByEnum } from "../schema/enums.js";
import { EventKindEnum, decodeCursor } from "../schema/events.js";
import { EVENT_PAGE, EventConnectionRef, toPage } from "../schema/agent.js";
import { UsageRowRef } from "../schema/usage.js";
import { aggregateUsage } from "../store/usage.js";
import type { FleetEvent } from "../events/index.js";
import type { FleetMetrics } from "../fleet/metrics.js";
import { visibleWorkspaces } from "../auth/roles.js";
import type { GraphQLContext } from "../schema/context.js";

/** Prisma `where` limiting rows to the workspaces the principal may see (empty = no limit). */
export function visibleWhere(ctx: GraphQLContext, column = "workspace"): Record<string, unknown> {
  const only = visibleWorkspaces(ctx.auth);
  return only === null ? {} : { [column]: { in: [...only] } };
}

interface FleetRoot {
  host: string;
}

const FleetRef = builder.objectRef<FleetRoot>("Fleet").implement({
  description: "This gateway's whole fleet.",
  fields: (t) => ({
    host: t.exposeString("host", { description: "Host name of the gateway." }),
    workspaces: t.prismaField({
      type: ["Workspace"],
      description: "Registered workspaces the token may see, by name.",
      resolve: (query, _root, _args, ctx) =>
        ctx.prisma.workspace.findMany({
          ...query,
          where: { removedAt: null, ...visibleWhere(ctx, "name") },
          orderBy: { name: "asc" },
        }),
    }),
  }),
});

/** Process metrics of the gateway (Prometheus-style names; counters are totals since start). */
interface MetricsView extends FleetMetrics {
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
  }),
});

const AgentFilter = builder.inputType("AgentFilter", {
  description: "Which runs to list.",
  fields: (t) => ({
    workspace: t.string({ required: false, description: "Only this workspace." }),
    status: t.field({ type: [AgentStatusEnum], required: false, description: "Only these statuses." }),
    since: t.field({
      type: "DateTime",
      required: false,
      description: "Only runs started at or after this instant.",
    }),
    includeGone: t.boolean({
      required: false,
      description: "Include runs caliband no longer lists. Default true.",
    }),
  }),
});

builder.queryFields((t) => ({
  fleet: t.field({
    type: FleetRef,
    description: "The whole fleet: host and workspaces. Viewer role.",
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
      description:
        "Runs, newest first, across the fleet — including ones caliband no longer lists. Viewer role; only the token's workspaces.",
      authScopes: { role: "viewer" },
      args: { filter: t.arg({ type: AgentFilter, required: false, description: "Filter." }) },
      resolve: (query, _root, args, ctx) =>
        ctx.prisma.agent.findMany({
          ...query,
          where: {
            // AND: a filter on another workspace must not widen the token's view.
            AND: [visibleWhere(ctx)],
            ...(args.filter?.workspace ? { workspace: args.filter.workspace } : {}),
            ...(args.filter?.status ? { status: { in: [...args.filter.status] } } : {}),
            ...(args.filter?.since ? { startedAt: { gte: args.filter.since } } : {}),
            ...(args.filter?.includeGone === false ? { goneAt: null } : {}),
          },
          orderBy: [{ startedAt: "desc" }, { id: "asc" }],
        }),
    },
    { name: "AgentConnection", description: "A page of agent runs." },
    { name: "AgentEdge", description: "An agent run and its cursor." },
  ),
  agent: t.prismaField({
    type: "Agent",
    nullable: true,
    description:
      "One run by caliband id (also after caliband forgot it), or null. Viewer role, within the token's workspaces.",
    authScopes: (_r, args) => ({ role: "viewer", agent: args.agentId }),
    // An agent outside the token's workspaces reads as unknown (null), not as a refusal.
    unauthorizedResolver: () => null,
    args: { agentId: t.arg.string({ required: true, description: "caliband's agent id." }) },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.agent.findUnique({ ...query, where: { id: args.agentId } }),
  }),
  events: t.field({
    type: EventConnectionRef,
    description:
      "Stored events in order: one agent's stream (by seq), or everything in a workspace (by commit order). Give exactly one of agentId and workspace. Viewer role, within the token's workspaces.",
    authScopes: (_r, args) => ({
      role: "viewer",
      ...(args.agentId != null ? { agent: args.agentId } : {}),
      ...(args.workspace != null ? { workspace: args.workspace } : {}),
    }),
    args: {
      agentId: t.arg.string({ required: false, description: "An agent's stream." }),
      workspace: t.arg.string({
        required: false,
        description: "Every event of a workspace (its agents' included).",
      }),
      after: t.arg.string({ required: false, description: "Cursor to continue after." }),
      first: t.arg.int({
        required: false,
        description: `Page size, 1–${EVENT_PAGE.max} (default ${EVENT_PAGE.default}).`,
        validate: z.number().int().min(1).max(EVENT_PAGE.max),
      }),
      kinds: t.arg({ type: [EventKindEnum], required: false, description: "Only these kinds." }),
    },
    resolve: async (_root, args, ctx) => {
      if ((args.agentId == null) === (args.workspace == null)) {
        throw new GraphQLError("give exactly one of agentId and workspace", {
          extensions: { code: "BAD_USER_INPUT" },
        });
      }
      const limit = args.first ?? EVENT_PAGE.default;
      const pos = args.after ? decodeCursor(args.after) : null;
      const kinds = args.kinds ? ([...args.kinds] as FleetEvent["kind"][]) : undefined;
      if (args.agentId != null) {
        const known = await ctx.prisma.agent.findUnique({
          where: { id: args.agentId },
          select: { id: true },
        });
        if (!known)
          throw new GraphQLError(`agent not found: ${args.agentId}`, { extensions: { code: "NOT_FOUND" } });
        const afterSeq = pos?.seq ?? 0;
        if (!kinds) return toPage(await ctx.store.readStream(args.agentId, afterSeq, limit + 1), limit);
        const id = args.agentId;
        return toPage(
          await ctx.store.readGlobal(0, limit + 1, (e) => e.streamKey === id && e.seq > afterSeq, {
            agentId: id,
            kinds,
          }),
          limit,
        );
      }
      return toPage(
        await ctx.store.readGlobal(pos?.globalId ?? 0, limit + 1, undefined, {
          workspace: args.workspace!,
          ...(kinds ? { kinds } : {}),
        }),
        limit,
      );
    },
  }),
  usage: t.field({
    type: [UsageRowRef],
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
    description: "Gateway counters and gauges. Viewer role.",
    authScopes: { role: "viewer" },
    resolve: async (_root, _args, ctx) => ({
      ...ctx.fleet.metrics,
      ingest_lag_bytes: await ctx.fleet.ingest.lagBytes(),
      events_appended_total: ctx.store.stats.appended,
      append_failures_total: ctx.store.stats.appendFailures,
      bus_subscribers: ctx.bus.listenerCount(),
      bus_dropped_total: ctx.bus.stats.dropped,
    }),
  }),
}));
