/**
 * Filled launch queues for the `queue-scale` benchmark: a gateway data dir holding `n` QUEUED
 * launches of one workspace with the GLOBAL cap at 0 (stored), made through the real path — the
 * gateway started in this process (`startApp`) and `app.queue.enqueue` per launch — then cached
 * under `bench/.cache/queue-<n>-<key>/` until the committed migrations change (a 100,000-launch
 * fill takes minutes: every enqueue is a commit of its own).
 *
 * Layout of the cache:
 * - `bench/.cache/queue-root/` — the workspace root every filled queue is recorded with (a git
 *   checkout shared by all entries; the benchmark's simulator serves it in each run's own runtime
 *   dir, so the gateway derives a fresh control socket for it);
 * - `queue-<n>-<key>/data/` — the data dir TEMPLATE (`prospero.db`, WAL checkpointed): never start
 *   a gateway on it, copy it first ({@link copyQueueFill});
 * - `queue-<n>-<key>/meta.json` — {@link QueueFillMeta}.
 * An entry is built in a sibling temp dir and renamed into place complete, so a run never sees a
 * half-built one; two runs building the same entry at once both build, and the first rename wins.
 * Entries of the same depth with another key are removed when a new one is built.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { startApp, type App } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { NO_RETRY, PRIORITY_DEFAULT, type LaunchRequest } from "../../src/queue/types.js";
import { DB_FILE } from "../../src/store/db.js";
import { readMigrations } from "../../src/store/migrate.js";
import { initGitRepo } from "../../test/support/temp-workspace.js";
import { CACHE_DIR } from "./history.js";
import { registerScratch } from "./procs.js";
import type { RunContext } from "./report.js";
import { makeDirs, startSim } from "./sim.js";

/** Bump when what a filled queue holds changes (invalidates every entry). */
const FORMAT = 1;

/** The one workspace every filled launch runs in. */
export const QUEUE_WORKSPACE = "q";

/** In-process `enqueue` calls in flight at once (the queue serializes them on its own lock). */
const ENQUEUE_CONCURRENCY = 16;

/** `meta.json` of an entry. */
export interface QueueFillMeta {
  /** Hash of {@link FORMAT} and the committed migrations (names and checksums). */
  key: string;
  /** QUEUED launches in the entry. */
  depth: number;
  workspace: string;
  /** Absolute canonical workspace root recorded in the database. */
  root: string;
  /**
   * The first launch in dispatch order: every launch has the default priority, so the oldest
   * `createdAt`, then the lowest id (not necessarily the first call's: with calls in flight
   * together, the queue stamps `createdAt` before it takes its enqueue lock).
   */
  first: string;
  /** 16 launch ids spread evenly over the fill (call order), for reads of single launches. */
  spread: string[];
  /** The fill, as measured while building: launches/s overall and over its last tenth. */
  fillRate: number;
  fillTailRate: number;
  fillSeconds: number;
  /** CPU of the building process per launch (the gateway ran in it), ms. */
  fillCpuMsPerLaunch: number;
  builtAt: string;
}

/** A ready entry: its meta plus where the template is. */
export interface QueueFill extends QueueFillMeta {
  /** Template data dir (read-only by convention): copy it with {@link copyQueueFill}. */
  dataDir: string;
  /** False when this call built it. */
  cached: boolean;
}

/** What enqueueing measured. */
export interface EnqueueRun {
  /** Launch ids in call order. */
  ids: string[];
  /** The first in dispatch order among them (see {@link QueueFillMeta.first}). */
  first: string;
  /** launches/s over all of them, and over the last tenth. */
  rate: number;
  tailRate: number;
  seconds: number;
  /** This process's CPU per launch, ms. */
  cpuMsPerLaunch: number;
}

function fillKey(): string {
  const parts = readMigrations().map((m) => `${m.name}:${m.checksum}`);
  return createHash("sha256")
    .update(JSON.stringify({ format: FORMAT, migrations: parts }))
    .digest("hex")
    .slice(0, 16);
}

