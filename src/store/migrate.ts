/**
 * Applies the committed Prisma migrations (`prisma/migrations/<timestamp>_<name>/migration.sql`)
 * to a SQLite database without Prisma's schema engine, recording each in a table compatible
 * with Prisma's `_prisma_migrations` (same columns; checksum = SHA-256 hex of the file bytes),
 * so `prisma migrate status` agrees on a machine that has the engine.
 *
 * Rules: pending migrations run in name order, each in its own transaction; an applied
 * migration whose file changed, an applied migration missing from disk, or a migration left
 * failed by an earlier run is a {@link StartupError} and nothing is applied.
 */
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "better-sqlite3";
import { StartupError } from "../errors.js";

/** Default migrations directory: `<package root>/prisma/migrations`. */
export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../prisma/migrations",
);

/** One migration found on disk. */
export interface MigrationFile {
  /** Directory name, e.g. `20261129140000_init`. */
  name: string;
  /** File contents (UTF-8). */
  sql: string;
  /** SHA-256 hex of the file bytes (Prisma's checksum). */
  checksum: string;
}

/** Outcome of {@link applyMigrations}. */
export interface MigrationResult {
  /** Names applied by this call, in order. */
  applied: string[];
  /** Names already applied before this call. */
  alreadyApplied: string[];
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/**
 * List migrations on disk, sorted by directory name (Prisma's order).
 * @throws StartupError if the directory is unreadable.
 */
export function readMigrations(dir: string = MIGRATIONS_DIR): MigrationFile[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new StartupError(`cannot read migrations directory ${dir}: ${(err as Error).message}`);
  }
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const bytes = fs.readFileSync(path.join(dir, name, "migration.sql"));
      return {
        name,
        sql: bytes.toString("utf8"),
        checksum: createHash("sha256").update(bytes).digest("hex"),
      };
    });
}

/** A row of `_prisma_migrations` as the checks read it (SQLite or PostgreSQL). */
export interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: string | number | Date | null;
  rolled_back_at: string | number | Date | null;
}

/**
 * The names applied in `rows` (rolled-back rows ignored), after checking them against the
 * migrations on disk — the rules of every store (SQLite here, PostgreSQL in pg-migrate.ts).
 * Pure; changes nothing.
 * @throws StartupError for a migration started and never finished, an applied migration this
 *   build does not know, or one whose file changed since it was applied.
 */
export function checkApplied(rows: readonly AppliedRow[], migrations: readonly MigrationFile[]): Set<string> {
  const onDisk = new Map(migrations.map((m) => [m.name, m]));
  const applied = new Set<string>();
  for (const row of rows) {
    if (row.rolled_back_at !== null) continue;
    if (row.finished_at === null) {
      throw new StartupError(
        `migration ${row.migration_name} was started but never finished in an earlier run; ` +
          `the database needs manual repair (restore a backup) before Prospero can start`,
      );
    }
    const file = onDisk.get(row.migration_name);
    if (!file) {
      throw new StartupError(
        `the database has migration ${row.migration_name} applied, which this version of Prospero does not know; ` +
          `it was written by a newer or different build — refusing to start (nothing was changed)`,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new StartupError(
        `migration ${row.migration_name} was modified after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ` +
          `${file.checksum.slice(0, 12)}… on disk); restore the original file — applied migrations must never change`,
      );
    }
    applied.add(row.migration_name);
  }
  return applied;
}

/**
 * Apply pending migrations to `db` (an open better-sqlite3 connection).
 * @throws StartupError on checksum drift, an unknown applied migration, a previously failed
 *   migration, or an SQL error (the failing migration is rolled back and recorded nowhere).
 */
export function applyMigrations(
  db: Database,
  migrations: MigrationFile[] = readMigrations(),
): MigrationResult {
  db.exec(CREATE_TABLE);
  const rows = db
    .prepare(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
    )
    .all() as AppliedRow[];
  const applied = checkApplied(rows, migrations);
  const result: MigrationResult = { applied: [], alreadyApplied: [...applied] };
  const insert = db.prepare(
    `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
     VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
  );
  const pending = migrations.filter((m) => !applied.has(m.name));
  if (pending.length === 0) return result;
  // Foreign keys are off while migrations run, as `prisma migrate` runs them: Prisma's SQLite
  // migrations rebuild a changed table (CREATE new_X, copy, DROP X, rename) and rely on their own
  // `PRAGMA foreign_keys=OFF`, which SQLite ignores inside a transaction — with the connection's
  // foreign keys on, `DROP TABLE "Agent"` would run its children's ON DELETE actions (every
  // event's agentId nulled). The pragma only takes effect outside a transaction, so it is set here;
  // each migration is then checked with `PRAGMA foreign_key_check` before it commits, and a
  // migration that leaves a dangling reference is rolled back like a failing one.
  const foreignKeys = db.pragma("foreign_keys", { simple: true }) as number;
  db.pragma("foreign_keys = OFF");
  try {
    for (const m of pending) {
      const startedAt = new Date().toISOString();
      const run = db.transaction(() => {
        db.exec(m.sql);
        const dangling = db.pragma("foreign_key_check") as { table: string; parent: string }[];
        if (dangling.length > 0) {
          const first = dangling[0]!;
          throw new Error(
            `it leaves ${dangling.length} row(s) referring to missing rows (first: ${first.table} → ${first.parent})`,
          );
        }
        insert.run(randomUUID(), m.checksum, new Date().toISOString(), m.name, startedAt);
      });
      try {
        run();
      } catch (err) {
        throw new StartupError(`migration ${m.name} failed and was rolled back: ${(err as Error).message}`, {
          cause: err,
        });
      }
      result.applied.push(m.name);
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? "ON" : "OFF"}`);
  }
  return result;
}
