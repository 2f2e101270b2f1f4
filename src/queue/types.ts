/**
 * The launch queue's vocabulary (issue 14): launch states, the launch and retry policies as asked,
 * caps and budgets. Pure types and constants; the rules that use them live in `admit.ts` (which
 * queued launches may start now), `retry.ts` (which failures are retried, and when), `cron.ts` / `schedules.ts`
 * (cron firings) and `queue.ts` (the durable service).
 */
import type { SpawnOptions } from "../fleet/lifecycle.js";

/**
 * States of a launch. QUEUED → DISPATCHED (attempt recorded, spawn under way) → RUNNING (its run
 * exists) → one final state. A retry goes RUNNING → QUEUED (waiting for its backoff). CANCELLED
 * is reachable from every non-final state.
 */
export const LAUNCH_STATES = [
  "QUEUED",
  "DISPATCHED",
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "TIMED_OUT",
  "CANCELLED",
] as const;
/** One of {@link LAUNCH_STATES}. */
export type LaunchState = (typeof LAUNCH_STATES)[number];

/** The final states: a launch in one of them never changes again. */
export const FINAL_LAUNCH_STATES: ReadonlySet<LaunchState> = new Set<LaunchState>([
  "SUCCEEDED",
  "FAILED",
  "TIMED_OUT",
  "CANCELLED",
]);

/** True when `state` is final. */
export function isFinalLaunchState(state: string): boolean {
  return FINAL_LAUNCH_STATES.has(state as LaunchState);
}

/** Priority bounds: 0 (lowest) … 100 (highest); default 50. Higher dispatches first. */
export const PRIORITY_MIN = 0;
/** See {@link PRIORITY_MIN}. */
export const PRIORITY_MAX = 100;
/** See {@link PRIORITY_MIN}. */
export const PRIORITY_DEFAULT = 50;

/** Longest run timeout accepted: 7 days, ms. */
export const TIMEOUT_MAX_MS = 7 * 24 * 3600 * 1000;
/** Shortest run timeout accepted: 1 s, ms (0 is refused: it would kill every run at once). */
export const TIMEOUT_MIN_MS = 1000;
/** A `notBefore` this far in the past (ms) is refused as a mistake; closer is treated as now. */
export const NOT_BEFORE_PAST_TOLERANCE_MS = 60_000;
/** Most attempts a retry policy may allow. */
export const RETRY_MAX_ATTEMPTS = 20;

/** How a launch retries transient failures (issue 14 item 7). */
export interface RetryPolicy {
  /** Attempts in all, first one included (1 = never retry); 1 … {@link RETRY_MAX_ATTEMPTS}. */
  maxAttempts: number;
  /** Delay before the first retry, ms; doubled per further retry (with jitter). Default 10 000. */
  backoffMs: number;
  /** Longest delay between attempts, ms. Default 300 000. */
  maxBackoffMs: number;
}

/** Retry policy when a launch names none: one attempt. */
export const NO_RETRY: RetryPolicy = { maxAttempts: 1, backoffMs: 10_000, maxBackoffMs: 300_000 };

/** What `enqueueLaunch` takes: everything a spawn takes plus the queue's own fields. */
export interface LaunchRequest {
  /** The spawn, as `spawnAgent` takes it (its `clientRequestId` is not used: see dedupKey). */
  spec: Omit<SpawnOptions, "clientRequestId">;
  /** Unique among unfinished launches; a repeat returns the existing launch (or Conflict). */
  dedupKey: string | null;
  /** {@link PRIORITY_MIN} … {@link PRIORITY_MAX}. */
  priority: number;
  /** Not dispatched before this time (ms since the epoch), or null. */
  notBeforeMs: number | null;
  /** Run timeout, ms; null = the workspace's default (none when it has none). */
  timeoutMs: number | null;
  retry: RetryPolicy;
  /** Schedule the launch was fired by, or null. */
  scheduleId: string | null;
  /**
   * A launch that must be final before this one is dispatched (a schedule's overlap policy QUEUE:
   * the previous firing's launch), or null/absent for none.
   */
  afterLaunchId?: string | null;
  /** Token name that asked for it (audit), or null. */
  createdBy: string | null;
}

/** Scopes a concurrency cap applies to (issue 14 item 2). */
export const CAP_SCOPES = ["GLOBAL", "WORKSPACE", "PROVIDER", "MODEL"] as const;
/** One of {@link CAP_SCOPES}. */
export type CapScope = (typeof CAP_SCOPES)[number];

/** The global cap when none is configured: the orchestra's 5 (seed decision "Worker concurrency cap = 5"). */
export const DEFAULT_GLOBAL_CAP = 5;

/** A concurrency cap: at most `max` live runs in the scope. `key` is "" for GLOBAL. */
export interface Cap {
  scope: CapScope;
  key: string;
  /** ≥ 0 (0 pauses dispatch in the scope). */
  max: number;
}

/** Scopes a spend budget applies to (issue 14 item 5). */
export const BUDGET_SCOPES = ["WORKSPACE", "PROVIDER"] as const;
/** One of {@link BUDGET_SCOPES}. */
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
/** Budget periods: the current UTC day or UTC calendar month. */
export const BUDGET_PERIODS = ["DAY", "MONTH"] as const;
/** One of {@link BUDGET_PERIODS}. */
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** A spend limit: new dispatch in the scope waits while the period's estimated spend ≥ limitUsd. */
export interface Budget {
  scope: BudgetScope;
  key: string;
  period: BudgetPeriod;
  /** USD, > 0. */
  limitUsd: number;
}

/**
 * Why a queued launch is not dispatched yet (shown in the API as `Launch.waitingFor`).
 * - `CAP`: a concurrency cap is full (`scope`/`key`, `inUse`/`max`);
 * - `BUDGET`: a budget is spent (`scope`/`key`/`period`, `spentUsd`/`limitUsd`);
 * - `NOT_BEFORE`: its `notBefore` is ahead (`untilMs`);
 * - `RETRY_BACKOFF`: waiting before its next attempt (`untilMs`);
 * - `PROVIDER_BACKOFF`: its provider is backing off after a burst of transient failures (`untilMs`);
 * - `PREVIOUS_RUN`: its schedule's previous launch is still active (overlap policy QUEUE);
 * - `DAEMON_UNREACHABLE`: its last dispatch could not reach the workspace's caliband (`untilMs`).
 */
export type WaitReason =
  | { kind: "CAP"; scope: CapScope; key: string; inUse: number; max: number; message: string }
  | {
      kind: "BUDGET";
      scope: BudgetScope;
      key: string;
      period: BudgetPeriod;
      spentUsd: number;
      limitUsd: number;
      message: string;
    }
  | {
      kind: "NOT_BEFORE" | "RETRY_BACKOFF" | "PROVIDER_BACKOFF" | "DAEMON_UNREACHABLE";
      untilMs: number;
      message: string;
    }
  | { kind: "PREVIOUS_RUN"; launchId: string; message: string };
