/**
 * Opens Prospero's SQLite database in the data dir: checks the directory is usable and the file
 * is SQLite, sets WAL + busy timeout, applies migrations, then returns a Prisma client (better-sqlite3
 * driver adapter) and a raw better-sqlite3 connection (migrations, readiness probes, the writer's hot
 * path and raw event reads).
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

/** An opened SQLite store: Prisma, a raw connection of the same file, and what migrate did. */
export interface OpenedDatabase {
  dialect: "sqlite";
  /** Absolute path of the database file. */
  file: string;
  prisma: PrismaClient;
  /**
   * Raw better-sqlite3 connection (WAL, busy timeout, foreign keys on; `defaultSafeIntegers` off,
   * integers are JS numbers): migrations, readiness probes, the writer's hot path (`SqliteHotPath`,
   * issue 17), whose writes the StoreWriter's queue orders with Prisma's (ARCHITECTURE decision 7),
   * and the raw event reads of `SqliteEventReader` (src/store/sqlite-reader.ts).
   */
  raw: Database;
  migrations: MigrationResult;
  /** True when the store accepts writes right now ({@link isWritable} on `raw`). */
  writable(): boolean;
  /** Close both connections. */
  close(): Promise<void>;
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

/** Mode of a data dir we own (issue 11 item 8): 0700. */
export const DATA_DIR_MODE = 0o700;

/** Mode of the database file and its `-wal` / `-shm` companions: 0600. */
export const DB_FILE_MODE = 0o600;

/** True when `st` belongs to this process's effective user (always true where there are no uids). */
function ownedByUs(st: fs.Stats): boolean {
  const uid = process.geteuid?.();
  return uid === undefined || st.uid === uid;
}

/**
 * Tighten an existing file or directory of ours to `mode` when group or others have any access
 * (issue 11 item 8). Paths owned by another user, and missing ones, are left alone; so is a
 * symbolic link unless `follow` (then its target is judged and changed).
 * @throws StartupError when the chmod fails.
 */
function tighten(target: string, mode: number, follow = false): void {
  let st: fs.Stats;
  try {
    st = follow ? fs.statSync(target) : fs.lstatSync(target);
  } catch {
    return;
  }
  if (st.isSymbolicLink() || !ownedByUs(st) || (st.mode & 0o077) === 0) return;
  try {
    fs.chmodSync(target, mode);
  } catch (err) {
    throw new StartupError(
      `cannot restrict ${target} to mode 0${mode.toString(8)}: ${(err as Error).message}`,
    );
  }
}

/**
 * Create `dir` and its missing parents with `mode`, one level at a time from the nearest existing
 * ancestor. Not `fs.mkdirSync(dir, { recursive: true })`: Node's recursive mkdir loops forever
 * when mkdir answers ENOENT for a path whose parent exists (e.g. `/proc/nope`: issue 12 item 9).
 * @throws the OS error of the first directory that cannot be created (ENOENT, EACCES, ENOTDIR, …).
 */
function makeDirs(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let p = path.resolve(dir); ; p = path.dirname(p)) {
    try {
      fs.statSync(p);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    missing.unshift(p);
    if (path.dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      fs.mkdirSync(p, { mode });
    } catch (err) {
      // Created by someone else meanwhile: fine when it is a directory (checked by the caller).
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

/**
 * Ensure `dir` exists and is writable. Created with mode 0700 if missing; an existing data dir
 * owned by this user is tightened to 0700 when group or others have access (it holds the database,
 * tokens and daemon logs: issue 11 item 8). A data dir owned by ANOTHER user is refused: its owner
 * could replace the database or the admin token under us; so is a shared one (sticky or
 * world-writable, such as /tmp), whose mode is never changed.
 * @throws StartupError naming the directory and the OS reason (nothing is created in a refused dir).
 */
export function ensureDataDir(dir: string): void {
  try {
    makeDirs(dir, 0o700);
  } catch (err) {
    throw new StartupError(`cannot create data dir ${dir}: ${(err as Error).message}`);
  }
  const st = fs.statSync(dir);
  if (!st.isDirectory()) throw new StartupError(`data dir ${dir} exists but is not a directory`);
  if (!ownedByUs(st)) {
    throw new StartupError(
      `data dir ${dir} belongs to uid ${st.uid}, not to this user (uid ${process.geteuid?.()}): it holds the database and the admin token, so it must be the gateway user's own; choose another --data-dir`,
    );
  }
  if ((st.mode & 0o1002) !== 0) {
    // A shared directory such as /tmp (sticky, or writable by everyone): tightening it would take
    // it from every other user, and others can plant files in it. Never chmod it; refuse it.
    throw new StartupError(
      `data dir ${dir} is a shared directory (${(st.mode & 0o1000) !== 0 ? "sticky" : "writable by others"}, mode ${(st.mode & 0o7777).toString(8)}); its mode is left alone: choose a directory of the gateway's own, e.g. ${path.join(dir, "prospero")}`,
    );
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new StartupError(`data dir ${dir} is not writable by this user`);
  }
  tighten(dir, DATA_DIR_MODE, true);
}

/**
 * Make the database file private before SQLite opens it: create `file` with mode 0600 when it is
 * missing (SQLite would create it 0644 & ~umask, and gives `-wal`/`-shm` the database file's mode),
 * and tighten an existing database, `-wal` or `-shm` of ours to 0600. Files owned by another user
 * are left as they are.
 * @throws StartupError when the file cannot be created or restricted.
 */
export function prepareDatabaseFiles(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, DB_FILE_MODE));
  } catch (err) {
    throw new StartupError(`cannot create database file ${file}: ${(err as Error).message}`, { cause: err });
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) tighten(f, DB_FILE_MODE);
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
 * Open (creating if needed) the database at `<dataDir>/prospero.db` and apply migrations. The
 * data dir is made 0700 and the database files 0600 when they are ours ({@link ensureDataDir},
 * {@link prepareDatabaseFiles}).
 * @param migrationsDir override for tests.
 * @throws StartupError for an unusable data dir, a non-SQLite file, or migration problems.
 */
export async function openDatabase(dataDir: string, migrationsDir?: string): Promise<OpenedDatabase> {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, DB_FILE);
  assertSqliteFile(file);
  prepareDatabaseFiles(file);
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
    dialect: "sqlite",
    file,
    prisma,
    raw,
    migrations,
    writable: () => isWritable(raw),
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
