/**
 * Cron fire times for schedules (issue 14 item 4): a thin, pure layer over croner (never a parser of
 * our own). Expressions are croner syntax with 5 or 6 fields (seconds optional; nicknames such as
 * `@daily` accepted; croner's `mode: "5-or-6-parts"`, so a one-off date or a 7-field year pattern is
 * refused), read in an IANA time zone. Across a DST change croner's rules apply: a fixed-time job
 * (`30 2 * * *`) whose local time does not exist that day runs at the first valid time after the gap,
 * and runs once when its local time occurs twice; an interval job (`*\/15 * * * *`) skips the gap and
 * runs on both occurrences of a repeated time. A new schedule's fire times must be at least
 * {@link SCHEDULE_MIN_INTERVAL_MS} (a minute) apart.
 */
import { Cron, CronPattern } from "croner";
import type { FieldIssue } from "../errors.js";
import { ValidationFailed } from "../errors.js";

/** Longest cron expression accepted, characters. */
export const CRON_MAX_LENGTH = 200;
/** Missed firings are counted up to this many (a longer outage reports "10000+"). */
export const MISSED_COUNT_CAP = 10_000;
/**
 * Shortest time a schedule's consecutive fire times may be apart, ms (issue 14 review: an
 * every-second schedule enqueued a launch a second, or with overlap SKIP wrote a firing row and a
 * `schedule_changed` event a second, ~170k a day, to every fleetChanges subscriber). Every 5-field
 * expression meets it; a 6-field one must have a single value in its seconds field.
 */
export const SCHEDULE_MIN_INTERVAL_MS = 60_000;
/**
 * How many fire times after "now" {@link cronIssues} checks against {@link SCHEDULE_MIN_INTERVAL_MS}.
 * The seconds field is the same in every matching minute, so a minute with two fire times (the only
 * way to fire less than a minute apart, zones' offsets being whole minutes) shows within any three
 * consecutive fire times; 20 is a margin, and still cheap.
 */
const GAP_SAMPLE = 20;
/** The croner mode every schedule uses: 5 or 6 fields. */
const CRON_MODE = "5-or-6-parts" as const;

/**
 * Why `timeZone` is not a usable IANA time zone name, or null when it is (checked with
 * `Intl.DateTimeFormat`, the same tz database croner converts with). UTC offsets such as `+01:00`
 * are refused (Node 20's Intl does not take them as zones).
 */
export function timeZoneProblem(timeZone: string): string | null {
  if (timeZone.trim() === "") return "must not be empty";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return null;
  } catch {
    return `unknown time zone ${JSON.stringify(timeZone)}: give an IANA name such as "UTC" or "Europe/Berlin"`;
  }
}

/**
 * Check a schedule's expression and time zone.
 * @param fromMs "now" for the fire-time checks, ms since the epoch.
 * @returns the problems found (empty when both are good), with paths `["input","cron"]` (croner's own
 *   message; "never fires" for a pattern with no match after `fromMs` such as `0 0 30 2 *`; or, when
 *   two of the next fire times are less than {@link SCHEDULE_MIN_INTERVAL_MS} apart, "fires every 1 s;
 *   schedules may fire at most once a minute" for `* * * * * *` (`*\/10 * * * * *`: every 10 s;
 *   `0,1 * * * * *`: "has fire times 1 s apart; …"), while `30 *\/5 * * * *` is accepted) and
 *   `["input","timeZone"]`.
 */
export function cronIssues(expr: string, timeZone: string, fromMs: number): FieldIssue[] {
  const issues = syntaxIssues(expr, timeZone);
  if (issues.length > 0) return issues;
  const times = cronOf(expr, timeZone)
    .nextRuns(GAP_SAMPLE, new Date(fromMs))
    .map((d) => d.getTime());
  if (times.length === 0) {
    issues.push({ path: ["input", "cron"], message: "never fires: no date matches the expression" });
    return issues;
  }
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  const shortest = Math.min(...gaps);
  if (shortest < SCHEDULE_MIN_INTERVAL_MS) {
    const secs = shortest / 1000;
    const how = gaps.every((g) => g === shortest)
      ? `fires every ${secs} s`
      : `has fire times ${secs} s apart`;
    issues.push({ path: ["input", "cron"], message: `${how}; schedules may fire at most once a minute` });
  }
  return issues;
}

