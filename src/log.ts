/**
 * Structured logging (pino). One root logger per process; modules derive children with
 * `logger.child({ module: "poller" })`. Level from config (`--log-level` / PROSPERO_LOG_LEVEL).
 */
import { pino, type Logger, type LevelWithSilent } from "pino";

export type { Logger };

/** Log levels accepted by `--log-level`, most to least verbose, plus `silent`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/**
 * Create the root logger writing JSON lines to stderr (stdout stays free for CLI output).
 * @param level one of {@link LOG_LEVELS}
 */
export function createLogger(level: LevelWithSilent = "info"): Logger {
  return pino({ level, base: { app: "prospero" } }, pino.destination(2));
}

/** A logger that discards everything; for tests and library use. */
export const silentLogger: Logger = pino({ level: "silent" });
