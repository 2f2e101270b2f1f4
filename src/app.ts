/**
 * The gateway process: start the HTTP server (so /healthz answers at once and /readyz says 503),
 * open the store and apply migrations, load the API tokens and make sure the bootstrap admin
 * token exists (issue 11), then report ready and log the dashboard URL. Shutdown drains in order:
 * HTTP/WebSocket → store writer → database.
 */
import fs from "node:fs";
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
import { TokenService, validateSuppliedToken } from "./auth/tokens.js";
import { AuditLog } from "./auth/audit.js";
import { ReplayLimiter } from "./bus/replay-limiter.js";
import { writeEndpointRecord } from "./auth/local-credentials.js";
import { isLoopbackAddress } from "./auth/http-policy.js";

/** A running gateway process. */
export interface App {
  gateway: Gateway;
  db: OpenedDatabase;
  writer: StoreWriter;
  bus: EventBus;
  store: EventStore;
  fleet: Fleet;
  tokens: TokenService;
  audit: AuditLog;
  /** The bootstrap admin token's secret (kept in `<data dir>/admin-token`). */
  adminToken: string;
  /** The dashboard URL carrying the admin token (`<url>/?token=…`). */
  dashboardUrl: string;
  /** Drain and stop everything; idempotent. */
  stop(): Promise<void>;
}

/**
 * Start Prospero with `config`.
 * @param opts.env the gateway's environment (daemons' base env, `PROSPERO_ADMIN_TOKEN`, where the
 *   endpoint record for local clients goes); default process.env.
 * @param opts.showTokenInLog log the dashboard URL with its token (default: in demo mode, or when
 *   stderr is a terminal; otherwise the log names the token file instead).
 * @throws StartupError (data dir, database or migrations unusable, TLS files unreadable) — nothing
 *   is deleted or overwritten; ConfigError for a bad PROSPERO_ADMIN_TOKEN.
 * @throws Error with the OS reason when the HTTP address cannot be bound.
 */
export async function startApp(
  requested: Config,
  logger: Logger,
  opts: { isDev?: boolean; env?: NodeJS.ProcessEnv; showTokenInLog?: boolean } = {},
): Promise<App> {
  // Demo mode: everything in a temp dir, daemons from the built-in simulator (src/demo.ts).
  let demo: DemoEnvironment | null = null;
  let config = requested;
  const gatewayEnv = opts.env ?? process.env;
  // A bad supplied admin token is refused before anything is created (port, data dir, database).
  if (gatewayEnv.PROSPERO_ADMIN_TOKEN) validateSuppliedToken(gatewayEnv.PROSPERO_ADMIN_TOKEN);
  let env = gatewayEnv;
  let tls: { cert: Buffer; key: Buffer } | null = null;
  if (requested.tlsCert !== null && requested.tlsKey !== null) {
    try {
      tls = { cert: fs.readFileSync(requested.tlsCert), key: fs.readFileSync(requested.tlsKey) };
    } catch (err) {
      throw new StartupError(`cannot read the TLS certificate or key: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
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
      insecure: config.insecureNoAuth,
      tls,
      maxConnections: config.maxConnections,
      access: {
        bind: config.bind,
        tls: tls !== null,
        publicHosts: config.publicHosts,
        corsOrigins: config.corsOrigins,
        trustProxy: config.trustProxy,
      },
    });
  } catch (err) {
    demo?.cleanup();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ERR_OSSL_PEM_NO_START_LINE" || /PEM|key values mismatch|certificate/i.test(String(err))) {
      throw new StartupError(`the TLS certificate or key is not usable: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES" || code === "ENOTFOUND") {
      throw new StartupError(
        `cannot listen on ${config.bind}:${config.port} (${code}); choose another --port / PROSPERO_PORT (0 picks a free one) or --bind / PROSPERO_BIND`,
        { cause: err },
      );
    }
    throw err;
  }
  logger.info({ url: gateway.url, graphql: `${gateway.url}/graphql` }, "gateway listening");
  warnAboutExposure(config, gateway.url, logger);
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
    allowEnv: config.allowEnv,
    allowRoots: config.allowRoots,
  });
  const hijackable = fleet.registry.envPolicy.hijackableAllowed();
  if (hijackable.length > 0) {
    logger.warn(
      { variables: hijackable, allowEnv: config.allowEnv },
      "--allow-env lets workspace configs set variables that make processes run other code: any admin can then run commands as this user",
    );
  }
  const tokens = new TokenService(db.prisma, writer, logger);
  const audit = new AuditLog(writer, logger);
  let admin: { secret: string; file: string; issued: boolean };
  try {
    await tokens.load();
    admin = await tokens.ensureBootstrapAdmin(config.dataDir, gatewayEnv.PROSPERO_ADMIN_TOKEN || undefined);
  } catch (err) {
    await gateway.close(0);
    await writer.close();
    await db.close();
    demo?.cleanup();
    throw err;
  }
  await fleet.start();
  services = { prisma: db.prisma, fleet, store, bus, tokens, audit, replays: new ReplayLimiter() };
  tokens.onRevoked((id) => gateway.live.closeToken(id));
  const stopRetention = startRetention(
    [
      { what: "events", prune: (cutoff) => store.prune(cutoff) },
      { what: "audit rows", prune: (cutoff) => audit.prune(cutoff) },
      { what: "browser sessions", prune: (cutoff) => tokens.pruneSessions(cutoff) },
    ],
    config.retentionDays,
    logger.child({ module: "retention" }),
  );
  migrationsApplied = true;
  const stopDemo = demo ? await startDemoFleet(fleet, demo, logger.child({ module: "demo" })) : null;
  const dashboardUrl = `${gateway.url}/?token=${encodeURIComponent(admin.secret)}`;
  const endpoint = writeEndpointRecord(
    { url: gateway.url, port: gateway.port, pid: process.pid, tokenFile: admin.file },
    gatewayEnv,
  );
  if (endpoint.error)
    logger.warn({ reason: endpoint.error }, "local clients will not find this gateway's token by themselves");
  const showToken = opts.showTokenInLog ?? (requested.demo || process.stderr.isTTY === true);
  if (config.insecureNoAuth) {
    logger.info({ dashboard: gateway.url }, "open the dashboard");
  } else if (showToken) {
    logger.info(
      { dashboard: dashboardUrl, tokenFile: admin.file, issued: admin.issued },
      "open the dashboard (this URL carries the admin token; keep it private)",
    );
  } else {
    logger.info(
      { dashboard: gateway.url, tokenFile: admin.file, issued: admin.issued },
      "open the dashboard with ?token=<the admin token from tokenFile>",
    );
  }
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
    tokens,
    audit,
    adminToken: admin.secret,
    dashboardUrl,
    stop() {
      stopping ??= (async () => {
        logger.info("shutting down: draining requests");
        endpoint.remove();
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

/** Warn, at every start, about what this configuration exposes (issue 11 items 1 and 6). */
function warnAboutExposure(config: Config, url: string, logger: Logger): void {
  if (config.insecureNoAuth) {
    logger.warn(
      { url },
      "AUTHENTICATION IS OFF (--insecure-no-auth): every local user and process that can reach this port can spawn agents that run code as this user",
    );
  }
  if (!isLoopbackAddress(config.bind)) {
    logger.warn(
      {
        bind: config.bind,
        url,
        tls: config.tlsCert !== null,
        trustedProxies: config.trustProxy,
      },
      `exposed beyond this machine on ${config.bind}: the GraphQL API (queries, mutations, subscriptions), GraphiQL and the dashboard; every request needs a token`,
    );
  }
}
