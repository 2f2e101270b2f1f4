/**
 * Event reads at storage speed (issue 17): keyset pages of the `Event` table straight from the
 * raw better-sqlite3 connection (`OpenedDatabase.raw`), with prepared statements cached by their
 * SQL text, instead of Prisma's per-query pipeline. {@link EventStore} uses it for every read of
 * Event rows when given one; the rows come back in the shape {@link decodeEventRow} turns into a
 * FleetEvent (JSON-parsed and zod-checked once per row).
 *
 * Reads run on a second connection of the file the Prisma client writes: in WAL mode every
 * autocommit read sees a fresh snapshot, so a read issued after a commit (and after its publish)
 * sees its rows. The calls are synchronous (better-sqlite3); a page is bounded by its `limit`.
 *
 * Query plans (`EXPLAIN QUERY PLAN` on the migrated schema, with the `(agentId, id)` and
 * `(workspace, id)` indexes of migration 20261202035437; a `"kind" IN (…)` filter never changes
 * the index chosen and never adds a sort — there is no index on `kind`, it is checked on the rows
 * the keyset walks, in order, until LIMIT):
 * - stream, either direction, optional bounds and kinds:
 *   `streamKey = ? AND seq > ? [AND seq < ?]` → SEARCH USING INDEX Event_streamKey_seq_key
 * - global, no narrowing (`id > ?`, optional kinds) → SEARCH USING INTEGER PRIMARY KEY (rowid>?)
 * - global by agent (`agentId = ?` or `agentId IS NULL`, optional kinds)
 *   → SEARCH USING INDEX Event_agentId_id_idx (agentId=? AND id>?)
 * - global by workspace (optionally also by agent), and workspace pages in either direction
 *   → SEARCH USING INDEX Event_workspace_id_idx (workspace=? AND id>? [AND id<?])
 * - existsBeyond: the same indexes with `<=`/`>=` (covering when no kinds), LIMIT 1
 * - countScope: COVERING INDEX Event_streamKey_seq_key / Event_workspace_id_idx (kinds: the same
 *   index, reading the rows it names)
 * - by key and max seq: Event_streamKey_seq_key (covering for MAX); stream heads by primary key.
 */
import type { Database, Statement } from "better-sqlite3";
import { storedEvent, type EventKind, type FleetEvent } from "../events/index.js";
import type { EventPageQuery, GlobalFilter } from "./events.js";

/**
 * One stored Event row as the raw connection returns it: the selected columns in order, as an
 * array (better-sqlite3's `raw` mode — measured about twice as fast as a row object per row;
 * `defaultSafeIntegers` off: integers are JS numbers). `ts` is an integer of ms since the epoch as
 * the store writes it (Prisma's `unixepoch-ms` format); an ISO string is accepted too. `payload`
 * is the stored JSON text.
 */
export type SqliteEventRow = readonly [
  id: number,
  streamKey: string,
  seq: number,
  ts: number | string,
  workspace: string,
  agentId: string | null,
  kind: string,
  payload: unknown,
];

/** Index of each column in a {@link SqliteEventRow}. */
export const ROW = {
  id: 0,
  streamKey: 1,
  seq: 2,
  ts: 3,
  workspace: 4,
  agentId: 5,
  kind: 6,
  payload: 7,
} as const;

/** The scope of a page, count or existence check (see {@link EventPageQuery}). */
export type PageScope = EventPageQuery["scope"];

const COLUMNS = `"id", "streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload"`;

/**
 * Turn a raw row into a FleetEvent: the payload JSON is parsed and checked against its kind's
 * schema (zod, which may fill defaults or strip fields) exactly once.
 * @throws Error when the kind is unknown, the timestamp or payload JSON cannot be read, or the
 *   payload does not match the kind (a corrupt row: callers skip it).
 */
