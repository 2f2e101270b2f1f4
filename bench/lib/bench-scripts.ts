/**
 * Worker scripts of the benchmark simulator, chosen by `bench:` directives in the spawn prompt
 * (other prompts run the double's default script). Frame vocabulary: caliband-protocol.md §3.3.
 *
 * - `bench:burst=N` — TurnStart, N AssistantTextDelta frames written as fast as the worker can
 *   (yielding to the event loop every 256 frames), TurnEnd, RunEnd. With `bench:distinct` the
 *   deltas alternate between content blocks 0 and 1, so none coalesce and every frame becomes one
 *   fleet event (the normalizer merges adjacent deltas of one block within a read batch).
 * - `bench:rate=R bench:count=C` — TurnStart, then C deltas paced at R frames/s on a fixed schedule;
 *   each delta's text is `@<ms>` where ms is the wall-clock write time (ms since the epoch, with a
 *   fractional part) so a subscriber can measure write-to-arrival latency; TurnEnd, RunEnd. Deltas
 *   alternate content blocks, so each is its own fleet event. With `bench:gate=N` the first delta
 *   (and the schedule) waits after TurnStart until the file {@link gatePath}(N) exists, so a
 *   benchmark can attach its subscribers before the stream flows and start every agent together.
 *   The gate file may hold a wall-clock start instant (ms since the epoch, {@link wallMs}): the
 *   schedule then starts there, plus `bench:phase=P` µs — so a benchmark spreads its agents' phases
 *   evenly over one period, as the bare-ws baseline does, instead of writing every agent's frame in
 *   the same instant. A gate file without a plausible instant (empty, garbage, more than 10 s past
 *   or 60 s ahead) starts the schedule when the gate is seen (logged to worker.log); an agent that
 *   sees the gate after its start begins at its next slot.
 * - `bench:idle` — TurnStart, then nothing until killed (an attached, quiet agent).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SpawnSpecJson } from "../../test/support/wire-format.js";
import type { Frame, WorkerContext, WorkerScript } from "../../test/support/fake-scripts.js";
import { runEndFrame, turnEndFrame } from "../../test/helpers/paced-run.js";

/**
 * The file whose creation opens `bench:gate=<n>` (in the OS temp dir, shared by the benchmark and
 * the simulator process). The benchmark creates it and removes it when done.
 */
export const gatePath = (n: number): string => path.join(os.tmpdir(), `pb-gate-${n}`);

/** Wall-clock time in ms since the epoch with sub-ms precision (comparable across processes). */
export const wallMs = (): number => performance.timeOrigin + performance.now();

/** Parsed `bench:` directives of a prompt; `null` when the prompt has none. */
export interface BenchDirectives {
  burst?: number;
  rate?: number;
  count?: number;
  /** `bench:gate=N`: a paced run waits after TurnStart until {@link gatePath}(N) exists. */
  gate?: number;
  /** `bench:phase=P`: a gated run's schedule starts P µs after the gate file's start instant. */
  phase?: number;
  distinct: boolean;
  idle: boolean;
}

/** Extract `bench:<name>[=<int>]` directives from a prompt. */
export function parseBenchDirectives(prompt: string): BenchDirectives | null {
  const d: BenchDirectives = { distinct: false, idle: false };
  let any = false;
  for (const m of prompt.matchAll(/bench:([a-z]+)(?:=(\d+))?/g)) {
    any = true;
    const n = m[2] === undefined ? undefined : Number(m[2]);
    if (m[1] === "burst") d.burst = n;
    else if (m[1] === "rate") d.rate = n;
    else if (m[1] === "count") d.count = n;
    else if (m[1] === "gate") d.gate = n;
    else if (m[1] === "phase") d.phase = n;
    else if (m[1] === "idle") d.idle = true;
    else if (m[1] === "distinct") d.distinct = true;
  }
  return any ? d : null;
}

