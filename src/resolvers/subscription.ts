/**
 * Subscriptions (ARCHITECTURE decision 6): every stream replays history from the store after the
 * client's cursor, then tails the bus live with no gap and no duplicate at the seam. A subscriber
 * that falls behind gets a `GapEvent` and a refill from the store; its buffer is bounded. Iterators
 * are released as soon as the client goes away. Served identically over graphql-ws and SSE.
 *
 * Resuming (issue 13 item 8, src/resolvers/resume.ts): every stream starts after `after`, or after
 * the `Last-Event-ID` of an SSE reconnect, which overrides it; over SSE every item but a GapEvent
 * carries its cursor as its event id (`id:` line). `fleetChanges` given a cursor resumes without a
 * seed.
 *
 * Every subscription needs the viewer role and is authorized once, when it starts; a token
 * limited to workspaces sees only their events (the fleet-wide streams are filtered). Store reads
 * of replays go through the gateway's fair {@link GraphQLContext.replays} limiter.
 */
import { GraphQLError } from "graphql";
import { isTerminal } from "../caliband/wire.js";
import { replayThenTail, type TailItem } from "../bus/replay.js";
import { SKIP, seedThenMap } from "../bus/iterate.js";
import {
  isTerminalEvent,
  workspaceStream,
  type EventKind,
  type FleetEvent,
  type PayloadOf,
} from "../events/index.js";
import type { Prisma } from "../generated/prisma/client.js";
import { builder } from "../schema/builder.js";
import type { GraphQLContext } from "../schema/context.js";
import {
  AgentGoneReasonEnum,
  AgentStatusEnum,
  LaunchStateEnum,
  ScheduleChangeEnum,
  launchStateValue,
  scheduleChangeValue,
  statusValue,
} from "../schema/enums.js";
import {
  EventKindEnum,
  FleetEventRef,
  encodeCursor,
  storedKinds,
  type EventItem,
  type GapItem,
} from "../schema/events.js";
import { WorkspaceHealthRef } from "../schema/workspace.js";
import { RunChangesRef, runChangesOf } from "../schema/changes.js";
import type { WorkspaceHealth } from "../fleet/state.js";
import { visibleWorkspaces } from "../auth/roles.js";
import type { EventReader } from "../bus/replay.js";
import { positionOf, resumeCursor, withEventIds } from "./resume.js";

/** The store's reader for `ctx`'s replays: through the fair limiter, `where` applied to global reads. */
function readerFor(
  ctx: GraphQLContext,
  where?: Parameters<GraphQLContext["store"]["readGlobal"]>[3],
): EventReader {
  return ctx.replays.wrap(
    {
      readStream: (k, a, l) => ctx.store.readStream(k, a, l),
      readGlobal: (a, l, f) => ctx.store.readGlobal(a, l, f, where),
    },
    ctx.clientKey,
  );
}

/** A predicate admitting only events of the workspaces `ctx`'s token may see (null = all). */
function visibleEvent(ctx: GraphQLContext): ((e: FleetEvent) => boolean) | null {
  const only = visibleWorkspaces(ctx.auth);
  if (only === null) return null;
  const set = new Set(only);
  return (e) => set.has(e.workspace);
}

/** Live buffer per subscriber, events (then Gap + refill). */
export const SUBSCRIBER_BUFFER = 1024;

/**
 * Interval of WebSocket keep-alive pings on graphql-ws connections, ms. graphql-ws terminates a
 * connection whose pong has not arrived one interval after its ping, so a client that stops
 * reading is dropped 1-2 intervals later (more while a full socket delays the ping itself).
 */
export const KEEPALIVE_MS = 12_000;

const DELIVERY =
  "Delivery: a subscriber that falls behind gets a `GapEvent` item, then the missed stored events refilled from the store, in order. " +
  `Over graphql-ws the server pings every ${KEEPALIVE_MS / 1000} s and drops a connection that has not answered by the next interval ` +
  "(a client that stopped reading for that long). Resuming: subscribe again with `after` set to the cursor of the last item received; " +
  "no stored event is lost and none is repeated (an event delivered live whose write failed is not refilled, and resuming after it resumes after the last stored event before it). " +
  "Over SSE every event item carries its cursor as the event id (`id:` line; a GapEvent carries none, its cursor is no position to resume after), and a reconnect with the `Last-Event-ID` header resumes after it, overriding `after`.";

