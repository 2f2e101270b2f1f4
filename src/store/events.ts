/**
 * Durable fleet history: appends events through the single writer with per-stream `seq`
 * allocation (seeded from the stored high-water mark, never reused — `StreamHead` survives
 * retention), replays by stream or fleet-wide commit order, and publishes to the bus only after
 * commit (ARCHITECTURE decision 5). A failed append of non-rederivable events is published anyway,
 * followed by a `store_persist_failed` marker (reference #25).
 */
import type { PrismaClient, Prisma } from "../generated/prisma/client.js";
import { storedEvent, streamKeyOf, type EventKind, type FleetEvent, type NewEvent } from "../events/index.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import type { PendingOp, StoreWriter } from "./writer.js";
import type { HotCursor, HotEventRow, HotFrame, HotTotals } from "./hot-path.js";
import { dialectOf } from "./dialect.js";
import { ROW, decodeEventRow, type SqliteEventReader, type SqliteEventRow } from "./sqlite-reader.js";

/** Where committed events go (the bus). */
export interface EventPublisher {
  publish(event: FleetEvent): void;
}

/** What to do when a batch cannot be stored. */
export type OnAppendFailure =
  /** Publish the events live anyway plus a `store_persist_failed` marker each, then resolve. */
  | "publish-with-marker"
  /** Publish nothing and reject: the caller still has the source (e.g. stdout.ndjson) and retries. */
  | "throw";

/**
 * Rows committed with an append on the writer's hot path, in the same transaction as the events
 * (ingest's frames, cursor and run totals; see src/store/hot-path.ts).
 */
export interface HotExtras {
  frames?: readonly HotFrame[];
  cursor?: HotCursor;
  totals?: HotTotals;
}

/** Options of {@link EventStore.append}. */
export interface AppendOptions {
  /**
   * Extra Prisma operations committed in the same transaction (agent rows, lifecycle updates).
   * An append with `extra` goes through Prisma; one without goes through the writer's hot path
   * when it has one. Not together with `hot`.
   */
  extra?: (db: PrismaClient) => readonly PendingOp[];
  /**
   * Extra rows committed on the hot path in the same transaction. Needs a writer with a hot path
   * (the append rejects otherwise). Not together with `extra`.
   */
  hot?: HotExtras;
  /** Default `publish-with-marker`. */
  onFailure?: OnAppendFailure;
}

/** Counters for metrics. */
export interface EventStoreStats {
  /** Events committed (markers included). */
  appended: number;
  /** Events that could not be committed. */
  appendFailures: number;
}

/** One connection page of events (see {@link EventStore.readPage}). */
export interface EventPageQuery {
  /** One stream (positions are seqs) or one workspace's events (positions are commit ids). */
  scope: { streamKey: string } | { workspace: string };
  /** Only these kinds (all when undefined). */
  kinds?: readonly EventKind[];
  /** Exclusive lower bound position. */
  after?: number;
  /** Exclusive upper bound position. */
  before?: number;
  /** Page size. */
  limit: number;
  /** Take the last `limit` (before `before`) instead of the first. */
  backward?: boolean;
}

/** Filter for fleet-wide reads. */
export interface GlobalFilter {
  workspace?: string;
  agentId?: string;
  kinds?: readonly EventKind[];
}

type EventRow = {
  id: number;
  streamKey: string;
  seq: number;
  ts: Date;
  workspace: string;
  agentId: string | null;
  kind: string;
  payload: Prisma.JsonValue;
};

/**
 * Turn a stored row into a FleetEvent.
 * @throws Error when the kind is unknown or the stored payload does not match it (corrupt row).
 */
export function rowToEvent(row: EventRow): FleetEvent {
  return storedEvent({ ...row, tsMs: row.ts.getTime() });
}

