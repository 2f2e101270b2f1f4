/**
 * graphql-request against the live gateway: typed mutation errors, global ids of every entity kind
 * (workspace, agent, event) resolving through node(id:), null for unknown ids.
 */
import { expect, test } from "vitest";
import { gql, spawnStreamingAgent } from "../lib/fleet.js";
import { AgentTimeline, KillAgent, NodeById, NodesByIds, Workspaces } from "../lib/operations.js";

const UNKNOWN_AGENT = "ffffffffffff";

test("a mutation's typed error arrives complete (code, message, entity, key)", async () => {
  const res = await gql.request(KillAgent, { input: { agentId: UNKNOWN_AGENT } });
  expect(res.killAgent).toEqual({
    __typename: "NotFoundError",
    code: "NOT_FOUND",
    message: expect.stringContaining(UNKNOWN_AGENT),
    entity: "AGENT",
    key: UNKNOWN_AGENT,
  });
});

test("node(id:) answers null, with no error, for unknown and malformed ids", async () => {
  const ids = [
    Buffer.from(`Agent:${UNKNOWN_AGENT}`).toString("base64"),
    Buffer.from("Workspace:no-such-workspace").toString("base64"),
    Buffer.from("NoSuchType:1").toString("base64"),
    "not-base64-at-all!",
    "",
  ];
  for (const id of ids) {
    // graphql-request throws (ClientError) on any `errors` entry: a result also proves there is none.
    const res = await gql.request(NodeById, { id });
    expect(res, `node(id: ${JSON.stringify(id)})`).toEqual({ node: null });
  }
});

test("workspaces, agents and events are Nodes: each id resolves to itself through node(id:) and nodes(ids:)", async () => {
  const { workspaces } = await gql.request(Workspaces);
  const demo = workspaces.find((w) => w.name === "demo");
  expect(demo).toBeDefined();
  const { agentId, id: agentNodeId } = await spawnStreamingAgent("graphql-request-nodes", 2, 10);
  const timeline = await gql.request(AgentTimeline, { agentId });
  const event = timeline.agent?.events.nodes[0];
  expect(event).toBeDefined();
  expect(timeline.agent?.id).toBe(agentNodeId);

  const ws = await gql.request(NodeById, { id: demo!.id });
  expect(ws.node).toEqual({ __typename: "Workspace", id: demo!.id, name: "demo" });
  const agent = await gql.request(NodeById, { id: agentNodeId });
  expect(agent.node).toMatchObject({ __typename: "Agent", id: agentNodeId, agentId });
  const ev = await gql.request(NodeById, { id: event!.id });
  expect(ev.node).toEqual({ __typename: event!.__typename, id: event!.id });

  const unknown = Buffer.from(`Agent:${UNKNOWN_AGENT}`).toString("base64");
  const many = await gql.request(NodesByIds, { ids: [demo!.id, unknown, agentNodeId, event!.id] });
  expect(many.nodes).toEqual([
    { __typename: "Workspace", id: demo!.id },
    null,
    { __typename: "Agent", id: agentNodeId },
    { __typename: event!.__typename, id: event!.id },
  ]);
});
