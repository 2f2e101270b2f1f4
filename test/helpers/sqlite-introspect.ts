/** Structural description of a SQLite database, for comparing schemas in tests. */
import type { Database } from "better-sqlite3";

/** Tables → columns, indexes and foreign keys, in a stable order. */
export interface SchemaShape {
  [table: string]: {
    columns: { name: string; type: string; notnull: number; dflt: string | null; pk: number }[];
    indexes: { name: string; unique: number; columns: string[] }[];
    foreignKeys: { table: string; from: string; to: string; onUpdate: string; onDelete: string }[];
  };
}

/** Read the shape of every user table (skipping SQLite's and Prisma's bookkeeping tables). */
export function introspect(db: Database): SchemaShape {
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations' ORDER BY name`,
    )
    .all() as { name: string }[];
  const out: SchemaShape = {};
  for (const { name } of tables) {
    const q = (sql: string) => db.prepare(sql).all() as Record<string, unknown>[];
    const columns = q(`PRAGMA table_xinfo("${name}")`).map((c) => ({
      name: String(c.name),
      type: String(c.type),
      notnull: Number(c.notnull),
      dflt: c.dflt_value === null ? null : String(c.dflt_value),
      pk: Number(c.pk),
    }));
    const indexes = q(`PRAGMA index_list("${name}")`)
      .filter((i) => i.origin !== "pk")
      .map((i) => ({
        name: String(i.name),
        unique: Number(i.unique),
        columns: q(`PRAGMA index_info("${String(i.name)}")`).map((c) => String(c.name)),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const foreignKeys = q(`PRAGMA foreign_key_list("${name}")`).map((f) => ({
      table: String(f.table),
      from: String(f.from),
      to: String(f.to),
      onUpdate: String(f.on_update),
      onDelete: String(f.on_delete),
    }));
    out[name] = { columns, indexes, foreignKeys };
  }
  return out;
}
