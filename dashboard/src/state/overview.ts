/**
 * The overview's data (issue 16 item 5), as pure functions of the `OVERVIEW_QUERY` answer and the
 * live fleet: the time window, totals, live counts, chart series per UTC day, which fleetChanges
 * items change the totals, and the throttled re-reader (no polling loop: it reads only when asked).
 *
 * Days are UTC days, as the gateway groups `usage(groupBy: [DAY])`; "today" is the viewer's local
 * day (from local midnight until now).
 */
import type { Agent, FleetChange } from "../api/types.js";
import type { Outcomes, UsageGroupRow } from "../api/overview-documents.js";

/** Days the overview's charts and "last 7 days" totals cover (today's UTC day included). */
export const OVERVIEW_DAYS = 7;

/** Fewest milliseconds between the starts of two usage reads (the throttle of live refreshes). */
export const REFRESH_MIN_INTERVAL_MS = 5_000;

/** Most series a chart draws; further groups are summed into {@link OTHER_SERIES}. */
export const MAX_SERIES = 6;

/** Name of the series that sums the groups beyond {@link MAX_SERIES} − 1. */
export const OTHER_SERIES = "other";

/** Name of the model series of turns whose model is not known. */
export const UNKNOWN_MODEL = "unknown model";

/** The windows of one read: instants as RFC 3339 strings, days as UTC `YYYY-MM-DD`, oldest first. */
export interface OverviewWindow {
  /** Local midnight of `now`'s day: the start of "today". */
  today: string;
  /** UTC midnight of the first of {@link days}: the start of "last 7 days" and of the charts. */
  since: string;
  /** The UTC days of the charts, oldest first, the last being `now`'s UTC day. */
  days: string[];
}

/**
 * The windows for a read made at `now`.
 * @param days how many UTC days (≥ 1; default {@link OVERVIEW_DAYS}).
 */
export function overviewWindow(now: Date, days = OVERVIEW_DAYS): OverviewWindow {
  const n = Math.max(1, Math.floor(days));
  const localMidnight = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const keys: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    keys.push(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - i))
        .toISOString()
        .slice(0, 10),
    );
  }
  return { today: localMidnight.toISOString(), since: `${keys[0] ?? ""}T00:00:00.000Z`, days: keys };
}

/** Live runs by status, from the fleet state (what daemons list now). */
export interface LiveCounts {
  running: number;
  idle: number;
  spawning: number;
}

/** Count the live runs of `agents` by status (terminal and unknown ones are not counted). */
export function liveCounts(agents: Iterable<Agent>): LiveCounts {
  const counts: LiveCounts = { running: 0, idle: 0, spawning: 0 };
  for (const a of agents) {
    if (a.status === "RUNNING") counts.running++;
    else if (a.status === "IDLE") counts.idle++;
    else if (a.status === "SPAWNING") counts.spawning++;
  }
  return counts;
}

/** Sums over usage rows. Tokens in tokens, cost in USD. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
  costUsd: number;
  unpricedTurns: number;
  turns: number;
  outcomes: Outcomes;
}

/** Sum `rows` (any grouping); all zero for none. */
export function sumUsage(rows: readonly UsageGroupRow[]): UsageTotals {
  const t: UsageTotals = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheCreation: 0,
    costUsd: 0,
    unpricedTurns: 0,
    turns: 0,
    outcomes: { done: 0, failed: 0, killed: 0, crashed: 0 },
  };
  for (const r of rows) {
    t.input += r.input;
    t.output += r.output;
    t.cacheRead += r.cacheRead;
    t.cacheCreation += r.cacheCreation;
    t.costUsd += r.costUsd;
    t.unpricedTurns += r.unpricedTurns;
    t.turns += r.turns;
    t.outcomes.done += r.outcomes.done;
    t.outcomes.failed += r.outcomes.failed;
    t.outcomes.killed += r.outcomes.killed;
    t.outcomes.crashed += r.outcomes.crashed;
  }
  return t;
}