/** The request of every benchmark launch `i` (default priority: dispatch order is age order). */
export function benchLaunch(i: number, tag: string): LaunchRequest {
  return {
    spec: { workspace: QUEUE_WORKSPACE, prompt: `bench:idle queue-scale ${tag} ${i}`, isolated: false },
    dedupKey: null,
    priority: PRIORITY_DEFAULT,
    notBeforeMs: null,
    timeoutMs: null,
    retry: NO_RETRY,
    scheduleId: null,
    createdBy: "bench",
  };
}

/**
 * Run `fn` with the gateway started in this process on `dataDir` (`--max-concurrent 0`, so the
 * GLOBAL cap is stored as 0; no autostart; daemons under `runtimeDir`), then stop it.
 * @throws whatever `startApp` throws (e.g. a data dir another gateway holds).
 */
export async function withInProcessGateway<T>(
  dataDir: string,
  runtimeDir: string,
  fn: (app: App) => Promise<T>,
): Promise<T> {
  const config = resolveConfig(
    { dataDir, port: "0", autostart: false, maxConcurrent: "0" },
    { HOME: process.env.HOME },
  );
  // The gateway's endpoint record for local clients goes beside the data dir, not the user's.
  const xdg = path.join(path.dirname(dataDir), "xdg");
  fs.mkdirSync(xdg, { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CALIBAN_DAEMON_RUNTIME_DIR: runtimeDir,
    XDG_RUNTIME_DIR: xdg,
  };
  delete env.PROSPERO_ADMIN_TOKEN;
  const app = await startApp(config, silentLogger, { env, showTokenInLog: false });
  try {
    return await fn(app);
  } finally {
    await app.stop();
  }
}

/**
 * Enqueue `n` benchmark launches through `app.queue.enqueue` ({@link ENQUEUE_CONCURRENCY} in
 * flight), logging progress every 5 s.
 */
export async function enqueueMany(ctx: RunContext, app: App, n: number, tag: string): Promise<EnqueueRun> {
  const ids = new Array<string>(n);
  let first = { id: "", at: Infinity };
  const tailFrom = Math.floor(n * 0.9);
  let done = 0;
  let next = 0;
  let tailStart = 0;
  let lastLog = Date.now();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const { launch } = await app.queue.enqueue(benchLaunch(i, tag));
      ids[i] = launch.id;
      const at = launch.createdAt.getTime();
      if (at < first.at || (at === first.at && launch.id < first.id)) first = { id: launch.id, at };
      done++;
      if (done === tailFrom) tailStart = performance.now();
      if (Date.now() - lastLog > 5_000) {
        lastLog = Date.now();
        const s = (performance.now() - t0) / 1000;
        ctx.log(`  enqueued ${done}/${n} in ${s.toFixed(1)} s (${Math.round(done / s)}/s so far)`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ENQUEUE_CONCURRENCY, n) }, worker));
  const t1 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  if (tailStart === 0) tailStart = t0;
  return {
    ids,
    first: first.id,
    rate: (n / (t1 - t0)) * 1000,
    tailRate: ((n - tailFrom) / (t1 - tailStart)) * 1000,
    seconds: (t1 - t0) / 1000,
    cpuMsPerLaunch: (cpu.user + cpu.system) / 1000 / n,
  };
}