export function decodeEventRow(row: SqliteEventRow): FleetEvent {
  const [id, streamKey, seq, ts, workspace, agentId, kindText, payload] = row;
  const tsMs = typeof ts === "number" ? ts : Date.parse(ts);
  if (!Number.isFinite(tsMs)) throw new Error(`unreadable event timestamp ${JSON.stringify(ts)}`);
  if (typeof payload !== "string") throw new Error("stored payload is not JSON text");
  return storedEvent({
    id,
    streamKey,
    seq,
    tsMs,
    workspace,
    agentId,
    kind: kindText,
    payload: JSON.parse(payload),
  });
}

/** A WHERE clause under construction: SQL fragments joined by AND, and their parameters. */
interface Clause {
  sql: string[];
  params: (string | number)[];
}

/** `"kind" IN (?, …)` for the distinct `kinds` (callers handle an empty list before). */
function addKinds(c: Clause, kinds: readonly EventKind[] | undefined): void {
  if (!kinds) return;
  const distinct = [...new Set(kinds)];
  c.sql.push(`"kind" IN (${distinct.map(() => "?").join(", ")})`);
  c.params.push(...distinct);
}

/** The equality part of a page scope: `streamKey = ?` (positions are seqs) or `workspace = ?` (ids). */
function scopeClause(scope: PageScope, kinds: readonly EventKind[] | undefined): Clause & { col: string } {
  const c: Clause & { col: string } =
    "streamKey" in scope
      ? { sql: [`"streamKey" = ?`], params: [scope.streamKey], col: `"seq"` }
      : { sql: [`"workspace" = ?`], params: [scope.workspace], col: `"id"` };
  addKinds(c, kinds);
  return c;
}

/**
 * Keyset reads of the `Event` table on a raw better-sqlite3 connection, with a cache of prepared
 * statements keyed by SQL text (the shapes are bounded: scope × bounds × direction × number of
 * distinct kinds). Semantics match {@link EventStore}'s Prisma reads row for row: the same
 * filters, order and limits; decoding (and skipping unreadable rows) is the caller's.
 */
export class SqliteEventReader {
  private readonly statements = new Map<string, Statement>();
  private readonly rowStatements = new Map<string, Statement>();

  /** @param raw an open connection to the store's file (WAL; `defaultSafeIntegers` off). */
  constructor(private readonly raw: Database) {}

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Run a SELECT of the event columns: rows as arrays (statements of their own cache, in raw mode). */
  private rows(sql: string, params: readonly (string | number)[]): SqliteEventRow[] {
    let s = this.rowStatements.get(sql);
    if (!s) {
      s = this.raw.prepare(sql).raw(true);
      this.rowStatements.set(sql, s);
    }
    return s.all(...params) as SqliteEventRow[];
  }

  /**
   * Rows of one stream with `seq > afterSeq`, ascending by seq, at most `limit` (integer ≥ 0).
   */
  streamAfter(streamKey: string, afterSeq: number, limit: number): SqliteEventRow[] {
    return this.rows(
      `SELECT ${COLUMNS} FROM "Event" WHERE "streamKey" = ? AND "seq" > ? ORDER BY "seq" ASC LIMIT ?`,
      [streamKey, afterSeq, limit],
    );
  }

  /**
   * Rows with `id > afterId` narrowed by `where` (workspace; agent, `""` meaning fleet-level rows
   * with no agent; kinds), ascending by id, at most `limit` (integer ≥ 0). An empty `kinds`
   * matches nothing.
   */
  globalAfter(afterId: number, limit: number, where: GlobalFilter = {}): SqliteEventRow[] {
    if (where.kinds && where.kinds.length === 0) return [];
    const c: Clause = { sql: [`"id" > ?`], params: [afterId] };
    if (where.workspace !== undefined) {
      c.sql.push(`"workspace" = ?`);
      c.params.push(where.workspace);
    }
    if (where.agentId === "") c.sql.push(`"agentId" IS NULL`);
    else if (where.agentId !== undefined) {
      c.sql.push(`"agentId" = ?`);
      c.params.push(where.agentId);
    }
    addKinds(c, where.kinds);
    return this.rows(
      `SELECT ${COLUMNS} FROM "Event" WHERE ${c.sql.join(" AND ")} ORDER BY "id" ASC LIMIT ?`,
      [...c.params, limit],
    );
  }

