/**
 * Queue scale (issue 14: "A queue of 100,000 launches stays responsive — paged API, indexed
 * queries"): a real gateway and SQLite store with the GLOBAL cap at 0, so nothing dispatches, at a
 * baseline depth of 1,000 queued launches and at 100,000 (`--quick`: 200 and 5,000). Per depth:
 *
 * 1. **The filled queue**: `n` launches enqueued through `app.queue.enqueue` with the gateway in
 *    this process, cached until the migrations change (../lib/queue-fill.ts; a first full run
 *    builds it and logs the fill rate). Each run copies it to a fresh data dir; one caliband double
 *    (the simulator) serves its workspace.
 * 2. **`prospero serve` on the copy** (its own process, as every scenario's gateway): start to
 *    `/readyz` 200 with the full queue, then until the dispatcher's first pass has placed the queue
 *    (a launch's `queuePosition` is known).
 * 3. **Enqueue through GraphQL**: {@link Sizes.gqlSample} `enqueueLaunch` mutations,
 *    {@link GQL_CONCURRENCY} in flight, on the full queue: launches/s.
 * 4. **Reads** ({@link Sizes.repeats} sequential calls after {@link WARMUP} untimed ones): p50 and
 *    p95 latency and the gateway's CPU per call (CPU is not inflated by a busy machine) of
 *    `launches(first: 50)` (newest first), `launches(filter: { states: [QUEUED] }, first: 50)`
 *    (dispatch order), `launch(launchId:)` with `queuePosition` and `waitingFor` (16 ids spread
 *    over the queue in turn), `queue { depth caps { inUse } }`; and, without a target,
 *    `launches(filter: { states: [QUEUED] }) { totalCount }` (a count is linear by nature).
 * 5. **Gateway RSS** after the load and the reads.
 * 6. **Dispatch pass**: a `fleetChanges` subscriber; time from sending `setCap(GLOBAL, 1)` until
 *    its LaunchChanged to DISPATCHED arrives (checked to be the first launch in dispatch order;
 *    every launch has the default priority); the cap then goes back to 0 (the run stays, quiet:
 *    `bench:idle`).
 * 7. **Restart**: SIGTERM to exit, a new `prospero serve` on the same data dir to `/readyz` 200,
 *    then until the queue is placed again; RSS then (the queue loaded, nothing else done).
 * 8. **Enqueue in-process at depth**: the gateway started in this process on the same data dir,
 *    {@link Sizes.inProcessSample} more `app.queue.enqueue` calls: launches/s and CPU per launch.
 *    Calls made back to back in one process leave the dispatcher's coalesced pass (scheduled with
 *    setImmediate after each enqueue) few chances to run between them, so this is the store's
 *    enqueue cost; the GraphQL figure, one request per enqueue, also pays a pass per request.
 *
 * Baseline (same run): the same figure at the baseline depth; ratios are large ÷ baseline.
 * Targets: the paged reads and `launch(launchId:)` are index-backed (ratio ≤ 3; linear would be
 * ~100 at full size); `queue` reads counters (ratio ≤ 3); enqueue does not slow down with depth
 * (≥ 0.5 × the baseline's rate); the dispatch pass ≤ 100 ms at the large depth (src/queue/admit.ts:
 * "a pass is linear in the queue (100,000 launches: a few ms)"); restart to ready ≤ 5 s (loading the
 * queue is linear by design); RSS ≤ 2 KiB per queued launch (growth between the depths, after
 * restart).
 */
import path from "node:path";
import { waitFor } from "../../test/helpers/fleet-harness.js";
import { startGateway, type Gateway } from "../lib/gateway.js";
import { sampleProc } from "../lib/procs.js";
import {
  QUEUE_WORKSPACE,
  copyQueueFill,
  enqueueMany,
  ensureQueueFill,
  withInProcessGateway,
  type EnqueueRun,
} from "../lib/queue-fill.js";
import { fmt, withTarget, type Measurement, type RunContext, type Scenario } from "../lib/report.js";
import { makeDirs, startSim, type Sim } from "../lib/sim.js";
import { mib } from "../lib/stats.js";
import { subscribe } from "../lib/ws-client.js";

