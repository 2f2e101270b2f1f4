/**
 * @urql/core against the live gateway: fetchExchange for queries and mutations (incremental
 * delivery included), subscriptionExchange forwarding subscriptions to a graphql-ws client.
 */
import { Client, fetchExchange, subscriptionExchange, type OperationResult } from "@urql/core";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, expect, test } from "vitest";
import type { AgentDeferredTimelineQuery } from "../generated/graphql.js";
import { AUTH, HTTP_URL, WS_URL } from "../lib/env.js";
import { spawnStreamingAgent, storedSeqs } from "../lib/fleet.js";
import {
  AgentDeferredTimeline,
  AgentEvents,
  KillAgent,
  NodeById,
  NodesByIds,
  Workspaces,
  type StreamedEvent,
} from "../lib/operations.js";

const ws = createClient({ url: WS_URL, webSocketImpl: WebSocket, connectionParams: { ...AUTH } });
afterAll(() => ws.dispose());

const client = new Client({
  url: HTTP_URL,
  preferGetMethod: false,
  fetchOptions: { headers: { ...AUTH } },
  exchanges: [
    fetchExchange,
    subscriptionExchange({
      forwardSubscription(request) {
        const input = { ...request, query: request.query ?? "" };
        return { subscribe: (sink) => ({ unsubscribe: ws.subscribe(input, sink) }) };
      },
    }),
  ],
});

const UNKNOWN_AGENT = "ffffffffffff";

test("a mutation's typed error arrives complete (code, message, entity, key)", async () => {
  const res = await client.mutation(KillAgent, { input: { agentId: UNKNOWN_AGENT } }).toPromise();
  expect(res.error).toBeUndefined();
  expect(res.data?.killAgent).toEqual({
    __typename: "NotFoundError",
    code: "NOT_FOUND",
    message: expect.stringContaining(UNKNOWN_AGENT),
    entity: "AGENT",
    key: UNKNOWN_AGENT,
  });
});

test("node(id:) of an unknown id is null and nodes(ids:) nulls only the unknown one", async () => {
  const unknown = Buffer.from(`Workspace:no-such-workspace`).toString("base64");
  const one = await client.query(NodeById, { id: unknown }, { requestPolicy: "network-only" }).toPromise();
  expect(one.error).toBeUndefined();
  expect(one.data).toEqual({ node: null });

  const ws = await client.query(Workspaces, {}, { requestPolicy: "network-only" }).toPromise();
  const demo = ws.data?.workspaces.find((w) => w.name === "demo");
  expect(demo).toBeDefined();
  const many = await client
    .query(NodesByIds, { ids: [demo!.id, unknown] }, { requestPolicy: "network-only" })
    .toPromise();
  expect(many.error).toBeUndefined();
  expect(many.data).toEqual({ nodes: [{ __typename: "Workspace", id: demo!.id }, null] });
});

test("a subscription through subscriptionExchange (graphql-ws) delivers an agent's whole stream in order", async () => {
  const { agentId } = await spawnStreamingAgent("urql-subscription", 15, 60);
  const delivered: StreamedEvent[] = [];
  await new Promise<void>((resolve, reject) => {
    // urql ends a subscription with one more result, hasNext: false, repeating the last data.
    const sub = client.subscription(AgentEvents, { agentId, after: null }).subscribe((r) => {
      if (r.error) {
        sub.unsubscribe();
        reject(r.error);
      } else if (!r.hasNext) {
        sub.unsubscribe();
        resolve();
      } else if (r.data) delivered.push(r.data.agentEvents);
    });
  });
  expect(delivered.map((e) => e.seq)).toEqual(await storedSeqs(agentId));
});

test("@defer through fetchExchange: the agent in the first result, the deferred events in a later one", async () => {
  const { agentId } = await spawnStreamingAgent("urql-defer", 3, 10);
  const results: OperationResult<AgentDeferredTimelineQuery>[] = [];
  await new Promise<void>((resolve, reject) => {
    const sub = client
      .query(AgentDeferredTimeline, { agentId }, { requestPolicy: "network-only" })
      .subscribe((r) => {
        results.push(r);
        if (r.error) {
          sub.unsubscribe();
          reject(r.error);
        } else if (!r.hasNext) {
          // Unsubscribing inside the callback of the last part aborts urql's fetch while its
          // multipart reader still waits for the end of the body (an unhandled AbortError in
          // @urql/core 6): let the response end first, then let go.
          setTimeout(() => {
            sub.unsubscribe();
            resolve();
          }, 250);
        }
      });
  });
  const hasEvents = (r: OperationResult<AgentDeferredTimelineQuery>) =>
    r.data?.agent != null && "events" in r.data.agent && r.data.agent.events != null;
  expect(results.length).toBeGreaterThan(1);
  expect(results[0]!.hasNext).toBe(true);
  expect(results[0]!.data?.agent?.agentId).toBe(agentId);
  expect(hasEvents(results[0]!)).toBe(false);
  expect(hasEvents(results.at(-1)!)).toBe(true);
});
