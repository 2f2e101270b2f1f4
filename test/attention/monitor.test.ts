// The health monitor (issue 15 item 2) over a real gateway's parts — its fleet, bus, store, queue
// and inbox, over the caliband double — with a hand-moved clock and (for the disk thresholds) a
// disk reader the test sets. What a person sees: each check raises one inbox alert when it starts
// failing and resolves it when it clears; an acknowledged alert does not come back while the same
// condition lasts; a healthy fleet leaves the inbox and the log alone.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { ManualClock } from "../helpers/manual-clock.js";
import {
  HealthMonitor,
  WALK_EVERY_ROUNDS,
  type DiskReader,
  type HealthReport,
} from "../../src/attention/monitor.js";
import { HEALTH_CHECKS } from "../../src/attention/thresholds.js";
import { createLogger } from "../../src/log.js";
import { ValidationFailed } from "../../src/errors.js";
import { NO_RETRY, type LaunchRequest } from "../../src/queue/types.js";
import type { FleetEvent } from "../../src/events/index.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** The monitor's interval in these tests (the clock is moved by hand). */
const INTERVAL = 30_000;

/** A disk the test sets: free bytes per path, bytes used per directory, file sizes. */
class TestDisk implements DiskReader {
  readonly free = new Map<string, number>();
  readonly used = new Map<string, number>();
  readonly files = new Map<string, number>();
  /** Directories walked, in order. */
  readonly walked: string[] = [];
  async freeBytes(p: string): Promise<number> {
    return this.free.get(p) ?? 100 * GiB;
  }
  async usedBytes(dir: string, _limit: number): Promise<number> {
    this.walked.push(dir);
    return this.used.get(dir) ?? 0;
  }
  async fileBytes(p: string): Promise<number> {
    return this.files.get(p) ?? 10 * MiB;
  }
}

interface LogLine {
  level: number;
  msg: string;
  check?: string;
}

let h: AppHarness | null = null;
const monitors: HealthMonitor[] = [];
afterEach(async () => {
  for (const m of monitors.splice(0)) await m.stop();
  await h?.close();
  h = null;
});

/**
 * A gateway (its own monitor idle: one round an hour) and a monitor of ours over its parts, on a
 * manual clock starting now, with a test disk and a captured log.
 */
async function setup(opts: { thresholds?: Record<string, number>; intervalMs?: number } = {}) {
  h = await startAppHarness({ config: { healthIntervalMs: "3600000" } });
  return { ...(await monitorOn(h, opts)), h };
}

