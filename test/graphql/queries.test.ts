import { afterEach, describe, expect, it } from "vitest";
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
      fleet { host workspaces { name root health { state } sources { name } config { provider apiKeyFromEnv env { name } }
        agents(first: 5) { edges { cursor node { agentId name status terminal outcome turns usage { input output } estimatedCostUsd spec { prompt label isolated } } } } } }
      agent(agentId: "${id}") { id agentId workspace { name } events(first: 3) { nodes { __typename seq cursor } pageInfo { hasNextPage endCursor } } }
      readiness { ready workspacesTotal workspacesHealthy }
      metrics { pollsTotal framesIngestedTotal eventsAppendedTotal }
    }`);
    expect(res.errors).toBeUndefined();
    const data = res.data as {
      fleet: {
        workspaces: {
          name: string;
          health: { state: string };
          sources: { name: string }[];
          agents: { edges: { node: Record<string, unknown> }[] };
        }[];
      };
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
    const ws = data.fleet.workspaces[0]!;
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
      outcome: "EndOfTurn",
      turns: 2,
      usage: { input: 2510, output: 60 },
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

    // The next page continues exactly after the cursor; node(id) refetches the agent.
    const next = await h.gql<{ events: { nodes: { seq: number }[] }; node: { agentId: string } }>(
      `query($a: String, $id: ID!) { events(agentId: "${id}", after: $a, first: 100) { nodes { seq } } node(id: $id) { ... on Agent { agentId } } }`,
      { a: data.agent.events.pageInfo.endCursor, id: data.agent.id },
    );
    expect(next.data?.events.nodes[0]?.seq).toBe(4);
    expect(next.data?.node.agentId).toBe(id);
  });

  it("events for an unknown agent is a NOT_FOUND error, not an empty list (#118); a bad cursor is rejected", async () => {
    h = await startAppHarness();
    const res = await h.gql(`{ events(agentId: "000000000000") { nodes { seq } } }`);
    expect(res.errors?.[0]).toMatchObject({
      message: "agent not found: 000000000000",
      extensions: { code: "NOT_FOUND" },
    });
    const bad = await h.gql(`{ events(workspace: "demo", after: "garbage") { nodes { seq } } }`);
    expect(bad.errors?.[0]?.message).toBe("invalid cursor");
    const both = await h.gql(`{ events(workspace: "demo", agentId: "x") { nodes { seq } } }`);
    expect(both.errors?.[0]?.message).toMatch(/exactly one of agentId and workspace/);
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
    const services = {
      prisma: counting as unknown as typeof prisma,
      fleet: h.app.fleet,
      store: h.app.store,
      bus: h.app.bus,
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
