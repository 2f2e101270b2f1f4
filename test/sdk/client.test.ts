/**
 * The SDK client against a real gateway (in-process, caliband double): typed requests, typed
 * mutation results, GraphQLRequestError / NetworkError, and `agentEvents` resuming after its
 * WebSocket is cut mid-stream — every seq delivered exactly once, the re-subscription asking for
 * events after the last delivered cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import {
  AgentDocument,
  AgentEventsPageDocument,
  GraphQLRequestError,
  KillAgentDocument,
  NetworkError,
  SpawnAgentDocument,
  WorkspacesDocument,
  createProsperoClient,
  isMutationError,
  type AgentEvent,
  type ProsperoClient,
} from "../../src/sdk/index.js";
import type { NewEvent } from "../../src/events/index.js";
import { closedPort } from "../cli/run-cli.js";

let h: AppHarness;
const clients: ProsperoClient[] = [];
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  for (const c of clients) await c.dispose();
  await h?.close();
});

function client(opts: Partial<Parameters<typeof createProsperoClient>[0]> = {}): ProsperoClient {
  const c = createProsperoClient({ url: h.url, token: h.token, ...opts });
  clients.push(c);
  return c;
}

async function spawn(c: ProsperoClient, prompt: string): Promise<string> {
  const r = await c.request(SpawnAgentDocument, { input: { workspace: "demo", prompt } });
  if (r.spawnAgent.__typename !== "SpawnAgentPayload") throw new Error(JSON.stringify(r));
  return r.spawnAgent.agent.agentId;
}

/** A `ws` WebSocket class that records its instances and every message they send. */
function recordingWebSocket() {
  const sockets: { ws: WebSocket; sent: string[] }[] = [];
  class Recording extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      const sent: string[] = [];
      sockets.push({ ws: this, sent });
      const send = this.send.bind(this) as (...a: unknown[]) => void;
      this.send = ((data: unknown, ...rest: unknown[]) => {
        sent.push(String(data));
        send(data, ...rest);
      }) as WebSocket["send"];
    }
  }
  return { Recording, sockets };
}

