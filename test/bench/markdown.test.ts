/**
 * bench/to-markdown.ts and its renderers (bench/lib/markdown.ts): one report as tables, and two
 * reports as the before/after table of every figure with a target. The "before" fixture is a real
 * full run of main at 2a643fc (test/fixtures/bench/before-2a643fc.json): no `realistic` scenario,
 * `fanout` and `footprint` failed, the ingest RSS figure without a target.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseReport, readReport, renderCompare, renderReport } from "../../bench/lib/markdown.js";
import type { Measurement, RunReport } from "../../bench/lib/report.js";
import { tmpDir } from "../helpers/tmp.js";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../..");
const BEFORE = path.join(REPO, "test/fixtures/bench/before-2a643fc.json");
const toMarkdown = (args: string[]) =>
  run(process.execPath, ["--import", "tsx", "bench/to-markdown.ts", ...args], { cwd: REPO, timeout: 60_000 });

const machine = {
  cpu: "AMD EPYC",
  cores: 2,
  memoryGiB: 24,
  os: "Linux 6.18.44-fc-v669 x64",
  node: "v20.20.2",
  commit: "abc1234",
};

function report(measurements: Measurement[], extra: Partial<RunReport> = {}): RunReport {
  return {
    startedAt: "2026-12-02T06:00:00.000Z",
    quick: false,
    machine,
    scenarios: [...new Set(measurements.map((m) => m.scenario))],
    failures: [],
    measurements,
    ...extra,
  };
}

const fanout100 = (metric: string, value: number, ratio: number): Measurement => ({
  scenario: "fanout",
  case: "100 subs, 1k ev/s",
  metric,
  value,
  unit: metric === "server CPU" ? "% core" : "ms",
  baseline: { name: "bare ws", value: value / ratio },
  ratio,
});

/** An "after" run shaped like today's bench: realistic first, ingest with its RSS target. */
const AFTER = report([
  {
    scenario: "realistic",
    case: "100 agents × 10 ev/s, 100 subs",
    metric: "latency p99",
    value: 8.5,
    unit: "ms",
    baseline: { name: "bare ws", value: 0.4 },
    ratio: 21.25,
    target: "p99 ≤ 10 ms",
    meets: true,
  },
  {
    scenario: "realistic",
    case: "100 agents × 10 ev/s, 100 subs",
    metric: "server CPU",
    value: 30,
    unit: "% core",
    baseline: { name: "bare ws", value: 6 },
    ratio: 5,
    target: "≤ 2 × bare ws",
    meets: false,
  },
  {
    scenario: "realistic",
    case: "100 agents × 10 ev/s, 100 subs",
    metric: "latency p50",
    value: 3,
    unit: "ms",
  },
  {
    scenario: "ingest",
    case: "1 agent",
    metric: "TurnEvents stored/s",
    value: 70_000,
    unit: "events/s",
    baseline: { name: "raw better-sqlite3", value: 130_000 },
    ratio: 70_000 / 130_000,
    target: "≥ 0.50 × raw inserts",
    meets: true,
  },
  {
    scenario: "ingest",
    case: "1 agent",
    metric: "gateway RSS max",
    value: 300,
    unit: "MiB",
    target: "≤ 400 MiB",
    meets: true,
  },
]);

/** The table's body rows, keyed by the figure cell. */
function rowsOf(md: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of md.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cells = line.slice(2, -2).split(" | ");
    out.set(cells[0]!, cells.slice(1));
  }
  return out;
}

