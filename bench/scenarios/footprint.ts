/**
 * Footprint: gateway RSS per idle subscription and per attached agent, and cold start to
 * `/readyz` 200 on a 1,000,000-event database.
 *
 * - Idle subscriptions: K `agentEvents` subscriptions on one quiet running agent (`bench:idle`),
 *   RSS (median over a few seconds) before and after, divided by K. Baseline: the same K idle
 *   connections to a bare `ws` server process. Target: ≤ 20 KB per idle subscription.
 * - Attached agents: M quiet running agents, RSS before spawning and after every one is attached
 *   (`activeAttaches`), divided by M.
 * - Cold start: a gateway process started on a copy of a 1,000,000-event data dir, wall time from
 *   spawn to `/readyz` 200. Baseline: the same on an empty data dir, same run.
 */
import fs from "node:fs";
import path from "node:path";
import { startGateway, type Gateway } from "../lib/gateway.js";
import { copyHistory, ensureHistory } from "../lib/history.js";
import { sampleProc, sleep, until } from "../lib/procs.js";
import { withTarget, type Measurement, type RunContext, type Scenario } from "../lib/report.js";
import { makeDirs, makeRoots, startSim } from "../lib/sim.js";
import { median } from "../lib/stats.js";
import { subscribeMany, subscribe, type Subscriber } from "../lib/ws-client.js";
import { startIdleWsServer } from "../lib/ws-idle.js";

/** Median RSS of `pid` over `ms` (sampled every 250 ms), bytes. */
async function steadyRss(pid: number, ms = 3_000): Promise<number> {
  const xs: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    xs.push((await sampleProc(pid)).rssBytes);
    await sleep(250);
  }
  return median(xs);
}

const AGENT_EVENTS = `subscription($id: String!) { agentEvents(agentId: $id) { __typename seq } }`;

async function idleSubscriptions(
  ctx: RunContext,
  gw: Gateway,
  agentId: string,
  k: number,
): Promise<Measurement[]> {
  const before = await gw.metrics();
  const rss0 = await steadyRss(gw.pid);
  ctx.log(`idle subscriptions: opening ${k}`);
  const subs = await subscribeMany(k, () =>
    subscribe(gw.wsUrl, AGENT_EVENTS, { id: agentId }, () => undefined),
  );
  try {
    await until(
      async () => (await gw.metrics()).busSubscribers >= before.busSubscribers + k,
      `${k} bus subscribers`,
      60_000,
      100,
    );
    await sleep(1_000);
    const rss1 = await steadyRss(gw.pid);
    const perSub = (rss1 - rss0) / k;

    const idle = await startIdleWsServer();
    const base: Subscriber[] = [];
    try {
      const b0 = await steadyRss(idle.pid);
      base.push(...(await idle.connect(k)));
      await sleep(1_000);
      const b1 = await steadyRss(idle.pid);
      const basePerConn = (b1 - b0) / k;
      ctx.log(
        `  ${(perSub / 1024).toFixed(1)} KiB per subscription; bare ws ${(basePerConn / 1024).toFixed(1)} KiB per connection`,
      );
      return [
        withTarget(
          {
            scenario: "footprint",
            case: `${k} idle subscriptions`,
            metric: "RSS per idle subscription",
            value: perSub / 1024,
            unit: "KiB",
            baseline: { name: "bare ws connection", value: basePerConn / 1024 },
          },
          { text: "≤ 20 KB each", ok: (v) => v * 1024 <= 20_000 },
        ),
      ];
    } finally {
      for (const s of base) s.close();
      await idle.stop();
    }
  } finally {
    for (const s of subs) s.close();
  }
}

async function attachedAgents(ctx: RunContext, gw: Gateway, m: number): Promise<Measurement[]> {
  const before = await gw.metrics();
  const rss0 = await steadyRss(gw.pid);
  ctx.log(`attached agents: spawning ${m} quiet agents`);
  for (let i = 0; i < m; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, m - i) }, () => gw.spawn("bench", "footprint bench:idle")),
    );
  }
  await until(
    async () => (await gw.metrics()).activeAttaches >= before.activeAttaches + m,
    `${m} attached agents`,
    120_000,
    200,
  );
  await sleep(2_000);
  const rss1 = await steadyRss(gw.pid);
  const per = (rss1 - rss0) / m;
  ctx.log(`  ${(per / 1024).toFixed(1)} KiB per attached agent`);
  return [
    {
      scenario: "footprint",
      case: `${m} attached agents`,
      metric: "RSS per attached agent",
      value: per / 1024,
      unit: "KiB",
    },
  ];
}

async function coldStart(ctx: RunContext, events: number): Promise<Measurement[]> {
  const history = await ensureHistory(ctx, events);
  const dirs = makeDirs();
  try {
    const measure = async (dataDir: string): Promise<number> => {
      const gw = await startGateway({ dataDir, runtimeDir: dirs.runtime });
      const ms = gw.readyMs;
      await gw.stop();
      return ms;
    };
    // Warm the page cache and the module cache once, then measure each case 3 times (median).
    const full: number[] = [];
    const empty: number[] = [];
    for (let i = 0; i < 4; i++) {
      const copy = copyHistory(history, path.join(dirs.tmp, `full-${i}`));
      const f = await measure(copy);
      const e = await measure(path.join(dirs.tmp, `empty-${i}`));
      if (i > 0) {
        full.push(f);
        empty.push(e);
      }
      fs.rmSync(copy, { recursive: true, force: true });
    }
    const f = median(full);
    const e = median(empty);
    ctx.log(`cold start: ${f.toFixed(0)} ms with ${history.totalEvents} events, ${e.toFixed(0)} ms empty`);
    return [
      withTarget({
        scenario: "footprint",
        case: `${history.totalEvents.toLocaleString("en-US")}-event database`,
        metric: "cold start to /readyz 200",
        value: f,
        unit: "ms",
        baseline: { name: "empty data dir", value: e },
      }),
    ];
  } finally {
    dirs.cleanup();
  }
}

/** The footprint scenario. */
export const scenario: Scenario = {
  name: "footprint",
  title: "RSS per idle subscription and per attached agent; cold start to /readyz with 1M events",
  async run(ctx) {
    const out: Measurement[] = [];
    const dirs = makeDirs();
    try {
      const [root] = makeRoots(dirs, 1);
      const sim = await startSim(dirs, [root!]);
      const gw = await startGateway({ dataDir: path.join(dirs.tmp, "gw"), runtimeDir: dirs.runtime });
      try {
        await gw.addWorkspace("bench", root!);
        const quiet = await gw.spawn("bench", "footprint bench:idle");
        await until(async () => (await gw.metrics()).activeAttaches >= 1, "the quiet agent attached");
        await sleep(2_000); // startup allocations settle
        out.push(...(await idleSubscriptions(ctx, gw, quiet, ctx.quick ? 100 : 1_000)));
        out.push(...(await attachedAgents(ctx, gw, ctx.quick ? 20 : 200)));
      } finally {
        await gw.stop();
        await sim.stop();
      }
    } finally {
      dirs.cleanup();
    }
    out.push(...(await coldStart(ctx, ctx.quick ? 20_000 : 1_000_000)));
    return out;
  },
};
