// Issue 12 item 10: the largest page (`events(first: 500)`, issue 13: every connection's 0..500) of
// a plain selection passes the cost limit; abusive documents are still refused, however their page
// sizes are given (written in, as variables, or left to the defaults), at the cost the model gives
// them (a connection without first/last counts as its default page of 50); every refusal names its
// limit and carries a stable `extensions.code`, over HTTP and over graphql-ws (one operation's
// error; the connection stays).
// A real gateway on a real port (startAppHarness) with the caliband double.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startAppHarness, type AppHarness, type GqlResponse } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { QUERY_LIMITS } from "../../src/server/gateway.js";
import { DEFAULT_PAGE_FOR_COST } from "../../src/server/query-limits.js";

let h: AppHarness;
let agentId: string;

beforeAll(async () => {
  h = await startAppHarness();
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation { spawnAgent(input: { workspace: "demo", prompt: "a run with events" }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
  );
  agentId = r.data!.spawnAgent.agent.agentId;
  await waitFor(() => h.app.fleet.state.agent(agentId)?.status === "done", 15_000, "the run to end");
}, 30_000);
afterAll(async () => {
  await h?.close();
});

/** A plain selection of a page of events: what a client paging through history asks for. */
const PLAIN_PAGE = `edges { cursor node { __typename seq ts cursor streamKey workspace agentId } }
  pageInfo { hasNextPage endCursor }`;

/** The full timeline selection of the SDK (every event type's fields). */
const TIMELINE_NODE = `__typename id seq cursor ts streamKey workspace agentId
  ... on AgentSpawnedEvent { name spec { prompt model provider toolAllowlist source label frontmatterPath isolated interactive } }
  ... on StatusChangedEvent { from to }
  ... on TurnStartedEvent { turnIndex model messageId } ... on OutputEvent { turnIndex blockIndex stream text }
  ... on ToolStartedEvent { turnIndex toolUseId name }
  ... on ToolFinishedEvent { turnIndex toolUseId name ok input inputRaw resultText truncated durationMs }
  ... on TurnCompletedEvent { turnIndex stopReason stopReasonName ttftMs tbtMs estimatedCostUsd usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens } }
  ... on AgentFinishedEvent { outcome outcomeName detail turns estimatedCostUsd usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens } }`;

function expectRefused(r: GqlResponse<unknown>, code: string, limit: number, what: RegExp): void {
  expect(r.data ?? null).toBeNull();
  expect(r.errors).toHaveLength(1);
  const e = r.errors![0]!;
  expect(e.extensions).toMatchObject({ code, limit });
  expect(e.message).toMatch(what);
  expect(e.message).toContain(String(limit));
  expect(e.message).not.toMatch(/syntax error/i);
}

describe("the cost of a page", () => {
  it("events(first: 500) with a plain selection passes, by literal and by variable, for an agent and a workspace", async () => {
    // The agent's own stream (its changes_captured events are in its workspace's stream).
    const stored = await h.app.db.prisma.event.count({ where: { agentId, streamKey: agentId } });
    expect(stored).toBeGreaterThan(5);
    const byAgent = await h.gql<{ events: { edges: { node: { seq: number } }[] } }>(
      `{ events(of: { agentId: "${agentId}" }, first: 500) { ${PLAIN_PAGE} } }`,
    );
    expect(byAgent.errors).toBeUndefined();
    expect(byAgent.data!.events.edges).toHaveLength(stored);
    const byVariable = await h.gql<{ events: { edges: unknown[] } }>(
      `query($n: Int) { events(of: { workspace: "demo" }, first: $n) { ${PLAIN_PAGE} } }`,
      { n: 500 },
    );
    expect(byVariable.errors).toBeUndefined();
    expect(byVariable.data!.events.edges.length).toBeGreaterThanOrEqual(stored);
    // The nested form of the same page (one agent's events under agent(agentId:)).
    const nested = await h.gql<{ agent: { events: { edges: unknown[] } } }>(
      `{ agent(agentId: "${agentId}") { agentId events(first: 500) { ${PLAIN_PAGE} } } }`,
    );
    expect(nested.errors).toBeUndefined();
    expect(nested.data!.agent.events.edges).toHaveLength(stored);
  });

  it("the SDK's documents at their page sizes pass", async () => {
    const timeline = await h.gql(
      `query($id: String!, $n: Int) { events(of: { agentId: $id }, first: $n) { nodes { ${TIMELINE_NODE} } pageInfo { hasNextPage endCursor } } }`,
      { id: agentId, n: 100 },
    );
    expect(timeline.errors).toBeUndefined();
    const agents = await h.gql(
      `query($n: Int) { agents(first: $n) { edges { cursor node { id agentId name status terminal model interactive isolated startedAt finishedAt goneAt turns outcome outcomeName estimatedCostUsd workspace { name } usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens } } } pageInfo { hasNextPage endCursor } } }`,
      { n: 500 },
    );
    expect(agents.errors).toBeUndefined();
  });

  it("a page of full timeline events, and pages nested in pages, are refused: written in, as variables, or by default", async () => {
    // [what, document, variables, its cost in the model (COST_MODEL: 1 a field, a page multiplies
    // what it selects; a connection without first/last costs DEFAULT_PAGE_FOR_COST = 50 items)].
    // A TIMELINE_NODE costs 69 (its fields, 1 per inline fragment), `nodes { TIMELINE_NODE }` 70.
    expect(DEFAULT_PAGE_FOR_COST).toBe(50);
    const cases: [string, string, Record<string, unknown> | undefined, number][] = [
      [
        "timeline page",
        `{ events(of: { agentId: "${agentId}" }, first: 500) { nodes { ${TIMELINE_NODE} } } }`,
        undefined,
        500 * (1 + 70),
      ],
      [
        "nested literal",
        `{ agents(first: 100) { edges { node { events(first: 500) { nodes { seq ts } } } } } }`,
        undefined,
        100 * (1 + 1 + 1 + 500 * (1 + 1 + 2)),
      ],
      [
        "nested variables",
        `query($a: Int, $e: Int) { agents(first: $a) { edges { node { events(first: $e) { nodes { seq ts } } } } } }`,
        { a: 100, e: 500 },
        100 * (1 + 1 + 1 + 500 * (1 + 1 + 2)),
      ],
      [
        "variable defaults",
        `query($a: Int = 100, $e: Int = 500) { agents(first: $a) { edges { node { events(first: $e) { nodes { seq ts } } } } } }`,
        undefined,
        100 * (1 + 1 + 1 + 500 * (1 + 1 + 2)),
      ],
      [
        "page sizes left out",
        `{ workspaces { agents { edges { node { events { nodes { ${TIMELINE_NODE} } } } } } } }`,
        undefined,
        1 + 50 * (1 + 1 + 1 + 50 * (1 + 70)),
      ],
      [
        // With the variable's default (1) it would cost 1 + 1 + 1 + 1 + 1 + 7 = 12.
        "variables sent as null (they run as null, not as their defaults)",
        `query($n: Int = 1) { agents(first: $n) { edges { node { events(first: $n) { nodes { __typename seq ts cursor streamKey workspace agentId } } } } } }`,
        { n: null },
        50 * (1 + 1 + 1 + 50 * (1 + 1 + 7)),
      ],
      [
        "aliases of variable pages",
        `query($n: Int) { ${Array.from({ length: 10 }, (_, i) => `a${i}: events(of: { workspace: "demo" }, first: $n) { nodes { seq ts cursor } }`).join(" ")} }`,
        { n: 500 },
        10 * 500 * (1 + 1 + 3),
      ],
    ];
    for (const [what, query, variables, cost] of cases) {
      const r = await h.gql(query, variables);
      expect(r.errors?.[0]?.extensions?.code, `${what}: ${JSON.stringify(r.errors)}`).toBe(
        "QUERY_TOO_COSTLY",
      );
      expectRefused(
        r,
        "QUERY_TOO_COSTLY",
        QUERY_LIMITS.maxCost,
        /query cost limit of 20000 exceeded, found \d+/i,
      );
      expect(cost).toBeGreaterThan(QUERY_LIMITS.maxCost);
      expect(r.errors![0]!.extensions!.found, what).toBe(cost);
    }
    // The same null-variable document costs 12 when the variable is left out: it runs, as page 1.
    const byDefault = await h.gql(
      `query($n: Int = 1) { agents(first: $n) { edges { node { events(first: $n) { nodes { __typename seq ts cursor streamKey workspace agentId } } } } } }`,
    );
    expect(byDefault.errors).toBeUndefined();
  });
});

/** 16 levels (> 12; armor stops counting at 13). */
const DEEP_QUERY =
  "{ agents(first: 1) { edges { node { workspace { agents(first: 1) { edges { node { workspace { agents(first: 1) { edges { node { workspace { name } } } } } } } } } } } } }";
const ALIASES_QUERY = `{ ${Array.from({ length: QUERY_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: version`).join(" ")} }`;
const TOKENS_QUERY = `{ viewer { ${"name ".repeat(QUERY_LIMITS.maxTokens)} } }`;
const DIRECTIVES_QUERY = `{ ${"__typename @skip(if: false) ".repeat(QUERY_LIMITS.maxDirectives + 1)} }`;
const COSTLY_QUERY = `{ agents(first: 100) { edges { node { events(first: 500) { nodes { seq } } } } } }`;
const COSTLY_BY_VARIABLES = {
  query: `query($n: Int) { agents(first: $n) { edges { node { events(first: $n) { nodes { seq } } } } } }`,
  variables: { n: 500 },
};

const LIMIT_CASES: [string, string, number, RegExp][] = [
  [DEEP_QUERY, "QUERY_TOO_DEEP", QUERY_LIMITS.maxDepth, /query depth limit of 12 exceeded, found \d+/i],
  [ALIASES_QUERY, "TOO_MANY_ALIASES", QUERY_LIMITS.maxAliases, /aliases limit of 30 exceeded, found 31/i],
  [TOKENS_QUERY, "TOO_MANY_TOKENS", QUERY_LIMITS.maxTokens, /token limit of 5000 exceeded/i],
  [DIRECTIVES_QUERY, "TOO_MANY_DIRECTIVES", QUERY_LIMITS.maxDirectives, /directives limit of 50 exceeded/i],
  [COSTLY_QUERY, "QUERY_TOO_COSTLY", QUERY_LIMITS.maxCost, /query cost limit of 20000 exceeded/i],
];

describe("refusals name their limit and carry a code", () => {
  it("over HTTP", async () => {
    for (const [query, code, limit, what] of LIMIT_CASES)
      expectRefused(await h.gql(query), code, limit, what);
    // A real syntax error is still one.
    const bad = await h.gql("{ viewer { name ");
    expect(bad.errors?.[0]?.message).toMatch(/^Syntax Error/);
  });

  it("over HTTP a refusal is a request error: 400 under application/graphql-response+json, 200 under application/json (as yoga's validation errors)", async () => {
    const requests = [
      ...LIMIT_CASES.map(([query, code]) => ({ body: { query }, code })),
      { body: COSTLY_BY_VARIABLES, code: "QUERY_TOO_COSTLY" },
    ];
    for (const { body, code } of requests) {
      for (const [accept, status] of [
        ["application/graphql-response+json", 400],
        ["application/json", 200],
      ] as const) {
        const res = await fetch(`${h.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", accept, authorization: `Bearer ${h.token}` },
          body: JSON.stringify(body),
        });
        expect(res.status, `${code} under ${accept}`).toBe(status);
        const json = (await res.json()) as {
          data?: unknown;
          errors: { extensions: Record<string, unknown> }[];
        };
        expect(json.data ?? null).toBeNull();
        expect(json.errors[0]!.extensions).toMatchObject({ code });
        expect(json.errors[0]!.extensions).not.toHaveProperty("http");
      }
    }
    // The same as a plain validation error of yoga's own.
    const unknownField = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/graphql-response+json",
        authorization: `Bearer ${h.token}`,
      },
      body: JSON.stringify({ query: "{ nope }" }),
    });
    expect(unknownField.status).toBe(400);
  });

  it("over graphql-ws: one operation's error, the connection and its other operations go on", async () => {
    const ws = new WebSocket(`${h.url.replace("http", "ws")}/graphql`, "graphql-transport-ws");
    const messages: { id?: string; type: string; payload?: unknown }[] = [];
    let closed: number | null = null;
    ws.on("message", (d: Buffer) => messages.push(JSON.parse(d.toString()) as (typeof messages)[number]));
    ws.on("close", (c: number) => (closed = c));
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${h.token}` } }));
    await waitFor(() => messages.some((m) => m.type === "connection_ack"), 5_000, "connection_ack");
    const ofOp = (id: string) => messages.filter((m) => m.id === id);
    const ended = (id: string) => ofOp(id).some((m) => m.type === "complete" || m.type === "error");
    const run = async (id: string, payload: { query: string; variables?: Record<string, unknown> }) => {
      ws.send(JSON.stringify({ id, type: "subscribe", payload }));
      await waitFor(() => ended(id), 10_000, `operation ${id}`);
      return ofOp(id);
    };
    const errorsOf = (msgs: { type: string; payload?: unknown }[]) => {
      const m = msgs[0]!;
      if (m.type === "error") return m.payload as { message: string; extensions?: Record<string, unknown> }[];
      expect(m.type).toBe("next");
      expect((m.payload as { data?: unknown }).data ?? null).toBeNull();
      return (m.payload as { errors: { message: string; extensions?: Record<string, unknown> }[] }).errors;
    };
    let i = 0;
    for (const [query, code, limit, what] of LIMIT_CASES) {
      const errors = errorsOf(await run(`bad${i++}`, { query }));
      expect(errors).toHaveLength(1);
      expect(errors[0]!.extensions).toMatchObject({ code, limit });
      expect(errors[0]!.extensions).not.toHaveProperty("http");
      expect(errors[0]!.message).toMatch(what);
    }
    const byVariables = errorsOf(await run("vars", COSTLY_BY_VARIABLES));
    expect(byVariables[0]!.extensions).toMatchObject({
      code: "QUERY_TOO_COSTLY",
      limit: QUERY_LIMITS.maxCost,
    });
    expect(byVariables[0]!.extensions).not.toHaveProperty("http");
    // The connection is still open and answers the documented page.
    const ok = await run("ok", {
      query: `query($id: String!) { events(of: { agentId: $id }, first: 500) { ${PLAIN_PAGE} } }`,
      variables: { id: agentId },
    });
    expect(ok[0]).toMatchObject({ type: "next" });
    expect((ok[0]!.payload as { errors?: unknown }).errors).toBeUndefined();
    expect(closed).toBeNull();
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});
