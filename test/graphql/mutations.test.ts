import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const RESULT = `__typename ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }
  ... on InvalidStateError { status }
  ... on ProviderMisconfiguredError { field }
  ... on NotFoundError { entity id }`;

type R = Record<string, { __typename: string; code?: string; message?: string; [k: string]: unknown }>;

/** Snapshot of everything a mutation could change. */
async function snapshot(h: AppHarness) {
  const p = h.app.db.prisma;
  return {
    workspaces: await p.workspace.findMany({ orderBy: { name: "asc" } }),
    agents: await p.agent.findMany({ orderBy: { id: "asc" } }),
    events: await p.event.count(),
    daemonRecords: h.d.daemon.records().map((r) => `${r.id}:${r.status}`),
  };
}

describe("mutations: typed errors, nothing changed", () => {
  it("addWorkspace / updateWorkspaceConfig / removeWorkspace / restartWorkspaceDaemon error cases", async () => {
    h = await startAppHarness();
    const before = await snapshot(h);
    const res = await h.gql<R>(
      `mutation($root: String!, $alias: String!) {
      badName: addWorkspace(name: "../x", root: $root) { ${RESULT} }
      missingRoot: addWorkspace(name: "x", root: "/definitely/not/here") { ${RESULT} }
      alias: addWorkspace(name: "other", root: $alias) { ${RESULT} }
      keyOnOllama: addWorkspace(name: "y", root: $root, config: { provider: OLLAMA, apiKeyFromEnv: "OLLAMA_KEY" }) { ${RESULT} }
      badUrl: addWorkspace(name: "z", root: $root, config: { provider: OPENAI, baseUrl: "not a url" }) { ${RESULT} }
      configUnknown: updateWorkspaceConfig(name: "nope", config: {}) { ${RESULT} }
      removeUnknown: removeWorkspace(name: "nope") { ${RESULT} }
      restartUnknown: restartWorkspaceDaemon(name: "nope") { ${RESULT} }
      relativeRoot: addWorkspace(name: "rel", root: "src/demo-repo") { ${RESULT} }
    }`,
      { root: h.d.ws.root, alias: h.d.ws.root + "/" },
    );
    expect(res.errors).toBeUndefined();
    const d = res.data!;
    expect(d.badName).toMatchObject({ __typename: "ValidationError", fieldErrors: [{ path: ["name"] }] });
    expect(d.missingRoot).toMatchObject({ __typename: "ValidationError", fieldErrors: [{ path: ["root"] }] });
    expect(d.alias).toMatchObject({ __typename: "ConflictError", code: "CONFLICT" });
    expect(d.keyOnOllama).toMatchObject({ __typename: "ProviderMisconfiguredError", field: "apiKeyFromEnv" });
    expect(d.badUrl).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["config", "baseUrl"] }],
    });
    expect(d.configUnknown).toMatchObject({ __typename: "NotFoundError", entity: "workspace", id: "nope" });
    expect(d.removeUnknown).toMatchObject({ __typename: "NotFoundError" });
    expect(d.restartUnknown).toMatchObject({ __typename: "NotFoundError" });
    expect(d.relativeRoot).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["root"], message: "must be an absolute path" }],
    });
    expect(await snapshot(h)).toEqual(before);
  });

  it("agent mutations: unknown, invalid state, not interactive, bad input, daemon refusal", async () => {
    h = await startAppHarness();
    const spawn = await h.gql<R>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "long fake:hold=60000" }) { __typename ... on SpawnAgentPayload { agent { agentId } } } }`,
    );
    const id = (spawn.data!.spawnAgent as unknown as { agent: { agentId: string } }).agent.agentId;
    await waitFor(
      async () => (await h!.app.db.prisma.frame.count({ where: { agentId: id } })) > 0,
      10_000,
      "ingesting",
    );
    const before = await snapshot(h);
    const res = await h.gql<R>(
      `mutation($id: String!) {
      killUnknown: killAgent(agentId: "000000000000") { ${RESULT} }
      killBadId: killAgent(agentId: "not-an-id") { ${RESULT} }
      respawnLive: respawnAgent(agentId: $id) { ${RESULT} }
      removeLive: removeAgent(agentId: $id) { ${RESULT} }
      sendPlain: sendAgentInput(agentId: $id, text: "hi") { ${RESULT} }
      sendEmpty: sendAgentInput(agentId: $id, text: "") { ${RESULT} }
      endPlain: endAgentInput(agentId: $id) { ${RESULT} }
      drainUnknown: drainAgent(agentId: "000000000000", timeoutMs: 10) { ${RESULT} }
      drainBadTimeout: drainAgent(agentId: $id, timeoutMs: -5) { ${RESULT} }
      spawnNoWs: spawnAgent(input: { workspace: "nope", prompt: "x" }) { ${RESULT} }
      spawnEmpty: spawnAgent(input: { workspace: "demo", prompt: "   " }) { ${RESULT} }
      spawnBadSource: spawnAgent(input: { workspace: "demo", prompt: "x", source: "missing" }) { ${RESULT} }
      spawnTraversal: spawnAgent(input: { workspace: "demo", prompt: "x", source: "../etc" }) { ${RESULT} }
    }`,
      { id },
    );
    expect(res.errors).toBeUndefined();
    const d = res.data!;
    expect(d.killUnknown).toMatchObject({ __typename: "NotFoundError", entity: "agent" });
    expect(d.killBadId).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["agentId"] }],
    });
    expect(d.respawnLive).toMatchObject({ __typename: "InvalidStateError", status: "running" });
    expect(d.removeLive).toMatchObject({ __typename: "InvalidStateError", status: "running" });
    expect(d.sendPlain).toMatchObject({
      __typename: "InvalidStateError",
      message: expect.stringMatching(/not interactive/) as unknown as string,
    });
    expect(d.sendEmpty).toMatchObject({ __typename: "ValidationError", fieldErrors: [{ path: ["text"] }] });
    expect(d.endPlain).toMatchObject({ __typename: "InvalidStateError" });
    expect(d.drainUnknown).toMatchObject({ __typename: "NotFoundError" });
    expect(d.drainBadTimeout).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["timeoutMs"] }],
    });
    expect(d.spawnNoWs).toMatchObject({ __typename: "NotFoundError", entity: "workspace" });
    expect(d.spawnEmpty).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "prompt"] }],
    });
    expect(d.spawnBadSource).toMatchObject({
      __typename: "DaemonRefusedError",
      message: "source resolve: no such source: missing",
    });
    expect(d.spawnTraversal).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "source"] }],
    });
    const after = await snapshot(h);
    expect(after.workspaces).toEqual(before.workspaces);
    expect(after.daemonRecords).toEqual(before.daemonRecords);
    expect(after.agents.map((a) => [a.id, a.status, a.goneAt])).toEqual(
      before.agents.map((a) => [a.id, a.status, a.goneAt]),
    );
  });

  it("an unreachable daemon is an UnreachableError", async () => {
    h = await startAppHarness();
    await h.d.daemon.shutdown();
    const res = await h.gql<R>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "x" }) { ${RESULT} ... on UnreachableError { reason } } }`,
    );
    expect(res.data?.spawnAgent).toMatchObject({ __typename: "UnreachableError", code: "UNREACHABLE" });
  });

  it("the happy paths: spawn → kill → respawn(force) → remove; config change pending while live", async () => {
    h = await startAppHarness();
    const sp = await h.gql<{ spawnAgent: { agent: { agentId: string; status: string } } }>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "long fake:hold=60000", interactive: false, toolAllowlist: ["Read"] }) { ... on SpawnAgentPayload { agent { agentId status } } } }`,
    );
    const id = sp.data!.spawnAgent.agent.agentId;
    expect(sp.data!.spawnAgent.agent.status).toBe("RUNNING");
    const kill = await h.gql<{ killAgent: { agent: { status: string } } }>(
      `mutation { killAgent(agentId: "${id}") { ... on AgentPayload { agent { status } } } }`,
    );
    expect(kill.data?.killAgent.agent.status).toBe("KILLED");
    const re = await h.gql<{
      respawnAgent: { agent: { agentId: string; respawnedFrom: { agentId: string } } };
    }>(
      `mutation { respawnAgent(agentId: "${id}") { ... on AgentPayload { agent { agentId respawnedFrom { agentId } } } } }`,
    );
    expect(re.errors).toBeUndefined();
    const fresh = re.data!.respawnAgent.agent;
    expect(fresh.respawnedFrom.agentId).toBe(id);
    const rm = await h.gql<{ removeAgent: { agent: { goneAt: string | null } } }>(
      `mutation { removeAgent(agentId: "${fresh.agentId}", force: true) { ... on RemoveAgentPayload { agent { goneAt } } } }`,
    );
    expect(rm.data?.removeAgent.agent.goneAt).not.toBeNull();
    const old = await h.gql<{ agent: { goneAt: string | null; status: string } }>(
      `{ agent(agentId: "${id}") { goneAt status } }`,
    );
    expect(old.data?.agent).toMatchObject({ status: "KILLED" });
    expect(old.data?.agent.goneAt).not.toBeNull();
    expect(fs.existsSync(path.join(h.d.ws.data, fresh.agentId))).toBe(false);

    // A daemon-env change waits while an agent is live.
    const live = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "long fake:hold=60000" }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    );
    const cfg = await h.gql<{
      updateWorkspaceConfig: {
        applied: boolean;
        pendingOn: string[];
        workspace: { pendingConfig: { env: { name: string }[] } };
      };
    }>(
      `mutation { updateWorkspaceConfig(name: "demo", config: { env: [{ name: "ANTHROPIC_LOG", value: "1" }] }) { ... on UpdateWorkspaceConfigPayload { applied pendingOn workspace { pendingConfig { env { name } } } } } }`,
    );
    expect(cfg.data?.updateWorkspaceConfig).toEqual({
      applied: false,
      pendingOn: [live.data!.spawnAgent.agent.agentId],
      workspace: { pendingConfig: { env: [{ name: "ANTHROPIC_LOG" }] } },
    });
  });
});

describe("configuration changes that cannot be applied", () => {
  it("a daemon restart that fails leaves the stored config unchanged", async () => {
    h = await startAppHarness();
    await h.d.daemon.shutdown(); // nothing answers and autostart is off
    const before = await h.app.db.prisma.workspace.findUnique({ where: { name: "demo" } });
    const res = await h.gql<R>(
      `mutation { updateWorkspaceConfig(name: "demo", config: { env: [{ name: "ANTHROPIC_LOG", value: "1" }] }) { ${RESULT} } }`,
    );
    expect(res.data?.updateWorkspaceConfig).toMatchObject({ __typename: "UnreachableError" });
    expect(await h.app.db.prisma.workspace.findUnique({ where: { name: "demo" } })).toEqual(before);
  });
});
