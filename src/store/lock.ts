/**
 * One gateway per data dir (issue 12 item 8). Two gateways on one data dir both report ready and
 * corrupt the shared history (failed appends, duplicate status rows, seq jumps), so a gateway takes
 * the data dir's lock before it listens or opens the database, holds it for as long as it runs,
 * and a second one is refused at start with the holder's pid.
 *
 * The lock is SQLite's own: a small database `<data dir>/gateway.lock` (rollback journal) on which
 * the holder keeps a write transaction open (`BEGIN IMMEDIATE`, SQLite's RESERVED lock). SQLite
 * takes it with a POSIX advisory (fcntl) lock that the kernel releases when the process dies,
 * SIGKILL included, so a crashed gateway never leaves a stale lock and a new one starts at once.
 * Other processes can still read the database while the lock is held (a RESERVED lock admits
 * readers): the holder's pid is the committed row of the `holder` table, which the holder writes
 * right after winning the lock and before holding it for good.
 *
 * Chosen over a mkdir-based lock file (proper-lockfile): that one can only declare a dead
 * holder's lock stale after a timeout (≥ 5 s of unchanged mtime), so a gateway restarted at once
 * after a crash would wait or be refused; a kernel lock is free the moment its holder is gone.
 * better-sqlite3 is already the store's driver, so nothing new is needed.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { StartupError } from "../errors.js";

/** File name of the lock database inside the data dir. */
export const LOCK_FILE = "gateway.lock";

/** Mode of the lock file (it names the holder's pid; the data dir is private anyway): 0600. */
const LOCK_FILE_MODE = 0o600;

/**
 * How long {@link acquireDataDirLock} keeps trying while the lock is busy but its holder cannot be
 * named yet (the holder is between winning the lock and writing its pid), ms.
 */
export const LOCK_SETTLE_MS = 2_000;

/** Pause between attempts while the holder cannot be named, ms. */
const RETRY_MS = 20;

/** The data dir's lock, held by this process until {@link DataDirLock.release}. */
export interface DataDirLock {
  /** Absolute path of the lock database. */
  file: string;
  /** Release the lock (idempotent). The kernel releases it anyway when the process ends. */
  release(): void;
}

/** The data dir is in use by another gateway (its pid when it could be read). */
export class DataDirInUse extends StartupError {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | null,
  ) {
    super(
      `another gateway (${holderPid === null ? "pid unknown" : `pid ${holderPid}`}) is using the data dir ${dataDir}; stop it or choose another --data-dir`,
    );
  }
}

/** True when `err` is SQLite saying another connection holds the lock. */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

/** True when a process with this pid exists (ours or another user's). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface HolderRow {
  pid: number;
  nonce: string;
}

/** The committed holder row, or null when there is none yet or it cannot be read right now. */
function readHolder(db: Database): HolderRow | null {
  try {
    const row = db.prepare("SELECT pid, nonce FROM holder WHERE id = 1").get() as HolderRow | undefined;
    return row ?? null;
  } catch {
    return null; // no table yet, or the holder is committing its row this instant
  }
}

/**
 * Take the lock of `dataDir` (which must exist: see ensureDataDir in ./db.ts) for this process.
 * Nothing else in the data dir is touched: the lock database is created if missing.
 * @param opts.settleMs how long to retry while the lock is busy but its holder's pid is not
 *   readable yet (default {@link LOCK_SETTLE_MS}).
 * @throws DataDirInUse when another gateway (another process, or another App in this process)
 *   holds it, naming its pid; StartupError when the lock file cannot be created or opened.
 */
export async function acquireDataDirLock(
  dataDir: string,
  opts: { settleMs?: number } = {},
): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  let db: Database;
  try {
    // Never through a symlink (O_NOFOLLOW: ELOOP), and only a plain file of its own: a lock
    // "file" that is a link to a device, to the database or elsewhere is refused, not locked,
    // written or chmodded.
    const fd = fs.openSync(
      file,
      fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
      LOCK_FILE_MODE,
    );
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new Error("it is not a regular file");
      if (st.nlink > 1) throw new Error(`it has ${st.nlink} hard links (another file shares it)`);
      // An existing lock file is tightened like the rest of the data dir (ensureDataDir).
      if ((st.mode & 0o077) !== 0) fs.fchmodSync(fd, LOCK_FILE_MODE);
    } finally {
      fs.closeSync(fd);
    }
    // timeout 0: a busy lock is an answer, not something to wait for.
    db = new BetterSqlite3(file, { timeout: 0 });
  } catch (err) {
    throw new StartupError(`cannot open the data dir's lock file ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const nonce = randomUUID();
  const deadline = Date.now() + (opts.settleMs ?? LOCK_SETTLE_MS);
  try {
    for (;;) {
      if (tryHold(db, nonce)) break;
      // Busy. A live holder whose row is written is named at once; otherwise (the holder is
      // between winning the lock and committing its row, or the row is a dead one's) wait a
      // moment for the row to settle.
      const holder = readHolder(db);
      if (holder !== null && holder.nonce !== nonce && processAlive(holder.pid)) {
        throw new DataDirInUse(dataDir, holder.pid);
      }
      if (Date.now() >= deadline) {
        throw new DataDirInUse(dataDir, holder !== null && holder.nonce !== nonce ? holder.pid : null);
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  } catch (err) {
    db.close();
    if (err instanceof StartupError) throw err;
    throw new StartupError(`cannot take the data dir's lock ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let held = true;
  return {
    file,
    release() {
      if (!held) return;
      held = false;
      try {
        db.exec("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}

/**
 * One attempt: win the write lock, commit our row (pid, nonce), win it again and check the row
 * is still ours (another gateway may have won in the moment between). Returns true holding the
 * lock, false when it is busy; SQLite errors other than busy propagate.
 */
function tryHold(db: Database, nonce: string): boolean {
  if (!begin(db)) return false;
  try {
    db.exec(
      "CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, nonce TEXT NOT NULL, started_at TEXT NOT NULL)",
    );
    db.prepare("INSERT OR REPLACE INTO holder (id, pid, nonce, started_at) VALUES (1, ?, ?, ?)").run(
      process.pid,
      nonce,
      new Date().toISOString(),
    );
    db.exec("COMMIT");
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    if (isBusy(err)) return false;
    throw err;
  }
  if (!begin(db)) return false;
  if (readHolder(db)?.nonce === nonce) return true;
  db.exec("ROLLBACK"); // another gateway wrote its row in between: start over
  return false;
}

/** `BEGIN IMMEDIATE`: true when this connection now holds the write lock, false when busy. */
function begin(db: Database): boolean {
  try {
    db.exec("BEGIN IMMEDIATE");
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  }
}
