// Issue 12 items 4, 5, 6 (input ordering) and 12 (fleet half), against the caliband test double on
// real sockets and a real SQLite file:
// - a finished run is never turned into a killed one (the refusal rests on the daemon's record);
// - removal ends the run (forced rm, and an agent removed directly on the daemon);
// - operator input is stored before the output that answers it, and a failed delivery says so;
// - an agent id recorded for one workspace is never moved to another one that also lists it.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { CalibandClient } from "../../src/caliband/client.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import type { FleetEvent } from "../../src/events/index.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTempWorkspace } from "../support/temp-workspace.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";

async function setup(pollIntervalMs = 100): Promise<{ d: DaemonFixture; h: FleetHarness }> {
  const d = await startDaemon();
  onCleanup(() => d.close());
  const h = await startFleet({ runtimeDir: d.ws.runtime, pollIntervalMs });
  onCleanup(() => h.close());
  await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  return { d, h };
}

/** A second double found through `runtimeDir` (the gateway's), optionally over another's session store. */
async function daemonIn(
  runtimeDir: string,
  name: string,
  dataBase?: string,
): Promise<{ root: string; daemon: FakeCaliband }> {
  const ws = makeTempWorkspace(name);
  const root = fs.realpathSync(ws.root);
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: runtimeDir };
  const daemon = await FakeCaliband.start({
    workspaceRoot: root,
    socketPath: controlSocketPath(root, env),
    dataBase: dataBase ?? ws.data,
    env,
  });
  onCleanup(async () => {
    await daemon.close();
    ws.cleanup();
  });
  return { root, daemon };
}

const direct = (d: DaemonFixture) => new CalibandClient({ scheme: "unix", path: d.daemon.socketPath });
const kinds = (events: FleetEvent[]) => events.map((e) => e.kind);
const requestsOf = (d: DaemonFixture, kind: string) =>
  d.daemon.requests.filter((r) => r.line.includes(`"kind":"${kind}"`)).length;

describe("a finished run is never turned into a killed one (item 4)", () => {
  it("the double overwrites done with killed, as caliband does (protocol §1.7 kill)", async () => {
    const d = await startDaemon();
    onCleanup(() => d.close());
    const c = direct(d);
    const { id } = await c.spawn({ initial_prompt: "quick" });
    await waitFor(() => d.daemon.record(id)?.status === "done", 10_000, "done on the daemon");
    await c.kill(id);
    expect(d.daemon.record(id)?.status).toBe("killed");
  });

  it("kill right after the daemon says done is refused on the daemon's record; the real outcome is recorded", async () => {
    // No poll after the first one: our view stays "running" while the daemon already says done.
    const { d, h } = await setup(3_600_000);
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "quick" });
    await waitFor(() => d.daemon.record(agent.id)?.status === "done", 10_000, "done on the daemon");
    expect(h.fleet.state.agent(agent.id)?.status).toBe("running");
    const killsBefore = requestsOf(d, "kill");
    const killAt = Date.now();

    await expect(h.fleet.lifecycle.kill(agent.id)).rejects.toMatchObject({
      code: "INVALID_STATE",
      status: "done",
    });

    expect(requestsOf(d, "kill")).toBe(killsBefore);
    expect(d.daemon.record(agent.id)?.status).toBe("done");
    expect(h.fleet.state.agent(agent.id)?.status).toBe("done");
    const row = await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(row).toMatchObject({ status: "done", outcome: "EndOfTurn" });
    // finishedAt is when the run ended (its RunEnd), not when we asked.
    expect(row.finishedAt!.getTime()).toBeLessThan(killAt);
    // Ingest was finished before the terminal status, as the poller does it.
    expect(await h.db.prisma.frame.count({ where: { agentId: agent.id } })).toBe(
      d.daemon.agent(agent.id)!.linesWritten,
    );
    const events = await h.store.readStream(agent.id, 0, 1000);
    const statuses = events.filter((e) => e.kind === "status_changed").map((e) => e.payload);
    expect(statuses).toEqual([{ from: "running", to: "done" }]);
    expect(kinds(events).indexOf("agent_finished")).toBeLessThan(kinds(events).indexOf("status_changed"));
    // A later poll agrees and records nothing more.
    await h.fleet.poller.pollAll();
    expect((await h.store.readStream(agent.id, 0, 1000)).length).toBe(events.length);
  });

  it("a live agent is killed and what the daemon then says is recorded", async () => {
    const { d, h } = await setup(3_600_000);
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    const killed = await h.fleet.lifecycle.kill(agent.id);
    expect(killed.status).toBe("killed");
    expect(d.daemon.record(agent.id)?.status).toBe("killed");
    const statuses = (await h.store.readStream(agent.id, 0, 1000))
      .filter((e) => e.kind === "status_changed")
      .map((e) => e.payload);
    expect(statuses).toEqual([{ from: "running", to: "killed" }]);
    // A killed worker's output is read to its end: no gap is claimed for it.
    const kinds = (await h.store.readStream(agent.id, 0, 1000)).map((e) => e.kind);
    expect(kinds).not.toContain("ingest_gap");
    expect(h.fleet.metrics.ingest_gaps_total).toBe(0);
    // A poll whose list was answered before the kill (it still says running) reconciles later:
    // the recorded end stays, nothing is appended.
    const count = (await h.store.readStream(agent.id, 0, 1000)).length;
    await h.fleet.recorder.statusChanged("demo", agent.id, "killed", "running");
    await h.fleet.recorder.statusChanged("demo", agent.id, "killed", "killed");
    expect(h.fleet.state.agent(agent.id)?.status).toBe("killed");
    expect((await h.store.readStream(agent.id, 0, 1000)).length).toBe(count);
    expect((await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).status).toBe("killed");
  });
});

