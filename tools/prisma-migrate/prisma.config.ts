import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: process.env.SCHEMA ?? "../../prisma/schema.prisma",
  adapter: async () => new PrismaBetterSQLite3({ url: process.env.DB_URL ?? "file::memory:" }),
});