/** The problems of the expression's syntax and of the zone (no fire-time check). */
function syntaxIssues(expr: string, timeZone: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const tzProblem = timeZoneProblem(timeZone);
  if (tzProblem !== null) issues.push({ path: ["input", "timeZone"], message: tzProblem });
  if (expr.trim() === "") {
    issues.push({ path: ["input", "cron"], message: "must not be empty" });
  } else if (expr.length > CRON_MAX_LENGTH) {
    issues.push({ path: ["input", "cron"], message: `at most ${CRON_MAX_LENGTH} characters` });
  } else {
    try {
      // CronPattern first: the Cron constructor would take an ISO date string as a one-off job.
      new CronPattern(expr, undefined, { mode: CRON_MODE });
    } catch (err) {
      issues.push({ path: ["input", "cron"], message: err instanceof Error ? err.message : String(err) });
    }
  }
  return issues;
}

/** A paused (never self-running) croner job for the expression, used only to compute times. */
function cronOf(expr: string, timeZone: string): Cron {
  return new Cron(expr, { timezone: timeZone, paused: true, mode: CRON_MODE });
}

/**
 * Fire times of one expression in one time zone. All times are ms since the epoch; croner works in
 * whole seconds.
 */
export class CronTimes {
  private readonly cron: Cron;

  /**
   * @throws ValidationFailed (paths as {@link cronIssues}) when the expression or the zone is
   *   unusable (an expression that never fires is accepted here: it just has no next time).
   */
  constructor(
    readonly expr: string,
    readonly timeZone: string,
  ) {
    const issues = syntaxIssues(expr, timeZone);
    if (issues.length > 0) throw new ValidationFailed(issues);
    this.cron = cronOf(expr, timeZone);
  }

  /** The first fire time strictly after `afterMs`, or null when there is none. */
  nextAfter(afterMs: number): number | null {
    return this.cron.nextRun(new Date(afterMs))?.getTime() ?? null;
  }

  /** The next `n` fire times strictly after `afterMs`, ascending (fewer when the expression ends). */
  nextN(n: number, afterMs: number): number[] {
    if (n <= 0) return [];
    return this.cron.nextRuns(n, new Date(afterMs)).map((d) => d.getTime());
  }

  /** The latest fire time at or before `atMs`, or null when there is none. */
  latestAtOrBefore(atMs: number): number | null {
    // previousRuns includes a run earlier in the same second as its reference, so +1 ms includes atMs.
    return this.cron.previousRuns(1, new Date(atMs + 1))[0]?.getTime() ?? null;
  }

  /**
   * The fire times from `firstMs` (itself a fire time, included) to `toMs` (included), summarized.
   * @returns `count` (capped at {@link MISSED_COUNT_CAP}; `capped` true when there were more), the
   *   latest of them, or null when `firstMs > toMs`.
   */
  between(firstMs: number, toMs: number): { count: number; capped: boolean; latestMs: number } | null {
    if (firstMs > toMs) return null;
    let count = 1;
    let latestMs = firstMs;
    for (const d of this.cron.enumerate(new Date(firstMs))) {
      const t = d.getTime();
      if (t > toMs) return { count, capped: false, latestMs };
      if (count >= MISSED_COUNT_CAP) {
        return { count, capped: true, latestMs: this.latestAtOrBefore(toMs) ?? latestMs };
      }
      count++;
      latestMs = t;
    }
    return { count, capped: false, latestMs };
  }
}
