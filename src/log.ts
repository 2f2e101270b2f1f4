/**
 * Structured logging (pino). One root logger per process; modules derive children with
 * `logger.child({ module: "poller" })`. Level from config (`--log-level` / PROSPERO_LOG_LEVEL).
 *
 * Format from config (`--log-format`, issue 15 item 5): `json` is one JSON object per line (for
 * files, pipes and log collectors); `pretty` is one readable line per entry through pino-pretty
 * (time, level, `[module] message`, then the entry's other fields as JSON on the same line; an
 * error's stack on the lines below); `auto` is pretty when the destination is a terminal, else
 * JSON. Pretty lines are made safe for a terminal (escape sequences and control characters in
 * logged values — a daemon's reason, an agent's text — are neutralised as the CLI does it,
 * src/cli/sanitize.ts, whose rule {@link terminalSafe} repeats: the ground floor imports nothing) and
 * colored only on a terminal without NO_COLOR. Redaction applies before either format.
 *
 * The log is best-effort: a stderr that goes away (a closed pipe, `prospero serve 2>&1 | head`)
 * must never stop, crash or hang the gateway. The stderr destination is pino's asynchronous one
 * (a stalled reader does not block the event loop); its first write error turns it off, and
 * {@link closeLog} finishes it before the process exits, so pino's exit-time synchronous flush
 * has nothing left to write (sonic-boom's `flushSync` retries a broken pipe forever: issue 12
 * item 9).
 */
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from "pino";
import { prettyFactory } from "pino-pretty";
import ansiRegex from "ansi-regex";

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

/** Values of `--log-format`. */
export const LOG_FORMATS = ["auto", "json", "pretty"] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

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

/** ECMA-48 escape sequences, 7-bit and 8-bit (src/cli/sanitize.ts step 2). */
const SEQUENCE = ansiRegex();
/** C0 but TAB and LF, DEL, C1, bidi embedding/override/isolate (src/cli/sanitize.ts step 3). */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `value` (parsed JSON) with every string, keys included, safe for a terminal by the CLI's rule
 * (src/cli/sanitize.ts): escape sequences removed, other control characters shown as control
 * pictures (U+2400…) or U+FFFD; LF and TAB kept.
 */
function terminalSafe(value: unknown): unknown {
  if (typeof value === "string") {
    return value
      .replace(/\r\n/g, "\n")
      .replace(SEQUENCE, "")
      .replace(UNSAFE, (ch) => {
        const cp = ch.charCodeAt(0);
        return cp < 0x20 ? String.fromCharCode(0x2400 + cp) : cp === 0x7f ? "\u2421" : "\ufffd";
      });
  }
  if (Array.isArray(value)) return value.map(terminalSafe);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [terminalSafe(k), terminalSafe(v)]));
  }
  return value;
}

/**
 * A destination writing each JSON line of pino as a readable line (pino-pretty's formatter,
 * synchronously, into the same `target`: nothing is buffered apart from it, so the guarantees of
 * `target` — turned off at its first error, flushed by {@link closeLog} — are unchanged).
 * A line that is not JSON is written as it came.
 */
function prettyDestination(target: DestinationStream, colorize: boolean): DestinationStream {
  const format = prettyFactory({
    colorize,
    translateTime: "SYS:yyyy-mm-dd HH:MM:ss.l",
    ignore: "pid,hostname,app,module",
    singleLine: true,
    messageFormat: (log, messageKey) => {
      const module = typeof log.module === "string" ? `[${log.module}] ` : "";
      const msg = log[messageKey];
      // One line: a newline in a message would start a forged entry (shown as ␤, as the CLI does).
      const text = `${module}${typeof msg === "string" ? msg : msg === undefined ? "" : String(msg)}`;
      return text.replace(/\n/g, "\u2424").replace(/\t/g, " ");
    },
  });
  return {
    write(line: string) {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        return target.write(line);
      }
      return target.write(format(terminalSafe(entry)));
    },
  };
}

/** True when `dest` is a terminal (a tty.WriteStream, or an object saying so). */
function isTerminal(dest: unknown): boolean {
  return typeof dest === "object" && dest !== null && (dest as { isTTY?: unknown }).isTTY === true;
}

/**
 * Create the root logger writing to stderr (stdout stays free for CLI output).
 * @param level one of {@link LOG_LEVELS}
 * @param destination where the lines go (tests); default stderr, asynchronously, turned off at
 *   its first write error (EPIPE, EBADF, EIO …) instead of throwing into the process.
 * @param opts.format `json`, `pretty`, or `auto` (default): pretty when the destination is a
 *   terminal (stderr's `isTTY`; a given destination's `isTTY`), else JSON. Colors only on a
 *   terminal, and not with NO_COLOR set.
 */
export function createLogger(
  level: LevelWithSilent = "info",
  destination?: DestinationStream,
  opts: { format?: LogFormat } = {},
): Logger {
  const paths = REDACTED_LOG_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`]);
  const options = { level, base: { app: "prospero" }, redact: { paths, censor: "[redacted]" } };
  const format = opts.format ?? "auto";
  const terminal = isTerminal(destination ?? process.stderr);
  const pretty = format === "pretty" || (format === "auto" && terminal);
  const colorize = terminal && (process.env.NO_COLOR ?? "") === "";
  if (destination) return pino(options, pretty ? prettyDestination(destination, colorize) : destination);
  const dest = pino.destination({ dest: 2, sync: false });
  const state = { dest, off: false };
  // pino silences EPIPE itself but re-emits any other error, which would crash the process.
  dest.on("error", () => turnOff(state));
  // Pretty lines go into the same asynchronous destination (written, turned off and flushed as JSON is).
  const logger = pino(options, pretty ? prettyDestination(dest, colorize) : dest);
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
