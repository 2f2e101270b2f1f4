/**
 * The fan-out machinery shared by the `fanout` and `realistic` scenarios: one gateway case
 * (simulator + gateway, agents spawned with paced `bench:rate … bench:gate` scripts, graphql-ws
 * subscribers attached, a steady window measured), the bare `ws` broadcast baseline of the same
 * shape, and the rows a case reports. Latency runs from the worker's write of a frame (its text
 * `@<wall ms>`) to the event's arrival at a client; only events stamped inside the window count,
 * and the run waits for every subscriber to see an event stamped after it, so a backlog shows as
 * latency rather than as missing samples.
 */
import fs from "node:fs";
import path from "node:path";
import { gatePath, wallMs } from "./bench-scripts.js";
import { startGateway, type Gateway, type GatewayMetrics } from "./gateway.js";
import { ProcSampler, coreShare, registerScratch, sleep } from "./procs.js";
import { withTarget, type Measurement, type RunContext } from "./report.js";
import { makeDirs, makeRoots, startSim, type Sim } from "./sim.js";
import { LatencyRecorder, mib, type LatencySummary } from "./stats.js";
import { startWsBaseline, type WsBaseline } from "./ws-baseline.js";
import { subscribe, type Subscriber } from "./ws-client.js";

/** Which subscription the gateway's subscribers hold. */
export type Stream = "agentEvents" | "fleetEvents";

/** One gateway case: N subscribers on `stream` while the fleet produces `rate` events/s. */
export interface Case {
  subs: number;
  rate: number;
  stream: Stream;
}