describe("removal ends the run (item 5)", () => {
  it("rm --force of a running agent records killed with finishedAt, then agent_gone", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await h.fleet.lifecycle.rm(agent.id, true);
    expect(d.daemon.record(agent.id)).toBeUndefined();
    const row = await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(row.status).toBe("killed");
    expect(row.finishedAt).not.toBeNull();
    expect(row.goneAt).not.toBeNull();
    const events = await h.store.readStream(agent.id, 0, 1000);
    expect(kinds(events).slice(-2)).toEqual(["status_changed", "agent_gone"]);
    expect(events.at(-2)?.payload).toEqual({ from: "running", to: "killed" });
    expect(events.at(-1)?.payload).toEqual({ reason: "removed", replacedBy: null });
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.store.readStream(agent.id, 0, 1000)).length).toBe(events.length);
  });

  it("an agent removed directly on the daemon while running ends crashed, then agent_gone (vanished)", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await direct(d).rm(agent.id, { force: true });
    const row = await waitFor(
      async () => {
        const r = await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
        return r.goneAt ? r : null;
      },
      10_000,
      "gone recorded",
    );
    expect(row.status).toBe("crashed");
    expect(row.finishedAt).not.toBeNull();
    const events = await h.store.readStream(agent.id, 0, 1000);
    expect(kinds(events).slice(-2)).toEqual(["status_changed", "agent_gone"]);
    expect(events.at(-2)?.payload).toEqual({ from: "running", to: "crashed" });
    expect(events.at(-1)?.payload).toEqual({ reason: "vanished", replacedBy: null });
  });

  it("a finished run removed keeps its outcome (no second status)", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "quick" });
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 10_000, "done");
    await direct(d).rm(agent.id);
    await waitFor(
      async () => (await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).goneAt,
      10_000,
      "gone recorded",
    );
    const events = await h.store.readStream(agent.id, 0, 1000);
    expect(events.filter((e) => e.kind === "status_changed").map((e) => e.payload)).toEqual([
      { from: "running", to: "done" },
    ]);
    expect(await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).toMatchObject({
      status: "done",
    });
  });
});

