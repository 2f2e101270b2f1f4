/**
 * The launch queue's read types (issue 14): `Launch` and `Schedule` (Relay Nodes, raw ids 12
 * lowercase hex), a launch's attempts and stored transitions, a schedule's firings, why a queued
 * launch waits (`LaunchWait`, from the dispatcher's last pass), caps and budgets with their use,
 * and `Queue` (the whole queue at a glance). Rows are read through Prisma; live facts (queue
 * position, wait reason, cap use, spend) from the queue service (`ctx.queue`, src/queue/queue.ts),
 * next fire times from the schedule service (`ctx.schedules`). Mutations are in
 * src/resolvers/queue-mutations.ts, root query fields in src/resolvers/queue-query.ts.
 *
 * A token limited to workspaces reaches no other workspace's launch or schedule by any path (the
 * type-level rules below; lists are filtered where they are read), and sees caps and budgets only
 * of its own workspaces besides the fleet-wide (GLOBAL), provider and model ones.
 */
import { z } from "zod";
import { NotFound } from "../errors.js";
import { allowsWorkspace, visibleWorkspaces, type Principal } from "../auth/roles.js";
import type { BudgetUsage, CapUsage } from "../queue/queue.js";
import { NO_RETRY, PRIORITY_DEFAULT, type RetryPolicy, type WaitReason } from "../queue/types.js";
import { builder, registerNode } from "./builder.js";
import { connectionTotal, prismaCursorArgs } from "./connections.js";
import { memoize, type GraphQLContext } from "./context.js";
import {
  AttemptOutcomeEnum,
  BudgetPeriodEnum,
  BudgetScopeEnum,
  CapScopeEnum,
  FiringTriggerEnum,
  LaunchStateEnum,
  ScheduleMissedEnum,
  ScheduleOverlapEnum,
  WaitKindEnum,
  attemptOutcomeValue,
  firingTriggerValue,
  launchStateValue,
} from "./enums.js";
import { AgentSpecRef, type AgentSpecView } from "./spec.js";

/** The raw id of a launch or a schedule: 12 lowercase hex characters (as agent ids). */
export const QUEUE_ID = /^[0-9a-f]{12}$/;

/**
 * Cursor rule of launch and schedule connections (`GPC:S:<12 hex>`): their ids have the form of
 * agent ids, so the agent connections' rule is theirs.
 */
export const queueCursorArgs = () => prismaCursorArgs("agent");

