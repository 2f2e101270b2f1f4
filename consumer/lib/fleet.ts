/**
 * The demo fleet, driven with graphql-request: spawn agents that stream for a few seconds and read
 * an agent's stored timeline (the reference a live stream is compared with).
 */
import { inspect } from "node:util";
import { GraphQLClient } from "graphql-request";
import { AUTH, DEMO_WORKSPACE, HTTP_URL } from "./env.js";
import { AgentTimeline, SpawnAgent } from "./operations.js";

/** A graphql-request client of the gateway, with the admin token. */
export const gql = new GraphQLClient(HTTP_URL, { headers: { ...AUTH } });

/**
 * Spawn an agent in the demo workspace whose first turn streams `frames` text deltas `paceMs` apart
 * (the caliband simulator's `fake:frames` / `fake:pace` prompt tokens), so a subscription to it is
 * live for about frames × paceMs ms, then ends with the agent.
 * @returns its caliband agent id and global id.
 * @throws Error when the mutation answers an error type instead of the payload.
 */
export async function spawnStreamingAgent(
  label: string,
  frames = 30,
  paceMs = 100,
): Promise<{ agentId: string; id: string }> {
  const res = await gql.request(SpawnAgent, {
    input: {
      workspace: DEMO_WORKSPACE,
      label,
      prompt: `Stream a long answer. fake:frames=${frames} fake:pace=${paceMs}`,
    },
  });
  const r = res.spawnAgent;
  if (r.__typename !== "SpawnAgentPayload") {
    throw new Error(`spawnAgent answered ${r.__typename}: ${"message" in r ? String(r.message) : ""}`);
  }
  return { agentId: r.agent.agentId, id: r.agent.id };
}

/** The seqs of an agent's stored events, in order (its whole timeline: fewer than 500 events). */
export async function storedSeqs(agentId: string): Promise<number[]> {
  const res = await gql.request(AgentTimeline, { agentId });
  if (!res.agent) throw new Error(`agent ${agentId} not found`);
  const conn = res.agent.events;
  if (conn.pageInfo.hasNextPage) throw new Error(`agent ${agentId} has more than one page of events`);
  return conn.nodes.map((e) => e.seq);
}

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Wait until `check` returns true (polled every 20 ms).
 * @throws Error naming `what` after `timeoutMs`.
 */
export async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Wait until `check` returns true while the subscription whose end is `ending` still runs.
 * @throws Error naming `what` and showing how it ended, when it ends first (or after `timeoutMs`).
 */
export async function untilBeforeEnd(
  what: string,
  check: () => boolean,
  ending: Promise<unknown>,
  timeoutMs = 15_000,
): Promise<void> {
  const state: { ended?: { value: unknown } } = {};
  void ending.then((value) => (state.ended = { value }));
  await until(what, () => check() || state.ended !== undefined, timeoutMs);
  if (!check()) {
    throw new Error(`the subscription ended before ${what}: ${inspect(state.ended?.value, { depth: 5 })}`);
  }
}
