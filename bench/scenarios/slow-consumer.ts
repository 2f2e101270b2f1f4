/**
 * Slow consumer: one `fleetEvents` subscriber (graphql-ws) that stops reading at the TCP level
 * right after its first message, while 1,000,000 events flow from 100 simulated agents; the
 * gateway's RSS is sampled every 500 ms and must stay flat — its per-subscriber buffer is bounded
 * (1024 events, then a GapEvent and a refill from the store), so a stalled client must not make it grow.
 *
 * The flow runs as fast as the gateway stores it but with a bounded backlog: agents of 10,000
 * events each (`bench:burst=… bench:distinct`, every delta its own fleet event) are spawned one
 * after another whenever fewer than {@link MAX_BACKLOG} spawned frames are still unstored, so RSS
 * measures the subscriber rather than an ingest backlog (the gateway reads a backlog in 1 MiB
 * slices, src/fleet/ingest.ts MAX_READ_BYTES; before that fix a 1M-line burst was one batch).
 *
 * Figures (RSS after warm-up = after the first 10 % of the events): RSS growth (median of the last
 * third of the samples vs the first third — the target's figure, robust to the GC sawtooth that
 * ingest alone produces), the largest deviation from the median, max, RSS at 10/50/100 % of the
 * flow, events dropped from the subscriber's bus buffer, ingest rate. Baseline (same run): the same
 * flow on a fresh gateway with no subscriber. Then the paused subscriber is resumed: it should get
 * a GapEvent and then the tail — unless the gateway's keep-alive closed it meanwhile (a socket that does
 * not read cannot answer pings; closed 12–36 s into the pause, reported as such). A second check
 * pauses a fresh subscriber for 8 s while one more agent bursts, then resumes it: every event once
 * and in order when nothing was dropped for it (the socket and the send queue held the burst), else
 * a GapEvent, then the tail — the no-gap-no-duplicate contract; asking for a GapEvent when nothing
 * was dropped would ask for a spurious one. Target (issue 7): RSS flat (±10 %) under a paused subscriber.
 */
import { waitFor } from "../../test/helpers/fleet-harness.js";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { DB_FILE } from "../../src/store/db.js";
import { startGateway, type Gateway } from "../lib/gateway.js";
import { sampleProc, sleep } from "../lib/procs.js";
import { withTarget, type Measurement, type RunContext, type Scenario } from "../lib/report.js";
import { makeDirs, makeRoots, startSim, type BenchDirs, type Sim } from "../lib/sim.js";
import { median, mib } from "../lib/stats.js";
import { subscribe, type Subscriber } from "../lib/ws-client.js";

/** Events of the flow (full and `--quick`). */
const TOTAL = 1_000_000;
const QUICK_TOTAL = 50_000;
/** Events each agent writes in one burst. */
const PER_AGENT = 10_000;
/** Spawned-but-unstored frames, at most: the next agent starts only when it fits under this. */
const MAX_BACKLOG = 30_000;
/** RSS and metrics sampling period, ms. */
const SAMPLE_MS = 500;
/** Samples before this fraction of the flow is stored are warm-up (excluded from flatness). */
const WARMUP = 0.1;
/** How long a resumed subscriber may take to receive the last event, ms. */
const CATCH_UP_MS = 120_000;
const QUICK_CATCH_UP_MS = 30_000;

const SUBSCRIPTION = "subscription { fleetEvents { __typename seq cursor ... on OutputEvent { text } } }";
const SUBSCRIPTION_AFTER =
  "subscription($after: String) { fleetEvents(after: $after) { __typename seq cursor ... on OutputEvent { text } } }";
/**
 * Pause of the short-pause check, ms: below the gateway's keep-alive, which closes a socket that
 * has not answered a ping within 12 s of it (pings every 12 s), i.e. 12–24 s after the last
 * pong; observed 25–36 s after the client stopped reading (its kernel buffers keep answering first).
 */
const SHORT_PAUSE_MS = 8_000;

