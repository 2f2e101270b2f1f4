// The compiled per-event executor (src/server/event-executor.ts, issue 17): through the gateway's
// real schema, with a real context over a real store (startAppHarness: gateway, SQLite, caliband
// double), every FleetEvent kind and the other subscription items go through the subscription
// documents the SDK and the dashboard use (trusted-documents.json) on both executors —
// graphql-tools' `execute` and the compiled one — and their results must serialize to the same
// bytes. Error cases (a field error, null bubbling, a type refused to a limited token) must come
// out identical too, and must have been answered by graphql-tools (the compiled path gives up on
// any error). The executor must really have run compiled code for every error-free event:
// otherwise the equality would prove nothing.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type OperationDefinitionNode,
} from "graphql";
import { execute, type ExecutionArgs } from "@graphql-tools/executor";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { buildSchema } from "../../src/schema/index.js";
import type { GraphQLContext } from "../../src/schema/context.js";
import type { Principal } from "../../src/auth/roles.js";
import {
  EVENT_KINDS,
  PayloadSchemas,
  streamKeyOf,
  type EventKind,
  type FleetEvent,
  type PayloadOf,
} from "../../src/events/index.js";
import type { GapItem } from "../../src/schema/events.js";
import type { FleetChangeItem } from "../../src/resolvers/subscription.js";
import { ReplayLimiter } from "../../src/bus/replay-limiter.js";
import {
  createEventExecutor,
  type EventResult,
  type FallbackReason,
} from "../../src/server/event-executor.js";

let h: AppHarness;
let agentId: string;
let launchId: string;
let scheduleId: string;
let admin: Principal;
let limited: Principal;

/** The gateway's per-operation context (as src/server/gateway.ts builds it) for `auth`. */
function contextFor(auth: Principal): GraphQLContext {
  const a = h.app;
  return {
    prisma: a.db.prisma,
    fleet: a.fleet,
    store: a.store,
    bus: a.bus,
    tokens: a.tokens,
    audit: a.audit,
    replays: new ReplayLimiter(),
    queue: a.queue,
    schedules: a.schedules,
    inbox: a.inbox,
    monitor: a.monitor,
    webhooks: a.webhooks,
    notifier: a.notifier,
    capture: a.capture,
    readiness: () => {
      throw new Error("no event document reads readiness");
    },
    auth,
    remoteAddress: null,
    clientKey: "test:event-executor",
  };
}

function principalOf(secret: string): Principal {
  const check = h.app.tokens.verify(secret);
  if (!check.ok) throw new Error(`token refused: ${check.reason}`);
  return check.principal;
}

