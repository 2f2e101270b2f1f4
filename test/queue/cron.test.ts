/** Fire-time arithmetic of schedules (src/queue/cron.ts) over croner. */
import { describe, expect, it } from "vitest";
import { CronTimes, MISSED_COUNT_CAP, cronIssues, timeZoneProblem } from "../../src/queue/cron.js";
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
    const s = new CronTimes("* * * * * *", "UTC");
    expect(s.between(T("2026-01-01T00:00:00Z"), T("2026-01-01T03:00:00Z"))).toEqual({
      count: MISSED_COUNT_CAP,
      capped: true,
      latestMs: T("2026-01-01T03:00:00Z"),
    });
    expect(
      s.between(T("2026-01-01T00:00:00Z"), T("2026-01-01T00:00:00Z") + (MISSED_COUNT_CAP - 1) * 1000),
    ).toEqual({
      count: MISSED_COUNT_CAP,
      capped: false,
      latestMs: T("2026-01-01T00:00:00Z") + (MISSED_COUNT_CAP - 1) * 1000,
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
