/**
 * Fan-out latency: N graphql-ws subscribers (100, 1,000) on `agentEvents` while 100 simulated agents
 * produce a steady 1k or 5k events/s in total (`bench:rate … bench:count … bench:gate`: every
 * delta its own fleet event, its text `@<wall ms>` stamped when the worker writes the frame).
 * Subscribers are spread round-robin over the agents, so each receives `rate / 100` events/s.
 * Figures over a steady window (after a warm-up): p50/p99/max latency from the frame's write to the
 * event's arrival at a client (client clock: `performance.timeOrigin + performance.now()`), events
 * received/s at the clients, the share delivered, the gateway's CPU (% of one core) and max RSS,
 * and the CPU of this (client) process, so a saturated client side shows. One more case puts 1,000
 * subscribers on `fleetEvents(filter: {agentId})` at 5k events/s (the same deliveries, through the
 * global-scope bus filter).
 *
 * Baseline (same run, same N, rate and client code): a bare `ws` server process
 * (bench/lib/ws-baseline-main.ts) that generates the same `next` payloads for 100 virtual agents and
 * broadcasts each to the sockets subscribed to that agent; no GraphQL, store, bus or file tailing.
 * Target (issue 7): p99 ≤ 50 ms at 1,000 subscribers and 5k events/s, for both streams. The shared
 * machinery (cases, baseline, rows) is in ../lib/fanout-run.ts; `realistic` uses it too.
 */
import {
  baselineCase,
  caseFigures,
  gatewayCase,
  type Case,
  type Result,
  type Timing,
} from "../lib/fanout-run.js";
import type { Measurement, Scenario } from "../lib/report.js";

const FULL = {
  agents: 100,
  subs: [100, 1000],
  rates: [1000, 5000],
  extra: { subs: 1000, rate: 5000, stream: "fleetEvents" } satisfies Case,
  timing: { warmMs: 2_000, windowMs: 10_000, maxDrainMs: 20_000 } satisfies Timing,
};
const QUICK = {
  agents: 10,
  subs: [20, 50],
  rates: [1000, 5000],
  extra: { subs: 50, rate: 5000, stream: "fleetEvents" } satisfies Case,
  timing: { warmMs: 1_000, windowMs: 2_000, maxDrainMs: 10_000 } satisfies Timing,
};

const TARGET = { subs: 1000, rate: 5000, p99Ms: 50 };

function figures(c: Case, gw: Result, base: Result): Measurement[] {
  const label = `${c.subs.toLocaleString("en-US")} subs, ${c.rate / 1000}k ev/s${c.stream === "agentEvents" ? "" : `, ${c.stream}`}`;
  const isTarget = c.subs === TARGET.subs && c.rate === TARGET.rate;
  return caseFigures(
    "fanout",
    label,
    gw,
    base,
    isTarget ? { p99: { text: "p99 ≤ 50 ms at 1,000 subs, 5k ev/s", ok: (v) => v <= TARGET.p99Ms } } : {},
  );
}

/** The fan-out latency scenario. */
export const scenario: Scenario = {
  name: "fanout",
  title:
    "write-to-client latency for 100/1,000 graphql-ws subscribers at 1k/5k events/s, vs bare ws broadcast",
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    const cases: Case[] = [];
    for (const subs of plan.subs)
      for (const rate of plan.rates) cases.push({ subs, rate, stream: "agentEvents" });
    cases.push(plan.extra);
    const baselines = new Map<string, Result>();
    const out: Measurement[] = [];
    for (const c of cases) {
      ctx.log(`${c.subs} ${c.stream} subscribers, ${c.rate} events/s from ${plan.agents} agents`);
      const gw = await gatewayCase(ctx, plan.agents, c, plan.timing);
      const key = `${c.subs}/${c.rate}`;
      let base = baselines.get(key);
      if (base === undefined) {
        base = await baselineCase(ctx, plan.agents, c.subs, c.rate, plan.timing);
        baselines.set(key, base);
      }
      out.push(...figures(c, gw, base));
    }
    return out;
  },
};
