/**
 * The official graphql-ws client against the live gateway, through a relay that cuts the socket
 * mid-stream: the consumer re-subscribes with the last cursor it received as `after` (README
 * "Subscriptions"), and the events it gets, joined, are exactly the agent's stored timeline.
 */
import { print } from "graphql";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, expect, test } from "vitest";
import type { AgentEventsSubscription } from "../generated/graphql.js";
import { startCutProxy, type CutProxy } from "../lib/cut-proxy.js";
import { AUTH, GATEWAY_URL } from "../lib/env.js";
import { sleep, spawnStreamingAgent, storedSeqs, untilBeforeEnd } from "../lib/fleet.js";
import { AgentEvents, type StreamedEvent } from "../lib/operations.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** How one subscription attempt ended. */
type Ending = { kind: "complete" } | { kind: "error"; error: unknown };

/** Subscribe to an agent's events from `after`, appending each to `into`; resolves when it ends. */
function subscribe(
  client: Client,
  agentId: string,
  after: string | null,
  into: StreamedEvent[],
): Promise<Ending> {
  return new Promise((resolve) => {
    client.subscribe<AgentEventsSubscription>(
      { query: print(AgentEvents), variables: { agentId, after } },
      {
        next: (r) => {
          if (r.errors?.length) resolve({ kind: "error", error: r.errors });
          else if (r.data) into.push(r.data.agentEvents);
        },
        error: (error) => resolve({ kind: "error", error }),
        complete: () => resolve({ kind: "complete" }),
      },
    );
  });
}

test("a subscription whose socket is cut mid-stream resumes from the last cursor with no duplicate and no hole", async () => {
  const proxy: CutProxy = await startCutProxy(GATEWAY_URL);
  cleanups.push(() => proxy.close());
  // No automatic retry: graphql-ws would resend the original variables (after: null) and replay
  // the stream from its start. The consumer resumes itself, from the cursor it last received.
  const client = createClient({
    url: `${proxy.url.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { ...AUTH },
    retryAttempts: 0,
  });
  cleanups.push(() => client.dispose());

  const { agentId } = await spawnStreamingAgent("graphql-ws-resume", 30, 100);
  const delivered: StreamedEvent[] = [];
  const first = subscribe(client, agentId, null, delivered);
  await untilBeforeEnd("6 events", () => delivered.length >= 6, first);
  await proxy.cut();
  const firstEnding = await first;
  expect(firstEnding.kind, "the cut ends the first subscription with an error").toBe("error");
  const beforeResume = delivered.length;
  await sleep(500); // the agent streams on while nobody listens

  const resumed = await subscribe(client, agentId, delivered.at(-1)!.cursor, delivered);
  expect(resumed).toEqual({ kind: "complete" });
  expect(proxy.accepted, "the resume is a new connection").toBe(2);
  expect(delivered.length).toBeGreaterThan(beforeResume);
  const seqs = delivered.map((e) => e.seq);
  expect(new Set(seqs).size, "no duplicate").toBe(seqs.length);
  expect(seqs, "exactly the stored timeline: no hole").toEqual(await storedSeqs(agentId));
});
