// Issue 12 item 3: a removed workspace stays removed across a real gateway restart (the gateway is
// stopped and a new one started on the same data dir): its row is history only — never polled,
// never autostarted, not spawnable, not counted by readiness — while its runs stay queryable; its
// name can be registered again (new root and config, created: true) and its root by another name.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { startApp, type App } from "../../src/app.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTempWorkspace } from "../support/temp-workspace.js";
import { waitFor } from "../helpers/fleet-harness.js";

type Data = Record<string, unknown>;

/** One gateway on `dataDir`; `gql` posts over its real port with its admin token. */
async function gateway(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  flags: { autostart: boolean; calibandBin: string },
): Promise<{ app: App; gql: (q: string, v?: Data) => Promise<Data> }> {
  const config = resolveConfig(
    { dataDir, port: "0", pollIntervalMs: "100", ...flags },
    { HOME: process.env.HOME },
  );
  const app = await startApp(config, silentLogger, { isDev: true, env, showTokenInLog: false });
  const realStop = app.stop.bind(app);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await realStop();
  };
  onCleanup(stop);
  const gql = async (query: string, variables?: Data): Promise<Data> => {
    const res = await fetch(`${app.gateway.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${app.adminToken}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: Data; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data!;
  };
  return { app: Object.assign(app, { stop }), gql };
}

describe("a removed workspace stays removed (issue 12 item 3)", () => {
  it("after a restart it is not polled, autostarted, spawnable or counted; its name and root can be registered again", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rmws-"));
    onCleanup(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const runtime = path.join(tmp, "run");
    const xdg = path.join(tmp, "xdg");
    fs.mkdirSync(xdg, { mode: 0o700 });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CALIBAN_DAEMON_RUNTIME_DIR: runtime,
      XDG_RUNTIME_DIR: xdg,
    };
    delete env.PROSPERO_ADMIN_TOKEN;
    const dataDir = path.join(tmp, "gw");
    // A "caliband" that only notes that it was started (and fails): autostart is observable.
    const marker = path.join(tmp, "autostarted");
    const bin = path.join(tmp, "caliband-marker");
    fs.writeFileSync(bin, `#!/bin/sh\necho "$@" >> '${marker}'\nexit 1\n`);
    fs.chmodSync(bin, 0o755);

    const daemons: Record<string, { root: string; daemon: FakeCaliband }> = {};
    for (const name of ["keep", "old", "new-root"]) {
      const ws = makeTempWorkspace(`${name}-repo`);
      const root = fs.realpathSync(ws.root);
      const daemon = await FakeCaliband.start({
        workspaceRoot: root,
        socketPath: controlSocketPath(root, env),
        dataBase: ws.data,
        env,
      });
      onCleanup(async () => {
        await daemon.close();
        ws.cleanup();
      });
      daemons[name] = { root, daemon };
    }
    // A workspace whose daemon is not running (autostart would start one if it were polled).
    const ghost = makeTempWorkspace("ghost-repo");
    onCleanup(() => ghost.cleanup());
    const ghostRoot = fs.realpathSync(ghost.root);

    // First gateway: register, run one agent in "old", then remove "old" and "ghost".
    const g1 = await gateway(dataDir, env, { autostart: false, calibandBin: bin });
    await g1.app.fleet.addWorkspace({ name: "keep", root: daemons.keep!.root });
    await g1.app.fleet.addWorkspace({ name: "old", root: daemons.old!.root, config: { model: "m-old" } });
    await g1.app.fleet.addWorkspace({ name: "ghost", root: ghostRoot });
    const spawned = await g1.gql(
      `mutation { spawnAgent(input: { workspace: "old", prompt: "quick" }) { __typename ... on SpawnAgentPayload { agent { agentId } } } }`,
    );
    const runId = (spawned.spawnAgent as { agent: { agentId: string } }).agent.agentId;
    await waitFor(() => g1.app.fleet.state.agent(runId)?.status === "done", 10_000, "run done");
    const removed = await g1.gql(
      `mutation {
        a: removeWorkspace(input: { workspace: "old" }) { __typename ... on RemoveWorkspacePayload { workspace { name registered } } }
        b: removeWorkspace(input: { workspace: "ghost" }) { __typename ... on RemoveWorkspacePayload { workspace { name registered } } }
      }`,
    );
    expect(removed).toEqual({
      a: { __typename: "RemoveWorkspacePayload", workspace: { name: "old", registered: false } },
      b: { __typename: "RemoveWorkspacePayload", workspace: { name: "ghost", registered: false } },
    });
    await g1.app.stop();

    // Second gateway on the same data dir, now allowed to autostart.
    const oldRequestsBefore = daemons.old!.daemon.requests.length;
    const g2 = await gateway(dataDir, env, { autostart: true, calibandBin: bin });
    await waitFor(() => g2.app.fleet.state.healthOf("keep").state === "healthy", 5_000, "keep polled");
    await g2.app.fleet.poller.pollAll();
    await new Promise((r) => setTimeout(r, 400)); // several more poll rounds

    expect(fs.existsSync(marker)).toBe(false);
    expect(daemons.old!.daemon.requests.length).toBe(oldRequestsBefore);
    const seen = await g2.gql(
      `query($run: String!) {
      readiness { workspacesTotal workspacesHealthy workspacesUnreachable }
      workspaces { name }
      old: workspace(name: "old") { name }
      ghost: workspace(name: "ghost") { name }
      agent(agentId: $run) { status workspace { name registered } }
    }`,
      { run: runId },
    );
    expect(seen).toEqual({
      readiness: { workspacesTotal: 1, workspacesHealthy: 1, workspacesUnreachable: 0 },
      workspaces: [{ name: "keep" }],
      old: null,
      ghost: null,
      agent: { status: "DONE", workspace: { name: "old", registered: false } },
    });
    const spawnOnRemoved = await g2.gql(
      `mutation { spawnAgent(input: { workspace: "old", prompt: "quick" }) { __typename ... on NotFoundError { entity key } } }`,
    );
    expect(spawnOnRemoved.spawnAgent).toEqual({
      __typename: "NotFoundError",
      entity: "WORKSPACE",
      key: "old",
    });
    expect(daemons.old!.daemon.requests.length).toBe(oldRequestsBefore);

    // The name registers again with a new root and config; the old root is free for another name.
    const readded = await g2.gql(
      `mutation($newRoot: String!, $oldRoot: String!) {
        again: addWorkspace(input: { name: "old", root: $newRoot, config: { model: "m-new" } }) {
          __typename ... on AddWorkspacePayload { created workspace { root registered config { model } } }
          ... on Error { message }
        }
        other: addWorkspace(input: { name: "other", root: $oldRoot }) {
          __typename ... on AddWorkspacePayload { created workspace { root registered } }
          ... on Error { message }
        }
      }`,
      { newRoot: daemons["new-root"]!.root, oldRoot: daemons.old!.root },
    );
    expect(readded).toEqual({
      again: {
        __typename: "AddWorkspacePayload",
        created: true,
        workspace: { root: daemons["new-root"]!.root, registered: true, config: { model: "m-new" } },
      },
      other: {
        __typename: "AddWorkspacePayload",
        created: true,
        workspace: { root: daemons.old!.root, registered: true },
      },
    });
    // The earlier run stays in the history of "old" (not moved to "other", whose daemon lists it).
    const after = await g2.gql(
      `query($run: String!) {
      readiness { workspacesTotal }
      agent(agentId: $run) { status workspace { name root } }
    }`,
      { run: runId },
    );
    expect(after).toEqual({
      readiness: { workspacesTotal: 3 },
      agent: { status: "DONE", workspace: { name: "old", root: daemons["new-root"]!.root } },
    });
    // Only the re-registered "old" is polled at its new root.
    await waitFor(() => g2.app.fleet.state.healthOf("old").state === "healthy", 5_000, "old polled again");
    expect(fs.existsSync(marker)).toBe(false);
  });
});
