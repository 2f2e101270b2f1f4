import { afterEach, describe, expect, it } from "vitest";
import { CalibandClient } from "../../src/caliband/client.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function daemon(name = "demo-repo"): Promise<DaemonFixture> {
  const d = await startDaemon({}, name);
  cleanups.push(() => d.close());
  return d;
}

async function fleet(
  runtimeDir: string,
  opts: { dataDir?: string; pollIntervalMs?: number; listDeadlineMs?: number } = {},
): Promise<FleetHarness> {
  const h = await startFleet({ runtimeDir, ...opts });
  cleanups.push(() => h.close());
  return h;
}

const client = (d: DaemonFixture) => new CalibandClient({ scheme: "unix", path: d.daemon.socketPath });

describe("polling and reconciliation", () => {
  it("discovers agents spawned outside Prospero, records status changes, and attaches idle agents (#51)", async () => {
    const d = await daemon();
    const h = await fleet(d.ws.runtime);
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const c = client(d);
    const { id } = await c.spawn({
      initial_prompt: "Say hi, then wait for me.",
      interactive: true,
      label: "chatty",
    });
    await waitFor(() => h.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
    const events = await h.store.readStream(id, 0, 1000);
    expect(events[0]).toMatchObject({ kind: "agent_discovered", payload: { name: "chatty" } });
    // The idle agent is attached: its output is ingested.
    await waitFor(
      async () => (await h.store.readStream(id, 0, 1000)).some((e) => e.kind === "turn_completed"),
      10_000,
      "ingested",
    );
    expect(h.fleet.metrics.active_attaches).toBeGreaterThan(0);
    // Rounds have completed by now: the gauge holds the last one's wall time.
    expect(h.fleet.metrics.poll_round_duration_ms).toBeGreaterThan(0);
    expect(h.fleet.metrics.poll_round_duration_ms).toBeLessThan(5_000);
    await h.fleet.lifecycle.sendInput(id, "ping from the operator");
    await waitFor(
      async () =>
        (await h.store.readStream(id, 0, 1000)).some(
          (e) => e.kind === "output" && e.payload.text === "You said: ping from the operator",
        ),
      10_000,
      "reply to input",
    );
    await h.fleet.lifecycle.endInput(id);
    await waitFor(() => h.fleet.state.agent(id)?.status === "done", 10_000, "done");
    const kinds = (await h.store.readStream(id, 0, 1000)).map((e) => e.kind);
    expect(kinds).toContain("input_sent");
    expect(kinds).toContain("input_ended");
    expect(kinds.at(-1)).toBe("status_changed");
    expect(kinds.filter((k) => k === "agent_finished")).toHaveLength(1);
  });

  it("a hung daemon marks only its own workspace unreachable and never delays the others (#194)", async () => {
    const a = await daemon("alpha");
    const b = await startDaemon({}, "beta");
    cleanups.push(() => b.close());
    // Both daemons must be found through one runtime dir: start beta's double on alpha's runtime dir.
    await b.daemon.close();
    const { FakeCaliband } = await import("../support/fake-caliband.js");
    const { controlSocketPath } = await import("../../src/caliband/paths.js");
    const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: a.ws.runtime };
    const betaDaemon = await FakeCaliband.start({
      workspaceRoot: b.ws.root,
      socketPath: controlSocketPath(b.ws.root, env),
      dataBase: b.ws.data,
      env,
    });
    cleanups.push(() => betaDaemon.close());

    const h = await fleet(a.ws.runtime, { pollIntervalMs: 100, listDeadlineMs: 2_000 });
    await h.fleet.addWorkspace({ name: "alpha", root: a.ws.root });
    await h.fleet.addWorkspace({ name: "beta", root: b.ws.root });
    await waitFor(() => h.fleet.state.healthOf("beta").state === "healthy", 5_000, "beta healthy");

    a.daemon.hang(true);
    const betaListsBefore = betaDaemon.requests.filter((r) => r.line.includes('"list"')).length;
    const t0 = Date.now();
    await waitFor(() => h.fleet.state.healthOf("alpha").state === "unreachable", 15_000, "alpha unreachable");
    const elapsed = Date.now() - t0;
    const betaListsDuring =
      betaDaemon.requests.filter((r) => r.line.includes('"list"')).length - betaListsBefore;
    // alpha's list hangs until its 2 s deadline; beta kept being polled every ~100 ms meanwhile.
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(4_000);
    expect(betaListsDuring).toBeGreaterThanOrEqual(10);
    expect(h.fleet.state.healthOf("beta").state).toBe("healthy");
    expect(h.fleet.state.healthOf("alpha").reason).toMatch(/timeout/);

    a.daemon.hang(false);
    await waitFor(() => h.fleet.state.healthOf("alpha").state === "healthy", 10_000, "alpha recovered");
    const health = (await h.store.readStream("workspace:alpha", 0, 100)).map((e) => e.payload);
    expect(health).toEqual([
      { state: "healthy", reason: null },
      { state: "unreachable", reason: expect.stringMatching(/timeout/) as unknown as string },
      { state: "healthy", reason: null },
    ]);
  });

  it("poll_round_duration_ms is the wall time of the last round, waiting for a hung daemon's deadline", async () => {
    const d = await daemon();
    // One round at start, then none: rounds below run only when the test asks.
    const h = await fleet(d.ws.runtime, { pollIntervalMs: 3_600_000, listDeadlineMs: 600 });
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    await h.fleet.poller.pollAll();
    const fast = h.fleet.metrics.poll_round_duration_ms;
    expect(fast).toBeGreaterThan(0);
    expect(fast).toBeLessThan(550);

    d.daemon.hang(true);
    const t0 = performance.now();
    await h.fleet.poller.pollAll();
    const wall = performance.now() - t0;
    d.daemon.hang(false);
    const slow = h.fleet.metrics.poll_round_duration_ms;
    expect(slow).toBeGreaterThanOrEqual(550); // the round waited for the list deadline (600 ms)
    expect(slow).toBeLessThanOrEqual(wall + 1);
    expect(h.fleet.metrics.poll_failures_total).toBe(1);
  });

  it("restarting the gateway emits no duplicate lifecycle or health events (#194, #196)", async () => {
    const d = await daemon();
    const h = await fleet(d.ws.runtime);
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const c = client(d);
    const done = await c.spawn({ initial_prompt: "quick" });
    const killed = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    const running = await c.spawn({ initial_prompt: "long fake:hold=60000" });
    await waitFor(() => h.fleet.state.agent(done.id)?.status === "done", 10_000, "done");
    await h.fleet.lifecycle.kill(killed.agent.id);
    await waitFor(() => h.fleet.state.agent(running.id)?.status === "running", 10_000, "running seen");
    await new Promise((r) => setTimeout(r, 300));
    const before = await h.db.prisma.event.findMany({ orderBy: { id: "asc" } });
    await h.stopFleet();

    const h2 = await fleet(d.ws.runtime, { dataDir: h.dataDir });
    await new Promise((r) => setTimeout(r, 800)); // several polls
    const after = await h2.db.prisma.event.findMany({ orderBy: { id: "asc" } });
    const lifecycle = [
      "agent_discovered",
      "agent_spawned",
      "status_changed",
      "agent_gone",
      "workspace_health",
      "agent_finished",
    ];
    expect(after.filter((e) => lifecycle.includes(e.kind)).map((e) => [e.streamKey, e.kind, e.seq])).toEqual(
      before.filter((e) => lifecycle.includes(e.kind)).map((e) => [e.streamKey, e.kind, e.seq]),
    );
    // The still-running agent was re-attached: when it finishes, exactly one terminal transition.
    d.daemon.agent(running.id)!.release();
    await waitFor(() => h2.fleet.state.agent(running.id)?.status === "done", 10_000, "done after restart");
    const terminal = (await h2.store.readStream(running.id, 0, 1000)).filter(
      (e) => e.kind === "status_changed",
    );
    expect(terminal.map((e) => e.payload)).toEqual([{ from: "running", to: "done" }]);
  });

  it("a daemon restart: a surviving worker is followed to its RunEnd (done), one that dies without it is crashed, each recorded once", async () => {
    const d = await daemon();
    const h = await fleet(d.ws.runtime);
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const finishes = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    const dies = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    for (const a of [finishes, dies]) {
      await waitFor(() => (d.daemon.agent(a.agent.id)?.linesWritten ?? 0) >= 8, 10_000, "turn 1 started");
    }
    await d.daemon.restart();
    // The new daemon says crashed, but both workers still run (§5.7): not recorded yet.
    await waitFor(() => d.daemon.record(dies.agent.id)?.status === "crashed", 5_000, "daemon says crashed");
    await new Promise((r) => setTimeout(r, 600)); // several polls
    expect(h.fleet.state.agent(finishes.agent.id)?.status).toBe("running");
    expect(h.fleet.state.agent(dies.agent.id)?.status).toBe("running");

    d.daemon.agent(finishes.agent.id)!.release();
    d.daemon.agent(dies.agent.id)!.kill();
    await waitFor(() => h.fleet.state.agent(finishes.agent.id)?.status === "done", 10_000, "done");
    await waitFor(() => h.fleet.state.agent(dies.agent.id)?.status === "crashed", 10_000, "crashed");
    await new Promise((r) => setTimeout(r, 400));
    const changes = async (id: string) =>
      (await h.store.readStream(id, 0, 1000))
        .filter((e) => e.kind === "status_changed")
        .map((e) => e.payload);
    expect(await changes(finishes.agent.id)).toEqual([{ from: "running", to: "done" }]);
    expect(await changes(dies.agent.id)).toEqual([{ from: "running", to: "crashed" }]);
    expect(d.daemon.record(finishes.agent.id)?.status).toBe("crashed"); // the daemon's stale word
    expect(await h.db.prisma.agent.findUnique({ where: { id: finishes.agent.id } })).toMatchObject({
      outcome: "EndOfTurn",
      turns: 2,
      inputTokens: 2510,
      outputTokens: 60,
    });
  });

  it("an agent removed outside Prospero is recorded gone exactly once", async () => {
    const d = await daemon();
    const h = await fleet(d.ws.runtime);
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const c = client(d);
    const { id } = await c.spawn({ initial_prompt: "quick" });
    await waitFor(() => h.fleet.state.agent(id)?.status === "done", 10_000, "done");
    await c.rm(id);
    await waitFor(() => !h.fleet.state.agent(id), 10_000, "gone from view");
    await new Promise((r) => setTimeout(r, 300));
    const gone = (await h.store.readStream(id, 0, 1000)).filter((e) => e.kind === "agent_gone");
    expect(gone.map((e) => e.payload)).toEqual([{ reason: "vanished", replacedBy: null }]);
    // History outlives caliband.
    expect(await h.db.prisma.agent.findUnique({ where: { id } })).toMatchObject({
      status: "done",
      outcome: "EndOfTurn",
    });
  });

  it("a list reply reconciled after a newer one is dropped: a run spawned between the two is not recorded gone", async () => {
    const d = await daemon();
    const h = await fleet(d.ws.runtime, { pollIntervalMs: 3_600_000 });
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const ws = h.fleet.registry.get("demo");
    // The poller's own path, driven by hand: an older list (sent before the spawn) whose reply is
    // reconciled only after a newer list's (pollOnce has callers beside the loop, so lists overlap).
    const poller = h.fleet.poller as unknown as {
      listsSent: number;
      reconcile(w: typeof ws, records: unknown[], sentAt: number, listNo: number): Promise<void>;
    };
    const staleSentAt = Date.now();
    const staleNo = ++poller.listsSent;
    const staleRecords = await client(d).list();
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Say hi, then wait for me.",
    });
    await new Promise((r) => setTimeout(r, 20));
    await h.fleet.poller.pollOnce(ws); // the newer list: it lists the run and retires its spawn guard
    expect(staleRecords.some((r) => r.id === agent.id)).toBe(false);
    await poller.reconcile(ws, staleRecords, staleSentAt, staleNo);
    expect(h.fleet.state.agent(agent.id)?.status).not.toBe("crashed");
    const kinds = (await h.store.readStream(agent.id, 0, 1000)).map((e) => e.kind);
    expect(kinds).not.toContain("agent_gone");
  });

  it("a spawn still being recorded is not read as gone by a poll that runs between its view and its bookkeeping", async () => {
    const d = await daemon();
    const h = await fleet(d.ws.runtime, { pollIntervalMs: 3_600_000 });
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const ws = h.fleet.registry.get("demo");
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Say hi, then wait for me.",
    });
    // The moment recordSpawn has put the view in the state and released the workspace lock, but
    // not yet cleared pendingSpawns (its finally): a list sent after the spawn reply lists the
    // run, and its recording still owns it.
    const inflight = (h.fleet.poller as unknown as { deps: { inflight: { pendingSpawns: Set<string> } } })
      .deps.inflight;
    await new Promise((r) => setTimeout(r, 20));
    inflight.pendingSpawns.add(agent.id);
    try {
      await h.fleet.poller.pollOnce(ws);
    } finally {
      inflight.pendingSpawns.delete(agent.id);
    }
    const kinds = (await h.store.readStream(agent.id, 0, 1000)).map((e) => e.kind);
    expect(kinds).not.toContain("agent_gone");
    expect(h.fleet.state.agent(agent.id)?.status).not.toBe("crashed");
  });
});
