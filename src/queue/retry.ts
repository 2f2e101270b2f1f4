/**
 * Which failed runs of a launch are retried, and when (issue 14 item 7). Pure: no clock, no timers,
 * no I/O — the dispatcher (queue.ts) passes in the time, the randomness and what it knows of a
 * run's end.
 *
 * - {@link classifyEnding}: a run's ending → succeeded / transient (retry) / permanent (FAILED).
 *   Transient = a RunEnd `ProviderError` whose message matches a transient pattern (rate limits,
 *   overload, network blips; operators add patterns with `--transient-error <regex>`), or the
 *   worker's stream-error exit (exit 1 without RunEnd after a turn started, caliband-protocol.md
 *   §3.3/§5.4). Explicit permanent signatures (401, 403, invalid API key, …) always win.
 * - {@link retryDelayMs}: exponential backoff with equal jitter, per launch.
 * - {@link ProviderBackoff}: a backoff shared by every launch of one provider, started by a burst
 *   of transient failures (so a rate-limited provider is not hammered by the whole queue).
 */
import { ConfigError } from "../errors.js";
import { cleanLogText, redactSecrets } from "../fleet/worker-log.js";
import type { RetryPolicy } from "./types.js";

/**
 * Regex sources (matched case-insensitively) of transient provider failures: HTTP 429/529 and
 * 502/503/504 as word-bounded status codes, overload and rate-limit texts (Anthropic's
 * `rate_limit_error`, `overloaded_error`), and network errors (reset, timeout, hang-up, DNS retry).
 * Matched against the `ProviderError` message of a RunEnd.
 */
export const DEFAULT_TRANSIENT_PATTERNS: readonly string[] = Object.freeze([
  String.raw`\b429\b`,
  String.raw`\b529\b`,
  String.raw`\b50[234]\b`,
  String.raw`overloaded`,
  String.raw`rate[ _-]?limit`,
  String.raw`too many requests`,
  String.raw`service unavailable`,
  String.raw`bad gateway`,
  String.raw`connection reset`,
  String.raw`\bECONNRESET\b`,
  String.raw`\bETIMEDOUT\b`,
  String.raw`\bEAI_AGAIN\b`,
  String.raw`timed out`,
  String.raw`timeout`,
  String.raw`socket hang up`,
  String.raw`temporarily unavailable`,
]);

/**
 * Regex sources (case-insensitive) of provider failures that no retry fixes: bad or missing
 * credentials (401, `authentication_error`, invalid API key), refused permission (403), unknown
 * model or endpoint (404, `not_found_error`), a malformed request (400, `invalid_request_error`)
 * and exhausted billing (`insufficient_quota`, a too-low credit balance — OpenAI sends those as 429).
 * They win over {@link DEFAULT_TRANSIENT_PATTERNS} and operator additions: a 401 is never retried.
 */
export const PERMANENT_PATTERNS: readonly string[] = Object.freeze([
  String.raw`\b40[0134]\b`,
  String.raw`unauthori[sz]ed`,
  String.raw`forbidden`,
  String.raw`authentication`,
  String.raw`permission`,
  String.raw`invalid[ _-]?(?:x-)?api[ _-]?key`,
  String.raw`api[ _-]?key (?:is )?(?:not set|missing|invalid)`,
  String.raw`not[ _-]?found[ _-]?model|model[ _-]?not[ _-]?found|not_found_error`,
  String.raw`invalid_request_error`,
  String.raw`insufficient[ _-]?quota`,
  String.raw`credit balance`,
]);

const PERMANENT: readonly RegExp[] = PERMANENT_PATTERNS.map((s) => new RegExp(s, "i"));

/** Longest part of a message the patterns look at, chars (bounds the cost of an operator's regex). */
const MATCH_WINDOW = 4000;
/** Longest excerpt (provider message, worker.log line) put into a reason, chars. */
const EXCERPT_MAX = 200;

/**
 * The transient patterns in force: {@link DEFAULT_TRANSIENT_PATTERNS} plus the operator's `extra`
 * (`--transient-error <regex>`, repeatable), each compiled case-insensitive, defaults first.
 * Throws {@link ConfigError} (setting `--transient-error`) naming the first pattern that is not a
 * valid JavaScript regular expression or is empty (an empty pattern would retry every failure).
 */
