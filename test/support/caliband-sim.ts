// caliband-sim: a standalone process running the FakeCaliband double with caliband's own command
// line (docs/caliband-protocol.md §5.1), for autostart tests and demo mode (`--caliband-bin`).
// Runs until a `shutdown` request or SIGTERM/SIGINT, then exits 0; bad flags exit 2. Start it through
// test/support/bin/caliband-sim (node + tsx).
import { FakeCaliband, type FakeCalibandOptions } from "./fake-caliband.js";
import { parseSimArgs, USAGE } from "./sim-args.js";

async function main(): Promise<void> {
  // Signal handlers first, so a SIGTERM that races the bind still ends in a clean exit 0.
  let fake: FakeCaliband | undefined;
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    if (signals > 1) process.exit(0);
    if (fake !== undefined) void fake.shutdown();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  let opts: FakeCalibandOptions | "help";
  try {
    opts = parseSimArgs(process.argv.slice(2), process.env);
  } catch (e) {
    process.stderr.write(`caliband: ${(e as Error).message}\n`);
    process.exit(2);
  }
  if (opts === "help") {
    process.stderr.write(`${USAGE}\n`);
    process.exit(0);
  }
  try {
    fake = await FakeCaliband.start(opts);
  } catch (e) {
    process.stderr.write(`caliband: ${(e as Error).message}\n`);
    process.exit(1);
  }
  if (signals > 0) await fake.shutdown(); // signalled while binding
  await fake.whenShutdown();
  // A graceful stop (shutdown request, SIGTERM, SIGINT) takes the workers with it by default, so a
  // stopped demo leaves nothing behind. With CALIBAN_SIM_KEEP_ORPHANS=1 they live on like caliband's
  // orphans (§1.7 shutdown): worker processes keep running after this process exits; in-process
  // workers keep this process (not the control socket) alive until they finished. A SIGKILLed sim
  // always leaves its worker processes running, as a killed caliband does.
  const keep = process.env.CALIBAN_SIM_KEEP_ORPHANS === "1";
  if (keep) await fake.drainWorkers({ inProcessOnly: true });
  await fake.close({ keepWorkerProcesses: keep });
  process.exit(0);
}

void main();
