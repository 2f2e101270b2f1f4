/**
 * Child processes of a benchmark run (gateway, simulator, baseline server) and their resource use.
 * Every child started here is stopped by {@link stopAll} — after each scenario and on SIGINT or
 * SIGTERM, when registered scratch files are removed too — so a run
 * never leaves processes behind; only pids we started are signalled.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pidusage from "pidusage";

/** Repository root (bench/lib/../..). */
export const REPO = path.resolve(import.meta.dirname, "../..");

/** tsx's ESM loader inside this repository (so children resolve it from any cwd). */
const TSX_LOADER = path.join(REPO, "node_modules/tsx/dist/loader.mjs");

/** A started child with its captured output. */
export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Last 64 KiB of stderr. */
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process ended. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 s); resolves when it exited. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<Child>();

/**
 * Start `node [--import tsx] <script> ...args`. `ts` scripts are loaded through tsx.
 * @throws if the process cannot be spawned.
 */
export function startNode(
  script: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; onStdout?: (chunk: string) => void } = {},
): Child {
  const nodeArgs = [...(opts.nodeArgs ?? [])];
  if (script.endsWith(".ts")) nodeArgs.push("--import", TSX_LOADER);
  const proc = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: REPO,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (proc.pid === undefined) throw new Error(`could not start ${script}`);
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => {
    err = (err + d.toString()).slice(-65536);
  });
  proc.stdout?.on("data", (d: Buffer) => opts.onStdout?.(d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    proc.on("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const child: Child = {
    proc,
    pid: proc.pid,
    stderr: () => err,
    exited,
    async stop(graceMs = 10_000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGTERM");
        const t = setTimeout(() => proc.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(t);
      }
      live.delete(child);
    },
  };
  live.add(child);
  void exited.then(() => live.delete(child));
  return child;
}

/** Scratch files and dirs to remove if the run is interrupted (their owners remove them normally). */
const scratch = new Set<string>();

/**
 * Remember `file` (a scratch dir or file) so an interrupted run removes it too.
 * @returns a function that removes it now and forgets it.
 */
export function registerScratch(file: string): () => void {
  scratch.add(file);
  return () => {
    scratch.delete(file);
    fs.rmSync(file, { recursive: true, force: true });
  };
}

/** Stop every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop(5_000)));
}

/** Called on SIGINT/SIGTERM before the children are stopped (the runner records the interruption). */
let onInterrupt: (signal: string) => void = () => undefined;

/** Set what runs first when the run is interrupted (once; must not throw). */
export function setInterruptHandler(fn: (signal: string) => void): void {
  onInterrupt = fn;
}

for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.once(signal, () => {
    try {
      onInterrupt(signal);
    } catch {
      // best effort
    }
    void stopAll().then(() => {
      for (const f of scratch) fs.rmSync(f, { recursive: true, force: true });
      process.exit(code);
    });
  });
}

/** One reading of a process: cumulative CPU time (user + system, ms) and resident set (bytes). */
export interface ProcSample {
  /** Wall clock, ms since the epoch. */
  at: number;
  cpuMs: number;
  rssBytes: number;
}

/**
 * Pids of the children of `pid` that are a gateway's capture helper (src/capture/git-launcher.ts:
 * a process of the gateway's own, started to launch git; Linux /proc, none elsewhere).
 */
function helperPids(pid: number): number[] {
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    if (children === "") return [];
    return children
      .split(" ")
      .map(Number)
      .filter((c) => {
        try {
          return fs.readFileSync(`/proc/${c}/cmdline`, "utf8").includes("git-exec-helper.mjs");
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/**
 * Read CPU time and RSS of `pid` (pidusage; /proc on Linux), its capture helper's included: the
 * gateway starts git through that helper, so what starting git costs is the gateway's (the git
 * processes themselves are not counted, as before the helper).
 */
export async function sampleProc(pid: number): Promise<ProcSample> {
  const s = await pidusage(pid);
  let cpuMs = s.ctime;
  let rssBytes = s.memory;
  for (const h of helperPids(pid)) {
    try {
      const hs = await pidusage(h);
      cpuMs += hs.ctime;
      rssBytes += hs.memory;
    } catch {
      // exited meanwhile
    }
  }
  return { at: Date.now(), cpuMs, rssBytes };
}

/** CPU of a process over a window, as a fraction of one core (1.0 = one core busy). */
export function coreShare(a: ProcSample, b: ProcSample): number {
  return b.at > a.at ? (b.cpuMs - a.cpuMs) / (b.at - a.at) : 0;
}

/** Samples a process every `everyMs` until stopped; `samples` holds them in order. */
export class ProcSampler {
  readonly samples: ProcSample[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pid: number,
    private readonly everyMs = 500,
  ) {}

  /** Take a first sample and keep sampling. */
  async start(): Promise<this> {
    this.samples.push(await sampleProc(this.pid));
    this.timer = setInterval(() => {
      sampleProc(this.pid).then(
        (s) => this.samples.push(s),
        () => undefined, // process gone: the series just ends
      );
    }, this.everyMs);
    return this;
  }

  /** Stop sampling (after one last sample) and return the series. */
  async stop(): Promise<ProcSample[]> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      this.samples.push(await sampleProc(this.pid));
    } catch {
      // gone
    }
    return this.samples;
  }
}

/** Resolve after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
