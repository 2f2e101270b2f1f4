/**
 * Opens Prospero's SQLite database in the data dir: checks the directory is usable and the file
 * is SQLite, sets WAL + busy timeout, applies migrations, then returns a Prisma client (better-sqlite3
 * driver adapter) and a raw connection used for readiness probes.
 */
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../generated/prisma/client.js";
import { StartupError } from "../errors.js";
import { applyMigrations, readMigrations, type MigrationResult } from "./migrate.js";

export type { PrismaClient };

/** File name of the database inside the data dir. */
export const DB_FILE = "prospero.db";

/** SQLite busy timeout, ms (how long a connection waits for a lock before failing). */
export const BUSY_TIMEOUT_MS = 5000;

/** An opened store: Prisma for queries, a raw connection for probes, and what migrate did. */
export interface OpenedDatabase {
  /** Absolute path of the database file. */
  file: string;
  prisma: PrismaClient;
  /** Raw better-sqlite3 connection (WAL, busy timeout set); used for probes only. */
  raw: Database;
  migrations: MigrationResult;
  /** Close both connections. */
  close(): Promise<void>;
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

/**
 * Ensure `dir` exists (created with mode 0700 if missing) and is writable.
 * @throws StartupError naming the directory and the OS reason.
 */
export function ensureDataDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new StartupError(`cannot create data dir ${dir}: ${(err as Error).message}`);
  }
  const st = fs.statSync(dir);
  if (!st.isDirectory()) throw new StartupError(`data dir ${dir} exists but is not a directory`);
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new StartupError(`data dir ${dir} is not writable by this user`);
  }
}

/**
 * Refuse a database file that exists, is non-empty and is not SQLite (nothing is touched).
 * @throws StartupError
 */
export function assertSqliteFile(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new StartupError(`cannot read database file ${file}: ${(err as Error).message}`);
  }
  try {
    const buf = Buffer.alloc(16);
    const n = fs.readSync(fd, buf, 0, 16, 0);
    if (n === 0) return;
    if (n < 16 || !buf.equals(SQLITE_MAGIC)) {
      throw new StartupError(
        `${file} is not a SQLite database; refusing to use or overwrite it (move it away or choose another --data-dir)`,
      );
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Open (creating if needed) the database at `<dataDir>/prospero.db` and apply migrations.
 * @param migrationsDir override for tests.
 * @throws StartupError for an unusable data dir, a non-SQLite file, or migration problems.
 */
export async function openDatabase(dataDir: string, migrationsDir?: string): Promise<OpenedDatabase> {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, DB_FILE);
  assertSqliteFile(file);
  const migrationFiles = readMigrations(migrationsDir);
  let raw: Database;
  try {
    raw = new BetterSqlite3(file, { timeout: BUSY_TIMEOUT_MS });
    raw.pragma("journal_mode = WAL");
    raw.pragma("foreign_keys = ON");
  } catch (err) {
    throw new StartupError(`cannot open database ${file}: ${(err as Error).message}`, { cause: err });
  }
  let migrations: MigrationResult;
  try {
    migrations = applyMigrations(raw, migrationFiles);
  } catch (err) {
    raw.close();
    throw err;
  }
  const adapter = new PrismaBetterSqlite3(
    { url: `file:${file}`, timeout: BUSY_TIMEOUT_MS },
    { timestampFormat: "unixepoch-ms" },
  );
  const prisma = new PrismaClient({ adapter });
  await prisma.$connect();
  return {
    file,
    prisma,
    raw,
    migrations,
    async close() {
      await prisma.$disconnect();
      raw.close();
    },
  };
}

/**
 * True when the store accepts writes right now: takes and releases SQLite's write lock
 * (`BEGIN IMMEDIATE; ROLLBACK`) on the probe connection, changing nothing.
 */
export function isWritable(raw: Database): boolean {
  try {
    raw.exec("BEGIN IMMEDIATE");
    raw.exec("ROLLBACK");
    return true;
  } catch {
    try {
      if (raw.inTransaction) raw.exec("ROLLBACK");
    } catch {
      // already rolled back
    }
    return false;
  }
}
