/**
 * PostgreSQL migrations (issue 18 item 1), on a real PostgreSQL server: the committed
 * `prisma/postgres/migrations`, applied by our runner to an empty database, build exactly the
 * schema Prisma derives from the one datamodel `prisma/schema.prisma` for PostgreSQL
 * (tools/prisma-migrate `sql --postgres`); replicas starting at once apply each migration once
 * (the advisory lock); an edited, unknown or failing migration stops the start and changes nothing.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartupError } from "../../src/errors.js";
import { readMigrations } from "../../src/store/migrate.js";
import { PG_MIGRATIONS_DIR, applyPgMigrations } from "../../src/store/pg-migrate.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { tmpDir } from "../helpers/tmp.js";

const TOOL = path.resolve(import.meta.dirname, "../../tools/prisma-migrate/migrate-tool.mjs");

let server: TestPostgres;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** A connected client of a fresh database (closed after the test file). */
const clients: pg.Client[] = [];
afterAll(async () => {
  for (const c of clients.splice(0)) await c.end().catch(() => undefined);
});
async function freshClient(url?: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url ?? (await server.createDatabase()) });
  await c.connect();
  clients.push(c);
  return c;
}

/** Columns, indexes and constraints of the public schema (without `_prisma_migrations`). */
async function introspect(c: pg.Client): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await c.query(sql)).rows as unknown[];
  return {
    columns:
      await q(`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default,
        character_maximum_length, numeric_precision, datetime_precision
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
      ORDER BY table_name, ordinal_position`),
    indexes: await q(`SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename, indexname`),
    constraints:
      await q(`SELECT conrelid::regclass::text AS "table", conname, pg_get_constraintdef(oid) AS def
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text <> '_prisma_migrations'
      ORDER BY 1, 2`),
  };
}

/** A copy of the committed PostgreSQL migrations that a test may modify. */
function copyMigrations(): string {
  const dir = path.join(tmpDir("pgmig-"), "migrations");
  fs.cpSync(PG_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

describe("PostgreSQL migrations", () => {
  it("applied to an empty database, build exactly the schema Prisma derives from prisma/schema.prisma", async () => {
    const res = spawnSync(process.execPath, [TOOL, "sql", "--postgres"], { encoding: "utf8" });
    expect(res.status, res.stderr).toBe(0);
    const fromPrisma = await freshClient();
    await fromPrisma.query(res.stdout);
    const expected = await introspect(fromPrisma);
    expect(new Set((expected.columns as { table_name: string }[]).map((c) => c.table_name)).size).toBe(23);

    const ours = await freshClient();
    const result = await applyPgMigrations(ours);
    expect(result.applied).toEqual(readMigrations(PG_MIGRATIONS_DIR).map((m) => m.name));
    expect(await introspect(ours)).toEqual(expected);

    // The comparison is sensitive: one dropped index is a difference.
    await fromPrisma.query(`DROP INDEX "Event_ts_idx"`);
    expect(await introspect(ours)).not.toEqual(await introspect(fromPrisma));
  });

  it("replicas starting at once: each migration is applied exactly once, and all of them see it applied", async () => {
    const url = await server.createDatabase();
    const replicas = await Promise.all([1, 2, 3, 4].map(() => freshClient(url)));
    const results = await Promise.all(replicas.map((c) => applyPgMigrations(c)));
    const names = readMigrations(PG_MIGRATIONS_DIR).map((m) => m.name);
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    for (const r of results) expect([...r.applied, ...r.alreadyApplied].sort()).toEqual(names);
    const rows = await replicas[0]!.query(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"`,
    );
    expect(rows.rows.map((r: { migration_name: string }) => r.migration_name).sort()).toEqual(names);
    for (const r of rows.rows as { checksum: string; finished_at: Date | null }[]) {
      expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(r.finished_at).toBeInstanceOf(Date);
    }
    // A restart applies nothing.
    expect((await applyPgMigrations(replicas[1]!)).applied).toEqual([]);
  });

  it("an edited or unknown applied migration stops the start before anything is applied", async () => {
    const c = await freshClient();
    await applyPgMigrations(c);
    const dir = copyMigrations();
    const first = readMigrations(dir)[0]!;
    // A new pending migration that must not run while the check fails.
    fs.mkdirSync(path.join(dir, "29990101000000_later"));
    fs.writeFileSync(
      path.join(dir, "29990101000000_later", "migration.sql"),
      `CREATE TABLE "Later" ("x" INTEGER);`,
    );
    fs.appendFileSync(path.join(dir, first.name, "migration.sql"), "\n-- edited\n");
    const edited = await applyPgMigrations(c, readMigrations(dir)).catch((e: unknown) => e);
    expect(edited).toBeInstanceOf(StartupError);
    expect((edited as Error).message).toMatch(
      new RegExp(`migration ${first.name} was modified after it was applied`),
    );
    const later = await c.query(`SELECT to_regclass('public."Later"') AS t`);
    expect(later.rows[0].t).toBeNull();

    const unknown = await applyPgMigrations(c, []).catch((e: unknown) => e);
    expect((unknown as Error).message).toMatch(/this version of Prospero does not know/);
    // The lock was released each time: another call gets it at once.
    const again = await applyPgMigrations(c);
    expect(again.applied).toEqual([]);
  });

  it("a failing migration is rolled back whole and recorded nowhere; the next start retries it", async () => {
    const c = await freshClient();
    const dir = copyMigrations();
    const bad = path.join(dir, "29990101000000_bad");
    fs.mkdirSync(bad);
    fs.writeFileSync(
      path.join(bad, "migration.sql"),
      `CREATE TABLE "Half" ("x" INTEGER);\nALTER TABLE "NoSuchTable" ADD COLUMN "y" INTEGER;`,
    );
    const err = await applyPgMigrations(c, readMigrations(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(
      /migration 29990101000000_bad failed and was rolled back: .*NoSuchTable/,
    );
    expect((await c.query(`SELECT to_regclass('public."Half"') AS t`)).rows[0].t).toBeNull();
    const names = (await c.query(`SELECT migration_name FROM "_prisma_migrations"`)).rows.map(
      (r: { migration_name: string }) => r.migration_name,
    );
    expect(names).not.toContain("29990101000000_bad");
    expect(names).toEqual(readMigrations(PG_MIGRATIONS_DIR).map((m) => m.name));
    // Fixed, it applies.
    fs.writeFileSync(path.join(bad, "migration.sql"), `CREATE TABLE "Half" ("x" INTEGER);`);
    expect((await applyPgMigrations(c, readMigrations(dir))).applied).toEqual(["29990101000000_bad"]);
  });
});
