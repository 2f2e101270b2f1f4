/**
 * Schedules (issue 14 item 4) over a real migrated SQLite store, a real EventStore/StoreWriter and a
 * real WorkspaceRegistry, with a hand-driven clock.
 *
 * The launch queue is a small in-test stand-in (`StandInQueue`: `enqueue` and `isActive` only) that
 * stores real Launch rows the way the queue does (QUEUED, `activeDedupKey` unique among unfinished
 * launches, a repeated key answered with the existing launch and `created: false`, NotFound for an
 * unregistered workspace) and records each call. That is acceptable here because the real LaunchQueue
 * is tested on its own by the lead; these tests are about what the schedules decide and store.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { Launch, PrismaClient } from "../../src/generated/prisma/client.js";
import { openDatabase, type OpenedDatabase } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { EventStore } from "../../src/store/events.js";
import { WorkspaceRegistry } from "../../src/fleet/registry.js";
import { createLogger } from "../../src/log.js";
import type { FleetEvent, PayloadOf } from "../../src/events/index.js";
import { InvalidState, NotFound, ValidationFailed } from "../../src/errors.js";
import type { Clock } from "../../src/queue/clock.js";
import { isFinalLaunchState, type LaunchRequest } from "../../src/queue/types.js";
import {
  FIRING_RETRY_MS,
  ScheduleService,
  scheduleDedupKey,
  type ScheduleInput,
  type ScheduleQueue,
} from "../../src/queue/schedules.js";
import { ManualClock } from "../helpers/manual-clock.js";
import { tmpDir } from "../helpers/tmp.js";

/** The launch-queue stand-in; see the file comment. */
class StandInQueue implements ScheduleQueue {
  readonly calls: LaunchRequest[] = [];
  /** When set, enqueue stores the launch and then never answers (the gateway dies mid-firing). */
  hang = false;
  constructor(
    private readonly db: PrismaClient,
    private readonly registry: WorkspaceRegistry,
    private readonly clock: Clock,
  ) {}

  async enqueue(req: LaunchRequest): Promise<{ launch: Launch; created: boolean }> {
    this.calls.push(req);
    this.registry.get(req.spec.workspace);
    if (req.dedupKey !== null) {
      const existing = await this.db.launch.findUnique({ where: { activeDedupKey: req.dedupKey } });
      if (existing) return { launch: existing, created: false };
    }
    const now = new Date(this.clock.now());
    const { workspace, ...spec } = req.spec;
    const launch = await this.db.launch.create({
      data: {
        id: randomBytes(6).toString("hex"),
        workspace,
        spec,
        requestFingerprint: JSON.stringify(spec),
        dedupKey: req.dedupKey,
        activeDedupKey: req.dedupKey,
        priority: req.priority,
        timeoutMs: req.timeoutMs,
        retryMaxAttempts: req.retry.maxAttempts,
        retryBackoffMs: req.retry.backoffMs,
        retryMaxBackoffMs: req.retry.maxBackoffMs,
        state: "QUEUED",
        scheduleId: req.scheduleId,
        afterLaunchId: req.afterLaunchId ?? null,
        createdBy: req.createdBy,
        createdAt: now,
        updatedAt: now,
      },
    });
    if (this.hang) return new Promise(() => {});
    return { launch, created: true };
  }

  async isActive(launchId: string): Promise<boolean> {
    const l = await this.db.launch.findUnique({ where: { id: launchId } });
    return l !== null && !isFinalLaunchState(l.state);
  }
}

/** End a stored launch (what the real queue does when its run ends). */
async function finish(db: PrismaClient, launchId: string): Promise<void> {
  await db.launch.update({ where: { id: launchId }, data: { state: "SUCCEEDED", activeDedupKey: null } });
}

const T = (iso: string): number => new Date(iso).getTime();

interface Gateway {
  db: OpenedDatabase;
  registry: WorkspaceRegistry;
  queue: StandInQueue;
  svc: ScheduleService;
  published: FleetEvent[];
  logLines: string[];
}

const opened: OpenedDatabase[] = [];
const services: ScheduleService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  for (const d of opened.splice(0)) await d.close();
});

/**
 * One "gateway" over the database in `dir` (created and migrated on first use): store, registry
 * with `workspaces` registered, stand-in queue and a started ScheduleService on `clock`.
 */
async function gateway(
  dir: string,
  clock: ManualClock,
  opts: { workspaces?: string[]; start?: boolean } = {},
): Promise<Gateway> {
  const db = await openDatabase(dir);
  opened.push(db);
  const writer = new StoreWriter(db.prisma);
  const published: FleetEvent[] = [];
  const store = new EventStore(db.prisma, writer, { publish: (e) => published.push(e) });
  for (const name of opts.workspaces ?? []) {
    await db.prisma.workspace.upsert({
      where: { name },
      create: { name, root: `/srv/${name}`, env: {} },
      update: {},
    });
  }
  const registry = new WorkspaceRegistry(db.prisma, writer);
  await registry.load();
  const queue = new StandInQueue(db.prisma, registry, clock);
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString());
      cb();
    },
  });
  const svc = new ScheduleService({
    db: db.prisma,
    store,
    queue,
    registry,
    log: createLogger("info", sink),
    clock,
  });
  if (opts.start !== false) await svc.start();
  services.push(svc);
  return { db, registry, queue, svc, published, logLines };
}

