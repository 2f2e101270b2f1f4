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
 * Target (issue 7): p99 ≤ 50 ms at 1,000 subscribers and 5k events/s.
 */
import fs from "node:fs";
import path from "node:path";
import { gatePath, wallMs } from "../lib/bench-scripts.js";
import { startGateway, type Gateway, type GatewayMetrics } from "../lib/gateway.js";
import { ProcSampler, coreShare, registerScratch, sleep } from "../lib/procs.js";
import { withTarget, type Measurement, type RunContext, type Scenario } from "../lib/report.js";
import { makeDirs, makeRoots, startSim, type Sim } from "../lib/sim.js";
import { LatencyRecorder, mib, type LatencySummary } from "../lib/stats.js";
import { startWsBaseline, type WsBaseline } from "../lib/ws-baseline.js";
import { subscribe, type Subscriber } from "../lib/ws-client.js";

/** Which subscription the gateway's subscribers hold. */
type Stream = "agentEvents" | "fleetEvents";

/** One gateway case: N subscribers on `stream` while the fleet produces `rate` events/s. */
interface Case {
  subs: number;
  rate: number;
  stream: Stream;
}

/** Phases of a case, ms. */
interface Timing {
  /** After the last subscriber is ready and the stream flows, before measuring. */
  warmMs: number;
  /** The measured steady window. */
  windowMs: number;
  /**
   * Longest wait after the window for the events stamped inside it: the wait ends as soon as every
   * subscriber has received an event stamped after the window (per-subscriber order makes that
   * the proof that all its window events arrived). Events later than this are missing from the
   * figures and show as `delivered` < 100 %.
   */
  maxDrainMs: number;
}

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

const QUERIES: Record<Stream, string> = {
  agentEvents:
    "subscription($agentId: String!) { agentEvents(agentId: $agentId) { __typename ... on OutputEvent { text } } }",
  fleetEvents:
    "subscription($agentId: String!) { fleetEvents(filter: { agentId: $agentId }) { __typename ... on OutputEvent { text } } }",
};

/** Receives events on every subscriber and records the latency of those stamped inside the window. */
class Collector {
  /** Per subscriber: received an event stamped at or after `to`. */
  private readonly passed: Uint8Array;
  /** Subscribers that received an event stamped at or after `to`. */
  passedCount = 0;
  readonly rec = new LatencyRecorder();
  /** Window, wall ms: only stamps in [from, to) count. */
  from = Infinity;
  to = Infinity;
  /** Latencies recorded (stamps in the window). */
  got = 0;
  /** `GapEvent` items (a subscriber fell behind the bus). */
  gaps = 0;
  /** Subscriptions that completed or failed before the end. */
  ended = 0;
  errors: string[] = [];

  constructor(subs: number) {
    this.passed = new Uint8Array(subs);
  }

  /** The `onData` callback of subscriber `i` (0 ≤ i < subs). */
  handler(i: number): (data: Record<string, unknown>) => void {
    return (data) => {
      const now = wallMs();
      const ev = Object.values(data)[0] as { __typename?: string; text?: string } | null | undefined;
      if (ev?.__typename === "GapEvent") this.gaps++;
      if (typeof ev?.text !== "string") return;
      for (const m of ev.text.matchAll(/@(\d+(?:\.\d+)?)/g)) {
        const stamp = Number(m[1]);
        if (stamp < this.from) continue;
        if (stamp < this.to) {
          this.rec.record(now - stamp);
          this.got++;
        } else if (this.passed[i] === 0) {
          this.passed[i] = 1;
          this.passedCount++;
        }
      }
    };
  }

  watch(sub: Subscriber): Subscriber {
    sub.done.then(
      () => {
        this.ended++;
        // A socket closed by the server (graphql-ws keep-alive, an error close) ends the same way.
        const c = sub.closed;
        if (c && this.errors.length < 3)
          this.errors.push(`closed ${c.code}${c.reason ? ` ${c.reason}` : ""}`);
      },
      (err: unknown) => {
        this.ended++;
        if (this.errors.length < 3) this.errors.push(err instanceof Error ? err.message : String(err));
      },
    );
    return sub;
  }
}

/**
 * Open `n` subscribers (`make(i)`), 50 handshakes at a time, retrying one whose socket closes
 * before the handshake (graphql-ws closes a socket whose `connection_init` it did not read within
 * 3 s, which an overloaded machine can cause) up to 3 times; each ready one is watched by `col`.
 * @throws the last handshake error of a subscriber that failed 4 times.
 */
