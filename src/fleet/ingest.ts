/**
 * Exactly-once ingest of one agent's TurnEvent output (ARCHITECTURE decision 3).
 *
 * File mode (the agent's `<session_dir>/stdout.ndjson` is readable, protocol §3.2/§5.6): read the
 * file from the stored byte offset, take complete lines, normalize them, and commit the raw lines
 * (`Frame`), the fleet events and the new offset in ONE transaction — a crash at any point resumes
 * exactly where the last commit ended. The per-agent socket is held for liveness, to attach every
 * non-terminal agent (#51), and as a doorbell: each line it delivers, and its EOF, triggers an
 * immediate read, so live frames are stored without waiting for the tail interval.
 *
 * Socket mode (only the endpoint is reachable): frames carry no ids and a reconnect replays only
 * the last 1024 lines (§3.2), so each new connection is aligned with the stored tail by content;
 * when no alignment exists, lines were evicted before we read them and an `ingest_gap` event is
 * recorded.
 *
 * A task follows its WORKER, not its daemon (issue 12 item 1): workers outlive a killed daemon and
 * keep writing (§1.7 shutdown, §5.7), so a task ends by itself only when the run has ended — its
 * `RunEnd` was ingested (and the stream closed, or {@link RUN_END_LINGER_MS} passed), or its worker
 * is gone (the per-agent endpoint refuses connections for {@link WORKER_GONE_AFTER_MS}: a live
 * worker always accepts, §3.1; the agent record carries no worker pid, §2.3) and the file was read
 * to its end. It then reports through `onEnded`, so the poller reconciles at once (item 6). Lines
 * are stored byte for byte: a line that is not valid UTF-8 keeps its exact bytes (`Frame.bytes`).
 * When ingest must stop before the end of the output, an `ingest_gap` says how much and why.
 */
import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Endpoint } from "../caliband/wire.js";
import { openConnection, type Transport } from "../caliband/transport.js";
import { Unreachable } from "../caliband/errors.js";
import { openAgentStream } from "../caliband/stream.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import type { EventStore, HotExtras } from "../store/events.js";
import type { HotTotals } from "../store/hot-path.js";
import type { IngestGapReason, NewEvent } from "../events/index.js";
import type { FleetMetrics } from "./metrics.js";
import {
  agentTotals,
  initialNormalizerState,
  normalizeLines,
  restoreNormalizerState,
  type NormalizerState,
} from "./normalize.js";
import type { PriceTable } from "./pricing.js";

/**
 * Most lines committed in one transaction when a read holds more (a backlog slice of
 * {@link MAX_READ_BYTES} can hold 10,000+ short lines). The hot path commits synchronously, so a
 * transaction blocks the event loop while it runs (≈10 µs per row, a frame and usually an event
 * per line): 1,024 lines keep that to a few tens of ms, while the commit cost (under 1 ms) stays
 * small beside the rows.
 */
export const MAX_COMMIT_LINES = 1024;

/**
 * How long a worker's endpoint must refuse connections (ENOENT / ECONNREFUSED on every attempt)
 * before the worker counts as gone, ms. A live worker accepts at any time (§3.1); after its exit
 * the socket file is unlinked (daemon alive) or left unanswered (daemon dead).
 */
export const WORKER_GONE_AFTER_MS = 1_500;

/**
 * A worker that never accepted a connection and never wrote a byte counts as gone only after its
 * endpoint refused for this long, ms (it may just not be bound yet, §1.7, or never bind: preflight).
 */
export const NEVER_BOUND_GONE_AFTER_MS = 30_000;

/**
 * After `RunEnd` the worker exits (≈100 ms, §3.1) and writes nothing more; the task ends when the
 * stream closes or, at the latest, this long after the `RunEnd` was ingested, ms.
 */
export const RUN_END_LINGER_MS = 1_000;

/** Unread bytes counted line by line for an `ingest_gap` up to this size; beyond it lines are unknown. */
const GAP_COUNT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Most bytes of stdout.ndjson read and committed at once, so a large backlog (a gateway that was
 * down during a long run, a worker writing flat out) is ingested in bounded slices instead of one
 * giant read and transaction that would exhaust the heap. A single line longer than this is still
 * read whole (the slice widens until it ends).
 */
export const MAX_READ_BYTES = 1 << 20;

/**
 * Bytes the tail loop reads at once through its held handle on stdout.ndjson (issue 17: one
 * `read` per wake-up instead of open + fstat + read + close). A read that fills it is a backlog and
 * goes through the sized path ({@link MAX_READ_BYTES} slices). One buffer this size per file-mode
 * task, allocated at its first read.
 */
export const TAIL_READ_BYTES = 16 * 1024;

/**
 * How stdout.ndjson is opened: read-only and non-blocking, so a FIFO put in its place cannot hold
 * the open (a thread of the pool) until someone writes to it; a file that is not a regular file is
 * then never read. For a regular file the flag changes nothing.
 */
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;

/**
 * `statfs` types (Linux `f_type` magic numbers) of local filesystems, on which the tail loop reads
 * synchronously: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs, ZFS, F2FS. An allowlist: a network or
 * FUSE filesystem, or one this list does not know, is read through the thread pool.
 */
export const LOCAL_FS_TYPES: ReadonlySet<number> = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010,
]);

/** Whether each device (`st_dev`) holds a local filesystem, as found by {@link readsSynchronously}. */
const localDevices = new Map<number, boolean>();

/**
 * Whether the tail loop may read `file` (on device `dev`) synchronously: on Linux, when its
 * filesystem is one of {@link LOCAL_FS_TYPES}; never elsewhere, nor when `statfs` fails. Asked once
 * per device.
 */
