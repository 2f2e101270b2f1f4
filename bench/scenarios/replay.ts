/**
 * Replay: a stored history of one finished agent with 1,000,000 fleet events (built once through
 * the real ingest path and cached, see ../lib/history.ts), served by a gateway started on a copy of
 * it with no daemon running (the workspace is unreachable; history does not need it). Figures:
 * - first-page latency of `events(of: { agentId: }, first: 100)`: the first call after start, and the
 *   median of 20 later calls;
 * - paging the whole history with `events(of: { agentId: }, first: 500, after:)` until `hasNextPage` is
 *   false, events/s;
 * - replaying it through the `agentEvents(agentId:)` subscription (graphql-ws) from the start until
 *   it completes (after the terminal status), events/s;
 * - gateway CPU and RSS meanwhile.
 * Both selections are a realistic small field set (`__typename seq cursor … on OutputEvent { text }`).
 * Baseline (same run): the same rows read straight from SQLite with better-sqlite3 in pages of
 * 500 by seq, payload JSON-parsed. Target (issue 7): replay ≥ 200k events/s.
 */
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { DB_FILE } from "../../src/store/db.js";
import { startGateway, type Gateway } from "../lib/gateway.js";
import { copyHistory, ensureHistory } from "../lib/history.js";
import { ProcSampler, coreShare, type ProcSample } from "../lib/procs.js";
import { withTarget, type Measurement, type Scenario } from "../lib/report.js";
import { makeDirs } from "../lib/sim.js";
import { median, mib } from "../lib/stats.js";
import { subscribe } from "../lib/ws-client.js";

/** Events in the history (full and `--quick`). */
const EVENTS = 1_000_000;
const QUICK_EVENTS = 20_000;
/** Later first-page calls whose median is reported. */
const FIRST_PAGE_REPEATS = 20;
/** Page size of the paging run (the schema's maximum) and of the baseline. */
const PAGE = 500;
/** Raw baseline repetitions (median reported). */
const BASELINE_RUNS = 3;

const TARGET = { text: "≥ 200k events/s", ok: (v: number) => v >= 200_000 };

const FIELDS = "__typename seq cursor ... on OutputEvent { text }";
const PAGE_QUERY = `query($agentId: String!, $first: Int!, $after: String) {
  events(of: { agentId: $agentId }, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { ${FIELDS} }
  }
}`;
const SUBSCRIPTION = `subscription($agentId: String!) { agentEvents(agentId: $agentId) { ${FIELDS} } }`;

interface PageResult {
  events: {
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    nodes: { __typename: string; seq: number }[];
  };
}

/** One timed pass. */
interface Pass {
  events: number;
  ms: number;
  perSec: number;
}

const pass = (events: number, ms: number): Pass => ({ events, ms, perSec: (events / ms) * 1000 });

async function timeFirstPage(gw: Gateway, agentId: string): Promise<number> {
  const t0 = performance.now();
  const d = await gw.gql<PageResult>(PAGE_QUERY, { agentId, first: 100 });
  const ms = performance.now() - t0;
  if (d.events.nodes.length === 0) throw new Error(`events(of: { agentId: ${agentId} }) returned no events`);
  return ms;
}

async function pageAll(
  gw: Gateway,
  agentId: string,
  expect: number,
  log: (m: string) => void,
): Promise<Pass> {
  let after: string | null = null;
  let n = 0;
  let lastSeq = 0;
  let lastLog = Date.now();
  const t0 = performance.now();
  for (;;) {
    const d: PageResult = await gw.gql<PageResult>(PAGE_QUERY, { agentId, first: PAGE, after });
    for (const e of d.events.nodes) {
      if (e.seq <= lastSeq) throw new Error(`events out of order: seq ${e.seq} after ${lastSeq}`);
      lastSeq = e.seq;
    }
    n += d.events.nodes.length;
    if (!d.events.pageInfo.hasNextPage) break;
    after = d.events.pageInfo.endCursor;
    if (Date.now() - lastLog > 5_000) {
      lastLog = Date.now();
      log(`  paged ${n}/${expect}`);
    }
  }
  const ms = performance.now() - t0;
  if (n !== expect) throw new Error(`paging returned ${n} events, the history holds ${expect}`);
  return pass(n, ms);
}

