/**
 * `npm run bench [-- <scenario>...] [--quick] [--json <file>]` — runs the benchmark scenarios
 * (all by default, in the order listed by `--list`), prints a table of figures beside their
 * baselines and targets, and writes the run as JSON (default `bench/results/latest.json`).
 * Exit code: 0 when every scenario ran (targets do not gate), 1 when one failed to run, 2 for
 * bad arguments. See bench/README.md.
 */
import path from "node:path";
import { Command } from "commander";
import {
  machineInfo,
  renderTable,
  writeReport,
  type Measurement,
  type RunContext,
  type RunReport,
  type Scenario,
} from "./lib/report.js";
import { REPO, stopAll } from "./lib/procs.js";

/** Every scenario, loaded on demand so one can run without loading the others. */
const SCENARIOS: Record<string, () => Promise<Scenario>> = {
  ingest: async () => (await import("./scenarios/ingest.js")).scenario,
  fanout: async () => (await import("./scenarios/fanout.js")).scenario,
  replay: async () => (await import("./scenarios/replay.js")).scenario,
  "slow-consumer": async () => (await import("./scenarios/slow-consumer.js")).scenario,
  "poll-scale": async () => (await import("./scenarios/poll-scale.js")).scenario,
  footprint: async () => (await import("./scenarios/footprint.js")).scenario,
};

async function main(argv: string[]): Promise<number> {
  const program = new Command("bench")
    .description(
      "Prospero benchmarks: throughput, latency, memory and scale, as ratios to same-run baselines",
    )
    .argument("[scenario...]", `scenarios to run (default all): ${Object.keys(SCENARIOS).join(", ")}`)
    .option("--quick", "small sizes: a smoke run of the same code paths (figures not comparable)", false)
    .option("--json <file>", "where to write the JSON report", path.join(REPO, "bench/results/latest.json"))
    .option("--list", "list the scenarios and exit", false)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse(argv);
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    return code === 0 ? 0 : 2;
  }
  const opts = program.opts<{ quick: boolean; json: string; list: boolean }>();
  const names = program.args.length ? program.args : Object.keys(SCENARIOS);
  for (const n of names) {
    if (!(n in SCENARIOS)) {
      process.stderr.write(`bench: unknown scenario "${n}" (known: ${Object.keys(SCENARIOS).join(", ")})\n`);
      return 2;
    }
  }
  if (opts.list) {
    for (const n of Object.keys(SCENARIOS)) {
      const s = await SCENARIOS[n]!();
      process.stdout.write(`${n.padEnd(14)} ${s.title}\n`);
    }
    return 0;
  }
  const report: RunReport = {
    startedAt: new Date().toISOString(),
    quick: opts.quick,
    machine: machineInfo(),
    scenarios: names,
    failures: [],
    measurements: [],
  };
  const m = report.machine;
  process.stderr.write(
    `bench: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}, commit ${m.commit}${opts.quick ? " (quick)" : ""}\n`,
  );
  for (const name of names) {
    const scenario = await SCENARIOS[name]!();
    const t0 = Date.now();
    const ctx: RunContext = {
      quick: opts.quick,
      log: (msg) => process.stderr.write(`[${name} +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`),
    };
    ctx.log(`start: ${scenario.title}`);
    let got: Measurement[] = [];
    try {
      got = await scenario.run(ctx);
    } catch (err) {
      const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
      report.failures.push({ scenario: name, error: msg });
      ctx.log(`FAILED: ${msg}`);
    } finally {
      await stopAll();
    }
    report.measurements.push(...got);
    writeReport(opts.json, report); // after each scenario: a long run that dies keeps what it measured
    if (got.length) process.stdout.write(`${renderTable(got)}\n`);
  }
  if (names.length > 1 && report.measurements.length) {
    process.stdout.write(`\nAll results\n${renderTable(report.measurements)}\n`);
  }
  process.stderr.write(`bench: report written to ${path.relative(process.cwd(), opts.json) || opts.json}\n`);
  return report.failures.length ? 1 : 0;
}

main(process.argv).then(
  (code) => process.exit(code),
  async (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await stopAll();
    process.exit(1);
  },
);
