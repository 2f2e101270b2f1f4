/**
 * A bench JSON report (see ./report.ts) as Markdown, as recorded in bench/README.md: one report as
 * a table per scenario ({@link renderReport}), or two reports side by side as a before/after table
 * of every figure that has a target ({@link renderCompare}). Used by bench/to-markdown.ts.
 */
import fs from "node:fs";
import { fmt, type Measurement, type RunReport } from "./report.js";

/**
 * Parse and shape-check a report's JSON text (startedAt, machine.commit, scenarios, failures,
 * measurements must be there; the measurements themselves are trusted).
 * @throws Error when the text is not JSON or not shaped like a report.
 */
export function parseReport(text: string): RunReport {
  const r = JSON.parse(text) as Partial<RunReport> | null;
  const ok =
    r !== null &&
    typeof r === "object" &&
    typeof r.startedAt === "string" &&
    Array.isArray(r.scenarios) &&
    Array.isArray(r.failures) &&
    Array.isArray(r.measurements) &&
    typeof r.machine === "object" &&
    r.machine !== null &&
    typeof r.machine.commit === "string";
  if (!ok) throw new Error("not a bench report (startedAt, machine, scenarios, failures, measurements)");
  return r as RunReport;
}

/**
 * Read and check a report file.
 * @throws Error when the file cannot be read or is not a report (see {@link parseReport}).
 */
export function readReport(file: string): RunReport {
  return parseReport(fs.readFileSync(file, "utf8"));
}

/** A table row: cells joined by ` | `, with `|` inside a cell escaped. */
function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
}

function met(m: Measurement): string {
  return m.meets === undefined ? "" : m.meets ? "yes" : "**no**";
}

function baselineCell(m: Measurement): string {
  return m.baseline ? `${fmt(m.baseline.value)} (${m.baseline.name})` : "";
}

