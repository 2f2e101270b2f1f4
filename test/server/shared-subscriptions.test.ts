/**
 * Shared subscription execution and serialize-once (issue 17, src/server/shared-subscriptions.ts,
 * src/server/shared-payload.ts), over the real gateway: real graphql-ws clients and raw `ws`
 * sockets on a real port, events appended through the real store and published by its bus.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Client } from "graphql-ws";
import { startAppHarness, collect, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { addWorkspaceWithDaemon, type OtherWorkspace } from "../security/support.js";
import type { EventExecutor } from "../../src/server/event-executor.js";
import { executeEventWithGraphqlTools } from "../../src/server/shared-subscriptions.js";
import type { FleetEvent, NewEvent } from "../../src/events/index.js";

/** Every root value the gateway's per-event executor ran with, and its document's text, in order. */
const executed: { root: unknown; query: string | undefined }[] = [];
const countingExecutor: EventExecutor = (args) => {
  executed.push({ root: args.rootValue, query: args.document.loc?.source.body });
  return executeEventWithGraphqlTools(args);
};

let h: AppHarness;
let other: OtherWorkspace;
let demoViewer = "";
let otherViewer = "";
let fleetViewer = "";
const clients: Client[] = [];

beforeAll(async () => {
  h = await startAppHarness({ executeEvent: countingExecutor });
  other = await addWorkspaceWithDaemon(h);
  demoViewer = await h.createToken({ name: "demo-viewer", role: "VIEWER", workspaces: ["demo"] });
  otherViewer = await h.createToken({ name: "other-viewer", role: "VIEWER", workspaces: ["other"] });
  fleetViewer = await h.createToken({ name: "fleet-viewer", role: "VIEWER" });
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await other?.close();
  await h?.close();
});

function client(token?: string): Client {
  const c = h.ws(token);
  clients.push(c);
  return c;
}

async function agentRow(id: string, workspace: string): Promise<void> {
  await h.app.db.prisma.agent.create({
    data: { id, workspace, name: id, status: "running", spec: {}, startedAt: new Date() },
  });
}

function output(agentId: string, workspace: string, text: string): NewEvent {
  return {
    kind: "output",
    payload: { stream: "text", text, turnIndex: 0, blockIndex: 0 },
    workspace,
    agentId,
    tsMs: Date.now(),
  };
}

/** Executions of AGENT_EVENTS for the events of `agentId` since `from`, by seq. */
function executionsOf(agentId: string, from: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const { root, query } of executed.slice(from)) {
    if (query !== AGENT_EVENTS) continue;
    const e = root as Partial<FleetEvent>;
    if (e.agentId === agentId && typeof e.seq === "number") counts.set(e.seq, (counts.get(e.seq) ?? 0) + 1);
  }
  return counts;
}

type OutputItem = { agentEvents: { __typename: string; seq: number; cursor: string; text?: string } };
const AGENT_EVENTS = `subscription($id: String!) {
  agentEvents(agentId: $id) { __typename seq cursor ... on OutputEvent { text } }
}`;

