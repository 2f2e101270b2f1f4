import { afterEach, describe, expect, it } from "vitest";
import { ReplayLimiter } from "../../src/bus/replay-limiter.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("GraphQL queries", () => {
  it("serves the fleet, a workspace with health, sources, config and agents, and an agent with its events", async () => {
    h = await startAppHarness();
    const spawn = await h.gql<{
      spawnAgent: { __typename: string; agent: { agentId: string }; created: boolean };
    }>(
      `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p, label: "reader" }) {
         __typename ... on SpawnAgentPayload { created agent { agentId } } ... on Error { message code } } }`,
      { p: "Read README.md and summarize it." },
    );
    expect(spawn.errors).toBeUndefined();
    expect(spawn.data?.spawnAgent).toMatchObject({ __typename: "SpawnAgentPayload", created: true });
    const id = spawn.data!.spawnAgent.agent.agentId;
    await waitFor(() => h!.app.fleet.state.agent(id)?.status === "done", 15_000, "done");

    const res = await h.gql<Record<string, unknown>>(`{
      fleet { host }
      workspaces { name root health { state } sources { name } config { provider apiKeyFromEnv env { name } }
        agents(first: 5) { edges { cursor node { agentId name status terminal outcome outcomeName turns usage { inputTokens outputTokens } estimatedCostUsd spec { prompt label isolated } } } } }
      agent(agentId: "${id}") { id agentId workspace { name } events(first: 3) { nodes { __typename seq cursor } pageInfo { hasNextPage endCursor } } }
      readiness { ready workspacesTotal workspacesHealthy }
      metrics { pollsTotal framesIngestedTotal eventsAppendedTotal }
    }`);
    expect(res.errors).toBeUndefined();
    const data = res.data as {
      fleet: { host: string };
      workspaces: {
        name: string;
        health: { state: string };
        sources: { name: string }[];
        agents: { edges: { node: Record<string, unknown> }[] };
      }[];
      agent: {
        id: string;
        events: {
          nodes: { __typename: string; seq: number }[];
          pageInfo: { hasNextPage: boolean; endCursor: string };
        };
      };
      readiness: { ready: boolean; workspacesTotal: number; workspacesHealthy: number };
      metrics: { framesIngestedTotal: number; eventsAppendedTotal: number };
    };
    expect(data.fleet.host).toBeTruthy();
    const ws = data.workspaces[0]!;
    expect(ws).toMatchObject({
      name: "demo",
      health: { state: "HEALTHY" },
      sources: [{ name: "demo-repo" }],
    });
    expect(ws.agents.edges[0]?.node).toMatchObject({
      agentId: id,
      name: "reader",
      status: "DONE",
      terminal: true,
      outcome: "END_OF_TURN",
      outcomeName: "EndOfTurn",
      turns: 2,
      usage: { inputTokens: 2510, outputTokens: 60 },
      spec: { prompt: "Read README.md and summarize it.", label: "reader", isolated: true },
    });
    expect(ws.agents.edges[0]?.node.estimatedCostUsd).toBeGreaterThan(0);
    expect(data.agent.events.nodes.map((n) => n.__typename)).toEqual([
      "AgentSpawnedEvent",
      "TurnStartedEvent",
      "OutputEvent",
    ]);
    expect(data.agent.events.pageInfo.hasNextPage).toBe(true);
    expect(data.readiness).toEqual({ ready: true, workspacesTotal: 1, workspacesHealthy: 1 });
    expect(data.metrics.framesIngestedTotal).toBeGreaterThanOrEqual(11);

    // usage groups by what was asked.
    const usage = await h.gql<{
      usage: { workspace: string | null; model: string | null; day: string | null; turns: number }[];
    }>(`{ usage(groupBy: [MODEL, DAY]) { workspace model day turns } }`);
    expect(usage.errors).toBeUndefined();
    expect(usage.data?.usage).toEqual([
      { workspace: null, model: "claude-sonnet-4-5", day: new Date().toISOString().slice(0, 10), turns: 2 },
    ]);

    // The next page continues exactly after the cursor; node(id) refetches the agent.
    const next = await h.gql<{ events: { nodes: { seq: number }[] }; node: { agentId: string } }>(
      `query($a: String, $id: ID!) { events(of: { agentId: "${id}" }, after: $a, first: 100) { nodes { seq } } node(id: $id) { ... on Agent { agentId } } }`,
      { a: data.agent.events.pageInfo.endCursor, id: data.agent.id },
    );
    expect(next.data?.events.nodes[0]?.seq).toBe(4);
    expect(next.data?.node.agentId).toBe(id);
  });

  it("events for an unknown agent is a NOT_FOUND error, not an empty list (#118); a bad cursor is rejected", async () => {
    h = await startAppHarness();
    const res = await h.gql(`{ events(of: { agentId: "000000000000" }) { nodes { seq } } }`);
    expect(res.data).toEqual({ events: null });
    expect(res.errors?.[0]).toMatchObject({
      message: "agent not found: 000000000000",
      extensions: { code: "NOT_FOUND" },
    });
    const bad = await h.gql(`{ events(of: { workspace: "demo" }, after: "garbage") { nodes { seq } } }`);
    expect(bad.errors?.[0]).toMatchObject({
      message: "invalid cursor",
      extensions: { code: "BAD_USER_INPUT" },
    });
    // Exactly one source: EventSourceInput is @oneOf, so giving both is refused by validation.
    const both = await h.gql(`{ events(of: { workspace: "demo", agentId: "x" }) { nodes { seq } } }`);
    expect(both.data).toBeUndefined();
    expect(both.errors?.[0]?.message).toBe(
      'OneOf Input Object "EventSourceInput" must specify exactly one key.',
    );
  });

  it("nested lists do not cause N+1 queries", async () => {
    h = await startAppHarness({ register: false });
    const prisma = h.app.db.prisma;
    for (let w = 0; w < 6; w++) {
      await prisma.workspace.create({ data: { name: `w${w}`, root: `/srv/w${w}`, env: {} } });
      for (let a = 0; a < 4; a++) {
        await prisma.agent.create({
          data: {
            id: `${w}${a}`.padStart(12, "0"),
            workspace: `w${w}`,
            name: `a${a}`,
            status: "done",
            spec: {},
            startedAt: new Date(),
          },
        });
      }
    }
    let ops = 0;
    const counting = prisma.$extends({
      query: {
        $allOperations({ args, query }) {
          ops++;
          return query(args);
        },
      },
    });
    // Execute with a context whose Prisma client counts every database operation.
    const { ReplayLimiter } = await import("../../src/bus/replay-limiter.js");
    const admin = h.app.tokens.verify(h.token);
    if (!admin.ok) throw new Error("the admin token does not verify");
    const services = {
      prisma: counting as unknown as typeof prisma,
      fleet: h.app.fleet,
      store: h.app.store,
      bus: h.app.bus,
      tokens: h.app.tokens,
      audit: h.app.audit,
      replays: new ReplayLimiter(),
      queue: h.app.queue,
      schedules: h.app.schedules,
      auth: admin.principal,
      remoteAddress: null,
      clientKey: "test",
    };
    const { execute, parse } = await import("graphql");
    const { buildSchema } = await import("../../src/schema/index.js");
    const result = await execute({
      schema: buildSchema(),
      document: parse(
        `{ workspaces { name usage { turns } agents(first: 10) { edges { node { agentId name workspace { name } } } } } }`,
      ),
      contextValue: { ...services, readiness: () => ({}) as never, memo: new Map() },
    });
    expect(result.errors).toBeUndefined();
    expect((result.data as { workspaces: unknown[] }).workspaces).toHaveLength(6);
    // workspaces + their agents (one include) + usage (two aggregate queries for all of them).
    expect(ops).toBeLessThanOrEqual(4);
  });
});

