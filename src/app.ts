/**
 * The gateway process: start the HTTP server (so /healthz answers at once and /readyz says 503),
 * open the store and apply migrations, then report ready. Shutdown drains in order:
 * HTTP/WebSocket → store writer → database.
 */
import type { Config } from "./config.js";
import type { Logger } from "./log.js";
import { openDatabase, isWritable, type OpenedDatabase } from "./store/db.js";
import { StoreWriter } from "./store/writer.js";
import { startGateway, type Gateway } from "./server/gateway.js";
import type { Readiness } from "./server/readiness.js";

/** A running gateway process. */
export interface App {
  gateway: Gateway;
  db: OpenedDatabase;
  writer: StoreWriter;
  /** Drain and stop everything; idempotent. */
  stop(): Promise<void>;
}

/**
 * Start Prospero with `config`.
 * @throws StartupError (data dir, database or migrations unusable) — nothing is deleted or overwritten.
 * @throws Error with the OS reason when the HTTP address cannot be bound.
 */
export async function startApp(config: Config, logger: Logger, opts: { isDev?: boolean } = {}): Promise<App> {
  let db: OpenedDatabase | null = null;
  let migrationsApplied = false;
  const readiness = (): Readiness => {
    const storeWritable = db !== null && isWritable(db.raw);
    return {
      ready: migrationsApplied && storeWritable,
      migrationsApplied,
      storeWritable,
      workspacesTotal: 0,
      workspacesHealthy: 0,
      workspacesUnreachable: 0,
    };
  };
  const gateway = await startGateway(config.bind, config.port, {
    logger,
    readiness,
    context: () => (db ? { prisma: db.prisma } : null),
    isDev: opts.isDev ?? false,
  });
  logger.info({ url: gateway.url, graphql: `${gateway.url}/graphql` }, "gateway listening");
  try {
    db = await openDatabase(config.dataDir);
  } catch (err) {
    await gateway.close(0);
    throw err;
  }
  migrationsApplied = true;
  logger.info(
    { file: db.file, applied: db.migrations.applied, alreadyApplied: db.migrations.alreadyApplied.length },
    "store open",
  );
  const writer = new StoreWriter(db.prisma, logger.child({ module: "writer" }));
  const opened = db;
  let stopping: Promise<void> | null = null;
  return {
    gateway,
    db: opened,
    writer,
    stop() {
      stopping ??= (async () => {
        logger.info("shutting down: draining requests");
        await gateway.close();
        await writer.close();
        await opened.close();
        logger.info("stopped");
      })();
      return stopping;
    },
  };
}