describe("shared subscription execution", () => {
  it("executes each live event once per distinct token for many equal subscribers (counted through the executor)", async () => {
    const id = "shared-count";
    await agentRow(id, "demo");
    const admin = [client(), client()];
    const viewer = client(fleetViewer);
    const subs = [
      ...admin.flatMap((c) => [
        collect<OutputItem>(c, AGENT_EVENTS, { id }),
        collect<OutputItem>(c, AGENT_EVENTS, { id }),
      ]),
      collect<OutputItem>(viewer, AGENT_EVENTS, { id }),
      collect<OutputItem>(viewer, AGENT_EVENTS, { id }),
    ];
    // Everyone is live once the first event reached everyone.
    await h.app.store.append([output(id, "demo", "warm-up")]);
    await waitFor(() => subs.every((s) => s.items.length === 1), 10_000, "warm-up everywhere");
    await new Promise((r) => setTimeout(r, 200));
    const from = executed.length;
    await h.app.store.append([output(id, "demo", "a"), output(id, "demo", "b")]);
    await h.app.store.append([output(id, "demo", "c")]);
    await waitFor(() => subs.every((s) => s.items.length === 4), 10_000, "three live events everywhere");
    for (const s of subs) s.stop();
    // Six subscribers, two tokens: two executions per event, not six.
    expect([...executionsOf(id, from).entries()]).toEqual([
      [2, 2],
      [3, 2],
      [4, 2],
    ]);
    // Every subscriber received the same items.
    const texts = subs.map((s) => s.items.map((i) => i.agentEvents.text));
    for (const t of texts) expect(t).toEqual(["warm-up", "a", "b", "c"]);
    const first = JSON.stringify(subs[0]!.items);
    for (const s of subs) expect(JSON.stringify(s.items)).toBe(first);
  });

  it("tokens limited to different workspaces and a fleet token, same documents: each receives exactly its own", async () => {
    await agentRow("exact-demo", "demo");
    await agentRow("exact-other", "other");
    type Ev = {
      fleetEvents: { __typename: string; workspace: string; agentId: string | null; text?: string };
    };
    const EVENTS = `subscription { fleetEvents(filter: { kinds: [OUTPUT] }) { __typename workspace agentId ... on OutputEvent { text } } }`;
    type Change = {
      fleetChanges: {
        __typename: string;
        agent?: { agentId: string; workspace: { name: string } };
        to?: string;
      };
    };
    const CHANGES = `subscription { fleetChanges { __typename
      ... on AgentStatusChanged { to agent { agentId workspace { name } } } } }`;
    const tokens = { demo: demoViewer, other: otherViewer, fleet: fleetViewer } as const;
    const subs = Object.entries(tokens).flatMap(([who, token]) => {
      const c = [client(token), client(token)];
      return c.map((cl) => ({
        who,
        events: collect<Ev>(cl, EVENTS, {}),
        changes: collect<Change>(cl, CHANGES, {}),
      }));
    });
    await waitFor(
      () => subs.every((s) => s.changes.items.some((i) => i.fleetChanges.__typename === "FleetSeedComplete")),
      10_000,
      "seeds",
    );
    // History: events only the fleet token may see all of come first (replayed or live).
    const marker = await h.app.store.append([
      output("exact-demo", "demo", "ready"),
      output("exact-other", "other", "ready"),
    ]);
    expect(marker).toBeDefined();
    await waitFor(
      () => subs.every((s) => s.events.items.some((i) => i.fleetEvents.text === "ready")),
      10_000,
      "ready",
    );
    await new Promise((r) => setTimeout(r, 200));
    const seen = subs.map((s) => ({ events: s.events.items.length, changes: s.changes.items.length }));
    await h.app.store.append([
      output("exact-demo", "demo", "d1"),
      output("exact-other", "other", "o1"),
      output("exact-demo", "demo", "d2"),
    ]);
    await h.app.store.append([
      {
        kind: "status_changed",
        payload: { from: "running", to: "idle" },
        workspace: "demo",
        agentId: "exact-demo",
        tsMs: Date.now(),
      },
      {
        kind: "status_changed",
        payload: { from: "running", to: "done" },
        workspace: "other",
        agentId: "exact-other",
        tsMs: Date.now(),
      },
    ]);
    const expectedEvents = {
      demo: [
        ["demo", "exact-demo", "d1"],
        ["demo", "exact-demo", "d2"],
      ],
      other: [["other", "exact-other", "o1"]],
      fleet: [
        ["demo", "exact-demo", "d1"],
        ["other", "exact-other", "o1"],
        ["demo", "exact-demo", "d2"],
      ],
    };
    const expectedChanges = {
      demo: [{ to: "IDLE", agent: { agentId: "exact-demo", workspace: { name: "demo" } } }],
      other: [{ to: "DONE", agent: { agentId: "exact-other", workspace: { name: "other" } } }],
      fleet: [
        { to: "IDLE", agent: { agentId: "exact-demo", workspace: { name: "demo" } } },
        { to: "DONE", agent: { agentId: "exact-other", workspace: { name: "other" } } },
      ],
    };
    await waitFor(
      () =>
        subs.every(
          (s, i) =>
            s.changes.items.length - seen[i]!.changes >= expectedChanges[s.who as keyof typeof tokens].length,
        ),
      10_000,
      "status changes",
    );
    await new Promise((r) => setTimeout(r, 300));
    subs.forEach((s, i) => {
      const who = s.who as keyof typeof tokens;
      const events = s.events.items
        .slice(seen[i]!.events)
        .map((e) => [e.fleetEvents.workspace, e.fleetEvents.agentId, e.fleetEvents.text]);
      expect(events, who).toEqual(expectedEvents[who]);
      const changes = s.changes.items
        .slice(seen[i]!.changes)
        .map((c) => ({ to: c.fleetChanges.to, agent: c.fleetChanges.agent }));
      expect(changes, who).toEqual(expectedChanges[who]);
      s.events.stop();
      s.changes.stop();
    });
  });

  it("an event two tokens both receive but are entitled to differently: each gets its own result", async () => {
    await agentRow("cross-gone", "demo");
    // A stored agent_gone in workspace "other" about a run of demo: the other-limited token
    // receives it (the stream filters by the event's workspace) but may not read the Agent.
    const GONE = `subscription { fleetChanges { __typename ... on AgentGone { agentId agent { agentId workspace { name } } } } }`;
    const runs = [otherViewer, otherViewer, fleetViewer, fleetViewer].map((token) => {
      const got: { data?: unknown; errors?: unknown }[] = [];
      const stop = client(token).subscribe(
        { query: GONE },
        { next: (v) => void got.push(v), error: () => {}, complete: () => {} },
      );
      return { got, stop };
    });
    await waitFor(
      () => runs.every((r) => r.got.some((v) => JSON.stringify(v).includes("FleetSeedComplete"))),
      10_000,
      "seeds",
    );
    const before = runs.map((r) => r.got.length);
    await h.app.store.append([
      {
        kind: "agent_gone",
        payload: { reason: "removed", replacedBy: null },
        workspace: "other",
        agentId: "cross-gone",
        tsMs: Date.now(),
      },
    ]);
    await waitFor(() => runs.every((r, i) => r.got.length > before[i]!), 10_000, "the agent_gone");
    for (const r of runs) r.stop();
    const [o1, o2, f1, f2] = runs.map((r, i) => JSON.stringify(r.got.slice(before[i]!)));
    expect(o1).toBe(o2);
    expect(f1).toBe(f2);
    expect(JSON.parse(f1!)).toEqual([
      {
        data: {
          fleetChanges: {
            __typename: "AgentGone",
            agentId: "cross-gone",
            agent: { agentId: "cross-gone", workspace: { name: "demo" } },
          },
        },
      },
    ]);
    // The limited token gets an error for the Agent, and nothing of it.
    const limited = JSON.parse(o1!) as { errors?: unknown[] }[];
    expect(limited).toHaveLength(1);
    expect(limited[0]!.errors?.length).toBeGreaterThan(0);
    expect(o1).not.toContain('"name":"demo"');
  });

  it("an event whose execution fails gives every subscriber the same error shape as an unshared one", async () => {
    await agentRow("ghost-gone", "demo");
    type Gone = { __typename: string; agentId?: string; workspace?: { name: string } | null };
    const GONE = `subscription { fleetChanges { __typename ... on AgentGone { agentId workspace { name } } } }`;
    const results: { data?: unknown; errors?: unknown }[][] = [];
    const run = (c: Client) => {
      const got: { data?: unknown; errors?: unknown }[] = [];
      results.push(got);
      const stop = c.subscribe<{ fleetChanges: Gone }>(
        { query: GONE },
        { next: (v) => void got.push(v), error: () => {}, complete: () => {} },
      );
      return stop;
    };
    // Two equal subscribers (one execution) and one of another token (its own execution).
    const stops = [run(client()), run(client()), run(client(fleetViewer))];
    await waitFor(
      () => results.every((r) => r.some((v) => JSON.stringify(v).includes("FleetSeedComplete"))),
      10_000,
      "seeds",
    );
    const before = results.map((r) => r.length);
    // A stored agent_gone naming a workspace that does not exist: its `workspace` resolver throws.
    await h.app.store.append([
      {
        kind: "agent_gone",
        payload: { reason: "removed", replacedBy: null },
        workspace: "no-such-workspace",
        agentId: "ghost-gone",
        tsMs: Date.now(),
      },
    ]);
    await waitFor(() => results.every((r, i) => r.length > before[i]!), 10_000, "the failing event");
    for (const s of stops) s();
    const last = results.map((r, i) => r.slice(before[i]!));
    // Today's shape (graphql-tools per subscriber, masked by the gateway): null data for the
    // non-null field, one masked error located at the field.
    expect(last[0]).toEqual([
      {
        data: null,
        errors: [
          {
            message: expect.any(String),
            locations: [{ line: 1, column: 69 }],
            path: ["fleetChanges", "workspace"],
            extensions: expect.objectContaining({ code: expect.any(String) }),
          },
        ],
      },
    ]);
    for (const r of last) expect(r).toEqual(last[0]);
  });
});