/** Move the clock to `t`, running every timer that comes due, and wait for the firings to settle. */
async function advanceTo(clock: ManualClock, svc: ScheduleService, t: number): Promise<void> {
  // Step through each pending due time so firings happen at their own times, as a real clock would.
  for (;;) {
    const next = Math.min(...clock.pending().filter((at) => at <= t));
    if (!Number.isFinite(next)) break;
    clock.set(Math.max(next, clock.now()));
    clock.runDue();
    await svc.whenIdle();
  }
  clock.set(t);
  clock.runDue();
  await svc.whenIdle();
}

function input(over: Partial<ScheduleInput> = {}): ScheduleInput {
  return {
    name: "nightly",
    workspace: "w",
    cron: "0 * * * *",
    timeZone: "UTC",
    overlap: "ALLOW",
    missed: "SKIP",
    paused: false,
    template: {
      spec: { prompt: "summarize the day", label: "nightly" },
      priority: 60,
      timeoutMs: 600_000,
      retry: { maxAttempts: 2, backoffMs: 10_000, maxBackoffMs: 300_000 },
    },
    ...over,
  };
}

async function firings(db: PrismaClient, scheduleId: string) {
  const rows = await db.scheduleFiring.findMany({ where: { scheduleId }, orderBy: { id: "asc" } });
  return rows.map((f) => ({
    fireAt: f.fireAt.toISOString(),
    trigger: f.trigger,
    launchId: f.launchId,
    skippedReason: f.skippedReason,
  }));
}

