import { describe, expect, it } from "vitest";
import { EventBus, SubscriberFilterError } from "../../src/bus/bus.js";
import {
  GAP_FELL_BEHIND,
  replayThenTail,
  type EventReader,
  type TailItem,
  type TailIterator,
} from "../../src/bus/replay.js";
import { isTerminalEvent, type FleetEvent } from "../../src/events/index.js";
import { MemoryEventStore, agentGone, output, statusChanged, tick } from "./memory-store.js";

const DONE = { done: true, value: undefined };

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const eventsOf = (items: TailItem[]): FleetEvent[] =>
  items.flatMap((i) => (i.type === "event" ? [i.event] : []));
const seqsOf = (items: TailItem[]): number[] => eventsOf(items).map((e) => e.seq);
const gapsOf = (items: TailItem[]): TailItem[] => items.filter((i) => i.type === "gap");

/** Read `n` items (fails the test on an early end). */
async function take(it: TailIterator, n: number): Promise<TailItem[]> {
  const out: TailItem[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) throw new Error(`iterator ended after ${out.length} of ${n} items`);
    out.push(r.value);
  }
  return out;
}

/** Read until done. */
async function collect(it: AsyncIterable<TailItem>): Promise<TailItem[]> {
  const out: TailItem[] = [];
  for await (const item of it) out.push(item);
  return out;
}

/** Every gap must name the position delivered just before it. */
function expectGapsAtCursor(items: TailItem[], position: (e: FleetEvent) => number, start: number): void {
  let last = start;
  for (const item of items) {
    if (item.type === "event") last = position(item.event);
    else expect(item).toEqual({ type: "gap", afterPosition: last, reason: GAP_FELL_BEHIND });
  }
}

describe("replayThenTail — event loop", () => {
  it("yields to the event loop between store pages, so a consumer that never waits cannot starve I/O", async () => {
    // graphql-ws "sends" to a socket that is closing without waiting, and a synchronous store
    // (better-sqlite3) answers in microtasks: without a yield, draining a long backlog would run
    // to the end before the socket's close event (a macrotask) could stop it.
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    for (let i = 0; i < 5_000; i++) store.append(output("a", `t${i}`));
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 0,
      pageSize: 100,
    });
    setImmediate(() => it.close());
    let n = 0;
    while (!(await it.next()).done) n++;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(5_000);
  });
});

