// Config for prisma 6.19.3 used ONLY by this dev tool: the JavaScript (WASM) schema engine over a
// throwaway in-memory SQLite, so `migrate diff` runs with no engine download. The SQLite native
// binding is borrowed from the main project's better-sqlite3 (already built by its install), so
// this folder installs without compiling anything.
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

const nativeBinding = path.resolve(
  __dirname,
  "../../node_modules/better-sqlite3/build/Release/better_sqlite3.node",
);

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: process.env.PROSPERO_TOOL_SCHEMA ?? "../../prisma/schema.prisma",
  adapter: async () => new PrismaBetterSQLite3({ url: ":memory:", nativeBinding }),
});
