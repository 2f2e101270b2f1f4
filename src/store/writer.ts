/**
 * The single in-process writer (ARCHITECTURE decision 7). Every database write goes through one
 * FIFO queue of two kinds of jobs, committed one run at a time in queue order:
 * - Prisma jobs: consecutive ones are grouped into ONE batch transaction
 *   (`prisma.$transaction([...])`, never an interactive transaction: the better-sqlite3 adapter
 *   would run unrelated outer queries inside it).
 * - Hot jobs (plain data, src/store/hot-path.ts): consecutive ones are committed in ONE transaction
 *   by the {@link HotPathWriter}, on its own connection of the same file. A hot job arriving at an
 *   idle writer waits for a short group-commit window (the rest of the event-loop turn, or
 *   `hotWindowMs`) so that jobs of many runs share a transaction (and its WAL sync).
 * Because runs commit one after another, seq order is commit order across both kinds, and a row a
 * Prisma job creates (a run's Agent row) is committed before a later hot job references it.
 * If a grouped run fails, its jobs are retried one by one so a single bad job fails alone.
 */
import type { PrismaClient, Prisma } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { hotJobRows, type HotJob, type HotPathWriter, type HotResult } from "./hot-path.js";

/** A Prisma operation that has not run yet (what `prisma.x.create(...)` returns). */
export type PendingOp = Prisma.PrismaPromise<unknown>;

/**
 * A write job: builds the operations to run, given the client. Called at commit time (so values
 * it reads from memory are current); must not perform I/O itself.
 */
export type WriteJob = (db: PrismaClient) => readonly PendingOp[];

interface QueuedPrisma {
  kind: "prisma";
  job: WriteJob;
  resolve: (results: unknown[]) => void;
  reject: (err: unknown) => void;
}

interface QueuedHot {
  kind: "hot";
  job: HotJob;
  rows: number;
  resolve: (result: HotResult) => void;
  reject: (err: unknown) => void;
}

type Queued = QueuedPrisma | QueuedHot;

/** Options of {@link StoreWriter}. */
export interface StoreWriterOptions {
  /**
   * Called after each transaction settles (committed or failed), Prisma batch or hot run, with its
   * latency, ms, and whether it committed (the gateway's `/metrics` histogram
   * `prospero_store_write_duration_seconds`). Must not throw (a throw is ignored).
   */
  onTransaction?: (ms: number, committed: boolean) => void;
  /** Commits {@link StoreWriter.submitHot} jobs; without it `submitHot` rejects. */
  hotPath?: HotPathWriter;
  /**
   * Group-commit window of hot jobs, ms: how long the first hot job reaching an idle writer waits
   * for others. 0 (the default) waits for the rest of the current event-loop turn only
   * (`setImmediate`: every job submitted by the I/O callbacks of this turn shares the transaction).
   * Keep it at 1–2 ms at most: it adds to every live event's latency.
   */
  hotWindowMs?: number;
  /**
   * Most rows (frames + events) in one hot transaction (default 4096). A hot transaction blocks the
   * event loop while it runs (≈10 µs per row); a single larger job still commits alone.
   */
  maxHotRows?: number;
}

/** Counters exposed for metrics. */
export interface WriterStats {
  /** Transactions committed (Prisma batches and hot runs). */
  batches: number;
  /** Jobs committed. */
  jobs: number;
  /** Jobs that failed. */
  failures: number;
}

/** Serializes and group-commits every write. */
export class StoreWriter {
  private queue: Queued[] = [];
  private running: Promise<void> | null = null;
  private closed = false;
  readonly stats: WriterStats = { batches: 0, jobs: 0, failures: 0 };

  /** Resolves the pending group-commit window early (set while one is open). */
  private closeWindow: (() => void) | null = null;
  /** Rows of the hot jobs queued while the window is open. */
  private windowRows = 0;

  /**
   * @param db Prisma client of the store.
   * @param maxBatch most jobs committed in one transaction (default 256).
   * @param opts see {@link StoreWriterOptions}.
   */
  constructor(
    private readonly db: PrismaClient,
    private readonly log: Logger = silentLogger,
    private readonly maxBatch = 256,
    private readonly opts: StoreWriterOptions = {},
  ) {}

  /** True when hot jobs can be submitted ({@link StoreWriterOptions.hotPath} was given). */
  get hasHotPath(): boolean {
    return this.opts.hotPath !== undefined;
  }

  private observe(t0: number, committed: boolean): void {
    try {
      this.opts.onTransaction?.(performance.now() - t0, committed);
    } catch {
      // a metrics hook must not fail a write
    }
  }

