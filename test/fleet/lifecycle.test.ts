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

const spawnRequests = (d: DaemonFixture) =>
  d.daemon.requests.filter((r) => r.line.includes('"kind":"spawn"')).length;

describe("lifecycle commands", () => {
  it("spawn passes every SpawnSpec field, defaults isolation on, and is idempotent per clientRequestId", async () => {
    const { d, h } = await setup();
    const options = {
      workspace: "demo",
      prompt: "hi",
      label: "docs",
      model: "claude-sonnet-4-5",
      provider: "anthropic",
      source: "demo-repo",
      interactive: true,
      toolAllowlist: ["Read", "Grep"],
      frontmatterPath: "agents/docs.md",
      clientRequestId: "req-1",
    };
    const first = await h.fleet.lifecycle.spawn(options);
    expect(first.created).toBe(true);
    // The spec as caliband echoes it on the wire (last `listed` reply that holds the agent).
    const listed = d.daemon.requests
      .filter((r) => r.reply?.includes(first.agent.id) && r.reply.startsWith('{"kind":"listed"'))
      .at(-1);
    const wire = (JSON.parse(listed!.reply!) as { agents: { id: string; spec: unknown }[] }).agents.find(
      (a) => a.id === first.agent.id,
    );
    expect(JSON.stringify(wire?.spec)).toBe(
      JSON.stringify({
        label: "docs",
        frontmatter_path: "agents/docs.md",
        initial_prompt: "hi",
        model: "claude-sonnet-4-5",
        provider: "anthropic",
        tool_allowlist: ["Read", "Grep"],
        isolation_worktree: true,
        inherit_hooks: true,
        interactive: true,
        source: "demo-repo",
      }),
    );
    const again = await h.fleet.lifecycle.spawn(options);
    expect(again).toMatchObject({ created: false, agent: { id: first.agent.id } });
    await expect(
      h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "something else", clientRequestId: "req-1" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect(spawnRequests(d)).toBe(1);
  });

  it("spawn failures are typed and record nothing", async () => {
    const { d, h } = await setup();
    await expect(h.fleet.lifecycle.spawn({ workspace: "nope", prompt: "x" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "  " })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
    });
    await expect(
      h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "x", source: "missing" }),
    ).rejects.toMatchObject({
      code: "PROTOCOL",
      daemonMessage: "source resolve: no such source: missing",
    });
    expect(await h.db.prisma.agent.count()).toBe(0);
    expect(d.daemon.records()).toHaveLength(0);
  });

  it("respawn: refused while live without force; a terminal run gets a new id linked to the old one", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await expect(h.fleet.lifecycle.respawn(agent.id)).rejects.toMatchObject({
      code: "INVALID_STATE",
      status: "running",
    });
    const fresh = await h.fleet.lifecycle.respawn(agent.id, true);
    expect(fresh.id).not.toBe(agent.id);
    expect(d.daemon.record(agent.id)).toBeUndefined();
    expect(d.daemon.agent(agent.id)?.state).toBe("exited"); // force killed the old worker first
    expect(h.fleet.state.agent(agent.id)).toBeUndefined();
    const oldEvents = await h.store.readStream(agent.id, 0, 100);
    expect(oldEvents.map((e) => e.kind).slice(-2)).toEqual(["status_changed", "agent_gone"]);
    expect(oldEvents.at(-1)?.payload).toEqual({ reason: "respawned", replacedBy: fresh.id });
    expect(await h.db.prisma.agent.findUnique({ where: { id: fresh.id } })).toMatchObject({
      respawnedFrom: agent.id,
    });
    expect(await h.db.prisma.agent.findUnique({ where: { id: agent.id } })).toMatchObject({
      status: "killed",
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.store.readStream(agent.id, 0, 100)).filter((e) => e.kind === "agent_gone")).toHaveLength(
      1,
    );
  });

  it("drain: an interactive agent ends on EndInput without a kill; a busy one is killed after the timeout; a finished one is left alone", async () => {
    const { d, h } = await setup();
    const chat = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "wait for me",
      interactive: true,
    });
    await waitFor(() => h.fleet.state.agent(chat.agent.id)?.status === "idle", 10_000, "idle");
    expect(await h.fleet.lifecycle.drain(chat.agent.id, 5_000)).toEqual({ status: "done", killed: false });

    const busy = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    const t0 = Date.now();
    expect(await h.fleet.lifecycle.drain(busy.agent.id, 300)).toEqual({ status: "killed", killed: true });
    expect(Date.now() - t0).toBeLessThan(3_000);

    const quick = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "quick" });
    await waitFor(() => h.fleet.state.agent(quick.agent.id)?.status === "done", 10_000, "done");
    const kills = d.daemon.requests.filter((r) => r.line.includes('"kind":"kill"')).length;
    expect(await h.fleet.lifecycle.drain(quick.agent.id, 300)).toEqual({ status: "done", killed: false });
    expect(d.daemon.requests.filter((r) => r.line.includes('"kind":"kill"')).length).toBe(kills);
    expect(d.daemon.record(quick.agent.id)?.status).toBe("done");
  });

  it("input goes only to interactive, non-terminal agents; unknown ids are NotFound", async () => {
    const { h } = await setup();
    const plain = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await expect(h.fleet.lifecycle.sendInput(plain.agent.id, "hello")).rejects.toMatchObject({
      code: "INVALID_STATE",
    });
    const chat = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "wait", interactive: true });
    await waitFor(() => h.fleet.state.agent(chat.agent.id)?.status === "idle", 10_000, "idle");
    await expect(h.fleet.lifecycle.sendInput(chat.agent.id, "")).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
    });
    await h.fleet.lifecycle.endInput(chat.agent.id);
    await waitFor(() => h.fleet.state.agent(chat.agent.id)?.status === "done", 10_000, "done");
    await expect(h.fleet.lifecycle.sendInput(chat.agent.id, "late")).rejects.toMatchObject({
      code: "INVALID_STATE",
      status: "done",
    });
    await expect(h.fleet.lifecycle.sendInput("000000000000", "x")).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(h.fleet.lifecycle.kill("000000000000")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(h.fleet.lifecycle.rm("000000000000")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("rm ingests everything before caliband deletes the session dir", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "big fake:frames=3000" });
    await waitFor(() => d.daemon.agent(agent.id)?.state === "exited", 20_000, "worker exited");
    const written = d.daemon.agent(agent.id)!.linesWritten;
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 10_000, "done");
    await h.fleet.lifecycle.rm(agent.id);
    expect(await h.db.prisma.frame.count({ where: { agentId: agent.id } })).toBe(written);
  });
});