/** The app's long-lived GraphQL services (for a second gateway on the same store). */
function services(app: AppHarness["app"]) {
  return {
    prisma: app.db.prisma,
    fleet: app.fleet,
    store: app.store,
    bus: app.bus,
    tokens: app.tokens,
    audit: app.audit,
    replays: new ReplayLimiter(),
    queue: app.queue,
    schedules: app.schedules,
    inbox: app.inbox,
    monitor: app.monitor,
    webhooks: app.webhooks,
    notifier: app.notifier,
    capture: app.capture,
  };
}

describe("robustness", () => {
  it("rejects over-deep and over-aliased queries, and request bodies over the limit", async () => {
    h = await startAppHarness({ register: false });
    const deep = `{ workspaces { agents { edges { node { workspace { agents { edges { node { workspace { agents { edges { node { workspace { name } } } } } } } } } } } } } }`;
    const d = await h.gql(deep);
    expect(d.errors?.[0]?.message).toMatch(/depth/i);
    const aliases = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: version`).join(" ")} }`;
    expect((await h.gql(aliases)).errors?.[0]?.message).toMatch(/alias/i);
    const big = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${h!.token}` },
      body: JSON.stringify({ query: `{ version }`, variables: { pad: "x".repeat(2 * 1024 * 1024) } }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({
      errors: [
        { message: "request body larger than 1048576 bytes", extensions: { code: "PAYLOAD_TOO_LARGE" } },
      ],
    });
    // The server is still fine.
    expect((await h.gql<{ version: string }>(`{ version }`)).data?.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("masks unexpected errors outside development, but keeps typed errors' messages and codes", async () => {
    h = await startAppHarness();
    const { startGateway } = await import("../../src/server/gateway.js");
    const { silentLogger } = await import("../../src/log.js");
    const app = h.app;
    // A store whose agent lookups fail with an internal error a client must never see.
    const broken = app.db.prisma.$extends({
      query: {
        agent: {
          findUnique() {
            throw new Error("SQLITE_CORRUPT: secret internal detail");
          },
        },
      },
    }) as unknown as typeof app.db.prisma;
    const gw = await startGateway("127.0.0.1", 0, {
      logger: silentLogger,
      readiness: () => ({
        ready: true,
        migrationsApplied: true,
        storeWritable: true,
        workspacesTotal: 0,
        workspacesHealthy: 0,
        workspacesUnreachable: 0,
      }),
      context: () => ({ ...services(app), prisma: broken }),
      isDev: false,
      insecure: false,
      access: { bind: "127.0.0.1", tls: false, publicHosts: [], corsOrigins: [], trustProxy: [] },
    });
    try {
      const post = async (query: string) => {
        const r = await fetch(`${gw.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${h!.token}` },
          body: JSON.stringify({ query }),
        });
        return (await r.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
      };
      const typed = await post(`{ events(of: { workspace: "demo" }, after: "garbage") { nodes { seq } } }`);
      expect(typed.errors?.[0]).toMatchObject({
        message: "invalid cursor",
        extensions: { code: "BAD_USER_INPUT" },
      });
      const failed = await post(`{ events(of: { agentId: "000000000000" }) { nodes { seq } } }`);
      expect(failed.errors?.[0]?.message).toBe("Unexpected error.");
      expect(JSON.stringify(failed)).not.toMatch(/SQLITE|secret|stack/i);
    } finally {
      await gw.close();
    }
  });
});