export function compileTransientPatterns(extra: readonly string[]): RegExp[] {
  const out = DEFAULT_TRANSIENT_PATTERNS.map((s) => new RegExp(s, "i"));
  for (const source of extra) {
    if (source.trim() === "") {
      throw new ConfigError("--transient-error", "a non-empty regular expression", "an empty pattern");
    }
    try {
      out.push(new RegExp(source, "i"));
    } catch (e) {
      throw new ConfigError(
        "--transient-error",
        "a JavaScript regular expression",
        `${JSON.stringify(source)} is not one (${e instanceof Error ? e.message : String(e)})`,
      );
    }
  }
  return out;
}

/** What the dispatcher knows about how one run ended (from the agent row and its events). */
export interface RunEnding {
  /** caliband status the run ended with: `done`, `failed`, `killed` or `crashed`. */
  status: string;
  /** The RunEnd's StopCondition name (`Agent.outcome`, e.g. `ProviderError`); null without a RunEnd. */
  outcome: string | null;
  /** The StopCondition's message (`agent_finished.detail`, e.g. "429 Too Many Requests"), or null. */
  detail: string | null;
  /** `turn_started` events seen for the run. */
  turnsStarted: number;
  /** The end of the run's worker.log (`Agent.failureLogTail`, already redacted), or null. */
  logTail: string | null;
}

/**
 * The classification of a run's ending. `reason` is one short human sentence (≤ a few hundred
 * chars, one line) for the launch's attempt and transition records.
 */
export type Verdict =
  { kind: "succeeded" } | { kind: "transient"; reason: string } | { kind: "permanent"; reason: string };

/** Statuses of a run that has not ended (classifying one is a caller bug). */
const LIVE_STATUSES: ReadonlySet<string> = new Set(["spawning", "running", "idle"]);

/**
 * `text` as one line for a reason: escape sequences and control characters removed, secrets
 * redacted (again — cheap, and a provider message was never redacted), whitespace collapsed, at
 * most {@link EXCERPT_MAX} chars (an ellipsis marks a cut).
 */
function excerpt(text: string): string {
  const line = redactSecrets(cleanLogText(text)).replace(/\s+/g, " ").trim();
  return line.length <= EXCERPT_MAX ? line : `${line.slice(0, EXCERPT_MAX - 1)}…`;
}

/** The last line of `tail` with any text, as an {@link excerpt}; null when there is none. */
function lastLine(tail: string | null): string | null {
  if (tail === null) return null;
  const lines = tail.split("\n").filter((l) => l.trim() !== "");
  const last = lines.at(-1);
  return last === undefined ? null : excerpt(last);
}

/**
 * Classifies how a run ended (issue 14 item 7):
 * - `done` → succeeded.
 * - `failed` with outcome `ProviderError`: permanent when the message matches
 *   {@link PERMANENT_PATTERNS} (they win), transient when it matches one of `patterns` (see
 *   {@link compileTransientPatterns}), else permanent.
 * - `failed` without a RunEnd (outcome null) after a turn started: the worker's fatal stream-error
 *   exit (exit 1 without RunEnd, caliband-protocol.md §3.3, §5.4) → transient.
 * - `failed` without a RunEnd before any turn: a preflight failure (missing API key, unknown
 *   provider, bad spec) → permanent; the reason quotes the last line of `logTail`.
 * - `failed` with outcome `StreamIdle` (the provider's stream stalled past caliban's idle limit) →
 *   transient, like a timeout.
 * - `failed` with any other outcome (HookDenied, MaxTurnsReached, Refusal, ContentFilter, …) →
 *   permanent, naming the outcome.
 * - `killed`, `crashed`, or a status this module does not know → permanent.
 * Throws RangeError for a status of a run that has not ended (`spawning`, `running`, `idle`).
 */
export function classifyEnding(e: RunEnding, patterns: readonly RegExp[]): Verdict {
  switch (e.status) {
    case "done":
      return { kind: "succeeded" };
    case "killed":
      return { kind: "permanent", reason: "run killed" };
    case "crashed":
      return { kind: "permanent", reason: "run crashed: its daemon lost the worker" };
    case "failed":
      return classifyFailure(e, patterns);
    default:
      if (LIVE_STATUSES.has(e.status)) {
        throw new RangeError(`classifyEnding: the run has not ended (status ${e.status})`);
      }
      return { kind: "permanent", reason: `run ended with status ${excerpt(e.status)}` };
  }
}

