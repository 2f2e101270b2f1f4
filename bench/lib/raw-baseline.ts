/**
 * The storage limit: the same rows a run stored (every `Frame` and `Event`), inserted again with
 * raw better-sqlite3 prepared statements in large transactions into a fresh database with the
 * same schema, pragmas (WAL, foreign keys) and indexes. Used as the ingest baseline.
 */
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { applyMigrations, readMigrations } from "../../src/store/migrate.js";
import { DB_FILE } from "../../src/store/db.js";

/** What the raw insert achieved. */
export interface RawInsertResult {
  events: number;
  frames: number;
  /** Wall time of the timed inserts, ms. */
  ms: number;
  /** frames (TurnEvent lines) / s, their fleet events inserted alongside as the gateway does. */
  framesPerSec: number;
}

type Row = Record<string, unknown>;

function insertAll(db: BetterSqlite3.Database, table: string, rows: Row[], perTx: number): void {
  const first = rows[0];
  if (!first) return;
  const cols = Object.keys(first);
  const stmt = db.prepare(
    `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(",")}) VALUES (${cols.map((c) => `@${c}`).join(",")})`,
  );
  const tx = db.transaction((batch: Row[]) => {
    for (const r of batch) stmt.run(r);
  });
  for (let i = 0; i < rows.length; i += perTx) tx(rows.slice(i, i + perTx));
}

/**
 * Copy the stored rows of the gateway database in `dataDir` into `<scratchDir>/prospero.db`:
 * Workspace and Agent rows untimed, then Frame and Event rows timed, `perTx` rows per transaction.
 * The gateway must be stopped (its data dir quiescent).
 */
export function rawInsertBaseline(dataDir: string, scratchDir: string, perTx = 10_000): RawInsertResult {
  const src = new BetterSqlite3(path.join(dataDir, DB_FILE), { readonly: true });
  const read = (table: string): Row[] => src.prepare(`SELECT * FROM "${table}"`).all() as Row[];
  const workspaces = read("Workspace");
  const agents = read("Agent");
  const frames = read("Frame");
  const events = read("Event").map((r) => {
    const { id: _id, ...rest } = r; // let AUTOINCREMENT assign ids, as the gateway's inserts do
    return rest;
  });
  src.close();

  fs.rmSync(scratchDir, { recursive: true, force: true });
  fs.mkdirSync(scratchDir, { recursive: true });
  const db = new BetterSqlite3(path.join(scratchDir, DB_FILE));
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  applyMigrations(db, readMigrations());
  insertAll(db, "Workspace", workspaces, perTx);
  // respawnedFrom references other agents: insert with the self-reference checked at the end.
  db.pragma("foreign_keys = OFF");
  insertAll(db, "Agent", agents, perTx);
  db.pragma("foreign_keys = ON");

  const t0 = performance.now();
  insertAll(db, "Frame", frames, perTx);
  insertAll(db, "Event", events, perTx);
  const ms = performance.now() - t0;
  db.close();
  return { events: events.length, frames: frames.length, ms, framesPerSec: (frames.length / ms) * 1000 };
}
