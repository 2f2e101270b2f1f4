/**
 * Demo mode (`prospero serve --demo`): a living fleet with no Caliban installed. It creates a
 * temporary git workspace, points the gateway at the built-in caliband simulator (the test
 * double from test/support, run as a real daemon process on its own socket, autostarted through
 * the normal discovery path), registers the workspace and keeps a few scripted agents running.
 * Everything lives in one temp directory that is removed on shutdown. Without `--demo` the gateway
 * drives real calibands.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "./log.js";
import type { Fleet } from "./fleet/fleet.js";
import { isTerminal } from "./caliband/wire.js";
import type { LaunchQueue } from "./queue/queue.js";
import { NO_RETRY, type LaunchRequest } from "./queue/types.js";
import { StartupError } from "./errors.js";

/**
 * After this long the demo tells its interactive pair-programmer that no more input will come
 * (EndInput), ms: long enough to answer its question from the inbox (issue 15's walk-through),
 * bounded because caps count every live run, idle ones too. (caliband's own idle timeout does not
 * help: an attached client — Prospero always is — keeps an idle agent waiting, protocol §3.5.)
 */
export const DEMO_END_INPUT_AFTER_MS = 600_000;

/** Path of the caliband simulator executable shipped with the repository. */
export const SIMULATOR_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../test/support/bin/caliband-sim",
);

/** Pause between the simulator's scripted frames in demo mode, ms (so runs are visible). */
export const DEMO_FRAME_DELAY_MS = 120;

/** Interval between new demo agents, ms. */
export const DEMO_SPAWN_EVERY_MS = 20_000;

/** A prepared demo environment. */
export interface DemoEnvironment {
  /** Temp directory holding everything (removed by `cleanup`). */
  dir: string;
  /** The demo workspace root (a git checkout). */
  root: string;
  /** Data dir for the gateway's database. */
  dataDir: string;
  /** Environment for the gateway: runtime dir for the simulator's sockets, frame pacing. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

function git(cwd: string, args: string[]): void {
  execFileSync(
    "git",
    [
      "-c",
      "user.email=demo@prospero.invalid",
      "-c",
      "user.name=Prospero demo",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    {
      cwd,
      stdio: "ignore",
    },
  );
}

/**
 * Create the temp workspace (a git checkout with a README, a small source tree and OBSOLETE.txt —
 * the file the demo's editing runs delete).
 * @throws StartupError when git is not installed or the temp dir cannot be written.
 */
export function prepareDemo(baseEnv: NodeJS.ProcessEnv = process.env): DemoEnvironment {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-demo-"));
  const root = path.join(dir, "demo-repo");
  try {
    fs.mkdirSync(path.join(root, "src"), { recursive: true });
    fs.writeFileSync(
      path.join(root, "README.md"),
      "# demo-repo\n\nA scratch repository for the Prospero demo fleet.\n",
    );
    fs.writeFileSync(path.join(root, "src", "net.rs"), 'fn main() {\n    println!("flaky");\n}\n');
    // What the demo's editing runs (fake:edit) remove, so their diffs show a deletion too.
    fs.writeFileSync(path.join(root, "OBSOLETE.txt"), "This file is no longer needed.\n");
    git(root, ["-c", "init.defaultBranch=main", "init", "-q"]);
    git(root, ["add", "."]);
    git(root, ["commit", "-q", "-m", "demo"]);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new StartupError(`demo mode needs git to create its workspace: ${(err as Error).message}`);
  }
  if (!fs.existsSync(SIMULATOR_BIN)) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new StartupError(
      `demo mode needs the caliband simulator at ${SIMULATOR_BIN} (run from a full checkout)`,
    );
  }
  return {
    dir,
    root,
    dataDir: path.join(dir, "data"),
    env: {
      ...baseEnv,
      CALIBAN_DAEMON_RUNTIME_DIR: path.join(dir, "run"),
      CALIBAN_SIM_FRAME_DELAY_MS: String(DEMO_FRAME_DELAY_MS),
      // The simulators' session stores (stdout.ndjson etc.) live in the demo dir too, so stopping
      // the demo removes them (their default is a per-root dir under the OS temp dir).
      CALIBAN_SIM_DATA_BASE: path.join(dir, "sessions"),
    },
    cleanup: () => {
      try {
        fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      } catch (err) {
        process.stderr.write(
          `prospero: could not remove the demo directory ${dir}: ${(err as Error).message}\n`,
        );
      }
    },
  };
}