async function scheduleEvents(db: PrismaClient, workspace = "w"): Promise<PayloadOf<"schedule_changed">[]> {
  const rows = await db.event.findMany({
    where: { streamKey: `workspace:${workspace}`, kind: "schedule_changed" },
    orderBy: { seq: "asc" },
  });
  return rows.map((r) => r.payload as PayloadOf<"schedule_changed">);
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("ScheduleService.create validation", () => {
  it("refuses a bad cron, an unknown time zone, a bad name or template, and an unknown workspace, storing nothing", async () => {
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w"] });

    const bad = await rejection(g.svc.create(input({ cron: "61 * * * *" }), "ops"));
    expect(bad).toBeInstanceOf(ValidationFailed);
    expect((bad as ValidationFailed).issues).toEqual([
      { path: ["input", "cron"], message: "CronPattern: Invalid value for minute: 61" },
    ]);

    const tz = (await rejection(
      g.svc.create(input({ timeZone: "Mars/Olympus" }), "ops"),
    )) as ValidationFailed;
    expect(tz).toBeInstanceOf(ValidationFailed);
    expect(tz.issues.map((i) => i.path)).toEqual([["input", "timeZone"]]);
    expect(tz.issues[0]!.message).toContain("Mars/Olympus");

    // A one-off date (croner would run it once) and a pattern with no date are not schedules.
    for (const cron of ["2026-04-01T00:00:00", "0 0 30 2 *", "", "* * * * * * *"]) {
      const e = (await rejection(g.svc.create(input({ cron }), "ops"))) as ValidationFailed;
      expect(
        e.issues.map((i) => i.path),
        cron,
      ).toEqual([["input", "cron"]]);
    }
    const never = (await rejection(g.svc.create(input({ cron: "0 0 30 2 *" }), "ops"))) as ValidationFailed;
    expect(never.issues[0]!.message).toMatch(/never fires/);
    // Schedules fire at most once a minute (every second was a launch, or a skip row and event, a second).
    for (const [cron, message] of [
      ["* * * * * *", "fires every 1 s; schedules may fire at most once a minute"],
      ["*/10 * * * * *", "fires every 10 s; schedules may fire at most once a minute"],
      ["0,1 * * * * *", "has fire times 1 s apart; schedules may fire at most once a minute"],
    ]) {
      const e = (await rejection(g.svc.create(input({ cron }), "ops"))) as ValidationFailed;
      expect(e).toBeInstanceOf(ValidationFailed);
      expect(e.issues).toEqual([{ path: ["input", "cron"], message }]);
    }

    const many = (await rejection(
      g.svc.create(
        input({
          name: " ",
          template: {
            spec: { prompt: "  " },
            priority: 101,
            timeoutMs: 500,
            retry: { maxAttempts: 21, backoffMs: 10_000, maxBackoffMs: 1_000 },
          },
        }),
        "ops",
      ),
    )) as ValidationFailed;
    expect(many.issues.map((i) => i.path)).toEqual([
      ["input", "name"],
      ["input", "template", "prompt"],
      ["input", "template", "priority"],
      ["input", "template", "timeoutMs"],
      ["input", "template", "retry", "maxAttempts"],
      ["input", "template", "retry", "maxBackoffMs"],
    ]);
    const long = (await rejection(g.svc.create(input({ name: "x".repeat(101) }), "ops"))) as ValidationFailed;
    expect(long.issues.map((i) => i.path)).toEqual([["input", "name"]]);

    const ws = await rejection(g.svc.create(input({ workspace: "nope" }), "ops"));
    expect(ws).toBeInstanceOf(NotFound);
    expect(ws).toMatchObject({ entity: "workspace", id: "nope" });

    expect(await g.db.prisma.schedule.count()).toBe(0);
    expect(await g.db.prisma.event.count()).toBe(0);
    expect(g.published).toEqual([]);
    expect(clock.pending()).toEqual([]);

    // The same input with the mistakes fixed is accepted (the rejections above were about them).
    const ok = await g.svc.create(input({ timeZone: undefined }), "ops");
    expect(ok).toMatchObject({ timeZone: "UTC", cron: "0 * * * *", createdBy: "ops" });
    expect(ok.id).toMatch(/^[0-9a-f]{12}$/);
    expect(ok.nextFireAt?.toISOString()).toBe("2026-03-01T10:00:00.000Z");
    // A 6-field expression whose fire times are minutes apart is a schedule.
    const secs = await g.svc.create(input({ cron: "30 */5 * * * *" }), "ops");
    expect(secs.nextFireAt?.toISOString()).toBe("2026-03-01T09:30:30.000Z");
    expect(await g.db.prisma.schedule.count()).toBe(2);
  });
});

describe("fire times", () => {
  it("fires a Europe/Berlin schedule at its local time across both DST changes", async () => {
    const clock = new ManualClock(T("2026-03-27T12:00:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w"] });
    const s = await g.svc.create(input({ cron: "30 2 * * *", timeZone: "Europe/Berlin" }), null);

    // 02:30 CET = 01:30Z; on 29 March 02:30 does not exist (02:00 → 03:00): it runs at 03:00 CEST = 01:00Z;
    // then 02:30 CEST = 00:30Z.
    const spring = ["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"];
    expect(g.svc.upcoming(s.id, 3).map((t) => new Date(t).toISOString())).toEqual(spring);
    await advanceTo(clock, g.svc, T("2026-03-30T12:00:00Z"));
    expect((await firings(g.db.prisma, s.id)).map((f) => [f.fireAt, f.trigger])).toEqual(
      spring.map((t) => [t, "cron"]),
    );
    expect(g.queue.calls.map((c) => c.dedupKey)).toEqual(spring.map((t) => scheduleDedupKey(s.id, T(t))));

    // 25 October: 02:30 happens twice (CEST 00:30Z, then CET 01:30Z); a fixed-time job runs once.
    await g.svc.pause(s.id, null);
    clock.set(T("2026-10-23T12:00:00Z"));
    const s2 = await g.svc.create(
      input({ cron: "30 2 * * *", timeZone: "Europe/Berlin", name: "autumn" }),
      null,
    );
    const autumn = ["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"];
    expect(g.svc.upcoming(s2.id, 3).map((t) => new Date(t).toISOString())).toEqual(autumn);
    await advanceTo(clock, g.svc, T("2026-10-26T12:00:00Z"));
    expect((await firings(g.db.prisma, s2.id)).map((f) => f.fireAt)).toEqual(autumn);
  });

  it("lists a New York schedule's times across the March change and nothing for a paused one", async () => {
    const clock = new ManualClock(T("2026-03-06T20:00:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w"] });
    const s = await g.svc.create(input({ cron: "0 9 * * *", timeZone: "America/New_York" }), null);
    expect(g.svc.upcoming(s.id, 3).map((t) => new Date(t).toISOString())).toEqual([
      "2026-03-07T14:00:00.000Z",
      "2026-03-08T13:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
    ]);
    const p = await g.svc.create(input({ paused: true }), null);
    expect(p.nextFireAt).toBeNull();
    expect(g.svc.upcoming(p.id, 3)).toEqual([]);
    expect(() => g.svc.upcoming("000000000000", 3)).toThrow(NotFound);
    expect(() => g.svc.upcoming(s.id, -1)).toThrow(ValidationFailed);
  });
});

