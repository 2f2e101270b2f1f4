/**
 * The `prospero` command line. `prospero serve` runs the gateway; the client commands (workspace,
 * spawn, ls, show, follow, kill, respawn, rm, drain, send, end-input, usage, status, and the
 * launch queue's enqueue, queue, launch, cancel, caps, budget, schedule, and operator attention's
 * inbox, answer, approve, ack, snooze, dismiss, doctor, health, webhook, and what runs changed:
 * diff, apply, and the run report: report) drive one
 * through the SDK, one module per group under ./commands. Exit codes: see ./exit.ts (0 ok,
 * 1 failure, 2 usage or configuration error, 3 not found, 4 refused, 5 unreachable).
 *
 * The gateway's modules are loaded only by `serve`, so client commands start quickly.
 */
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { resolveConfig, type Config } from "../config.js";
import { ConfigError } from "../errors.js";
import { VERSION } from "../version.js";
import type { App } from "../app.js";
import type { Logger } from "../log.js";
import { EXIT, EXIT_CODES_HELP } from "./exit.js";
import { registerWorkspaceCommands } from "./commands/workspace.js";
import { registerAgentCommands } from "./commands/agents.js";
import { registerFollowCommand } from "./commands/follow.js";
import { registerLifecycleCommands } from "./commands/lifecycle.js";
import { registerUsageCommand } from "./commands/usage.js";
import { registerStatusCommand } from "./commands/status.js";
import { registerTokenCommands } from "./commands/token.js";
import { registerAuditCommand } from "./commands/audit.js";
import { registerQueueCommands } from "./commands/queue.js";
import { registerScheduleCommands } from "./commands/schedule.js";
import { registerInboxCommands } from "./commands/inbox.js";
import { registerDoctorCommands } from "./commands/doctor.js";
import { registerWebhookCommands } from "./commands/webhook.js";
import { registerReportCommand } from "./commands/report.js";
import { registerChangesCommands } from "./commands/changes.js";

export { EXIT };

interface ServeOptions {
  dataDir?: string;
  databaseUrl?: string;
  bind?: string;
  port?: string;
  logLevel?: string;
  pollIntervalMs?: string;
  calibandBin?: string;
  autostart?: boolean;
  retentionDays?: string;
  demo?: boolean;
  insecureNoAuth?: boolean;
  corsOrigin?: string[];
  publicHost?: string[];
  tlsCert?: string;
  tlsKey?: string;
  trustProxy?: string[];
  allowEnv?: string[];
  allowRoot?: string[];
  calibandCredentialsDir?: string[];
  maxConnections?: string;
  trustedDocumentsOnly?: boolean;
  maxConcurrent?: string;
  transientError?: string[];
  metricsBind?: string;
  logFormat?: string;
  healthThreshold?: string[];
  healthIntervalMs?: string;
  inboxEscalateAfterMs?: string;
  captureMaxFiles?: string;
  captureMaxFileBytes?: string;
  captureMaxBytes?: string;
}

/** Commander collector of a repeatable option. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Signals that stop `prospero serve` cleanly (SIGHUP: its terminal went away). */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Longest a stop may take after the first signal before the process gives up and exits 1, ms:
 * the gateway's 5 s drain, the demo simulators' 5 s, and the store, with room to spare. A safety
 * net only (a stop that hangs is a bug, and is logged as one).
 */
export const SHUTDOWN_DEADLINE_MS = 30_000;

/**
 * Hands `serve` a stop signal that arrived before its handlers were in place (the name, or null);
 * set by {@link main}.
 */
let takeHeldSignal: () => string | null = () => null;

/**
 * `prospero serve`. Exit codes: 0 stopped by SIGINT/SIGTERM/SIGHUP (also while still starting:
 * whatever had started is undone); 2 a bad setting (flag or env value, PROSPERO_ADMIN_TOKEN, an
 * unusable --data-dir, a --bind that is no address of this machine); 1 any other start-up failure
 * — the port is taken, another gateway uses the data dir (it is named, with its pid), the database
 * is unusable — or a failed stop. A start-up failure is ONE line on stderr, `prospero: <why>`
 * (the error with its stack goes to the log at debug level).
 */
