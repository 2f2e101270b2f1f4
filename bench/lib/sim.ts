/**
 * Workspaces and caliband doubles for benchmarks: git roots made in bulk, and the simulator
 * process ({@link ./sim-main.ts}) that serves them on their control sockets.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { initGitRepo } from "../../test/support/temp-workspace.js";
import { registerScratch, startNode, type Child } from "./procs.js";
import type { SimConfig } from "./sim-main.js";

/** A scratch layout: short temp dir (Unix socket paths ≤ 107 bytes) with runtime, roots and data. */
export interface BenchDirs {
  /** `<os tmpdir>/pb-XXXXXX`. */
  tmp: string;
  /** CALIBAN_DAEMON_RUNTIME_DIR shared by gateway and simulator. */
  runtime: string;
  /** Parent of the workspace roots. */
  roots: string;
  /** Remove everything. */
  cleanup(): void;
}

/** Create a fresh scratch layout. */
export function makeDirs(): BenchDirs {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pb-")));
  const runtime = path.join(tmp, "run");
  const roots = path.join(tmp, "src");
  fs.mkdirSync(runtime, { recursive: true });
  fs.mkdirSync(roots, { recursive: true });
  return { tmp, runtime, roots, cleanup: registerScratch(tmp) };
}

/**
 * Create `count` git checkouts `<dirs.roots>/ws-<i>` (one `git init`, then copies).
 * @returns their absolute canonical paths, in order.
 */
export function makeRoots(dirs: BenchDirs, count: number, prefix = "ws"): string[] {
  const template = path.join(dirs.tmp, "template");
  if (!fs.existsSync(template)) initGitRepo(template);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const root = path.join(dirs.roots, `${prefix}-${i}`);
    fs.cpSync(template, root, { recursive: true });
    out.push(root);
  }
  return out;
}

/** The running simulator. */
export interface Sim {
  child: Child;
  stop(): Promise<void>;
}

/**
 * Start one simulator process serving a caliband double for each root.
 * @throws (rejects) when it exits or is not ready within `timeoutMs`.
 */
export async function startSim(
  dirs: BenchDirs,
  roots: string[],
  opts: { frameDelayMs?: number; timeoutMs?: number } = {},
): Promise<Sim> {
  const cfg: SimConfig = {
    runtimeDir: dirs.runtime,
    dataBase: path.join(dirs.tmp, "sessions"),
    roots,
    frameDelayMs: opts.frameDelayMs ?? 0,
  };
  const cfgFile = path.join(dirs.tmp, `sim-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(cfgFile, JSON.stringify(cfg));
  let out = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((r) => (onReady = r));
  const child = startNode(path.join(import.meta.dirname, "sim-main.ts"), [cfgFile], {
    nodeArgs: ["--max-old-space-size=8192"],
    onStdout: (chunk) => {
      out += chunk;
      if (out.includes('"ready":true')) onReady();
    },
  });
  const timeoutMs = opts.timeoutMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ready,
      child.exited.then((code) => {
        throw new Error(`bench simulator exited (${code}) before it was ready:\n${child.stderr()}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`bench simulator not ready after ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (err) {
    await child.stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return { child, stop: () => child.stop() };
}
