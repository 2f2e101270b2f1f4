// Issue 14 item 7: which run endings are retried (transient) and which are final (permanent), the
// per-launch retry delay, and the per-provider shared backoff. Pure functions: no daemon needed.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  classifyEnding,
  compileTransientPatterns,
  DEFAULT_TRANSIENT_PATTERNS,
  ProviderBackoff,
  retryDelayMs,
  type RunEnding,
  type Verdict,
} from "../../src/queue/retry.js";
import type { RetryPolicy } from "../../src/queue/types.js";

const patterns = compileTransientPatterns([]);

/** A failed run that ended with a RunEnd `ProviderError` carrying `detail`. */
const providerError = (detail: string): RunEnding => ({
  status: "failed",
  outcome: "ProviderError",
  detail,
  turnsStarted: 0,
  logTail: null,
});

describe("classifyEnding", () => {
  const cases: Array<[string, RunEnding, Verdict["kind"], string | null]> = [
    [
      "done",
      { status: "done", outcome: "EndOfTurn", detail: null, turnsStarted: 2, logTail: null },
      "succeeded",
      null,
    ],
    [
      "429 rate limit (the double's message)",
      providerError("429 Too Many Requests: rate_limit_error: This request would exceed your rate limit"),
      "transient",
      "provider error: 429 Too Many Requests: rate_limit_error: This request would exceed your rate limit (transient)",
    ],
    [
      "529 overloaded",
      providerError("529 overloaded_error: Overloaded"),
      "transient",
      "provider error: 529 overloaded_error: Overloaded (transient)",
    ],
    ["Overloaded alone, any case", providerError("Overloaded"), "transient", null],
    ["503 as a status code", providerError("HTTP 503 from upstream"), "transient", null],
    ["ECONNRESET", providerError("request failed: read ECONNRESET"), "transient", null],
    ["ETIMEDOUT", providerError("connect ETIMEDOUT 1.2.3.4:443"), "transient", null],
    ["timed out", providerError("operation timed out after 60s"), "transient", null],
    ["socket hang up", providerError("socket hang up"), "transient", null],
    ["rate limit with a space", providerError("Rate limit reached for requests"), "transient", null],
    [
      "401",
      providerError("401 Unauthorized: authentication_error: invalid x-api-key"),
      "permanent",
      "provider error: 401 Unauthorized: authentication_error: invalid x-api-key — not retried: permanent",
    ],
    [
      "401 (protocol §3.3 example)",
      providerError("401 Unauthorized"),
      "permanent",
      "provider error: 401 Unauthorized — not retried: permanent",
    ],
    [
      "403 mixed with rate limit: permanent wins",
      providerError("403 Forbidden: rate limit policy denies this key"),
      "permanent",
      null,
    ],
    [
      "429 insufficient_quota (billing) is permanent",
      providerError("429 insufficient_quota: You exceeded your current quota"),
      "permanent",
      null,
    ],
    ["model not found", providerError("404 not_found_error: model: claude-nope"), "permanent", null],
    [
      "unknown provider error",
      providerError("500 provider error"),
      "permanent",
      "provider error: 500 provider error — not retried: no transient-error pattern matches",
    ],
    [
      "a status code inside a number is not one",
      providerError("request id 15290 failed: bad input"),
      "permanent",
      null,
    ],
    [
      "stream error: no RunEnd after a turn started",
      {
        status: "failed",
        outcome: null,
        detail: null,
        turnsStarted: 2,
        logTail: "…stream error: connection reset",
      },
      "transient",
      "worker died with a stream error (exit 1 without RunEnd)",
    ],
    [
      "preflight: no RunEnd, no turn",
      {
        status: "failed",
        outcome: null,
        detail: null,
        turnsStarted: 0,
        logTail:
          "[fake caliban __agent-worker] argv=…\n[caliban __agent-worker] provider: API key is not set\n\n",
      },
      "permanent",
      "worker failed before its first turn (preflight): [caliban __agent-worker] provider: API key is not set",
    ],
    [
      "preflight without a log",
      { status: "failed", outcome: null, detail: null, turnsStarted: 0, logTail: null },
      "permanent",
      "worker failed before its first turn (preflight)",
    ],
    [
      "StreamIdle (the provider stalled)",
      { status: "failed", outcome: "StreamIdle", detail: "120000 ms", turnsStarted: 1, logTail: null },
      "transient",
      "the provider's stream went idle: 120000 ms (transient)",
    ],
    [
      "HookDenied",
      {
        status: "failed",
        outcome: "HookDenied",
        detail: "before_run hook refused",
        turnsStarted: 0,
        logTail: null,
      },
      "permanent",
      "run ended with HookDenied: before_run hook refused — not retried",
    ],
    [
      "MaxTurnsReached (even with a transient-looking detail)",
      {
        status: "failed",
        outcome: "MaxTurnsReached",
        detail: "50 (timeout)",
        turnsStarted: 50,
        logTail: null,
      },
      "permanent",
      "run ended with MaxTurnsReached: 50 (timeout) — not retried",
    ],
    [
      "killed",
      { status: "killed", outcome: null, detail: null, turnsStarted: 1, logTail: null },
      "permanent",
      "run killed",
    ],
    [
      "crashed",
      { status: "crashed", outcome: null, detail: null, turnsStarted: 1, logTail: null },
      "permanent",
      "run crashed: its daemon lost the worker",
    ],
  ];

  it.each(cases)("%s", (_name, ending, kind, reason) => {
    const v = classifyEnding(ending, patterns);
    expect(v.kind).toBe(kind);
    if (reason !== null) expect(v).toEqual(kind === "succeeded" ? { kind } : { kind, reason });
  });

  it("keeps a quoted log line to one line of at most 200 chars, without secrets", () => {
    const secret = "sk-ant-api03-" + "A".repeat(40);
    const v = classifyEnding(
      {
        status: "failed",
        outcome: null,
        detail: null,
        turnsStarted: 0,
        logTail: `first line\nkey ${secret} rejected: ${"x".repeat(400)}\r\n`,
      },
      patterns,
    );
    expect(v.kind).toBe("permanent");
    const reason = v.kind === "permanent" ? v.reason : "";
    expect(reason).not.toContain(secret);
    expect(reason).not.toMatch(/[\r\n]/);
    expect(reason.length).toBeLessThanOrEqual(
      "worker failed before its first turn (preflight): ".length + 200,
    );
    expect(reason).toMatch(/…$/);
  });

  it("retries what an operator's --transient-error pattern matches, never a permanent signature", () => {
    const mine = compileTransientPatterns(["upstream hiccup", "quota window"]);
    expect(classifyEnding(providerError("500 upstream hiccup"), patterns).kind).toBe("permanent");
    expect(classifyEnding(providerError("500 Upstream HICCUP"), mine).kind).toBe("transient");
    expect(classifyEnding(providerError("401 upstream hiccup"), mine).kind).toBe("permanent");
  });

  it("refuses to classify a run that has not ended", () => {
    expect(() =>
      classifyEnding(
        { status: "running", outcome: null, detail: null, turnsStarted: 1, logTail: null },
        patterns,
      ),
    ).toThrow(RangeError);
  });
});