async function serve(opts: ServeOptions): Promise<void> {
  // Signals are ours from here on: a Ctrl-C while starting must undo the start, not kill the
  // process half-way (demo dir left behind, simulators orphaned). Repeats are ignored: `npm start`
  // forwards the terminal's signal, so the gateway gets it twice.
  const interrupt = new AbortController();
  let app: App | null = null;
  let logger: Logger | null = null;
  let received: string | null = null;
  const onSignal = (signal: string) => {
    if (received !== null) {
      try {
        logger?.info({ signal }, "signal received again; already stopping");
      } catch {
        // the log may already be closed; a repeated signal changes nothing
      }
      return;
    }
    received = signal;
    logger?.info({ signal }, "signal received");
    setTimeout(() => {
      process.stderr.write(`prospero: stopping took longer than ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting\n`);
      process.exit(EXIT.failure);
    }, SHUTDOWN_DEADLINE_MS).unref();
    interrupt.abort(new Error(`start-up interrupted by ${signal}`));
    if (app) void stop(app, logger!);
  };
  for (const s of STOP_SIGNALS) process.on(s, () => onSignal(s));
  // One that came while the sources were loading was held by bin/prospero.js: it counts the same.
  const early = takeHeldSignal();
  if (early !== null) onSignal(early);
  // A closed stderr must not crash the process from a write of ours (the log handles its own).
  process.stderr.on("error", () => {});

  let config: Config;
  try {
    config = resolveConfig({
      dataDir: opts.dataDir,
      databaseUrl: opts.databaseUrl,
      bind: opts.bind,
      port: opts.port,
      logLevel: opts.logLevel,
      pollIntervalMs: opts.pollIntervalMs,
      calibandBin: opts.calibandBin,
      autostart: opts.autostart === false ? false : undefined,
      retentionDays: opts.retentionDays,
      demo: opts.demo,
      insecureNoAuth: opts.insecureNoAuth,
      corsOrigins: opts.corsOrigin,
      publicHosts: opts.publicHost,
      tlsCert: opts.tlsCert,
      tlsKey: opts.tlsKey,
      trustProxy: opts.trustProxy,
      allowEnv: opts.allowEnv,
      allowRoots: opts.allowRoot,
      calibandCredentialsDirs: opts.calibandCredentialsDir,
      maxConnections: opts.maxConnections,
      trustedDocumentsOnly: opts.trustedDocumentsOnly,
      maxConcurrent: opts.maxConcurrent,
      transientErrors: opts.transientError,
      metricsBind: opts.metricsBind,
      logFormat: opts.logFormat,
      healthThresholds: opts.healthThreshold,
      healthIntervalMs: opts.healthIntervalMs,
      inboxEscalateAfterMs: opts.inboxEscalateAfterMs,
      captureMaxFiles: opts.captureMaxFiles,
      captureMaxFileBytes: opts.captureMaxFileBytes,
      captureMaxBytes: opts.captureMaxBytes,
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`prospero: ${err.message}\n`);
      process.exit(EXIT.usage);
    }
    throw err;
  }
  const { createLogger, closeLog } = await import("../log.js");
  const { startApp } = await import("../app.js");
  const { applyGatewayUmask } = await import("../process-umask.js");
  // Everything the gateway creates is private to its user (autostarted daemons keep the operator's umask).
  applyGatewayUmask();
  const log = createLogger(config.logLevel, undefined, { format: config.logFormat });
  logger = log;
  if (received !== null) {
    // Interrupted before anything was created.
    log.info({ signal: received }, "signal received before start-up; nothing to undo");
    await closeLog(log);
    process.exit(EXIT.ok);
  }
  try {
    app = await startApp(config, log, {
      signal: interrupt.signal,
      onFatal: (err) => {
        log.error({ err: err.message }, "stopping: the gateway cannot go on safely");
        if (app) void stop(app, log, EXIT.failure);
      },
    });
  } catch (err) {
    if (interrupt.signal.aborted) {
      log.info({ signal: received }, "start-up interrupted; everything it had started is undone");
      await closeLog(log);
      process.exit(EXIT.ok);
    }
    const msg = err instanceof Error ? err.message : String(err);
    log.debug({ err }, "start-up failed");
    await closeLog(log);
    process.stderr.write(`prospero: ${msg}\n`);
    // A bad setting found while starting (e.g. PROSPERO_ADMIN_TOKEN, --data-dir, --bind) is a usage error.
    process.exit(err instanceof ConfigError ? EXIT.usage : EXIT.failure);
  }
  // (A signal during the start aborted it above; this covers one that lands as it completes.)
  if (received !== null) void stop(app, log);
}

