import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

/**
 * Test files that run a gateway or a fleet through the harnesses (test/helpers/app-harness.ts,
 * fleet-harness.ts): on the `postgresql` project each of their gateways gets a database of its own
 * on one throwaway cluster (issue 18 item 1: the suite runs on both stores). New tests that use a
 * harness join the matrix by themselves.
 */
function harnessTests(): string[] {
  const out: string[] = [];
  for (const file of fs.readdirSync("test", { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".test.ts")) continue;
    const text = fs.readFileSync(path.join("test", file), "utf8");
    if (/\b(startAppHarness|startFleet)\(/.test(text)) out.push(`test/${file.split(path.sep).join("/")}`);
  }
  return out.sort();
}

/** Harness tests about SQLite's own file or connection (raw statements, file sizes): SQLite only. */
const SQLITE_ONLY = [
  "test/fleet/ingest-commit-slices.test.ts", // reads the cursor synchronously on the raw connection
  "test/security/audit-log.test.ts", // tampers through the raw connection (PostgreSQL: test/store/pg-store.test.ts)
  "test/security/review-hardening.test.ts", // measures the database file
  "test/security/tokens.test.ts", // reads token rows on the raw connection
  "test/store/sqlite-reader.test.ts", // the SQLite reader itself
  "test/store/hot-path.test.ts", // the SQLite hot path itself
];

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports": Node loads index.js for dependencies while Vite would pick the
    // "module" build for our sources — two copies, "another module or realm" errors. Use one.
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Memory assertions measure after a full GC.
    execArgv: ["--expose-gc"],
    projects: [
      // Everything, on the embedded default store (SQLite).
      { extends: true, test: { name: "sqlite", include: ["test/**/*.test.ts"] } },
      // The harness tests again, on PostgreSQL.
      {
        extends: true,
        test: {
          name: "postgresql",
          include: harnessTests(),
          exclude: SQLITE_ONLY,
          env: { PROSPERO_TEST_STORE: "postgresql" },
          globalSetup: ["test/setup/postgres-global.ts"],
        },
      },
    ],
  },
});
