/**
 * Server-sent events against the live gateway: the official graphql-sse client in both modes
 * (distinct connections on /graphql, single connection on the graphql-sse endpoint) and a plain
 * EventSource-style reader, each through a relay that cuts the stream mid-way.
 * - Every `next` frame carries `id: <the event's cursor>`; a reconnect sending that id as
 *   `Last-Event-ID` gets the events after it (what a browser's EventSource does by itself).
 * - The graphql-sse client's automatic retry re-evaluates `headers`, so sending the last cursor as
 *   Last-Event-ID there makes its retry resume instead of replay.
 * - @defer over SSE: the first `next` has the agent, a later one the deferred events.
 */
import { print } from "graphql";
import { createClient, type Client, type ExecutionResult } from "graphql-sse";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, describe, expect, test } from "vitest";
import type { AgentEventsSubscription } from "../generated/graphql.js";
import { startCutProxy, type CutProxy } from "../lib/cut-proxy.js";
import { AUTH, GATEWAY_URL, HTTP_URL } from "../lib/env.js";
import { sleep, spawnStreamingAgent, storedSeqs, untilBeforeEnd } from "../lib/fleet.js";
import { AgentDeferredTimeline, AgentEvents, type StreamedEvent } from "../lib/operations.js";

/**
 * Path of the graphql-sse protocol endpoint that also serves its single connection mode
 * (yoga's @graphql-yoga/plugin-graphql-sse default). Distinct connections use /graphql itself.
 */
const SSE_PROTOCOL_PATH = "/graphql/stream";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function cutProxy(): Promise<CutProxy> {
  const proxy = await startCutProxy(GATEWAY_URL);
  cleanups.push(() => proxy.close());
  return proxy;
}

/** How one subscription attempt ended. */
type Ending = { kind: "complete" } | { kind: "error"; error: unknown };

/** Subscribe through a graphql-sse client, appending each event to `into`, until it ends. */
function subscribe(
  client: Client<boolean>,
  agentId: string,
  after: string | null,
  into: StreamedEvent[],
): Promise<Ending> {
  return new Promise((resolve) => {
    client.subscribe<AgentEventsSubscription>(
      { query: print(AgentEvents), variables: { agentId, after } },
      {
        next: (r: ExecutionResult<AgentEventsSubscription>) => {
          if (r.errors?.length) resolve({ kind: "error", error: r.errors });
          else if (r.data) into.push(r.data.agentEvents);
        },
        error: (error) => resolve({ kind: "error", error }),
        complete: () => resolve({ kind: "complete" }),
      },
    );
  });
}

/** The checks every resume test ends with. */
async function expectExactlyStored(agentId: string, delivered: StreamedEvent[]): Promise<void> {
  const seqs = delivered.map((e) => e.seq);
  expect(new Set(seqs).size, `no duplicate in ${seqs.join(",")}`).toBe(seqs.length);
  expect(seqs, "exactly the stored timeline: no hole").toEqual(await storedSeqs(agentId));
}

describe("distinct connections mode (/graphql)", () => {
  test("a stream cut mid-way resumes through the client's own retry sending Last-Event-ID: no duplicate, no hole", async () => {
    const proxy = await cutProxy();
    const delivered: StreamedEvent[] = [];
    const client = createClient({
      url: `${proxy.url}/graphql`,
      headers: () => {
        const last = delivered.at(-1);
        return { ...AUTH, ...(last ? { "last-event-id": last.cursor } : {}) };
      },
      retryAttempts: 3,
      retry: () => sleep(500), // (the agent streams on meanwhile)
    });
    cleanups.push(() => client.dispose());
    const { agentId } = await spawnStreamingAgent("sse-distinct-resume", 30, 100);
    const ended = subscribe(client, agentId, null, delivered);
    await untilBeforeEnd("6 events", () => delivered.length >= 6, ended);
    const beforeCut = delivered.length;
    await proxy.cut();
    expect(await ended).toEqual({ kind: "complete" });
    expect(proxy.accepted, "the client reconnected once").toBe(2);
    expect(delivered.length).toBeGreaterThan(beforeCut);
    await expectExactlyStored(agentId, delivered);
  });

  test("@defer arrives in parts: the agent in the first message, its deferred events in a later one", async () => {
    const client = createClient({ url: HTTP_URL, headers: { ...AUTH }, retryAttempts: 0 });
    cleanups.push(() => client.dispose());
    const { agentId } = await spawnStreamingAgent("sse-defer", 3, 10);
    const parts: ExecutionResult<Record<string, unknown>, unknown>[] = [];
    for await (const part of client.iterate({
      query: print(AgentDeferredTimeline),
      variables: { agentId },
    })) {
      parts.push(part as ExecutionResult<Record<string, unknown>, unknown>);
    }
    expect(parts.length, JSON.stringify(parts)).toBeGreaterThan(1);
    const [head, ...rest] = parts;
    expect(head).toMatchObject({ data: { agent: { agentId } }, hasNext: true });
    expect(head!.data!["agent"]).not.toHaveProperty("events");
    expect(rest.at(-1)).toMatchObject({ hasNext: false });
    const incremental = rest.flatMap(
      (p) => (p as { incremental?: { data?: unknown; path?: unknown }[] }).incremental ?? [],
    );
    expect(incremental).toContainEqual(
      expect.objectContaining({
        path: ["agent"],
        data: { events: expect.objectContaining({ nodes: expect.any(Array) }) },
      }),
    );
  });
});

