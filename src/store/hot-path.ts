/**
 * The write hot path (issue 17): ingest's frames, cursors and run totals and every event append
 * without Prisma operations, committed as plain data on the driver connection instead of through
 * Prisma's request pipeline. Prisma re-prepares every statement and keeps the arguments of its
 * last 100 queries in a debug history it cannot be told to drop (a 500-row insert is 3,500
 * parameters, payloads included); here statements are prepared once and nothing is retained.
 *
 * {@link StoreWriter} still orders every write (ARCHITECTURE decision 7): one FIFO queue whose
 * runs of hot jobs go to a {@link HotPathWriter} and whose other runs go to Prisma, one at a time,
 * so the two connections of the file never race for SQLite's write lock.
 */
import type { Database, Statement, Transaction } from "better-sqlite3";

/** One line of a worker's output to store (`Frame` row). */
export interface HotFrame {
  agentId: string;
  /** 0-based line index in the worker's output. */
  line: number;
  /** The line decoded as UTF-8 (invalid sequences as U+FFFD). */
  text: string;
  /** The exact bytes when they are not valid UTF-8, else null. */
  bytes: Buffer | null;
  /** When the line was read, ms since the epoch. */
  tsMs: number;
}

/** One event row to insert (`Event`), its seq already allocated by the EventStore. */
export interface HotEventRow {
  streamKey: string;
  seq: number;
  /** ms since the epoch. */
  tsMs: number;
  workspace: string;
  /** The run the event belongs to; null for a workspace or fleet event. */
  agentId: string | null;
  kind: string;
  /** The payload, already `JSON.stringify`d. */
  payload: string;
}

/** Raise a stream's durable high-water mark (`StreamHead`) to at least `lastSeq`. */
export interface HotStreamHead {
  streamKey: string;
  lastSeq: number;
}

/** Insert or replace a run's ingest cursor (`IngestCursor`, ARCHITECTURE decision 3). */
export interface HotCursor {
  agentId: string;
  workspace: string;
  mode: "file" | "socket";
  /** Byte offset into stdout.ndjson after the last complete line ingested. */
  byteOffset: number;
  lineCount: number;
  /** The stored state, already `JSON.stringify`d. */
  state: string;
  finished: boolean;
  /** `updatedAt`, ms since the epoch. */
  tsMs: number;
}

/**
 * Set a run's totals (`Agent` row; no row → nothing, like Prisma's `updateMany`). `updatedAt`
 * becomes the commit's wall clock, as Prisma's `@updatedAt` would set it.
 */
export interface HotTotals {
  agentId: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD; null when a turn could not be priced. */
  costUsd: number | null;
  /** Set when given (the run ended); left as stored otherwise. */
  outcome?: string;
  /** Set when given (non-empty); left as stored otherwise. */
  model?: string;
}

/** What one commit unit writes. Rows are written in this order: frames, cursor, totals, events, heads. */
export interface HotJob {
  frames?: readonly HotFrame[];
  events?: readonly HotEventRow[];
  heads?: readonly HotStreamHead[];
  cursor?: HotCursor;
  totals?: HotTotals;
}

/** The outcome of one committed {@link HotJob}. */
export interface HotResult {
  /** `Event.id` of each of the job's events, in the order of `job.events`. */
  eventIds: number[];
}

/**
 * Commits hot jobs. All jobs of one call commit in ONE transaction or none (the promise rejects
 * with the database error and nothing of any job is stored). Async so an implementation over a
 * networked database fits (issue 18).
 */
export interface HotPathWriter {
  /** @returns one result per job, in the order of `jobs`. */
  commit(jobs: readonly HotJob[]): Promise<HotResult[]>;
}

/** Rows a job writes (frames + events): what {@link StoreWriter}'s `maxHotRows` bounds. */
export function hotJobRows(job: HotJob): number {
  return (job.frames?.length ?? 0) + (job.events?.length ?? 0);
}