/** Whether any run did anything (a turn, or an end) in `rows`. */
export function hasActivity(rows: readonly UsageGroupRow[]): boolean {
  return rows.some(
    (r) => r.turns > 0 || r.outcomes.done + r.outcomes.failed + r.outcomes.killed + r.outcomes.crashed > 0,
  );
}

/** One series of a chart: a value per day of {@link ChartData.days}. */
export interface ChartSeries {
  name: string;
  /** Per day, in the chart's unit (USD, tokens, runs). */
  values: number[];
  /** Sum of `values`. */
  total: number;
}

/** What one per-day chart shows. */
export interface ChartData {
  /** UTC days, oldest first. */
  days: string[];
  series: ChartSeries[];
}

/** What the cost chart groups by (the overview's toggle). */
export type CostGrouping = "workspace" | "model";

function sumOf(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * Cost per day per workspace or model, from rows grouped by [DAY, WORKSPACE] or [DAY, MODEL].
 * Series are ordered by their total (largest first, then by name); groups that cost nothing are
 * left out; beyond `maxSeries` − 1 groups the rest are summed into {@link OTHER_SERIES}. Rows of
 * days outside `days` are ignored.
 */
export function costSeries(
  rows: readonly UsageGroupRow[],
  days: readonly string[],
  by: CostGrouping,
  maxSeries = MAX_SERIES,
): ChartData {
  const index = new Map(days.map((d, i) => [d, i]));
  const groups = new Map<string, number[]>();
  for (const r of rows) {
    const i = r.day === null ? undefined : index.get(r.day);
    if (i === undefined) continue;
    const name = by === "workspace" ? (r.workspace ?? "unknown workspace") : (r.model ?? UNKNOWN_MODEL);
    const values = groups.get(name) ?? days.map(() => 0);
    values[i] = (values[i] ?? 0) + r.costUsd;
    groups.set(name, values);
  }
  // A group that cost nothing (runs that ended before a turn, unpriced models) draws nothing.
  const all = [...groups]
    .map(([name, values]) => ({ name, values, total: sumOf(values) }))
    .filter((s) => s.total > 0);
  all.sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  const limit = Math.max(1, maxSeries);
  if (all.length <= limit) return { days: [...days], series: all };
  const kept = all.slice(0, limit - 1);
  const rest = all.slice(limit - 1);
  const values = days.map((_, i) => sumOf(rest.map((s) => s.values[i] ?? 0)));
  return {
    days: [...days],
    series: [...kept, { name: `${OTHER_SERIES} (${rest.length})`, values, total: sumOf(values) }],
  };
}

/** Input and output tokens per day (rows of any grouping that includes DAY). */
export function tokenSeries(rows: readonly UsageGroupRow[], days: readonly string[]): ChartData {
  return perDay(rows, days, [
    ["input", (r) => r.input],
    ["output", (r) => r.output],
  ]);
}

/** Runs that ended per day, by outcome (rows of any grouping that includes DAY). */
export function outcomeSeries(rows: readonly UsageGroupRow[], days: readonly string[]): ChartData {
  return perDay(rows, days, [
    ["done", (r) => r.outcomes.done],
    ["failed", (r) => r.outcomes.failed],
    ["killed", (r) => r.outcomes.killed],
    ["crashed", (r) => r.outcomes.crashed],
  ]);
}

function perDay(
  rows: readonly UsageGroupRow[],
  days: readonly string[],
  fields: readonly (readonly [string, (r: UsageGroupRow) => number])[],
): ChartData {
  const index = new Map(days.map((d, i) => [d, i]));
  const series = fields.map(([name]) => ({ name, values: days.map(() => 0), total: 0 }));
  for (const r of rows) {
    const i = r.day === null ? undefined : index.get(r.day);
    if (i === undefined) continue;
    fields.forEach(([, get], k) => {
      const s = series[k];
      if (s) s.values[i] = (s.values[i] ?? 0) + get(r);
    });
  }
  for (const s of series) s.total = sumOf(s.values);
  return { days: [...days], series };
}

/** Whether a chart has nothing to draw (no series, or every value 0). */
export function isEmptyChart(data: ChartData): boolean {
  return data.series.every((s) => s.values.every((v) => v === 0));
}

/**
 * Running sums for a stacked chart: element k is series 0…k added per day (so the last is the
 * day's total). Drawn from the last to the first, each bar covers the ones below it.
 */
export function stackValues(series: readonly ChartSeries[]): number[][] {
  const out: number[][] = [];
  let running: number[] | null = null;
  for (const s of series) {
    const base: number[] = running ?? s.values.map(() => 0);
    const next: number[] = s.values.map((v, i) => (base[i] ?? 0) + v);
    out.push(next);
    running = next;
  }
  return out;
}

/** Statuses a run never leaves. */
const TERMINAL = new Set(["DONE", "FAILED", "KILLED", "CRASHED"]);

/**
 * Whether a fleetChanges item may change the overview's usage totals, so they are read again:
 * a run that ended (AgentStatusChanged to a terminal status) or finished a turn of an interactive
 * run (to IDLE), a run that appeared outside the seed (spawned or discovered with its history),
 * and the end of a seed (a (re)subscription: whatever happened while the page was not listening).
 */
export function changeAffectsTotals(change: FleetChange): boolean {
  switch (change.__typename) {
    case "AgentStatusChanged":
      return TERMINAL.has(change.to) || change.to === "IDLE";
    case "AgentAppeared":
      return !change.seed;
    case "FleetSeedComplete":
      return true;
    default:
      return false;
  }
}

/** Timers of a {@link UsageRefresher} (the browser's by default; tests pass fakes). */
export interface RefreshClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const BROWSER_CLOCK: RefreshClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Reads the usage again when asked, at most once per `minIntervalMs` (from one read's start to the
 * next), one read at a time, and only while active (the overview is shown): requests while
 * inactive mark it stale, and it reads once when shown again. No timer runs unless a read was
 * asked for. A failed read is not retried by itself (the next request or activation retries).
 */
export class UsageRefresher {
  private active = false;
  private stale = true;
  private running = false;
  private timer: unknown = undefined;
  private lastStart = Number.NEGATIVE_INFINITY;

  /**
   * @param read reads and shows the usage; resolves true when it succeeded, false when not
   *   (it reports its error itself; a rejection counts as false).
   */
  constructor(
    private readonly read: () => Promise<boolean>,
    private readonly minIntervalMs = REFRESH_MIN_INTERVAL_MS,
    private readonly clock: RefreshClock = BROWSER_CLOCK,
  ) {}

  /** Whether a read is due (asked for and not done yet). */
  get pending(): boolean {
    return this.stale;
  }

  /** Ask for a fresh read (soon if active and the last read started long enough ago). */
  request(): void {
    this.stale = true;
    this.schedule();
  }

  /** The overview became visible (reads at once if stale, within the throttle) or hidden. */
  setActive(active: boolean): void {
    this.active = active;
    if (!active) {
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    this.schedule();
  }

  private schedule(): void {
    if (!this.active || !this.stale || this.running || this.timer !== undefined) return;
    const wait = Math.max(0, this.lastStart + this.minIntervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, wait);
  }

  private async run(): Promise<void> {
    if (!this.active || !this.stale) return;
    this.running = true;
    this.stale = false;
    this.lastStart = this.clock.now();
    let ok = false;
    try {
      ok = await this.read();
    } catch {
      ok = false;
    } finally {
      this.running = false;
    }
    if (!ok) {
      // Due again, but only the next request or activation reads (no retry loop).
      this.stale = true;
      return;
    }
    this.schedule();
  }
}