/** Most fire times `Schedule.upcoming(count:)` returns. */
export const MAX_UPCOMING = 100;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) ? v : null);
const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The view of a stored launch spec (`Launch.spec`, or a schedule template's `spec`): the spawn
 * options as asked, camelCase (`Omit<SpawnOptions, "workspace" | "clientRequestId">`, issue 14
 * item 1). Absent options read as the spawn's defaults: `isolated` true, `interactive` false,
 * the others null (the workspace's configuration or caliban's default at dispatch).
 */
export function launchSpecView(raw: unknown): AgentSpecView {
  const s = record(raw);
  return {
    prompt: str(s.prompt) ?? "",
    model: str(s.model),
    provider: str(s.provider),
    toolAllowlist: Array.isArray(s.toolAllowlist) ? s.toolAllowlist.map(String) : null,
    source: str(s.source),
    label: str(s.label),
    frontmatterPath: str(s.frontmatterPath),
    isolated: s.isolated !== false,
    interactive: s.interactive === true,
  };
}

/** A schedule's launch template as the API shows it. */
export interface LaunchTemplateView {
  spec: AgentSpecView;
  priority: number;
  timeoutMs: number | null;
  retry: RetryPolicy;
}

/**
 * The view of a stored schedule template (`Schedule.template`: `{spec, priority, timeoutMs,
 * retry}`, src/queue/schedules.ts `ScheduleTemplate`); missing or mistyped keys read as the
 * queue's defaults (priority {@link PRIORITY_DEFAULT}, no timeout, {@link NO_RETRY}).
 */
export function templateView(raw: unknown): LaunchTemplateView {
  const t = record(raw);
  const r = record(t.retry);
  return {
    spec: launchSpecView(t.spec),
    priority: int(t.priority) ?? PRIORITY_DEFAULT,
    timeoutMs: int(t.timeoutMs),
    retry: {
      maxAttempts: int(r.maxAttempts) ?? NO_RETRY.maxAttempts,
      backoffMs: int(r.backoffMs) ?? NO_RETRY.backoffMs,
      maxBackoffMs: int(r.maxBackoffMs) ?? NO_RETRY.maxBackoffMs,
    },
  };
}

/** GraphQL `RetryPolicy`: how a launch retries transient failures. */
export const RetryPolicyRef = builder.objectRef<RetryPolicy>("RetryPolicy").implement({
  description:
    "How a launch retries transient provider failures (rate limits, overload, connection resets, timeouts, the worker's stream-error exit) with jittered exponential backoff. Permanent failures are never retried.",
  fields: (t) => ({
    maxAttempts: t.exposeInt("maxAttempts", {
      description: "Attempts in all, the first one included (1 = never retry).",
    }),
    backoffMs: t.exposeInt("backoffMs", {
      description:
        "Nominal delay before the first retry, milliseconds; doubled for each further retry up to maxBackoffMs; the real delay is 50–100 % of it (equal jitter).",
    }),
    maxBackoffMs: t.exposeInt("maxBackoffMs", {
      description: "Longest delay between attempts, milliseconds.",
    }),
  }),
});

/** GraphQL `LaunchTemplate`: what each firing of a schedule enqueues. */
export const LaunchTemplateRef = builder.objectRef<LaunchTemplateView>("LaunchTemplate").implement({
  description: "What each firing of a schedule enqueues (a launch in the schedule's workspace).",
  fields: (t) => ({
    spec: t.field({
      type: AgentSpecRef,
      description:
        "The spawn of each launch. A null model or provider means the workspace's configuration at dispatch (else the provider's default).",
      resolve: (v) => v.spec,
    }),
    priority: t.exposeInt("priority", {
      description: "Priority of each launch, 0 (lowest) … 100 (highest).",
    }),
    timeoutMs: t.exposeInt("timeoutMs", {
      nullable: true,
      description:
        "Run timeout of each launch, milliseconds; null = the workspace's default (none when unset).",
    }),
    retry: t.field({
      type: RetryPolicyRef,
      description: "Retry policy of each launch.",
      resolve: (v) => v.retry,
    }),
  }),
});

/** GraphQL `LaunchWait`: the view of a {@link WaitReason}. */
export const LaunchWaitRef = builder.objectRef<WaitReason>("LaunchWait").implement({
  description:
    "Why a queued launch is not dispatched yet, as the dispatcher's last pass found (null on a launch that is not QUEUED, or before the first pass after it was enqueued).",
  fields: (t) => ({
    kind: t.field({ type: WaitKindEnum, description: "What it waits for.", resolve: (w) => w.kind }),
    message: t.exposeString("message", {
      description: 'In words, e.g. "cap GLOBAL 5/5" or "budget demo today $10.00/$10.00".',
    }),
    until: t.field({
      type: "DateTime",
      nullable: true,
      description:
        "When the wait ends by itself (NOT_BEFORE, RETRY_BACKOFF, PROVIDER_BACKOFF, DAEMON_UNREACHABLE); null for the other kinds.",
      resolve: (w) => ("untilMs" in w ? new Date(w.untilMs) : null),
    }),
    scope: t.string({
      nullable: true,
      description:
        "Scope of the full cap (a CapScope name) or the spent budget (a BudgetScope name); null for the other kinds.",
      resolve: (w) => (w.kind === "CAP" || w.kind === "BUDGET" ? w.scope : null),
    }),
    key: t.string({
      nullable: true,
      description:
        "Key of that cap or budget (workspace, provider or model name; empty for GLOBAL); null for the other kinds.",
      resolve: (w) => (w.kind === "CAP" || w.kind === "BUDGET" ? w.key : null),
    }),
    inUse: t.int({
      nullable: true,
      description: "Live runs the full cap counts (CAP); null for the other kinds.",
      resolve: (w) => (w.kind === "CAP" ? w.inUse : null),
    }),
    max: t.int({
      nullable: true,
      description: "The full cap's maximum (CAP); null for the other kinds.",
      resolve: (w) => (w.kind === "CAP" ? w.max : null),
    }),
    period: t.field({
      type: BudgetPeriodEnum,
      nullable: true,
      description: "The spent budget's period (BUDGET); null for the other kinds.",
      resolve: (w) => (w.kind === "BUDGET" ? w.period : null),
    }),
    spentUsd: t.float({
      nullable: true,
      description: "Estimated spend of the budget's period so far, USD (BUDGET); null for the other kinds.",
      resolve: (w) => (w.kind === "BUDGET" ? w.spentUsd : null),
    }),
    limitUsd: t.float({
      nullable: true,
      description: "The budget's limit, USD (BUDGET); null for the other kinds.",
      resolve: (w) => (w.kind === "BUDGET" ? w.limitUsd : null),
    }),
    previousLaunch: t.prismaField({
      type: "Launch",
      nullable: true,
      description:
        "The schedule's previous launch this one waits for (PREVIOUS_RUN); null for the other kinds.",
      resolve: (query, w, _a, ctx) =>
        w.kind === "PREVIOUS_RUN"
          ? ctx.prisma.launch.findUnique({ ...query, where: { id: w.launchId } })
          : null,
    }),
  }),
});

/** A principal's type-level rule for an object of `workspace` (Launch, Schedule). */
const withinWorkspaces = (workspace: string, auth: Principal) => auth.workspaces === null || { workspace };

builder.prismaObject("LaunchAttempt", {
  description:
    "One attempt of a launch: recorded before its spawn is sent, so a gateway stopped before the daemon's reply adopts the run at restart instead of spawning a second one.",
  fields: (t) => ({
    n: t.exposeInt("n", { description: "Attempt number within the launch, from 1." }),
    agentId: t.exposeString("agentId", {
      nullable: true,
      description: "caliband id of the run this attempt started; null until known.",
    }),
    agent: t.prismaField({
      type: "Agent",
      nullable: true,
      description: "The run this attempt started; null until known (or when it never started: LOST).",
      resolve: (query, a, _args, ctx) =>
        a.agentId === null ? null : ctx.prisma.agent.findUnique({ ...query, where: { id: a.agentId } }),
    }),
    kind: t.exposeString("kind", {
      description:
        "`spawn` (a new run), or `respawn` (the daemon's respawn of the previous attempt's run, same spec).",
    }),
    respawnOf: t.exposeString("respawnOf", {
      nullable: true,
      description: "For a respawn, the caliband id of the run it replaced; null otherwise.",
    }),
    requestedAt: t.field({
      type: "DateTime",
      description: "When the spawn (or respawn) was about to be sent.",
      resolve: (a) => a.requestedAt,
    }),
    outcome: t.field({
      type: AttemptOutcomeEnum,
      nullable: true,
      description: "How the attempt ended; null while it runs.",
      resolve: (a) => (a.outcome === null ? null : attemptOutcomeValue(a.outcome)),
    }),
    outcomeName: t.exposeString("outcome", {
      nullable: true,
      description: "The outcome as stored, e.g. `timed_out` (kept for UNKNOWN outcomes); null while it runs.",
    }),
    error: t.exposeString("error", {
      nullable: true,
      description: "Why it failed, in words; null otherwise.",
    }),
    transient: t.exposeBoolean("transient", {
      nullable: true,
      description:
        "Whether the failure was transient (and so retried while attempts remain); null while running or on success.",
    }),
    endedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the attempt ended; null while it runs.",
      resolve: (a) => a.endedAt,
    }),
  }),
});