async function monitorOn(
  app: AppHarness,
  opts: {
    thresholds?: Record<string, number>;
    clock?: ManualClock;
    disk?: TestDisk;
    intervalMs?: number;
  } = {},
) {
  const clock = opts.clock ?? new ManualClock(Date.now());
  const disk = opts.disk ?? new TestDisk();
  const lines: LogLine[] = [];
  const log = createLogger("debug", { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  const dataDir = app.app.dataDir;
  const m = new HealthMonitor({
    db: app.app.db.prisma,
    fleet: app.app.fleet,
    store: app.app.store,
    bus: app.app.bus,
    queue: app.app.queue,
    inbox: app.app.inbox,
    log,
    clock,
    dataDir,
    dbFiles: [path.join(dataDir, "prospero.db"), path.join(dataDir, "prospero.db-wal")],
    intervalMs: opts.intervalMs ?? INTERVAL,
    thresholds: opts.thresholds ?? {},
    disk,
  });
  await m.start();
  monitors.push(m);
  return { m, clock, disk, lines, dataDir };
}

/** Move the clock on by `ms` and run a round. */
async function after(m: HealthMonitor, clock: ManualClock, ms: number): Promise<HealthReport> {
  clock.set(clock.now() + ms);
  return m.runChecks();
}

const find = (r: HealthReport, check: string, subject?: string | null) =>
  r.results.find((x) => x.check === check && (subject === undefined || x.subject === subject));

/** The ALERT inbox items of `check`, oldest first. */
const alerts = (check: string) =>
  h!.app.db.prisma.inboxItem.findMany({ where: { kind: "ALERT", check }, orderBy: { openedAt: "asc" } });

/** Resolve once the bus publishes an event `match` accepts (then let every consumer see it). */
async function published(match: (e: FleetEvent) => boolean): Promise<FleetEvent> {
  const sub = h!.app.bus.subscribe(match);
  try {
    const it = await sub.next();
    if (it.done || it.value.type !== "event") throw new Error("bus closed");
    return it.value.event;
  } finally {
    sub.close();
    await new Promise((r) => setImmediate(r));
  }
}

function request(prompt: string, over: Partial<LaunchRequest> = {}): LaunchRequest {
  return {
    spec: { workspace: "demo", prompt, isolated: false },
    dedupKey: null,
    priority: 50,
    notBeforeMs: null,
    timeoutMs: null,
    retry: NO_RETRY,
    scheduleId: null,
    createdBy: "test",
    ...over,
  };
}

describe("a healthy fleet", () => {
  it("stays silent: no inbox item, no log line, over several rounds; worktrees are walked once per 5 intervals", async () => {
    // A short interval: the clock runs only seconds ahead of the fleet's real time, so a poll that
    // misses its deadline on a loaded machine stays within the daemon threshold.
    const interval = 1_000;
    const { m, clock, disk, lines } = await setup({ intervalMs: interval });
    // An agent that ran and finished, so the fleet has history.
    const { agent } = await h!.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "quick",
      isolated: false,
    });
    await waitFor(() => h!.app.fleet.state.agent(agent.id)?.status === "done", 20_000);
    const rounds: HealthReport[] = [await m.runChecks()];
    for (let i = 1; i < 2 * WALK_EVERY_ROUNDS; i++) rounds.push(await after(m, clock, interval));
    for (const r of rounds) expect(r.results.filter((x) => !x.ok)).toEqual([]);
    const last = rounds.at(-1)!;
    expect(last.ok).toBe(true);
    expect(last.checkedAt).toEqual(new Date(clock.now()));
    // Every check but agent_stuck (no running agent) has a result; per workspace ones for demo.
    expect(new Set(last.results.map((r) => r.check))).toEqual(
      new Set(HEALTH_CHECKS.map((c) => c.id).filter((id) => id !== "agent_stuck")),
    );
    expect(find(last, "daemon_unreachable", "demo")).toMatchObject({
      ok: true,
      message: "daemon of workspace demo reachable",
    });
    expect(await h!.app.db.prisma.inboxItem.count()).toBe(0);
    expect(lines).toEqual([]);
    // Ten rounds, one interval apart: the worktrees were walked at the first and the sixth.
    const root = h!.app.fleet.registry.get("demo").root;
    expect(disk.walked).toEqual([
      path.join(root, ".caliban", "worktrees"),
      path.join(root, ".caliban", "worktrees"),
    ]);
  }, 60_000);

  it("runs a round every interval on its clock, and stops cleanly", async () => {
    const { m, clock } = await setup();
    expect(m.report().checkedAt).toBeNull();
    clock.set(clock.now() + INTERVAL);
    expect(clock.runDue()).toBe(1);
    const at = clock.now();
    await waitFor(() => m.report().checkedAt?.getTime() === at, 10_000, "the timer's round");
    // The next round is armed once this one finished.
    await waitFor(() => clock.pending().length === 1, 5_000, "the next round armed");
    await m.stop();
    expect(clock.pending()).toEqual([]);
  });
});

