// The gateway runs with umask 077 (everything it creates is private) but autostarts caliband with
// the operator's ORIGINAL umask, so agents' files in user repositories keep their usual modes
// (issue 11 item 8). A real executable reports the umask it was started with.
import * as fs from "node:fs";
import * as path from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { ensureDaemon } from "../../src/caliband/discovery.js";
import { DaemonStartFailed } from "../../src/caliband/errors.js";
import {
  GATEWAY_UMASK,
  applyGatewayUmask,
  operatorUmask,
  restoreOperatorUmask,
  withOperatorUmask,
} from "../../src/process-umask.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

let workspaces: TempWorkspace[] = [];
let previous: number | undefined;

afterEach(() => {
  restoreOperatorUmask();
  if (previous !== undefined) process.umask(previous);
  previous = undefined;
  for (const w of workspaces) w.cleanup();
  workspaces = [];
});

/** The process umask right now (set-and-restore: Node has no pure getter that is not deprecated). */
function currentUmask(): number {
  const m = process.umask(0o077);
  process.umask(m);
  return m;
}

describe("gateway umask", () => {
  it("applies 077, remembers the operator's umask once, and restores it", () => {
    previous = process.umask(0o027); // the operator's shell umask in this test
    expect(operatorUmask()).toBeUndefined();
    expect(applyGatewayUmask()).toBe(0o027);
    expect(currentUmask()).toBe(GATEWAY_UMASK);
    expect(applyGatewayUmask()).toBe(0o027); // idempotent: 077 is never taken for the operator's
    expect(operatorUmask()).toBe(0o027);
    expect(withOperatorUmask(() => currentUmask())).toBe(0o027);
    expect(() =>
      withOperatorUmask(() => {
        throw new Error("spawn failed");
      }),
    ).toThrow("spawn failed");
    expect(currentUmask()).toBe(GATEWAY_UMASK);
    restoreOperatorUmask();
    expect(currentUmask()).toBe(0o027);
    expect(operatorUmask()).toBeUndefined();
  });

  it("an autostarted daemon gets the operator's umask; the gateway's own files stay private", async () => {
    const ws = makeTempWorkspace();
    workspaces.push(ws);
    const report = path.join(ws.tmp, "daemon-umask");
    const bin = path.join(ws.tmp, "umask-caliband");
    fs.writeFileSync(bin, `#!/bin/sh\numask > '${report}'\nexit 1\n`);
    fs.chmodSync(bin, 0o755);
    const dataDir = path.join(ws.tmp, "pd");

    previous = process.umask(0o027);
    applyGatewayUmask();
    const err = await ensureDaemon({
      root: ws.root,
      env: { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime },
      calibandBin: bin,
      dataDir,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonStartFailed);
    expect(fs.readFileSync(report, "utf8").trim()).toBe("0027");
    // back to the gateway's umask right after the spawn
    expect(currentUmask()).toBe(GATEWAY_UMASK);
    const mine = path.join(ws.tmp, "gateway-file");
    fs.writeFileSync(mine, "x");
    expect(fs.statSync(mine).mode & 0o777).toBe(0o600);
    expect(fs.statSync((err as DaemonStartFailed).logPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(ws.runtime).mode & 0o777).toBe(0o700);
  });

  it("the autostart log is created 0600 even under a loose umask, and a looser one of ours is tightened", async () => {
    const ws = makeTempWorkspace();
    workspaces.push(ws);
    const bin = path.join(ws.tmp, "failing-caliband");
    fs.writeFileSync(bin, "#!/bin/sh\necho started\nexit 1\n");
    fs.chmodSync(bin, 0o755);
    const dataDir = path.join(ws.tmp, "pd");
    previous = process.umask(0o000);
    const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime };
    const first = (await ensureDaemon({ root: ws.root, env, calibandBin: bin, dataDir }).catch(
      (e: unknown) => e,
    )) as DaemonStartFailed;
    expect(fs.statSync(first.logPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    fs.chmodSync(first.logPath, 0o644);
    const second = (await ensureDaemon({ root: ws.root, env, calibandBin: bin, dataDir }).catch(
      (e: unknown) => e,
    )) as DaemonStartFailed;
    expect(second.logPath).toBe(first.logPath);
    expect(fs.statSync(second.logPath).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(second.logPath, "utf8")).toBe("started\nstarted\n"); // appended, not replaced
  });
});