/**
 * The subscription item of a tail item. In commit order (`tail` given: workspace and fleet-wide
 * streams) an event delivered live but not stored (no `globalId`) gets the position of the last
 * stored event delivered before it, so that its cursor (and SSE id) resumes right after that one
 * instead of from the start; in stream order (agent streams) its `seq` already does.
 */
function toItem(item: TailItem, streamKey: string, tail?: { readonly position: number }): EventItem {
  if (item.type === "event") {
    const e = item.event;
    return e.globalId === null && tail ? { ...e, globalId: tail.position } : e;
  }
  const gap: GapItem = {
    kind: "gap",
    streamKey,
    afterPosition: item.afterPosition,
    commitOrder: tail !== undefined,
    reason: item.reason,
    tsMs: Date.now(),
    workspace: "",
    agentId: "",
  };
  return gap;
}

function emptyIterator<T>(): AsyncIterator<T> {
  return { next: () => Promise.resolve({ done: true, value: undefined }) };
}

/** The SSE event id of an event item: its cursor (see {@link toItem}); none for a GapEvent. */
function eventIdOf(item: EventItem): string | null {
  return item.kind === "gap" ? null : encodeCursor(item);
}

// FleetChange ----------------------------------------------------------------------------------

type AgentRow = Prisma.AgentModel;
type WorkspaceRow = Prisma.WorkspaceModel;

/**
 * One item of `fleetChanges`. `cursor` is a position in fleet-wide commit order (a `globalId`):
 * the event the change comes from (for one delivered live but not stored, the last stored
 * position before it), the seed's high-water mark for seed items, the position refilled after for
 * a gap.
 */
export type FleetChangeItem =
  | { type: "agent"; change: "seed" | "discovered" | "spawned"; agentId: string; cursor: number }
  | { type: "status"; agentId: string; from: string; to: string; cursor: number }
  | {
      type: "gone";
      agentId: string;
      workspace: string;
      reason: PayloadOf<"agent_gone">["reason"];
      replacedBy: string | null;
      cursor: number;
    }
  | { type: "health"; workspace: string; health: WorkspaceHealth; seed: boolean; cursor: number }
  | {
      type: "launch";
      launchId: string;
      from: string | null;
      to: string;
      reason: string | null;
      attempt: number | null;
      cursor: number;
    }
  | {
      type: "schedule";
      scheduleId: string;
      change: PayloadOf<"schedule_changed">["change"];
      launchId: string | null;
      fireAtMs: number | null;
      reason: string | null;
      cursor: number;
    }
  | { type: "changes"; agentId: string; workspace: string; cursor: number }
  | { type: "seed_complete"; cursor: number }
  | { type: "gap"; cursor: number };

/** The opaque cursor of a fleetChanges item (the same cursors as fleetEvents': commit order). */
function changeCursor(item: FleetChangeItem): string {
  return encodeCursor({ globalId: item.cursor, seq: 0, streamKey: "fleet" });
}

const CHANGE_CURSOR_DESCRIPTION =
  "Opaque cursor: subscribe again with `fleetChanges(after:)` set to the cursor of the last item received to resume without a new seed (also accepted by `fleetEvents(after:)`: both follow commit order). Over SSE it is also the item's event id.";

const agentField = {
  type: "Agent" as const,
  description: "The run, as stored now.",
  resolve: (
    query: { include?: Prisma.AgentInclude; select?: Prisma.AgentSelect },
    p: { agentId: string },
    _a: unknown,
    ctx: GraphQLContext,
  ) => ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: p.agentId } }),
};