async function readsSynchronously(file: string, dev: number): Promise<boolean> {
  const known = localDevices.get(dev);
  if (known !== undefined) return known;
  let local = false;
  if (process.platform === "linux") {
    try {
      local = LOCAL_FS_TYPES.has((await fsp.statfs(file)).type);
    } catch {
      local = false;
    }
  }
  localDevices.set(dev, local);
  return local;
}

/** The worker's replay window (protocol §3.2): at most this many lines are re-sent on connect. */
export const REPLAY_WINDOW = 1024;

/** Which agent to ingest and how to reach its output. */
export interface IngestTarget {
  agentId: string;
  workspace: string;
  /** `session_dir` from the agent record ("" when unknown). */
  sessionDir: string;
  endpoint: Endpoint;
  transport: Transport;
  /** Model from the spawn spec, fallback for pricing when no TurnStart was seen. */
  specModel: string | null;
}

/**
 * How an agent's run ended, as its output shows (persisted with the cursor):
 * - `runEnd`: the `RunEnd` frame's outcome (StopCondition name, §3.3) and when it was written —
 *   the mtime of stdout.ndjson when the RunEnd was its last write, else when the line was read (ms
 *   since the epoch; frames carry no timestamps); null when no RunEnd was ingested;
 * - `workerGoneAtMs`: when the task found the worker gone (ms since the epoch), null if not seen.
 */
export interface RunEndInfo {
  runEnd: { outcome: string; atMs: number } | null;
  workerGoneAtMs: number | null;
}

/** What an ingest task knows about its run now (see {@link IngestTask.progress}). */
export interface IngestProgress extends RunEndInfo {
  /** Every line is ingested and the task has ended for good (cursor `finished`). */
  finished: boolean;
  /** A stream connection to the worker is open right now (the worker is alive). */
  connected: boolean;
}

/** Shared services and tuning of ingest tasks. */
export interface IngestDeps {
  db: PrismaClient;
  store: EventStore;
  prices: PriceTable;
  metrics: FleetMetrics;
  log: Logger;
  /** Pause between reads of a quiet stdout.ndjson, ms (default 100). */
  tailIntervalMs?: number;
  /** Ignore stdout.ndjson and ingest from the socket only (remote daemons; tests). */
  forceSocket?: boolean;
  /** Clock, ms since the epoch. */
  now?: () => number;
  /** Called once a task ended by itself because its run ended (RunEnd, or the worker is gone). */
  onEnded?: (task: IngestTask) => void;
  /** Called when a stream connection to the worker closed (the worker may have exited). */
  onSocketClosed?: (target: IngestTarget) => void;
}

/** One stored line: its text (UTF-8, U+FFFD for invalid bytes) and its exact bytes when not valid UTF-8. */
interface RawLine {
  text: string;
  bytes: Buffer | null;
}

/** `RawLine` of the bytes of one line (newline excluded). */
function rawLine(b: Buffer): RawLine {
  return { text: b.toString("utf8"), bytes: isUtf8(b) ? null : Buffer.from(b) };
}

/**
 * Whether the worker at `endpoint` accepts a connection right now (one attempt, no retry, within
 * `deadlineMs`): true when it does (the connection is closed at once, nothing is written on Unix
 * sockets), false when it refuses, is missing, times out or fails otherwise. Never throws.
 */
export async function probeWorker(
  endpoint: Endpoint,
  transport: Transport,
  deadlineMs = 1_000,
): Promise<boolean> {
  try {
    const socket = await openConnection(endpoint, transport, { deadlineMs });
    socket.destroy();
    return true;
  } catch {
    return false;
  }
}

/** Persisted position (the `IngestCursor` row) plus running cost. */
interface Cursor {
  mode: "file" | "socket";
  byteOffset: number;
  lineCount: number;
  normalizer: NormalizerState;
  /** Sum of turn costs in USD; null once any turn could not be priced. */
  costUsd: number | null;
  finished: boolean;
  runEnd: RunEndInfo["runEnd"];
  workerGoneAtMs: number | null;
}

interface StoredState {
  normalizer: unknown;
  costUsd: number | null;
  runEnd?: RunEndInfo["runEnd"];
  workerGoneAtMs?: number | null;
}

/** A stored `runEnd`, checked (anything else: none). */
function restoreRunEnd(v: unknown): RunEndInfo["runEnd"] {
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  return typeof o.outcome === "string" && typeof o.atMs === "number"
    ? { outcome: o.outcome, atMs: o.atMs }
    : null;
}

/** An endpoint that refuses: nothing listens (ECONNREFUSED) or the socket file is gone (ENOENT). */
function isRefusal(err: unknown): boolean {
  return err instanceof Unreachable && (err.errno === "ECONNREFUSED" || err.errno === "ENOENT");
}