/**
 * Stop a running gateway and exit: after a signal with 0 (1 when the stop failed), after a fatal
 * condition (startApp's `onFatal`) with `exitCode`.
 */
async function stop(app: App, logger: Logger, exitCode: number = EXIT.ok): Promise<never> {
  const { closeLog } = await import("../log.js");
  let code: number = exitCode;
  try {
    await app.stop();
  } catch (err) {
    logger.error({ err }, "shutdown failed");
    code = EXIT.failure;
  }
  await closeLog(logger);
  process.exit(code);
}

/** Build the command tree (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("prospero")
    .description("Control plane for fleets of AI coding agents driven through caliband daemons")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program
    .command("serve")
    .description("run the GraphQL gateway (GraphiQL and graphql-ws at /graphql, /healthz, /readyz)")
    .option("--data-dir <dir>", "data directory (env PROSPERO_DATA_DIR; default $XDG_DATA_HOME/prospero)")
    .option(
      "--database-url <url>",
      "store in PostgreSQL instead of <data-dir>/prospero.db: postgres://user@host:port/database (env PROSPERO_DATABASE_URL; keep a password out of argv: use the env var, PGPASSWORD or ~/.pgpass)",
    )
    .option("--bind <address>", "address to listen on (env PROSPERO_BIND; default 127.0.0.1)")
    .option("--port <port>", "TCP port, 0 picks a free one (env PROSPERO_PORT; default 7878)")
    .option(
      "--log-level <level>",
      "trace|debug|info|warn|error|fatal|silent (env PROSPERO_LOG_LEVEL; default info)",
    )
    .option("--poll-interval-ms <ms>", "caliband poll interval (env PROSPERO_POLL_INTERVAL_MS; default 2000)")
    .option(
      "--caliband-bin <path>",
      "caliband executable for autostart (env PROSPERO_CALIBAND_BIN; default caliband)",
    )
    .option("--no-autostart", "never start a caliband that does not answer (env PROSPERO_AUTOSTART=false)")
    .option(
      "--retention-days <days>",
      "delete events older than N days, 0 = never (env PROSPERO_RETENTION_DAYS)",
    )
    .option(
      "--demo",
      "run a demo fleet on the built-in caliband simulator, everything (the data dir too: --data-dir is not used) in a temp dir removed at exit (env PROSPERO_DEMO)",
    )
    .option(
      "--insecure-no-auth",
      "serve WITHOUT authentication (loopback binds only; warns at every start; env PROSPERO_INSECURE_NO_AUTH)",
    )
    .option(
      "--cors-origin <origin>",
      "allow this exact origin to call the API cross-origin with a bearer token; repeatable (env PROSPERO_CORS_ORIGINS, comma-separated)",
      collect,
    )
    .option(
      "--public-host <name>",
      "a host name the gateway answers to besides localhost and IP addresses; repeatable (env PROSPERO_PUBLIC_HOSTS)",
      collect,
    )
    .option("--tls-cert <file>", "PEM certificate chain: serve HTTPS and WSS (env PROSPERO_TLS_CERT)")
    .option("--tls-key <file>", "PEM private key of --tls-cert (env PROSPERO_TLS_KEY)")
    .option(
      "--trust-proxy <address>",
      "IP of a reverse proxy in front of the gateway: only it may connect, its X-Forwarded-For/-Proto are believed; repeatable (env PROSPERO_TRUST_PROXY)",
      collect,
    )
    .option(
      "--allow-env <pattern>",
      "let workspace configs set (and apiKeyFromEnv name) variables matching this name or *-pattern; repeatable (env PROSPERO_ALLOW_ENV)",
      collect,
    )
    .option(
      "--allow-root <dir>",
      "workspace roots must be inside this directory; repeatable (env PROSPERO_ALLOW_ROOTS, ':'-separated)",
      collect,
    )
    .option(
      "--caliband-credentials-dir <dir>",
      "credentials of calibands on other hosts, one <host>_<port>/ directory per endpoint (ca.pem, token, server-name); repeatable (env PROSPERO_CALIBAND_CREDENTIALS_DIRS, ':'-separated; default <data-dir>/calibands)",
      collect,
    )
    .option(
      "--max-connections <n>",
      "most WebSocket connections at once (env PROSPERO_MAX_CONNECTIONS; default 256)",
    )
    .option(
      "--max-concurrent <n>",
      "launch queue: most runs at once fleet-wide (the GLOBAL cap; replaces one set with `prospero caps set`; env PROSPERO_MAX_CONCURRENT; default 5)",
    )
    .option(
      "--transient-error <regex>",
      "launch queue: also retry provider errors matching this case-insensitive regex; repeatable (env PROSPERO_TRANSIENT_ERRORS, '|||'-separated)",
      collect,
    )
    .option(
      "--metrics-bind <host:port>",
      "also serve GET /metrics (Prometheus) without a token on this loopback address, e.g. 127.0.0.1:9464 (env PROSPERO_METRICS_BIND); /metrics on the gateway's port needs a viewer token",
    )
    .option(
      "--log-format <format>",
      "auto (readable lines on a terminal, JSON otherwise), json or pretty (env PROSPERO_LOG_FORMAT; default auto)",
    )
    .option(
      "--health-threshold <check=value>",
      "health monitor threshold, e.g. daemon_unreachable=120000 (ms) or data_disk_free=2147483648 (bytes); repeatable; see docs/attention.md (env PROSPERO_HEALTH_THRESHOLDS, ','-separated)",
      collect,
    )
    .option(
      "--health-interval-ms <ms>",
      "how often the health monitor runs its checks (env PROSPERO_HEALTH_INTERVAL_MS; default 30000)",
    )
    .option(
      "--inbox-escalate-after-ms <ms>",
      "notify an inbox item again after it has been open this long, then every such period; 0 = never (env PROSPERO_INBOX_ESCALATE_AFTER_MS; default 86400000 = 24 h)",
    )
    .option(
      "--capture-max-files <n>",
      "at most this many new or changed files go into one snapshot of a run's changes; the rest are left out, and said so (env PROSPERO_CAPTURE_MAX_FILES; default 5000)",
    )
    .option(
      "--capture-max-file-bytes <bytes>",
      "a file larger than this is left out of a run's snapshot (env PROSPERO_CAPTURE_MAX_FILE_BYTES; default 10485760 = 10 MiB)",
    )
    .option(
      "--capture-max-bytes <bytes>",
      "at most this many bytes of new or changed files go into one snapshot (env PROSPERO_CAPTURE_MAX_BYTES; default 104857600 = 100 MiB)",
    )
    .option(
      "--trusted-documents-only",
      "run only the GraphQL documents of the SDK, CLI and dashboard registered in trusted-documents.json (env PROSPERO_TRUSTED_DOCUMENTS_ONLY)",
    )
    .addHelpText(
      "after",
      "\nAuthentication: the admin token is created at first start in <data dir>/admin-token (mode 0600),\n" +
        "or taken from PROSPERO_ADMIN_TOKEN; the log prints a dashboard URL carrying it. See docs/security.md.",
    )
    .action(serve);
  registerWorkspaceCommands(program);
  registerAgentCommands(program);
  registerFollowCommand(program);
  registerLifecycleCommands(program);
  registerUsageCommand(program);
  registerStatusCommand(program);
  registerTokenCommands(program);
  registerAuditCommand(program);
  registerQueueCommands(program);
  registerScheduleCommands(program);
  registerInboxCommands(program);
  registerDoctorCommands(program);
  registerWebhookCommands(program);
  registerReportCommand(program);
  registerChangesCommands(program);
  program.addHelpText("after", EXIT_CODES_HELP);
  return program;
}

/**
 * Entry point: parse argv and run.
 * @param opts.takeHeldSignal for `serve`: stop its holding of SIGINT/SIGTERM/SIGHUP and return the
 *   first one it caught, or null (bin/prospero.js holds them from its first line, so a signal
 *   while the sources load stops the gateway cleanly instead of killing it).
 */
export async function main(
  argv: string[] = process.argv,
  opts: { takeHeldSignal?: () => string | null } = {},
): Promise<void> {
  takeHeldSignal = opts.takeHeldSignal ?? (() => null);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError || err instanceof InvalidArgumentError) {
      process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    }
    throw err;
  }
}
