import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  EventBus,
  InvalidEventError,
  SubscriberFilterError,
  checkEvent,
  type BusItem,
  type BusSubscription,
} from "../../src/bus/bus.js";
import type { FleetEvent } from "../../src/events/index.js";
import { tick } from "./memory-store.js";

let nextGlobalId = 1;

/** A committed `output` event of stream `agentId` at `seq`. */
function ev(agentId: string, seq: number, text = "t"): FleetEvent {
  return {
    kind: "output",
    payload: { stream: "text", text, turnIndex: 0, blockIndex: 0 },
    workspace: "w1",
    agentId,
    tsMs: 1_700_000_000_000,
    streamKey: agentId,
    seq,
    globalId: nextGlobalId++,
  };
}

/** Take every item available without waiting (stops at the first parked next()). */
async function drainNow(sub: BusSubscription): Promise<BusItem[]> {
  const out: BusItem[] = [];
  for (;;) {
    if (sub.buffered === 0 && sub.pendingOverflow === 0) return out;
    const r = await sub.next();
    if (r.done) return out;
    out.push(r.value);
  }
}

const seqsOf = (items: BusItem[]): number[] =>
  items.flatMap((i) => (i.type === "event" ? [i.event.seq] : []));

/** `global.gc`, exposing it at runtime when node was not started with --expose-gc. */
function getGc(): (() => void) | null {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === "function") return g;
  try {
    setFlagsFromString("--expose-gc");
    const fn: unknown = runInNewContext("gc");
    return typeof fn === "function" ? (fn as () => void) : null;
  } catch {
    return null;
  }
}

