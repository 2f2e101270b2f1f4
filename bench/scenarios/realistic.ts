/**
 * The realistic fleet (issue 17's first row): 100 agents streaming 10 events/s each (1k events/s in
 * all, every delta its own fleet event stamped `@<wall ms>` when the worker writes the frame) and
 * 100 graphql-ws subscribers on `agentEvents`, one per agent, for a 30 s window after a 3 s
 * warm-up. The load a gateway is for — dashboards, SDK consumers and CLIs following runs — so the
 * figures are what it costs: the gateway's CPU (% of one core) and write→client latency p50/p99/max,
 * with the same rows as a `fanout` case (delivered share, RSS, client CPU, events stored/s).
 *
 * Baseline (same run, same agents, rate, subscribers and client code): the bare `ws` server of
 * `fanout` broadcasting the same `next` payloads. Targets (issue 17): gateway CPU ≤ 2 × bare ws;
 * latency p99 ≤ 10 ms. `--quick`: 10 agents, 20 subscribers, a 5 s window (figures not comparable).
 * The machinery is shared with `fanout` (../lib/fanout-run.ts); `fanout`'s "100 subs, 1k ev/s"
 * case is the same load over a 10 s window, the nearest earlier figure.
 */
import { baselineCase, caseFigures, gatewayCase, type Case, type Timing } from "../lib/fanout-run.js";
import type { Scenario } from "../lib/report.js";

/** Events per second each agent writes (the "10 events/s"). */
const PER_AGENT_RATE = 10;

const FULL = {
  agents: 100,
  subs: 100,
  timing: { warmMs: 3_000, windowMs: 30_000, maxDrainMs: 20_000 } satisfies Timing,
};
const QUICK = {
  agents: 10,
  subs: 20,
  timing: { warmMs: 1_000, windowMs: 5_000, maxDrainMs: 10_000 } satisfies Timing,
};

/** Issue 17's targets for this load. */
export const REALISTIC_TARGETS = {
  cpu: { text: "≤ 2 × bare ws", ok: (_v: number, r: number | undefined) => (r ?? Infinity) <= 2 },
  p99: { text: "p99 ≤ 10 ms", ok: (v: number) => v <= 10 },
};

/** The realistic-fleet scenario. */
export const scenario: Scenario = {
  name: "realistic",
  title: "100 agents × 10 events/s, 100 agentEvents subscribers: gateway CPU and p99, vs bare ws broadcast",
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    const c: Case = { subs: plan.subs, rate: plan.agents * PER_AGENT_RATE, stream: "agentEvents" };
    const label = `${plan.agents} agents × ${PER_AGENT_RATE} ev/s, ${plan.subs} subs`;
    ctx.log(`${label}: ${c.rate} events/s in all, ${plan.timing.windowMs / 1000} s window`);
    const gw = await gatewayCase(ctx, plan.agents, c, plan.timing);
    const base = await baselineCase(ctx, plan.agents, c.subs, c.rate, plan.timing);
    return caseFigures("realistic", label, gw, base, REALISTIC_TARGETS);
  },
};