beforeAll(async () => {
  h = await startAppHarness();
  const spawned = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation { spawnAgent(input: { workspace: "demo", prompt: "chat with me", interactive: true, label: "jit" }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
  );
  agentId = spawned.data!.spawnAgent.agent.agentId;
  // An interactive run settles at idle and stays there: its row does not change under the tests.
  await waitFor(() => h.app.fleet.state.agent(agentId)?.status === "idle", 15_000, "idle");
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const launch = await h.gql<{ enqueueLaunch: { launch?: { launchId: string } } }>(
    `mutation($input: EnqueueLaunchInput!) { enqueueLaunch(input: $input) { ... on EnqueueLaunchPayload { launch { launchId } } } }`,
    { input: { workspace: "demo", prompt: "later", notBefore: later, retry: { maxAttempts: 2 } } },
  );
  launchId = launch.data!.enqueueLaunch.launch!.launchId;
  const schedule = await h.gql<{ createSchedule: { schedule?: { scheduleId: string } } }>(
    `mutation($input: CreateScheduleInput!) { createSchedule(input: $input) { ... on CreateSchedulePayload { schedule { scheduleId } } } }`,
    { input: { name: "yearly", workspace: "demo", cron: "0 0 1 1 *", template: { prompt: "new year" } } },
  );
  scheduleId = schedule.data!.createSchedule.schedule!.scheduleId;
  admin = principalOf(h.token);
  limited = principalOf(
    await h.createToken({ name: "jit-elsewhere", role: "VIEWER", workspaces: ["elsewhere"] }),
  );
}, 60_000);

afterAll(async () => {
  await h?.close();
});

// Fixtures ---------------------------------------------------------------------------------------

/**
 * Payloads of every kind (a full one, and one with every nullable field null); the `satisfies`
 * makes a new kind without fixtures a type error.
 */
const PAYLOADS = {
  agent_spawned: [
    {
      name: "agent-one",
      spec: {
        initial_prompt: "fix the build",
        model: "claude-x",
        provider: "anthropic",
        tool_allowlist: ["Read", "Edit"],
        source: "cli",
        label: "build",
        frontmatter_path: "agents/build.md",
        isolation_worktree: true,
        interactive: false,
      },
    },
    { name: "agent-two", spec: {} },
  ],
  agent_discovered: [{ name: "found", status: "running" }],
  status_changed: [
    { from: "starting", to: "running" },
    { from: "running", to: "failed" },
  ],
  agent_gone: [
    { reason: "respawned", replacedBy: "0123456789ab" },
    { reason: "vanished", replacedBy: null },
  ],
  workspace_health: [
    { state: "unreachable", reason: "connect ECONNREFUSED" },
    { state: "healthy", reason: null },
  ],
  turn_started: [{ turnIndex: 3, model: "claude-x", messageId: "msg_1" }],
  output: [
    { stream: "text", text: 'hello \u2028 "world" \ud83d\ude00', turnIndex: 0, blockIndex: 1 },
    { stream: "thinking", text: "", turnIndex: 2, blockIndex: 0 },
  ],
  tool_started: [{ toolUseId: "tu_1", name: "Bash", turnIndex: 1 }],
  tool_finished: [
    {
      toolUseId: "tu_1",
      name: "Bash",
      ok: true,
      input: { command: "ls", nested: { a: [1, 2.5, null, true] } },
      inputRaw: '{"command":"ls"}',
      resultText: "a\nb",
      truncated: false,
      durationMs: 12.5,
      turnIndex: 1,
    },
    {
      toolUseId: "tu_2",
      name: "Read",
      ok: false,
      input: null,
      inputRaw: "",
      resultText: "",
      truncated: true,
      durationMs: null,
      turnIndex: 0,
    },
  ],
  turn_completed: [
    {
      turnIndex: 1,
      stopReason: "end_turn",
      usage: { input: 100, output: 20, cacheRead: 50, cacheCreation: 5 },
      ttftMs: 120,
      tbtMs: 3.5,
      model: "claude-x",
      estimatedCostUsd: 0.0123,
    },
    {
      turnIndex: 0,
      stopReason: "something_new",
      usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
      ttftMs: null,
      tbtMs: null,
      model: null,
      estimatedCostUsd: null,
    },
  ],
  agent_finished: [
    {
      outcome: "done",
      detail: "all good",
      turns: 4,
      usage: { input: 1000, output: 200, cacheRead: 500, cacheCreation: 50 },
      model: "claude-x",
      estimatedCostUsd: 1.5,
      finalMessage: "done it",
    },
    {
      outcome: "failed",
      detail: null,
      turns: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
      model: null,
      estimatedCostUsd: null,
      finalMessage: null,
    },
  ],
  input_sent: [{ text: "please continue" }],
  input_ended: [{}],
  input_failed: [
    { text: "lost", reason: "EPIPE" },
    { text: null, reason: "closed" },
  ],
  ingest_gap: [
    { missedLines: 12, detail: "evicted", missedBytes: 4096, reason: "replay_evicted" },
    { missedLines: null, detail: "old", missedBytes: null, reason: null },
  ],
  store_persist_failed: [{ lostSeq: 7, detail: "SQLITE_BUSY" }],
  worker_log: [
    { status: "failed", tail: "boom\n", truncated: true, bytes: 5, exitCode: 1, reason: null },
    { status: "crashed", tail: null, truncated: false, bytes: null, exitCode: null, reason: "missing" },
  ],
  launch_changed: [
    { launchId: "l1", from: "QUEUED", to: "DISPATCHED", reason: "go", attempt: 1, agentId: "0123456789ab" },
    { launchId: "l2", from: null, to: "QUEUED", reason: null, attempt: null, agentId: null },
  ],
  schedule_changed: [
    { scheduleId: "s1", change: "fired", launchId: "l1", fireAtMs: 1_700_000_000_000, reason: null },
    { scheduleId: "s2", change: "skipped", launchId: null, fireAtMs: null, reason: "overlap" },
  ],
  changes_captured: [
    {
      state: "CAPTURED",
      reason: null,
      baseCommit: "a".repeat(40),
      headCommit: "b".repeat(40),
      trigger: "TURN_END",
      turnIndex: 2,
      files: 3,
      additions: 10,
      deletions: 4,
      skippedFiles: 0,
      final: false,
    },
    {
      state: "NOT_CAPTURED",
      reason: "not a git repository",
      baseCommit: null,
      headCommit: null,
      trigger: null,
      turnIndex: null,
      files: 0,
      additions: 0,
      deletions: 0,
      skippedFiles: 0,
      final: true,
    },
  ],
} satisfies { [K in EventKind]: PayloadOf<K>[] };

let nextGlobalId = 100;

/** Stored events of every kind and payload variant, in an agent's stream or a workspace's. */
function fleetEvents(): FleetEvent[] {
  const out: FleetEvent[] = [];
  for (const kind of EVENT_KINDS) {
    const payloads: unknown[] = PAYLOADS[kind];
    payloads.forEach((raw, i) => {
      const atAgent = kind !== "workspace_health" && kind !== "launch_changed" && kind !== "schedule_changed";
      const base = {
        workspace: "demo",
        agentId: atAgent ? agentId : "",
        tsMs: 1_764_000_000_000 + i,
      };
      const e = {
        ...base,
        kind,
        payload: PayloadSchemas[kind].parse(raw),
        streamKey: streamKeyOf({ ...base, kind }),
        seq: 10 + i,
        // A store_persist_failed marker is live-only: no commit position.
        globalId: kind === "store_persist_failed" ? null : nextGlobalId++,
      } as FleetEvent;
      out.push(e);
    });
  }
  return out;
}

function gaps(): GapItem[] {
  const gap = (commitOrder: boolean, streamKey: string): GapItem => ({
    kind: "gap",
    streamKey,
    afterPosition: 42,
    commitOrder,
    reason: "subscriber fell behind",
    tsMs: 1_764_000_000_500,
    workspace: "",
    agentId: "",
  });
  return [gap(false, agentId), gap(true, "workspace:demo"), gap(true, "fleet")];
}

/** One fleetChanges item of every type, naming the rows the harness stored. */
function changeItems(): FleetChangeItem[] {
  const health = h.app.fleet.state.healthOf("demo");
  return [
    { type: "agent", change: "seed", agentId, cursor: 5 },
    { type: "agent", change: "spawned", agentId, cursor: 6 },
    { type: "agent", change: "discovered", agentId, cursor: 7 },
    { type: "status", agentId, from: "running", to: "idle", cursor: 8 },
    { type: "gone", agentId, workspace: "demo", reason: "respawned", replacedBy: "0123456789ab", cursor: 9 },
    { type: "gone", agentId, workspace: "demo", reason: "removed", replacedBy: null, cursor: 10 },
    { type: "health", workspace: "demo", health, seed: true, cursor: 11 },
    {
      type: "health",
      workspace: "demo",
      health: { state: "unreachable", reason: "down", since: new Date(1_764_000_000_000) },
      seed: false,
      cursor: 12,
    },
    { type: "launch", launchId, from: null, to: "QUEUED", reason: null, attempt: null, cursor: 13 },
    {
      type: "launch",
      launchId,
      from: "QUEUED",
      to: "BOGUS_STATE",
      reason: "not before",
      attempt: 1,
      cursor: 14,
    },
    {
      type: "schedule",
      scheduleId,
      change: "created",
      launchId: null,
      fireAtMs: null,
      reason: null,
      cursor: 15,
    },
    {
      type: "schedule",
      scheduleId,
      change: "fired",
      launchId,
      fireAtMs: 1_764_000_000_000,
      reason: "on time",
      cursor: 16,
    },
    { type: "changes", agentId, workspace: "demo", cursor: 17 },
    { type: "seed_complete", cursor: 18 },
    { type: "gap", cursor: 19 },
  ];
}

// Documents --------------------------------------------------------------------------------------

interface Doc {
  label: string;
  document: DocumentNode;
  operationName: string | undefined;
  root: string;
}

/** Every operation of trusted-documents.json (SDK and dashboard) whose root field is one of `roots`. */
function trustedDocuments(roots: readonly string[], kind: "subscription" | "query"): Doc[] {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(import.meta.dirname, "../../trusted-documents.json"), "utf8"),
  ) as Record<string, string>;
  const out: Doc[] = [];
  for (const text of Object.values(manifest)) {
    const document = parse(text);
    for (const def of document.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION || def.operation !== kind) continue;
      const field = (def as OperationDefinitionNode).selectionSet.selections[0];
      const root = field?.kind === Kind.FIELD ? field.name.value : "";
      if (!roots.includes(root)) continue;
      out.push({ label: def.name?.value ?? "(anonymous)", document, operationName: def.name?.value, root });
    }
  }
  return out;
}

