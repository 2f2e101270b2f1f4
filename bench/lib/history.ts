/**
 * A stored history for benchmarks that read (replay, cold start): one finished agent with about
 * `n` fleet events, made through the real path (simulator → gateway ingest → SQLite), built once
 * and cached under `bench/.cache/history-<n>/` until the committed migrations change.
 *
 * The worker writes its deltas PACED (`bench:rate=<HISTORY_RATE> bench:count=<n>`, each delta its
 * own fleet event) at a rate ingest keeps up with, so every read is small and the build's memory
 * low; the build's gateway also gets a 6 GiB heap as headroom on slower machines. (Building this
 * history found that a 1,000,000-line burst used to be read and committed as one giant batch — one
 * 376,577-line commit at ~3.4 GB RSS, then the gateway died on the next; ingest now reads 1 MiB
 * slices, src/fleet/ingest.ts MAX_READ_BYTES.)
 *
 * Layout of the cache entry:
 * - `root/` — the workspace root the history was recorded with (a git checkout; kept so the
 *   recorded root exists; no daemon serves it afterwards, so the workspace is just unreachable);
 * - `data/` — the gateway data dir TEMPLATE (`prospero.db`, WAL checkpointed). Never start a
 *   gateway on it (the gateway writes): copy it first ({@link copyHistory}).
 * - `meta.json` — {@link HistoryMeta}; written last, so its presence with the current key marks a
 *   complete entry.
 *
 * Concurrent callers (two benchmark runs) serialize on `bench/.cache/history-<n>.lock` (holder's
 * pid; a lock whose holder is dead is taken over).
 */
import { waitFor } from "../../test/helpers/fleet-harness.js";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { DB_FILE } from "../../src/store/db.js";
import { readMigrations } from "../../src/store/migrate.js";
import { initGitRepo } from "../../test/support/temp-workspace.js";
import { startGateway } from "./gateway.js";
import { REPO, sleep } from "./procs.js";
import type { RunContext } from "./report.js";
import { makeDirs, startSim } from "./sim.js";

/** Where cached histories live (git-ignored). */
export const CACHE_DIR = path.join(REPO, "bench/.cache");

/** Bump when the way a history is recorded changes (invalidates every cache entry). */
const FORMAT = 2;

/** Deltas per second the worker writes while recording a history (the gateway must keep up). */
export const HISTORY_RATE = 5_000;

/** Workspace name the history is recorded under. */
const WORKSPACE = "bench";

/** `meta.json` of a cache entry. */
export interface HistoryMeta {
  /** Cache key: hash of {@link FORMAT} and the committed migrations' names and checksums. */
  key: string;
  /** Events asked for (the `n` of `bench:count=<n>`). */
  requested: number;
  /** Workspace name (`bench`). */
  workspace: string;
  /** Absolute canonical workspace root recorded in the database (`<entry>/root`). */
  root: string;
  /** caliband id of the one agent. */
  agentId: string;
  /** Events stored in the agent's stream (rows of `Event` with `streamKey = agentId`). */
  events: number;
  /** Highest `seq` of the agent's stream. */
  lastSeq: number;
  /** TurnEvent lines stored (`Frame` rows): `requested + 3`. */
  frames: number;
  /** Rows of `Event` in the whole database (the agent's plus workspace/fleet-level ones). */
  totalEvents: number;
  /** Size of `prospero.db`, bytes. */
  dbBytes: number;
  /** Wall time of the build, ms. */
  buildMs: number;
  /** ISO time of the build. */
  builtAt: string;
}

/** A ready history: {@link HistoryMeta} plus where the template is. */
export interface History extends HistoryMeta {
  /** Template data dir (read-only by convention): copy it with {@link copyHistory}. */
  dataDir: string;
  /** False when this call built it, true when it came from the cache. */
  cached: boolean;
}

/** Cache key of the current checkout: FORMAT + migrations (names and SHA-256 checksums). */
export function historyKey(): string {
  const parts = readMigrations().map((m) => `${m.name}:${m.checksum}`);
  return createHash("sha256")
    .update(JSON.stringify({ format: FORMAT, migrations: parts }))
    .digest("hex")
    .slice(0, 16);
}

