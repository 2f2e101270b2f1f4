/**
 * The write hot path (issue 17's seam, src/store/hot-path.ts) on PostgreSQL (issue 18 item 1):
 * the jobs of one call commit in one transaction on one pooled connection, each row kind as ONE
 * statement over arrays (`INSERT … SELECT … FROM unnest($1::text[], …)`), so a batch of any size
 * costs one round trip per row kind, the statement text never changes (prepared once per
 * connection, by name) and no parameter limit is reached.
 *
 * PostgreSQL refuses NUL in `text` and the escape `\u0000` in `jsonb`, both of which a worker's
 * output may hold: a frame whose text has NUL keeps its exact bytes in `bytes` (as a frame that is
 * not valid UTF-8 does) and its text has U+FFFD instead; a payload's `\u0000` is stored as
 * `\ufffd` ({@link pgJsonText}).
 */
import type pg from "pg";
import type { HotJob, HotPathWriter, HotResult } from "./hot-path.js";
import { pgJsonText } from "./dialect.js";

/** UTC ms → timestamp(3), for arrays of ms. */
const TS = (col: string) => `(to_timestamp(${col} / 1000) AT TIME ZONE 'UTC')`;

const FRAMES = `INSERT INTO "Frame" ("agentId", "line", "text", "bytes", "ts")
  SELECT a, l, t, b, ${TS("ms")} FROM unnest($1::text[], $2::int[], $3::text[], $4::bytea[], $5::float8[]) AS u(a, l, t, b, ms)`;

const EVENTS = `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload")
  SELECT s, q, ${TS("ms")}, w, a, k, p::jsonb FROM unnest($1::text[], $2::int[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(s, q, ms, w, a, k, p)
  RETURNING "id", "streamKey", "seq"`;

const HEADS = `INSERT INTO "StreamHead" ("streamKey", "lastSeq")
  SELECT s, max(q) FROM unnest($1::text[], $2::int[]) AS u(s, q) GROUP BY s
  ON CONFLICT ("streamKey") DO UPDATE SET "lastSeq" = GREATEST("StreamHead"."lastSeq", excluded."lastSeq")`;

const CURSOR = `INSERT INTO "IngestCursor" ("agentId", "workspace", "mode", "byteOffset", "lineCount", "state", "finished", "updatedAt")
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, ${TS("$8::float8")})
  ON CONFLICT ("agentId") DO UPDATE SET "workspace" = excluded."workspace", "mode" = excluded."mode",
    "byteOffset" = excluded."byteOffset", "lineCount" = excluded."lineCount", "state" = excluded."state",
    "finished" = excluded."finished", "updatedAt" = excluded."updatedAt"`;

// COALESCE keeps what is stored for the fields left unset (as SqliteHotPath does).
const TOTALS = `UPDATE "Agent" SET "turns" = $1, "inputTokens" = $2, "outputTokens" = $3, "cacheReadTokens" = $4,
    "cacheCreationTokens" = $5, "costUsd" = $6, "outcome" = COALESCE($7, "outcome"),
    "model" = COALESCE($8, "model"), "updatedAt" = ${TS("$9::float8")}
  WHERE "id" = $10`;

/**
 * {@link HotPathWriter} on a `pg` pool of the store's database. Rows are written in the order the
 * seam states (per job: frames, cursor, totals, events, heads; jobs in order), all in one
 * transaction; on any error it is rolled back and the promise rejects with the database error.
 */
export class PgHotPath implements HotPathWriter {
  /**
   * @param pool the store's pool (the schema must be migrated).
   * @param now wall clock for `Agent.updatedAt`, ms since the epoch.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
  ) {}

  /** @inheritdoc */
  async commit(jobs: readonly HotJob[]): Promise<HotResult[]> {
    const client = await this.pool.connect();
    // The pool listens for errors of idle clients only: a checked-out client's 'error' (the server
    // terminated the connection) would otherwise end the process. The failing query rejects too.
    let broken = false;
    const onError = () => {
      broken = true;
    };
    client.on("error", onError);
    try {
      await client.query("BEGIN");
      const results: HotResult[] = [];
      for (const job of jobs) results.push(await this.write(client, job));
      await client.query("COMMIT");
      return results;
    } catch (err) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true; // the connection itself failed: do not return it to the pool
      }
      throw err;
    } finally {
      // A broken client is destroyed by the pool, and its socket may still report the error:
      // the listener stays on it.
      if (!broken) client.off("error", onError);
      client.release(broken);
    }
  }

  private async write(client: pg.PoolClient, job: HotJob): Promise<HotResult> {
    const frames = job.frames ?? [];
    if (frames.length > 0) {
      const texts: string[] = [];
      const bytes: (Buffer | null)[] = [];
      for (const f of frames) {
        if (f.text.includes("\u0000")) {
          texts.push(f.text.replaceAll("\u0000", "\uFFFD"));
          bytes.push(f.bytes ?? Buffer.from(f.text, "utf8"));
        } else {
          texts.push(f.text);
          bytes.push(f.bytes);
        }
      }
      await client.query({
        name: "prospero_hot_frames",
        text: FRAMES,
        values: [
          frames.map((f) => f.agentId),
          frames.map((f) => f.line),
          texts,
          bytes,
          frames.map((f) => f.tsMs),
        ],
      });
    }
    const c = job.cursor;
    if (c) {
      await client.query({
        name: "prospero_hot_cursor",
        text: CURSOR,
        values: [
          c.agentId,
          c.workspace,
          c.mode,
          c.byteOffset,
          c.lineCount,
          pgJsonText(c.state),
          c.finished,
          c.tsMs,
        ],
      });
    }
    const t = job.totals;
    if (t) {
      await client.query({
        name: "prospero_hot_totals",
        text: TOTALS,
        values: [
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
        ],
      });
    }
    const events = job.events ?? [];
    let eventIds: number[] = [];
    if (events.length > 0) {
      const res = await client.query<{ id: number; streamKey: string; seq: number }>({
        name: "prospero_hot_events",
        text: EVENTS,
        values: [
          events.map((e) => e.streamKey),
          events.map((e) => e.seq),
          events.map((e) => e.tsMs),
          events.map((e) => e.workspace),
          events.map((e) => e.agentId),
          events.map((e) => e.kind),
          events.map((e) => pgJsonText(e.payload)),
        ],
      });
      // RETURNING order is not promised: match ids by (streamKey, seq), unique per event.
      const ids = new Map<string, number>();
      for (const r of res.rows) ids.set(`${r.streamKey}#${r.seq}`, Number(r.id));
      eventIds = events.map((e) => {
        const id = ids.get(`${e.streamKey}#${e.seq}`);
        if (id === undefined) throw new Error(`event ${e.streamKey}#${e.seq} was not returned by its INSERT`);
        return id;
      });
    }
    const heads = job.heads ?? [];
    if (heads.length > 0) {
      await client.query({
        name: "prospero_hot_heads",
        text: HEADS,
        values: [heads.map((h) => h.streamKey), heads.map((h) => h.lastSeq)],
      });
    }
    return { eventIds };
  }
}
