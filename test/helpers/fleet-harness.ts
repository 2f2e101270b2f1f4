/**
 * A real fleet over a real store (the SQLite file; on the suite's PostgreSQL run, a database of
 * its own: test/helpers/store.ts) and the caliband test double on a real Unix socket, for fleet
 * tests. The double is started in-process on the socket path the gateway derives from the
 * same CALIBAN_DAEMON_RUNTIME_DIR (protocol §1.1), so tests can drive it (drops, hangs, restarts).
 */
import fs from "node:fs";
import path from "node:path";
import { openDatabase } from "../../src/store/db.js";
import { openPostgres } from "../../src/store/pg.js";
import { PgHotPath } from "../../src/store/pg-hot-path.js";
import type { OpenedStore } from "../../src/app.js";
import { testDatabaseUrl } from "./store.js";
import { StoreWriter } from "../../src/store/writer.js";
import { SqliteHotPath } from "../../src/store/hot-path.js";
import { EventStore } from "../../src/store/events.js";
import { SqliteEventReader } from "../../src/store/sqlite-reader.js";
import { EventBus } from "../../src/bus/bus.js";
import { Fleet, type FleetOptions } from "../../src/fleet/fleet.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { silentLogger } from "../../src/log.js";
import type { FleetEvent } from "../../src/events/index.js";
import { FakeCaliband, type FakeCalibandOptions } from "../support/fake-caliband.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

/** A running fleet with its store; `close()` tears everything down. */
export interface FleetHarness {
  dataDir: string;
  db: OpenedStore;
  writer: StoreWriter;
  bus: EventBus;
  store: EventStore;
  fleet: Fleet;
  env: NodeJS.ProcessEnv;
  /** Every event published on the bus, in order. */
  published: FleetEvent[];
  /** Stop the fleet and close the database (keeps files: a new harness can reopen them). */
  stopFleet(): Promise<void>;
  close(): Promise<void>;
}

/** The PostgreSQL database of each data dir a harness opened (PostgreSQL run only). */
const databaseOf = new Map<string, string>();

/** Start a fleet on `dataDir` (fresh temp dir by default). Polling starts unless `pollIntervalMs` is huge. */
export async function startFleet(
  opts: { dataDir?: string; runtimeDir: string; pollIntervalMs?: number } & Partial<FleetOptions>,
): Promise<FleetHarness> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(path.dirname(opts.runtimeDir), "gw-"));
  // A data dir reopened by a later harness reopens its database too.
  let databaseUrl = databaseOf.get(dataDir) ?? null;
  if (databaseUrl === null) {
    databaseUrl = await testDatabaseUrl();
    if (databaseUrl !== null) databaseOf.set(dataDir, databaseUrl);
  }
  const db: OpenedStore =
    databaseUrl === null ? await openDatabase(dataDir) : await openPostgres(databaseUrl);
  // The production write path (src/app.ts): every exactly-once fleet test runs through it.
  const writer = new StoreWriter(db.prisma, undefined, undefined, {
    hotPath: db.dialect === "sqlite" ? new SqliteHotPath(db.raw) : new PgHotPath(db.pool),
  });
  const bus = new EventBus();
  const published: FleetEvent[] = [];
  bus.subscribe(() => true, { bufferSize: 1_000_000 });
  const origPublish = bus.publish.bind(bus);
  bus.publish = (e: FleetEvent) => {
    published.push(e);
    origPublish(e);
  };
  // Reads as in production: raw keyset pages on the second connection (issue 17; SQLite only).
  const store = new EventStore(
    db.prisma,
    writer,
    bus,
    undefined,
    db.dialect === "sqlite" ? { reader: new SqliteEventReader(db.raw) } : {},
  );
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: opts.runtimeDir };
  const fleet = new Fleet({
    db: db.prisma,
    store,
    writer,
    logger: silentLogger,
    pollIntervalMs: opts.pollIntervalMs ?? 100,
    dataDir,
    calibandBin: opts.calibandBin ?? "caliband-not-installed-in-tests",
    autostart: opts.autostart ?? false,
    env,
    tailIntervalMs: 20,
    ...opts,
  });
  await fleet.start();
  let stopped = false;
  const stopFleet = async () => {
    if (stopped) return;
    stopped = true;
    await fleet.stop();
    await writer.close();
    await db.close();
  };
  return { dataDir, db, writer, bus, store, fleet, env, published, stopFleet, close: stopFleet };
}

/** A temp git workspace plus a FakeCaliband listening where the gateway will look for it. */
export interface DaemonFixture {
  ws: TempWorkspace;
  daemon: FakeCaliband;
  close(): Promise<void>;
}

/** Start the double for a fresh temp workspace. */
export async function startDaemon(
  opts: Partial<FakeCalibandOptions> = {},
  name = "demo-repo",
): Promise<DaemonFixture> {
  const ws = makeTempWorkspace(name);
  const root = fs.realpathSync(ws.root);
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime };
  const daemon = await FakeCaliband.start({
    workspaceRoot: root,
    socketPath: controlSocketPath(root, env),
    dataBase: ws.data,
    env,
    ...opts,
  });
  return {
    ws: { ...ws, root },
    daemon,
    async close() {
      await daemon.close();
      ws.cleanup();
    },
  };
}

/**
 * Poll `check` every `everyMs` (default 20 ms) until it returns a truthy value; a check that throws
 * counts as not yet.
 * @throws Error naming `what` (and the last error thrown) once `timeoutMs` passed.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = "condition",
  everyMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}
