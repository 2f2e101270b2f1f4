/**
 * Structured logging (pino). One root logger per process; modules derive children with
 * `logger.child({ module: "poller" })`. Level from config (`--log-level` / PROSPERO_LOG_LEVEL).
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";

export type { Logger };

/** Log levels accepted by `--log-level`, most to least verbose, plus `silent`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/**
 * Keys whose values are never written to the log, wherever they appear up to two levels deep
 * (request headers, token objects): credentials must not leak through a logged object.
 */
export const REDACTED_LOG_KEYS = [
  "authorization",
  "cookie",
  "set-cookie",
  "secret",
  "secretHash",
  "password",
];

/**
 * Create the root logger writing JSON lines to stderr (stdout stays free for CLI output).
 * @param level one of {@link LOG_LEVELS}
 * @param destination where the lines go (tests); default stderr.
 */
export function createLogger(
  level: LevelWithSilent = "info",
  destination: DestinationStream = pino.destination(2),
): Logger {
  const paths = REDACTED_LOG_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`]);
  return pino({ level, base: { app: "prospero" }, redact: { paths, censor: "[redacted]" } }, destination);
}

/** A logger that discards everything; for tests and library use. */
export const silentLogger: Logger = pino({ level: "silent" });
