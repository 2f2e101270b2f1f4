// Prints the plain "N passed, N failed[, N skipped]" line CI reads, from vitest's JSON report.
// Exits 1 when the report is missing or unreadable (then counts as one failure).
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? ".vitest-report.json";
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (err) {
  console.log(`no test report at ${file}: ${err.message}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
