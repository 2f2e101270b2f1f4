/**
 * Shared parts of the security tests (issue 11): a second workspace "other" with its own caliband
 * double next to an app harness, agents spawned through the API, and the audit rows written since
 * a point in the log.
 */
import fs from "node:fs";
import { controlSocketPath } from "../../src/caliband/paths.js";
import type { AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

/** A second workspace registered on a harness, with its own daemon. */
export interface OtherWorkspace {
  name: string;
  root: string;
  daemon: FakeCaliband;
  ws: TempWorkspace;
  close(): Promise<void>;
}

/**
 * Start a caliband double for a fresh repo where the harness's gateway looks for it (the same
 * runtime dir as "demo"'s daemon) and register it as workspace `name` through the API, as admin.
 * @throws Error when the registration is refused or the workspace never becomes healthy.
 */
export async function addWorkspaceWithDaemon(h: AppHarness, name = "other"): Promise<OtherWorkspace> {
  const ws = makeTempWorkspace(`${name}-repo`);
  const root = fs.realpathSync(ws.root);
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: h.d.ws.runtime };
  const daemon = await FakeCaliband.start({
    workspaceRoot: root,
    socketPath: controlSocketPath(root, env),
    dataBase: ws.data,
    env,
  });
  const res = await h.gql<{ addWorkspace: { __typename: string } }>(
    `mutation($input: AddWorkspaceInput!) { addWorkspace(input: $input) { __typename } }`,
    { input: { name, root } },
  );
  if (res.data?.addWorkspace.__typename !== "AddWorkspacePayload") {
    await daemon.close();
    ws.cleanup();
    throw new Error(`addWorkspace ${name} failed: ${JSON.stringify(res)}`);
  }
  await waitFor(() => h.app.fleet.state.healthOf(name).state === "healthy", 10_000, `${name} healthy`);
  return {
    name,
    root,
    daemon,
    ws,
    async close() {
      await daemon.close();
      ws.cleanup();
    },
  };
}

/**
 * Spawn an agent through the API as admin and wait until the gateway tracks it in `status`
 * (default any live status: running or idle).
 * @returns its caliband id.
 */
export async function spawnVia(
  h: AppHarness,
  workspace: string,
  prompt: string,
  opts: { interactive?: boolean; until?: (status: string | undefined) => boolean } = {},
): Promise<string> {
  const res = await h.gql<{
    spawnAgent: { __typename: string; agent?: { agentId: string } };
  }>(
    `mutation($input: SpawnAgentInput!) { spawnAgent(input: $input) { __typename ... on SpawnAgentPayload { agent { agentId } } } }`,
    { input: { workspace, prompt, interactive: opts.interactive ?? false } },
  );
  const id = res.data?.spawnAgent.agent?.agentId;
  if (!id) throw new Error(`spawn in ${workspace} failed: ${JSON.stringify(res)}`);
  const until = opts.until ?? ((s) => s === "running" || s === "idle");
  await waitFor(() => until(h.app.fleet.state.agent(id)?.status), 10_000, `agent ${id} status`);
  return id;
}

/** One audit row as stored. */
export type AuditRow = Awaited<
  ReturnType<AppHarness["app"]["db"]["prisma"]["auditEntry"]["findMany"]>
>[number];

/** Highest audit row id now (0 when the log is empty). */
export async function lastAuditId(h: AppHarness): Promise<number> {
  const row = await h.app.db.prisma.auditEntry.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? 0;
}

/** Audit rows after `afterId`, oldest first. */
export function auditAfter(h: AppHarness, afterId: number): Promise<AuditRow[]> {
  return h.app.db.prisma.auditEntry.findMany({ where: { id: { gt: afterId } }, orderBy: { id: "asc" } });
}