/** Sizes of a run: depths (baseline, large), enqueues measured, timed calls per read. */
interface Sizes {
  baseline: number;
  large: number;
  /** `enqueueLaunch` mutations on the full queue. */
  gqlSample: number;
  /** In-process `enqueue` calls on the full queue. */
  inProcessSample: number;
  repeats: number;
}
const FULL: Sizes = { baseline: 1_000, large: 100_000, gqlSample: 200, inProcessSample: 1_000, repeats: 100 };
const QUICK: Sizes = { baseline: 200, large: 5_000, gqlSample: 50, inProcessSample: 200, repeats: 30 };

/** `enqueueLaunch` mutations in flight at once. */
const GQL_CONCURRENCY = 8;
/** Page size of the list reads. */
const PAGE = 50;
/** Untimed calls before each timed read. */
const WARMUP = 5;

const LIST_NEWEST = `query($first: Int!) { launches(first: $first) {
  edges { cursor node { launchId state priority createdAt } } pageInfo { hasNextPage endCursor } } }`;
const LIST_QUEUED = `query($first: Int!) { launches(filter: { states: [QUEUED] }, first: $first) {
  edges { cursor node { launchId state priority createdAt queuePosition waitingFor { kind } } }
  pageInfo { hasNextPage endCursor } } }`;
const ONE = `query($id: String!) { launch(launchId: $id) {
  launchId state queuePosition waitingFor { kind message } } }`;
const QUEUE = `{ queue { depth caps { scope inUse max } } }`;
const COUNT_QUEUED = `{ launches(filter: { states: [QUEUED] }, first: 1) { totalCount } }`;
const ENQUEUE = `mutation($input: EnqueueLaunchInput!) { enqueueLaunch(input: $input) {
  __typename ... on EnqueueLaunchPayload { launch { launchId } } ... on Error { message } } }`;
const SET_CAP = `mutation($max: Int!) { setCap(input: { scope: GLOBAL, max: $max }) {
  __typename ... on SetCapPayload { cap { max } } ... on Error { message } } }`;
const CHANGES = `subscription { fleetChanges { __typename ... on LaunchChanged { to launch { launchId } } } }`;

interface ListResult {
  launches: {
    edges: { node: { launchId: string; state: string; queuePosition?: number | null } }[];
    pageInfo: { hasNextPage: boolean };
  };
}
interface OneResult {
  launch: {
    launchId: string;
    state: string;
    queuePosition: number | null;
    waitingFor: { kind: string } | null;
  } | null;
}
interface QueueResult {
  queue: { depth: number; caps: { scope: string; inUse: number; max: number }[] };
}

/** Nearest-rank percentile (0–100) of a non-empty list. */
function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

/** Run `fn` over `0..n-1` with at most `limit` calls in flight. */
async function forLimit(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
}

/** Wait until the dispatcher has placed `id` (its queuePosition is known); ms waited. */
async function untilPlaced(gw: Gateway, id: string): Promise<number> {
  const t0 = performance.now();
  await waitFor(
    async () => ((await gw.gql<OneResult>(ONE, { id })).launch?.queuePosition ?? null) !== null,
    300_000,
    `launch ${id} placed in the queue`,
    20,
  );
  return performance.now() - t0;
}

/** A timed read: latency percentiles and the gateway's CPU per call. */
interface ReadFigures {
  p50: number;
  p95: number;
  /** Gateway CPU time (user + system) per call, ms. */
  cpuMs: number;
}

/**
 * p50 and p95 of `repeats` sequential calls of `call` (after {@link WARMUP} untimed), ms, and the
 * CPU the gateway process `pid` spent per call meanwhile.
 */
async function timeCalls(
  pid: number,
  repeats: number,
  call: (i: number) => Promise<void>,
): Promise<ReadFigures> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const ms: number[] = [];
  const cpu0 = await sampleProc(pid);
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await call(i);
    ms.push(performance.now() - t0);
  }
  const cpu1 = await sampleProc(pid);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), cpuMs: (cpu1.cpuMs - cpu0.cpuMs) / repeats };
}

/**
 * Time from sending setCap(GLOBAL, 1) to the LaunchChanged → DISPATCHED item on fleetChanges, ms;
 * checks the launch dispatched is `expectFirst`, then sets the cap back to 0.
 */
