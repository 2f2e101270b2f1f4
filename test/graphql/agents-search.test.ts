/**
 * `agents(filter: {search}, orderBy:)` (issue 16 item 5): search by label and prompt (history
 * included, case ignored, no wildcards), every order with forward and backward paging by cursor,
 * and bad input as BAD_USER_INPUT that nulls only the field. A real gateway and the caliband
 * double; the ordering rows are stored in a workspace no daemon serves, so nothing changes them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { upsertAgentOp } from "../../src/store/agents.js";

let h: AppHarness;
let fixer = "";
let docs = "";

interface Page {
  totalCount: number;
  edges: { cursor: string; node: { agentId: string } }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

async function agents(args: string, vars: Record<string, unknown> = {}): Promise<Page> {
  // Declare only the variables the arguments use (an unused one is a validation error).
  const decl = ["after", "before", "search"]
    .filter((v) => args.includes(`$${v}`))
    .map((v) => `$${v}: String`);
  const r = await h.gql<{ agents: Page }>(
    `query${decl.length ? `(${decl.join(", ")})` : ""} { agents(${args}) {
      totalCount edges { cursor node { agentId } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
    vars,
  );
  expect(r.errors).toBeUndefined();
  return r.data!.agents;
}

const ids = (p: Page) => p.edges.map((e) => e.node.agentId);

async function spawn(prompt: string, label: string): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation($p: String!, $l: String!) { spawnAgent(input: { workspace: "demo", prompt: $p, label: $l }) {
      ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt, l: label },
  );
  const id = r.data?.spawnAgent.agent.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return id;
}

/** Stored runs of workspace "archive" (no daemon): id → [name, startedAt ms, finishedAt ms, cost, in+out tokens, status]. */
const ARCHIVE: [string, string, number, number | null, number | null, number, string][] = [
  ["a00000000001", "Bravo", 1000, 5000, 0.5, 300, "done"],
  ["a00000000002", "alpha", 2000, null, null, 100, "running"],
  ["a00000000003", "Charlie", 3000, 4000, 0.5, 300, "failed"],
  ["a00000000004", "delta", 3000, null, 2.25, 50, "idle"],
  ["a00000000005", "echo", 5000, 6000, null, 1000, "killed"],
];

