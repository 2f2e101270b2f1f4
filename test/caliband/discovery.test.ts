// Daemon discovery and autostart (caliband-protocol.md §1.1, §5.1, §5.2, §9 #45): a live daemon
// is probed and kept; a stale socket leads to autostarting test/support/bin/caliband-sim (the
// double as a real process with caliband's flags) with the canonical root and socket path.
import {
  mkdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  chmodSync,
  readFileSync,
} from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { afterEach, describe, expect, it } from "vitest";

import { ensureDaemon, type DaemonHandle } from "../../src/caliband/discovery.js";
import { CalibandNotInstalled, DaemonStartFailed, Unreachable } from "../../src/caliband/errors.js";
import { controlSocketPath, workspaceHash } from "../../src/caliband/paths.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { workspaceSlug } from "../support/paths.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import { makeDeadSocket } from "./dead-socket.js";

const SIM = fileURLToPath(new URL("../support/bin/caliband-sim", import.meta.url));

let workspaces: TempWorkspace[] = [];
let fakes: FakeCaliband[] = [];
let servers: net.Server[] = [];
let serverSockets: net.Socket[] = [];
let started: DaemonHandle[] = [];

afterEach(async () => {
  for (const h of started) await stopDaemon(h);
  await Promise.all(fakes.map((f) => f.close()));
  for (const sock of serverSockets) sock.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const w of workspaces) {
    // the sim's default session store lives under os.tmpdir() (test/support/paths.ts)
    rmSync(path.join(os.tmpdir(), "prospero-fake-caliband", workspaceSlug(w.root)), {
      recursive: true,
      force: true,
    });
    w.cleanup();
  }
  workspaces = [];
  fakes = [];
  servers = [];
  serverSockets = [];
  started = [];
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Shut down a daemon this test started (request, then SIGTERM/SIGKILL by its pid if needed). */
async function stopDaemon(h: DaemonHandle): Promise<void> {
  const pid = h.pid;
  if (pid === undefined) return;
  await h.client.shutdown({ deadlineMs: 2000 }).catch(() => undefined);
  for (const [signal, waitMs] of [
    [null, 3000],
    ["SIGTERM", 2000],
    ["SIGKILL", 2000],
  ] as const) {
    if (signal !== null && alive(pid)) process.kill(pid, signal);
    const until = Date.now() + waitMs;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    if (!alive(pid)) return;
  }
}

interface Setup {
  ws: TempWorkspace;
  canonical: string;
  env: NodeJS.ProcessEnv;
  socketPath: string;
  dataDir: string;
}

function setup(): Setup {
  const ws = makeTempWorkspace();
  workspaces.push(ws);
  const canonical = realpathSync(ws.root);
  // the sim needs PATH (node); the runtime dir decides the socket path (§1.1)
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime };
  return {
    ws,
    canonical,
    env,
    socketPath: controlSocketPath(canonical, env),
    dataDir: path.join(ws.tmp, "pd"),
  };
}

async function track(p: Promise<DaemonHandle>): Promise<DaemonHandle> {
  const h = await p;
  if (h.started) started.push(h);
  return h;
}

