/**
 * Which store the suite runs on (issue 18 item 1: the suite runs on SQLite and, as a matrix, on
 * PostgreSQL). `PROSPERO_TEST_STORE=postgresql` (set by the `postgresql` project of
 * vitest.config.ts, whose global setup starts one throwaway cluster and sets
 * `PROSPERO_TEST_MATRIX_POSTGRES_URL`) makes the harnesses give each gateway its own fresh database.
 */
import type { OpenedStore } from "../../src/app.js";
import type { OpenedDatabase } from "../../src/store/db.js";
import { startPostgres, type TestPostgres } from "./postgres.js";

/** The store of this run. */
export const TEST_STORE: "sqlite" | "postgresql" =
  process.env.PROSPERO_TEST_STORE === "postgresql" ? "postgresql" : "sqlite";

let server: Promise<TestPostgres> | null = null;

/**
 * A fresh database URL for one gateway when the run is on PostgreSQL, else null (the data dir's
 * SQLite file). The database is dropped by {@link dropTestDatabase}.
 */
export async function testDatabaseUrl(): Promise<string | null> {
  if (TEST_STORE !== "postgresql") return null;
  const url = process.env.PROSPERO_TEST_MATRIX_POSTGRES_URL;
  server ??= startPostgres(url ? { url } : {});
  return (await server).createDatabase();
}

/** Drop a database made by {@link testDatabaseUrl} (its connections are closed first by the server). */
export async function dropTestDatabase(url: string | null): Promise<void> {
  if (url === null || server === null) return;
  await (await server).dropDatabase(url);
}

/**
 * The SQLite store of a gateway under test, for a test about SQLite's own file or connection.
 * @throws Error on a PostgreSQL run (such a test belongs to the SQLite project only).
 */
export function sqliteOf(db: OpenedStore): OpenedDatabase {
  if (db.dialect !== "sqlite") throw new Error("this test reads the SQLite store's own file");
  return db;
}
