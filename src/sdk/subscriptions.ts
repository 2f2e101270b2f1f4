/**
 * Subscriptions over graphql-ws with the SDK's own reconnect policy. graphql-ws would re-send a
 * dropped subscription with its original variables; we re-subscribe ourselves instead, asking for
 * fresh variables each time, so a stream can resume after the last cursor it delivered.
 *
 * Failures are classified: GraphQL errors and protocol-level refusals (close codes 4400–4499
 * except 4408/4499, 4500, other non-retryable codes) are final; a dropped or refused connection
 * (close 1000/1001/1005/1006/1012–1014, 4408, 4499, 4504, socket errors) is retried with a
 * randomized exponential backoff until `attempts` consecutive failures. Any delivered item or
 * successful connection resets the count.
 */
import { createClient, type Client, type FormattedExecutionResult } from "graphql-ws";
import { z } from "zod";
import {
  GraphQLErrorItemSchema,
  GraphQLRequestError,
  NetworkError,
  describeNetworkFailure,
} from "./errors.js";

/** Reconnect policy of a subscription. */
export interface RetryOptions {
  /** Consecutive failed attempts before giving up (default 8; 0 = never retry). */
  attempts?: number;
  /** First backoff delay, ms (default 250); doubles per attempt, with jitter. */
  minDelayMs?: number;
  /** Largest backoff delay, ms (default 5000). */
  maxDelayMs?: number;
}

/** Callbacks of a subscription. */
export interface SubscriptionHandlers<TResult> {
  /** One result (`data` of a `next` message). */
  onNext: (data: TResult) => void;
  /** A final failure: GraphQLRequestError (the server refused or failed it) or NetworkError (gave up reconnecting). */
  onError?: (error: GraphQLRequestError | NetworkError) => void;
  /** The server completed the subscription. */
  onComplete?: () => void;
  /** The connection dropped; a new attempt (1-based) follows after `delayMs`. */
  onReconnect?: (info: { attempt: number; delayMs: number; error: NetworkError }) => void;
}

/** A graphql-ws client plus the hooks the retry loop needs. */
export interface WsConnection {
  client: Client;
  /** The ws(s) endpoint, for error messages. */
  endpoint: string;
}

/** What one subscription needs from the SDK client. */
export interface SubscribeRequest<TResult, TVariables> {
  /** Operation source text. */
  query: string;
  /** Variables, or a function called before every (re)subscribe. */
  variables: TVariables | (() => TVariables);
  /** Opens (lazily) the shared graphql-ws client; throws once the SDK client is disposed. */
  connection: () => WsConnection;
  retry?: RetryOptions | false;
  handlers: SubscriptionHandlers<TResult>;
}

/** Defaults of {@link RetryOptions}. */
export const DEFAULT_RETRY: Required<RetryOptions> = { attempts: 8, minDelayMs: 250, maxDelayMs: 5000 };

const RETRYABLE_CLOSE_CODES: ReadonlySet<number> = new Set([
  1000, 1001, 1005, 1006, 1012, 1013, 1014, 4408, 4499, 4504,
]);

const ErrorArray = z.array(GraphQLErrorItemSchema).min(1);

/** A failure of a subscription attempt, and whether trying again makes sense. */
export interface ClassifiedFailure {
  retryable: boolean;
  error: GraphQLRequestError | NetworkError;
}

/** Classify what graphql-ws hands to `sink.error` (see the module comment). */
export function classifySubscriptionFailure(endpoint: string, failure: unknown): ClassifiedFailure {
  const errors = ErrorArray.safeParse(failure);
  if (errors.success) return { retryable: false, error: new GraphQLRequestError(errors.data) };
  if (failure instanceof GraphQLRequestError || failure instanceof NetworkError) {
    return { retryable: false, error: failure };
  }
  const close = failure as { code?: unknown; reason?: unknown } | null;
  if (close !== null && typeof close === "object" && typeof close.code === "number" && "reason" in close) {
    const reason = typeof close.reason === "string" && close.reason !== "" ? `: ${close.reason}` : "";
    return {
      retryable: RETRYABLE_CLOSE_CODES.has(close.code),
      error: new NetworkError(endpoint, `WebSocket closed ${close.code}${reason}`, {
        closeCode: close.code,
        cause: failure,
      }),
    };
  }
  return {
    retryable: true,
    error: new NetworkError(endpoint, describeNetworkFailure(failure), { cause: failure }),
  };
}

/** Backoff before attempt `attempt` (1-based): min·2^(attempt−1), capped, with ±25 % jitter. */
export function backoffMs(attempt: number, policy: Required<RetryOptions>): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/**
 * Start a subscription that reconnects on dropped connections (see the module comment).
 * @returns a function that stops it (no further callbacks); idempotent.
 */
