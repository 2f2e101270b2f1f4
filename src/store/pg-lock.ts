/**
 * One gateway per PostgreSQL database, until replicas with workspace ownership land (issue 18
 * item 2). Two gateways on one database would both poll every daemon, ingest every run, dispatch
 * every queued launch and fire every schedule: duplicate spawns and refused appends. The data dir's
 * lock (src/store/lock.ts) cannot see that (each gateway has its own data dir), so a gateway on
 * PostgreSQL also holds a session-level advisory lock of the database for as long as it runs, on a
 * connection of its own whose `application_name` names the holder; a second gateway is refused at
 * start with that name.
 *
 * The server releases the lock the moment the holder's connection ends (a SIGKILLed gateway's
 * too), so a restarted gateway starts at once. When the connection is lost while the gateway runs
 * (the database restarted), it is reopened and the lock taken again; if another gateway took it
 * meanwhile, `onLost` is called and this gateway must stop: it no longer owns the fleet.
 */
import os from "node:os";
import pg from "pg";
import { StartupError } from "../errors.js";
import type { Logger } from "../log.js";
import { PG_CONNECT_TIMEOUT_MS, connectReason } from "./pg.js";

/**
 * The lock's key, in the two-integer form (`pg_try_advisory_lock(int, int)`): "PRSP" and 1 (the
 * gateway). Migrations use another key (src/store/pg-migrate.ts).
 */
export const GATEWAY_LOCK_KEY: readonly [number, number] = [0x50525350, 1];

/** Pause between attempts to reconnect and take the lock again after the connection was lost, ms. */
export const RELOCK_INTERVAL_MS = 1_000;

/** The database is served by another gateway (named by its `application_name` when it is known). */
export class DatabaseInUse extends StartupError {
  constructor(
    readonly target: string,
    readonly holder: string | null,
  ) {
    super(
      `another gateway (${holder ?? "holder unknown"}) is serving the database ${target}; one gateway per database until replicas are supported (issue 18): stop it, or give this one another database`,
    );
  }
}

/** The held lock. */
export interface DatabaseLock {
  /** False from the loss of the lock's connection until the lock is taken again. */
  held(): boolean;
  /** Release the lock and close its connection (idempotent). */
  release(): Promise<void>;
}

/** What this process calls itself in `pg_stat_activity` (PostgreSQL keeps 63 bytes of it). */
function holderName(): string {
  return `prospero gateway on ${os.hostname()} (pid ${process.pid})`.slice(0, 63);
}

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({
    connectionString: url,
    application_name: holderName(),
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    // A connection that died silently (a cut network) is noticed by TCP keepalive, probing after
    // 10 s of silence rather than the system's default of hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // Without a listener a lost connection's 'error' would end the process.
  c.on("error", () => {});
  try {
    await c.connect();
    // The lock lives as long as this idle session: a server's idle_session_timeout must not end it
    // (the setting exists from PostgreSQL 14; older servers have no such timeout).
    await c.query("SET idle_session_timeout = 0").catch(() => undefined);
  } catch (err) {
    await c.end().catch(() => undefined);
    throw err;
  }
  return c;
}

async function tryLock(c: pg.Client): Promise<boolean> {
  const { rows } = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [
    ...GATEWAY_LOCK_KEY,
  ]);
  return rows[0]?.ok === true;
}

/** The `application_name` of the session holding the lock, or null. */
async function holderOf(c: pg.Client): Promise<string | null> {
  const { rows } = await c.query<{ name: string | null }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [...GATEWAY_LOCK_KEY],
  );
  const name = rows[0]?.name;
  return name ? name : null;
}

/**
 * Take the gateway lock of the database at `url`.
 * @param target the URL without its password, for messages.
 * @param onLost called once when the lock, lost with its connection, was taken by another gateway
 *   (its name); the caller stops the gateway.
 * @throws DatabaseInUse when another gateway holds it; StartupError when the server cannot be reached.
 */
export async function acquireDatabaseLock(
  url: string,
  target: string,
  opts: { log: Logger; onLost: (holder: string | null) => void },
): Promise<DatabaseLock> {
  let client: pg.Client;
  try {
    client = await connect(url);
  } catch (err) {
    throw new StartupError(`cannot connect to PostgreSQL at ${target}: ${connectReason(err)}`, {
      cause: err,
    });
  }
  let locked: boolean;
  try {
    locked = await tryLock(client);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new StartupError(`cannot take the gateway lock of ${target}: ${connectReason(err)}`, {
      cause: err,
    });
  }
  if (!locked) {
    const holder = await holderOf(client).catch(() => null);
    await client.end().catch(() => undefined);
    throw new DatabaseInUse(target, holder);
  }
  let released = false;
  let held = true;
  let timer: NodeJS.Timeout | null = null;
  const relock = async (): Promise<void> => {
    timer = null;
    if (released) return;
    let c: pg.Client;
    try {
      c = await connect(url);
    } catch {
      timer = setTimeout(() => void relock(), RELOCK_INTERVAL_MS);
      return;
    }
    try {
      if (await tryLock(c)) {
        if (released) {
          await c.end().catch(() => undefined);
          return;
        }
        watch(c);
        held = true;
        opts.log.info({ database: target }, "database lock taken again after the connection was lost");
        return;
      }
      const holder = await holderOf(c).catch(() => null);
      await c.end().catch(() => undefined);
      opts.log.error(
        { database: target, holder },
        "another gateway took the database while its connection was lost",
      );
      opts.onLost(holder);
    } catch {
      await c.end().catch(() => undefined);
      timer = setTimeout(() => void relock(), RELOCK_INTERVAL_MS);
    }
  };
  const watch = (c: pg.Client) => {
    client = c;
    c.once("end", () => {
      if (released) return;
      held = false;
      opts.log.warn({ database: target }, "database lock connection lost; taking the lock again");
      timer = setTimeout(() => void relock(), RELOCK_INTERVAL_MS);
    });
  };
  watch(client);
  return {
    held: () => held,
    async release() {
      if (released) return;
      released = true;
      if (timer) clearTimeout(timer);
      await client.end().catch(() => undefined);
    },
  };
}