function readMeta(entry: string): HistoryMeta | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(entry, "meta.json"), "utf8")) as HistoryMeta;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Take the entry's lock (waiting while a live process holds it); returns the release function. */
async function lock(file: string, ctx: RunContext): Promise<() => void> {
  let logged = 0;
  for (;;) {
    try {
      const fd = fs.openSync(file, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = Number(fs.readFileSync(file, "utf8").trim());
    if (!Number.isInteger(holder) || holder <= 0 || !alive(holder)) {
      fs.rmSync(file, { force: true }); // stale
      continue;
    }
    if (Date.now() - logged > 10_000) {
      logged = Date.now();
      ctx.log(`history: waiting for pid ${holder} building ${path.basename(file, ".lock")}`);
    }
    await sleep(500);
  }
}

/**
 * A gateway data dir whose database holds one finished agent (workspace `bench`) with about
 * `events` fleet events: built once through the simulator and a gateway (prompt
 * `bench:rate=<HISTORY_RATE> bench:count=<events>`: TurnStart, `events` text deltas alternating
 * content blocks so every one is its own `OutputEvent`, TurnEnd, RunEnd — so the stream holds
 * `events` + 5 events with the lifecycle ones), then cached in `bench/.cache/history-<events>/` and
 * reused while the committed migrations are unchanged. Building takes about `events / HISTORY_RATE`
 * seconds (1,000,000 events: ~3.5 min) and logs progress through `ctx.log` every 5 s.
 *
 * Callers must not start a gateway on `dataDir`: copy it with {@link copyHistory} first. A gateway
 * started on a copy without a simulator serves the history; the workspace is merely unreachable.
 *
 * @param events number of output events wanted (integer ≥ 1).
 * @returns the template and what it holds ({@link History}).
 * @throws RangeError for a bad `events`; Error when the simulator or gateway fail or the build
 *   does not finish within 30 min (the partial entry is removed).
 */
export async function ensureHistory(ctx: RunContext, events: number): Promise<History> {
  if (!Number.isSafeInteger(events) || events < 1) {
    throw new RangeError(`events must be an integer >= 1, got ${String(events)}`);
  }
  const key = historyKey();
  const entry = path.join(CACHE_DIR, `history-${events}`);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const release = await lock(`${entry}.lock`, ctx);
  try {
    const meta = readMeta(entry);
    if (meta && meta.key === key && fs.existsSync(path.join(entry, "data", DB_FILE))) {
      ctx.log(`history: cached ${entry} (${meta.events} events, agent ${meta.agentId})`);
      return { ...meta, dataDir: path.join(entry, "data"), cached: true };
    }
    if (meta) ctx.log(`history: ${entry} is stale (migrations changed); rebuilding`);
    fs.rmSync(entry, { recursive: true, force: true });
    try {
      const built = await build(ctx, entry, events, key);
      fs.writeFileSync(path.join(entry, "meta.json"), `${JSON.stringify(built, null, 2)}\n`);
      return { ...built, dataDir: path.join(entry, "data"), cached: false };
    } catch (err) {
      fs.rmSync(entry, { recursive: true, force: true });
      throw err;
    }
  } finally {
    release();
  }
}

/**
 * Copy a history's template data dir to `dest` (created; must not exist or be empty) so a gateway
 * can be started on it.
 * @returns `dest`.
 */
export function copyHistory(history: Pick<History, "dataDir">, dest: string): string {
  fs.cpSync(history.dataDir, dest, { recursive: true });
  return dest;
}

const TERMINAL = new Set(["DONE", "FAILED", "KILLED", "CRASHED"]);

async function build(ctx: RunContext, entry: string, n: number, key: string): Promise<HistoryMeta> {
  const t0 = performance.now();
  const root = path.join(entry, "root");
  initGitRepo(root);
  const canonicalRoot = fs.realpathSync(root);
  const dataDir = path.join(entry, "data");
  const dirs = makeDirs();
  ctx.log(`history: building ${n} events in ${entry}`);
  try {
    const sim = await startSim(dirs, [canonicalRoot]);
    try {
      // Headroom for the batch a late read may make if ingest falls behind the paced writer.
      const gw = await startGateway({
        dataDir,
        runtimeDir: dirs.runtime,
        nodeArgs: ["--max-old-space-size=6144"],
      });
      let died: string | null = null;
      void gw.child.exited.then((code) => (died = String(code)));
      try {
        await gw.addWorkspace(WORKSPACE, canonicalRoot);
        const expect = n + 3; // TurnStart, n deltas, TurnEnd, RunEnd
        const agentId = await gw.spawn(WORKSPACE, `history bench:rate=${HISTORY_RATE} bench:count=${n}`);
        let lastLog = Date.now();
        let lastFrames = 0;
        const outcome = await waitFor(
          async () => {
            if (died !== null) return "died";
            const m = await gw.metrics();
            if (Date.now() - lastLog >= 5_000) {
              const rate = ((m.framesIngestedTotal - lastFrames) * 1000) / (Date.now() - lastLog);
              lastLog = Date.now();
              lastFrames = m.framesIngestedTotal;
              ctx.log(`history:   ${m.framesIngestedTotal}/${expect} frames stored (${Math.round(rate)}/s)`);
            }
            if (m.framesIngestedTotal < expect) return false;
            const d = await gw.gql<{ agent: { status: string } | null }>(
              "query($id: String!) { agent(agentId: $id) { status } }",
              { id: agentId },
            );
            return TERMINAL.has(d.agent?.status ?? "") ? "done" : false;
          },
          (n / HISTORY_RATE) * 3_000 + 300_000,
          `${expect} frames stored and agent ${agentId} terminal`,
          100,
        );
        if (outcome === "died") {
          throw new Error(
            `history: the gateway died (${died}) while recording:\n${gw.child.stderr().slice(-4000)}`,
          );
        }
        await sleep(500); // let the final status event and ingest cursor commit settle
      } finally {
        await gw.stop();
      }
    } finally {
      await sim.stop();
    }
  } finally {
    dirs.cleanup();
  }
  const meta = readBack(dataDir, n, key, canonicalRoot, performance.now() - t0);
  ctx.log(
    `history: built ${meta.events} events for agent ${meta.agentId} in ${(meta.buildMs / 1000).toFixed(1)} s (${(meta.dbBytes / 1048576).toFixed(0)} MiB)`,
  );
  return meta;
}

/** Checkpoint the WAL into the database file and read what the history holds. */
function readBack(dataDir: string, n: number, key: string, root: string, buildMs: number): HistoryMeta {
  const file = path.join(dataDir, DB_FILE);
  const db = new BetterSqlite3(file);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    const agents = db.prepare(`SELECT id, status FROM "Agent" WHERE workspace = ?`).all(WORKSPACE) as {
      id: string;
      status: string;
    }[];
    if (agents.length !== 1) throw new Error(`history: expected 1 agent, found ${agents.length}`);
    const agent = agents[0]!;
    const cur = db.prepare(`SELECT finished FROM "IngestCursor" WHERE agentId = ?`).get(agent.id) as
      { finished: number } | undefined;
    if (!cur?.finished) throw new Error(`history: ingest of agent ${agent.id} did not finish`);
    const ev = db
      .prepare(`SELECT count(*) AS c, max(seq) AS s FROM "Event" WHERE streamKey = ?`)
      .get(agent.id) as { c: number; s: number };
    const frames = (
      db.prepare(`SELECT count(*) AS c FROM "Frame" WHERE agentId = ?`).get(agent.id) as { c: number }
    ).c;
    const total = (db.prepare(`SELECT count(*) AS c FROM "Event"`).get() as { c: number }).c;
    return {
      key,
      requested: n,
      workspace: WORKSPACE,
      root,
      agentId: agent.id,
      events: ev.c,
      lastSeq: ev.s,
      frames,
      totalEvents: total,
      dbBytes: fs.statSync(file).size,
      buildMs,
      builtAt: new Date().toISOString(),
    };
  } finally {
    db.close();
  }
}
