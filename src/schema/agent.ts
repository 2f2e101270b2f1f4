/**
 * `Agent`: one run (Relay Node), read from the run table so runs caliband no longer lists stay
 * queryable. Live fields (status, usage) are updated in the same transactions as the events that
 * justify them, so they never disagree with history.
 */
import { isTerminal } from "../caliband/wire.js";
import { builder } from "./builder.js";
import { AgentStatusEnum, ProviderEnum, statusValue } from "./enums.js";
import {
  EventKindEnum,
  FleetEventRef,
  TokenUsageRef,
  decodeCursor,
  encodeCursor,
  type EventItem,
} from "./events.js";
import type { FleetEvent } from "../events/index.js";

/** The SpawnSpec fields an operator cares about (protocol §2.2). */
interface AgentSpecView {
  prompt: string;
  model: string | null;
  provider: string | null;
  toolAllowlist: string[] | null;
  source: string | null;
  label: string | null;
  frontmatterPath: string | null;
  isolated: boolean;
  interactive: boolean;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

const AgentSpecRef = builder.objectRef<AgentSpecView>("AgentSpec").implement({
  description: "What the agent was asked to do and with what (SpawnSpec, protocol §2.2).",
  fields: (t) => ({
    prompt: t.exposeString("prompt", { description: "Initial prompt." }),
    model: t.exposeString("model", { nullable: true, description: "Model; null = the provider's default." }),
    provider: t.field({
      type: ProviderEnum,
      nullable: true,
      description: "Provider; null = caliban's default (anthropic).",
      resolve: (s) =>
        ["anthropic", "openai", "ollama", "google"].includes(s.provider ?? "")
          ? (s.provider as "anthropic")
          : null,
    }),
    toolAllowlist: t.exposeStringList("toolAllowlist", {
      nullable: true,
      description: "Allowed tools; null = defaults.",
    }),
    source: t.exposeString("source", {
      nullable: true,
      description: "Source checkout name; null = workspace root.",
    }),
    label: t.exposeString("label", { nullable: true, description: "Label (becomes the name)." }),
    frontmatterPath: t.exposeString("frontmatterPath", {
      nullable: true,
      description: "Agent template path (stored only).",
    }),
    isolated: t.exposeBoolean("isolated", { description: "Runs in its own git worktree." }),
    interactive: t.exposeBoolean("interactive", {
      description: "Waits for operator input at each end of turn.",
    }),
  }),
});

/** Why a failed or crashed run failed (the row's failure columns, issue 12 item 7). */
interface RunFailureView {
  logTail: string | null;
  logTruncated: boolean;
  exitCode: number | null;
  reason: string | null;
}

const RunFailureRef = builder.objectRef<RunFailureView>("RunFailure").implement({
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
        "The worker's exit code, inferred from the run's RunEnd stop condition (0 EndOfTurn, 75 MaxTurnsReached, 124 Cancelled, 1 any failure; protocol §5.4) because caliband does not report exit codes; null when no RunEnd was read (a preflight failure, a fatal stream error, a lost worker) or its stop condition is unknown.",
    }),
    reason: t.exposeString("reason", {
      nullable: true,
      description:
        "Why `logTail` is null: the file does not exist here (a daemon on another machine, or removed with the session dir) or could not be read; null when it was read.",
    }),
  }),
});

const EventEdgeRef = builder.objectRef<EventItem>("FleetEventEdge").implement({
  description: "An event and its cursor.",
  fields: (t) => ({
    cursor: t.string({
      description: "Opaque cursor of this event.",
      resolve: (e) => (e.kind === "gap" ? "" : encodeCursor(e)),
    }),
    node: t.field({ type: FleetEventRef, description: "The event.", resolve: (e) => e }),
  }),
});

