// Issue 13 item 9: `@defer` / `@stream` (yoga's defer-stream plugin). A real gateway on a real port
// (startAppHarness) with the caliband double: over HTTP the answer is multipart/mixed, read with
// meros (the multipart reader GraphQL clients use); over SSE (the graphql-sse client) and graphql-ws
// the parts are separate `next` messages. The gateway's other plugins still apply to incremental
// results: the cost limit counts deferred and streamed selections (literal and variable page sizes),
// errors in a deferred part carry the same code as without @defer (and no HTTP hint), scope rules
// refuse a deferred field the token may not read, and a mutation with a deferred part is audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meros } from "meros/browser";
import { createClient as createSseClient } from "graphql-sse";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { QUERY_LIMITS } from "../../src/server/gateway.js";

// The documents, in one place to follow schema changes. -----------------------------------------

/** A page of agents, each agent's events deferred (the brief's example). */
const DEFERRED_EVENTS = `query { agents(first: 5) { edges { node { agentId ... @defer { events(first: 10) { edges { cursor } } } } } } }`;
/** The same without @defer. */
const PLAIN_EVENTS = `query { agents(first: 5) { edges { node { agentId events(first: 10) { edges { cursor } } } } } }`;
/** One agent's events, streamed after the first. */
const STREAMED = `query($id: String!) { agent(agentId: $id) { agentId events(first: 10) { edges @stream(initialCount: 1) { cursor } } } }`;
const UNSTREAMED = `query($id: String!) { agent(agentId: $id) { agentId events(first: 10) { edges { cursor } } } }`;
/** Over the cost limit only through its deferred part (100 agents × 500 events × a few fields). */
const COSTLY_DEFERRED = `query($n: Int) { agents(first: 100) { edges { node { agentId ... @defer { events(first: $n) { edges { cursor node { __typename seq ts streamKey workspace agentId } } } } } } } }`;
/** Over the cost limit only through its streamed list. */
const COSTLY_STREAMED = `query { agents(first: 100) { edges @stream(initialCount: 0) { node { agentId events(first: 500) { edges { cursor node { __typename seq ts streamKey workspace agentId } } } } } } }`;
/** A field error (a cursor this gateway did not issue) inside a deferred part, and the same without. */
const BAD_CURSOR_DEFERRED = `query($id: String!) { agent(agentId: $id) { agentId ... @defer { events(first: 1, after: "not-a-cursor") { edges { cursor } } } } }`;
const BAD_CURSOR_PLAIN = `query($id: String!) { agent(agentId: $id) { agentId events(first: 1, after: "not-a-cursor") { edges { cursor } } } }`;
/** An admin-only field deferred behind one a viewer may read. */
const FORBIDDEN_DEFERRED = `query { viewer { name } ... @defer { tokens { name } } }`;
const FORBIDDEN_PLAIN = `query { viewer { name } tokens { name } }`;
/** A mutation whose payload is deferred. */
const DEFERRED_MUTATION = `mutation($input: CreateTokenInput!) { createToken(input: $input) { __typename ... on CreateTokenPayload @defer { token { name } } } }`;
const AUDIT_OF = `query($op: String) { auditLog(first: 50, filter: { operation: $op }) { edges { node { operation result tokenName } } } }`;

// -----------------------------------------------------------------------------------------------

/** One part of an incremental answer (GraphQL incremental delivery, as yoga sends it). */
interface Part {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
  hasNext?: boolean;
  incremental?: {
    data?: Record<string, unknown> | null;
    items?: unknown[];
    path: (string | number)[];
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  }[];
}

let h: AppHarness;
let agentId: string;

beforeAll(async () => {
  h = await startAppHarness();
  // Two finished runs with events: each agent's deferred part must land on its own agent.
  const ids: string[] = [];
  for (const prompt of ["a run with events", "another run"]) {
    const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
      { p: prompt },
    );
    ids.push(r.data!.spawnAgent.agent.agentId);
  }
  agentId = ids[0]!;
  await waitFor(
    () => ids.every((id) => h.app.fleet.state.agent(id)?.status === "done"),
    15_000,
    "the runs to end",
  );
}, 30_000);
afterAll(async () => {
  await h?.close();
});

