/**
 * The launch queue end to end in one gateway (issue 14 items 1, 2, 6, 7): a real gateway and
 * SQLite store over the caliband test double's workers. What a user sees: launches drain under
 * the cap, a transient provider failure is retried through respawn, a permanent one is not, a
 * timeout ends TIMED_OUT, cancel works in every non-final state.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { NO_RETRY, type LaunchRequest } from "../../src/queue/types.js";
import { ValidationFailed, Conflict, InvalidState } from "../../src/errors.js";
import fs from "node:fs";
import { makeTempWorkspace } from "../support/temp-workspace.js";
import { ScheduleService } from "../../src/queue/schedules.js";
import { createLogger } from "../../src/log.js";
import { ManualClock } from "../helpers/manual-clock.js";

let h: AppHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

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

async function launch(id: string) {
  return h!.app.db.prisma.launch.findUniqueOrThrow({
    where: { id },
    include: { attempts: { orderBy: { n: "asc" } } },
  });
}

describe("launch queue", () => {
  it("drains 12 launches three at a time under a GLOBAL cap of 3, never more", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    await q.setCap({ scope: "GLOBAL", key: "", max: 3 }, "test");
    let most = 0;
    const sample = setInterval(() => {
      const m = q.metrics();
      most = Math.max(most, m.running + m.dispatched);
    }, 5);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await q.enqueue(request(`task ${i} fake:hold=300`))).launch.id);
    await waitFor(async () => {
      const rows = await h!.app.db.prisma.launch.findMany({ where: { id: { in: ids } } });
      return rows.every((r) => r.state === "SUCCEEDED");
    }, 30_000);
    clearInterval(sample);
    expect(most).toBe(3);
    // live runs never exceeded the cap either, as the fleet saw them
    const attempts = await h.app.db.prisma.launchAttempt.findMany({ where: { launchId: { in: ids } } });
    expect(attempts).toHaveLength(12);
    expect(new Set(attempts.map((a) => a.agentId)).size).toBe(12);
    // dispatched in enqueue order (same priority): the first three went first
    const first = await Promise.all(ids.map((id) => launch(id)));
    const byDispatch = [...first].sort((a, b) => a.dispatchedAt!.getTime() - b.dispatchedAt!.getTime());
    expect(
      byDispatch
        .slice(0, 3)
        .map((l) => l.id)
        .sort(),
    ).toEqual(ids.slice(0, 3).sort());
    expect(q.metrics().dispatches_total).toBe(12);
  }, 60_000);

  it("shows why a launch waits and its position, and higher priority goes first", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    await q.setCap({ scope: "GLOBAL", key: "", max: 0 }, "test");
    const low = (await q.enqueue(request("low", { priority: 10 }))).launch.id;
    const high = (await q.enqueue(request("high", { priority: 90 }))).launch.id;
    await waitFor(() => q.queuePosition(low) !== null, 5_000);
    expect(q.queuePosition(high)).toBe(1);
    expect(q.queuePosition(low)).toBe(2);
    expect(q.waitingFor(low)).toMatchObject({ kind: "CAP", scope: "GLOBAL", inUse: 0, max: 0 });
    await q.setCap({ scope: "GLOBAL", key: "", max: 1 }, "test");
    await waitFor(async () => (await launch(high)).state !== "QUEUED", 5_000);
    expect((await launch(low)).state).toBe("QUEUED");
  });

  it("retries a 429 twice through respawn, then succeeds: one launch, three attempts", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    const { launch: l } = await q.enqueue(
      request("rate limited fake:provider-error=429 fake:fail-first=2", {
        retry: { maxAttempts: 5, backoffMs: 300, maxBackoffMs: 5_000 },
      }),
    );
    await waitFor(async () => (await launch(l.id)).state === "SUCCEEDED", 30_000);
    const done = await launch(l.id);
    expect(done.attempts.map((a) => [a.n, a.kind, a.outcome, a.transient])).toEqual([
      [1, "spawn", "failed", true],
      [2, "respawn", "failed", true],
      [3, "respawn", "succeeded", null],
    ]);
    expect(done.attempts[1]!.respawnOf).toBe(done.attempts[0]!.agentId);
    // backoff observed: attempt 2 waited at least half of 300 ms, attempt 3 at least half of 600 ms
    const gap = (i: number) =>
      done.attempts[i]!.requestedAt.getTime() - done.attempts[i - 1]!.endedAt!.getTime();
    expect(gap(1)).toBeGreaterThanOrEqual(150);
    expect(gap(2)).toBeGreaterThanOrEqual(300);
    expect(done.attempts[0]!.error).toMatch(/429/);
    expect(q.metrics().retries_total).toBe(2);
  }, 60_000);

  it("never retries a 401: FAILED after one attempt, saying why", async () => {
    h = await startAppHarness();
    const { launch: l } = await h.app.queue.enqueue(
      request("bad key fake:provider-error=401", {
        retry: { maxAttempts: 5, backoffMs: 100, maxBackoffMs: 1000 },
      }),
    );
    await waitFor(async () => (await launch(l.id)).state === "FAILED", 20_000);
    const done = await launch(l.id);
    expect(done.attempts).toHaveLength(1);
    expect(done.reason).toMatch(/401/);
    expect(done.attempts[0]!.transient).toBe(false);
  }, 30_000);

  it("kills a run past its timeout and ends the launch TIMED_OUT", async () => {
    h = await startAppHarness();
    const { launch: l } = await h.app.queue.enqueue(request("slow fake:hold=60000", { timeoutMs: 1_000 }));
    await waitFor(async () => (await launch(l.id)).state === "TIMED_OUT", 20_000);
    const done = await launch(l.id);
    const agent = await h.app.db.prisma.agent.findUniqueOrThrow({ where: { id: done.agentId! } });
    expect(agent.status).toBe("killed");
    expect(done.reason).toMatch(/timed out after 1000 ms/);
    expect(done.finishedAt!.getTime() - done.startedAt!.getTime()).toBeGreaterThanOrEqual(1_000);
    const events = await h.app.db.prisma.event.findMany({
      where: { kind: "launch_changed" },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => (e.payload as { to: string }).to)).toEqual([
      "QUEUED",
      "DISPATCHED",
      "RUNNING",
      "TIMED_OUT",
    ]);
    expect(h.app.queue.metrics().timeouts_total).toBe(1);
  }, 30_000);

  it("cancels a queued launch at once and a running one by killing its run", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    await q.setCap({ scope: "GLOBAL", key: "", max: 1 }, "test");
    const running = (await q.enqueue(request("long fake:hold=60000"))).launch.id;
    const queued = (await q.enqueue(request("waits"))).launch.id;
    await waitFor(async () => (await launch(running)).state === "RUNNING", 10_000);
    expect((await q.cancel(queued, "alice")).state).toBe("CANCELLED");
    const c = await q.cancel(running, "alice");
    expect(c.state).toBe("CANCELLED");
    const agent = await h.app.db.prisma.agent.findUniqueOrThrow({ where: { id: c.agentId! } });
    expect(agent.status).toBe("killed");
    await expect(q.cancel(running, "alice")).rejects.toBeInstanceOf(InvalidState);
  }, 30_000);

  it("dedups on dedupKey among unfinished launches and refuses bad input without storing", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    await q.setCap({ scope: "GLOBAL", key: "", max: 0 }, "test");
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => q.enqueue(request("same", { dedupKey: "k1" }))),
    );
    expect(new Set(answers.map((a) => a.launch.id)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    await expect(q.enqueue(request("other", { dedupKey: "k1" }))).rejects.toBeInstanceOf(Conflict);
    for (const bad of [
      request("x", { priority: 101 }),
      request("x", { timeoutMs: 0 }),
      request("x", { timeoutMs: 8 * 24 * 3600 * 1000 }),
      request("x", { notBeforeMs: Date.now() - 3_600_000 }),
      request("x", { retry: { maxAttempts: 0, backoffMs: 100, maxBackoffMs: 100 } }),
      request("  "),
    ]) {
      await expect(q.enqueue(bad)).rejects.toBeInstanceOf(ValidationFailed);
    }
    await expect(q.setCap({ scope: "GLOBAL", key: "", max: -1 }, null)).rejects.toBeInstanceOf(
      ValidationFailed,
    );
    expect(await h.app.db.prisma.launch.count()).toBe(1);
    await expect(
      q.enqueue(request("x", { notBeforeMs: Date.now() + 400 * 24 * 3600 * 1000 })),
    ).rejects.toBeInstanceOf(ValidationFailed);
    // a key is per workspace: the same key elsewhere neither conflicts nor says it exists
    const otherWs = makeTempWorkspace("other-repo");
    try {
      await h.app.fleet.addWorkspace({ name: "other", root: fs.realpathSync(otherWs.root) });
      const elsewhere = await q.enqueue({
        ...request("other"),
        spec: { workspace: "other", prompt: "other" },
        dedupKey: "k1",
      });
      expect(elsewhere.created).toBe(true);
      expect(elsewhere.launch.id).not.toBe(answers[0]!.launch.id);
    } finally {
      otherWs.cleanup();
    }
    // the schedules' prefix is reserved
    await expect(
      q.enqueue(request("x", { dedupKey: "schedule:abc:2026-01-01T00:00:00.000Z" })),
    ).rejects.toBeInstanceOf(ValidationFailed);
    // once final, the key is free again
    await q.cancel(answers[0]!.launch.id, null);
    expect((await q.enqueue(request("other", { dedupKey: "k1" }))).created).toBe(true);
  }, 30_000);

  it("counts runs started outside the queue against the cap", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    await q.setCap({ scope: "GLOBAL", key: "", max: 1 }, "test");
    await h.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "direct fake:hold=2000",
      isolated: false,
    });
    const id = (await q.enqueue(request("queued"))).launch.id;
    await waitFor(() => q.waitingFor(id) !== null, 5_000);
    expect(q.waitingFor(id)).toMatchObject({ kind: "CAP", inUse: 1, max: 1 });
    await waitFor(async () => (await launch(id)).state === "SUCCEEDED", 20_000);
  }, 30_000);

  it("holds new dispatch at a spent budget while running work finishes, and resumes when raised", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    const first = (await q.enqueue(request("costs money"))).launch.id;
    await waitFor(async () => (await launch(first)).state === "SUCCEEDED", 20_000);
    const agent = await h.app.db.prisma.agent.findUniqueOrThrow({
      where: { id: (await launch(first)).agentId! },
    });
    expect(agent.costUsd).toBeGreaterThan(0);
    const budget = await q.setBudget(
      { scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: agent.costUsd! / 2 },
      "test",
    );
    expect(budget).toMatchObject({ exhausted: true, limitUsd: agent.costUsd! / 2 });
    expect(budget!.spentUsd).toBeCloseTo(agent.costUsd!, 6);
    const second = (await q.enqueue(request("must wait"))).launch.id;
    await waitFor(() => q.waitingFor(second) !== null, 5_000);
    expect(q.waitingFor(second)).toMatchObject({
      kind: "BUDGET",
      scope: "WORKSPACE",
      key: "demo",
      period: "DAY",
    });
    expect(q.waitingFor(second)!.message).toMatch(
      /budget workspace demo today: \$\d+\.\d\d of \$\d+\.\d\d spent/,
    );
    await q.setBudget({ scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: 100 }, "test");
    await waitFor(async () => (await launch(second)).state === "SUCCEEDED", 20_000);
    await expect(
      q.setBudget({ scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: -1 }, null),
    ).rejects.toBeInstanceOf(ValidationFailed);
  }, 60_000);

  it("fires a schedule through the same queue and caps, and skips a firing while the previous launch is active", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    // The gateway's own ScheduleService runs on the real clock; this one, over the same store, queue
    // and registry, runs on a clock moved by hand so firings come minutes apart without waiting.
    const clock = new ManualClock(Date.parse("2026-03-01T09:30:10Z"));
    const svc = new ScheduleService({
      db: h.app.db.prisma,
      store: h.app.store,
      queue: q,
      registry: h.app.fleet.registry,
      log: createLogger("silent"),
      clock,
    });
    const fireAt = async (iso: string) => {
      clock.set(Date.parse(iso));
      clock.runDue();
      await svc.whenIdle();
    };
    try {
      await svc.start();
      const sched = await svc.create(
        {
          name: "tick",
          workspace: "demo",
          cron: "* * * * *",
          timeZone: "UTC",
          overlap: "SKIP",
          missed: "SKIP",
          paused: false,
          template: {
            spec: { prompt: "tick fake:hold=200", isolated: false },
            priority: 50,
            timeoutMs: null,
            retry: NO_RETRY,
          },
        },
        "test",
      );
      const launches = () =>
        h!.app.db.prisma.launch.findMany({ where: { scheduleId: sched.id }, orderBy: { createdAt: "asc" } });
      const firingRows = () =>
        h!.app.db.prisma.scheduleFiring.findMany({ where: { scheduleId: sched.id }, orderBy: { id: "asc" } });

      // A GLOBAL cap of 0: the first firing's launch waits in the queue (and is active meanwhile).
      await q.setCap({ scope: "GLOBAL", key: "", max: 0 }, "test");
      await fireAt("2026-03-01T09:31:00Z");
      const [first] = await launches();
      expect(first).toMatchObject({
        state: "QUEUED",
        dedupKey: `schedule:${sched.id}:2026-03-01T09:31:00.000Z`,
      });
      await waitFor(() => q.waitingFor(first!.id) !== null, 5_000);
      expect(q.waitingFor(first!.id)).toMatchObject({ kind: "CAP", scope: "GLOBAL" });

      // The next minute's firing is skipped, not queued, while that launch is active.
      await fireAt("2026-03-01T09:32:00Z");
      expect(await launches()).toHaveLength(1);
      expect((await firingRows()).map((f) => [f.trigger, f.launchId, f.skippedReason])).toEqual([
        ["cron", first!.id, null],
        ["cron", null, `previous launch ${first!.id} still active`],
      ]);

      // Raising the cap dispatches it; once it has finished, the next firing is a new launch.
      await q.setCap({ scope: "GLOBAL", key: "", max: 5 }, "test");
      await waitFor(async () => (await launch(first!.id)).state === "SUCCEEDED", 20_000);
      expect((await launch(first!.id)).attempts).toHaveLength(1);
      await fireAt("2026-03-01T09:33:00Z");
      const all = await launches();
      expect(all).toHaveLength(2);
      expect(all[1]!.dedupKey).toBe(`schedule:${sched.id}:2026-03-01T09:33:00.000Z`);
      await waitFor(async () => (await launch(all[1]!.id)).state === "SUCCEEDED", 20_000);
      expect((await firingRows()).map((f) => f.launchId)).toEqual([first!.id, null, all[1]!.id]);
    } finally {
      await svc.stop();
    }
  }, 30_000);

  it("removing a workspace cancels its unfinished launches and drops its caps", async () => {
    h = await startAppHarness();
    const q = h.app.queue;
    await q.setCap({ scope: "GLOBAL", key: "", max: 0 }, "test");
    await q.setCap({ scope: "WORKSPACE", key: "demo", max: 2 }, "test");
    const id = (await q.enqueue(request("never runs"))).launch.id;
    const res = await h.gql<{ removeWorkspace: { __typename: string } }>(
      `mutation { removeWorkspace(input: { workspace: "demo" }) { __typename } }`,
    );
    expect(res.data?.removeWorkspace.__typename).toBe("RemoveWorkspacePayload");
    const l = await launch(id);
    expect(l.state).toBe("CANCELLED");
    expect(l.reason).toMatch(/workspace demo was removed by admin/);
    expect(q.caps().map((c) => c.scope)).toEqual(["GLOBAL"]);
    expect(await h.app.db.prisma.cap.count({ where: { scope: "WORKSPACE" } })).toBe(0);
  }, 30_000);
});
