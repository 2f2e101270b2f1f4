/**
 * `FleetEvent`: the interface of every stored event (a `Node`), with one object type per event
 * kind (src/events/index.ts), plus `GapEvent` for a subscriber that fell behind; and the one
 * connection type of events, `FleetEventConnection`. Cursors are opaque: base64url of
 * `v1:<globalId>:<seq>:<streamKey>`, usable both in stream order (seq) and in fleet-wide commit
 * order (globalId). An event's global id names its type and `<seq>:<streamKey>` (unique, and known
 * before the event is committed).
 */
import { GraphQLError } from "graphql";
import type { EventKind, FleetEvent, PayloadOf, Usage } from "../events/index.js";
import type { EventPageQuery } from "../store/events.js";
import { AGENT_ID } from "../caliband/wire.js";
import { WORKSPACE_NAME } from "../fleet/registry.js";
import { PAGE, builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import {
  AgentGoneReasonEnum,
  AgentStatusEnum,
  ChangeCaptureStateEnum,
  HealthStateEnum,
  SnapshotTriggerEnum,
  LaunchStateEnum,
  OutputStreamEnum,
  RunOutcomeEnum,
  ScheduleChangeEnum,
  StopReasonEnum,
  captureStateValue,
  launchStateValue,
  snapshotTriggerValue,
  outcomeValue,
  scheduleChangeValue,
  statusValue,
  stopReasonValue,
} from "./enums.js";
import { AgentSpecRef, specView } from "./spec.js";

/** The stream keys this gateway writes: an agent id, `workspace:<name>` or `fleet` (a regex source). */
const STREAM_KEY = `${AGENT_ID.source.slice(1, -1)}|workspace:${WORKSPACE_NAME.source.slice(1, -1)}|fleet`;

/** A position in the event log, decoded from an opaque cursor. */
export interface EventPosition {
  globalId: number;
  seq: number;
  streamKey: string;
}

/** Encode the opaque cursor of an event. */
export function encodeCursor(e: Pick<FleetEvent, "globalId" | "seq" | "streamKey">): string {
  return Buffer.from(`v1:${e.globalId ?? 0}:${e.seq}:${e.streamKey}`, "utf8").toString("base64url");
}

/**
 * Decode an opaque cursor.
 * @throws GraphQLError (BAD_USER_INPUT) for anything that is not a cursor this server issued.
 */
export function decodeCursor(cursor: string): EventPosition {
  const m = new RegExp(`^v1:(\\d{1,15}):(\\d{1,15}):(${STREAM_KEY})$`).exec(
    Buffer.from(cursor, "base64url").toString("utf8"),
  );
  if (!m) throw new GraphQLError("invalid cursor", { extensions: { code: "BAD_USER_INPUT" } });
  return { globalId: Number(m[1]), seq: Number(m[2]), streamKey: m[3]! };
}

/** An item of an event stream: a stored event, or the signal that the subscriber fell behind. */
export type EventItem = FleetEvent | GapItem;

/** Subscriber fell behind live delivery; missed events are refilled from the store right after. */
export interface GapItem {
  kind: "gap";
  streamKey: string;
  /** Position after which events are refilled (seq for agent streams, globalId for wider scopes). */
  afterPosition: number;
  /** The stream is in commit order (workspace and fleet-wide streams): `afterPosition` is a globalId. */
  commitOrder: boolean;
  reason: string;
  tsMs: number;
  workspace: string;
  agentId: string;
}

const TYPE_OF_KIND: Record<EventKind, string> = {
  agent_spawned: "AgentSpawnedEvent",
  agent_discovered: "AgentDiscoveredEvent",
  status_changed: "StatusChangedEvent",
  agent_gone: "AgentGoneEvent",
  workspace_health: "WorkspaceHealthEvent",
  turn_started: "TurnStartedEvent",
  output: "OutputEvent",
  tool_started: "ToolStartedEvent",
  tool_finished: "ToolFinishedEvent",
  turn_completed: "TurnCompletedEvent",
  agent_finished: "AgentFinishedEvent",
  input_sent: "InputSentEvent",
  input_ended: "InputEndedEvent",
  input_failed: "InputFailedEvent",
  ingest_gap: "IngestGapEvent",
  store_persist_failed: "StorePersistFailedEvent",
  worker_log: "WorkerLogEvent",
  launch_changed: "LaunchChangedEvent",
  schedule_changed: "ScheduleChangedEvent",
  changes_captured: "ChangesCapturedEvent",
};

/** The event kind a FleetEvent object type name stands for (null for other names and GapEvent). */
export function kindOfTypeName(typename: string): EventKind | null {
  for (const [kind, name] of Object.entries(TYPE_OF_KIND)) if (name === typename) return kind as EventKind;
  return null;
}

/** The GraphQL object type name of an event item. */
export function typeNameOf(e: EventItem): string {
  return e.kind === "gap" ? "GapEvent" : TYPE_OF_KIND[e.kind];
}

/** GraphQL `EventKind`: one value per stored event kind (internal value = the kind), plus GAP. */
export const EventKindEnum = builder.enumType("EventKind", {
  description:
    "Kinds of fleet events, one per FleetEvent type (`OUTPUT` is OutputEvent). GAP is a delivery signal of subscriptions, never stored: a filter on it alone matches no stored event.",
  values: {
    ...(Object.fromEntries(
      Object.entries(TYPE_OF_KIND).map(([k, type]) => [
        k.toUpperCase(),
        { value: k, description: `${type}.` },
      ]),
    ) as Record<string, { value: EventKind | "gap"; description: string }>),
    GAP: { value: "gap", description: "GapEvent (subscriptions only)." },
  },
});

/** Kinds of a filter, without GAP (never stored); undefined when the filter has none. */
export function storedKinds(kinds: readonly string[] | null | undefined): EventKind[] | undefined {
  return kinds ? (kinds.filter((k) => k !== "gap") as EventKind[]) : undefined;
}

/** The raw id part of an event's global id: `<seq>:<streamKey>` (its stream position). */
export function eventKey(e: EventItem): string {
  return e.kind === "gap" ? `${e.afterPosition}:gap:${e.streamKey}` : `${e.seq}:${e.streamKey}`;
}

/**
 * Parse {@link eventKey}'s format exactly as it is issued (a canonical seq from 1, and a stream key
 * that is an agent id, `workspace:<name>` or `fleet`); null for anything else.
 */
export function parseEventKey(raw: string): { seq: number; streamKey: string } | null {
  const m = new RegExp(`^([1-9]\\d{0,14}):(${STREAM_KEY})$`).exec(raw);
  return m ? { seq: Number(m[1]), streamKey: m[2]! } : null;
}

/** The FleetEvent interface. */
export const FleetEventRef = builder.interfaceRef<EventItem>("FleetEvent").implement({
  description:
    "One event of the fleet's durable history (or, for GapEvent, a delivery signal of a subscription). Every event is a Node: `node(id:)` reads a stored one again.",
  interfaces: [builder.nodeInterfaceRef()],
  resolveType: (e) => typeNameOf(e),
  fields: (t) => ({
    id: t.globalID({
      description:
        "Globally unique, opaque id (use with node(id:)). A GapEvent's id is not stored: node() of it is null.",
      resolve: (e) => ({ type: typeNameOf(e), id: eventKey(e) }),
    }),
    seq: t.int({
      description:
        "Position in its stream (from 1, increasing, never reused); for a GapEvent, the position refilled after.",
      resolve: (e) => (e.kind === "gap" ? e.afterPosition : e.seq),
    }),
    streamKey: t.exposeString("streamKey", {
      description: "Stream: an agent id, `workspace:<name>` or `fleet`.",
    }),
    ts: t.field({ type: "DateTime", description: "When it happened.", resolve: (e) => new Date(e.tsMs) }),
    workspace: t.exposeString("workspace", { description: "Workspace name (empty for fleet-level events)." }),
    agentId: t.string({
      nullable: true,
      description: "caliband agent id, or null for workspace- and fleet-level events.",
      resolve: (e) => (e.agentId === "" ? null : e.agentId),
    }),
    cursor: t.string({
      description: "Opaque cursor: resume after this event with `after:`.",
      resolve: (e) =>
        e.kind === "gap"
          ? e.commitOrder
            ? encodeCursor({ globalId: e.afterPosition, seq: 0, streamKey: e.streamKey })
            : encodeCursor({ globalId: null, seq: e.afterPosition, streamKey: e.streamKey })
          : encodeCursor(e),
    }),
  }),
});

type Of<K extends EventKind> = FleetEvent & { kind: K; payload: PayloadOf<K> };

function eventType<K extends EventKind>(
  kind: K,
  description: string,
  fields: (t: PothosFieldBuilder<Of<K>>) => Record<string, unknown>,
): void {
  builder.objectRef<Of<K>>(TYPE_OF_KIND[kind]).implement({
    description,
    interfaces: [builder.nodeInterfaceRef(), FleetEventRef],
    isTypeOf: (e) => (e as EventItem).kind === kind,
    fields: fields as never,
  });
}

// A field builder typed for one event object (what `implement({ fields })` receives).
type PothosFieldBuilder<T> = Parameters<
  NonNullable<Parameters<ReturnType<typeof builder.objectRef<T>>["implement"]>[0]["fields"]>
>[0];

/** GraphQL `TokenUsage` of a turn or run (token counts, read from the events' `Usage`). */
export const TokenUsageRef = builder.objectRef<Usage>("TokenUsage").implement({
  description:
    "Token counts of a turn or run (cache reads and writes are subsets of the input tokens). The same field names as UsageGroup's.",
  fields: (t) => ({
    inputTokens: t.exposeInt("input", { description: "Input tokens (cache reads and writes included)." }),
    outputTokens: t.exposeInt("output", { description: "Output tokens." }),
    cacheReadTokens: t.exposeInt("cacheRead", { description: "Input tokens read from the prompt cache." }),
    cacheCreationTokens: t.exposeInt("cacheCreation", {
      description: "Input tokens written to the prompt cache.",
    }),
  }),
});

eventType("agent_spawned", "Prospero spawned this agent.", (t) => ({
  name: t.string({ description: "Agent name (label or agent-<id>).", resolve: (e) => e.payload.name }),
  spec: t.field({
    type: AgentSpecRef,
    description: "The spawn spec as caliband echoed it.",
    resolve: (e) => specView(e.payload.spec),
  }),
}));
eventType("agent_discovered", "A poll found an agent Prospero had no record of.", (t) => ({
  name: t.string({ description: "Agent name.", resolve: (e) => e.payload.name }),
  status: t.field({
    type: AgentStatusEnum,
    description: "Status when discovered.",
    resolve: (e) => statusValue(e.payload.status),
  }),
}));
eventType(
  "status_changed",
  "caliband reported a new status, or the run ended because it is gone while live (then right before its AgentGoneEvent: KILLED after a forced removal, CRASHED when it vanished from its daemon or was respawned away).",
  (t) => ({
    from: t.field({
      type: AgentStatusEnum,
      description: "Previous status.",
      resolve: (e) => statusValue(e.payload.from),
    }),
    to: t.field({
      type: AgentStatusEnum,
      description: "New status.",
      resolve: (e) => statusValue(e.payload.to),
    }),
  }),
);
eventType(
  "agent_gone",
  "caliband no longer lists the agent (recorded once per run). A run still live at that point is ended first by a StatusChangedEvent (KILLED for `removed`, CRASHED for `vanished` or `respawned`), so this is never the end of a run without a terminal status.",
  (t) => ({
    reason: t.field({
      type: AgentGoneReasonEnum,
      description: "Why caliband no longer lists it.",
      resolve: (e) => e.payload.reason,
    }),
    replacedBy: t.string({
      nullable: true,
      description: "The new run's id after a respawn.",
      resolve: (e) => e.payload.replacedBy,
    }),
  }),
);
eventType("workspace_health", "The workspace's caliband became reachable or unreachable.", (t) => ({
  state: t.field({ type: HealthStateEnum, description: "New state.", resolve: (e) => e.payload.state }),
  reason: t.string({
    nullable: true,
    description: "Why it is unreachable.",
    resolve: (e) => e.payload.reason,
  }),
}));
eventType("turn_started", "The model started a turn (TurnStart).", (t) => ({
  turnIndex: t.int({ description: "Turn number from 0.", resolve: (e) => e.payload.turnIndex }),
  model: t.string({ description: "Model answering this turn.", resolve: (e) => e.payload.model }),
  messageId: t.string({ description: "Provider message id.", resolve: (e) => e.payload.messageId }),
}));
eventType("output", "Assistant text or thinking (consecutive deltas of one block may be merged).", (t) => ({
  stream: t.field({
    type: OutputStreamEnum,
    description: "Answer text or visible reasoning.",
    resolve: (e) => e.payload.stream,
  }),
  text: t.string({ description: "The text.", resolve: (e) => e.payload.text }),
  turnIndex: t.int({ description: "Turn number.", resolve: (e) => e.payload.turnIndex }),
  blockIndex: t.int({
    description: "Content block index within the turn.",
    resolve: (e) => e.payload.blockIndex,
  }),
}));
eventType("tool_started", "The model called a tool (ToolCallStart).", (t) => ({
  toolUseId: t.string({
    description: "Tool call id; pairs with its ToolFinishedEvent.",
    resolve: (e) => e.payload.toolUseId,
  }),
  name: t.string({ description: "Tool name.", resolve: (e) => e.payload.name }),
  turnIndex: t.int({ description: "Turn number.", resolve: (e) => e.payload.turnIndex }),
}));
eventType(
  "tool_finished",
  "A tool call ended (ToolCallEnd), paired with its ToolStartedEvent by `toolUseId`.",
  (t) => ({
    toolUseId: t.string({ description: "Tool call id.", resolve: (e) => e.payload.toolUseId }),
    name: t.string({
      description: "Tool name from its start (empty if the start was never seen).",
      resolve: (e) => e.payload.name,
    }),
    ok: t.boolean({ description: "False when the tool failed or was denied.", resolve: (e) => e.payload.ok }),
    input: t.field({
      type: "JSON",
      nullable: true,
      description: "Tool input assembled from its deltas (parsed JSON, or raw text).",
      resolve: (e) => e.payload.input,
    }),
    inputRaw: t.string({
      description: "Tool input as streamed (JSON text).",
      resolve: (e) => e.payload.inputRaw,
    }),
    resultText: t.string({
      description: "Result text (capped at 8192 characters).",
      resolve: (e) => e.payload.resultText,
    }),
    truncated: t.boolean({ description: "The result text was cut.", resolve: (e) => e.payload.truncated }),
    durationMs: t.float({
      nullable: true,
      description: "Observed duration, ms (null when the start was not seen).",
      resolve: (e) => e.payload.durationMs,
    }),
    turnIndex: t.int({ description: "Turn number.", resolve: (e) => e.payload.turnIndex }),
  }),
);
eventType("turn_completed", "A turn ended (TurnEnd) with its usage.", (t) => ({
  turnIndex: t.int({ description: "Turn number.", resolve: (e) => e.payload.turnIndex }),
  stopReason: t.field({
    type: StopReasonEnum,
    description: "Why the model ended the turn.",
    resolve: (e) => stopReasonValue(e.payload.stopReason),
  }),
  stopReasonName: t.string({
    description: "The stop reason as the provider named it, e.g. `end_turn` (kept for UNKNOWN values).",
    resolve: (e) => e.payload.stopReason,
  }),
  usage: t.field({
    type: TokenUsageRef,
    description: "Tokens of this turn.",
    resolve: (e) => e.payload.usage,
  }),
  ttftMs: t.float({
    nullable: true,
    description: "Time to first token, ms.",
    resolve: (e) => e.payload.ttftMs,
  }),
  tbtMs: t.float({
    nullable: true,
    description: "Mean time between tokens, ms.",
    resolve: (e) => e.payload.tbtMs,
  }),
  model: t.string({ nullable: true, description: "Model of the turn.", resolve: (e) => e.payload.model }),
  estimatedCostUsd: t.float({
    nullable: true,
    description: "Estimated cost in USD; null when the model's price is unknown.",
    resolve: (e) => e.payload.estimatedCostUsd,
  }),
}));
eventType("agent_finished", "The run ended (RunEnd).", (t) => ({
  outcome: t.field({
    type: RunOutcomeEnum,
    description: "Why the run ended.",
    resolve: (e) => outcomeValue(e.payload.outcome),
  }),
  outcomeName: t.string({
    description: "The stop condition as the worker named it, e.g. `EndOfTurn` (kept for UNKNOWN values).",
    resolve: (e) => e.payload.outcome,
  }),
  detail: t.string({
    nullable: true,
    description: "StopCondition detail (error text, limit).",
    resolve: (e) => e.payload.detail,
  }),
  turns: t.int({ description: "Turns in the run.", resolve: (e) => e.payload.turns }),
  usage: t.field({
    type: TokenUsageRef,
    description: "Tokens of the whole run.",
    resolve: (e) => e.payload.usage,
  }),
  model: t.string({ nullable: true, description: "Model of the run.", resolve: (e) => e.payload.model }),
  estimatedCostUsd: t.float({
    nullable: true,
    description: "Estimated cost in USD; null when the model's price is unknown.",
    resolve: (e) => e.payload.estimatedCostUsd,
  }),
  finalMessage: t.string({
    nullable: true,
    description:
      "The run's final assistant message: the text blocks of the last assistant message of RunEnd's final_messages, joined with a blank line, at most 16 KiB of UTF-8 (cut at a character boundary, `…` appended). Null when that message has no text, and for runs recorded before this field existed.",
    resolve: (e) => e.payload.finalMessage,
  }),
}));
eventType(
  "input_sent",
  "The operator sent a message to the interactive agent. Stored just before it is written to the worker (so ahead of the output answering it); an InputFailedEvent follows when the write failed.",
  (t) => ({
    text: t.string({ description: "The message.", resolve: (e) => e.payload.text }),
  }),
);
eventType(
  "input_ended",
  "The operator ended the agent's input (EndInput). Stored just before it is written to the worker; an InputFailedEvent follows when the write failed.",
  (t) => ({
    ended: t.boolean({ description: "Always true.", resolve: () => true }),
  }),
);
eventType(
  "input_failed",
  "The input recorded just before (InputSentEvent or InputEndedEvent) could not be written to the worker's endpoint: the agent did not receive it.",
  (t) => ({
    text: t.string({
      nullable: true,
      description: "The message that was not delivered; null for an EndInput.",
      resolve: (e) => e.payload.text,
    }),
    reason: t.string({ description: "Why the write failed.", resolve: (e) => e.payload.reason }),
  }),
);
eventType("ingest_gap", "Output lines were lost before they could be read (socket-only ingest).", (t) => ({
  missedLines: t.int({
    nullable: true,
    description: "Lines lost, when known.",
    resolve: (e) => e.payload.missedLines,
  }),
  detail: t.string({ description: "What happened.", resolve: (e) => e.payload.detail }),
}));
eventType(
  "store_persist_failed",
  "An event was delivered live but could not be stored (it is missing from history; this record says so).",
  (t) => ({
    lostSeq: t.int({
      description: "Seq of the event that was not stored.",
      resolve: (e) => e.payload.lostSeq,
    }),
    detail: t.string({ description: "The store error.", resolve: (e) => e.payload.detail }),
  }),
);

eventType(
  "worker_log",
  "Why the run failed, as far as the gateway can see: the end of the worker's log (caliband appends the worker's stdout and stderr to `<session_dir>/worker.log`; preflight failures such as a missing API key show up only there) and the exit code its RunEnd implies. Stored for a run that ends FAILED or CRASHED, right before the StatusChangedEvent that ends it (for a run first seen already ended: after its AgentDiscoveredEvent). The same facts are the agent's `failure`.",
  (t) => ({
    status: t.field({
      type: AgentStatusEnum,
      description: "The status the run ended with: FAILED or CRASHED.",
      resolve: (e) => statusValue(e.payload.status),
    }),
    logTail: t.string({
      nullable: true,
      description:
        "The last lines of worker.log (at most 40 lines and 8 KiB, UTF-8, token-shaped secrets such as API keys replaced by `[redacted]`; escape sequences and control characters other than LF and TAB removed); null when the file could not be read (see `reason`).",
      resolve: (e) => e.payload.tail,
    }),
    logTruncated: t.boolean({
      description: "Earlier lines (or the start of an over-long line) were left out of `logTail`.",
      resolve: (e) => e.payload.truncated,
    }),
    logBytes: t.float({
      nullable: true,
      description:
        "Size of worker.log when it was read, bytes (a Float: it may exceed 2^31); null when unread.",
      resolve: (e) => e.payload.bytes,
    }),
    exitCode: t.int({
      nullable: true,
      description:
        "The worker's exit code, inferred from the run's RunEnd stop condition (0 EndOfTurn, 75 MaxTurnsReached, 124 Cancelled, 1 any failure; caliban's worker exit codes) because caliband does not report exit codes; null when no RunEnd was read (a preflight failure, a fatal stream error, a killed or lost worker) or its stop condition is unknown.",
      resolve: (e) => e.payload.exitCode,
    }),
    reason: t.string({
      nullable: true,
      description:
        "Why `logTail` is null: the file does not exist here (a daemon on another machine, or removed with the session dir) or could not be read; null when it was read.",
      resolve: (e) => e.payload.reason,
    }),
  }),
);

eventType(
  "launch_changed",
  "A launch changed state (issue 14): stored in its workspace's stream together with the launch's update, so the launch as read after this event is at least this far. The same change is the launch's LaunchTransition and, on fleetChanges, a LaunchChanged item.",
  (t) => ({
    launchId: t.string({ description: "The launch's 12-hex id.", resolve: (e) => e.payload.launchId }),
    launch: t.prismaField({
      type: "Launch",
      nullable: true,
      description: "The launch, as stored now (null only if its row is missing).",
      resolve: (query, e, _a, ctx) =>
        ctx.prisma.launch.findUnique({ ...query, where: { id: e.payload.launchId } }),
    }),
    from: t.field({
      type: LaunchStateEnum,
      nullable: true,
      description: "The state before; null for the launch's first state (QUEUED).",
      resolve: (e) => (e.payload.from === null ? null : launchStateValue(e.payload.from)),
    }),
    to: t.field({
      type: LaunchStateEnum,
      description: "The new state.",
      resolve: (e) => launchStateValue(e.payload.to),
    }),
    reason: t.string({
      nullable: true,
      description: "Why, in words (which retry, why it failed, who cancelled it); null when none.",
      resolve: (e) => e.payload.reason,
    }),
    attempt: t.int({
      nullable: true,
      description: "The attempt number the change concerns; null before the first attempt.",
      resolve: (e) => e.payload.attempt,
    }),
    attemptAgentId: t.string({
      nullable: true,
      description: "caliband id of that attempt's run, once known; null otherwise.",
      resolve: (e) => e.payload.agentId,
    }),
  }),
);
eventType(
  "schedule_changed",
  "A schedule was created, changed, paused, resumed or deleted, or one of its fire times fired (a launch was enqueued) or was skipped (issue 14 item 4); stored in its workspace's stream. On fleetChanges the same change is a ScheduleChanged item.",
  (t) => ({
    scheduleId: t.string({ description: "The schedule's 12-hex id.", resolve: (e) => e.payload.scheduleId }),
    schedule: t.prismaField({
      type: "Schedule",
      nullable: true,
      description:
        "The schedule, as stored now (deleted ones stay readable; null only if its row is missing).",
      resolve: (query, e, _a, ctx) =>
        ctx.prisma.schedule.findUnique({ ...query, where: { id: e.payload.scheduleId } }),
    }),
    change: t.field({
      type: ScheduleChangeEnum,
      description: "What happened.",
      resolve: (e) => scheduleChangeValue(e.payload.change),
    }),
    launchId: t.string({
      nullable: true,
      description: "The launch a firing enqueued (FIRED); null otherwise.",
      resolve: (e) => e.payload.launchId,
    }),
    fireAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "The fire time concerned (FIRED, SKIPPED); null otherwise.",
      resolve: (e) => (e.payload.fireAtMs === null ? null : new Date(e.payload.fireAtMs)),
    }),
    reason: t.string({
      nullable: true,
      description: "Why a fire time was skipped, or other detail in words; null when none.",
      resolve: (e) => e.payload.reason,
    }),
  }),
);

