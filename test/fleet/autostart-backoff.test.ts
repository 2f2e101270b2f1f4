// Autostart hygiene (issue 11 item 9): an autostarted caliband that never answers is killed with
// its whole process group (here a real /bin/sh script and its child `sleep`), and the next
// autostart for the workspace waits for an exponential backoff (reset by a success) instead of
// starting another daemon on every poll — five had piled up in 55 s for one workspace.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AutostartBackoff, DaemonStartFailed } from "../../src/caliband/errors.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { DaemonPool } from "../../src/fleet/daemons.js";
import { validateProviderConfig } from "../../src/fleet/provider.js";
import type { Workspace } from "../../src/fleet/registry.js";
import { silentLogger } from "../../src/log.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import { startFleet, waitFor } from "../helpers/fleet-harness.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A hanging "caliband": records its pid and its child's, never creates the socket. */
interface Hanging {
  ws: TempWorkspace;
  root: string;
  bin: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** pids of the script processes started so far (one per autostart). */
  starts(): number[];
  /** pids of their child `sleep` processes. */
  children(): number[];
}

function readPids(file: string): number[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map(Number);
}

function hanging(): Hanging {
  const ws = makeTempWorkspace("hang-repo");
  const startsFile = path.join(ws.tmp, "starts");
  const childrenFile = path.join(ws.tmp, "children");
  const bin = path.join(ws.tmp, "hanging-caliband");
  fs.writeFileSync(
    bin,
    `#!/bin/sh\necho "$$" >> '${startsFile}'\nsleep 600 &\necho "$!" >> '${childrenFile}'\nwait\n`,
  );
  fs.chmodSync(bin, 0o755);
  const h: Hanging = {
    ws,
    root: fs.realpathSync(ws.root),
    bin,
    env: { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime },
    dataDir: path.join(ws.tmp, "gw"),
    starts: () => readPids(startsFile),
    children: () => readPids(childrenFile),
  };
  cleanups.push(() => {
    // anything this test started that is somehow still there
    for (const pid of [...h.starts(), ...h.children()]) {
      if (running(pid)) process.kill(pid, "SIGKILL");
    }
    ws.cleanup();
  });
  return h;
}

/**
 * True while `pid` is a live process. A zombie (state Z: dead, waiting to be reaped by a parent
 * or init that never does, as in some containers) counts as gone.
 */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    if (fs.existsSync("/proc/self/stat")) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function workspace(h: Hanging): Workspace {
  return {
    name: "hang",
    root: h.root,
    config: validateProviderConfig({}),
    pendingConfig: null,
    createdAt: new Date(),
    remote: null,
  };
}