  /**
   * Queue a job; resolves with its operations' results after they are committed.
   * @throws (rejects) the database error if the job's transaction failed, or an Error after close().
   */
  submit(job: WriteJob): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error("store writer is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: "prisma", job, resolve, reject });
      this.kick();
    });
  }

  /**
   * Queue a hot job (after every job queued before it); resolves with its result after it is
   * committed. Jobs queued within one group-commit window share a transaction.
   * @throws (rejects) the database error if the job's transaction failed, or an Error after
   *   close() or when the writer has no hot path.
   */
  submitHot(job: HotJob): Promise<HotResult> {
    if (this.closed) return Promise.reject(new Error("store writer is closed"));
    if (!this.opts.hotPath) return Promise.reject(new Error("store writer has no hot path"));
    return new Promise((resolve, reject) => {
      const rows = hotJobRows(job);
      this.queue.push({ kind: "hot", job, rows, resolve, reject });
      if (this.closeWindow) {
        this.windowRows += rows;
        if (this.windowRows >= this.maxHotRows) this.closeWindow();
      }
      this.kick();
    });
  }

  private get maxHotRows(): number {
    return this.opts.maxHotRows ?? 4096;
  }

  /** Resolve when every job queued so far has been committed or failed. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stop accepting jobs and wait for queued ones to finish. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private kick(): void {
    if (this.running) return;
    this.running = (async () => {
      try {
        if (this.queue[0]?.kind === "hot") await this.window();
        while (this.queue.length > 0) {
          const head = this.queue[0]!;
          if (head.kind === "hot") await this.commitHot(this.takeHotRun());
          else await this.commit(this.takePrismaRun());
        }
      } finally {
        this.running = null;
      }
    })();
  }

  /**
   * The group-commit window: resolves after the rest of this event-loop turn (`setImmediate`), or
   * after `hotWindowMs`, or as soon as the queued hot jobs reach `maxHotRows`.
   */
  private window(): Promise<void> {
    const ms = this.opts.hotWindowMs ?? 0;
    return new Promise<void>((resolve) => {
      let cancel = (): void => {};
      const done = (): void => {
        if (this.closeWindow !== done) return;
        this.closeWindow = null;
        this.windowRows = 0;
        cancel();
        resolve();
      };
      this.closeWindow = done;
      this.windowRows = this.queue.reduce((n, q) => n + (q.kind === "hot" ? q.rows : 0), 0);
      if (this.windowRows >= this.maxHotRows) return done();
      if (ms > 0) {
        const t = setTimeout(done, ms);
        cancel = () => clearTimeout(t);
      } else {
        const t = setImmediate(done);
        cancel = () => clearImmediate(t);
      }
    });
  }

  /** The leading Prisma jobs of the queue, at most `maxBatch`. */
  private takePrismaRun(): QueuedPrisma[] {
    let n = 0;
    while (n < this.maxBatch && this.queue[n]?.kind === "prisma") n++;
    return this.queue.splice(0, n) as QueuedPrisma[];
  }

  /** The leading hot jobs of the queue: at most `maxBatch` jobs and `maxHotRows` rows (at least one job). */
  private takeHotRun(): QueuedHot[] {
    let n = 0;
    let rows = 0;
    while (n < this.maxBatch) {
      const q = this.queue[n];
      if (q?.kind !== "hot" || (n > 0 && rows + q.rows > this.maxHotRows)) break;
      rows += q.rows;
      n++;
    }
    return this.queue.splice(0, n) as QueuedHot[];
  }

  private async commitHot(run: QueuedHot[]): Promise<void> {
    const hotPath = this.opts.hotPath!;
    const t0 = performance.now();
    try {
      const results = await hotPath.commit(run.map((q) => q.job));
      this.observe(t0, true);
      for (let i = 0; i < run.length; i++) run[i]!.resolve(results[i]!);
      this.stats.batches++;
      this.stats.jobs += run.length;
    } catch (err) {
      this.observe(t0, false);
      if (run.length === 1) {
        this.stats.failures++;
        run[0]!.reject(err);
        return;
      }
      this.log.warn({ err, jobs: run.length }, "hot commit failed; retrying its jobs one by one");
      for (const q of run) await this.commitHot([q]);
    }
  }

  private async commit(batch: QueuedPrisma[]): Promise<void> {
    const built: { q: QueuedPrisma; ops: readonly PendingOp[] }[] = [];
    for (const q of batch) {
      try {
        built.push({ q, ops: q.job(this.db) });
      } catch (err) {
        this.stats.failures++;
        q.reject(err);
      }
    }
    if (built.length === 0) return;
    const t0 = performance.now();
    try {
      const results = await this.db.$transaction(built.flatMap((b) => b.ops));
      this.observe(t0, true);
      let i = 0;
      for (const b of built) {
        b.q.resolve(results.slice(i, i + b.ops.length));
        i += b.ops.length;
      }
      this.stats.batches++;
      this.stats.jobs += built.length;
    } catch (err) {
      this.observe(t0, false);
      if (built.length === 1) {
        this.stats.failures++;
        built[0]!.q.reject(err);
        return;
      }
      this.log.warn({ err, jobs: built.length }, "batch commit failed; retrying its jobs one by one");
      // Operations are single-use: rebuild each job for its own transaction.
      for (const b of built) await this.commit([b.q]);
    }
  }
}