describe("daemon_unreachable", () => {
  it("a daemon down longer than the threshold opens an alert; acknowledged, it stays closed; back up, a new episode resolves itself", async () => {
    const { m, clock, lines } = await setup();
    await h!.d.daemon.shutdown();
    const down = await waitFor(() => {
      const s = h!.app.fleet.state.healthOf("demo");
      return s.state === "unreachable" ? s : null;
    });
    clock.set(Math.max(clock.now(), down.since.getTime() + 30_000));
    let r = await m.runChecks();
    expect(find(r, "daemon_unreachable", "demo")).toMatchObject({ ok: true });
    expect(await alerts("daemon_unreachable")).toHaveLength(0);

    clock.set(down.since.getTime() + 3 * MIN);
    r = await m.runChecks();
    const failing = find(r, "daemon_unreachable", "demo")!;
    expect(failing).toMatchObject({
      ok: false,
      workspace: "demo",
      value: 3 * MIN,
      threshold: MIN,
      since: new Date(down.since.getTime() + MIN),
    });
    expect(failing.message).toMatch(/^daemon of workspace demo unreachable for 3 min \(threshold 1 min\): ./);
    let items = await alerts("daemon_unreachable");
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ state: "OPEN", subject: "demo", workspace: "demo" });
    expect(items[0]!.body).toContain("unreachable for 3 min");
    expect(lines.filter((l) => l.level === 40).map((l) => l.check)).toEqual(["daemon_unreachable"]);

    // A person acknowledges it: the same outage does not open it again.
    await h!.app.inbox.acknowledge(items[0]!.id, "alice");
    await after(m, clock, INTERVAL);
    await after(m, clock, INTERVAL);
    items = await alerts("daemon_unreachable");
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ state: "CLOSED", resolution: "ACKNOWLEDGED" });
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);

    // Back up: passes again.
    await h!.d.daemon.restart();
    await waitFor(() => h!.app.fleet.state.healthOf("demo").state === "healthy");
    r = await after(m, clock, INTERVAL);
    expect(find(r, "daemon_unreachable", "demo")).toMatchObject({ ok: true });

    // A second outage is a new episode: a new item, resolved when the daemon is back.
    await h!.d.daemon.shutdown();
    const down2 = await waitFor(() => {
      const s = h!.app.fleet.state.healthOf("demo");
      return s.state === "unreachable" ? s : null;
    });
    clock.set(Math.max(clock.now(), down2.since.getTime() + 2 * MIN));
    r = await m.runChecks();
    expect(find(r, "daemon_unreachable", "demo")?.ok).toBe(false);
    items = await alerts("daemon_unreachable");
    expect(items.map((i) => i.state)).toEqual(["CLOSED", "OPEN"]);
    await h!.d.daemon.restart();
    await waitFor(() => h!.app.fleet.state.healthOf("demo").state === "healthy");
    await after(m, clock, INTERVAL);
    items = await alerts("daemon_unreachable");
    expect(items[1]).toMatchObject({ state: "CLOSED", resolution: "RESOLVED" });
    expect(items[1]!.closeReason).toMatch(/^daemon_unreachable cleared: daemon of workspace demo reachable/);
  }, 60_000);
});

