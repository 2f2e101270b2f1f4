import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openDatabase, DB_FILE } from "../../src/store/db.js";
import { applyMigrations, readMigrations, MIGRATIONS_DIR } from "../../src/store/migrate.js";
import { StartupError } from "../../src/errors.js";
import { introspect } from "../helpers/sqlite-introspect.js";
import { tmpDir } from "../helpers/tmp.js";

const TOOL = path.resolve(import.meta.dirname, "../../tools/prisma-migrate/migrate-tool.mjs");

/** The SQL prisma 6.19.3 (tools/prisma-migrate) writes for prisma/schema.prisma from empty. */
function schemaSqlFromPrisma(): string {
  const res = spawnSync(process.execPath, [TOOL, "sql"], { encoding: "utf8" });
  if (res.status !== 0) {
    throw new Error(
      `tools/prisma-migrate failed (install it with \`npm ci --prefix tools/prisma-migrate\`):\n${res.stderr}`,
    );
  }
  return res.stdout;
}

/** A copy of the committed migrations that a test may modify. */
function copyMigrations(): string {
  const dir = path.join(tmpDir("mig-"), "migrations");
  fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

describe("migrations", () => {
  it("applied to an empty database, build exactly the schema in prisma/schema.prisma", async () => {
    const fromPrisma = new BetterSqlite3(":memory:");
    fromPrisma.exec(schemaSqlFromPrisma());
    const expected = introspect(fromPrisma);
    expect(Object.keys(expected).sort()).toEqual([
      "Agent",
      "ApiToken",
      "AuditEntry",
      "Budget",
      "Cap",
      "CapturedFile",
      "Event",
      "Frame",
      "HealthThreshold",
      "InboxAction",
      "InboxItem",
      "IngestCursor",
      "Launch",
      "LaunchAttempt",
      "LaunchTransition",
      "RunCapture",
      "Schedule",
      "ScheduleFiring",
      "Session",
      "StreamHead",
      "Webhook",
      "WebhookDelivery",
      "Workspace",
    ]);

    const dir = tmpDir();
    const db = await openDatabase(dir);
    await db.close();
    const ours = new BetterSqlite3(path.join(dir, DB_FILE), { readonly: true });
    expect(introspect(ours)).toEqual(expected);

    // The comparison is sensitive: one dropped index is a difference.
    fromPrisma.exec(`DROP INDEX "Event_ts_idx"`);
    expect(introspect(ours)).not.toEqual(introspect(fromPrisma));
    ours.close();
    fromPrisma.close();
  });

  it("records each migration like Prisma (name, sha256 checksum, finished_at) and applies none twice", async () => {
    const dir = tmpDir();
    const first = await openDatabase(dir);
    const names = readMigrations().map((m) => m.name);
    expect(first.migrations.applied).toEqual(names);
    await first.prisma.workspace.create({ data: { name: "keep", root: "/srv/keep", env: {} } });
    await first.close();

    const second = await openDatabase(dir);
    expect(second.migrations.applied).toEqual([]);
    expect(second.migrations.alreadyApplied).toEqual(names);
    expect(await second.prisma.workspace.findUnique({ where: { name: "keep" } })).toMatchObject({
      root: "/srv/keep",
    });
    const rows = second.raw
      .prepare(`SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations`)
      .all() as {
      migration_name: string;
      checksum: string;
      finished_at: string;
      applied_steps_count: number;
    }[];
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const r of rows) {
      expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(r.finished_at).not.toBeNull();
      expect(r.applied_steps_count).toBe(1);
    }
    await second.close();
  });

  it("refuses to start when an applied migration file was changed", () => {
    const migrations = copyMigrations();
    const db = new BetterSqlite3(":memory:");
    applyMigrations(db, readMigrations(migrations));
    const first = readMigrations(migrations)[0]!;
    fs.appendFileSync(path.join(migrations, first.name, "migration.sql"), "\n-- edited\n");
    expect(() => applyMigrations(db, readMigrations(migrations))).toThrow(
      /was modified after it was applied/,
    );
    expect(() => applyMigrations(db, readMigrations(migrations))).toThrow(StartupError);
  });

  it("refuses to start when the database has a migration this build does not know", () => {
    const db = new BetterSqlite3(":memory:");
    applyMigrations(db);
    db.prepare(
      `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ('x', 'abc', '2026-01-01', '29990101000000_future', '2026-01-01', 1)`,
    ).run();
    expect(() => applyMigrations(db)).toThrow(/29990101000000_future.*does not know/);
  });

  it("rolls back a failing migration and records nothing for it", () => {
    const migrations = copyMigrations();
    const bad = path.join(migrations, "29990101000000_broken");
    fs.mkdirSync(bad);
    fs.writeFileSync(bad + "/migration.sql", `CREATE TABLE "Half" ("id" INTEGER);\nTHIS IS NOT SQL;`);
    const db = new BetterSqlite3(":memory:");
    expect(() => applyMigrations(db, readMigrations(migrations))).toThrow(/29990101000000_broken failed/);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE name = 'Half'`).all();
    expect(tables).toEqual([]);
    const recorded = db.prepare(`SELECT migration_name FROM _prisma_migrations`).all() as {
      migration_name: string;
    }[];
    expect(recorded.map((r) => r.migration_name)).not.toContain("29990101000000_broken");
  });
});

/** Insert a row into `table` with every NOT NULL column without a default set from `values` or a stand-in. */
function insertRow(db: BetterSqlite3.Database, table: string, values: Record<string, unknown>): void {
  const cols = db.pragma(`table_info("${table}")`) as {
    name: string;
    type: string;
    notnull: number;
    dflt_value: unknown;
  }[];
  const row: Record<string, unknown> = {};
  for (const c of cols) {
    if (c.name in values) row[c.name] = values[c.name];
    else if (c.notnull && c.dflt_value === null) row[c.name] = /INT|REAL|DATE|BOOL/i.test(c.type) ? 0 : "x";
  }
  const names = Object.keys(row);
  db.prepare(
    `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
  ).run(...names.map((n) => row[n]));
}

describe("migrations that rebuild tables (Prisma's SQLite redefinition)", () => {
  /** A data dir migrated to the committed schema, with one agent and one event of it. */
  async function seeded(): Promise<{ dir: string; migrations: string }> {
    const dir = tmpDir("mig-fk-");
    const migrations = copyMigrations();
    const opened = await openDatabase(dir, migrations);
    await opened.close();
    const db = new BetterSqlite3(path.join(dir, DB_FILE));
    insertRow(db, "Workspace", { name: "demo" });
    insertRow(db, "Agent", { id: "a1b2c3d4e5f6", workspace: "demo" });
    insertRow(db, "Event", { agentId: "a1b2c3d4e5f6" });
    db.close();
    return { dir, migrations };
  }

  it("a rebuilt parent table keeps its children's references (foreign keys off while migrating)", async () => {
    const { dir, migrations } = await seeded();
    const probe = new BetterSqlite3(path.join(dir, DB_FILE), { readonly: true });
    const create = (
      probe.prepare(`SELECT sql FROM sqlite_master WHERE name = 'Agent'`).get() as { sql: string }
    ).sql;
    probe.close();
    const rebuild = path.join(migrations, "29990101000000_rebuild_agent");
    fs.mkdirSync(rebuild);
    fs.writeFileSync(
      path.join(rebuild, "migration.sql"),
      [
        "PRAGMA defer_foreign_keys=ON;",
        "PRAGMA foreign_keys=OFF;",
        create.replace(/^CREATE TABLE "Agent"/, 'CREATE TABLE "new_Agent"') + ";",
        'INSERT INTO "new_Agent" SELECT * FROM "Agent";',
        'DROP TABLE "Agent";',
        'ALTER TABLE "new_Agent" RENAME TO "Agent";',
        "PRAGMA foreign_keys=ON;",
        "PRAGMA defer_foreign_keys=OFF;",
      ].join("\n"),
    );
    const opened = await openDatabase(dir, migrations);
    expect(opened.migrations.applied).toEqual(["29990101000000_rebuild_agent"]);
    await opened.close();
    const db = new BetterSqlite3(path.join(dir, DB_FILE), { readonly: true });
    expect(db.prepare(`SELECT "agentId" FROM "Event"`).all()).toEqual([{ agentId: "a1b2c3d4e5f6" }]);
    expect(db.pragma("foreign_key_check")).toEqual([]);
    db.close();
  });

  it("a migration that leaves a dangling reference is rolled back, and foreign keys are on again", async () => {
    const { dir, migrations } = await seeded();
    const bad = path.join(migrations, "29990101000000_orphan_events");
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, "migration.sql"), 'DELETE FROM "Agent";');
    await expect(openDatabase(dir, migrations)).rejects.toThrow(
      /29990101000000_orphan_events failed and was rolled back: it leaves 1 row\(s\) referring to missing rows \(first: Event → Agent\)/,
    );
    const db = new BetterSqlite3(path.join(dir, DB_FILE));
    expect(db.prepare(`SELECT id FROM "Agent"`).all()).toEqual([{ id: "a1b2c3d4e5f6" }]);
    const applied = db.prepare(`SELECT migration_name FROM _prisma_migrations`).all() as {
      migration_name: string;
    }[];
    expect(applied.map((r) => r.migration_name)).not.toContain("29990101000000_orphan_events");
    db.close();
    // The connection the gateway goes on with has foreign keys on.
    fs.rmSync(bad, { recursive: true });
    const opened = await openDatabase(dir, migrations);
    expect(opened.raw.pragma("foreign_keys", { simple: true })).toBe(1);
    await opened.close();
  });
});

