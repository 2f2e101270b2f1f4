// Issue 12 item 10: a mutation that needs a workspace's caliband, when the gateway cannot start
// one, answers a typed result (CalibandNotInstalledError / DaemonStartFailedError) through the API,
// and the real CLI binary exits 5 with the fix in its message. Real gateway (in-process, real port),
// real processes: a --caliband-bin that does not exist, and one that exits at once.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { cli } from "../cli/run-cli.js";
import { tmpDir } from "../helpers/tmp.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const RESULT = `__typename ... on Error { code message }
  ... on UnreachableError { endpoint reason }
  ... on CalibandNotInstalledError { bin errno hint nextAttemptAt }
  ... on DaemonStartFailedError { endpoint reason logPath exitCode signal nextAttemptAt }`;

/** addWorkspace cannot fail on a daemon (it registers, then polls): its union has no daemon errors. */
const ADD_RESULT = `__typename ... on Error { code message }`;

type Result = { __typename: string; [k: string]: unknown };

/** A gateway whose autostart runs `calibandBin`; the poller stays out of the way (one poll a minute). */
async function gateway(calibandBin: string): Promise<AppHarness> {
  return startAppHarness({ config: { calibandBin, autostart: true, pollIntervalMs: "60000" } });
}

/** Register workspace "other" on a fresh root no daemon serves (addWorkspace polls it once). */
async function addOther(hh: AppHarness): Promise<void> {
  const root = path.join(hh.d.ws.tmp, "other");
  fs.mkdirSync(root);
  const r = await hh.gql<{ addWorkspace: Result }>(
    `mutation($root: String!) { addWorkspace(input: { name: "other", root: $root }) { ${ADD_RESULT} ... on AddWorkspacePayload { created } } }`,
    { root },
  );
  expect(r.errors).toBeUndefined();
  expect(r.data?.addWorkspace).toMatchObject({ __typename: "AddWorkspacePayload", created: true });
}

async function spawnOther(hh: AppHarness): Promise<{ data?: { spawnAgent: Result }; errors?: unknown[] }> {
  return hh.gql<{ spawnAgent: Result }>(
    `mutation { spawnAgent(input: { workspace: "other", prompt: "hello" }) { ${RESULT} } }`,
  );
}

async function agentsOf(hh: AppHarness, workspace: string): Promise<number> {
  return hh.app.db.prisma.agent.count({ where: { workspace } });
}

describe("no caliband to start: typed results", () => {
  it("spawnAgent and restartWorkspaceDaemon answer CalibandNotInstalledError, during the backoff and after it", async () => {
    const bin = "/nonexistent/caliband";
    h = await gateway(bin);
    await addOther(h);

    // addWorkspace's poll failed to start the daemon: this spawn comes during the backoff.
    const during = await spawnOther(h);
    expect(during.errors).toBeUndefined();
    expect(during.data?.spawnAgent).toMatchObject({
      __typename: "CalibandNotInstalledError",
      code: "CALIBAND_NOT_INSTALLED",
      bin,
      errno: "ENOENT",
    });
    const e = during.data!.spawnAgent;
    expect(e.hint).toMatch(/install caliban/);
    expect(e.hint).toMatch(/--caliband-bin/);
    expect(e.message).toContain(bin);
    expect(e.message).toMatch(/--caliband-bin/);
    expect(typeof e.nextAttemptAt).toBe("string");

    // Once the backoff has passed, the spawn itself tries the binary (the case that used to be a
    // top-level CALIBAND_NOT_INSTALLED error).
    const wait = Date.parse(e.nextAttemptAt as string) - Date.now() + 100;
    await new Promise((r) => setTimeout(r, Math.max(0, wait)));
    const itself = await spawnOther(h);
    expect(itself.errors).toBeUndefined();
    expect(itself.data?.spawnAgent).toMatchObject({
      __typename: "CalibandNotInstalledError",
      code: "CALIBAND_NOT_INSTALLED",
      bin,
      errno: "ENOENT",
      nextAttemptAt: null,
    });

    const restart = await h.gql<{ restartWorkspaceDaemon: Result }>(
      `mutation { restartWorkspaceDaemon(input: { workspace: "other", force: true }) { ${RESULT} } }`,
    );
    expect(restart.errors).toBeUndefined();
    expect(restart.data?.restartWorkspaceDaemon).toMatchObject({
      __typename: "CalibandNotInstalledError",
      bin,
    });
    expect(await agentsOf(h, "other")).toBe(0);

    // The workspace whose daemon runs is not affected.
    const ok = await h.gql<{ spawnAgent: Result }>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "hello" }) { ${RESULT} } }`,
    );
    expect(ok.data?.spawnAgent.__typename).toBe("SpawnAgentPayload");
  }, 60_000);

  it("a caliband that exits at start is a DaemonStartFailedError with its log path and exit code", async () => {
    const bin = path.join(tmpDir(), "broken-caliband");
    fs.writeFileSync(bin, "#!/bin/sh\necho 'caliband: config is broken' >&2\nexit 3\n", { mode: 0o755 });
    h = await gateway(bin);
    await addOther(h);
    const r = await spawnOther(h);
    expect(r.errors).toBeUndefined();
    expect(r.data?.spawnAgent).toMatchObject({
      __typename: "DaemonStartFailedError",
      code: "DAEMON_START_FAILED",
      exitCode: 3,
      signal: null,
    });
    const e = r.data!.spawnAgent;
    expect(e.reason).toMatch(/exited with code 3 before answering status/);
    expect(typeof e.nextAttemptAt).toBe("string"); // this call came during the backoff
    expect(fs.readFileSync(e.logPath as string, "utf8")).toContain("caliband: config is broken");
    expect(e.message).toContain(e.logPath as string);
    expect(await agentsOf(h, "other")).toBe(0);
  }, 60_000);
});

describe("no caliband to start: the CLI", () => {
  it("`prospero spawn` exits 5 and says how to install caliband or use --caliband-bin", async () => {
    h = await gateway("/nonexistent/caliband");
    await addOther(h);
    const r = await cli(h.url, ["spawn", "other", "hello"]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("/nonexistent/caliband");
    expect(r.stderr).toMatch(/install caliban/);
    expect(r.stderr).toMatch(/--caliband-bin/);
    expect(r.stderr).toContain("[CALIBAND_NOT_INSTALLED]");
    expect(r.stdout).toBe("");
  }, 60_000);
});