export function subscribeWithRetry<TResult, TVariables>(
  req: SubscribeRequest<TResult, TVariables>,
): () => void {
  const policy = req.retry === false ? { ...DEFAULT_RETRY, attempts: 0 } : { ...DEFAULT_RETRY, ...req.retry };
  const { handlers } = req;
  let stopped = false;
  let failures = 0;
  let cancelAttempt: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let offConnected: (() => void) | null = null;

  const finish = () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    offConnected?.();
    offConnected = null;
    const cancel = cancelAttempt;
    cancelAttempt = null;
    cancel?.();
  };

  const fail = (error: GraphQLRequestError | NetworkError) => {
    if (stopped) return;
    finish();
    handlers.onError?.(error);
  };

  const attempt = () => {
    if (stopped) return;
    let conn: WsConnection;
    try {
      conn = req.connection();
    } catch (err) {
      fail(
        err instanceof NetworkError
          ? err
          : new NetworkError("(disposed client)", describeNetworkFailure(err)),
      );
      return;
    }
    offConnected ??= conn.client.on("connected", () => {
      failures = 0;
    });
    const variables =
      typeof req.variables === "function" ? (req.variables as () => TVariables)() : req.variables;
    let settled = false;
    cancelAttempt = conn.client.subscribe<TResult>(
      { query: req.query, variables: variables as Record<string, unknown> },
      {
        next: (value: FormattedExecutionResult<TResult>) => {
          if (stopped || settled) return;
          if (value.errors?.length) {
            settled = true;
            fail(new GraphQLRequestError(ErrorArray.safeParse(value.errors).data ?? [], value.data ?? null));
            return;
          }
          failures = 0;
          if (value.data != null) handlers.onNext(value.data);
        },
        error: (err: unknown) => {
          if (stopped || settled) return;
          settled = true;
          cancelAttempt = null;
          const c = classifySubscriptionFailure(conn.endpoint, err);
          if (!c.retryable || !(c.error instanceof NetworkError) || failures >= policy.attempts) {
            fail(c.error);
            return;
          }
          failures++;
          const delayMs = backoffMs(failures, policy);
          handlers.onReconnect?.({ attempt: failures, delayMs, error: c.error });
          timer = setTimeout(() => {
            timer = null;
            attempt();
          }, delayMs);
        },
        complete: () => {
          if (stopped || settled) return;
          settled = true;
          finish();
          handlers.onComplete?.();
        },
      },
    );
  };

  attempt();
  return () => {
    if (!stopped) finish();
  };
}

/** Options of {@link openWsClient}. */
export interface WsClientOptions {
  /** ws(s) URL of the GraphQL endpoint. */
  endpoint: string;
  /** Payload of `connection_init` (e.g. an auth token), or a function giving it per connection. */
  connectionParams?:
    Record<string, unknown> | (() => Record<string, unknown> | Promise<Record<string, unknown>>) | undefined;
  /** WebSocket constructor (browser `WebSocket`, or `ws` on Node). */
  webSocketImpl: unknown;
  /** Send a ping after this much quiet, ms (0 = never; default 10000). */
  keepAliveMs?: number;
  /** Drop the connection when a ping gets no pong within this, ms (default 5000). */
  pongTimeoutMs?: number;
}

/**
 * A lazy graphql-ws client (connects on the first subscription, closes when none is left) that
 * never retries by itself — {@link subscribeWithRetry} does — and drops connections whose pings
 * go unanswered.
 */
export function openWsClient(opts: WsClientOptions): WsConnection {
  const keepAlive = opts.keepAliveMs ?? 10_000;
  const pongTimeoutMs = opts.pongTimeoutMs ?? 5_000;
  let pongTimer: ReturnType<typeof setTimeout> | null = null;
  const clearPong = () => {
    if (pongTimer !== null) clearTimeout(pongTimer);
    pongTimer = null;
  };
  const client: Client = createClient({
    url: opts.endpoint,
    ...(opts.connectionParams !== undefined ? { connectionParams: opts.connectionParams } : {}),
    webSocketImpl: opts.webSocketImpl,
    lazy: true,
    retryAttempts: 0,
    keepAlive,
    on: {
      ping: (received) => {
        if (received || keepAlive <= 0) return;
        clearPong();
        pongTimer = setTimeout(() => client.terminate(), pongTimeoutMs);
        pongTimer.unref?.();
      },
      pong: (received) => {
        if (received) clearPong();
      },
      closed: clearPong,
    },
  });
  return { client, endpoint: opts.endpoint };
}
