// `npm test` of the consumer (see README.md): start a real demo gateway from this checkout, generate
// Apollo's possibleTypes from its live introspection, run the vitest suite against it (the first
// test file generates the operation types from the same introspection and compiles everything
// with `tsc --strict`), stop the gateway, print a summary. Exits 1 on any failure.
// Environment: CONSUMER_REPORT = where vitest's JSON report goes (default .vitest-report.json here).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { generate } from "@graphql-codegen/cli";
import { CONSUMER_DIR, GENERATED_DIR, possibleTypesConfig } from "./codegen.mjs";
import { startGateway } from "./lib/gateway.mjs";

const report = path.resolve(CONSUMER_DIR, process.env["CONSUMER_REPORT"] ?? ".vitest-report.json");
fs.rmSync(report, { force: true });
// Nothing left over from an earlier run: everything in it comes from this run's gateway.
fs.rmSync(path.join(CONSUMER_DIR, GENERATED_DIR), { recursive: true, force: true });
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

/** @param {string} msg */
const say = (msg) => console.log(`consumer: ${msg}`);

say("starting prospero serve --demo");
/** @type {import("./lib/gateway.mjs").Gateway} */
let gateway;
try {
  gateway = await startGateway(["--demo"]);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  console.log("consumer: 0 passed, 1 failed");
  process.exit(1);
}
say(`gateway ${gateway.url} (pid ${gateway.pid}) ready after ${elapsed()}`);

let status = 0;
const onSignal = () => {
  void gateway.stop().then(() => process.exit(130));
};
process.once("SIGINT", onSignal);
process.once("SIGTERM", onSignal);
try {
  try {
    await generate({ ...possibleTypesConfig(gateway.url, gateway.token), cwd: CONSUMER_DIR }, true);
    say("generated/possible-types.ts from the live introspection");
  } catch (err) {
    // The suite still runs: the tests that need possibleTypes fail on their own, visibly.
    console.error(
      `consumer: possibleTypes could not be generated: ${err instanceof Error ? err.message : err}`,
    );
    status = 1;
  }
  const vitest = spawn(
    process.execPath,
    [
      path.join(CONSUMER_DIR, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    {
      cwd: CONSUMER_DIR,
      stdio: "inherit",
      env: { ...process.env, CONSUMER_GATEWAY_URL: gateway.url, CONSUMER_TOKEN: gateway.token },
    },
  );
  const code = await new Promise((resolve) => vitest.on("exit", (c, s) => resolve(c ?? s)));
  if (code !== 0) status = 1;
} finally {
  const exit = await gateway.stop();
  if (exit !== 0) {
    console.error(`consumer: the gateway exited with ${exit} on SIGTERM (expected 0)`);
    console.error(gateway.stderr().split("\n").slice(-20).join("\n"));
    status = 1;
  }
}

/** @type {{ success?: boolean, numPassedTests?: number, numFailedTests?: number, numRuntimeErrorTestSuites?: number, numPendingTests?: number, testResults?: { name: string, status?: string, message?: string, assertionResults?: { status: string, fullName: string }[] }[] } | null} */
let json = null;
try {
  json = JSON.parse(fs.readFileSync(report, "utf8"));
} catch {
  json = null;
}
if (json === null) {
  say(`no vitest report at ${report}`);
  console.log("consumer: 0 passed, 1 failed");
  process.exit(1);
}
const failedNames = (json.testResults ?? []).flatMap((f) =>
  f.status === "failed" && !f.assertionResults?.length
    ? [`${path.relative(CONSUMER_DIR, f.name)} did not run: ${f.message ?? "(no message)"}`]
    : (f.assertionResults ?? [])
        .filter((a) => a.status === "failed")
        .map((a) => `${path.relative(CONSUMER_DIR, f.name)} > ${a.fullName}`),
);
if (failedNames.length) {
  say("failed:");
  for (const n of failedNames) console.log(`  - ${n}`);
}
const passed = json.numPassedTests ?? 0;
// A test file that could not even load counts as one failure (as in scripts/ci-summary.mjs).
// So does a run vitest marks unsuccessful for an unhandled error outside any test.
const reported = (json.numFailedTests ?? 0) + (json.numRuntimeErrorTestSuites ?? 0);
const failed = reported + (json.success === false && reported === 0 ? 1 : 0);
if (failed > 0 || passed === 0) status = 1;
say(`finished in ${elapsed()}; report ${path.relative(process.cwd(), report)}`);
console.log(
  `consumer: ${passed} passed, ${failed} failed${json.numPendingTests ? `, ${json.numPendingTests} skipped` : ""}`,
);
process.exit(status);
