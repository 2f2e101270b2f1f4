/**
 * Subscriptions that resume without duplicates (issue 13 item 8), over real ports with real
 * clients: SSE frames carry `id: <cursor>`, a reconnect with `Last-Event-ID` resumes right after
 * it (overriding `after`), connections cut mid-stream by a TCP proxy resume with no duplicate and
 * no hole, `fleetChanges(after:)` resumes without a seed, and graphql-sse's single connection
 * mode (`/graphql/stream`) works with the gateway's authentication, caps and backpressure.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createClient as createSseClient } from "graphql-sse";
import { createClient as createWsClient } from "graphql-ws";
import WebSocket from "ws";
import { startAppHarness, collect, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { onCleanup } from "../helpers/cleanup.js";
import { startTcpProxy } from "../helpers/tcp-proxy.js";
import type { NewEvent } from "../../src/events/index.js";

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** One SSE frame as a client reads it (`event`, `data`, `id` lines). */
interface Frame {
  event: string | null;
  data: string;
  id: string | null;
}

/**
 * The frames of an SSE body (per the HTML event-stream rules this test needs: `field: value`
 * lines, comments skipped, a blank line ends a frame).
 */
function framesOf(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split("\n\n")) {
    const f: Frame = { event: null, data: "", id: null };
    let any = false;
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const i = line.indexOf(":");
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
      any = true;
      if (field === "event") f.event = value;
      else if (field === "data") f.data = f.data === "" ? value : `${f.data}\n${value}`;
      else if (field === "id") f.id = value;
    }
    if (any) frames.push(f);
  }
  return frames;
}

type Item = { __typename: string; seq: number; cursor: string; text?: string; to?: string };

/** The `next` frames of an SSE body with their subscription item (under `field`) and id. */
function itemsOf(text: string, field: string): { item: Item; id: string | null }[] {
  return framesOf(text)
    .filter((f) => f.event === "next")
    .map((f) => {
      const data = (JSON.parse(f.data) as { data?: Record<string, Item> }).data;
      return { item: data![field]!, id: f.id };
    });
}

const AGENT_EVENTS = `subscription($id: String!, $after: String) {
  agentEvents(agentId: $id, after: $after) { __typename seq cursor ... on OutputEvent { text } ... on StatusChangedEvent { to } }
}`;

/** An agent row (status `status`) plus `n` stored output events `e0`…, through the real store. */
async function agentWithEvents(h: AppHarness, id: string, n: number, status = "running"): Promise<void> {
  await h.app.db.prisma.agent.create({
    data: { id, workspace: "demo", name: id, status, spec: {}, startedAt: new Date() },
  });
  await output(h, id, 0, n);
}

/** Append output events `e<from>`…`e<from+n-1>` to agent `id`. */
async function output(h: AppHarness, id: string, from: number, n: number): Promise<void> {
  const events: NewEvent[] = [];
  for (let j = from; j < from + n; j++) {
    events.push({
      kind: "output",
      payload: { stream: "text", text: `e${j}`, turnIndex: 0, blockIndex: 0 },
      workspace: "demo",
      agentId: id,
      tsMs: Date.now(),
    });
  }
  if (events.length) await h.app.store.append(events);
}