/** POST `query` asking for multipart/mixed; the response's status, content type and parts. */
async function multipart(
  query: string,
  variables: Record<string, unknown> = {},
  token = h.token,
): Promise<{ status: number; contentType: string; parts: Part[] }> {
  const res = await fetch(`${h.url}/graphql`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "multipart/mixed, application/graphql-response+json",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query, variables }),
  });
  const contentType = res.headers.get("content-type") ?? "";
  const read = await meros<Part>(res);
  const parts: Part[] = [];
  if (read instanceof Response) {
    parts.push((await read.json()) as Part);
  } else {
    for await (const p of read) {
      expect(p.json, "every part is JSON").toBe(true);
      if (p.json) parts.push(p.body);
    }
  }
  return { status: res.status, contentType, parts };
}

/** Per agent of {@link PLAIN_EVENTS} (the same page without @defer): its events' cursors. */
async function plainCursors(): Promise<Map<string, string[]>> {
  const r = await h.gql<{
    agents: { edges: { node: { agentId: string; events: { edges: { cursor: string }[] } } }[] };
  }>(PLAIN_EVENTS);
  expect(r.errors).toBeUndefined();
  return new Map(r.data!.agents.edges.map((e) => [e.node.agentId, e.node.events.edges.map((x) => x.cursor)]));
}

/** Every error anywhere in `parts`: top-level and inside `incremental[]`. */
function errorsOf(parts: Part[]): { message: string; extensions?: Record<string, unknown> }[] {
  return parts.flatMap((p) => [...(p.errors ?? []), ...(p.incremental ?? []).flatMap((i) => i.errors ?? [])]);
}

describe("@defer over HTTP", () => {
  it("answers multipart/mixed: the agents first, each agent's events in a later part, hasNext until the last", async () => {
    const expected = await plainCursors();
    expect(expected.size).toBe(2);
    for (const cursors of expected.values()) expect(cursors.length).toBeGreaterThan(0);
    const { status, contentType, parts } = await multipart(DEFERRED_EVENTS);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^multipart\/mixed/);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    const [first, ...rest] = parts;
    expect(first!.hasNext).toBe(true);
    expect(first!.errors).toBeUndefined();
    const edges = (first!.data!["agents"] as { edges: { node: Record<string, unknown> }[] }).edges;
    expect(edges.map((e) => e.node["agentId"]).sort()).toEqual([...expected.keys()].sort());
    // The initial part holds no events: they come deferred.
    for (const e of edges) expect(e.node).not.toHaveProperty("events");
    expect(rest.at(-1)!.hasNext).toBe(false);
    for (const p of rest.slice(0, -1)) expect(p.hasNext).toBe(true);
    const deferred = new Map<string, string[]>();
    for (const p of rest) {
      for (const inc of p.incremental ?? []) {
        expect(inc.errors).toBeUndefined();
        // path: ["agents", "edges", i, "node"]
        const i = inc.path[2] as number;
        const id = edges[i]!.node["agentId"] as string;
        const events = (inc.data as { events: { edges: { cursor: string }[] } }).events;
        deferred.set(
          id,
          events.edges.map((x) => x.cursor),
        );
      }
    }
    expect(deferred).toEqual(expected);
  });

  it("@stream(initialCount: 1) sends the first item at once and every other one as an incremental result of its own", async () => {
    const plain = await h.gql<{ agent: { events: { edges: { cursor: string }[] } } }>(UNSTREAMED, {
      id: agentId,
    });
    const all = plain.data!.agent.events.edges.map((e) => e.cursor);
    expect(all.length).toBeGreaterThan(2);
    const { contentType, parts } = await multipart(STREAMED, { id: agentId });
    expect(contentType).toMatch(/^multipart\/mixed/);
    const initial = (parts[0]!.data!["agent"] as { events: { edges: { cursor: string }[] } }).events.edges;
    expect(initial.map((e) => e.cursor)).toEqual(all.slice(0, 1));
    expect(parts[0]!.hasNext).toBe(true);
    // Each later item is its own incremental result at its own index (items that are ready at the
    // same moment may share a multipart part).
    const increments = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(increments.map((inc) => inc.path)).toEqual(
      all.slice(1).map((_c, i) => ["agent", "events", "edges", i + 1]),
    );
    for (const inc of increments) expect(inc.items).toHaveLength(1);
    const streamed = increments.flatMap((inc) => inc.items as { cursor: string }[]);
    expect([...initial, ...streamed].map((e) => e.cursor)).toEqual(all);
    expect(parts.at(-1)!.hasNext).toBe(false);
  });

  it("without Accept: multipart/mixed a deferred query is refused with a clear error, not silently flattened", async () => {
    const res = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/graphql-response+json",
        authorization: `Bearer ${h.token}`,
      },
      body: JSON.stringify({ query: DEFERRED_EVENTS }),
    });
    expect(res.status).toBe(406);
  });
});

