/**
 * Which queued launches may start now — the dispatcher's decision as one pure function (issue 14
 * items 2, 5, 7), so its rule "no cap is ever exceeded" can be tested on random inputs without a
 * clock, a daemon or a database.
 *
 * Rules, in order, for each queued launch in dispatch order (priority desc, then oldest first):
 * 1. `notBefore` / `retryAt` ahead → waits (NOT_BEFORE / RETRY_BACKOFF).
 * 2. A predecessor (`afterLaunchId`, a schedule's overlap policy QUEUE) still active → PREVIOUS_RUN.
 * 3. Its workspace's daemon was unreachable at its last dispatch and its retry time is ahead → DAEMON_UNREACHABLE.
 * 4. Its provider is backing off after a burst of transient failures → PROVIDER_BACKOFF.
 * 5. A budget of its workspace or provider is spent → BUDGET (running work is not touched).
 * 6. Every cap that applies (GLOBAL, its WORKSPACE, PROVIDER, MODEL) must have room, counting live
 *    runs (Prospero's and discovered ones) plus what this pass already admitted → else CAP (the
 *    first full cap, GLOBAL first).
 * A launch that waits never blocks a lower-priority one that fits (no head-of-line blocking across
 * scopes). Every queued launch gets its own reason (its notBefore, its budget, the cap it hits), so
 * a pass is linear in the queue (100,000 launches: a few ms).
 */
import type { Budget, BudgetPeriod, BudgetScope, Cap, CapScope, WaitReason } from "./types.js";

/** A queued launch as the decision needs it. */
export interface QueuedLaunch {
  id: string;
  workspace: string;
  /** Provider the run will use (spec, else the workspace's, else "default"). */
  provider: string;
  /** Model the run will use, or null when caliban chooses. */
  model: string | null;
  priority: number;
  /** ms since the epoch. */
  createdAtMs: number;
  /** ms since the epoch, or null. */
  notBeforeMs: number | null;
  /** A retry's earliest time, ms since the epoch, or null. */
  retryAtMs: number | null;
  /** The predecessor this launch waits for (overlap QUEUE), or null. */
  afterLaunchId: string | null;
  /** Its last dispatch could not reach the daemon: not before this time (ms), or null. */
  unreachableUntilMs: number | null;
}

/** A live run (or a dispatch in flight) occupying a slot. */
export interface LiveRun {
  workspace: string;
  provider: string;
  model: string | null;
}

/** A budget with its spend in the current period. */
export interface BudgetState extends Budget {
  spentUsd: number;
}

/** Everything the decision reads. */
export interface AdmitInput {
  /** ms since the epoch. */
  nowMs: number;
  /** Queued launches, any order (sorted here). */
  queued: readonly QueuedLaunch[];
  live: readonly LiveRun[];
  /** Caps; a scope/key without a cap is unlimited (the GLOBAL cap is always present in practice). */
  caps: readonly Cap[];
  budgets: readonly BudgetState[];
  /** provider → backing off until (ms). */
  providerBackoff: ReadonlyMap<string, number>;
  /** Launch ids that are still active (not final) — for `afterLaunchId`. */
  activeIds: ReadonlySet<string>;
}

/** The decision. */
export interface AdmitResult {
  /** Launches to dispatch now, in dispatch order. */
  admit: QueuedLaunch[];
  /** Why each other queued launch waits. */
  waiting: Map<string, WaitReason>;
  /** Earliest time a waiting launch could become eligible without any event (ms), or null. */
  wakeAtMs: number | null;
  /** Every queued launch id in dispatch order (for queue positions). */
  order: string[];
}