/** One reading during the flow. */
interface Sample {
  /** performance.now(), ms. */
  at: number;
  /** Frames stored since the flow began. */
  frames: number;
  /** Fraction of the flow's frames stored (0–1). */
  progress: number;
  rssBytes: number;
  busSubscribers: number;
  busDropped: number;
}

/** What happened to the paused subscriber. */
interface PausedOutcome {
  /** Seconds after the pause when the server dropped the subscription (bus subscribers fell), or null. */
  droppedAfterS: number | null;
  /** GapEvent item received after resuming. */
  gap: boolean;
  /** The last event stored at the end of the flow arrived. */
  caughtUp: boolean;
  /** The socket closed before it caught up. */
  closed: boolean;
  /** From resume to the last event (or to giving up), s. */
  catchUpS: number;
  /** Items received after resuming (GapEvent included). */
  receivedAfterResume: number;
}

/** The short-pause check ({@link shortPause}). */
interface ShortPause {
  /** How long the subscriber did not read, s. */
  pauseS: number;
  gap: boolean;
  caughtUp: boolean;
  /**
   * Every stored event in the range arrived once, in order (no GapEvent needed: nothing was
   * dropped for it — the socket and the gateway's send queue held the burst).
   */
  complete: boolean;
  /** From resume to the last event (or to giving up), s. */
  catchUpS: number;
}

interface FlowResult {
  /** The short-pause check (paused mode only). */
  short: ShortPause | null;
  samples: Sample[];
  /** Frames stored per second over the flow. */
  rate: number;
  /** busDroppedTotal gained during the flow. */
  dropped: number;
  paused: PausedOutcome | null;
}

function globalIdOf(cursor: string): number {
  const m = /^v1:(\d+):/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m ? Number(m[1]) : 0;
}

