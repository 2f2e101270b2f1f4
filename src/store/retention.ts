/**
 * Age-based retention (`--retention-days`, off when 0): at start and then every `intervalMs`
 * (default one hour), delete what is older than now − days, compared as instants: events (a
 * running agent's are never deleted and seqs are never reused, see {@link EventStore.prune}),
 * audit rows, and ended browser sessions (issue 11: the audit log is covered by retention).
 */
import type { Logger } from "../log.js";

/** Milliseconds per day. */
export const DAY_MS = 86_400_000;

/** One kind of row retention deletes. */
export interface Pruner {
  /** What it deletes, for the log (e.g. `events`). */
  what: string;
  /** Delete rows older than `cutoff`; resolves with how many were deleted. */
  prune(cutoff: Date): Promise<number>;
}

/**
 * Start the retention sweep over `pruners` (each runs in turn; one that fails does not stop the
 * others). Returns a function that stops it (and waits for a sweep in progress). With `days` 0
 * nothing is scheduled.
 */
export function startRetention(
  pruners: readonly Pruner[],
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
      for (const p of pruners) {
        try {
          const deleted = await p.prune(cutoff);
          if (deleted > 0)
            log.info({ deleted, cutoff: cutoff.toISOString() }, `retention: old ${p.what} deleted`);
        } catch (err) {
          log.error({ err, what: p.what }, "retention sweep failed; will retry next interval");
        }
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