describe("overlap", () => {
  it("SKIP skips, QUEUE chains after, ALLOW enqueues beside the previous firing's active launch", async () => {
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w"] });
    const skip = await g.svc.create(input({ name: "skip", overlap: "SKIP" }), null);
    const queue = await g.svc.create(input({ name: "queue", overlap: "QUEUE" }), null);
    const allow = await g.svc.create(input({ name: "allow", overlap: "ALLOW" }), null);
    const launchOf = async (id: string, at: string) =>
      (await g.db.prisma.launch.findFirst({ where: { dedupKey: scheduleDedupKey(id, T(at)) } }))!;

    await advanceTo(clock, g.svc, T("2026-03-01T10:00:00Z"));
    const first = {
      skip: await launchOf(skip.id, "2026-03-01T10:00:00Z"),
      queue: await launchOf(queue.id, "2026-03-01T10:00:00Z"),
      allow: await launchOf(allow.id, "2026-03-01T10:00:00Z"),
    };
    for (const l of Object.values(first)) expect(l).toMatchObject({ afterLaunchId: null, createdBy: null });

    await advanceTo(clock, g.svc, T("2026-03-01T11:00:00Z"));
    expect((await firings(g.db.prisma, skip.id))[1]).toEqual({
      fireAt: "2026-03-01T11:00:00.000Z",
      trigger: "cron",
      launchId: null,
      skippedReason: `previous launch ${first.skip.id} still active`,
    });
    const q2 = await launchOf(queue.id, "2026-03-01T11:00:00Z");
    expect(q2.afterLaunchId).toBe(first.queue.id);
    const a2 = await launchOf(allow.id, "2026-03-01T11:00:00Z");
    expect(a2.afterLaunchId).toBeNull();
    expect(await g.db.prisma.launch.count({ where: { scheduleId: skip.id } })).toBe(1);
    expect((await scheduleEvents(g.db.prisma)).filter((e) => e.scheduleId === skip.id)).toEqual([
      { scheduleId: skip.id, change: "created", launchId: null, fireAtMs: null, reason: null },
      {
        scheduleId: skip.id,
        change: "fired",
        launchId: first.skip.id,
        fireAtMs: T("2026-03-01T10:00:00Z"),
        reason: null,
      },
      {
        scheduleId: skip.id,
        change: "skipped",
        launchId: null,
        fireAtMs: T("2026-03-01T11:00:00Z"),
        reason: `previous launch ${first.skip.id} still active`,
      },
    ]);

    // Once the previous launch is final, SKIP fires again; QUEUE chains after its latest launch.
    await finish(g.db.prisma, first.skip.id);
    await advanceTo(clock, g.svc, T("2026-03-01T12:00:00Z"));
    const s3 = await launchOf(skip.id, "2026-03-01T12:00:00Z");
    expect(s3.afterLaunchId).toBeNull();
    expect((await launchOf(queue.id, "2026-03-01T12:00:00Z")).afterLaunchId).toBe(q2.id);
    // QUEUE does not wait for a launch that is already final.
    await finish(g.db.prisma, (await launchOf(queue.id, "2026-03-01T12:00:00Z")).id);
    await advanceTo(clock, g.svc, T("2026-03-01T13:00:00Z"));
    expect((await launchOf(queue.id, "2026-03-01T13:00:00Z")).afterLaunchId).toBeNull();
    // ALLOW never asked whether anything was active.
    expect(await g.db.prisma.launch.count({ where: { scheduleId: allow.id } })).toBe(4);
  });
});