describe("requests", () => {
  it("typed queries with and without variables; /graphql is appended to a base URL", async () => {
    const c = client();
    expect(c.endpoint).toBe(`${h.url}/graphql`);
    expect(c.wsEndpoint).toBe(`${h.url.replace("http:", "ws:")}/graphql`);
    const { workspaces } = await c.request(WorkspacesDocument);
    expect(workspaces.map((w) => [w.name, w.health.state])).toEqual([["demo", "HEALTHY"]]);
    const missing = await c.request(AgentDocument, { agentId: "000000000000" });
    expect(missing.agent).toBeNull();
  });

  it("typed mutation errors are results, narrowed by isMutationError", async () => {
    const c = client();
    const r = await c.request(KillAgentDocument, { agentId: "000000000000" });
    expect(isMutationError(r.killAgent)).toBe(true);
    if (!isMutationError(r.killAgent)) throw new Error("expected an error result");
    expect(r.killAgent).toMatchObject({ __typename: "NotFoundError", code: "NOT_FOUND" });
  });

  it("GraphQL errors throw GraphQLRequestError with codes; an unreachable gateway throws NetworkError", async () => {
    const c = client();
    const err = await c
      .request(AgentEventsPageDocument, { agentId: "000000000000" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphQLRequestError);
    expect((err as GraphQLRequestError).hasCode("NOT_FOUND")).toBe(true);
    expect((err as GraphQLRequestError).errors[0]?.message).toBe("agent not found: 000000000000");

    const port = await closedPort();
    const down = client({ url: `http://127.0.0.1:${port}` });
    const net = await down.request(WorkspacesDocument).catch((e: unknown) => e);
    expect(net).toBeInstanceOf(NetworkError);
    expect(net).toMatchObject({ reason: "ECONNREFUSED", endpoint: `http://127.0.0.1:${port}/graphql` });
  });

  it("headers (static or per request) are sent; a non-GraphQL answer is a NetworkError with its status", async () => {
    const seen: Record<string, string>[] = [];
    // Headers given by the caller are sent as they are (here the Authorization header, which
    // then replaces the client's own token).
    const c = client({
      headers: async () => ({ authorization: `Bearer ${h.token}`, "x-trace": "t0k3n" }),
      fetch: async (input, init) => {
        seen.push(Object.fromEntries(new Headers(init.headers).entries()));
        return fetch(input, init);
      },
    });
    await c.request(WorkspacesDocument);
    expect(seen[0]).toMatchObject({
      authorization: `Bearer ${h.token}`,
      "x-trace": "t0k3n",
      "content-type": "application/json",
    });
    const proxy = client({ fetch: async () => new Response("<html>bad gateway</html>", { status: 502 }) });
    await expect(proxy.request(WorkspacesDocument)).rejects.toMatchObject({
      name: "NetworkError",
      status: 502,
      reason: "HTTP 502: not a GraphQL response",
    });
  });
});

describe("agentEvents", () => {
  it("resumes after the WebSocket is cut mid-stream: seqs 1..N exactly once, re-subscribed after the last cursor", async () => {
    const { Recording, sockets } = recordingWebSocket();
    const c = client({ webSocketImpl: Recording, retry: { minDelayMs: 20, maxDelayMs: 100 } });
    const id = await spawn(c, "stream a lot fake:frames=300");
    const events: AgentEvent[] = [];
    const reconnects: { attempt: number; lastCursor: string | null; deliveredBefore: number }[] = [];
    let cut = false;
    const result = await c.agentEvents(id, {
      onEvent: (e) => {
        events.push(e);
        if (!cut && events.length === 5) {
          cut = true;
          sockets.at(-1)!.ws.terminate(); // the connection dies with events in flight
        }
      },
      onReconnect: (info) => reconnects.push({ ...info, deliveredBefore: events.length }),
    });
    expect(result.completed).toBe(true);
    expect(reconnects.length).toBeGreaterThanOrEqual(1);
    expect(sockets.length).toBeGreaterThanOrEqual(2);

    const seqs = events.map((e) => e.seq);
    expect(seqs.length).toBeGreaterThan(5);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const stored = await h.app.store.readStream(id, 0, 100_000);
    expect(seqs).toEqual(stored.map((e) => e.seq));
    expect(events.at(-1)).toMatchObject({ __typename: "StatusChangedEvent", to: "DONE" });
    expect(result).toMatchObject({
      lastSeq: seqs.at(-1),
      lastCursor: events.at(-1)!.cursor,
      delivered: seqs.length,
    });

    // The second socket's subscription asked for what came after the last event delivered before
    // the cut (events already in flight may have arrived after the 5th), not the start.
    const subscribes = sockets
      .flatMap((s) => s.sent)
      .map((m) => JSON.parse(m) as { type: string; payload?: { variables?: { after?: string | null } } })
      .filter((m) => m.type === "subscribe");
    expect(subscribes[0]?.payload?.variables?.after ?? null).toBeNull();
    expect(subscribes[1]?.payload?.variables?.after).toBe(reconnects[0]!.lastCursor);
    expect(reconnects[0]!.deliveredBefore).toBeGreaterThanOrEqual(5);
    expect(reconnects[0]!.lastCursor).toBe(events[reconnects[0]!.deliveredBefore - 1]!.cursor);
  });

  it("a long stream cut during its replay and fed live while reconnecting: every seq once, in order", async () => {
    const id = "abcabcabcabc";
    await h.app.db.prisma.agent.create({
      data: { id, workspace: "demo", name: id, status: "running", spec: {}, startedAt: new Date() },
    });
    const output = (from: number, n: number): NewEvent[] =>
      Array.from({ length: n }, (_, i) => ({
        kind: "output" as const,
        payload: { stream: "text", text: `e${from + i}`, turnIndex: 0, blockIndex: 0 },
        workspace: "demo",
        agentId: id,
        tsMs: Date.now(),
      }));
    await h.app.store.append(output(0, 400));
    const { Recording, sockets } = recordingWebSocket();
    const c = client({ webSocketImpl: Recording, retry: { minDelayMs: 50, maxDelayMs: 100 } });
    const seqs: number[] = [];
    let fedLive: Promise<void> | null = null;
    const result = await c.agentEvents(id, {
      onEvent: (e) => {
        seqs.push(e.seq);
        if (seqs.length === 5) sockets.at(-1)!.ws.terminate();
      },
      onReconnect: () => {
        // While the client is away: more output, then the terminal status that completes the stream.
        fedLive ??= (async () => {
          await h.app.store.append(output(400, 100));
          await h.app.store.append([
            {
              kind: "status_changed",
              payload: { from: "running", to: "done" },
              workspace: "demo",
              agentId: id,
              tsMs: Date.now(),
            },
          ]);
        })();
      },
    });
    await fedLive;
    expect(result.completed).toBe(true);
    expect(sockets.length).toBe(2);
    expect(seqs).toEqual(Array.from({ length: 501 }, (_, i) => i + 1));
  });

  it("starts after a given cursor, stops on abort, rejects for an unknown agent", async () => {
    const c = client();
    const id = await spawn(c, "hold on fake:hold=60000");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "running", 10_000, "running");
    const first: AgentEvent[] = [];
    const ctrl = new AbortController();
    const stopped = await c.agentEvents(id, {
      signal: ctrl.signal,
      onEvent: (e) => {
        first.push(e);
        if (first.length === 2) ctrl.abort();
      },
    });
    expect(stopped).toMatchObject({ completed: false, lastSeq: 2, delivered: 2 });

    const after: AgentEvent[] = [];
    const ctrl2 = new AbortController();
    await c.agentEvents(id, {
      after: stopped.lastCursor,
      signal: ctrl2.signal,
      onEvent: (e) => {
        after.push(e);
        ctrl2.abort();
      },
    });
    expect(after[0]?.seq).toBe(3);

    await expect(c.agentEvents("000000000000", { onEvent: () => {} })).rejects.toSatisfy(
      (e: unknown) => e instanceof GraphQLRequestError && e.hasCode("NOT_FOUND"),
    );
    h.d.daemon.agent(id)?.release();
  });

  it("dispose() ends pending streams with a NetworkError; later subscriptions fail the same way", async () => {
    const c = createProsperoClient({ url: h.url, token: h.token });
    const id = await spawn(c, "wait fake:hold=60000");
    const seen: number[] = [];
    const pending = c.agentEvents(id, { onEvent: (e) => seen.push(e.seq) });
    await waitFor(() => seen.length > 0, 10_000, "first event");
    await c.dispose();
    await expect(pending).rejects.toMatchObject({ name: "NetworkError", reason: "the client was disposed" });
    await expect(c.agentEvents(id, { onEvent: () => {} })).rejects.toMatchObject({ name: "NetworkError" });
    expect((await c.request(WorkspacesDocument)).workspaces).toHaveLength(1);
    h.d.daemon.agent(id)?.release();
  });

  it("gives up with a NetworkError when the gateway cannot be reached", async () => {
    const port = await closedPort();
    const c = client({
      url: `http://127.0.0.1:${port}`,
      retry: { attempts: 2, minDelayMs: 10, maxDelayMs: 20 },
    });
    const attempts: number[] = [];
    const err = await c
      .agentEvents("000000000000", { onEvent: () => {}, onReconnect: (i) => attempts.push(i.attempt) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).endpoint).toBe(`ws://127.0.0.1:${port}/graphql`);
    expect(attempts).toEqual([1, 2]);
  });
});
