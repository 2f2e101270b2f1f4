/**
 * Issue 14 item 3 as processes: the gateway (`prospero serve`) SIGKILLs itself at each durable step
 * of a dispatch (`PROSPERO_TEST_CRASH_AT`, src/queue/crash-points.ts) and is started again on the
 * same data dir; the launch still ends SUCCEEDED with exactly one run on the daemon — adopted, when
 * the spawn was answered but RUNNING was never recorded, instead of spawned a second time. And
 * launches queued when the gateway died are dispatched after its restart in priority, then age order.
 *
 * Real parts only: the gateway processes, their SQLite files, and one caliband-sim daemon that the
 * first gateway autostarts (`--caliband-bin`) as its own process; it and its workers outlive every
 * gateway, and every case's fresh data dir registers the same workspace root on it.
 */
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { CalibandClient } from "../../src/caliband/client.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { openDatabase, DB_FILE } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { SqliteHotPath } from "../../src/store/hot-path.js";
import { WorkspaceRegistry } from "../../src/fleet/registry.js";
import { CRASH_POINTS, type CrashPoint } from "../../src/queue/crash-points.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { startServe, serveToken, type ServeProcess } from "../helpers/serve-process.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");

let ws: TempWorkspace;
let root: string;
let env: NodeJS.ProcessEnv;
let daemon: CalibandClient;
/** Process groups of the daemons the gateways autostarted (each with its workers). */
const groups = new Set<number>();

beforeAll(() => {
  ws = makeTempWorkspace();
  root = fs.realpathSync(ws.root);
  env = {
    CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime,
    CALIBAN_SIM_DATA_BASE: path.join(ws.tmp, "sessions"),
  };
  daemon = new CalibandClient({ scheme: "unix", path: controlSocketPath(root, env) });
});

afterAll(() => {
  for (const g of groups) {
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // gone
    }
  }
  ws.cleanup();
});

/** A fresh gateway data dir with workspace `demo` (the shared root) registered. */
async function freshDataDir(name: string): Promise<string> {
  const dataDir = path.join(ws.tmp, name);
  const db = await openDatabase(dataDir);
  const writer = new StoreWriter(db.prisma, undefined, undefined, { hotPath: new SqliteHotPath(db.raw) });
  await new WorkspaceRegistry(db.prisma, writer).add({ name: "demo", root });
  await writer.close();
  await db.close();
  return dataDir;
}

interface Gateway {
  p: ServeProcess;
  token: string;
}

