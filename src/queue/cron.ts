/**
 * Cron fire times for schedules (issue 14 item 4): a thin, pure layer over croner (never a parser of
 * our own). Expressions are croner syntax with 5 or 6 fields (seconds optional; nicknames such as
 * `@daily` accepted; croner's `mode: "5-or-6-parts"`, so a one-off date or a 7-field year pattern is
 * refused), read in an IANA time zone. Across a DST change croner's rules apply: a fixed-time job
 * (`30 2 * * *`) whose local time does not exist that day runs at the first valid time after the gap,
 * and runs once when its local time occurs twice; an interval job (`*\/15 * * * *`) skips the gap and
 * runs on both occurrences of a repeated time.
 */
import { Cron, CronPattern } from "croner";
import type { FieldIssue } from "../errors.js";
import { ValidationFailed } from "../errors.js";

/** Longest cron expression accepted, characters. */
export const CRON_MAX_LENGTH = 200;
/** Missed firings are counted up to this many (a longer outage reports "10000+"). */
export const MISSED_COUNT_CAP = 10_000;
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
 * @param fromMs "now" for the never-fires check, ms since the epoch.
 * @returns the problems found (empty when both are good), with paths `["input","cron"]` (croner's own
 *   message, or "never fires" for a pattern with no match after `fromMs` such as `0 0 30 2 *`) and
 *   `["input","timeZone"]`.
 */
export function cronIssues(expr: string, timeZone: string, fromMs: number): FieldIssue[] {
  const issues = syntaxIssues(expr, timeZone);
  if (issues.length === 0 && cronOf(expr, timeZone).nextRun(new Date(fromMs)) === null)
    issues.push({ path: ["input", "cron"], message: "never fires: no date matches the expression" });
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
