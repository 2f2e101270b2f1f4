/**
 * An in-memory event store for bus/replay tests: assigns per-stream `seq` and fleet-wide
 * `globalId` like the real store's single writer, "commits" synchronously, then publishes to the
 * bus (persist, then publish — decision 5). Implements {@link EventReader}, optionally slowly.
 */
import type { EventBus } from "../../src/bus/bus.js";
import type { EventReader } from "../../src/bus/replay.js";
import { streamKeyOf, type FleetEvent, type NewEvent } from "../../src/events/index.js";

/** Options of {@link MemoryEventStore}. */
export interface MemoryStoreOptions {
  /** Awaited inside every read (e.g. one `setImmediate`), to make replay slow and interleaved. */
  delay?: () => Promise<void>;
  /**
   * When the read takes its snapshot relative to `delay`: `before` (default) — events committed
   * during the delay are only seen live; `after` — they are seen both in the page and live.
   */
  snapshot?: "before" | "after";
}

/** In-memory committed history plus publish-after-commit. */
export class MemoryEventStore implements EventReader {
  /** Every committed event, ascending by globalId. */
  readonly events: FleetEvent[] = [];
  /** Number of readStream/readGlobal calls. */
  reads = 0;
  private readonly streams = new Map<string, FleetEvent[]>();
  private readonly seqs = new Map<string, number>();
  private nextGlobalId = 1;

  /** @param bus where committed events are published (null: store only). */
  constructor(
    private readonly bus: EventBus | null,
    private readonly opts: MemoryStoreOptions = {},
  ) {}

  /**
   * Commit `e` (allocating seq, skipping `seqGap` numbers first, and globalId), then publish it.
   * @returns the committed event.
   */
  append(e: NewEvent, seqGap = 0): FleetEvent {
    const streamKey = streamKeyOf(e);
    const seq = (this.seqs.get(streamKey) ?? 0) + 1 + seqGap;
    this.seqs.set(streamKey, seq);
    const ev = { ...e, streamKey, seq, globalId: this.nextGlobalId++ } as FleetEvent;
    this.events.push(ev);
    let list = this.streams.get(streamKey);
    if (!list) this.streams.set(streamKey, (list = []));
    list.push(ev);
    this.bus?.publish(ev);
    return ev;
  }

  /**
   * Simulate a failed append (decision 5): publish `e` live-only (globalId null, seq allocated and
   * lost), then commit and publish a `store_persist_failed` marker naming the lost seq.
   * @returns [the live-only event, the committed marker].
   */
  failAppend(e: NewEvent): [FleetEvent, FleetEvent] {
    const streamKey = streamKeyOf(e);
    const seq = (this.seqs.get(streamKey) ?? 0) + 1;
    this.seqs.set(streamKey, seq);
    const lost = { ...e, streamKey, seq, globalId: null } as FleetEvent;
    this.bus?.publish(lost);
    const marker = this.append({
      kind: "store_persist_failed",
      payload: { lostSeq: seq, detail: "disk full" },
      workspace: e.workspace,
      agentId: e.agentId,
      tsMs: e.tsMs,
    });
    return [lost, marker];
  }

  /** Committed events of one stream, ascending by seq. */
  stream(streamKey: string): FleetEvent[] {
    return this.streams.get(streamKey) ?? [];
  }

  async readStream(streamKey: string, afterSeq: number, limit: number): Promise<FleetEvent[]> {
    this.reads++;
    const take = (): FleetEvent[] => {
      const list = this.stream(streamKey);
      const from = lowerBound(list, afterSeq, (x) => x.seq);
      return list.slice(from, from + limit);
    };
    return this.timed(take);
  }

  async readGlobal(
    afterGlobalId: number,
    limit: number,
    filter?: (e: FleetEvent) => boolean,
  ): Promise<FleetEvent[]> {
    this.reads++;
    const take = (): FleetEvent[] => {
      const out: FleetEvent[] = [];
      for (
        let i = lowerBound(this.events, afterGlobalId, (x) => x.globalId ?? 0);
        i < this.events.length;
        i++
      ) {
        const e = this.events[i] as FleetEvent;
        if (filter && !filter(e)) continue;
        out.push(e);
        if (out.length >= limit) break;
      }
      return out;
    };
    return this.timed(take);
  }

  private async timed(take: () => FleetEvent[]): Promise<FleetEvent[]> {
    if (this.opts.snapshot === "after") {
      await this.opts.delay?.();
      return take();
    }
    const page = take();
    await this.opts.delay?.();
    return page;
  }
}

/** Index of the first element whose key is > `after` (list ascending by key). */
function lowerBound(list: readonly FleetEvent[], after: number, key: (e: FleetEvent) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid] as FleetEvent) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One macrotask turn. */
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An `output` event of agent `agentId` in workspace `w1` (text `text`). */
export function output(agentId: string, text = "hello", workspace = "w1"): NewEvent {
  return {
    kind: "output",
    payload: { stream: "text", text, turnIndex: 0, blockIndex: 0 },
    workspace,
    agentId,
    tsMs: 1_700_000_000_000,
  };
}

/** A `status_changed` event of agent `agentId` to status `to`. */
export function statusChanged(agentId: string, from: string, to: string, workspace = "w1"): NewEvent {
  return {
    kind: "status_changed",
    payload: { from, to },
    workspace,
    agentId,
    tsMs: 1_700_000_000_000,
  };
}

/** An `agent_gone` event of agent `agentId`. */
export function agentGone(agentId: string, workspace = "w1"): NewEvent {
  return {
    kind: "agent_gone",
    payload: { reason: "removed", replacedBy: null },
    workspace,
    agentId,
    tsMs: 1_700_000_000_000,
  };
}