async function attachAll(
  ctx: RunContext,
  n: number,
  col: Collector,
  make: (i: number) => Subscriber,
): Promise<Subscriber[]> {
  const out: Subscriber[] = [];
  let retries = 0;
  const attach = async (i: number): Promise<Subscriber> => {
    for (let attempt = 0; ; attempt++) {
      const sub = make(i);
      try {
        await sub.ready;
        return col.watch(sub);
      } catch (err) {
        sub.close();
        if (attempt >= 3) throw err;
        retries++;
      }
    }
  };
  try {
    for (let i = 0; i < n; i += 50) {
      const batch = Array.from({ length: Math.min(50, n - i) }, (_, j) => attach(i + j));
      const settled = await Promise.allSettled(batch);
      for (const r of settled) if (r.status === "fulfilled") out.push(r.value);
      const failed = settled.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    }
  } catch (err) {
    for (const s of out) s.close();
    throw err;
  }
  if (retries > 0) ctx.log(`  ${retries} handshake(s) retried`);
  return out;
}

/** What one side (gateway or bare ws) measured over its window. */
interface Result {
  lat: LatencySummary;
  /** Latencies recorded per second of window. */
  recvPerSec: number;
  /** Recorded / expected (subs × per-agent rate × window). */
  delivered: number;
  /** Server process CPU over the window, fraction of one core. */
  serverCpu: number;
  serverRssMiB: number;
  /** This (client) process's CPU over the window, fraction of one core. */
  clientCpu: number;
  gaps: number;
  /** Fleet events the gateway stored per second over the window (gateway side only). */
  storedPerSec?: number;
}

/**
 * With `subs` attached and feeding `col`: wait for `startAt` (wall ms), measure a window of
 * `t.windowMs` (server `pid` sampled every 250 ms; gateway counters read when `metrics` is given),
 * then wait (at most `t.maxDrainMs`) for the events stamped inside the window to arrive.
 */
async function measure(
  ctx: RunContext,
  subs: Subscriber[],
  col: Collector,
  pid: number,
  startAt: number,
  t: Timing,
  expectedPerSec: number,
  metrics?: () => Promise<GatewayMetrics>,
): Promise<Result> {
  col.from = startAt;
  col.to = startAt + t.windowMs;
  await sleep(Math.max(0, startAt - wallMs()));
  const sampler = await new ProcSampler(pid, 250).start();
  const m0 = await metrics?.();
  const cpu0 = process.cpuUsage();
  const p0 = performance.now();
  await sleep(Math.max(0, col.to - wallMs()));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = performance.now() - p0;
  const samples = await sampler.stop();
  const m1 = await metrics?.();
  if (m0 && m1) {
    const secs = elapsed / 1000;
    ctx.log(
      `  gateway: ${Math.round((m1.eventsAppendedTotal - m0.eventsAppendedTotal) / secs)} fleet events/s stored, ` +
        `${m1.busSubscribers} bus subscribers, ${m1.busDroppedTotal - m0.busDroppedTotal} bus drops, lag ${m1.ingestLagBytes} B`,
    );
  }
  let stored: number | undefined;
  if (m0 && m1) stored = (m1.eventsAppendedTotal - m0.eventsAppendedTotal) / (elapsed / 1000);
  const drainFrom = performance.now();
  while (col.passedCount + col.ended < subs.length && performance.now() - drainFrom < t.maxDrainMs) {
    await sleep(50);
  }
  const drainMs = performance.now() - drainFrom;
  if (col.passedCount + col.ended < subs.length) {
    ctx.log(
      `  WARNING: ${subs.length - col.passedCount - col.ended} subscriber(s) not drained after ${t.maxDrainMs} ms`,
    );
  } else if (drainMs > 1_000) {
    ctx.log(`  drained ${(drainMs / 1000).toFixed(1)} s after the window`);
  }
  const open = subs.length - col.ended;
  if (col.ended > 0) {
    ctx.log(`  WARNING: ${col.ended} subscription(s) ended early (${open} open): ${col.errors.join(" | ")}`);
  }
  const lat = col.rec.summary();
  const windowSecs = t.windowMs / 1000;
  return {
    lat,
    recvPerSec: col.got / windowSecs,
    delivered: col.got / (expectedPerSec * windowSecs),
    serverCpu: coreShare(samples[0]!, samples[samples.length - 1]!),
    serverRssMiB: mib(Math.max(...samples.map((s) => s.rssBytes))),
    clientCpu: (cpu.user + cpu.system) / 1000 / elapsed,
    gaps: col.gaps,
    storedPerSec: stored,
  };
}

function describe(r: Result): string {
  return (
    `p50 ${r.lat.p50Ms.toFixed(1)} ms, p99 ${r.lat.p99Ms.toFixed(1)} ms, max ${r.lat.maxMs.toFixed(1)} ms, ` +
    `${Math.round(r.recvPerSec)} ev/s received (${(r.delivered * 100).toFixed(1)} %), ${r.gaps} gaps, ` +
    `server ${(r.serverCpu * 100).toFixed(0)} % core / ${r.serverRssMiB.toFixed(0)} MiB, client ${(r.clientCpu * 100).toFixed(0)} % core`
  );
}