/** Options of the {@link EventStore} constructor. */
export interface EventStoreOptions {
  /**
   * Raw keyset reader of the same database (production and the fleet harness pass one): every
   * read of Event rows and the seq seeding go through it instead of Prisma (issue 17). Without
   * one the store reads through Prisma, with the same results.
   */
  reader?: SqliteEventReader;
}

/** Resolves in a later turn of the event loop (after pending I/O callbacks: `setImmediate`). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Event rows per INSERT statement (7 parameters each; SQLite allows 32766 per statement). */
const EVENT_ROWS_PER_INSERT = 500;

/** What the multi-row event INSERT returns per row. */
interface InsertedRow {
  id: number | bigint;
  streamKey: string;
  seq: number | bigint;
}

/**
 * True when `err` (or an error it wraps) is a uniqueness conflict: SQLite's unique and primary-key
 * constraint errors,
 * PostgreSQL's `23505`, Prisma's `P2002`.
 */
function isConflict(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e !== null && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "23505" || code === "P2002") return true;
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return /unique constraint|duplicate key/i.test(err instanceof Error ? err.message : String(err));
}

/** The event log. One instance per process (it owns seq allocation). */
export class EventStore {
  private readonly heads = new Map<string, number>();
  private readonly seeding = new Map<string, Promise<void>>();
  readonly stats: EventStoreStats = { appended: 0, appendFailures: 0 };

  constructor(
    private readonly db: PrismaClient,
    private readonly writer: StoreWriter,
    private readonly publisher: EventPublisher,
    private readonly log: Logger = silentLogger,
    private readonly opts: EventStoreOptions = {},
  ) {}

  /** Seed the seq counter of `streamKey` from the durable high-water mark (once per process). */
  private seed(streamKey: string): Promise<void> {
    if (this.heads.has(streamKey)) return Promise.resolve();
    let p = this.seeding.get(streamKey);
    if (!p) {
      p = (async () => {
        const reader = this.opts.reader;
        if (reader) {
          const seeded = reader.streamHigh(streamKey);
          if (!this.heads.has(streamKey)) this.heads.set(streamKey, seeded);
          return;
        }
        const [head, max] = await Promise.all([
          this.db.streamHead.findUnique({ where: { streamKey } }),
          this.db.event.aggregate({ where: { streamKey }, _max: { seq: true } }),
        ]);
        const seeded = Math.max(head?.lastSeq ?? 0, max._max.seq ?? 0);
        if (!this.heads.has(streamKey)) this.heads.set(streamKey, seeded);
      })().finally(() => this.seeding.delete(streamKey));
      this.seeding.set(streamKey, p);
    }
    return p;
  }

  /** Allocate the next seq of a seeded stream. */
  private next(streamKey: string): number {
    const n = (this.heads.get(streamKey) ?? 0) + 1;
    this.heads.set(streamKey, n);
    return n;
  }

