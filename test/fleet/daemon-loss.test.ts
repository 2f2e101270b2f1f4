/**
 * Truthful under daemon faults (issue 12 items 1, 2, 6): a daemon SIGKILLed under streaming agents
 * loses nothing (its worker processes run on; ingest follows them to RunEnd and records the outcome
 * they reached); a restarted daemon's stale `idle` does not keep a finished run alive; a run's end
 * is recorded within moments of its RunEnd (or its stream closing), with `finishedAt` from the
 * stream; ingest that must stop short stores an `ingest_gap` saying why. Real SQLite, real sockets,
 * the caliband-sim as a real autostarted daemon process, faults as SIGKILL.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { CalibandClient } from "../../src/caliband/client.js";
import { isTerminal } from "../../src/caliband/wire.js";
import { isTerminalEvent } from "../../src/events/index.js";
import type { FleetHarness } from "../helpers/fleet-harness.js";
import { startDaemon, startFleet, waitFor, type DaemonFixture } from "../helpers/fleet-harness.js";
import { collect, startAppHarness } from "../helpers/app-harness.js";
import { makeTempWorkspace } from "../support/temp-workspace.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");

/** Kill a process group we started (a sim and the worker processes it launched), if still there. */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // gone
  }
}

/** Stored frames of `agentId` as bytes, one line each with its newline, in line order. */
async function storedBytes(h: FleetHarness, agentId: string): Promise<Buffer> {
  const rows = await h.db.prisma.frame.findMany({ where: { agentId }, orderBy: { line: "asc" } });
  expect(rows.map((r) => r.line)).toEqual(rows.map((_, i) => i));
  return Buffer.concat(
    rows.flatMap((r) => [r.bytes ? Buffer.from(r.bytes) : Buffer.from(r.text, "utf8"), Buffer.from("\n")]),
  );
}

describe("a daemon SIGKILLed under running agents loses nothing (item 1)", () => {
  it("two agents streaming 2,500 frames each: every line stored byte for byte, the outcome they reached recorded", async () => {
    const ws = makeTempWorkspace();
    onCleanup(() => ws.cleanup());
    const sessions = path.join(ws.tmp, "sessions");
    const env = {
      ...process.env,
      CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime,
      CALIBAN_SIM_DATA_BASE: sessions,
      CALIBAN_SIM_FRAME_DELAY_MS: "1",
    };
    const h = await startFleet({
      runtimeDir: ws.runtime,
      env,
      autostart: true,
      calibandBin: SIM,
      pollIntervalMs: 200,
      startupTimeoutMs: 20_000,
    });
    onCleanup(() => h.close());
    const root = fs.realpathSync(ws.root);
    await h.fleet.addWorkspace({ name: "demo", root });
    const first = await h.fleet.daemons.handle(h.fleet.registry.get("demo"));
    expect(first.started).toBe(true);
    onCleanup(() => killGroup(first.pid!));

    const ids: string[] = [];
    for (const label of ["alpha", "beta"]) {
      const { agent } = await h.fleet.lifecycle.spawn({
        workspace: "demo",
        prompt: "stream fake:frames=2500 fake:pace=2",
        label,
        isolated: false,
      });
      ids.push(agent.id);
    }
    const stored = (id: string) => h.db.prisma.frame.count({ where: { agentId: id } });
    for (const id of ids) await waitFor(async () => (await stored(id)) >= 300, 30_000, `300 frames of ${id}`);

    process.kill(first.pid!, "SIGKILL"); // the daemon only: its workers are processes of their own
    await waitFor(() => h.fleet.state.healthOf("demo").state === "unreachable", 10_000, "daemon lost");
    await waitFor(
      async () => {
        const h2 = await h.fleet.daemons.handle(h.fleet.registry.get("demo")).catch(() => null);
        return h2 !== null && h2.pid !== first.pid ? h2 : null;
      },
      20_000,
      "a new daemon autostarted",
    ).then((h2) => onCleanup(() => killGroup(h2.pid!)));
    const client = (await h.fleet.daemons.handle(h.fleet.registry.get("demo"))).client;
    await waitFor(
      async () => (await client.list()).every((r) => r.rawStatus === "crashed"),
      20_000,
      "the new daemon lists both crashed",
    );
    // The workers still run: the runs are not over in our model until their streams end.
    expect(ids.map((id) => h.fleet.state.agent(id)?.status)).toEqual(["running", "running"]);

    for (const id of ids) {
      await waitFor(() => isTerminal(h.fleet.state.agent(id)?.status ?? "running"), 60_000, `${id} ended`);
    }
    for (const id of ids) {
      const rec = (await client.list()).find((r) => r.id === id)!;
      expect(rec.rawStatus).toBe("crashed"); // the daemon's stale word
      const file = fs.readFileSync(path.join(rec.session_dir, "stdout.ndjson"));
      expect(file.toString("utf8").split("\n").length).toBe(2500 + 11); // the whole run was written
      expect((await storedBytes(h, id)).equals(file)).toBe(true);
      expect(await h.db.prisma.agent.findUnique({ where: { id } })).toMatchObject({
        status: "done",
        outcome: "EndOfTurn",
        turns: 2,
        inputTokens: 2510,
        outputTokens: 60,
      });
      const events = await h.store.readStream(id, 0, 100_000);
      expect(events.filter((e) => e.kind === "ingest_gap")).toEqual([]);
      expect(events.filter((e) => e.kind === "status_changed").map((e) => e.payload)).toEqual([
        { from: "running", to: "done" },
      ]);
      expect(isTerminalEvent(events.at(-1)!)).toBe(true);
    }
    expect(h.fleet.metrics.ingest_gaps_total).toBe(0);
  }, 120_000);
});

