// File modes of the store (issue 11 item 8): a data dir we own is 0700 and prospero.db with its
// -wal/-shm 0600 after openDatabase — fresh, or tightened when a pre-existing layout was looser
// (a world-readable prospero.db leaked every prompt and output); a data dir owned by another user
// is refused. Real files, real SQLite.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { DB_FILE, openDatabase, type OpenedDatabase } from "../../src/store/db.js";

const IS_ROOT = process.geteuid?.() === 0;
const tmps: string[] = [];
const opened: OpenedDatabase[] = [];
let previousUmask: number | undefined;

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
  for (const t of tmps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
  if (previousUmask !== undefined) process.umask(previousUmask);
  previousUmask = undefined;
});

function tmp(): string {
  const t = fs.mkdtempSync(path.join(os.tmpdir(), "pdb-modes-"));
  tmps.push(t);
  // an operator's usual umask: without our chmods files would come out 0644 and dirs 0755
  previousUmask ??= process.umask(0o022);
  return t;
}

const mode = (p: string) => fs.statSync(p).mode & 0o7777;

async function open(dir: string): Promise<OpenedDatabase> {
  const db = await openDatabase(dir);
  opened.push(db);
  return db;
}

describe("store file modes", () => {
  it("a fresh data dir is 0700 and its database files 0600", async () => {
    const dir = path.join(tmp(), "data");
    const db = await open(dir);
    db.raw.exec("CREATE TABLE IF NOT EXISTS t (x)"); // a write: -wal and -shm exist now
    expect(mode(dir)).toBe(0o700);
    for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) {
      expect(mode(path.join(dir, f)), f).toBe(0o600);
    }
  });

  it("a pre-existing 0755 data dir and 0644 prospero.db (+ -wal/-shm) are tightened", async () => {
    const dir = path.join(tmp(), "data");
    fs.mkdirSync(dir, { mode: 0o755 });
    const file = path.join(dir, DB_FILE);
    // an older gateway's database, still open elsewhere so its -wal/-shm are on disk
    const other = new BetterSqlite3(file);
    other.pragma("journal_mode = WAL");
    other.exec("CREATE TABLE keep (x); INSERT INTO keep VALUES (42)");
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.chmodSync(f, 0o644);
    fs.chmodSync(dir, 0o755);
    try {
      const db = await open(dir);
      expect(mode(dir)).toBe(0o700);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
      // same database, not a new one
      expect(db.raw.prepare("SELECT x FROM keep").get()).toEqual({ x: 42 });
    } finally {
      other.close();
    }
  });

  it("a non-SQLite file is refused and nothing is chmodded", async () => {
    const dir = path.join(tmp(), "data");
    fs.mkdirSync(dir, { mode: 0o700 });
    const file = path.join(dir, DB_FILE);
    fs.writeFileSync(file, "my notes, not a database", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    await expect(openDatabase(dir)).rejects.toThrow(/is not a SQLite database/);
    expect(mode(file)).toBe(0o644);
    expect(fs.readFileSync(file, "utf8")).toBe("my notes, not a database");
  });

  it.skipIf(!IS_ROOT)(
    "a data dir owned by another user is refused, and nothing is created in it (root only: chown)",
    async () => {
      const dir = path.join(tmp(), "shared");
      fs.mkdirSync(dir, { mode: 0o755 });
      fs.chmodSync(dir, 0o777);
      fs.chownSync(dir, 65534, 65534);
      await expect(open(dir)).rejects.toThrow(/belongs to uid 65534, not to this user/);
      const st = fs.statSync(dir);
      expect(st.mode & 0o7777).toBe(0o777);
      expect(fs.readdirSync(dir)).toEqual([]);
    },
  );
});