builder.objectRef<GapItem>("GapEvent").implement({
  description:
    "The subscriber fell behind live delivery; the missed events follow, refilled from the store. (A graphql-ws client that stops reading long enough to miss the keep-alive is disconnected instead: see Subscription.)",
  interfaces: [builder.nodeInterfaceRef(), FleetEventRef],
  isTypeOf: (e) => (e as EventItem).kind === "gap",
  fields: (t) => ({
    reason: t.exposeString("reason", { description: "Why events were refilled." }),
  }),
});

/** A resolved page of events: what FleetEventConnection's fields read. */
export interface EventPage {
  events: FleetEvent[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Counts every stored event of the page's scope and kinds (run only when selected). */
  totalCount: () => Promise<number>;
}

const EventEdgeRef = builder.objectRef<FleetEvent>("FleetEventEdge").implement({
  description: "An event and its cursor.",
  fields: (t) => ({
    cursor: t.string({ description: "Opaque cursor of this event.", resolve: (e) => encodeCursor(e) }),
    node: t.field({ type: FleetEventRef, description: "The event.", resolve: (e) => e }),
  }),
});

/** The one connection type of events (Query.events, Agent.events). */
export const EventConnectionRef = builder.objectRef<EventPage>("FleetEventConnection").implement({
  description: "Events in order (oldest first), a page at a time.",
  fields: (t) => ({
    edges: t.field({
      type: [EventEdgeRef],
      description: "Events with their cursors.",
      resolve: (p) => p.events,
    }),
    nodes: t.field({ type: [FleetEventRef], description: "The events.", resolve: (p) => p.events }),
    pageInfo: t.field({
      type: builder.pageInfoRef(),
      description: "Pagination state.",
      resolve: (p) => ({
        hasNextPage: p.hasNextPage,
        hasPreviousPage: p.hasPreviousPage,
        startCursor: p.events[0] ? encodeCursor(p.events[0]) : null,
        endCursor: p.events.length ? encodeCursor(p.events[p.events.length - 1]!) : null,
      }),
    }),
    totalCount: t.int({
      description: "Stored events of this scope and filter, on every page (counted when selected).",
      resolve: (p) => p.totalCount(),
    }),
  }),
});

/** Connection arguments of an event page (validated by {@link PAGE_ARGS} before). */
export interface EventPageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
  kinds?: readonly string[] | null;
}

