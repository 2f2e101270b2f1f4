/**
 * A gateway-wide, fair limit on concurrent store reads made by replaying subscriptions (issue 11
 * item 9): at most `concurrency` pages are read at once, and waiting reads are served round-robin
 * across clients (one WebSocket connection or HTTP request each) — a client with 300 replays
 * queued gets one page, then every other waiting client gets one, and so on — so one client
 * cannot starve the rest. Built on async-mutex's priority semaphore: a read is queued with
 * priority −(reads this client already has waiting or running), and equal priorities are FIFO.
 */
import { Semaphore } from "async-mutex";
import type { EventReader } from "./replay.js";

/** Default number of store pages read at once for replays across the gateway. */
export const DEFAULT_REPLAY_CONCURRENCY = 4;

/** The fair limiter. */
export class ReplayLimiter {
  private readonly sem: Semaphore;
  private readonly pending = new Map<string, number>();

  /** @param concurrency pages read at once (integer ≥ 1). */
  constructor(concurrency = DEFAULT_REPLAY_CONCURRENCY) {
    this.sem = new Semaphore(Math.max(1, Math.floor(concurrency)));
  }

  /** Reads waiting or running now, over all clients. */
  get inFlight(): number {
    let n = 0;
    for (const v of this.pending.values()) n += v;
    return n;
  }

  /** Run `read` when a slot is free, in round-robin order across `clientKey`s. */
  async run<T>(clientKey: string, read: () => Promise<T>): Promise<T> {
    const mine = this.pending.get(clientKey) ?? 0;
    this.pending.set(clientKey, mine + 1);
    try {
      return await this.sem.runExclusive(read, 1, -mine);
    } finally {
      const left = (this.pending.get(clientKey) ?? 1) - 1;
      if (left <= 0) this.pending.delete(clientKey);
      else this.pending.set(clientKey, left);
    }
  }

  /** `reader` with every read going through this limiter under `clientKey`. */
  wrap(reader: EventReader, clientKey: string): EventReader {
    return {
      readStream: (k, a, l) => this.run(clientKey, () => reader.readStream(k, a, l)),
      readGlobal: (a, l, f) => this.run(clientKey, () => reader.readGlobal(a, l, f)),
    };
  }
}