const SCRIPTED: { prompt: string; label: string; interactive?: boolean }[] = [
  { prompt: "Read README.md and summarize it.", label: "summarize-readme" },
  // An isolated run that really edits its worktree (the simulator's fake:edit): a note added,
  // README.md edited, OBSOLETE.txt removed — its diff outlives the worktree (change capture). It
  // takes 4 s over its summary, as a model would (capture's snapshot of its last edit gets done
  // before the worker exits and caliband removes the worktree).
  {
    prompt:
      "Tidy the docs: add a notes file, update the README and remove OBSOLETE.txt. fake:edit fake:hold=4000",
    label: "tidy-docs",
  },
  { prompt: "Hunt the flaky test in src/net.rs. fake:hold=45000", label: "flaky-hunter" },
  {
    prompt: "Say hi, then wait for my instructions. fake:ask",
    label: "pair-programmer",
    interactive: true,
  },
];

/**
 * Register the demo workspace and keep agents coming: the scripted four spawned at once (the
 * immediate path; tidy-docs edits files in its worktree), then a short review launch every {@link DEMO_SPAWN_EVERY_MS} through the launch
 * queue (so caps, positions and waiting reasons show up in `prospero queue` and the dashboard),
 * and two launches that show the queue's fault handling: one that times out, and one whose first
 * attempt fails with a transient provider error (529 overloaded) and is retried. The interactive
 * agent is told no more input will come after {@link DEMO_END_INPUT_AFTER_MS}. Returns a function
 * that stops enqueueing.
 */
export async function startDemoFleet(
  fleet: Fleet,
  queue: LaunchQueue,
  demo: DemoEnvironment,
  log: Logger,
): Promise<() => void> {
  await fleet.addWorkspace({ name: "demo", root: demo.root });
  const interactive: string[] = [];
  for (const s of SCRIPTED) {
    try {
      const { agent } = await fleet.lifecycle.spawn({
        workspace: "demo",
        prompt: s.prompt,
        label: s.label,
        interactive: s.interactive ?? false,
      });
      if (s.interactive) interactive.push(agent.id);
    } catch (err) {
      log.warn({ err }, "demo: could not spawn a scripted agent");
    }
  }
  const endInput = setTimeout(() => {
    for (const id of interactive) {
      const a = fleet.state.agent(id);
      if (!a || isTerminal(a.status)) continue;
      fleet.lifecycle
        .endInput(id)
        .catch((err: unknown) => log.debug({ err, agent: id }, "demo: could not end the input"));
    }
  }, DEMO_END_INPUT_AFTER_MS);
  endInput.unref();
  const launch = (prompt: string, label: string, over: Partial<LaunchRequest> = {}) =>
    queue
      .enqueue({
        spec: { workspace: "demo", prompt, label },
        dedupKey: null,
        priority: 50,
        notBeforeMs: null,
        timeoutMs: null,
        retry: NO_RETRY,
        scheduleId: null,
        createdBy: "demo",
        ...over,
      })
      .catch((err: unknown) => log.warn({ err }, "demo: could not enqueue"));
  await launch("Refactor the parser (this one runs too long). fake:hold=600000", "times-out", {
    timeoutMs: 30_000,
  });
  await launch("Update the changelog. fake:provider-error=529 fake:fail-first=1", "retried", {
    retry: { maxAttempts: 3, backoffMs: 5_000, maxBackoffMs: 60_000 },
  });
  let n = 0;
  const timer = setInterval(() => {
    n++;
    // Every other review also fixes what it found (fake:edit): changes to look at and apply, and
    // overlap warnings with tidy-docs (the same README.md and OBSOLETE.txt).
    if (n % 2 === 1)
      void launch(`Review change #${n} and fix what you find. fake:edit fake:hold=4000`, `review-fix-${n}`);
    else void launch(`Review change #${n} fake:delay=500`, `review-${n}`);
  }, DEMO_SPAWN_EVERY_MS);
  timer.unref();
  log.info({ workspace: demo.root }, "demo fleet running on the caliband simulator (no Caliban needed)");
  return () => {
    clearInterval(timer);
    clearTimeout(endInput);
  };
}