const AgentAppeared = builder
  .objectRef<Extract<FleetChangeItem, { type: "agent" }>>("AgentAppeared")
  .implement({
    description:
      "An agent in the seed, or one that appeared (discovered by a poll, or spawned through Prospero).",
    isTypeOf: (i) => (i as FleetChangeItem).type === "agent",
    fields: (t) => ({
      agent: t.prismaField(agentField),
      seed: t.boolean({
        description: "Part of the initial seed rather than a live change.",
        resolve: (i) => i.change === "seed",
      }),
      spawnedByProspero: t.boolean({
        description: "Spawned through this gateway.",
        resolve: (i) => i.change === "spawned",
      }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const AgentStatusChanged = builder
  .objectRef<Extract<FleetChangeItem, { type: "status" }>>("AgentStatusChanged")
  .implement({
    description: "caliband reported a new status for an agent.",
    isTypeOf: (i) => (i as FleetChangeItem).type === "status",
    fields: (t) => ({
      agent: t.prismaField(agentField),
      from: t.field({
        type: AgentStatusEnum,
        description: "Previous status.",
        resolve: (i) => statusValue(i.from),
      }),
      to: t.field({ type: AgentStatusEnum, description: "New status.", resolve: (i) => statusValue(i.to) }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const AgentGone = builder.objectRef<Extract<FleetChangeItem, { type: "gone" }>>("AgentGone").implement({
  description: "caliband no longer lists an agent (its history stays).",
  isTypeOf: (i) => (i as FleetChangeItem).type === "gone",
  fields: (t) => ({
    agentId: t.exposeString("agentId", { description: "The run's caliband agent id." }),
    agent: t.prismaField({
      type: "Agent",
      description: "The run, as recorded (its history stays queryable).",
      resolve: (query, i, _a, ctx) =>
        ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: i.agentId } }),
    }),
    workspace: t.prismaField({
      type: "Workspace",
      description: "Its workspace.",
      resolve: (query, i, _a, ctx) =>
        ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: i.workspace } }),
    }),
    reason: t.field({
      type: AgentGoneReasonEnum,
      description: "Why caliband no longer lists it.",
      resolve: (i) => i.reason,
    }),
    replacedBy: t.exposeString("replacedBy", { nullable: true, description: "The new run after a respawn." }),
    cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
  }),
});

const WorkspaceHealthChanged = builder
  .objectRef<Extract<FleetChangeItem, { type: "health" }>>("WorkspaceHealthChanged")
  .implement({
    description: "A workspace in the seed, or a change of its daemon's health.",
    isTypeOf: (i) => (i as FleetChangeItem).type === "health",
    fields: (t) => ({
      workspace: t.prismaField({
        type: "Workspace",
        description: "The workspace.",
        resolve: (query, i, _a, ctx) =>
          ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: i.workspace } }),
      }),
      health: t.field({ type: WorkspaceHealthRef, description: "Its health.", resolve: (i) => i.health }),
      seed: t.exposeBoolean("seed", { description: "Part of the initial seed." }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const LaunchChanged = builder
  .objectRef<Extract<FleetChangeItem, { type: "launch" }>>("LaunchChanged")
  .implement({
    description:
      "A launch changed state (its LaunchChangedEvent). Launches are not part of the seed: read the current ones with `launches`.",
    isTypeOf: (i) => (i as FleetChangeItem).type === "launch",
    fields: (t) => ({
      launch: t.prismaField({
        type: "Launch",
        description: "The launch, as stored now (it may have moved on since this change).",
        resolve: (query, i, _a, ctx) =>
          ctx.prisma.launch.findUniqueOrThrow({ ...query, where: { id: i.launchId } }),
      }),
      from: t.field({
        type: LaunchStateEnum,
        nullable: true,
        description: "The state before; null for the launch's first state (QUEUED).",
        resolve: (i) => (i.from === null ? null : launchStateValue(i.from)),
      }),
      to: t.field({
        type: LaunchStateEnum,
        description: "The new state.",
        resolve: (i) => launchStateValue(i.to),
      }),
      reason: t.exposeString("reason", {
        nullable: true,
        description: "Why, in words (which retry, why it failed, who cancelled it); null when none.",
      }),
      attempt: t.exposeInt("attempt", {
        nullable: true,
        description: "The attempt number the change concerns; null before the first attempt.",
      }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const ScheduleChanged = builder
  .objectRef<Extract<FleetChangeItem, { type: "schedule" }>>("ScheduleChanged")
  .implement({
    description:
      "A schedule was created, changed, paused, resumed or deleted, or a fire time of it fired or was skipped (its ScheduleChangedEvent). Schedules are not part of the seed: read them with `schedules`.",
    isTypeOf: (i) => (i as FleetChangeItem).type === "schedule",
    fields: (t) => ({
      schedule: t.prismaField({
        type: "Schedule",
        description: "The schedule, as stored now (a deleted one stays readable).",
        resolve: (query, i, _a, ctx) =>
          ctx.prisma.schedule.findUniqueOrThrow({ ...query, where: { id: i.scheduleId } }),
      }),
      change: t.field({
        type: ScheduleChangeEnum,
        description: "What happened.",
        resolve: (i) => scheduleChangeValue(i.change),
      }),
      launch: t.prismaField({
        type: "Launch",
        nullable: true,
        description: "The launch a firing enqueued (FIRED); null otherwise.",
        resolve: (query, i, _a, ctx) =>
          i.launchId === null ? null : ctx.prisma.launch.findUnique({ ...query, where: { id: i.launchId } }),
      }),
      fireAt: t.field({
        type: "DateTime",
        nullable: true,
        description: "The fire time concerned (FIRED, SKIPPED); null otherwise.",
        resolve: (i) => (i.fireAtMs === null ? null : new Date(i.fireAtMs)),
      }),
      reason: t.exposeString("reason", {
        nullable: true,
        description: "Why a fire time was skipped, or other detail in words; null when none.",
      }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const ChangesCaptured = builder
  .objectRef<Extract<FleetChangeItem, { type: "changes" }>>("ChangesCaptured")
  .implement({
    description:
      "What a run changed was captured again, or could not be (its ChangesCapturedEvent, stored in the run's workspace stream): a new snapshot head, or a new capture state. Not part of the seed: read a run's changes with `agent.changes`.",
    isTypeOf: (i) => (i as FleetChangeItem).type === "changes",
    fields: (t) => ({
      agentId: t.exposeString("agentId", { description: "The run's caliband agent id." }),
      agent: t.prismaField(agentField),
      workspace: t.prismaField({
        type: "Workspace",
        description: "Its workspace.",
        resolve: (query, i, _a, ctx) =>
          ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: i.workspace } }),
      }),
      changes: t.field({
        type: RunChangesRef,
        description: "The run's changes as stored now (they may have moved on since this item).",
        resolve: async (i, _a, ctx) => {
          const a = await ctx.prisma.agent.findUniqueOrThrow({
            where: { id: i.agentId },
            select: { id: true, workspace: true, status: true },
          });
          return runChangesOf(ctx, a);
        },
      }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const FleetSeedComplete = builder
  .objectRef<Extract<FleetChangeItem, { type: "seed_complete" | "gap" }>>("FleetSeedComplete")
  .implement({
    description:
      "Marks the end of the seed (`fellBehind: false`): the items before it are the current fleet, the live changes follow. With `fellBehind: true` it marks instead that the subscriber fell behind live delivery: the changes it missed follow, replayed from the store in order (no new seed is sent).",
    isTypeOf: (i) => ["seed_complete", "gap"].includes((i as FleetChangeItem).type),
    fields: (t) => ({
      fellBehind: t.boolean({
        description:
          "True when this marks that the subscriber fell behind (the missed changes follow, replayed from the store); false at the end of the seed.",
        resolve: (i) => i.type === "gap",
      }),
      cursor: t.string({ description: CHANGE_CURSOR_DESCRIPTION, resolve: changeCursor }),
    }),
  });

const FleetChangeRef = builder.unionType("FleetChange", {
  description:
    "A change to the fleet: the seed's items (unless resumed with `after`), then live changes. Every item has a `cursor` to resume after.",
  types: [
    AgentAppeared,
    AgentStatusChanged,
    AgentGone,
    WorkspaceHealthChanged,
    LaunchChanged,
    ScheduleChanged,
    ChangesCaptured,
    FleetSeedComplete,
  ],
  resolveType: (i) => {
    switch (i.type) {
      case "agent":
        return "AgentAppeared";
      case "status":
        return "AgentStatusChanged";
      case "gone":
        return "AgentGone";
      case "health":
        return "WorkspaceHealthChanged";
      case "launch":
        return "LaunchChanged";
      case "schedule":
        return "ScheduleChanged";
      case "changes":
        return "ChangesCaptured";
      default:
        return "FleetSeedComplete";
    }
  },
});

/**
 * The event kinds fleetChanges delivers as changes: agents' lifecycle, workspace health, launches,
 * schedules, and captured changes (issue 16).
 */
const LIFECYCLE_KINDS: ReadonlySet<EventKind> = new Set([
  "agent_spawned",
  "agent_discovered",
  "status_changed",
  "agent_gone",
  "workspace_health",
  "launch_changed",
  "schedule_changed",
  "changes_captured",
]);

/**
 * The change an event stands for (SKIP for other kinds). `position` is the last stored position
 * delivered: the cursor of an event that could not be stored (it has no position of its own).
 */
function changeOf(e: FleetEvent, position: number): FleetChangeItem | typeof SKIP {
  const cursor = e.globalId ?? position;
  switch (e.kind) {
    case "agent_spawned":
      return { type: "agent", change: "spawned", agentId: e.agentId, cursor };
    case "agent_discovered":
      return { type: "agent", change: "discovered", agentId: e.agentId, cursor };
    case "status_changed":
      return { type: "status", agentId: e.agentId, from: e.payload.from, to: e.payload.to, cursor };
    case "agent_gone":
      return {
        type: "gone",
        agentId: e.agentId,
        workspace: e.workspace,
        reason: e.payload.reason,
        replacedBy: e.payload.replacedBy,
        cursor,
      };
    case "workspace_health":
      return {
        type: "health",
        workspace: e.workspace,
        health: { state: e.payload.state, reason: e.payload.reason, since: new Date(e.tsMs) },
        seed: false,
        cursor,
      };
    case "launch_changed":
      return {
        type: "launch",
        launchId: e.payload.launchId,
        from: e.payload.from,
        to: e.payload.to,
        reason: e.payload.reason,
        attempt: e.payload.attempt,
        cursor,
      };
    case "schedule_changed":
      return {
        type: "schedule",
        scheduleId: e.payload.scheduleId,
        change: e.payload.change,
        launchId: e.payload.launchId,
        fireAtMs: e.payload.fireAtMs,
        reason: e.payload.reason,
        cursor,
      };
    case "changes_captured":
      // Always about one run (stored in its workspace's stream with its agentId).
      return e.agentId === ""
        ? SKIP
        : { type: "changes", agentId: e.agentId, workspace: e.workspace, cursor };
    default:
      return SKIP;
  }
}

/** The change of each stored event, computed once for all fleetChanges subscribers (issue 17). */
const changesOfStored = new WeakMap<FleetEvent, FleetChangeItem | typeof SKIP>();

/**
 * {@link changeOf}, answered with the same item object for every subscriber of a stored event
 * (its cursor is its own `globalId`, the same for all), so that subscribers sharing an execution
 * (src/server/shared-subscriptions.ts) see one item. An event that could not be stored gets its
 * subscriber's own position, hence its own item.
 */
function sharedChangeOf(e: FleetEvent, position: number): FleetChangeItem | typeof SKIP {
  if (e.globalId === null) return changeOf(e, position);
  let change = changesOfStored.get(e);
  if (change === undefined) {
    change = changeOf(e, position);
    changesOfStored.set(e, change);
  }
  return change;
}

async function seedOf(ctx: GraphQLContext): Promise<{ items: FleetChangeItem[]; high: number }> {
  // High-water first: anything committed after it is delivered live (at worst twice, never lost).
  const high = await ctx.store.lastGlobalId();
  const only = visibleWorkspaces(ctx.auth);
  const workspaces: WorkspaceRow[] = await ctx.prisma.workspace.findMany({
    where: { removedAt: null, ...(only === null ? {} : { name: { in: [...only] } }) },
    orderBy: { name: "asc" },
  });
  const agents: Pick<AgentRow, "id">[] = await ctx.prisma.agent.findMany({
    where: { goneAt: null, workspace: { in: workspaces.map((w) => w.name) } },
    orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  const items: FleetChangeItem[] = [
    ...workspaces.map((w): FleetChangeItem => ({
      type: "health",
      workspace: w.name,
      health: ctx.fleet.state.healthOf(w.name),
      seed: true,
      cursor: high,
    })),
    ...agents.map((a): FleetChangeItem => ({ type: "agent", change: "seed", agentId: a.id, cursor: high })),
    { type: "seed_complete", cursor: high },
  ];
  return { items, high };
}

// Root fields ------------------------------------------------------------------------------------

const EventFilter = builder.inputType("FleetEventFilter", {
  description: "Which events to watch fleet-wide.",
  fields: (t) => ({
    workspace: t.string({ required: false, description: "Only this workspace." }),
    agentId: t.string({ required: false, description: "Only this agent." }),
    kinds: t.field({ type: [EventKindEnum], required: false, description: "Only these kinds." }),
  }),
});

const AFTER_DESCRIPTION =
  "Cursor of the last item already seen: the stream starts right after it (from the start when null). Over SSE the `Last-Event-ID` header, when sent, overrides it.";

builder.subscriptionType({
  description: `Live views: history after a cursor, then live, resumable. ${DELIVERY}`,
});

builder.subscriptionFields((t) => ({
  agentEvents: t.field({
    type: FleetEventRef,
    description:
      "An agent's events after `after` (all when null), then live; a GapEvent when the subscriber fell behind (followed by the refill); completes after the agent's terminal status. An unknown agent is an error. Viewer role, within the token's workspaces.",
    authScopes: (_r, args) => ({ role: "viewer", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id." }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) => {
      const row = await ctx.prisma.agent.findUnique({ where: { id: args.agentId } });
      if (!row)
        throw new GraphQLError(`agent not found: ${args.agentId}`, { extensions: { code: "NOT_FOUND" } });
      const after = positionOf(resumeCursor(ctx, args.after), "seq", args.agentId);
      const cursor = await ctx.prisma.ingestCursor.findUnique({ where: { agentId: args.agentId } });
      const settled = (isTerminal(row.status) && (cursor?.finished ?? true)) || row.goneAt !== null;
      const high = settled ? await ctx.store.highWater(args.agentId) : 0;
      if (settled && after >= high) return seedThenMap<never, EventItem>([], emptyIterator(), () => SKIP);
      const tail = replayThenTail({
        bus: ctx.bus,
        reader: readerFor(ctx),
        scope: { kind: "stream", streamKey: args.agentId, agentId: args.agentId },
        after,
        bufferSize: SUBSCRIBER_BUFFER,
        completeOn: isTerminalEvent,
      });
      if (settled) {
        // Nothing more will come: replay what is stored and complete.
        return withEventIds(
          ctx,
          seedThenMap<TailItem, EventItem>([], tail, (item) => {
            const ev = toItem(item, args.agentId);
            return ev.kind !== "gap" && ev.seq >= high ? { value: ev, last: true } : ev;
          }),
          eventIdOf,
        );
      }
      return withEventIds(
        ctx,
        seedThenMap<TailItem, EventItem>([], tail, (item) => toItem(item, args.agentId)),
        eventIdOf,
      );
    },
    resolve: (item: EventItem) => item,
  }),
  workspaceEvents: t.field({
    type: FleetEventRef,
    description:
      "Every event of a workspace (its agents' included) after `after`, then live, in commit order. An unknown workspace is an error. Viewer role, within the token's workspaces.",
    authScopes: (_r, args) => ({ role: "viewer", workspace: args.workspace }),
    args: {
      workspace: t.arg.string({ required: true, description: "Workspace name." }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) => {
      const ws = await ctx.prisma.workspace.findUnique({ where: { name: args.workspace } });
      if (!ws)
        throw new GraphQLError(`workspace not found: ${args.workspace}`, {
          extensions: { code: "NOT_FOUND" },
        });
      const tail = replayThenTail({
        bus: ctx.bus,
        reader: readerFor(ctx, { workspace: args.workspace }),
        scope: { kind: "global", filter: (e) => e.workspace === args.workspace },
        after: positionOf(resumeCursor(ctx, args.after), "globalId"),
        bufferSize: SUBSCRIBER_BUFFER,
      });
      return withEventIds(
        ctx,
        seedThenMap<TailItem, EventItem>([], tail, (item) =>
          toItem(item, workspaceStream(args.workspace), tail),
        ),
        eventIdOf,
      );
    },
    resolve: (item: EventItem) => item,
  }),
  fleetEvents: t.field({
    type: FleetEventRef,
    description:
      "Every event of the fleet matching `filter` after `after`, then live, in commit order; only the token's workspaces. A filter naming an unknown agent is an error (NOT_FOUND). Viewer role.",
    authScopes: (_r, args) => ({
      role: "viewer",
      ...(args.filter?.workspace != null ? { workspace: args.filter.workspace } : {}),
      ...(args.filter?.agentId != null ? { agent: args.filter.agentId } : {}),
    }),
    args: {
      filter: t.arg({ type: EventFilter, required: false, description: "Filter." }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) => {
      const f = args.filter;
      // An unknown agent is NOT_FOUND, as an agent outside the token's workspaces is (its scope
      // rule), so the answer tells nothing about which ids exist elsewhere.
      if (
        f?.agentId != null &&
        !(await ctx.prisma.agent.findUnique({ where: { id: f.agentId }, select: { id: true } }))
      ) {
        throw new GraphQLError(`agent not found: ${f.agentId}`, { extensions: { code: "NOT_FOUND" } });
      }
      const kinds = f?.kinds ? new Set<string>(f.kinds) : null;
      const stored = storedKinds(f?.kinds);
      const visible = visibleEvent(ctx);
      const match = (e: FleetEvent) =>
        (f?.workspace == null || e.workspace === f.workspace) &&
        (f?.agentId == null || e.agentId === f.agentId) &&
        (kinds === null || kinds.has(e.kind)) &&
        (visible === null || visible(e));
      const where = {
        ...(f?.workspace != null ? { workspace: f.workspace } : {}),
        ...(f?.agentId != null ? { agentId: f.agentId } : {}),
        ...(stored ? { kinds: stored } : {}),
      };
      const tail = replayThenTail({
        bus: ctx.bus,
        // The store read pre-filters by `where`; `match` (run on every read and live event) also
        // enforces the token's workspaces.
        reader: readerFor(ctx, where),
        scope: { kind: "global", filter: match, ...(f?.agentId != null ? { agentId: f.agentId } : {}) },
        after: positionOf(resumeCursor(ctx, args.after), "globalId"),
        bufferSize: SUBSCRIBER_BUFFER,
      });
      return withEventIds(
        ctx,
        seedThenMap<TailItem, EventItem>([], tail, (item) => toItem(item, "fleet", tail)),
        eventIdOf,
      );
    },
    resolve: (item: EventItem) => item,
  }),
  fleetChanges: t.field({
    type: FleetChangeRef,
    description:
      "Without `after`: a seed of the current fleet (one item per workspace and agent, then FleetSeedComplete), followed by live changes (agents, workspace health, launch and schedule changes: LaunchChanged, ScheduleChanged, and captured run changes: ChangesCaptured — launches, schedules and changes are not seeded, read them with `launches`, `schedules` and `agent.changes`); nothing published between seed and live is lost. Each subscription without `after` (a reconnect included) starts with a new seed. With `after` (the `cursor` of the last item received; over SSE, `Last-Event-ID`): no seed, the changes committed after it replayed from the store, then live, none repeated. After falling behind: FleetSeedComplete with `fellBehind: true`, then the missed changes replayed from the store. Viewer role; only the token's workspaces.",
    authScopes: { role: "viewer" },
    args: {
      after: t.arg.string({
        required: false,
        description:
          "Cursor of the last item already seen (any item's `cursor`, or a fleetEvents cursor): resume right after it, with no seed. Over SSE the `Last-Event-ID` header, when sent, overrides it.",
      }),
    },
    subscribe: async (_root, args, ctx) => {
      const from = resumeCursor(ctx, args.after);
      const { items, high } =
        from === null ? await seedOf(ctx) : { items: [], high: positionOf(from, "globalId") };
      // Events committed after the seed's high-water mark (or the cursor) are replayed from the
      // store, then live.
      const visible = visibleEvent(ctx);
      const live = replayThenTail({
        bus: ctx.bus,
        reader: readerFor(ctx, { kinds: [...LIFECYCLE_KINDS] }),
        scope: {
          kind: "global",
          filter: (e) => LIFECYCLE_KINDS.has(e.kind) && (visible === null || visible(e)),
        },
        after: high,
        bufferSize: SUBSCRIBER_BUFFER,
      });
      return withEventIds(
        ctx,
        seedThenMap<TailItem, FleetChangeItem>(items, live, (item) =>
          item.type === "gap"
            ? { type: "gap", cursor: item.afterPosition }
            : sharedChangeOf(item.event, live.position),
        ),
        changeCursor,
      );
    },
    resolve: (item: FleetChangeItem) => item,
  }),
}));