describe("missed firings across a restart", () => {
  it("SKIP records one skipped firing, RUN_ONCE one launch, for the latest missed time; then fires on time", async () => {
    const dir = tmpDir();
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const a = await gateway(dir, clock, { workspaces: ["w"] });
    const skip = await a.svc.create(input({ name: "skip", missed: "SKIP" }), null);
    const once = await a.svc.create(input({ name: "once", missed: "RUN_ONCE" }), null);
    await a.svc.stop();
    await a.db.close();
    opened.splice(opened.indexOf(a.db), 1);

    clock.set(T("2026-03-01T12:45:00Z")); // three hours on: 10:00, 11:00, 12:00 missed
    const b = await gateway(dir, clock);
    expect(await firings(b.db.prisma, skip.id)).toEqual([
      {
        fireAt: "2026-03-01T12:00:00.000Z",
        trigger: "missed",
        launchId: null,
        skippedReason: "missed 3 firings while the gateway was down",
      },
    ]);
    const onceFirings = await firings(b.db.prisma, once.id);
    expect(onceFirings).toEqual([
      {
        fireAt: "2026-03-01T12:00:00.000Z",
        trigger: "missed",
        launchId: expect.any(String),
        skippedReason: null,
      },
    ]);
    expect(b.queue.calls.map((c) => c.dedupKey)).toEqual([
      scheduleDedupKey(once.id, T("2026-03-01T12:00:00Z")),
    ]);
    const rows = await b.db.prisma.schedule.findMany({ where: { id: { in: [skip.id, once.id] } } });
    for (const r of rows) {
      expect(r.nextFireAt?.toISOString()).toBe("2026-03-01T13:00:00.000Z");
      expect(r.lastFireAt?.toISOString()).toBe("2026-03-01T12:00:00.000Z");
    }
    const events = await scheduleEvents(b.db.prisma);
    expect(events.filter((e) => e.scheduleId === once.id).map((e) => [e.change, e.reason])).toEqual([
      ["created", null],
      ["fired", "missed 3 firings while the gateway was down"],
    ]);

    // Back on time: both fire at 13:00 as cron firings, nothing more is caught up.
    await advanceTo(clock, b.svc, T("2026-03-01T13:00:00Z"));
    expect((await firings(b.db.prisma, skip.id)).map((f) => [f.fireAt, f.trigger, f.skippedReason])).toEqual([
      ["2026-03-01T12:00:00.000Z", "missed", "missed 3 firings while the gateway was down"],
      ["2026-03-01T13:00:00.000Z", "cron", null],
    ]);
    expect(b.queue.calls).toHaveLength(3);
  });

  it("counts missed firings up to 10000 (a longer outage says 10000+)", async () => {
    const dir = tmpDir();
    const clock = new ManualClock(T("2026-03-01T09:30:30Z"));
    const a = await gateway(dir, clock, { workspaces: ["w"] });
    const minutely = await a.svc.create(input({ name: "every minute", cron: "* * * * *" }), null);
    const week = await a.svc.create(input({ name: "weekly", cron: "0 9 * * 1" }), null);
    await a.svc.stop();
    await a.db.close();
    opened.splice(opened.indexOf(a.db), 1);

    clock.set(T("2026-03-09T09:30:30Z")); // eight days on: 11,520 minutes
    const b = await gateway(dir, clock);
    expect(await firings(b.db.prisma, minutely.id)).toEqual([
      {
        fireAt: "2026-03-09T09:30:00.000Z",
        trigger: "missed",
        launchId: null,
        skippedReason: "missed 10000+ firings while the gateway was down",
      },
    ]);
    // Mondays 2 and 9 March, 09:00.
    expect((await firings(b.db.prisma, week.id)).map((f) => [f.fireAt, f.skippedReason])).toEqual([
      ["2026-03-09T09:00:00.000Z", "missed 2 firings while the gateway was down"],
    ]);
    expect(
      (
        await b.db.prisma.schedule.findUniqueOrThrow({ where: { id: minutely.id } })
      ).nextFireAt?.toISOString(),
    ).toBe("2026-03-09T09:31:00.000Z");
    expect(b.queue.calls).toEqual([]);
  });

  it("never enqueues a fire time twice when the gateway died between the enqueue and its record", async () => {
    const dir = tmpDir();
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const a = await gateway(dir, clock, { workspaces: ["w"] });
    const s = await a.svc.create(input({ missed: "RUN_ONCE" }), null);
    const s2 = await a.svc.create(input({ name: "daily", cron: "5 10 * * *", missed: "RUN_ONCE" }), null);
    a.queue.hang = true;
    clock.set(T("2026-03-01T10:00:00Z"));
    clock.runDue(); // enqueue stores s's launch, then the "gateway" dies before recording the firing
    const key = scheduleDedupKey(s.id, T("2026-03-01T10:00:00Z"));
    await expect.poll(() => a.db.prisma.launch.count({ where: { dedupKey: key } })).toBe(1);
    expect(await firings(a.db.prisma, s.id)).toEqual([]);
    services.splice(services.indexOf(a.svc), 1); // it never finishes: do not wait for it
    // s2 died the same way at 10:05, and its launch was dispatched and finished before the schedules
    // started again, so the queue's own dedup (unfinished launches only) cannot catch a repeat.
    a.queue.hang = false;
    const key2 = scheduleDedupKey(s2.id, T("2026-03-01T10:05:00Z"));
    const { launch: l2 } = await a.queue.enqueue({ ...a.queue.calls[0]!, dedupKey: key2, scheduleId: s2.id });
    await finish(a.db.prisma, l2.id);
    await a.db.close();
    opened.splice(opened.indexOf(a.db), 1);

    clock.set(T("2026-03-01T10:20:00Z"));
    const b = await gateway(dir, clock);
    expect(b.queue.calls).toEqual([]);
    const l1 = (await b.db.prisma.launch.findFirst({ where: { dedupKey: key } }))!;
    expect(await firings(b.db.prisma, s.id)).toEqual([
      { fireAt: "2026-03-01T10:00:00.000Z", trigger: "cron", launchId: l1.id, skippedReason: null },
    ]);
    expect(await firings(b.db.prisma, s2.id)).toEqual([
      { fireAt: "2026-03-01T10:05:00.000Z", trigger: "cron", launchId: l2.id, skippedReason: null },
    ]);
    expect(await b.db.prisma.launch.count({ where: { dedupKey: { in: [key, key2] } } })).toBe(2);
    expect(
      (await b.db.prisma.schedule.findUniqueOrThrow({ where: { id: s.id } })).nextFireAt?.toISOString(),
    ).toBe("2026-03-01T11:00:00.000Z");

    // A second restart three hours on: the recovered time stays single, the latest missed time runs once.
    await b.svc.stop();
    await b.db.close();
    opened.splice(opened.indexOf(b.db), 1);
    clock.set(T("2026-03-01T13:30:00Z"));
    const c = await gateway(dir, clock);
    expect(c.queue.calls.map((r) => r.dedupKey)).toEqual([scheduleDedupKey(s.id, T("2026-03-01T13:00:00Z"))]);
    expect(await c.db.prisma.launch.count({ where: { scheduleId: s.id } })).toBe(2);
    expect(await c.db.prisma.launch.count({ where: { scheduleId: s2.id } })).toBe(1);
  });
});

