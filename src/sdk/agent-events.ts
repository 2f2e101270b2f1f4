/**
 * Event streams that survive dropped connections — one agent's (`agentEvents`), a workspace's
 * (`workspaceEvents`) and the fleet's (`fleetEvents`): history after a cursor, then live,
 * re-subscribed after the last delivered cursor whenever the connection drops, so a reconnect
 * neither repeats nor skips a stored event (the gateway replays strictly after the cursor it is
 * given). An agent's events are also de-duplicated by `seq` (strictly increasing per agent
 * stream), in case a transport re-sends an old subscription; the wider streams are in commit order,
 * where `seq` (a position in each event's own stream) does not order them.
 */
import type {
  AgentEventsSubscription,
  FleetEventsSubscription,
  WorkspaceEventsSubscription,
} from "./generated/graphql.js";
import type { GraphQLRequestError, NetworkError } from "./errors.js";
import type { RetryOptions, SubscriptionHandlers } from "./subscriptions.js";

/** Any item of `agentEvents`, GapEvent included. */
export type AgentStreamItem = AgentEventsSubscription["agentEvents"];

/** A stored event of an agent's stream (everything but the GapEvent signal). */
export type AgentEvent = Exclude<AgentStreamItem, { __typename: "GapEvent" }>;

/** The subscriber fell behind; the missed events follow, refilled from the store. */
export type GapEvent = Extract<AgentStreamItem, { __typename: "GapEvent" }>;

/** Any item of `workspaceEvents` or `fleetEvents` (the same selection as an agent's), GapEvent included. */
export type StreamItem =
  WorkspaceEventsSubscription["workspaceEvents"] | FleetEventsSubscription["fleetEvents"];

/** A stored event of a workspace's or the fleet's stream. */
export type StreamEvent = Exclude<StreamItem, { __typename: "GapEvent" }>;

/** Options of a followed event stream (`agentEvents`, `workspaceEvents`, `fleetEvents`). */
export interface EventStreamOptions<TEvent = AgentEvent> {
  /** Cursor of the last event already seen (from an event's `cursor`); default: from the start. */
  after?: string | null;
  /** Each event, once, in stream order. A throw stops the stream and rejects the promise. */
  onEvent: (event: TEvent) => void;
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

/** Options of `agentEvents`. */
export type AgentEventsOptions = EventStreamOptions<AgentEvent>;

/** How a followed event stream ended. */
export interface EventStreamResult {
  /** True when the server completed the stream (for `agentEvents`: the agent reached a terminal state). */
  completed: boolean;
  /** Cursor of the last delivered event (pass as `after` to continue), or the initial `after`. */
  lastCursor: string | null;
  /** `seq` of the last delivered event (a position in that event's own stream), or null when none was delivered. */
  lastSeq: number | null;
  /** Events delivered to `onEvent`. */
  delivered: number;
}

/** How an `agentEvents` stream ended. */
export type AgentEventsResult = EventStreamResult;

/** The generic subscribe primitive the stream is built on (the SDK client's `subscribe`). */
export type SubscribeFn = (
  variables: () => { agentId: string; after: string | null },
  handlers: SubscriptionHandlers<AgentEventsSubscription>,
  retry: RetryOptions | false | undefined,
) => () => void;

/**
 * A subscribe primitive for any event stream: subscribes with `after()` (called before every
 * (re)subscribe) as the `after` variable.
 */
export type StreamSubscribeFn<TData> = (
  after: () => string | null,
  handlers: SubscriptionHandlers<TData>,
  retry: RetryOptions | false | undefined,
) => () => void;

/** The fields of a stream item the follower reads. */
interface FollowedItem {
  __typename: string;
  seq: number;
  cursor: string;
}

/**
 * Follow an event stream (see the module comment) until the server completes it (resolves
 * `completed: true`), the signal aborts (resolves `completed: false`), or it fails.
 * @param pick the stream's item in a result's data.
 * @param order "stream" (one agent: de-duplicated by `seq`) or "commit" (workspace, fleet).
 * @throws (rejects) GraphQLRequestError — e.g. an unknown agent or workspace (extensions.code
 *   NOT_FOUND) or an invalid cursor (BAD_USER_INPUT); NetworkError — the connection could not be
 *   re-established; whatever `onEvent`/`onGap` threw.
 */
export function followEventStream<TData, TItem extends FollowedItem>(
  subscribe: StreamSubscribeFn<TData>,
  pick: (data: TData) => TItem,
  opts: EventStreamOptions<Exclude<TItem, { __typename: "GapEvent" }>>,
  order: "stream" | "commit",
): Promise<EventStreamResult> {
  return new Promise<EventStreamResult>((resolve, reject) => {
    const state: EventStreamResult = {
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
      () => state.lastCursor,
      {
        onNext: (data) => {
          if (done) return;
          const item = pick(data);
          try {
            if (item.__typename === "GapEvent") {
              // Every stream selects the same fields (TimelineEvent): its GapEvent is this type.
              opts.onGap?.(item as unknown as GapEvent);
              return;
            }
            if (order === "stream" && state.lastSeq !== null && item.seq <= state.lastSeq) return;
            state.lastSeq = item.seq;
            state.lastCursor = item.cursor;
            state.delivered++;
            opts.onEvent(item as Exclude<TItem, { __typename: "GapEvent" }>);
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
  return followEventStream<AgentEventsSubscription, AgentStreamItem>(
    (after, handlers, retry) => subscribe(() => ({ agentId, after: after() }), handlers, retry),
    (data) => data.agentEvents,
    opts,
    "stream",
  );
}