/** A page of events (Relay connection shape). */
export interface EventPage {
  events: FleetEvent[];
  hasNextPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

const EventPageInfoRef = builder.objectRef<EventPage>("FleetEventPageInfo").implement({
  description: "Pagination state of an event page (forward only).",
  fields: (t) => ({
    hasNextPage: t.exposeBoolean("hasNextPage", { description: "More events exist after endCursor." }),
    hasPreviousPage: t.boolean({
      description: "Always false: event pages are read forward.",
      resolve: () => false,
    }),
    startCursor: t.exposeString("startCursor", { nullable: true, description: "Cursor of the first event." }),
    endCursor: t.exposeString("endCursor", {
      nullable: true,
      description: "Cursor of the last event; pass as `after`.",
    }),
  }),
});

/** GraphQL type of an event page. */
export const EventConnectionRef = builder.objectRef<EventPage>("FleetEventConnection").implement({
  description: "Events in order, a page at a time.",
  fields: (t) => ({
    edges: t.field({ type: [EventEdgeRef], description: "Events with cursors.", resolve: (p) => p.events }),
    nodes: t.field({ type: [FleetEventRef], description: "The events.", resolve: (p) => p.events }),
    pageInfo: t.field({ type: EventPageInfoRef, description: "Pagination.", resolve: (p) => p }),
  }),
});

/** Build a page from `limit + 1` fetched events. */
export function toPage(fetched: FleetEvent[], limit: number): EventPage {
  const events = fetched.slice(0, limit);
  return {
    events,
    hasNextPage: fetched.length > limit,
    startCursor: events[0] ? encodeCursor(events[0]) : null,
    endCursor: events.length ? encodeCursor(events[events.length - 1]!) : null,
  };
}

/** Default and maximum event page sizes. */
export const EVENT_PAGE = { default: 100, max: 1000 } as const;

builder.prismaNode("Agent", {
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
      resolve: (a) => {
        const s = (a.spec ?? {}) as Record<string, unknown>;
        return {
          prompt: str(s.initial_prompt) ?? "",
          model: str(s.model),
          provider: str(s.provider),
          toolAllowlist: Array.isArray(s.tool_allowlist) ? s.tool_allowlist.map(String) : null,
          source: str(s.source),
          label: str(s.label),
          frontmatterPath: str(s.frontmatter_path),
          isolated: a.isolated,
          interactive: a.interactive,
        };
      },
    }),
    model: t.exposeString("model", {
      nullable: true,
      description: "Model actually used (latest TurnStart), else the spec's.",
    }),
    outcome: t.exposeString("outcome", {
      nullable: true,
      description: "StopCondition name of the run's end (RunEnd); null if none was seen.",
    }),
    failure: t.field({
      type: RunFailureRef,
      nullable: true,
      description:
        "Why the run failed: recorded when it ends FAILED or CRASHED (null before, and for a run that did not fail).",
      resolve: (a) =>
        a.failureLogTail === null && a.failureReason === null
          ? null
          : {
              logTail: a.failureLogTail,
              logTruncated: a.failureLogTruncated ?? false,
              exitCode: a.exitCode,
              reason: a.failureReason,
            },
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
        "This run's events in order. Intended for one agent at a time (it costs a query per agent).",
      args: {
        after: t.arg.string({ required: false, description: "Cursor to continue after." }),
        first: t.arg.int({
          required: false,
          description: `Page size, 1–${EVENT_PAGE.max} (default ${EVENT_PAGE.default}).`,
        }),
        kinds: t.arg({ type: [EventKindEnum], required: false, description: "Only these kinds." }),
      },
      resolve: async (a, args, ctx) => {
        const limit = Math.min(Math.max(args.first ?? EVENT_PAGE.default, 1), EVENT_PAGE.max);
        const after = args.after ? decodeCursor(args.after).seq : 0;
        const kinds = args.kinds ? new Set<string>(args.kinds) : null;
        if (!kinds) return toPage(await ctx.store.readStream(a.id, after, limit + 1), limit);
        const fetched = await ctx.store.readGlobal(
          0,
          limit + 1,
          (e) => e.streamKey === a.id && e.seq > after && kinds.has(e.kind),
          {
            agentId: a.id,
            kinds: [...kinds] as FleetEvent["kind"][],
          },
        );
        return toPage(fetched, limit);
      },
    }),
  }),
});
