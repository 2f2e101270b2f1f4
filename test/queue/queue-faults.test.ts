/**
 * The queue when caliband does not answer (issue 14 item 3, found by review): a spawn whose reply
 * is lost while the daemon is stopped must never lead to a second run, and a run adopted after a
 * restart that ended while the gateway was down must settle its launch. A real fleet and SQLite
 * store over the caliband test double, with short request deadlines; the daemon is paused like a
 * SIGSTOPped process (it reads requests and applies them, in order, when resumed).
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";
import { LaunchQueue } from "../../src/queue/queue.js";
import { NO_RETRY, type LaunchRequest } from "../../src/queue/types.js";
import { silentLogger } from "../../src/log.js";
import { decodeCtlRequest } from "../support/ctl-request.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function request(prompt: string): LaunchRequest {
  return {
    spec: { workspace: "demo", prompt, isolated: false },
    dedupKey: null,
    priority: 50,
    notBeforeMs: null,
    timeoutMs: null,
    retry: NO_RETRY,
    scheduleId: null,
    createdBy: "test",
  };
}

async function gateway(d: DaemonFixture, dataDir?: string, pollIntervalMs = 100) {
  const f: FleetHarness = await startFleet({
    runtimeDir: d.ws.runtime,
    ...(dataDir ? { dataDir } : {}),
    pollIntervalMs,
    // The spawn's deadline is short (its reply is lost while the daemon is stopped); the lists'
    // leave room for a loaded machine once it answers again: two lists timing out in a row after
    // the resume would put the queue's next look (5 s, then 10 s later) past the test's wait.
    deadlines: { spawn: 400, list: 1_500, status: 1_500 },
    startupTimeoutMs: 400,
  });
  if (!dataDir) await f.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  const queue = new LaunchQueue({
    db: f.db.prisma,
    store: f.store,
    bus: f.bus,
    fleet: f.fleet,
    log: silentLogger,
  });
  await queue.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await queue.stop();
    await f.stopFleet();
  };
  cleanups.push(stop);
  return { f, queue, stop };
}

const runsOf = (d: DaemonFixture, prompt: string) =>
  d.daemon.records().filter((r) => r.spec.initial_prompt === prompt);

describe("launch queue against a daemon that does not answer", () => {
  it("a spawn lost while the daemon is stopped is adopted when it answers again, never spawned twice", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    const { f, queue } = await gateway(d);
    const prompt = "stopped daemon fake:hold=1000";
    // Stopped as it reads the spawn: the request reached it. (Paused before the enqueue, a poll
    // timing out first would mark the workspace unreachable, and the fleet would then probe with
    // `status` and never send the spawn: a different fault, which CI's load made happen.)
    d.daemon.pauseAtNext("spawn");
    const { launch } = await queue.enqueue(request(prompt));
    // The spawn (400 ms deadline) and the list asked after it (1.5 s) both time out.
    await waitFor(async () => {
      const a = await f.db.prisma.launchAttempt.findFirst({ where: { launchId: launch.id } });
      return a !== null && Date.now() - a.requestedAt.getTime() > 3_500;
    }, 8_000);
    expect((await f.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } })).state).toBe(
      "DISPATCHED",
    );
    const spawns = d.daemon.requests.filter((r) => {
      const decoded = decodeCtlRequest(r.line);
      return decoded.ok && decoded.request.kind === "spawn";
    });
    expect(spawns.map((r) => r.reply)).toEqual([null]); // read, not yet applied
    d.daemon.resume(); // the stopped daemon now applies the spawn it had read
    await waitFor(
      async () =>
        (await f.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } })).state === "SUCCEEDED",
      30_000,
    );
    expect(runsOf(d, prompt)).toHaveLength(1);
    const row = await f.db.prisma.launch.findUniqueOrThrow({
      where: { id: launch.id },
      include: { attempts: true, transitions: { orderBy: { id: "asc" } } },
    });
    expect(row.attempts.map((a) => [a.n, a.agentId, a.outcome])).toEqual([
      [1, runsOf(d, prompt)[0]!.id, "succeeded"],
    ]);
    expect(row.transitions.find((t) => t.to === "RUNNING")!.reason).toMatch(/adopted/);
    expect(row.transitions.map((t) => t.to)).toEqual(["QUEUED", "DISPATCHED", "RUNNING", "SUCCEEDED"]);
  }, 60_000);

  it("a cancel while the spawn is unanswered kills the run once the daemon answers, leaving none behind", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    // No timed polls: the fleet learns of the adopted run only as the queue makes it (the run
    // must be served before it can be killed).
    const { f, queue } = await gateway(d, undefined, 3_600_000);
    const prompt = "cancel me fake:hold=600000";
    d.daemon.pause();
    const { launch } = await queue.enqueue(request(prompt));
    await waitFor(
      async () => (await f.db.prisma.launchAttempt.count({ where: { launchId: launch.id } })) === 1,
      5_000,
    );
    const answered = await queue.cancel(launch.id, "alice");
    expect(answered.state).toBe("DISPATCHED"); // it cannot be known yet whether a run exists
    // The spawn and the lists after it time out while the daemon is stopped.
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await f.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } })).state).toBe(
      "DISPATCHED",
    );
    d.daemon.resume();
    await waitFor(
      async () =>
        (await f.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } })).state === "CANCELLED",
      30_000,
    );
    const runs = runsOf(d, prompt);
    expect(runs).toHaveLength(1);
    await waitFor(() => d.daemon.record(runs[0]!.id)?.status === "killed", 10_000);
  }, 60_000);

  it("a run adopted after a restart that ended while the gateway was down settles its launch", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    // First gateway: never polls; the daemon answers the spawn too late (the reply is lost).
    const first = await gateway(d, undefined, 3_600_000);
    const prompt = "finishes while down";
    d.daemon.pause();
    const { launch } = await first.queue.enqueue(request(prompt));
    await waitFor(
      async () => (await first.f.db.prisma.launchAttempt.count({ where: { launchId: launch.id } })) === 1,
      5_000,
    );
    await first.stop(); // gone before it learned anything
    d.daemon.resume();
    await waitFor(() => runsOf(d, prompt).some((r) => r.status === "done"), 20_000);
    const second = await gateway(d, first.f.dataDir);
    await waitFor(
      async () =>
        (await second.f.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } })).state ===
        "SUCCEEDED",
      20_000,
    );
    expect(runsOf(d, prompt)).toHaveLength(1);
    expect(second.queue.metrics().adopted_total).toBe(1);
  }, 60_000);
});