const LaunchTransitionRef = builder.prismaObject("LaunchTransition", {
  description:
    "One stored state change of a launch (also delivered as a LaunchChangedEvent and on fleetChanges as LaunchChanged).",
  fields: (t) => ({
    from: t.field({
      type: LaunchStateEnum,
      nullable: true,
      description: "The state before; null for the launch's first state (QUEUED).",
      resolve: (r) => (r.from === null ? null : launchStateValue(r.from)),
    }),
    to: t.field({
      type: LaunchStateEnum,
      description: "The new state.",
      resolve: (r) => launchStateValue(r.to),
    }),
    reason: t.exposeString("reason", {
      nullable: true,
      description: 'Why, in words (e.g. "cancelled by <token>", which retry, why it failed); null when none.',
    }),
    attempt: t.exposeInt("attempt", {
      nullable: true,
      description: "The attempt number this change concerns; null before the first attempt.",
    }),
    at: t.field({ type: "DateTime", description: "When it changed.", resolve: (r) => r.at }),
  }),
});

/** The connection type of a launch's transitions. */
const LaunchTransitionConnectionRef = builder.connectionObject(
  {
    type: LaunchTransitionRef,
    name: "LaunchTransitionConnection",
    description: "A page of a launch's state changes, oldest first.",
    fields: (t) => ({
      totalCount: t.int({
        description: "State changes of the launch, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "LaunchTransitionEdge", description: "A state change and its cursor." },
);

registerNode("Launch", QUEUE_ID);

/** The Launch node type. */
export const LaunchRef = builder.prismaNode("Launch", {
  id: { field: "id" },
  // node(id:)/nodes(ids:) answer null for an id that names no launch.
  nullable: true,
  description:
    "A durable request to run an agent (enqueueLaunch, or a schedule's firing): dispatched by the queue when its caps, budgets and time allow, retried on transient provider failures, ended by a timeout or a cancel. Each attempt is an agent run.",
  authScopes: (l, ctx) => withinWorkspaces(l.workspace, ctx.auth),
  fields: (t) => ({
    launchId: t.exposeString("id", {
      description: "The launch's 12-hex id (use with launch(launchId:) and cancelLaunch).",
    }),
    workspace: t.prismaField({
      type: "Workspace",
      description: "Workspace the launch runs in.",
      resolve: (query, l, _a, ctx) =>
        ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: l.workspace } }),
    }),
    state: t.field({
      type: LaunchStateEnum,
      description: "Where the launch is now.",
      resolve: (l) => launchStateValue(l.state),
    }),
    stateName: t.exposeString("state", {
      description: "The state as stored, e.g. `TIMED_OUT` (kept for UNKNOWN states).",
    }),
    spec: t.field({
      type: AgentSpecRef,
      description:
        "What to spawn, as asked. A null model or provider means the workspace's configuration at dispatch (else the provider's default).",
      resolve: (l) => launchSpecView(l.spec),
    }),
    dedupKey: t.exposeString("dedupKey", {
      nullable: true,
      description:
        "The caller's dedup key (unique among launches not yet final; kept once final); null when none was given.",
    }),
    priority: t.exposeInt("priority", {
      description: "0 (lowest) … 100 (highest); higher is dispatched first, then older first.",
    }),
    notBefore: t.field({
      type: "DateTime",
      nullable: true,
      description: "Not dispatched before this instant; null = as soon as possible.",
      resolve: (l) => l.notBefore,
    }),
    timeoutMs: t.exposeInt("timeoutMs", {
      nullable: true,
      description:
        "Run timeout, milliseconds (the launch's own, or the workspace's default when it was enqueued): a run exceeding it is killed and the launch ends TIMED_OUT. Null = none.",
    }),
    retry: t.field({
      type: RetryPolicyRef,
      description: "How transient failures are retried.",
      resolve: (l) => ({
        maxAttempts: l.retryMaxAttempts,
        backoffMs: l.retryBackoffMs,
        maxBackoffMs: l.retryMaxBackoffMs,
      }),
    }),
    retryAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "A queued retry is not dispatched before this instant; null when no retry waits.",
      resolve: (l) => l.retryAt,
    }),
    attemptCount: t.exposeInt("attemptCount", { description: "Attempts started so far." }),
    attempts: t.relation("attempts", {
      description: "Every attempt, first first.",
      query: { orderBy: { n: "asc" } },
    }),
    agent: t.prismaField({
      type: "Agent",
      nullable: true,
      description: "The run of the current (or last) attempt; null before its run exists.",
      resolve: (query, l, _a, ctx) =>
        l.agentId === null ? null : ctx.prisma.agent.findUnique({ ...query, where: { id: l.agentId } }),
    }),
    queuePosition: t.int({
      nullable: true,
      description:
        "1-based position among the QUEUED launches of the whole fleet in dispatch order (priority, then age), as of the dispatcher's last pass; null when the launch is not QUEUED.",
      resolve: (l, _a, ctx) => (l.state === "QUEUED" ? ctx.queue.queuePosition(l.id) : null),
    }),
    waitingFor: t.field({
      type: LaunchWaitRef,
      nullable: true,
      description:
        "Why the launch is not dispatched yet (which cap, budget or time), as of the dispatcher's last pass; null when it is not QUEUED.",
      resolve: (l, _a, ctx) => (l.state === "QUEUED" ? ctx.queue.waitingFor(l.id) : null),
    }),
    reason: t.exposeString("reason", {
      nullable: true,
      description:
        "Why the launch ended FAILED, TIMED_OUT or CANCELLED, or why its last attempt failed; null otherwise.",
    }),
    schedule: t.prismaField({
      type: "Schedule",
      nullable: true,
      description: "The schedule that fired it; null for a launch enqueued directly.",
      resolve: (query, l, _a, ctx) =>
        l.scheduleId === null
          ? null
          : ctx.prisma.schedule.findUnique({ ...query, where: { id: l.scheduleId } }),
    }),
    createdBy: t.exposeString("createdBy", {
      nullable: true,
      description: "Name of the token that enqueued it; null when a schedule fired it.",
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was enqueued.",
      resolve: (l) => l.createdAt,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When it last changed.",
      resolve: (l) => l.updatedAt,
    }),
    dispatchedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When its current attempt was dispatched; null before the first.",
      resolve: (l) => l.dispatchedAt,
    }),
    startedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When its current attempt's run started (RUNNING); null before.",
      resolve: (l) => l.startedAt,
    }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it reached its final state; null before.",
      resolve: (l) => l.finishedAt,
    }),
    transitions: t.relatedConnection(
      "transitions",
      {
        cursor: "id",
        totalCount: true,
        description: "Its stored state changes, oldest first; pages with first/after or last/before.",
        validate: prismaCursorArgs("int"),
        query: () => ({ orderBy: { id: "asc" } }),
      },
      LaunchTransitionConnectionRef,
    ),
  }),
});

