// The double's provider failures (issue 14 item 7): `fake:provider-error=CODE` ends a run like a
// real provider refusal — no TurnStart, one RunEnd with `{"ProviderError": msg}` in serde's field
// order (docs/caliband-protocol.md §3.3's second RunEnd example), exit 1 → failed (§5.4) — and
// `fake:fail-first=N` makes only the first N runs of a prompt fail, counted in the daemon's store so
// a respawn (same spec, §1.7), a restarted or SIGKILLed daemon and concurrent worker processes all
// see one count.
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  connectWhenBound,
  type LineClient,
  requestJson,
  statusOf,
  waitFor,
  waitForStatus,
} from "../support/caliband-client.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { readFixture } from "../support/fixtures.js";
import { controlSocketPath } from "../support/paths.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import type { Endpoint } from "../support/wire-format.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");

type Json = Record<string, unknown>;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** The exact RunEnd line of a provider failure with `message` (field order of §3.3's example). */
const providerRunEnd = (message: string): string =>
  `{"type":"RunEnd","final_messages":[],"total_usage":{"input_tokens":0,"output_tokens":0},"turn_count":0,"stopped_for":{"ProviderError":${JSON.stringify(message)}},"turns_without_edit":0,"no_edit_nudge_emitted":false}`;

const MSG_429 = "429 Too Many Requests: rate_limit_error: This request would exceed your rate limit";

function workspace(): TempWorkspace {
  const ws = makeTempWorkspace();
  cleanups.push(() => ws.cleanup());
  return ws;
}

async function startFake(ws: TempWorkspace): Promise<{ fake: FakeCaliband; ep: Endpoint }> {
  const fake = await FakeCaliband.start({
    workspaceRoot: ws.root,
    env: { CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime },
    dataBase: ws.data,
  });
  cleanups.push(() => fake.close());
  return { fake, ep: fake.endpoint };
}

async function spawnAgent(ep: Endpoint, spec: Json): Promise<{ id: string; endpoint: Endpoint }> {
  const r = await requestJson(ep, { kind: "spawn", spec });
  expect(r.kind).toBe("spawned");
  return { id: r.id as string, endpoint: r.endpoint as Endpoint };
}

/** Respawns `id` (same spec, new id) and returns the new agent with its endpoint from `list`. */
async function respawn(ep: Endpoint, id: string): Promise<{ id: string; endpoint: Endpoint }> {
  const r = await requestJson(ep, { kind: "respawn", id });
  expect(r.kind).toBe("respawned");
  const newId = r.id as string;
  const rec = ((await requestJson(ep, { kind: "list" })).agents as Json[]).find((a) => a.id === newId)!;
  return { id: newId, endpoint: rec.endpoint as Endpoint };
}

/** Every line the agent streams, from the start to EOF. */
async function streamed(endpoint: Endpoint): Promise<string[]> {
  const c: LineClient = await connectWhenBound(endpoint);
  cleanups.push(() => c.close());
  return c.readToEnd(20_000);
}

function transcript(ws: TempWorkspace, id: string): string[] {
  const file = path.join(ws.data, id, "stdout.ndjson");
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

const workerLog = (ws: TempWorkspace, id: string): string =>
  fs.readFileSync(path.join(ws.data, id, "worker.log"), "utf8");

const types = (lines: string[]): unknown[] => lines.map((l) => (JSON.parse(l) as Json).type);

describe("fake:provider-error and fake:fail-first (in-process workers)", () => {
  it("429 twice (spawn, respawn), then the second respawn runs to done", async () => {
    const ws = workspace();
    const { fake, ep } = await startFake(ws);
    // fake:delay holds the bound endpoint open a moment, so the stream is read live.
    const spec = {
      label: "flaky",
      initial_prompt: "fix it fake:provider-error=429 fake:fail-first=2 fake:delay=200",
    };

    let agent = await spawnAgent(ep, spec);
    for (const attempt of [1, 2]) {
      const lines = await streamed(agent.endpoint);
      expect(lines).toEqual([providerRunEnd(MSG_429)]);
      await waitForStatus(ep, agent.id, "failed");
      expect(fake.agent(agent.id)?.exitCode).toBe(1);
      expect(transcript(ws, agent.id)).toEqual(lines);
      const log = workerLog(ws, agent.id);
      expect(log).toContain(`run ended: provider error: ${MSG_429}`);
      expect(log).toContain(`failing run ${attempt} of this prompt`);
      agent = await respawn(ep, agent.id);
    }
    const lines = await streamed(agent.endpoint);
    expect(types(lines)[0]).toBe("TurnStart");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      type: "RunEnd",
      stopped_for: "EndOfTurn",
      turn_count: 2,
    });
    await waitForStatus(ep, agent.id, "done");
    expect(fake.agent(agent.id)?.exitCode).toBe(0);
    expect((await requestJson(ep, { kind: "list" })).agents).toHaveLength(1); // respawn replaced each

    // The count is the prompt's in this store, not the agent's: a fresh spawn of it succeeds too.
    const later = await spawnAgent(ep, spec);
    await waitForStatus(ep, later.id, "done");
  }, 60_000);

  it("the provider-error RunEnd has the recorded RunEnd's field order", async () => {
    const ws = workspace();
    const { ep } = await startFake(ws);
    const a = await spawnAgent(ep, { initial_prompt: "fake:provider-error=429" });
    await waitForStatus(ep, a.id, "failed");
    const mine = JSON.parse(transcript(ws, a.id)[0]!) as Json;
    const recorded = readFixture("agent-basic.out.ndjson").trim().split("\n");
    const real = JSON.parse(recorded.at(-1)!) as Json;
    expect(real.type).toBe("RunEnd");
    expect(Object.keys(mine)).toEqual(Object.keys(real));
    expect(Object.keys(mine.total_usage as Json)).toEqual(Object.keys(real.total_usage as Json));
  });

  it("529, 401 and other codes have the provider's messages; without fail-first every run fails", async () => {
    const ws = workspace();
    const { ep } = await startFake(ws);
    const expected: Array<[string, string]> = [
      ["529", "529 overloaded_error: Overloaded"],
      ["401", "401 Unauthorized: authentication_error: invalid x-api-key"],
      ["500", "500 provider error"],
    ];
    for (const [code, message] of expected) {
      const a = await spawnAgent(ep, { initial_prompt: `go fake:provider-error=${code}` });
      await waitForStatus(ep, a.id, "failed");
      expect(transcript(ws, a.id)).toEqual([providerRunEnd(message)]);
      expect(workerLog(ws, a.id)).toContain(`run ended: provider error: ${message}`);
      if (code === "401") {
        const again = await respawn(ep, a.id);
        await waitForStatus(ep, again.id, "failed");
        expect(transcript(ws, again.id)).toEqual([providerRunEnd(message)]);
      }
    }
  }, 60_000);

  it("fail-first with no-run-end or exit: the failing exit first, then a clean run", async () => {
    const ws = workspace();
    const { fake, ep } = await startFake(ws);
    const first = await spawnAgent(ep, { initial_prompt: "go fake:no-run-end fake:fail-first=1" });
    await waitForStatus(ep, first.id, "failed");
    expect(fake.agent(first.id)?.exitCode).toBe(1);
    expect(types(transcript(ws, first.id)).at(-1)).toBe("TurnEnd");
    expect(workerLog(ws, first.id)).toContain("stream error");
    const second = await respawn(ep, first.id);
    await waitForStatus(ep, second.id, "done");
    expect(types(transcript(ws, second.id)).at(-1)).toBe("RunEnd");
    expect(workerLog(ws, second.id)).not.toContain("stream error");

    const exits = await spawnAgent(ep, { initial_prompt: "go fake:exit=3 fake:fail-first=1" });
    await waitForStatus(ep, exits.id, "failed");
    expect(fake.agent(exits.id)?.exitCode).toBe(3);
    const fine = await respawn(ep, exits.id);
    await waitForStatus(ep, fine.id, "done");
  }, 30_000);
});

