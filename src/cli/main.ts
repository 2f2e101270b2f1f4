/**
 * The `prospero` command line. `prospero serve` runs the gateway; client commands (issue 6)
 * are added beside it. Exit codes: 0 ok, 1 runtime/startup failure, 2 usage or configuration error.
 */
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { resolveConfig, type Config } from "../config.js";
import { ProsperoError, ConfigError } from "../errors.js";
import { createLogger } from "../log.js";
import { startApp } from "../app.js";
import { VERSION } from "../version.js";

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

interface ServeOptions {
  dataDir?: string;
  bind?: string;
  port?: string;
  logLevel?: string;
  pollIntervalMs?: string;
  calibandBin?: string;
  autostart?: boolean;
  retentionDays?: string;
  demo?: boolean;
}

async function serve(opts: ServeOptions): Promise<void> {
  let config: Config;
  try {
    config = resolveConfig({
      dataDir: opts.dataDir,
      bind: opts.bind,
      port: opts.port,
      logLevel: opts.logLevel,
      pollIntervalMs: opts.pollIntervalMs,
      calibandBin: opts.calibandBin,
      autostart: opts.autostart === false ? false : undefined,
      retentionDays: opts.retentionDays,
      demo: opts.demo,
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`prospero: ${err.message}\n`);
      process.exit(EXIT.usage);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  let app;
  try {
    app = await startApp(config, logger);
  } catch (err) {
    const msg = err instanceof ProsperoError ? err.message : `${(err as Error).message}`;
    logger.fatal({ err }, msg);
    process.stderr.write(`prospero: ${msg}\n`);
    logger.flush();
    process.exit(EXIT.failure);
  }
  const shutdown = (signal: string) => {
    logger.info({ signal }, "signal received");
    app
      .stop()
      .then(() => process.exit(EXIT.ok))
      .catch((err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(EXIT.failure);
      });
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
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
    .option("--demo", "run a demo fleet on the built-in caliband simulator (env PROSPERO_DEMO)")
    .action(serve);
  return program;
}

/** Entry point: parse argv and run. */
export async function main(argv: string[] = process.argv): Promise<void> {
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