/** The bench's documents (bench/scenarios/fanout.ts QUERIES, footprint.ts): minimal selections. */
const BENCH_DOCUMENTS: Doc[] = [
  [
    "bench agentEvents",
    "agentEvents",
    "subscription($agentId: String!) { agentEvents(agentId: $agentId) { __typename ... on OutputEvent { text } } }",
  ],
  [
    "bench fleetEvents",
    "fleetEvents",
    "subscription($agentId: String!) { fleetEvents(filter: { agentId: $agentId }) { __typename ... on OutputEvent { text } } }",
  ],
  [
    "footprint agentEvents",
    "agentEvents",
    "subscription($id: String!) { agentEvents(agentId: $id) { __typename seq } }",
  ],
].map(([label, root, text]) => ({
  label: label!,
  root: root!,
  document: parse(text!),
  operationName: undefined,
}));

/** Variables a client of `root` sends (the root field's arguments only: the item ignores them). */
function variablesOf(root: string): Record<string, unknown> {
  switch (root) {
    case "agentEvents":
      return { agentId, id: agentId, after: null };
    case "workspaceEvents":
      return { workspace: "demo" };
    case "fleetEvents":
      return { filter: { agentId, kinds: ["OUTPUT", "GAP"] }, agentId };
    default:
      return {};
  }
}

