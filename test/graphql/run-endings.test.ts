// Issue 12 item 5 through the real gateway (in-process, real port, graphql-ws): a run removed while
// live ends in the API — terminal status with finishedAt, not listed as running, its agentEvents
// stream completes — whether removed with removeAgent(force: true) or directly on the daemon.
// Item 6 (input part) as API users see it: InputSentEvent before the output answering it, and an
// InputFailedEvent after it when the message could not be written to the worker.
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CalibandClient } from "../../src/caliband/client.js";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Ev = { agentEvents: { __typename: string; seq: number; to?: string; reason?: string } };
const AGENT_EVENTS = `subscription($id: String!) {
  agentEvents(agentId: $id) { __typename seq
    ... on StatusChangedEvent { to } ... on AgentGoneEvent { reason } }
}`;

interface AgentFacts {
  status: string;
  terminal: boolean;
  finishedAt: string | null;
  goneAt: string | null;
}

async function spawnLong(h: AppHarness): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation { spawnAgent(input: { workspace: "demo", prompt: "long fake:hold=60000" }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
  );
  return r.data!.spawnAgent.agent.agentId;
}

async function facts(h: AppHarness, id: string): Promise<{ agent: AgentFacts; running: string[] }> {
  const r = await h.gql<{ agent: AgentFacts; agents: { edges: { node: { agentId: string } }[] } }>(
    `query($id: String!) {
      agent(agentId: $id) { status terminal finishedAt goneAt }
      agents(first: 100, filter: { status: [RUNNING] }) { edges { node { agentId } } }
    }`,
    { id },
  );
  expect(r.errors).toBeUndefined();
  return { agent: r.data!.agent, running: r.data!.agents.edges.map((e) => e.node.agentId) };
}

describe("removal ends the run, through the API (issue 12 item 5)", () => {
  it("removeAgent(force: true) on a running agent: KILLED, finishedAt, not listed running, its stream completes", async () => {
    h = await startAppHarness();
    const id = await spawnLong(h);
    expect((await facts(h, id)).running).toContain(id);
    const sub = collect<Ev>(h.ws(), AGENT_EVENTS, { id });
    await waitFor(() => sub.items.length > 0, 5_000, "subscribed");

    const rm = await h.gql<{ removeAgent: { __typename: string } }>(
      `mutation($id: String!) { removeAgent(input: { agentId: $id, force: true }) { __typename } }`,
      { id },
    );
    expect(rm.data?.removeAgent.__typename).toBe("RemoveAgentPayload");

    await sub.done; // completes: the run reached a terminal status
    const tail = sub.items.map((i) => i.agentEvents).filter((e) => e.__typename === "StatusChangedEvent");
    expect(tail.at(-1)).toMatchObject({ to: "KILLED" });
    const f = await facts(h, id);
    expect(f.agent).toMatchObject({ status: "KILLED", terminal: true });
    expect(f.agent.finishedAt).not.toBeNull();
    expect(f.agent.goneAt).not.toBeNull();
    expect(f.running).not.toContain(id);
  });

  it("an agent removed directly on the daemon while running: CRASHED, finishedAt, not listed running", async () => {
    h = await startAppHarness();
    const id = await spawnLong(h);
    const sub = collect<Ev>(h.ws(), AGENT_EVENTS, { id });
    await waitFor(() => sub.items.length > 0, 5_000, "subscribed");
    await new CalibandClient({ scheme: "unix", path: h.d.daemon.socketPath }).rm(id, { force: true });
    await sub.done;
    const f = await waitFor(async () => {
      const x = await facts(h!, id);
      return x.agent.goneAt ? x : null;
    }, 10_000);
    expect(f.agent).toMatchObject({ status: "CRASHED", terminal: true });
    expect(f.agent.finishedAt).not.toBeNull();
    expect(f.running).not.toContain(id);
    const events = await h.gql<{ events: { nodes: { __typename: string; to?: string; reason?: string }[] } }>(
      `query($id: String!) { events(of: { agentId: $id }, first: 100) { nodes { __typename ... on StatusChangedEvent { to } ... on AgentGoneEvent { reason } } } }`,
      { id },
    );
    expect(events.data!.events.nodes.slice(-2)).toEqual([
      { __typename: "StatusChangedEvent", to: "CRASHED" },
      { __typename: "AgentGoneEvent", reason: "VANISHED" },
    ]);
  });
});

describe("operator input through the API (issue 12 item 6)", () => {
  it("InputSentEvent precedes the answer; an undeliverable message is followed by InputFailedEvent", async () => {
    h = await startAppHarness();
    const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "chat", interactive: true }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    );
    const id = r.data!.spawnAgent.agent.agentId;
    await waitFor(() => h!.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
    const send = (text: string) =>
      h!.gql<{ sendAgentInput: { __typename: string } }>(
        `mutation($id: String!, $text: String!) { sendAgentInput(input: { agentId: $id, text: $text }) { __typename } }`,
        { id, text },
      );
    type Node = { __typename: string; text?: string | null; reason?: string };
    const events = async () =>
      (
        await h!.gql<{ events: { nodes: Node[] } }>(
          `query($id: String!) { events(of: { agentId: $id }, first: 500) { nodes { __typename
            ... on OutputEvent { text } ... on InputSentEvent { text }
            ... on InputFailedEvent { failedText: text reason } } } }`,
          { id },
        )
      ).data!.events.nodes;

    expect((await send("ping")).data?.sendAgentInput.__typename).toBe("SendAgentInputPayload");
    const seen = await waitFor(
      async () => {
        const all = await events();
        return all.some((e) => e.__typename === "OutputEvent" && e.text?.includes("You said: ping"))
          ? all
          : null;
      },
      10_000,
      "the answer",
    );
    const sentAt = seen.findIndex((e) => e.__typename === "InputSentEvent");
    const answerAt = seen.findIndex(
      (e) => e.__typename === "OutputEvent" && e.text?.includes("You said: ping"),
    );
    expect(sentAt).toBeGreaterThanOrEqual(0);
    expect(sentAt).toBeLessThan(answerAt);
    await waitFor(() => h!.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle again");

    // The worker's socket file disappears: the next message cannot be written.
    const endpoint = h.d.daemon.record(id)!.endpoint as { path: string };
    fs.rmSync(endpoint.path);
    const failed = await send("lost words");
    expect(failed.data?.sendAgentInput.__typename).toBe("UnreachableError");
    const tail = (await events()).slice(-2);
    expect(tail[0]).toEqual({ __typename: "InputSentEvent", text: "lost words" });
    expect(tail[1]).toMatchObject({ __typename: "InputFailedEvent", failedText: "lost words" });
    expect(tail[1]!.reason).toBeTruthy();
  });
});