function classifyFailure(e: RunEnding, patterns: readonly RegExp[]): Verdict {
  if (e.outcome === "ProviderError") {
    const detail = e.detail === null ? "" : e.detail;
    const text = detail.slice(0, MATCH_WINDOW);
    const shown = detail.trim() === "" ? "provider error (no message)" : `provider error: ${excerpt(detail)}`;
    if (PERMANENT.some((re) => re.test(text))) {
      return { kind: "permanent", reason: `${shown} — not retried: permanent` };
    }
    if (patterns.some((re) => re.test(text))) return { kind: "transient", reason: `${shown} (transient)` };
    return { kind: "permanent", reason: `${shown} — not retried: no transient-error pattern matches` };
  }
  if (e.outcome === null) {
    if (e.turnsStarted > 0) {
      return { kind: "transient", reason: "worker died with a stream error (exit 1 without RunEnd)" };
    }
    const line = lastLine(e.logTail);
    return {
      kind: "permanent",
      reason: `worker failed before its first turn (preflight)${line === null ? "" : `: ${line}`}`,
    };
  }
  const detail = e.detail === null || e.detail.trim() === "" ? "" : `: ${excerpt(e.detail)}`;
  // The provider's stream went quiet past caliban's idle limit: a provider-side stall, like a timeout.
  if (e.outcome === "StreamIdle")
    return { kind: "transient", reason: `the provider's stream went idle${detail} (transient)` };
  return { kind: "permanent", reason: `run ended with ${excerpt(e.outcome)}${detail} — not retried` };
}

/**
 * Delay before the next attempt after attempt `failedAttempt` (1-based) failed transiently, ms:
 * `d = min(maxBackoffMs, backoffMs × 2^(failedAttempt-1))` with "equal jitter" — half of `d` fixed,
 * half random — so the result is an integer in [⌈d/2⌉, d]. `random` returns a number in [0, 1)
 * (Math.random in production, a seeded one in tests). Throws RangeError when `failedAttempt` is not
 * an integer ≥ 1, the policy's delays are negative or not finite, or `random()` leaves [0, 1).
 */
export function retryDelayMs(failedAttempt: number, policy: RetryPolicy, random: () => number): number {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw new RangeError(`retryDelayMs: failedAttempt must be an integer ≥ 1, got ${failedAttempt}`);
  }
  const { backoffMs, maxBackoffMs } = policy;
  if (!Number.isFinite(backoffMs) || backoffMs < 0 || !Number.isFinite(maxBackoffMs) || maxBackoffMs < 0) {
    throw new RangeError(
      `retryDelayMs: backoffMs and maxBackoffMs must be finite and ≥ 0, got ${backoffMs} and ${maxBackoffMs}`,
    );
  }
  // 2^(n-1) overflows to Infinity for huge n; min() then picks the cap (0 × Infinity is guarded).
  const d = backoffMs === 0 ? 0 : Math.floor(Math.min(maxBackoffMs, backoffMs * 2 ** (failedAttempt - 1)));
  const r = random();
  if (!(r >= 0 && r < 1)) throw new RangeError(`retryDelayMs: random() must return [0, 1), got ${r}`);
  const lo = Math.ceil(d / 2);
  return Math.min(d, lo + Math.floor(r * (d - lo + 1)));
}

/** Options of {@link ProviderBackoff}; durations in ms. */
export interface ProviderBackoffOptions {
  /** Window in which {@link threshold} transient failures make a burst; default 60 000. */
  windowMs?: number;
  /** Transient failures within the window that make a burst; default 3. */
  threshold?: number;
  /** Backoff after the first burst; default 30 000. Doubles per further burst. */
  baseMs?: number;
  /** Longest backoff; default 600 000. */
  maxMs?: number;
}

/** One provider's backoff as {@link ProviderBackoff.snapshot} shows it. */
export interface ProviderBackoffEntry {
  provider: string;
  /** Backing off until, ms since the epoch. */
  untilMs: number;
  /**
   * Level the backoff in force was set at: 1 for an episode's first burst, +1 per further burst
   * (backoff = baseMs × 2^(level-1), capped).
   */
  level: number;
}

