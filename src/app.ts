/**
 * The gateway process: check the data dir and take its lock (one gateway per data dir), start the
 * HTTP server (so /healthz answers at once and /readyz says 503), open the store and apply
 * migrations, load the API tokens and make sure the bootstrap admin token exists (issue 11), then
 * report ready and log the dashboard URL. Shutdown drains in order: HTTP/WebSocket (SSE streams
 * end with a final event) → the `--metrics-bind` server → retention → demo simulators → fleet →
 * store writer → database → demo dir → lock; a failed or interrupted start undoes the part that
 * had happened the same way.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { createSecureContext } from "node:tls";
import type { Config } from "./config.js";
import { ConfigError, StartupError } from "./errors.js";
import type { Logger } from "./log.js";
import { ensureDataDir, openDatabase, type OpenedDatabase } from "./store/db.js";
import { openPostgres, type OpenedPostgres } from "./store/pg.js";
import { acquireDataDirLock, type DataDirLock } from "./store/lock.js";
import { StoreWriter } from "./store/writer.js";
import { SqliteHotPath } from "./store/hot-path.js";
import { PgHotPath } from "./store/pg-hot-path.js";
import { acquireDatabaseLock, type DatabaseLock } from "./store/pg-lock.js";
import { redactDatabaseUrl } from "./store/database-url.js";
import { EventStore } from "./store/events.js";
import { SqliteEventReader } from "./store/sqlite-reader.js";
import { EventBus } from "./bus/bus.js";
import { Fleet } from "./fleet/fleet.js";
import { startRetention } from "./store/retention.js";
import { startGateway, type Gateway } from "./server/gateway.js";
import type { EventExecutor } from "./server/event-executor.js";
import { startMetricsServer, type MetricsServer } from "./server/metrics.js";
import type { Readiness } from "./server/readiness.js";
import type { GraphQLServices } from "./schema/context.js";
import { SIMULATOR_BIN, prepareDemo, startDemoFleet, type DemoEnvironment } from "./demo.js";
import { TokenService, validateSuppliedToken } from "./auth/tokens.js";
import { AuditLog } from "./auth/audit.js";
import { ReplayLimiter } from "./bus/replay-limiter.js";
import { writeEndpointRecord } from "./auth/local-credentials.js";
import { isLoopbackAddress } from "./auth/http-policy.js";
import { LaunchQueue } from "./queue/queue.js";
import { ScheduleService } from "./queue/schedules.js";
import { Notifier } from "./attention/notify.js";
import { InboxService } from "./attention/inbox.js";
import { HealthMonitor } from "./attention/monitor.js";
import { WebhookService } from "./attention/webhooks.js";
import { CaptureService } from "./capture/service.js";

/** The store a gateway runs on: the embedded SQLite file, or PostgreSQL (`--database-url`). */
export type OpenedStore = OpenedDatabase | OpenedPostgres;

/** A running gateway process. */
export interface App {
  gateway: Gateway;
  /** The data dir in use (absolute; the demo's own temp one in demo mode). */
  dataDir: string;
  db: OpenedStore;
  writer: StoreWriter;
  bus: EventBus;
  store: EventStore;
  fleet: Fleet;
  tokens: TokenService;
  audit: AuditLog;
  /** The durable launch queue (issue 14). */
  queue: LaunchQueue;
  /** Cron schedules of launches (issue 14). */
  schedules: ScheduleService;
  /** The operator inbox (issue 15). */
  inbox: InboxService;
  /** The health monitor (issue 15). */
  monitor: HealthMonitor;
  /** Webhooks (issue 15). */
  webhooks: WebhookService;
  /** Notifications from the inbox and the monitor to the webhooks (issue 15). */
  notifier: Notifier;
  /** Change capture: snapshots of runs' working trees, diffs, apply-as-branch (issue 16). */
  capture: CaptureService;
  /** The bootstrap admin token's secret (kept in `<data dir>/admin-token`). */
  adminToken: string;
  /** The dashboard URL carrying the admin token (`<url>/?token=…`). */
  dashboardUrl: string;
  /** `--metrics-bind`: the URL of `/metrics` without a token (`http://127.0.0.1:9464/metrics`), or null. */
  metricsUrl: string | null;
  /** Drain and stop everything; idempotent. */
  stop(): Promise<void>;
}

