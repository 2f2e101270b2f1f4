/**
 * The audit log (issue 11 item 4) as stored and as admins read it: append-only in the database
 * itself, covered by retention, the `auditLog` connection's filters and newest-first paging (and
 * `prospero audit`'s), and refusals before GraphQL bounded per client address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog, REFUSALS_PER_WINDOW, REFUSAL_WINDOW_MS } from "../../src/auth/audit.js";
import { createLogger, silentLogger } from "../../src/log.js";
import { DAY_MS, startRetention } from "../../src/store/retention.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { sqliteOf } from "../helpers/store.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli } from "../cli/run-cli.js";
import { spawnVia } from "./support.js";

const NODE = "id position ts operation tokenName role workspace agentId result denied";

interface Entry {
  /** Global (Node) id. */
  id: string;
  /** Position in the log: the stored row's id. */
  position: number;
  ts: string;
  operation: string;
  tokenName: string | null;
  role: string | null;
  workspace: string | null;
  agentId: string | null;
  result: string;
  denied: boolean;
}

interface Page {
  auditLog: {
    edges: { cursor: string; node: Entry }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

/** Every row of the log as admins page through it (`first` per page), newest first. */
async function allPages(
  h: AppHarness,
  filter: Record<string, unknown> | null,
  first: number,
): Promise<Entry[]> {
  const out: Entry[] = [];
  let after: string | null = null;
  for (let i = 0; i < 1_000; i++) {
    const res: { data?: Page; errors?: unknown[] } = await h.gql<Page>(
      `query($filter: AuditFilter, $first: Int, $after: String) {
         auditLog(filter: $filter, first: $first, after: $after) {
           edges { cursor node { ${NODE} } } pageInfo { hasNextPage endCursor } } }`,
      { filter, first, after },
    );
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    const page = res.data!.auditLog;
    expect(page.edges.length).toBeLessThanOrEqual(first);
    out.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage) return out;
    after = page.pageInfo.endCursor;
  }
  throw new Error("paging never ended");
}

const pause = (ms = 8) => new Promise((r) => setTimeout(r, ms));

describe("the audit table", () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("is append-only: an UPDATE through the raw connection fails and changes nothing", async () => {
    await h.createToken({ name: "someone", role: "VIEWER" });
    const before = sqliteOf(h.app.db).raw.prepare(`SELECT * FROM "AuditEntry" ORDER BY id`).all();
    expect(before.length).toBeGreaterThan(0);
    expect(() =>
      sqliteOf(h.app.db).raw.prepare(`UPDATE "AuditEntry" SET result = 'tampered', denied = 1`).run(),
    ).toThrow(/append-only/);
    expect(() =>
      sqliteOf(h.app.db).raw.prepare(`UPDATE "AuditEntry" SET tokenName = 'nobody' WHERE id = ?`).run(1),
    ).toThrow(/append-only/);
    expect(sqliteOf(h.app.db).raw.prepare(`SELECT * FROM "AuditEntry" ORDER BY id`).all()).toEqual(before);
  });

  it("retention deletes audit rows older than the cutoff and keeps newer ones", async () => {
    const p = h.app.db.prisma;
    const now = Date.now();
    for (const daysAgo of [45, 31]) {
      await p.auditEntry.create({
        data: {
          ts: new Date(now - daysAgo * DAY_MS),
          operation: "spawnAgent",
          result: "SpawnAgentPayload",
          denied: false,
        },
      });
    }
    await p.auditEntry.create({
      data: {
        ts: new Date(now - 29 * DAY_MS),
        operation: "killAgent",
        result: "KillAgentPayload",
        denied: false,
      },
    });
    const recent = await p.auditEntry.count({ where: { ts: { gte: new Date(now - DAY_MS) } } });
    expect(recent).toBeGreaterThan(0);
    const total = await p.auditEntry.count();

    const lines: string[] = [];
    const log = createLogger("info", { write: (s: string) => void lines.push(s) });
    const stop = startRetention(
      [{ what: "audit rows", prune: (cutoff) => h.app.audit.prune(cutoff) }],
      30,
      log,
      3_600_000,
      () => now,
    );
    await stop();
    expect(await p.auditEntry.count()).toBe(total - 2);
    expect(await p.auditEntry.count({ where: { ts: { lt: new Date(now - 30 * DAY_MS) } } })).toBe(0);
    expect(
      await p.auditEntry.count({ where: { operation: "killAgent", ts: { lt: new Date(now - DAY_MS) } } }),
    ).toBe(1);
    expect(lines.join("")).toMatch(/"deleted":2.*retention: old audit rows deleted/);

    // A later clock: the 29-day-old row goes too, today's rows stay.
    const stop2 = startRetention(
      [{ what: "audit rows", prune: (cutoff) => h.app.audit.prune(cutoff) }],
      30,
      silentLogger,
      3_600_000,
      () => now + 2 * DAY_MS,
    );
    await stop2();
    expect(await p.auditEntry.count()).toBe(total - 3);
    expect(await p.auditEntry.count({ where: { ts: { gte: new Date(now - DAY_MS) } } })).toBe(recent);
  });
});

