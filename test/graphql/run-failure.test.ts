// Issue 12 item 7 through the real gateway (in-process, real port, graphql-ws): a worker that fails
// at preflight (exit 1, no frame) is FAILED with the reason visible — `Agent.failure` (the end of
// its worker.log, the exit code when a RunEnd implies one), a WorkerLogEvent in its timeline that
// its agentEvents stream delivers before it completes, and the agent of the live AgentStatusChanged
// already carrying it. A run that did not fail has no failure.
import { afterEach, describe, expect, it } from "vitest";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Failure {
  logTail: string | null;
  logTruncated: boolean;
  exitCode: number | null;
  reason: string | null;
}

async function spawn(h: AppHarness, prompt: string): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt },
  );
  return r.data!.spawnAgent.agent.agentId;
}

const AGENT = `query($id: String!) {
  agent(agentId: $id) { status outcome failure { logTail logTruncated exitCode reason } }
  events(of: { agentId: $id }, first: 100) { nodes { __typename
    ... on StatusChangedEvent { to }
    ... on WorkerLogEvent { status logTail logTruncated logBytes exitCode logReason: reason } } }
}`;
type AgentAnswer = {
  agent: { status: string; outcome: string | null; failure: Failure | null };
  events: { nodes: { __typename: string; to?: string; status?: string; logTail?: string | null }[] };
};

async function ended(h: AppHarness, id: string, status: string, token?: string): Promise<AgentAnswer> {
  return waitFor(
    async () => {
      const r = await h.gql<AgentAnswer>(AGENT, { id }, token);
      expect(r.errors).toBeUndefined();
      return r.data!.agent.status === status ? r.data! : null;
    },
    15_000,
    `${id} ${status}`,
  );
}

describe("why a run failed, through the API (issue 12 item 7)", () => {
  it("a preflight failure: FAILED with the worker.log line in failure and in the timeline, before the stream completes", async () => {
    h = await startAppHarness();
    type Change = {
      fleetChanges: {
        __typename: string;
        to?: string;
        agent?: { agentId: string; failure: Failure | null };
      };
    };
    const changes = collect<Change>(
      h.ws(),
      `subscription { fleetChanges { __typename
        ... on AgentStatusChanged { to agent { agentId failure { logTail logTruncated exitCode reason } } } } }`,
      {},
      (items) => items.some((i) => i.fleetChanges.to === "FAILED"),
    );
    await waitFor(
      () => changes.items.some((i) => i.fleetChanges.__typename === "FleetSeedComplete"),
      5_000,
      "seed",
    );
    const id = await spawn(h, "go fake:preflight-fail");
    type Ev = { agentEvents: { __typename: string; to?: string; logTail?: string | null } };
    const sub = collect<Ev>(
      h.ws(),
      `subscription($id: String!) { agentEvents(agentId: $id) { __typename
        ... on StatusChangedEvent { to } ... on WorkerLogEvent { logTail } } }`,
      { id },
    );
    await sub.done; // completes after the terminal status
    const streamed = sub.items.map((i) => i.agentEvents);
    expect(streamed.slice(-2)).toMatchObject([
      { __typename: "WorkerLogEvent", logTail: expect.stringContaining("API key is not set") },
      { __typename: "StatusChangedEvent", to: "FAILED" },
    ]);

    const a = await ended(h, id, "FAILED");
    expect(a.agent.outcome).toBeNull();
    expect(a.agent.failure).toMatchObject({ logTruncated: false, exitCode: null, reason: null });
    expect(a.agent.failure?.logTail).toMatch(/provider: API key is not set/);
    const log = a.events.nodes.filter((e) => e.__typename === "WorkerLogEvent");
    expect(log).toEqual([
      {
        __typename: "WorkerLogEvent",
        status: "FAILED",
        logTail: a.agent.failure!.logTail,
        logTruncated: false,
        logBytes: expect.any(Number),
        exitCode: null,
        logReason: null,
      },
    ]);

    // The live change that says FAILED already carries why.
    await changes.done;
    const failedChange = changes.items.find((i) => i.fleetChanges.to === "FAILED")?.fleetChanges;
    expect(failedChange?.agent).toEqual({ agentId: id, failure: a.agent.failure });

    // A viewer reads it too.
    const viewer = await h.createToken({ name: "watcher", role: "VIEWER" });
    expect((await ended(h, id, "FAILED", viewer)).agent.failure).toEqual(a.agent.failure);
  });

  it("a stream error without RunEnd: exit code unknown; a run that ends DONE has no failure", async () => {
    h = await startAppHarness();
    const [broken, fine] = await Promise.all([spawn(h, "go fake:no-run-end"), spawn(h, "quick")]);
    const b = await ended(h, broken, "FAILED");
    expect(b.agent.failure?.exitCode).toBeNull();
    expect(b.agent.failure?.logTail).toMatch(/stream error: connection reset by provider/);
    const f = await ended(h, fine, "DONE");
    expect(f.agent.failure).toBeNull();
    expect(f.events.nodes.map((e) => e.__typename)).not.toContain("WorkerLogEvent");
  });
});
