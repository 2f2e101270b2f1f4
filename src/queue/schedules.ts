/**
 * Cron schedules of launches (issue 14 item 4). A schedule is a launch template fired by a cron
 * expression in an IANA time zone; every firing becomes a launch in the durable queue (or a
 * recorded skip), never a spawn of its own.
 *
 * Rules:
 * - Durable first: a schedule's row, each firing's `ScheduleFiring` row and each `schedule_changed`
 *   event (its workspace's stream) are written in one transaction through the store's writer.
 * - One timer (injected {@link Clock}) to the earliest `nextFireAt` of the unpaused, undeleted
 *   schedules, re-armed after every change and every firing pass.
 * - A fire time is enqueued with dedupKey `schedule:<id>:<fireAt ISO>` (see {@link scheduleDedupKey}),
 *   and a launch already stored under that key is taken as the firing's own, so a gateway stopped
 *   between the enqueue and the firing's record never enqueues that time twice.
 * - Overlap (automatic firings only, cron and missed): while the previous firing's launch is still
 *   active, SKIP records a skipped firing, QUEUE enqueues the new launch after it (`afterLaunchId`),
 *   ALLOW enqueues regardless.
 * - Missed firings: due times found at `start()` (the gateway was down), or more than one due time
 *   found by one timer pass (the process was suspended or blocked), are summarized, never replayed:
 *   policy SKIP records one skipped firing for the latest of them, RUN_ONCE fires the latest of them
 *   once (trigger `missed`, overlap applies); then the next fire time is the first after now.
 * - A schedule whose workspace is not registered (removed) does not fire: its due fire times pass
 *   with no firing row and no event, only its stored `nextFireAt` moving on to the first after now
 *   (logged once), so it fires on time again if the workspace is registered again. Removing a
 *   workspace pauses its schedules ({@link ScheduleService.workspaceRemoved}).
 * - A firing whose enqueue fails (template refused, database error, …) is recorded as skipped with
 *   the error's message and logged; the other schedules fire as usual. A pass that could not record a
 *   firing (database error) is retried after {@link FIRING_RETRY_MS}.
 * - Paused schedules have no `nextFireAt`; resume computes it from now (the paused time is not
 *   caught up). Deleting sets `deletedAt`; the firings stay as history.
 */
import { randomBytes } from "node:crypto";
import { Mutex } from "async-mutex";
import type { Launch, Prisma, PrismaClient, Schedule } from "../generated/prisma/client.js";
import type { PayloadOf } from "../events/index.js";
import { InvalidState, NotFound, ValidationFailed, type FieldIssue } from "../errors.js";
import type { SpawnOptions } from "../fleet/lifecycle.js";
import type { WorkspaceRegistry } from "../fleet/registry.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/events.js";
import type { PendingOp } from "../store/writer.js";
import { MAX_TIMER_MS, systemClock, type Clock, type TimerHandle } from "./clock.js";
import { CronTimes, MISSED_COUNT_CAP, cronIssues } from "./cron.js";
import { validateLaunchRequest, type LaunchQueue } from "./queue.js";
import type { LaunchRequest, RetryPolicy } from "./types.js";

/** Overlap policies: what an automatic firing does while the previous firing's launch is active. */
export const SCHEDULE_OVERLAPS = ["SKIP", "QUEUE", "ALLOW"] as const;
/** One of {@link SCHEDULE_OVERLAPS}. */
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];
/** Missed-firing policies: what to do with fire times that passed while nothing could fire them. */
export const SCHEDULE_MISSED = ["SKIP", "RUN_ONCE"] as const;
/** One of {@link SCHEDULE_MISSED}. */
export type ScheduleMissed = (typeof SCHEDULE_MISSED)[number];
/** What made a firing (`ScheduleFiring.trigger`): its cron time, a missed-time catch-up, or run now. */
export type ScheduleTrigger = "cron" | "missed" | "manual";

/** Longest schedule name, characters (names are 1 … this, after trimming). */
export const SCHEDULE_NAME_MAX = 100;
/** Delay before a firing pass that could not record a firing is tried again, ms. */
export const FIRING_RETRY_MS = 5_000;
/** Most fire times {@link ScheduleService.upcoming} lists at once. */
export const UPCOMING_MAX = 1_000;