describe("agent_stuck", () => {
  it("a running agent silent past the threshold is stuck; an idle interactive agent is not; moving again resolves it", async () => {
    const { m, clock } = await setup();
    // The held agent first, alone: its turn 1 starts, then nothing more comes from it.
    const heldStarted = published((e) => e.kind === "turn_started" && e.payload.turnIndex === 1);
    const { agent: held } = await h!.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "a long tool call fake:hold=600000",
      isolated: false,
    });
    expect((await heldStarted).agentId).toBe(held.id);
    const { agent: asker } = await h!.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "let's talk",
      interactive: true,
      isolated: false,
    });
    await waitFor(
      () => h!.app.fleet.state.agent(asker.id)?.status === "idle",
      20_000,
      "the interactive agent idle",
    );
    await waitFor(() => h!.app.fleet.state.agent(held.id)?.status === "running");

    let r = await after(m, clock, 9 * MIN);
    expect(find(r, "agent_stuck", held.id)).toMatchObject({ ok: true });
    expect(await alerts("agent_stuck")).toHaveLength(0);

    r = await after(m, clock, 2 * MIN);
    // Only running agents are checked: the idle one waits for a person, it is not stuck.
    expect(r.results.filter((x) => x.check === "agent_stuck").map((x) => x.subject)).toEqual([held.id]);
    expect(find(r, "agent_stuck", held.id)).toMatchObject({ ok: false, workspace: "demo", value: 11 * MIN });
    let items = await alerts("agent_stuck");
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ state: "OPEN", subject: held.id, agentId: held.id, workspace: "demo" });

    // It moves on and ends: the alert resolves itself.
    h!.d.daemon.agent(held.id)!.release();
    await waitFor(() => h!.app.fleet.state.agent(held.id)?.status === "done", 20_000);
    r = await after(m, clock, INTERVAL);
    expect(find(r, "agent_stuck", held.id)).toBeUndefined();
    items = await alerts("agent_stuck");
    expect(items[0]).toMatchObject({ state: "CLOSED", resolution: "RESOLVED" });
    expect(items[0]!.closeReason).toBe(`agent_stuck cleared: agent ${held.id} is no longer running (done)`);
  }, 60_000);

  it("an interactive agent right after a clean end of turn is not stuck, even when its idle report is late", async () => {
    const { m, clock } = await setup();
    const started = published((e) => e.kind === "turn_started" && e.payload.turnIndex === 1);
    const { agent } = await h!.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "think hard fake:hold=600000",
      interactive: true,
      isolated: false,
    });
    await started;
    // The daemon stops answering (SIGSTOP): the worker's `idle` report waits in its socket, so
    // Prospero still shows the agent running after its turn ended cleanly.
    h!.d.daemon.pause();
    try {
      const ended = published(
        (e) => e.agentId === agent.id && e.kind === "turn_completed" && e.payload.stopReason === "end_turn",
      );
      h!.d.daemon.agent(agent.id)!.release();
      await ended;
      expect(h!.app.fleet.state.agent(agent.id)?.status).toBe("running");
      const r = await after(m, clock, 30 * MIN);
      expect(find(r, "agent_stuck", agent.id)).toMatchObject({ ok: true, value: 30 * MIN });
      expect(find(r, "agent_stuck", agent.id)!.message).toMatch(/ended its turn cleanly 30 min ago/);
      expect(await alerts("agent_stuck")).toHaveLength(0);
    } finally {
      h!.d.daemon.resume();
    }
  }, 60_000);
});

describe("queue_wait", () => {
  it("a launch ready but held by a full cap opens an alert past the threshold; a raised cap clears it", async () => {
    const { m, clock } = await setup();
    await h!.app.queue.setCap({ scope: "GLOBAL", key: "", max: 0 }, "test");
    const { launch } = await h!.app.queue.enqueue(request("waits for a slot"));
    // Held by notBefore: not ready, so it does not count however long it is queued.
    await h!.app.queue.enqueue(request("later", { notBeforeMs: Date.now() + 6 * HOUR }));
    const readyAt = launch.createdAt.getTime();

    clock.set(readyAt + 10 * MIN);
    let r = await m.runChecks();
    expect(find(r, "queue_wait")).toMatchObject({ ok: true, value: 10 * MIN });

    clock.set(readyAt + 16 * MIN);
    r = await m.runChecks();
    const failing = find(r, "queue_wait")!;
    expect(failing).toMatchObject({
      ok: false,
      subject: null,
      workspace: null,
      value: 16 * MIN,
      threshold: 15 * MIN,
    });
    expect(failing.message).toBe(
      `launch ${launch.id} of workspace demo has waited 16 min to run (threshold 15 min): cap global: 0 of 0 runs in use; raise the cap or cancel launches`,
    );
    let items = await alerts("queue_wait");
    expect(items).toMatchObject([{ state: "OPEN", subject: null, workspace: null }]);

    await h!.app.queue.setCap({ scope: "GLOBAL", key: "", max: 5 }, "test");
    await waitFor(
      async () =>
        (await h!.app.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } })).state !== "QUEUED",
    );
    r = await after(m, clock, INTERVAL);
    expect(find(r, "queue_wait")).toMatchObject({ ok: true, value: 0 });
    items = await alerts("queue_wait");
    expect(items[0]).toMatchObject({ state: "CLOSED", resolution: "RESOLVED" });
    expect(items[0]!.closeReason).toBe("queue_wait cleared: no launch waits to run");
  }, 60_000);
});