// Running both -----------------------------------------------------------------------------------

/** Where the shared executor reports how the current execution ran. */
let sink: ("jit" | FallbackReason)[] = [];
/** One executor for the whole file, as the gateway would hold one (documents compiled once). */
const jit = createEventExecutor({ queries: true, onExecuted: (x) => sink.push(x) });

/** Both executors' results of one execution, serialized, and how the compiled one answered. */
async function both(
  doc: Doc,
  rootValue: unknown,
  auth: Principal,
  variableValues = variablesOf(doc.root),
): Promise<{ reference: string; compiled: string; how: ("jit" | FallbackReason)[]; result: EventResult }> {
  const schema = buildSchema();
  const how: ("jit" | FallbackReason)[] = [];
  sink = how;
  const args = (): ExecutionArgs => ({
    schema,
    document: doc.document,
    operationName: doc.operationName,
    variableValues,
    rootValue,
    contextValue: contextFor(auth),
  });
  const reference = await execute(args());
  const result = await jit(args());
  return { reference: JSON.stringify(reference), compiled: JSON.stringify(result), how, result };
}

const EVENT_ROOTS = ["agentEvents", "workspaceEvents", "fleetEvents"] as const;

describe("the compiled executor answers graphql-tools' bytes", () => {
  it("finds the SDK's and the dashboard's subscription documents", () => {
    const labels = trustedDocuments([...EVENT_ROOTS, "fleetChanges"], "subscription").map(
      (d) => `${d.root}:${d.label}`,
    );
    expect(labels).toEqual(
      expect.arrayContaining([
        "agentEvents:AgentEvents",
        "agentEvents:DashboardAgentEvents",
        "workspaceEvents:WorkspaceEvents",
        "fleetEvents:FleetEvents",
        "fleetChanges:DashboardFleetChanges",
      ]),
    );
  });

  it("every FleetEvent kind (and GapEvent) through every event-stream document, compiled, byte for byte", async () => {
    const docs = [...trustedDocuments(EVENT_ROOTS, "subscription"), ...BENCH_DOCUMENTS];
    const items = [...fleetEvents(), ...gaps()];
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set([...EVENT_KINDS, "gap"]));
    let runs = 0;
    for (const doc of docs) {
      for (const item of items) {
        const r = await both(doc, item, admin);
        const what = `${doc.label} × ${item.kind}`;
        expect(r.compiled, what).toBe(r.reference);
        expect(r.how, what).toEqual(["jit"]);
        expect(r.reference, what).not.toContain('"errors"');
        runs++;
      }
    }
    expect(runs).toBeGreaterThanOrEqual(7 * items.length);
  });

  it("every fleetChanges item through the dashboard's document, with its Prisma reads, compiled, byte for byte", async () => {
    const docs = trustedDocuments(["fleetChanges"], "subscription");
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) {
      for (const item of changeItems()) {
        const r = await both(doc, item, admin);
        const what = `${doc.label} × ${item.type}`;
        expect(r.compiled, what).toBe(r.reference);
        expect(r.reference, what).not.toContain('"errors"');
        expect(r.how, what).toEqual(["jit"]);
      }
    }
    // The rows were really read (not nulls that would compare equal anyway).
    const r = await both(docs[0]!, changeItems()[1], admin);
    expect(r.reference).toContain(`"agentId":"${agentId}"`);
    expect(r.reference).toContain('"workspace":{"name":"demo"}');
  });

  it("the SDK's paging query (queries: true), over the stored history, byte for byte", async () => {
    const [doc] = trustedDocuments(["events"], "query");
    expect(doc?.label).toBe("AgentEventsPage");
    const first = await both(doc!, undefined, admin, { agentId, first: 2 });
    expect(first.compiled).toBe(first.reference);
    expect(first.how).toEqual(["jit"]);
    const page = JSON.parse(first.reference) as {
      data: { events: { nodes: unknown[]; pageInfo: { endCursor: string } } };
    };
    expect(page.data.events.nodes).toHaveLength(2);
    for (const vars of [
      { agentId },
      { agentId, first: 1, after: page.data.events.pageInfo.endCursor },
      { agentId, kinds: ["STATUS_CHANGED", "AGENT_SPAWNED"] },
    ]) {
      const r = await both(doc!, undefined, admin, vars);
      expect(r.compiled, JSON.stringify(vars)).toBe(r.reference);
      expect(r.how, JSON.stringify(vars)).toEqual(["jit"]);
    }
  });
});

