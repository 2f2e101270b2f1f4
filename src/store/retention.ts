/**
 * Age-based retention (`--retention-days`, off when 0): at start and then every `intervalMs`
 * (default one hour), delete events older than now − days, compared as instants; a running
 * agent's events are never deleted and seqs are never reused (see {@link EventStore.prune}).
 */
import type { Logger } from "../log.js";
import type { EventStore } from "./events.js";

/** Milliseconds per day. */
export const DAY_MS = 86_400_000;

/**
 * Start the retention sweep. Returns a function that stops it (and waits for a sweep in progress).
 * With `days` 0 nothing is scheduled.
 */
export function startRetention(
  store: EventStore,
  days: number,
  log: Logger,
  intervalMs = 3_600_000,
  now: () => number = Date.now,
): () => Promise<void> {
  if (days <= 0) return async () => {};
  let current: Promise<void> = Promise.resolve();
  const sweep = () => {
    current = (async () => {
      const cutoff = new Date(now() - days * DAY_MS);
      try {
        const deleted = await store.prune(cutoff);
        if (deleted > 0) log.info({ deleted, cutoff: cutoff.toISOString() }, "retention: old events deleted");
      } catch (err) {
        log.error({ err }, "retention sweep failed; will retry next interval");
      }
    })();
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await current;
  };
}