describe("bench to-markdown", () => {
  it("renders one report as a table per scenario, with failures", () => {
    const before = readReport(BEFORE);
    const md = renderReport(before);
    expect(md.split("\n")[0]).toBe(
      "Run of 2026-12-02 at commit `2a643fc`: AMD EPYC, 2 cores, 24 GiB RAM, Linux 6.18.44-fc-v669 x64, Node v20.20.2.",
    );
    expect(md).toContain("### fanout\n\nFailed: Error: Unexpected server response: 503\n");
    expect(md).toContain(
      "| 1 agent | TurnEvents stored/s | 25,378 events/s | 132,609 (raw better-sqlite3) | 0.19 | ≥ 0.50 × raw inserts | **no** |",
    );
  });

  it("compares the real before run with an after run: every figure with a target, realistic from fanout's case", () => {
    const md = renderCompare(readReport(BEFORE), AFTER);
    expect(md).toContain("| figure | before | after | baseline (after's run) | target | met |");
    const rows = rowsOf(md);
    // after's order first, then figures only the before run has (its replay page target, say).
    expect([...rows.keys()].slice(0, 4)).toEqual([
      "`realistic` 100 agents × 10 ev/s, 100 subs: latency p99",
      "`realistic` 100 agents × 10 ev/s, 100 subs: server CPU",
      "`ingest` 1 agent: TurnEvents stored/s",
      "`ingest` 1 agent: gateway RSS max",
    ]);
    expect(rows.has("`realistic` 100 agents × 10 ev/s, 100 subs: latency p50")).toBe(false); // no target
    // The before run's fanout failed, so realistic's "before" says so, marked as the fallback.
    expect(rows.get("`realistic` 100 agents × 10 ev/s, 100 subs: latency p99")).toEqual([
      "not measured (`fanout` failed) †",
      "8.50 ms (21.3 ×)",
      "0.40 (bare ws)",
      "p99 ≤ 10 ms",
      "yes",
    ]);
    expect(rows.get("`realistic` 100 agents × 10 ev/s, 100 subs: server CPU")?.slice(3)).toEqual([
      "≤ 2 × bare ws",
      "**no**",
    ]);
    // A figure without a target before gets after's target; the before value is still shown.
    expect(rows.get("`ingest` 1 agent: gateway RSS max")).toEqual([
      "704 MiB",
      "300 MiB",
      "",
      "≤ 400 MiB",
      "yes",
    ]);
    expect(rows.get("`ingest` 1 agent: TurnEvents stored/s")?.slice(0, 2)).toEqual([
      "25,378 events/s (0.19 ×)",
      "70,000 events/s (0.54 ×)",
    ]);
    // Figures the after run lacks: shown with before's target, not judged; "not run" when the
    // after run left the scenario out, "—" when it ran the scenario without that case.
    expect(rows.get("`ingest` 10 agents: TurnEvents stored/s")).toEqual([
      "15,785 events/s (0.18 ×)",
      "—",
      "",
      "≥ 0.50 × raw inserts",
      "—",
    ]);
    expect(rows.get("`poll-scale` 500 workspaces × 20 agents: gateway CPU")).toEqual([
      "7.21 % core (1.69 ×)",
      "not run",
      "",
      "< 10 % of one core at 500 workspaces",
      "—",
    ]);
    expect(md).toContain('† The "before" run has no `realistic` scenario');
    expect(md).toContain("- before: `fanout` failed: Error: Unexpected server response: 503");
    expect(md).toContain("- before: `footprint` failed: Error: Unexpected server response: 503");
  });

  it("takes realistic's before figure from fanout's 100 subs / 1k ev/s case when the before run has it", () => {
    const before = report([fanout100("latency p99", 196, 500), fanout100("server CPU", 101, 15.3)], {
      machine: { ...machine, commit: "0000000" },
    });
    const rows = rowsOf(renderCompare(before, AFTER));
    expect(rows.get("`realistic` 100 agents × 10 ev/s, 100 subs: latency p99")?.[0]).toBe("196 ms (500 ×) †");
    expect(rows.get("`realistic` 100 agents × 10 ev/s, 100 subs: server CPU")?.[0]).toBe(
      "101 % core (15.3 ×) †",
    );
    // A before run that has realistic itself is compared figure to figure, with no fallback.
    const again = renderCompare(AFTER, AFTER);
    expect(again).not.toContain("†");
    expect(rowsOf(again).get("`realistic` 100 agents × 10 ev/s, 100 subs: latency p99")?.[0]).toBe(
      "8.50 ms (21.3 ×)",
    );
  });

  it("says when a run was quick or the machines differ", () => {
    const quick = { ...AFTER, quick: true, machine: { ...machine, cores: 4 } };
    const md = renderCompare(readReport(BEFORE), quick);
    expect(md).toContain("The after run was a quick run");
    expect(md).toContain("Machines differ:");
    expect(renderCompare(AFTER, AFTER)).toContain("Both runs: AMD EPYC, 2 cores");
  });

  it("refuses what is not a report", () => {
    expect(() => parseReport("{}")).toThrow(/not a bench report/);
    expect(() => parseReport("[1")).toThrow();
  });

  it("the command line: --compare prints the table, bad arguments and files exit 2", async () => {
    const dir = tmpDir();
    const after = path.join(dir, "after.json");
    fs.writeFileSync(after, JSON.stringify(AFTER));
    const ok = await toMarkdown(["--compare", BEFORE, after]);
    expect(ok.stdout).toContain("| figure | before | after | baseline (after's run) | target | met |");
    expect(ok.stdout).toContain("`realistic` 100 agents × 10 ev/s, 100 subs: latency p99");
    const single = await toMarkdown([after]);
    expect(single.stdout).toContain("### realistic");
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, "{}");
    for (const args of [["--compare", BEFORE], ["--compare", BEFORE, bad], [], ["--nope"]]) {
      const err = await toMarkdown(args).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      );
      expect(err?.code, args.join(" ")).toBe(2);
    }
  });
});
