/**
 * Time as the queue and the schedules see it: injected so tests can move it (issue 14 "schedules
 * with an injected clock") and production uses the real one.
 */

/** A handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly id: unknown };

/** Current time and one-shot timers. */
export interface Clock {
  /** Now, ms since the epoch. */
  now(): number;
  /** Call `fn` once after `ms` (clamped to 0 … 2^31-1) unless cleared. Never keeps the process alive. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancel a timer; a handle already fired or cleared is ignored. */
  clearTimeout(h: TimerHandle): void;
}

/** Longest delay Node's setTimeout accepts, ms; longer waits are re-armed when they expire. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock (Date.now, unref'd Node timers). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, Math.min(MAX_TIMER_MS, ms)));
    t.unref();
    return { id: t };
  },
  clearTimeout(h) {
    clearTimeout(h.id as NodeJS.Timeout);
  },
};