async function flow(ctx: RunContext, mode: "baseline" | "paused", total: number): Promise<FlowResult> {
  const dirs: BenchDirs = makeDirs();
  let sim: Sim | null = null;
  let gw: Gateway | null = null;
  let sub: Subscriber | null = null;
  try {
    const [root] = makeRoots(dirs, 1);
    sim = await startSim(dirs, [root!]);
    gw = await startGateway({ dataDir: path.join(dirs.tmp, "gw"), runtimeDir: dirs.runtime });
    const g = gw;
    const base = await g.metrics();

    // The paused subscriber: reads its first message, then stops reading the socket.
    let pausedAt = 0;
    let resumed = false;
    let received = 0;
    let gap = false;
    let lastGlobal = 0;
    if (mode === "paused") {
      const s = subscribe(
        g.wsUrl,
        SUBSCRIPTION,
        {},
        (data) => {
          const e = data.fleetEvents as { __typename: string; cursor: string } | undefined;
          if (!resumed) {
            if (pausedAt === 0) {
              pausedAt = performance.now();
              s.pause();
            }
            return;
          }
          received++;
          if (e?.__typename === "GapEvent") gap = true;
          else if (e) lastGlobal = Math.max(lastGlobal, globalIdOf(e.cursor));
        },
        g.token,
      );
      sub = s;
      await s.ready;
    }
    await g.addWorkspace("bench", root!);

    const agents = Math.max(1, Math.round(total / PER_AGENT));
    const count = Math.max(1, Math.floor(total / agents) - 3);
    const frameOf = count + 3; // TurnStart, deltas, TurnEnd, RunEnd
    const expect = agents * frameOf;
    const subsBefore = (await g.metrics()).busSubscribers;
    ctx.log(
      `${mode}: ${agents} agents × ${frameOf} frames, ≤ ${MAX_BACKLOG} unstored at a time` +
        (mode === "paused" ? `, subscriber paused after its first message` : ", no subscriber"),
    );
    // Feeder: start the next agent whenever its frames fit under the backlog bound.
    let feedError: unknown = null;
    const feeder = (async () => {
      let spawned = 0;
      while (spawned < agents) {
        const stored = (await g.metrics()).framesIngestedTotal - base.framesIngestedTotal;
        if ((spawned + 1) * frameOf - stored <= MAX_BACKLOG || spawned === 0) {
          await g.spawn("bench", `slow bench:burst=${count} bench:distinct`);
          spawned++;
        } else {
          await sleep(50);
        }
      }
    })().catch((err: unknown) => {
      feedError = err ?? new Error("feeder failed");
    });
    const samples: Sample[] = [];
    let decile = 0;
    let t0: number | null = null; // the sample before the first stored frame
    let prevAt = performance.now();
    await waitFor(
      async () => {
        if (feedError !== null) return true;
        const [m, p] = await Promise.all([g.metrics(), sampleProc(g.pid)]);
        const at = performance.now();
        const frames = m.framesIngestedTotal - base.framesIngestedTotal;
        if (t0 === null && frames > 0) t0 = prevAt;
        prevAt = at;
        const s: Sample = {
          at,
          frames,
          progress: Math.min(1, frames / expect),
          rssBytes: p.rssBytes,
          busSubscribers: m.busSubscribers,
          busDropped: m.busDroppedTotal - base.busDroppedTotal,
        };
        samples.push(s);
        while (s.progress >= (decile + 1) / 10) {
          decile++;
          ctx.log(
            `  ${decile * 10}%: RSS ${mib(s.rssBytes).toFixed(0)} MiB, bus subscribers ${s.busSubscribers}, dropped ${s.busDropped}`,
          );
        }
        return frames >= expect;
      },
      total + 120_000,
      `${expect} frames stored`, // ≥ 1, 000 events/s
      SAMPLE_MS,
    );
    await feeder;
    if (feedError !== null) throw feedError;
    const last = samples[samples.length - 1]!;
    const rate = (last.frames / (last.at - (t0 ?? 0))) * 1000;

    let paused: PausedOutcome | null = null;
    if (sub) {
      const s = sub;
      const dropSample = samples.find((x) => x.at > pausedAt && x.busSubscribers < subsBefore);
      const maxId = maxEventId(g);
      let closed = false;
      void s.done.then(
        () => (closed = true),
        () => (closed = true),
      );
      ctx.log(`  resuming the subscriber; waiting for event ${maxId}`);
      resumed = true;
      const r0 = performance.now();
      s.resume();
      const limit = ctx.quick ? QUICK_CATCH_UP_MS : CATCH_UP_MS;
      while (lastGlobal < maxId && !closed && performance.now() - r0 < limit) await sleep(20);
      const catchUpS = (performance.now() - r0) / 1000;
      paused = {
        droppedAfterS: dropSample ? (dropSample.at - pausedAt) / 1000 : null,
        gap,
        caughtUp: lastGlobal >= maxId,
        closed: closed && lastGlobal < maxId,
        catchUpS,
        receivedAfterResume: received,
      };
      ctx.log(
        `  resumed: ${received} items in ${catchUpS.toFixed(2)} s, GapEvent ${gap ? "yes" : "no"}, ` +
          `caught up ${paused.caughtUp ? "yes" : "no"}${paused.closed ? " (socket closed)" : ""}` +
          (paused.droppedAfterS !== null
            ? `; the server dropped the subscription ${paused.droppedAfterS.toFixed(1)} s after the pause`
            : ""),
      );
    }
    const short = sub ? await shortPause(ctx, g, count) : null;
    return { samples, rate, dropped: last.busDropped, paused, short };
  } finally {
    sub?.close();
    await gw?.stop();
    await sim?.stop();
    dirs.cleanup();
  }
}

/** Stored events with `from < id <= to`. */
const eventsBetween = (g: Gateway, from: number, to: number): number => {
  const db = new BetterSqlite3(path.join(g.dataDir, DB_FILE), { readonly: true });
  try {
    return (
      db.prepare(`SELECT count(*) AS n FROM "Event" WHERE id > ? AND id <= ?`).get(from, to) as { n: number }
    ).n;
  } finally {
    db.close();
  }
};