describe("compileTransientPatterns", () => {
  it("compiles the defaults case-insensitively, operator patterns after them", () => {
    const all = compileTransientPatterns(["foo+bar"]);
    expect(all).toHaveLength(DEFAULT_TRANSIENT_PATTERNS.length + 1);
    expect(all.every((r) => r.flags.includes("i"))).toBe(true);
    expect(all.at(-1)?.test("FOOOBAR")).toBe(true);
  });

  it("throws a ConfigError naming a bad or empty pattern", () => {
    expect(() => compileTransientPatterns(["ok", "(unclosed"])).toThrow(ConfigError);
    expect(() => compileTransientPatterns(["(unclosed"])).toThrow(/--transient-error.*"\(unclosed"/);
    expect(() => compileTransientPatterns([" "])).toThrow(ConfigError);
  });
});

describe("retryDelayMs", () => {
  const policy: RetryPolicy = { maxAttempts: 10, backoffMs: 10_000, maxBackoffMs: 300_000 };
  const randoms = [0, 1 - Number.EPSILON, 0.5, ...Array.from({ length: 500 }, () => Math.random())];

  it("doubles per failed attempt with equal jitter: an integer in [d/2, d]", () => {
    for (let n = 1; n <= 6; n++) {
      const d = Math.min(300_000, 10_000 * 2 ** (n - 1));
      const seen = randoms.map((r) => retryDelayMs(n, policy, () => r));
      for (const ms of seen) {
        expect(Number.isInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(d / 2);
        expect(ms).toBeLessThanOrEqual(d);
      }
      expect(retryDelayMs(n, policy, () => 0)).toBe(d / 2);
      expect(retryDelayMs(n, policy, () => 1 - Number.EPSILON)).toBe(d);
    }
  });

  it("is capped at maxBackoffMs, even for huge attempt numbers", () => {
    for (const n of [6, 7, 20, 1000, 5000]) {
      for (const r of randoms) {
        const ms = retryDelayMs(n, policy, () => r);
        expect(ms).toBeGreaterThanOrEqual(150_000);
        expect(ms).toBeLessThanOrEqual(300_000);
      }
    }
    const odd: RetryPolicy = { maxAttempts: 3, backoffMs: 7, maxBackoffMs: 7 };
    for (const r of randoms) expect(retryDelayMs(3, odd, () => r)).toBeGreaterThanOrEqual(4);
    expect(retryDelayMs(1, { maxAttempts: 2, backoffMs: 0, maxBackoffMs: 0 }, () => 0.9)).toBe(0);
  });

  it("refuses a bad attempt number, policy or random source", () => {
    expect(() => retryDelayMs(0, policy, Math.random)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5, policy, Math.random)).toThrow(RangeError);
    expect(() => retryDelayMs(1, { ...policy, backoffMs: -1 }, Math.random)).toThrow(RangeError);
    expect(() => retryDelayMs(1, policy, () => 1)).toThrow(RangeError);
    expect(() => retryDelayMs(1, policy, () => Number.NaN)).toThrow(RangeError);
  });
});

