/**
 * In-process fan-out of committed fleet events (ARCHITECTURE decision 5: persist, then publish).
 *
 * The store calls {@link EventBus.publish} after each commit; every subscriber whose filter
 * matches gets the event in its own bounded buffer. A subscriber that stops reading never makes
 * the bus grow: once its buffer is full, the buffered events are dropped and a single
 * `overflow` item is delivered next, telling the consumer to refill from the store
 * (decision 6; `replayThenTail` in `./replay.ts` does exactly that).
 *
 * Guarantees:
 * - `publish` never blocks and never throws because of a subscriber: filters run inside a
 *   try/catch (a throwing filter closes its own subscription), and consumer code never runs
 *   synchronously inside `publish` (hand-off is by promise resolution).
 * - Per subscriber, events arrive in publish order.
 * - A subscription made with `agentId` (see {@link SubscribeOptions}) is offered only that agent's
 *   events, found by one map lookup per publish: `publish` costs O(unscoped subscribers + that
 *   agent's), not O(all) — at 1,000 per-agent subscribers, one filter call per event instead of
 *   1,000 (issue 17).
 * - `close()` / `return()` remove the listener synchronously, and a `next()` parked on a quiet
 *   subscription resolves `{ done: true }` at once.
 *
 * Events are shared between subscribers and must be treated as immutable.
 */
import { EVENT_KINDS, PayloadSchemas, type EventKind, type FleetEvent } from "../events/index.js";
import { silentLogger, type Logger } from "../log.js";

/** Default number of events buffered per subscriber before it overflows. */
export const DEFAULT_BUFFER_SIZE = 1024;

/**
 * One item read from a {@link BusSubscription}:
 * - `event`: a published event that matched the subscription's filter;
 * - `overflow`: the subscriber fell behind; `dropped` (≥ 1) buffered events were discarded and
 *   must be re-read from the store. Events after this item are newer than the dropped ones.
 */
export type BusItem = { type: "event"; event: FleetEvent } | { type: "overflow"; dropped: number };

/**
 * A live subscription: an async iterator of {@link BusItem}s that never ends on its own (only on
 * `close()`/`return()`, bus close, or a throwing filter). Memory held is at most `bufferSize`
 * events plus one overflow counter.
 */
export interface BusSubscription extends AsyncIterableIterator<BusItem, undefined> {
  /**
   * Next item; waits while nothing is buffered. Resolves `{ done: true }` once closed.
   * @throws (rejects, once) {@link SubscriberFilterError} if this subscription's filter threw.
   */
  next(): Promise<IteratorResult<BusItem, undefined>>;
  /**
   * Synchronous `next()`: the result `next()` would resolve at once, or `null` when it would
   * wait (nothing buffered, not closed). Lets a consumer skip a promise per buffered item.
   * @throws (once) {@link SubscriberFilterError} if this subscription's filter threw.
   */
  take(): IteratorResult<BusItem, undefined> | null;
  /** Same as {@link BusSubscription.close}; resolves `{ done: true }`. Never rejects. */
  return(): Promise<IteratorResult<BusItem, undefined>>;
  /**
   * Detach from the bus now: the listener is removed synchronously, buffered items are released,
   * pending and later `next()` calls resolve `{ done: true }`. Idempotent.
   */
  close(): void;
  /** True once closed (by the consumer, the bus, or a throwing filter). */
  readonly closed: boolean;
  /** Events currently buffered (0..bufferSize), not counting a pending overflow item. */
  readonly buffered: number;
  /** Events dropped since the last overflow item was taken (0 when no overflow is pending). */
  readonly pendingOverflow: number;
  /**
   * Synchronously take a pending overflow item (it is always the next item when present).
   * @returns the number of dropped events it reported, or 0 if none was pending.
   */
  takeOverflow(): number;
}

/** Options of {@link EventBus.subscribe}. */
export interface SubscribeOptions {
  /** Most events buffered for this subscriber (integer ≥ 1; default {@link DEFAULT_BUFFER_SIZE}). */
  bufferSize?: number;
  /**
   * Offer this subscription only events whose `agentId` equals this (an index, not a rule: its
   * filter still decides, so a filter must reject every other agent's events for the two to agree).
   * A non-empty agent id; omitted or "" = every event.
   */
  agentId?: string;
}

