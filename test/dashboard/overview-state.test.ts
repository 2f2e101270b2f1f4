/**
 * The overview's data (pure logic, no browser): windows, totals, live counts, chart series, which
 * fleetChanges items re-read the usage, and the throttled re-reader; its document against the schema.
 */
import fs from "node:fs";
import path from "node:path";
import { buildSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { OVERVIEW_QUERY, type UsageGroupRow } from "../../dashboard/src/api/overview-documents.js";
import type { Agent, AgentStatus, FleetChange } from "../../dashboard/src/api/types.js";
import {
  changeAffectsTotals,
  costSeries,
  hasActivity,
  isEmptyChart,
  liveCounts,
  outcomeSeries,
  overviewWindow,
  stackValues,
  sumUsage,
  tokenSeries,
  UNKNOWN_MODEL,
  UsageRefresher,
  type RefreshClock,
} from "../../dashboard/src/state/overview.js";
import { REPO } from "./support.js";

function row(extra: Partial<UsageGroupRow>): UsageGroupRow {
  return {
    day: null,
    workspace: null,
    model: null,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheCreation: 0,
    costUsd: 0,
    unpricedTurns: 0,
    turns: 0,
    outcomes: { done: 0, failed: 0, killed: 0, crashed: 0 },
    ...extra,
  };
}

function agent(agentId: string, status: AgentStatus): Agent {
  return { agentId, status } as Agent;
}

const DAYS = ["2026-03-01", "2026-03-02", "2026-03-03"];

describe("overview window", () => {
  it("covers 7 UTC days ending with now's UTC day, and today from local midnight", () => {
    const now = new Date(Date.UTC(2026, 2, 3, 23, 30));
    const w = overviewWindow(now);
    expect(w.days).toEqual([
      "2026-02-25",
      "2026-02-26",
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
      "2026-03-03",
    ]);
    expect(w.since).toBe("2026-02-25T00:00:00.000Z");
    const today = new Date(w.today);
    expect([today.getHours(), today.getMinutes(), today.getSeconds(), today.getMilliseconds()]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(today.getTime()).toBeLessThanOrEqual(now.getTime());
    expect(now.getTime() - today.getTime()).toBeLessThan(86_400_000);
  });

  it("crosses month and year ends", () => {
    expect(overviewWindow(new Date(Date.UTC(2027, 0, 2, 12)), 3).days).toEqual([
      "2026-12-31",
      "2027-01-01",
      "2027-01-02",
    ]);
  });
});

describe("totals and counts", () => {
  it("counts live runs by status from the fleet, ignoring ended ones", () => {
    expect(
      liveCounts([
        agent("a", "RUNNING"),
        agent("b", "RUNNING"),
        agent("c", "IDLE"),
        agent("d", "SPAWNING"),
        agent("e", "DONE"),
        agent("f", "CRASHED"),
        agent("g", "UNKNOWN"),
      ]),
    ).toEqual({ running: 2, idle: 1, spawning: 1 });
  });

  it("sums tokens, cost, turns and outcomes over any rows", () => {
    const t = sumUsage([
      row({
        input: 1200,
        output: 48,
        cacheRead: 10,
        costUsd: 0.25,
        turns: 2,
        outcomes: { done: 1, failed: 0, killed: 0, crashed: 0 },
      }),
      row({
        input: 800,
        output: 2,
        unpricedTurns: 1,
        turns: 1,
        outcomes: { done: 0, failed: 2, killed: 1, crashed: 1 },
      }),
    ]);
    expect(t).toEqual({
      input: 2000,
      output: 50,
      cacheRead: 10,
      cacheCreation: 0,
      costUsd: 0.25,
      unpricedTurns: 1,
      turns: 3,
      outcomes: { done: 1, failed: 2, killed: 1, crashed: 1 },
    });
    expect(sumUsage([]).turns).toBe(0);
  });

  it("activity is any turn or any ended run", () => {
    expect(hasActivity([])).toBe(false);
    expect(hasActivity([row({ day: DAYS[0] })])).toBe(false);
    expect(hasActivity([row({ turns: 1 })])).toBe(true);
    expect(hasActivity([row({ outcomes: { done: 0, failed: 0, killed: 1, crashed: 0 } })])).toBe(true);
  });
});

describe("chart series", () => {
  it("cost per day per workspace: largest first, zero days filled, other days ignored", () => {
    const data = costSeries(
      [
        row({ day: "2026-03-01", workspace: "small", costUsd: 0.01 }),
        row({ day: "2026-03-03", workspace: "big", costUsd: 1.5 }),
        row({ day: "2026-03-02", workspace: "big", costUsd: 0.5 }),
        row({ day: "2026-02-01", workspace: "small", costUsd: 99 }),
        // Ended before a turn (or an unpriced model): nothing to draw.
        row({
          day: "2026-03-02",
          workspace: "free",
          turns: 0,
          outcomes: { done: 0, failed: 1, killed: 0, crashed: 0 },
        }),
      ],
      DAYS,
      "workspace",
    );
    expect(data.days).toEqual(DAYS);
    expect(data.series).toEqual([
      { name: "big", values: [0, 0.5, 1.5], total: 2 },
      { name: "small", values: [0.01, 0, 0], total: 0.01 },
    ]);
  });

  it("cost per day per model names the unknown model, and sums the groups beyond the limit", () => {
    const rows = ["a", "b", "c", "d"].map((m, i) => row({ day: "2026-03-02", model: m, costUsd: 4 - i }));
    rows.push(row({ day: "2026-03-01", model: null, costUsd: 0.5 }));
    const data = costSeries(rows, DAYS, "model", 3);
    expect(data.series.map((s) => s.name)).toEqual(["a", "b", "other (3)"]);
    expect(data.series[2]).toEqual({ name: "other (3)", values: [0.5, 3, 0], total: 3.5 });
    expect(costSeries(rows, DAYS, "model").series.map((s) => s.name)).toContain(UNKNOWN_MODEL);
  });

  it("tokens per day (input, output) and outcomes per day add up rows of the same day", () => {
    const rows = [
      row({
        day: "2026-03-01",
        workspace: "a",
        input: 100,
        output: 10,
        outcomes: { done: 1, failed: 0, killed: 0, crashed: 0 },
      }),
      row({
        day: "2026-03-01",
        workspace: "b",
        input: 50,
        output: 5,
        outcomes: { done: 1, failed: 1, killed: 0, crashed: 0 },
      }),
      row({
        day: "2026-03-03",
        workspace: "a",
        input: 7,
        output: 1,
        outcomes: { done: 0, failed: 0, killed: 2, crashed: 1 },
      }),
    ];
    expect(tokenSeries(rows, DAYS).series).toEqual([
      { name: "input", values: [150, 0, 7], total: 157 },
      { name: "output", values: [15, 0, 1], total: 16 },
    ]);
    expect(outcomeSeries(rows, DAYS).series).toEqual([
      { name: "done", values: [2, 0, 0], total: 2 },
      { name: "failed", values: [1, 0, 0], total: 1 },
      { name: "killed", values: [0, 0, 2], total: 2 },
      { name: "crashed", values: [0, 0, 1], total: 1 },
    ]);
    expect(isEmptyChart(outcomeSeries([], DAYS))).toBe(true);
    expect(isEmptyChart(outcomeSeries(rows, DAYS))).toBe(false);
    expect(isEmptyChart(costSeries([], DAYS, "workspace"))).toBe(true);
  });

  it("stacks series as running sums (the last is each day's total)", () => {
    expect(
      stackValues([
        { name: "a", values: [1, 0, 2], total: 3 },
        { name: "b", values: [3, 4, 0], total: 7 },
        { name: "c", values: [0, 1, 1], total: 2 },
      ]),
    ).toEqual([
      [1, 0, 2],
      [4, 4, 2],
      [4, 5, 3],
    ]);
    expect(stackValues([])).toEqual([]);
  });
});

describe("which fleetChanges items re-read the usage", () => {
  const a = agent("x", "DONE");
  const status = (from: AgentStatus, to: AgentStatus): FleetChange => ({
    __typename: "AgentStatusChanged",
    from,
    to,
    agent: a,
  });

  it("a run ending, an interactive turn ending, a new run, the end of a seed", () => {
    for (const to of ["DONE", "FAILED", "KILLED", "CRASHED", "IDLE"] as const)
      expect(changeAffectsTotals(status("RUNNING", to)), to).toBe(true);
    expect(
      changeAffectsTotals({ __typename: "AgentAppeared", seed: false, spawnedByProspero: true, agent: a }),
    ).toBe(true);
    expect(changeAffectsTotals({ __typename: "FleetSeedComplete", fellBehind: false })).toBe(true);
  });

  it("not seed items, a run starting, health or queue changes", () => {
    expect(changeAffectsTotals(status("SPAWNING", "RUNNING"))).toBe(false);
    expect(changeAffectsTotals(status("IDLE", "RUNNING"))).toBe(false);
    expect(
      changeAffectsTotals({ __typename: "AgentAppeared", seed: true, spawnedByProspero: false, agent: a }),
    ).toBe(false);
    expect(
      changeAffectsTotals({
        __typename: "WorkspaceHealthChanged",
        seed: false,
        health: { state: "HEALTHY", reason: null, since: "" },
        workspace: { name: "demo", root: "/" },
      }),
    ).toBe(false);
    expect(
      changeAffectsTotals({
        __typename: "AgentGone",
        agentId: "x",
        workspace: { name: "demo" },
        reason: "REMOVED",
        replacedBy: null,
      }),
    ).toBe(false);
  });
});

/** A clock whose timers fire only when the test advances it. */
class ManualTimers implements RefreshClock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  get scheduled(): number {
    return this.timers.length;
  }
  /** Move time forward by `ms`, firing due timers in order (and letting their reads settle). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((x, y) => x.at - y.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe("UsageRefresher", () => {
  function setup(results: boolean[] = []) {
    const clock = new ManualTimers();
    const reads: number[] = [];
    let release: (() => void) | null = null;
    let hold = false;
    const r = new UsageRefresher(
      () => {
        reads.push(clock.now());
        const ok = results.shift() ?? true;
        if (!hold) return Promise.resolve(ok);
        return new Promise<boolean>((resolve) => (release = () => resolve(ok)));
      },
      5_000,
      clock,
    );
    return {
      clock,
      reads,
      r,
      holdReads: () => (hold = true),
      finish: async () => {
        hold = false;
        release?.();
        release = null;
        await flush();
      },
    };
  }

  it("reads nothing while hidden; once shown it reads once, however many requests came", async () => {
    const { clock, reads, r } = setup();
    r.request();
    r.request();
    await clock.advance(60_000);
    expect(reads).toEqual([]);
    expect(clock.scheduled).toBe(0);
    r.setActive(true);
    await clock.advance(0);
    expect(reads).toHaveLength(1);
    // Nothing asked since: no timer, no read (no polling loop).
    await clock.advance(60_000);
    expect(reads).toHaveLength(1);
    expect(clock.scheduled).toBe(0);
  });

  it("throttles: at most one read per 5 s, a burst of requests is one more read", async () => {
    const { clock, reads, r } = setup();
    r.setActive(true);
    await clock.advance(0);
    const first = reads[0] ?? 0;
    await clock.advance(1_000);
    for (let i = 0; i < 10; i++) r.request();
    await clock.advance(3_999);
    expect(reads).toHaveLength(1);
    await clock.advance(1);
    expect(reads).toEqual([first, first + 5_000]);
    // Long after the last read, a request reads at once.
    await clock.advance(20_000);
    r.request();
    await clock.advance(0);
    expect(reads).toHaveLength(3);
    expect(reads[2]).toBe(first + 25_000);
  });

  it("one read at a time: a request during a read is one read after it", async () => {
    const { clock, reads, r, holdReads, finish } = setup();
    holdReads();
    r.setActive(true);
    await clock.advance(0);
    expect(reads).toHaveLength(1);
    r.request();
    await clock.advance(10_000);
    expect(reads).toHaveLength(1);
    await finish();
    await clock.advance(0);
    expect(reads).toHaveLength(2);
  });

  it("hiding cancels a throttled read; showing again reads it", async () => {
    const { clock, reads, r } = setup();
    r.setActive(true);
    await clock.advance(0);
    r.request();
    expect(clock.scheduled).toBe(1);
    r.setActive(false);
    expect(clock.scheduled).toBe(0);
    await clock.advance(10_000);
    expect(reads).toHaveLength(1);
    expect(r.pending).toBe(true);
    r.setActive(true);
    await clock.advance(0);
    expect(reads).toHaveLength(2);
    expect(r.pending).toBe(false);
  });

  it("a failed read is not retried by itself, only on the next request", async () => {
    const { clock, reads, r } = setup([false]);
    r.setActive(true);
    await clock.advance(0);
    expect(reads).toHaveLength(1);
    await clock.advance(60_000);
    expect(reads).toHaveLength(1);
    expect(r.pending).toBe(true);
    r.request();
    await clock.advance(0);
    expect(reads).toHaveLength(2);
    expect(r.pending).toBe(false);
  });
});

describe("OVERVIEW_QUERY", () => {
  it("validates against schema.graphql", () => {
    const schema = buildSchema(fs.readFileSync(path.join(REPO, "schema.graphql"), "utf8"));
    expect(validate(schema, parse(OVERVIEW_QUERY)).map((e) => e.message)).toEqual([]);
  });
});
