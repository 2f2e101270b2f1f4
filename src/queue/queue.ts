/**
 * The durable launch queue (issue 14): launches written before anything is spawned, dispatched
 * under caps and budgets in priority and age order, each attempt recorded before its spawn so a
 * gateway killed mid-dispatch adopts the run on its next start instead of spawning a second one,
 * run timeouts, and retries of transient provider failures through caliband's respawn.
 *
 * Data flow: the fleet's events (bus) and the clock wake the dispatcher; the decision is the pure
 * `admit()` (src/queue/admit.ts); every state change is one store transaction — the Launch row,
 * its LaunchTransition and a `launch_changed` event in the workspace's stream — published on the
 * bus after commit (ARCHITECTURE decision 5), so `fleetChanges` replays and follows launches like
 * agents. Only this class writes launches; it holds every non-final launch in memory (light
 * fields, no spec) and reads the database for the rest.
 *
 * Runs are started through the fleet's lifecycle service (the same path as `spawnAgent`): caliband
 * supervises processes; this decides when and how many (ADR 0002).
 */
import { createHash, randomBytes } from "node:crypto";
import { Mutex } from "async-mutex";
import { Unreachable } from "../caliband/errors.js";
import { encodeSpawnSpec, isTerminal, type SpawnSpecInput } from "../caliband/wire.js";
import { Conflict, InvalidState, NotFound, ValidationFailed, type FieldIssue } from "../errors.js";
import type { NewEvent } from "../events/index.js";
import type { Fleet } from "../fleet/fleet.js";
import { resolveSpawnSpec, type SpawnOptions } from "../fleet/lifecycle.js";
import { PROVIDERS } from "../fleet/provider.js";
import type { EventBus, BusSubscription } from "../bus/bus.js";
import type { Launch, Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/events.js";
import type { PendingOp } from "../store/writer.js";
import { admit, dispatchOrder, type BudgetState, type LiveRun, type QueuedLaunch } from "./admit.js";
import { systemClock, type Clock, type TimerHandle } from "./clock.js";
import { crashPoint } from "./crash-points.js";
import { classifyEnding, compileTransientPatterns, ProviderBackoff, retryDelayMs } from "./retry.js";
import { periodStartMs, providerOfSpec, readSpend, type Spend } from "./spend.js";
import {
  BUDGET_PERIODS,
  BUDGET_SCOPES,
  CAP_SCOPES,
  DEFAULT_GLOBAL_CAP,
  NOT_BEFORE_PAST_TOLERANCE_MS,
  PRIORITY_MAX,
  PRIORITY_MIN,
  RETRY_MAX_ATTEMPTS,
  TIMEOUT_MAX_MS,
  TIMEOUT_MIN_MS,
  isFinalLaunchState,
  type Budget,
  type BudgetPeriod,
  type BudgetScope,
  type Cap,
  type CapScope,
  type LaunchRequest,
  type LaunchState,
  type RetryPolicy,
  type WaitReason,
} from "./types.js";

/** A cap with the live runs it counts now. */
export interface CapUsage {
  scope: CapScope;
  /** "" for GLOBAL. */
  key: string;
  max: number;
  /** Live runs (spawning, running, idle — Prospero's or discovered) plus dispatches in flight. */
  inUse: number;
}

/** A budget with the period's estimated spend so far. */
export interface BudgetUsage {
  scope: BudgetScope;
  key: string;
  period: BudgetPeriod;
  /** USD. */
  limitUsd: number;
  /** Estimated spend of the scope's runs started in the current period, USD. */
  spentUsd: number;
  /** Start of the current period (UTC midnight, or the 1st of the month), ms since the epoch. */
  periodStartMs: number;
  /** spentUsd ≥ limitUsd: new dispatch in the scope waits. */
  exhausted: boolean;
}

/** Counters and gauges of the queue (Prometheus naming; `_total` are counters since start). */
export interface QueueMetrics {
  /** Launches QUEUED now (gauge). */
  queued: number;
  /** Launches DISPATCHED now (gauge). */
  dispatched: number;
  /** Launches RUNNING now (gauge). */
  running: number;
  /** Attempts dispatched. */
  dispatches_total: number;
  /** Retries scheduled after transient failures. */
  retries_total: number;
  /** Launches ended TIMED_OUT. */
  timeouts_total: number;
  /** Launches cancelled. */
  cancellations_total: number;
  /** Runs adopted after a restart (attempt recorded, reply lost). */
  adopted_total: number;
  /** Sum of queue waits (enqueue, or retry-ready, → dispatch) of the dispatches counted, ms. */
  wait_ms_sum: number;
  /** Dispatches counted in wait_ms_sum. */
  wait_ms_count: number;
  /** Age of the oldest QUEUED launch, ms (0 when none). */
  oldest_queued_age_ms: number;
}

/** What the queue needs. */
export interface LaunchQueueDeps {
  db: PrismaClient;
  store: EventStore;
  bus: EventBus;
  fleet: Fleet;
  log: Logger;
  clock?: Clock;
  /** Random numbers in [0, 1) for retry jitter (default Math.random). */
  random?: () => number;
  /**
   * The GLOBAL cap set by the operator's flag (`--max-concurrent`): stored at start, overriding a
   * value set through the API before. Null/undefined: the stored value, else {@link DEFAULT_GLOBAL_CAP}.
   */
  globalCap?: number | null;
  /** Operator additions to the transient-failure signatures (`--transient-error`, regex sources). */
  transientPatterns?: readonly string[];
  /** The shared per-provider backoff (default: ProviderBackoff's defaults). */
  providerBackoff?: ProviderBackoff;
}

/** A non-final launch as the dispatcher keeps it. */
interface ActiveLaunch {
  id: string;
  workspace: string;
  state: LaunchState;
  /** Spec's own provider/model (null = the workspace's at dispatch). */
  specProvider: string | null;
  specModel: string | null;
  priority: number;
  createdAtMs: number;
  notBeforeMs: number | null;
  retryAtMs: number | null;
  afterLaunchId: string | null;
  dedupKey: string | null;
  requestFingerprint: string;
  timeoutMs: number | null;
  retry: RetryPolicy;
  attemptCount: number;
  /** Attempts that started a run (the retry limit counts these). */
  runs: number;
  agentId: string | null;
  startedAtMs: number | null;
  stopRequest: "cancel" | "timeout" | null;
  unreachableUntilMs: number | null;
  unreachableFailures: number;
  /** When the launch became ready to dispatch (enqueue, or its retry time), ms — for wait metrics. */
  readyAtMs: number;
}

/** Deadline for the daemon to list a run after a lost spawn reply, ms: its start time may lag. */
const ADOPTION_SKEW_MS = 5_000;
/** Spend is re-read at most this often, ms (budgets gate new dispatch only). */
const SPEND_TTL_MS = 5_000;
/** Waits after an unreachable daemon: first, and most, ms. */
const UNREACHABLE_BACKOFF_MS = 5_000;
const UNREACHABLE_BACKOFF_MAX_MS = 300_000;
/** Longest cap accepted. */
export const CAP_MAX = 10_000;
/** Largest budget accepted, USD. */
export const BUDGET_MAX_USD = 1_000_000;
/** Farthest ahead a `notBefore` may be, ms (a year): beyond is a mistake, and it would hold its dedup key. */
export const NOT_BEFORE_MAX_AHEAD_MS = 366 * 24 * 3600 * 1000;
/** Longest model name, characters (a MODEL cap's key must be able to name it). */
export const MODEL_MAX = 200;
/** Longest dedup key, characters. */
export const DEDUP_KEY_MAX = 200;

const newId = () => randomBytes(6).toString("hex");

/**
 * Whether a request that failed with `err` may have reached caliband: not when nothing was
 * listening (the socket missing or refusing), else yes (a deadline, a reset after the write).
 */
function mayHaveBeenSent(err: Unreachable): boolean {
  return err.errno !== "ENOENT" && err.errno !== "ECONNREFUSED" && err.code === "UNREACHABLE";
}

/**
 * The unique `Launch.activeDedupKey` of an unfinished launch: dedup keys are per workspace (a key
 * used in another workspace neither conflicts nor tells that it exists). Workspace names have no
 * ':' (registry WORKSPACE_NAME), so the pair is unambiguous.
 */
export function activeDedupKey(workspace: string, dedupKey: string): string {
  return `${workspace}:${dedupKey}`;
}

/** Dedup keys starting with this are the schedules' own (`schedule:<id>:<fire time>`). */
export const SCHEDULE_DEDUP_PREFIX = "schedule:";

/** SHA-256 (hex) of a spawn spec in caliband's canonical field order (what `list` echoes, §2.3). */
export function specFingerprint(spec: SpawnSpecInput): string {
  return createHash("sha256")
    .update(JSON.stringify(encodeSpawnSpec(spec)))
    .digest("hex");
}

/** The launch's spec as stored: the spawn options without workspace and idempotency key. */
type StoredSpec = Omit<SpawnOptions, "workspace" | "clientRequestId">;

function storedSpec(spec: LaunchRequest["spec"]): StoredSpec {
  return {
    prompt: spec.prompt,
    label: spec.label ?? null,
    model: spec.model ?? null,
    provider: spec.provider ?? null,
    source: spec.source ?? null,
    isolated: spec.isolated ?? true,
    interactive: spec.interactive ?? false,
    toolAllowlist: spec.toolAllowlist ? [...spec.toolAllowlist] : null,
    frontmatterPath: spec.frontmatterPath ?? null,
  };
}

/** SHA-256 of what was asked (spec and policies), for the dedup-key Conflict rule. */
function requestFingerprint(workspace: string, spec: StoredSpec): string {
  return createHash("sha256")
    .update(JSON.stringify({ workspace, ...spec }))
    .digest("hex");
}

/**
 * Check a launch request; every problem is reported at once with its input path.
 * @throws ValidationFailed
 */
export function validateLaunchRequest(req: LaunchRequest, nowMs: number): void {
  const issues: FieldIssue[] = [];
  const at = (f: string, message: string) => issues.push({ path: ["input", f], message });
  if (req.spec.prompt.trim() === "") at("prompt", "must not be empty");
  if (!Number.isInteger(req.priority) || req.priority < PRIORITY_MIN || req.priority > PRIORITY_MAX)
    at("priority", `must be an integer from ${PRIORITY_MIN} to ${PRIORITY_MAX}`);
  if (
    req.timeoutMs !== null &&
    (!Number.isInteger(req.timeoutMs) || req.timeoutMs < TIMEOUT_MIN_MS || req.timeoutMs > TIMEOUT_MAX_MS)
  )
    at("timeoutMs", `must be from ${TIMEOUT_MIN_MS} ms to ${TIMEOUT_MAX_MS} ms (7 days)`);
  if (req.notBeforeMs !== null && req.notBeforeMs < nowMs - NOT_BEFORE_PAST_TOLERANCE_MS)
    at("notBefore", `is more than ${NOT_BEFORE_PAST_TOLERANCE_MS / 1000} s in the past`);
  else if (req.notBeforeMs !== null && req.notBeforeMs > nowMs + NOT_BEFORE_MAX_AHEAD_MS)
    at("notBefore", "is more than a year ahead");
  if (req.spec.model != null && (req.spec.model === "" || req.spec.model.length > MODEL_MAX))
    at("model", `must be 1 to ${MODEL_MAX} characters`);
  const r = req.retry;
  if (!Number.isInteger(r.maxAttempts) || r.maxAttempts < 1 || r.maxAttempts > RETRY_MAX_ATTEMPTS)
    issues.push({
      path: ["input", "retry", "maxAttempts"],
      message: `must be from 1 to ${RETRY_MAX_ATTEMPTS}`,
    });
  if (!Number.isInteger(r.backoffMs) || r.backoffMs < 100 || r.backoffMs > 3_600_000)
    issues.push({ path: ["input", "retry", "backoffMs"], message: "must be from 100 ms to 1 hour" });
  if (!Number.isInteger(r.maxBackoffMs) || r.maxBackoffMs < r.backoffMs || r.maxBackoffMs > 86_400_000)
    issues.push({
      path: ["input", "retry", "maxBackoffMs"],
      message: "must be at least backoffMs and at most 24 hours",
    });
  if (req.dedupKey !== null && (req.dedupKey === "" || req.dedupKey.length > DEDUP_KEY_MAX))
    at("dedupKey", `must be 1 to ${DEDUP_KEY_MAX} characters`);
  else if (req.dedupKey !== null && req.scheduleId === null && req.dedupKey.startsWith(SCHEDULE_DEDUP_PREFIX))
    at("dedupKey", `the prefix "${SCHEDULE_DEDUP_PREFIX}" is reserved for the launches schedules fire`);
  if (req.spec.provider != null && !(PROVIDERS as readonly string[]).includes(req.spec.provider))
    at("provider", `unknown provider; one of ${PROVIDERS.join(", ")}`);
  if (issues.length > 0) throw new ValidationFailed(issues);
}

const capMapKey = (scope: string, key: string) => `${scope}\u0000${key}`;

/** The queue service; see the module comment. */
export class LaunchQueue {
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly patterns: RegExp[];
  private readonly backoff: ProviderBackoff;
  private readonly log: Logger;
  private readonly active = new Map<string, ActiveLaunch>();
  /** Ids of the non-final launches by state (gauges and live-run counting without a scan). */
  private readonly byState = new Map<LaunchState, Set<string>>([
    ["QUEUED", new Set()],
    ["DISPATCHED", new Set()],
    ["RUNNING", new Set()],
  ]);
  /** The last pass's waiting reasons are out of date (a pass was skipped). */
  private stale = true;
  /** Bumped on every change to the set or state of non-final launches (positions' validity). */
  private version = 0;
  /** {@link version} when `positions` was computed. */
  private positionsVersion = -1;
  private readonly byAgent = new Map<string, string>();
  private readonly byDedup = new Map<string, string>();
  private readonly caps_ = new Map<string, Cap>();
  private budgets_: Budget[] = [];
  private readonly wsTimeouts = new Map<string, number>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly timeouts = new Map<string, TimerHandle>();
  /** Timers of attempts whose spawn outcome is being asked again ({@link resolveLater}). */
  private readonly pendingTimers = new Set<TimerHandle>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly enqueueLock = new Mutex();
  private readonly passLock = new Mutex();
  private waiting = new Map<string, WaitReason>();
  private positions = new Map<string, number>();
  private passQueued = false;
  private wakeTimer: TimerHandle | null = null;
  private wakeAtMs: number | null = null;
  private recoveryTimer: TimerHandle | null = null;
  private sub: BusSubscription | null = null;
  private spend: Spend | null = null;
  private stopped = false;
  private started = false;
  private readonly counters = {
    dispatches_total: 0,
    retries_total: 0,
    timeouts_total: 0,
    cancellations_total: 0,
    adopted_total: 0,
    wait_ms_sum: 0,
    wait_ms_count: 0,
  };

  /** @throws ConfigError for a malformed `transientPatterns` entry. */
  constructor(private readonly deps: LaunchQueueDeps) {
    this.clock = deps.clock ?? systemClock;
    this.random = deps.random ?? Math.random;
    this.patterns = compileTransientPatterns(deps.transientPatterns ?? []);
    this.backoff = deps.providerBackoff ?? new ProviderBackoff();
    this.log = deps.log.child({ module: "queue" });
  }

  // ------------------------------------------------------------------------------------------
  // Start and stop
  // ------------------------------------------------------------------------------------------

  /**
   * Load caps, budgets and every non-final launch; settle what happened while the gateway was down
   * (runs that ended, attempts whose spawn reply was lost: adopted or dispatched again); arm
   * timeouts; follow the fleet's events; run a first dispatch pass. Queued launches are dispatched
   * in priority and age order. Call after the fleet started.
   */
  async start(): Promise<void> {
    const { db } = this.deps;
    for (const c of await db.cap.findMany()) this.caps_.set(capMapKey(c.scope, c.key), c as Cap);
    const flag = this.deps.globalCap;
    if (flag !== undefined && flag !== null) {
      await this.writeCap({ scope: "GLOBAL", key: "", max: flag }, "--max-concurrent");
    } else if (!this.caps_.has(capMapKey("GLOBAL", ""))) {
      this.caps_.set(capMapKey("GLOBAL", ""), { scope: "GLOBAL", key: "", max: DEFAULT_GLOBAL_CAP });
    }
    this.budgets_ = (await db.budget.findMany()).map((b) => ({
      scope: b.scope as BudgetScope,
      key: b.key,
      period: b.period as BudgetPeriod,
      limitUsd: b.limitUsd,
    }));
    for (const w of await db.workspace.findMany({ where: { launchTimeoutMs: { not: null } } }))
      this.wsTimeouts.set(w.name, w.launchTimeoutMs!);
    // Without their specs (prompts up to 512 KiB each): a queue of 100,000 stays light.
    const rows = await db.launch.findMany({
      where: { state: { in: ["QUEUED", "DISPATCHED", "RUNNING"] } },
      omit: { spec: true },
    });
    const runsOf = new Map<string, number>();
    for (const g of await db.launchAttempt.groupBy({
      by: ["launchId"],
      // By the launch's state, not a list of ids (SQLite allows 999 bound values per statement).
      where: { agentId: { not: null }, launch: { state: { in: ["QUEUED", "DISPATCHED", "RUNNING"] } } },
      _count: { _all: true },
    }))
      runsOf.set(g.launchId, g._count._all);
    for (const r of rows) {
      const l = this.toActive(r);
      l.runs = runsOf.get(r.id) ?? 0;
      this.track(l);
    }
    this.sub = this.deps.bus.subscribe(
      (e) =>
        e.kind === "status_changed" ||
        e.kind === "agent_gone" ||
        e.kind === "agent_discovered" ||
        e.kind === "agent_spawned" ||
        e.kind === "workspace_health",
    );
    void this.follow(this.sub);
    this.started = true;
    await this.recover();
    this.schedulePass();
  }

  /** Stop dispatching (nothing is cancelled: queued launches stay queued); waits for spawns in flight. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.sub?.close();
    if (this.wakeTimer) this.clock.clearTimeout(this.wakeTimer);
    if (this.recoveryTimer) this.clock.clearTimeout(this.recoveryTimer);
    for (const t of this.timeouts.values()) this.clock.clearTimeout(t);
    this.timeouts.clear();
    for (const t of this.pendingTimers) this.clock.clearTimeout(t);
    this.pendingTimers.clear();
    await this.passLock.waitForUnlock();
    await Promise.allSettled([...this.inflight, ...this.chains.values()]);
  }

  private toActive(r: Omit<Launch, "spec">): ActiveLaunch {
    return {
      id: r.id,
      workspace: r.workspace,
      state: r.state as LaunchState,
      specProvider: r.specProvider,
      specModel: r.specModel,
      priority: r.priority,
      createdAtMs: r.createdAt.getTime(),
      notBeforeMs: r.notBefore?.getTime() ?? null,
      retryAtMs: r.retryAt?.getTime() ?? null,
      afterLaunchId: r.afterLaunchId,
      dedupKey: r.dedupKey,
      requestFingerprint: r.requestFingerprint,
      timeoutMs: r.timeoutMs,
      retry: {
        maxAttempts: r.retryMaxAttempts,
        backoffMs: r.retryBackoffMs,
        maxBackoffMs: r.retryMaxBackoffMs,
      },
      attemptCount: r.attemptCount,
      runs: 0,
      agentId: r.agentId,
      startedAtMs: r.startedAt?.getTime() ?? null,
      stopRequest: r.stopRequest === "cancel" || r.stopRequest === "timeout" ? r.stopRequest : null,
      unreachableUntilMs: null,
      unreachableFailures: 0,
      readyAtMs: Math.max(r.createdAt.getTime(), r.retryAt?.getTime() ?? 0, r.notBefore?.getTime() ?? 0),
    };
  }

  private track(l: ActiveLaunch): void {
    this.active.set(l.id, l);
    this.byState.get(l.state)?.add(l.id);
    this.version++;
    if (l.dedupKey !== null) this.byDedup.set(activeDedupKey(l.workspace, l.dedupKey), l.id);
    if (l.agentId !== null && l.state === "RUNNING") this.byAgent.set(l.agentId, l.id);
  }

  private untrack(l: ActiveLaunch): void {
    this.active.delete(l.id);
    for (const set of this.byState.values()) set.delete(l.id);
    this.version++;
    if (l.dedupKey !== null && this.byDedup.get(activeDedupKey(l.workspace, l.dedupKey)) === l.id)
      this.byDedup.delete(activeDedupKey(l.workspace, l.dedupKey));
    if (l.agentId !== null && this.byAgent.get(l.agentId) === l.id) this.byAgent.delete(l.agentId);
    const t = this.timeouts.get(l.id);
    if (t) this.clock.clearTimeout(t);
    this.timeouts.delete(l.id);
  }

  /** Run `fn` after every earlier step of the same launch (one launch's changes never interleave). */
  private chain<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return next;
  }

  /** Track a background task so stop() waits for it; its failure is logged, never thrown. */
  private background(what: string, p: Promise<unknown>): void {
    const q = p.catch((err: unknown) => this.log.error({ err }, what));
    this.inflight.add(q);
    void q.finally(() => this.inflight.delete(q));
  }

  // ------------------------------------------------------------------------------------------
  // Writes: one transaction per change (row, transition, event)
  // ------------------------------------------------------------------------------------------

  /** Commit `ops` through the store's single writer (ARCHITECTURE decision 7), no event. */
  private async write(ops: (db: PrismaClient) => PendingOp[]): Promise<void> {
    await this.deps.store.append([], { onFailure: "throw", extra: ops });
  }

  private event(
    l: { id: string; workspace: string },
    from: string | null,
    to: string,
    reason: string | null,
    attempt: number | null,
    agentId: string | null,
  ): NewEvent {
    return {
      kind: "launch_changed",
      workspace: l.workspace,
      agentId: "",
      tsMs: this.clock.now(),
      payload: { launchId: l.id, from, to, reason, attempt, agentId },
    };
  }

  /**
   * Move `l` to `to` (or record a change within its state), with `patch` on its row and `extra`
   * operations, in one transaction with its transition and `launch_changed` event.
   */
  private async change(
    l: ActiveLaunch,
    to: LaunchState,
    reason: string | null,
    patch: Prisma.LaunchUncheckedUpdateInput,
    extra: (db: PrismaClient) => PendingOp[] = () => [],
    attempt: number | null = l.attemptCount || null,
  ): Promise<void> {
    const from = l.state;
    const at = new Date(this.clock.now());
    const final = isFinalLaunchState(to);
    await this.deps.store.append([this.event(l, from, to, reason, attempt, l.agentId)], {
      onFailure: "throw",
      extra: (db) => [
        ...extra(db),
        db.launch.update({
          where: { id: l.id },
          data: {
            ...patch,
            state: to,
            updatedAt: at,
            ...(final ? { activeDedupKey: null, finishedAt: at } : {}),
          },
        }),
        db.launchTransition.create({ data: { launchId: l.id, from, to, reason, attempt, at } }),
      ],
    });
    this.byState.get(from)?.delete(l.id);
    l.state = to;
    this.byState.get(to)?.add(l.id);
    this.version++;
    if (final) this.untrack(l);
  }

  // ------------------------------------------------------------------------------------------
  // Enqueue and cancel
  // ------------------------------------------------------------------------------------------

  /**
   * Add a launch (issue 14 item 1). The row, its QUEUED transition and its event are committed
   * before anything is spawned. A `dedupKey` already used by an unfinished launch returns that
   * launch with `created: false` when the spec is the same.
   * @throws ValidationFailed (paths under ["input", …]), NotFound (workspace), Conflict (dedupKey
   *   in use by an unfinished launch with another spec).
   */
  async enqueue(req: LaunchRequest): Promise<{ launch: Launch; created: boolean }> {
    if (!this.started || this.stopped) throw new InvalidState("the launch queue is not running");
    validateLaunchRequest(req, this.clock.now());
    this.deps.fleet.registry.get(req.spec.workspace);
    const spec = storedSpec(req.spec);
    const fingerprint = requestFingerprint(req.spec.workspace, spec);
    return this.enqueueLock.runExclusive(async () => {
      if (req.dedupKey !== null) {
        const id = this.byDedup.get(activeDedupKey(req.spec.workspace, req.dedupKey));
        if (id !== undefined) {
          const prior = this.active.get(id);
          if (prior && prior.requestFingerprint !== fingerprint) {
            throw new Conflict(
              `dedupKey ${JSON.stringify(req.dedupKey)} is used by unfinished launch ${id} with a different spec`,
            );
          }
          return { launch: await this.deps.db.launch.findUniqueOrThrow({ where: { id } }), created: false };
        }
      }
      const id = newId();
      // Stamped under the lock: creation order is commit order (dispatch order among equals).
      const now = this.clock.now();
      const createdAt = new Date(now);
      const timeoutMs = req.timeoutMs ?? this.wsTimeouts.get(req.spec.workspace) ?? null;
      const notBefore = req.notBeforeMs !== null && req.notBeforeMs > now ? new Date(req.notBeforeMs) : null;
      const data: Prisma.LaunchUncheckedCreateInput = {
        id,
        workspace: req.spec.workspace,
        spec: spec as unknown as Prisma.InputJsonValue,
        requestFingerprint: fingerprint,
        specProvider: spec.provider ?? null,
        specModel: spec.model ?? null,
        dedupKey: req.dedupKey,
        activeDedupKey: req.dedupKey === null ? null : activeDedupKey(req.spec.workspace, req.dedupKey),
        priority: req.priority,
        notBefore,
        timeoutMs,
        retryMaxAttempts: req.retry.maxAttempts,
        retryBackoffMs: req.retry.backoffMs,
        retryMaxBackoffMs: req.retry.maxBackoffMs,
        state: "QUEUED",
        scheduleId: req.scheduleId,
        afterLaunchId: req.afterLaunchId ?? null,
        createdBy: req.createdBy,
        createdAt,
        updatedAt: createdAt,
      };
      const reason = req.scheduleId
        ? `fired by schedule ${req.scheduleId}`
        : req.createdBy
          ? `enqueued by ${req.createdBy}`
          : null;
      await this.deps.store.append(
        [this.event({ id, workspace: data.workspace }, null, "QUEUED", reason, null, null)],
        {
          onFailure: "throw",
          extra: (db) => [
            db.launch.create({ data }),
            db.launchTransition.create({
              data: { launchId: id, from: null, to: "QUEUED", reason, attempt: null, at: createdAt },
            }),
          ],
        },
      );
      crashPoint("launch-queued");
      const row = await this.deps.db.launch.findUniqueOrThrow({ where: { id } });
      this.track(this.toActive(row));
      this.schedulePass();
      return { launch: row, created: true };
    });
  }

  /**
   * Cancel a launch in any non-final state (issue 14 item 1): a queued one ends at once; one with a
   * run has it killed and ends CANCELLED (or with the run's own outcome, when it ended first).
   * @returns the launch as stored after the cancel.
   * @throws NotFound (launch), InvalidState (already final), Unreachable (the kill could not reach
   *   the daemon: the launch stays as it was, with the cancel recorded so it ends CANCELLED).
   */
  async cancel(launchId: string, by: string | null): Promise<Launch> {
    const row = await this.deps.db.launch.findUnique({ where: { id: launchId } });
    if (!row) throw new NotFound("launch", launchId);
    const who = by ? `cancelled by ${by}` : "cancelled";
    await this.chain(launchId, async () => {
      const l = this.active.get(launchId);
      if (!l) {
        const cur = await this.deps.db.launch.findUniqueOrThrow({ where: { id: launchId } });
        throw new InvalidState(`launch ${launchId} is already ${cur.state}`, cur.state);
      }
      if (l.state === "QUEUED") {
        await this.change(l, "CANCELLED", who, { reason: who, stopRequest: "cancel" });
        this.counters.cancellations_total++;
        this.schedulePass();
        return;
      }
      l.stopRequest = "cancel";
      await this.write((db) => [
        db.launch.update({ where: { id: l.id }, data: { stopRequest: "cancel", reason: who } }),
      ]);
    });
    const l = this.active.get(launchId);
    if (l && l.state === "RUNNING" && l.agentId) await this.stopRun(l, who);
    return this.deps.db.launch.findUniqueOrThrow({ where: { id: launchId } });
  }

  /**
   * A workspace was unregistered: its unfinished launches can never run (or be followed) again, so
   * each ends CANCELLED saying why (a run it had keeps running on its caliband, unobserved, as the
   * workspace's agents do); its WORKSPACE caps and budgets are removed.
   * @returns how many launches were cancelled.
   */
  async workspaceRemoved(workspace: string, by: string | null): Promise<number> {
    const reason = `workspace ${workspace} was removed${by ? ` by ${by}` : ""}`;
    let n = 0;
    for (const l of [...this.active.values()]) {
      if (l.workspace !== workspace) continue;
      await this.chain(l.id, async () => {
        if (isFinalLaunchState(l.state)) return;
        const why =
          l.agentId && l.state === "RUNNING"
            ? `${reason}; its run ${l.agentId} is no longer followed`
            : reason;
        await this.change(l, "CANCELLED", why, { reason: why, stopRequest: "cancel" });
        this.counters.cancellations_total++;
        n++;
      });
    }
    await this.write((db) => [
      db.cap.deleteMany({ where: { scope: "WORKSPACE", key: workspace } }),
      db.budget.deleteMany({ where: { scope: "WORKSPACE", key: workspace } }),
    ]);
    this.caps_.delete(capMapKey("WORKSPACE", workspace));
    this.budgets_ = this.budgets_.filter((b) => !(b.scope === "WORKSPACE" && b.key === workspace));
    this.wsTimeouts.delete(workspace);
    this.schedulePass();
    return n;
  }

  /** Kill `l`'s run and settle the launch from what the run ended with. */
  private async stopRun(l: ActiveLaunch, why: string): Promise<void> {
    const agentId = l.agentId!;
    const kill = async (): Promise<void> => {
      await this.deps.fleet.lifecycle.kill(agentId);
    };
    try {
      try {
        await kill();
      } catch (err) {
        if (!(err instanceof NotFound)) throw err;
        // Not served yet (a run just adopted from the daemon's list): poll, then kill.
        const ws = this.deps.fleet.registry.find(l.workspace);
        if (!ws) throw err;
        await this.deps.fleet.poller.pollOnce(ws);
        await kill();
      }
    } catch (err) {
      if (!(err instanceof InvalidState) && !(err instanceof NotFound)) throw err;
      this.log.debug(
        { launch: l.id, agent: agentId, err: (err as Error).message },
        `${why}: the run had already ended`,
      );
    }
    await this.chain(l.id, () => this.settleRun(l.id, agentId));
  }

  // ------------------------------------------------------------------------------------------
  // Caps, budgets, timeouts defaults
  // ------------------------------------------------------------------------------------------

  private async writeCap(cap: Cap, by: string | null): Promise<void> {
    const now = new Date(this.clock.now());
    await this.write((db) => [
      db.cap.upsert({
        where: { scope_key: { scope: cap.scope, key: cap.key } },
        create: { ...cap, updatedAt: now, updatedBy: by },
        update: { max: cap.max, updatedAt: now, updatedBy: by },
      }),
    ]);
    this.caps_.set(capMapKey(cap.scope, cap.key), cap);
  }

  /**
   * Set (or, with `max: null`, remove) a concurrency cap; takes effect at once (a raised cap
   * dispatches what now fits; a lowered one never stops running work).
   * @returns the cap with its use, or null when removed.
   * @throws ValidationFailed (max out of 0…CAP_MAX, GLOBAL removed or given a key, a key missing,
   *   an unknown provider), NotFound (an unknown workspace for a WORKSPACE cap).
   */
  async setCap(
    cap: { scope: CapScope; key: string; max: number | null },
    by: string | null,
  ): Promise<CapUsage | null> {
    const issues: FieldIssue[] = [];
    const key = cap.scope === "GLOBAL" ? "" : cap.key.trim();
    if (!(CAP_SCOPES as readonly string[]).includes(cap.scope))
      issues.push({ path: ["input", "scope"], message: "unknown scope" });
    if (cap.scope === "GLOBAL" && cap.key !== "")
      issues.push({ path: ["input", "key"], message: "the GLOBAL cap has no key" });
    if (cap.scope !== "GLOBAL" && key === "")
      issues.push({ path: ["input", "key"], message: "required for this scope" });
    if (
      cap.scope === "PROVIDER" &&
      key !== "" &&
      key !== "default" &&
      !(PROVIDERS as readonly string[]).includes(key)
    )
      issues.push({
        path: ["input", "key"],
        message: `unknown provider; one of ${PROVIDERS.join(", ")}, default`,
      });
    if (cap.max === null && cap.scope === "GLOBAL")
      issues.push({ path: ["input", "max"], message: "the GLOBAL cap cannot be removed; set a number" });
    if (cap.max !== null && (!Number.isInteger(cap.max) || cap.max < 0 || cap.max > CAP_MAX))
      issues.push({ path: ["input", "max"], message: `must be an integer from 0 to ${CAP_MAX}` });
    if (issues.length > 0) throw new ValidationFailed(issues);
    // Removing a cap needs no registered workspace (one left behind by a removed workspace).
    if (cap.scope === "WORKSPACE" && cap.max !== null) this.deps.fleet.registry.get(key);
    if (cap.max === null) {
      await this.write((db) => [db.cap.deleteMany({ where: { scope: cap.scope, key } })]);
      this.caps_.delete(capMapKey(cap.scope, key));
      this.schedulePass();
      return null;
    }
    await this.writeCap({ scope: cap.scope, key, max: cap.max }, by);
    this.schedulePass();
    return this.caps().find((c) => c.scope === cap.scope && c.key === key) ?? null;
  }

  /** Every cap with the runs it counts now, GLOBAL first, then by scope and key. */
  caps(): CapUsage[] {
    const live = this.liveRuns();
    const order = (s: CapScope) => CAP_SCOPES.indexOf(s);
    return [...this.caps_.values()]
      .map((c) => ({
        ...c,
        inUse: live.filter(
          (r) =>
            c.scope === "GLOBAL" ||
            (c.scope === "WORKSPACE" && r.workspace === c.key) ||
            (c.scope === "PROVIDER" && r.provider === c.key) ||
            (c.scope === "MODEL" && r.model === c.key),
        ).length,
      }))
      .sort((a, b) => order(a.scope) - order(b.scope) || a.key.localeCompare(b.key));
  }

  /**
   * Set (or, with `limitUsd: null`, remove) a spend budget.
   * @returns the budget with its spend, or null when removed.
   * @throws ValidationFailed (limit ≤ 0 or > BUDGET_MAX_USD, unknown scope/period/provider),
   *   NotFound (unknown workspace).
   */
  async setBudget(
    b: { scope: BudgetScope; key: string; period: BudgetPeriod; limitUsd: number | null },
    by: string | null,
  ): Promise<BudgetUsage | null> {
    const issues: FieldIssue[] = [];
    const key = b.key.trim();
    if (!(BUDGET_SCOPES as readonly string[]).includes(b.scope))
      issues.push({ path: ["input", "scope"], message: "unknown scope" });
    if (!(BUDGET_PERIODS as readonly string[]).includes(b.period))
      issues.push({ path: ["input", "period"], message: "unknown period" });
    if (key === "") issues.push({ path: ["input", "key"], message: "required" });
    if (
      b.scope === "PROVIDER" &&
      key !== "" &&
      key !== "default" &&
      !(PROVIDERS as readonly string[]).includes(key)
    )
      issues.push({
        path: ["input", "key"],
        message: `unknown provider; one of ${PROVIDERS.join(", ")}, default`,
      });
    if (
      b.limitUsd !== null &&
      (!Number.isFinite(b.limitUsd) || b.limitUsd <= 0 || b.limitUsd > BUDGET_MAX_USD)
    )
      issues.push({
        path: ["input", "limitUsd"],
        message: `must be more than 0 and at most ${BUDGET_MAX_USD}`,
      });
    if (issues.length > 0) throw new ValidationFailed(issues);
    if (b.scope === "WORKSPACE" && b.limitUsd !== null) this.deps.fleet.registry.get(key);
    const where = { scope_key_period: { scope: b.scope, key, period: b.period } };
    this.budgets_ = this.budgets_.filter(
      (x) => !(x.scope === b.scope && x.key === key && x.period === b.period),
    );
    if (b.limitUsd === null) {
      await this.write((db) => [db.budget.deleteMany({ where: { scope: b.scope, key, period: b.period } })]);
      this.schedulePass();
      return null;
    }
    const now = new Date(this.clock.now());
    const limitUsd = b.limitUsd;
    await this.write((db) => [
      db.budget.upsert({
        where,
        create: { scope: b.scope, key, period: b.period, limitUsd, updatedAt: now, updatedBy: by },
        update: { limitUsd, updatedAt: now, updatedBy: by },
      }),
    ]);
    this.budgets_.push({ scope: b.scope, key, period: b.period, limitUsd: b.limitUsd });
    this.spend = null;
    this.schedulePass();
    return (
      (await this.budgets()).find((x) => x.scope === b.scope && x.key === key && x.period === b.period) ??
      null
    );
  }

  /** Every budget with the current period's spend (re-read now). */
  async budgets(): Promise<BudgetUsage[]> {
    const spend = await this.readSpendNow();
    return this.budgetStates(spend).map((b) => ({
      ...b,
      periodStartMs: periodStartMs(b.period, this.clock.now()),
      exhausted: b.spentUsd >= b.limitUsd,
    }));
  }

  private budgetStates(spend: Spend): BudgetState[] {
    return this.budgets_.map((b) => {
      const m = b.scope === "WORKSPACE" ? spend[b.period].workspace : spend[b.period].provider;
      return { ...b, spentUsd: m.get(b.key) ?? 0 };
    });
  }

  private async readSpendNow(): Promise<Spend> {
    const now = this.clock.now();
    this.spend = await readSpend(
      this.deps.db,
      now,
      (ws) => this.deps.fleet.registry.find(ws)?.config.provider ?? null,
    );
    return this.spend;
  }

  /**
   * Set (or clear with null) a workspace's default run timeout for launches enqueued from now on
   * that name none (issue 14 item 6).
   * @throws NotFound (workspace), ValidationFailed (out of TIMEOUT_MIN_MS … TIMEOUT_MAX_MS).
   */
  async setWorkspaceTimeout(workspace: string, timeoutMs: number | null): Promise<void> {
    this.deps.fleet.registry.get(workspace);
    if (
      timeoutMs !== null &&
      (!Number.isInteger(timeoutMs) || timeoutMs < TIMEOUT_MIN_MS || timeoutMs > TIMEOUT_MAX_MS)
    )
      throw new ValidationFailed([
        {
          path: ["input", "timeoutMs"],
          message: `must be from ${TIMEOUT_MIN_MS} ms to ${TIMEOUT_MAX_MS} ms (7 days)`,
        },
      ]);
    await this.write((db) => [
      db.workspace.update({ where: { name: workspace }, data: { launchTimeoutMs: timeoutMs } }),
    ]);
    if (timeoutMs === null) this.wsTimeouts.delete(workspace);
    else this.wsTimeouts.set(workspace, timeoutMs);
  }

  // ------------------------------------------------------------------------------------------
  // Read side
  // ------------------------------------------------------------------------------------------

  /**
   * Why a QUEUED launch waits: from the last dispatch pass, or — when the pass was skipped because
   * the GLOBAL cap is full, or the launch is newer than it — decided for this launch alone by the
   * same rules against the current runs; null for a launch that is not QUEUED, or that would be
   * dispatched now.
   */
  waitingFor(launchId: string): WaitReason | null {
    const l = this.active.get(launchId);
    if (l?.state !== "QUEUED") return null;
    const known = this.stale ? undefined : this.waiting.get(launchId);
    if (known) return known;
    const now = this.clock.now();
    const decision = admit({
      nowMs: now,
      queued: [this.queuedInput(l)],
      live: this.liveRuns(),
      caps: [...this.caps_.values()],
      budgets: this.spend ? this.budgetStates(this.spend) : [],
      providerBackoff: this.backoffMap(now),
      activeIds:
        l.afterLaunchId !== null && this.active.has(l.afterLaunchId) ? new Set([l.afterLaunchId]) : new Set(),
    });
    return decision.waiting.get(launchId) ?? null;
  }

  /**
   * 1-based position of a QUEUED launch in dispatch order (priority, then age); null otherwise.
   * From the last pass while no launch changed since; else every queued launch is ordered once
   * (n log n) and the order kept until the next change, so a page of 50 positions is one sort.
   */
  queuePosition(launchId: string): number | null {
    const l = this.active.get(launchId);
    if (l?.state !== "QUEUED") return null;
    if (this.positionsVersion !== this.version || !this.positions.has(launchId)) {
      const order: QueuedLaunch[] = [];
      for (const id of this.byState.get("QUEUED")!) {
        const o = this.active.get(id);
        if (o) order.push(this.queuedInput(o));
      }
      order.sort(dispatchOrder);
      this.positions = new Map(order.map((q, i) => [q.id, i + 1]));
      this.positionsVersion = this.version;
    }
    return this.positions.get(launchId) ?? null;
  }

  /**
   * The QUEUED launch that has been ready to run the longest (the health check `queue_wait`, issue
   * 15): ready = its notBefore and retry time have passed, its provider is not backing off, no
   * predecessor of its schedule is still active, and its workspace is registered. Linear in the queue.
   * @param nowMs when to judge readiness, ms since the epoch (default the queue's clock).
   * @returns its id, workspace and when it became ready (`readyAtMs`: enqueue, notBefore or retry
   *   time, ms since the epoch); null when no launch is ready.
   */
  oldestReadyLaunch(
    nowMs: number = this.clock.now(),
  ): { launchId: string; workspace: string; readyAtMs: number } | null {
    const backoff = this.backoffMap(nowMs);
    let oldest: ActiveLaunch | null = null;
    for (const id of this.byState.get("QUEUED")!) {
      const l = this.active.get(id);
      if (!l || !this.deps.fleet.registry.find(l.workspace)) continue;
      if ((l.notBeforeMs ?? 0) > nowMs || (l.retryAtMs ?? 0) > nowMs) continue;
      if (l.afterLaunchId !== null && this.active.has(l.afterLaunchId)) continue;
      if ((backoff.get(this.providerOf(l.workspace, l.specProvider)) ?? 0) > nowMs) continue;
      if (!oldest || l.readyAtMs < oldest.readyAtMs) oldest = l;
    }
    return oldest ? { launchId: oldest.id, workspace: oldest.workspace, readyAtMs: oldest.readyAtMs } : null;
  }

  /** True while the launch is not final. */
  async isActive(launchId: string): Promise<boolean> {
    if (this.active.has(launchId)) return true;
    const row = await this.deps.db.launch.findUnique({ where: { id: launchId }, select: { state: true } });
    return row !== null && !isFinalLaunchState(row.state);
  }

  /** Counters and gauges; see {@link QueueMetrics}. */
  metrics(): QueueMetrics {
    let oldest: number | null = null;
    for (const id of this.byState.get("QUEUED")!) {
      const at = this.active.get(id)?.createdAtMs;
      if (at !== undefined) oldest = oldest === null ? at : Math.min(oldest, at);
    }
    return {
      queued: this.byState.get("QUEUED")!.size,
      dispatched: this.byState.get("DISPATCHED")!.size,
      running: this.byState.get("RUNNING")!.size,
      ...this.counters,
      oldest_queued_age_ms: oldest === null ? 0 : Math.max(0, this.clock.now() - oldest),
    };
  }

  // ------------------------------------------------------------------------------------------
  // The dispatcher
  // ------------------------------------------------------------------------------------------

  private providerOf(workspace: string, specProvider: string | null): string {
    return specProvider ?? this.deps.fleet.registry.find(workspace)?.config.provider ?? "default";
  }

  private modelOf(workspace: string, specModel: string | null): string | null {
    return specModel ?? this.deps.fleet.registry.find(workspace)?.config.model ?? null;
  }

  /**
   * Slots in use: every live run the fleet serves (spawning, running, idle — ours or discovered on
   * a daemon, issue 14 item 2) plus launches whose attempt has no live run in the fleet's view yet
   * (a spawn in flight, a run adopted but not yet polled) or whose run ended but whose launch is
   * not settled yet (still RUNNING until its final transition commits: the slot frees then, so no
   * view — the queue's gauges, the Launch rows — ever shows more in flight than the cap).
   */
  private liveRuns(): LiveRun[] {
    const out: LiveRun[] = [];
    const { registry, state } = this.deps.fleet;
    const counted = new Set<string>();
    for (const ws of registry.list()) {
      for (const a of state.agentsOf(ws.name)) {
        if (isTerminal(a.status)) continue;
        counted.add(a.id);
        const spec = a.spec as { provider?: unknown; model?: unknown };
        out.push({
          workspace: ws.name,
          provider: providerOfSpec(spec, ws.config.provider ?? null),
          model: typeof spec.model === "string" && spec.model !== "" ? spec.model : (ws.config.model ?? null),
        });
      }
    }
    for (const id of [...this.byState.get("DISPATCHED")!, ...this.byState.get("RUNNING")!]) {
      const l = this.active.get(id);
      if (!l) continue;
      if (l.agentId !== null && counted.has(l.agentId)) continue;
      out.push({
        workspace: l.workspace,
        provider: this.providerOf(l.workspace, l.specProvider),
        model: this.modelOf(l.workspace, l.specModel),
      });
    }
    return out;
  }

  /** Ask for a dispatch pass soon (coalesced: many wake-ups, one pass). */
  private schedulePass(): void {
    if (this.passQueued || this.stopped || !this.started) return;
    this.passQueued = true;
    setImmediate(() => {
      this.passQueued = false;
      this.background("dispatch pass failed", this.pass());
    });
  }

  /** A queued launch as `admit()` takes it. */
  private queuedInput(l: ActiveLaunch): QueuedLaunch {
    return {
      id: l.id,
      workspace: l.workspace,
      provider: this.providerOf(l.workspace, l.specProvider),
      model: this.modelOf(l.workspace, l.specModel),
      priority: l.priority,
      createdAtMs: l.createdAtMs,
      notBeforeMs: l.notBeforeMs,
      retryAtMs: l.retryAtMs,
      afterLaunchId: l.afterLaunchId,
      unreachableUntilMs: l.unreachableUntilMs,
    };
  }

  private backoffMap(now: number): Map<string, number> {
    return new Map(this.backoff.snapshot(now).map((b) => [b.provider, b.untilMs]));
  }

  /**
   * One dispatch pass: `admit()` over every queued launch, then dispatch what it admits. Skipped
   * (reasons and positions then answered per launch, on request) while the GLOBAL cap is full:
   * nothing could start, and a pass is linear in the queue — a run ending wakes the next one.
   */
  private async pass(): Promise<void> {
    await this.passLock.runExclusive(async () => {
      if (this.stopped) return;
      // Safety net: a RUNNING launch whose run the fleet shows ended (whatever event was missed).
      for (const id of this.byState.get("RUNNING")!) {
        const l = this.active.get(id);
        const a = l?.agentId ? this.deps.fleet.state.agent(l.agentId) : undefined;
        if (l && a && isTerminal(a.status)) {
          const agentId = a.id;
          this.background(
            "settling a run",
            this.chain(id, () => this.settleRun(id, agentId)),
          );
        }
      }
      const now = this.clock.now();
      const live = this.liveRuns();
      const global = this.caps_.get(capMapKey("GLOBAL", ""));
      if (global && live.length >= global.max) {
        this.stale = true;
        return;
      }
      const queued: QueuedLaunch[] = [];
      for (const id of this.byState.get("QUEUED")!) {
        const l = this.active.get(id);
        if (!l || !this.deps.fleet.registry.find(l.workspace)) continue; // unregistered: waits (cancel it)
        queued.push(this.queuedInput(l));
      }
      let budgets: BudgetState[] = [];
      if (this.budgets_.length > 0 && queued.length > 0) {
        if (!this.spend || now - this.spend.atMs > SPEND_TTL_MS) await this.readSpendNow();
        budgets = this.budgetStates(this.spend!);
      }
      const backoff = this.backoffMap(now);
      // Every non-final launch is in memory (all are loaded at start).
      const activeIds = new Set<string>();
      for (const l of queued)
        if (l.afterLaunchId !== null && this.active.has(l.afterLaunchId)) activeIds.add(l.afterLaunchId);
      const decision = admit({
        nowMs: now,
        queued,
        live,
        caps: [...this.caps_.values()],
        budgets,
        providerBackoff: backoff,
        activeIds,
      });
      this.waiting = decision.waiting;
      const admitted = new Set(decision.admit.map((a) => a.id));
      this.positions = new Map(decision.order.filter((id) => !admitted.has(id)).map((id, i) => [id, i + 1]));
      this.positionsVersion = this.version;
      this.stale = false;
      for (const q of decision.admit) {
        const l = this.active.get(q.id);
        if (!l || l.state !== "QUEUED") continue;
        await this.chain(l.id, () => this.dispatch(l));
      }
      // Budgets are not event-driven (spend grows with every turn): look again while one holds work back.
      const budgetWait = [...decision.waiting.values()].some((w) => w.kind === "BUDGET")
        ? now + SPEND_TTL_MS
        : null;
      const wake = [decision.wakeAtMs, budgetWait].filter((x): x is number => x !== null);
      this.armWake(wake.length > 0 ? Math.min(...wake) : null);
    });
  }

  private armWake(atMs: number | null): void {
    if (this.wakeTimer && this.wakeAtMs === atMs) return;
    if (this.wakeTimer) this.clock.clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAtMs = atMs;
    if (atMs === null) return;
    this.wakeTimer = this.clock.setTimeout(
      () => {
        this.wakeTimer = null;
        this.wakeAtMs = null;
        this.schedulePass();
      },
      Math.max(0, atMs - this.clock.now()),
    );
  }

  /**
   * Start the next attempt of a QUEUED launch: the attempt row (workspace, spec fingerprint, time)
   * and DISPATCHED are committed first, then the spawn — or, for a retry, caliband's respawn of the
   * last run (same spec) — runs in the background.
   */
  private async dispatch(l: ActiveLaunch): Promise<void> {
    if (l.state !== "QUEUED" || this.stopped) return;
    const ws = this.deps.fleet.registry.find(l.workspace);
    if (!ws) return;
    const row = await this.deps.db.launch.findUniqueOrThrow({ where: { id: l.id }, select: { spec: true } });
    const spec = row.spec as unknown as StoredSpec;
    const prev = l.agentId !== null ? this.deps.fleet.state.agent(l.agentId) : undefined;
    const respawnOf = prev && isTerminal(prev.status) ? prev.id : null;
    const specInput: SpawnSpecInput = respawnOf
      ? (prev!.spec as unknown as SpawnSpecInput)
      : resolveSpawnSpec(spec, ws.config);
    let fingerprint: string;
    try {
      fingerprint = specFingerprint(specInput);
    } catch {
      fingerprint = specFingerprint(resolveSpawnSpec(spec, ws.config));
    }
    // An attempt that never reached caliband (lost to an unreachable daemon, or to a restart before
    // its spawn was sent) is not an attempt of the limit: its number is used again.
    const last =
      l.attemptCount > 0
        ? await this.deps.db.launchAttempt.findUnique({
            where: { launchId_n: { launchId: l.id, n: l.attemptCount } },
            select: { outcome: true },
          })
        : null;
    const reuse = last?.outcome === "lost";
    const n = reuse ? l.attemptCount : l.attemptCount + 1;
    const now = this.clock.now();
    const wait = Math.max(0, now - l.readyAtMs);
    l.attemptCount = n;
    const attempt = {
      workspace: l.workspace,
      specFingerprint: fingerprint,
      requestedAt: new Date(now),
      kind: respawnOf ? "respawn" : "spawn",
      respawnOf,
    };
    await this.change(
      l,
      "DISPATCHED",
      `${respawnOf ? `attempt ${n} of ${l.retry.maxAttempts}: respawning ${respawnOf}` : `attempt ${n}`}${reuse ? " (again: the last try never reached caliband)" : ""}`,
      { attemptCount: n, dispatchedAt: new Date(now), retryAt: null },
      (db) => [
        reuse
          ? db.launchAttempt.update({
              where: { launchId_n: { launchId: l.id, n } },
              data: { ...attempt, outcome: null, error: null, transient: null, endedAt: null },
            })
          : db.launchAttempt.create({ data: { launchId: l.id, n, ...attempt } }),
      ],
      n,
    );
    crashPoint("attempt-recorded");
    this.counters.dispatches_total++;
    this.counters.wait_ms_sum += wait;
    this.counters.wait_ms_count++;
    this.background(
      `launch ${l.id}: attempt ${n} failed unexpectedly`,
      this.runAttempt(l, n, spec, respawnOf, new Date(now), fingerprint),
    );
  }

  private async runAttempt(
    l: ActiveLaunch,
    n: number,
    spec: StoredSpec,
    respawnOf: string | null,
    requestedAt: Date,
    fingerprint: string,
  ): Promise<void> {
    const { lifecycle } = this.deps.fleet;
    let agentId: string;
    try {
      if (respawnOf) {
        try {
          agentId = (await lifecycle.respawn(respawnOf, false)).id;
        } catch (err) {
          if (!(err instanceof NotFound)) throw err;
          // The old run was removed meanwhile: start the same spec afresh.
          agentId = (await lifecycle.spawn({ ...spec, workspace: l.workspace })).agent.id;
        }
      } else {
        agentId = (await lifecycle.spawn({ ...spec, workspace: l.workspace })).agent.id;
      }
    } catch (err) {
      await this.chain(l.id, () => this.attemptFailed(l, n, err, requestedAt, fingerprint));
      return;
    }
    crashPoint("spawn-answered");
    this.byAgent.set(agentId, l.id);
    await this.chain(l.id, () => this.attemptStarted(l, n, agentId, false));
  }

  /** The attempt's run exists: RUNNING, timeout armed; a cancel asked meanwhile kills it. */
  private async attemptStarted(l: ActiveLaunch, n: number, agentId: string, adopted: boolean): Promise<void> {
    if (isFinalLaunchState(l.state)) return;
    const now = this.clock.now();
    l.agentId = agentId;
    l.runs++;
    l.startedAtMs = now;
    l.unreachableFailures = 0;
    l.unreachableUntilMs = null;
    this.byAgent.set(agentId, l.id);
    await this.change(
      l,
      "RUNNING",
      adopted
        ? `run ${agentId} adopted: its daemon lists it with this attempt's spec (the spawn's reply was lost)`
        : `run ${agentId}`,
      { agentId, startedAt: new Date(now) },
      (db) => [db.launchAttempt.update({ where: { launchId_n: { launchId: l.id, n } }, data: { agentId } })],
      n,
    );
    crashPoint("running-recorded");
    if (adopted) this.counters.adopted_total++;
    this.armTimeout(l);
    if (adopted && !this.deps.fleet.state.agent(agentId)) {
      // Found in the daemon's list, not yet in the fleet's view: poll now so it is served (and
      // can be killed, followed and counted as the fleet's) before anything acts on it.
      const ws = this.deps.fleet.registry.find(l.workspace);
      if (ws) await this.deps.fleet.poller.pollOnce(ws).catch(() => undefined);
    }
    const view = this.deps.fleet.state.agent(agentId);
    if (l.stopRequest === "cancel") {
      this.background(`launch ${l.id}: cancelling`, this.stopRun(l, "cancelled"));
    } else if (view && isTerminal(view.status)) {
      // It ended before we recorded it running (a fast run, or while the gateway was down).
      await this.settleRun(l.id, agentId);
    }
  }

  /** The spawn failed. A lost reply may still have started a run: adopt it; else retry or fail. */
  private async attemptFailed(
    l: ActiveLaunch,
    n: number,
    err: unknown,
    requestedAt: Date,
    fingerprint: string,
    lookedAgain = false,
  ): Promise<void> {
    if (isFinalLaunchState(l.state) || l.state !== "DISPATCHED" || this.stopped) return;
    let adopted: string | null;
    try {
      adopted = await this.findAdoptable(l.workspace, fingerprint, requestedAt);
    } catch (listErr) {
      // The daemon cannot say whether the spawn reached it (a hung or lost daemon): the attempt
      // stays DISPATCHED, holding its slot, and the question is asked again — never "nothing ran".
      this.resolveLater(l, n, err, requestedAt, fingerprint, lookedAgain, listErr);
      return;
    }
    if (adopted) {
      await this.attemptStarted(l, n, adopted, true);
      return;
    }
    if (err instanceof Unreachable && !lookedAgain && mayHaveBeenSent(err)) {
      // A deadline or reset after the request was written: the daemon may still act on it. Look
      // once more a little later before concluding that nothing ran.
      this.resolveLater(l, n, err, requestedAt, fingerprint, true, null);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    const now = this.clock.now();
    if (l.stopRequest === "cancel") {
      await this.change(
        l,
        "CANCELLED",
        "cancelled before its run started",
        { reason: "cancelled" },
        (db) => [
          db.launchAttempt.update({
            where: { launchId_n: { launchId: l.id, n } },
            data: { outcome: "cancelled", error: message, endedAt: new Date(now) },
          }),
        ],
        n,
      );
      this.counters.cancellations_total++;
      return;
    }
    if (err instanceof Unreachable) {
      // The daemon could not be reached: nothing ran. Wait and dispatch again (not an attempt of the limit).
      l.unreachableFailures++;
      const delay = Math.min(
        UNREACHABLE_BACKOFF_MAX_MS,
        UNREACHABLE_BACKOFF_MS * 2 ** (l.unreachableFailures - 1),
      );
      l.unreachableUntilMs = now + delay;
      l.readyAtMs = now + delay;
      await this.change(
        l,
        "QUEUED",
        `caliband unreachable (${message}); dispatching again in ${Math.round(delay / 1000)} s`,
        {},
        (db) => [
          db.launchAttempt.update({
            where: { launchId_n: { launchId: l.id, n } },
            data: { outcome: "lost", error: message, transient: true, endedAt: new Date(now) },
          }),
        ],
        n,
      );
      this.schedulePass();
      return;
    }
    // Refused by validation, the provider config or caliband itself: permanent.
    const reason = `spawn refused: ${message}`;
    await this.change(
      l,
      "FAILED",
      reason,
      { reason },
      (db) => [
        db.launchAttempt.update({
          where: { launchId_n: { launchId: l.id, n } },
          data: { outcome: "failed", error: message, transient: false, endedAt: new Date(now) },
        }),
      ],
      n,
    );
    this.schedulePass();
  }

  /**
   * Ask again, after a backoff (5 s doubling to 5 min), what became of an attempt whose spawn
   * failed without a clear answer; see {@link attemptFailed}.
   */
  private resolveLater(
    l: ActiveLaunch,
    n: number,
    err: unknown,
    requestedAt: Date,
    fingerprint: string,
    lookedAgain: boolean,
    listErr: unknown,
  ): void {
    l.unreachableFailures++;
    const delay = Math.min(
      UNREACHABLE_BACKOFF_MAX_MS,
      UNREACHABLE_BACKOFF_MS * 2 ** (l.unreachableFailures - 1),
    );
    if (listErr !== null) {
      this.log.warn(
        { launch: l.id, attempt: n, err: listErr },
        `cannot tell whether attempt ${n}'s spawn reached caliband; asking again in ${Math.round(delay / 1000)} s`,
      );
    }
    const t = this.clock.setTimeout(() => {
      this.pendingTimers.delete(t);
      this.background(
        `launch ${l.id}: resolving attempt ${n}`,
        this.chain(l.id, () => this.attemptFailed(l, n, err, requestedAt, fingerprint, lookedAgain)),
      );
    }, delay);
    this.pendingTimers.add(t);
  }

  /**
   * The daemon's agent started for an attempt whose spawn reply never arrived: same spec
   * fingerprint, started at or after the attempt was requested (less a small skew), and not the run
   * of any other attempt. Oldest first, so two identical attempts adopt two distinct runs.
   * @throws Unreachable when the daemon cannot be listed.
   */
  private async findAdoptable(
    workspace: string,
    fingerprint: string,
    requestedAt: Date,
  ): Promise<string | null> {
    const ws = this.deps.fleet.registry.get(workspace);
    const client = await this.deps.fleet.daemons.client(ws);
    const records = await client.list();
    const since = requestedAt.getTime() - ADOPTION_SKEW_MS;
    const candidates = records
      .filter((r) => Date.parse(r.started_at) >= since)
      .filter((r) => {
        try {
          return specFingerprint(r.spec) === fingerprint;
        } catch {
          return false;
        }
      })
      .sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
    if (candidates.length === 0) return null;
    const taken = new Set(
      (
        await this.deps.db.launchAttempt.findMany({
          where: { agentId: { in: candidates.map((c) => c.id) } },
          select: { agentId: true },
        })
      ).map((a) => a.agentId),
    );
    return candidates.find((c) => !taken.has(c.id))?.id ?? null;
  }

  // ------------------------------------------------------------------------------------------
  // Run endings, timeouts, retries
  // ------------------------------------------------------------------------------------------

  private armTimeout(l: ActiveLaunch): void {
    if (l.timeoutMs === null || l.startedAtMs === null) return;
    const old = this.timeouts.get(l.id);
    if (old) this.clock.clearTimeout(old);
    const due = l.startedAtMs + l.timeoutMs - this.clock.now();
    this.timeouts.set(
      l.id,
      this.clock.setTimeout(() => {
        this.timeouts.delete(l.id);
        this.background(`launch ${l.id}: timeout`, this.timeOut(l));
      }, due),
    );
  }

  /** The run exceeded its timeout: record why, kill it; its end settles the launch TIMED_OUT. */
  private async timeOut(l: ActiveLaunch): Promise<void> {
    if (l.state !== "RUNNING" || !l.agentId || this.stopped) return;
    const due = l.startedAtMs! + l.timeoutMs! - this.clock.now();
    if (due > 0) return this.armTimeout(l); // a long timer fired early (re-armed beyond 2^31 ms)
    l.stopRequest = "timeout";
    await this.write((db) => [db.launch.update({ where: { id: l.id }, data: { stopRequest: "timeout" } })]);
    this.log.info(
      { launch: l.id, agent: l.agentId, timeoutMs: l.timeoutMs },
      "run exceeded its timeout: killing it",
    );
    try {
      await this.stopRun(l, "timeout");
    } catch (err) {
      // The daemon could not be reached: try again shortly (the run keeps counting as over time).
      this.log.warn({ err, launch: l.id }, "could not kill a timed-out run; retrying in 10 s");
      this.timeouts.set(
        l.id,
        this.clock.setTimeout(() => this.background(`launch ${l.id}: timeout`, this.timeOut(l)), 10_000),
      );
    }
  }

  /** Follow the fleet's events: run endings settle launches; any slot change wakes the dispatcher. */
  private async follow(sub: BusSubscription): Promise<void> {
    for await (const item of sub) {
      if (item.type === "overflow") {
        for (const [agentId, launchId] of this.byAgent) {
          const a = this.deps.fleet.state.agent(agentId);
          if (!a || isTerminal(a.status))
            this.background(
              "settling a run",
              this.chain(launchId, () => this.settleRun(launchId, agentId)),
            );
        }
        this.schedulePass();
        continue;
      }
      const e = item.event;
      if (e.kind === "status_changed" && isTerminal(e.payload.to)) {
        const launchId = this.byAgent.get(e.agentId);
        if (launchId)
          this.background(
            "settling a run",
            this.chain(launchId, () => this.settleRun(launchId, e.agentId)),
          );
      } else if (e.kind === "agent_discovered" && isTerminal(e.payload.status)) {
        // A run adopted after a restart that ended while the gateway was down is first seen ended.
        const launchId = this.byAgent.get(e.agentId);
        if (launchId)
          this.background(
            "settling a run",
            this.chain(launchId, () => this.settleRun(launchId, e.agentId)),
          );
      } else if (e.kind === "agent_gone") {
        const launchId = this.byAgent.get(e.agentId);
        if (launchId)
          this.background(
            "settling a run",
            this.chain(launchId, () => this.settleRun(launchId, e.agentId)),
          );
      }
      this.schedulePass();
    }
  }

  /**
   * A launch's run ended (or is gone): decide the launch's fate — SUCCEEDED, a retry after a
   * transient failure (respawn after a jittered backoff; a burst slows the whole provider),
   * TIMED_OUT / CANCELLED when Prospero stopped it for that reason, else FAILED with why.
   * Idempotent: a launch no longer RUNNING on this run is left alone.
   */
  private async settleRun(launchId: string, agentId: string): Promise<void> {
    const l = this.active.get(launchId);
    if (!l || l.state !== "RUNNING" || l.agentId !== agentId) return;
    const view = this.deps.fleet.state.agent(agentId);
    const row = await this.deps.db.agent.findUnique({
      where: { id: agentId },
      select: { status: true, outcome: true, failureLogTail: true },
    });
    // A run the fleet has not recorded yet (adopted from the daemon's list, not yet polled) has
    // not ended as far as anyone knows: its discovery settles it.
    if (!view && !row) return;
    const status = view?.status ?? row?.status ?? "crashed";
    if (!isTerminal(status)) return; // still live (e.g. gone event for a run that was respawned by us)
    const finished = await this.deps.db.event.findFirst({
      where: { agentId, kind: "agent_finished" },
      orderBy: { seq: "desc" },
      select: { payload: true },
    });
    const detail = finished ? ((finished.payload as { detail?: string | null }).detail ?? null) : null;
    const turnsStarted = await this.deps.db.event.count({ where: { agentId, kind: "turn_started" } });
    const verdict = classifyEnding(
      { status, outcome: row?.outcome ?? null, detail, turnsStarted, logTail: row?.failureLogTail ?? null },
      this.patterns,
    );
    const now = this.clock.now();
    const n = l.attemptCount;
    const provider = this.providerOf(l.workspace, l.specProvider);
    const endAttempt =
      (outcome: string, error: string | null, transient: boolean | null) => (db: PrismaClient) => [
        db.launchAttempt.update({
          where: { launchId_n: { launchId: l.id, n } },
          data: { outcome, error, transient, endedAt: new Date(now) },
        }),
      ];
    this.byAgent.delete(agentId);
    const t = this.timeouts.get(l.id);
    if (t) this.clock.clearTimeout(t);
    this.timeouts.delete(l.id);
    if (verdict.kind === "succeeded") {
      this.backoff.recordSuccess(provider);
      await this.change(
        l,
        "SUCCEEDED",
        `run ${agentId} ended ${status}`,
        { reason: null },
        endAttempt("succeeded", null, null),
        n,
      );
    } else if (l.stopRequest === "timeout") {
      const reason = `timed out after ${l.timeoutMs} ms: run ${agentId} ${status === "killed" ? "was killed" : `ended ${status}`}`;
      await this.change(l, "TIMED_OUT", reason, { reason }, endAttempt("timed_out", reason, false), n);
      this.counters.timeouts_total++;
    } else if (l.stopRequest === "cancel") {
      await this.change(
        l,
        "CANCELLED",
        `cancelled: run ${agentId} ended ${status}`,
        {},
        endAttempt("cancelled", null, false),
        n,
      );
      this.counters.cancellations_total++;
    } else if (verdict.kind === "transient" && l.runs < l.retry.maxAttempts) {
      const delay = retryDelayMs(l.runs, l.retry, this.random);
      const until = this.backoff.recordTransient(provider, now);
      l.retryAtMs = now + delay;
      l.readyAtMs = l.retryAtMs;
      const reason = `attempt ${n} failed (${verdict.reason}); retry ${l.runs + 1} of ${l.retry.maxAttempts} in ${Math.round(delay / 100) / 10} s${until !== null ? `; provider ${provider} backing off until ${new Date(until).toISOString()}` : ""}`;
      await this.change(
        l,
        "QUEUED",
        reason,
        { retryAt: new Date(l.retryAtMs), reason: verdict.reason },
        endAttempt("failed", verdict.reason, true),
        n,
      );
      this.counters.retries_total++;
    } else {
      if (verdict.kind === "transient") this.backoff.recordTransient(provider, now);
      const reason =
        verdict.kind === "transient"
          ? `gave up after ${l.runs} attempt${l.runs === 1 ? "" : "s"}: ${verdict.reason}`
          : verdict.reason;
      await this.change(
        l,
        "FAILED",
        reason,
        { reason },
        endAttempt("failed", verdict.reason, verdict.kind === "transient"),
        n,
      );
    }
    this.schedulePass();
  }

  /**
   * After a restart: settle RUNNING launches whose run ended while the gateway was down, re-arm
   * timeouts, and resolve DISPATCHED attempts — the run recorded, adopted from the daemon's list
   * (same spec fingerprint, started after the attempt was requested), or none: dispatched again.
   * An unreachable daemon leaves its attempts DISPATCHED and is asked again in 5 s.
   */
  private async recover(): Promise<void> {
    let pending = false;
    for (const l of [...this.active.values()]) {
      if (l.state === "RUNNING" && l.agentId) {
        this.byAgent.set(l.agentId, l.id);
        this.armTimeout(l);
        const view = this.deps.fleet.state.agent(l.agentId);
        if (!view || isTerminal(view.status)) await this.chain(l.id, () => this.settleRun(l.id, l.agentId!));
        continue;
      }
      if (l.state !== "DISPATCHED") continue;
      const attempt = await this.deps.db.launchAttempt.findUnique({
        where: { launchId_n: { launchId: l.id, n: l.attemptCount } },
      });
      if (!attempt) {
        await this.chain(l.id, () =>
          this.change(l, "QUEUED", "no attempt was recorded; dispatching again", {}),
        );
        continue;
      }
      if (attempt.agentId) {
        await this.chain(l.id, () => this.attemptStarted(l, attempt.n, attempt.agentId!, false));
        continue;
      }
      let adopted: string | null;
      try {
        adopted = await this.findAdoptable(l.workspace, attempt.specFingerprint, attempt.requestedAt);
      } catch (err) {
        this.log.warn(
          { err, launch: l.id },
          "cannot list the daemon to resolve a dispatched attempt; asking again in 5 s",
        );
        pending = true;
        continue;
      }
      if (adopted) {
        await this.chain(l.id, () => this.attemptStarted(l, attempt.n, adopted, true));
      } else {
        const now = new Date(this.clock.now());
        await this.chain(l.id, () =>
          this.change(
            l,
            "QUEUED",
            `attempt ${attempt.n} never reached caliband (the gateway stopped before its spawn was answered, and no matching run is listed); dispatching again`,
            {},
            (db) => [
              db.launchAttempt.update({
                where: { id: attempt.id },
                data: { outcome: "lost", error: "no run was started", endedAt: now },
              }),
            ],
            attempt.n,
          ),
        );
      }
    }
    if (pending && !this.stopped) {
      this.recoveryTimer = this.clock.setTimeout(() => {
        this.recoveryTimer = null;
        this.background(
          "recovering dispatched launches",
          this.recover().then(() => this.schedulePass()),
        );
      }, 5_000);
    }
  }
}