/** Options of the {@link EventBus} constructor. */
export interface EventBusOptions {
  /**
   * Validate every published event (envelope, `PayloadSchemas[kind]`, plain JSON — decision 10)
   * and throw {@link InvalidEventError} from `publish` for a bad one. A debugging aid for the
   * publisher's own bugs; default on under vitest (`VITEST` set) or `NODE_ENV=test`, else off.
   */
  strict?: boolean;
  /** Logger for subscriber failures (default: silent). */
  log?: Logger;
}

/** Counters of an {@link EventBus}, for metrics and tests. All are totals since creation. */
export interface BusStats {
  /** Events accepted by `publish`. */
  published: number;
  /** Event deliveries into subscriber buffers or waiting consumers. */
  delivered: number;
  /** Buffered events discarded because a subscriber's buffer was full. */
  dropped: number;
  /** Overflow items created (one per episode of falling behind, however many events it covers). */
  overflows: number;
  /** Subscriptions closed because their filter threw. */
  filterErrors: number;
}

/** `publish` was given an event that fails validation (strict mode only). */
export class InvalidEventError extends Error {
  readonly code = "INVALID_EVENT";
  /**
   * @param problem what is wrong, e.g. `payload.text: expected string`.
   * @param event the rejected value.
   */
  constructor(
    readonly problem: string,
    readonly event: unknown,
  ) {
    super(`invalid fleet event: ${problem}`);
    this.name = "InvalidEventError";
  }
}

/** A subscription's filter threw; the subscription was closed. `cause` is the thrown value. */
export class SubscriberFilterError extends Error {
  readonly code = "SUBSCRIBER_FILTER";
  constructor(cause: unknown) {
    super(`bus subscription closed: its filter threw: ${errorText(cause)}`, { cause });
    this.name = "SubscriberFilterError";
  }
}

/** In-process publish/subscribe of committed {@link FleetEvent}s. */
export class EventBus {
  /** Live counters (mutated in place; read, do not write). */
  readonly stats: BusStats = { published: 0, delivered: 0, dropped: 0, overflows: 0, filterErrors: 0 };
  /**
   * Subscriptions offered every event. Copy-on-write lists (this one and {@link byAgent}'s):
   * `publish` iterates a stable array while subscribers come and go.
   */
  private subs: readonly Subscription[] = [];
  /** Subscriptions offered one agent's events only, by agent id (no empty lists kept). */
  private readonly byAgent = new Map<string, readonly Subscription[]>();
  /** Open subscriptions in {@link byAgent}. */
  private agentScoped = 0;
  private readonly strict: boolean;
  private readonly log: Logger;
  private isClosed = false;

  /** @param opts see {@link EventBusOptions}. */
  constructor(opts: EventBusOptions = {}) {
    this.strict = opts.strict ?? (process.env.VITEST !== undefined || process.env.NODE_ENV === "test");
    this.log = opts.log ?? silentLogger;
  }

  /**
   * Deliver a committed event to every subscriber whose filter accepts it. O(unscoped subscribers
   * + subscribers scoped to the event's agent): one filter call each, plus an O(1) enqueue or
   * hand-off. No-op after {@link EventBus.close}.
   * Never throws because of a subscriber: a throwing filter closes that subscription (its
   * consumer gets {@link SubscriberFilterError}) and is counted in `stats.filterErrors`.
   * @throws InvalidEventError only in strict mode, when the event is malformed (publisher bug);
   *   nothing is delivered then.
   */
  publish(event: FleetEvent): void {
    if (this.strict) {
      const problem = checkEvent(event);
      if (problem !== null) throw new InvalidEventError(problem, event);
    }
    if (this.isClosed) return;
    this.stats.published++;
    // Both lists are taken before any filter runs: a subscription made by a filter during this
    // publish never gets this event, scoped or not.
    const scoped = event.agentId === "" ? undefined : this.byAgent.get(event.agentId);
    this.offer(this.subs, event);
    if (scoped !== undefined) this.offer(scoped, event);
  }

  /** Run each open subscription's filter on `event` and push it where wanted (see publish). */
  private offer(subs: readonly Subscription[], event: FleetEvent): void {
    for (const sub of subs) {
      if (sub.closed) continue;
      let wanted: boolean;
      try {
        wanted = sub.filter(event);
      } catch (err) {
        this.stats.filterErrors++;
        this.log.warn({ err, streamKey: event.streamKey, seq: event.seq }, "bus subscriber filter threw");
        sub.fail(new SubscriberFilterError(err));
        continue;
      }
      if (!wanted) continue;
      try {
        sub.push(event);
      } catch (err) {
        // push only touches our own data structures; keep the promise anyway.
        this.log.error({ err }, "bus delivery failed");
        sub.fail(err);
      }
    }
  }

