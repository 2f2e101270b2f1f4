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

/** The fields a test reads from each error type (spread only where the result union has it). */
const ERROR_FIELDS = {
  ValidationError: `... on ValidationError { fieldErrors { path message } }`,
  InvalidStateError: `... on InvalidStateError { status }`,
  ProviderMisconfiguredError: `... on ProviderMisconfiguredError { field }`,
  NotFoundError: `... on NotFoundError { entity key }`,
};

/**
 * Selection of a mutation result: its type, every Error's code and message, and the fields of
 * `errors` — each mutation's union holds exactly the errors it can produce, so spreading a type
 * outside it is a validation error.
 */
function result(...errors: (keyof typeof ERROR_FIELDS)[]): string {
  return `__typename ... on Error { code message } ${errors.map((e) => ERROR_FIELDS[e]).join(" ")}`;
}
/** kill, remove, send, end, drain and restartWorkspaceDaemon (respawn also has ProviderMisconfiguredError). */
const AGENT_RESULT = result("ValidationError", "InvalidStateError", "NotFoundError");
/** spawnAgent (and respawnAgent): every error type the tests read. */
const SPAWN_RESULT = result(
  "ValidationError",
  "InvalidStateError",
  "ProviderMisconfiguredError",
  "NotFoundError",
);

type R = Record<string, { __typename: string; code?: string; message?: string; [k: string]: unknown }>;

/** Snapshot of everything a mutation could change. */
async function snapshot(h: AppHarness) {
  const p = h.app.db.prisma;
  return {
    workspaces: await p.workspace.findMany({ orderBy: { name: "asc" } }),
    agents: await p.agent.findMany({ orderBy: { id: "asc" } }),
    // What a mutation could write; the poller's own workspace_health events come and go with load.
    events: await p.event.count({ where: { kind: { not: "workspace_health" } } }),
    daemonRecords: h.d.daemon.records().map((r) => `${r.id}:${r.status}`),
  };
}