describe("the gateway's plugins and incremental results", () => {
  it("the cost limit counts deferred selections: refused before anything is sent, however the page is given", async () => {
    const cases: [string, Record<string, unknown>][] = [
      // written in: refused at validation (graphql-armor)
      [COSTLY_DEFERRED.replace("first: $n", "first: 500"), {}],
      // by variable, or left to the default page: refused at execution (pageCostPlugin)
      [COSTLY_DEFERRED, { n: 500 }],
      [COSTLY_DEFERRED, {}],
    ];
    for (const [query, variables] of cases) {
      const { parts, contentType } = await multipart(query, variables);
      expect(contentType).not.toMatch(/^multipart\/mixed/);
      expect(parts).toHaveLength(1);
      expect(parts[0]!.data ?? null).toBeNull();
      expect(parts[0]!.errors).toHaveLength(1);
      expect(parts[0]!.errors![0]!.extensions).toMatchObject({
        code: "QUERY_TOO_COSTLY",
        limit: QUERY_LIMITS.maxCost,
      });
      expect(parts[0]!.errors![0]!.extensions).not.toHaveProperty("http");
    }
    // A small deferred page of the same shape is within the limit.
    const cheap = await multipart(COSTLY_DEFERRED.replace("first: 100", "first: 2"), { n: 5 });
    expect(cheap.contentType).toMatch(/^multipart\/mixed/);
    expect(errorsOf(cheap.parts)).toEqual([]);
  });

  it("the cost limit counts streamed lists", async () => {
    const { parts } = await multipart(COSTLY_STREAMED);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.data ?? null).toBeNull();
    // The cost refusal alone: @stream itself is a known directive.
    expect(parts[0]!.errors!.map((e) => e.extensions?.["code"])).toEqual(["QUERY_TOO_COSTLY"]);
    // The same document with small pages is within the limit, and streams.
    const cheap = await multipart(
      COSTLY_STREAMED.replace("first: 100", "first: 2").replace("first: 500", "first: 5"),
    );
    expect(cheap.contentType).toMatch(/^multipart\/mixed/);
    expect(errorsOf(cheap.parts)).toEqual([]);
    expect(cheap.parts.at(-1)!.hasNext).toBe(false);
  });

  it("a field error in a deferred part has the code and message it has without @defer, and no HTTP hint", async () => {
    const plain = await h.gql(BAD_CURSOR_PLAIN, { id: agentId });
    const expected = plain.errors!.map((e) => ({ message: e.message, code: e.extensions?.["code"] }));
    expect(expected).toEqual([{ message: expect.any(String), code: "BAD_USER_INPUT" }]);
    const { parts } = await multipart(BAD_CURSOR_DEFERRED, { id: agentId });
    expect(parts[0]!.errors).toBeUndefined();
    expect((parts[0]!.data!["agent"] as { agentId: string }).agentId).toBe(agentId);
    const deferred = errorsOf(parts.slice(1));
    expect(deferred.map((e) => ({ message: e.message, code: e.extensions?.["code"] }))).toEqual(expected);
    for (const e of deferred) expect(e.extensions).not.toHaveProperty("http");
  });

  it("a deferred field the token may not read is refused in its part with FORBIDDEN and the role it needs", async () => {
    const viewer = await h.createToken({ name: "defer-viewer", role: "VIEWER" });
    const plain = await h.gql(FORBIDDEN_PLAIN, {}, viewer);
    const plainCodes = plain.errors!.map((e) => e.extensions);
    expect(plainCodes).toEqual([expect.objectContaining({ code: "FORBIDDEN", requiredRole: "ADMIN" })]);
    const { parts } = await multipart(FORBIDDEN_DEFERRED, {}, viewer);
    expect(parts[0]!.data).toEqual({ viewer: { name: "defer-viewer" } });
    expect(parts[0]!.hasNext).toBe(true);
    const deferred = errorsOf(parts.slice(1));
    expect(deferred.map((e) => e.extensions)).toEqual(plainCodes);
  });

  it("a mutation with a deferred payload runs once, delivers the payload later and is audited", async () => {
    const { parts } = await multipart(DEFERRED_MUTATION, {
      input: { name: "deferred-token", role: "VIEWER" },
    });
    expect(parts[0]!.data).toEqual({ createToken: { __typename: "CreateTokenPayload" } });
    const payload = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(payload.map((i) => i.data)).toEqual([{ token: { name: "deferred-token" } }]);
    const audit = await h.gql<{ auditLog: { edges: { node: { operation: string; result: string } }[] } }>(
      AUDIT_OF,
      { op: "createToken" },
    );
    expect(audit.errors).toBeUndefined();
    const rows = audit.data!.auditLog.edges.map((e) => e.node);
    // One row for the harness's own createToken (the viewer above), one for this one.
    expect(rows.filter((r) => r.result === "CreateTokenPayload")).toHaveLength(2);
  });
});