/** Dispatch order: priority desc, then oldest first, then id (stable). */
export function dispatchOrder(a: QueuedLaunch, b: QueuedLaunch): number {
  return b.priority - a.priority || a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

const capKey = (scope: CapScope, key: string) => `${scope}\u0000${key}`;

/** The cap keys a run counts against, GLOBAL first. */
function scopesOf(r: LiveRun): [CapScope, string][] {
  const out: [CapScope, string][] = [
    ["GLOBAL", ""],
    ["WORKSPACE", r.workspace],
    ["PROVIDER", r.provider],
  ];
  if (r.model !== null) out.push(["MODEL", r.model]);
  return out;
}

function periodWord(p: BudgetPeriod): string {
  return p === "DAY" ? "today" : "this month";
}

function budgetKeyOf(scope: BudgetScope, l: QueuedLaunch): string {
  return scope === "WORKSPACE" ? l.workspace : l.provider;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Decide; see the module comment for the rules. Pure: same input, same output. */
export function admit(input: AdmitInput): AdmitResult {
  const queued = [...input.queued].sort(dispatchOrder);
  const caps = new Map<string, Cap>();
  for (const c of input.caps) caps.set(capKey(c.scope, c.key), c);
  const used = new Map<string, number>();
  const bump = (r: LiveRun) => {
    for (const [s, k] of scopesOf(r)) used.set(capKey(s, k), (used.get(capKey(s, k)) ?? 0) + 1);
  };
  for (const r of input.live) bump(r);
  const admitted: QueuedLaunch[] = [];
  const waiting = new Map<string, WaitReason>();
  let wakeAtMs: number | null = null;
  const wakeAt = (ms: number) => {
    wakeAtMs = wakeAtMs === null ? ms : Math.min(wakeAtMs, ms);
  };
  for (const l of queued) {
    const now = input.nowMs;
    if (l.notBeforeMs !== null && l.notBeforeMs > now) {
      waiting.set(l.id, {
        kind: "NOT_BEFORE",
        untilMs: l.notBeforeMs,
        message: `not before ${iso(l.notBeforeMs)}`,
      });
      wakeAt(l.notBeforeMs);
      continue;
    }
    if (l.retryAtMs !== null && l.retryAtMs > now) {
      waiting.set(l.id, {
        kind: "RETRY_BACKOFF",
        untilMs: l.retryAtMs,
        message: `next attempt at ${iso(l.retryAtMs)} (backing off after a transient failure)`,
      });
      wakeAt(l.retryAtMs);
      continue;
    }
    if (l.afterLaunchId !== null && input.activeIds.has(l.afterLaunchId)) {
      waiting.set(l.id, {
        kind: "PREVIOUS_RUN",
        launchId: l.afterLaunchId,
        message: `waits for the schedule's previous launch ${l.afterLaunchId} to finish`,
      });
      continue;
    }
    if (l.unreachableUntilMs !== null && l.unreachableUntilMs > now) {
      waiting.set(l.id, {
        kind: "DAEMON_UNREACHABLE",
        untilMs: l.unreachableUntilMs,
        message: `workspace ${l.workspace}'s caliband was unreachable; next try at ${iso(l.unreachableUntilMs)}`,
      });
      wakeAt(l.unreachableUntilMs);
      continue;
    }
    const backoff = input.providerBackoff.get(l.provider);
    if (backoff !== undefined && backoff > now) {
      waiting.set(l.id, {
        kind: "PROVIDER_BACKOFF",
        untilMs: backoff,
        message: `provider ${l.provider} is backing off after a burst of transient failures until ${iso(backoff)}`,
      });
      wakeAt(backoff);
      continue;
    }
    const spent = input.budgets.find((b) => b.key === budgetKeyOf(b.scope, l) && b.spentUsd >= b.limitUsd);
    if (spent) {
      waiting.set(l.id, {
        kind: "BUDGET",
        scope: spent.scope,
        key: spent.key,
        period: spent.period,
        spentUsd: spent.spentUsd,
        limitUsd: spent.limitUsd,
        message: `budget ${spent.scope.toLowerCase()} ${spent.key} ${periodWord(spent.period)}: $${spent.spentUsd.toFixed(2)} of $${spent.limitUsd.toFixed(2)} spent`,
      });
      continue;
    }
    const run: LiveRun = { workspace: l.workspace, provider: l.provider, model: l.model };
    let full: WaitReason | null = null;
    for (const [s, k] of scopesOf(run)) {
      const cap = caps.get(capKey(s, k));
      if (!cap) continue;
      const inUse = used.get(capKey(s, k)) ?? 0;
      if (inUse >= cap.max) {
        full = {
          kind: "CAP",
          scope: s,
          key: k,
          inUse,
          max: cap.max,
          message: `cap ${s === "GLOBAL" ? "global" : `${s.toLowerCase()} ${k}`}: ${inUse} of ${cap.max} runs in use`,
        };
        break;
      }
    }
    if (full) {
      waiting.set(l.id, full);
      continue;
    }
    bump(run);
    admitted.push(l);
  }
  return { admit: admitted, waiting, wakeAtMs, order: queued.map((l) => l.id) };
}