describe("mutations: typed errors, nothing changed", () => {
  it("addWorkspace / updateWorkspaceConfig / removeWorkspace / restartWorkspaceDaemon error cases", async () => {
    h = await startAppHarness();
    const before = await snapshot(h);
    const res = await h.gql<R>(
      `mutation($root: String!, $alias: String!) {
      badName: addWorkspace(input: { name: "../x", root: $root }) { ${result("ValidationError", "ProviderMisconfiguredError")} }
      missingRoot: addWorkspace(input: { name: "x", root: "/definitely/not/here" }) { ${result("ValidationError", "ProviderMisconfiguredError")} }
      alias: addWorkspace(input: { name: "other", root: $alias }) { ${result("ValidationError", "ProviderMisconfiguredError")} }
      keyOnOllama: addWorkspace(input: { name: "y", root: $root, config: { provider: OLLAMA, apiKeyFromEnv: "OLLAMA_KEY" } }) { ${result("ValidationError", "ProviderMisconfiguredError")} }
      badUrl: addWorkspace(input: { name: "z", root: $root, config: { provider: OPENAI, baseUrl: "not a url" } }) { ${result("ValidationError", "ProviderMisconfiguredError")} }
      configUnknown: updateWorkspaceConfig(input: { workspace: "nope", config: {} }) { ${result("ValidationError", "ProviderMisconfiguredError", "NotFoundError")} }
      removeUnknown: removeWorkspace(input: { workspace: "nope" }) { ${result("ValidationError", "NotFoundError")} }
      restartUnknown: restartWorkspaceDaemon(input: { workspace: "nope" }) { ${AGENT_RESULT} }
      relativeRoot: addWorkspace(input: { name: "rel", root: "src/demo-repo" }) { ${result("ValidationError", "ProviderMisconfiguredError")} }
    }`,
      { root: h.d.ws.root, alias: h.d.ws.root + "/" },
    );
    expect(res.errors).toBeUndefined();
    const d = res.data!;
    expect(d.badName).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "name"] }],
    });
    // One field, one path: a root refused after a look at the disk names the same path as one refused by its shape.
    expect(d.missingRoot).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "root"] }],
    });
    expect(d.alias).toMatchObject({ __typename: "ConflictError", code: "CONFLICT" });
    expect(d.keyOnOllama).toMatchObject({ __typename: "ProviderMisconfiguredError", field: "apiKeyFromEnv" });
    expect(d.badUrl).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "config", "baseUrl"] }],
    });
    expect(d.configUnknown).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE", key: "nope" });
    expect(d.removeUnknown).toMatchObject({ __typename: "NotFoundError" });
    expect(d.restartUnknown).toMatchObject({ __typename: "NotFoundError" });
    expect(d.relativeRoot).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "root"], message: "must be an absolute path" }],
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
      killUnknown: killAgent(input: { agentId: "000000000000" }) { ${AGENT_RESULT} }
      killBadId: killAgent(input: { agentId: "not-an-id" }) { ${AGENT_RESULT} }
      respawnLive: respawnAgent(input: { agentId: $id }) { ${SPAWN_RESULT} }
      removeLive: removeAgent(input: { agentId: $id }) { ${AGENT_RESULT} }
      sendPlain: sendAgentInput(input: { agentId: $id, text: "hi" }) { ${AGENT_RESULT} }
      sendEmpty: sendAgentInput(input: { agentId: $id, text: "" }) { ${AGENT_RESULT} }
      endPlain: endAgentInput(input: { agentId: $id }) { ${AGENT_RESULT} }
      drainUnknown: drainAgent(input: { agentId: "000000000000", timeoutMs: 10 }) { ${AGENT_RESULT} }
      drainBadTimeout: drainAgent(input: { agentId: $id, timeoutMs: -5 }) { ${AGENT_RESULT} }
      spawnNoWs: spawnAgent(input: { workspace: "nope", prompt: "x" }) { ${SPAWN_RESULT} }
      spawnEmpty: spawnAgent(input: { workspace: "demo", prompt: "   " }) { ${SPAWN_RESULT} }
      spawnBadSource: spawnAgent(input: { workspace: "demo", prompt: "x", source: "missing" }) { ${SPAWN_RESULT} }
      spawnTraversal: spawnAgent(input: { workspace: "demo", prompt: "x", source: "../etc" }) { ${SPAWN_RESULT} }
    }`,
      { id },
    );
    expect(res.errors).toBeUndefined();
    const d = res.data!;
    expect(d.killUnknown).toMatchObject({
      __typename: "NotFoundError",
      entity: "AGENT",
      key: "000000000000",
    });
    expect(d.killBadId).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "agentId"] }],
    });
    expect(d.respawnLive).toMatchObject({ __typename: "InvalidStateError", status: "RUNNING" });
    expect(d.removeLive).toMatchObject({ __typename: "InvalidStateError", status: "RUNNING" });
    expect(d.sendPlain).toMatchObject({
      __typename: "InvalidStateError",
      message: expect.stringMatching(/not interactive/) as unknown as string,
    });
    expect(d.sendEmpty).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "text"] }],
    });
    expect(d.endPlain).toMatchObject({ __typename: "InvalidStateError" });
    expect(d.drainUnknown).toMatchObject({ __typename: "NotFoundError" });
    expect(d.drainBadTimeout).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "timeoutMs"] }],
    });
    expect(d.spawnNoWs).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE", key: "nope" });
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
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "x" }) { ${result()} ... on UnreachableError { reason } } }`,
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
      `mutation { killAgent(input: { agentId: "${id}" }) { ... on KillAgentPayload { agent { status } } } }`,
    );
    expect(kill.data?.killAgent.agent.status).toBe("KILLED");
    const re = await h.gql<{
      respawnAgent: { agent: { agentId: string; respawnedFrom: { agentId: string } } };
    }>(
      `mutation { respawnAgent(input: { agentId: "${id}" }) { ... on RespawnAgentPayload { agent { agentId respawnedFrom { agentId } } } } }`,
    );
    expect(re.errors).toBeUndefined();
    const fresh = re.data!.respawnAgent.agent;
    expect(fresh.respawnedFrom.agentId).toBe(id);
    const rm = await h.gql<{ removeAgent: { agent: { goneAt: string | null } } }>(
      `mutation { removeAgent(input: { agentId: "${fresh.agentId}", force: true }) { ... on RemoveAgentPayload { agent { goneAt } } } }`,
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
      `mutation { updateWorkspaceConfig(input: { workspace: "demo", config: { env: [{ name: "ANTHROPIC_LOG", value: "1" }] } }) { ... on UpdateWorkspaceConfigPayload { applied pendingOn workspace { pendingConfig { env { name } } } } } }`,
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
      `mutation { updateWorkspaceConfig(input: { workspace: "demo", config: { env: [{ name: "ANTHROPIC_LOG", value: "1" }] } }) { ${result("ValidationError", "NotFoundError")} } }`,
    );
    expect(res.data?.updateWorkspaceConfig).toMatchObject({ __typename: "UnreachableError" });
    expect(await h.app.db.prisma.workspace.findUnique({ where: { name: "demo" } })).toEqual(before);
  });
});