/** The one connection type of launches (Query.launches). */
export const LaunchConnectionRef = builder.connectionObject(
  {
    type: LaunchRef,
    name: "LaunchConnection",
    description: "A page of launches.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Launches matching the field's filter, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "LaunchEdge", description: "A launch and its cursor." },
);

/** Which launches a launch connection lists (every condition must hold). */
export const LaunchFilterRef = builder.inputType("LaunchFilter", {
  description: "Which launches to list; every given condition must hold.",
  fields: (t) => ({
    workspace: t.string({ required: false, description: "Only launches of this workspace." }),
    states: t.field({
      type: [LaunchStateEnum],
      required: false,
      description:
        "Only launches in these states. Exactly [QUEUED] lists them in dispatch order (priority, then oldest first) instead of newest first.",
    }),
    scheduleId: t.string({
      required: false,
      description: "Only launches fired by this schedule (12-hex id).",
    }),
    dedupKey: t.string({ required: false, description: "Only launches enqueued with this dedup key." }),
  }),
});

/** Filter values of {@link LaunchFilterRef}. */
export interface LaunchFilterArg {
  workspace?: string | null;
  states?: readonly string[] | null;
  scheduleId?: string | null;
  dedupKey?: string | null;
}

/** The Prisma `where` of a launch filter (AND-ed with the caller's visibility rule). */
export function launchFilterWhere(f: LaunchFilterArg | null | undefined): Record<string, unknown> {
  return {
    ...(f?.workspace != null ? { workspace: f.workspace } : {}),
    ...(f?.states != null ? { state: { in: [...f.states] } } : {}),
    ...(f?.scheduleId != null ? { scheduleId: f.scheduleId } : {}),
    ...(f?.dedupKey != null ? { dedupKey: f.dedupKey } : {}),
  };
}

/**
 * The order of a launch list: dispatch order (priority desc, oldest first, id: the dispatcher's
 * `dispatchOrder`, src/queue/admit.ts) when the filter asks for exactly the QUEUED launches, else
 * newest first (createdAt desc, id desc). Both are served by Launch's indexes.
 */
export function launchOrder(f: LaunchFilterArg | null | undefined): Record<string, "asc" | "desc">[] {
  const onlyQueued = f?.states != null && f.states.length > 0 && f.states.every((s) => s === "QUEUED");
  return onlyQueued
    ? [{ priority: "desc" }, { createdAt: "asc" }, { id: "asc" }]
    : [{ createdAt: "desc" }, { id: "desc" }];
}

const ScheduleFiringRef = builder.prismaObject("ScheduleFiring", {
  description: "One fire time of a schedule: the launch it became, or why it was skipped.",
  fields: (t) => ({
    fireAt: t.field({
      type: "DateTime",
      description: "The cron fire time (for a run now: the moment it was asked).",
      resolve: (f) => f.fireAt,
    }),
    at: t.field({ type: "DateTime", description: "When the gateway handled it.", resolve: (f) => f.at }),
    trigger: t.field({
      type: FiringTriggerEnum,
      description: "What made it fire.",
      resolve: (f) => firingTriggerValue(f.trigger),
    }),
    launch: t.prismaField({
      type: "Launch",
      nullable: true,
      description: "The launch it enqueued; null when it was skipped.",
      resolve: (query, f, _a, ctx) =>
        f.launchId === null ? null : ctx.prisma.launch.findUnique({ ...query, where: { id: f.launchId } }),
    }),
    skippedReason: t.exposeString("skippedReason", {
      nullable: true,
      description: "Why it was skipped (overlap policy SKIP, missed while down, …); null when it fired.",
    }),
  }),
});

/** The connection type of a schedule's firings. */
const ScheduleFiringConnectionRef = builder.connectionObject(
  {
    type: ScheduleFiringRef,
    name: "ScheduleFiringConnection",
    description: "A page of a schedule's firings, newest first.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Firings of the schedule, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "ScheduleFiringEdge", description: "A firing and its cursor." },
);

registerNode("Schedule", QUEUE_ID);

/** The Schedule node type. */
export const ScheduleRef = builder.prismaNode("Schedule", {
  id: { field: "id" },
  // node(id:)/nodes(ids:) answer null for an id that names no schedule.
  nullable: true,
  description:
    "A cron schedule of launches: every fire time enqueues its template as a launch through the same queue, caps and budgets as enqueueLaunch.",
  authScopes: (s, ctx) => withinWorkspaces(s.workspace, ctx.auth),
  fields: (t) => ({
    scheduleId: t.exposeString("id", {
      description: "The schedule's 12-hex id (use with schedule(scheduleId:) and the schedule mutations).",
    }),
    name: t.exposeString("name", { description: "Its name." }),
    workspace: t.prismaField({
      type: "Workspace",
      description: "Workspace its launches run in.",
      resolve: (query, s, _a, ctx) =>
        ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: s.workspace } }),
    }),
    cron: t.exposeString("cron", {
      description:
        "Cron expression (5 fields, or 6 with seconds first; croner syntax; fire times at least a minute apart), read in `timeZone`.",
    }),
    timeZone: t.exposeString("timeZone", {
      description: "IANA time zone the expression is read in, e.g. `UTC`.",
    }),
    overlap: t.field({
      type: ScheduleOverlapEnum,
      description: "What a firing does while the previous launch is still active.",
      resolve: (s) => s.overlap as "SKIP" | "QUEUE" | "ALLOW",
    }),
    missed: t.field({
      type: ScheduleMissedEnum,
      description: "What the gateway does at start for fire times missed while it was down.",
      resolve: (s) => s.missed as "SKIP" | "RUN_ONCE",
    }),
    paused: t.exposeBoolean("paused", { description: "A paused schedule does not fire." }),
    template: t.field({
      type: LaunchTemplateRef,
      description: "What each firing enqueues.",
      resolve: (s) => templateView(s.template),
    }),
    nextFireAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "The next fire time; null while paused or once deleted.",
      resolve: (s) => s.nextFireAt,
    }),
    lastFireAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "The latest fire time handled (fired or skipped); null before the first.",
      resolve: (s) => s.lastFireAt,
    }),
    upcoming: t.field({
      type: ["DateTime"],
      description: `The next fire times, earliest first (at most ${MAX_UPCOMING}); empty while paused or once deleted.`,
      args: {
        count: t.arg.int({
          required: false,
          defaultValue: 5,
          description: `How many fire times (0–${MAX_UPCOMING}, default 5).`,
        }),
      },
      validate: z.looseObject({
        count: z
          .number()
          .int()
          .min(0, "must be 0 or more")
          .max(MAX_UPCOMING, `must be at most ${MAX_UPCOMING}`)
          .nullish(),
      }),
      resolve: (s, args, ctx) => {
        if (s.deletedAt !== null || s.paused || s.nextFireAt === null) return [];
        try {
          return ctx.schedules.upcoming(s.id, args.count ?? 5).map((ms) => new Date(ms));
        } catch (err) {
          // A row the service does not hold (yet): no fire time it would act on.
          if (err instanceof NotFound) return [];
          throw err;
        }
      },
    }),
    createdBy: t.exposeString("createdBy", {
      nullable: true,
      description: "Name of the token that created it; null when unknown.",
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was created.",
      resolve: (s) => s.createdAt,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When it last changed.",
      resolve: (s) => s.updatedAt,
    }),
    deletedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it was deleted (its firings stay in history); null while it exists.",
      resolve: (s) => s.deletedAt,
    }),
    firings: t.relatedConnection(
      "firings",
      {
        cursor: "id",
        totalCount: true,
        description:
          "Its fire times handled (fired or skipped), newest first; pages with first/after or last/before.",
        validate: prismaCursorArgs("int"),
        query: () => ({ orderBy: { id: "desc" } }),
      },
      ScheduleFiringConnectionRef,
    ),
  }),
});