const turnStart = (id: string): Frame => ({
  type: "TurnStart",
  turn_index: 0,
  message_id: `msg_bench_${id}`,
  model: "claude-sonnet-4-5",
});
const delta = (text: string, block = 0): Frame => ({
  type: "AssistantTextDelta",
  turn_index: 0,
  content_block_index: block,
  text,
});
const yieldOnce = (): Promise<void> => new Promise((r) => setImmediate(r));

async function burst(ctx: WorkerContext, n: number, distinct: boolean): Promise<number> {
  ctx.emit(turnStart(ctx.id));
  for (let i = 0; i < n; i++) {
    ctx.emit(delta(`b${i} `, distinct ? i % 2 : 0));
    if (i % 256 === 255) await yieldOnce();
  }
  ctx.emit(turnEndFrame(n));
  ctx.emit(runEndFrame(n));
  return 0;
}

/** Farthest a gate's start instant may lie in the past / future of its reading, ms. */
const GATE_PAST_MS = 10_000;
const GATE_FUTURE_MS = 60_000;

/**
 * The start instant a gate file holds (wall ms since the epoch), or null when it holds none or
 * one implausibly far from now (a stale or garbage file must not fire a run's whole schedule at
 * once, nor hold it for good).
 */
function gateStart(file: string): number | null {
  try {
    const v = Number(fs.readFileSync(file, "utf8").trim());
    const now = wallMs();
    return Number.isFinite(v) && v >= now - GATE_PAST_MS && v <= now + GATE_FUTURE_MS ? v : null;
  } catch {
    return null;
  }
}

async function paced(
  ctx: WorkerContext,
  rate: number,
  count: number,
  gate?: number,
  phaseUs = 0,
): Promise<number> {
  ctx.emit(turnStart(ctx.id));
  const periodMs = 1000 / rate;
  let start = performance.now();
  if (gate !== undefined) {
    const file = gatePath(gate);
    while (!fs.existsSync(file)) await ctx.sleep(10);
    const at = gateStart(file);
    if (at === null) ctx.log("bench: the gate file holds no usable start instant; the schedule starts now");
    // The gate's wall-clock instant on this process's monotonic clock, plus this agent's phase.
    start = (at === null ? performance.now() : at - performance.timeOrigin) + phaseUs / 1000;
    // Seen late: start at the next slot of the schedule (its phase kept), not with a burst of the
    // slots already past.
    const now = performance.now();
    if (start < now) start += Math.ceil((now - start) / periodMs) * periodMs;
  }
  for (let i = 0; i < count; i++) {
    const due = start + i * periodMs;
    // Timers may fire a little early (they are armed from the loop's ms clock): wait until due.
    for (let w = due - performance.now(); w > 0; w = due - performance.now()) await ctx.sleep(Math.ceil(w));
    ctx.emit(delta(`@${wallMs().toFixed(3)}`, i % 2));
  }
  ctx.emit(turnEndFrame(count));
  ctx.emit(runEndFrame(count));
  return 0;
}

async function idle(ctx: WorkerContext): Promise<number> {
  ctx.emit(turnStart(ctx.id));
  for (;;) await ctx.sleep(3_600_000); // ends by kill (sleep rejects once stopped)
}

/** The simulator's `script` option: a bench script for prompts with directives, else the default. */
export function benchScript(spec: SpawnSpecJson): WorkerScript | undefined {
  const d = parseBenchDirectives(spec.initial_prompt);
  if (d === null) return undefined;
  if (d.burst !== undefined) {
    const n = d.burst;
    const distinct = d.distinct;
    return { run: (ctx) => burst(ctx, n, distinct) };
  }
  if (d.rate !== undefined && d.count !== undefined) {
    const rate = d.rate;
    const count = d.count;
    const gate = d.gate;
    const phase = d.phase ?? 0;
    return { run: (ctx) => paced(ctx, rate, count, gate, phase) };
  }
  if (d.idle) return { run: (ctx) => idle(ctx) };
  return undefined;
}
