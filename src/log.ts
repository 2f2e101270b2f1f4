/**
 * Structured logging (pino). One root logger per process; modules derive children with
 * `logger.child({ module: "poller" })`. Level from config (`--log-level` / PROSPERO_LOG_LEVEL).
 *
 * The log is best-effort: a stderr that goes away (a closed pipe, `prospero serve 2>&1 | head`)
 * must never stop, crash or hang the gateway. The stderr destination is pino's asynchronous one
 * (a stalled reader does not block the event loop); its first write error turns it off, and
 * {@link closeLog} finishes it before the process exits, so pino's exit-time synchronous flush
 * has nothing left to write (sonic-boom's `flushSync` retries a broken pipe forever: issue 12
 * item 9).
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

/** How long {@link closeLog} waits for buffered lines to be written, ms. */
export const LOG_CLOSE_TIMEOUT_MS = 1_000;

type StderrDestination = ReturnType<typeof pino.destination>;

/** The stderr destinations of loggers made by {@link createLogger}, and whether they still work. */
const stderrOf = new WeakMap<Logger, { dest: StderrDestination; off: boolean }>();

/** Turn a destination into a sink: every later write, flush and end does nothing. */
function turnOff(state: { dest: StderrDestination; off: boolean }): void {
  state.off = true;
  const d = state.dest;
  d.write = () => true;
  d.flushSync = () => {};
  d.flush = (cb?: (err?: Error) => unknown) => void cb?.();
  d.end = () => {};
}

/**
 * Create the root logger writing JSON lines to stderr (stdout stays free for CLI output).
 * @param level one of {@link LOG_LEVELS}
 * @param destination where the lines go (tests); default stderr, asynchronously, turned off at
 *   its first write error (EPIPE, EBADF, EIO …) instead of throwing into the process.
 */
export function createLogger(level: LevelWithSilent = "info", destination?: DestinationStream): Logger {
  const paths = REDACTED_LOG_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`]);
  const options = { level, base: { app: "prospero" }, redact: { paths, censor: "[redacted]" } };
  if (destination) return pino(options, destination);
  const dest = pino.destination({ dest: 2, sync: false });
  const state = { dest, off: false };
  // pino silences EPIPE itself but re-emits any other error, which would crash the process.
  dest.on("error", () => turnOff(state));
  const logger = pino(options, dest);
  stderrOf.set(logger, state);
  return logger;
}

/**
 * Write out what the logger still buffers and detach it from stderr: call right before
 * `process.exit`. Best-effort: resolves when the lines are written, when writing fails (a closed
 * pipe), or after `timeoutMs` (a reader that stopped reading); later log calls are dropped.
 * Never rejects; does nothing for loggers with a destination of the caller's.
 */
export async function closeLog(logger: Logger, timeoutMs = LOG_CLOSE_TIMEOUT_MS): Promise<void> {
  const state = stderrOf.get(logger);
  if (!state || state.off) return;
  const dest = state.dest;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      dest.off("close", done);
      dest.off("error", done);
      turnOff(state);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    dest.once("close", done);
    dest.once("error", done);
    // Later lines are dropped from here on: a write after end() would throw "SonicBoom destroyed"
    // (a signal repeated while stopping logs one). What is buffered is still written by end().
    dest.write = () => true;
    try {
      dest.end();
    } catch {
      done();
    }
  });
}

/** A logger that discards everything; for tests and library use. */
export const silentLogger: Logger = pino({ level: "silent" });
