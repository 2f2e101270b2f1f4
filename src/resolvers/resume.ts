/**
 * Resuming subscriptions (issue 13 item 8): where a subscription starts, and which SSE event id
 * each item it yields carries.
 *
 * - Start: after the request's `Last-Event-ID` header when there is one (what an SSE client sends
 *   when it reconnects: EventSource does it by itself), else after the `after` argument. The
 *   header wins because a client's automatic reconnect re-sends the original request, `after`
 *   included, while the header names the last event it really received.
 * - Event ids: an SSE operation's context is registered with {@link trackEventIds} by the gateway
 *   (src/server/sse-ids.ts) before its subscription starts; the subscription wraps its iterator in
 *   {@link withEventIds}, which queues each yielded item's id, and the gateway takes the ids off
 *   the queue ({@link takeEventId}) in the same order as it maps the execution results (one result
 *   per item), so even a consumer that asks for the next item before the previous result is
 *   written sees each result with its own item's id. Operations not registered (graphql-ws) pay
 *   nothing.
 */
import { GraphQLError } from "graphql";
import type { GraphQLContext } from "../schema/context.js";
import { decodeCursor } from "../schema/events.js";

/**
 * The cursor a subscription resumes after: the `Last-Event-ID` header of an SSE request when
 * present and not empty, else the `after` argument; null for "from the start".
 * @throws GraphQLError BAD_USER_INPUT when the header is not a cursor this gateway issued.
 */
export function resumeCursor(ctx: GraphQLContext, after: string | null | undefined): string | null {
  const header = ctx.lastEventId;
  if (header != null && header !== "") {
    try {
      decodeCursor(header);
    } catch {
      throw new GraphQLError(
        "invalid Last-Event-ID header: not an event id (cursor) this gateway sent; reconnect without it, or with the `after` argument",
        { extensions: { code: "BAD_USER_INPUT" } },
      );
    }
    return header;
  }
  return after ?? null;
}

/**
 * The position `cursor` names in stream order (`seq`, agent streams) or commit order (`globalId`,
 * workspace and fleet-wide streams); 0 for null.
 * @throws GraphQLError BAD_USER_INPUT for a cursor this gateway did not issue (also one whose
 *   position is not a safe integer), or one of another stream than `streamKey` when given.
 */
export function positionOf(cursor: string | null, order: "seq" | "globalId", streamKey?: string): number {
  if (cursor === null) return 0;
  const decoded = decodeCursor(cursor);
  // In stream order a cursor is a position only in its own stream (another's would skip events).
  if (streamKey !== undefined && decoded.streamKey !== streamKey) {
    throw new GraphQLError("invalid cursor: it is a cursor of another stream", {
      extensions: { code: "BAD_USER_INPUT" },
    });
  }
  const n = decoded[order];
  if (!Number.isSafeInteger(n)) {
    throw new GraphQLError("invalid cursor", { extensions: { code: "BAD_USER_INPUT" } });
  }
  return n;
}

/** Ids of yielded items not yet matched with their execution result, per registered operation. */
const queues = new WeakMap<object, (string | null)[]>();

/** Register an operation's context: the items its subscription yields get SSE event ids. */
export function trackEventIds(ctx: object): void {
  if (!queues.has(ctx)) queues.set(ctx, []);
}

/**
 * The SSE event id of the oldest yielded item whose result has not been taken yet (null: that
 * item has none, or nothing is queued).
 */
export function takeEventId(ctx: object): string | null {
  return queues.get(ctx)?.shift() ?? null;
}

/**
 * `source`, queueing `idOf(item)` for every item it yields when `ctx` is registered
 * ({@link trackEventIds}); `source` itself otherwise. `idOf` answers null for an item without
 * an id (a GapEvent, an event that could not be stored).
 */
export function withEventIds<T>(
  ctx: object,
  source: AsyncIterableIterator<T>,
  idOf: (item: T) => string | null,
): AsyncIterableIterator<T> {
  const queue = queues.get(ctx);
  return queue === undefined ? source : new EventIdQueueing(source, queue, idOf);
}

/** The iterator of {@link withEventIds} (prototype methods: no closure per subscriber). */
class EventIdQueueing<T> implements AsyncIterableIterator<T> {
  constructor(
    private readonly source: AsyncIterableIterator<T>,
    private readonly queue: (string | null)[],
    private readonly idOf: (item: T) => string | null,
  ) {}

  next(): Promise<IteratorResult<T>> {
    return this.source.next().then((r) => this.onItem(r));
  }

  return(): Promise<IteratorResult<T>> {
    return this.source.return ? this.source.return() : Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private onItem(r: IteratorResult<T>): IteratorResult<T> {
    if (!r.done) this.queue.push(this.idOf(r.value));
    return r;
  }
}