const maxEventId = (g: Gateway): number => {
  const db = new BetterSqlite3(path.join(g.dataDir, DB_FILE), { readonly: true });
  try {
    return (db.prepare(`SELECT max(id) AS m FROM "Event"`).get() as { m: number | null }).m ?? 0;
  } finally {
    db.close();
  }
};

/**
 * After the flow, on the same gateway: a fresh `fleetEvents` subscriber (from the current end)
 * stops reading after its first message for {@link SHORT_PAUSE_MS} — shorter than the gateway's
 * keep-alive lets an unresponsive socket live — while one more agent bursts {@link PER_AGENT}
 * events; then it resumes and must get every event up to the last stored: all of them once and in
 * order, or — where its buffer overflowed — a GapEvent and then the tail.
 */
async function shortPause(ctx: RunContext, g: Gateway, count: number): Promise<ShortPause> {
  const from = maxEventId(g);
  const after = Buffer.from(`v1:${from}:0:fleet`, "utf8").toString("base64url");
  let pausedAt = 0;
  let resumed = false;
  let gap = false;
  let lastGlobal = 0;
  /** Events received (before and after resuming) with ids up to `maxId`; ids strictly increasing. */
  let received = 0;
  let inOrder = true;
  /** The last stored event's id when the subscriber resumes. */
  let maxId = Infinity;
  const s = subscribe(
    g.wsUrl,
    SUBSCRIPTION_AFTER,
    { after },
    (data) => {
      const e = data.fleetEvents as { __typename: string; cursor: string } | undefined;
      if (e?.__typename === "GapEvent") gap = true;
      else if (e) {
        const id = globalIdOf(e.cursor);
        if (id <= lastGlobal) inOrder = false;
        else if (id <= maxId) received++;
        lastGlobal = Math.max(lastGlobal, id);
      }
      if (!resumed && pausedAt === 0) {
        pausedAt = performance.now();
        s.pause();
      }
    },
    g.token,
  );
  try {
    await s.ready;
    const base = (await g.metrics()).framesIngestedTotal;
    await g.spawn("bench", `short bench:burst=${count} bench:distinct`);
    await waitFor(() => pausedAt > 0, 30_000, "the short-pause subscriber's first message");
    await waitFor(
      async () => (await g.metrics()).framesIngestedTotal - base >= count + 3,
      120_000,
      "the short-pause burst stored",
      100,
    );
    const wait = SHORT_PAUSE_MS - (performance.now() - pausedAt);
    if (wait > 0) await sleep(wait);
    maxId = maxEventId(g);
    let closed = false;
    void s.done.then(
      () => (closed = true),
      () => (closed = true),
    );
    resumed = true;
    const r0 = performance.now();
    const pauseS = (r0 - pausedAt) / 1000;
    s.resume();
    while (lastGlobal < maxId && !closed && performance.now() - r0 < QUICK_CATCH_UP_MS) await sleep(20);
    const caughtUp = lastGlobal >= maxId;
    // Without a GapEvent, every stored event after `from` must have arrived, once and in order
    // (those read before the pause count too).
    const complete = !gap && caughtUp && inOrder && received >= eventsBetween(g, from, maxId);
    const out = { pauseS, gap, caughtUp, complete, catchUpS: (performance.now() - r0) / 1000 };
    ctx.log(
      `  short pause (${pauseS.toFixed(1)} s, ${count} events): GapEvent ${gap ? "yes" : "no"}, ` +
        `caught up ${out.caughtUp ? "yes" : "no"} ${out.catchUpS.toFixed(2)} s after resuming${closed ? " (socket closed)" : ""}` +
        `${gap ? "" : `, ${complete ? "every event, in order, no gap needed" : "events MISSING without a GapEvent"}`}`,
    );
    return out;
  } finally {
    s.close();
  }
}

