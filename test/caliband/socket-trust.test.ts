// Local trust of caliband Unix sockets (issue 11 item 8, caliband-protocol.md §1.1 "Permissions"):
// a runtime dir that is not ours or that group/others can write, and a socket file that is not ours
// (or a symlink), are refused before anything is sent or any daemon is started; a missing runtime
// dir is created 0700 by the autostart. Real dirs, real sockets, a real autostarted caliband-sim.
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { afterEach, describe, expect, it } from "vitest";

import { CalibandClient } from "../../src/caliband/client.js";
import { ensureDaemon, type DaemonHandle } from "../../src/caliband/discovery.js";
import { UntrustedSocket, Unreachable } from "../../src/caliband/errors.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { connectWithRetry, sendInbound } from "../../src/caliband/stream.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { workspaceSlug } from "../support/paths.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

const SIM = fileURLToPath(new URL("../support/bin/caliband-sim", import.meta.url));
const IS_ROOT = process.geteuid?.() === 0;
/** uid of `nobody`: another user root can hand files to. */
const OTHER_UID = 65534;

let workspaces: TempWorkspace[] = [];
let fakes: FakeCaliband[] = [];
let servers: net.Server[] = [];
let started: DaemonHandle[] = [];

afterEach(async () => {
  for (const h of started) {
    await h.client.shutdown({ deadlineMs: 2000 }).catch(() => undefined);
    const until = Date.now() + 3000;
    while (h.pid !== undefined && alive(h.pid) && Date.now() < until) await sleep(25);
    if (h.pid !== undefined && alive(h.pid)) process.kill(h.pid, "SIGKILL");
  }
  await Promise.all(fakes.map((f) => f.close()));
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const w of workspaces) {
    fs.rmSync(path.join(os.tmpdir(), "prospero-fake-caliband", workspaceSlug(w.root)), {
      recursive: true,
      force: true,
    });
    w.cleanup();
  }
  workspaces = [];
  fakes = [];
  servers = [];
  started = [];
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Setup {
  ws: TempWorkspace;
  canonical: string;
  env: NodeJS.ProcessEnv;
  socketPath: string;
  dataDir: string;
  /** An executable that records each start in `startsFile` and exits 1 (never listens). */
  recorder: string;
  startsFile: string;
}

function setup(): Setup {
  const ws = makeTempWorkspace();
  workspaces.push(ws);
  const canonical = fs.realpathSync(ws.root);
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime };
  const startsFile = path.join(ws.tmp, "starts");
  const recorder = path.join(ws.tmp, "recording-caliband");
  fs.writeFileSync(recorder, `#!/bin/sh\necho "$$" >> '${startsFile}'\nexit 1\n`);
  fs.chmodSync(recorder, 0o755);
  return {
    ws,
    canonical,
    env,
    socketPath: controlSocketPath(canonical, env),
    dataDir: path.join(ws.tmp, "pd"),
    recorder,
    startsFile,
  };
}

/** A double listening on the workspace's socket (creates the runtime dir). */
async function liveFake(s: Setup): Promise<FakeCaliband> {
  const fake = await FakeCaliband.start({ workspaceRoot: s.canonical, env: s.env, dataBase: s.ws.data });
  fakes.push(fake);
  expect(fake.socketPath).toBe(s.socketPath);
  return fake;
}

/** ensureDaemon with autostart ON (so a refusal really means nothing was started) → the error. */
async function discoverError(s: Setup): Promise<unknown> {
  return ensureDaemon({ root: s.ws.root, env: s.env, calibandBin: s.recorder, dataDir: s.dataDir }).catch(
    (e: unknown) => e,
  );
}

function expectNothingStarted(s: Setup): void {
  expect(fs.existsSync(s.startsFile)).toBe(false);
  expect(fs.existsSync(s.dataDir)).toBe(false); // no log file either
}