describe("a firing that could not be recorded", () => {
  it("is tried again shortly and takes the launch it already enqueued, even one finished meanwhile", async () => {
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w"] });
    const s = await g.svc.create(input(), null);
    // A real write failure: the database refuses firing rows (the whole transaction rolls back).
    g.db.raw.exec(
      `CREATE TRIGGER refuse_firing BEFORE INSERT ON "ScheduleFiring" BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END;`,
    );
    await advanceTo(clock, g.svc, T("2026-03-01T10:00:00Z"));
    expect(g.queue.calls).toHaveLength(1);
    expect(await firings(g.db.prisma, s.id)).toEqual([]);
    expect((await scheduleEvents(g.db.prisma)).map((e) => e.change)).toEqual(["created"]);
    const row = await g.db.prisma.schedule.findUniqueOrThrow({ where: { id: s.id } });
    expect(row.nextFireAt?.toISOString()).toBe("2026-03-01T10:00:00.000Z");
    expect(g.logLines.some((l) => l.includes('"level":50') && l.includes("retrying shortly"))).toBe(true);
    expect(clock.pending()).toEqual([T("2026-03-01T10:00:00Z") + FIRING_RETRY_MS]);

    const launch = (await g.db.prisma.launch.findFirst({ where: { scheduleId: s.id } }))!;
    await finish(g.db.prisma, launch.id); // the queue's own dedup covers unfinished launches only
    g.db.raw.exec(`DROP TRIGGER refuse_firing;`);
    await advanceTo(clock, g.svc, T("2026-03-01T10:00:00Z") + FIRING_RETRY_MS);
    expect(g.queue.calls).toHaveLength(1);
    expect(await firings(g.db.prisma, s.id)).toEqual([
      { fireAt: "2026-03-01T10:00:00.000Z", trigger: "cron", launchId: launch.id, skippedReason: null },
    ]);
    expect(await g.db.prisma.launch.count({ where: { scheduleId: s.id } })).toBe(1);
    expect(clock.pending()).toEqual([T("2026-03-01T11:00:00Z")]);
  });
});

describe("pause, resume, run now, remove", () => {
  it("pause stops firing, run now works while paused, resume does not catch up, remove keeps the firings", async () => {
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w", "w2"] });
    const s = await g.svc.create(input(), "ops");
    const other = await g.svc.create(input({ name: "other", workspace: "w2" }), "ops");
    expect(clock.pending()).toEqual([T("2026-03-01T10:00:00Z")]);
    await advanceTo(clock, g.svc, T("2026-03-01T10:10:00Z"));
    await g.svc.pause(other.id, "ops");

    const paused = await g.svc.pause(s.id, "ops");
    expect(paused).toMatchObject({ paused: true, nextFireAt: null });
    expect(clock.pending()).toEqual([]);
    expect(g.svc.upcoming(s.id, 5)).toEqual([]);
    expect(await g.svc.pause(s.id, "ops")).toMatchObject({ paused: true }); // no change, no event
    await advanceTo(clock, g.svc, T("2026-03-01T12:10:00Z"));
    expect(await firings(g.db.prisma, s.id)).toHaveLength(1);

    const run = await g.svc.runNow(s.id, "alice");
    expect(run.launch).toMatchObject({
      dedupKey: `schedule:${s.id}:manual:2026-03-01T12:10:00.000Z`,
      scheduleId: s.id,
      createdBy: "alice",
      priority: 60,
      timeoutMs: 600_000,
      retryMaxAttempts: 2,
    });
    expect(run.launch.spec).toEqual({ prompt: "summarize the day", label: "nightly" });
    expect(run.schedule).toMatchObject({ paused: true, nextFireAt: null });
    expect(run.schedule.lastFireAt?.toISOString()).toBe("2026-03-01T12:10:00.000Z");

    // Resuming does not catch up the paused time (11:00, 12:00).
    const otherResumed = await g.svc.resume(other.id, "ops");
    expect(otherResumed.nextFireAt?.toISOString()).toBe("2026-03-01T13:00:00.000Z");
    expect((await firings(g.db.prisma, other.id)).map((f) => f.fireAt)).toEqual(["2026-03-01T10:00:00.000Z"]);
    const resumed = await g.svc.resume(s.id, "ops");
    expect(resumed.nextFireAt?.toISOString()).toBe("2026-03-01T13:00:00.000Z");
    expect(g.svc.upcoming(s.id, 2)).toEqual([T("2026-03-01T13:00:00Z"), T("2026-03-01T14:00:00Z")]);
    expect(await firings(g.db.prisma, s.id)).toEqual([
      {
        fireAt: "2026-03-01T10:00:00.000Z",
        trigger: "cron",
        launchId: expect.any(String),
        skippedReason: null,
      },
      { fireAt: "2026-03-01T12:10:00.000Z", trigger: "manual", launchId: run.launch.id, skippedReason: null },
    ]);
    await advanceTo(clock, g.svc, T("2026-03-01T13:05:00Z"));
    expect(await firings(g.db.prisma, s.id)).toHaveLength(3);

    const removed = await g.svc.remove(s.id, "ops");
    expect(removed.deletedAt?.toISOString()).toBe("2026-03-01T13:05:00.000Z");
    expect(removed.nextFireAt).toBeNull();
    expect(clock.pending()).toEqual([T("2026-03-01T14:00:00Z")]); // the other schedule's only
    for (const op of [
      g.svc.pause(s.id, null),
      g.svc.resume(s.id, null),
      g.svc.remove(s.id, null),
      g.svc.runNow(s.id, null),
    ])
      expect(await rejection(op)).toBeInstanceOf(InvalidState);
    expect(await rejection(g.svc.pause("0123456789ab", null))).toMatchObject({ entity: "schedule" });
    await advanceTo(clock, g.svc, T("2026-03-01T16:00:00Z"));
    expect(await firings(g.db.prisma, s.id)).toHaveLength(3);
    expect(g.svc.upcoming(s.id, 3)).toEqual([]);

    const events = await scheduleEvents(g.db.prisma);
    expect(events.map((e) => e.change)).toEqual([
      "created",
      "fired",
      "paused",
      "fired",
      "resumed",
      "fired",
      "deleted",
    ]);
    expect(events[3]).toMatchObject({ launchId: run.launch.id, fireAtMs: T("2026-03-01T12:10:00Z") });
    // Published on the bus after commit, with the stored positions.
    const pub = g.published.filter((e) => e.kind === "schedule_changed" && e.workspace === "w");
    expect(pub.map((e) => [e.streamKey, e.payload])).toEqual(events.map((p) => ["workspace:w", p]));
    expect(pub.every((e) => e.globalId !== null)).toBe(true);
  });
});