/**
 * {@link HotPathWriter} on a better-sqlite3 connection of the store file (`OpenedDatabase.raw`:
 * WAL, busy timeout, foreign keys on). Commits synchronously inside `BEGIN IMMEDIATE … COMMIT`,
 * so it blocks the event loop for the length of the transaction: the writer bounds its rows.
 *
 * One cached statement per row kind, run once per row. Measured against multi-row
 * `INSERT … VALUES (…),(…) RETURNING` statements cached per chunk size (1, 10, 100 and 500 event
 * rows per transaction, 200-byte payloads, this schema's indexes): per-row is as fast or faster up
 * to 100 rows (0.1–0.2 ms per 1–10 row transaction, 11–20 µs per row at 100) and at most ~30 %
 * slower at 500, where multi-row amortizes its binding; live batches are small, so per-row it is.
 * It also gives each event's id as `lastInsertRowid`, so no matching of RETURNING rows is needed.
 */
export class SqliteHotPath implements HotPathWriter {
  private readonly frame: Statement<unknown[]>;
  private readonly event: Statement<unknown[]>;
  private readonly head: Statement<unknown[]>;
  private readonly cursor: Statement<unknown[]>;
  private readonly totals: Statement<unknown[]>;
  private readonly tx: Transaction<(jobs: readonly HotJob[]) => HotResult[]>;

  /**
   * @param raw the connection; its statements are prepared here (the schema must be migrated).
   * @param now wall clock for `Agent.updatedAt`, ms since the epoch.
   */
  constructor(
    raw: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.frame = raw.prepare(
      `INSERT INTO "Frame" ("agentId", "line", "text", "bytes", "ts") VALUES (?, ?, ?, ?, ?)`,
    );
    this.event = raw.prepare(
      `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload") VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.head = raw.prepare(
      `INSERT INTO "StreamHead" ("streamKey", "lastSeq") VALUES (?, ?) ON CONFLICT("streamKey") DO UPDATE SET "lastSeq" = MAX("lastSeq", excluded."lastSeq")`,
    );
    this.cursor = raw.prepare(
      `INSERT INTO "IngestCursor" ("agentId", "workspace", "mode", "byteOffset", "lineCount", "state", "finished", "updatedAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT("agentId") DO UPDATE SET "workspace" = excluded."workspace", "mode" = excluded."mode",
         "byteOffset" = excluded."byteOffset", "lineCount" = excluded."lineCount", "state" = excluded."state",
         "finished" = excluded."finished", "updatedAt" = excluded."updatedAt"`,
    );
    // COALESCE keeps what is stored for the fields the Prisma update left out when unset
    // (outcome and model are never set to null by ingest).
    this.totals = raw.prepare(
      `UPDATE "Agent" SET "turns" = ?, "inputTokens" = ?, "outputTokens" = ?, "cacheReadTokens" = ?,
         "cacheCreationTokens" = ?, "costUsd" = ?, "outcome" = COALESCE(?, "outcome"),
         "model" = COALESCE(?, "model"), "updatedAt" = ?
       WHERE "id" = ?`,
    );
    this.tx = raw.transaction((jobs: readonly HotJob[]) => jobs.map((j) => this.write(j)));
  }

  /** @inheritdoc */
  commit(jobs: readonly HotJob[]): Promise<HotResult[]> {
    try {
      return Promise.resolve(this.tx.immediate(jobs));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private write(job: HotJob): HotResult {
    for (const f of job.frames ?? []) this.frame.run(f.agentId, f.line, f.text, f.bytes, f.tsMs);
    const c = job.cursor;
    if (c) {
      this.cursor.run(
        c.agentId,
        c.workspace,
        c.mode,
        c.byteOffset,
        c.lineCount,
        c.state,
        c.finished ? 1 : 0,
        c.tsMs,
      );
    }
    const t = job.totals;
    if (t) {
      this.totals.run(
        t.turns,
        t.inputTokens,
        t.outputTokens,
        t.cacheReadTokens,
        t.cacheCreationTokens,
        t.costUsd,
        t.outcome ?? null,
        t.model ? t.model : null,
        this.now(),
        t.agentId,
      );
    }
    const eventIds: number[] = [];
    for (const e of job.events ?? []) {
      const info = this.event.run(e.streamKey, e.seq, e.tsMs, e.workspace, e.agentId, e.kind, e.payload);
      eventIds.push(Number(info.lastInsertRowid));
    }
    for (const h of job.heads ?? []) this.head.run(h.streamKey, h.lastSeq);
    return { eventIds };
  }
}
