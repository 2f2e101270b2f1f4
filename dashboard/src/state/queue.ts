/**
 * The launch queue as the dashboard knows it: launches, schedules, caps and budgets. Launches and
 * schedules are not part of the `fleetChanges` seed, so the view reads a snapshot (`QUEUE_QUERY`)
 * after every (re)subscription and after the live `LaunchChanged` / `ScheduleChanged` items
 * (debounced: one change moves the positions and wait reasons of others too), never on a timer.
 *
 * A live item may arrive while a snapshot is on its way and be newer than what the snapshot says:
 * {@link QueueState.replace} keeps, per launch and schedule, whichever is newer (`updatedAt`), and
 * keeps a live one the snapshot does not list yet.
 */
import {
  FINAL_LAUNCH_STATES,
  type Launch,
  type LaunchState,
  type QueueSnapshot,
  type QueueSummary,
  type Schedule,
} from "../api/types.js";

/** What changed, for listeners. */
export type QueueUpdate =
  { type: "snapshot" } | { type: "launch"; launchId: string } | { type: "schedule"; scheduleId: string };

/** How many launches of each list match in all (the snapshot's pages may hold fewer). */
export interface QueueTotals {
  waiting: number;
  active: number;
  recent: number;
  schedules: number;
}

/** How many recent final launches the view keeps and shows. */
export const RECENT_LIMIT = 20;

/** Live launches (dispatched or running). */
const ACTIVE_STATES: ReadonlySet<LaunchState> = new Set(["DISPATCHED", "RUNNING"]);

/** True when `a` was stored after `b` (RFC 3339 instants of the gateway's clock). */
function newer(a: { updatedAt: string }, b: { updatedAt: string }): boolean {
  return Date.parse(a.updatedAt) > Date.parse(b.updatedAt);
}

/** Dispatch order: priority (highest first), then oldest first, then id (the gateway's order). */
export function dispatchOrder(a: Launch, b: Launch): number {
  return (
    b.priority - a.priority || a.createdAt.localeCompare(b.createdAt) || a.launchId.localeCompare(b.launchId)
  );
}

function finishedFirst(a: Launch, b: Launch): number {
  return (
    (b.finishedAt ?? b.updatedAt).localeCompare(a.finishedAt ?? a.updatedAt) ||
    b.launchId.localeCompare(a.launchId)
  );
}

function startedFirst(a: Launch, b: Launch): number {
  return (
    (a.dispatchedAt ?? a.createdAt).localeCompare(b.dispatchedAt ?? b.createdAt) ||
    a.launchId.localeCompare(b.launchId)
  );
}

/** Launches, schedules, caps and budgets with change listeners. */
export class QueueState {
  readonly launches = new Map<string, Launch>();
  readonly schedules = new Map<string, Schedule>();
  /** Counts, caps and budgets; null before the first snapshot (or when the gateway gave none). */
  summary: QueueSummary | null = null;
  totals: QueueTotals = { waiting: 0, active: 0, recent: 0, schedules: 0 };
  /** True once a snapshot was read. */
  loaded = false;
  /** Counts live changes; a snapshot request remembers the count it started at. */
  private changes = 0;
  /** Per `launch:<id>` / `schedule:<id>`: the change count when a live item last set it. */
  private readonly touched = new Map<string, number>();
  private readonly listeners = new Set<(update: QueueUpdate) => void>();