describe("data dir and database file", () => {
  it("refuses a database file that is not SQLite and leaves it untouched", async () => {
    const dir = tmpDir();
    const file = path.join(dir, DB_FILE);
    fs.writeFileSync(file, "these are my notes, not a database\n");
    await expect(openDatabase(dir)).rejects.toThrow(/is not a SQLite database/);
    expect(fs.readFileSync(file, "utf8")).toBe("these are my notes, not a database\n");
    expect(fs.readdirSync(dir)).toEqual([DB_FILE]);
  });

  it("refuses a shared (sticky or world-writable) data dir and leaves its mode alone", async () => {
    for (const mode of [0o1777, 0o777]) {
      const dir = tmpDir("shared-");
      fs.chmodSync(dir, mode);
      await expect(openDatabase(dir)).rejects.toThrow(/is a shared directory .*its mode is left alone/);
      expect(fs.statSync(dir).mode & 0o7777).toBe(mode);
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });

  it("reports a data dir that cannot be created", async () => {
    const parent = tmpDir();
    fs.writeFileSync(path.join(parent, "plainfile"), "x");
    await expect(openDatabase(path.join(parent, "plainfile", "data"))).rejects.toThrow(
      /cannot create data dir/,
    );
  });

  it("turns on WAL and a busy timeout of at least 5 s", async () => {
    const db = await openDatabase(tmpDir());
    expect(db.raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(Number(db.raw.pragma("busy_timeout", { simple: true }))).toBeGreaterThanOrEqual(5000);
    await db.close();
  });
});
