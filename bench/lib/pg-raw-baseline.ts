/**
 * The storage limit on PostgreSQL: the same rows a run stored (every `Frame` and `Event`),
 * inserted again with plain `pg` into a fresh database with the same schema and indexes, in large
 * transactions of one multi-row statement each (`INSERT … SELECT FROM unnest(…)`, the fastest plain
 * SQL form; the gateway's hot path uses it too, per commit). Used as the PostgreSQL ingest baseline.
 */
import pg from "pg";
import { applyPgMigrations } from "../../src/store/pg-migrate.js";
import type { RawInsertResult } from "./raw-baseline.js";

/** UTC ms → timestamp(3). */
const TS = (col: string) => `(to_timestamp(${col} / 1000) AT TIME ZONE 'UTC')`;

/**
 * Copy the stored rows of the gateway database at `sourceUrl` into the empty database at
 * `targetUrl`: schema, Workspace and Agent rows untimed, then Frame and Event rows timed, `perTx`
 * rows per transaction. The gateway must be stopped.
 */
export async function rawPgInsertBaseline(
  sourceUrl: string,
  targetUrl: string,
  perTx = 10_000,
): Promise<RawInsertResult> {
  const src = new pg.Client({ connectionString: sourceUrl });
  const dst = new pg.Client({ connectionString: targetUrl });
  await src.connect();
  await dst.connect();
  try {
    await applyPgMigrations(dst);
    // Untimed: the rows the timed ones reference, copied as JSON records.
    for (const table of ["Workspace", "Agent"]) {
      const { rows } = await src.query<{ j: unknown }>(
        `SELECT coalesce(json_agg(t), '[]'::json) AS j FROM "${table}" t`,
      );
      await dst.query(
        `INSERT INTO "${table}" SELECT * FROM json_populate_recordset(NULL::"${table}", $1::json)`,
        [JSON.stringify(rows[0]!.j)],
      );
    }
    const frames = (
      await src.query<{ agentId: string; line: number; text: string; bytes: Buffer | null; ms: number }>(
        `SELECT "agentId", "line", "text", "bytes", extract(epoch FROM "ts") * 1000 AS ms FROM "Frame" ORDER BY "agentId", "line"`,
      )
    ).rows;
    const events = (
      await src.query<{
        streamKey: string;
        seq: number;
        ms: number;
        workspace: string;
        agentId: string | null;
        kind: string;
        payload: string;
      }>(
        `SELECT "streamKey", "seq", extract(epoch FROM "ts") * 1000 AS ms, "workspace", "agentId", "kind", "payload"::text AS payload FROM "Event" ORDER BY "id"`,
      )
    ).rows;
    const t0 = performance.now();
    for (let i = 0; i < frames.length; i += perTx) {
      const b = frames.slice(i, i + perTx);
      await dst.query("BEGIN");
      await dst.query(
        `INSERT INTO "Frame" ("agentId", "line", "text", "bytes", "ts")
         SELECT a, l, t, b, ${TS("ms")} FROM unnest($1::text[], $2::int[], $3::text[], $4::bytea[], $5::float8[]) AS u(a, l, t, b, ms)`,
        [
          b.map((f) => f.agentId),
          b.map((f) => f.line),
          b.map((f) => f.text),
          b.map((f) => f.bytes),
          b.map((f) => Number(f.ms)),
        ],
      );
      await dst.query("COMMIT");
    }
    for (let i = 0; i < events.length; i += perTx) {
      const b = events.slice(i, i + perTx);
      await dst.query("BEGIN");
      await dst.query(
        `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload")
         SELECT s, q, ${TS("ms")}, w, a, k, p::jsonb FROM unnest($1::text[], $2::int[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(s, q, ms, w, a, k, p)`,
        [
          b.map((e) => e.streamKey),
          b.map((e) => e.seq),
          b.map((e) => Number(e.ms)),
          b.map((e) => e.workspace),
          b.map((e) => e.agentId),
          b.map((e) => e.kind),
          b.map((e) => e.payload),
        ],
      );
      await dst.query("COMMIT");
    }
    const ms = performance.now() - t0;
    return { events: events.length, frames: frames.length, ms, framesPerSec: (frames.length / ms) * 1000 };
  } finally {
    await src.end();
    await dst.end();
  }
}