describe("replayThenTail — stream scope", () => {
  it.each([
    { burst: 37, snapshot: "before" as const },
    { burst: 37, snapshot: "after" as const },
    { burst: 300, snapshot: "before" as const },
    { burst: 300, snapshot: "after" as const },
  ])(
    "no gap and no duplicate at the seam while thousands are published during a slow replay (burst $burst, snapshot $snapshot)",
    async ({ burst, snapshot }) => {
      const bus = new EventBus();
      const store = new MemoryEventStore(bus, { delay: tick, snapshot });
      const HISTORY = 2_000;
      const N = 8_000;
      for (let i = 0; i < HISTORY; i++) store.append(output("a"));
      const it = replayThenTail({
        bus,
        reader: store,
        scope: { kind: "stream", streamKey: "a" },
        after: 0,
        pageSize: 100,
        completeOn: (e) => e.seq === N,
      });
      const producer = (async () => {
        let n = HISTORY;
        while (n < N) {
          for (let j = 0; j < burst && n < N; j++, n++) {
            store.append(output("a"));
            store.append(output("other")); // noise on another stream
          }
          await tick();
        }
      })();
      const items = await collect(it);
      await producer;
      expect(gapsOf(items)).toEqual([]);
      expect(seqsOf(items)).toEqual(range(1, N));
      expect(bus.listenerCount()).toBe(0);
      if (burst === 300) expect(bus.stats.overflows).toBeGreaterThan(0); // absorbed silently during replay
    },
  );

  // With a fast store the iterator goes live and a pausing consumer overflows its 8-event buffer
  // (gaps + refills). With a store read slower than the buffer fills, every short page finds the
  // buffer overflowed again, so the iterator keeps reading the store (like polling): still exact.
  it.each([
    { reader: "fast", delay: undefined },
    { reader: "slow", delay: tick },
  ])(
    "with a tiny live buffer and a $reader store, every event arrives exactly once, in order",
    async ({ delay }) => {
      const bus = new EventBus();
      const store = new MemoryEventStore(bus, { delay });
      const N = 3_000;
      for (let i = 0; i < 500; i++) store.append(output("a"));
      const it = replayThenTail({
        bus,
        reader: store,
        scope: { kind: "stream", streamKey: "a" },
        after: 0,
        pageSize: 64,
        bufferSize: 8,
        completeOn: (e) => e.seq === N,
      });
      const producer = (async () => {
        for (let n = 500; n < N;) {
          for (let j = 0; j < 20 && n < N; j++, n++) store.append(output("a"));
          await tick();
          // Now and then a quiet spell, so the replay reaches the seam and goes live between bursts.
          if (n % 400 === 0) for (let q = 0; q < 10; q++) await tick();
        }
      })();
      const items: TailItem[] = [];
      for await (const item of it) {
        items.push(item);
        if (items.length % 97 === 0) await tick(); // a consumer that is sometimes slow
      }
      await producer;
      expect(seqsOf(items)).toEqual(range(1, N));
      if (!delay) expect(gapsOf(items).length).toBeGreaterThan(0);
      expectGapsAtCursor(items, (e) => e.seq, 0);
      expect(bus.stats.overflows).toBeGreaterThan(0);
    },
  );

  it("resuming from a cursor yields exactly the events after it, then live ones", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    for (let i = 0; i < 10; i++) {
      store.append(output("a"));
      store.append(output("b"));
    }
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 6,
      pageSize: 3,
    });
    expect(seqsOf(await take(it, 4))).toEqual([7, 8, 9, 10]);
    store.append(output("a"));
    store.append(output("a"));
    expect(seqsOf(await take(it, 2))).toEqual([11, 12]);
    expect(it.position).toBe(12);
    await it.return();
    expect(bus.listenerCount()).toBe(0);
  });

  it("seq holes in the store are not gaps", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    store.append(output("a")); // 1
    store.append(output("a"), 3); // 5
    store.append(output("a")); // 6
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 0,
      pageSize: 2,
    });
    expect(seqsOf(await take(it, 3))).toEqual([1, 5, 6]);
    store.append(output("a"), 10); // 17
    const items = await take(it, 1);
    expect(items).toEqual([{ type: "event", event: expect.objectContaining({ seq: 17 }) }]);
    it.close();
  });

  it("a subscriber paused in the live phase while 100,000 events arrive holds at most bufferSize, then gets a gap and the refill in order", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    for (let i = 0; i < 10; i++) store.append(output("a"));
    const bufferSize = 1_024;
    const N = 100_000;
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 0,
      bufferSize,
      completeOn: (e) => e.seq === 11 + N,
    });
    expect(seqsOf(await take(it, 10))).toEqual(range(1, 10));
    store.append(output("a")); // 11, delivered live
    expect(seqsOf(await take(it, 1))).toEqual([11]);
    expect(it.phase).toBe("live");

    // Paused: nobody calls next() while 100k events are committed and published.
    let maxBuffered = 0;
    for (let i = 0; i < N; i++) {
      store.append(output("a"));
      if (it.buffered > maxBuffered) maxBuffered = it.buffered;
    }
    expect(maxBuffered).toBeLessThanOrEqual(bufferSize);
    expect(it.buffered).toBeLessThanOrEqual(bufferSize);
    expect(bus.stats.dropped).toBeGreaterThanOrEqual(N - bufferSize);

    const items = await collect(it);
    expect(items[0]).toEqual({ type: "gap", afterPosition: 11, reason: GAP_FELL_BEHIND });
    expect(gapsOf(items)).toHaveLength(1);
    expect(seqsOf(items)).toEqual(range(12, 11 + N));
    expect(bus.listenerCount()).toBe(0);
  });

  it("return() on an iterator parked on a quiet stream restores listenerCount at once", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    const bystander = bus.subscribe(() => true);
    store.append(output("quiet"));
    const before = bus.listenerCount();
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "quiet" },
      after: 0,
    });
    expect(bus.listenerCount()).toBe(before + 1); // subscribed before the first read
    expect(seqsOf(await take(it, 1))).toEqual([1]);
    const parked = it.next();
    await tick();
    expect(it.phase).toBe("live");
    const ret = it.return();
    expect(bus.listenerCount()).toBe(before); // no publish needed
    await expect(parked).resolves.toEqual(DONE);
    await expect(ret).resolves.toEqual(DONE);
    await expect(it.next()).resolves.toEqual(DONE);
    expect(it.phase).toBe("done");
    bystander.close();
  });

  it("return() during an in-flight store read resolves the pending next() and releases the bus", async () => {
    const bus = new EventBus();
    let release: (events: FleetEvent[]) => void = () => undefined;
    const reader: EventReader = {
      readStream: () => new Promise((resolve) => (release = resolve)),
      readGlobal: () => Promise.resolve([]),
    };
    const it = replayThenTail({ bus, reader, scope: { kind: "stream", streamKey: "a" }, after: 0 });
    const pending = it.next();
    await tick();
    expect(it.phase).toBe("replay");
    it.close();
    expect(bus.listenerCount()).toBe(0);
    await expect(pending).resolves.toEqual(DONE);
    release([]); // a late page is ignored
    await tick();
    await expect(it.next()).resolves.toEqual(DONE);
  });

  it("a failing store read rejects next() and releases the subscription", async () => {
    const bus = new EventBus();
    const reader: EventReader = {
      readStream: () => Promise.reject(new Error("db down")),
      readGlobal: () => Promise.resolve([]),
    };
    const it = replayThenTail({ bus, reader, scope: { kind: "stream", streamKey: "a" }, after: 0 });
    await expect(it.next()).rejects.toThrow("db down");
    expect(bus.listenerCount()).toBe(0);
    await expect(it.next()).resolves.toEqual(DONE);
  });

  it("completes right after a terminal event found in history", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    for (let i = 0; i < 5; i++) store.append(output("a"));
    store.append(statusChanged("a", "running", "done")); // 6: terminal
    store.append(agentGone("a")); // 7: also terminal, never delivered
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 0,
      pageSize: 4,
      completeOn: isTerminalEvent,
    });
    const items = await collect(it);
    expect(seqsOf(items)).toEqual(range(1, 6));
    expect(eventsOf(items).at(-1)?.kind).toBe("status_changed");
    expect(bus.listenerCount()).toBe(0);
  });

  it("completes right after a terminal event that arrives live", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    for (let i = 0; i < 3; i++) store.append(output("a"));
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 0,
      completeOn: isTerminalEvent,
    });
    const done = collect(it);
    await tick();
    store.append(output("a")); // 4
    store.append(agentGone("a")); // 5: terminal
    store.append(output("a")); // 6: after the end
    const items = await done;
    expect(seqsOf(items)).toEqual(range(1, 5));
    expect(bus.listenerCount()).toBe(0);
  });

  it("live-only events (globalId null) are delivered live without dedup and without moving the cursor", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    store.append(output("a")); // 1
    const it = replayThenTail({ bus, reader: store, scope: { kind: "stream", streamKey: "a" }, after: 0 });
    expect(seqsOf(await take(it, 1))).toEqual([1]);
    const [lost, marker] = store.failAppend(output("a", "lost")); // live-only seq 2, marker seq 3
    bus.publish({ ...lost, seq: 1 }); // even one at/below the cursor is not deduplicated
    const items = await take(it, 3);
    expect(eventsOf(items)).toEqual([lost, marker, { ...lost, seq: 1 }]);
    expect(it.position).toBe(3);
    it.close();
  });

  it("serves concurrent next() calls in order", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus, { delay: tick });
    for (let i = 0; i < 5; i++) store.append(output("a"));
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "stream", streamKey: "a" },
      after: 0,
      pageSize: 2,
    });
    const results = await Promise.all([it.next(), it.next(), it.next(), it.next(), it.next()]);
    expect(results.map((r) => (r.value?.type === "event" ? r.value.event.seq : null))).toEqual([
      1, 2, 3, 4, 5,
    ]);
    it.close();
  });

  it("rejects bad options before subscribing", () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    const scope = { kind: "stream", streamKey: "a" } as const;
    expect(() => replayThenTail({ bus, reader: store, scope, after: -1 })).toThrow(RangeError);
    expect(() => replayThenTail({ bus, reader: store, scope, after: 0, pageSize: 0 })).toThrow(RangeError);
    expect(() => replayThenTail({ bus, reader: store, scope, after: 0, bufferSize: 0 })).toThrow(RangeError);
    expect(bus.listenerCount()).toBe(0);
  });

  it("ends when the bus is closed", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    const it = replayThenTail({ bus, reader: store, scope: { kind: "stream", streamKey: "a" }, after: 0 });
    const parked = it.next();
    await tick();
    bus.close();
    await expect(parked).resolves.toEqual(DONE);
  });
});

