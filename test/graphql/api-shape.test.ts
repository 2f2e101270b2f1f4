// Issue 13 items 1-5 through a real gateway (in-process, real port, the caliband double): global
// ids that node()/nodes() read back (and null, never an error, for anything else); one mutation
// shape whose result union holds exactly the errors the mutation can produce, with an enum code;
// nullable roots (a bad argument nulls only its field) and @oneOf event sources; one connection
// rule (first/last 0..500, not both; first: 0 is an empty page) with backward paging and
// totalCount; enum statuses in typed errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";

let h: AppHarness;
/** Two finished runs of workspace "demo" (a, b) and a token created through the API. */
let a: string;
let b: string;

async function spawnDone(prompt: string): Promise<string> {
  const r = await h.gql<{ spawnAgent: { __typename: string; agent: { agentId: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) {
       __typename ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt },
  );
  expect(r.data?.spawnAgent.__typename, JSON.stringify(r)).toBe("SpawnAgentPayload");
  const id = r.data!.spawnAgent.agent.agentId;
  await waitFor(() => h.app.fleet.state.agent(id)?.status === "done", 15_000, `${id} done`);
  return id;
}

beforeAll(async () => {
  h = await startAppHarness();
  a = await spawnDone("Read README.md and summarize it.");
  b = await spawnDone("quick");
  await h.createToken({ name: "reader", role: "VIEWER" });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/**
 * A global id as the gateway encodes them (Pothos' Relay default: base64 of `<Type>:<key>`), for
 * ids the gateway never issued but that are shaped like its own.
 */
function globalId(type: string, key: string): string {
  return Buffer.from(`${type}:${key}`, "utf8").toString("base64");
}

const READ_BACK = `__typename id
  ... on Workspace { name }
  ... on Agent { agentId }
  ... on FleetEvent { seq cursor eventAgentId: agentId }
  ... on OutputEvent { text }
  ... on ApiToken { tokenId name }
  ... on AuditEntry { position operation }`;

describe("global object identification (item 1)", () => {
  it("node() reads back a workspace, an agent, an event, a token and an audit entry by their ids", async () => {
    type Ids = {
      workspace: { id: string; name: string };
      agent: { id: string; agentId: string };
      events: { nodes: { __typename: string; id: string; seq: number; cursor: string }[] };
      tokens: { id: string; tokenId: string; name: string }[];
      auditLog: { edges: { node: { id: string; position: number; operation: string } }[] };
    };
    const ids = await h.gql<Ids>(
      `query($a: String!) {
        workspace(name: "demo") { id name }
        agent(agentId: $a) { id agentId }
        events(of: { agentId: $a }, filter: { kinds: [OUTPUT] }, first: 1) { nodes { __typename id seq cursor } }
        tokens { id tokenId name }
        auditLog(first: 1, filter: { operation: "createToken" }) { edges { node { id position operation } } }
      }`,
      { a },
    );
    expect(ids.errors).toBeUndefined();
    const d = ids.data!;
    const event = d.events.nodes[0]!;
    const token = d.tokens.find((t) => t.name === "reader")!;
    const audit = d.auditLog.edges[0]!.node;
    expect(event.__typename).toBe("OutputEvent");
    expect(token).toBeDefined();
    expect(audit.operation).toBe("createToken");
    // Opaque and distinct: not the daemon's id, the name or the position.
    const all = [d.workspace.id, d.agent.id, event.id, token.id, audit.id];
    expect(new Set(all).size).toBe(5);
    expect(all).not.toContain(a);
    expect(all).not.toContain("demo");
    expect(all).not.toContain(token.tokenId);

    const back = await h.gql<Record<string, Record<string, unknown> | null>>(
      `query($w: ID!, $ag: ID!, $e: ID!, $t: ID!, $u: ID!) {
        w: node(id: $w) { ${READ_BACK} }
        ag: node(id: $ag) { ${READ_BACK} }
        e: node(id: $e) { ${READ_BACK} }
        t: node(id: $t) { ${READ_BACK} }
        u: node(id: $u) { ${READ_BACK} }
      }`,
      { w: d.workspace.id, ag: d.agent.id, e: event.id, t: token.id, u: audit.id },
    );
    expect(back.errors).toBeUndefined();
    const stored = (await h.app.store.readStream(a, 0, 10_000)).find((x) => x.seq === event.seq)!;
    expect(back.data).toEqual({
      w: { __typename: "Workspace", id: d.workspace.id, name: "demo" },
      ag: { __typename: "Agent", id: d.agent.id, agentId: a },
      e: {
        __typename: "OutputEvent",
        id: event.id,
        seq: event.seq,
        cursor: event.cursor,
        eventAgentId: a,
        text: (stored.payload as { text: string }).text,
      },
      t: { __typename: "ApiToken", id: token.id, tokenId: token.tokenId, name: "reader" },
      u: { __typename: "AuditEntry", id: audit.id, position: audit.position, operation: "createToken" },
    });
  });

  it("node() of an unknown but well-formed id, a malformed id or a random string is null, with no error", async () => {
    const spawned = (await h.app.store.readStream(a, 0, 1))[0]!;
    expect(spawned.kind).toBe("agent_spawned");
    // The ids below are shaped as the gateway's own: the same encoding gives its real ids.
    const real = await h.gql<{ agent: { id: string }; events: { nodes: { id: string }[] } }>(
      `query($a: String!) { agent(agentId: $a) { id } events(of: { agentId: $a }, first: 1) { nodes { id } } }`,
      { a },
    );
    expect(real.data).toEqual({
      agent: { id: globalId("Agent", a) },
      events: { nodes: [{ id: globalId("AgentSpawnedEvent", `1:${a}`) }] },
    });
    const unknown = [
      globalId("Agent", "000000000000"),
      globalId("Workspace", "nope"),
      globalId("ApiToken", "000000000000"),
      globalId("AuditEntry", "999999999"),
      globalId("AgentSpawnedEvent", `99999:${a}`), // no such seq
      globalId("OutputEvent", `1:${a}`), // seq 1 exists, but is an AgentSpawnedEvent
      globalId("GapEvent", `1:gap:${a}`), // a delivery signal, never stored
    ];
    const malformed = [
      globalId("Agent", ""),
      globalId("NoSuchType", "1"),
      globalId("Query", "x"),
      globalId("AgentSpawnedEvent", "not-a-seq"),
      Buffer.from("no colon at all").toString("base64"),
      "",
    ];
    const random = ["not a global id", "%%%", "🙂", "x".repeat(2000)];
    for (const id of [...unknown, ...malformed, ...random]) {
      const r = await h.gql(`query($id: ID!) { node(id: $id) { __typename id } }`, { id });
      expect(r, id).toEqual({ data: { node: null } });
    }
    // An id of something outside the token's workspaces reads as unknown too.
    const outsider = await h.createToken({ name: "outsider", role: "VIEWER", workspaces: ["elsewhere"] });
    const hidden = await h.gql(
      `query($id: ID!, $ids: [ID!]!) { node(id: $id) { id } nodes(ids: $ids) { id } }`,
      { id: real.data!.agent.id, ids: [real.data!.agent.id, real.data!.events.nodes[0]!.id] },
      outsider,
    );
    expect(hidden).toEqual({ data: { node: null, nodes: [null, null] } });
  });

  it("nodes() answers in order, null for each id that names nothing, and data is not null", async () => {
    const ids = await h.gql<{ agent: { id: string }; workspace: { id: string } }>(
      `query($a: String!) { agent(agentId: $a) { id } workspace(name: "demo") { id } }`,
      { a },
    );
    const agentId = ids.data!.agent.id;
    const workspaceId = ids.data!.workspace.id;
    const r = await h.gql(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Agent { agentId } } }`,
      { ids: [agentId, globalId("Agent", "000000000000")] },
    );
    expect(r).toEqual({ data: { nodes: [{ __typename: "Agent", id: agentId, agentId: a }, null] } });
    const mixed = await h.gql<{ nodes: ({ id: string } | null)[] }>(
      `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
      { ids: ["garbage", workspaceId, globalId("Workspace", "nope"), agentId] },
    );
    expect(mixed).toEqual({ data: { nodes: [null, { id: workspaceId }, null, { id: agentId }] } });
  });
});

/** Every mutation's errors (the union holds these, its `<Name>Payload`, and nothing else). */
const DAEMON = [
  "CalibandNotInstalledError",
  "DaemonRefusedError",
  "DaemonStartFailedError",
  "UnreachableError",
];
const ALWAYS = ["ForbiddenError", "UnauthenticatedError", "ValidationError"];
const MUTATION_ERRORS: Record<string, string[]> = {
  addWorkspace: ["ConflictError", "ProviderMisconfiguredError"],
  updateWorkspaceConfig: [...DAEMON, "NotFoundError", "ProviderMisconfiguredError"],
  removeWorkspace: ["NotFoundError"],
  restartWorkspaceDaemon: [...DAEMON, "InvalidStateError", "NotFoundError"],
  spawnAgent: [
    ...DAEMON,
    "ConflictError",
    "InvalidStateError",
    "NotFoundError",
    "ProviderMisconfiguredError",
  ],
  killAgent: [...DAEMON, "InvalidStateError", "NotFoundError"],
  respawnAgent: [...DAEMON, "InvalidStateError", "NotFoundError", "ProviderMisconfiguredError"],
  removeAgent: [...DAEMON, "InvalidStateError", "NotFoundError"],
  drainAgent: [...DAEMON, "InvalidStateError", "NotFoundError"],
  sendAgentInput: [...DAEMON, "InvalidStateError", "NotFoundError"],
  endAgentInput: [...DAEMON, "InvalidStateError", "NotFoundError"],
  createToken: ["ConflictError"],
  revokeToken: ["NotFoundError"],
  // The launch queue (issue 14).
  enqueueLaunch: ["ConflictError", "NotFoundError"],
  cancelLaunch: [...DAEMON, "InvalidStateError", "NotFoundError"],
  setCap: ["NotFoundError"],
  setBudget: ["NotFoundError"],
  setWorkspaceLaunchTimeout: ["NotFoundError"],
  createSchedule: ["NotFoundError"],
  pauseSchedule: ["InvalidStateError", "NotFoundError"],
  resumeSchedule: ["InvalidStateError", "NotFoundError"],
  deleteSchedule: ["InvalidStateError", "NotFoundError"],
  runSchedule: ["InvalidStateError", "NotFoundError"],
  // The operator inbox (issue 15).
  answerInboxItem: [...DAEMON, "InvalidStateError", "NotFoundError"],
  approveInboxItem: [...DAEMON, "InvalidStateError", "NotFoundError"],
  acknowledgeInboxItem: ["InvalidStateError", "NotFoundError"],
  snoozeInboxItem: ["InvalidStateError", "NotFoundError"],
  dismissInboxItem: ["InvalidStateError", "NotFoundError"],
  // The health monitor (issue 15): an unknown check or a value out of range is a ValidationError.
  setHealthThreshold: [],
  // Webhooks (issue 15): testing a disabled webhook is an InvalidStateError.
  createWebhook: [],
  updateWebhook: ["NotFoundError"],
  deleteWebhook: ["NotFoundError"],
  testWebhook: ["InvalidStateError", "NotFoundError"],
  // What runs changed (issue 16): a branch git refuses is a ValidationError, one that exists a ConflictError.
  applyChanges: ["ConflictError", "InvalidStateError", "NotFoundError"],
  setChangeCapture: ["NotFoundError"],
};

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
const TYPE_REF = `kind name ofType { kind name ofType { kind name ofType { kind name } } }`;

describe("one mutation shape (item 2)", () => {
  it("each mutation takes one `input: <Name>Input!` and returns `<Name>Result!`: its payload and exactly its errors", async () => {
    type Field = {
      name: string;
      args: { name: string; type: TypeRef }[];
      type: TypeRef;
    };
    const r = await h.gql<{ __schema: { mutationType: { fields: Field[] } } }>(
      `{ __schema { mutationType { fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } } }`,
    );
    expect(r.errors).toBeUndefined();
    const fields = r.data!.__schema.mutationType.fields;
    expect(fields.map((f) => f.name).sort()).toEqual(Object.keys(MUTATION_ERRORS).sort());
    for (const f of fields) {
      const Name = f.name.charAt(0).toUpperCase() + f.name.slice(1);
      expect(f.args, f.name).toEqual([
        {
          name: "input",
          type: {
            kind: "NON_NULL",
            name: null,
            ofType: { kind: "INPUT_OBJECT", name: `${Name}Input`, ofType: null },
          },
        },
      ]);
      expect(f.type, f.name).toEqual({
        kind: "NON_NULL",
        name: null,
        ofType: { kind: "UNION", name: `${Name}Result`, ofType: null },
      });
      type Union = { possibleTypes: { name: string; interfaces: { name: string }[] }[] };
      const u = await h.gql<{ __type: Union }>(
        `query($n: String!) { __type(name: $n) { possibleTypes { name interfaces { name } } } }`,
        { n: `${Name}Result` },
      );
      const members = u.data!.__type.possibleTypes;
      expect(members.map((m) => m.name).sort(), f.name).toEqual(
        [`${Name}Payload`, ...ALWAYS, ...MUTATION_ERRORS[f.name]!].sort(),
      );
      for (const m of members) {
        expect(m.interfaces.map((i) => i.name).includes("Error"), `${f.name}: ${m.name}`).toBe(
          m.name !== `${Name}Payload`,
        );
      }
    }
    // The case the issue names: removing a workspace cannot fail on its provider configuration.
    const rm = await h.gql<{ __type: { possibleTypes: { name: string }[] } }>(
      `{ __type(name: "RemoveWorkspaceResult") { possibleTypes { name } } }`,
    );
    expect(rm.data!.__type.possibleTypes.map((p) => p.name)).not.toContain("ProviderMisconfiguredError");
  });

  it("Error.code is the ErrorCode enum; error details are enums too", async () => {
    type Fields = { fields: { name: string; type: TypeRef }[] };
    const r = await h.gql<{
      error: Fields & { kind: string };
      codes: { kind: string; enumValues: { name: string }[] };
      invalid: Fields;
      notFound: Fields;
    }>(
      `{
        error: __type(name: "Error") { kind fields { name type { ${TYPE_REF} } } }
        codes: __type(name: "ErrorCode") { kind enumValues { name } }
        invalid: __type(name: "InvalidStateError") { fields { name type { ${TYPE_REF} } } }
        notFound: __type(name: "NotFoundError") { fields { name type { ${TYPE_REF} } } }
      }`,
    );
    expect(r.errors).toBeUndefined();
    const d = r.data!;
    expect(d.error.kind).toBe("INTERFACE");
    const field = (t: Fields, name: string) => t.fields.find((f) => f.name === name)?.type;
    expect(field(d.error, "code")).toEqual({
      kind: "NON_NULL",
      name: null,
      ofType: { kind: "ENUM", name: "ErrorCode", ofType: null },
    });
    expect(d.codes.kind).toBe("ENUM");
    expect(d.codes.enumValues.map((v) => v.name).sort()).toEqual(
      [
        "NOT_FOUND",
        "INVALID_STATE",
        "CONFLICT",
        "PROVIDER_MISCONFIGURED",
        "UNREACHABLE",
        "CALIBAND_NOT_INSTALLED",
        "DAEMON_START_FAILED",
        "DAEMON_REFUSED",
        "BAD_USER_INPUT",
        "UNAUTHENTICATED",
        "FORBIDDEN",
      ].sort(),
    );
    expect(field(d.invalid, "status")).toEqual({ kind: "ENUM", name: "AgentStatus", ofType: null });
    expect(field(d.notFound, "entity")).toEqual({
      kind: "NON_NULL",
      name: null,
      ofType: { kind: "ENUM", name: "EntityType", ofType: null },
    });
  });

  it("kill on a finished agent is an InvalidStateError whose status is the enum DONE; nothing changes", async () => {
    const r = await h.gql<{ killAgent: Record<string, unknown> }>(
      `mutation($a: String!) { killAgent(input: { agentId: $a }) {
         __typename ... on Error { code message } ... on InvalidStateError { status } } }`,
      { a: b },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data?.killAgent).toMatchObject({
      __typename: "InvalidStateError",
      code: "INVALID_STATE",
      status: "DONE",
    });
    const after = await h.gql<{ agent: { status: string } }>(
      `query($a: String!) { agent(agentId: $a) { status } }`,
      {
        a: b,
      },
    );
    expect(after.data?.agent.status).toBe("DONE");
  });
});

describe("roots and event sources (item 4)", () => {
  it("events(of:) takes exactly one source: both is refused by validation (@oneOf)", async () => {
    const both = await h.gql(
      `query($a: String!) { events(of: { agentId: $a, workspace: "demo" }) { totalCount } }`,
      {
        a,
      },
    );
    expect(both.data).toBeUndefined();
    expect(both.errors).toHaveLength(1);
    expect(both.errors![0]).toMatchObject({
      message: 'OneOf Input Object "EventSourceInput" must specify exactly one key.',
      extensions: { code: "GRAPHQL_VALIDATION_FAILED" },
    });
    const none = await h.gql(`{ events(of: {}) { totalCount } }`);
    expect(none.data).toBeUndefined();
    expect(none.errors?.[0]?.message).toBe(
      'OneOf Input Object "EventSourceInput" must specify exactly one key.',
    );
    const t = await h.gql<{ __type: { isOneOf: boolean } }>(
      `{ __type(name: "EventSourceInput") { isOneOf } }`,
    );
    expect(t.data?.__type.isOneOf).toBe(true);
  });

  it("a bad cursor on agents nulls only `agents`: its siblings in the same query still answer", async () => {
    const r = await h.gql<{ version: string; agents: null; workspaces: { name: string }[] }>(
      `{ version agents(after: "garbage") { totalCount } workspaces { name } }`,
    );
    expect(r.data).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      agents: null,
      workspaces: [{ name: "demo" }],
    });
    expect(r.errors).toHaveLength(1);
    expect(r.errors![0]).toMatchObject({ path: ["agents"], extensions: { code: "BAD_USER_INPUT" } });
  });
});

