// The caliband-sim process behaves as the real daemon where faults are concerned (issue 12): its
// workers are processes of their own that outlive a SIGKILLed daemon and keep writing their
// transcript to RunEnd (§1.7 shutdown, §5.7); a restarted daemon lists a survivor `crashed` and
// keeps listing a finished interactive worker `idle` (stale, its exit no longer observed); and the
// sim's session store is one per workspace root (CALIBAN_SIM_DATA_BASE, issue 12 item 12).
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  connectWhenBound,
  requestJson,
  statusOf,
  waitFor,
  waitForStatus,
} from "../support/caliband-client.js";
import { controlSocketPath, workspaceSlug } from "../support/paths.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import type { Endpoint } from "../support/wire-format.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A started sim; `group` is its process group (pid), which its worker processes share. */
interface Sim {
  child: ChildProcess;
  exit: Promise<number | string | null>;
  ep: Endpoint;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Start the sim for `ws` in its own process group; teardown kills that group (orphans included). */
async function startSim(ws: TempWorkspace, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<Sim> {
  const fullEnv = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime, ...env };
  const child = spawn(SIM, ["--workspace-root", ws.root, ...args], {
    env: fullEnv,
    stdio: "ignore",
    detached: true,
  });
  const exit = new Promise<number | string | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal)),
  );
  const group = child.pid!;
  cleanups.push(() => {
    try {
      process.kill(-group, "SIGKILL"); // the sim and every worker it launched (same group)
    } catch {
      // already gone
    }
  });
  const ep: Endpoint = { scheme: "unix", path: controlSocketPath(ws.root, fullEnv) };
  await waitFor(
    async () => {
      try {
        return (await requestJson(ep, { kind: "status" })).pid === child.pid;
      } catch {
        return false;
      }
    },
    "caliband-sim to answer",
    20_000,
  );
  return { child, exit, ep };
}

function workspace(): TempWorkspace {
  const ws = makeTempWorkspace();
  cleanups.push(() => ws.cleanup());
  return ws;
}

async function spawnAgent(
  ep: Endpoint,
  spec: Record<string, unknown>,
): Promise<{ id: string; endpoint: Endpoint }> {
  const r = await requestJson(ep, { kind: "spawn", spec });
  expect(r.kind).toBe("spawned");
  return { id: r.id as string, endpoint: r.endpoint as Endpoint };
}