/** Sleep `ms`, or less when `signal` aborts; never leaves a listener behind on the signal. */
export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Ingests one agent until stopped or finished. Create with {@link IngestTask.start}. */
export class IngestTask {
  private cursor!: Cursor;
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  /** Last ≤ REPLAY_WINDOW stored lines (socket mode alignment). */
  private recent: string[] = [];
  /** Why the task's loop ended by itself (its run ended), or null. */
  private endReason: "run_end" | "worker_gone" | null = null;
  /** A stream connection to the worker is open now. */
  private socketOpen = false;
  /** A stream connection delivered at least one line (this process). */
  private everConnected = false;
  /** Since when every connect attempt was refused (ms since the epoch), or null. */
  private refusedSince: number | null = null;
  /** When the task itself saw the RunEnd (ms since the epoch, this process), for the linger. */
  private runEndSeenAt: number | null = null;
  /** When the worker was found gone (ms since the epoch), restored from the cursor at load. */
  private goneAt: number | null = null;
  /** Largest size of stdout.ndjson seen, bytes (what was there to read). */
  private knownSize = 0;
  /** stdout.ndjson held open by the tail loop between wake-ups, with its identity; null when not held. */
  private held: { fh: fsp.FileHandle; dev: number; ino: number; syncRead: boolean } | null = null;
  /** The last open error (code) the tail loop logged, so each kind is said once. */
  private openErrorLogged: string | null = null;
  /** The tail loop's read buffer ({@link TAIL_READ_BYTES}, at the first read; what it commits is copied out). */
  private tailBuf: Buffer | null = null;
  /** The self-ending of the task (finish + onEnded) once its loop ended by itself. */
  private settling: Promise<void> | null = null;
  /** A doorbell (a line on the stream socket) came since the tail loop last started a read. */
  private rung = false;
  /** The tail loop's last read committed lines and reached the end of the file as it was then. */
  private tailAtEnd = false;
  private stopped = false;
  private finished: Promise<void> | null = null;
  private readonly log: Logger;
  private readonly now: () => number;

  private constructor(
    readonly target: IngestTarget,
    private readonly deps: IngestDeps,
  ) {
    this.log = deps.log.child({ module: "ingest", agent: target.agentId });
    this.now = deps.now ?? Date.now;
  }

  /** Load (or create) the agent's cursor and start ingesting in the background. */
  static async start(target: IngestTarget, deps: IngestDeps): Promise<IngestTask> {
    const task = new IngestTask(target, deps);
    await task.load();
    if (!task.cursor.finished) {
      task.loop = task.cursor.mode === "file" ? task.runFile() : task.runSocket();
      void task.loop.then(() => {
        if (task.endReason !== null) task.settle();
      });
    }
    return task;
  }

  /** The run ended: read what is left, mark the cursor finished, then tell `onEnded`. */
  private settle(): void {
    this.settling ??= this.finish().then(() => {
      if (!this.cursor.finished) return;
      try {
        this.deps.onEnded?.(this);
      } catch (err) {
        this.log.error({ err }, "onEnded listener threw");
      }
    });
  }

  /** True when every line has been ingested and the task has ended for good. */
  get isFinished(): boolean {
    return this.cursor.finished;
  }

  /** How the run ended, as far as its output shows (persisted; survives a gateway restart). */
  get runEndInfo(): RunEndInfo {
    return { runEnd: this.cursor.runEnd, workerGoneAtMs: this.goneAt };
  }

  /** What the task knows now: how the run ended, whether ingest finished, whether the worker is connected. */
  progress(): IngestProgress {
    return { ...this.runEndInfo, finished: this.cursor.finished, connected: this.socketOpen };
  }

  /** Lines stored so far. */
  get lineCount(): number {
    return this.cursor.lineCount;
  }

  /** Bytes of stdout.ndjson not yet ingested at the last read (file mode; 0 otherwise). */
  lagBytes = 0;

  private get file(): string {
    return path.join(this.target.sessionDir, "stdout.ndjson");
  }

  private async load(): Promise<void> {
    const row = await this.deps.db.ingestCursor.findUnique({ where: { agentId: this.target.agentId } });
    if (row) {
      const st = (row.state ?? {}) as Partial<StoredState>;
      this.cursor = {
        mode: row.mode === "socket" ? "socket" : "file",
        byteOffset: row.byteOffset,
        lineCount: row.lineCount,
        normalizer: restoreNormalizerState(st.normalizer),
        costUsd: st.costUsd === undefined ? 0 : st.costUsd,
        finished: row.finished,
        runEnd: restoreRunEnd(st.runEnd),
        workerGoneAtMs: typeof st.workerGoneAtMs === "number" ? st.workerGoneAtMs : null,
      };
      this.knownSize = row.byteOffset;
      this.goneAt = this.cursor.workerGoneAtMs;
    } else {
      this.cursor = {
        mode: (await this.fileReadable()) ? "file" : "socket",
        byteOffset: 0,
        lineCount: 0,
        normalizer: initialNormalizerState(),
        costUsd: 0,
        finished: false,
        runEnd: null,
        workerGoneAtMs: null,
      };
    }
    if (this.cursor.mode === "socket" && this.cursor.lineCount > 0) {
      const rows = await this.deps.db.frame.findMany({
        where: { agentId: this.target.agentId },
        orderBy: { line: "desc" },
        take: REPLAY_WINDOW,
        select: { text: true },
      });
      this.recent = rows.map((r) => r.text).reverse();
    }
  }