  /**
   * Append `events` (possibly empty, e.g. for a cursor-only update) and `opts.extra` or `opts.hot`
   * in one transaction, then publish them in order.
   * @returns the committed events with `seq` and `globalId`.
   * @throws (rejects) the database error when `onFailure` is `throw` and the commit failed; an
   *   Error (nothing allocated or published) when both `extra` and `hot` are given, or `hot`
   *   without a hot path.
   */
  async append(events: readonly NewEvent[], opts: AppendOptions = {}): Promise<FleetEvent[]> {
    if (opts.extra && opts.hot) throw new Error("append takes extra (Prisma) or hot rows, not both");
    if (opts.hot && !this.writer.hasHotPath) throw new Error("append with hot rows needs a hot path");
    const keys = [...new Set(events.map(streamKeyOf))];
    await Promise.all(keys.map((k) => this.seed(k)));
    // Allocation and submission are synchronous together, so seq order = commit order.
    const allocated = events.map(
      (e) => ({ ...e, streamKey: streamKeyOf(e), seq: 0, globalId: null }) as FleetEvent,
    );
    for (const e of allocated) e.seq = this.next(e.streamKey);
    const lastSeq = new Map<string, number>();
    for (const e of allocated) lastSeq.set(e.streamKey, e.seq);
    let ids: readonly (number | null)[];
    try {
      ids = await (opts.extra || !this.writer.hasHotPath
        ? this.submitPrisma(allocated, lastSeq, opts.extra)
        : this.submitHot(allocated, lastSeq, opts.hot));
    } catch (err) {
      this.stats.appendFailures += allocated.length;
      if ((opts.onFailure ?? "publish-with-marker") === "throw") {
        // Nothing of it was published: its seqs are given back, so the caller's retry (ingest
        // retries from its source) takes them again and the stream stays gap-free — unless a
        // later append of the stream took seqs meanwhile (then the failed range stays unused), or
        // the database refused a row as a duplicate (then the same seqs would be refused again).
        if (!isConflict(err))
          for (const [streamKey, last] of lastSeq) {
            if (this.heads.get(streamKey) !== last) continue;
            const first = allocated.find((e) => e.streamKey === streamKey)!.seq;
            this.heads.set(streamKey, first - 1);
          }
        throw err;
      }
      this.log.error(
        { err, events: allocated.length },
        "append failed; publishing live with persist-failure markers",
      );
      await this.publishWithMarkers(allocated, err);
      return allocated;
    }
    for (let i = 0; i < allocated.length; i++) allocated[i]!.globalId = ids[i] ?? null;
    this.stats.appended += allocated.length;
    for (const e of allocated) this.publishSafe(e);
    return allocated;
  }

  /**
   * Submit allocated events (and `hot` rows) as one hot job; must be called synchronously after
   * allocation. Rows go through cached statements on the driver connection: no Prisma request
   * pipeline and no retained per-statement history (src/store/hot-path.ts).
   * @returns the events' ids, in order.
   */
  private async submitHot(
    allocated: readonly FleetEvent[],
    lastSeq: ReadonlyMap<string, number>,
    hot: HotExtras = {},
  ): Promise<number[]> {
    const rows: HotEventRow[] = allocated.map((e) => ({
      streamKey: e.streamKey,
      seq: e.seq,
      tsMs: e.tsMs,
      workspace: e.workspace,
      agentId: e.agentId === "" ? null : e.agentId,
      kind: e.kind,
      payload: JSON.stringify(e.payload),
    }));
    const heads = [...lastSeq].map(([streamKey, seq]) => ({ streamKey, lastSeq: seq }));
    const res = await this.writer.submitHot({ ...hot, events: rows, heads });
    return res.eventIds;
  }

