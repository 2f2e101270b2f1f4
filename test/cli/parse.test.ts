import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parseExpiry, parseInstant } from "../../src/cli/parse.js";

const NOW = Date.parse("2026-12-01T00:00:00Z");
const now = () => NOW;

describe("dates on the command line", () => {
  it("--expires: durations from now and real calendar dates, in the future, at most 10 years ahead", () => {
    expect(parseExpiry("90m", now)).toBe("2026-12-01T01:30:00.000Z");
    expect(parseExpiry("30d", now)).toBe("2026-12-31T00:00:00.000Z");
    expect(parseExpiry("2027-01-01", now)).toBe("2027-01-01T00:00:00.000Z");
    for (const bad of [
      "2030-02-30",
      "2027-13-01",
      "0d",
      "yesterday",
      "2026-11-01",
      "9999999d",
      "2040-01-01",
    ]) {
      expect(() => parseExpiry(bad, now), bad).toThrow(InvalidArgumentError);
    }
  });

  it("--since/--until: no calendar date rolls over into the next month", () => {
    expect(parseInstant("2026-02-28", now)).toBe("2026-02-28T00:00:00.000Z");
    expect(() => parseInstant("2026-02-30", now)).toThrow(InvalidArgumentError);
  });
});
