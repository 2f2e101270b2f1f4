/**
 * A real PostgreSQL server for tests (issue 18): a throwaway cluster of this machine's PostgreSQL
 * (Debian's `postgresql` package: `.ci/run` installs it), started in a temp dir, listening on a
 * Unix socket in that dir only (no TCP), trust authentication, fsync off; stopped (by its
 * postmaster's pid, through `pg_ctl`) and removed when `stop()` is called. Run as root (CI), the
 * cluster belongs to the `postgres` user the package creates (PostgreSQL refuses to run as root).
 * With `PROSPERO_TEST_POSTGRES_URL` set (a superuser URL of a server you run), that server is used
 * instead and only the databases this helper created are dropped.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/** A running server and the databases made on it. */
export interface TestPostgres {
  /** A superuser URL of the server's `postgres` database (what `PROSPERO_TEST_POSTGRES_URL` takes). */
  serverUrl: string;
  /** Create a fresh empty database and return its connection URL. */
  createDatabase(): Promise<string>;
  /** Drop one database made here by its URL (connections to it are closed by the server). */
  dropDatabase(url: string): Promise<void>;
  /**
   * Stop the server at once (`pg_ctl stop -m immediate`: clients see their connections die) and
   * `start()` it again on the same socket: a database outage or restart. Only for a cluster this
   * helper started (throws with `PROSPERO_TEST_POSTGRES_URL`).
   */
  halt(): Promise<void>;
  /** Start the server {@link halt} stopped. */
  start(): Promise<void>;
  /** Drop the databases made here; stop and remove the cluster when this helper started it. */
  stop(): Promise<void>;
}

/** Directories where Debian (and most distributions) keep a PostgreSQL version's binaries, newest first. */
function binDirs(): string[] {
  const out: string[] = [];
  const base = "/usr/lib/postgresql";
  if (fs.existsSync(base)) {
    for (const v of fs.readdirSync(base).sort((a, b) => Number(b) - Number(a)))
      out.push(path.join(base, v, "bin"));
  }
  for (const d of (process.env.PATH ?? "").split(path.delimiter)) if (d) out.push(d);
  return out;
}

/** The directory holding `initdb` and `pg_ctl`. @throws Error saying how to install them. */
function findBinDir(): string {
  const dir = binDirs().find(
    (d) => fs.existsSync(path.join(d, "initdb")) && fs.existsSync(path.join(d, "pg_ctl")),
  );
  if (!dir) {
    throw new Error(
      "PostgreSQL is not installed (no initdb/pg_ctl): apt-get install postgresql, or set PROSPERO_TEST_POSTGRES_URL to a superuser URL of a server",
    );
  }
  return dir;
}

/** Run a PostgreSQL program as the cluster's owner (the `postgres` user when we are root). */
function runAs(owner: string | null, bin: string, args: string[]): void {
  const [cmd, argv] = owner === null ? [bin, args] : ["runuser", ["-u", owner, "--", bin, ...args]];
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Start a throwaway cluster, or use a running server: `opts.url` (a superuser URL), else
 * `PROSPERO_TEST_POSTGRES_URL` unless `opts.own` (a test that stops and starts its server needs
 * a cluster of its own).
 */
export async function startPostgres(opts: { url?: string; own?: boolean } = {}): Promise<TestPostgres> {
  const external = opts.url ?? (opts.own ? undefined : process.env.PROSPERO_TEST_POSTGRES_URL);
  if (external) {
    return onServer(
      (name) => {
        const u = new URL(external);
        u.pathname = `/${name}`;
        return u.toString();
      },
      async () => undefined,
    );
  }
  const bin = findBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pgt-"));
  const data = path.join(dir, "data");
  const sock = path.join(dir, "sock");
  fs.mkdirSync(sock);
  const owner = process.geteuid?.() === 0 ? "postgres" : null;
  if (owner !== null) execFileSync("chown", ["-R", `${owner}:`, dir]);
  const user = owner ?? os.userInfo().username;
  runAs(owner, path.join(bin, "initdb"), [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    user,
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const serverOpts = `-c listen_addresses='' -c unix_socket_directories='${sock}' -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const start = () =>
    runAs(owner, path.join(bin, "pg_ctl"), [
      "-D",
      data,
      "-o",
      serverOpts,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-t",
      "60",
      "start",
    ]);
  const halt = () => runAs(owner, path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
  start();
  const urlFor = (name: string) =>
    // `localhost` only makes it a WHATWG URL (as the gateway's --database-url must be): the `host`
    // parameter, the socket directory, is where libpq and node-postgres connect.
    `postgresql://${encodeURIComponent(user)}@localhost/${name}?host=${encodeURIComponent(sock)}`;
  return onServer(
    urlFor,
    async () => {
      try {
        halt();
      } catch {
        // not running (a test halted it)
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
    { halt, start },
  );
}

/** Databases on one server: `urlFor(name)` is the connection URL of database `name`. */
function onServer(
  urlFor: (name: string) => string,
  shutdown: () => Promise<void>,
  control?: { halt(): void; start(): void },
): TestPostgres {
  const made: string[] = [];
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: urlFor("postgres") });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    serverUrl: urlFor("postgres"),
    async createDatabase() {
      const name = `prospero_test_${process.pid}_${made.length}_${Math.random().toString(36).slice(2, 8)}`;
      await admin((c) => c.query(`CREATE DATABASE "${name}"`));
      made.push(name);
      return urlFor(name);
    },
    async halt() {
      if (!control) throw new Error("halt(): only a cluster this helper started can be stopped");
      control.halt();
    },
    async start() {
      if (!control) throw new Error("start(): only a cluster this helper started can be started");
      control.start();
    },
    async dropDatabase(url) {
      const name = decodeURIComponent(new URL(url).pathname.slice(1));
      const i = made.indexOf(name);
      if (i < 0) return;
      made.splice(i, 1);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
    async stop() {
      try {
        await admin(async (c) => {
          for (const name of made.splice(0)) await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        });
      } finally {
        await shutdown();
      }
    },
  };
}
