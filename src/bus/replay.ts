/**
 * The one subscription primitive (ARCHITECTURE decision 6): replay committed events from the
 * store after a cursor, then tail the bus, with no gap and no duplicate at the seam.
 *
 * Algorithm ({@link replayThenTail}):
 * 1. Subscribe to the bus FIRST (synchronously, when the iterator is created), so every event
 *    committed after the store read's snapshot is buffered live.
 * 2. Page through the store after the cursor until a short page shows it is exhausted.
 * 3. Drain the live buffer, dropping every event at or below the last delivered position (`seq`
 *    for a stream, `globalId` for the global scope). Live-only events (`globalId === null`,
 *    published when an append failed) carry no durable position: they are delivered as they come,
 *    never deduplicated, and do not move the cursor.
 * 4. If the bus subscription overflows while live, yield `{ type: "gap" }` and go back to 2 from
 *    the last delivered position. An overflow that happened while still replaying (the seam not yet
 *    crossed) is absorbed silently by reading the store once more: the consumer missed nothing.
 *    Holes in `seq` inside the store are normal and never produce a gap item. (If store reads are
 *    persistently slower than the live buffer fills, every short page finds it overflowed again and
 *    the iterator keeps paging the store — polling, still exact — until traffic lets it go live.)
 * 5. Complete right after yielding an event for which `completeOn(e)` is true.
 *
 * The iterator protocol is implemented directly (no async generator), so `return()` resolves a
 * parked `next()` at once and releases the bus subscription synchronously, even while a store read
 * is in flight (its result is discarded when it arrives).
 */
import type { FleetEvent } from "../events/index.js";
import type { BusItem, BusSubscription, EventBus } from "./bus.js";

/**
 * Read access to committed events, implemented by the store. Both methods return events in
 * ascending position order, strictly after the cursor, at most `limit` of them — and FEWER than
 * `limit` only when no more matching events exist at the time of the read (a short page means
 * "exhausted"; {@link replayThenTail} relies on it to find the seam).
 */
export interface EventReader {
  /**
   * Events of one stream with `seq > afterSeq`, ascending by `seq`.
   * @param streamKey agent id, `workspace:<name>` or `fleet`.
   * @param afterSeq cursor (0 = from the beginning).
   * @param limit page size (integer ≥ 1).
   */
  readStream(streamKey: string, afterSeq: number, limit: number): Promise<FleetEvent[]>;
  /**
   * Events of every stream with `globalId > afterGlobalId` that match `filter` (all when absent),
   * ascending by `globalId`; `limit` counts returned (matching) events.
   * @param afterGlobalId cursor (0 = from the beginning).
   * @param limit page size (integer ≥ 1).
   */
  readGlobal(
    afterGlobalId: number,
    limit: number,
    filter?: (e: FleetEvent) => boolean,
  ): Promise<FleetEvent[]>;
}

/**
 * What to follow: one stream (cursor = `seq`) or every stream, filtered (cursor = `globalId`).
 * The global filter runs both on the bus (synchronously inside `publish`) and in the store read.
 */
export type ReplayScope = (
  { kind: "stream"; streamKey: string } | { kind: "global"; filter: (e: FleetEvent) => boolean }
) & {
  /**
   * Every event of the scope belongs to this agent: the live tail is offered only its events
   * (the bus index of `SubscribeOptions.agentId`, ./bus.ts); the stream key or filter still decides.
   */
  agentId?: string;
};

/** Options of {@link replayThenTail}. */
export interface ReplayOptions {
  /** Bus carrying committed events. */
  bus: EventBus;
  /** Store read access. */
  reader: EventReader;
  /** Stream or global scope. */
  scope: ReplayScope;
  /** Cursor: `seq` (stream scope) or `globalId` (global scope) of the last event already seen; 0 = from the beginning. */
  after: number;
  /** Events per store read (integer ≥ 1; default 500). */
  pageSize?: number;
  /** Complete right after yielding an event for which this is true (e.g. `isTerminalEvent`). */
  completeOn?: (e: FleetEvent) => boolean;
  /** Live buffer of the bus subscription (default the bus default, 1024). */
  bufferSize?: number;
}

/**
 * One item of a replay-then-tail iteration:
 * - `event`: the next event (stream order by `seq`, global order by `globalId`);
 * - `gap`: the consumer fell behind the live tail; the events after `afterPosition` are refilled
 *   from the store next (live-only events published meanwhile may be lost).
 */
export type TailItem =
  { type: "event"; event: FleetEvent } | { type: "gap"; afterPosition: number; reason: string };

/** `reason` of the gap item yielded when the live buffer overflowed. */
export const GAP_FELL_BEHIND = "subscriber fell behind";

/** Default `pageSize` of {@link replayThenTail}. */
export const DEFAULT_PAGE_SIZE = 500;