describe("runtime dir trust", () => {
  it.each([
    [0o777, "0777", "group and others"],
    [0o775, "0775", "group"],
    [0o1777, "01777", "group and others"], // sticky like /tmp: still anyone can plant a socket name
    [0o722, "0722", "group and others"],
  ])("a runtime dir with mode %s is refused; the live daemon in it gets nothing", async (mode, text, who) => {
    const s = setup();
    const fake = await liveFake(s);
    fs.chmodSync(s.ws.runtime, mode);
    const err = await discoverError(s);
    expect(err).toBeInstanceOf(UntrustedSocket);
    expect(err).toBeInstanceOf(Unreachable);
    const e = err as UntrustedSocket;
    expect(e).toMatchObject({ code: "UNREACHABLE", endpoint: s.socketPath, path: s.ws.runtime });
    expect(e.errno).toBeUndefined();
    expect(e.message).toContain(`runtime dir ${s.ws.runtime} has owner uid ${process.geteuid?.()}`);
    expect(e.message).toContain(`mode ${text} (writable by ${who})`);
    expect(e.message).toContain(
      `expected a directory owned by uid ${process.geteuid?.()} (this user) that group and others cannot write`,
    );
    expect(e.message).toContain(`chmod 700 ${s.ws.runtime}`);
    expect(fake.requests).toEqual([]);
    expectNothingStarted(s);
  });

  it("a private runtime dir (0700, 0755) of ours is used", async () => {
    const s = setup();
    const fake = await liveFake(s);
    for (const mode of [0o700, 0o755]) {
      fs.chmodSync(s.ws.runtime, mode);
      const h = await ensureDaemon({
        root: s.ws.root,
        env: s.env,
        calibandBin: s.recorder,
        dataDir: s.dataDir,
      });
      expect(h.started).toBe(false);
    }
    expect(fake.requests.map((r) => r.line)).toEqual(['{"kind":"status"}', '{"kind":"status"}']);
  });

  it.skipIf(!IS_ROOT)(
    "a runtime dir owned by another user is refused, even 0700 (root only: chown)",
    async () => {
      const s = setup();
      const fake = await liveFake(s);
      fs.chmodSync(s.ws.runtime, 0o700);
      fs.chownSync(s.ws.runtime, OTHER_UID, OTHER_UID);
      const err = await discoverError(s);
      expect(err).toBeInstanceOf(UntrustedSocket);
      expect((err as Error).message).toContain(
        `runtime dir ${s.ws.runtime} has owner uid ${OTHER_UID} and mode 0700`,
      );
      expect(fake.requests).toEqual([]);
      expectNothingStarted(s);
    },
  );

  it.skipIf(!IS_ROOT)(
    "a runtime dir that is another user's symlink is refused (root only: lchown)",
    async () => {
      const s = setup();
      const real = path.join(s.ws.tmp, "real-run");
      fs.mkdirSync(real, { mode: 0o700 });
      fs.symlinkSync(real, s.ws.runtime);
      fs.lchownSync(s.ws.runtime, OTHER_UID, OTHER_UID);
      const err = await discoverError(s);
      expect(err).toBeInstanceOf(UntrustedSocket);
      expect((err as Error).message).toContain(
        `runtime dir ${s.ws.runtime} is a symbolic link owned by uid ${OTHER_UID}`,
      );
      expectNothingStarted(s);
    },
  );

  it("a runtime dir that is a regular file is refused", async () => {
    const s = setup();
    fs.writeFileSync(s.ws.runtime, "not a dir");
    const err = await discoverError(s);
    expect(err).toBeInstanceOf(UntrustedSocket);
    expect((err as Error).message).toContain(`runtime dir ${s.ws.runtime} is a regular file`);
    expectNothingStarted(s);
  });

  it("a missing runtime dir is created 0700 (not 0777 & ~umask) before caliband is autostarted", async () => {
    const s = setup();
    expect(fs.existsSync(s.ws.runtime)).toBe(false);
    const previous = process.umask(0o022);
    try {
      const h = await ensureDaemon({ root: s.ws.root, env: s.env, calibandBin: SIM, dataDir: s.dataDir });
      if (h.started) started.push(h);
      expect(h.started).toBe(true);
      expect(fs.statSync(s.ws.runtime).mode & 0o7777).toBe(0o700);
      expect(fs.statSync(s.socketPath).isSocket()).toBe(true);
      // the autostart log is private too
      expect(fs.statSync(h.logPath!).mode & 0o777).toBe(0o600);
      expect(fs.statSync(s.dataDir).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });
});

describe("socket file trust", () => {
  it.skipIf(!IS_ROOT)(
    "a control socket owned by another user is refused before connecting (root only)",
    async () => {
      const s = setup();
      const fake = await liveFake(s);
      fs.lchownSync(s.socketPath, OTHER_UID, OTHER_UID);
      const err = await discoverError(s);
      expect(err).toBeInstanceOf(UntrustedSocket);
      expect(err).toMatchObject({ path: s.socketPath, endpoint: s.socketPath });
      expect((err as Error).message).toContain(`${s.socketPath} is a socket owned by uid ${OTHER_UID}`);
      expect((err as Error).message).toContain(`expected a socket owned by uid 0 (this user)`);
      expectNothingStarted(s);
      // the client refuses on every connect, not only at discovery
      const direct = await new CalibandClient({ scheme: "unix", path: s.socketPath })
        .list()
        .catch((e: unknown) => e);
      expect(direct).toBeInstanceOf(UntrustedSocket);
      expect(fake.requests).toEqual([]);
    },
  );

  it("a symlink at the socket path is refused, even to a live daemon of ours", async () => {
    const s = setup();
    const elsewhere = path.join(s.ws.tmp, "elsewhere");
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    const fake = await FakeCaliband.start({
      workspaceRoot: s.canonical,
      socketPath: path.join(elsewhere, "real.sock"),
      dataBase: s.ws.data,
    });
    fakes.push(fake);
    fs.mkdirSync(s.ws.runtime, { mode: 0o700 });
    fs.symlinkSync(fake.socketPath, s.socketPath);
    const err = await discoverError(s);
    expect(err).toBeInstanceOf(UntrustedSocket);
    expect((err as Error).message).toContain(
      `${s.socketPath} is a symbolic link owned by uid ${process.geteuid?.()}`,
    );
    expect(fake.requests).toEqual([]);
    expectNothingStarted(s);
  });

  it.skipIf(!IS_ROOT)(
    "a per-agent socket owned by another user gets no connection and is not retried (root only)",
    async () => {
      const s = setup();
      const dir = path.join(s.ws.tmp, "run", "agents");
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const agentSock = path.join(dir, "5c0e7a21-agent.sock");
      let connections = 0;
      const server = net.createServer((c) => {
        connections++;
        c.destroy();
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(agentSock, resolve));
      fs.lchownSync(agentSock, OTHER_UID, OTHER_UID);
      const endpoint = { scheme: "unix" as const, path: agentSock };
      const t0 = Date.now();
      const err = await connectWithRetry(endpoint, {}, { connectDeadlineMs: 5_000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UntrustedSocket);
      expect(Date.now() - t0).toBeLessThan(1_000); // refused at once, no retry loop
      const sent = await sendInbound(endpoint, {}, { type: "EndInput" }).catch((e: unknown) => e);
      expect(sent).toBeInstanceOf(UntrustedSocket);
      expect(connections).toBe(0);
      // handed back to us, the same socket is used
      fs.lchownSync(agentSock, 0, 0);
      const { socket } = await connectWithRetry(endpoint, {}, { connectDeadlineMs: 2_000 });
      socket.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect(connections).toBe(1);
    },
  );

  it("a stale regular file of ours at the socket path is still replaced by autostart", async () => {
    const s = setup();
    fs.mkdirSync(s.ws.runtime, { mode: 0o700 });
    fs.writeFileSync(s.socketPath, "stale");
    const h = await ensureDaemon({ root: s.ws.root, env: s.env, calibandBin: SIM, dataDir: s.dataDir });
    if (h.started) started.push(h);
    expect(h.started).toBe(true);
    expect((await h.client.status()).pid).toBe(h.pid);
  });
});
