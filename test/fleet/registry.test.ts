import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { CalibandClient } from "../../src/caliband/client.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  opts: { autostart?: boolean; allowEnv?: string[] } = {},
): Promise<{ d: DaemonFixture; h: FleetHarness }> {
  const d = await startDaemon();
  cleanups.push(() => d.close());
  const h = await startFleet({
    runtimeDir: d.ws.runtime,
    ...(opts.autostart ? { autostart: true, calibandBin: SIM } : {}),
    ...(opts.allowEnv ? { allowEnv: opts.allowEnv } : {}),
  });
  cleanups.push(() => h.close());
  return { d, h };
}

describe("workspace registry", () => {
  it("canonicalizes a symlinked root once; the socket path is the realpath's (#45)", async () => {
    const { d, h } = await setup();
    const link = path.join(d.ws.tmp, "link-to-repo");
    fs.symlinkSync(d.ws.root, link);
    const { workspace } = await h.fleet.addWorkspace({ name: "demo", root: link + "/" });
    expect(workspace.root).toBe(fs.realpathSync(d.ws.root));
    expect(controlSocketPath(workspace.root, h.env)).toBe(d.daemon.socketPath);
    await waitFor(
      () => h.fleet.state.healthOf("demo").state === "healthy",
      5_000,
      "healthy through the symlink",
    );
  });

  it("refuses aliases: a second name for one root, or one name for two roots → Conflict, nothing written (#47)", async () => {
    const { d, h } = await setup();
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const link = path.join(d.ws.tmp, "alias");
    fs.symlinkSync(d.ws.root, link);
    await expect(h.fleet.addWorkspace({ name: "other", root: link })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    // (Not d.ws.tmp itself: it holds the gateway's data dir, which no root may contain.)
    const elsewhere = path.join(d.ws.tmp, "elsewhere");
    fs.mkdirSync(elsewhere);
    await expect(h.fleet.addWorkspace({ name: "demo", root: elsewhere })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect((await h.db.prisma.workspace.findMany()).map((w) => w.name)).toEqual(["demo"]);
    // Same name, same root: idempotent, config untouched.
    expect((await h.fleet.addWorkspace({ name: "demo", root: d.ws.root })).created).toBe(false);
  });

  it("rejects a missing root and a bad name with field paths", async () => {
    const { d, h } = await setup();
    await expect(
      h.fleet.addWorkspace({ name: "demo", root: path.join(d.ws.tmp, "nope") }),
    ).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: ["root"] }],
    });
    await expect(h.fleet.addWorkspace({ name: "../evil", root: d.ws.root })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: ["name"] }],
    });
    expect(await h.db.prisma.workspace.count()).toBe(0);
  });

  it("rejects incoherent provider configs (#120) and never stores them", async () => {
    const { d, h } = await setup();
    const add = (config: Record<string, unknown>) =>
      h.fleet.addWorkspace({ name: "demo", root: d.ws.root, config });
    await expect(add({ provider: "ollama", apiKeyFromEnv: "OLLAMA_KEY" })).rejects.toMatchObject({
      code: "PROVIDER_MISCONFIGURED",
      field: "apiKeyFromEnv",
    });
    await expect(add({ provider: "bedrock" })).rejects.toMatchObject({
      code: "PROVIDER_MISCONFIGURED",
      field: "provider",
    });
    await expect(add({ apiKeyFromEnv: "X_KEY" })).rejects.toMatchObject({ code: "PROVIDER_MISCONFIGURED" });
    await expect(add({ env: { XDG_RUNTIME_DIR: "/elsewhere" } })).rejects.toMatchObject({
      code: "PROVIDER_MISCONFIGURED",
      field: "env",
    });
    await expect(add({ baseUrl: "not a url", provider: "openai" })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
    });
    expect(await h.db.prisma.workspace.count()).toBe(0);
  });

  it("the provider reaches the worker through SpawnSpec.provider (caliban #93); model defaults from the workspace", async () => {
    const { d, h } = await setup();
    await h.fleet.addWorkspace({
      name: "demo",
      root: d.ws.root,
      config: { provider: "ollama", model: "qwen3:8b" },
    });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "hi" });
    expect(d.daemon.record(agent.id)?.spec).toMatchObject({
      provider: "ollama",
      model: "qwen3:8b",
      isolation_worktree: true,
    });
  });

  it("a key variable that is unset fails the spawn before anything is sent", async () => {
    const { d, h } = await setup();
    await h.fleet.addWorkspace({
      name: "demo",
      root: d.ws.root,
      // A name apiKeyFromEnv may name (*_API_KEY; PROSPERO_* never), unset in the test's env.
      config: { provider: "anthropic", apiKeyFromEnv: "TEST_UNSET_ANTHROPIC_API_KEY" },
    });
    await expect(h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "hi" })).rejects.toMatchObject({
      code: "PROVIDER_MISCONFIGURED",
    });
    expect(d.daemon.requests.filter((r) => r.line.includes('"spawn"'))).toHaveLength(0);
  });

  it("a daemon-env change waits for live agents unless forced; force restarts caliband and names the orphans", async () => {
    // FOO is not on the built-in env allowlist: the operator allows it (--allow-env), and the
    // restarted daemon is given it.
    const { d, h } = await setup({ autostart: true, allowEnv: ["FOO"] });
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    // provider/model only: applied at once, no restart.
    const modelOnly = await h.fleet.updateWorkspaceConfig("demo", { model: "m2" });
    expect(modelOnly).toMatchObject({ applied: true, pendingOn: [], orphaned: [] });
    const pending = await h.fleet.updateWorkspaceConfig("demo", { model: "m2", env: { FOO: "1" } });
    expect(pending).toMatchObject({ applied: false, pendingOn: [agent.id] });
    expect(pending.workspace.config.env).toEqual({});
    expect(pending.workspace.pendingConfig?.env).toEqual({ FOO: "1" });
    expect(d.daemon.listening).toBe(true);

    const forced = await h.fleet.updateWorkspaceConfig("demo", { model: "m2", env: { FOO: "1" } }, true);
    expect(forced).toMatchObject({ applied: true, orphaned: [agent.id] });
    expect(forced.workspace.config.env).toEqual({ FOO: "1" });
    expect(forced.workspace.pendingConfig).toBeNull();
    // The in-process daemon was shut down; the simulator autostarted in its place answers.
    expect(d.daemon.listening).toBe(false);
    const sim = new CalibandClient({ scheme: "unix", path: d.daemon.socketPath });
    const status = await sim.status();
    expect(status.pid).not.toBe(process.pid);
    cleanups.push(async () => {
      await sim.shutdown().catch(() => {});
    });
    const stored = await h.db.prisma.workspace.findUnique({ where: { name: "demo" } });
    expect(stored).toMatchObject({ env: { FOO: "1" }, model: "m2", pendingConfig: null });
  });
});