  /**
   * Subscribe to published events matching `filter` (called synchronously inside `publish`;
   * keep it cheap and side-effect free; if it throws, the subscription is closed).
   * @returns a {@link BusSubscription}; after {@link EventBus.close}, one that is already done.
   * @throws RangeError if `opts.bufferSize` is not an integer ≥ 1.
   */
  subscribe(filter: (e: FleetEvent) => boolean, opts: SubscribeOptions = {}): BusSubscription {
    const bufferSize = opts.bufferSize ?? DEFAULT_BUFFER_SIZE;
    if (!Number.isSafeInteger(bufferSize) || bufferSize < 1) {
      throw new RangeError(`bufferSize must be an integer >= 1, got ${String(bufferSize)}`);
    }
    const agentId = opts.agentId ?? "";
    const sub = new Subscription(filter, bufferSize, this.stats, (s) => this.detach(s, agentId));
    if (this.isClosed) sub.close();
    else if (agentId === "") this.subs = [...this.subs, sub];
    else {
      this.byAgent.set(agentId, [...(this.byAgent.get(agentId) ?? []), sub]);
      this.agentScoped++;
    }
    return sub;
  }

  /** Number of open subscriptions (for leak tests and metrics). */
  listenerCount(): number {
    return this.subs.length + this.agentScoped;
  }

  /** Close every subscription (their consumers see `done`) and ignore later publishes. Idempotent. */
  close(): void {
    this.isClosed = true;
    const all = [...this.subs, ...[...this.byAgent.values()].flat()];
    this.subs = [];
    this.byAgent.clear();
    this.agentScoped = 0;
    for (const sub of all) sub.close();
  }

  private detach(sub: Subscription, agentId: string): void {
    if (agentId === "") {
      this.subs = without(this.subs, sub) ?? this.subs;
      return;
    }
    const list = this.byAgent.get(agentId);
    const next = list && without(list, sub);
    if (!next) return;
    this.agentScoped--;
    if (next.length === 0) this.byAgent.delete(agentId);
    else this.byAgent.set(agentId, next);
  }
}

/** A copy of `list` without `sub`, or null when it is not in it. */
function without(list: readonly Subscription[], sub: Subscription): Subscription[] | null {
  const i = list.indexOf(sub);
  if (i < 0) return null;
  const next = list.slice();
  next.splice(i, 1);
  return next;
}

type Waiter = {
  resolve: (r: IteratorResult<BusItem, undefined>) => void;
  reject: (err: unknown) => void;
};

const DONE: IteratorResult<BusItem, undefined> = Object.freeze({ done: true, value: undefined });

/** One subscriber: a bounded ring of events, a pending-overflow counter, and parked readers. */
class Subscription implements BusSubscription {
  private readonly ring: Ring<FleetEvent>;
  private dropped = 0;
  /** Readers waiting for an item; non-empty only while nothing is buffered. */
  private waiters: Waiter[] = [];
  private failure: { err: unknown } | null = null;
  private isClosed = false;