/**
 * Start Prospero with `config`. In order: refuse bad values (a supplied admin token, TLS files,
 * a `--bind` that is not an address of this machine), prepare the demo environment, make sure the
 * data dir is usable and take its lock (one gateway per data dir), listen, open the store, load
 * the tokens, start the fleet. Before the lock is ours only a throwaway probe listens (opened and
 * closed at once, so a bad `--bind` is refused before anything is created) and no database is
 * touched.
 *
 * A failure — or `opts.signal` aborting (Ctrl-C while starting) — undoes whatever part of the
 * start had happened: the port, the autostarted demo simulators, the database, the demo
 * directory and the lock; the promise then rejects (with `signal.reason` when aborted). A step
 * already under way finishes first (e.g. a simulator being started), then everything is undone.
 * @param opts.env the gateway's environment (daemons' base env, `PROSPERO_ADMIN_TOKEN`, where the
 *   endpoint record for local clients goes); default process.env.
 * @param opts.showTokenInLog log the dashboard URL with its token (default: in demo mode, or when
 *   stderr is a terminal; otherwise the log names the token file instead).
 * @param opts.signal abort the start (see above).
 * @param opts.executeEvent the per-event executor of shared subscription executions
 *   (src/server/shared-subscriptions.ts); default graphql-tools `execute`.
 * @throws ConfigError for a bad PROSPERO_ADMIN_TOKEN, an unusable data dir (missing and not
 *   creatable, not a directory, not writable, another user's) or a `--bind` that does not
 *   resolve or is not an address of this machine (`prospero serve` exits 2);
 *   DataDirInUse (a StartupError naming the other gateway's pid) when another gateway holds the
 *   data dir; StartupError when the port (or the `--metrics-bind` one) is taken or not allowed,
 *   the TLS files are unusable, or the database or migrations are (nothing stored is deleted or
 *   overwritten).
 */
