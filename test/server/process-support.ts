/**
 * Real processes for the start/stop tests (issue 12 items 8 and 9): `prospero serve` or
 * `npm start` spawned in a process group of their own (so a test can signal the group, as a
 * terminal's Ctrl-C or a process manager does), and what a process leaves behind, read from /proc.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PROSPERO_BIN } from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";

/** The repository root (where `npm start` runs). */
export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/** A spawned process group. */
export interface GroupProcess {
  child: ChildProcess;
  /** pid of the spawned process, which leads its own process group. */
  pid: number;
  /** stdout and stderr so far, interleaved. */
  output: () => string;
  /** Resolves with the exit code, or the signal name, when the process ends. */
  exited: Promise<number | string>;
  /** Wait until the output matches `re` (rejects when the process ends first or after `timeoutMs`). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Signal the whole process group. */
  signalGroup(signal: NodeJS.Signals): void;
}

const started: GroupProcess[] = [];

/**
 * Spawn `command args` as the leader of a new process group, with a private XDG_RUNTIME_DIR and
 * no PROSPERO_ADMIN_TOKEN (as serve-process.ts does), stdout and stderr piped (unless `stderr`
 * is "ignore").
 */
export function spawnGroup(
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): GroupProcess {
  const env = {
    ...process.env,
    XDG_RUNTIME_DIR: tmpDir("xdg-"),
    PROSPERO_ADMIN_TOKEN: undefined,
    ...opts.env,
  };
  const child = spawn(command, args, { env, cwd: opts.cwd ?? REPO_ROOT, detached: true });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  const p: GroupProcess = {
    child,
    pid: child.pid!,
    output: () => output,
    exited,
    async waitFor(re, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = re.exec(output);
        if (m) return m;
        if (ended) throw new Error(`process ended before its output matched ${re}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`output never matched ${re}:\n${output}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    signalGroup(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // the group is gone already
      }
    },
  };
  started.push(p);
  return p;
}

/** `prospero <args>` as the leader of its own process group (see {@link spawnGroup}). */
export function spawnProspero(args: string[], env: NodeJS.ProcessEnv = {}): GroupProcess {
  return spawnGroup(process.execPath, [PROSPERO_BIN, ...args], { env });
}

/**
 * SIGKILL every process group spawned by this module that still has members (call in afterEach;
 * a test that passed left none).
 */
export function killStartedGroups(): void {
  for (const p of started.splice(0)) {
    try {
      process.kill(-p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** True while a process with this pid exists (and is not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** pids of the live children of `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid && fields[0] !== "Z") out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * pids of live processes that still refer to `dir`: in their command line, their environment
 * (the simulator's runtime dir) or their working directory (a worker in the demo repository).
 */
export function processesUsing(dir: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const pid = Number(entry);
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "utf8");
      let cwd = "";
      try {
        cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // not readable
      }
      if ((cmdline.includes(dir) || environ.includes(dir) || cwd.startsWith(dir)) && alive(pid))
        out.push(pid);
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return out;
}

/** Poll `check` until it is true or `timeoutMs` passes; resolves with its last answer. */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** True when nothing accepts TCP connections on 127.0.0.1:`port`. */
export function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      resolve(false);
    });
    s.once("error", () => resolve(true));
  });
}

/**
 * A fresh temp dir (removed after the test file) to be a child's TMPDIR, so everything its demo
 * creates (the `prospero-demo-*` dir) is found there, and every process descending from it carries
 * the path in its environment (see {@link processesUsing}). tsx's compile cache (`tsx-<uid>` in
 * the OS temp dir) is linked in, so the child does not compile every source afresh.
 */
export function privateTmpDir(): string {
  const dir = tmpDir("pt-");
  const cacheName = `tsx-${process.getuid?.() ?? "user"}`;
  const cache = path.join(os.tmpdir(), cacheName);
  fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
  fs.symlinkSync(cache, path.join(dir, cacheName));
  return dir;
}

/** The demo directories (`prospero-demo-*`) in `tmp`. */
export function demoDirsIn(tmp: string): string[] {
  return fs.readdirSync(tmp).filter((e) => e.startsWith("prospero-demo-"));
}

/**
 * SIGKILL the processes that still refer to `dir` (see {@link processesUsing}): for a private dir
 * of a test (e.g. {@link privateTmpDir}), exactly the processes that test started and left.
 */
export function killProcessesUsing(dir: string): void {
  for (const pid of processesUsing(dir)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/** The command line of `pid`, arguments joined by spaces ("" once it is gone). */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

/**
 * The exit code (or signal name) of `exited`, or "still running after <ms> ms": for processes that
 * used to hang (spinning on a closed pipe, or in mkdir, or never refused), so a test fails saying
 * so instead of running into its timeout.
 */
export async function exitWithin(exited: Promise<number | string>, ms: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>(
    (resolve) => (timer = setTimeout(() => resolve(`still running after ${ms} ms`), ms)),
  );
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
  }
}