  /** Call `fn` after every change; returns the unsubscribe function. */
  onChange(fn: (update: QueueUpdate) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A mark to pass to {@link replace}: take it right before sending the snapshot request. */
  mark(): number {
    return this.changes;
  }

  /**
   * Replace everything with a snapshot requested at `mark`: a launch or schedule that a live item
   * set after the mark stays when the snapshot lacks it or holds an older version of it.
   */
  replace(snapshot: QueueSnapshot, mark: number): void {
    const launches = new Map<string, Launch>();
    for (const page of [snapshot.waiting, snapshot.active, snapshot.recent])
      for (const { node } of page?.edges ?? []) launches.set(node.launchId, node);
    for (const [id, mine] of this.launches) {
      const theirs = launches.get(id);
      const liveSince = (this.touched.get(`launch:${id}`) ?? -1) > mark;
      if ((theirs === undefined && liveSince) || (theirs !== undefined && newer(mine, theirs)))
        launches.set(id, mine);
    }
    const schedules = new Map<string, Schedule>();
    for (const { node } of snapshot.schedules?.edges ?? []) schedules.set(node.scheduleId, node);
    for (const [id, mine] of this.schedules) {
      const theirs = schedules.get(id);
      const liveSince = (this.touched.get(`schedule:${id}`) ?? -1) > mark;
      if ((theirs === undefined && liveSince) || (theirs !== undefined && newer(mine, theirs)))
        schedules.set(id, mine);
    }
    replaceMap(this.launches, launches);
    replaceMap(this.schedules, schedules);
    this.summary = snapshot.queue;
    this.totals = {
      waiting: snapshot.waiting?.totalCount ?? 0,
      active: snapshot.active?.totalCount ?? 0,
      recent: snapshot.recent?.totalCount ?? 0,
      schedules: snapshot.schedules?.totalCount ?? 0,
    };
    this.touched.clear();
    this.loaded = true;
    this.pruneRecent();
    this.emit({ type: "snapshot" });
  }

  /** A launch as a live item or a mutation returned it; an older version than the one held is ignored. */
  applyLaunch(launch: Launch): void {
    const mine = this.launches.get(launch.launchId);
    if (mine && newer(mine, launch)) return;
    this.changes++;
    this.touched.set(`launch:${launch.launchId}`, this.changes);
    this.launches.set(launch.launchId, launch);
    this.pruneRecent();
    this.emit({ type: "launch", launchId: launch.launchId });
  }

  /**
   * A schedule as a live item or a mutation returned it. A deleted one is kept (so an older
   * snapshot cannot bring it back) but leaves {@link scheduleList}; the next snapshot forgets it.
   */
  applySchedule(schedule: Schedule): void {
    const mine = this.schedules.get(schedule.scheduleId);
    if (mine && newer(mine, schedule)) return;
    this.changes++;
    this.touched.set(`schedule:${schedule.scheduleId}`, this.changes);
    this.schedules.set(schedule.scheduleId, schedule);
    this.emit({ type: "schedule", scheduleId: schedule.scheduleId });
  }

  /** QUEUED launches in dispatch order. */
  waiting(): Launch[] {
    return [...this.launches.values()].filter((l) => l.state === "QUEUED").sort(dispatchOrder);
  }

  /** Dispatched and running launches, longest running first. */
  active(): Launch[] {
    return [...this.launches.values()].filter((l) => ACTIVE_STATES.has(l.state)).sort(startedFirst);
  }

  /** The most recent final launches, last finished first. */
  recent(): Launch[] {
    return [...this.launches.values()]
      .filter((l) => FINAL_LAUNCH_STATES.has(l.state))
      .sort(finishedFirst)
      .slice(0, RECENT_LIMIT);
  }

  /** Schedules not deleted, by name. */
  scheduleList(): Schedule[] {
    return [...this.schedules.values()]
      .filter((s) => s.deletedAt === null)
      .sort((a, b) => a.name.localeCompare(b.name) || a.scheduleId.localeCompare(b.scheduleId));
  }

  /** Forget final launches beyond the {@link RECENT_LIMIT} most recent (the page keeps no history). */
  private pruneRecent(): void {
    const finals = [...this.launches.values()].filter((l) => FINAL_LAUNCH_STATES.has(l.state));
    if (finals.length <= RECENT_LIMIT) return;
    for (const l of finals.sort(finishedFirst).slice(RECENT_LIMIT)) this.launches.delete(l.launchId);
  }

  private emit(update: QueueUpdate): void {
    for (const fn of this.listeners) fn(update);
  }
}

/**
 * Reads snapshots for a {@link QueueState} when asked: at most one request at a time, requests
 * coming in while one runs (or within `debounceMs`) are folded into one more. While inactive (the
 * queue view is hidden) requests only mark the state stale; activation reads it then.
 */
export class QueueRefresher {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private again = false;
  private stale = true;
  private active = false;

  /**
   * @param load reads a snapshot (`QUEUE_QUERY`); rejects when the gateway cannot answer.
   * @param onError told why a snapshot failed (null once one succeeded again).
   */
  constructor(
    private readonly state: QueueState,
    private readonly load: () => Promise<QueueSnapshot>,
    private readonly onError: (message: string | null) => void,
    private readonly debounceMs = 150,
  ) {}

  /** Ask for a fresh snapshot soon. */
  request(): void {
    this.stale = true;
    if (!this.active) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.debounceMs);
  }

  /** Start or stop reading (the view became visible or hidden); a stale state is read at once. */
  setActive(active: boolean): void {
    this.active = active;
    if (active && this.stale && !this.running) {
      clearTimeout(this.timer);
      void this.run();
    }
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    this.again = false;
    this.stale = false;
    const mark = this.state.mark();
    try {
      const snapshot = await this.load();
      this.state.replace(snapshot, mark);
      this.onError(null);
    } catch (err) {
      this.onError(err instanceof Error ? err.message : String(err));
    } finally {
      this.running = false;
      if (this.again) this.request();
    }
  }
}

function replaceMap<K, V>(target: Map<K, V>, source: Map<K, V>): void {
  target.clear();
  for (const [k, v] of source) target.set(k, v);
}
