/**
 * Per-agent endpoint I/O (caliband-protocol.md §3): reading the worker's `TurnEvent` NDJSON stream
 * and writing inbound `UserMessage`/`EndInput` frames. Connects retry with exponential backoff +
 * jitter while the endpoint is missing or refusing, because a just-spawned worker may bind after
 * the `spawned` reply (§1.7). Inbound frames go to the PER-AGENT endpoint, never the control socket
 * (§3.5, §9 #130).
 */
import type { Socket } from "node:net";

import { LineTooLong, Protocol, Unreachable, errnoOf } from "./errors.js";
import { DEFAULT_MAX_LINE_BYTES, readLineEntries } from "./ndjson.js";
import { describeEndpoint, openConnection, type Transport } from "./transport.js";
import {
  encodeInbound,
  parseFrame,
  type Endpoint,
  type InboundFrame,
  type ParseFrameResult,
} from "./wire.js";

/** Connect-retry tuning (ms). */
export interface ConnectRetryOptions {
  /** Total budget for all connect attempts in ms; default 10000. */
  connectDeadlineMs?: number;
  /** First backoff in ms; doubled per attempt; default 25. */
  initialBackoffMs?: number;
  /** Backoff cap in ms; default 250. Each sleep is the backoff × jitter in [0.5, 1). */
  maxBackoffMs?: number;
  /** Aborting stops retrying and rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** Default total connect budget for per-agent endpoints: 10000 ms. */
export const DEFAULT_CONNECT_DEADLINE_MS = 10_000;

/** Connect-phase errors worth retrying: not bound yet, nothing listening, reset by a (re)starting listener. */
const RETRYABLE = new Set(["ENOENT", "ECONNREFUSED", "ECONNRESET"]);

/**
 * Connect to a per-agent endpoint, retrying while it reports `ENOENT`/`ECONNREFUSED` (worker not
 * bound yet, §1.7) or a reset during the connect phase, until `connectDeadlineMs` is spent. Other
 * failures (TLS verification, timeouts) are not retried. A worker that already exited stays
 * unreachable until the budget is spent; its complete transcript is `<session_dir>/stdout.ndjson`.
 * @returns the ready socket and how many attempts it took.
 * @throws Unreachable (last error, or not accepting within the budget), `signal.reason` on abort.
 */
export async function connectWithRetry(
  endpoint: Endpoint,
  transport: Transport,
  options: ConnectRetryOptions = {},
): Promise<{ socket: Socket; attempts: number }> {
  const budget = options.connectDeadlineMs ?? DEFAULT_CONNECT_DEADLINE_MS;
  const initial = options.initialBackoffMs ?? 25;
  const cap = options.maxBackoffMs ?? 250;
  const signal = options.signal;
  const deadlineAt = Date.now() + budget;
  for (let attempt = 1; ; attempt++) {
    const remaining = deadlineAt - Date.now();
    try {
      const socket = await openConnection(endpoint, transport, {
        deadlineMs: Math.max(1, remaining),
        signal,
      });
      return { socket, attempts: attempt };
    } catch (err) {
      if (!(err instanceof Unreachable) || err.errno === undefined || !RETRYABLE.has(err.errno)) throw err;
      const left = deadlineAt - Date.now();
      if (left <= 0) {
        throw new Unreachable(
          err.endpoint,
          `not accepting connections after ${budget} ms (${attempt} attempts; last: ${err.reason})`,
          { errno: err.errno, cause: err },
        );
      }
      const backoff = Math.min(cap, initial * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      await sleep(Math.min(backoff, left), signal);
    }
  }
}

/** Options of {@link openAgentStream}. */
export interface AgentStreamOptions extends ConnectRetryOptions {
  /** Bound on one frame line in bytes; default 1 MiB. */
  maxLineBytes?: number;
}

/**
 * One non-blank line of a per-agent stream: `index` is its 0-based position among the non-blank
 * lines of THIS connection (replay included, §3.2), `line` the text (UTF-8 decoded), `bytes` the
 * line's exact bytes when they are not valid UTF-8 (null when `line` is exact; together they give
 * lossless storage), `parsed` the {@link parseFrame} result (unknown types / non-JSON are reported,
 * not thrown).
 */
export interface StreamLine {
  index: number;
  line: string;
  bytes: Buffer | null;
  /**
   * The line parsed as a frame: a getter, computed at its first read (once), so a reader that only
   * needs the line — the file-mode ingest's doorbell — never pays a JSON parse and validation per
   * frame (issue 17). Being a getter, it is not an own property: a spread or `JSON.stringify` of a
   * line leaves it out.
   */
  readonly parsed: ParseFrameResult;
}

/** A {@link StreamLine} whose `parsed` is computed when first read. */
class LazyStreamLine implements StreamLine {
  #frame: ParseFrameResult | undefined;
  constructor(
    readonly index: number,
    readonly line: string,
    readonly bytes: Buffer | null,
  ) {}
  get parsed(): ParseFrameResult {
    return (this.#frame ??= parseFrame(this.line));
  }
}

/**
 * Stream a per-agent endpoint (§3.1–3.3): connect (with {@link connectWithRetry}), then yield
 * every non-blank line — the worker's retained history first (≤ 1024 lines), then live frames —
 * until EOF (worker exited or hub dropped; a killed worker ends without `RunEnd`). Breaking out
 * of the loop or aborting `signal` closes the socket and releases everything.
 * @throws Unreachable when connecting fails or the connection errors (e.g. reset) mid-stream,
 *   Protocol when a line exceeds `maxLineBytes`, `signal.reason` when aborted.
 */
export async function* openAgentStream(
  endpoint: Endpoint,
  transport: Transport,
  options: AgentStreamOptions = {},
): AsyncGenerator<StreamLine, void, undefined> {
  const signal = options.signal;
  const where = describeEndpoint(endpoint, transport);
  const { socket } = await connectWithRetry(endpoint, transport, options);
  const onAbort = (): void => {
    socket.destroy();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let index = 0;
    for await (const { line, bytes } of readLineEntries(socket, {
      maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    })) {
      yield new LazyStreamLine(index, line, bytes);
      index++;
    }
    signal?.throwIfAborted();
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof LineTooLong) throw new Protocol(err.message, { endpoint: where, cause: err });
    throw new Unreachable(where, err instanceof Error ? err.message : String(err), {
      errno: errnoOf(err),
      cause: err,
    });
  } finally {
    signal?.removeEventListener("abort", onAbort);
    socket.destroy();
  }
}

/** Options of {@link sendInbound}. */
export interface SendInboundOptions {
  /** Total bound in ms on connect (with retry), write and drain; default 5000. */
  deadlineMs?: number;
  /**
   * How long (ms) to keep reading and discarding the worker's replay after our write was flushed
   * before closing, so no unread bytes turn our close into an RST that could truncate the frame
   * (§9 #77); default 250. Ends early when the worker closes.
   */
  lingerMs?: number;
  signal?: AbortSignal;
}

/**
 * Deliver one inbound frame (`UserMessage`/`EndInput`) to an interactive agent over its
 * PER-AGENT endpoint (§3.5, #130): open a fresh connection, write one line, flush, half-close,
 * drain and ignore the history replay for `lingerMs`, then close. Delivery is fire-and-forget:
 * the worker sends no acknowledgement, and non-interactive workers ignore the bytes.
 * @throws Unreachable when the endpoint cannot be reached or the write fails or times out,
 *   `signal.reason` when aborted.
 */
export async function sendInbound(
  endpoint: Endpoint,
  transport: Transport,
  frame: InboundFrame,
  options: SendInboundOptions = {},
): Promise<void> {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const lingerMs = options.lingerMs ?? 250;
  const where = describeEndpoint(endpoint, transport);
  const deadlineAt = Date.now() + deadlineMs;
  const { socket } = await connectWithRetry(endpoint, transport, {
    connectDeadlineMs: deadlineMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let flushed = false;
      let settled = false;
      let lingerTimer: NodeJS.Timeout | undefined;
      const settle = (err?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(lingerTimer);
        options.signal?.removeEventListener("abort", onAbort);
        if (err === undefined) resolve();
        else reject(err);
      };
      const timer = setTimeout(
        () => settle(new Unreachable(where, `timeout after ${deadlineMs} ms`, { errno: "ETIMEDOUT" })),
        Math.max(1, deadlineAt - Date.now()),
      );
      const onAbort = (): void => settle(options.signal?.reason ?? new Error("aborted"));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      socket.on("data", () => {
        /* drain: the replayed history is not ours to read (§3.5) */
      });
      socket.once("error", (err) => {
        // once flushed, a reset while lingering does not undo the delivered frame
        settle(
          flushed ? undefined : new Unreachable(where, err.message, { errno: errnoOf(err), cause: err }),
        );
      });
      socket.once("close", () => {
        settle(
          flushed ? undefined : new Unreachable(where, "connection closed before the frame was written"),
        );
      });
      socket.once("finish", () => {
        // our line and FIN are handed to the kernel; keep draining briefly (#77)
        flushed = true;
        lingerTimer = setTimeout(() => settle(), Math.min(lingerMs, Math.max(0, deadlineAt - Date.now())));
      });
      socket.end(`${encodeInbound(frame)}\n`);
    });
  } finally {
    socket.destroy();
  }
}

/** Sleep `ms`, rejecting with `signal.reason` if aborted first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