describe("the auditLog connection", () => {
  let h: AppHarness;
  let all: Entry[] = [];
  let agentId = "";
  beforeAll(async () => {
    h = await startAppHarness();
    const viewer = await h.createToken({ name: "f-viewer", role: "VIEWER" });
    const op = await h.createToken({ name: "f-op", role: "OPERATOR" });
    agentId = await spawnVia(h, "demo", "wait fake:hold=60000");
    const calls: [string, string | undefined][] = [
      [`mutation { spawnAgent(input: { workspace: "demo", prompt: "no" }) { __typename } }`, viewer],
      [`mutation { spawnAgent(input: { workspace: "nope", prompt: "x" }) { __typename } }`, undefined],
      [`mutation { sendAgentInput(input: { agentId: "${agentId}", text: "hi" }) { __typename } }`, viewer],
      [`{ tokens { name } }`, op],
      [`mutation { killAgent(input: { agentId: "${agentId}" }) { __typename } }`, op],
      [`mutation { createToken(input: { name: "late", role: VIEWER }) { __typename } }`, undefined],
    ];
    for (const [doc, token] of calls) {
      await pause();
      await h.gql(doc, {}, token);
    }
    await waitFor(
      async () => (await h.app.db.prisma.auditEntry.count({ where: { operation: "tokens" } })) === 1,
    );
    all = await allPages(h, null, 500);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it("pages newest first with cursors, the same rows as the table", async () => {
    const stored = await h.app.db.prisma.auditEntry.findMany({ orderBy: { id: "desc" } });
    expect(all.map((e) => e.position)).toEqual(stored.map((r) => r.id));
    expect(all.length).toBeGreaterThanOrEqual(9);
    // Global ids: one per row, and node(id:) reads that row again.
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    const again = await h.gql<{ nodes: ({ position: number } | null)[] }>(
      `query($ids: [ID!]!) { nodes(ids: $ids) { ... on AuditEntry { position } } }`,
      { ids: all.map((e) => e.id) },
    );
    expect(again.data?.nodes).toEqual(all.map((e) => ({ position: e.position })));
    for (const size of [1, 2, 3]) {
      const paged = await allPages(h, null, size);
      expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
    }
    // Newest first, by position and time.
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.position).toBeLessThan(all[i - 1]!.position);
      expect(Date.parse(all[i]!.ts)).toBeLessThanOrEqual(Date.parse(all[i - 1]!.ts));
    }
    expect(all[0]).toMatchObject({
      operation: "createToken",
      tokenName: "admin",
      result: "CreateTokenPayload",
    });
  });

  it.each([
    ["operation", { operation: "spawnAgent" }, (e: Entry) => e.operation === "spawnAgent"],
    ["tokenName", { tokenName: "f-viewer" }, (e: Entry) => e.tokenName === "f-viewer"],
    ["workspace", { workspace: "nope" }, (e: Entry) => e.workspace === "nope"],
    ["deniedOnly", { deniedOnly: true }, (e: Entry) => e.denied],
    [
      "operation + deniedOnly",
      { operation: "spawnAgent", deniedOnly: true },
      (e: Entry) => e.operation === "spawnAgent" && e.denied,
    ],
  ] as const)(
    "filter %s: exactly the matching rows, newest first, also across pages",
    async (_n, filter, match) => {
      const expected = all.filter(match).map((e) => e.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all.length);
      expect((await allPages(h, filter, 500)).map((e) => e.id)).toEqual(expected);
      expect((await allPages(h, filter, 1)).map((e) => e.id)).toEqual(expected);
    },
  );

  it("filter agentId: the calls on that agent (spawn, denied input, kill)", async () => {
    const got = await allPages(h, { agentId }, 500);
    expect(got.map((e) => [e.operation, e.tokenName, e.result])).toEqual([
      ["killAgent", "f-op", "KillAgentPayload"],
      ["sendAgentInput", "f-viewer", "FORBIDDEN"],
      ["spawnAgent", "admin", "SpawnAgentPayload"],
    ]);
  });

  it("filters since/until: [since, until) by time", async () => {
    const asc = [...all].reverse();
    const since = asc[3]!.ts;
    const until = asc[asc.length - 2]!.ts;
    const inWindow = (e: Entry) =>
      Date.parse(e.ts) >= Date.parse(since) && Date.parse(e.ts) < Date.parse(until);
    const expected = all.filter(inWindow).map((e) => e.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length - 3);
    expect((await allPages(h, { since, until }, 500)).map((e) => e.id)).toEqual(expected);
    expect((await allPages(h, { since }, 2)).map((e) => e.id)).toEqual(
      all.filter((e) => Date.parse(e.ts) >= Date.parse(since)).map((e) => e.id),
    );
    expect((await allPages(h, { until }, 2)).map((e) => e.id)).toEqual(
      all.filter((e) => Date.parse(e.ts) < Date.parse(until)).map((e) => e.id),
    );
  });

  it("a denied query is a row too; prospero audit's filters give the same rows", async () => {
    expect(all.find((e) => e.operation === "tokens")).toMatchObject({
      tokenName: "f-op",
      role: "operator",
      result: "FORBIDDEN",
      denied: true,
    });
    const r = await cli(h.url, ["audit", "--json", "--token-name", "f-viewer", "--denied"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Entry[];
    expect(rows.map((e) => e.id)).toEqual(
      all.filter((e) => e.tokenName === "f-viewer" && e.denied).map((e) => e.id),
    );
    expect(rows.map((e) => e.operation)).toEqual(["sendAgentInput", "spawnAgent"]);
    const limited = await cli(h.url, ["audit", "--json", "--limit", "2"]);
    expect((JSON.parse(limited.stdout) as Entry[]).map((e) => e.id)).toEqual(
      all.slice(0, 2).map((e) => e.id),
    );
  });
});

describe("refusals before GraphQL", () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("50 unauthenticated requests from one address: at most 21 rows, the rest only counted", async () => {
    const wrong = `prospero_${"x".repeat(43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${h.url}/graphql`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(i % 2 ? { authorization: `Bearer ${wrong}` } : {}),
        },
        body: JSON.stringify({ query: "{ viewer { name } }" }),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    await waitFor(() => h.app.audit.stats.written >= REFUSALS_PER_WINDOW, 5_000, "refusal rows written");
    await pause(200);
    const rows = await h.app.db.prisma.auditEntry.findMany({ where: { operation: "http" } });
    expect(rows.length).toBeGreaterThanOrEqual(REFUSALS_PER_WINDOW);
    expect(rows.length).toBeLessThanOrEqual(REFUSALS_PER_WINDOW + 1);
    expect(h.app.audit.stats.suppressed).toBe(50 - rows.length);
    for (const r of rows) {
      expect(r).toMatchObject({
        tokenName: null,
        role: null,
        remoteAddress: "127.0.0.1",
        result: "UNAUTHENTICATED",
        denied: true,
      });
    }
    // The presented (wrong) secret is not stored.
    expect(JSON.stringify(sqliteOf(h.app.db).raw.prepare(`SELECT * FROM "AuditEntry"`).all())).not.toContain(
      wrong,
    );
    // A valid token still works from that address (counting refusals locks nobody out).
    expect((await h.gql<{ viewer: { name: string } }>("{ viewer { name } }")).data).toEqual({
      viewer: { name: "admin" },
    });
  });

  it("after the window, one row records how many refusals were only counted", async () => {
    let now = 1_800_000_000_000;
    const audit = new AuditLog(h.app.writer, silentLogger, () => now);
    const addr = "203.0.113.9";
    const refuse = () =>
      audit.recordRefusal({
        principal: null,
        remoteAddress: addr,
        operation: "http",
        result: "UNAUTHENTICATED",
      });
    for (let i = 0; i < REFUSALS_PER_WINDOW + 5; i++) refuse();
    await waitFor(() => audit.stats.written === REFUSALS_PER_WINDOW, 5_000, "rows of the first window");
    expect(audit.stats.suppressed).toBe(5);
    now += REFUSAL_WINDOW_MS + 1;
    refuse();
    await waitFor(() => audit.stats.written === REFUSALS_PER_WINDOW + 2, 5_000, "summary and new row");
    const rows = await h.app.db.prisma.auditEntry.findMany({
      where: { remoteAddress: addr },
      orderBy: { id: "asc" },
    });
    expect(rows).toHaveLength(REFUSALS_PER_WINDOW + 2);
    expect(rows.filter((r) => r.args !== null).map((r) => r.args)).toEqual([
      { suppressedRefusals: 5, windowMs: REFUSAL_WINDOW_MS },
    ]);
    expect(rows.every((r) => r.denied && r.result === "UNAUTHENTICATED")).toBe(true);
  });
});