describe(`single connection mode (${SSE_PROTOCOL_PATH})`, () => {
  test("a subscription works and, after its stream is cut, resumes from the last cursor with no duplicate and no hole", async () => {
    const proxy = await cutProxy();
    const client = createClient({
      singleConnection: true,
      url: `${proxy.url}${SSE_PROTOCOL_PATH}`,
      headers: { ...AUTH },
      retryAttempts: 0,
    });
    cleanups.push(() => client.dispose());
    const { agentId } = await spawnStreamingAgent("sse-single-resume", 30, 100);
    const delivered: StreamedEvent[] = [];
    const first = subscribe(client, agentId, null, delivered);
    await untilBeforeEnd("6 events", () => delivered.length >= 6, first);
    await proxy.cut();
    expect((await first).kind, "the cut ends the first subscription with an error").toBe("error");
    const beforeResume = delivered.length;
    await sleep(500);
    expect(await subscribe(client, agentId, delivered.at(-1)!.cursor, delivered)).toEqual({
      kind: "complete",
    });
    expect(delivered.length).toBeGreaterThan(beforeResume);
    await expectExactlyStored(agentId, delivered);
  });
});

describe("EventSource-style (GET, text/event-stream)", () => {
  /**
   * GET the subscription as an EventSource would, parse its frames (eventsource-parser) and call
   * `onMessage` for each until the stream ends or is cut. Resolves with how it ended.
   */
  async function readStream(
    url: string,
    headers: Record<string, string>,
    onMessage: (m: EventSourceMessage) => void,
  ): Promise<"complete" | "cut"> {
    const res = await fetch(url, { headers: { ...AUTH, accept: "text/event-stream", ...headers } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    let completed = false;
    const parser = createParser({
      onEvent: (m) => {
        if (m.event === "complete") completed = true;
        else onMessage(m);
      },
    });
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      return "cut";
    }
    return completed ? "complete" : "cut";
  }

  test("every next frame has id: <cursor>, and a reconnect with Last-Event-ID resumes after it: no duplicate, no hole", async () => {
    const proxy = await cutProxy();
    const { agentId } = await spawnStreamingAgent("sse-last-event-id", 30, 100);
    const params = new URLSearchParams({
      query: print(AgentEvents),
      variables: JSON.stringify({ agentId, after: null }),
    });
    const url = `${proxy.url}/graphql?${params}`;
    const delivered: StreamedEvent[] = [];
    const ids: (string | undefined)[] = [];
    const onMessage = (m: EventSourceMessage) => {
      const payload = JSON.parse(m.data) as ExecutionResult<AgentEventsSubscription>;
      expect(payload.errors).toBeUndefined();
      delivered.push(payload.data!.agentEvents);
      ids.push(m.id);
      if (delivered.length === 6) void proxy.cut();
    };
    expect(await readStream(url, {}, onMessage)).toBe("cut");
    const beforeResume = delivered.length;
    await sleep(500);
    // Same request as the first (after: null), as EventSource repeats it, plus the last id seen.
    expect(await readStream(url, { "last-event-id": ids.at(-1) ?? "" }, onMessage)).toBe("complete");
    expect(ids, "each frame's id is its event's cursor").toEqual(delivered.map((e) => e.cursor));
    expect(delivered.length).toBeGreaterThan(beforeResume);
    await expectExactlyStored(agentId, delivered);
  });
});
