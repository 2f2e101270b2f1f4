/**
 * Footprint: gateway memory per idle subscription and per attached agent, and cold start to
 * `/readyz` 200 on a 1,000,000-event database. Memory is read after a forced full GC through the
 * V8 inspector (../lib/inspector.ts; the gateway runs with `--inspect=127.0.0.1:0` here), as RSS
 * and as JS heap in use: without the GC, RSS moves with GC timing by more than the per-item figure.
 *
 * - Idle subscriptions: K `agentEvents` subscriptions on one quiet running agent (`bench:idle`),
 *   memory before and after, divided by K. Baseline: the same K idle connections to a bare `ws`
 *   server process, measured the same way. Target: ≤ 20 KB per idle subscription, judged on the
 *   JS heap (repeatable after a GC; RSS also depends on pages V8 returns to the OS).
 * - Attached agents: M quiet running agents, memory before spawning and after every one is
 *   attached (`activeAttaches`), divided by M.
 * - Cold start: a gateway process started on a copy of a 1,000,000-event data dir, wall time from
 *   spawn to `/readyz` 200. Baseline: the same on an empty data dir, same run.
 */
import { waitFor } from "../../test/helpers/fleet-harness.js";
import fs from "node:fs";
import path from "node:path";
import { startGateway, type Gateway } from "../lib/gateway.js";
import { copyHistory, ensureHistory } from "../lib/history.js";
import { connectInspector, INSPECT_FLAG, type Inspector } from "../lib/inspector.js";
import { sleep } from "../lib/procs.js";
import { withTarget, type Measurement, type RunContext, type Scenario } from "../lib/report.js";
import { makeDirs, makeRoots, startSim } from "../lib/sim.js";
import { median } from "../lib/stats.js";
import { subscribeMany, subscribe, type Subscriber } from "../lib/ws-client.js";
import { startIdleWsServer } from "../lib/ws-idle.js";

const AGENT_EVENTS = `subscription($id: String!) { agentEvents(agentId: $id) { __typename seq } }`;

const kib = (bytes: number): number => bytes / 1024;

async function idleSubscriptions(
  ctx: RunContext,
  gw: Gateway,
  insp: Inspector,
  agentId: string,
  k: number,
): Promise<Measurement[]> {
  const before = await gw.metrics();
  const m0 = await insp.settled();
  ctx.log(`idle subscriptions: opening ${k}`);
  const subs = await subscribeMany(k, () =>
    subscribe(gw.wsUrl, AGENT_EVENTS, { id: agentId }, () => undefined, gw.token),
  );
  try {
    await waitFor(
      async () => (await gw.metrics()).busSubscribers >= before.busSubscribers + k,
      60_000,
      `${k} bus subscribers`,
      100,
    );
    await sleep(1_000);
    const m1 = await insp.settled();
    const rssPer = (m1.rssBytes - m0.rssBytes) / k;
    const heapPer = (m1.heapBytes - m0.heapBytes) / k;

    const idle = await startIdleWsServer();
    const idleInsp = await connectInspector(idle.child);
    const base: Subscriber[] = [];
    try {
      const b0 = await idleInsp.settled();
      base.push(...(await idle.connect(k)));
      await sleep(1_000);
      const b1 = await idleInsp.settled();
      const baseRss = (b1.rssBytes - b0.rssBytes) / k;
      const baseHeap = (b1.heapBytes - b0.heapBytes) / k;
      ctx.log(
        `  per subscription after GC: RSS ${kib(rssPer).toFixed(1)} KiB, heap ${kib(heapPer).toFixed(1)} KiB; ` +
          `bare ws per connection: RSS ${kib(baseRss).toFixed(1)} KiB, heap ${kib(baseHeap).toFixed(1)} KiB`,
      );
      const row = (metric: string, value: number, baseline: number): Measurement => ({
        scenario: "footprint",
        case: `${k} idle subscriptions`,
        metric,
        value: kib(value),
        unit: "KiB",
        baseline: { name: "bare ws connection", value: kib(baseline) },
      });
      return [
        // The target is judged on the JS heap: after a forced GC it repeats to within ~1 %, while
        // RSS also depends on whether V8 handed freed pages back to the OS (it varies by ±20 KiB).
        withTarget(row("JS heap per idle subscription (after GC)", heapPer, baseHeap), {
          text: "≤ 20 KB each",
          ok: (v) => v * 1024 <= 20_000,
        }),
        withTarget(row("RSS per idle subscription (after GC)", rssPer, baseRss)),
      ];
    } finally {
      for (const s of base) s.close();
      idleInsp.close();
      await idle.stop();
    }
  } finally {
    for (const s of subs) s.close();
  }
}

async function attachedAgents(
  ctx: RunContext,
  gw: Gateway,
  insp: Inspector,
  m: number,
): Promise<Measurement[]> {
  const before = await gw.metrics();
  const m0 = await insp.settled();
  ctx.log(`attached agents: spawning ${m} quiet agents`);
  for (let i = 0; i < m; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, m - i) }, () => gw.spawn("bench", "footprint bench:idle")),
    );
  }
  await waitFor(
    async () => (await gw.metrics()).activeAttaches >= before.activeAttaches + m,
    120_000,
    `${m} attached agents`,
    200,
  );
  await sleep(2_000);
  const m1 = await insp.settled();
  const rssPer = (m1.rssBytes - m0.rssBytes) / m;
  const heapPer = (m1.heapBytes - m0.heapBytes) / m;
  ctx.log(
    `  per attached agent after GC: RSS ${kib(rssPer).toFixed(1)} KiB, heap ${kib(heapPer).toFixed(1)} KiB`,
  );
  const row = (metric: string, value: number): Measurement => ({
    scenario: "footprint",
    case: `${m} attached agents`,
    metric,
    value: kib(value),
    unit: "KiB",
  });
  return [
    row("RSS per attached agent (after GC)", rssPer),
    row("JS heap per attached agent (after GC)", heapPer),
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
  title:
    "Memory (JS heap, RSS) per idle subscription and per attached agent; cold start to /readyz with a 1M-event database (20k with --quick)",
  async run(ctx) {
    const out: Measurement[] = [];
    const dirs = makeDirs();
    try {
      const [root] = makeRoots(dirs, 1);
      const sim = await startSim(dirs, [root!]);
      const gw = await startGateway({
        dataDir: path.join(dirs.tmp, "gw"),
        runtimeDir: dirs.runtime,
        nodeArgs: [INSPECT_FLAG],
      });
      const insp = await connectInspector(gw.child);
      try {
        await gw.addWorkspace("bench", root!);
        const quiet = await gw.spawn("bench", "footprint bench:idle");
        await waitFor(
          async () => (await gw.metrics()).activeAttaches >= 1,
          60_000,
          "the quiet agent attached",
        );
        await sleep(2_000); // startup allocations settle
        out.push(...(await idleSubscriptions(ctx, gw, insp, quiet, ctx.quick ? 100 : 1_000)));
        out.push(...(await attachedAgents(ctx, gw, insp, ctx.quick ? 20 : 200)));
      } finally {
        insp.close();
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
