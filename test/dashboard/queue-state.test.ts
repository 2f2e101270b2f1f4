/** The dashboard's queue state (pure logic, no browser): snapshots merged with live launches. */
import { describe, expect, it } from "vitest";
import type { Launch, LaunchState, QueueSnapshot, Schedule } from "../../dashboard/src/api/types.js";
import { QueueRefresher, QueueState, RECENT_LIMIT } from "../../dashboard/src/state/queue.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function launch(id: string, state: LaunchState, updated: number, extra: Partial<Launch> = {}): Launch {
  return {
    id: `L${id}`,
    launchId: id,
    state,
    stateName: state,
    workspace: { name: "demo" },
    spec: { prompt: `p ${id}`, label: null, model: null, provider: null },
    dedupKey: null,
    priority: 50,
    notBefore: null,
    timeoutMs: null,
    retry: { maxAttempts: 1, backoffMs: 10_000, maxBackoffMs: 300_000 },
    retryAt: null,
    attemptCount: 0,
    queuePosition: null,
    waitingFor: null,
    reason: null,
    agent: null,
    schedule: null,
    createdBy: "admin",
    createdAt: at(0),
    updatedAt: at(updated),
    dispatchedAt: null,
    startedAt: null,
    finishedAt: state === "SUCCEEDED" || state === "CANCELLED" ? at(updated) : null,
    ...extra,
  };
}

function schedule(id: string, updated: number, extra: Partial<Schedule> = {}): Schedule {
  return {
    id: `S${id}`,
    scheduleId: id,
    name: `s-${id}`,
    workspace: { name: "demo" },
    cron: "* * * * *",
    timeZone: "UTC",
    overlap: "SKIP",
    missed: "SKIP",
    paused: false,
    nextFireAt: at(60),
    lastFireAt: null,
    deletedAt: null,
    updatedAt: at(updated),
    template: { priority: 50, spec: { prompt: "x", label: null } },
    ...extra,
  };
}

function snapshot(launches: Launch[], schedules: Schedule[] = []): QueueSnapshot {
  const page = <T>(items: T[]) => ({ totalCount: items.length, edges: items.map((node) => ({ node })) });
  return {
    queue: { depth: 0, running: 0, dispatched: 0, oldestQueuedAt: null, caps: [], budgets: [] },
    waiting: page(launches.filter((l) => l.state === "QUEUED")),
    active: page(launches.filter((l) => l.state === "RUNNING" || l.state === "DISPATCHED")),
    recent: page(launches.filter((l) => l.state === "SUCCEEDED" || l.state === "CANCELLED")),
    schedules: page(schedules),
  };
}

describe("QueueState", () => {
  it("a live change that arrives while a snapshot is on its way survives the older snapshot", () => {
    const q = new QueueState();
    q.replace(snapshot([launch("a", "QUEUED", 1), launch("b", "QUEUED", 1)]), q.mark());
    const mark = q.mark();
    // While the request runs: a starts running, c is enqueued (both live).
    q.applyLaunch(launch("a", "RUNNING", 5));
    q.applyLaunch(launch("c", "QUEUED", 6));
    // The snapshot was read before those changes.
    q.replace(snapshot([launch("a", "QUEUED", 1), launch("b", "QUEUED", 1)]), mark);
    expect(q.launches.get("a")?.state).toBe("RUNNING");
    expect(q.waiting().map((l) => l.launchId)).toEqual(["b", "c"]);
    expect(q.active().map((l) => l.launchId)).toEqual(["a"]);
  });

  it("a snapshot drops what it no longer lists unless a live item set it since the request", () => {
    const q = new QueueState();
    q.applyLaunch(launch("old", "QUEUED", 1));
    const mark = q.mark();
    q.replace(snapshot([launch("b", "QUEUED", 2)]), mark);
    expect([...q.launches.keys()]).toEqual(["b"]);
  });

  it("a newer snapshot replaces a live version; an older live item never replaces a newer one", () => {
    const q = new QueueState();
    q.applyLaunch(launch("a", "RUNNING", 5));
    q.replace(snapshot([launch("a", "SUCCEEDED", 9)]), q.mark());
    expect(q.launches.get("a")?.state).toBe("SUCCEEDED");
    q.applyLaunch(launch("a", "RUNNING", 5));
    expect(q.launches.get("a")?.state).toBe("SUCCEEDED");
  });

  it("lists waiting launches in dispatch order, and keeps the most recent final ones only", () => {
    const q = new QueueState();
    q.applyLaunch(launch("low", "QUEUED", 1, { priority: 10 }));
    q.applyLaunch(launch("older", "QUEUED", 1, { createdAt: at(0) }));
    q.applyLaunch(launch("newer", "QUEUED", 1, { createdAt: at(3) }));
    q.applyLaunch(launch("high", "QUEUED", 1, { priority: 90, createdAt: at(9) }));
    expect(q.waiting().map((l) => l.launchId)).toEqual(["high", "older", "newer", "low"]);
    for (let i = 0; i < RECENT_LIMIT + 5; i++) q.applyLaunch(launch(`f${i}`, "SUCCEEDED", 10 + i));
    expect(q.recent()).toHaveLength(RECENT_LIMIT);
    expect(q.recent()[0]?.launchId).toBe(`f${RECENT_LIMIT + 4}`);
    expect(q.launches.has("f0")).toBe(false);
  });

  it("a deleted schedule leaves the list; a live schedule change survives an older snapshot", () => {
    const q = new QueueState();
    q.replace(snapshot([], [schedule("x", 1), schedule("y", 1)]), q.mark());
    const mark = q.mark();
    q.applySchedule(schedule("x", 4, { paused: true, nextFireAt: null }));
    q.applySchedule(schedule("y", 4, { deletedAt: at(4) }));
    expect(q.scheduleList().map((s) => s.scheduleId)).toEqual(["x"]);
    // A snapshot read before both changes brings neither the old x nor y back.
    q.replace(snapshot([], [schedule("x", 1), schedule("y", 1)]), mark);
    expect(q.schedules.get("x")?.paused).toBe(true);
    expect(q.scheduleList().map((s) => s.scheduleId)).toEqual(["x"]);
    q.replace(snapshot([], [schedule("x", 4, { paused: true, nextFireAt: null })]), q.mark());
    expect(q.scheduleList().map((s) => s.scheduleId)).toEqual(["x"]);
    expect(q.schedules.has("y")).toBe(false);
  });
});

describe("QueueRefresher", () => {
  it("folds requests made while one runs into one more, and reads nothing while inactive", async () => {
    const q = new QueueState();
    const calls: ((s: QueueSnapshot) => void)[] = [];
    const r = new QueueRefresher(
      q,
      () => new Promise<QueueSnapshot>((resolve) => calls.push(resolve)),
      () => {},
      0,
    );
    r.request();
    r.request();
    await new Promise((res) => setTimeout(res, 10));
    expect(calls).toHaveLength(0);
    r.setActive(true);
    expect(calls).toHaveLength(1);
    r.request();
    r.request();
    r.request();
    calls[0]?.(snapshot([launch("a", "QUEUED", 1)]));
    await new Promise((res) => setTimeout(res, 10));
    expect(calls).toHaveLength(2);
    calls[1]?.(snapshot([]));
    await new Promise((res) => setTimeout(res, 10));
    expect(calls).toHaveLength(2);
    expect(q.loaded).toBe(true);
  });
});
