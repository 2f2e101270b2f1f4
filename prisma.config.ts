// Prisma CLI configuration. The gateway itself never reads this file: it opens the database
// through src/store/db.ts and applies prisma/migrations at start. The datasource URL here only
// serves Prisma CLI commands run by hand on a machine where Prisma's engines are available
// (e.g. `prisma migrate status` with PROSPERO_DATABASE_URL=file:/path/to/prospero.db).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.PROSPERO_DATABASE_URL ?? "file:./.prospero/prospero.db" },
});
