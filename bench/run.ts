/**
 * `npm run bench [-- <scenario>...] [--quick] [--json <file>]` — runs the benchmark scenarios
 * (all by default, in the order listed by `--list`), prints a table of figures beside their
 * baselines and targets, and writes the run as JSON (default `bench/results/latest.json`).
 * Exit code: 0 when every scenario ran (targets do not gate), 1 when one failed to run, 2 for
 * bad arguments (an unknown scenario, a report path that cannot be written — checked before
 * anything runs), 130/143 when interrupted (the report then records what was measured and where
 * the run stopped). See bench/README.md.
 */
import fs from "node:fs";
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
import { REPO, setInterruptHandler, stopAll } from "./lib/procs.js";

/** Every scenario, loaded on demand so one can run without loading the others. */
const SCENARIOS: Record<string, () => Promise<Scenario>> = {
  realistic: async () => (await import("./scenarios/realistic.js")).scenario,
  ingest: async () => (await import("./scenarios/ingest.js")).scenario,
  "ingest-pg": async () => (await import("./scenarios/ingest-pg.js")).scenario,
  fanout: async () => (await import("./scenarios/fanout.js")).scenario,
  replay: async () => (await import("./scenarios/replay.js")).scenario,
  "slow-consumer": async () => (await import("./scenarios/slow-consumer.js")).scenario,
  "poll-scale": async () => (await import("./scenarios/poll-scale.js")).scenario,
  footprint: async () => (await import("./scenarios/footprint.js")).scenario,
  "queue-scale": async () => (await import("./scenarios/queue-scale.js")).scenario,
};

/**
 * Why `file` cannot be written, or null when it can: its directory is created one level at a
 * time below the nearest existing ancestor (Node 20's recursive mkdir never returns for some
 * paths, e.g. under /proc) and a probe is written and removed.
 */
function checkWritable(file: string): string | null {
  const abs = path.resolve(file);
  const missing: string[] = [];
  let dir = path.dirname(abs);
  while (!fs.existsSync(dir)) {
    missing.unshift(dir);
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  try {
    if (!fs.statSync(dir).isDirectory()) return `${dir} is not a directory`;
    for (const d of missing) fs.mkdirSync(d);
    if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) return "it is a directory";
    const probe = `${abs}.probe-${process.pid}`;
    fs.writeFileSync(probe, "");
    fs.rmSync(probe);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

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
  const problem = checkWritable(opts.json);
  if (problem !== null) {
    process.stderr.write(`bench: cannot write the report to ${opts.json}: ${problem}\n`);
    return 2;
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
  if (opts.quick) process.stdout.write("Quick run: small sizes, figures not comparable with full runs.\n");
  let current = "";
  setInterruptHandler((signal) => {
    // Keep what was measured, and say where the run stopped.
    report.failures.push({ scenario: current, error: `interrupted by ${signal}` });
    writeReport(opts.json, report);
    process.stderr.write(`bench: interrupted by ${signal}; report written to ${opts.json}\n`);
  });
  for (const name of names) {
    current = name;
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
    if (got.length) process.stdout.write(`\n${name}\n${renderTable(got)}\n`);
    writeReport(opts.json, report); // after each scenario: a long run that dies keeps what it measured
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
