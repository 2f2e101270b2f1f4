/**
 * The gateway process: start the HTTP server (so /healthz answers at once and /readyz says 503),
 * open the store and apply migrations, then report ready. Shutdown drains in order:
 * HTTP/WebSocket → store writer → database.
 */
import type { Config } from "./config.js";
import { StartupError } from "./errors.js";
import type { Logger } from "./log.js";
import { openDatabase, isWritable, type OpenedDatabase } from "./store/db.js";
import { StoreWriter } from "./store/writer.js";
import { EventStore } from "./store/events.js";
import { EventBus } from "./bus/bus.js";
import { Fleet } from "./fleet/fleet.js";
import { startRetention } from "./store/retention.js";
import { startGateway, type Gateway } from "./server/gateway.js";
import type { Readiness } from "./server/readiness.js";
import type { GraphQLServices } from "./schema/context.js";
import { SIMULATOR_BIN, prepareDemo, startDemoFleet, type DemoEnvironment } from "./demo.js";

/** A running gateway process. */
export interface App {
  gateway: Gateway;
  db: OpenedDatabase;
  writer: StoreWriter;
  bus: EventBus;
  store: EventStore;
  fleet: Fleet;
  /** Drain and stop everything; idempotent. */
  stop(): Promise<void>;
}

/**
 * Start Prospero with `config`.
 * @throws StartupError (data dir, database or migrations unusable) — nothing is deleted or overwritten.
 * @throws Error with the OS reason when the HTTP address cannot be bound.
 */
export async function startApp(
  requested: Config,
  logger: Logger,
  opts: { isDev?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<App> {
  // Demo mode: everything in a temp dir, daemons from the built-in simulator (src/demo.ts).
  let demo: DemoEnvironment | null = null;
  let config = requested;
  let env = opts.env ?? process.env;
  if (requested.demo) {
    demo = prepareDemo(env);
    config = { ...requested, dataDir: demo.dataDir, calibandBin: SIMULATOR_BIN, autostart: true };
    env = demo.env;
    logger.info({ dir: demo.dir }, "demo mode: temporary workspace and caliband simulator");
  }
  let db: OpenedDatabase | null = null;
  let fleet: Fleet | null = null;
  let services: GraphQLServices | null = null;
  let migrationsApplied = false;
  const readiness = (): Readiness => {
    const storeWritable = db !== null && isWritable(db.raw);
    const workspaces = fleet?.registry.list() ?? [];
    const health = workspaces.map((w) => fleet!.state.healthOf(w.name).state);
    return {
      ready: migrationsApplied && storeWritable,
      migrationsApplied,
      storeWritable,
      workspacesTotal: workspaces.length,
      workspacesHealthy: health.filter((h) => h === "healthy").length,
      workspacesUnreachable: health.filter((h) => h === "unreachable").length,
    };
  };
  let gateway: Gateway;
  try {
    gateway = await startGateway(config.bind, config.port, {
      logger,
      readiness,
      context: () => services,
      isDev: opts.isDev ?? false,
    });
  } catch (err) {
    demo?.cleanup();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES" || code === "ENOTFOUND") {
      throw new StartupError(
        `cannot listen on ${config.bind}:${config.port} (${code}); choose another --port / PROSPERO_PORT (0 picks a free one) or --bind / PROSPERO_BIND`,
        { cause: err },
      );
    }
    throw err;
  }
  logger.info({ url: gateway.url, graphql: `${gateway.url}/graphql` }, "gateway listening");
  try {
    db = await openDatabase(config.dataDir);
  } catch (err) {
    await gateway.close(0);
    demo?.cleanup();
    throw err;
  }
  logger.info(
    { file: db.file, applied: db.migrations.applied, alreadyApplied: db.migrations.alreadyApplied.length },
    "store open",
  );
  const writer = new StoreWriter(db.prisma, logger.child({ module: "writer" }));
  const bus = new EventBus({ log: logger.child({ module: "bus" }) });
  const store = new EventStore(db.prisma, writer, bus, logger.child({ module: "store" }));
  fleet = new Fleet({
    db: db.prisma,
    store,
    writer,
    logger,
    pollIntervalMs: config.pollIntervalMs,
    dataDir: config.dataDir,
    calibandBin: config.calibandBin,
    autostart: config.autostart,
    env,
  });
  await fleet.start();
  services = { prisma: db.prisma, fleet, store, bus };
  const stopRetention = startRetention(store, config.retentionDays, logger.child({ module: "retention" }));
  migrationsApplied = true;
  const stopDemo = demo ? await startDemoFleet(fleet, demo, logger.child({ module: "demo" })) : null;
  const opened = db;
  const theFleet = fleet;
  let stopping: Promise<void> | null = null;
  return {
    gateway,
    db: opened,
    writer,
    bus,
    store,
    fleet: theFleet,
    stop() {
      stopping ??= (async () => {
        logger.info("shutting down: draining requests");
        await gateway.close();
        await stopRetention();
        stopDemo?.();
        // Demo mode owns the simulators it started (one per workspace): stop them before the
        // temp directory holding their sockets and sessions is removed.
        if (demo) await theFleet.daemons.shutdownStarted();
        await theFleet.stop();
        await writer.close();
        await opened.close();
        demo?.cleanup();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}
