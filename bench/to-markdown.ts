/**
 * `npx tsx bench/to-markdown.ts <report.json>` — prints a JSON report written by `npm run bench`
 * as a Markdown section (machine line and one table per scenario), as recorded in bench/README.md.
 * `npx tsx bench/to-markdown.ts --compare <before.json> <after.json>` — prints the two as one
 * before/after table of every figure with a target (`| figure | before | after | baseline (after's
 * run) | target | met |`, see `renderCompare` in ./lib/markdown.ts).
 * Exit 2 for other arguments, or when a file is missing or is not a report.
 */
import { readReport, renderCompare, renderReport } from "./lib/markdown.js";
import type { RunReport } from "./lib/report.js";

const USAGE =
  "usage: tsx bench/to-markdown.ts <report.json>\n       tsx bench/to-markdown.ts --compare <before.json> <after.json>\n";

function load(file: string): RunReport | null {
  try {
    return readReport(file);
  } catch (err) {
    process.stderr.write(`to-markdown: ${file}: ${(err as Error).message}\n`);
    return null;
  }
}

function main(args: string[]): number {
  if (args[0] === "--compare") {
    if (args.length !== 3) {
      process.stderr.write(USAGE);
      return 2;
    }
    const before = load(args[1]!);
    const after = load(args[2]!);
    if (before === null || after === null) return 2;
    process.stdout.write(renderCompare(before, after));
    return 0;
  }
  if (args.length !== 1 || args[0]!.startsWith("--")) {
    process.stderr.write(USAGE);
    return 2;
  }
  const report = load(args[0]!);
  if (report === null) return 2;
  process.stdout.write(renderReport(report));
  return 0;
}

process.exit(main(process.argv.slice(2)));
