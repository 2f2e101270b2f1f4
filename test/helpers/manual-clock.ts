/**
 * A {@link Clock} moved by hand, for the schedules' injected clock (issue 14): timers run only when
 * the test moves the clock past their time and calls {@link ManualClock.runDue}.
 */
import type { Clock, TimerHandle } from "../../src/queue/clock.js";

/** A clock moved by hand: timers run only when `runDue` finds them due. */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; h: TimerHandle }[] = [];
  /** @param t the starting time, ms since the epoch. */
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const h = { id: Symbol("timer") };
    this.timers.push({ at: this.t + Math.max(0, ms), fn, h });
    return h;
  }
  clearTimeout(h: TimerHandle): void {
    this.timers = this.timers.filter((x) => x.h !== h);
  }
  /** Pending timers' due times, ms since the epoch. */
  pending(): number[] {
    return this.timers.map((x) => x.at);
  }
  /** Move to `t` (no timers run). */
  set(t: number): void {
    this.t = t;
  }
  /** Run (and remove) the timers due now; returns how many ran. */
  runDue(): number {
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fn();
    return due.length;
  }
}