/** The one connection type of schedules (Query.schedules). */
export const ScheduleConnectionRef = builder.connectionObject(
  {
    type: ScheduleRef,
    name: "ScheduleConnection",
    description: "A page of schedules.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Schedules matching the field's filter, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "ScheduleEdge", description: "A schedule and its cursor." },
);

/** Which schedules a schedule connection lists. */
export const ScheduleFilterRef = builder.inputType("ScheduleFilter", {
  description: "Which schedules to list; every given condition must hold.",
  fields: (t) => ({
    workspace: t.string({ required: false, description: "Only schedules of this workspace." }),
    includeDeleted: t.boolean({
      required: false,
      description: "Include deleted schedules (their firings stay in history). Default false.",
    }),
  }),
});

/** The Prisma `where` of a schedule filter (AND-ed with the caller's visibility rule). */
export function scheduleFilterWhere(
  f: { workspace?: string | null; includeDeleted?: boolean | null } | null | undefined,
): Record<string, unknown> {
  return {
    ...(f?.workspace != null ? { workspace: f.workspace } : {}),
    ...(f?.includeDeleted === true ? {} : { deletedAt: null }),
  };
}

/** GraphQL `Cap`: a concurrency cap with the live runs it counts now. */
export const CapRef = builder.objectRef<CapUsage>("Cap").implement({
  description:
    "A concurrency cap: at most `max` live runs in its scope. Counts every live run the fleet sees (Prospero's and ones discovered on a daemon) plus dispatches in flight; the dispatcher never exceeds it.",
  fields: (t) => ({
    scope: t.field({ type: CapScopeEnum, description: "What it counts.", resolve: (c) => c.scope }),
    key: t.exposeString("key", {
      description: "Workspace, provider or model name of the scope; empty for GLOBAL.",
    }),
    max: t.exposeInt("max", { description: "Most live runs allowed (0 pauses dispatch in the scope)." }),
    inUse: t.exposeInt("inUse", {
      description: "Live runs it counts now (may exceed max after max was lowered).",
    }),
  }),
});

/** GraphQL `Budget`: a spend limit with the period's estimated spend so far. */
export const BudgetRef = builder.objectRef<BudgetUsage>("Budget").implement({
  description:
    "A spend limit (USD, from the cost estimate): once the period's spend reaches it, new dispatch in its scope waits; running work finishes.",
  fields: (t) => ({
    scope: t.field({ type: BudgetScopeEnum, description: "Whose spend it limits.", resolve: (b) => b.scope }),
    key: t.exposeString("key", { description: "Workspace or provider name of the scope." }),
    period: t.field({
      type: BudgetPeriodEnum,
      description: "The period it sums over.",
      resolve: (b) => b.period,
    }),
    limitUsd: t.exposeFloat("limitUsd", { description: "The limit, USD." }),
    spentUsd: t.exposeFloat("spentUsd", {
      description: "Estimated spend of the scope's runs started in the current period, USD.",
    }),
    periodStart: t.field({
      type: "DateTime",
      description: "Start of the current period (midnight UTC, or the 1st of the month).",
      resolve: (b) => new Date(b.periodStartMs),
    }),
    exhausted: t.exposeBoolean("exhausted", {
      description: "spentUsd has reached limitUsd: new dispatch in the scope waits.",
    }),
  }),
});

/** Whether a token may see a cap (fleet-wide, provider and model caps; workspace caps of its workspaces). */
export function capVisible(auth: Principal, c: { scope: string; key: string }): boolean {
  return c.scope !== "WORKSPACE" || allowsWorkspace(auth, c.key);
}

/** Whether a token may see a budget (provider budgets; workspace budgets of its workspaces). */
export function budgetVisible(auth: Principal, b: { scope: string; key: string }): boolean {
  return b.scope !== "WORKSPACE" || allowsWorkspace(auth, b.key);
}

/** Launch counts of the queue as one token sees them. */
interface QueueCounts {
  queued: number;
  dispatched: number;
  running: number;
  /** Creation time of the oldest QUEUED launch, or null when none is queued. */
  oldestQueuedAt: Date | null;
}

/**
 * The queue's counts for `ctx`'s token, once per operation: the queue service's gauges for a token
 * that sees every workspace; for a token limited to workspaces, counted in the store over its
 * workspaces only (`Launch(state, …)` index), so no other workspace's queue shows through.
 */
function queueCounts(ctx: GraphQLContext): Promise<QueueCounts> {
  return memoize(ctx, "queue:counts", async () => {
    const only = visibleWorkspaces(ctx.auth);
    if (only === null) {
      const m = ctx.queue.metrics();
      return {
        queued: m.queued,
        dispatched: m.dispatched,
        running: m.running,
        oldestQueuedAt: m.queued > 0 ? new Date(Date.now() - m.oldest_queued_age_ms) : null,
      };
    }
    const where = { workspace: { in: [...only] } };
    const [groups, oldest] = await Promise.all([
      ctx.prisma.launch.groupBy({
        by: ["state"],
        where: { ...where, state: { in: ["QUEUED", "DISPATCHED", "RUNNING"] } },
        _count: { _all: true },
      }),
      ctx.prisma.launch.findFirst({
        where: { ...where, state: "QUEUED" },
        orderBy: { createdAt: "asc" },
        select: { createdAt: true },
      }),
    ]);
    const count = (state: string) => groups.find((g) => g.state === state)?._count._all ?? 0;
    return {
      queued: count("QUEUED"),
      dispatched: count("DISPATCHED"),
      running: count("RUNNING"),
      oldestQueuedAt: oldest?.createdAt ?? null,
    };
  });
}

/** What `Queue` resolves from: nothing of its own (every field reads the services for the token). */
export type QueueRoot = { readonly queue: true };

/** GraphQL `Queue`: the launch queue at a glance, as the asking token may see it. */
export const QueueRef = builder.objectRef<QueueRoot>("Queue").implement({
  description:
    "The launch queue at a glance: how many launches wait, are being dispatched and run, the caps with their use and the budgets with their spend. A token limited to workspaces sees the counts of its workspaces only, and besides the fleet-wide, provider and model caps (and provider budgets) only its workspaces' caps and budgets.",
  fields: (t) => ({
    depth: t.int({
      description: "Launches QUEUED now.",
      resolve: async (_q, _a, ctx) => (await queueCounts(ctx)).queued,
    }),
    dispatched: t.int({
      description: "Launches DISPATCHED now (spawn on its way to the daemon).",
      resolve: async (_q, _a, ctx) => (await queueCounts(ctx)).dispatched,
    }),
    running: t.int({
      description: "Launches RUNNING now.",
      resolve: async (_q, _a, ctx) => (await queueCounts(ctx)).running,
    }),
    oldestQueuedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the oldest QUEUED launch was enqueued; null when none is queued.",
      resolve: async (_q, _a, ctx) => (await queueCounts(ctx)).oldestQueuedAt,
    }),
    caps: t.field({
      type: [CapRef],
      description: "Concurrency caps with the live runs each counts now, GLOBAL first.",
      resolve: (_q, _a, ctx) => ctx.queue.caps().filter((c) => capVisible(ctx.auth, c)),
    }),
    budgets: t.field({
      type: [BudgetRef],
      description: "Spend budgets with the current period's estimated spend.",
      resolve: async (_q, _a, ctx) => (await ctx.queue.budgets()).filter((b) => budgetVisible(ctx.auth, b)),
    }),
  }),
});
