/**
 * `npx tsx bench/to-markdown.ts <report.json>` — prints a JSON report written by `npm run bench`
 * as a Markdown section (machine line and one table per scenario), as recorded in bench/README.md.
 * Exit 2 when the file is missing or is not a report.
 */
import fs from "node:fs";
import { fmt, type Measurement, type RunReport } from "./lib/report.js";

function row(m: Measurement): string {
  const cells = [
    m.case,
    m.metric,
    `${fmt(m.value)} ${m.unit}`,
    m.baseline ? `${fmt(m.baseline.value)} (${m.baseline.name})` : "",
    m.ratio === undefined ? "" : fmt(m.ratio),
    m.target ?? "",
    m.meets === undefined ? "" : m.meets ? "yes" : "**no**",
  ];
  return `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
}

function main(file: string | undefined): number {
  if (file === undefined) {
    process.stderr.write("usage: tsx bench/to-markdown.ts <report.json>\n");
    return 2;
  }
  let report: RunReport;
  try {
    report = JSON.parse(fs.readFileSync(file, "utf8")) as RunReport;
    const r = report as Partial<RunReport> | null;
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
  } catch (err) {
    process.stderr.write(`to-markdown: ${file}: ${(err as Error).message}\n`);
    return 2;
  }
  const m = report.machine;
  const out: string[] = [
    `Run of ${report.startedAt.slice(0, 10)} at commit \`${m.commit}\`${report.quick ? " (quick)" : ""}: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, ${m.os}, Node ${m.node}.`,
    "",
  ];
  for (const name of report.scenarios) {
    const rows = report.measurements.filter((x) => x.scenario === name);
    out.push(`### ${name}`, "");
    const failed = report.failures.find((f) => f.scenario === name);
    if (failed) out.push(`Failed: ${failed.error.split("\n")[0] ?? ""}`, "");
    if (rows.length === 0) continue;
    out.push("| case | metric | value | baseline | ratio | target | met |", "|---|---|---|---|---|---|---|");
    out.push(...rows.map(row), "");
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

process.exit(main(process.argv[2]));