describe("ProviderBackoff", () => {
  const t0 = 1_800_000_000_000;

  it("a burst of 3 transient failures within a minute backs the provider off 30 s; fewer do not", () => {
    const b = new ProviderBackoff();
    expect(b.recordTransient("anthropic", t0)).toBeNull();
    expect(b.recordTransient("anthropic", t0 + 10_000)).toBeNull();
    expect(b.until("anthropic", t0 + 10_000)).toBeNull();
    expect(b.recordTransient("anthropic", t0 + 20_000)).toBe(t0 + 50_000);
    expect(b.until("anthropic", t0 + 49_999)).toBe(t0 + 50_000);
    expect(b.until("anthropic", t0 + 50_000)).toBeNull();
    expect(b.until("openai", t0 + 20_000)).toBeNull();
    expect(b.snapshot(t0 + 20_000)).toEqual([{ provider: "anthropic", untilMs: t0 + 50_000, level: 1 }]);
    expect(b.snapshot(t0 + 50_000)).toEqual([]);
  });

  it("failures older than the window do not count", () => {
    const b = new ProviderBackoff({ windowMs: 60_000, threshold: 3 });
    b.recordTransient("openai", t0);
    b.recordTransient("openai", t0 + 30_000);
    expect(b.recordTransient("openai", t0 + 60_001)).toBeNull(); // t0 fell out of the window
    expect(b.recordTransient("openai", t0 + 61_000)).toBe(t0 + 61_000 + 30_000);
  });

  it("further bursts double the backoff (capped) and only extend it; a success resets the level", () => {
    const b = new ProviderBackoff({ threshold: 2, baseMs: 30_000, maxMs: 100_000 });
    const burst = (at: number): number | null => {
      b.recordTransient("anthropic", at);
      return b.recordTransient("anthropic", at + 1);
    };
    expect(burst(t0)).toBe(t0 + 1 + 30_000);
    expect(burst(t0 + 5_000)).toBe(t0 + 5_001 + 60_000); // while backing off: level 2
    expect(b.snapshot(t0 + 5_001)[0]?.level).toBe(2);
    // Just after it ended, the released launches hit the limit again: same episode, level 3.
    expect(burst(t0 + 70_000)).toBe(t0 + 70_001 + 100_000); // 120 s capped at 100 s
    expect(burst(t0 + 80_000)).toBe(t0 + 80_001 + 100_000);
    b.recordSuccess("anthropic");
    // Level reset, but the backoff in force is never shortened.
    expect(burst(t0 + 90_000)).toBe(t0 + 80_001 + 100_000);
    expect(b.snapshot(t0 + 90_001)).toEqual([{ provider: "anthropic", untilMs: t0 + 180_001, level: 1 }]);
  });

  it("a burst long after the last backoff starts a new episode at the base delay", () => {
    const b = new ProviderBackoff({ threshold: 1, baseMs: 1_000, windowMs: 10_000 });
    expect(b.recordTransient("google", t0)).toBe(t0 + 1_000);
    expect(b.recordTransient("google", t0 + 500)).toBe(t0 + 2_500);
    expect(b.recordTransient("google", t0 + 3_600_000)).toBe(t0 + 3_601_000);
  });

  it("providers back off independently; a success of one does not touch another", () => {
    const b = new ProviderBackoff({ threshold: 1 });
    b.recordTransient("anthropic", t0);
    b.recordTransient("openai", t0 + 1);
    b.recordSuccess("openai");
    b.recordSuccess("ollama");
    expect(b.snapshot(t0 + 2).map((e) => e.provider)).toEqual(["anthropic", "openai"]);
  });

  it("refuses bad options", () => {
    expect(() => new ProviderBackoff({ threshold: 0 })).toThrow(ConfigError);
    expect(() => new ProviderBackoff({ windowMs: 1.5 })).toThrow(ConfigError);
    expect(() => new ProviderBackoff({ baseMs: 10_000, maxMs: 5_000 })).toThrow(ConfigError);
  });
});