describe("errors are graphql-tools' own", () => {
  it("a field error with null bubbling to the root: an enum value the type cannot represent", async () => {
    const [doc] = trustedDocuments(["agentEvents"], "subscription");
    const bad = { ...fleetEvents().find((e) => e.kind === "output")! } as FleetEvent;
    (bad as { payload: unknown }).payload = { stream: "bogus", text: "x", turnIndex: 0, blockIndex: 0 };
    const r = await both(doc!, bad, admin);
    expect(r.compiled).toBe(r.reference);
    expect(r.how).toEqual(["errors"]);
    expect(JSON.parse(r.reference)).toMatchObject({
      data: null,
      errors: [{ path: ["agentEvents", "stream"] }],
    });
  });

  it("a resolver that throws (a run that is not stored): the error and the nulls of graphql-tools", async () => {
    const [doc] = trustedDocuments(["fleetChanges"], "subscription");
    const r = await both(
      doc!,
      { type: "status", agentId: "ffffffffffff", from: "running", to: "idle", cursor: 1 },
      admin,
    );
    expect(r.compiled).toBe(r.reference);
    expect(r.how).toEqual(["errors"]);
    expect(JSON.parse(r.reference)).toMatchObject({
      data: null,
      errors: [{ path: ["fleetChanges", "agent"] }],
    });
    // The error object itself is graphql-tools' (yoga masks by it, the gateway's onNext reads its extensions).
    const err = (r.result as ExecutionResult).errors![0]!;
    expect(err.originalError).toBeDefined();
  });

  it("a type refused to a token limited to other workspaces: Agent's authScopes, exactly as graphql-tools refuses", async () => {
    const [doc] = trustedDocuments(["fleetChanges"], "subscription");
    const item: FleetChangeItem = { type: "agent", change: "seed", agentId, cursor: 5 };
    const r = await both(doc!, item, limited);
    expect(r.compiled).toBe(r.reference);
    expect(r.how).toEqual(["errors"]);
    expect(r.reference).toContain('"errors"');
    expect(r.reference).not.toContain(agentId);
    // The same item for the admin token is compiled and carries the run.
    const ok = await both(doc!, item, admin);
    expect(ok.how).toEqual(["jit"]);
    expect(ok.reference).toContain(agentId);
  });
});