export async function startApp(
  requested: Config,
  logger: Logger,
  opts: {
    isDev?: boolean;
    env?: NodeJS.ProcessEnv;
    showTokenInLog?: boolean;
    signal?: AbortSignal;
    executeEvent?: EventExecutor;
    /**
     * Called when the gateway can no longer run safely and must be stopped by its owner (the CLI
     * stops it and exits 1): another gateway took its PostgreSQL database (src/store/pg-lock.ts).
     */
    onFatal?: (err: Error) => void;
  } = {},
): Promise<App> {
  const abortPoint = () => opts.signal?.throwIfAborted();
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
      tls = { cert: readRegularFile(requested.tlsCert), key: readRegularFile(requested.tlsKey) };
    } catch (err) {
      throw new StartupError(`cannot read the TLS certificate or key: ${(err as Error).message}`, {
        cause: err,
      });
    }
    // Parse them now (not PEM, a key of another certificate) so nothing is created for a bad pair.
    try {
      createSecureContext({ cert: tls.cert, key: tls.key });
    } catch (err) {
      throw new StartupError(`the TLS certificate or key is not usable: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  // The address (and a fixed port) can be bound: a --bind that does not resolve, or names no
  // address of this machine, is refused before anything is created.
  await probeListen(requested.bind, requested.port);
  abortPoint();

  // What has been started so far, undone in order by `teardown` (on failure, abort or stop).
  let lock: DataDirLock | null = null;
  let gateway: Gateway | null = null;
  let metricsServer: MetricsServer | null = null;
  let db: OpenedStore | null = null;
  let dbLock: DatabaseLock | null = null;
  let writer: StoreWriter | null = null;
  let fleet: Fleet | null = null;
  let fleetStarted = false;
  let queue: LaunchQueue | null = null;
  let schedules: ScheduleService | null = null;
  let inbox: InboxService | null = null;
  let monitor: HealthMonitor | null = null;
  let webhooks: WebhookService | null = null;
  let capture: CaptureService | null = null;
  let stopRetention: (() => Promise<void>) | null = null;
  let stopDemo: (() => void) | null = null;
  let endpoint: { remove(): void } | null = null;
  const teardown = async (graceMs?: number): Promise<void> => {
    let first: unknown = undefined;
    const attempt = async (what: string, fn: () => unknown) => {
      try {
        await fn();
      } catch (err) {
        logger.error({ err }, `shutdown: ${what} failed`);
        first ??= err;
      }
    };
    const f = fleet;
    await attempt("removing the endpoint record", () => endpoint?.remove());
    await attempt("closing the gateway", () => gateway?.close(graceMs));
    await attempt("closing the metrics server", () => metricsServer?.close());
    await attempt("stopping retention", () => stopRetention?.());
    await attempt("stopping the demo", () => stopDemo?.());
    // Attention before the queue and the fleet: it follows their events.
    await attempt("stopping the webhooks", () => webhooks?.stop());
    // Change capture before the fleet: it follows its events and hooks its kills.
    await attempt("stopping change capture", () => capture?.stop());
    await attempt("stopping the health monitor", () => monitor?.stop());
    await attempt("stopping the inbox", () => inbox?.stop());
    // Schedules and the queue before the fleet: they start runs through it.
    await attempt("stopping the schedules", () => schedules?.stop());
    await attempt("stopping the launch queue", () => queue?.stop());
    // The poller first: polling on, it would autostart a simulator again the moment it is stopped.
    if (f && fleetStarted) await attempt("stopping the fleet", () => f.stop());
    // Demo mode owns the simulators it started (one per workspace): stop them before the temp
    // directory holding their sockets and sessions is removed.
    if (demo && f) await attempt("stopping the simulators", () => f.daemons.shutdownStarted());
    await attempt("closing the store writer", () => writer?.close());
    await attempt("closing the database", () => db?.close());
    await attempt("releasing the database lock", () => dbLock?.release());
    await attempt("removing the demo directory", () => demo?.cleanup());
    await attempt("releasing the data dir lock", () => lock?.release());
    if (first !== undefined) throw first;
  };

  let services: GraphQLServices | null = null;
  let migrationsApplied = false;
  try {
    if (requested.demo) {
      demo = prepareDemo(env);
      // Everything of the demo is temporary, its store too: never the configured database.
      config = {
        ...requested,
        dataDir: demo.dataDir,
        databaseUrl: null,
        calibandBin: SIMULATOR_BIN,
        autostart: true,
      };
      if (requested.databaseUrl !== null)
        logger.warn("demo mode stores in its temp dir: --database-url / PROSPERO_DATABASE_URL is not used");
      env = demo.env;
      logger.info({ dir: demo.dir }, "demo mode: temporary workspace, data dir and caliband simulator");
    }
    abortPoint();
    // The data dir must be usable, and ours alone, before we listen or open the database.
    try {
      ensureDataDir(config.dataDir);
    } catch (err) {
      throw new ConfigError(
        "--data-dir / PROSPERO_DATA_DIR",
        "a directory of this user that it can write, or one it can create",
        (err as Error).message,
      );
    }
    lock = await acquireDataDirLock(config.dataDir);
    abortPoint();

    const readiness = (): Readiness => {
      // On PostgreSQL also: this gateway holds the database (src/store/pg-lock.ts).
      const storeWritable = db !== null && db.writable() && (dbLock?.held() ?? true);
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
    try {
      gateway = await startGateway(config.bind, config.port, {
        logger,
        readiness,
        context: () => services,
        isDev: opts.isDev ?? false,
        executeEvent: opts.executeEvent,
        insecure: config.insecureNoAuth,
        tls,
        maxConnections: config.maxConnections,
        trustedDocumentsOnly: config.trustedDocumentsOnly,
        access: {
          bind: config.bind,
          tls: tls !== null,
          publicHosts: config.publicHosts,
          corsOrigins: config.corsOrigins,
          trustProxy: config.trustProxy,
        },
      });
    } catch (err) {
      // (A bad certificate or key was refused above, by createSecureContext.)
      throw listenError(err, config.bind, config.port);
    }
    const gw = gateway;
    logger.info({ url: gw.url, graphql: `${gw.url}/graphql` }, "gateway listening");
    warnAboutExposure(config, gw.url, logger);
    if (config.metricsBind !== null) {
      const { host, port } = config.metricsBind;
      try {
        metricsServer = await startMetricsServer(
          config.metricsBind,
          gw.metrics,
          logger.child({ module: "metrics" }),
        );
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // A taken port is a matter of the port; a name that does not resolve (or is no address of
        // this machine) is a matter of the address.
        const advice =
          code === "EADDRINUSE" || code === "EACCES"
            ? "choose another port"
            : "use a loopback address of this machine, such as 127.0.0.1 or [::1]";
        throw new StartupError(
          `cannot listen on --metrics-bind ${host.includes(":") ? `[${host}]` : host}:${port} (${code ?? (err as Error).message}); ${advice}`,
          { cause: err },
        );
      }
      logger.info(
        { url: metricsServer.url },
        `metrics without a token at ${metricsServer.url} (--metrics-bind)`,
      );
    }
    abortPoint();
    if (config.databaseUrl !== null) {
      // One gateway per database (src/store/pg-lock.ts), taken before migrations: a newer build
      // must not migrate a database another gateway is serving.
      const target = redactDatabaseUrl(config.databaseUrl);
      dbLock = await acquireDatabaseLock(config.databaseUrl, target, {
        log: logger.child({ module: "store" }),
        onLost: (holder) =>
          opts.onFatal?.(
            new StartupError(
              `another gateway (${holder ?? "holder unknown"}) took the database ${target} while its connection was lost; this one stops`,
            ),
          ),
      });
      abortPoint();
    }
    db =
      config.databaseUrl === null
        ? await openDatabase(config.dataDir)
        : await openPostgres(config.databaseUrl, { log: logger.child({ module: "store" }) });
    const opened = db;
    logger.info(
      {
        ...(opened.dialect === "sqlite" ? { file: opened.file } : { database: opened.target }),
        applied: opened.migrations.applied,
        alreadyApplied: opened.migrations.alreadyApplied.length,
      },
      "store open",
    );
    abortPoint();
    // The writer's hot path on the driver connection (issue 17; PostgreSQL: its pool); SQLite's raw
    // keyset reads too (PostgreSQL reads through Prisma).
    writer = new StoreWriter(opened.prisma, logger.child({ module: "writer" }), undefined, {
      onTransaction: (ms) => gw.metrics.observeStoreWrite(ms),
      hotPath: opened.dialect === "sqlite" ? new SqliteHotPath(opened.raw) : new PgHotPath(opened.pool),
    });
    const bus = new EventBus({ log: logger.child({ module: "bus" }) });
    const store = new EventStore(
      opened.prisma,
      writer,
      bus,
      logger.child({ module: "store" }),
      opened.dialect === "sqlite" ? { reader: new SqliteEventReader(opened.raw) } : {},
    );
    const theFleet = new Fleet({
      db: opened.prisma,
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
      credentialsDirs:
        config.calibandCredentialsDirs.length > 0
          ? config.calibandCredentialsDirs
          : [path.join(config.dataDir, "calibands")],
      onPollRound: (ms) => gw.metrics.observePollRound(ms),
    });
    fleet = theFleet;
    const hijackable = theFleet.registry.envPolicy.hijackableAllowed();
    if (hijackable.length > 0) {
      logger.warn(
        { variables: hijackable, allowEnv: config.allowEnv },
        "--allow-env lets workspace configs set variables that make processes run other code: any admin can then run commands as this user",
      );
    }
    const tokens = new TokenService(opened.prisma, writer, logger);
    const audit = new AuditLog(writer, logger);
    await tokens.load();
    const admin = await tokens.ensureBootstrapAdmin(
      config.dataDir,
      gatewayEnv.PROSPERO_ADMIN_TOKEN || undefined,
    );
    abortPoint();
    fleetStarted = true;
    await theFleet.start();
    abortPoint();
    const theQueue = new LaunchQueue({
      db: opened.prisma,
      store,
      bus,
      fleet: theFleet,
      log: logger,
      globalCap: config.maxConcurrent,
      transientPatterns: config.transientErrors,
    });
    queue = theQueue;
    await theQueue.start();
    const theSchedules = new ScheduleService({
      db: opened.prisma,
      store,
      queue: theQueue,
      registry: theFleet.registry,
      log: logger,
    });
    schedules = theSchedules;
    await theSchedules.start();
    abortPoint();
    const notifier = new Notifier(logger.child({ module: "notify" }));
    // Webhooks first: they take notifications from their construction on (buffered until start),
    // so the inbox's start-up reconcile reaches them too.
    const theWebhooks = new WebhookService({
      db: opened.prisma,
      writer,
      notifier,
      log: logger.child({ module: "webhooks" }),
      selfAddresses: () => ({ hosts: [config.bind], port: gw.port }),
      publicUrl: () => gw.url,
    });
    webhooks = theWebhooks;
    const theInbox = new InboxService({
      db: opened.prisma,
      bus,
      store,
      fleet: theFleet,
      notifier,
      log: logger.child({ module: "inbox" }),
      escalateAfterMs: config.inboxEscalateAfterMs,
    });
    inbox = theInbox;
    await theInbox.start();
    const theMonitor = new HealthMonitor({
      db: opened.prisma,
      fleet: theFleet,
      store,
      bus,
      queue: theQueue,
      inbox: theInbox,
      log: logger.child({ module: "monitor" }),
      dataDir: config.dataDir,
      // PostgreSQL's files are the server's: its size is asked of the server.
      dbFiles: opened.dialect === "sqlite" ? [opened.file, `${opened.file}-wal`] : [],
      ...(opened.dialect === "postgresql" ? { databaseBytes: () => opened.databaseBytes() } : {}),
      intervalMs: config.healthIntervalMs,
      thresholds: config.healthThresholds,
    });
    monitor = theMonitor;
    await theMonitor.start();
    await theWebhooks.start();
    const theCapture = new CaptureService({
      db: opened.prisma,
      writer,
      store,
      bus,
      fleet: theFleet,
      log: logger.child({ module: "capture" }),
      limits: {
        maxFiles: config.captureMaxFiles,
        maxFileBytes: config.captureMaxFileBytes,
        maxBytes: config.captureMaxBytes,
      },
      retentionDays: config.retentionDays,
    });
    capture = theCapture;
    await theCapture.start();
    abortPoint();
    services = {
      prisma: opened.prisma,
      fleet: theFleet,
      store,
      bus,
      tokens,
      audit,
      replays: new ReplayLimiter(),
      queue: theQueue,
      schedules: theSchedules,
      inbox: theInbox,
      monitor: theMonitor,
      webhooks: theWebhooks,
      notifier,
      capture: theCapture,
    };
    tokens.onRevoked((id) => gw.live.closeToken(id));
    stopRetention = startRetention(
      [
        { what: "events", prune: (cutoff) => store.prune(cutoff) },
        { what: "audit rows", prune: (cutoff) => audit.prune(cutoff) },
        { what: "browser sessions", prune: (cutoff) => tokens.pruneSessions(cutoff) },
        { what: "closed inbox items", prune: (cutoff) => theInbox.prune(cutoff) },
        { what: "webhook deliveries", prune: (cutoff) => theWebhooks.prune(cutoff) },
        { what: "run snapshots", prune: (cutoff) => theCapture.prune(cutoff) },
      ],
      config.retentionDays,
      logger.child({ module: "retention" }),
    );
    migrationsApplied = true;
    if (demo) stopDemo = await startDemoFleet(theFleet, theQueue, demo, logger.child({ module: "demo" }));
    abortPoint();
    const dashboardUrl = `${gw.url}/?token=${encodeURIComponent(admin.secret)}`;
    const record = writeEndpointRecord(
      { url: gw.url, port: gw.port, pid: process.pid, tokenFile: admin.file },
      gatewayEnv,
    );
    endpoint = record;
    if (record.error)
      logger.warn({ reason: record.error }, "local clients will not find this gateway's token by themselves");
    const showToken = opts.showTokenInLog ?? (requested.demo || process.stderr.isTTY === true);
    // The URL is in the message itself, so a readable (--log-format pretty) line shows it; only the
    // branch that may show the token puts it there.
    if (config.insecureNoAuth) {
      logger.info({ dashboard: gw.url }, `open the dashboard: ${gw.url}/`);
    } else if (showToken) {
      logger.info(
        { dashboard: dashboardUrl, tokenFile: admin.file, issued: admin.issued },
        `open the dashboard: ${dashboardUrl} (this URL carries the admin token; keep it private)`,
      );
    } else {
      logger.info(
        { dashboard: gw.url, tokenFile: admin.file, issued: admin.issued },
        `open the dashboard: ${gw.url}/?token=<the admin token in ${admin.file}>`,
      );
    }
    let stopping: Promise<void> | null = null;
    return {
      gateway: gw,
      dataDir: config.dataDir,
      db: opened,
      writer,
      bus,
      store,
      fleet: theFleet,
      tokens,
      audit,
      queue: theQueue,
      schedules: theSchedules,
      inbox: theInbox,
      monitor: theMonitor,
      webhooks: theWebhooks,
      notifier,
      capture: theCapture,
      adminToken: admin.secret,
      dashboardUrl,
      metricsUrl: metricsServer?.url ?? null,
      stop() {
        stopping ??= (async () => {
          logger.info("shutting down: draining requests");
          await teardown();
          logger.info("stopped");
        })();
        return stopping;
      },
    };
  } catch (err) {
    if (opts.signal?.aborted) logger.info("start-up interrupted: undoing what had started");
    try {
      await teardown(0);
    } catch {
      // logged by teardown; the start-up error is the one to report
    }
    throw err;
  }
}

/**
 * The bytes of the regular file at `file`, at most {@link TLS_FILE_MAX_BYTES}. Anything else (a
 * FIFO, a device such as /dev/zero, a directory) is refused before it is opened: reading a FIFO
 * with no writer would block the process for good, signals included.
 * @throws Error `not a regular file` or the OS error.
 */
function readRegularFile(file: string): Buffer {
  // Opened without blocking (a FIFO opens at once) and checked on the descriptor that is read, so
  // the path cannot be swapped between the check and the read.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory())
      throw Object.assign(new Error(`EISDIR: ${file} is a directory`), { code: "EISDIR" });
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > TLS_FILE_MAX_BYTES) {
      throw new Error(
        `${file} is ${st.size} bytes; a certificate chain or key is at most ${TLS_FILE_MAX_BYTES}`,
      );
    }
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Largest TLS certificate (chain) or key file read at start, bytes (1 MiB). */
const TLS_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Check that `bind:port` can be listened on, with a throwaway server closed at once, so a bad
 * `--bind` or a taken port is found before the data dir, its lock or the database are touched.
 * @throws see {@link listenError}.
 */
async function probeListen(bind: string, port: number): Promise<void> {
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host: bind, port, exclusive: true }, () => resolve());
    });
  } catch (err) {
    throw listenError(err, bind, port);
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/**
 * The typed error of a failed `listen` on `bind:port`: ConfigError (exit 2) when `--bind` is a
 * bad value — a host name that does not resolve (ENOTFOUND, EAI_NONAME), or no address of this
 * machine (EADDRNOTAVAIL); StartupError (exit 1) when the port is in use or not allowed
 * (EADDRINUSE, EACCES), conditions of the moment rather than of the setting; otherwise `err`.
 */
function listenError(err: unknown, bind: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOTFOUND" || code === "EAI_NONAME" || code === "EADDRNOTAVAIL") {
    return new ConfigError(
      "--bind / PROSPERO_BIND",
      "an IP address of this machine, or a host name that resolves to one",
      `cannot listen on ${bind} (${code === "EADDRNOTAVAIL" ? "not an address of this machine" : "the name does not resolve"}: ${code})`,
    );
  }
  if (code === "EADDRINUSE" || code === "EACCES") {
    return new StartupError(
      `cannot listen on ${bind}:${port} (${code}); choose another --port / PROSPERO_PORT (0 picks a free one) or --bind / PROSPERO_BIND`,
      { cause: err },
    );
  }
  return err;
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
