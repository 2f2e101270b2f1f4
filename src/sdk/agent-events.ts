/**
 * An agent's event stream that survives dropped connections: history after a cursor, then live,
 * re-subscribed after the last delivered cursor whenever the connection drops, so a reconnect
 * neither repeats nor skips an event. Events are also de-duplicated by `seq` (strictly increasing
 * per agent stream), in case a transport re-sends an old subscription.
 */
import type { AgentEventsSubscription } from "./generated/graphql.js";
import type { GraphQLRequestError, NetworkError } from "./errors.js";
import type { RetryOptions, SubscriptionHandlers } from "./subscriptions.js";

/** Any item of `agentEvents`, Gap included. */
export type AgentStreamItem = AgentEventsSubscription["agentEvents"];

/** A stored event of an agent's stream (everything but the Gap signal). */
export type AgentEvent = Exclude<AgentStreamItem, { __typename: "Gap" }>;

/** The subscriber fell behind; the missed events follow, refilled from the store. */
export type GapEvent = Extract<AgentStreamItem, { __typename: "Gap" }>;

/** Options of `agentEvents`. */
export interface AgentEventsOptions {
  /** Cursor of the last event already seen (from an event's `cursor`); default: from the start. */
  after?: string | null;
  /** Each event, once, in `seq` order. A throw stops the stream and rejects the promise. */
  onEvent: (event: AgentEvent) => void;
  /** The server signalled that this subscriber fell behind (the refill follows as events). */
  onGap?: (gap: GapEvent) => void;
  /** The connection dropped; the stream resumes after `lastCursor` once reconnected. */
  onReconnect?: (info: {
    attempt: number;
    delayMs: number;
    error: NetworkError;
    lastCursor: string | null;
  }) => void;
  /** Stop following: the promise resolves with `completed: false`. */
  signal?: AbortSignal;
  /** Reconnect policy (default: 8 consecutive attempts, 250 ms → 5 s backoff); false = never. */
  retry?: RetryOptions | false;
}

/** How an `agentEvents` stream ended. */
export interface AgentEventsResult {
  /** True when the server completed the stream (the agent reached a terminal state). */
  completed: boolean;
  /** Cursor of the last delivered event (pass as `after` to continue), or the initial `after`. */
  lastCursor: string | null;
  /** `seq` of the last delivered event, or null when none was delivered. */
  lastSeq: number | null;
  /** Events delivered to `onEvent`. */
  delivered: number;
}

/** The generic subscribe primitive the stream is built on (the SDK client's `subscribe`). */
export type SubscribeFn = (
  variables: () => { agentId: string; after: string | null },
  handlers: SubscriptionHandlers<AgentEventsSubscription>,
  retry: RetryOptions | false | undefined,
) => () => void;

/**
 * Follow one agent's events until the stream completes (resolves `completed: true`), the signal
 * aborts (resolves `completed: false`), or it fails.
 * @throws (rejects) GraphQLRequestError — e.g. `agent not found` (extensions.code NOT_FOUND) or an
 *   invalid cursor (BAD_USER_INPUT); NetworkError — the connection could not be re-established;
 *   whatever `onEvent`/`onGap` threw.
 */
export function followAgentEvents(
  subscribe: SubscribeFn,
  agentId: string,
  opts: AgentEventsOptions,
): Promise<AgentEventsResult> {
  return new Promise<AgentEventsResult>((resolve, reject) => {
    const state: AgentEventsResult = {
      completed: false,
      lastCursor: opts.after ?? null,
      lastSeq: null,
      delivered: 0,
    };
    let done = false;
    let stop: (() => void) | null = null;
    const end = (outcome: { ok: true; completed: boolean } | { ok: false; error: unknown }) => {
      if (done) return;
      done = true;
      opts.signal?.removeEventListener("abort", onAbort);
      stop?.();
      if (outcome.ok) resolve({ ...state, completed: outcome.completed });
      else reject(outcome.error);
    };
    const onAbort = () => end({ ok: true, completed: false });
    if (opts.signal?.aborted) {
      resolve({ ...state });
      return;
    }
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    stop = subscribe(
      () => ({ agentId, after: state.lastCursor }),
      {
        onNext: (data) => {
          if (done) return;
          const item = data.agentEvents;
          try {
            if (item.__typename === "Gap") {
              opts.onGap?.(item);
              return;
            }
            if (state.lastSeq !== null && item.seq <= state.lastSeq) return;
            state.lastSeq = item.seq;
            state.lastCursor = item.cursor;
            state.delivered++;
            opts.onEvent(item);
          } catch (err) {
            end({ ok: false, error: err });
          }
        },
        onError: (error: GraphQLRequestError | NetworkError) => end({ ok: false, error }),
        onComplete: () => end({ ok: true, completed: true }),
        onReconnect: (info) => opts.onReconnect?.({ ...info, lastCursor: state.lastCursor }),
      },
      opts.retry,
    );
    if (done) stop();
  });
}
