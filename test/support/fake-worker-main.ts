// A fake `caliban __agent-worker` as a process of its own (docs/caliband-protocol.md §5.4): what
// FakeCaliband launches with `workerProcesses` (the caliband-sim does by default), so a worker
// outlives its daemon — a SIGKILLed daemon included — and keeps streaming and writing its
// transcript, as caliban's workers do (§1.7 shutdown, §5.7). Command line as the daemon gives it:
//   fake-worker-main.ts __agent-worker --manifest <session_dir>/manifest.json --socket <agent sock>
//                       --control-socket <control sock>
// Everything else comes from the manifest (the spec, §5.4) and the daemon's environment:
// CALIBAN_AGENT_IDLE_TIMEOUT_SECS (§3.5), and the double's own knobs CALIBAN_SIM_FRAME_DELAY_MS,
// CALIBAN_SIM_BIND_DELAY_MS, CALIBAN_SIM_IDLE_TIMEOUT_MS (ms, wins over the secs variable).
// The script is the default token-driven one (fake-scripts.ts). No SIGTERM handler: `kill` ends it
// at once, without RunEnd (§3.5). Exits with the script's exit code.
import * as fs from "node:fs";
import { parseArgs } from "node:util";
import { sendControlLine } from "./control-conn.js";
import { defaultScript } from "./fake-scripts.js";
import { FakeWorker } from "./fake-worker.js";
import type { AgentRecordJson } from "./wire-format.js";

/** How long a report waits for the daemon's reply, ms (caliban's client timeout). */
const REPORT_TIMEOUT_MS = 5_000;

function msFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

function idleTimeoutMs(): number {
  const ms = process.env.CALIBAN_SIM_IDLE_TIMEOUT_MS;
  if (ms !== undefined && /^\d+$/.test(ms)) return Number(ms);
  const raw = process.env.CALIBAN_AGENT_IDLE_TIMEOUT_SECS?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) return 300_000;
  return Number(raw) * 1000;
}

function main(): void {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    strict: true,
    options: {
      manifest: { type: "string" },
      socket: { type: "string" },
      "control-socket": { type: "string" },
    },
  });
  const manifestPath = values.manifest;
  const socket = values.socket;
  if (positionals[0] !== "__agent-worker" || manifestPath === undefined || socket === undefined) {
    process.stderr.write(
      "fake worker: usage: __agent-worker --manifest <m> --socket <s> [--control-socket <c>]\n",
    );
    process.exit(64);
  }
  let rec: AgentRecordJson;
  try {
    rec = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as AgentRecordJson;
  } catch (e) {
    process.stderr.write(`fake worker: cannot read manifest ${manifestPath}: ${(e as Error).message}\n`);
    process.exit(70);
  }
  const control = values["control-socket"];
  const reports = new Set<() => void>();
  const worker = new FakeWorker({
    id: rec.id,
    spec: rec.spec,
    sessionDir: rec.session_dir,
    workingDir: rec.working_dir,
    endpoint: rec.endpoint,
    listen: { kind: "unix", path: socket },
    argv: ["caliban", ...process.argv.slice(2)],
    pid: process.pid,
    script: defaultScript(rec.spec, rec.id),
    bindDelayMs: msFromEnv("CALIBAN_SIM_BIND_DELAY_MS", 30),
    frameDelayMs: msFromEnv("CALIBAN_SIM_FRAME_DELAY_MS", 5),
    idleTimeoutMs: idleTimeoutMs(),
    reportStatus: async (status) => {
      // Best effort over the control socket path: whichever daemon listens there now gets it (a
      // restarted daemon included, §5.7); none → lost, like the real worker's report.
      if (control === undefined) return;
      await sendControlLine(
        { kind: "unix", path: control },
        JSON.stringify({ kind: "report_status", id: rec.id, status }),
        REPORT_TIMEOUT_MS,
        (_s, done) => reports.add(done),
      );
    },
    onExit: (code) => {
      // Let the last bytes reach readers (connections end gracefully), then exit with the code.
      process.exitCode = code ?? 1;
      for (const done of reports) done();
      setTimeout(() => process.exit(code ?? 1), 2_000).unref();
    },
  });
  void worker.exited;
}

main();