async function timeDispatch(gw: Gateway, expectFirst: string): Promise<number> {
  let seeded!: () => void;
  const seedDone = new Promise<void>((r) => (seeded = r));
  let dispatched!: (v: { at: number; id: string }) => void;
  const firstDispatch = new Promise<{ at: number; id: string }>((r) => (dispatched = r));
  const sub = subscribe(
    gw.wsUrl,
    CHANGES,
    {},
    (data) => {
      const item = data.fleetChanges as { __typename: string; to?: string; launch?: { launchId: string } };
      if (item.__typename === "FleetSeedComplete") seeded();
      else if (item.__typename === "LaunchChanged" && item.to === "DISPATCHED")
        dispatched({ at: performance.now(), id: item.launch!.launchId });
    },
    gw.token,
  );
  try {
    await sub.ready;
    await Promise.race([
      seedDone,
      sub.done.then(() => {
        throw new Error("fleetChanges ended before its seed completed");
      }),
    ]);
    const t0 = performance.now();
    const res = await gw.gql<{ setCap: { __typename: string; message?: string } }>(SET_CAP, { max: 1 });
    if (res.setCap.__typename !== "SetCapPayload")
      throw new Error(`setCap: ${res.setCap.__typename}: ${res.setCap.message ?? ""}`);
    let timer: NodeJS.Timeout | undefined;
    const got = await Promise.race([
      firstDispatch,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("no launch DISPATCHED within 120 s of setCap(GLOBAL, 1)")),
          120_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (got.id !== expectFirst)
      throw new Error(`launch ${got.id} dispatched first; ${expectFirst} is first in dispatch order`);
    const back = await gw.gql<{ setCap: { __typename: string } }>(SET_CAP, { max: 0 });
    if (back.setCap.__typename !== "SetCapPayload")
      throw new Error(`setCap back to 0: ${back.setCap.__typename}`);
    return got.at - t0;
  } finally {
    sub.close();
  }
}

/** Every figure of one depth. */
interface CaseResult {
  depth: number;
  startReadyMs: number;
  placedMs: number;
  gqlEnqueueRate: number;
  reads: Record<string, ReadFigures>;
  rssBytes: number;
  dispatchMs: number;
  stopMs: number;
  restartReadyMs: number;
  restartPlacedMs: number;
  restartRssBytes: number;
  inProcess: EnqueueRun;
}

/** The read figures with targets, in table order: key, metric name. */
const READS: [string, string][] = [
  ["newest", `launches(first: ${PAGE}) newest first`],
  ["queued", `launches(QUEUED, first: ${PAGE}) dispatch order`],
  ["one", "launch(launchId:) + queuePosition, waitingFor"],
  ["queue", "queue { depth caps { inUse } }"],
];

async function runCase(ctx: RunContext, n: number, sizes: Sizes): Promise<CaseResult> {
  const fill = await ensureQueueFill(ctx, n);
  const dirs = makeDirs();
  let sim: Sim | null = null;
  let gw: Gateway | null = null;
  try {
    sim = await startSim(dirs, [fill.root]);
    const dataDir = copyQueueFill(fill, path.join(dirs.tmp, "gw"));
    const mid = fill.spread[fill.spread.length / 2]!;
    gw = await startGateway({ dataDir, runtimeDir: dirs.runtime });
    const g = gw;
    const placedMs = await untilPlaced(g, mid);
    ctx.log(
      `${n} queued: prospero serve ready in ${g.readyMs.toFixed(0)} ms; queue placed ${placedMs.toFixed(0)} ms later`,
    );

    const sample: string[] = [];
    const tg0 = performance.now();
    await forLimit(sizes.gqlSample, GQL_CONCURRENCY, async (i) => {
      const d = await g.gql<{
        enqueueLaunch: { __typename: string; message?: string; launch?: { launchId: string } };
      }>(ENQUEUE, {
        input: { workspace: QUEUE_WORKSPACE, prompt: `bench:idle queue-scale gql ${i}`, isolated: false },
      });
      if (d.enqueueLaunch.launch === undefined)
        throw new Error(`enqueueLaunch: ${d.enqueueLaunch.__typename}: ${d.enqueueLaunch.message ?? ""}`);
      sample.push(d.enqueueLaunch.launch.launchId);
    });
    const gqlEnqueueRate = (sizes.gqlSample / (performance.now() - tg0)) * 1000;
    const depth = n + sizes.gqlSample;
    ctx.log(`  ${sizes.gqlSample} enqueueLaunch mutations: ${Math.round(gqlEnqueueRate)}/s`);
    await untilPlaced(g, sample[sample.length - 1]!);

    const reads: CaseResult["reads"] = {};
    reads.newest = await timeCalls(g.pid, sizes.repeats, async () => {
      const d = await g.gql<ListResult>(LIST_NEWEST, { first: PAGE });
      if (d.launches.edges.length !== PAGE || !d.launches.pageInfo.hasNextPage)
        throw new Error(`launches(first: ${PAGE}) returned ${d.launches.edges.length} edges`);
    });
    reads.queued = await timeCalls(g.pid, sizes.repeats, async () => {
      const d = await g.gql<ListResult>(LIST_QUEUED, { first: PAGE });
      const first = d.launches.edges[0]?.node;
      if (
        d.launches.edges.length !== PAGE ||
        !first ||
        first.launchId !== fill.first ||
        first.queuePosition !== 1
      )
        throw new Error(
          `launches(QUEUED) did not start with ${fill.first} at position 1: ${JSON.stringify(first)}`,
        );
    });
    reads.one = await timeCalls(g.pid, sizes.repeats, async (i) => {
      const d = await g.gql<OneResult>(ONE, { id: fill.spread[i % fill.spread.length] });
      if (
        d.launch?.state !== "QUEUED" ||
        d.launch.queuePosition === null ||
        d.launch.waitingFor?.kind !== "CAP"
      )
        throw new Error(`launch(launchId:) of a queued launch: ${JSON.stringify(d.launch)}`);
    });
    reads.queue = await timeCalls(g.pid, sizes.repeats, async () => {
      const d = await g.gql<QueueResult>(QUEUE);
      if (d.queue.depth !== depth) throw new Error(`queue.depth ${d.queue.depth}, expected ${depth}`);
    });
    reads.count = await timeCalls(g.pid, Math.min(sizes.repeats, 30), async () => {
      const d = await g.gql<{ launches: { totalCount: number } }>(COUNT_QUEUED);
      if (d.launches.totalCount !== depth)
        throw new Error(`totalCount ${d.launches.totalCount}, expected ${depth}`);
    });
    ctx.log(
      `  reads p50/p95 ms (gateway CPU ms per call): ${Object.entries(reads)
        .map(([k, v]) => `${k} ${v.p50.toFixed(1)}/${v.p95.toFixed(1)} (${v.cpuMs.toFixed(1)})`)
        .join(", ")}`,
    );
    const rssBytes = (await sampleProc(g.pid)).rssBytes;

    const dispatchMs = await timeDispatch(g, fill.first);
    ctx.log(
      `  RSS ${mib(rssBytes).toFixed(0)} MiB; setCap(GLOBAL, 1) → first DISPATCHED in ${dispatchMs.toFixed(1)} ms`,
    );

    const ts = performance.now();
    await g.stop();
    const stopMs = performance.now() - ts;
    gw = null;
    const g2 = await startGateway({ dataDir, runtimeDir: dirs.runtime });
    gw = g2;
    const restartPlacedMs = await untilPlaced(g2, mid);
    const restartRssBytes = (await sampleProc(g2.pid)).rssBytes;
    ctx.log(
      `  restart: stopped in ${stopMs.toFixed(0)} ms, ready in ${g2.readyMs.toFixed(0)} ms, ` +
        `placed ${restartPlacedMs.toFixed(0)} ms later; RSS ${mib(restartRssBytes).toFixed(0)} MiB`,
    );
    await g2.stop();
    gw = null;

    ctx.log(`  ${sizes.inProcessSample} more through app.queue.enqueue (gateway in this process)`);
    const inProcess = await withInProcessGateway(dataDir, dirs.runtime, (app) =>
      enqueueMany(ctx, app, sizes.inProcessSample, "depth"),
    );
    ctx.log(
      `  in-process: ${Math.round(inProcess.rate)}/s, ${inProcess.cpuMsPerLaunch.toFixed(2)} ms CPU per launch`,
    );
    return {
      depth: n,
      startReadyMs: g.readyMs,
      placedMs,
      gqlEnqueueRate,
      reads,
      rssBytes,
      dispatchMs,
      stopMs,
      restartReadyMs: g2.readyMs,
      restartPlacedMs,
      restartRssBytes,
      inProcess,
    };
  } finally {
    await gw?.stop();
    await sim?.stop();
    dirs.cleanup();
  }
}

/** The queue-scale scenario. */
export const scenario: Scenario = {
  name: "queue-scale",
  title:
    "Launch queue at 1,000 and 100,000 queued (GLOBAL cap 0): enqueue rate, read latency, dispatch pass, restart, RSS",
  async run(ctx) {
    const sizes = ctx.quick ? QUICK : FULL;
    const base = await runCase(ctx, sizes.baseline, sizes);
    const big = await runCase(ctx, sizes.large, sizes);
    const baseName = `${fmt(base.depth)} queued`;
    const bigName = `${fmt(big.depth)} queued`;
    const out: Measurement[] = [];
    // Rows of both depths; the large one carries the baseline's figure, the ratio and the target.
    const rows = (
      metric: string,
      unit: string,
      pick: (r: CaseResult) => number,
      target?: { text: string; ok: (value: number, ratio: number | undefined) => boolean },
    ) => {
      out.push({ scenario: "queue-scale", case: baseName, metric, value: pick(base), unit });
      out.push(
        withTarget(
          {
            scenario: "queue-scale",
            case: bigName,
            metric,
            value: pick(big),
            unit,
            baseline: { name: baseName, value: pick(base) },
          },
          target,
        ),
      );
    };
    const ratioAtMost = (k: number) => ({
      text: `≤ ${k} × baseline`,
      ok: (_v: number, r?: number) => (r ?? Infinity) <= k,
    });
    const rateAtLeastHalf = { text: "≥ 0.5 × baseline", ok: (_v: number, r?: number) => (r ?? 0) >= 0.5 };
    rows(
      `enqueueLaunch (GraphQL, ${GQL_CONCURRENCY} in flight)`,
      "launches/s",
      (r) => r.gqlEnqueueRate,
      rateAtLeastHalf,
    );
    rows("enqueue (in-process app.queue)", "launches/s", (r) => r.inProcess.rate, rateAtLeastHalf);
    rows("enqueue (in-process): CPU per launch", "ms", (r) => r.inProcess.cpuMsPerLaunch, ratioAtMost(3));
    for (const [k, name] of READS) {
      rows(`${name} p50`, "ms", (r) => r.reads[k]!.p50, ratioAtMost(3));
      rows(`${name} p95`, "ms", (r) => r.reads[k]!.p95, ratioAtMost(3));
      rows(`${name}: gateway CPU per call`, "ms", (r) => r.reads[k]!.cpuMs, ratioAtMost(3));
    }
    rows("launches(QUEUED) { totalCount } p50", "ms", (r) => r.reads.count!.p50);
    rows("launches(QUEUED) { totalCount }: gateway CPU per call", "ms", (r) => r.reads.count!.cpuMs);
    rows("setCap(GLOBAL 0 → 1) → first DISPATCHED", "ms", (r) => r.dispatchMs, {
      text: "≤ 100 ms",
      ok: (v) => v <= 100,
    });
    rows("start to /readyz 200 (copy of the queue)", "ms", (r) => r.startReadyMs);
    rows("ready → queue placed (first pass)", "ms", (r) => r.placedMs);
    rows("restart: SIGTERM to exit", "ms", (r) => r.stopMs);
    rows("restart: start to /readyz 200", "ms", (r) => r.restartReadyMs, {
      text: "≤ 5 s",
      ok: (v) => v <= 5_000,
    });
    rows("restart: ready → queue placed", "ms", (r) => r.restartPlacedMs);
    rows("gateway RSS after load and reads", "MiB", (r) => mib(r.rssBytes));
    rows("gateway RSS after restart (queue loaded)", "MiB", (r) => mib(r.restartRssBytes));
    out.push(
      withTarget(
        {
          scenario: "queue-scale",
          case: bigName,
          metric: "RSS growth per queued launch (after restart)",
          value: (big.restartRssBytes - base.restartRssBytes) / 1024 / (big.depth - base.depth),
          unit: "KiB",
        },
        { text: "≤ 2 KiB each", ok: (v) => v <= 2 },
      ),
    );
    return out;
  },
};
