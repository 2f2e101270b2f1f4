import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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

async function setup(): Promise<{ d: DaemonFixture; h: FleetHarness }> {
  const d = await startDaemon();
  cleanups.push(() => d.close());
  const h = await startFleet({ runtimeDir: d.ws.runtime });
  cleanups.push(() => h.close());
  await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  return { d, h };
}

async function kinds(h: FleetHarness, agentId: string): Promise<string[]> {
  return (await h.store.readStream(agentId, 0, 10_000)).map((e) => e.kind);
}

describe("fleet: spawn → ingest → finish", () => {
  it("stores every frame once, normalizes the run, and records running → done", async () => {
    const { d, h } = await setup();
    const { agent, created } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Read README.md and summarize it.",
    });
    expect(created).toBe(true);
    expect(agent).toMatchObject({ workspace: "demo", status: "running", isolated: true });

    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 15_000, "agent done");
    const events = await h.store.readStream(agent.id, 0, 1000);
    // Deltas of one block may land in one or several output events (coalescing is per read).
    const kinds = events
      .map((e) => e.kind)
      .filter((k, i, all) => !(k === "output" && all[i - 1] === "output"));
    const texts = events.flatMap((e) => (e.kind === "output" ? [e.payload.text] : []));
    expect(texts.join("")).toBe("I'll look at the README first.The README says hello. Done.");
    expect(kinds).toEqual([
      "agent_spawned",
      "turn_started",
      "output",
      "tool_started",
      "tool_finished",
      "turn_completed",
      "turn_started",
      "output",
      "turn_completed",
      "agent_finished",
      "status_changed",
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const finished = events.find((e) => e.kind === "agent_finished");
    expect(finished?.payload).toMatchObject({
      outcome: "EndOfTurn",
      turns: 2,
      usage: { input: 2510, output: 60 },
    });
    expect(events.at(-1)?.payload).toEqual({ from: "running", to: "done" });

    // Raw frames stored line-for-line equal to stdout.ndjson.
    const sessionDir = d.daemon.record(agent.id)!.session_dir;
    const file = fs.readFileSync(path.join(sessionDir, "stdout.ndjson"), "utf8");
    const frames = await h.db.prisma.frame.findMany({
      where: { agentId: agent.id },
      orderBy: { line: "asc" },
    });
    expect(frames.map((f) => f.text).join("\n") + "\n").toBe(file);

    const row = await h.db.prisma.agent.findUnique({ where: { id: agent.id } });
    expect(row).toMatchObject({
      status: "done",
      outcome: "EndOfTurn",
      inputTokens: 2510,
      outputTokens: 60,
      turns: 2,
    });
    expect(row?.finishedAt).not.toBeNull();
  });

  it("kill right after spawn works (#122) and refuses a terminal agent", async () => {
    const { h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    const killed = await h.fleet.lifecycle.kill(agent.id);
    expect(killed.status).toBe("killed");
    await expect(h.fleet.lifecycle.kill(agent.id)).rejects.toMatchObject({ code: "INVALID_STATE" });
    // The poll agrees and records nothing more.
    await new Promise((r) => setTimeout(r, 400));
    const ks = await kinds(h, agent.id);
    expect(ks.filter((k) => k === "status_changed")).toHaveLength(1);
  });

  it("rm right after spawn: served view drops it at once, exactly one agent_gone (#122, #123)", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await expect(h.fleet.lifecycle.rm(agent.id)).rejects.toMatchObject({ code: "INVALID_STATE" });
    await h.fleet.lifecycle.rm(agent.id, true);
    expect(h.fleet.state.agent(agent.id)).toBeUndefined();
    expect(d.daemon.record(agent.id)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500));
    expect((await kinds(h, agent.id)).filter((k) => k === "agent_gone")).toHaveLength(1);
    expect(h.fleet.state.agent(agent.id)).toBeUndefined();
    const row = await h.db.prisma.agent.findUnique({ where: { id: agent.id } });
    expect(row?.goneAt).not.toBeNull();
  });
});