describe("serialize once", () => {
  it("every next frame is JSON.stringify({id, type, payload}) of its message, and the payload bytes are the same for every subscriber", async () => {
    const id = "frames-agent";
    await agentRow(id, "demo");
    const ids = ["a", "bb-22", "subscription-number-3"];
    const frames: string[][] = ids.map(() => []);
    const sockets = await Promise.all(
      ids.map(async (subId, i) => {
        const ws = new WebSocket(`${h.url.replace("http", "ws")}/graphql`, "graphql-transport-ws");
        await new Promise<void>((resolve, reject) => {
          ws.once("open", () => resolve());
          ws.once("error", reject);
        });
        const acked = new Promise<void>((resolve) => {
          ws.on("message", (data: Buffer, isBinary: boolean) => {
            expect(isBinary).toBe(false);
            const text = data.toString("utf8");
            const msg = JSON.parse(text) as { type: string };
            if (msg.type === "connection_ack") resolve();
            else frames[i]!.push(text);
          });
        });
        ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${h.token}` } }));
        await acked;
        ws.send(
          JSON.stringify({
            id: subId,
            type: "subscribe",
            payload: { query: AGENT_EVENTS, variables: { id } },
          }),
        );
        return ws;
      }),
    );
    await h.app.store.append([output(id, "demo", "warm-up")]);
    await waitFor(() => frames.every((f) => f.length === 1), 10_000, "warm-up frames");
    await new Promise((r) => setTimeout(r, 200));
    const from = executed.length;
    // Text that JSON escapes (quotes, backslash, newline, non-ASCII): the bytes must still match.
    const texts = ["plain", 'quote " back \\ slash\nnew line', "ünïcödé ✓ 😀"];
    for (const t of texts) await h.app.store.append([output(id, "demo", t)]);
    await waitFor(() => frames.every((f) => f.length === 4), 10_000, "frames");
    for (const ws of sockets) ws.close();
    expect([...executionsOf(id, from).values()]).toEqual([1, 1, 1]);
    const payloads = frames.map((f, i) =>
      f.map((text) => {
        const msg = JSON.parse(text) as { id: string; type: string; payload: unknown };
        expect(msg.id).toBe(ids[i]);
        expect(msg.type).toBe("next");
        expect(text).toBe(JSON.stringify({ id: msg.id, type: "next", payload: msg.payload }));
        const prefix = JSON.stringify({ id: msg.id, type: "next" }).slice(0, -1) + ',"payload":';
        expect(text.startsWith(prefix)).toBe(true);
        return text.slice(prefix.length, -1);
      }),
    );
    for (const p of payloads) expect(p).toEqual(payloads[0]);
    expect(
      payloads[0]!.slice(1).map((p) => (JSON.parse(p) as { data: OutputItem }).data.agentEvents.text),
    ).toEqual(texts);
  });
});

describe("what cannot be keyed is not shared", () => {
  it("a variable nested too deep to key (a fragment at the root): the operation runs unshared, events arrive, and closing it leaves no bus subscription behind", async () => {
    const id = "deep-var-agent";
    await agentRow(id, "demo");
    // Earlier tests' closed sockets release their bus subscriptions asynchronously: start from a
    // count that has stopped changing.
    let before = -1;
    await waitFor(
      async () => {
        const now = h.app.bus.listenerCount();
        const settled = now === before;
        before = now;
        if (!settled) await new Promise((r) => setTimeout(r, 300));
        return settled;
      },
      10_000,
      "a settled bus",
    );
    // Undeclared, so execution ignores it; too deep for JSON.stringify (the key) to write it.
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    const text = `{"id":"1","type":"subscribe","payload":{"query":"subscription($id: String!) { ...F } fragment F on Subscription { agentEvents(agentId: $id) { __typename seq } }","variables":{"id":${JSON.stringify(id)},"deep":${deep}}}}`;
    const sockets: WebSocket[] = [];
    const got: unknown[][] = [];
    const closes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const ws = new WebSocket(`${h.url.replace("http", "ws")}/graphql`, "graphql-transport-ws");
      const mine: unknown[] = [];
      got.push(mine);
      ws.on("close", (code: number) => closes.push(code));
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => resolve());
        ws.once("error", reject);
      });
      const acked = new Promise<void>((resolve) => {
        ws.on("message", (data: Buffer) => {
          const msg = JSON.parse(data.toString("utf8")) as { type: string; payload?: unknown };
          if (msg.type === "connection_ack") resolve();
          else mine.push(msg);
        });
      });
      ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${h.token}` } }));
      await acked;
      ws.send(text);
      sockets.push(ws);
    }
    await waitFor(() => h.app.bus.listenerCount() === before + 3, 10_000, "three subscriptions");
    await h.app.store.append([output(id, "demo", "one")]);
    await waitFor(() => got.every((m) => m.length === 1), 10_000, "an event on each");
    for (const m of got)
      expect(m[0]).toMatchObject({
        type: "next",
        payload: { data: { agentEvents: { __typename: "OutputEvent" } } },
      });
    expect(closes).toEqual([]);
    for (const ws of sockets) ws.close();
    await waitFor(() => h.app.bus.listenerCount() <= before, 10_000, "bus subscriptions released");
  });
});