describe("disk and database thresholds", () => {
  it("low free space, big worktrees and a big database each open an alert and resolve when they recover (worktrees at the next walk)", async () => {
    // (A daemon poll missing its deadline on a loaded machine is not what this test is about.)
    const { m, clock, disk, dataDir } = await setup({ thresholds: { daemon_unreachable: HOUR } });
    const root = h!.app.fleet.registry.get("demo").root;
    const worktrees = path.join(root, ".caliban", "worktrees");
    disk.free.set(dataDir, 500 * MiB);
    disk.free.set(root, 200 * MiB);
    disk.used.set(worktrees, 11 * GiB);
    disk.files.set(path.join(h!.app.dataDir, "prospero.db"), 4 * GiB);
    disk.files.set(path.join(h!.app.dataDir, "prospero.db-wal"), 100 * MiB);

    let r = await m.runChecks();
    expect(find(r, "data_disk_free")).toMatchObject({
      ok: false,
      subject: null,
      value: 500 * MiB,
      threshold: GiB,
    });
    expect(find(r, "workspace_disk_free", "demo")).toMatchObject({
      ok: false,
      workspace: "demo",
      value: 200 * MiB,
    });
    expect(find(r, "worktrees_disk_used", "demo")).toMatchObject({
      ok: false,
      value: 11 * GiB,
      threshold: 10 * GiB,
    });
    expect(find(r, "database_size")).toMatchObject({
      ok: false,
      value: 4 * GiB + 100 * MiB,
      threshold: 4 * GiB,
    });
    expect(find(r, "data_disk_free")!.message).toBe(
      `500.0 MiB free on the filesystem of the data dir ${dataDir} (threshold 1.0 GiB); free some space`,
    );
    for (const check of ["data_disk_free", "workspace_disk_free", "worktrees_disk_used", "database_size"])
      expect(await alerts(check), check).toMatchObject([{ state: "OPEN" }]);

    disk.free.set(dataDir, 5 * GiB);
    disk.free.set(root, 5 * GiB);
    disk.used.set(worktrees, GiB);
    disk.files.set(path.join(h!.app.dataDir, "prospero.db"), GiB);
    r = await after(m, clock, INTERVAL);
    expect(r.results.filter((x) => !x.ok).map((x) => x.check)).toEqual(["worktrees_disk_used"]);
    for (const check of ["data_disk_free", "workspace_disk_free", "database_size"])
      expect(await alerts(check), check).toMatchObject([{ state: "CLOSED", resolution: "RESOLVED" }]);
    // The worktrees are walked again only after 5 intervals: until then the last walk stands.
    expect(await alerts("worktrees_disk_used")).toMatchObject([{ state: "OPEN" }]);
    r = await after(m, clock, (WALK_EVERY_ROUNDS - 1) * INTERVAL);
    expect(r.ok).toBe(true);
    const items = await alerts("worktrees_disk_used");
    expect(items).toMatchObject([{ state: "CLOSED", resolution: "RESOLVED" }]);
    expect(items[0]!.closeReason).toBe(
      "worktrees_disk_used cleared: isolated worktrees of workspace demo use 1.0 GiB",
    );
    expect((await alerts("database_size"))[0]!.closeReason).toBe(
      "database_size cleared: database is 1.1 GiB with its write-ahead log",
    );
  }, 60_000);

  it("a removed workspace is no longer checked, and its open alerts resolve", async () => {
    const { m, clock, disk } = await setup();
    const root = h!.app.fleet.registry.get("demo").root;
    disk.free.set(root, MiB);
    await m.runChecks();
    expect(await alerts("workspace_disk_free")).toMatchObject([{ state: "OPEN", workspace: "demo" }]);
    await h!.app.fleet.removeWorkspace("demo");
    const r = await after(m, clock, INTERVAL);
    expect(r.results.filter((x) => x.workspace === "demo")).toEqual([]);
    const items = await alerts("workspace_disk_free");
    expect(items).toMatchObject([{ state: "CLOSED", resolution: "RESOLVED" }]);
    expect(items[0]!.closeReason).toBe("workspace_disk_free cleared: workspace demo is no longer registered");
  }, 60_000);
});