/**
 * Read one page of events of `scope` (one stream ordered by seq, or one workspace ordered by
 * commit) per Relay's rules: `first`/`after` forward, `last`/`before` backward (both bounds may
 * be given), default {@link PAGE}.default items.
 * @throws GraphQLError BAD_USER_INPUT for a cursor this server did not issue.
 */
export async function resolveEventPage(
  ctx: GraphQLContext,
  scope: EventPageQuery["scope"],
  args: EventPageArgs,
): Promise<EventPage> {
  const stream = "streamKey" in scope;
  const pos = (c: string | null | undefined): number | undefined => {
    if (c == null) return undefined;
    const p = decodeCursor(c);
    // Another stream's cursor is no position in this one (resuming with it would skip events).
    if (stream && p.streamKey !== scope.streamKey) {
      throw new GraphQLError("invalid cursor: it is a cursor of another agent's events", {
        extensions: { code: "BAD_USER_INPUT" },
      });
    }
    return stream ? p.seq : p.globalId;
  };
  const kinds = storedKinds(args.kinds);
  const after = pos(args.after);
  const before = pos(args.before);
  const backward = args.last != null;
  const limit = (backward ? args.last : args.first) ?? PAGE.default;
  const totalCount = () => ctx.store.countScope(scope, kinds);
  if (kinds && kinds.length === 0) {
    return { events: [], hasNextPage: false, hasPreviousPage: false, totalCount: () => Promise.resolve(0) };
  }
  const { events, more } = await ctx.store.readPage({ scope, kinds, after, before, limit, backward });
  // The other direction: is there an event at or beyond the cursor the page started from?
  const beyond = async (): Promise<boolean> => {
    if (backward) return before !== undefined && ctx.store.existsBeyond(scope, kinds, { atOrAfter: before });
    return after !== undefined && ctx.store.existsBeyond(scope, kinds, { atOrBefore: after });
  };
  const other = await beyond();
  return {
    events,
    hasNextPage: backward ? other : more,
    hasPreviousPage: backward ? more : other,
    totalCount,
  };
}