/** What each firing of a schedule enqueues (stored as the schedule's `template` JSON). */
export interface ScheduleTemplate {
  /** The spawn, as `spawnAgent` takes it, without the workspace (the schedule's) and clientRequestId. */
  spec: Omit<SpawnOptions, "workspace" | "clientRequestId">;
  /** 0 … 100 (PRIORITY_MIN … PRIORITY_MAX of src/queue/types.ts). */
  priority: number;
  /** Run timeout, ms (TIMEOUT_MIN_MS 1 s … TIMEOUT_MAX_MS 7 days); null = the workspace's default. */
  timeoutMs: number | null;
  retry: RetryPolicy;
}

/** What {@link ScheduleService.create} takes. */
export interface ScheduleInput {
  /** 1 … {@link SCHEDULE_NAME_MAX} characters (trimmed); not unique. */
  name: string;
  /** A registered workspace. */
  workspace: string;
  /**
   * Cron expression, croner syntax with 5 or 6 fields, fire times at least SCHEDULE_MIN_INTERVAL_MS
   * (a minute) apart (see src/queue/cron.ts).
   */
  cron: string;
  /** IANA time zone the expression is read in; default (null/undefined) "UTC". */
  timeZone?: string | null;
  overlap: ScheduleOverlap;
  missed: ScheduleMissed;
  /** Created paused (no fire time until resumed). */
  paused: boolean;
  template: ScheduleTemplate;
}

/** The part of the launch queue schedules use. */
export type ScheduleQueue = Pick<LaunchQueue, "enqueue" | "isActive">;

/** What {@link ScheduleService} needs. */
export interface ScheduleServiceDeps {
  /** Read access to the store (writes go through `store`). */
  db: PrismaClient;
  store: EventStore;
  queue: ScheduleQueue;
  /**
   * To check a new schedule's workspace (`get` throws NotFound) and, at each firing, that the
   * schedule's workspace is still registered (`find`).
   */
  registry: Pick<WorkspaceRegistry, "get" | "find">;
  log: Logger;
  /** Default {@link systemClock}. */
  clock?: Clock;
}

/** The dedup key of a schedule's firing for the fire time `fireAtMs` (ms since the epoch). */
export function scheduleDedupKey(scheduleId: string, fireAtMs: number): string {
  return `schedule:${scheduleId}:${new Date(fireAtMs).toISOString()}`;
}