describe("failing enqueue", () => {
  it("records a skipped firing with the error, logs it, and the other schedules fire", async () => {
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w", "broken"] });
    const broken = await g.svc.create(input({ workspace: "broken" }), null);
    const ok = await g.svc.create(input(), null);
    // A real write failure: the database refuses launches of one workspace.
    g.db.raw.exec(
      `CREATE TRIGGER refuse_launch BEFORE INSERT ON "Launch" WHEN NEW.workspace = 'broken' BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END;`,
    );

    await advanceTo(clock, g.svc, T("2026-03-01T10:00:00Z"));
    const [f] = await firings(g.db.prisma, broken.id);
    expect(f).toMatchObject({ fireAt: "2026-03-01T10:00:00.000Z", trigger: "cron", launchId: null });
    expect(f!.skippedReason).toMatch(/^enqueue failed: \S[\s\S]*constraint/i);
    expect((await firings(g.db.prisma, ok.id)).map((x) => x.launchId)).toEqual([expect.any(String)]);
    expect(g.logLines.some((l) => l.includes('"level":40') && l.includes(broken.id))).toBe(true);
    expect((await scheduleEvents(g.db.prisma, "broken")).map((e) => e.change)).toEqual([
      "created",
      "skipped",
    ]);
    // It keeps its schedule and fires again next time.
    const row = await g.db.prisma.schedule.findUniqueOrThrow({ where: { id: broken.id } });
    expect(row.nextFireAt?.toISOString()).toBe("2026-03-01T11:00:00.000Z");
    // run now reports the error to the caller and stores nothing.
    expect(await rejection(g.svc.runNow(broken.id, "ops"))).toBeInstanceOf(Error);
    expect(await firings(g.db.prisma, broken.id)).toHaveLength(1);

    g.db.raw.exec(`DROP TRIGGER refuse_launch;`);
    await advanceTo(clock, g.svc, T("2026-03-01T11:00:00Z"));
    expect((await firings(g.db.prisma, broken.id)).map((x) => x.launchId)).toEqual([
      null,
      expect.any(String),
    ]);
  });
});