/** Start `prospero serve` on `dataDir` (autostarting the sim daemon when it does not answer). */
async function serve(
  dataDir: string,
  args: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Gateway> {
  const p = await startServe(
    ["--data-dir", dataDir, "--caliband-bin", SIM, "--poll-interval-ms", "100", ...args],
    { ...env, ...extraEnv },
  );
  onCleanup(async () => {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  });
  const token = await serveToken(p);
  const pid = await waitFor(
    async () => {
      try {
        return (await daemon.status({ deadlineMs: 1_000 })).pid;
      } catch {
        return null;
      }
    },
    20_000,
    "the daemon answering",
  );
  groups.add(pid);
  return { p, token };
}

/** How `p` ended, or a rejection with its log when it is still running after `ms`. */
async function ending(p: ServeProcess, ms = 20_000): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the gateway still runs after ${ms} ms:\n${p.stderr()}`)), ms);
  });
  try {
    return await Promise.race([p.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** POST a GraphQL document; rejects on transport failure or any GraphQL error. */
async function gql<T>(g: Gateway, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${g.p.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data!;
}

const ENQUEUE = `mutation($input: EnqueueLaunchInput!) {
  enqueueLaunch(input: $input) {
    __typename
    ... on EnqueueLaunchPayload { created launch { launchId state } }
  }
}`;

const SET_CAP = `mutation($input: SetCapInput!) {
  setCap(input: $input) { __typename ... on SetCapPayload { cap { scope max } } }
}`;

interface LaunchView {
  launchId: string;
  state: string;
  agent: { agentId: string } | null;
  attempts: {
    n: number;
    agentId: string | null;
    outcome: string | null;
    requestedAt: string;
    endedAt: string | null;
  }[];
  transitions: { edges: { node: { from: string | null; to: string; reason: string | null } }[] };
}

const LAUNCH = `query($id: String!) {
  launch(launchId: $id) {
    launchId state agent { agentId }
    attempts { n agentId outcome requestedAt endedAt }
    transitions(first: 100) { edges { node { from to reason } } }
  }
}`;

const LAUNCHES = `query { launches(filter: { workspace: "demo" }, first: 100) { totalCount edges { node { launchId } } } }`;

const QUEUED = `query { launches(filter: { states: [QUEUED] }, first: 100) {
  edges { node { launchId queuePosition waitingFor { kind } } } } }`;

const METRICS = `query { metrics { launchesAdoptedTotal launchesDispatchedTotal } }`;

const AGENTS = `query { agents(first: 500) { edges { node { agentId spec { prompt } } } } }`;

async function launchOf(g: Gateway, id: string): Promise<LaunchView> {
  return (await gql<{ launch: LaunchView }>(g, LAUNCH, { id })).launch;
}

/** Open the gateway's store read-only (the gateway may be dead: then this is all there is to see). */
function reader(dataDir: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path.join(dataDir, DB_FILE), { readonly: true, timeout: 5000 });
  onCleanup(() => {
    db.close();
  });
  return db;
}

/** The daemon's records of runs started with `prompt`. */
async function runsOf(prompt: string): Promise<string[]> {
  return (await daemon.list()).filter((r) => r.spec.initial_prompt === prompt).map((r) => r.id);
}

/** What each crash point left behind: the launch's state, its attempts, runs on the daemon. */
const AT_CRASH: Record<
  CrashPoint,
  { state: string; attempts: number; attemptHasAgent: boolean; runs: number }
> = {
  "launch-queued": { state: "QUEUED", attempts: 0, attemptHasAgent: false, runs: 0 },
  "attempt-recorded": { state: "DISPATCHED", attempts: 1, attemptHasAgent: false, runs: 0 },
  "spawn-answered": { state: "DISPATCHED", attempts: 1, attemptHasAgent: false, runs: 1 },
  "running-recorded": { state: "RUNNING", attempts: 1, attemptHasAgent: true, runs: 1 },
};

/** Every state the launch goes through, across both processes, in order. */
const STATES: Record<CrashPoint, string[]> = {
  "launch-queued": ["QUEUED", "DISPATCHED", "RUNNING", "SUCCEEDED"],
  // the attempt never reached caliband: marked lost, dispatched again
  "attempt-recorded": ["QUEUED", "DISPATCHED", "QUEUED", "DISPATCHED", "RUNNING", "SUCCEEDED"],
  // the run exists: adopted
  "spawn-answered": ["QUEUED", "DISPATCHED", "RUNNING", "SUCCEEDED"],
  "running-recorded": ["QUEUED", "DISPATCHED", "RUNNING", "SUCCEEDED"],
};

/** Dispatches the restarted gateway makes (the rest were made before the kill, or adopted). */
const DISPATCHED_AFTER_RESTART: Record<CrashPoint, number> = {
  "launch-queued": 1,
  "attempt-recorded": 1,
  "spawn-answered": 0,
  "running-recorded": 0,
};

describe("gateway SIGKILLed at each step of a dispatch", () => {
  it.each(CRASH_POINTS)(
    "at %s: after a restart the launch SUCCEEDs with exactly one run",
    async (point) => {
      const dataDir = await freshDataDir(`gw-${point}`);
      const prompt = `dispatch-sigkill ${point} fake:hold=300`;
      const first = await serve(dataDir, [], { PROSPERO_TEST_CRASH_AT: point });
      // The answer may be lost with the process (it kills itself in or right after the request).
      const answered = gql<{ enqueueLaunch: { launch: { launchId: string } } }>(first, ENQUEUE, {
        input: { workspace: "demo", prompt, isolated: false },
      }).then(
        (d) => d.enqueueLaunch.launch.launchId,
        () => null,
      );
      expect(await ending(first.p)).toBe("SIGKILL");
      const answeredId = await answered;

      // Between the two processes: exactly what was committed before the point, no more.
      const db = reader(dataDir);
      const rows = db.prepare(`SELECT id, state FROM "Launch"`).all() as { id: string; state: string }[];
      expect(rows).toHaveLength(1);
      const id = rows[0]!.id;
      if (answeredId !== null) expect(answeredId).toBe(id);
      const atCrash = AT_CRASH[point];
      expect(rows[0]!.state).toBe(atCrash.state);
      const attemptsAtCrash = db
        .prepare(`SELECT n, agentId FROM "LaunchAttempt" WHERE launchId = ?`)
        .all(id) as { n: number; agentId: string | null }[];
      expect(attemptsAtCrash).toHaveLength(atCrash.attempts);
      if (atCrash.attempts > 0) expect(attemptsAtCrash[0]!.agentId !== null).toBe(atCrash.attemptHasAgent);
      expect(await runsOf(prompt)).toHaveLength(atCrash.runs);

      const second = await serve(dataDir);
      await waitFor(
        async () => (await launchOf(second, id)).state === "SUCCEEDED",
        30_000,
        `${id} SUCCEEDED`,
        100,
      );
      const l = await launchOf(second, id);

      // Exactly one launch, one run on the daemon, and the launch names that run.
      expect((await gql<{ launches: { totalCount: number } }>(second, LAUNCHES)).launches.totalCount).toBe(1);
      const runs = await runsOf(prompt);
      expect(runs).toHaveLength(1);
      const run = runs[0]!;
      expect(l.agent?.agentId).toBe(run);
      expect(l.attempts.filter((a) => a.agentId !== null).map((a) => a.agentId)).toEqual([run]);
      // An attempt that never reached caliband (attempt-recorded) is not an attempt of the limit:
      // marked lost at the restart, its number is used again by the next dispatch.
      expect(l.attempts.map((a) => [a.n, a.agentId, a.outcome])).toEqual([[1, run, "SUCCEEDED"]]);
      // The fleet saw one run of this prompt too.
      const fleet = (
        await gql<{ agents: { edges: { node: { agentId: string; spec: { prompt: string } } }[] } }>(
          second,
          AGENTS,
        )
      ).agents.edges.filter((e) => e.node.spec.prompt === prompt);
      expect(fleet.map((e) => e.node.agentId)).toEqual([run]);

      // Transitions and launch_changed events: the expected states, in order, each from the last.
      const transitions = l.transitions.edges.map((e) => e.node);
      expect(transitions.map((t) => t.to)).toEqual(STATES[point]);
      expect(transitions.map((t) => t.from)).toEqual([null, ...STATES[point].slice(0, -1)]);
      const events = (
        db.prepare(`SELECT payload FROM "Event" WHERE kind = 'launch_changed' ORDER BY id`).all() as {
          payload: string;
        }[]
      ).map((r) => JSON.parse(r.payload) as { launchId: string; from: string | null; to: string });
      expect(events.every((e) => e.launchId === id)).toBe(true);
      expect(events.map((e) => e.to)).toEqual(STATES[point]);
      expect(events.map((e) => e.from)).toEqual([null, ...STATES[point].slice(0, -1)]);

      // Adopted (not spawned again) exactly when the spawn was answered but RUNNING not recorded.
      const running = transitions.find((t) => t.to === "RUNNING")!;
      const metrics = (
        await gql<{ metrics: { launchesAdoptedTotal: number; launchesDispatchedTotal: number } }>(
          second,
          METRICS,
        )
      ).metrics;
      if (point === "spawn-answered") {
        expect(running.reason).toMatch(/adopted/);
        expect(metrics.launchesAdoptedTotal).toBe(1);
      } else {
        expect(running.reason).not.toMatch(/adopted/);
        expect(metrics.launchesAdoptedTotal).toBe(0);
      }
      expect(metrics.launchesDispatchedTotal).toBe(DISPATCHED_AFTER_RESTART[point]);

      second.p.child.kill("SIGTERM");
      expect(await ending(second.p)).toBe(0);
    },
    60_000,
  );

  it("launches queued when the gateway died are dispatched after its restart by priority, then age", async () => {
    const dataDir = await freshDataDir("gw-order");
    const first = await serve(dataDir);
    await gql(first, SET_CAP, { input: { scope: "GLOBAL", max: 0 } });
    const enqueue = async (name: string, priority: number) =>
      (
        await gql<{ enqueueLaunch: { launch: { launchId: string } } }>(first, ENQUEUE, {
          input: { workspace: "demo", prompt: `order ${name} fake:hold=100`, isolated: false, priority },
        })
      ).enqueueLaunch.launch.launchId;
    const older = await enqueue("older", 50);
    const urgent = await enqueue("urgent", 90);
    const newer = await enqueue("newer", 50);
    const expected = [urgent, older, newer];
    // Held by the cap of 0, in dispatch order.
    const queued = await waitFor(async () => {
      const edges = (
        await gql<{
          launches: {
            edges: {
              node: { launchId: string; queuePosition: number | null; waitingFor: { kind: string } | null };
            }[];
          };
        }>(first, QUEUED)
      ).launches.edges;
      return edges.length === 3 && edges.every((e) => e.node.queuePosition !== null) ? edges : null;
    }, 10_000);
    expect(queued.map((e) => e.node.launchId)).toEqual(expected);
    expect(queued.map((e) => e.node.queuePosition)).toEqual([1, 2, 3]);
    expect(queued.every((e) => e.node.waitingFor?.kind === "CAP")).toBe(true);
    first.p.child.kill("SIGKILL");
    expect(await ending(first.p)).toBe("SIGKILL");

    const second = await serve(dataDir, ["--max-concurrent", "1"]);
    const done = await waitFor(
      async () => {
        const ls = await Promise.all(expected.map((id) => launchOf(second, id)));
        return ls.every((l) => l.state === "SUCCEEDED") ? ls : null;
      },
      30_000,
      "all three SUCCEEDED",
      100,
    );
    const attempts = done.map((l) => {
      expect(l.attempts).toHaveLength(1);
      return { id: l.launchId, ...l.attempts[0]! };
    });
    const byRequest = [...attempts].sort((a, b) => Date.parse(a.requestedAt) - Date.parse(b.requestedAt));
    expect(byRequest.map((a) => a.id)).toEqual(expected);
    // One at a time under the cap of 1: each dispatched after the one before it ended.
    for (let i = 1; i < byRequest.length; i++)
      expect(Date.parse(byRequest[i]!.requestedAt)).toBeGreaterThanOrEqual(
        Date.parse(byRequest[i - 1]!.endedAt!),
      );
    second.p.child.kill("SIGTERM");
    expect(await ending(second.p)).toBe(0);
  }, 60_000);
});
