/**
 * One gateway per data dir (issue 12 item 8): a second gateway on the same data dir is refused at
 * start, naming the running one's pid, before it listens or touches the database; the lock is the
 * kernel's, so a gateway killed with SIGKILL leaves nothing that stops a new one starting at once.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, DataDirInUse, LOCK_FILE } from "../../src/store/lock.js";
import { serveToken, startServe, waitForStatus, type ServeProcess } from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";
import { exitWithin, killStartedGroups, spawnProspero } from "./process-support.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  killStartedGroups();
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  }
});

async function serve(dataDir: string): Promise<ServeProcess> {
  const p = await startServe(["--data-dir", dataDir]);
  running.push(p);
  return p;
}

/** The refusal a second gateway prints: one line naming the holder's pid and the data dir. */
function refusal(pid: number, dataDir: string): RegExp {
  const escaped = dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^prospero: another gateway \\(pid ${pid}\\) is using the data dir ${escaped}; .*--data-dir\\n$`,
  );
}

describe("the data-dir lock", () => {
  it("is never taken through a symlink or a hard link: refused, the target left untouched", async () => {
    const dir = tmpDir();
    const target = path.join(dir, "elsewhere");
    fs.writeFileSync(target, "not ours\n", { mode: 0o644 });
    fs.symlinkSync(target, path.join(dir, LOCK_FILE));
    await expect(acquireDataDirLock(dir)).rejects.toThrow(/cannot open the data dir's lock file .*ELOOP/);
    fs.rmSync(path.join(dir, LOCK_FILE));
    fs.symlinkSync(path.join(dir, "missing"), path.join(dir, LOCK_FILE)); // dangling: nothing created
    await expect(acquireDataDirLock(dir)).rejects.toThrow(/ELOOP/);
    expect(fs.existsSync(path.join(dir, "missing"))).toBe(false);
    fs.rmSync(path.join(dir, LOCK_FILE));
    fs.linkSync(target, path.join(dir, LOCK_FILE));
    await expect(acquireDataDirLock(dir)).rejects.toThrow(/2 hard links/);
    expect(fs.readFileSync(target, "utf8")).toBe("not ours\n");
    expect(fs.statSync(target).mode & 0o777).toBe(0o644);
  });

  it("is held by one holder at a time in a process too, names it, and is free again once released", async () => {
    const dir = tmpDir();
    const first = await acquireDataDirLock(dir);
    const err = await acquireDataDirLock(dir, { settleMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirInUse);
    expect((err as DataDirInUse).holderPid).toBe(process.pid);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    // Only the lock file is created in the data dir, private to this user.
    expect(fs.readdirSync(dir)).toEqual([LOCK_FILE]);
    expect(fs.statSync(path.join(dir, LOCK_FILE)).mode & 0o777).toBe(0o600);
    first.release();
    first.release(); // idempotent
    const again = await acquireDataDirLock(dir);
    again.release();
  });
});

describe("one gateway per data dir", () => {
  it("a second gateway on the same data dir is refused at start, naming the running one's pid; the first keeps serving", async () => {
    const data = tmpDir();
    const first = await serve(data);
    await waitForStatus(`${first.url}/readyz`, 200);
    const token = await serveToken(first);
    const dbBefore = fs.statSync(path.join(data, "prospero.db"));

    const second = spawnProspero(["serve", "--data-dir", data, "--port", "0"]);
    expect(await exitWithin(second.exited, 15_000)).toBe(1);
    // One human-readable line, and it never listened.
    expect(second.output()).toMatch(refusal(first.child.pid!, data));
    expect(second.output()).not.toContain("gateway listening");
    // The first is untouched: still ready, same token, database not rewritten by the second.
    await waitForStatus(`${first.url}/readyz`, 200);
    expect(fs.readFileSync(path.join(data, "admin-token"), "utf8").trim()).toBe(token);
    expect(fs.statSync(path.join(data, "prospero.db")).ino).toBe(dbBefore.ino);
  });

  it("two gateways started at the same moment on a new data dir: exactly one runs, the other names it", async () => {
    const data = path.join(tmpDir(), "data");
    const a = spawnProspero(["serve", "--data-dir", data, "--port", "0"]);
    const b = spawnProspero(["serve", "--data-dir", data, "--port", "0"]);
    const first = await exitWithin(
      Promise.race([a.exited.then(() => "a"), b.exited.then(() => "b")]),
      15_000,
    );
    expect(["a", "b"]).toContain(first);
    const [loser, winner] = first === "a" ? [a, b] : [b, a];
    expect(await loser.exited).toBe(1);
    expect(loser.output()).toMatch(refusal(winner.pid, data));
    const url = (await winner.waitFor(/"url":"(http:[^"]+)"/))[1]!;
    await waitForStatus(`${url}/readyz`, 200);
    winner.signalGroup("SIGTERM");
    expect(await winner.exited).toBe(0);
  });

  it("a gateway killed with SIGKILL leaves no stale lock: a new one starts on its data dir at once, with its data", async () => {
    const data = tmpDir();
    const first = await serve(data);
    await waitForStatus(`${first.url}/readyz`, 200);
    const token = await serveToken(first);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");
    expect(fs.existsSync(path.join(data, LOCK_FILE))).toBe(true); // the file stays; the lock does not

    const next = await serve(data);
    await waitForStatus(`${next.url}/readyz`, 200);
    expect(await serveToken(next)).toBe(token);
    // And it holds the lock in turn.
    const third = spawnProspero(["serve", "--data-dir", data, "--port", "0"]);
    expect(await exitWithin(third.exited, 15_000)).toBe(1);
    expect(third.output()).toMatch(refusal(next.child.pid!, data));
  });
});