describe("schedules of a removed workspace", () => {
  it("do not fire and record nothing while it is unregistered, across a restart; they fire again once it is back", async () => {
    const dir = tmpDir();
    const clock = new ManualClock(T("2026-03-01T09:30:00Z"));
    const a = await gateway(dir, clock, { workspaces: ["w", "gone"] });
    const gone = await a.svc.create(input({ workspace: "gone", missed: "RUN_ONCE" }), null);
    const ok = await a.svc.create(input(), null);
    await a.registry.remove("gone"); // without pausing its schedules (workspaceRemoved not called)

    await advanceTo(clock, a.svc, T("2026-03-01T12:10:00Z"));
    expect(await firings(a.db.prisma, gone.id)).toEqual([]);
    expect((await scheduleEvents(a.db.prisma, "gone")).map((e) => e.change)).toEqual(["created"]);
    expect(a.queue.calls.map((c) => c.spec.workspace)).toEqual(["w", "w", "w"]);
    expect((await firings(a.db.prisma, ok.id)).map((f) => f.trigger)).toEqual(["cron", "cron", "cron"]);
    const row = await a.db.prisma.schedule.findUniqueOrThrow({ where: { id: gone.id } });
    expect(row).toMatchObject({ paused: false, lastFireAt: null });
    expect(row.nextFireAt?.toISOString()).toBe("2026-03-01T13:00:00.000Z");
    expect(clock.pending()).toEqual([T("2026-03-01T13:00:00Z")]); // no busy timer on a past time
    expect(a.logLines.filter((l) => l.includes("workspace is not registered"))).toHaveLength(1);
    await a.svc.stop();
    await a.db.close();
    opened.splice(opened.indexOf(a.db), 1);

    // Down for three hours: no missed-firing record for it either (RUN_ONCE would enqueue one).
    clock.set(T("2026-03-01T15:30:00Z"));
    const b = await gateway(dir, clock);
    expect(await firings(b.db.prisma, gone.id)).toEqual([]);
    expect(b.queue.calls.map((c) => c.scheduleId)).toEqual([]); // ok's policy is SKIP
    expect(
      (await b.db.prisma.schedule.findUniqueOrThrow({ where: { id: gone.id } })).nextFireAt?.toISOString(),
    ).toBe("2026-03-01T16:00:00.000Z");

    // Registered again: it fires at its next time, as a cron firing (nothing is caught up).
    await b.registry.add({ name: "gone", root: tmpDir() });
    await advanceTo(clock, b.svc, T("2026-03-01T16:00:00Z"));
    expect(await firings(b.db.prisma, gone.id)).toEqual([
      {
        fireAt: "2026-03-01T16:00:00.000Z",
        trigger: "cron",
        launchId: expect.any(String),
        skippedReason: null,
      },
    ]);
    expect((await scheduleEvents(b.db.prisma, "gone")).map((e) => e.change)).toEqual(["created", "fired"]);
  });

  it("workspaceRemoved pauses the workspace's unpaused schedules with a reason and returns how many", async () => {
    const clock = new ManualClock(T("2026-03-01T09:40:00Z"));
    const g = await gateway(tmpDir(), clock, { workspaces: ["w", "w2"] });
    const a1 = await g.svc.create(input({ name: "a1" }), null);
    const a2 = await g.svc.create(input({ name: "a2", cron: "15 * * * *" }), null);
    const paused = await g.svc.create(input({ name: "paused", paused: true }), null);
    const deleted = await g.svc.create(input({ name: "deleted" }), null);
    await g.svc.remove(deleted.id, null);
    const other = await g.svc.create(input({ name: "other", workspace: "w2", cron: "30 * * * *" }), null);
    const before = await g.db.prisma.schedule.findMany({ where: { id: { in: [paused.id, deleted.id] } } });
    await g.registry.remove("w");
    g.published.length = 0;

    expect(await g.svc.workspaceRemoved("w", "ops")).toBe(2);
    for (const id of [a1.id, a2.id]) {
      const r = await g.db.prisma.schedule.findUniqueOrThrow({ where: { id } });
      expect(r).toMatchObject({ paused: true, nextFireAt: null, deletedAt: null });
      expect(g.svc.upcoming(id, 3)).toEqual([]);
    }
    const reason = "workspace w was removed";
    const changes = (await scheduleEvents(g.db.prisma)).filter((e) => e.change === "paused");
    expect(changes).toEqual(
      [a1.id, a2.id].sort().map((scheduleId) => ({
        scheduleId,
        change: "paused",
        launchId: null,
        fireAtMs: null,
        reason,
      })),
    );
    expect(g.published.map((e) => [e.kind, e.streamKey, e.payload])).toEqual(
      changes.map((p) => ["schedule_changed", "workspace:w", p]),
    );
    // The paused, the deleted and the other workspace's schedules are unchanged.
    expect(await g.db.prisma.schedule.findMany({ where: { id: { in: [paused.id, deleted.id] } } })).toEqual(
      before,
    );
    const o = await g.db.prisma.schedule.findUniqueOrThrow({ where: { id: other.id } });
    expect(o).toMatchObject({ paused: false });
    expect(clock.pending()).toEqual([T("2026-03-01T10:30:00Z")]); // only the other workspace's

    // Again, or for a workspace with no schedules: nothing to pause, nothing written.
    expect(await g.svc.workspaceRemoved("w", "ops")).toBe(0);
    expect(await g.svc.workspaceRemoved("nope", null)).toBe(0);
    expect(g.published).toHaveLength(2);

    await advanceTo(clock, g.svc, T("2026-03-01T12:00:00Z"));
    expect(await g.db.prisma.scheduleFiring.count({ where: { scheduleId: { in: [a1.id, a2.id] } } })).toBe(0);
    expect(await firings(g.db.prisma, other.id)).toHaveLength(2);
  });
});