/** GET an SSE subscription (EventSource's request) and read its whole body (it must complete). */
async function sseGet(
  h: AppHarness,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const url = `${h.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
  const res = await fetch(url, {
    headers: { accept: "text/event-stream", authorization: `Bearer ${h.token}`, ...headers },
  });
  return { status: res.status, text: await res.text() };
}

/**
 * An open SSE subscription (POST, as graphql-sse's distinct connections mode sends it) whose
 * frames are collected as they arrive; `abort()` drops it from the client side.
 */
function sseOpen(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const ctrl = new AbortController();
  let text = "";
  const done = (async () => {
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
      signal: ctrl.signal,
    });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      text += dec.decode(r.value, { stream: true });
    }
  })().catch(() => {});
  return {
    get text() {
      return text;
    },
    done,
    abort: () => ctrl.abort(),
  };
}

describe("SSE event ids and Last-Event-ID", () => {
  it("every event frame carries id: <its cursor>; Last-Event-ID of event k delivers exactly k+1.. and overrides `after`", async () => {
    h = await startAppHarness();
    const id = "a1a1a1a1a1a1";
    await agentWithEvents(h, id, 10, "done"); // settled: the stream replays and completes
    const all = await sseGet(h, AGENT_EVENTS, { id });
    expect(all.status).toBe(200);
    const items = itemsOf(all.text, "agentEvents");
    expect(items.map((i) => i.item.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const i of items) expect(i.id).toBe(i.item.cursor);
    expect(framesOf(all.text).at(-1)?.event).toBe("complete");

    const k = items[3]!; // seq 4
    const resumed = itemsOf(
      (await sseGet(h, AGENT_EVENTS, { id }, { "last-event-id": k.id! })).text,
      "agentEvents",
    );
    expect(resumed.map((i) => i.item.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    // The header names what the client really received; the re-sent `after` is older.
    const overridden = itemsOf(
      (await sseGet(h, AGENT_EVENTS, { id, after: items[0]!.id }, { "last-event-id": items[7]!.id! })).text,
      "agentEvents",
    );
    expect(overridden.map((i) => i.item.seq)).toEqual([9, 10]);
    // An empty header is no header (EventSource sends none before its first id).
    const empty = itemsOf(
      (await sseGet(h, AGENT_EVENTS, { id, after: items[8]!.id }, { "last-event-id": "" })).text,
      "agentEvents",
    );
    expect(empty.map((i) => i.item.seq)).toEqual([10]);
    // Over graphql-ws there are no event ids and the frames' JSON is unchanged: no stray field.
    const ws = collect<{ agentEvents: Item }>(h.ws(), AGENT_EVENTS, { id, after: items[8]!.id });
    await ws.done;
    expect(ws.items).toEqual([
      { agentEvents: { __typename: "OutputEvent", seq: 10, cursor: items[9]!.id, text: "e9" } },
    ]);
  });

  it("a Last-Event-ID that is not a cursor of this gateway is BAD_USER_INPUT, not a replay from the start", async () => {
    h = await startAppHarness();
    const id = "a2a2a2a2a2a2";
    await agentWithEvents(h, id, 3, "done");
    const bad = await sseGet(h, AGENT_EVENTS, { id }, { "last-event-id": "not-a-cursor" });
    const frames = framesOf(bad.text).filter((f) => f.event === "next");
    expect(frames).toHaveLength(1);
    const r = JSON.parse(frames[0]!.data) as {
      data?: unknown;
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(r.errors[0]!.extensions.code).toBe("BAD_USER_INPUT");
    expect(r.errors[0]!.message).toMatch(/Last-Event-ID/);
    expect(frames[0]!.id).toBeNull();
  });

  it("a live SSE stream cut by the network mid-stream resumes with Last-Event-ID: every event once, none missing", async () => {
    h = await startAppHarness();
    const proxy = await startTcpProxy(h.app.gateway.port);
    onCleanup(() => proxy.close());
    const id = "a3a3a3a3a3a3";
    await agentWithEvents(h, id, 20);
    const first = sseOpen(proxy.url, h.token, AGENT_EVENTS, { id });
    await waitFor(() => itemsOf(first.text, "agentEvents").length >= 20, 10_000, "history");
    await output(h, id, 20, 5); // live
    await waitFor(() => itemsOf(first.text, "agentEvents").length >= 25, 10_000, "live");
    expect(proxy.cut()).toBeGreaterThan(0);
    await first.done;
    const got = itemsOf(first.text, "agentEvents");
    // While the client is away, more happens.
    await output(h, id, 25, 30);
    const lastId = got.at(-1)!.id!;
    const second = sseOpen(proxy.url, h.token, AGENT_EVENTS, { id }, { "last-event-id": lastId });
    await h.app.store.append([
      {
        kind: "status_changed",
        payload: { from: "running", to: "done" },
        workspace: "demo",
        agentId: id,
        tsMs: Date.now(),
      },
    ]);
    await second.done; // completes after the terminal status
    const rest = itemsOf(second.text, "agentEvents");
    const seqs = [...got, ...rest].map((i) => i.item.seq);
    expect(seqs).toEqual(Array.from({ length: 56 }, (_, i) => i + 1));
    for (const i of [...got, ...rest]) expect(i.id).toBe(i.item.cursor);
  });

  it("workspaceEvents and fleetEvents: ids in commit order, Last-Event-ID resumes right after it", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "b1b1b1b1b1b1", 4);
    await agentWithEvents(h, "b2b2b2b2b2b2", 4);
    await output(h, "b1b1b1b1b1b1", 4, 2);
    const WS = `subscription($w: String!, $after: String) { workspaceEvents(workspace: $w, after: $after) { __typename seq cursor agentId ... on OutputEvent { text } } }`;
    const FLEET = `subscription($after: String) { fleetEvents(filter: { kinds: [OUTPUT] }, after: $after) { __typename seq cursor ... on OutputEvent { text } } }`;
    for (const [query, field, variables] of [
      [WS, "workspaceEvents", { w: "demo" }],
      [FLEET, "fleetEvents", {}],
    ] as const) {
      const first = sseOpen(h.url, h.token, query, variables);
      await waitFor(() => itemsOf(first.text, field).filter((i) => i.item.text).length >= 10, 10_000, field);
      first.abort();
      const got = itemsOf(first.text, field).filter((i) => i.item.text);
      for (const i of got) expect(i.id).toBe(i.item.cursor);
      const third = got[2]!;
      const again = sseOpen(h.url, h.token, query, variables, { "last-event-id": third.id! });
      await waitFor(
        () => itemsOf(again.text, field).filter((i) => i.item.text).length >= 7,
        10_000,
        `${field} resumed`,
      );
      again.abort();
      expect(
        itemsOf(again.text, field)
          .filter((i) => i.item.text)
          .map((i) => i.item.text),
      ).toEqual(got.slice(3).map((i) => i.item.text));
    }
  });
});

describe("an event delivered live but not stored", () => {
  it("in commit order its cursor (and SSE id) resumes right after the last stored event before it, not from the start", async () => {
    h = await startAppHarness();
    const id = "a4a4a4a4a4a4";
    await agentWithEvents(h, id, 2);
    const WS = `subscription($after: String) { workspaceEvents(workspace: "demo", after: $after) { __typename seq cursor ... on OutputEvent { text } } }`;
    const texts = (text: string) => itemsOf(text, "workspaceEvents").filter((i) => i.item.text);
    const first = sseOpen(h.url, h.token, WS, {});
    await waitFor(() => texts(first.text).length === 2, 5_000, "stored history");
    // What the store publishes when an append fails: the event live, with no globalId.
    h.app.bus.publish({
      kind: "output",
      payload: { stream: "text", text: "lost", turnIndex: 0, blockIndex: 0 },
      workspace: "demo",
      agentId: id,
      tsMs: Date.now(),
      streamKey: id,
      seq: 3,
      globalId: null,
    });
    await waitFor(() => texts(first.text).length === 3, 5_000, "the live-only event");
    first.abort();
    const lost = texts(first.text)[2]!;
    expect(lost.item.text).toBe("lost");
    expect(lost.id).toBe(lost.item.cursor);
    await output(h, id, 2, 1);
    for (const resumed of [
      sseOpen(h.url, h.token, WS, {}, { "last-event-id": lost.id! }),
      sseOpen(h.url, h.token, WS, { after: lost.item.cursor }),
    ]) {
      await waitFor(() => texts(resumed.text).length >= 1, 5_000, "resumed");
      await new Promise((r) => setTimeout(r, 200)); // nothing else follows
      resumed.abort();
      expect(texts(resumed.text).map((i) => i.item.text)).toEqual(["e2"]);
    }
  });
});

describe("graphql-sse's single connection mode at /graphql/stream", () => {
  /** A graphql-sse client in single connection mode, authenticated with `token`. */
  function streamClient(
    url: string,
    token: string,
    opts: Partial<Parameters<typeof createSseClient>[0]> = {},
  ) {
    const c = createSseClient({
      url: `${url}/graphql/stream`,
      singleConnection: true,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${token}` },
      ...opts,
    });
    onCleanup(() => c.dispose());
    return c;
  }

  it("the same client resubscribes after its stream is cut by the network (its next PUT carries the dead stream token): resumes after the last cursor, every event once", async () => {
    h = await startAppHarness();
    const proxy = await startTcpProxy(h.app.gateway.port);
    onCleanup(() => proxy.close());
    const id = "c9c9c9c9c9c9";
    await agentWithEvents(h, id, 5);
    // One headers object, as most callers write it: graphql-sse's client stores the stream token in it.
    const c = streamClient(proxy.url, h.token);
    const got: Item[] = [];
    const subscribe = (after: string | null) =>
      new Promise<"complete" | "error">((resolve) => {
        c.subscribe(
          { query: AGENT_EVENTS, variables: { id, after } },
          {
            next: (r) => void got.push((r.data as { agentEvents: Item }).agentEvents),
            complete: () => resolve("complete"),
            error: () => resolve("error"),
          },
        );
      });
    const first = subscribe(null);
    await waitFor(() => got.length === 5, 5_000, "history");
    await output(h, id, 5, 2); // live
    await waitFor(() => got.length === 7, 5_000, "live");
    expect(proxy.cut()).toBeGreaterThan(0);
    expect(await first).toBe("error");
    await output(h, id, 7, 3); // while the client is away
    const second = subscribe(got.at(-1)!.cursor);
    await waitFor(() => got.length === 10, 5_000, "resumed");
    await h.app.store.append([
      {
        kind: "status_changed",
        payload: { from: "running", to: "done" },
        workspace: "demo",
        agentId: id,
        tsMs: Date.now(),
      },
    ]);
    expect(await second).toBe("complete");
    expect(got.map((i) => i.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
  });

  it("several subscriptions and a query share one event stream; each completes on its own", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "c1c1c1c1c1c1", 3, "done");
    await agentWithEvents(h, "c2c2c2c2c2c2", 4, "done");
    const c = streamClient(h.url, h.token);
    const take = async (query: string, variables: Record<string, unknown>) => {
      const out: unknown[] = [];
      for await (const r of c.iterate({ query, variables })) out.push(r);
      return out;
    };
    const [a, b, q] = await Promise.all([
      take(AGENT_EVENTS, { id: "c1c1c1c1c1c1" }),
      take(AGENT_EVENTS, { id: "c2c2c2c2c2c2" }),
      take("{ version }", {}),
    ]);
    const seqs = (rs: unknown[]) =>
      rs.map((r) => (r as { data: { agentEvents: Item } }).data.agentEvents.seq);
    expect(seqs(a)).toEqual([1, 2, 3]);
    expect(seqs(b)).toEqual([1, 2, 3, 4]);
    expect(q).toEqual([{ data: { version: expect.any(String) } }]);
  });

  /** The raw protocol: reserve, open (a streaming GET), post, stop — as graphql-sse's client does. */
  function raw(url: string, token: string) {
    const base = `${url}/graphql/stream`;
    const auth = { authorization: `Bearer ${token}` };
    return {
      reserve: async () => {
        const r = await fetch(base, { method: "PUT", headers: auth });
        return { status: r.status, text: await r.text() };
      },
      open: (stream: string) => {
        const ctrl = new AbortController();
        let text = "";
        let status = 0;
        const done = (async () => {
          const r = await fetch(base, {
            headers: { ...auth, accept: "text/event-stream", "x-graphql-event-stream-token": stream },
            signal: ctrl.signal,
          });
          status = r.status;
          const reader = r.body!.getReader();
          const dec = new TextDecoder();
          for (;;) {
            const c = await reader.read();
            if (c.done) return;
            text += dec.decode(c.value, { stream: true });
          }
        })().catch(() => {});
        return {
          get text() {
            return text;
          },
          get status() {
            return status;
          },
          done,
          abort: () => ctrl.abort(),
        };
      },
      post: async (
        stream: string,
        operationId: string,
        query: string,
        variables: Record<string, unknown> = {},
      ) => {
        const r = await fetch(base, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", "x-graphql-event-stream-token": stream },
          body: JSON.stringify({ query, variables, extensions: { operationId } }),
        });
        return { status: r.status, text: await r.text() };
      },
      stop: async (stream: string, operationId: string) => {
        const r = await fetch(`${base}?operationId=${operationId}`, {
          method: "DELETE",
          headers: { ...auth, "x-graphql-event-stream-token": stream },
        });
        return r.status;
      },
    };
  }

  /** `next` payloads of operation `opId` on a single-connection stream body. */
  function opItems(text: string, opId: string): Item[] {
    return framesOf(text)
      .filter((f) => f.event === "next")
      .map((f) => JSON.parse(f.data) as { id: string; payload: { data?: { agentEvents: Item } } })
      .filter((m) => m.id === opId && m.payload.data)
      .map((m) => m.payload.data!.agentEvents);
  }

  it("a stream belongs to the API token that reserved it; tokens are the gateway's; operations need an open stream", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "c3c3c3c3c3c3", 2, "done");
    const viewer = await h.createToken({ name: "other-viewer", role: "VIEWER" });
    const mine = raw(h.url, h.token);
    const theirs = raw(h.url, viewer);
    const reserved = await mine.reserve();
    expect(reserved.status).toBe(201);
    const stream = reserved.text;
    expect(stream).toMatch(/^[0-9a-f-]{36}$/);
    // Not open yet: no operation may be posted (its results would have no reader).
    expect((await mine.post(stream, "1", AGENT_EVENTS, { id: "c3c3c3c3c3c3" })).status).toBe(409);
    const open = mine.open(stream);
    await waitFor(() => open.status === 200, 5_000, "stream open");
    // Another API token holding the stream token: as if there were no such stream.
    const stolen = await theirs.post(stream, "2", AGENT_EVENTS, { id: "c3c3c3c3c3c3" });
    expect(stolen.status).toBe(404);
    expect(JSON.parse(stolen.text)).toMatchObject({ errors: [{ extensions: { code: "NOT_FOUND" } }] });
    expect(await theirs.stop(stream, "1")).toBe(404);
    const hijack = theirs.open(stream);
    await hijack.done;
    expect(hijack.status).toBe(404);
    // A PUT carrying a stream token (graphql-sse's client re-sends its last one when it reconnects)
    // reserves a new stream under a token of the gateway's; the token it named registers nothing.
    const chosen = await fetch(`${h.url}/graphql/stream`, {
      method: "PUT",
      headers: { authorization: `Bearer ${h.token}`, "x-graphql-event-stream-token": "my-own-token" },
    });
    expect(chosen.status).toBe(201);
    expect(await chosen.text()).toMatch(/^[0-9a-f-]{36}$/);
    const named = mine.open("my-own-token");
    await named.done;
    expect(named.status).toBe(404);
    // The owner's operation runs on the stream.
    expect((await mine.post(stream, "3", AGENT_EVENTS, { id: "c3c3c3c3c3c3" })).status).toBe(202);
    await waitFor(() => opItems(open.text, "3").length === 2, 5_000, "results");
    expect(opItems(open.text, "3").map((i) => i.seq)).toEqual([1, 2]);
    open.abort();
    // Without credentials: the gateway's 401, as on /graphql.
    expect((await fetch(`${h.url}/graphql/stream`, { method: "PUT" })).status).toBe(401);
    // Distinct connections mode is /graphql's: refused here with a pointer.
    const distinct = await fetch(`${h.url}/graphql/stream`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.token}`,
        accept: "text/event-stream",
        "content-type": "application/json",
      },
      body: JSON.stringify({ query: "{ version }" }),
    });
    expect(distinct.status).toBe(400);
    expect(await distinct.text()).toMatch(/distinct connections mode .* \/graphql/);
  });

  it("errors keep their shape and code: a bad document is a 400 with its errors, a subscription that cannot start is its one result", async () => {
    h = await startAppHarness();
    const c = streamClient(h.url, h.token);
    const results: unknown[] = [];
    for await (const r of c.iterate({ query: AGENT_EVENTS, variables: { id: "000000000000" } }))
      results.push(r);
    expect(results).toMatchObject([
      {
        data: null,
        errors: [{ message: "agent not found: 000000000000", extensions: { code: "NOT_FOUND" } }],
      },
    ]);
    const p = raw(h.url, h.token);
    const stream = (await p.reserve()).text;
    const open = p.open(stream);
    await waitFor(() => open.status === 200, 5_000, "open");
    const invalid = await p.post(stream, "1", "{ nope }");
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text)).toMatchObject({
      errors: [{ extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }],
    });
    const unparsable = await p.post(stream, "2", "{ version");
    expect(unparsable.status).toBe(400);
    expect(JSON.parse(unparsable.text)).toMatchObject({
      errors: [{ extensions: { code: "GRAPHQL_PARSE_FAILED" } }],
    });
    const cursor = await p.post(stream, "3", AGENT_EVENTS, { id: "000000000000", after: "garbage" });
    expect(cursor.status).toBe(202);
    open.abort();
  });

  it("at shutdown each operation ends with SHUTTING_DOWN and complete, and the client lets the stream go", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "c7c7c7c7c7c7", 2);
    const c = streamClient(h.url, h.token);
    const results: { data?: unknown; errors?: { extensions?: { code?: string } }[] }[] = [];
    let ended: "complete" | "error" | null = null;
    c.subscribe(
      { query: AGENT_EVENTS, variables: { id: "c7c7c7c7c7c7" } },
      {
        next: (r) => void results.push(r as (typeof results)[number]),
        complete: () => (ended = "complete"),
        error: () => (ended = "error"),
      },
    );
    await waitFor(() => results.length === 2, 5_000, "history");
    const harness = h;
    h = undefined;
    await harness.close();
    expect(ended).toBe("complete");
    expect(results.at(-1)?.errors?.[0]?.extensions?.code).toBe("SHUTTING_DOWN");
  });

  it("under --trusted-documents-only an operation on a stream must be a registered document, as on /graphql", async () => {
    h = await startAppHarness({ config: { trustedDocumentsOnly: true } });
    const p = raw(h.url, h.token);
    const stream = (await p.reserve()).text;
    const open = p.open(stream);
    await waitFor(() => open.status === 200, 5_000, "open");
    const refused = await p.post(stream, "1", "{ version }");
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({
      errors: [{ extensions: { code: "DOCUMENT_NOT_TRUSTED" } }],
    });
    open.abort();
  });

  it("reservations not opened are capped per token and dropped after a while", async () => {
    h = await startAppHarness();
    const c = raw(h.url, h.token);
    const tokens: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await c.reserve();
      expect(r.status).toBe(201);
      tokens.push(r.text);
    }
    const ninth = await c.reserve();
    expect(ninth.status).toBe(503);
    expect(JSON.parse(ninth.text)).toMatchObject({
      errors: [{ extensions: { code: "TOO_MANY_CONNECTIONS" } }],
    });
    // Another token has its own share.
    const viewer = await h.createToken({ name: "v2", role: "VIEWER" });
    expect((await raw(h.url, viewer).reserve()).status).toBe(201);
    // Never opened: gone after the reservation TTL, and the slots are free again.
    await new Promise((r) => setTimeout(r, 5_500));
    const late = c.open(tokens[0]!);
    await late.done;
    expect(late.status).toBe(404);
    for (let i = 0; i < 8; i++) expect((await c.reserve()).status).toBe(201);
  });

  it("revoking the token closes its stream and releases its subscriptions; a stopped operation is released too", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "c4c4c4c4c4c4", 1);
    const before = h.app.bus.listenerCount();
    const secret = await h.createToken({ name: "short-lived", role: "VIEWER" });
    const c = raw(h.url, secret);
    const stream = (await c.reserve()).text;
    const open = c.open(stream);
    await waitFor(() => open.status === 200, 5_000, "open");
    expect((await c.post(stream, "a", AGENT_EVENTS, { id: "c4c4c4c4c4c4" })).status).toBe(202);
    expect((await c.post(stream, "b", AGENT_EVENTS, { id: "c4c4c4c4c4c4" })).status).toBe(202);
    await waitFor(() => opItems(open.text, "b").length === 1, 5_000, "b's first event");
    expect(h.app.bus.listenerCount()).toBe(before + 2);
    expect(await c.stop(stream, "a")).toBe(200);
    await waitFor(() => h!.app.bus.listenerCount() === before + 1, 5_000, "a released");
    await output(h, "c4c4c4c4c4c4", 1, 1);
    await waitFor(() => opItems(open.text, "b").length === 2, 5_000, "b live");
    const r = await h.gql(`mutation { revokeToken(input: { token: "short-lived" }) { __typename } }`);
    expect(r.errors).toBeUndefined();
    await open.done; // the gateway ended the stream
    await waitFor(() => h!.app.bus.listenerCount() === before, 5_000, "b released");
    expect((await c.reserve()).status).toBe(401);
  });

  it("at most 100 operations run on one stream; the 101st ends at once with TOO_MANY_SUBSCRIPTIONS", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "c5c5c5c5c5c5", 1);
    const c = raw(h.url, h.token);
    const stream = (await c.reserve()).text;
    const open = c.open(stream);
    await waitFor(() => open.status === 200, 5_000, "open");
    for (let i = 0; i < 100; i++) {
      expect((await c.post(stream, `op${i}`, AGENT_EVENTS, { id: "c5c5c5c5c5c5" })).status).toBe(202);
    }
    await waitFor(() => opItems(open.text, "op99").length === 1, 10_000, "100 running");
    expect((await c.post(stream, "op100", AGENT_EVENTS, { id: "c5c5c5c5c5c5" })).status).toBe(202);
    await waitFor(
      () => framesOf(open.text).some((f) => f.event === "complete" && f.data.includes('"op100"')),
      5_000,
      "refused op completes",
    );
    const refused = framesOf(open.text)
      .filter((f) => f.event === "next")
      .map(
        (f) => JSON.parse(f.data) as { id: string; payload: { errors?: { extensions: { code: string } }[] } },
      )
      .find((m) => m.id === "op100");
    expect(refused?.payload.errors?.[0]?.extensions.code).toBe("TOO_MANY_SUBSCRIPTIONS");
    // Stopping one makes room for another.
    expect(await c.stop(stream, "op0")).toBe(200);
    await waitFor(
      () => framesOf(open.text).some((f) => f.event === "complete" && f.data.includes('"op0"')),
      5_000,
      "op0 done",
    );
    expect((await c.post(stream, "op101", AGENT_EVENTS, { id: "c5c5c5c5c5c5" })).status).toBe(202);
    await waitFor(() => opItems(open.text, "op101").length === 1, 5_000, "op101 runs");
    open.abort();
  });

  it("a client that stops reading its stream holds the gateway back: its subscription gets a GapEvent, then every event in order", async () => {
    h = await startAppHarness();
    const id = "c6c6c6c6c6c6";
    await agentWithEvents(h, id, 1);
    const c = raw(h.url, h.token);
    const stream = (await c.reserve()).text;
    // A raw HTTP GET whose socket stops being read: TCP backpressure reaches the gateway.
    let body = "";
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const u = new URL(`${h!.url}/graphql/stream`);
      http
        .get(
          {
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            headers: {
              authorization: `Bearer ${h!.token}`,
              accept: "text/event-stream",
              "x-graphql-event-stream-token": stream,
            },
          },
          resolve,
        )
        .on("error", reject);
    });
    onCleanup(() => void res.destroy());
    res.setEncoding("utf8");
    res.on("data", (d: string) => (body += d));
    expect((await c.post(stream, "s", AGENT_EVENTS, { id })).status).toBe(202);
    await waitFor(() => opItems(body, "s").length === 1, 5_000, "first event");
    res.pause();
    res.socket.pause();
    // Small appends with a turn of the event loop between them: a subscriber whose results are
    // taken as fast as they come never overflows; one held back by its unread stream does.
    const total = 60_000;
    const text = "x".repeat(200);
    for (let i = 0; i < total; i += 250) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      const events: NewEvent[] = [];
      for (let j = i; j < i + 250; j++) {
        events.push({
          kind: "output",
          payload: { stream: "text", text: `${text}${j}`, turnIndex: 0, blockIndex: 0 },
          workspace: "demo",
          agentId: id,
          tsMs: Date.now(),
        });
      }
      await h.app.store.append(events);
    }
    // The subscriber's own bounded buffer overflowed: the results were not queued without bound.
    expect(h.app.bus.stats.dropped).toBeGreaterThan(0);
    res.socket.resume();
    res.resume();
    await waitFor(() => body.includes(`${text}${total - 1}`), 60_000, "the last event");
    const items = opItems(body, "s");
    expect(items.some((e) => e.__typename === "GapEvent")).toBe(true);
    const seqs = items.filter((e) => e.__typename !== "GapEvent").map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.at(-1)).toBe(total + 1);
  }, 120_000);
});

const FLEET_CHANGES = `subscription($after: String) { fleetChanges(after: $after) {
  __typename
  ... on AgentAppeared { seed cursor agent { agentId } }
  ... on AgentStatusChanged { cursor to agent { agentId } }
  ... on AgentGone { cursor agentId }
  ... on WorkspaceHealthChanged { seed cursor health { state } }
  ... on FleetSeedComplete { fellBehind cursor }
} }`;

type Change = { __typename: string; cursor: string; seed?: boolean; to?: string; fellBehind?: boolean };

/** Lifecycle events (what fleetChanges carries) stored after the globalId `after`. */
async function lifecycleAfter(h: AppHarness, after: number): Promise<number[]> {
  const kinds = new Set([
    "agent_spawned",
    "agent_discovered",
    "status_changed",
    "agent_gone",
    "workspace_health",
  ]);
  return (await h.app.store.readGlobal(after, 10_000, (e) => kinds.has(e.kind))).map((e) => e.globalId!);
}

/** The globalId inside a gateway cursor (this test knows the format; clients treat it as opaque). */
function globalIdOf(cursor: string): number {
  return Number(Buffer.from(cursor, "base64url").toString("utf8").split(":")[1]);
}

/** A status change of agent `id` stored through the real store. */
function statusChange(id: string, from: string, to: string): NewEvent {
  return { kind: "status_changed", payload: { from, to }, workspace: "demo", agentId: id, tsMs: Date.now() };
}

describe("fleetChanges resumes after a cursor without a new seed", () => {
  it("over SSE: the seed's frames carry the seed's cursor; Last-Event-ID skips the seed and delivers exactly the changes after it", async () => {
    h = await startAppHarness();
    await agentWithEvents(h, "d1d1d1d1d1d1", 0);
    const first = sseOpen(h.url, h.token, FLEET_CHANGES, {});
    await waitFor(
      () => itemsOf(first.text, "fleetChanges").some((i) => i.item.__typename === "FleetSeedComplete"),
      10_000,
      "seed",
    );
    await h.app.store.append([statusChange("d1d1d1d1d1d1", "running", "idle")]);
    await waitFor(
      () => itemsOf(first.text, "fleetChanges").some((i) => (i.item as Change).to === "IDLE"),
      10_000,
      "live change",
    );
    first.abort();
    const got = itemsOf(first.text, "fleetChanges");
    const end = got.findIndex((i) => i.item.__typename === "FleetSeedComplete");
    const seedItems = got.slice(0, end + 1);
    expect(seedItems.map((i) => i.item.__typename)).toEqual([
      "WorkspaceHealthChanged",
      "AgentAppeared",
      "FleetSeedComplete",
    ]);
    expect((seedItems[2]!.item as Change).fellBehind).toBe(false);
    for (const i of got) expect(i.id).toBe(i.item.cursor);
    expect(new Set(seedItems.map((i) => i.id)).size).toBe(1); // one position: the seed's high-water mark

    // While away: two more changes. Resume after the last id received.
    await h.app.store.append([
      statusChange("d1d1d1d1d1d1", "idle", "running"),
      statusChange("d1d1d1d1d1d1", "running", "done"),
    ]);
    const lastId = got.at(-1)!.id!;
    const expected = await lifecycleAfter(h, globalIdOf(lastId));
    const again = sseOpen(h.url, h.token, FLEET_CHANGES, {}, { "last-event-id": lastId });
    await waitFor(
      () => itemsOf(again.text, "fleetChanges").some((i) => (i.item as Change).to === "DONE"),
      10_000,
      "resumed",
    );
    again.abort();
    const resumed = itemsOf(again.text, "fleetChanges");
    expect(resumed.some((i) => i.item.__typename === "FleetSeedComplete" || (i.item as Change).seed)).toBe(
      false,
    );
    expect(resumed.map((i) => globalIdOf(i.id!))).toEqual(expected);
    expect(resumed.map((i) => (i.item as Change).to)).toEqual(["RUNNING", "DONE"]);
  });

  it("over graphql-ws, cut by the network: resubscribing with `after` = the last cursor gets every change once and no seed; a bad cursor is BAD_USER_INPUT", async () => {
    h = await startAppHarness();
    const proxy = await startTcpProxy(h.app.gateway.port);
    onCleanup(() => proxy.close());
    await agentWithEvents(h, "d2d2d2d2d2d2", 0);
    const client = (url: string) => {
      const c = createWsClient({
        url: `${url.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { authorization: `Bearer ${h!.token}` },
      });
      onCleanup(() => c.dispose());
      return c;
    };
    const seen: Change[] = [];
    const first = new Promise<void>((resolve) => {
      client(proxy.url).subscribe<{ fleetChanges: Change }>(
        { query: FLEET_CHANGES },
        {
          next: (v) => void seen.push(v.data!.fleetChanges),
          error: () => resolve(),
          complete: () => resolve(),
        },
      );
    });
    await waitFor(() => seen.some((c) => c.__typename === "FleetSeedComplete"), 10_000, "seed");
    await h.app.store.append([statusChange("d2d2d2d2d2d2", "running", "idle")]);
    await waitFor(() => seen.some((c) => c.to === "IDLE"), 10_000, "live");
    proxy.cut();
    await first; // the socket died
    await h.app.store.append([
      statusChange("d2d2d2d2d2d2", "idle", "running"),
      statusChange("d2d2d2d2d2d2", "running", "done"),
    ]);
    const last = seen.at(-1)!.cursor;
    const expected = await lifecycleAfter(h, globalIdOf(last));
    const resumed = collect<{ fleetChanges: Change }>(
      client(proxy.url),
      FLEET_CHANGES,
      { after: last },
      (items) => items.some((i) => i.fleetChanges.to === "DONE"),
    );
    await resumed.done;
    const changes = resumed.items.map((i) => i.fleetChanges);
    expect(changes.some((c) => c.__typename === "FleetSeedComplete" || c.seed)).toBe(false);
    expect(changes.map((c) => globalIdOf(c.cursor))).toEqual(expected);
    expect(changes.map((c) => c.to)).toEqual(["RUNNING", "DONE"]);
    // A cursor of fleetEvents resumes fleetChanges too (both in commit order).
    const fe = collect<{ fleetEvents: { cursor: string } }>(
      h.ws(),
      `subscription { fleetEvents(filter: { kinds: [STATUS_CHANGED] }) { cursor } }`,
      {},
      (items) => items.length >= 3,
    );
    await fe.done;
    const viaEvents = collect<{ fleetChanges: Change }>(
      h.ws(),
      FLEET_CHANGES,
      { after: fe.items[1]!.fleetEvents.cursor },
      (items) => items.some((i) => i.fleetChanges.to === "DONE"),
    );
    await viaEvents.done;
    expect(viaEvents.items.map((i) => i.fleetChanges.to)).toEqual(["DONE"]);
    const bad = await new Promise<unknown>((resolve) => {
      h!
        .ws()
        .subscribe(
          { query: FLEET_CHANGES, variables: { after: "garbage" } },
          { next: resolve, error: resolve, complete: () => {} },
        );
    });
    expect(JSON.stringify(bad)).toMatch(/BAD_USER_INPUT/);
  });
});