describe("operator input is stored in the order it happened (item 6)", () => {
  it("input_sent comes before the output that answers it", async () => {
    const { h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "chat", interactive: true });
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "idle", 10_000, "idle");
    await h.fleet.lifecycle.sendInput(agent.id, "ping");
    const events = await waitFor(
      async () => {
        const all = await h.store.readStream(agent.id, 0, 1000);
        return all.some((e) => e.kind === "output" && e.payload.text.includes("You said: ping")) ? all : null;
      },
      10_000,
      "the answer",
    );
    const sent = events.find((e) => e.kind === "input_sent")!;
    const answer = events.find((e) => e.kind === "output" && e.payload.text.includes("You said: ping"))!;
    const turn2 = events.find((e) => e.kind === "turn_started" && e.payload.turnIndex === 2)!;
    expect(sent.payload).toEqual({ text: "ping" });
    expect(sent.seq).toBeLessThan(turn2.seq);
    expect(sent.seq).toBeLessThan(answer.seq);

    await h.fleet.lifecycle.endInput(agent.id);
    const all = await waitFor(
      async () => {
        const e = await h.store.readStream(agent.id, 0, 1000);
        return e.some((x) => x.kind === "agent_finished") ? e : null;
      },
      10_000,
      "run end",
    );
    expect(kinds(all).indexOf("input_ended")).toBeLessThan(kinds(all).indexOf("agent_finished"));
    expect(kinds(all)).not.toContain("input_failed");
  });

  it("input that could not be delivered is recorded as not delivered", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "chat", interactive: true });
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "idle", 10_000, "idle");
    // The worker's socket file disappears (the worker still runs): nothing can reach it.
    const endpoint = d.daemon.record(agent.id)!.endpoint as { scheme: string; path: string };
    expect(endpoint.scheme).toBe("unix");
    fs.rmSync(endpoint.path);
    await expect(h.fleet.lifecycle.sendInput(agent.id, "lost words")).rejects.toMatchObject({
      code: "UNREACHABLE",
    });
    expect(d.daemon.agent(agent.id)!.pendingInbound()).toEqual([]);
    const events = await h.store.readStream(agent.id, 0, 1000);
    const sent = events.filter((e) => e.kind === "input_sent");
    const failed = events.filter((e) => e.kind === "input_failed");
    expect(sent.map((e) => e.payload)).toEqual([{ text: "lost words" }]);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.payload).toMatchObject({ text: "lost words" });
    expect(failed[0]!.seq).toBeGreaterThan(sent[0]!.seq);
    expect(String((failed[0]!.payload as { reason: string }).reason)).not.toBe("");
  });
});

describe("an agent id recorded for one workspace is never moved to another (item 12)", () => {
  it("a second daemon listing the same id (shared session store) leaves the first workspace's run alone", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "quick" });
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 10_000, "done");
    // A daemon booted over demo's session store lists demo's agent as its own.
    const other = await daemonIn(d.ws.runtime, "other-repo", d.ws.data);
    expect(other.daemon.records().map((r) => r.id)).toContain(agent.id);
    const before = await h.store.readStream(agent.id, 0, 1000);

    await h.fleet.addWorkspace({ name: "other", root: other.root });
    await h.fleet.poller.pollAll();
    await h.fleet.poller.pollAll();

    expect((await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).workspace).toBe("demo");
    expect(h.fleet.state.workspaceOf(agent.id)).toBe("demo");
    expect(h.fleet.state.agentsOf("other")).toEqual([]);
    expect(h.fleet.state.agentsOf("demo").map((a) => a.id)).toContain(agent.id);
    expect(await h.store.readStream(agent.id, 0, 1000)).toHaveLength(before.length);
    // Counted once per (workspace, id), not once per poll.
    expect(h.fleet.metrics.agent_workspace_conflicts_total).toBe(1);
    // demo's own view of it still works: removing it there is recorded on demo's run.
    await h.fleet.lifecycle.rm(agent.id);
    expect((await h.db.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } })).workspace).toBe("demo");
  });
});