/** The filter of an event connection (Query.events, Agent.events). */
export const EventFilterRef = builder.inputType("EventFilter", {
  description: "Which stored events a page holds.",
  fields: (t) => ({
    kinds: t.field({
      type: [EventKindEnum],
      required: false,
      description: "Only these kinds (all when omitted).",
    }),
  }),
});

eventType(
  "changes_captured",
  "What a run changed in its repository was captured, or could not be (issue 16): stored in the run's workspace stream (its own stream has ended by its final snapshot) together with the capture's update, whenever the latest snapshot's head or the capture state changes. Read the files and the patch with `agent.changes`.",
  (t) => ({
    state: t.field({
      type: ChangeCaptureStateEnum,
      description: "The capture's state after this change.",
      resolve: (e) => captureStateValue(e.payload.state),
    }),
    reason: t.string({
      nullable: true,
      description: "Why not captured (or a note on a captured one); null when none.",
      resolve: (e) => e.payload.reason,
    }),
    baseCommit: t.string({
      nullable: true,
      description: "The commit the run started from (40 hex); null when unknown.",
      resolve: (e) => e.payload.baseCommit,
    }),
    headCommit: t.string({
      nullable: true,
      description: "The snapshot's commit (40 hex); null when none was taken.",
      resolve: (e) => e.payload.headCommit,
    }),
    trigger: t.field({
      type: SnapshotTriggerEnum,
      nullable: true,
      description: "What took the snapshot; null when none was taken.",
      resolve: (e) => (e.payload.trigger === null ? null : snapshotTriggerValue(e.payload.trigger)),
    }),
    turnIndex: t.int({
      nullable: true,
      description: "The TurnEnd's turn index (TURN_END); null for other triggers.",
      resolve: (e) => e.payload.turnIndex,
    }),
    files: t.int({ description: "Files changed, base..head.", resolve: (e) => e.payload.files }),
    additions: t.int({ description: "Lines added, base..head.", resolve: (e) => e.payload.additions }),
    deletions: t.int({ description: "Lines deleted, base..head.", resolve: (e) => e.payload.deletions }),
    skippedFiles: t.int({
      description: "Files of the working tree the size caps left out of the snapshot (0 = none).",
      resolve: (e) => e.payload.skippedFiles,
    }),
    final: t.boolean({
      description: "Taken at or after the run's end (RunEnd, kill, terminal status).",
      resolve: (e) => e.payload.final,
    }),
  }),
);
