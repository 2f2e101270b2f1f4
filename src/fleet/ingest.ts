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
 */
import fsp from "node:fs/promises";
import path from "node:path";
import type { Endpoint } from "../caliband/wire.js";
import type { Transport } from "../caliband/transport.js";
import { openAgentStream } from "../caliband/stream.js";
import type { PrismaClient, Prisma } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/events.js";
import type { PendingOp } from "../store/writer.js";
import type { NewEvent } from "../events/index.js";
import type { FleetMetrics } from "./metrics.js";
import {
  initialNormalizerState,
  normalizeLines,
  restoreNormalizerState,
  type NormalizerState,
} from "./normalize.js";
import type { PriceTable } from "./pricing.js";

/** Frame rows per INSERT statement (4 parameters each; SQLite allows 32766 per statement). */
const FRAME_ROWS_PER_INSERT = 500;

/**
 * Most bytes of stdout.ndjson read and committed at once, so a large backlog (a gateway that was
 * down during a long run, a worker writing flat out) is ingested in bounded slices instead of one
 * giant read and transaction that would exhaust the heap. A single line longer than this is still
 * read whole (the slice widens until it ends).
 */
export const MAX_READ_BYTES = 1 << 20;

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
}

interface StoredState {
  normalizer: unknown;
  costUsd: number | null;
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
    if (!task.cursor.finished) task.loop = task.cursor.mode === "file" ? task.runFile() : task.runSocket();
    return task;
  }

  /** True when every line has been ingested and the task has ended for good. */
  get isFinished(): boolean {
    return this.cursor.finished;
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
      };
    } else {
      this.cursor = {
        mode: (await this.fileReadable()) ? "file" : "socket",
        byteOffset: 0,
        lineCount: 0,
        normalizer: initialNormalizerState(),
        costUsd: 0,
        finished: false,
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
   * Normalize `lines` and commit them with the cursor advanced to `byteOffset`.
   * @returns false (after logging) when the commit failed; nothing advanced, the caller retries.
   */
  private async commit(
    lines: string[],
    byteOffset: number,
    extraEvents: NewEvent[] = [],
    finished = false,
  ): Promise<boolean> {
    const { agentId, workspace } = this.target;
    const ts = this.now();
    const res = normalizeLines(
      this.cursor.normalizer,
      lines.map((line) => ({ line, tsMs: ts })),
      { workspace, agentId, prices: this.deps.prices, specModel: this.target.specModel },
    );
    let costUsd = this.cursor.costUsd;
    let totals: Prisma.AgentUpdateManyMutationInput | null = null;
    for (const e of res.events) {
      if (e.kind === "turn_completed") {
        costUsd =
          costUsd === null || e.payload.estimatedCostUsd === null
            ? null
            : costUsd + e.payload.estimatedCostUsd;
      }
    }
    const fin = res.events.find((e) => e.kind === "agent_finished");
    if (fin && fin.kind === "agent_finished") {
      const p = fin.payload;
      totals = {
        inputTokens: p.usage.input,
        outputTokens: p.usage.output,
        cacheReadTokens: p.usage.cacheRead,
        cacheCreationTokens: p.usage.cacheCreation,
        turns: p.turns,
        costUsd: p.estimatedCostUsd,
        outcome: p.outcome,
        ...(p.model ? { model: p.model } : {}),
      };
    } else if (res.events.some((e) => e.kind === "turn_completed" || e.kind === "turn_started")) {
      const u = res.state.usage;
      totals = {
        inputTokens: u.input,
        outputTokens: u.output,
        cacheReadTokens: u.cacheRead,
        cacheCreationTokens: u.cacheCreation,
        turns: res.state.turnsCompleted,
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
    };
    const state: StoredState = { normalizer: next.normalizer, costUsd: next.costUsd };
    const firstLine = this.cursor.lineCount;
    const extra = (db: PrismaClient): PendingOp[] => {
      // Parameterized SQL on the hot path (see EventStore.append on Prisma's per-create memory).
      const ops: PendingOp[] = [];
      for (let i = 0; i < lines.length; i += FRAME_ROWS_PER_INSERT) {
        const chunk = lines.slice(i, i + FRAME_ROWS_PER_INSERT);
        ops.push(
          db.$executeRawUnsafe(
            `INSERT INTO "Frame" ("agentId", "line", "text", "ts") VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")}`,
            ...chunk.flatMap((text, j) => [agentId, firstLine + i + j, text, ts]),
          ),
        );
      }
      ops.push(
        db.$executeRawUnsafe(
          `INSERT INTO "IngestCursor" ("agentId", "workspace", "mode", "byteOffset", "lineCount", "state", "finished", "updatedAt")
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT("agentId") DO UPDATE SET "workspace" = excluded."workspace", "mode" = excluded."mode",
             "byteOffset" = excluded."byteOffset", "lineCount" = excluded."lineCount", "state" = excluded."state",
             "finished" = excluded."finished", "updatedAt" = excluded."updatedAt"`,
          agentId,
          workspace,
          next.mode,
          next.byteOffset,
          next.lineCount,
          JSON.stringify(state),
          next.finished ? 1 : 0,
          ts,
        ),
      );
      if (totals) ops.push(db.agent.updateMany({ where: { id: agentId }, data: totals }));
      return ops;
    };
    try {
      await this.deps.store.append([...extraEvents, ...res.events], { extra, onFailure: "throw" });
    } catch (err) {
      this.deps.metrics.ingest_commit_failures_total++;
      this.log.warn({ err }, "ingest commit failed; will retry from the same position");
      return false;
    }
    this.cursor = next;
    this.deps.metrics.frames_ingested_total += lines.length;
    this.deps.metrics.unknown_frames_total += res.unknownFrames;
    this.deps.metrics.invalid_lines_total += res.invalidLines;
    if (this.cursor.mode === "socket") {
      this.recent.push(...lines);
      if (this.recent.length > REPLAY_WINDOW) this.recent.splice(0, this.recent.length - REPLAY_WINDOW);
    }
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // File mode
  // -------------------------------------------------------------------------------------------

  /**
   * Read what the worker appended since the cursor (at most {@link MAX_READ_BYTES}, widened for
   * one longer line) and commit its complete lines. With `final` (the worker has exited) and the
   * read reaching the end of the file, a trailing line without `\n` is taken as the last line.
   * @returns true when something was committed.
   */
  private async readFileOnce(final: boolean): Promise<boolean> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(this.file, "r");
    } catch {
      return false; // not created yet, or already removed
    }
    try {
      const size = (await fh.stat()).size;
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
      const lines = body.toString("utf8").split("\n");
      const committed = await this.commit(lines, offset + consumed);
      if (committed) this.lagBytes = Math.max(0, size - (offset + consumed));
      return committed;
    } finally {
      await fh.close();
    }
  }

  private async fileLag(): Promise<number> {
    try {
      return Math.max(0, (await fsp.stat(this.file)).size - this.cursor.byteOffset);
    } catch {
      return 0;
    }
  }

  private async runFile(): Promise<void> {
    const socket = this.holdSocket();
    const tail = this.deps.tailIntervalMs ?? 100;
    while (!this.stopped) {
      const progressed = await this.readFileOnce(false);
      if (!progressed) {
        // Until the tail interval passes, a line on the socket wakes us, or stop() aborts. The
        // timer and the abort listener go with the wake-up: at thousands of wake-ups a second,
        // leaving them to the timer piled listeners on the signal (MaxListenersExceededWarning).
        const signal = this.abort.signal;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            this.wakeUp = null;
            resolve();
          };
          const timer = setTimeout(done, tail);
          signal.addEventListener("abort", done, { once: true });
          this.wakeUp = done;
          if (signal.aborted) done();
        });
      }
    }
    await socket;
  }

  /** Keep a stream connection open for liveness; each line and its end wake the file reader. */
  private async holdSocket(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      let connected = false;
      try {
        for await (const _line of openAgentStream(this.target.endpoint, this.target.transport, {
          signal: this.abort.signal,
          connectDeadlineMs: 2_000,
        })) {
          if (!connected) {
            connected = true;
            backoff = 100;
            this.deps.metrics.active_attaches++;
          }
          // A doorbell: the worker wrote a frame, so read the file now instead of at the next
          // tail interval (if it is not on disk yet, the next line or the interval picks it up).
          this.wakeUp?.();
        }
      } catch {
        // unreachable (not bound yet, or exited) — retried below
      } finally {
        if (connected) this.deps.metrics.active_attaches--;
      }
      this.wakeUp?.();
      await abortableSleep(backoff, this.abort.signal);
      backoff = Math.min(backoff * 2, 5_000);
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

  private async runSocket(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      let connected = false;
      const pending: string[] = [];
      let aligned = false;
      // Lines to commit, batched: whatever arrived while the previous commit ran goes in the next.
      const queue: string[] = [];
      const queuedEvents: NewEvent[] = [];
      let flushing: Promise<void> | null = null;
      const flush = () => {
        flushing ??= (async () => {
          while (queue.length > 0 || queuedEvents.length > 0) {
            await this.commitRetrying(queue.splice(0), queuedEvents.splice(0));
          }
        })().finally(() => {
          flushing = null;
        });
      };
      let quiet: NodeJS.Timeout | undefined;
      const decide = () => {
        if (aligned) return;
        aligned = true;
        const dup = IngestTask.alignReplay(this.recent, this.cursor.lineCount, pending);
        const fresh = dup < 0 ? pending.splice(0) : pending.splice(0).slice(dup);
        if (dup < 0) {
          this.deps.metrics.ingest_gaps_total++;
          queuedEvents.push({
            kind: "ingest_gap",
            payload: {
              missedLines: null,
              detail:
                "the worker's replay did not overlap stored history: lines were evicted before they were read",
            },
            workspace: this.target.workspace,
            agentId: this.target.agentId,
            tsMs: this.now(),
          });
        }
        queue.push(...fresh);
        flush();
      };
      const needed = Math.min(this.cursor.lineCount, REPLAY_WINDOW);
      try {
        for await (const sl of openAgentStream(this.target.endpoint, this.target.transport, {
          signal: this.abort.signal,
          connectDeadlineMs: 2_000,
        })) {
          if (!connected) {
            connected = true;
            this.lastStreamEndedCleanly = false;
            backoff = 100;
            this.deps.metrics.active_attaches++;
          }
          if (!aligned) {
            pending.push(sl.line);
            clearTimeout(quiet);
            if (pending.length > needed) decide();
            else quiet = setTimeout(decide, 300);
          } else {
            queue.push(sl.line);
            flush();
          }
        }
        if (connected) this.lastStreamEndedCleanly = true;
      } catch {
        // dropped or unreachable — reconnect below
      } finally {
        clearTimeout(quiet);
        if (connected) this.deps.metrics.active_attaches--;
      }
      if (connected) decide();
      while (flushing) await flushing;
      if (this.finishing && connected) break;
      await abortableSleep(backoff, this.abort.signal);
      backoff = Math.min(backoff * 2, 5_000);
      if (this.finishing) break;
    }
  }

  private finishing = false;
  /** Socket mode: the last stream connection ended with EOF (the worker closed it), not an error. */
  private lastStreamEndedCleanly = false;

  private async commitRetrying(lines: string[], extra: NewEvent[] = []): Promise<void> {
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
   * `timeoutMs`.
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
          this.deps.metrics.ingest_gaps_total++;
          await this.commitFinished([
            {
              kind: "ingest_gap",
              payload: {
                missedLines: null,
                detail: `the stream was not read to its end; lines after line ${this.cursor.lineCount} may be missing`,
              },
              workspace: this.target.workspace,
              agentId: this.target.agentId,
              tsMs: this.now(),
            },
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
        if ((await this.fileLag()) === 0) break;
        await abortableSleep(50);
      }
      await this.commitFinished();
    })();
    return this.finished;
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