/** The dedup key of a schedule's "run now" at `atMs` (ms since the epoch). */
export function manualDedupKey(scheduleId: string, atMs: number): string {
  return `schedule:${scheduleId}:manual:${new Date(atMs).toISOString()}`;
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/**
 * Check a launch template exactly as a launch is checked: `validateLaunchRequest` of
 * src/queue/queue.ts (non-empty prompt, priority, timeoutMs, retry policy, known provider; bounds in
 * src/queue/types.ts), after a shape check for stored JSON (an object spec with a string prompt, a
 * retry object).
 * @param prefix path of the template in the input (default `["input","template"]`); spec fields are
 *   reported flat (`[...prefix, "prompt"]`), as the GraphQL LaunchTemplateInput has them.
 * @returns the problems found (empty when the template is good).
 */
export function templateIssues(t: ScheduleTemplate, prefix: string[] = ["input", "template"]): FieldIssue[] {
  const shape: unknown = t;
  if (typeof shape !== "object" || shape === null) return [{ path: prefix, message: "must be an object" }];
  const issues: FieldIssue[] = [];
  const spec: unknown = t.spec;
  const specOk = typeof spec === "object" && spec !== null && typeof t.spec.prompt === "string";
  if (!specOk) issues.push({ path: [...prefix, "prompt"], message: "must not be empty" });
  const retry: unknown = t.retry;
  if (typeof retry !== "object" || retry === null)
    issues.push({ path: [...prefix, "retry"], message: "must be an object" });
  if (issues.length > 0) return issues;
  try {
    validateLaunchRequest(
      {
        spec: { ...t.spec, workspace: "" },
        dedupKey: null,
        priority: t.priority,
        notBeforeMs: null,
        timeoutMs: t.timeoutMs,
        retry: t.retry,
        scheduleId: null,
        createdBy: null,
      },
      0,
    );
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    for (const i of err.issues)
      issues.push({ ...i, path: [...prefix, ...(i.path[0] === "input" ? i.path.slice(1) : i.path)] });
  }
  return issues;
}

/** The spec with only the spawn fields (undefined ones left out), so nothing else is stored. */
function cleanSpec(spec: ScheduleTemplate["spec"]): ScheduleTemplate["spec"] {
  const out: ScheduleTemplate["spec"] = { prompt: spec.prompt };
  if (spec.label !== undefined) out.label = spec.label;
  if (spec.model !== undefined) out.model = spec.model;
  if (spec.provider !== undefined) out.provider = spec.provider;
  if (spec.source !== undefined) out.source = spec.source;
  if (spec.isolated !== undefined) out.isolated = spec.isolated;
  if (spec.interactive !== undefined) out.interactive = spec.interactive;
  if (spec.toolAllowlist !== undefined) out.toolAllowlist = spec.toolAllowlist;
  if (spec.frontmatterPath !== undefined) out.frontmatterPath = spec.frontmatterPath;
  return out;
}

/**
 * The launch template of a stored schedule.
 * @throws ValidationFailed (paths under `["template"]`) when the stored JSON is not a usable template.
 */
export function scheduleTemplateOf(row: Pick<Schedule, "template">): ScheduleTemplate {
  const t = row.template as unknown as ScheduleTemplate;
  const issues = templateIssues(t, ["template"]);
  if (issues.length > 0) throw new ValidationFailed(issues);
  return t;
}

/** An error's message without surrounding whitespace (Prisma's start with a newline). */
/**
 * An error's message for a stored reason: its last non-empty line (a database error's earlier
 * lines show where in our source it was raised; the last says what failed), at most 300 characters.
 */
const errorMessage = (err: unknown): string =>
  (
    (err instanceof Error ? err.message : String(err))
      .split("\n")
      .map((x) => x.trim())
      .filter((x) => x !== "")
      .at(-1) ?? "unknown error"
  ).slice(0, 300);

/** The outcome of trying to enqueue one firing. */
type Outcome = { launch: Launch; created: boolean } | { skipped: string };

/** What a firing record writes. */
interface FiringRecord {
  fireAtMs: number;
  trigger: ScheduleTrigger;
  launchId: string | null;
  skippedReason: string | null;
  /** The event's reason (defaults to skippedReason). */
  note?: string | null;
  /** The schedule's next fire time after this firing; undefined = unchanged. */
  nextFireAtMs?: number | null;
}

/**
 * The schedules service (`app.schedules`, `ctx.schedules`); see the module comment for the rules.
 * Methods that change schedules are serialized with the firing passes.
 */
export class ScheduleService {
  private readonly db: PrismaClient;
  private readonly store: EventStore;
  private readonly queue: ScheduleQueue;
  private readonly registry: Pick<WorkspaceRegistry, "get" | "find">;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly mutex = new Mutex();
  /** Every schedule row (deleted ones included), as committed; loaded by start(). */
  private readonly rows = new Map<string, Schedule>();
  private readonly passes = new Set<Promise<void>>();
  private timer: TimerHandle | null = null;
  private started = false;
  private stopped = false;
  /** After a failed pass: no timer fires before this time (ms). */
  private retryNotBeforeMs: number | null = null;
  /** Schedules already logged as not firing because their workspace is not registered. */
  private readonly unregisteredLogged = new Set<string>();

  constructor(deps: ScheduleServiceDeps) {
    this.db = deps.db;
    this.store = deps.store;
    this.queue = deps.queue;
    this.registry = deps.registry;
    this.log = deps.log;
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * Load the schedules, handle the firings missed while the gateway was down (each unpaused
   * schedule whose stored `nextFireAt` ≤ now: its missed policy, see the module comment) and arm the
   * timer. A second call does nothing.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const r of await this.db.schedule.findMany()) this.rows.set(r.id, r);
    await this.runPass("start");
  }

  /** Stop firing: clear the timer and wait for a firing pass or change under way to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.whenIdle();
  }

  /** Resolves when no firing pass is running or waiting to run (tests; stop()). */
  async whenIdle(): Promise<void> {
    while (this.passes.size > 0) await Promise.all([...this.passes]);
    await this.mutex.waitForUnlock();
  }

  /**
   * Create a schedule (event `created`). Its first fire time is the first after now (none when
   * created paused). Nothing is stored when the input is refused.
   * @param by token name (stored as createdBy), or null.
   * @throws ValidationFailed (paths `["input","name"]`; `["input","cron"]` with croner's message, or
   *   for a pattern that never fires or fires less than a minute apart, see `cronIssues`;
   *   `["input","timeZone"]`, `["input","overlap"]`, `["input","missed"]`, `["input","paused"]`,
   *   `["input","template",…]`), NotFound("workspace") for an unregistered workspace.
   */
  async create(input: ScheduleInput, by: string | null): Promise<Schedule> {
    const name = typeof input.name === "string" ? input.name.trim() : "";
    const cron = typeof input.cron === "string" ? input.cron.trim() : "";
    const timeZone = input.timeZone ?? "UTC";
    const issues: FieldIssue[] = [];
    if (name === "" || name.length > SCHEDULE_NAME_MAX)
      issues.push({ path: ["input", "name"], message: `1 to ${SCHEDULE_NAME_MAX} characters` });
    if (typeof timeZone !== "string")
      issues.push({ path: ["input", "timeZone"], message: "an IANA time zone name" });
    else issues.push(...cronIssues(cron, timeZone, this.clock.now()));
    if (!SCHEDULE_OVERLAPS.includes(input.overlap))
      issues.push({ path: ["input", "overlap"], message: SCHEDULE_OVERLAPS.join(", ") });
    if (!SCHEDULE_MISSED.includes(input.missed))
      issues.push({ path: ["input", "missed"], message: SCHEDULE_MISSED.join(", ") });
    if (typeof input.paused !== "boolean")
      issues.push({ path: ["input", "paused"], message: "true or false" });
    issues.push(...templateIssues(input.template));
    if (issues.length > 0) throw new ValidationFailed(issues);
    this.registry.get(input.workspace);
    const template: ScheduleTemplate = {
      spec: cleanSpec(input.template.spec),
      priority: input.template.priority,
      timeoutMs: input.template.timeoutMs,
      retry: {
        maxAttempts: input.template.retry.maxAttempts,
        backoffMs: input.template.retry.backoffMs,
        maxBackoffMs: input.template.retry.maxBackoffMs,
      },
    };
    return this.mutex.runExclusive(async () => {
      const now = this.clock.now();
      const id = randomBytes(6).toString("hex");
      const next = input.paused ? null : new CronTimes(cron, timeZone).nextAfter(now);
      const data = {
        id,
        name,
        workspace: input.workspace,
        cron,
        timeZone,
        template: template as unknown as Prisma.InputJsonValue,
        overlap: input.overlap,
        missed: input.missed,
        paused: input.paused,
        lastFireAt: null,
        nextFireAt: next === null ? null : new Date(next),
        createdBy: by,
        createdAt: new Date(now),
        updatedAt: new Date(now),
      };
      await this.write(input.workspace, { scheduleId: id, change: "created" }, now, (db) => [
        db.schedule.create({ data }),
      ]);
      const row = await this.reload(id);
      this.log.info({ schedule: id, workspace: input.workspace, cron, timeZone, by }, "schedule created");
      this.arm();
      return row;
    });
  }

  /**
   * Pause a schedule (event `paused`): it fires no more until resumed; `nextFireAt` is cleared.
   * Pausing a paused schedule changes nothing.
   * @throws NotFound("schedule"), InvalidState when it is deleted.
   */
  async pause(id: string, by: string | null): Promise<Schedule> {
    return this.mutex.runExclusive(async () => {
      const s = await this.live(id);
      if (s.paused) return s;
      const now = this.clock.now();
      await this.write(s.workspace, { scheduleId: id, change: "paused" }, now, (db) => [
        db.schedule.update({
          where: { id },
          data: { paused: true, nextFireAt: null, updatedAt: new Date(now) },
        }),
      ]);
      this.log.info({ schedule: id, by }, "schedule paused");
      const row = await this.reload(id);
      this.arm();
      return row;
    });
  }

  /**
   * Resume a paused schedule (event `resumed`): its next fire time is the first after now; fire
   * times that passed while it was paused are not caught up. Resuming an unpaused one changes nothing.
   * @throws NotFound("schedule"), InvalidState when it is deleted.
   */
  async resume(id: string, by: string | null): Promise<Schedule> {
    return this.mutex.runExclusive(async () => {
      const s = await this.live(id);
      if (!s.paused) return s;
      const now = this.clock.now();
      const next = new CronTimes(s.cron, s.timeZone).nextAfter(now);
      await this.write(s.workspace, { scheduleId: id, change: "resumed" }, now, (db) => [
        db.schedule.update({
          where: { id },
          data: {
            paused: false,
            nextFireAt: next === null ? null : new Date(next),
            updatedAt: new Date(now),
          },
        }),
      ]);
      this.log.info({ schedule: id, by }, "schedule resumed");
      const row = await this.reload(id);
      this.arm();
      return row;
    });
  }

  /**
   * Delete a schedule (event `deleted`): sets `deletedAt` and clears `nextFireAt`; its firings (and
   * their launches) stay as history.
   * @throws NotFound("schedule"), InvalidState when it is already deleted.
   */
  async remove(id: string, by: string | null): Promise<Schedule> {
    return this.mutex.runExclusive(async () => {
      const s = await this.live(id);
      const now = this.clock.now();
      await this.write(s.workspace, { scheduleId: id, change: "deleted" }, now, (db) => [
        db.schedule.update({
          where: { id },
          data: { deletedAt: new Date(now), nextFireAt: null, updatedAt: new Date(now) },
        }),
      ]);
      this.log.info({ schedule: id, by }, "schedule deleted");
      const row = await this.reload(id);
      this.arm();
      return row;
    });
  }

  /**
   * Pause every unpaused, undeleted schedule of a workspace that was removed (one `paused` event
   * each, reason `workspace <name> was removed`, all in one transaction); called by the
   * removeWorkspace mutation. Resuming one later works as {@link resume} (it fires only while its
   * workspace is registered again).
   * @param by token name (logged), or null.
   * @returns how many schedules were paused (0 when none were unpaused).
   */
  async workspaceRemoved(workspace: string, by: string | null): Promise<number> {
    return this.mutex.runExclusive(async () => {
      const ids = (
        await this.db.schedule.findMany({
          where: { workspace, paused: false, deletedAt: null },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
          select: { id: true },
        })
      ).map((r) => r.id);
      if (ids.length === 0) return 0;
      const now = this.clock.now();
      const reason = `workspace ${workspace} was removed`;
      await this.store.append(
        ids.map((scheduleId) => ({
          kind: "schedule_changed" as const,
          payload: { scheduleId, change: "paused" as const, launchId: null, fireAtMs: null, reason },
          workspace,
          agentId: "",
          tsMs: now,
        })),
        {
          extra: (db) => [
            db.schedule.updateMany({
              where: { id: { in: ids } },
              data: { paused: true, nextFireAt: null, updatedAt: new Date(now) },
            }),
          ],
          onFailure: "throw",
        },
      );
      for (const id of ids) await this.reload(id);
      this.log.info({ workspace, schedules: ids, by }, "schedules of a removed workspace paused");
      this.arm();
      return ids.length;
    });
  }

  /**
   * Fire a schedule now (event `fired`, firing trigger `manual`), paused or not, without its overlap
   * policy; its `nextFireAt` is unchanged. Enqueued with dedupKey `schedule:<id>:manual:<now ISO>`
   * and createdBy `by`. A refused enqueue stores nothing and is thrown.
   * @throws NotFound("schedule"), InvalidState when it is deleted, and what `LaunchQueue.enqueue`
   *   throws (NotFound("workspace") when its workspace was removed, ValidationFailed, …).
   */
  async runNow(id: string, by: string | null): Promise<{ schedule: Schedule; launch: Launch }> {
    return this.mutex.runExclusive(async () => {
      const s = await this.live(id);
      const now = this.clock.now();
      const template = scheduleTemplateOf(s);
      const { launch } = await this.queue.enqueue(
        this.request(s, template, manualDedupKey(id, now), null, by),
      );
      await this.record(s, now, {
        fireAtMs: now,
        trigger: "manual",
        launchId: launch.id,
        skippedReason: null,
      });
      this.log.info({ schedule: id, launch: launch.id, by }, "schedule run now");
      return { schedule: this.rows.get(id)!, launch };
    });
  }

  /**
   * The next `n` fire times of a schedule, ascending, ms since the epoch: its stored `nextFireAt` and
   * the ones after it. Empty when the schedule is paused or deleted. Answers from memory (after start()).
   * @throws ValidationFailed (path `["n"]`) unless 0 ≤ n ≤ {@link UPCOMING_MAX}; NotFound("schedule").
   */
  upcoming(id: string, n: number): number[] {
    if (!isInt(n) || n < 0 || n > UPCOMING_MAX)
      throw new ValidationFailed([{ path: ["n"], message: `a whole number from 0 to ${UPCOMING_MAX}` }]);
    const s = this.rows.get(id);
    if (!s) throw new NotFound("schedule", id);
    if (s.paused || s.deletedAt !== null || s.nextFireAt === null || n === 0) return [];
    const first = s.nextFireAt.getTime();
    return [first, ...new CronTimes(s.cron, s.timeZone).nextN(n - 1, first)];
  }

  // ---------------------------------------------------------------------------------------------

  /** The stored row of an undeleted schedule. */
  private async live(id: string): Promise<Schedule> {
    const s = await this.db.schedule.findUnique({ where: { id } });
    if (!s) throw new NotFound("schedule", id);
    if (s.deletedAt !== null) throw new InvalidState(`schedule ${id} is deleted`);
    return s;
  }

  /** Re-read a row after a write and keep it in memory. */
  private async reload(id: string): Promise<Schedule> {
    const row = await this.db.schedule.findUniqueOrThrow({ where: { id } });
    this.rows.set(id, row);
    return row;
  }

  /** Append one `schedule_changed` event with `extra` in the same transaction (throws on failure). */
  private async write(
    workspace: string,
    p: Pick<PayloadOf<"schedule_changed">, "scheduleId" | "change"> & Partial<PayloadOf<"schedule_changed">>,
    nowMs: number,
    extra: (db: PrismaClient) => readonly PendingOp[],
  ): Promise<void> {
    const payload: PayloadOf<"schedule_changed"> = {
      scheduleId: p.scheduleId,
      change: p.change,
      launchId: p.launchId ?? null,
      fireAtMs: p.fireAtMs ?? null,
      reason: p.reason ?? null,
    };
    await this.store.append([{ kind: "schedule_changed", payload, workspace, agentId: "", tsMs: nowMs }], {
      extra,
      onFailure: "throw",
    });
  }

  /** Store a firing (fired or skipped), the schedule's lastFireAt/nextFireAt and its event. */
  private async record(s: Schedule, nowMs: number, f: FiringRecord): Promise<void> {
    const data: Prisma.ScheduleUpdateInput = { lastFireAt: new Date(f.fireAtMs), updatedAt: new Date(nowMs) };
    if (f.nextFireAtMs !== undefined)
      data.nextFireAt = f.nextFireAtMs === null ? null : new Date(f.nextFireAtMs);
    await this.write(
      s.workspace,
      {
        scheduleId: s.id,
        change: f.launchId !== null ? "fired" : "skipped",
        launchId: f.launchId,
        fireAtMs: f.fireAtMs,
        reason: f.note !== undefined ? f.note : f.skippedReason,
      },
      nowMs,
      (db) => [
        db.scheduleFiring.create({
          data: {
            scheduleId: s.id,
            fireAt: new Date(f.fireAtMs),
            at: new Date(nowMs),
            trigger: f.trigger,
            launchId: f.launchId,
            skippedReason: f.skippedReason,
          },
        }),
        db.schedule.update({ where: { id: s.id }, data }),
      ],
    );
    await this.reload(s.id);
  }

  /** The launch request of one firing. */
  private request(
    s: Schedule,
    t: ScheduleTemplate,
    dedupKey: string,
    afterLaunchId: string | null,
    createdBy: string | null,
  ): LaunchRequest {
    return {
      spec: { ...t.spec, workspace: s.workspace },
      dedupKey,
      priority: t.priority,
      notBeforeMs: null,
      timeoutMs: t.timeoutMs,
      retry: t.retry,
      scheduleId: s.id,
      afterLaunchId,
      createdBy,
    };
  }

  /** A launch this schedule already enqueued under `dedupKey` (by a run that may have stopped since). */
  private async enqueuedUnder(scheduleId: string, dedupKey: string): Promise<Launch | null> {
    return this.db.launch.findFirst({ where: { scheduleId, dedupKey }, orderBy: { createdAt: "asc" } });
  }

  /** Enqueue the automatic firing of `s` for `fireAtMs`, applying its overlap policy. */
  private async enqueueFiring(s: Schedule, fireAtMs: number): Promise<Outcome> {
    const dedupKey = scheduleDedupKey(s.id, fireAtMs);
    const prior = await this.enqueuedUnder(s.id, dedupKey);
    if (prior) return { launch: prior, created: false };
    let afterLaunchId: string | null = null;
    if (s.overlap !== "ALLOW") {
      const prev = await this.db.scheduleFiring.findFirst({
        where: { scheduleId: s.id, launchId: { not: null } },
        orderBy: { id: "desc" },
      });
      if (prev?.launchId && (await this.queue.isActive(prev.launchId))) {
        if (s.overlap === "SKIP") return { skipped: `previous launch ${prev.launchId} still active` };
        afterLaunchId = prev.launchId;
      }
    }
    try {
      const template = scheduleTemplateOf(s);
      return await this.queue.enqueue(this.request(s, template, dedupKey, afterLaunchId, null));
    } catch (err) {
      this.log.warn(
        { err, schedule: s.id, workspace: s.workspace, fireAt: new Date(fireAtMs).toISOString() },
        "schedule firing could not be enqueued; recorded as skipped",
      );
      return { skipped: `enqueue failed: ${errorMessage(err)}` };
    }
  }

  /** Fire `s` for `fireAtMs` (an automatic firing) and record the outcome. */
  private async fire(
    s: Schedule,
    nowMs: number,
    fireAtMs: number,
    trigger: ScheduleTrigger,
    nextFireAtMs: number | null,
    note: string | null,
  ): Promise<void> {
    const o = await this.enqueueFiring(s, fireAtMs);
    if ("skipped" in o) {
      const reason = note ? `${note}; ${o.skipped}` : o.skipped;
      await this.record(s, nowMs, { fireAtMs, trigger, launchId: null, skippedReason: reason, nextFireAtMs });
      return;
    }
    const already = o.created ? null : `launch ${o.launch.id} was already enqueued for this time`;
    await this.record(s, nowMs, {
      fireAtMs,
      trigger,
      launchId: o.launch.id,
      skippedReason: null,
      note: [note, already].filter((x) => x !== null).join("; ") || null,
      nextFireAtMs,
    });
  }

  /** Handle one due schedule (stored nextFireAt ≤ now). */
  private async handleDue(s: Schedule, nowMs: number, mode: "start" | "timer"): Promise<void> {
    const t0 = s.nextFireAt!.getTime();
    let times: CronTimes;
    try {
      times = new CronTimes(s.cron, s.timeZone);
    } catch (err) {
      // Only if the tz database changed under a stored schedule: record it and stop firing it.
      this.log.error({ err, schedule: s.id }, "schedule's fire times cannot be computed; it will not fire");
      await this.record(s, nowMs, {
        fireAtMs: t0,
        trigger: "cron",
        launchId: null,
        skippedReason: `cannot compute fire times: ${errorMessage(err)}`,
        nextFireAtMs: null,
      });
      return;
    }
    const next0 = times.nextAfter(t0);
    if (mode === "timer" && (next0 === null || next0 > nowMs)) {
      await this.fire(s, nowMs, t0, "cron", next0, null);
      return;
    }
    // Missed firings. First the one a stopped run may have enqueued without recording it.
    let first = t0;
    const prior = await this.enqueuedUnder(s.id, scheduleDedupKey(s.id, t0));
    if (prior) {
      await this.record(s, nowMs, {
        fireAtMs: t0,
        trigger: "cron",
        launchId: prior.id,
        skippedReason: null,
        note: `launch ${prior.id} was already enqueued for this time`,
        nextFireAtMs: next0,
      });
      if (next0 === null || next0 > nowMs) return;
      first = next0;
    }
    const span = times.between(first, nowMs)!;
    const next = times.nextAfter(nowMs);
    const count = span.capped ? `${MISSED_COUNT_CAP}+` : String(span.count);
    const plural = span.capped || span.count !== 1 ? "s" : "";
    const why = mode === "start" ? "while the gateway was down" : "while the gateway was suspended or busy";
    const missed = `missed ${count} firing${plural} ${why}`;
    const current = this.rows.get(s.id) ?? s;
    if (s.missed === "RUN_ONCE") {
      await this.fire(current, nowMs, span.latestMs, "missed", next, missed);
    } else {
      await this.record(current, nowMs, {
        fireAtMs: span.latestMs,
        trigger: "missed",
        launchId: null,
        skippedReason: missed,
        nextFireAtMs: next,
      });
    }
    this.log.warn({ schedule: s.id, missed: count, policy: s.missed }, "schedule missed firings");
  }

  /**
   * A due schedule whose workspace is not registered: no firing and no event; its stored
   * `nextFireAt` moves to the first fire time after now (none when its times cannot be computed).
   */
  private async passUnregistered(s: Schedule, nowMs: number): Promise<void> {
    let next: number | null = null;
    try {
      next = new CronTimes(s.cron, s.timeZone).nextAfter(nowMs);
    } catch (err) {
      this.log.error({ err, schedule: s.id }, "schedule's fire times cannot be computed; it will not fire");
    }
    await this.store.append([], {
      extra: (db) => [
        db.schedule.update({
          where: { id: s.id },
          data: { nextFireAt: next === null ? null : new Date(next), updatedAt: new Date(nowMs) },
        }),
      ],
      onFailure: "throw",
    });
    await this.reload(s.id);
    if (!this.unregisteredLogged.has(s.id)) {
      this.unregisteredLogged.add(s.id);
      this.log.warn(
        { schedule: s.id, workspace: s.workspace },
        "schedule's workspace is not registered: its fire times pass without firing (pause or delete it)",
      );
    }
  }

  /** One firing pass: every due schedule, one after another; a failure never stops the others. */
  private async pass(mode: "start" | "timer"): Promise<void> {
    const now = this.clock.now();
    const due = [...this.rows.values()]
      .filter(
        (s) => !s.paused && s.deletedAt === null && s.nextFireAt !== null && s.nextFireAt.getTime() <= now,
      )
      .sort((a, b) => a.nextFireAt!.getTime() - b.nextFireAt!.getTime() || a.id.localeCompare(b.id));
    let failed = false;
    for (const s of due) {
      try {
        if (this.registry.find(s.workspace) === undefined) {
          await this.passUnregistered(s, now);
        } else {
          this.unregisteredLogged.delete(s.id);
          await this.handleDue(s, now, mode);
        }
      } catch (err) {
        failed = true;
        this.log.error({ err, schedule: s.id }, "schedule firing could not be recorded; retrying shortly");
      }
    }
    this.retryNotBeforeMs = failed ? now + FIRING_RETRY_MS : null;
    this.arm();
  }

  /** Run a firing pass under the mutex, tracked for whenIdle(). */
  private runPass(mode: "start" | "timer"): Promise<void> {
    const p = this.mutex
      .runExclusive(() => this.pass(mode))
      .catch((err: unknown) => this.log.error({ err }, "schedule firing pass failed"))
      .finally(() => this.passes.delete(p));
    this.passes.add(p);
    return p;
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Set the one timer to the earliest fire time (no timer when nothing will fire, before start, after stop). */
  private arm(): void {
    this.disarm();
    if (!this.started || this.stopped) return;
    let earliest = Infinity;
    for (const s of this.rows.values()) {
      if (s.paused || s.deletedAt !== null || s.nextFireAt === null) continue;
      earliest = Math.min(earliest, s.nextFireAt.getTime());
    }
    if (earliest === Infinity) return;
    const at = Math.max(earliest, this.retryNotBeforeMs ?? -Infinity);
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - this.clock.now()));
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.runPass("timer");
    }, delay);
  }
}