beforeAll(async () => {
  h = await startAppHarness();
  fixer = await spawn("Refactor The Parser so errors carry positions", "Fix-Login-Bug");
  docs = await spawn("write the 100% complete docs_index", "docs");
  await waitFor(() => h.app.fleet.state.agent(fixer)?.status === "done", 15_000, "fixer done");
  await waitFor(() => h.app.fleet.state.agent(docs)?.status === "done", 15_000, "docs done");
  const db = h.app.db.prisma;
  await db.workspace.create({ data: { name: "archive", root: "/nonexistent/archive", env: {} } });
  for (const [id, name, started, finished, cost, tokens, status] of ARCHIVE) {
    await upsertAgentOp(db, {
      id,
      workspace: "archive",
      name,
      status,
      interactive: false,
      isolated: true,
      spec: { label: name, initial_prompt: `archived run ${name}` },
      sessionDir: "",
      workingDir: "",
      startedAt: new Date(started),
      model: null,
      respawnedFrom: null,
    });
    await db.agent.update({
      where: { id },
      data: {
        finishedAt: finished === null ? null : new Date(finished),
        costUsd: cost,
        inputTokens: tokens - 10,
        outputTokens: 10,
      },
    });
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe("agents(filter: {search})", () => {
  it("finds a finished run by its label or by words of its prompt, ignoring case", async () => {
    const byLabel = await agents(`filter: { search: $search }`, { search: "fix-LOGIN" });
    expect(ids(byLabel)).toEqual([fixer]);
    expect(byLabel.totalCount).toBe(1);
    const byPrompt = await agents(`filter: { search: $search }`, { search: "the parser SO errors" });
    expect(ids(byPrompt)).toEqual([fixer]);
    // Combined with the other conditions.
    const done = await agents(`filter: { search: $search, status: [DONE], workspace: "demo" }`, {
      search: "docs",
    });
    expect(ids(done)).toEqual([docs]);
    expect(
      (await agents(`filter: { search: $search, status: [RUNNING] }`, { search: "docs" })).totalCount,
    ).toBe(0);
  });

  it("is a plain substring: % and _ are characters, not wildcards", async () => {
    expect(ids(await agents(`filter: { search: $search }`, { search: "100%" }))).toEqual([docs]);
    expect(ids(await agents(`filter: { search: $search }`, { search: "docs_index" }))).toEqual([docs]);
    expect((await agents(`filter: { search: $search }`, { search: "d%s" })).totalCount).toBe(0);
    expect((await agents(`filter: { search: $search }`, { search: "docs_xndex" })).totalCount).toBe(0);
  });

  it("Workspace.agents takes the same search (by label and prompt, ignoring case)", async () => {
    const count = async (search: string) => {
      const r = await h.gql<{
        workspace: { agents: { totalCount: number; edges: { node: { agentId: string } }[] } };
      }>(
        `query($s: String) { workspace(name: "demo") { agents(filter: { search: $s }) { totalCount edges { node { agentId } } } } }`,
        { s: search },
      );
      expect(r.errors).toBeUndefined();
      const a = r.data!.workspace.agents;
      return { totalCount: a.totalCount, nodes: a.edges.map((e) => e.node) };
    };
    expect(await count("FIX-login")).toEqual({ totalCount: 1, nodes: [{ agentId: fixer }] });
    expect((await count("REFACTOR the")).totalCount).toBe(1);
    expect((await count("no such words")).totalCount).toBe(0);
    // `%` and `_` would be LIKE wildcards there: refused (typed), never answered wrong.
    for (const s of ["%", "d_cs"]) {
      const r = await h.gql<{ workspace: { agents: unknown } | null }>(
        `query($s: String) { workspace(name: "demo") { agents(filter: { search: $s }) { totalCount } } }`,
        { s },
      );
      expect(r.errors?.[0]?.extensions?.code, s).toBe("BAD_USER_INPUT");
      expect(r.errors?.[0]?.message).toContain("'%' and '_' can be searched for with Query.agents");
    }
  });

  it("an empty or over-long search is BAD_USER_INPUT naming the field; siblings still answer", async () => {
    for (const search of ["", "x".repeat(201)]) {
      const r = await h.gql<{ version: string; agents: null }>(
        `query($s: String) { version agents(filter: { search: $s }) { totalCount } }`,
        { s: search },
      );
      expect(r.data).toEqual({ version: expect.any(String), agents: null });
      expect(r.errors).toHaveLength(1);
      expect(r.errors![0]).toMatchObject({ path: ["agents"], extensions: { code: "BAD_USER_INPUT" } });
      expect(JSON.stringify(r.errors![0]?.extensions)).toContain("search");
    }
    // 200 characters is still a search.
    expect((await agents(`filter: { search: $search }`, { search: "x".repeat(200) })).totalCount).toBe(0);
  });
});

describe("agents(orderBy:)", () => {
  const orders: [string, string[]][] = [
    [
      "{ field: STARTED_AT, direction: DESC }",
      ["a00000000005", "a00000000003", "a00000000004", "a00000000002", "a00000000001"],
    ],
    [
      "{ field: STARTED_AT, direction: ASC }",
      ["a00000000001", "a00000000002", "a00000000003", "a00000000004", "a00000000005"],
    ],
    // Runs without a value come last both ways; ties by id.
    [
      "{ field: FINISHED_AT, direction: ASC }",
      ["a00000000003", "a00000000001", "a00000000005", "a00000000002", "a00000000004"],
    ],
    [
      "{ field: FINISHED_AT, direction: DESC }",
      ["a00000000005", "a00000000001", "a00000000003", "a00000000002", "a00000000004"],
    ],
    [
      "{ field: NAME, direction: ASC }",
      ["a00000000002", "a00000000001", "a00000000003", "a00000000004", "a00000000005"],
    ],
    [
      "{ field: STATUS, direction: ASC }",
      ["a00000000002", "a00000000004", "a00000000001", "a00000000003", "a00000000005"],
    ],
    [
      "{ field: COST, direction: DESC }",
      ["a00000000004", "a00000000001", "a00000000003", "a00000000002", "a00000000005"],
    ],
    [
      "{ field: COST, direction: ASC }",
      ["a00000000001", "a00000000003", "a00000000004", "a00000000002", "a00000000005"],
    ],
    [
      "{ field: TOKENS, direction: DESC }",
      ["a00000000005", "a00000000001", "a00000000003", "a00000000002", "a00000000004"],
    ],
  ];

  it("orders the whole list by each field and direction", async () => {
    for (const [order, expected] of orders) {
      const all = await agents(`first: 10, filter: { workspace: "archive" }, orderBy: ${order}`);
      expect([order, ids(all)]).toEqual([order, expected]);
      expect(all.totalCount).toBe(5);
    }
  });

  it("pages forward with after and back with before in every order, cursors staying positions in it", async () => {
    for (const [order, expected] of orders) {
      const args = (more: string) => `${more}, filter: { workspace: "archive" }, orderBy: ${order}`;
      const seen: string[] = [];
      let after: string | null = null;
      let last: Page | null = null;
      for (let i = 0; i < 5; i++) {
        const page = await agents(args(`first: 2, after: $after`), { after });
        seen.push(...ids(page));
        last = page;
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect([order, seen]).toEqual([order, expected]);
      expect(last?.pageInfo.hasNextPage).toBe(false);
      // Backwards from the last page's start: the two runs before it, in the same order.
      const back = await agents(args(`last: 2, before: $before`), { before: last!.pageInfo.startCursor });
      expect([order, ids(back)]).toEqual([order, expected.slice(2, 4)]);
      expect(back.pageInfo.hasPreviousPage).toBe(true);
      const start = await agents(args(`last: 2, before: $before`), { before: back.pageInfo.startCursor });
      expect([order, ids(start), start.pageInfo.hasPreviousPage]).toEqual([
        order,
        expected.slice(0, 2),
        false,
      ]);
      // `last` alone is the end of the order.
      expect([order, ids(await agents(args(`last: 2`)))]).toEqual([order, expected.slice(3)]);
    }
  });

  it("defaults to newest first over the whole fleet, history included", async () => {
    const all = await agents(`first: 10`);
    expect(ids(all).slice(0, 2).sort()).toEqual([fixer, docs].sort());
    expect(ids(all).slice(2)).toEqual(orders[0]![1]);
    expect(all.totalCount).toBe(7);
  });

  it("an unknown order field or a missing direction is refused by validation", async () => {
    const bad = await h.gql(`{ agents(orderBy: { field: COLOR, direction: ASC }) { totalCount } }`);
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED" });
    const half = await h.gql(`{ agents(orderBy: { field: COST }) { totalCount } }`);
    expect(half.errors?.[0]?.extensions).toMatchObject({ code: "GRAPHQL_VALIDATION_FAILED" });
  });
});