describe("@defer over SSE and graphql-ws", () => {
  it("SSE (the graphql-sse client, distinct connections): the deferred events come in a later `next` event", async () => {
    const client = createSseClient({
      url: `${h.url}/graphql`,
      headers: { authorization: `Bearer ${h.token}` },
      retryAttempts: 0,
    });
    const parts: Part[] = [];
    try {
      for await (const r of client.iterate({ query: DEFERRED_EVENTS })) parts.push(r as Part);
    } finally {
      client.dispose();
    }
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts[0]!.hasNext).toBe(true);
    const events = parts.slice(1).flatMap((p) => (p.incremental ?? []).map((i) => i.data));
    expect(events.length).toBe((await plainCursors()).size);
    expect(parts.at(-1)!.hasNext).toBe(false);
  });

  it("graphql-ws: several `next` messages, the last with hasNext false; the cost limit applies there too", async () => {
    const client = h.ws();
    const parts: Part[] = [];
    for await (const r of client.iterate({ query: STREAMED, variables: { id: agentId } }))
      parts.push(r as Part);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts[0]!.hasNext).toBe(true);
    expect(parts.at(-1)!.hasNext).toBe(false);
    const plain = await h.gql<{ agent: { events: { edges: { cursor: string }[] } } }>(UNSTREAMED, {
      id: agentId,
    });
    const initial = (parts[0]!.data!["agent"] as { events: { edges: { cursor: string }[] } }).events.edges;
    const streamed = parts.slice(1).flatMap((p) => (p.incremental ?? []).flatMap((i) => i.items ?? []));
    expect([...initial, ...streamed]).toEqual(plain.data!.agent.events.edges);

    const refused: unknown[] = [];
    try {
      for await (const r of client.iterate({ query: COSTLY_DEFERRED, variables: { n: 500 } }))
        refused.push(r);
    } catch (err) {
      refused.push(err);
    }
    const errors = (refused.flatMap((r) =>
      Array.isArray(r) ? r : ((r as Part).errors ?? []),
    ) as Part["errors"])!;
    expect(errors.map((e) => e.extensions?.["code"])).toEqual(["QUERY_TOO_COSTLY"]);
    for (const e of errors) expect(e.extensions).not.toHaveProperty("http");
  });
});