type PageInfo = {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
};
const PAGE_INFO = `pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;

describe("one connection rule (item 5)", () => {
  it("first and last together, or outside 0..500, are BAD_USER_INPUT on every connection (the field is nulled)", async () => {
    const cases = [
      `agents(first: 1, last: 1) { totalCount }`,
      `agents(first: 501) { totalCount }`,
      `agents(last: -1) { totalCount }`,
      `events(of: { agentId: "${a}" }, first: 1, last: 1) { totalCount }`,
      `events(of: { workspace: "demo" }, last: 501) { totalCount }`,
      `auditLog(first: 1, last: 1) { totalCount }`,
    ];
    for (const c of cases) {
      const r = await h.gql<Record<string, unknown>>(`{ version ${c} }`);
      const field = c.slice(0, c.indexOf("("));
      expect(r.data, c).toEqual({ version: expect.any(String), [field]: null });
      expect(r.errors, c).toHaveLength(1);
      expect(r.errors![0], c).toMatchObject({ path: [field], extensions: { code: "BAD_USER_INPUT" } });
    }
  });

  it("first: 0 is an empty page that still has its pageInfo and totalCount", async () => {
    type Conn = { edges: unknown[]; pageInfo: PageInfo; totalCount: number };
    const r = await h.gql<{ agents: Conn; events: Conn; auditLog: Conn; agent: { events: Conn } }>(
      `query($a: String!) {
        agents(first: 0) { edges { cursor } ${PAGE_INFO} totalCount }
        events(of: { agentId: $a }, first: 0) { edges { cursor } ${PAGE_INFO} totalCount }
        auditLog(first: 0) { edges { cursor } ${PAGE_INFO} totalCount }
        agent(agentId: $a) { events(first: 0) { edges { cursor } ${PAGE_INFO} totalCount } }
      }`,
      { a },
    );
    expect(r.errors).toBeUndefined();
    const stored = (await h.app.store.readStream(a, 0, 10_000)).length;
    const audited = await h.app.db.prisma.auditEntry.count();
    for (const [name, conn, total] of [
      ["agents", r.data!.agents, 2],
      ["events", r.data!.events, stored],
      ["auditLog", r.data!.auditLog, audited],
      ["Agent.events", r.data!.agent.events, stored],
    ] as const) {
      expect(conn, name).toEqual({
        edges: [],
        pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null },
        totalCount: total,
      });
    }
  });

  it("events page backwards: last: 2, before: a cursor gives the 2 events before it, oldest first", async () => {
    type Conn = {
      edges: { cursor: string; node: { seq: number } }[];
      pageInfo: PageInfo;
      totalCount: number;
    };
    const page = (of: Record<string, string>, v: { last: number; before?: string }) =>
      h.gql<{ events: Conn }>(
        `query($of: EventSourceInput!, $before: String, $last: Int) { events(of: $of, last: $last, before: $before) {
           edges { cursor node { seq } } ${PAGE_INFO} totalCount } }`,
        { of, ...v },
      );
    const everything = await h.gql<{ events: Conn }>(
      `query($a: String!) { events(of: { agentId: $a }, first: 500) { edges { cursor node { seq } } totalCount } }`,
      { a },
    );
    const all = everything.data!.events.edges;
    expect(all.length).toBeGreaterThanOrEqual(6);
    expect(all.map((e) => e.node.seq)).toEqual(all.map((_, i) => i + 1));

    const mid = await page({ agentId: a }, { last: 2, before: all[4]!.cursor });
    expect(mid.errors).toBeUndefined();
    expect(mid.data!.events.edges).toEqual([all[2], all[3]]);
    expect(mid.data!.events.pageInfo).toMatchObject({
      hasPreviousPage: true,
      startCursor: all[2]!.cursor,
      endCursor: all[3]!.cursor,
    });
    expect(mid.data!.events.totalCount).toBe(all.length);

    const start = await page({ agentId: a }, { last: 2, before: all[2]!.cursor });
    expect(start.data!.events.edges).toEqual([all[0], all[1]]);
    expect(start.data!.events.pageInfo).toMatchObject({ hasPreviousPage: false });

    const tail = await page({ agentId: a }, { last: 2 });
    expect(tail.data!.events.edges).toEqual(all.slice(-2));
    expect(tail.data!.events.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });

    // A workspace's events (commit order, both agents' and the workspace's own) page back the same way.
    const ws = await h.gql<{ events: Conn }>(
      `{ events(of: { workspace: "demo" }, first: 500) { edges { cursor node { seq } } totalCount } }`,
    );
    const wsAll = ws.data!.events.edges;
    const back = await page({ workspace: "demo" }, { last: 2, before: wsAll[3]!.cursor });
    expect(back.data!.events.edges).toEqual([wsAll[1], wsAll[2]]);
    expect(back.data!.events.pageInfo).toMatchObject({ hasPreviousPage: true });
  });

  it("totalCount is the number of stored agents and events matching the field's filter", async () => {
    const r = await h.gql<{
      agents: { totalCount: number };
      done: { totalCount: number };
      running: { totalCount: number };
      mine: { totalCount: number };
      outputs: { totalCount: number };
      workspace: { totalCount: number };
      agent: { events: { totalCount: number } };
    }>(
      `query($a: String!) {
        agents(first: 1) { totalCount }
        done: agents(first: 1, filter: { status: [DONE] }) { totalCount }
        running: agents(first: 1, filter: { status: [RUNNING] }) { totalCount }
        mine: events(of: { agentId: $a }, first: 1) { totalCount }
        outputs: events(of: { agentId: $a }, first: 1, filter: { kinds: [OUTPUT] }) { totalCount }
        workspace: events(of: { workspace: "demo" }, first: 1) { totalCount }
        agent(agentId: $a) { events(first: 1) { totalCount } }
      }`,
      { a },
    );
    expect(r.errors).toBeUndefined();
    const p = h.app.db.prisma;
    const storedOfA = await p.event.count({ where: { streamKey: a } });
    expect(storedOfA).toBeGreaterThan(1);
    expect(r.data).toEqual({
      agents: { totalCount: await p.agent.count() },
      done: { totalCount: await p.agent.count({ where: { status: "done" } }) },
      running: { totalCount: 0 },
      mine: { totalCount: storedOfA },
      outputs: { totalCount: await p.event.count({ where: { streamKey: a, kind: "output" } }) },
      workspace: { totalCount: await p.event.count({ where: { workspace: "demo" } }) },
      agent: { events: { totalCount: storedOfA } },
    });
    expect(r.data!.agents.totalCount).toBe(2);
    expect(r.data!.done.totalCount).toBe(2);
  });
});

describe("hostile ids and cursors (review of issue 13)", () => {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

  it("nodes(ids:) costs like a page of as many items as it has ids", async () => {
    const agent = await h.gql<{ agent: { id: string } }>(`query($a: String!) { agent(agentId: $a) { id } }`, {
      a,
    });
    const id = agent.data!.agent.id;
    const doc = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Agent { events(first: 500) {
      edges { cursor node { __typename id ts seq agentId workspace streamKey } } } } } }`;
    const one = await h.gql(doc, { ids: [id] });
    expect(one.errors).toBeUndefined();
    const many = await h.gql(doc, { ids: Array.from({ length: 100 }, () => id) });
    expect(many.data).toBeUndefined();
    expect(many.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_COSTLY");
    expect(many.errors?.[0]?.extensions?.found).toBe(100 * (1 + 1 + 500 * (1 + 1 + 1 + 8)));
  });

  it("a global id that is not exactly one the gateway issues names nothing: null, no error, the batch stands", async () => {
    const agent = await h.gql<{ agent: { id: string } }>(`query($a: String!) { agent(agentId: $a) { id } }`, {
      a,
    });
    const bad = [
      globalId("AuditEntry", "99999999999999999999999"),
      globalId("AuditEntry", "9223372036854775808"),
      globalId("AuditEntry", "8abc"),
      globalId("AuditEntry", " 8"),
      globalId("AuditEntry", "1.5"),
      globalId("AuditEntry", "01"),
      globalId("Agent", "ABCDEF012345"),
      globalId("Workspace", "../demo"),
      globalId("OutputEvent", `3:${a}:x`),
      globalId("OutputEvent", `03:${a}`),
      "x".repeat(5000),
    ];
    const r = await h.gql<{ nodes: ({ id: string } | null)[] }>(
      `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
      {
        ids: [...bad, agent.data!.agent.id],
      },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data!.nodes).toEqual([...bad.map(() => null), { id: agent.data!.agent.id }]);
  });

  it("a cursor of another shape or of no visible run is BAD_USER_INPUT, not a database error", async () => {
    const agentsCursor = await h.gql<{ agents: { edges: { cursor: string }[] } }>(
      `{ agents(first: 1) { edges { cursor } } }`,
    );
    const cases: [string, string][] = [
      [`{ agents(after: "${b64("GPC:N:5")}") { edges { cursor } } }`, "agents"],
      [`{ agents(after: "${b64('GPC:J:{"id":"x"}')}") { edges { cursor } } }`, "agents"],
      [`{ agents(before: "${b64("GPC:S:000000000000")}") { edges { cursor } } }`, "agents"],
      [
        `{ auditLog(after: "${agentsCursor.data!.agents.edges[0]!.cursor}") { edges { cursor } } }`,
        "auditLog",
      ],
      [`{ auditLog(after: "${b64("GPC:N:99999999999999999999999")}") { edges { cursor } } }`, "auditLog"],
      [
        `{ workspace(name: "demo") { agents(after: "${b64("GPC:N:abc")}") { edges { cursor } } } }`,
        "workspace",
      ],
    ];
    for (const [query, field] of cases) {
      const r = await h.gql<Record<string, unknown>>(query);
      expect(
        r.errors?.map((e) => e.extensions?.code),
        query,
      ).toEqual(["BAD_USER_INPUT"]);
      expect((r.errors?.[0] as { path?: unknown[] } | undefined)?.path?.[0], query).toBe(field);
    }
  });

  it("an event cursor of another agent's stream is refused, not used as a position", async () => {
    const ofB = await h.gql<{ events: { edges: { cursor: string }[] } }>(
      `query($b: String!) { events(of: { agentId: $b }, first: 2) { edges { cursor } } }`,
      { b },
    );
    const foreign = ofB.data!.events.edges[1]!.cursor;
    const page = await h.gql<{ events: unknown }>(
      `query($a: String!, $c: String!) { events(of: { agentId: $a }, after: $c) { edges { cursor } } }`,
      { a, c: foreign },
    );
    expect(page.data?.events).toBeNull();
    expect(page.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const junk = Buffer.from(`v1:1:1:${a}:x`, "utf8").toString("base64url");
    const forged = await h.gql(
      `query($a: String!) { agent(agentId: $a) { events(after: "${junk}") { totalCount } } }`,
      { a },
    );
    expect(forged.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    const ws = h.ws();
    const sub = await new Promise<{ code?: unknown }>((resolve) => {
      ws.subscribe(
        {
          query: `subscription($a: String!, $c: String) { agentEvents(agentId: $a, after: $c) { seq } }`,
          variables: { a, c: foreign },
        },
        {
          next: (r) => resolve({ code: r.errors?.[0]?.extensions?.code }),
          error: (e) => resolve({ code: (e as { extensions?: { code?: unknown } }[])[0]?.extensions?.code }),
          complete: () => resolve({}),
        },
      );
    });
    expect(sub.code).toBe("BAD_USER_INPUT");
    await ws.dispose();
  });

  it("fleetEvents filtered on an unknown agent is NOT_FOUND (as one outside the token's workspaces is), not a silent stream", async () => {
    const ws = h.ws();
    const first = (agentId: string) =>
      new Promise<{ code?: unknown; seq?: unknown }>((resolve) => {
        ws.subscribe(
          {
            query: `subscription($id: String!) { fleetEvents(filter: { agentId: $id }) { seq } }`,
            variables: { id: agentId },
          },
          {
            next: (r) =>
              resolve({
                code: r.errors?.[0]?.extensions?.code,
                seq: (r.data as { fleetEvents?: { seq: number } })?.fleetEvents?.seq,
              }),
            error: (e) =>
              resolve({ code: (e as { extensions?: { code?: unknown } }[])[0]?.extensions?.code }),
            complete: () => resolve({}),
          },
        );
      });
    expect(await first("0cdf4f6743ef")).toEqual({ code: "NOT_FOUND", seq: undefined });
    expect(await first(a)).toEqual({ code: undefined, seq: 1 });
    await ws.dispose();
  });
});

describe("the run report's shape (issue 16 item 4)", () => {
  it("Agent.report is a non-null RunReport whose status, outcome and capture state are the shared enums", async () => {
    type Field = { name: string; type: TypeRef };
    const r = await h.gql<{ agent: { fields: Field[] }; report: { fields: Field[] } }>(
      `{ agent: __type(name: "Agent") { fields { name type { ${TYPE_REF} } } }
         report: __type(name: "RunReport") { fields { name type { ${TYPE_REF} } } } }`,
    );
    expect(r.errors).toBeUndefined();
    const of = (fields: Field[], name: string) => fields.find((f) => f.name === name)?.type;
    const nonNull = (kind: string, name: string) => ({
      kind: "NON_NULL",
      name: null,
      ofType: { kind, name, ofType: null },
    });
    expect(of(r.data!.agent.fields, "report")).toEqual(nonNull("OBJECT", "RunReport"));
    const f = r.data!.report.fields;
    expect(of(f, "status")).toEqual(nonNull("ENUM", "AgentStatus"));
    expect(of(f, "outcome")).toEqual({ kind: "ENUM", name: "RunOutcome", ofType: null });
    expect(of(f, "changes")).toEqual(nonNull("ENUM", "ChangeCaptureState"));
    expect(of(f, "durationMs")).toEqual({ kind: "SCALAR", name: "Float", ofType: null });
    expect(of(f, "failure")).toEqual({ kind: "OBJECT", name: "RunFailure", ofType: null });
    expect(of(f, "files")).toEqual({
      kind: "NON_NULL",
      name: null,
      // (TYPE_REF stops at the fourth level: no ofType there)
      ofType: {
        kind: "LIST",
        name: null,
        ofType: { kind: "NON_NULL", name: null, ofType: { kind: "OBJECT", name: "ChangedFile" } },
      },
    });
    expect(of(f, "markdown")).toEqual(nonNull("SCALAR", "String"));
    // And a finished run's report reads (once its frames are ingested: its status may come first).
    const report = await waitFor(
      async () => {
        const d = await h.gql<{
          agent: { report: { final: boolean; status: string; toolCalls: unknown[] } };
        }>(
          `query($id: String!) { agent(agentId: $id) { report { final status toolCalls { name calls failures } } } }`,
          { id: a },
        );
        return d.data?.agent.report.toolCalls.length ? d.data.agent.report : null;
      },
      10_000,
      "report",
    );
    expect(report).toEqual({
      final: true,
      status: "DONE",
      toolCalls: [{ name: "Read", calls: 1, failures: 0 }],
    });
  });
});