/** The shared workspace root (created once: a git checkout made aside and renamed into place). */
function ensureRoot(): string {
  const root = path.join(CACHE_DIR, "queue-root");
  if (!fs.existsSync(root)) {
    const tmp = `${root}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    initGitRepo(tmp);
    try {
      fs.renameSync(tmp, root);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // another run made it first
    }
  }
  return fs.realpathSync(root);
}

/**
 * A data dir holding `depth` QUEUED launches (GLOBAL cap 0), from the cache or built now (the
 * gateway in this process, the simulator serving the workspace; progress through `ctx.log`).
 * @throws RangeError for a bad `depth`; Error when the build fails (its temp dir is removed).
 */
export async function ensureQueueFill(ctx: RunContext, depth: number): Promise<QueueFill> {
  if (!Number.isSafeInteger(depth) || depth < 1) {
    throw new RangeError(`depth must be an integer >= 1, got ${String(depth)}`);
  }
  const key = fillKey();
  const name = `queue-${depth}-${key}`;
  const entry = path.join(CACHE_DIR, name);
  const metaFile = path.join(entry, "meta.json");
  if (fs.existsSync(metaFile)) {
    const meta = JSON.parse(fs.readFileSync(metaFile, "utf8")) as QueueFillMeta;
    ctx.log(`queue fill: cached ${entry} (${meta.depth} queued)`);
    return { ...meta, dataDir: path.join(entry, "data"), cached: true };
  }
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const root = ensureRoot();
  const tmp = `${entry}.tmp-${process.pid}`;
  const removeTmp = registerScratch(tmp);
  try {
    const dataDir = path.join(tmp, "data");
    fs.mkdirSync(dataDir, { recursive: true });
    ctx.log(`queue fill: building ${depth} launches in ${entry} (in-process enqueue)`);
    const dirs = makeDirs();
    let run: EnqueueRun;
    try {
      const sim = await startSim(dirs, [root]);
      try {
        run = await withInProcessGateway(dataDir, dirs.runtime, async (app) => {
          await app.fleet.addWorkspace({ name: QUEUE_WORKSPACE, root });
          const r = await enqueueMany(ctx, app, depth, "fill");
          const queued = app.queue.metrics().queued;
          if (queued !== depth) throw new Error(`queue fill: depth ${queued} after enqueueing ${depth}`);
          return r;
        });
      } finally {
        await sim.stop();
      }
    } finally {
      dirs.cleanup();
    }
    const db = new BetterSqlite3(path.join(dataDir, DB_FILE));
    try {
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
    fs.rmSync(path.join(tmp, "xdg"), { recursive: true, force: true });
    const spread = Array.from({ length: 16 }, (_, k) => run.ids[Math.floor(((k + 0.5) / 16) * depth)]!);
    const meta: QueueFillMeta = {
      key,
      depth,
      workspace: QUEUE_WORKSPACE,
      root,
      first: run.first,
      spread,
      fillRate: run.rate,
      fillTailRate: run.tailRate,
      fillSeconds: run.seconds,
      fillCpuMsPerLaunch: run.cpuMsPerLaunch,
      builtAt: new Date().toISOString(),
    };
    fs.writeFileSync(path.join(tmp, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
    ctx.log(
      `queue fill: ${depth} enqueued in ${run.seconds.toFixed(1)} s: ${Math.round(run.rate)}/s overall, ` +
        `${Math.round(run.tailRate)}/s over the last tenth, ${run.cpuMsPerLaunch.toFixed(2)} ms CPU each`,
    );
    try {
      fs.renameSync(tmp, entry);
    } catch {
      // Another run renamed its build into place first: use that one.
    }
    for (const other of fs.readdirSync(CACHE_DIR)) {
      if (other.startsWith(`queue-${depth}-`) && other !== name && !other.includes(".tmp-"))
        fs.rmSync(path.join(CACHE_DIR, other), { recursive: true, force: true });
    }
    const kept = JSON.parse(fs.readFileSync(metaFile, "utf8")) as QueueFillMeta;
    return { ...kept, dataDir: path.join(entry, "data"), cached: false };
  } finally {
    removeTmp();
  }
}

/**
 * Copy an entry's template data dir to `dest` (must not exist) so a gateway can be started on it.
 * @returns `dest`.
 */
export function copyQueueFill(fill: Pick<QueueFill, "dataDir">, dest: string): string {
  fs.cpSync(fill.dataDir, dest, { recursive: true });
  return dest;
}
