#!/usr/bin/env node
// Dev-only migration authoring for Prospero (see README.md beside this file).
//   node migrate-tool.mjs new <name>   write prisma/migrations/<UTC timestamp>_<name>/migration.sql
//                                      and the same change for PostgreSQL in
//                                      prisma/postgres/migrations/<UTC timestamp>_<name>/migration.sql
//   node migrate-tool.mjs sql [--postgres]
//                                      print the full schema SQL of prisma/schema.prisma from empty,
//                                      for SQLite or PostgreSQL (test/store/migrations.test.ts and
//                                      test/store/pg-migrations.test.ts compare it with what the
//                                      committed migrations build)
// prisma/schema.prisma is the one datamodel: the PostgreSQL side is the same file with the
// datasource's provider swapped (nothing else differs).
// The "from" side of `new` is schema.snapshot.prisma: the datamodel as of the newest migration
// (prisma 6's WASM engine cannot replay multi-statement migrations into a shadow database).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const schemaPath = path.join(repo, "prisma", "schema.prisma");
const migrationsDirs = {
  sqlite: path.join(repo, "prisma", "migrations"),
  postgresql: path.join(repo, "prisma", "postgres", "migrations"),
};
const prismaBin = path.join(here, "node_modules", "prisma", "build", "index.js");

function fail(msg, code = 1) {
  console.error(`migrate-tool: ${msg}`);
  process.exit(code);
}

if (!fs.existsSync(prismaBin))
  fail("prisma 6.19.3 is not installed here; run `npm ci --prefix tools/prisma-migrate` first");

/**
 * Prisma 6 wants a datasource url and no Prisma-7-only generator options: write an adapted copy,
 * for `provider` ("sqlite" or "postgresql").
 */
function toolSchema(source, provider) {
  let text = fs.readFileSync(source, "utf8");
  text = text.replace(/generator\s+\w+\s*\{[^}]*\}/g, "");
  if (!/(datasource\s+db\s*\{[^}]*provider\s*=\s*)"sqlite"/.test(text))
    fail(`${source}: no sqlite datasource`);
  const url = provider === "sqlite" ? "file:./unused.db" : "postgresql://unused@localhost/unused";
  text = text.replace(
    /(datasource\s+db\s*\{[^}]*provider\s*=\s*)"sqlite"/,
    `$1"${provider}"\n  url = "${url}"`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-migrate-"));
  const file = path.join(dir, "schema.prisma");
  fs.writeFileSync(file, text);
  return file;
}

const snapshotPath = path.join(here, "schema.snapshot.prisma");

function diff(args, provider) {
  const schema = toolSchema(schemaPath, provider);
  const res = spawnSync(
    process.execPath,
    [prismaBin, "migrate", "diff", ...args, "--to-schema-datamodel", schema, "--script"],
    {
      cwd: here,
      encoding: "utf8",
      env: {
        ...process.env,
        PROSPERO_TOOL_SCHEMA: schema,
        PRISMA_SCHEMA_ENGINE_BINARY: path.join(repo, "scripts", "schema-engine-unavailable.sh"),
        PRISMA_QUERY_ENGINE_LIBRARY: path.join(repo, "scripts", "schema-engine-unavailable.sh"),
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        CHECKPOINT_DISABLE: "1",
      },
    },
  );
  fs.rmSync(path.dirname(schema), { recursive: true, force: true });
  return res;
}

function fromArgs(provider) {
  // The PostgreSQL tree started from the full schema (its first migration): with no PostgreSQL
  // migration yet, it diffs from empty.
  const pgEmpty = provider === "postgresql" && !hasMigrations(migrationsDirs.postgresql);
  if (!fs.existsSync(snapshotPath) || pgEmpty) return { args: ["--from-empty"], cleanup: () => {} };
  const from = toolSchema(snapshotPath, provider);
  return {
    args: ["--from-schema-datamodel", from],
    cleanup: () => fs.rmSync(path.dirname(from), { recursive: true, force: true }),
  };
}
const isEmpty = (sql) => sql.trim() === "" || /This is an empty migration/.test(sql);

/** Whether `dir` holds at least one migration directory. */
function hasMigrations(dir) {
  return fs.existsSync(dir) && fs.readdirSync(dir, { withFileTypes: true }).some((e) => e.isDirectory());
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === "new") {
  const name = rest[0];
  if (!name || !/^[a-z0-9_]+$/.test(name))
    fail("usage: migrate-tool new <name>   (name: lowercase letters, digits, _)", 64);
  const ts = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const written = [];
  for (const provider of ["sqlite", "postgresql"]) {
    const from = fromArgs(provider);
    const res = diff(from.args, provider);
    from.cleanup();
    if (res.status !== 0) fail(`prisma migrate diff (${provider}) failed:\n${res.stderr}`);
    if (isEmpty(res.stdout)) continue;
    const migrationsDir = migrationsDirs[provider];
    const dir = path.join(migrationsDir, `${ts}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), res.stdout);
    const lock = path.join(migrationsDir, "migration_lock.toml");
    if (!fs.existsSync(lock)) {
      fs.writeFileSync(
        lock,
        `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${provider}"\n`,
      );
    }
    written.push(`${path.relative(repo, dir)}/migration.sql`);
  }
  if (written.length === 0) {
    console.log("schema.prisma matches the newest migration; nothing to write");
    process.exit(0);
  }
  fs.copyFileSync(schemaPath, snapshotPath);
  console.log(`wrote ${written.join(" and ")} (review them before committing)`);
} else if (cmd === "sql") {
  const provider = rest[0] === "--postgres" ? "postgresql" : "sqlite";
  if (rest.length > 1 || (rest.length === 1 && rest[0] !== "--postgres"))
    fail("usage: migrate-tool sql [--postgres]", 64);
  const res = diff(["--from-empty"], provider);
  if (res.status !== 0) fail(`prisma migrate diff failed:\n${res.stderr}`);
  process.stdout.write(res.stdout);
} else {
  fail("usage: migrate-tool new <name> | sql [--postgres]", 64);
}
