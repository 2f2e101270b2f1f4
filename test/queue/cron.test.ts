/** Fire-time arithmetic of schedules (src/queue/cron.ts) over croner. */
import { describe, expect, it } from "vitest";
import {
  CronTimes,
  MISSED_COUNT_CAP,
  SCHEDULE_MIN_INTERVAL_MS,
  cronIssues,
  timeZoneProblem,
} from "../../src/queue/cron.js";
import { ValidationFailed } from "../../src/errors.js";

const T = (iso: string): number => new Date(iso).getTime();
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

describe("CronTimes", () => {
  it("next times are strictly after the reference, whole seconds", () => {
    const c = new CronTimes("0 * * * *", "UTC");
    expect(iso(c.nextAfter(T("2026-01-01T10:00:00.000Z")))).toBe("2026-01-01T11:00:00.000Z");
    expect(iso(c.nextAfter(T("2026-01-01T09:59:59.999Z")))).toBe("2026-01-01T10:00:00.000Z");
    expect(c.nextN(2, T("2026-01-01T10:00:00.400Z")).map(iso)).toEqual([
      "2026-01-01T11:00:00.000Z",
      "2026-01-01T12:00:00.000Z",
    ]);
    expect(c.nextN(0, 0)).toEqual([]);
  });

  it("the latest time at or before a moment includes the moment itself", () => {
    const c = new CronTimes("0 * * * *", "UTC");
    expect(iso(c.latestAtOrBefore(T("2026-01-01T10:00:00.000Z")))).toBe("2026-01-01T10:00:00.000Z");
    expect(iso(c.latestAtOrBefore(T("2026-01-01T09:59:59.999Z")))).toBe("2026-01-01T09:00:00.000Z");
  });

  it("summarizes the times between two moments, capped", () => {
    const c = new CronTimes("*/15 * * * *", "Europe/Berlin");
    expect(c.between(T("2026-01-01T10:00:00Z"), T("2026-01-01T10:59:59Z"))).toEqual({
      count: 4,
      capped: false,
      latestMs: T("2026-01-01T10:45:00Z"),
    });
    expect(c.between(T("2026-01-01T10:00:00Z"), T("2026-01-01T10:00:00Z"))).toEqual({
      count: 1,
      capped: false,
      latestMs: T("2026-01-01T10:00:00Z"),
    });
    expect(c.between(T("2026-01-01T10:00:00Z"), T("2026-01-01T09:00:00Z"))).toBeNull();
    // Every minute for eight days is 11,520 times: more than the cap.
    const s = new CronTimes("* * * * *", "UTC");
    expect(s.between(T("2026-01-01T00:00:00Z"), T("2026-01-09T00:00:30Z"))).toEqual({
      count: MISSED_COUNT_CAP,
      capped: true,
      latestMs: T("2026-01-09T00:00:00Z"),
    });
    expect(
      s.between(T("2026-01-01T00:00:00Z"), T("2026-01-01T00:00:00Z") + (MISSED_COUNT_CAP - 1) * 60_000),
    ).toEqual({
      count: MISSED_COUNT_CAP,
      capped: false,
      latestMs: T("2026-01-01T00:00:00Z") + (MISSED_COUNT_CAP - 1) * 60_000,
    });
  });

  it("refuses what croner refuses, a one-off date, and an unknown zone", () => {
    expect(() => new CronTimes("0 * * *", "UTC")).toThrow(ValidationFailed);
    expect(() => new CronTimes("2026-01-01T00:00:00", "UTC")).toThrow(ValidationFailed);
    expect(() => new CronTimes("0 * * * *", "Nowhere/Town")).toThrow(ValidationFailed);
    expect(timeZoneProblem("Asia/Tokyo")).toBeNull();
    expect(timeZoneProblem("+01:00")).toMatch(/unknown time zone/);
    expect(cronIssues("@daily", "UTC", T("2026-01-01T00:00:00Z"))).toEqual([]);
    expect(cronIssues("0 0 30 2 *", "UTC", T("2026-01-01T00:00:00Z"))).toEqual([
      { path: ["input", "cron"], message: "never fires: no date matches the expression" },
    ]);
  });
});

describe("the minimum interval between fire times", () => {
  const now = T("2026-03-01T09:30:17Z");
  const refused = (expr: string, zone = "UTC") => cronIssues(expr, zone, now);

  it("refuses expressions that fire less than a minute apart, saying how often", () => {
    expect(SCHEDULE_MIN_INTERVAL_MS).toBe(60_000);
    expect(refused("* * * * * *")).toEqual([
      { path: ["input", "cron"], message: "fires every 1 s; schedules may fire at most once a minute" },
    ]);
    expect(refused("*/10 * * * * *")[0]!.message).toBe(
      "fires every 10 s; schedules may fire at most once a minute",
    );
    expect(refused("0,30 * * * * *", "Europe/Berlin")[0]!.message).toMatch(/^fires every 30 s;/);
    // Uneven gaps: the shortest is named.
    expect(refused("0,1 * * * * *")[0]!.message).toBe(
      "has fire times 1 s apart; schedules may fire at most once a minute",
    );
    expect(refused("0,59 * * * * *")[0]!.message).toMatch(/^has fire times 1 s apart;/);
    // Every second of one minute a year: rare, but a burst of 60 firings.
    expect(refused("* 0 0 1 1 *")[0]!.message).toMatch(/^fires every 1 s;/);
    for (const expr of ["* * * * * *", "*/10 * * * * *", "0,1 * * * * *", "* 0 0 1 1 *"])
      expect(refused(expr).map((i) => i.path)).toEqual([["input", "cron"]]);
  });

  it("accepts every 5-field expression and a 6-field one with one second a minute", () => {
    for (const expr of [
      "* * * * *",
      "*/5 * * * *",
      "@hourly",
      "30 */5 * * * *",
      "0 * * * * *",
      "5 * * * * *",
    ])
      expect(refused(expr, "Europe/Berlin"), expr).toEqual([]);
    // Fire times exactly a minute apart, across a DST change (Berlin, 29 March 2026, 02:00 → 03:00).
    expect(cronIssues("15 * * * * *", "Europe/Berlin", T("2026-03-29T00:59:30Z"))).toEqual([]);
    expect(cronIssues("15 * * * * *", "Europe/Berlin", T("2026-10-25T00:59:30Z"))).toEqual([]);
  });
});