/** The iterator returned by {@link replayThenTail}. */
export interface TailIterator extends AsyncIterableIterator<TailItem, undefined> {
  /**
   * Next item; calls are served in order even when issued concurrently.
   * @throws (rejects) the store read's error, a `SubscriberFilterError` from the bus, or what
   *   `completeOn` threw; the iterator is finished (and released) afterwards.
   */
  next(): Promise<IteratorResult<TailItem, undefined>>;
  /** Same as {@link TailIterator.close}; resolves `{ done: true }`. Never rejects. */
  return(): Promise<IteratorResult<TailItem, undefined>>;
  /**
   * Stop now: release the bus subscription synchronously, resolve pending `next()` calls with
   * `{ done: true }`, and ignore the result of any store read in flight. Idempotent.
   */
  close(): void;
  /** Last delivered position (`seq` or `globalId`); starts at `after`. */
  readonly position: number;
  /** `replay` while reading the store, `live` while tailing the bus, `done` once finished. */
  readonly phase: "replay" | "live" | "done";
  /** Live events currently buffered in the bus subscription. */
  readonly buffered: number;
}

/**
 * Replay from the store after `opts.after`, then tail the bus (see the module comment).
 * Subscribes to the bus before returning.
 * @throws RangeError when `after` is not an integer ≥ 0 or `pageSize`/`bufferSize` not an integer ≥ 1.
 */
export function replayThenTail(opts: ReplayOptions): TailIterator {
  return new ReplayTail(opts);
}

type Result = IteratorResult<TailItem, undefined>;
type Waiter = { resolve: (r: Result) => void; reject: (err: unknown) => void };
const DONE: Result = Object.freeze({ done: true, value: undefined });

class ReplayTail implements TailIterator {
  private readonly sub: BusSubscription;
  private readonly reader: EventReader;
  private readonly scope: ReplayScope;
  private readonly pageSize: number;
  private readonly completeOn: (e: FleetEvent) => boolean;
  private last: number;
  private mode: "replay" | "live" = "replay";
  private page: FleetEvent[] = [];
  private pageIdx = 0;
  /** Store reads so far (all but the first yield to the event loop first). */
  private pagesRead = 0;
  private finished = false;
  /**
   * Callers of `next()` not answered yet, in call order; `queue[0]` is the one being served.
   * close() answers them all DONE at once, without waiting for a store read or the bus.
   */
  private readonly queue: Waiter[] = [];
  /** True while `pump()` owns the queue (serving it, or waiting for a store page or the bus). */
  private running = false;