async function replayAll(
  gw: Gateway,
  agentId: string,
  expect: number,
  log: (m: string) => void,
): Promise<Pass & { gaps: number }> {
  let gaps = 0;
  let n = 0;
  const timer = setInterval(() => log(`  replayed ${n}/${expect}`), 5_000);
  const t0 = performance.now();
  try {
    const sub = subscribe(
      gw.wsUrl,
      SUBSCRIPTION,
      { agentId },
      (data) => {
        const e = data.agentEvents as { __typename: string } | undefined;
        if (e?.__typename === "GapEvent") gaps++;
        else n++;
      },
      gw.token,
    );
    try {
      await sub.ready;
      await sub.done;
    } finally {
      sub.close();
    }
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - t0;
  if (n !== expect) throw new Error(`agentEvents replayed ${n} events, the history holds ${expect}`);
  return { ...pass(n, ms), gaps };
}

/** The same rows straight from SQLite: pages of {@link PAGE} by seq, payload JSON-parsed. */
function rawRead(dbFile: string, agentId: string): Pass {
  const db = new BetterSqlite3(dbFile, { readonly: true });
  try {
    const stmt = db.prepare(
      `SELECT id, streamKey, seq, ts, workspace, agentId, kind, payload FROM "Event"
       WHERE agentId = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    const t0 = performance.now();
    let after = 0;
    let n = 0;
    for (;;) {
      const rows = stmt.all(agentId, after, PAGE) as { seq: number; payload: string }[];
      for (const r of rows) JSON.parse(r.payload);
      n += rows.length;
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]!.seq;
    }
    return pass(n, performance.now() - t0);
  } finally {
    db.close();
  }
}

function usage(samples: ProcSample[]): { cpu: number; rssMax: number } {
  const first = samples[0];
  const last = samples[samples.length - 1];
  return {
    cpu: first && last ? coreShare(first, last) * 100 : 0,
    rssMax: Math.max(0, ...samples.map((s) => s.rssBytes)),
  };
}

/** CPU of this (client) process since `from` over `ms` of wall time, % of one core, formatted. */
function clientShare(from: NodeJS.CpuUsage, ms: number): string {
  const d = process.cpuUsage(from);
  return (((d.user + d.system) / 1000 / ms) * 100).toFixed(0);
}

/** The replay scenario. */
export const scenario: Scenario = {
  name: "replay",
  title:
    "A 1,000,000-event history (20k with --quick): first-page latency, paging `events`, replaying `agentEvents`",
  async run(ctx) {
    const history = await ensureHistory(ctx, ctx.quick ? QUICK_EVENTS : EVENTS);
    const { agentId, events } = history;
    const label = `${events.toLocaleString("en-US")} events`;
    const dirs = makeDirs();
    let gw: Gateway | null = null;
    try {
      const dataDir = copyHistory(history, path.join(dirs.tmp, "gw"));
      gw = await startGateway({ dataDir, runtimeDir: dirs.runtime });
      ctx.log(`gateway ready on a copy of the history in ${gw.readyMs.toFixed(0)} ms (no daemon running)`);

      const firstMs = await timeFirstPage(gw, agentId);
      const later: number[] = [];
      for (let i = 0; i < FIRST_PAGE_REPEATS; i++) later.push(await timeFirstPage(gw, agentId));
      const laterMs = median(later);
      ctx.log(
        `first page: ${firstMs.toFixed(1)} ms first call, ${laterMs.toFixed(1)} ms median of ${later.length}`,
      );

      let sampler = await new ProcSampler(gw.pid, 250).start();
      let client = process.cpuUsage();
      const paged = await pageAll(gw, agentId, events, ctx.log);
      const pagingUse = usage(await sampler.stop());
      ctx.log(
        `paging: ${paged.events} events in ${(paged.ms / 1000).toFixed(2)} s: ${Math.round(paged.perSec)}/s ` +
          `(gateway ${pagingUse.cpu.toFixed(0)} % core, this client ${clientShare(client, paged.ms)} % core)`,
      );

      sampler = await new ProcSampler(gw.pid, 250).start();
      client = process.cpuUsage();
      const replayed = await replayAll(gw, agentId, events, ctx.log);
      const replayUse = usage(await sampler.stop());
      ctx.log(
        `agentEvents: ${replayed.events} events in ${(replayed.ms / 1000).toFixed(2)} s: ${Math.round(replayed.perSec)}/s ` +
          `(gateway ${replayUse.cpu.toFixed(0)} % core, this client ${clientShare(client, replayed.ms)} % core)` +
          (replayed.gaps ? `, ${replayed.gaps} GapEvent items` : ""),
      );
      await gw.stop();
      gw = null;

      const raws: Pass[] = [];
      for (let i = 0; i < BASELINE_RUNS; i++) raws.push(rawRead(path.join(dataDir, DB_FILE), agentId));
      const rawRate = median(raws.map((r) => r.perSec));
      ctx.log(`raw better-sqlite3: ${Math.round(rawRate)} events/s (median of ${raws.length})`);
      const raw = { name: "raw better-sqlite3", value: rawRate };

      const row = (metric: string, value: number, unit: string): Measurement => ({
        scenario: "replay",
        case: label,
        metric,
        value,
        unit,
      });
      return [
        row("first page (first call)", firstMs, "ms"),
        row(`first page (median of ${later.length})`, laterMs, "ms"),
        withTarget(
          { ...row(`page \`events\` (${PAGE}/page)`, paged.perSec, "events/s"), baseline: raw },
          TARGET,
        ),
        row("page `events`: total time", paged.ms / 1000, "s"),
        withTarget({ ...row("replay `agentEvents`", replayed.perSec, "events/s"), baseline: raw }, TARGET),
        row("replay `agentEvents`: total time", replayed.ms / 1000, "s"),
        row("gateway CPU while paging", pagingUse.cpu, "% core"),
        row("gateway CPU while replaying", replayUse.cpu, "% core"),
        row("gateway RSS max", mib(Math.max(pagingUse.rssMax, replayUse.rssMax)), "MiB"),
      ];
    } finally {
      await gw?.stop();
      dirs.cleanup();
    }
  },
};