/** The gateway side of a case: simulator + gateway, agents spawned, subscribers attached, measured. */
async function gatewayCase(ctx: RunContext, agents: number, c: Case, t: Timing): Promise<Result> {
  const dirs = makeDirs();
  let sim: Sim | undefined;
  let gw: Gateway | undefined;
  let subs: Subscriber[] = [];
  const gateN = Math.floor(Math.random() * 1e9);
  const gate = gatePath(gateN);
  const removeGate = registerScratch(gate);
  try {
    const [root] = makeRoots(dirs, 1);
    sim = await startSim(dirs, [root!]);
    gw = await startGateway({ dataDir: path.join(dirs.tmp, "gw"), runtimeDir: dirs.runtime });
    await gw.addWorkspace("bench", root!);
    const perAgent = c.rate / agents;
    // The paced deltas start when the gate file appears, once every subscriber is attached. Enough
    // of them to outlast warm-up, window and drain with room to spare; the rest are cut off when
    // the simulator stops.
    const count = Math.ceil(perAgent * ((t.warmMs + t.windowMs + t.maxDrainMs) / 1000 + 10));
    const prompt = `fanout bench:rate=${perAgent} bench:count=${count} bench:gate=${gateN}`;
    const g = gw;
    const ids = await Promise.all(Array.from({ length: agents }, () => g.spawn("bench", prompt)));
    const spawnedAt = wallMs();
    const col = new Collector(c.subs);
    subs = await attachAll(ctx, c.subs, col, (i) =>
      subscribe(g.wsUrl, QUERIES[c.stream], { agentId: ids[i % agents]! }, col.handler(i), g.token),
    );
    const attachedAt = wallMs();
    ctx.log(
      `  ${agents} agents spawned; ${c.subs} ${c.stream} subscribers ready in ${((attachedAt - spawnedAt) / 1000).toFixed(1)} s; stream starts`,
    );
    fs.writeFileSync(gate, "");
    const startAt = wallMs() + t.warmMs;
    const r = await measure(ctx, subs, col, g.pid, startAt, t, c.subs * perAgent, () => g.metrics());
    ctx.log(`  gateway: ${describe(r)}`);
    return r;
  } finally {
    for (const s of subs) s.close();
    await gw?.stop();
    await sim?.stop();
    removeGate();
    dirs.cleanup();
  }
}

/** The baseline side: the bare ws server generating the same load for the same subscribers. */
async function baselineCase(
  ctx: RunContext,
  agents: number,
  subs: number,
  rate: number,
  t: Timing,
): Promise<Result> {
  let srv: WsBaseline | undefined;
  let socks: Subscriber[] = [];
  try {
    srv = await startWsBaseline({ agents, rate });
    const url = srv.url;
    const col = new Collector(subs);
    socks = await attachAll(ctx, subs, col, (i) =>
      subscribe(url, QUERIES.agentEvents, { agentId: `v${i % agents}` }, col.handler(i)),
    );
    const r = await measure(ctx, socks, col, srv.pid, wallMs() + t.warmMs, t, (subs * rate) / agents);
    ctx.log(`  bare ws: ${describe(r)}`);
    return r;
  } finally {
    for (const s of socks) s.close();
    await srv?.stop();
  }
}

function figures(c: Case, gw: Result, base: Result): Measurement[] {
  const label = `${c.subs.toLocaleString("en-US")} subs, ${c.rate / 1000}k ev/s${c.stream === "agentEvents" ? "" : `, ${c.stream}`}`;
  const b = "bare ws";
  const m = (metric: string, value: number, unit: string, baseline: number): Measurement =>
    withTarget({
      scenario: "fanout",
      case: label,
      metric,
      value,
      unit,
      baseline: { name: b, value: baseline },
    });
  const isTarget = c.subs === TARGET.subs && c.rate === TARGET.rate;
  return [
    m("latency p50", gw.lat.p50Ms, "ms", base.lat.p50Ms),
    withTarget(
      {
        scenario: "fanout",
        case: label,
        metric: "latency p99",
        value: gw.lat.p99Ms,
        unit: "ms",
        baseline: { name: b, value: base.lat.p99Ms },
      },
      isTarget ? { text: "p99 ≤ 50 ms at 1,000 subs, 5k ev/s", ok: (v) => v <= TARGET.p99Ms } : undefined,
    ),
    m("latency max", gw.lat.maxMs, "ms", base.lat.maxMs),
    m("events received/s", gw.recvPerSec, "events/s", base.recvPerSec),
    m("delivered (of expected)", gw.delivered * 100, "%", base.delivered * 100),
    m("server CPU", gw.serverCpu * 100, "% core", base.serverCpu * 100),
    m("server RSS max", gw.serverRssMiB, "MiB", base.serverRssMiB),
    m("client process CPU", gw.clientCpu * 100, "% core", base.clientCpu * 100),
    ...(gw.storedPerSec === undefined
      ? []
      : [
          {
            scenario: "fanout",
            case: label,
            metric: "fleet events stored/s",
            value: gw.storedPerSec,
            unit: "events/s",
          },
        ]),
  ];
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