describe("replayThenTail — global scope", () => {
  const globalIds = (items: TailItem[]): number[] => eventsOf(items).map((e) => e.globalId ?? -1);

  it("orders by globalId across several streams, history and live, with no gap or duplicate", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus, { delay: tick });
    const streams = ["a", "b", "c", "d"];
    const inW1 = (e: FleetEvent): boolean => e.workspace === "w1";
    let k = 0;
    const appendOne = (): void => {
      const agent = streams[k % streams.length] as string;
      // Streams a, b, c are in w1; d is in w2 and filtered out.
      store.append(output(agent, "x", agent === "d" ? "w2" : "w1"));
      k++;
    };
    for (let i = 0; i < 1_000; i++) appendOne();
    const TOTAL = 6_000;
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "global", filter: inW1 },
      after: 0,
      pageSize: 50,
    });
    const producer = (async () => {
      while (k < TOTAL) {
        for (let j = 0; j < 200 && k < TOTAL; j++) appendOne();
        await tick();
      }
    })();
    await producer;
    const expected = store.events.filter(inW1).map((e) => e.globalId);
    const items = await take(it, expected.length);
    expect(gapsOf(items)).toEqual([]);
    expect(globalIds(items)).toEqual(expected);
    // Per-stream order follows too.
    for (const s of ["a", "b", "c"]) {
      const seqs = eventsOf(items)
        .filter((e) => e.streamKey === s)
        .map((e) => e.seq);
      expect(seqs).toEqual(range(1, seqs.length));
    }
    expect(eventsOf(items).some((e) => e.streamKey === "d")).toBe(false);
    it.close();
    expect(bus.listenerCount()).toBe(0);
  });

  it("resumes after a globalId cursor and gaps name the last globalId", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    for (let i = 0; i < 30; i++) store.append(output(i % 2 ? "a" : "b"));
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "global", filter: () => true },
      after: 20,
      pageSize: 4,
      bufferSize: 4,
    });
    expect(globalIds(await take(it, 10))).toEqual(range(21, 30));
    store.append(output("a")); // 31 live
    expect(globalIds(await take(it, 1))).toEqual([31]);
    for (let i = 0; i < 20; i++) store.append(output(i % 2 ? "a" : "c")); // 32..51, overflows
    const items = await take(it, 21);
    expect(items[0]).toEqual({ type: "gap", afterPosition: 31, reason: GAP_FELL_BEHIND });
    expect(globalIds(items)).toEqual(range(32, 51));
    it.close();
  });

  it("delivers live-only events (null globalId) in the live phase", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    store.append(output("a"));
    const it = replayThenTail({
      bus,
      reader: store,
      scope: { kind: "global", filter: () => true },
      after: 0,
    });
    expect(globalIds(await take(it, 1))).toEqual([1]);
    const [lost, marker] = store.failAppend(output("b"));
    expect(eventsOf(await take(it, 2))).toEqual([lost, marker]);
    expect(it.position).toBe(marker.globalId);
    it.close();
  });

  it("a throwing global filter ends the iterator with SubscriberFilterError; publish is unaffected", async () => {
    const bus = new EventBus();
    const store = new MemoryEventStore(bus);
    const it = replayThenTail({
      bus,
      reader: store,
      scope: {
        kind: "global",
        filter: (e) => {
          if (e.streamKey === "bad") throw new Error("filter bug");
          return true;
        },
      },
      after: 0,
    });
    const parked = it.next();
    await tick();
    expect(() => store.append(output("bad"))).not.toThrow();
    await expect(parked).rejects.toBeInstanceOf(SubscriberFilterError);
    expect(bus.listenerCount()).toBe(0);
    expect(bus.stats.filterErrors).toBe(1);
    await expect(it.next()).resolves.toEqual(DONE);
  });
});
