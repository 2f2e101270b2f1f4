/**
 * The SQL the store writes by hand (raw event inserts, usage sums, report counts, agent keyset
 * pages), in each database's words (issue 18 item 1: SQLite, the embedded default, and
 * PostgreSQL). Callers write one statement with `?` placeholders and the fragments below; the
 * dialect numbers the placeholders for PostgreSQL and says how a DateTime column, a JSON path and a
 * UTC day read there.
 *
 * Value conventions, the same in both: every time parameter is a number of ms since the epoch
 * bound through {@link SqlDialect.time}; every time read back through {@link SqlDialect.ms} is
 * one too. SQLite stores DateTime as integer ms (the better-sqlite3 adapter's `unixepoch-ms`);
 * PostgreSQL as `TIMESTAMP(3)` holding UTC (Prisma's mapping).
 */
import type { PrismaClient } from "../generated/prisma/client.js";

/** Which database a Prisma client talks to. */
export type DialectName = "sqlite" | "postgresql";

/** One database's SQL fragments (see the module comment for the conventions). */
export interface SqlDialect {
  readonly name: DialectName;
  /** `sql` with its `?` placeholders as this database numbers them (`$1`, `$2`, … in PostgreSQL). */
  text(sql: string): string;
  /** A placeholder for a time parameter given in ms since the epoch. */
  readonly time: string;
  /** A placeholder for a JSON text parameter stored into a Json column (bind {@link SqlDialect.jsonValue}). */
  readonly json: string;
  /** A JSON text as this database stores it (PostgreSQL: {@link pgJsonText}). */
  jsonValue(json: string): string;
  /** The ms since the epoch of DateTime expression `expr` (an integer; null stays null). */
  ms(expr: string): string;
  /** The text at `path` of JSON column `col` (a number or boolean as its JSON text); null when absent. */
  jsonText(col: string, path: readonly string[]): string;
  /**
   * The number at `path` of JSON column `col`; null when absent (payloads are checked by zod before
   * they are stored, so a value there is a number).
   */
  jsonNumber(col: string, path: readonly string[]): string;
  /** True when the value at `path` of JSON column `col` is JSON `false`. */
  jsonIsFalse(col: string, path: readonly string[]): string;
  /** The UTC day (`YYYY-MM-DD`) of DateTime column `col`. */
  day(col: string): string;
  /** True when text `hay` contains the text parameter `?` (case-sensitive). */
  readonly contains: (hay: string) => string;
  /** The larger of two integer expressions. */
  greatest(a: string, b: string): string;
}

/** A JSON path of plain member names only (they are written into the SQL). */
function checkPath(path: readonly string[]): void {
  for (const p of path) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) throw new Error(`bad JSON path member ${p}`);
}

/** SQLite's words (JSON1 functions; DateTime is integer ms). */
export const SQLITE: SqlDialect = {
  name: "sqlite",
  text: (sql) => sql,
  time: "?",
  json: "?",
  jsonValue: (json) => json,
  ms: (expr) => expr,
  jsonText(col, path) {
    checkPath(path);
    return `CAST(json_extract(${col}, '$.${path.join(".")}') AS TEXT)`;
  },
  jsonNumber(col, path) {
    checkPath(path);
    return `json_extract(${col}, '$.${path.join(".")}')`;
  },
  jsonIsFalse(col, path) {
    checkPath(path);
    // JSON false reads as 0 through json_extract.
    return `(json_extract(${col}, '$.${path.join(".")}') = 0)`;
  },
  day: (col) => `strftime('%Y-%m-%d', ${col} / 1000, 'unixepoch')`,
  contains: (hay) => `instr(${hay}, ?) > 0`,
  greatest: (a, b) => `MAX(${a}, ${b})`,
};

/**
 * A JSON text as PostgreSQL's `jsonb` takes it: `jsonb` refuses the escape `\u0000` (NUL) and a
 * lone surrogate escape (`\ud83d` without its pair), which a worker's output may hold: each becomes
 * U+FFFD; nothing else changes.
 */
export function pgJsonText(json: string): string {
  // JSON.stringify writes NUL and a lone surrogate as escapes; both are rare: only then is the
  // text parsed, made whole and written again (keys keep their order).
  if (!/\\u(?:0000|[dD][89a-fA-F])/.test(json)) return json;
  return JSON.stringify(wellFormed(JSON.parse(json) as unknown));
}

/**
 * `text` with NUL and every lone UTF-16 surrogate (a high one without its low one after it, a low
 * one without its high one before it) as U+FFFD, as `String.prototype.toWellFormed` makes them;
 * `text` itself when there is none.
 */
export function pgText(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replaceAll("\u0000", "\uFFFD");
}

/** `value` with NUL and lone surrogates in its strings (and keys) as U+FFFD ({@link pgText}). */
function wellFormed(value: unknown): unknown {
  if (typeof value === "string") return pgText(value);
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [pgText(k), wellFormed(v)]));
  }
  return value;
}

/**
 * Number `?` placeholders as `$1`, `$2`, … outside quoted text (our statements quote identifiers
 * with `"` and literals with `'`; neither ever holds a `?` meant as a parameter).
 */
function numberPlaceholders(sql: string): string {
  let n = 0;
  let quote: string | null = null;
  let out = "";
  for (const ch of sql) {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "?") {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

/** PostgreSQL's words (jsonb operators; DateTime is TIMESTAMP(3) in UTC). */
export const POSTGRES: SqlDialect = {
  name: "postgresql",
  text: numberPlaceholders,
  time: `(to_timestamp(?::double precision / 1000) AT TIME ZONE 'UTC')`,
  json: "?::jsonb",
  jsonValue: (json) => pgJsonText(json),
  ms: (expr) => `(floor(extract(epoch from ${expr}) * 1000)::bigint)`,
  jsonText(col, path) {
    checkPath(path);
    return `(${col} #>> '{${path.join(",")}}')`;
  },
  jsonNumber(col, path) {
    checkPath(path);
    const at = `(${col} #> '{${path.join(",")}}')`;
    return `(CASE WHEN jsonb_typeof(${at}) = 'number' THEN (${at})::text::double precision END)`;
  },
  jsonIsFalse(col, path) {
    checkPath(path);
    return `((${col} #> '{${path.join(",")}}') = 'false'::jsonb)`;
  },
  day: (col) => `to_char(${col}, 'YYYY-MM-DD')`,
  contains: (hay) => `strpos(${hay}, ?) > 0`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
};

const dialects = new WeakMap<object, SqlDialect>();

/**
 * Record that `db` talks to PostgreSQL (src/store/pg.ts does, when it opens one); a client never
 * recorded is SQLite's, the embedded default.
 */
export function setDialect(db: PrismaClient, dialect: SqlDialect): void {
  dialects.set(db, dialect);
}

/**
 * The dialect of the database `db` talks to: recorded by {@link setDialect}, else (a client made
 * from one by `$extends`, which is a new object) the provider the generated client was built for
 * (Prisma's `_activeProvider`; test/store/pg-store.test.ts checks it still reads so), else SQLite.
 */
export function dialectOf(db: PrismaClient): SqlDialect {
  const known = dialects.get(db);
  if (known) return known;
  return Reflect.get(db, "_activeProvider") === "postgresql" ? POSTGRES : SQLITE;
}