interface ProviderState {
  /** Transient failures (ms) within the window that have not made a burst yet. */
  failures: number[];
  /** Bursts in the current episode (0 = none). */
  level: number;
  /** End of the current or last backoff, ms; null when none. */
  untilMs: number | null;
  /** The level that backoff was set at (what {@link ProviderBackoff.snapshot} shows). */
  untilLevel: number;
}

function positiveInt(name: string, v: number | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < min) {
    throw new ConfigError(`provider backoff ${name}`, `an integer ≥ ${min}`, `got ${v}`);
  }
  return v;
}

/**
 * The backoff shared by every launch of one provider (issue 14 item 7): `threshold` transient
 * failures within `windowMs` (across launches) are a burst, and a burst makes the provider back off
 * — no new dispatch to it — for `baseMs`. A further burst in the same episode (while backing off,
 * or within `windowMs` after the backoff ended, as when the released launches hit the same rate
 * limit again) doubles it (level + 1), up to `maxMs`; a backoff is only ever extended, never
 * shortened. A success ends the episode (the next burst starts at `baseMs` again) but does not cut
 * a running backoff short. A burst's failures are used up: the next burst needs `threshold` new
 * ones. Pure in-memory state, no timers: the caller passes the time and arms its own wake-up at
 * {@link until}. Not persisted (a restarted gateway starts with no backoff).
 */
export class ProviderBackoff {
  private readonly windowMs: number;
  private readonly threshold: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly state = new Map<string, ProviderState>();

  /** Throws {@link ConfigError} for a non-integer or out-of-range option (or maxMs < baseMs). */
  constructor(opts: ProviderBackoffOptions = {}) {
    this.windowMs = positiveInt("windowMs", opts.windowMs, 60_000, 1);
    this.threshold = positiveInt("threshold", opts.threshold, 3, 1);
    this.baseMs = positiveInt("baseMs", opts.baseMs, 30_000, 1);
    this.maxMs = positiveInt("maxMs", opts.maxMs, 600_000, 1);
    if (this.maxMs < this.baseMs) {
      throw new ConfigError(
        "provider backoff maxMs",
        `an integer ≥ baseMs (${this.baseMs})`,
        `got ${this.maxMs}`,
      );
    }
  }

  /**
   * Records one transient failure of `provider` at `nowMs`. Returns the new backoff end (ms) when
   * this failure completes a burst (starting or extending a backoff), else null.
   */
  recordTransient(provider: string, nowMs: number): number | null {
    if (!Number.isFinite(nowMs)) throw new RangeError(`recordTransient: nowMs must be finite, got ${nowMs}`);
    let s = this.state.get(provider);
    if (s === undefined) {
      s = { failures: [], level: 0, untilMs: null, untilLevel: 0 };
      this.state.set(provider, s);
    }
    const since = nowMs - this.windowMs;
    s.failures = s.failures.filter((t) => t > since && t <= nowMs);
    s.failures.push(nowMs);
    if (s.failures.length < this.threshold) return null;
    s.failures = [];
    // Same episode: backing off now, or the last backoff ended less than a window ago.
    const sameEpisode = s.level > 0 && s.untilMs !== null && nowMs < s.untilMs + this.windowMs;
    s.level = sameEpisode ? s.level + 1 : 1;
    // 2^(level-1) capped before multiplying, so a long episode cannot overflow.
    const delay = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(s.level - 1, 40));
    const until = Math.max(s.untilMs ?? 0, nowMs + delay);
    s.untilMs = until;
    s.untilLevel = s.level;
    return until;
  }

  /** A run of `provider` succeeded: the episode ends (level 0, failures forgotten); a running backoff stays. */
  recordSuccess(provider: string): void {
    const s = this.state.get(provider);
    if (s === undefined) return;
    s.level = 0;
    s.failures = [];
  }

  /** End of `provider`'s backoff (ms) when it is backing off at `nowMs`, else null. */
  until(provider: string, nowMs: number): number | null {
    const u = this.state.get(provider)?.untilMs ?? null;
    return u !== null && u > nowMs ? u : null;
  }

  /** Every provider backing off at `nowMs`, by provider name. */
  snapshot(nowMs: number): ProviderBackoffEntry[] {
    const out: ProviderBackoffEntry[] = [];
    for (const [provider, s] of this.state) {
      if (s.untilMs !== null && s.untilMs > nowMs)
        out.push({ provider, untilMs: s.untilMs, level: s.untilLevel });
    }
    return out.sort((a, b) => (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0));
  }
}