  constructor(opts: ReplayOptions) {
    const { after, pageSize = DEFAULT_PAGE_SIZE } = opts;
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new RangeError(`after must be an integer >= 0, got ${String(after)}`);
    }
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`pageSize must be an integer >= 1, got ${String(pageSize)}`);
    }
    this.reader = opts.reader;
    this.scope = opts.scope;
    this.pageSize = pageSize;
    this.completeOn = opts.completeOn ?? (() => false);
    this.last = after;
    const scope = opts.scope;
    const filter =
      scope.kind === "stream" ? (e: FleetEvent) => e.streamKey === scope.streamKey : scope.filter;
    // Step 1: subscribe before any store read.
    this.sub = opts.bus.subscribe(filter, {
      ...(opts.bufferSize === undefined ? {} : { bufferSize: opts.bufferSize }),
      ...(scope.agentId ? { agentId: scope.agentId } : {}),
    });
  }

  get position(): number {
    return this.last;
  }

  get phase(): "replay" | "live" | "done" {
    return this.finished ? "done" : this.mode;
  }

  get buffered(): number {
    return this.sub.buffered;
  }

  next(): Promise<Result> {
    if (this.finished) return Promise.resolve(DONE);
    if (!this.running && this.queue.length === 0) {
      // Fast path: the rest of a page or a buffered live event answers without waiting.
      let r: Result | null;
      try {
        r = this.stepSync();
      } catch (err) {
        this.finish();
        return Promise.reject(err);
      }
      if (r) return Promise.resolve(r);
    }
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ resolve, reject });
      if (!this.running) this.pump();
    });
  }

  return(): Promise<Result> {
    this.close();
    return Promise.resolve(DONE);
  }

  close(): void {
    this.finish();
    const waiters = this.queue.splice(0);
    for (const w of waiters) w.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Mark finished and release the bus subscription and the current page. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.sub.close();
    this.page = [];
    this.pageIdx = 0;
  }

  /**
   * Answer queued `next()` calls in order: synchronously while items are at hand, otherwise wait
   * for one store page (replay) or one bus item (live) and continue from there. A waiting
   * iterator holds one pending promise chain, not one per layer.
   */
  private pump(): void {
    this.running = true;
    while (this.queue.length > 0) {
      if (this.finished) {
        this.close();
        break;
      }
      let r: Result | null;
      try {
        r = this.stepSync();
      } catch (err) {
        this.fail(err);
        continue;
      }
      if (r) {
        this.queue.shift()?.resolve(r);
        continue;
      }
      // Inline arrows, not per-instance fields: a waiting iterator holds them only while it waits
      // (and tsx's keepNames gives every named closure its own property dictionary).
      if (this.mode === "replay") {
        this.readPage().then(
          () => this.pump(),
          (err: unknown) => this.onError(err),
        );
      } else {
        this.sub.next().then(
          (b) => this.onLive(b),
          (err: unknown) => this.onError(err),
        );
      }
      return;
    }
    this.running = false;
  }

  /** The bus answered a live wait of {@link pump}: deliver to `queue[0]` (unless a duplicate), go on. */
  private onLive(b: IteratorResult<BusItem, undefined>): void {
    let r: Result | null;
    try {
      r = this.handleLive(b);
    } catch (err) {
      this.onError(err); // completeOn threw
      return;
    }
    if (r) this.queue.shift()?.resolve(r); // (queue empty: close() answered it already)
    this.pump();
  }

  /** A wait of {@link pump} failed: reject the caller being served, then go on. */
  private onError(err: unknown): void {
    this.fail(err);
    this.pump();
  }

  /** Reject the caller being served with `err` and finish (DONE instead when already closed). */
  private fail(err: unknown): void {
    const w = this.queue.shift();
    if (this.finished) {
      w?.resolve(DONE); // closed meanwhile: a late failure is nobody's business
      return;
    }
    this.finish();
    w?.reject(err);
  }

  /**
   * Advance without waiting: serve the current page, then (live) the bus's buffered items.
   * @returns the next result, or null when a store read or a wait on the bus is needed.
   * @throws what `completeOn` or the bus subscription (a throwing filter) threw.
   */
  private stepSync(): Result | null {
    for (;;) {
      if (this.finished) return DONE;
      if (this.pageIdx < this.page.length) {
        const out = this.offer(this.page[this.pageIdx++] as FleetEvent);
        if (out) return out;
        continue;
      }
      if (this.page.length > 0) {
        this.page = [];
        this.pageIdx = 0;
      }
      if (this.mode === "replay") return null;
      const r = this.sub.take();
      if (r === null) return null;
      const out = this.handleLive(r);
      if (out) return out;
    }
  }

  /** Read the next store page into `page`; a short page without overflow crosses the seam. */
  private async readPage(): Promise<void> {
    const page = await this.read(this.last);
    if (this.finished) return;
    // A short page means the store is exhausted as of this read: everything newer is in the
    // live buffer — unless it overflowed meanwhile, in which case read the store once more
    // (silently: nothing was delivered live yet, so the consumer has not fallen behind).
    if (page.length < this.pageSize && this.sub.takeOverflow() === 0) this.mode = "live";
    this.page = page;
    this.pageIdx = 0;
  }

  /** One item from the bus while live: the result to deliver, or null for a duplicate. */
  private handleLive(r: IteratorResult<BusItem, undefined>): Result | null {
    if (this.finished) return DONE;
    if (r.done) {
      this.finish(); // the bus was closed
      return DONE;
    }
    const item = r.value;
    if (item.type === "overflow") {
      this.mode = "replay";
      return { done: false, value: { type: "gap", afterPosition: this.last, reason: GAP_FELL_BEHIND } };
    }
    return this.offer(item.event);
  }

  /** Deliver `e` unless it is at or below the cursor; advance the cursor; apply `completeOn`. */
  private offer(e: FleetEvent): Result | null {
    const pos = this.positionOf(e);
    if (pos !== null) {
      if (pos <= this.last) return null;
      this.last = pos;
    }
    if (this.completeOn(e)) this.finish();
    return { done: false, value: { type: "event", event: e } };
  }

  /** Durable position of `e` in this scope, or null for a live-only event. */
  private positionOf(e: FleetEvent): number | null {
    if (e.globalId === null) return null;
    return this.scope.kind === "stream" ? e.seq : e.globalId;
  }

  /**
   * One store page after `after`. After close() its result (or error) is ignored by step().
   * Every read but the first yields to the event loop first: a synchronous store answers in
   * microtasks, and a consumer that does not wait (graphql-ws "sends" to a closing socket without
   * waiting) would otherwise drain a whole backlog before any I/O callback — the socket's close
   * event included — could run.
   */
  private async read(after: number): Promise<FleetEvent[]> {
    if (this.pagesRead++ > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    return this.scope.kind === "stream"
      ? this.reader.readStream(this.scope.streamKey, after, this.pageSize)
      : this.reader.readGlobal(after, this.pageSize, this.scope.filter);
  }
}