  /**
   * Submit allocated events with Prisma `extra` ops as one Prisma job; must be called synchronously
   * after allocation.
   * @returns the events' ids, in order (null for one whose row was not returned).
   */
  private async submitPrisma(
    allocated: readonly FleetEvent[],
    lastSeq: ReadonlyMap<string, number>,
    extraOps?: (db: PrismaClient) => readonly PendingOp[],
  ): Promise<(number | null)[]> {
    const chunks: FleetEvent[][] = [];
    for (let i = 0; i < allocated.length; i += EVENT_ROWS_PER_INSERT) {
      chunks.push(allocated.slice(i, i + EVENT_ROWS_PER_INSERT));
    }
    let extraCount = 0;
    const results = await this.writer.submit((db) => {
      const sql = dialectOf(db);
      // Extra ops first: they create the run row an agent's first events reference.
      const extra = extraOps ? extraOps(db) : [];
      extraCount = extra.length;
      return [
        ...extra,
        // Parameterized multi-row SQL: Prisma's model `create` retains memory per call (about 7 KB
        // each, measured), and one statement per event costs a trip through Prisma's request
        // pipeline each (measured: ingest ran at ~8 % of raw inserts). Appends without Prisma
        // extras take the writer's hot path instead.
        ...chunks.map((chunk) =>
          db.$queryRawUnsafe<InsertedRow[]>(
            sql.text(
              `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload") VALUES ${chunk.map(() => `(?, ?, ${sql.time}, ?, ?, ?, ${sql.json})`).join(", ")} RETURNING "id", "streamKey", "seq"`,
            ),
            ...chunk.flatMap((e) => [
              e.streamKey,
              e.seq,
              e.tsMs,
              e.workspace,
              e.agentId === "" ? null : e.agentId,
              e.kind,
              sql.jsonValue(JSON.stringify(e.payload)),
            ]),
          ),
        ),
        ...[...lastSeq].map(([streamKey, seq]) =>
          db.$executeRawUnsafe(
            sql.text(
              `INSERT INTO "StreamHead" ("streamKey", "lastSeq") VALUES (?, ?) ON CONFLICT("streamKey") DO UPDATE SET "lastSeq" = ${sql.greatest(`"StreamHead"."lastSeq"`, `excluded."lastSeq"`)}`,
            ),
            streamKey,
            seq,
          ),
        ),
      ];
    });
    // RETURNING order is unspecified in SQLite: match ids by (streamKey, seq), unique per event.
    const ids = new Map<string, number>();
    for (let c = 0; c < chunks.length; c++) {
      for (const row of results[extraCount + c] as InsertedRow[])
        ids.set(`${row.streamKey}#${row.seq}`, Number(row.id));
    }
    return allocated.map((e) => ids.get(`${e.streamKey}#${e.seq}`) ?? null);
  }

