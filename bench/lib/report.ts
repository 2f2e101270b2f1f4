/**
 * What a benchmark scenario reports, and how a run is printed (a table on stdout) and saved (JSON).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Table from "cli-table3";
import { REPO } from "./procs.js";

/** One figure. Ratios are `value / baseline` (so 0.6 = 60 % of the baseline's figure). */
export interface Measurement {
  /** Scenario name, e.g. `ingest`. */
  scenario: string;
  /** The case within the scenario, e.g. `10 agents`. */
  case: string;
  /** What was measured, e.g. `events/s`. */
  metric: string;
  value: number;
  /** Unit of `value` (and of the baseline), e.g. `events/s`, `ms`, `MiB`, `% core`. */
  unit: string;
  /** The same figure for the baseline measured in the same run. */
  baseline?: { name: string; value: number };
  /** `value / baseline.value`. */
  ratio?: number;
  /** The target this figure is held to (issue 7), in words, e.g. `≥ 0.50 of raw inserts`. */
  target?: string;
  /** Whether the target is met; absent when the figure has no target. */
  meets?: boolean;
}

/** What a scenario gets from the runner. */
export interface RunContext {
  /** Smaller sizes for a smoke run (`--quick`): same code paths, figures not comparable. */
  quick: boolean;
  /** Progress line on stderr. */
  log(msg: string): void;
}

/** A benchmark scenario: runs alone or with the others, returns its figures. */
export interface Scenario {
  name: string;
  /** One line: what it measures. */
  title: string;
  run(ctx: RunContext): Promise<Measurement[]>;
}

/** Description of the machine and build a run was taken on. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  commit: string;
}

/** Read the machine description (CPU model, cores, memory, kernel, Node, git commit). */
export function machineInfo(): MachineInfo {
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  return {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    commit,
  };
}

/** Add `ratio` (when the baseline is > 0) and `meets` from a baseline and a predicate over value and ratio. */
export function withTarget(
  m: Measurement,
  target?: { text: string; ok: (value: number, ratio: number | undefined) => boolean },
): Measurement {
  const out = { ...m };
  // A ratio to a baseline at or below zero (a noise-level memory delta) would mean nothing.
  if (m.baseline && m.baseline.value > 0) out.ratio = m.value / m.baseline.value;
  if (target) {
    out.target = target.text;
    out.meets = target.ok(m.value, out.ratio);
  }
  return out;
}

/** A figure for a table: thousands separated above 1,000, 3 significant digits below. Empty when absent. */
export function fmt(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return "";
  const a = Math.abs(n);
  if (a >= 1000) return Math.round(n).toLocaleString("en-US");
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toPrecision(2);
}

/** Render one scenario's measurements as a compact table (case, metric, value, unit, baseline, ratio, target, met). */
export function renderTable(ms: readonly Measurement[]): string {
  const t = new Table({
    head: ["case", "metric", "value", "unit", "baseline", "ratio", "target", "met"],
    style: { head: [], border: [], compact: true },
  });
  for (const m of ms) {
    t.push([
      m.case,
      m.metric,
      fmt(m.value),
      m.unit,
      m.baseline ? `${fmt(m.baseline.value)} (${m.baseline.name})` : "",
      m.ratio === undefined ? "" : fmt(m.ratio),
      m.target ?? "",
      m.meets === undefined ? "" : m.meets ? "yes" : "NO",
    ]);
  }
  return t.toString();
}

/** The JSON document a run writes. */
export interface RunReport {
  startedAt: string;
  quick: boolean;
  machine: MachineInfo;
  scenarios: string[];
  /** Scenarios that failed to run, with the error. */
  failures: { scenario: string; error: string }[];
  measurements: Measurement[];
}

/** Write `report` to `file` (creating its directory). */
export function writeReport(file: string, report: RunReport): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