function machineLine(r: RunReport): string {
  const m = r.machine;
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, ${m.os}, Node ${m.node}`;
}

/**
 * One report as Markdown: a line naming the run (date, commit, machine), then per scenario in run
 * order a `### name` heading, its failure if it failed, and the table
 * `| case | metric | value | baseline | ratio | target | met |`.
 */
export function renderReport(report: RunReport): string {
  const out: string[] = [
    `Run of ${report.startedAt.slice(0, 10)} at commit \`${report.machine.commit}\`${report.quick ? " (quick)" : ""}: ${machineLine(report)}.`,
    "",
  ];
  for (const name of report.scenarios) {
    const rows = report.measurements.filter((x) => x.scenario === name);
    out.push(`### ${name}`, "");
    const failed = report.failures.find((f) => f.scenario === name);
    if (failed) out.push(`Failed: ${failed.error.split("\n")[0] ?? ""}`, "");
    if (rows.length === 0) continue;
    out.push("| case | metric | value | baseline | ratio | target | met |", "|---|---|---|---|---|---|---|");
    for (const m of rows) {
      out.push(
        tableRow([
          m.case,
          m.metric,
          `${fmt(m.value)} ${m.unit}`,
          baselineCell(m),
          m.ratio === undefined ? "" : fmt(m.ratio),
          m.target ?? "",
          met(m),
        ]),
      );
    }
    out.push("");
  }
  return `${out.join("\n")}\n`;
}

/**
 * Where a report without a `realistic` scenario has the same load: `fanout`'s 100 agentEvents
 * subscribers at 1k events/s from 100 agents (a 10 s window instead of 30 s). A `realistic` row
 * missing from the "before" report is looked up there, same metric.
 */
export const REALISTIC_FALLBACK = { scenario: "fanout", case: "100 subs, 1k ev/s" } as const;

const key = (m: Pick<Measurement, "scenario" | "case" | "metric">): string =>
  `${m.scenario}\u0000${m.case}\u0000${m.metric}`;

/** A figure's cell: value and unit, and the ratio to its own run's baseline when there is one. */
function valueCell(m: Measurement): string {
  return `${fmt(m.value)} ${m.unit}${m.ratio === undefined ? "" : ` (${fmt(m.ratio)} ×)`}`;
}

/** The cell for a figure a report does not have: why, as far as the report says. */
function missingCell(r: RunReport, scenario: string): string {
  if (r.failures.some((f) => f.scenario === scenario)) return `not measured (\`${scenario}\` failed)`;
  if (!r.scenarios.includes(scenario)) return `not run`;
  return "—";
}

/**
 * Two reports as one Markdown before/after table, `| figure | before | after | baseline (after's run)
 * | target | met |`, with a row for every figure that has a target in either report (after's order
 * first, then figures only "before" has). Figures are matched by scenario, case and metric; a cell
 * shows value, unit and the ratio to that run's own baseline. Target and met come from "after"
 * (target from "before" when "after" lacks the figure). A `realistic` figure missing from "before"
 * is taken from {@link REALISTIC_FALLBACK} and marked †. A figure a report lacks reads "not run",
 * "not measured (`x` failed)" or "—". Notes below the table name both runs, say when one was a
 * quick run or ran on another machine, and list each run's failures (first line of the error).
 */
export function renderCompare(before: RunReport, after: RunReport): string {
  const beforeBy = new Map(before.measurements.map((m) => [key(m), m]));
  const afterBy = new Map(after.measurements.map((m) => [key(m), m]));
  const rows: { key: string; before?: Measurement; after?: Measurement }[] = [];
  const seen = new Set<string>();
  for (const m of [...after.measurements, ...before.measurements]) {
    const k = key(m);
    if (seen.has(k) || m.target === undefined) continue;
    seen.add(k);
    rows.push({ key: k, before: beforeBy.get(k), after: afterBy.get(k) });
  }
  const beforeHasRealistic = before.measurements.some((m) => m.scenario === "realistic");
  let usedFallback = false;
  const lines: string[] = [
    `Before: \`${before.machine.commit}\` (${before.startedAt.slice(0, 10)}); after: \`${after.machine.commit}\` (${after.startedAt.slice(0, 10)}).`,
    "",
    "| figure | before | after | baseline (after's run) | target | met |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const ref = (r.after ?? r.before)!;
    let beforeCell: string;
    if (r.before) beforeCell = valueCell(r.before);
    else if (ref.scenario === "realistic" && !beforeHasRealistic) {
      const alt = beforeBy.get(key({ ...REALISTIC_FALLBACK, metric: ref.metric }));
      beforeCell = `${alt ? valueCell(alt) : missingCell(before, REALISTIC_FALLBACK.scenario)} †`;
      usedFallback = true;
    } else beforeCell = missingCell(before, ref.scenario);
    lines.push(
      tableRow([
        `\`${ref.scenario}\` ${ref.case}: ${ref.metric}`,
        beforeCell,
        r.after ? valueCell(r.after) : missingCell(after, ref.scenario),
        r.after ? baselineCell(r.after) : "",
        r.after?.target ?? r.before?.target ?? "",
        r.after ? met(r.after) : "—",
      ]),
    );
  }
  lines.push("");
  if (usedFallback) {
    lines.push(
      `† The "before" run has no \`realistic\` scenario: its figure is \`${REALISTIC_FALLBACK.scenario}\`'s ` +
        `"${REALISTIC_FALLBACK.case}" case, the same load (100 agents × 10 events/s, 100 \`agentEvents\` ` +
        "subscribers) over a 10 s window instead of 30 s.",
      "",
    );
  }
  for (const [name, r] of [
    ["before", before],
    ["after", after],
  ] as const) {
    if (r.quick)
      lines.push(`The ${name} run was a quick run (small sizes): its figures are not comparable.`, "");
  }
  if (machineLine(before) !== machineLine(after)) {
    lines.push(`Machines differ: before ${machineLine(before)}; after ${machineLine(after)}.`, "");
  } else lines.push(`Both runs: ${machineLine(after)}.`, "");
  for (const [name, r] of [
    ["before", before],
    ["after", after],
  ] as const) {
    for (const f of r.failures) {
      lines.push(`- ${name}: \`${f.scenario}\` failed: ${f.error.split("\n")[0] ?? ""}`);
    }
  }
  if (before.failures.length + after.failures.length > 0) lines.push("");
  return `${lines.join("\n")}`;
}