describe("ensureDaemon", () => {
  it("probes a live daemon with status and never starts a second one", async () => {
    const s = setup();
    const fake = await FakeCaliband.start({ workspaceRoot: s.canonical, env: s.env, dataBase: s.ws.data });
    fakes.push(fake);
    expect(fake.socketPath).toBe(s.socketPath);
    const h = await track(
      ensureDaemon({
        root: s.ws.root,
        env: s.env,
        calibandBin: path.join(s.ws.tmp, "no-such-caliband"),
        dataDir: s.dataDir,
      }),
    );
    expect(h).toMatchObject({ canonicalRoot: s.canonical, socketPath: s.socketPath, started: false });
    expect(h.pid).toBeUndefined();
    expect(fake.requests.map((r) => r.line)).toEqual(['{"kind":"status"}']);
    expect((await h.client.status()).pid).toBe(fake.pid);
    expect(existsSync(s.dataDir)).toBe(false); // no log file: nothing was started
  });

  it("autostarts caliband-sim over a stale regular file, through a symlinked root (#45)", async () => {
    const s = setup();
    const alias = path.join(s.ws.tmp, "alias");
    symlinkSync(s.ws.root, alias);
    mkdirSync(path.dirname(s.socketPath), { recursive: true });
    writeFileSync(s.socketPath, "stale");

    const h = await track(
      ensureDaemon({ root: `${alias}/`, env: s.env, calibandBin: SIM, dataDir: s.dataDir }),
    );
    expect(h.started).toBe(true);
    expect(h.canonicalRoot).toBe(s.canonical);
    expect(h.socketPath).toBe(controlSocketPath(s.canonical, s.env));
    expect(h.socketPath).not.toBe(controlSocketPath(alias, s.env));
    expect(h.logPath).toBe(path.join(s.dataDir, `caliband-${workspaceHash(s.canonical)}.log`));
    expect(existsSync(h.logPath!)).toBe(true);

    const status = await h.client.status();
    expect(status.pid).toBe(h.pid);
    expect(status.endpoint).toEqual({ scheme: "unix", path: s.socketPath });
    // the daemon was given the canonical root: agents without a source run there
    const { id } = await h.client.spawn({ initial_prompt: "hi fake:hold=60000" });
    expect((await h.client.list()).find((a) => a.id === id)?.working_dir).toBe(s.canonical);
    await h.client.kill(id);

    // a second discovery finds the running daemon and does not restart it
    const again = await track(
      ensureDaemon({ root: s.ws.root, env: s.env, calibandBin: SIM, dataDir: s.dataDir }),
    );
    expect(again.started).toBe(false);
    expect((await again.client.status()).pid).toBe(h.pid);
  });

  it("autostarts over a dead socket; an env overlay cannot move the socket (--socket-path)", async () => {
    const s = setup();
    mkdirSync(path.dirname(s.socketPath), { recursive: true });
    await makeDeadSocket(s.socketPath);
    const elsewhere = path.join(s.ws.tmp, "elsewhere");
    const h = await track(
      ensureDaemon({
        root: s.ws.root,
        env: s.env,
        calibandBin: SIM,
        dataDir: s.dataDir,
        envOverlay: { CALIBAN_DAEMON_RUNTIME_DIR: elsewhere, CALIBAN_SIM_FRAME_DELAY_MS: "1" },
      }),
    );
    expect(h.started).toBe(true);
    expect((await h.client.status()).endpoint).toEqual({ scheme: "unix", path: s.socketPath });
    expect(existsSync(elsewhere)).toBe(false);
  });

  it("shares one start between concurrent calls", async () => {
    const s = setup();
    const [a, b] = await Promise.all([
      track(ensureDaemon({ root: s.ws.root, env: s.env, calibandBin: SIM, dataDir: s.dataDir })),
      track(ensureDaemon({ root: s.ws.root, env: s.env, calibandBin: SIM, dataDir: s.dataDir })),
    ]);
    expect(a.pid).toBeDefined();
    expect(b.pid).toBe(a.pid);
  });

  it("reports a missing binary as CalibandNotInstalled with the install hint", async () => {
    const s = setup();
    for (const bin of [path.join(s.ws.tmp, "bin", "caliband"), "caliband-not-on-path-3f9a"]) {
      const err = await ensureDaemon({
        root: s.ws.root,
        env: s.env,
        calibandBin: bin,
        dataDir: s.dataDir,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CalibandNotInstalled);
      expect(err).toMatchObject({ bin, errno: "ENOENT", code: "CALIBAND_NOT_INSTALLED" });
      const message = (err as Error).message;
      expect(message).toContain("--caliband-bin");
      expect(message).toContain("PROSPERO_CALIBAND_BIN");
      expect(message).toContain("PATH");
    }
  });

  it("with autostart disabled, a missing daemon is Unreachable", async () => {
    const s = setup();
    const err = await ensureDaemon({
      root: s.ws.root,
      env: s.env,
      calibandBin: SIM,
      dataDir: s.dataDir,
      autostart: false,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unreachable);
    expect(err).toMatchObject({ errno: "ENOENT", endpoint: s.socketPath });
    expect((err as Error).message).toContain("autostart is disabled");
    expect(existsSync(s.dataDir)).toBe(false);
  });

  it("a daemon that exits at startup fails with its exit code and log path", async () => {
    const s = setup();
    const bin = path.join(s.ws.tmp, "bad-caliband");
    writeFileSync(bin, '#!/bin/sh\necho "caliband: boom $*" >&2\nexit 3\n');
    chmodSync(bin, 0o755);
    const err = await ensureDaemon({
      root: s.ws.root,
      env: s.env,
      calibandBin: bin,
      dataDir: s.dataDir,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonStartFailed);
    const failed = err as DaemonStartFailed;
    expect(failed.exitCode).toBe(3);
    expect(failed.message).toContain("exited with code 3");
    expect(failed.message).toContain(failed.logPath);
    // the exact arguments: canonical root and computed socket path
    expect(readFileSync(failed.logPath, "utf8")).toContain(
      `caliband: boom --workspace-root ${s.canonical} --socket-path ${s.socketPath}`,
    );
  });

  it("a daemon that never answers within startupTimeoutMs fails with the log path", async () => {
    const s = setup();
    const bin = path.join(s.ws.tmp, "silent-caliband");
    writeFileSync(bin, "#!/bin/sh\nexec sleep 30\n");
    chmodSync(bin, 0o755);
    const startedAt = Date.now();
    const err = await ensureDaemon({
      root: s.ws.root,
      env: s.env,
      calibandBin: bin,
      dataDir: s.dataDir,
      startupTimeoutMs: 500,
    }).catch((e: unknown) => e);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(err).toBeInstanceOf(DaemonStartFailed);
    expect((err as Error).message).toMatch(/did not answer status within 500 ms/);
    // stop the sleeping stand-in (started by this test): its pid is in the message
    const pid = Number(/pid (\d+)/.exec((err as Error).message)?.[1]);
    if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
  });

  it("never replaces something that accepts but does not answer", async () => {
    const s = setup();
    mkdirSync(path.dirname(s.socketPath), { recursive: true });
    const hung = net.createServer((sock) => {
      serverSockets.push(sock);
      sock.on("error", () => {});
    });
    servers.push(hung);
    await new Promise<void>((resolve) => hung.listen(s.socketPath, resolve));
    const err = await ensureDaemon({
      root: s.ws.root,
      env: s.env,
      calibandBin: SIM,
      dataDir: s.dataDir,
      probeDeadlineMs: 300,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unreachable);
    expect((err as Unreachable).reason).toBe("timeout after 300 ms");
    expect(existsSync(s.dataDir)).toBe(false); // nothing was started
    expect(hung.listening).toBe(true);
  });
});