/** Phases of a case, ms. */
export interface Timing {
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

/** The subscription documents, one per stream; `$agentId` picks the agent. */
export const QUERIES: Record<Stream, string> = {
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
export interface Result {
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

/**
 * The gateway side of a case: a simulator and a gateway on fresh dirs, `agents` agents spawned in one
 * workspace producing `c.rate` events/s in all once the gate file appears, `c.subs` subscribers on
 * `c.stream` spread round-robin over the agents, then warm-up, window and drain as `t` says.
 * Everything it started is stopped and removed before it returns.
 * @throws (rejects) when a process fails to start, a spawn fails, or a subscriber cannot attach.
 */
export async function gatewayCase(ctx: RunContext, agents: number, c: Case, t: Timing): Promise<Result> {
  const dirs = makeDirs();
  let sim: Sim | undefined;
  let gw: Gateway | undefined;
  let subs: Subscriber[] = [];
  const gateN = Math.floor(Math.random() * 1e9);
  const gate = gatePath(gateN);
  const removeGate = registerScratch(gate);
  const gateTmp = `${gate}.tmp`;
  const removeGateTmp = registerScratch(gateTmp);
  try {
    const [root] = makeRoots(dirs, 1);
    sim = await startSim(dirs, [root!]);
    gw = await startGateway({ dataDir: path.join(dirs.tmp, "gw"), runtimeDir: dirs.runtime });
    await gw.addWorkspace("bench", root!);
    const perAgent = c.rate / agents;
    if (!Number.isInteger(perAgent))
      throw new Error(`rate ${c.rate} is not a whole number of events/s per agent`);
    // The paced deltas (bench:rate takes whole frames per second) start at the instant the gate
    // file holds, written once every subscriber is attached. Enough of them to outlast warm-up,
    // window and drain with room to spare; the rest are cut off when the simulator stops.
    const count = Math.ceil(perAgent * ((t.warmMs + t.windowMs + t.maxDrainMs) / 1000 + 10));
    // Agent k's schedule starts k/agents of a period after the gate's instant: phases spread evenly
    // over one period, as the bare-ws baseline's (ws-baseline-main.ts), not every agent's frame at
    // once (a burst of `agents` frames per period, which no fleet of independent agents makes).
    const periodUs = 1e6 / perAgent;
    const prompt = (k: number): string =>
      `fanout bench:rate=${perAgent} bench:count=${count} bench:gate=${gateN} bench:phase=${Math.round((k * periodUs) / agents)}`;
    const g = gw;
    const ids = await Promise.all(Array.from({ length: agents }, (_, k) => g.spawn("bench", prompt(k))));
    const spawnedAt = wallMs();
    const col = new Collector(c.subs);
    subs = await attachAll(ctx, c.subs, col, (i) =>
      subscribe(g.wsUrl, QUERIES[c.stream], { agentId: ids[i % agents]! }, col.handler(i), g.token),
    );
    const attachedAt = wallMs();
    ctx.log(
      `  ${agents} agents spawned; ${c.subs} ${c.stream} subscribers ready in ${((attachedAt - spawnedAt) / 1000).toFixed(1)} s; stream starts`,
    );
    // The schedules start 50 ms from now (every agent sees the gate by then: it polls every 10 ms).
    // Written aside and renamed, so no agent reads the file before its instant is in it.
    const streamAt = wallMs() + 50;
    fs.writeFileSync(gateTmp, streamAt.toFixed(3));
    fs.renameSync(gateTmp, gate);
    const startAt = streamAt + t.warmMs;
    const r = await measure(ctx, subs, col, g.pid, startAt, t, c.subs * perAgent, () => g.metrics());
    ctx.log(`  gateway: ${describe(r)}`);
    return r;
  } finally {
    for (const s of subs) s.close();
    await gw?.stop();
    await sim?.stop();
    removeGate();
    removeGateTmp();
    dirs.cleanup();
  }
}

/**
 * The baseline side: the bare ws server (bench/lib/ws-baseline-main.ts) generating the same `next`
 * payloads at `rate` events/s over `agents` virtual agents for `subs` subscribers, measured like
 * {@link gatewayCase}.
 * @throws (rejects) when the server does not start or a subscriber cannot attach.
 */
export async function baselineCase(
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

/** A figure's target as {@link withTarget} takes it. */
type Target = { text: string; ok: (value: number, ratio: number | undefined) => boolean };

/**
 * The rows of one case, gateway figure beside the bare-ws figure: latency p50/p99/max (ms),
 * events received/s, share delivered (%), server CPU (% of one core) and RSS max (MiB), client
 * process CPU, and the gateway's fleet events stored/s. `targets` puts a target on the p99 and on
 * the server CPU rows (judged by `withTarget`: on the value, or on the ratio to bare ws).
 */
export function caseFigures(
  scenario: string,
  label: string,
  gw: Result,
  base: Result,
  targets: { p99?: Target; cpu?: Target } = {},
): Measurement[] {
  const m = (metric: string, value: number, unit: string, baseline: number, target?: Target): Measurement =>
    withTarget(
      { scenario, case: label, metric, value, unit, baseline: { name: "bare ws", value: baseline } },
      target,
    );
  return [
    m("latency p50", gw.lat.p50Ms, "ms", base.lat.p50Ms),
    m("latency p99", gw.lat.p99Ms, "ms", base.lat.p99Ms, targets.p99),
    m("latency max", gw.lat.maxMs, "ms", base.lat.maxMs),
    m("events received/s", gw.recvPerSec, "events/s", base.recvPerSec),
    m("delivered (of expected)", gw.delivered * 100, "%", base.delivered * 100),
    m("server CPU", gw.serverCpu * 100, "% core", base.serverCpu * 100, targets.cpu),
    m("server RSS max", gw.serverRssMiB, "MiB", base.serverRssMiB),
    m("client process CPU", gw.clientCpu * 100, "% core", base.clientCpu * 100),
    ...(gw.storedPerSec === undefined
      ? []
      : [
          {
            scenario,
            case: label,
            metric: "fleet events stored/s",
            value: gw.storedPerSec,
            unit: "events/s",
          },
        ]),
  ];
}