describe("fake:fail-first claims across processes", () => {
  it("processes racing for the first 3 failing runs of one prompt get exactly 1, 2 and 3", async () => {
    const ws = workspace();
    const loader = pathToFileURL(
      path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/loader.mjs"),
    ).href;
    const scripts = pathToFileURL(path.resolve(import.meta.dirname, "../support/fake-scripts.ts")).href;
    // Each process loads the module, spins until a common start time, then claims once.
    const code = [
      `import { claimFailingRun } from ${JSON.stringify(scripts)};`,
      `const [start, base, id] = process.argv.slice(1);`,
      `while (Date.now() < Number(start)) {}`,
      `process.stdout.write(JSON.stringify(claimFailingRun(base, "same prompt", 3, id)));`,
    ].join("\n");
    const start = Date.now() + 4_000;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        const child = spawn(
          process.execPath,
          ["--import", loader, "--input-type=module", "-e", code, String(start), ws.data, `agent${i}`],
          { stdio: ["ignore", "pipe", "inherit"] },
        );
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
        return new Promise<unknown>((resolve, reject) =>
          child.on("exit", (c) => (c === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${c}`)))),
        );
      }),
    );
    expect(results.filter((k) => k !== null).sort()).toEqual([1, 2, 3]);
    expect(results.filter((k) => k === null)).toHaveLength(3);
  }, 60_000);
});

describe("fake:fail-first with caliband-sim worker processes", () => {
  interface Sim {
    child: ChildProcess;
    exit: Promise<number | string | null>;
    ep: Endpoint;
  }

  /** The sim over `ws`'s store in its own process group; teardown kills the group (workers too). */
  async function startSim(ws: TempWorkspace): Promise<Sim> {
    const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime };
    const child = spawn(SIM, ["--workspace-root", ws.root, "--data-base", ws.data], {
      env,
      stdio: "ignore",
      detached: true,
    });
    const exit = new Promise<number | string | null>((resolve) =>
      child.on("exit", (code, signal) => resolve(code ?? signal)),
    );
    const group = child.pid!;
    cleanups.push(() => {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // already gone
      }
    });
    const ep: Endpoint = { scheme: "unix", path: controlSocketPath(ws.root, env) };
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

  it("the count survives a SIGKILLed daemon and is exact for concurrent worker processes", async () => {
    const ws = workspace();
    const sim = await startSim(ws);

    // Three workers of one prompt at once, one failing run allowed: exactly one fails.
    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        spawnAgent(sim.ep, { initial_prompt: "race fake:provider-error=529 fake:fail-first=1" }),
      ),
    );
    const final = await Promise.all(
      racing.map((a) =>
        waitFor(
          async () => {
            const s = await statusOf(sim.ep, a.id);
            return s === "done" || s === "failed" ? s : undefined;
          },
          `agent ${a.id} to end`,
          30_000,
        ),
      ),
    );
    expect(final.filter((s) => s === "failed")).toHaveLength(1);
    const failed = racing[final.indexOf("failed")]!;
    expect(transcript(ws, failed.id)).toEqual([providerRunEnd("529 overloaded_error: Overloaded")]);

    // First run fails, the daemon is SIGKILLed, a new one over the same store respawns it.
    const spec = { initial_prompt: "persist fake:provider-error=429 fake:fail-first=2" };
    const first = await spawnAgent(sim.ep, spec);
    await waitForStatus(sim.ep, first.id, "failed", undefined, 20_000);
    sim.child.kill("SIGKILL");
    expect(await sim.exit).toBe("SIGKILL");

    const next = await startSim(ws);
    expect(await statusOf(next.ep, first.id)).toBe("failed");
    const second = await respawn(next.ep, first.id);
    await waitForStatus(next.ep, second.id, "failed", undefined, 20_000);
    expect(transcript(ws, second.id)).toEqual([providerRunEnd(MSG_429)]);
    const third = await respawn(next.ep, second.id);
    await waitForStatus(next.ep, third.id, "done", undefined, 20_000);
    expect(types(transcript(ws, third.id)).at(-1)).toBe("RunEnd");
  }, 120_000);
});
