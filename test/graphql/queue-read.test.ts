// The launch queue's read side (issue 14 item 8) through a real gateway (in-process, real port, real
// SQLite, the caliband double's "demo" workspace plus a second registered workspace "other" with no
// daemon): a launch that ran reads back by launch(launchId:) and node(id:) with its attempts, run and
// stored transitions; launches page newest first, a QUEUED filter lists dispatch order, filters and
// totalCount agree; schedules read back with their firings and next fire times; a token limited to
// one workspace sees none of another's launches, schedules, caps, budgets or changes; LaunchChanged
// items arrive on fleetChanges and a subscription resumes after one's cursor.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import { NO_RETRY, type LaunchRequest } from "../../src/queue/types.js";

let h: AppHarness;
let otherWs: TempWorkspace;
/** Viewer tokens limited to "demo" and to "other". */
let demoViewer: string;
let otherViewer: string;

beforeAll(async () => {
  h = await startAppHarness();
  otherWs = makeTempWorkspace("other-repo");
  await h.app.fleet.addWorkspace({ name: "other", root: fs.realpathSync(otherWs.root) });
  demoViewer = await h.createToken({ name: "demo-viewer", role: "VIEWER", workspaces: ["demo"] });
  otherViewer = await h.createToken({ name: "other-viewer", role: "VIEWER", workspaces: ["other"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
  otherWs?.cleanup();
});

/** Enqueue through the queue service (the mutations are tested in queue-mutations.test.ts). */
async function enqueue(over: Partial<LaunchRequest> & { workspace?: string; prompt?: string } = {}) {
  const { workspace = "demo", prompt = "quick", ...rest } = over;
  const { launch } = await h.app.queue.enqueue({
    spec: { workspace, prompt },
    dedupKey: null,
    priority: 50,
    notBeforeMs: null,
    timeoutMs: null,
    retry: NO_RETRY,
    scheduleId: null,
    createdBy: "tester",
    ...rest,
  });
  return launch.id;
}

/**
 * `v` with every connection's `edges: [{ node }]` (edges selecting nothing but their node) read as
 * `nodes: [node]`, which is what the tests compare.
 */
function flat(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(flat);
  if (v === null || typeof v !== "object") return v;
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, flat(x)]));
  if (
    Array.isArray(o.edges) &&
    o.edges.every((e: unknown) => typeof e === "object" && e !== null && Object.keys(e).join() === "node")
  ) {
    o.nodes = (o.edges as { node: unknown }[]).map((e) => e.node);
    delete o.edges;
  }
  return o;
}