describe("plain clients resume as the README shows", () => {
  it("graphql-ws: a subscribe wrapper that resubscribes with the last cursor, after a cut connection: no duplicate, no hole", async () => {
    h = await startAppHarness();
    const proxy = await startTcpProxy(h.app.gateway.port);
    onCleanup(() => proxy.close());
    const id = "e1e1e1e1e1e1";
    await agentWithEvents(h, id, 30);
    // The README snippet: graphql-ws's own retry would re-send the ORIGINAL variables, so the
    // wrapper subscribes again by itself, after the last cursor it delivered.
    const client = createWsClient({
      url: `${proxy.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${h.token}` },
      retryAttempts: 0,
    });
    onCleanup(() => client.dispose());
    const seqs: number[] = [];
    let cuts = 0;
    await new Promise<void>((resolve, reject) => {
      let after: string | null = null;
      const subscribe = () =>
        client.subscribe<{ agentEvents: Item }>(
          { query: AGENT_EVENTS, variables: { id, after } },
          {
            next: ({ data }) => {
              if (!data || data.agentEvents.__typename === "GapEvent") return;
              after = data.agentEvents.cursor;
              seqs.push(data.agentEvents.seq);
              if (seqs.length === 10 && cuts === 0) {
                cuts++;
                proxy.cut();
                void output(h!, id, 30, 20).then(() =>
                  h!.app.store.append([statusChange(id, "running", "done")]),
                );
              }
            },
            error: () => setTimeout(subscribe, 100), // a dropped connection: again, after `after`
            complete: resolve,
          },
        );
      subscribe();
      setTimeout(() => reject(new Error("did not complete")), 20_000);
    });
    expect(cuts).toBe(1);
    expect(seqs).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
  });

  it("graphql-sse (distinct connections, at /graphql): a headers function sending Last-Event-ID resumes after a cut", async () => {
    h = await startAppHarness();
    const proxy = await startTcpProxy(h.app.gateway.port);
    onCleanup(() => proxy.close());
    const id = "e2e2e2e2e2e2";
    await agentWithEvents(h, id, 30);
    let lastCursor: string | null = null;
    const client = createSseClient({
      url: `${proxy.url}/graphql`,
      // graphql-sse's client ignores `id:` lines and retries with the original request: give it
      // the last cursor seen as Last-Event-ID, which the gateway prefers over `after`.
      headers: () => ({
        authorization: `Bearer ${h!.token}`,
        ...(lastCursor ? { "last-event-id": lastCursor } : {}),
      }),
      retryAttempts: 3,
      retry: () => new Promise((r) => setTimeout(r, 100)),
    });
    onCleanup(() => client.dispose());
    const seqs: number[] = [];
    let cut = false;
    for await (const r of client.iterate<{ agentEvents: Item }>({ query: AGENT_EVENTS, variables: { id } })) {
      const e = r.data!.agentEvents;
      lastCursor = e.cursor;
      seqs.push(e.seq);
      if (seqs.length === 10 && !cut) {
        cut = true;
        proxy.cut();
        await output(h, id, 30, 20);
        await h.app.store.append([statusChange(id, "running", "done")]);
      }
    }
    expect(cut).toBe(true);
    expect(seqs).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
  });
});