  private async publishWithMarkers(lost: FleetEvent[], err: unknown): Promise<void> {
    const detail = `store error: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
    const markers: NewEvent[] = lost.map((e) => ({
      kind: "store_persist_failed",
      payload: { lostSeq: e.seq, detail },
      workspace: e.workspace,
      agentId: e.agentId,
      tsMs: Date.now(),
    }));
    for (const e of lost) this.publishSafe(e);
    const committedMarkers = new Set<string>();
    try {
      for (const m of await this.append(markers, { onFailure: "throw" }))
        committedMarkers.add(`${m.streamKey}#${m.seq}`);
    } catch {
      // The markers could not be stored either: publish them live only.
      for (const m of markers) {
        const key = streamKeyOf(m);
        this.publishSafe({ ...m, streamKey: key, seq: this.next(key), globalId: null } as FleetEvent);
      }
    }
  }

  private publishSafe(e: FleetEvent): void {
    try {
      this.publisher.publish(e);
    } catch (err) {
      this.log.error({ err }, "bus publish threw");
    }
  }

  /** Parse rows, skipping (and logging) corrupt ones so one bad row never breaks a replay. */
  private parseRows(rows: readonly EventRow[]): FleetEvent[] {
    return this.decodeAll(rows, rowToEvent, (r) => r);
  }

  /** Decode raw rows (JSON and zod once per row), skipping and logging corrupt ones. */
  private parseRawRows(rows: readonly SqliteEventRow[]): FleetEvent[] {
    return this.decodeAll(rows, decodeEventRow, (r) => ({
      id: r[ROW.id],
      streamKey: r[ROW.streamKey],
      seq: r[ROW.seq],
    }));
  }

  private decodeAll<R>(
    rows: readonly R[],
    decode: (row: R) => FleetEvent,
    where: (row: R) => { id: number; streamKey: string; seq: number },
  ): FleetEvent[] {
    const out: FleetEvent[] = [];
    for (const row of rows) {
      try {
        out.push(decode(row));
      } catch (err) {
        const { id, streamKey, seq } = where(row);
        this.log.warn({ err, id, streamKey, seq }, "skipping unreadable stored event");
      }
    }
    return out;
  }

  /**
   * Events of one stream with `seq > afterSeq`, ascending, at most `limit`; fewer than `limit`
   * only when no more exist (unreadable rows are skipped, not counted).
   */
  async readStream(streamKey: string, afterSeq: number, limit: number): Promise<FleetEvent[]> {
    const reader = this.opts.reader;
    const out: FleetEvent[] = [];
    let after = afterSeq;
    for (;;) {
      const want = limit - out.length;
      let got: number;
      let last: number;
      if (reader) {
        const rows = reader.streamAfter(streamKey, after, want);
        out.push(...this.parseRawRows(rows));
        got = rows.length;
        last = rows[rows.length - 1]?.[ROW.seq] ?? after;
      } else {
        const rows = await this.db.event.findMany({
          where: { streamKey, seq: { gt: after } },
          orderBy: { seq: "asc" },
          take: want,
        });
        out.push(...this.parseRows(rows));
        got = rows.length;
        last = rows[rows.length - 1]?.seq ?? after;
      }
      if (got < want || out.length >= limit) return out;
      after = last;
      if (reader) await yieldToEventLoop();
    }
  }

  /**
   * Events in fleet-wide commit order with `globalId > afterGlobalId`, ascending, at most `limit`,
   * optionally narrowed in the database by `where` and further by a predicate.
   */
  async readGlobal(
    afterGlobalId: number,
    limit: number,
    predicate?: (e: FleetEvent) => boolean,
    where: GlobalFilter = {},
  ): Promise<FleetEvent[]> {
    const reader = this.opts.reader;
    const out: FleetEvent[] = [];
    let after = afterGlobalId;
    for (;;) {
      let events: FleetEvent[];
      let got: number;
      let last: number;
      if (reader) {
        const rows = reader.globalAfter(after, limit, where);
        events = this.parseRawRows(rows);
        got = rows.length;
        last = rows[rows.length - 1]?.[ROW.id] ?? after;
      } else {
        const rows = await this.db.event.findMany({
          where: {
            id: { gt: after },
            ...(where.workspace !== undefined ? { workspace: where.workspace } : {}),
            ...(where.agentId !== undefined ? { agentId: where.agentId === "" ? null : where.agentId } : {}),
            ...(where.kinds ? { kind: { in: [...where.kinds] } } : {}),
          },
          orderBy: { id: "asc" },
          take: limit,
        });
        events = this.parseRows(rows);
        got = rows.length;
        last = rows[rows.length - 1]?.id ?? after;
      }
      for (const e of events) {
        if (!predicate || predicate(e)) out.push(e);
        if (out.length >= limit) return out;
      }
      if (got < limit) return out;
      after = last;
      // Raw pages are synchronous: when a predicate rejects most rows (a token limited to a few
      // workspaces reading fleet-wide history), let other work run between pages instead of
      // scanning the whole table in one turn of the event loop.
      if (reader) await yieldToEventLoop();
    }
  }

  /**
   * One page of events for a connection: the events of one stream (`streamKey`, ordered by seq)
   * or of one workspace (ordered by commit id), optionally only some kinds. Positions are seqs
   * for a stream and commit ids for a workspace. Forward (`last` unset): the first `limit` after
   * `after` (and before `before`); backward (`last` set): the last `limit` before `before` (and
   * after `after`). Events come back ascending either way; `more` is true when the page was cut
   * at `limit` (more exist beyond it in the reading direction). Unreadable rows are skipped.
   */
  async readPage(q: EventPageQuery): Promise<{ events: FleetEvent[]; more: boolean }> {
    const reader = this.opts.reader;
    if (reader) {
      const rows = reader.pageRows(q);
      const more = rows.length > q.limit;
      const page = rows.slice(0, q.limit);
      if (q.backward) page.reverse();
      return { events: this.parseRawRows(page), more };
    }
    const col = "streamKey" in q.scope ? "seq" : "id";
    const where = {
      ...this.scopeWhere(q.scope, q.kinds),
      ...(q.after !== undefined || q.before !== undefined
        ? {
            [col]: {
              ...(q.after !== undefined ? { gt: q.after } : {}),
              ...(q.before !== undefined ? { lt: q.before } : {}),
            },
          }
        : {}),
    };
    const rows = await this.db.event.findMany({
      where,
      orderBy: { [col]: q.backward ? "desc" : "asc" },
      take: q.limit + 1,
    });
    const more = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    if (q.backward) page.reverse();
    return { events: this.parseRows(page), more };
  }

  /** Whether an event of the page's scope exists at or before / at or after a position. */
  async existsBeyond(
    scope: EventPageQuery["scope"],
    kinds: readonly EventKind[] | undefined,
    side: { atOrBefore: number } | { atOrAfter: number },
  ): Promise<boolean> {
    if (this.opts.reader) return this.opts.reader.exists(scope, kinds, side);
    const col = "streamKey" in scope ? "seq" : "id";
    const bound = "atOrBefore" in side ? { lte: side.atOrBefore } : { gte: side.atOrAfter };
    const row = await this.db.event.findFirst({
      where: { ...this.scopeWhere(scope, kinds), [col]: bound },
      select: { id: true },
    });
    return row !== null;
  }

  /** Number of stored events of a page's scope (and kinds). */
  async countScope(scope: EventPageQuery["scope"], kinds?: readonly EventKind[]): Promise<number> {
    if (this.opts.reader) return this.opts.reader.count(scope, kinds);
    return this.db.event.count({ where: this.scopeWhere(scope, kinds) });
  }

  /**
   * Stored events by (streamKey, seq), in the order asked; null for each key that names no
   * stored (or no readable) event.
   */
  async readByKeys(keys: readonly { streamKey: string; seq: number }[]): Promise<(FleetEvent | null)[]> {
    if (keys.length === 0) return [];
    const reader = this.opts.reader;
    let events: FleetEvent[];
    if (reader) {
      const rows: SqliteEventRow[] = [];
      for (const k of keys) {
        const row = reader.byKey(k.streamKey, k.seq);
        if (row) rows.push(row);
      }
      events = this.parseRawRows(rows);
    } else {
      const rows = await this.db.event.findMany({
        where: { OR: keys.map((k) => ({ streamKey: k.streamKey, seq: k.seq })) },
      });
      events = this.parseRows(rows);
    }
    const found = new Map(events.map((e) => [`${e.seq}:${e.streamKey}`, e]));
    return keys.map((k) => found.get(`${k.seq}:${k.streamKey}`) ?? null);
  }

  /** Highest stored event id (the fleet-wide commit position of the last stored event), 0 when none. */
  async lastGlobalId(): Promise<number> {
    if (this.opts.reader) return this.opts.reader.lastId();
    const last = await this.db.event.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
    return last?.id ?? 0;
  }

  private scopeWhere(scope: EventPageQuery["scope"], kinds: readonly EventKind[] | undefined) {
    return {
      ...("streamKey" in scope ? { streamKey: scope.streamKey } : { workspace: scope.workspace }),
      ...(kinds ? { kind: { in: [...kinds] } } : {}),
    };
  }

  /** Highest seq ever allocated in a stream (0 when none). */
  async highWater(streamKey: string): Promise<number> {
    await this.seed(streamKey);
    return this.heads.get(streamKey) ?? 0;
  }

  /**
   * Delete events older than `cutoff` (compared as instants, not strings), except those of agents
   * that are not terminal (spawning|running|idle) — a running agent's history is never cut.
   * Seqs stay allocated (`StreamHead` is kept), so they are never reused.
   * @returns number of events deleted.
   */
  async prune(cutoff: Date): Promise<number> {
    const live = await this.db.agent.findMany({
      where: { status: { in: ["spawning", "running", "idle"] } },
      select: { id: true },
    });
    const [res] = (await this.writer.submit((db) => [
      db.event.deleteMany({ where: { ts: { lt: cutoff }, agentId: { notIn: live.map((a) => a.id) } } }),
    ])) as [{ count: number }];
    return res.count;
  }
}