describe("event_growth and ingest_lag", () => {
  it("more events stored in the last hour than the threshold open an alert; an hour later it resolves", async () => {
    const { m, clock } = await setup({ thresholds: { event_growth: 100 } });
    const p = h!.app.db.prisma;
    while ((await p.event.count()) < 130) {
      const { agent } = await h!.app.fleet.lifecycle.spawn({
        workspace: "demo",
        prompt: "quick",
        isolated: false,
      });
      await waitFor(() => h!.app.fleet.state.agent(agent.id)?.status === "done", 20_000);
    }
    const stored = await p.event.count();
    let r = await m.runChecks();
    const failing = find(r, "event_growth")!;
    expect(failing.ok).toBe(false);
    expect(failing.value).toBeGreaterThanOrEqual(130);
    expect(failing.value).toBeLessThanOrEqual(stored + 20);
    expect(await alerts("event_growth")).toMatchObject([{ state: "OPEN", subject: null }]);
    r = await after(m, clock, 2 * HOUR);
    expect(find(r, "event_growth")).toMatchObject({ ok: true, value: 0 });
    expect(await alerts("event_growth")).toMatchObject([{ state: "CLOSED", resolution: "RESOLVED" }]);
  }, 120_000);

  it("a transcript line being written but not yet stored is ingest lag; once complete and stored it clears", async () => {
    const { m, clock } = await setup({ thresholds: { ingest_lag: 1024 } });
    const started = published((e) => e.kind === "turn_started" && e.payload.turnIndex === 1);
    const { agent } = await h!.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "streams a long line fake:hold=600000",
      isolated: false,
    });
    await started;
    const file = path.join(h!.app.fleet.state.agent(agent.id)!.sessionDir, "stdout.ndjson");
    // The worker writes a 64 KiB frame in two parts; the first is on disk, the rest not yet.
    const line = JSON.stringify({ type: "AssistantTextDelta", turn_index: 1, text: "x".repeat(64 * 1024) });
    fs.appendFileSync(file, line.slice(0, 40_000));
    await waitFor(async () => (await h!.app.fleet.ingest.lagBytes()) >= 40_000, 10_000, "the lag seen");
    let r = await after(m, clock, INTERVAL);
    expect(find(r, "ingest_lag")).toMatchObject({ ok: false, subject: null, threshold: 1024 });
    expect(find(r, "ingest_lag")!.value).toBeGreaterThanOrEqual(40_000);
    expect(await alerts("ingest_lag")).toMatchObject([{ state: "OPEN" }]);
    fs.appendFileSync(file, `${line.slice(40_000)}\n`);
    await waitFor(async () => (await h!.app.fleet.ingest.lagBytes()) === 0, 10_000, "the line stored");
    r = await after(m, clock, INTERVAL);
    expect(find(r, "ingest_lag")).toMatchObject({ ok: true, value: 0 });
    expect(await alerts("ingest_lag")).toMatchObject([{ state: "CLOSED", resolution: "RESOLVED" }]);
    h!.d.daemon.agent(agent.id)?.release();
  }, 60_000);
});