  constructor(
    readonly filter: (e: FleetEvent) => boolean,
    bufferSize: number,
    private readonly stats: BusStats,
    private readonly onClose: (s: Subscription) => void,
  ) {
    this.ring = new Ring(bufferSize);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get buffered(): number {
    return this.ring.size;
  }

  get pendingOverflow(): number {
    return this.dropped;
  }

  /** Hand `e` to a parked reader, or buffer it (overflowing when full). Called by the bus only. */
  push(e: FleetEvent): void {
    this.stats.delivered++;
    const w = this.waiters.shift();
    if (w) {
      w.resolve({ done: false, value: { type: "event", event: e } });
      return;
    }
    if (this.ring.full) {
      const n = this.ring.size;
      this.ring.clear();
      if (this.dropped === 0) this.stats.overflows++;
      this.dropped += n;
      this.stats.dropped += n;
    }
    this.ring.push(e);
  }

  /** Close because of `err`: the first pending (or next) `next()` rejects with it. */
  fail(err: unknown): void {
    if (this.isClosed) return;
    const [first, ...rest] = this.waiters;
    this.waiters = [];
    if (first) first.reject(err);
    else this.failure = { err };
    for (const w of rest) w.resolve(DONE);
    this.close();
  }

  takeOverflow(): number {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }

  take(): IteratorResult<BusItem, undefined> | null {
    if (this.failure) {
      const { err } = this.failure;
      this.failure = null;
      throw err;
    }
    if (this.dropped > 0) return { done: false, value: { type: "overflow", dropped: this.takeOverflow() } };
    const e = this.ring.shift();
    if (e !== undefined) return { done: false, value: { type: "event", event: e } };
    if (this.isClosed) return DONE;
    return null;
  }

  next(): Promise<IteratorResult<BusItem, undefined>> {
    let r: IteratorResult<BusItem, undefined> | null;
    try {
      r = this.take();
    } catch (err) {
      return Promise.reject(err);
    }
    if (r) return Promise.resolve(r);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  return(): Promise<IteratorResult<BusItem, undefined>> {
    this.close();
    return Promise.resolve(DONE);
  }

  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.onClose(this);
    this.ring.clear();
    this.dropped = 0;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** FIFO ring buffer holding at most `capacity` items; storage grows by doubling up to it. */
class Ring<T> {
  private items: (T | undefined)[];
  private head = 0;
  private len = 0;

  constructor(private readonly capacity: number) {
    this.items = new Array<T | undefined>(Math.min(capacity, 16));
  }

  get size(): number {
    return this.len;
  }

  get full(): boolean {
    return this.len >= this.capacity;
  }

  /** Append; the caller checks `full` first. */
  push(v: T): void {
    if (this.len === this.items.length) this.grow();
    this.items[(this.head + this.len) % this.items.length] = v;
    this.len++;
  }

  shift(): T | undefined {
    if (this.len === 0) return undefined;
    const v = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.len--;
    return v;
  }

  /** Drop everything and shrink the storage back. */
  clear(): void {
    this.items = new Array<T | undefined>(Math.min(this.capacity, 16));
    this.head = 0;
    this.len = 0;
  }

  private grow(): void {
    const next = new Array<T | undefined>(Math.min(this.capacity, this.items.length * 2));
    for (let i = 0; i < this.len; i++) next[i] = this.items[(this.head + i) % this.items.length];
    this.items = next;
    this.head = 0;
  }
}

const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);

/**
 * Check a would-be published event: envelope types, known kind, payload against
 * `PayloadSchemas[kind]`, and payload is plain JSON (no bigint, Date, undefined, NaN, class
 * instances, cycles).
 * @returns a description of the first problem found, or null when valid.
 */
export function checkEvent(e: unknown): string | null {
  if (typeof e !== "object" || e === null) return "not an object";
  const r = e as Record<string, unknown>;
  if (typeof r.streamKey !== "string" || r.streamKey === "") return "streamKey: expected non-empty string";
  if (!isPositiveInt(r.seq)) return "seq: expected integer >= 1";
  if (r.globalId !== null && !isPositiveInt(r.globalId)) return "globalId: expected integer >= 1 or null";
  if (typeof r.workspace !== "string") return "workspace: expected string";
  if (typeof r.agentId !== "string") return "agentId: expected string";
  if (typeof r.tsMs !== "number" || !Number.isFinite(r.tsMs)) return "tsMs: expected finite number";
  if (typeof r.kind !== "string" || !KINDS.has(r.kind)) return `kind: unknown kind ${JSON.stringify(r.kind)}`;
  const parsed = PayloadSchemas[r.kind as EventKind].safeParse(r.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `payload${issue ? `.${issue.path.join(".")}: ${issue.message}` : " invalid"}`;
  }
  return plainJsonProblem(r.payload, "payload", 0);
}

function isPositiveInt(v: unknown): boolean {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
}

const MAX_DEPTH = 64;

function plainJsonProblem(v: unknown, path: string, depth: number): string | null {
  if (depth > MAX_DEPTH) return `${path}: nested deeper than ${MAX_DEPTH} (cycle?)`;
  switch (typeof v) {
    case "string":
    case "boolean":
      return null;
    case "number":
      return Number.isFinite(v) ? null : `${path}: non-finite number`;
    case "object": {
      if (v === null) return null;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const p = plainJsonProblem(v[i], `${path}[${i}]`, depth + 1);
          if (p !== null) return p;
        }
        return null;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return `${path}: not a plain object`;
      for (const [k, x] of Object.entries(v)) {
        const p = plainJsonProblem(x, `${path}.${k}`, depth + 1);
        if (p !== null) return p;
      }
      return null;
    }
    default:
      return `${path}: ${typeof v} is not JSON`;
  }
}

function errorText(v: unknown): string {
  if (v instanceof Error) return v.message;
  try {
    return String(v);
  } catch {
    return "(unprintable)";
  }
}
