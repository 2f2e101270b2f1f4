// Prints the plain "N passed, N failed[, N skipped]" line CI reads, from vitest's JSON reports: the
// main suite's and, when given, more (the consumer test's), counted together.
// Exits 1 when a report is missing or unreadable (then it counts as one failure), or when one of
// them passed no test.
import { readFileSync } from "node:fs";

const files = process.argv.length > 2 ? process.argv.slice(2) : [".vitest-report.json"];
let passed = 0;
let failed = 0;
let skipped = 0;
let bad = false;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    console.log(`no test report at ${file}: ${err.message}`);
    failed += 1;
    bad = true;
    continue;
  }
  passed += report.numPassedTests ?? 0;
  if (!report.numPassedTests) bad = true;
  const reported = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  // Vitest marks a run with unhandled errors (outside any test) unsuccessful: one failure more.
  failed += reported + (report.success === false && reported === 0 ? 1 : 0);
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(bad || failed > 0 ? 1 : 0);