describe("EventBus", () => {
  it("fans out to matching subscribers in publish order", async () => {
    const bus = new EventBus();
    const a = bus.subscribe((e) => e.streamKey === "a");
    const all = bus.subscribe(() => true);
    bus.publish(ev("a", 1));
    bus.publish(ev("b", 1));
    bus.publish(ev("a", 2));
    expect(seqsOf(await drainNow(a))).toEqual([1, 2]);
    expect((await drainNow(all)).map((i) => (i.type === "event" ? i.event.streamKey : "?"))).toEqual([
      "a",
      "b",
      "a",
    ]);
    expect(bus.stats.published).toBe(3);
    expect(bus.stats.delivered).toBe(5);
    a.close();
    all.close();
    expect(bus.listenerCount()).toBe(0);
  });

  it("hands an event to a parked reader", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe(() => true);
    const p = sub.next();
    bus.publish(ev("a", 1));
    const r = await p;
    expect(r.done).toBe(false);
    expect(r.value).toMatchObject({ type: "event", event: { seq: 1 } });
    expect(sub.buffered).toBe(0);
    sub.close();
  });

  it("return() on a reader parked on a quiet subscription releases the listener immediately", async () => {
    const bus = new EventBus();
    const other = bus.subscribe(() => true);
    const before = bus.listenerCount();
    const sub = bus.subscribe((e) => e.streamKey === "quiet");
    expect(bus.listenerCount()).toBe(before + 1);
    const parked = sub.next();
    await tick();
    const ret = sub.return();
    expect(bus.listenerCount()).toBe(before); // synchronously, no publish needed
    await expect(parked).resolves.toEqual({ done: true, value: undefined });
    await expect(ret).resolves.toEqual({ done: true, value: undefined });
    await expect(sub.next()).resolves.toEqual({ done: true, value: undefined });
    expect(sub.closed).toBe(true);
    other.close();
  });

  it("breaking out of for-await releases the listener", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe(() => true);
    bus.publish(ev("a", 1));
    for await (const item of sub) {
      expect(item.type).toBe("event");
      break;
    }
    expect(bus.listenerCount()).toBe(0);
  });

  it("a full buffer is dropped and one overflow item comes next; memory stays bounded", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe(() => true, { bufferSize: 4 });
    for (let i = 1; i <= 10; i++) {
      bus.publish(ev("a", i));
      expect(sub.buffered).toBeLessThanOrEqual(4);
    }
    // 1-4 buffered; 5 drops them; 6-8 fill; 9 drops 5-8; 10 follows.
    expect(bus.stats).toMatchObject({ dropped: 8, overflows: 1 });
    const items = await drainNow(sub);
    expect(items[0]).toEqual({ type: "overflow", dropped: 8 });
    expect(seqsOf(items)).toEqual([9, 10]);
    // A second episode is a second overflow item.
    for (let i = 11; i <= 16; i++) bus.publish(ev("a", i));
    const more = await drainNow(sub);
    expect(more[0]).toEqual({ type: "overflow", dropped: 4 });
    expect(seqsOf(more)).toEqual([15, 16]);
    expect(bus.stats.overflows).toBe(2);
    sub.close();
  });

  it("take() answers synchronously what next() would at once: overflow first, events, null when empty, done after close, a filter error once", () => {
    const bus = new EventBus();
    const sub = bus.subscribe(() => true, { bufferSize: 2 });
    expect(sub.take()).toBeNull(); // nothing buffered: next() would wait
    for (let i = 1; i <= 3; i++) bus.publish(ev("a", i)); // 3 drops 1-2
    expect(sub.take()).toEqual({ done: false, value: { type: "overflow", dropped: 2 } });
    expect(sub.take()).toMatchObject({ done: false, value: { type: "event", event: { seq: 3 } } });
    expect(sub.take()).toBeNull();
    expect(sub.buffered).toBe(0);
    sub.close();
    expect(sub.take()).toEqual({ done: true, value: undefined });

    const bad = bus.subscribe((e) => {
      if (e.seq === 5) throw new Error("bang");
      return true;
    });
    bus.publish(ev("a", 5));
    expect(() => bad.take()).toThrow(SubscriberFilterError);
    expect(bad.take()).toEqual({ done: true, value: undefined });
  });

  it("a paused subscriber receiving 100,000 events holds at most bufferSize of them", async () => {
    const gc = getGc();
    const bus = new EventBus({ strict: false });
    const bufferSize = 1024;
    const sub = bus.subscribe((e) => e.streamKey === "a", { bufferSize });
    const N = 100_000;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let maxBuffered = 0;
    for (let i = 1; i <= N; i++) {
      // Fresh events with their own payload strings: only the bus could keep them alive.
      bus.publish(ev("a", i, `payload text number ${i} `.repeat(8)));
      if (sub.buffered > maxBuffered) maxBuffered = sub.buffered;
    }
    gc?.();
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(maxBuffered).toBeLessThanOrEqual(bufferSize);
    expect(sub.buffered).toBeLessThanOrEqual(bufferSize);
    expect(bus.stats.dropped).toBe(N - sub.buffered);
    if (gc) {
      // Unbounded buffering would retain ~100k events (tens of MB); the bound keeps ~1k.
      expect(heapGrowth).toBeLessThan(8 * 1024 * 1024);
    }
    const items = await drainNow(sub);
    expect(items[0]).toEqual({ type: "overflow", dropped: N - (items.length - 1) });
    const seqs = seqsOf(items);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => N - seqs.length + 1 + i));
    sub.close();
  });

  it("publish never throws when a filter throws: the bad subscriber is closed and counted", async () => {
    const bus = new EventBus();
    const good = bus.subscribe(() => true);
    const parkedBad = bus.subscribe((e) => {
      if (e.seq === 2) throw new Error("boom");
      return false;
    });
    const bufferedBad = bus.subscribe((e) => {
      if (e.seq === 2) throw new Error("bang");
      return true;
    });
    const parked = parkedBad.next();
    expect(bus.listenerCount()).toBe(3);
    expect(() => bus.publish(ev("a", 1))).not.toThrow();
    expect(() => bus.publish(ev("a", 2))).not.toThrow();
    expect(() => bus.publish(ev("a", 3))).not.toThrow();
    expect(bus.listenerCount()).toBe(1);
    expect(bus.stats.filterErrors).toBe(2);
    await expect(parked).rejects.toBeInstanceOf(SubscriberFilterError);
    await expect(parked).rejects.toThrow(/boom/);
    // The buffered one reports the failure once on its next read, then is done.
    await expect(bufferedBad.next()).rejects.toThrow(/bang/);
    await expect(bufferedBad.next()).resolves.toEqual({ done: true, value: undefined });
    expect(seqsOf(await drainNow(good))).toEqual([1, 2, 3]);
    good.close();
  });

  it("a filter that closes or adds subscribers during publish does not disturb delivery", async () => {
    const bus = new EventBus();
    let late: BusSubscription | undefined;
    let lateScoped: BusSubscription | undefined;
    const victim = bus.subscribe(() => true);
    const meddler = bus.subscribe(() => {
      victim.close();
      late ??= bus.subscribe(() => true);
      lateScoped ??= bus.subscribe(() => true, { agentId: "a" }); // scoped to this very event's agent
      return true;
    });
    bus.publish(ev("a", 1));
    bus.publish(ev("a", 2));
    expect(seqsOf(await drainNow(meddler))).toEqual([1, 2]);
    expect(late && seqsOf(await drainNow(late))).toEqual([2]);
    expect(lateScoped && seqsOf(await drainNow(lateScoped))).toEqual([2]);
    expect(victim.closed).toBe(true);
    meddler.close();
    late?.close();
    lateScoped?.close();
    expect(bus.listenerCount()).toBe(0);
  });

  it("close() ends every subscription and ignores later publishes", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe(() => true);
    const parked = sub.next();
    bus.close();
    await expect(parked).resolves.toEqual({ done: true, value: undefined });
    expect(bus.listenerCount()).toBe(0);
    expect(() => bus.publish(ev("a", 1))).not.toThrow();
    const after = bus.subscribe(() => true);
    await expect(after.next()).resolves.toEqual({ done: true, value: undefined });
    expect(bus.listenerCount()).toBe(0);
  });

  it("a subscription scoped to an agent is offered only that agent's events, its filter still deciding; unscoped ones see all", async () => {
    const bus = new EventBus();
    const calls = { a: 0, b: 0, none: 0 };
    const a = bus.subscribe(
      (e) => {
        calls.a++;
        return e.seq !== 2; // the filter still decides within the agent's events
      },
      { agentId: "a" },
    );
    const b = bus.subscribe(() => (calls.b++, true), { agentId: "b" });
    const none = bus.subscribe(() => (calls.none++, true), { agentId: "nobody" });
    const all = bus.subscribe(() => true);
    expect(bus.listenerCount()).toBe(4);
    bus.publish(ev("a", 1));
    bus.publish(ev("b", 1));
    bus.publish(ev("a", 2));
    bus.publish(ev("a", 3));
    bus.publish({ ...ev("", 1), streamKey: "workspace:w1" }); // a workspace event: no agent
    expect(calls).toEqual({ a: 3, b: 1, none: 0 });
    expect(seqsOf(await drainNow(a))).toEqual([1, 3]);
    expect(seqsOf(await drainNow(b))).toEqual([1]);
    expect(await drainNow(none)).toEqual([]);
    expect((await drainNow(all)).map((i) => (i.type === "event" ? i.event.agentId : "?"))).toEqual([
      "a",
      "b",
      "a",
      "a",
      "",
    ]);
    // Closing detaches from the index: nothing is offered afterwards, the count drops.
    a.close();
    expect(bus.listenerCount()).toBe(3);
    bus.publish(ev("a", 4));
    expect(calls.a).toBe(3);
    const a2 = bus.subscribe(() => true, { agentId: "a" });
    bus.publish(ev("a", 5));
    expect(seqsOf(await drainNow(a2))).toEqual([5]);
    bus.close();
    expect(bus.listenerCount()).toBe(0);
    await expect(b.next()).resolves.toEqual({ done: true, value: undefined });
    await expect(a2.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it("with 1,000 subscriptions scoped to 1,000 agents, an event runs one filter, not 1,000", () => {
    const bus = new EventBus();
    let calls = 0;
    const subs = Array.from({ length: 1_000 }, (_, i) =>
      bus.subscribe(() => (calls++, true), { agentId: `agent${i}` }),
    );
    for (let i = 0; i < 100; i++) bus.publish(ev(`agent${i * 7}`, 1));
    expect(calls).toBe(100);
    expect(bus.stats.delivered).toBe(100);
    for (const s of subs) s.close();
    expect(bus.listenerCount()).toBe(0);
  });

  it("rejects a bad bufferSize", () => {
    const bus = new EventBus();
    expect(() => bus.subscribe(() => true, { bufferSize: 0 })).toThrow(RangeError);
    expect(() => bus.subscribe(() => true, { bufferSize: 1.5 })).toThrow(RangeError);
    expect(bus.listenerCount()).toBe(0);
  });

  describe("strict mode (default under vitest)", () => {
    const bad = (patch: Record<string, unknown>): FleetEvent => ({ ...ev("a", 1), ...patch }) as FleetEvent;

    it("throws InvalidEventError for malformed events and delivers nothing", async () => {
      const bus = new EventBus();
      const sub = bus.subscribe(() => true);
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ payload: { stream: "text", text: 1, turnIndex: 0, blockIndex: 0 } }, /payload\.text/],
        [{ kind: "nope" }, /unknown kind/],
        [{ seq: 0 }, /seq/],
        [{ globalId: 1.5 }, /globalId/],
        [{ tsMs: Number.NaN }, /tsMs/],
        [
          { kind: "agent_spawned", payload: { name: "x", spec: { at: new Date() } } },
          /spec\.at: not a plain object/,
        ],
        [{ kind: "agent_spawned", payload: { name: "x", spec: { n: 1n } } }, /bigint is not JSON/],
        [{ kind: "agent_spawned", payload: { name: "x", spec: { u: undefined } } }, /undefined is not JSON/],
      ];
      for (const [patch, message] of cases) {
        expect(() => bus.publish(bad(patch))).toThrow(InvalidEventError);
        expect(() => bus.publish(bad(patch))).toThrow(message);
      }
      expect(sub.buffered).toBe(0);
      expect(bus.stats.published).toBe(0);
      sub.close();
    });

    it("accepts valid events, including null globalId (live-only) and nested JSON", () => {
      expect(checkEvent(ev("a", 1))).toBeNull();
      expect(checkEvent({ ...ev("a", 1), globalId: null })).toBeNull();
      expect(
        checkEvent({
          ...ev("a", 1),
          kind: "agent_spawned",
          payload: { name: "x", spec: { a: [1, "b", null, { c: true }] } },
        }),
      ).toBeNull();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(
        checkEvent({ ...ev("a", 1), kind: "agent_spawned", payload: { name: "x", spec: cyclic } }),
      ).toMatch(/cycle/);
    });

    it("is off when strict: false", () => {
      const bus = new EventBus({ strict: false });
      const sub = bus.subscribe(() => true);
      expect(() => bus.publish(bad({ kind: "nope" }))).not.toThrow();
      expect(sub.buffered).toBe(1);
      sub.close();
    });
  });
});