  private async fileReadable(): Promise<boolean> {
    if (this.deps.forceSocket || this.target.sessionDir === "") return false;
    try {
      await fsp.access(this.target.sessionDir, fsp.constants.R_OK | fsp.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Commit: frames + events + cursor (+ run totals) in one transaction
  // -------------------------------------------------------------------------------------------

  /**
   * Normalize `lines` and commit them with the cursor advanced to `byteOffset`. `fileEndMtimeMs`:
   * the batch reaches the end of stdout.ndjson; it gives the instant the file was last written (a
   * RunEnd in it was written then, not when we read it), asked only when the batch holds a RunEnd
   * (undefined when the file cannot be stat'ed).
   * @returns false (after logging) when the commit failed; nothing advanced, the caller retries.
   */
  private async commit(
    lines: RawLine[],
    byteOffset: number,
    extraEvents: NewEvent[] = [],
    finished = false,
    fileEndMtimeMs?: () => Promise<number | undefined>,
  ): Promise<boolean> {
    const { agentId, workspace } = this.target;
    const ts = this.now();
    const res = normalizeLines(
      this.cursor.normalizer,
      lines.map((l) => ({ line: l.text, tsMs: ts })),
      { workspace, agentId, prices: this.deps.prices, specModel: this.target.specModel },
    );
    let costUsd = this.cursor.costUsd;
    let totals: HotTotals | null = null;
    for (const e of res.events) {
      if (e.kind === "turn_completed") {
        costUsd =
          costUsd === null || e.payload.estimatedCostUsd === null
            ? null
            : costUsd + e.payload.estimatedCostUsd;
      }
    }
    const fin = res.events.find((e) => e.kind === "agent_finished");
    let runEnd = this.cursor.runEnd;
    if (fin && fin.kind === "agent_finished" && runEnd === null) {
      const mtime = await fileEndMtimeMs?.();
      const written = mtime === undefined ? ts : Math.min(ts, Math.floor(mtime));
      runEnd = { outcome: fin.payload.outcome, atMs: written };
    }
    // Turns, tokens and cost are the counted turns' (agentTotals), as `usage` counts them (issue 12
    // item 11); RunEnd's own turn_count/total_usage stay on its agent_finished event.
    if (fin && fin.kind === "agent_finished") {
      const p = fin.payload;
      totals = {
        agentId,
        ...agentTotals(res.state),
        costUsd,
        outcome: p.outcome,
        ...(p.model ? { model: p.model } : {}),
      };
    } else if (res.events.some((e) => e.kind === "turn_completed" || e.kind === "turn_started")) {
      totals = {
        agentId,
        ...agentTotals(res.state),
        costUsd,
        ...(res.state.model ? { model: res.state.model } : {}),
      };
    }
    const next: Cursor = {
      mode: this.cursor.mode,
      byteOffset,
      lineCount: this.cursor.lineCount + lines.length,
      normalizer: res.state,
      costUsd,
      finished: finished || this.cursor.finished,
      runEnd,
      workerGoneAtMs: this.goneAt,
    };
    const state: StoredState = {
      normalizer: next.normalizer,
      costUsd: next.costUsd,
      runEnd: next.runEnd,
      workerGoneAtMs: next.workerGoneAtMs,
    };
    const firstLine = this.cursor.lineCount;
    // Plain rows for the writer's hot path (src/store/hot-path.ts): frames, the cursor and the run's
    // totals commit in the events' transaction, so the offset never advances without its frames.
    const hot: HotExtras = {
      frames: lines.map((l, j) => ({ agentId, line: firstLine + j, text: l.text, bytes: l.bytes, tsMs: ts })),
      cursor: {
        agentId,
        workspace,
        mode: next.mode,
        byteOffset: next.byteOffset,
        lineCount: next.lineCount,
        state: JSON.stringify(state),
        finished: next.finished,
        tsMs: ts,
      },
      ...(totals ? { totals } : {}),
    };
    try {
      await this.deps.store.append([...extraEvents, ...res.events], { hot, onFailure: "throw" });
    } catch (err) {
      this.deps.metrics.ingest_commit_failures_total++;
      this.log.warn({ err }, "ingest commit failed; will retry from the same position");
      return false;
    }
    this.cursor = next;
    if (runEnd !== null && this.runEndSeenAt === null) this.runEndSeenAt = this.now();
    this.deps.metrics.frames_ingested_total += lines.length;
    this.deps.metrics.unknown_frames_total += res.unknownFrames;
    this.deps.metrics.invalid_lines_total += res.invalidLines;
    // Gaps are the task's own (the normalizer never emits one).
    for (const e of extraEvents) if (e.kind === "ingest_gap") this.deps.metrics.ingest_gaps_total++;
    if (this.cursor.mode === "socket") {
      for (const l of lines) this.recent.push(l.text);
      if (this.recent.length > REPLAY_WINDOW) this.recent.splice(0, this.recent.length - REPLAY_WINDOW);
    }
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // File mode
  // -------------------------------------------------------------------------------------------

  /**
   * Read what the worker appended since the cursor (at most {@link MAX_READ_BYTES}, widened for
   * one longer line) and commit its complete lines, byte for byte. With `final` (the worker has
   * exited) and the read reaching the end of the file, a trailing line without `\n` is taken as the
   * last line. Reads through `held` when given (the tail loop's handle, left open), else opens the
   * file by its path for this read (the finish path).
   * @returns true when something was committed.
   */
  private async readFileOnce(final: boolean, held?: fsp.FileHandle): Promise<boolean> {
    let fh: fsp.FileHandle;
    if (held) fh = held;
    else {
      try {
        fh = await fsp.open(this.file, OPEN_FLAGS);
      } catch {
        return false; // not created yet, or already removed
      }
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) return false; // a FIFO or device is never read (tailOnce says so)
      const size = st.size;
      this.knownSize = Math.max(this.knownSize, size);
      const offset = this.cursor.byteOffset;
      this.lagBytes = Math.max(0, size - offset);
      if (size <= offset) return false;
      let want = Math.min(size - offset, MAX_READ_BYTES);
      let data: Buffer;
      for (;;) {
        const buf = Buffer.alloc(want);
        const { bytesRead } = await fh.read(buf, 0, want, offset);
        data = buf.subarray(0, bytesRead);
        if (bytesRead < want || offset + bytesRead >= size || data.lastIndexOf(0x0a) >= 0) break;
        want = Math.min(size - offset, want * 2); // one line longer than the slice: widen until it ends
      }
      return await this.commitRead(data, offset, size, final, () => Promise.resolve(st.mtimeMs));
    } finally {
      if (!held) await fh.close();
    }
  }

  /**
   * The tail loop's read (file mode, worker running): through a handle on stdout.ndjson held
   * between wake-ups, one `read` of up to {@link TAIL_READ_BYTES} at the cursor — a frame's doorbell
   * costs one system call, not four. A read that fills the buffer (a backlog) goes on through the
   * same handle in sized slices ({@link readFileOnce}). Whenever a wake-up commits nothing, the
   * path is checked to still name the held file: removed or replaced (another inode), the handle is
   * drained (what was appended to it meanwhile is committed), then dropped once it gives nothing
   * more, and the path reopened at the next wake-up. So lines a worker keeps appending to a file
   * that was renamed away are read until they stop; then the file at the path is read. Never takes a
   * trailing partial line (the worker is live). Holds one descriptor per running file-mode task
   * besides its stream socket (Node raises the soft descriptor limit to the hard one at start).
   * @returns true when something was committed.
   */
  private async tailOnce(): Promise<boolean> {
    if (this.held === null) {
      let fh: fsp.FileHandle;
      try {
        fh = await fsp.open(this.file, OPEN_FLAGS);
      } catch (err) {
        // Not created yet, or already removed: wait. Anything else (EMFILE, EACCES) is said once.
        const code = (err as NodeJS.ErrnoException).code ?? String(err);
        if (code !== "ENOENT" && code !== this.openErrorLogged) {
          this.openErrorLogged = code;
          this.log.warn({ err, file: this.file }, "cannot open stdout.ndjson; retrying at each wake-up");
        }
        return false;
      }
      try {
        const st = await fh.stat();
        if (!st.isFile()) {
          // A FIFO or device in its place would block a read: it is never read (said once).
          await fh.close().catch(() => undefined);
          if (this.openErrorLogged !== "not_regular") {
            this.openErrorLogged = "not_regular";
            this.log.warn({ file: this.file }, "stdout.ndjson is not a regular file; not read");
          }
          return false;
        }
        this.held = { fh, dev: st.dev, ino: st.ino, syncRead: await readsSynchronously(this.file, st.dev) };
      } catch {
        await fh.close().catch(() => undefined);
        return false;
      }
    }
    const { fh, syncRead } = this.held;
    const buf = (this.tailBuf ??= Buffer.allocUnsafe(TAIL_READ_BYTES));
    const offset = this.cursor.byteOffset;
    let bytesRead: number;
    this.tailAtEnd = false;
    try {
      // On a local filesystem, synchronous: at most TAIL_READ_BYTES of a regular file just written
      // (the page cache), a copy of µs — where a thread-pool read costs a turn of the event loop
      // per frame of every agent (issue 17: latency of the realistic fleet). Anywhere else (NFS,
      // FUSE: a read may wait on a server) through the pool. A backlog goes through the async path.
      bytesRead = syncRead
        ? fs.readSync(fh.fd, buf, 0, TAIL_READ_BYTES, offset)
        : (await fh.read(buf, 0, TAIL_READ_BYTES, offset)).bytesRead;
    } catch {
      await this.dropHeld();
      return false;
    }
    if (bytesRead === TAIL_READ_BYTES) {
      try {
        if (await this.readFileOnce(false, fh)) return true;
      } catch {
        await this.dropHeld();
        return false;
      }
    } else if (bytesRead > 0) {
      // A short read of a regular file ends at its end: the size is known without an fstat.
      const data = Buffer.from(buf.subarray(0, bytesRead));
      const size = offset + bytesRead;
      this.knownSize = Math.max(this.knownSize, size);
      this.lagBytes = bytesRead; // until committed (commitRead lowers it slice by slice)
      const mtime = (): Promise<number | undefined> =>
        fh.stat().then(
          (st) => st.mtimeMs,
          () => undefined,
        );
      if (await this.commitRead(data, offset, size, false, mtime)) {
        this.tailAtEnd = true;
        return true;
      }
    } else {
      this.lagBytes = 0;
    }
    // Nothing committed (nothing new, a partial line, or a failed commit): is the path still the
    // held file?
    const same = await fsp.stat(this.file).then(
      (st) => st.dev === this.held?.dev && st.ino === this.held?.ino,
      () => false,
    );
    if (same) return false;
    // Removed or replaced: what was appended to the held file since the read above is still read
    // through it; once it gives nothing more, the path is reopened at the next wake-up.
    try {
      if (await this.readFileOnce(false, fh)) return true;
    } catch {
      // unreadable now: drop it
    }
    await this.dropHeld();
    return false;
  }

  /** Close the tail loop's held handle (if any). */
  private async dropHeld(): Promise<void> {
    const h = this.held;
    this.held = null;
    await h?.fh.close().catch(() => undefined);
  }

  /**
   * Commit the complete lines of `data` (bytes `[offset, offset + data.length)` of a file of `size`
   * bytes) in slices of at most {@link MAX_COMMIT_LINES}, each with the offset after its last line.
   * With `final` and `data` reaching `size`, a trailing line without `\n` is the last line.
   * @returns true when something was committed (false: no complete line, or a commit failed).
   */
  private async commitRead(
    data: Buffer,
    offset: number,
    size: number,
    final: boolean,
    mtime: () => Promise<number | undefined>,
  ): Promise<boolean> {
    const atEnd = offset + data.length >= size;
    const lastNl = data.lastIndexOf(0x0a);
    let body: Buffer;
    let consumed: number;
    if (final && atEnd) {
      body = data[data.length - 1] === 0x0a ? data.subarray(0, data.length - 1) : data;
      consumed = data.length;
    } else {
      if (lastNl < 0) return false;
      body = data.subarray(0, lastNl);
      consumed = lastNl + 1;
    }
    const lines: RawLine[] = [];
    /** Position in `data` after each line and its newline (the last one's: `consumed`). */
    const ends: number[] = [];
    for (let start = 0; ;) {
      const nl = body.indexOf(0x0a, start);
      lines.push(rawLine(body.subarray(start, nl < 0 ? body.length : nl)));
      if (nl < 0) break;
      ends.push(nl + 1);
      start = nl + 1;
    }
    ends.push(consumed);
    for (let i = 0; i < lines.length; i += MAX_COMMIT_LINES) {
      const j = Math.min(lines.length, i + MAX_COMMIT_LINES);
      const end = offset + ends[j - 1]!;
      const reachesEnd = end >= size;
      const committed = await this.commit(lines.slice(i, j), end, [], false, reachesEnd ? mtime : undefined);
      if (!committed) return false;
      this.lagBytes = Math.max(0, size - end);
    }
    return true;
  }

  /** Size of stdout.ndjson in bytes, or null when it does not exist (or cannot be read). */
  private async fileSize(): Promise<number | null> {
    try {
      const size = (await fsp.stat(this.file)).size;
      this.knownSize = Math.max(this.knownSize, size);
      return size;
    } catch {
      return null;
    }
  }

  /**
   * Lines in bytes `[from, to)` of stdout.ndjson (a trailing line without `\n` counts), or null
   * when they cannot be read or are more than {@link GAP_COUNT_MAX_BYTES}.
   */
  private async countLines(from: number, to: number): Promise<number | null> {
    if (to - from > GAP_COUNT_MAX_BYTES) return null;
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.file, OPEN_FLAGS);
    } catch {
      return null;
    }
    try {
      let lines = 0;
      let last = 0x0a;
      const buf = Buffer.alloc(Math.min(MAX_READ_BYTES, Math.max(1, to - from)));
      for (let pos = from; pos < to;) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, to - pos), pos);
        if (bytesRead === 0) break;
        for (let i = 0; i < bytesRead; i++) if (buf[i] === 0x0a) lines++;
        last = buf[bytesRead - 1]!;
        pos += bytesRead;
      }
      return last === 0x0a ? lines : lines + 1;
    } catch {
      return null;
    } finally {
      await fh.close();
    }
  }

  /**
   * Whether the run has ended by the evidence so far (sets `endReason`): its RunEnd was ingested
   * and the stream is closed (or {@link RUN_END_LINGER_MS} passed), or the worker is gone.
   */
  private checkEnded(): boolean {
    if (this.endReason !== null) return true;
    if (this.cursor.runEnd !== null) {
      const seen = this.runEndSeenAt ?? this.now();
      if (!this.socketOpen || this.now() - seen >= RUN_END_LINGER_MS) this.endReason = "run_end";
    } else if (this.goneAt !== null) {
      this.endReason = "worker_gone";
    }
    return this.endReason !== null;
  }

  private async runFile(): Promise<void> {
    const socket = this.holdSocket();
    try {
      await this.tailLoop();
    } finally {
      await this.dropHeld();
    }
    if (this.endReason !== null) {
      // The run ended: stop the socket holder and let settle() drain the rest.
      this.stopped = true;
      this.abort.abort();
    }
    await socket;
  }

  /** Read the file as the worker writes it until stopped or the run has ended (file mode). */
  private async tailLoop(): Promise<void> {
    const tail = this.deps.tailIntervalMs ?? 100;
    while (!this.stopped) {
      this.rung = false;
      const progressed = await this.tailOnce();
      if (this.checkEnded()) break;
      // After a read that reached the file's end, read again only when a doorbell rang meanwhile
      // (or at the tail interval): an immediate second read would find nothing, for every frame.
      if (!progressed || (this.tailAtEnd && !this.rung)) {
        // Until the tail interval passes, a line on the socket wakes us, or stop() aborts. The
        // timer and the abort listener go with the wake-up: at thousands of wake-ups a second,
        // leaving them to the timer piled listeners on the signal (MaxListenersExceededWarning).
        const signal = this.abort.signal;
        // Waiting for a RunEnd's stream to close: look again when the linger is over.
        const wait = this.cursor.runEnd !== null ? Math.min(tail, RUN_END_LINGER_MS) : tail;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            this.wakeUp = null;
            resolve();
          };
          const timer = setTimeout(done, wait);
          signal.addEventListener("abort", done, { once: true });
          this.wakeUp = done;
          if (signal.aborted || this.rung) done();
        });
      }
    }
  }

  /**
   * Whether the worker counts as gone after its endpoint refused every attempt since
   * `refusedSince`: after {@link WORKER_GONE_AFTER_MS} when it ever streamed (or wrote a byte, or
   * ended its run), else after {@link NEVER_BOUND_GONE_AFTER_MS} (it may not be bound yet).
   */
  private async workerGone(now: number): Promise<boolean> {
    if (this.refusedSince === null) return false;
    const refusedFor = now - this.refusedSince;
    const wroteSomething =
      this.everConnected ||
      this.cursor.runEnd !== null ||
      this.cursor.byteOffset > 0 ||
      ((await this.fileSize()) ?? 0) > 0;
    return refusedFor >= (wroteSomething ? WORKER_GONE_AFTER_MS : NEVER_BOUND_GONE_AFTER_MS);
  }

  /**
   * Keep a stream connection open for liveness; each line and its end wake the file reader. A
   * connection that closes is reported (`onSocketClosed`); an endpoint that keeps refusing means
   * the worker is gone, which ends the holding (and, once the file is read, the task).
   */
  private async holdSocket(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      let connected = false;
      let refused = false;
      const attemptAt = Date.now();
      try {
        for await (const _line of openAgentStream(this.target.endpoint, this.target.transport, {
          signal: this.abort.signal,
          connectDeadlineMs: WORKER_GONE_AFTER_MS,
        })) {
          if (!connected) {
            connected = true;
            this.socketOpen = true;
            this.everConnected = true;
            this.refusedSince = null;
            backoff = 100;
            this.deps.metrics.active_attaches++;
          }
          // A doorbell: the worker wrote a frame, so read the file now instead of at the next
          // tail interval (if it is not on disk yet, the next line or the interval picks it up).
          this.rung = true;
          this.wakeUp?.();
        }
      } catch (err) {
        // unreachable (not bound yet, or exited) — retried below
        refused = !connected && isRefusal(err);
      } finally {
        if (connected) {
          this.deps.metrics.active_attaches--;
          this.socketOpen = false;
        }
      }
      if (this.stopped) break;
      if (connected) this.notifySocketClosed();
      if (refused) {
        this.refusedSince ??= attemptAt;
        if (await this.workerGone(this.now())) {
          this.goneAt = this.now();
          this.log.debug("worker gone: its endpoint refuses connections");
          this.wakeUp?.();
          return;
        }
      } else if (!connected) {
        this.refusedSince = null; // something answered (a timeout, an untrusted file): not proof of exit
      }
      this.wakeUp?.();
      await abortableSleep(backoff, this.abort.signal);
      backoff = Math.min(backoff * 2, 5_000);
    }
  }

  private notifySocketClosed(): void {
    try {
      this.deps.onSocketClosed?.(this.target);
    } catch (err) {
      this.log.error({ err }, "onSocketClosed listener threw");
    }
  }

  // -------------------------------------------------------------------------------------------
  // Socket mode
  // -------------------------------------------------------------------------------------------

  /**
   * Align a new connection's first lines with the stored tail (§3.2): the connection starts at
   * global line g ≥ stored − 1024; pick the smallest g whose overlap matches what we stored.
   * @returns how many of `incoming` are already stored, or -1 when no overlap of ≥ 1 line exists
   *   (lines may have been evicted before we read them).
   */
  static alignReplay(stored: readonly string[], storedTotal: number, incoming: readonly string[]): number {
    const n = storedTotal;
    if (n === 0) return 0;
    const windowStart = n - stored.length; // global index of stored[0]
    // Overlap ≥ 1 line: a connection that starts exactly after our last line cannot be told apart
    // from one that starts later (lines evicted), so "no overlap" is reported as a possible gap.
    for (let g = Math.max(0, n - REPLAY_WINDOW, windowStart); g < n; g++) {
      const overlap = n - g;
      const check = Math.min(overlap, incoming.length);
      if (check === 0) return 0;
      let ok = true;
      for (let i = 0; i < check && ok; i++) ok = stored[g - windowStart + i] === incoming[i];
      if (ok) return check;
    }
    return -1;
  }

  private gapEvent(
    reason: IngestGapReason,
    missed: { lines: number | null; bytes: number | null },
    detail: string,
  ): NewEvent {
    return {
      kind: "ingest_gap",
      payload: { missedLines: missed.lines, missedBytes: missed.bytes, reason, detail },
      workspace: this.target.workspace,
      agentId: this.target.agentId,
      tsMs: this.now(),
    };
  }

  private async runSocket(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      let connected = false;
      let refused = false;
      const attemptAt = Date.now();
      const pending: RawLine[] = [];
      let aligned = false;
      // Lines to commit, batched: whatever arrived while the previous commit ran goes in the next,
      // at most MAX_COMMIT_LINES per commit (as in file mode: a backlog that built up while a
      // commit was retried never becomes one long synchronous transaction).
      const queue: RawLine[] = [];
      const queuedEvents: NewEvent[] = [];
      let flushing: Promise<void> | null = null;
      const flush = () => {
        flushing ??= (async () => {
          while (queue.length > 0 || queuedEvents.length > 0) {
            await this.commitRetrying(queue.splice(0, MAX_COMMIT_LINES), queuedEvents.splice(0));
          }
        })().finally(() => {
          flushing = null;
        });
      };
      let quiet: NodeJS.Timeout | undefined;
      const decide = () => {
        if (aligned) return;
        aligned = true;
        const dup = IngestTask.alignReplay(
          this.recent,
          this.cursor.lineCount,
          pending.map((l) => l.text),
        );
        const fresh = dup < 0 ? pending.splice(0) : pending.splice(0).slice(dup);
        if (dup < 0) {
          queuedEvents.push(
            this.gapEvent(
              "replay_evicted",
              { lines: null, bytes: null },
              "the worker's replay did not overlap stored history: lines were evicted before they were read",
            ),
          );
        }
        queue.push(...fresh);
        flush();
      };
      const needed = Math.min(this.cursor.lineCount, REPLAY_WINDOW);
      try {
        for await (const sl of openAgentStream(this.target.endpoint, this.target.transport, {
          signal: this.abort.signal,
          connectDeadlineMs: WORKER_GONE_AFTER_MS,
        })) {
          if (!connected) {
            connected = true;
            this.socketOpen = true;
            this.everConnected = true;
            this.refusedSince = null;
            this.lastStreamEndedCleanly = false;
            backoff = 100;
            this.deps.metrics.active_attaches++;
          }
          const line: RawLine = { text: sl.line, bytes: sl.bytes };
          if (!aligned) {
            pending.push(line);
            clearTimeout(quiet);
            if (pending.length > needed) decide();
            else quiet = setTimeout(decide, 300);
          } else {
            queue.push(line);
            flush();
          }
        }
        if (connected) this.lastStreamEndedCleanly = true;
      } catch (err) {
        // dropped or unreachable — reconnect below
        refused = !connected && isRefusal(err);
      } finally {
        clearTimeout(quiet);
        if (connected) {
          this.deps.metrics.active_attaches--;
          this.socketOpen = false;
        }
      }
      if (connected) decide();
      while (flushing) await flushing;
      if (connected && !this.stopped) this.notifySocketClosed();
      if (this.finishing && connected) break;
      // The run ended: its RunEnd came and the worker closed the stream, or the worker is gone.
      if (connected && this.lastStreamEndedCleanly && this.cursor.runEnd !== null) {
        this.endReason = "run_end";
        break;
      }
      if (refused) {
        this.refusedSince ??= attemptAt;
        const wrote = this.everConnected || this.cursor.lineCount > 0 || this.cursor.runEnd !== null;
        const limit = wrote ? WORKER_GONE_AFTER_MS : NEVER_BOUND_GONE_AFTER_MS;
        if (this.now() - this.refusedSince >= limit) {
          this.goneAt = this.now();
          this.endReason = "worker_gone";
          break;
        }
      } else if (!connected) {
        this.refusedSince = null;
      }
      await abortableSleep(backoff, this.abort.signal);
      backoff = Math.min(backoff * 2, 5_000);
      if (this.finishing) break;
    }
  }

  private finishing = false;
  /** Socket mode: the last stream connection ended with EOF (the worker closed it), not an error. */
  private lastStreamEndedCleanly = false;

  private async commitRetrying(lines: RawLine[], extra: NewEvent[] = []): Promise<void> {
    let delay = 50;
    while (!(await this.commit(lines, this.cursor.byteOffset, extra))) {
      if (this.stopped && !this.finishing) return;
      await abortableSleep(delay);
      delay = Math.min(delay * 2, 2_000);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Control
  // -------------------------------------------------------------------------------------------

  /**
   * Ingest everything the worker wrote and end the task for good (before `rm`/`respawn` delete
   * the session dir, and before a terminal status is recorded). File mode drains the file,
   * taking a trailing partial line as the last line; socket mode waits for the stream's EOF up to
   * `timeoutMs`. When the output could not be read to its end — bytes left unread at the deadline,
   * the file removed with bytes unread, the stream not read to its EOF, or the worker still running
   * (so what it writes next is never read) — an `ingest_gap` is stored with the cursor's
   * `finished`, saying how many bytes/lines (when known) and why.
   */
  finish(timeoutMs = 5_000): Promise<void> {
    this.finished ??= (async () => {
      if (this.cursor.finished) return;
      if (this.cursor.mode === "socket") {
        this.finishing = true;
        const done = this.loop;
        const timer = abortableSleep(timeoutMs).then(() => "timeout" as const);
        if ((await Promise.race([done.then(() => "done" as const), timer])) === "timeout") {
          this.log.warn({ timeoutMs }, "socket did not end before finish deadline");
        }
        this.stopped = true;
        this.abort.abort();
        await done;
        if (!this.lastStreamEndedCleanly) {
          await this.commitFinished([
            this.gapEvent(
              "stream_not_ended",
              { lines: null, bytes: null },
              `the stream was not read to its end; lines after line ${this.cursor.lineCount} may be missing`,
            ),
          ]);
          return;
        }
        await this.commitFinished();
        return;
      }
      this.stopped = true;
      this.abort.abort();
      this.wakeUp?.();
      await this.loop;
      // The deadline bounds waiting without progress, never a backlog being read: every slice
      // committed extends it, so a long run's tail is stored in full before `finished`.
      let deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const progressed = await this.readFileOnce(true);
        if (progressed) {
          deadline = Date.now() + timeoutMs;
          continue;
        }
        const size = await this.fileSize();
        if (size === null || size <= this.cursor.byteOffset) break;
        await abortableSleep(50);
      }
      await this.commitFinished(await this.fileGaps());
    })();
    return this.finished;
  }

  /** The `ingest_gap` to store when file-mode ingest ends now (none when nothing is missed). */
  private async fileGaps(): Promise<NewEvent[]> {
    const offset = this.cursor.byteOffset;
    const size = await this.fileSize();
    const running =
      this.cursor.runEnd === null &&
      this.goneAt === null &&
      (await probeWorker(this.target.endpoint, this.target.transport, 500));
    const still = running ? "; its worker is still running, and what it writes from now on is not read" : "";
    if (size !== null && size > offset) {
      const lines = await this.countLines(offset, size);
      return [
        this.gapEvent(
          "deadline",
          { lines, bytes: size - offset },
          `stdout.ndjson could not be read to its end before the finish deadline: ${size - offset} bytes` +
            `${lines === null ? "" : ` (${lines} lines)`} after byte ${offset} were not stored${still}`,
        ),
      ];
    }
    if (size === null && this.knownSize > offset) {
      const bytes = this.knownSize - offset;
      return [
        this.gapEvent(
          "file_removed",
          { lines: null, bytes },
          `stdout.ndjson was removed before it was read to its end: at least ${bytes} bytes after byte ${offset} were not stored${still}`,
        ),
      ];
    }
    if (running) {
      return [
        this.gapEvent(
          "stopped_while_running",
          { lines: null, bytes: null },
          `ingest ended after byte ${offset} (line ${this.cursor.lineCount}) while the worker was still running; what it writes from now on is not stored`,
        ),
      ];
    }
    return [];
  }

  private async commitFinished(events: NewEvent[] = []): Promise<void> {
    let delay = 50;
    for (let i = 0; i < 20; i++) {
      if (await this.commit([], this.cursor.byteOffset, events, true)) return;
      await abortableSleep(delay);
      delay = Math.min(delay * 2, 2_000);
    }
  }

  /** Stop without finishing (gateway shutdown); the cursor resumes the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wakeUp?.();
    await this.loop;
  }
}
