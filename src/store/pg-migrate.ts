/**
 * Applies the committed PostgreSQL migrations (`prisma/postgres/migrations/<timestamp>_<name>/
 * migration.sql`, derived from the one datamodel `prisma/schema.prisma` by tools/prisma-migrate)
 * without Prisma's schema engine, recording each in `_prisma_migrations` as Prisma does on
 * PostgreSQL (same columns and types; checksum = SHA-256 hex of the file bytes).
 *
 * Several gateway replicas may start at once on one database (issue 18 item 1): the whole check
 * and apply runs under a session-level advisory lock ({@link MIGRATION_LOCK_KEY}), so whichever
 * replica gets there first applies the pending migrations and the others wait, then find them
 * applied. The rules are the SQLite runner's (`checkApplied` in migrate.ts): an applied migration
 * whose file changed, one this build does not know, or one left unfinished stops the start before
 * anything is changed. Each migration runs in its own transaction (PostgreSQL's DDL is
 * transactional): a failing one is rolled back whole and recorded nowhere.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ClientBase } from "pg";
import { StartupError } from "../errors.js";
import {
  checkApplied,
  readMigrations,
  type AppliedRow,
  type MigrationFile,
  type MigrationResult,
} from "./migrate.js";

/** Default PostgreSQL migrations directory: `<package root>/prisma/postgres/migrations`. */
export const PG_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../prisma/postgres/migrations",
);

/**
 * Key of the advisory lock migrations run under (`pg_advisory_lock(bigint)`): the first 8 bytes
 * of SHA-256("prospero:migrations") as a signed 64-bit integer, so it collides with no lock another
 * application on the same database is likely to take.
 */
export const MIGRATION_LOCK_KEY = "8557189749880791257";

/** Prisma's own `_prisma_migrations` table on PostgreSQL. */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Apply pending PostgreSQL migrations over `client` (a connected `pg` client, not in a
 * transaction), holding {@link MIGRATION_LOCK_KEY} for the whole call; the lock is released
 * before returning or throwing.
 * @throws StartupError on checksum drift, an unknown applied migration, a previously unfinished
 *   migration, or an SQL error (that migration rolled back, later ones not attempted).
 */
export async function applyPgMigrations(
  client: ClientBase,
  migrations: MigrationFile[] = readMigrations(PG_MIGRATIONS_DIR),
): Promise<MigrationResult> {
  await client.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
  try {
    await client.query(CREATE_TABLE);
    const { rows } = await client.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
    );
    const applied = checkApplied(rows, migrations);
    const result: MigrationResult = { applied: [], alreadyApplied: [...applied] };
    for (const m of migrations.filter((x) => !applied.has(x.name))) {
      const startedAt = new Date();
      try {
        await client.query("BEGIN");
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
          [randomUUID(), m.checksum, m.name, startedAt],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw new StartupError(`migration ${m.name} failed and was rolled back: ${(err as Error).message}`, {
          cause: err,
        });
      }
      result.applied.push(m.name);
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}