/** RSS summary over the samples after warm-up (all samples when the flow was too short). */
function rssSummary(samples: Sample[]): {
  med: number;
  max: number;
  min: number;
  deviationPct: number;
  trendPct: number;
} {
  const after = samples.filter((s) => s.progress >= WARMUP);
  const xs = (after.length ? after : samples).map((s) => s.rssBytes);
  const med = median(xs);
  const max = Math.max(...xs);
  const min = Math.min(...xs);
  // Growth: median of the last third vs the first third (robust to the GC sawtooth).
  const third = Math.max(1, Math.floor(xs.length / 3));
  const early = median(xs.slice(0, third));
  const late = median(xs.slice(-third));
  return {
    med,
    max,
    min,
    deviationPct: (Math.max(max - med, med - min) / med) * 100,
    trendPct: ((late - early) / early) * 100,
  };
}

/** RSS of the first sample at or past `fraction` of the flow, bytes. */
function rssAt(samples: Sample[], fraction: number): number {
  return (samples.find((s) => s.progress >= fraction) ?? samples[samples.length - 1]!).rssBytes;
}

/** The slow-consumer scenario. */
export const scenario: Scenario = {
  name: "slow-consumer",
  title:
    "Gateway RSS while 1,000,000 events (50k with --quick) flow past one paused subscriber, vs no subscriber",
  async run(ctx) {
    const total = ctx.quick ? QUICK_TOTAL : TOTAL;
    const baseline = await flow(ctx, "baseline", total);
    const paused = await flow(ctx, "paused", total);
    const p = rssSummary(paused.samples);
    const b = rssSummary(baseline.samples);
    const label = `${total.toLocaleString("en-US")} events, ${Math.round(total / PER_AGENT)} agents`;
    const none = "no subscriber";
    const row = (metric: string, value: number, unit: string, base?: number): Measurement =>
      withTarget({
        scenario: "slow-consumer",
        case: label,
        metric,
        value,
        unit,
        ...(base === undefined ? {} : { baseline: { name: none, value: base } }),
      });
    const out: Measurement[] = [
      withTarget(
        {
          ...row("RSS growth, last vs first third (median)", p.trendPct, "%"),
          baseline: { name: none, value: b.trendPct },
        },
        { text: "RSS flat (±10 %)", ok: (v) => Math.abs(v) <= 10 },
      ),
      row(`RSS max deviation from median`, p.deviationPct, "%", b.deviationPct),
      row("RSS max", mib(p.max), "MiB", mib(b.max)),
      row(
        `RSS at ${WARMUP * 100} %`,
        mib(rssAt(paused.samples, WARMUP)),
        "MiB",
        mib(rssAt(baseline.samples, WARMUP)),
      ),
      row("RSS at 50 %", mib(rssAt(paused.samples, 0.5)), "MiB", mib(rssAt(baseline.samples, 0.5))),
      row("RSS at 100 %", mib(rssAt(paused.samples, 1)), "MiB", mib(rssAt(baseline.samples, 1))),
      row("events dropped from bus buffers", paused.dropped, "events", baseline.dropped),
      row("frames stored/s", paused.rate, "events/s", baseline.rate),
    ];
    const o = paused.paused;
    if (o) {
      if (o.droppedAfterS !== null) {
        out.push(row("paused subscriber closed by the server after", o.droppedAfterS, "s"));
      }
      out.push({
        ...row("paused all along, resumed: time to the last event", o.catchUpS, "s"),
        target: "GapEvent, then the tail",
        meets: o.gap && o.caughtUp,
      });
    }
    const sp = paused.short;
    if (sp) {
      out.push({
        ...row(`paused ${sp.pauseS.toFixed(0)} s, resumed: time to the last event`, sp.catchUpS, "s"),
        // The contract (issue 7): a GapEvent where the subscriber fell behind, then the tail; when
        // nothing was dropped for it, every event in order and no GapEvent.
        target: "the tail in full, or GapEvent then the tail",
        meets: sp.caughtUp && (sp.gap || sp.complete),
      });
    }
    return out;
  },
};