  /**
   * Up to `q.limit + 1` rows of a page's scope strictly between `q.after` and `q.before` (each
   * optional), in reading order: ascending forward, DESCENDING when `q.backward` (the caller cuts
   * at `limit` and reverses). An empty `kinds` matches nothing.
   */
  pageRows(q: EventPageQuery): SqliteEventRow[] {
    if (q.kinds && q.kinds.length === 0) return [];
    const c = scopeClause(q.scope, q.kinds);
    if (q.after !== undefined) {
      c.sql.push(`${c.col} > ?`);
      c.params.push(q.after);
    }
    if (q.before !== undefined) {
      c.sql.push(`${c.col} < ?`);
      c.params.push(q.before);
    }
    return this.rows(
      `SELECT ${COLUMNS} FROM "Event" WHERE ${c.sql.join(" AND ")} ORDER BY ${c.col} ${q.backward ? "DESC" : "ASC"} LIMIT ?`,
      [...c.params, q.limit + 1],
    );
  }

  /** Whether a row of the scope (and kinds) exists at or before / at or after a position. */
  exists(
    scope: PageScope,
    kinds: readonly EventKind[] | undefined,
    side: { atOrBefore: number } | { atOrAfter: number },
  ): boolean {
    if (kinds && kinds.length === 0) return false;
    const c = scopeClause(scope, kinds);
    if ("atOrBefore" in side) {
      c.sql.push(`${c.col} <= ?`);
      c.params.push(side.atOrBefore);
    } else {
      c.sql.push(`${c.col} >= ?`);
      c.params.push(side.atOrAfter);
    }
    return (
      this.stmt(`SELECT 1 FROM "Event" WHERE ${c.sql.join(" AND ")} LIMIT 1`).get(...c.params) !== undefined
    );
  }

  /** Number of rows of the scope (and kinds). */
  count(scope: PageScope, kinds: readonly EventKind[] | undefined): number {
    if (kinds && kinds.length === 0) return 0;
    const c = scopeClause(scope, kinds);
    const row = this.stmt(`SELECT COUNT(*) AS "n" FROM "Event" WHERE ${c.sql.join(" AND ")}`).get(
      ...c.params,
    ) as { n: number };
    return row.n;
  }

  /** The row at (streamKey, seq), if stored. */
  byKey(streamKey: string, seq: number): SqliteEventRow | undefined {
    return this.rows(`SELECT ${COLUMNS} FROM "Event" WHERE "streamKey" = ? AND "seq" = ?`, [
      streamKey,
      seq,
    ])[0];
  }

  /**
   * The highest seq ever allocated in a stream as stored: the larger of its `StreamHead.lastSeq`
   * (kept through retention) and its highest stored event's seq; 0 when neither exists.
   */
  streamHigh(streamKey: string): number {
    const head = this.stmt(`SELECT "lastSeq" FROM "StreamHead" WHERE "streamKey" = ?`).get(streamKey) as
      { lastSeq: number } | undefined;
    const max = this.stmt(`SELECT MAX("seq") AS "m" FROM "Event" WHERE "streamKey" = ?`).get(streamKey) as {
      m: number | null;
    };
    return Math.max(head?.lastSeq ?? 0, max.m ?? 0);
  }

  /** The highest stored event id (fleet-wide commit position), 0 when the table is empty. */
  lastId(): number {
    const row = this.stmt(`SELECT MAX("id") AS "m" FROM "Event"`).get() as { m: number | null };
    return row.m ?? 0;
  }
}