describe("no zombie after a daemon restart (item 2)", () => {
  it("a finished interactive worker the restarted daemon still lists idle ends the run; agentEvents completes", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    const spawned = await h.app.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "wait for me",
      interactive: true,
    });
    const id = spawned.agent.id;
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
    const sub = collect<{ agentEvents: { __typename: string } }>(
      h.ws(),
      "subscription($id: String!) { agentEvents(agentId: $id) { __typename } }",
      { id },
    );
    onCleanup(() => sub.stop());

    await h.d.daemon.restart(); // idle is not swept; the worker's exit is no longer observed (§5.7)
    await h.app.fleet.lifecycle.sendInput(id, "one more thing");
    await waitFor(
      () => sub.items.some((i) => i.agentEvents.__typename === "TurnCompletedEvent"),
      10_000,
      "the answer",
    );
    await h.app.fleet.lifecycle.endInput(id);
    await waitFor(() => h.d.daemon.agent(id)?.state === "exited", 10_000, "worker exited");
    await sub.done; // completes: the run ended in our model
    expect(h.d.daemon.record(id)?.status).toBe("idle"); // the daemon's stale record
    expect(h.app.fleet.state.agent(id)?.status).toBe("done");
    expect(sub.items.at(-1)?.agentEvents.__typename).toBe("StatusChangedEvent");
    const row = await h.app.db.prisma.agent.findUnique({ where: { id } });
    expect(row).toMatchObject({ status: "done", outcome: "EndOfTurn" });
    // Later polls keep the terminal status, whatever the stale record says.
    await new Promise((r) => setTimeout(r, 500));
    expect(h.app.fleet.state.agent(id)?.status).toBe("done");
    const changes = (await h.app.store.readStream(id, 0, 1000)).filter((e) => e.kind === "status_changed");
    expect(changes.at(-1)?.payload).toMatchObject({ to: "done" });
  }, 60_000);
});

describe("status within moments, times from the stream (item 6)", () => {
  async function quiet(): Promise<{ d: DaemonFixture; h: FleetHarness }> {
    const d = await startDaemon();
    onCleanup(() => d.close());
    // One poll when the workspace is added, then none for an hour: only ingest can prompt one.
    const h = await startFleet({ runtimeDir: d.ws.runtime, pollIntervalMs: 3_600_000 });
    onCleanup(() => h.close());
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    return { d, h };
  }

  it("a RunEnd is reconciled at once, and finishedAt is when the RunEnd was written", async () => {
    const { d, h } = await quiet();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "quick" });
    await waitFor(
      () => h.fleet.state.agent(agent.id)?.status === "done",
      10_000,
      "done without a timed poll",
    );
    const row = await h.db.prisma.agent.findUnique({ where: { id: agent.id } });
    const file = path.join(d.daemon.record(agent.id)!.session_dir, "stdout.ndjson");
    expect(fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1)).toContain('"type":"RunEnd"');
    expect(row?.finishedAt?.getTime()).toBe(Math.floor(fs.statSync(file).mtimeMs));
    expect(row?.outcome).toBe("EndOfTurn");
  });

  it("a stream that closes without RunEnd (killed by another client) is reconciled at once", async () => {
    const { d, h } = await quiet();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await waitFor(() => (d.daemon.agent(agent.id)?.linesWritten ?? 0) >= 8, 10_000, "turn 1 started");
    await waitFor(async () => (await h.fleet.ingest.progress(agent.id))?.connected, 10_000, "attached");
    await new CalibandClient({ scheme: "unix", path: d.daemon.socketPath }).kill(agent.id);
    await waitFor(
      () => h.fleet.state.agent(agent.id)?.status === "killed",
      10_000,
      "killed without a timed poll",
    );
  });
});

describe("ingest that must stop short says so (item 1)", () => {
  it("an orphan removed from its restarted daemon while still writing: an ingest_gap with the reason, counted", async () => {
    const d = await startDaemon();
    onCleanup(() => d.close());
    const h = await startFleet({ runtimeDir: d.ws.runtime });
    onCleanup(() => h.close());
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await waitFor(() => (d.daemon.agent(agent.id)?.linesWritten ?? 0) >= 8, 10_000, "turn 1 started");
    await d.daemon.restart();
    await new Promise((r) => setTimeout(r, 400));
    expect(h.fleet.state.agent(agent.id)?.status).toBe("running"); // followed: its worker runs
    // The new daemon has no pid for it: rm --force only forgets it (and deletes its session dir).
    await new CalibandClient({ scheme: "unix", path: d.daemon.socketPath }).rm(agent.id, { force: true });
    await waitFor(() => !h.fleet.state.agent(agent.id), 10_000, "gone");
    expect(d.daemon.agent(agent.id)?.state).toBe("running");
    const gaps = (await h.store.readStream(agent.id, 0, 1000)).filter((e) => e.kind === "ingest_gap");
    expect(gaps).toHaveLength(1);
    expect(gaps[0]!.payload).toMatchObject({ reason: "stopped_while_running", missedBytes: null });
    expect(h.fleet.metrics.ingest_gaps_total).toBe(1);
  });
});
