// The operator inbox over GraphQL (issue 15 item 1) through a real gateway (in-process, real port,
// real SQLite, the caliband double's "demo" workspace): the `inbox` connection (paging, filters,
// totalCount and openCount), node(id:), the five mutations with their typed errors, who may do what
// (a viewer, a token limited to one workspace, fleet-wide items), the live `inboxChanges` over a
// real graphql-ws client, and the audit row of every mutation call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertInput } from "../../src/attention/types.js";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { FAKE_QUESTION } from "../support/fake-scripts.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let h: AppHarness;
let viewer: string;
/** An operator limited to "demo". */
let demoOp: string;

beforeAll(async () => {
  h = await startAppHarness();
  viewer = await h.createToken({ name: "i-viewer", role: "VIEWER" });
  demoOp = await h.createToken({ name: "i-demo-op", role: "OPERATOR", workspaces: ["demo"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const alert = (over: Partial<AlertInput>): AlertInput => ({
  check: "daemon_unreachable",
  subject: "demo",
  workspace: "demo",
  agentId: null,
  title: "Daemon of workspace demo unreachable",
  message: "daemon of workspace demo unreachable for 3 min (threshold 1 min)",
  ...over,
});

/** Close every item (each test starts with an empty inbox). */
async function clear(): Promise<void> {
  for (const i of await h.app.db.prisma.inboxItem.findMany({ where: { state: { not: "CLOSED" } } }))
    await h.app.inbox.dismiss(i.id, "test");
}

const RESULT = `__typename ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }
  ... on NotFoundError { entity key }
  ... on ForbiddenError { requiredRole workspaceName }`;

type Result = {
  __typename: string;
  code?: string;
  message?: string;
  fieldErrors?: { path: string[]; message: string }[];
  item?: { itemId: string; state: string; resolution: string | null; closedBy: string | null };
  [k: string]: unknown;
};

/** Run one inbox mutation and return its result. */
async function call(field: string, input: Record<string, unknown>, token?: string): Promise<Result> {
  const Name = field.charAt(0).toUpperCase() + field.slice(1);
  const r = await h.gql<Record<string, Result>>(
    `mutation($input: ${Name}Input!) { ${field}(input: $input) { ${RESULT}
      ... on ${Name}Payload { item { itemId state resolution closedBy } } } }`,
    { input },
    token,
  );
  expect(r.errors, JSON.stringify(r)).toBeUndefined();
  return r.data![field]!;
}

const ITEM = `id itemId kind state title body answerHint canAnswer canApprove check subject
  workspace { name } agent { agentId } escalations snoozedUntil resolution closedBy closeReason
  actions { action actor detail }`;

type Item = {
  id: string;
  itemId: string;
  kind: string;
  state: string;
  title: string;
  body: string;
  answerHint: string;
  canAnswer: boolean;
  canApprove: boolean;
  check: string | null;
  subject: string | null;
  workspace: { name: string } | null;
  agent: { agentId: string } | null;
  resolution: string | null;
  actions: { action: string; actor: string | null; detail: string | null }[];
};
type Page = {
  totalCount: number;
  openCount: number;
  edges: { cursor: string; node: Item }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
};

async function inbox(args: string, token?: string): Promise<Page> {
  const r = await h.gql<{ inbox: Page }>(
    `{ inbox${args} { totalCount openCount edges { cursor node { ${ITEM} } } pageInfo { hasNextPage endCursor } } }`,
    {},
    token,
  );
  expect(r.errors, JSON.stringify(r)).toBeUndefined();
  return r.data!.inbox;
}

describe("reading the inbox", () => {
  it("pages newest first, filters, counts; node(id:) reads an item again", async () => {
    await clear();
    const a = await h.app.inbox.raiseAlert(alert({}));
    await sleep(5);
    const b = await h.app.inbox.raiseAlert(
      alert({ check: "data_disk_free", subject: null, workspace: null, title: "Data disk low" }),
    );
    await sleep(5);
    const c = await h.app.inbox.raiseAlert(
      alert({ subject: "elsewhere", workspace: "elsewhere", title: "Elsewhere down" }),
    );
    await h.app.inbox.snooze(c.id, Date.now() + 3_600_000, "test");

    const first = await inbox("(first: 2)");
    expect(first.totalCount).toBe(3);
    expect(first.openCount).toBe(2);
    expect(first.edges.map((e) => e.node.itemId)).toEqual([c.id, b.id]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = await inbox(`(first: 2, after: "${first.pageInfo.endCursor}")`);
    expect(rest.edges.map((e) => e.node.itemId)).toEqual([a.id]);
    expect(rest.pageInfo.hasNextPage).toBe(false);

    const node = first.edges[1]!.node;
    expect(node).toMatchObject({
      kind: "ALERT",
      state: "OPEN",
      title: "Data disk low",
      check: "DATA_DISK_FREE",
      subject: null,
      workspace: null,
      answerHint: "Acknowledge the alert",
      canAnswer: false,
      canApprove: false,
      actions: [{ action: "OPENED", actor: null, detail: "check data_disk_free failing" }],
    });
    const demoItem = rest.edges[0]!.node;
    expect(demoItem).toMatchObject({
      workspace: { name: "demo" },
      check: "DAEMON_UNREACHABLE",
      subject: "demo",
    });
    const byNode = await h.gql<{ node: Item | null }>(
      `query($id: ID!) { node(id: $id) { ... on InboxItem { ${ITEM} } } }`,
      {
        id: node.id,
      },
    );
    expect(byNode.data?.node).toEqual(node);

    expect((await inbox(`(filter: { states: [SNOOZED] })`)).edges.map((e) => e.node.itemId)).toEqual([c.id]);
    expect((await inbox(`(filter: { workspace: "demo" })`)).edges.map((e) => e.node.itemId)).toEqual([a.id]);
    expect((await inbox(`(filter: { kinds: [QUESTION] })`)).totalCount).toBe(0);
    await h.app.inbox.acknowledge(a.id, "test");
    const closed = await inbox(`(filter: { states: [CLOSED], workspace: "demo" })`);
    expect(closed.edges.map((e) => [e.node.itemId, e.node.resolution])).toEqual([[a.id, "ACKNOWLEDGED"]]);
    expect(closed.openCount).toBe(1);
    const bad = await h.gql(`{ inbox(first: 1, after: "bm90IGEgY3Vyc29y") { totalCount } }`);
    expect(bad.errors?.[0]?.extensions?.["code"]).toBe("BAD_USER_INPUT");
    const m = await h.gql<{ metrics: { inboxOpen: number } }>(`{ metrics { inboxOpen } }`);
    expect(m.data?.metrics.inboxOpen).toBe(1);
  });

  it("a token limited to a workspace sees only its items: no fleet-wide ones, no other workspace's", async () => {
    await clear();
    const mine = await h.app.inbox.raiseAlert(alert({}));
    const fleetWide = await h.app.inbox.raiseAlert(
      alert({ check: "database_size", subject: null, workspace: null, title: "Database large" }),
    );
    const theirs = await h.app.inbox.raiseAlert(
      alert({ subject: "elsewhere", workspace: "elsewhere", title: "x" }),
    );
    const page = await inbox("", demoOp);
    expect(page.edges.map((e) => e.node.itemId)).toEqual([mine.id]);
    expect([page.totalCount, page.openCount]).toEqual([1, 1]);
    expect((await inbox(`(filter: { workspace: "elsewhere" })`, demoOp)).totalCount).toBe(0);
    const all = await inbox("");
    const ids = Object.fromEntries(all.edges.map((e) => [e.node.itemId, e.node.id]));
    for (const hidden of [theirs.id, fleetWide.id]) {
      const r = await h.gql<{ node: unknown }>(
        `query($id: ID!) { node(id: $id) { id } }`,
        { id: ids[hidden] },
        demoOp,
      );
      expect(r.data?.node).toBeNull();
    }
    const m = await h.gql<{ metrics: { inboxOpen: number } }>(`{ metrics { inboxOpen } }`, {}, demoOp);
    expect(m.data?.metrics.inboxOpen).toBe(1);
  });
});

describe("acting on items", () => {
  it("answers a question by its global id: the agent gets the input and the item closes ANSWERED", async () => {
    await clear();
    const spawned = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "ask me fake:ask", interactive: true, isolated: false }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    );
    const agentId = spawned.data!.spawnAgent.agent.agentId;
    const q = await waitFor(
      async () => {
        const p = await inbox(`(filter: { kinds: [QUESTION], agentId: "${agentId}" })`);
        return p.edges[0]?.node;
      },
      15_000,
      "the question",
    );
    expect(q).toMatchObject({
      body: FAKE_QUESTION,
      canAnswer: true,
      canApprove: false,
      answerHint: "Send input to the agent",
      agent: { agentId },
      workspace: { name: "demo" },
    });
    const viewerTry = await call("answerInboxItem", { item: q.id, text: "no" }, viewer);
    expect(viewerTry).toMatchObject({ __typename: "ForbiddenError", requiredRole: "OPERATOR" });
    const r = await call("answerInboxItem", { item: q.id, text: "Yes, add it" }, demoOp);
    expect(r).toMatchObject({
      __typename: "AnswerInboxItemPayload",
      item: { itemId: q.itemId, state: "CLOSED", resolution: "ANSWERED", closedBy: "i-demo-op" },
    });
    await waitFor(
      async () =>
        (await h.app.db.prisma.event.findMany({ where: { agentId, kind: "output" } })).some((e) =>
          (e.payload as { text: string }).text.includes("You said: Yes, add it"),
        ),
      10_000,
      "the agent's answer",
    );
    const again = await call("answerInboxItem", { item: q.itemId, text: "again" });
    expect(again).toMatchObject({
      __typename: "InvalidStateError",
      message: `inbox item ${q.itemId} is already closed (ANSWERED by i-demo-op)`,
    });
    await h.app.fleet.lifecycle.endInput(agentId);
  }, 40_000);

  it("bad input is a ValidationError naming the field; other workspaces' and fleet-wide items are NotFound", async () => {
    await clear();
    const mine = await h.app.inbox.raiseAlert(alert({}));
    const fleetWide = await h.app.inbox.raiseAlert(
      alert({ check: "database_size", subject: null, workspace: null, title: "Database large" }),
    );
    const theirs = await h.app.inbox.raiseAlert(
      alert({ subject: "elsewhere", workspace: "elsewhere", title: "x" }),
    );
    const paths = async (field: string, input: Record<string, unknown>) => {
      const r = await call(field, input);
      expect(r.__typename, JSON.stringify(r)).toBe("ValidationError");
      return r.fieldErrors!.map((e) => e.path);
    };
    expect(await paths("answerInboxItem", { item: "nope", text: "x" })).toContainEqual(["input", "item"]);
    expect(await paths("answerInboxItem", { item: mine.id, text: "  " })).toContainEqual(["input", "text"]);
    expect(
      await paths("snoozeInboxItem", { item: mine.id, until: new Date(Date.now() - 1000).toISOString() }),
    ).toEqual([["input", "until"]]);
    expect(
      await paths("snoozeInboxItem", {
        item: mine.id,
        until: new Date(Date.now() + 31 * 86_400_000).toISOString(),
      }),
    ).toEqual([["input", "until"]]);
    const wrongKind = await call("approveInboxItem", { item: mine.id });
    expect(wrongKind).toMatchObject({ __typename: "InvalidStateError" });
    const unknown = await call("dismissInboxItem", { item: "0123456789ab" });
    expect(unknown).toMatchObject({ __typename: "NotFoundError", entity: "INBOX_ITEM", key: "0123456789ab" });
    for (const hidden of [theirs.id, fleetWide.id]) {
      const r = await call("acknowledgeInboxItem", { item: hidden }, demoOp);
      expect(r).toMatchObject({ __typename: "NotFoundError", entity: "INBOX_ITEM", key: hidden });
    }
    const rows = await h.app.db.prisma.inboxItem.findMany({
      where: { id: { in: [theirs.id, fleetWide.id] } },
    });
    expect(rows.every((i) => i.state === "OPEN")).toBe(true);
    const ok = await call("acknowledgeInboxItem", { item: mine.id }, demoOp);
    expect(ok).toMatchObject({
      item: { state: "CLOSED", resolution: "ACKNOWLEDGED", closedBy: "i-demo-op" },
    });
  });

  it("every mutation is audited, naming the item's workspace", async () => {
    await clear();
    const ids = await Promise.all(
      ["a", "b", "c"].map((s) => h.app.inbox.raiseAlert(alert({ subject: s, title: `alert ${s}` }))),
    );
    expect(
      (
        await call("snoozeInboxItem", {
          item: ids[0]!.id,
          until: new Date(Date.now() + 60_000).toISOString(),
        })
      ).__typename,
    ).toBe("SnoozeInboxItemPayload");
    expect((await call("acknowledgeInboxItem", { item: ids[0]!.id })).__typename).toBe(
      "AcknowledgeInboxItemPayload",
    );
    expect((await call("dismissInboxItem", { item: ids[1]!.id })).__typename).toBe("DismissInboxItemPayload");
    expect((await call("answerInboxItem", { item: ids[2]!.id, text: "x" })).__typename).toBe(
      "InvalidStateError",
    );
    expect((await call("approveInboxItem", { item: ids[2]!.id }, viewer)).__typename).toBe("ForbiddenError");
    type Row = {
      operation: string;
      result: string;
      workspace: string | null;
      denied: boolean;
      tokenName: string;
    };
    const log = await h.gql<{ auditLog: { edges: { node: Row }[] } }>(
      `{ auditLog(first: 5) { edges { node { operation result workspace denied tokenName } } } }`,
    );
    expect(log.data!.auditLog.edges.map((e) => e.node).reverse()).toEqual([
      {
        operation: "snoozeInboxItem",
        result: "SnoozeInboxItemPayload",
        workspace: "demo",
        denied: false,
        tokenName: "admin",
      },
      {
        operation: "acknowledgeInboxItem",
        result: "AcknowledgeInboxItemPayload",
        workspace: "demo",
        denied: false,
        tokenName: "admin",
      },
      {
        operation: "dismissInboxItem",
        result: "DismissInboxItemPayload",
        workspace: "demo",
        denied: false,
        tokenName: "admin",
      },
      {
        operation: "answerInboxItem",
        result: "INVALID_STATE",
        workspace: null,
        denied: false,
        tokenName: "admin",
      },
      {
        operation: "approveInboxItem",
        result: "FORBIDDEN",
        workspace: null,
        denied: true,
        tokenName: "i-viewer",
      },
    ]);
  });
});

describe("inboxChanges", () => {
  it("delivers OPENED then CLOSED with openCount over graphql-ws; a limited token only its workspace's", async () => {
    await clear();
    const query = `subscription { inboxChanges { change openCount item { itemId kind state resolution closeReason } } }`;
    type Change = {
      inboxChanges: {
        change: string;
        openCount: number;
        item: { itemId: string; state: string; closeReason: string | null };
      };
    };
    const admin = collect<Change>(h.ws(), query, {});
    const limited = collect<Change>(h.ws(demoOp), query, {});
    // graphql-ws does not acknowledge a subscribe: probe until both listen, then start counting.
    let k = 0;
    let probe = "";
    await waitFor(
      async () => {
        const p = await h.app.inbox.raiseAlert(alert({ subject: `probe-${k++}`, title: "probe" }));
        await h.app.inbox.dismiss(p.id, "test");
        probe = p.id;
        return admin.items.length > 0 && limited.items.length > 0;
      },
      10_000,
      "subscribed",
    );
    const settled = (c: { items: Change[] }) => {
      const last = c.items.at(-1)?.inboxChanges;
      return last?.item.itemId === probe && last.change === "CLOSED";
    };
    await waitFor(() => settled(admin) && settled(limited), 10_000, "the last probe delivered");
    const [a0, l0] = [admin.items.length, limited.items.length];

    const a = await h.app.inbox.raiseAlert(alert({ subject: "live", title: "live" }));
    await h.app.inbox.clearAlert("daemon_unreachable", "live", "reachable again");
    const fleetWide = await h.app.inbox.raiseAlert(
      alert({ check: "database_size", subject: null, workspace: null, title: "Database large" }),
    );
    const b = await h.app.inbox.raiseAlert(alert({ subject: "later", title: "later" }));
    await waitFor(
      () => admin.items.length >= a0 + 4 && limited.items.length >= l0 + 3,
      10_000,
      "the changes",
    );
    const seen = (c: { items: Change[] }, from: number) =>
      c.items
        .slice(from)
        .map((x) => [x.inboxChanges.change, x.inboxChanges.item.itemId, x.inboxChanges.openCount]);
    expect(seen(admin, a0)).toEqual([
      ["OPENED", a.id, 1],
      ["CLOSED", a.id, 0],
      ["OPENED", fleetWide.id, 1],
      ["OPENED", b.id, 2],
    ]);
    // The fleet-wide item is neither delivered nor counted for a token limited to demo.
    expect(seen(limited, l0)).toEqual([
      ["OPENED", a.id, 1],
      ["CLOSED", a.id, 0],
      ["OPENED", b.id, 1],
    ]);
    expect(admin.items[a0 + 1]!.inboxChanges.item).toMatchObject({
      state: "CLOSED",
      closeReason: "reachable again",
    });
    admin.stop();
    limited.stop();
    // No error item either (a subscription that delivered one rejects `done`).
    await admin.done;
    await limited.done;
  }, 30_000);
});
