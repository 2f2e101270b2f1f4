/**
 * Opens Prospero's PostgreSQL store (`--database-url postgres://…`, issue 18 item 1): one `pg`
 * pool, the committed PostgreSQL migrations applied under the advisory lock (src/store/pg-migrate.ts),
 * then the Prisma client generated from the same datamodel for PostgreSQL
 * (src/generated/prisma-pg) over `@prisma/adapter-pg` on that pool.
 *
 * The PostgreSQL client is handed out as the SQLite client's type: both are generated from the one
 * datamodel, so their models, fields and results are the same, and the store's hand-written SQL
 * asks {@link dialectOf} which words to use. No event reads or hot-path writes of the SQLite store
 * run here: the EventStore and StoreWriter take their Prisma paths.
 */
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PgPrismaClient } from "../generated/prisma-pg/client.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import { StartupError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { POSTGRES, pgText, setDialect } from "./dialect.js";
import { redactDatabaseUrl } from "./database-url.js";
import { readMigrations, type MigrationResult } from "./migrate.js";
import { PG_MIGRATIONS_DIR, applyPgMigrations } from "./pg-migrate.js";

/** Most connections the gateway's pool holds open to PostgreSQL. */
export const PG_POOL_MAX = 10;

/** How long a new connection may take before it fails, ms (an unreachable host is an error, not a hang). */
export const PG_CONNECT_TIMEOUT_MS = 10_000;

/** How often the write probe asks the server whether it accepts writes, ms. */
export const PG_PROBE_INTERVAL_MS = 2_000;

/** An opened PostgreSQL store. */
export interface OpenedPostgres {
  dialect: "postgresql";
  /** Where the store is, for logs and errors: the URL without its password (see {@link redactDatabaseUrl}). */
  target: string;
  /** The PostgreSQL Prisma client, typed as the one datamodel's client (see the module comment). */
  prisma: PrismaClient;
  /** The pool Prisma's adapter runs on (the write probe and tests use it too). */
  pool: pg.Pool;
  migrations: MigrationResult;
  /**
   * True when the last probe (every {@link PG_PROBE_INTERVAL_MS}) reached a server that accepts
   * writes (a primary, not a standby in recovery); false while the database cannot be reached.
   */
  writable(): boolean;
  /** The database's size on the server, bytes (`pg_database_size(current_database())`). */
  databaseBytes(): Promise<number>;
  /** Stop the probe and close Prisma and the pool. */
  close(): Promise<void>;
}

/**
 * `value` with every NUL (U+0000) and every lone UTF-16 surrogate in its strings replaced by
 * U+FFFD, through plain objects and
 * arrays (a JSON value, an operation's arguments); anything else (Date, Buffer, Prisma's null
 * markers, numbers) is kept as it is, and a value without NUL is returned itself. PostgreSQL
 * refuses NUL in `text` and `jsonb`, where SQLite stores it: a prompt, a label or a tool output
 * holding one would otherwise fail its whole write (issue 18 item 1; docs/deploy.md says so).
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === "string") {
    // A lone UTF-16 surrogate (text cut inside an emoji) is refused by jsonb as well.
    return pgText(value) as T;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const w = withoutNul(v);
      if (w !== v) (out ??= [...value])[i] = w;
    }
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(value)) {
      const w = withoutNul(v);
      if (w !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = w;
    }
    return (out ?? value) as T;
  }
  return value;
}

/** What a failed connection attempt says (its code and first line), without anything the URL held. */
export function connectReason(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: { message?: string }[] };
  const first = typeof e?.message === "string" ? e.message.split("\n")[0]! : "";
  // An AggregateError (every address of a host refused) has no message of its own.
  const message = first || e?.errors?.map((x) => x.message).join("; ") || String(err);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/**
 * Open the PostgreSQL store at `url` and apply its migrations.
 * @param opts.migrationsDir override for tests; `opts.log` receives pool errors (a connection the
 *   server closed, e.g. at a restart: the pool replaces it, nothing crashes).
 * @throws StartupError naming the (redacted) target when the server cannot be reached or refuses
 *   us, or when migrations are edited, unknown, unfinished or fail.
 */
export async function openPostgres(
  url: string,
  opts: { migrationsDir?: string; log?: Logger } = {},
): Promise<OpenedPostgres> {
  const log = opts.log ?? silentLogger;
  const target = redactDatabaseUrl(url);
  const migrationFiles = readMigrations(opts.migrationsDir ?? PG_MIGRATIONS_DIR);
  const pool = new pg.Pool({
    connectionString: url,
    max: PG_POOL_MAX,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    application_name: "prospero",
  });
  // An idle connection the server closed emits 'error' on the pool: without a listener that
  // would end the process.
  const onPoolError = (err: Error) =>
    log.warn(
      { err: connectReason(err), database: target },
      "PostgreSQL connection lost; the pool reconnects",
    );
  pool.on("error", onPoolError);
  let migrations: MigrationResult;
  try {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw new StartupError(`cannot connect to PostgreSQL at ${target}: ${connectReason(err)}`, {
        cause: err,
      });
    }
    const onClientError = () => {};
    client.on("error", onClientError); // the query in flight rejects with it
    try {
      migrations = await applyPgMigrations(client, migrationFiles);
    } finally {
      client.off("error", onClientError);
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  // (The pool's 'error' is logged by the listener above; the adapter reports a connection's.)
  const adapter = new PrismaPg(pool, { onConnectionError: onPoolError });
  // Every operation's arguments (model operations and raw queries alike) without NUL, which
  // PostgreSQL refuses in text and jsonb (see withoutNul). Same datamodel, same models as the
  // SQLite client: see the module comment.
  const prisma = new PgPrismaClient({ adapter }).$extends({
    query: { $allOperations: ({ args, query }) => query(withoutNul(args)) },
  }) as unknown as PrismaClient;
  setDialect(prisma, POSTGRES);
  try {
    await prisma.$connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new StartupError(`cannot open the PostgreSQL store at ${target}: ${connectReason(err)}`, {
      cause: err,
    });
  }
  let writable = true;
  let probing = false;
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      const { rows } = await pool.query<{ w: boolean }>({
        text: "SELECT NOT pg_is_in_recovery() AS w",
        query_timeout: PG_PROBE_INTERVAL_MS,
      } as pg.QueryConfig);
      writable = rows[0]?.w === true;
    } catch {
      writable = false;
    } finally {
      probing = false;
    }
  };
  const timer = setInterval(() => void probe(), PG_PROBE_INTERVAL_MS);
  timer.unref();
  return {
    dialect: "postgresql",
    target,
    prisma,
    pool,
    migrations,
    writable: () => writable,
    async databaseBytes() {
      const { rows } = await pool.query<{ n: string }>(
        "SELECT pg_database_size(current_database())::text AS n",
      );
      return Number(rows[0]?.n ?? 0);
    },
    async close() {
      clearInterval(timer);
      await prisma.$disconnect().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