describe("autostart backoff", () => {
  it("kills a silent daemon's process group, then backs off 1×, 2× (capped) and resets on success", async () => {
    const h = hanging();
    const pool = new DaemonPool({
      dataDir: h.dataDir,
      calibandBin: h.bin,
      autostart: true,
      env: h.env,
      startupTimeoutMs: 300,
      startupKillGraceMs: 300,
      autostartBackoff: { initialMs: 700, maxMs: 1_400 },
      logger: silentLogger,
    });
    const ws = workspace(h);

    const first = await pool.client(ws).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(DaemonStartFailed);
    expect((first as Error).message).toMatch(
      /did not answer status within 300 ms, so its process group was killed/,
    );
    expect(h.starts()).toHaveLength(1);
    expect(h.children()).toHaveLength(1);
    // the script AND its child are gone by the time the error is seen
    for (const pid of [...h.starts(), ...h.children()]) expect(running(pid), `pid ${pid}`).toBe(false);

    // while backing off: fail fast, no new process
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      const err = await pool.client(ws).catch((e: unknown) => e);
      expect(Date.now() - t0).toBeLessThan(100);
      expect(err).toBeInstanceOf(AutostartBackoff);
      expect(err).toMatchObject({ failures: 1, delayMs: 700, code: "UNREACHABLE" });
      const b = err as AutostartBackoff;
      expect(b.message).toContain(`caliband unreachable at ${controlSocketPath(h.root, h.env)}`);
      expect(b.message).toContain(
        `autostart failed 1 time in a row; next attempt at ${b.nextAttemptAt.toISOString()}`,
      );
      expect(b.message).toContain("last failure: caliband unreachable");
      expect(b.message).toContain("did not answer status within 300 ms");
      pool.invalidate(ws.name); // the poller does this after every failure: it must not skip the backoff
    }
    expect(h.starts()).toHaveLength(1);

    const waitOut = async () => {
      const err = await pool.client(ws).catch((e: unknown) => e);
      if (err instanceof AutostartBackoff)
        await new Promise((r) => setTimeout(r, err.nextAttemptAt.getTime() - Date.now() + 20));
    };
    await waitOut();
    expect(await pool.client(ws).catch((e: unknown) => e)).toBeInstanceOf(DaemonStartFailed);
    expect(h.starts()).toHaveLength(2);
    expect(await pool.client(ws).catch((e: unknown) => e)).toMatchObject({ failures: 2, delayMs: 1_400 });

    await waitOut();
    expect(await pool.client(ws).catch((e: unknown) => e)).toBeInstanceOf(DaemonStartFailed);
    expect(await pool.client(ws).catch((e: unknown) => e)).toMatchObject({ failures: 3, delayMs: 1_400 }); // cap
    expect(h.starts()).toHaveLength(3);
    for (const pid of [...h.starts(), ...h.children()]) expect(running(pid), `pid ${pid}`).toBe(false);

    // a daemon appears (started by hand): once the backoff ends it is found, and the count resets
    const fake = await FakeCaliband.start({ workspaceRoot: h.root, env: h.env, dataBase: h.ws.data });
    cleanups.push(() => fake.close());
    await waitOut();
    const client = await pool.client(ws);
    expect((await client.status()).pid).toBe(fake.pid);
    await fake.close();
    pool.invalidate(ws.name);
    expect(await pool.client(ws).catch((e: unknown) => e)).toBeInstanceOf(DaemonStartFailed);
    expect(await pool.client(ws).catch((e: unknown) => e)).toMatchObject({ failures: 1, delayMs: 700 });
    expect(h.starts()).toHaveLength(4);
  });

  it("a daemon that exits at once is counted too, and its left-behind children are killed", async () => {
    const h = hanging();
    // the "daemon" forks a sleeper into its process group and exits 7 without listening
    const childrenFile = path.join(h.ws.tmp, "children");
    fs.writeFileSync(h.bin, `#!/bin/sh\nsleep 600 &\necho "$!" >> '${childrenFile}'\nexit 7\n`);
    const pool = new DaemonPool({
      dataDir: h.dataDir,
      calibandBin: h.bin,
      autostart: true,
      env: h.env,
      startupTimeoutMs: 5_000,
      startupKillGraceMs: 300,
      autostartBackoff: { initialMs: 60_000 },
      logger: silentLogger,
    });
    const ws = workspace(h);
    const err = await pool.client(ws).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonStartFailed);
    expect(err).toMatchObject({ exitCode: 7 });
    expect(h.children()).toHaveLength(1);
    expect(running(h.children()[0]!)).toBe(false);
    expect(await pool.client(ws).catch((e: unknown) => e)).toMatchObject({ failures: 1, delayMs: 60_000 });
  });

  it("polls during the backoff start nothing; the workspace says when the next attempt is", async () => {
    const h = hanging();
    const fleet = await startFleet({
      runtimeDir: h.ws.runtime,
      dataDir: h.dataDir,
      pollIntervalMs: 50,
      autostart: true,
      calibandBin: h.bin,
      startupTimeoutMs: 300,
      startupKillGraceMs: 200,
      autostartBackoff: { initialMs: 60_000 },
    });
    cleanups.push(() => fleet.close());
    await fleet.fleet.addWorkspace({ name: "hang", root: h.root });
    await waitFor(() => h.starts().length === 1, 5_000, "first autostart");
    await waitFor(
      () => fleet.fleet.state.healthOf("hang").reason?.includes("autostart failed 1 time in a row"),
      5_000,
      "backoff reason",
    );
    const polls = fleet.fleet.metrics.polls_total;
    await waitFor(() => fleet.fleet.metrics.polls_total >= polls + 20, 5_000, "20 more polls");
    expect(h.starts()).toHaveLength(1);
    const health = fleet.fleet.state.healthOf("hang");
    expect(health.state).toBe("unreachable");
    expect(health.reason).toMatch(
      /autostart failed 1 time in a row; next attempt at \d{4}-\d\d-\d\dT[\d:.]+Z \(backoff 60000 ms\); last failure: .*did not answer status within 300 ms/,
    );
    for (const pid of [...h.starts(), ...h.children()]) expect(running(pid), `pid ${pid}`).toBe(false);
  });
});