describe("what runs on graphql-tools without trying compiled code", () => {
  /** A small schema whose `Odd` scalar serializes "none" to null (graphql-js refuses that). */
  const odd = new GraphQLScalarType({ name: "Odd", serialize: (v) => (v === "none" ? null : v) });
  const small = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: "Query",
      fields: {
        odd: { type: odd, resolve: (root: { odd: string }) => root.odd },
        hello: { type: GraphQLString, resolve: () => "hi" },
      },
    }),
    mutation: new GraphQLObjectType({
      name: "Mutation",
      fields: { touch: { type: GraphQLString, resolve: () => "touched" } },
    }),
  });

  async function run(text: string, opts: { queries?: boolean; operationName?: string; root?: unknown } = {}) {
    const how: ("jit" | FallbackReason)[] = [];
    const exec = createEventExecutor({ queries: opts.queries ?? true, onExecuted: (x) => how.push(x) });
    const args: ExecutionArgs = {
      schema: small,
      document: parse(text),
      operationName: opts.operationName,
      rootValue: opts.root ?? { odd: "x" },
    };
    const reference = JSON.stringify(await execute(args));
    const result = await exec(args);
    return { how, reference, compiled: JSON.stringify(result), result };
  }

  it("a leaf whose serialize returns null is an error, as graphql-js says (not a silent null)", async () => {
    const r = await run("{ odd hello }", { root: { odd: "none" } });
    expect(r.compiled).toBe(r.reference);
    expect(r.how).toEqual(["errors"]);
    expect(r.reference).toContain("Odd.serialize");
    const fine = await run("{ odd hello }");
    expect(fine.how).toEqual(["jit"]);
    expect(fine.compiled).toBe(fine.reference);
  });

  it("mutations; queries unless enabled; @defer/@stream; an operation that cannot be chosen", async () => {
    expect((await run("mutation { touch }")).how).toEqual(["mutation"]);
    expect((await run("{ hello }", { queries: false })).how).toEqual(["query"]);
    const deferred = await run("{ hello ... @defer { odd } }");
    expect(deferred.how).toEqual(["incremental"]);
    expect("initialResult" in deferred.result).toBe(true);
    const two = await run("query A { hello } query B { odd }");
    expect(two.how).toEqual(["compile"]);
    expect(two.compiled).toBe(two.reference);
    const named = await run("query A { hello } query B { odd }", { operationName: "B" });
    expect(named.how).toEqual(["jit"]);
    expect(named.compiled).toBe(named.reference);
  });

  it("a response key __proto__ (alias or field): graphql-tools answers, in its key order", async () => {
    const aliased = await run("{ __proto__: hello odd }");
    expect(aliased.how).toEqual(["compile"]);
    expect(aliased.compiled).toBe(aliased.reference);
    expect(aliased.compiled).toBe('{"data":{"__proto__":"hi","odd":"x"}}');
    const other = await run("{ proto: hello odd }");
    expect(other.how).toEqual(["jit"]);
    expect(other.compiled).toBe(other.reference);
  });

  it("compileAfter: graphql-tools answers a document's first executions, then it is compiled", async () => {
    const how: ("jit" | FallbackReason)[] = [];
    const exec = createEventExecutor({ queries: true, compileAfter: 2, onExecuted: (x) => how.push(x) });
    const document = parse("{ hello }");
    const out = [];
    for (let i = 0; i < 4; i++)
      out.push(JSON.stringify(await exec({ schema: small, document, rootValue: {} })));
    expect(out).toEqual(Array(4).fill('{"data":{"hello":"hi"}}'));
    expect(how).toEqual(["warming", "warming", "jit", "jit"]);
  });

  it("keeps one compiled query per operation of a document", async () => {
    const how: ("jit" | FallbackReason)[] = [];
    const exec = createEventExecutor({ queries: true, onExecuted: (x) => how.push(x) });
    const document = parse("query A { hello } query B { odd }");
    const a = await exec({ schema: small, document, operationName: "A", rootValue: {} });
    const b = await exec({ schema: small, document, operationName: "B", rootValue: { odd: "y" } });
    const a2 = await exec({ schema: small, document, operationName: "A", rootValue: {} });
    expect([a, b, a2].map((x) => JSON.stringify(x))).toEqual([
      '{"data":{"hello":"hi"}}',
      '{"data":{"odd":"y"}}',
      '{"data":{"hello":"hi"}}',
    ]);
    expect(how).toEqual(["jit", "jit", "jit"]);
  });
});