function transcript(ws: TempWorkspace, id: string): string[] {
  const file = path.join(ws.data, id, "stdout.ndjson");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

/** The worker's pid as its worker.log says (the process it runs in); undefined until it is logged. */
function workerPid(ws: TempWorkspace, id: string): number | undefined {
  const file = path.join(ws.data, id, "worker.log");
  const m = fs.existsSync(file) ? / pid=(\d+)/.exec(fs.readFileSync(file, "utf8")) : null;
  return m ? Number(m[1]) : undefined;
}

describe("caliband-sim workers are processes that outlive their daemon", () => {
  it("SIGKILL of the daemon mid-run: the worker keeps streaming to RunEnd and exits 0; the next daemon lists it crashed", async () => {
    const ws = workspace();
    const sim = await startSim(ws, {}, ["--data-base", ws.data]);
    const a = await spawnAgent(sim.ep, { initial_prompt: "long fake:frames=1500 fake:pace=2" });
    await waitFor(() => transcript(ws, a.id).length >= 200, "200 lines written", 20_000);
    const pid = await waitFor(() => workerPid(ws, a.id), "the worker's pid in worker.log");
    expect(pid).not.toBe(sim.child.pid);

    sim.child.kill("SIGKILL");
    expect(await sim.exit).toBe("SIGKILL");
    const atKill = transcript(ws, a.id).length;
    expect(atKill).toBeLessThan(1500);
    // The orphan still serves its endpoint and writes on to its RunEnd.
    const reader = await connectWhenBound(a.endpoint);
    cleanups.push(() => reader.close());
    const streamed = await reader.readToEnd(60_000);
    expect(streamed.at(-1)).toContain('"type":"RunEnd"');
    const lines = transcript(ws, a.id);
    expect(lines.length).toBeGreaterThan(atKill);
    expect(lines.at(-1)).toContain('"type":"RunEnd"');
    expect(lines.slice(-streamed.length)).toEqual(streamed); // what it streamed is its transcript's tail
    await waitFor(() => !alive(pid), "the worker process to exit", 10_000);

    const next = await startSim(ws, {}, ["--data-base", ws.data]);
    expect(await statusOf(next.ep, a.id)).toBe("crashed");
  }, 90_000);

  it("a restarted daemon keeps listing a finished interactive worker idle (its exit is not observed)", async () => {
    const ws = workspace();
    const sim = await startSim(ws, {}, ["--data-base", ws.data]);
    const chat = await spawnAgent(sim.ep, { initial_prompt: "wait for me", interactive: true });
    await waitForStatus(sim.ep, chat.id, "idle", undefined, 20_000);
    const pid = await waitFor(() => workerPid(ws, chat.id), "the worker's pid in worker.log");
    sim.child.kill("SIGKILL");
    await sim.exit;

    const next = await startSim(ws, {}, ["--data-base", ws.data]);
    expect(await statusOf(next.ep, chat.id)).toBe("idle"); // idle is not swept (§5.7)
    const c = await connectWhenBound(chat.endpoint);
    cleanups.push(() => c.close());
    c.send('{"type":"UserMessage","text":"still there?"}');
    await c.waitForLine((l) => l.includes("You said: still there?"), 20_000);
    c.send('{"type":"EndInput"}');
    expect((await c.readToEnd(20_000)).at(-1)).toContain('"type":"RunEnd"');
    await waitFor(() => !alive(pid), "the worker process to exit", 10_000);
    await new Promise((r) => setTimeout(r, 300));
    // The worker's reports reached the new daemon (running, then idle again); its exit did not.
    expect(await statusOf(next.ep, chat.id)).toBe("idle");
    expect(transcript(ws, chat.id).at(-1)).toContain('"type":"RunEnd"');
  }, 90_000);

  it("a graceful stop takes the workers along, unless CALIBAN_SIM_KEEP_ORPHANS=1", async () => {
    const ws = workspace();
    const sim = await startSim(ws, {}, ["--data-base", ws.data]);
    const a = await spawnAgent(sim.ep, { initial_prompt: "long fake:hold=60000" });
    const pid = await waitFor(() => workerPid(ws, a.id), "the worker's pid in worker.log");
    sim.child.kill("SIGTERM");
    expect(await sim.exit).toBe(0);
    await waitFor(() => !alive(pid), "the worker to end with the sim", 10_000);

    const keeping = await startSim(ws, { CALIBAN_SIM_KEEP_ORPHANS: "1" }, ["--data-base", ws.data]);
    const b = await spawnAgent(keeping.ep, { initial_prompt: "long fake:hold=60000" });
    const orphan = await waitFor(() => workerPid(ws, b.id), "the worker's pid in worker.log");
    keeping.child.kill("SIGTERM");
    expect(await keeping.exit).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(orphan)).toBe(true);
    const c = await connectWhenBound(b.endpoint);
    c.close();
  }, 60_000);
});

describe("caliband-sim session stores (issue 12 item 12)", () => {
  it("CALIBAN_SIM_DATA_BASE holds one store per workspace root: daemons of two roots never list each other's agents", async () => {
    const a = workspace();
    const b = makeTempWorkspace("other-repo");
    cleanups.push(() => b.cleanup());
    const base = path.join(a.tmp, "sessions");
    // Both daemons find their sockets in one runtime dir and share the base, like the demo's.
    const env = { CALIBAN_SIM_DATA_BASE: base, CALIBAN_DAEMON_RUNTIME_DIR: a.runtime };
    const simA = await startSim(a, env);
    const simB = await startSim({ ...b, runtime: a.runtime }, env);
    const agent = await spawnAgent(simA.ep, { initial_prompt: "quick" });
    await waitForStatus(simA.ep, agent.id, "done", undefined, 20_000);
    const listed = (await requestJson(simB.ep, { kind: "list" })).agents as unknown[];
    expect(listed).toEqual([]);
    const store = path.join(base, workspaceSlug(a.root), "agents");
    expect(fs.existsSync(path.join(store, agent.id, "stdout.ndjson"))).toBe(true);
    const rec = ((await requestJson(simA.ep, { kind: "list" })).agents as Array<Record<string, unknown>>)[0]!;
    expect(rec.session_dir).toBe(path.join(store, agent.id));
    // A restart of B over the same base still sees none of A's agents.
    simB.child.kill("SIGTERM");
    await simB.exit;
    const simB2 = await startSim({ ...b, runtime: a.runtime }, env);
    expect((await requestJson(simB2.ep, { kind: "list" })).agents).toEqual([]);
  }, 60_000);
});
