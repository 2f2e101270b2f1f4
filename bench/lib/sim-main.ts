/**
 * The benchmark simulator process: one caliband test double (FakeCaliband) per workspace root, all
 * in this process and off the gateway's CPU, each on the control socket the gateway derives from
 * CALIBAN_DAEMON_RUNTIME_DIR (caliband-protocol.md §1.1). Workers run {@link benchScript}.
 *
 * Usage: node --import tsx bench/lib/sim-main.ts <config.json>  (see {@link SimConfig}).
 * Prints one line `{"ready":true,"daemons":N}` on stdout once every socket is bound; SIGTERM shuts
 * every daemon down and exits 0. Started by {@link startSim} in ./sim.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { FakeCaliband } from "../../test/support/fake-caliband.js";
import { benchScript } from "./bench-scripts.js";

/** What the simulator runs (JSON file given as the only argument). */
export interface SimConfig {
  /** CALIBAN_DAEMON_RUNTIME_DIR shared with the gateway (short: socket paths ≤ 107 bytes). */
  runtimeDir: string;
  /** Directory under which each daemon keeps its session store (`<dir>/<i>`). */
  dataBase: string;
  /** Absolute, canonical workspace roots; one daemon each. */
  roots: string[];
  /** Pause between frames of the double's default script, ms (bench scripts ignore it). */
  frameDelayMs: number;
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write("usage: sim-main <config.json>\n");
    process.exit(2);
  }
  const cfg = JSON.parse(fs.readFileSync(file, "utf8")) as SimConfig;
  const env = {
    ...process.env,
    CALIBAN_DAEMON_RUNTIME_DIR: cfg.runtimeDir,
    CALIBAN_AGENT_IDLE_TIMEOUT_SECS: "0",
  };
  const daemons: FakeCaliband[] = [];
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await Promise.allSettled(daemons.map((d) => d.close()));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  // Bind in slices so hundreds of daemons do not open all their files at once.
  for (let i = 0; i < cfg.roots.length; i += 50) {
    const slice = cfg.roots.slice(i, i + 50);
    const started = await Promise.all(
      slice.map((root, j) =>
        FakeCaliband.start({
          workspaceRoot: root,
          socketPath: controlSocketPath(root, env),
          dataBase: path.join(cfg.dataBase, String(i + j)),
          env,
          frameDelayMs: cfg.frameDelayMs,
          script: benchScript,
        }),
      ),
    );
    daemons.push(...started);
    if (stopping) return;
  }
  process.stdout.write(`${JSON.stringify({ ready: true, daemons: daemons.length })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench simulator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