describe("thresholds", () => {
  it("a stored threshold is used, a flag replaces it at start, null returns to the default; bad values change nothing", async () => {
    const { m, clock, disk, dataDir } = await setup();
    const p = h!.app.db.prisma;
    const stuck = (mon: HealthMonitor) => mon.thresholds().find((t) => t.check === "data_disk_free")!;
    expect(stuck(m)).toEqual({ check: "data_disk_free", value: GiB, isDefault: true });
    await m.setThreshold("data_disk_free", 100 * MiB, "alice");
    expect(stuck(m)).toEqual({ check: "data_disk_free", value: 100 * MiB, isDefault: false });
    expect(await p.healthThreshold.findUnique({ where: { check: "data_disk_free" } })).toMatchObject({
      value: 100 * MiB,
      updatedBy: "alice",
    });
    // In force at the next round: 500 MiB free is fine now.
    disk.free.set(dataDir, 500 * MiB);
    let r = await after(m, clock, INTERVAL);
    expect(find(r, "data_disk_free")).toMatchObject({ ok: true, threshold: 100 * MiB });

    // Out of range or unknown: a ValidationFailed naming the field, nothing changes.
    const before = await p.healthThreshold.findMany();
    for (const [check, value, field] of [
      ["data_disk_free", -1, "value"],
      ["agent_stuck", 1, "value"],
      ["agent_stuck", Number.NaN, "value"],
      ["no_such_check", 5, "check"],
      ["no_such_check", null, "check"],
    ] as const) {
      const err = await m.setThreshold(check, value, "mallory").catch((e: unknown) => e);
      expect(err, `${check}=${value}`).toBeInstanceOf(ValidationFailed);
      expect(
        (err as ValidationFailed).issues.map((i) => i.path),
        `${check}=${value}`,
      ).toEqual([[field]]);
    }
    expect(await p.healthThreshold.findMany()).toEqual(before);
    expect(stuck(m).value).toBe(100 * MiB);

    // A restart with --health-threshold: the flag's value replaces the stored one.
    const flagged = await monitorOn(h!, { thresholds: { data_disk_free: 2 * GiB }, disk });
    expect(stuck(flagged.m)).toEqual({ check: "data_disk_free", value: 2 * GiB, isDefault: false });
    expect(await p.healthThreshold.findUnique({ where: { check: "data_disk_free" } })).toMatchObject({
      value: 2 * GiB,
      updatedBy: "--health-threshold",
    });
    r = await flagged.m.runChecks();
    expect(find(r, "data_disk_free")).toMatchObject({ ok: false, threshold: 2 * GiB });
    // A later start without the flag keeps what it stored.
    const plain = await monitorOn(h!, { disk });
    expect(stuck(plain.m).value).toBe(2 * GiB);
    await plain.m.setThreshold("data_disk_free", null, "bob");
    expect(stuck(plain.m)).toEqual({ check: "data_disk_free", value: GiB, isDefault: true });
    expect(await p.healthThreshold.count()).toBe(0);
    // A flag out of range refuses to start.
    const bad = new HealthMonitor({
      db: p,
      fleet: h!.app.fleet,
      store: h!.app.store,
      bus: h!.app.bus,
      queue: h!.app.queue,
      inbox: h!.app.inbox,
      log: createLogger("silent"),
      dataDir,
      dbFiles: [],
      intervalMs: INTERVAL,
      thresholds: { agent_stuck: 1 },
    });
    await expect(bad.start()).rejects.toBeInstanceOf(ValidationFailed);
    await bad.stop();
  }, 60_000);
});

describe("a restarted monitor", () => {
  it("takes over the alerts still open: no duplicate while failing, resolved once the condition is over", async () => {
    const { m, disk, dataDir } = await setup();
    disk.free.set(dataDir, MiB);
    await m.runChecks();
    expect(await alerts("data_disk_free")).toMatchObject([{ state: "OPEN" }]);
    await m.stop();
    // Still failing after the restart: the open item is kept, no second one.
    const again = await monitorOn(h!, { disk });
    await again.m.runChecks();
    expect(await alerts("data_disk_free")).toMatchObject([{ state: "OPEN" }]);
    await again.m.stop();
    // Recovered while down: the next monitor resolves it at its first round.
    disk.free.set(dataDir, 50 * GiB);
    const third = await monitorOn(h!, { disk });
    await third.m.runChecks();
    expect(await alerts("data_disk_free")).toMatchObject([{ state: "CLOSED", resolution: "RESOLVED" }]);
  }, 60_000);
});
