/**
 * The single in-process writer (ARCHITECTURE decision 7). Every database write goes through one
 * queue; jobs submitted while a batch is committing are grouped into the next batch and committed
 * in ONE batch transaction (`prisma.$transaction([...])`, never an interactive transaction: the
 * better-sqlite3 adapter would run unrelated outer queries inside it). If a grouped batch fails,
 * its jobs are retried one by one so a single bad job fails alone.
 */
import type { PrismaClient, Prisma } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";

/** A Prisma operation that has not run yet (what `prisma.x.create(...)` returns). */
export type PendingOp = Prisma.PrismaPromise<unknown>;

/**
 * A write job: builds the operations to run, given the client. Called at commit time (so values
 * it reads from memory are current); must not perform I/O itself.
 */
export type WriteJob = (db: PrismaClient) => readonly PendingOp[];

interface Queued {
  job: WriteJob;
  resolve: (results: unknown[]) => void;
  reject: (err: unknown) => void;
}

/** Counters exposed for metrics. */
export interface WriterStats {
  /** Batch transactions committed. */
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

  /**
   * @param db Prisma client of the store.
   * @param maxBatch most jobs committed in one transaction (default 256).
   * @param opts.onTransaction called after each batch transaction settles (committed or failed)
   *   with its latency, ms, and whether it committed (the gateway's `/metrics` histogram
   *   `prospero_store_write_duration_seconds`). Must not throw (a throw is ignored).
   */
  constructor(
    private readonly db: PrismaClient,
    private readonly log: Logger = silentLogger,
    private readonly maxBatch = 256,
    private readonly opts: { onTransaction?: (ms: number, committed: boolean) => void } = {},
  ) {}

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
      this.queue.push({ job, resolve, reject });
      this.kick();
    });
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
        while (this.queue.length > 0) {
          const batch = this.queue.splice(0, this.maxBatch);
          await this.commit(batch);
        }
      } finally {
        this.running = null;
      }
    })();
  }

  private async commit(batch: Queued[]): Promise<void> {
    const built: { q: Queued; ops: readonly PendingOp[] }[] = [];
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