/** A GraphQL answer without errors, its connections' edges read as nodes ({@link flat}). */
async function q<T>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T> {
  const r = await h.gql<T>(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return flat(r.data) as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const LAUNCH = `id launchId state stateName priority dedupKey createdBy
  workspace { name }
  spec { prompt isolated interactive model }
  retry { maxAttempts backoffMs maxBackoffMs }
  attemptCount
  attempts { n kind agentId agent { agentId } outcome outcomeName endedAt }
  agent { agentId status }
  queuePosition waitingFor { kind }
  finishedAt`;

describe("a launch that ran", () => {
  it("reads back by launchId and by node(id:) with its attempt, its run and its stored transitions", async () => {
    const id = await enqueue({ prompt: "Read README.md and summarize it.", dedupKey: "read-1" });
    await waitFor(
      async () => (await h.app.db.prisma.launch.findUnique({ where: { id } }))?.state === "SUCCEEDED",
      20_000,
      "launch succeeded",
    );
    type L = Record<string, unknown> & {
      id: string;
      agent: { agentId: string; status: string };
      attempts: { agentId: string }[];
    };
    const { launch } = await q<{ launch: L }>(`query($id: String!) { launch(launchId: $id) { ${LAUNCH} } }`, {
      id,
    });
    const agentId = launch.agent.agentId;
    expect(launch).toMatchObject({
      launchId: id,
      state: "SUCCEEDED",
      stateName: "SUCCEEDED",
      priority: 50,
      dedupKey: "read-1",
      createdBy: "tester",
      workspace: { name: "demo" },
      spec: { prompt: "Read README.md and summarize it.", isolated: true, interactive: false, model: null },
      retry: { maxAttempts: 1, backoffMs: NO_RETRY.backoffMs, maxBackoffMs: NO_RETRY.maxBackoffMs },
      attemptCount: 1,
      attempts: [
        { n: 1, kind: "spawn", agentId, agent: { agentId }, outcome: "SUCCEEDED", outcomeName: "succeeded" },
      ],
      agent: { agentId, status: "DONE" },
      queuePosition: null,
      waitingFor: null,
    });
    expect(launch.finishedAt).not.toBeNull();
    expect(launch.id).not.toContain(id);
    // The global id reads the same launch back.
    const back = await q<{ node: L }>(
      `query($id: ID!) { node(id: $id) { __typename ... on Launch { ${LAUNCH} } } }`,
      {
        id: launch.id,
      },
    );
    expect(back.node).toEqual({ __typename: "Launch", ...launch });

    // Its transitions, paged two at a time, are the stored ones in order.
    type Page = {
      launch: {
        transitions: {
          totalCount: number;
          edges: { cursor: string; node: { from: string | null; to: string; attempt: number | null } }[];
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
        };
      };
    };
    const seen: { from: string | null; to: string; attempt: number | null }[] = [];
    let after: string | null = null;
    let total = -1;
    for (let pages = 0; pages < 10; pages++) {
      const p: Page = await q<Page>(
        `query($id: String!, $after: String) { launch(launchId: $id) { transitions(first: 2, after: $after) {
           totalCount edges { cursor node { from to attempt } } pageInfo { hasNextPage endCursor } } } }`,
        { id, after },
      );
      const t = p.launch.transitions;
      total = t.totalCount;
      expect(t.edges.length).toBeLessThanOrEqual(2);
      seen.push(...t.edges.map((e) => e.node));
      if (!t.pageInfo.hasNextPage) break;
      after = t.pageInfo.endCursor;
    }
    const stored = await h.app.db.prisma.launchTransition.findMany({
      where: { launchId: id },
      orderBy: { id: "asc" },
    });
    expect(total).toBe(stored.length);
    expect(seen).toEqual(stored.map((s) => ({ from: s.from, to: s.to, attempt: s.attempt })));
    expect(seen[0]).toEqual({ from: null, to: "QUEUED", attempt: null });
    expect(seen.map((s) => s.to)).toEqual(expect.arrayContaining(["DISPATCHED", "RUNNING"]));
    expect(seen.at(-1)).toMatchObject({ to: "SUCCEEDED", attempt: 1 });

    // The same changes are stored events of the workspace, typed, and readable by node(id:).
    type Ev = { id: string; launchId: string; from: string | null; to: string; launch: { launchId: string } };
    const events = await q<{ events: { nodes: Ev[] } }>(
      `{ events(of: { workspace: "demo" }, filter: { kinds: [LAUNCH_CHANGED] }, first: 100) {
         nodes { id ... on LaunchChangedEvent { launchId from to launch { launchId } } } } }`,
    );
    const mine = events.events.nodes.filter((e) => e.launchId === id);
    expect(mine.map((e) => ({ from: e.from, to: e.to }))).toEqual(
      stored.map((s) => ({ from: s.from, to: s.to })),
    );
    expect(mine.every((e) => e.launch.launchId === id)).toBe(true);
    const ev = await q<{ node: { __typename: string; launchId: string } }>(
      `query($id: ID!) { node(id: $id) { __typename ... on LaunchChangedEvent { launchId } } }`,
      { id: mine[0]!.id },
    );
    expect(ev.node).toEqual({ __typename: "LaunchChangedEvent", launchId: id });

    // Metrics count the dispatch.
    const m = await q<{ metrics: { launchesDispatchedTotal: number; launchWaitMsCount: number } }>(
      `{ metrics { launchesDispatchedTotal launchWaitMsCount } }`,
    );
    expect(m.metrics.launchesDispatchedTotal).toBeGreaterThanOrEqual(1);
    expect(m.metrics.launchWaitMsCount).toBeGreaterThanOrEqual(1);
  }, 40_000);
});

describe("launches, queue and schedules while nothing may run (GLOBAL cap 0)", () => {
  /** demo launches in enqueue order (priorities 50, 90, 10, 90, 50) and one of "other". */
  const demo: string[] = [];
  let other = "";

  beforeAll(async () => {
    await h.app.queue.setCap({ scope: "GLOBAL", key: "", max: 0 }, "tester");
    for (const [i, priority] of [50, 90, 10, 90, 50].entries()) {
      demo.push(await enqueue({ prompt: `task ${i}`, priority, dedupKey: `task-${i}` }));
      await sleep(5); // distinct creation times
    }
    other = await enqueue({ workspace: "other", prompt: "elsewhere", priority: 0 });
    // The dispatcher's pass after the last enqueue has placed every queued launch.
    await waitFor(() => h.app.queue.queuePosition(other) !== null, 5_000, "queue positions");
  });

  it("pages newest first with totalCount on every page; filters narrow it", async () => {
    type Conn = {
      launches: {
        totalCount: number;
        nodes: { launchId: string }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    };
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const c: Conn = await q<Conn>(
        `query($after: String) { launches(filter: { workspace: "demo", states: [QUEUED, CANCELLED] }, first: 2, after: $after) {
           totalCount edges { node { launchId } } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      expect(c.launches.totalCount).toBe(5);
      ids.push(...c.launches.nodes.map((n) => n.launchId));
      if (!c.launches.pageInfo.hasNextPage) break;
      after = c.launches.pageInfo.endCursor;
    }
    expect(ids).toEqual([...demo].reverse());

    const all = await q<Conn>(`{ launches { totalCount edges { node { launchId } } } }`);
    expect(all.launches.totalCount).toBe(7); // the one that ran, five of demo, one of other
    expect(all.launches.nodes.map((n) => n.launchId).slice(0, 2)).toEqual([other, demo[4]]);

    const counts = await q<Record<string, { totalCount: number; nodes: { launchId: string }[] }>>(
      `{ byKey: launches(filter: { dedupKey: "task-3" }) { totalCount edges { node { launchId } } }
         done: launches(filter: { states: [SUCCEEDED] }) { totalCount edges { node { launchId } } }
         otherWs: launches(filter: { workspace: "other" }) { totalCount edges { node { launchId } } }
         none: launches(filter: { states: [UNKNOWN] }) { totalCount edges { node { launchId } } } }`,
    );
    expect(counts.byKey).toEqual({ totalCount: 1, nodes: [{ launchId: demo[3] }] });
    expect(counts.done!.totalCount).toBe(1);
    expect(counts.otherWs).toEqual({ totalCount: 1, nodes: [{ launchId: other }] });
    expect(counts.none).toEqual({ totalCount: 0, nodes: [] });
  });

  it("a QUEUED filter lists dispatch order (priority, then oldest first), matching queuePosition and why each waits", async () => {
    type Conn = {
      launches: {
        nodes: {
          launchId: string;
          queuePosition: number | null;
          waitingFor: {
            kind: string;
            scope: string;
            key: string;
            inUse: number;
            max: number;
            message: string;
          };
        }[];
      };
    };
    const c = await q<Conn>(
      `{ launches(filter: { states: [QUEUED] }) { edges { node { launchId queuePosition
         waitingFor { kind scope key inUse max message } } } } }`,
    );
    const expected = [demo[1], demo[3], demo[0], demo[4], demo[2], other];
    expect(c.launches.nodes.map((n) => n.launchId)).toEqual(expected);
    expect(c.launches.nodes.map((n) => n.queuePosition)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const n of c.launches.nodes)
      expect(n.waitingFor).toMatchObject({ kind: "CAP", scope: "GLOBAL", key: "", inUse: 0, max: 0 });

    const queue = await q<{
      queue: { depth: number; running: number; dispatched: number; oldestQueuedAt: string | null };
      metrics: { queueDepth: number; oldestQueuedAgeMs: number };
    }>(`{ queue { depth running dispatched oldestQueuedAt } metrics { queueDepth oldestQueuedAgeMs } }`);
    const first = await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: demo[0]! } });
    expect(queue.queue).toMatchObject({ depth: 6, running: 0, dispatched: 0 });
    // The oldest queued launch is demo[0]: the queue dates it at its creation (give or take the read).
    expect(Math.abs(Date.parse(queue.queue.oldestQueuedAt!) - first.createdAt.getTime())).toBeLessThan(1000);
    expect(queue.metrics.queueDepth).toBe(6);
    expect(queue.metrics.oldestQueuedAgeMs).toBeGreaterThan(0);
  });

  it("a schedule reads back with its firings, next fire times and the launches it fired", async () => {
    const s = await h.app.schedules.create(
      {
        name: "nightly",
        workspace: "demo",
        cron: "0 3 * * *",
        timeZone: "Europe/Paris",
        overlap: "SKIP",
        missed: "RUN_ONCE",
        paused: false,
        template: {
          spec: { prompt: "nightly chores", model: "m-1" },
          priority: 70,
          timeoutMs: 60_000,
          retry: NO_RETRY,
        },
      },
      "tester",
    );
    const { launch } = await h.app.schedules.runNow(s.id, "tester");
    type S = {
      id: string;
      scheduleId: string;
      name: string;
      workspace: { name: string };
      cron: string;
      timeZone: string;
      overlap: string;
      missed: string;
      paused: boolean;
      nextFireAt: string;
      upcoming: string[];
      template: Record<string, unknown>;
      firings: {
        totalCount: number;
        nodes: { trigger: string; launch: { launchId: string } | null; skippedReason: string | null }[];
      };
    };
    const SCHEDULE = `id scheduleId name workspace { name } cron timeZone overlap missed paused nextFireAt
      upcoming(count: 3)
      template { priority timeoutMs spec { prompt model isolated } retry { maxAttempts } }
      firings { totalCount edges { node { trigger skippedReason launch { launchId } } } }`;
    const got = await q<{
      schedule: S;
      launches: { nodes: { launchId: string; schedule: { scheduleId: string } }[] };
    }>(
      `query($id: String!) { schedule(scheduleId: $id) { ${SCHEDULE} }
         launches(filter: { scheduleId: $id }) { edges { node { launchId schedule { scheduleId } } } } }`,
      { id: s.id },
    );
    expect(got.schedule).toMatchObject({
      scheduleId: s.id,
      name: "nightly",
      workspace: { name: "demo" },
      cron: "0 3 * * *",
      timeZone: "Europe/Paris",
      overlap: "SKIP",
      missed: "RUN_ONCE",
      paused: false,
      template: {
        priority: 70,
        timeoutMs: 60_000,
        spec: { prompt: "nightly chores", model: "m-1", isolated: true },
        retry: { maxAttempts: 1 },
      },
      firings: {
        totalCount: 1,
        nodes: [{ trigger: "MANUAL", skippedReason: null, launch: { launchId: launch.id } }],
      },
    });
    // Three fire times, a day apart, 03:00 in Paris, the first being nextFireAt.
    const up = got.schedule.upcoming.map((d) => Date.parse(d));
    expect(up).toHaveLength(3);
    expect(up[0]).toBe(Date.parse(got.schedule.nextFireAt));
    expect(up[0]!).toBeGreaterThan(Date.now());
    for (const t of up)
      expect(
        new Intl.DateTimeFormat("en-GB", {
          timeZone: "Europe/Paris",
          hour: "2-digit",
          minute: "2-digit",
        }).format(t),
      ).toBe("03:00");
    expect(got.launches.nodes).toEqual([{ launchId: launch.id, schedule: { scheduleId: s.id } }]);
    const tooMany = await h.gql(
      `query($id: String!) { schedule(scheduleId: $id) { upcoming(count: 101) } }`,
      {
        id: s.id,
      },
    );
    expect(tooMany.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");

    const back = await q<{ node: S & { __typename: string } }>(
      `query($id: ID!) { node(id: $id) { __typename ... on Schedule { ${SCHEDULE} } } }`,
      { id: got.schedule.id },
    );
    expect(back.node).toEqual({ __typename: "Schedule", ...got.schedule });

    const list = await q<{ schedules: { totalCount: number; nodes: { scheduleId: string }[] } }>(
      `{ schedules(filter: { workspace: "demo" }) { totalCount edges { node { scheduleId } } } }`,
    );
    expect(list.schedules).toEqual({ totalCount: 1, nodes: [{ scheduleId: s.id }] });
    await h.app.schedules.remove(s.id, "tester");
    const after = await q<{
      schedules: { totalCount: number };
      withDeleted: { totalCount: number };
      schedule: { deletedAt: string | null; upcoming: string[] };
    }>(
      `query($id: String!) { schedules { totalCount } withDeleted: schedules(filter: { includeDeleted: true }) { totalCount }
         schedule(scheduleId: $id) { deletedAt upcoming } }`,
      { id: s.id },
    );
    expect(after.schedules.totalCount).toBe(0);
    expect(after.withDeleted.totalCount).toBe(1);
    expect(after.schedule.deletedAt).not.toBeNull();
    expect(after.schedule.upcoming).toEqual([]);
    await h.app.queue.cancel(launch.id, "tester");
  });

  it("a token limited to one workspace sees none of another's launches, schedules, caps, budgets or counts", async () => {
    await h.app.queue.setCap({ scope: "WORKSPACE", key: "demo", max: 3 }, "tester");
    await h.app.queue.setCap({ scope: "WORKSPACE", key: "other", max: 2 }, "tester");
    await h.app.queue.setCap({ scope: "PROVIDER", key: "anthropic", max: 4 }, "tester");
    await h.app.queue.setBudget({ scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: 10 }, "tester");
    await h.app.queue.setBudget(
      { scope: "WORKSPACE", key: "other", period: "MONTH", limitUsd: 20 },
      "tester",
    );
    await h.app.queue.setBudget(
      { scope: "PROVIDER", key: "anthropic", period: "DAY", limitUsd: 30 },
      "tester",
    );
    const otherSchedule = await h.app.schedules.create(
      {
        name: "other's",
        workspace: "other",
        cron: "*/5 * * * *",
        overlap: "ALLOW",
        missed: "SKIP",
        paused: true,
        template: { spec: { prompt: "x" }, priority: 50, timeoutMs: null, retry: NO_RETRY },
      },
      "tester",
    );

    const VIEW = `query($other: String!, $otherSchedule: String!) {
      launches { totalCount edges { node { launchId workspace { name } } } }
      launch(launchId: $other) { launchId }
      schedule(scheduleId: $otherSchedule) { scheduleId }
      schedules(filter: { includeDeleted: true }) { totalCount edges { node { workspace { name } } } }
      queue { depth caps { scope key max } budgets { scope key period limitUsd } }
    }`;
    type View = {
      launches: { totalCount: number; nodes: { launchId: string; workspace: { name: string } }[] };
      launch: { launchId: string } | null;
      schedule: { scheduleId: string } | null;
      schedules: { totalCount: number; nodes: { workspace: { name: string } }[] };
      queue: {
        depth: number;
        caps: { scope: string; key: string }[];
        budgets: { scope: string; key: string }[];
      };
    };
    const vars = { other, otherSchedule: otherSchedule.id };
    const admin = await q<View>(VIEW, vars);
    const mine = await q<View>(VIEW, vars, demoViewer);
    const theirs = await q<View>(VIEW, vars, otherViewer);

    expect(admin.launch).toEqual({ launchId: other });
    expect(admin.schedule).toEqual({ scheduleId: otherSchedule.id });
    expect(admin.queue.caps.map((c) => `${c.scope}:${c.key}`)).toEqual([
      "GLOBAL:",
      "WORKSPACE:demo",
      "WORKSPACE:other",
      "PROVIDER:anthropic",
    ]);

    // demo's viewer: everything of demo, nothing of other.
    expect(mine.launches.nodes.every((n) => n.workspace.name === "demo")).toBe(true);
    expect(mine.launches.totalCount).toBe(admin.launches.totalCount - 1);
    expect(mine.launch).toBeNull();
    expect(mine.schedule).toBeNull();
    expect(mine.schedules.nodes.map((n) => n.workspace.name)).toEqual(["demo"]);
    expect(mine.queue.depth).toBe(5);
    expect(mine.queue.caps.map((c) => `${c.scope}:${c.key}`)).toEqual([
      "GLOBAL:",
      "WORKSPACE:demo",
      "PROVIDER:anthropic",
    ]);
    expect(mine.queue.budgets.map((b) => `${b.scope}:${b.key}`).sort()).toEqual([
      "PROVIDER:anthropic",
      "WORKSPACE:demo",
    ]);

    // other's viewer: only other's.
    expect(theirs.launches).toEqual({
      totalCount: 1,
      nodes: [{ launchId: other, workspace: { name: "other" } }],
    });
    expect(theirs.launch).toEqual({ launchId: other });
    expect(theirs.schedule).toEqual({ scheduleId: otherSchedule.id });
    expect(theirs.queue.depth).toBe(1);
    expect(theirs.queue.caps.map((c) => `${c.scope}:${c.key}`)).toEqual([
      "GLOBAL:",
      "WORKSPACE:other",
      "PROVIDER:anthropic",
    ]);
    expect(theirs.queue.budgets.map((b) => `${b.scope}:${b.key}`).sort()).toEqual([
      "PROVIDER:anthropic",
      "WORKSPACE:other",
    ]);

    // By global id, and by cursor, other's launch does not exist for demo's viewer.
    const ids = await q<{ launch: { id: string }; schedule: { id: string } }>(
      `query($l: String!, $s: String!) { launch(launchId: $l) { id } schedule(scheduleId: $s) { id } }`,
      { l: other, s: otherSchedule.id },
    );
    const hidden = await h.gql(
      `query($l: ID!, $s: ID!) { l: node(id: $l) { id } s: node(id: $s) { id } }`,
      { l: ids.launch.id, s: ids.schedule.id },
      demoViewer,
    );
    expect(hidden).toEqual({ data: { l: null, s: null } });
    const cursor = Buffer.from(`GPC:S:${other}`).toString("base64");
    const paged = await h.gql<{ launches: unknown }>(
      `query($c: String!) { launches(after: $c) { totalCount } }`,
      { c: cursor },
      demoViewer,
    );
    expect(paged.data?.launches).toBeNull();
    expect(paged.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    // The admin may page from it.
    const ok = await q<{ launches: { nodes: { launchId: string }[] } }>(
      `query($c: String!) { launches(after: $c, first: 1) { edges { node { launchId } } } }`,
      { c: cursor },
    );
    expect(ok.launches.nodes).toEqual([{ launchId: demo[4] }]);
  });
});

describe("fleetChanges", () => {
  type Item = {
    fleetChanges: {
      __typename: string;
      cursor: string;
      from?: string | null;
      to?: string;
      reason?: string | null;
      attempt?: number | null;
      launch?: { launchId: string; state: string };
    };
  };
  const SUB = `subscription($after: String) { fleetChanges(after: $after) { __typename
    ... on LaunchChanged { cursor from to reason attempt launch { launchId state } }
    ... on FleetSeedComplete { cursor } } }`;

  it("delivers LaunchChanged items live, only to tokens of the launch's workspace, and resumes after one's cursor", async () => {
    const admin = collect<Item>(h.ws(), SUB, {});
    const limited = collect<Item>(h.ws(otherViewer), SUB, {});
    for (const s of [admin, limited])
      await waitFor(
        () => s.items.some((i) => i.fleetChanges.__typename === "FleetSeedComplete"),
        5_000,
        "seed",
      );
    const before = await q<{ metrics: { launchCancellationsTotal: number } }>(
      `{ metrics { launchCancellationsTotal } }`,
    );

    const id = await enqueue({ prompt: "to be cancelled", dedupKey: "cancel-me" });
    await h.app.queue.cancel(id, "tester");
    const mineOf = (s: { items: Item[] }) =>
      s.items
        .map((i) => i.fleetChanges)
        .filter((c) => c.__typename === "LaunchChanged" && c.launch?.launchId === id);
    await waitFor(() => mineOf(admin).length >= 2, 5_000, "both changes");
    const changes = mineOf(admin);
    expect(changes.map((c) => ({ from: c.from, to: c.to, attempt: c.attempt }))).toEqual([
      { from: null, to: "QUEUED", attempt: null },
      { from: "QUEUED", to: "CANCELLED", attempt: null },
    ]);
    expect(changes[1]!.reason).toBe("cancelled by tester");
    // The launch as stored when the item was delivered: cancelled by the second.
    expect(changes[1]!.launch!.state).toBe("CANCELLED");
    const after = await q<{ metrics: { launchCancellationsTotal: number } }>(
      `{ metrics { launchCancellationsTotal } }`,
    );
    expect(after.metrics.launchCancellationsTotal).toBe(before.metrics.launchCancellationsTotal + 1);

    // A launch of "other" reaches other's viewer; demo's never did.
    const theirs = await enqueue({ workspace: "other", prompt: "theirs" });
    await waitFor(
      () => limited.items.some((i) => i.fleetChanges.launch?.launchId === theirs),
      5_000,
      "other's change",
    );
    expect(mineOf(limited)).toEqual([]);
    expect(
      limited.items
        .map((i) => i.fleetChanges)
        .filter((c) => c.__typename === "LaunchChanged")
        .map((c) => c.launch!.launchId),
    ).toEqual([theirs]);
    admin.stop();
    limited.stop();

    // Resuming after the first change: no seed, the cancel next (then what followed), nothing repeated.
    const resumed = collect<Item>(h.ws(), SUB, { after: changes[0]!.cursor }, (items) =>
      items.some((i) => i.fleetChanges.launch?.launchId === theirs),
    );
    await resumed.done;
    const got = resumed.items
      .map((i) => i.fleetChanges)
      .filter((c) => c.__typename !== "WorkspaceHealthChanged");
    expect(got.some((c) => c.__typename === "FleetSeedComplete")).toBe(false);
    expect(got.map((c) => [c.__typename, c.launch?.launchId, c.to])).toEqual([
      ["LaunchChanged", id, "CANCELLED"],
      ["LaunchChanged", theirs, "QUEUED"],
    ]);
    expect(got[0]!.cursor).toBe(changes[1]!.cursor);
  });
});
