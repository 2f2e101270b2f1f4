/**
 * The raw keyset reader (src/store/sqlite-reader.ts, issue 17) against the Prisma reads it
 * replaces: on one real SQLite file, an EventStore reading through Prisma and one reading through
 * the raw reader return identical events (and so identical cursors) for every read — streams,
 * workspace pages and fleet-wide commit order with agent/workspace/kinds filters, forward and
 * backward, with bounds, corrupt rows skipped — and every statement shape the reader prepares
 * walks an index in order (no table scan, no sort).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Statement } from "better-sqlite3";
import { openDatabase, type OpenedDatabase } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { EventStore, type EventPageQuery, type GlobalFilter } from "../../src/store/events.js";
import { SqliteEventReader } from "../../src/store/sqlite-reader.js";
import { encodeCursor, resolveEventPage, type EventPageArgs } from "../../src/schema/events.js";
import type { GraphQLContext } from "../../src/schema/context.js";
import type { EventKind, FleetEvent, NewEvent } from "../../src/events/index.js";
import { tmpDir } from "../helpers/tmp.js";

const T0 = Date.UTC(2026, 11, 1);
/** Agent ids as caliband issues them (12 hex digits: cursors carry them). */
const [A1, A2, B1] = ["a1a1a1a1a1a1", "a2a2a2a2a2a2", "b1b1b1b1b1b1"] as const;

let db: OpenedDatabase | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

interface Stores {
  db: OpenedDatabase;
  /** Reads through Prisma (no reader). */
  viaPrisma: EventStore;
  /** Reads through the raw reader. */
  viaRaw: EventStore;
  /** Every SQL text the raw reader prepared. */
  prepared: string[];
}

async function open(): Promise<Stores> {
  db = await openDatabase(tmpDir());
  const opened = db;
  const prepared: string[] = [];
  const prepare = opened.raw.prepare.bind(opened.raw);
  opened.raw.prepare = ((sql: string): Statement => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof opened.raw.prepare;
  const writer = new StoreWriter(opened.prisma);
  const viaPrisma = new EventStore(opened.prisma, writer, { publish: () => {} });
  const viaRaw = new EventStore(opened.prisma, writer, { publish: () => {} }, undefined, {
    reader: new SqliteEventReader(opened.raw),
  });
  for (const w of ["w", "v"])
    await opened.prisma.workspace.create({ data: { name: w, root: `/srv/${w}`, env: {} } });
  for (const [id, workspace] of [
    [A1, "w"],
    [A2, "w"],
    [B1, "v"],
  ] as const) {
    await opened.prisma.agent.create({
      data: { id, workspace, name: id, status: "done", spec: {}, startedAt: new Date(0) },
    });
  }
  return { db: opened, viaPrisma, viaRaw, prepared };
}

/** A varied history: three agents, two workspace streams, the fleet stream, several kinds. */
function history(n: number): NewEvent[] {
  const out: NewEvent[] = [];
  for (let i = 0; i < n; i++) {
    const agentId = [A1, A2, B1][i % 3]!;
    const workspace = agentId === B1 ? "v" : "w";
    const tsMs = T0 + i * 7;
    switch (i % 7) {
      case 0:
        out.push({
          kind: "status_changed",
          payload: { from: "idle", to: `s${i}` },
          workspace,
          agentId,
          tsMs,
        });
        break;
      case 1:
      case 2:
        out.push({
          kind: "output",
          payload: { stream: "text", text: `δ ${i} "quoted" \u2028 🚀`, turnIndex: i, blockIndex: 0 },
          workspace,
          agentId,
          tsMs,
        });
        break;
      case 3:
        out.push({
          kind: "agent_spawned",
          payload: { name: `n${i}`, spec: { z: 1, a: [1.5, 0.1 + 0.2, null], nested: { b: true } } },
          workspace,
          agentId,
          tsMs,
        });
        break;
      case 4:
        out.push({
          kind: "workspace_health",
          payload: { state: i % 2 ? "healthy" : "unreachable", reason: i % 2 ? null : "down" },
          workspace,
          agentId: "",
          tsMs,
        });
        break;
      case 5:
        out.push({
          kind: "schedule_changed",
          payload: { scheduleId: `s${i}`, change: "fired", launchId: null, fireAtMs: tsMs, reason: null },
          workspace: "",
          agentId: "",
          tsMs,
        });
        break;
      default:
        out.push({ kind: "input_sent", payload: { text: `in ${i}` }, workspace, agentId, tsMs });
    }
  }
  return out;
}

/** Rows written behind the store's back: unreadable ones, and an old-format one zod completes. */
function insertOddRows(opened: OpenedDatabase): void {
  const ins = opened.raw.prepare(
    `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload") VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const next = (k: string) =>
    (opened.raw.prepare(`SELECT MAX("seq") AS m FROM "Event" WHERE "streamKey" = ?`).get(k) as { m: number })
      .m + 1;
  // A payload that does not match its kind, and an unknown kind: both skipped by either path.
  ins.run(A1, next(A1), T0, "w", A1, "status_changed", '{"from":1}');
  ins.run(A1, next(A1), T0, "w", A1, "no_such_kind", "{}");
  ins.run("workspace:w", next("workspace:w"), T0, "w", null, "output", '{"stream":"bogus"}');
  // Stored before issue 12: zod fills missedBytes and reason with null, on both paths.
  ins.run(A2, next(A2), T0 + 1, "w", A2, "ingest_gap", '{"missedLines":3,"detail":"old"}');
}

async function seeded(n = 300): Promise<Stores> {
  const s = await open();
  const events = history(n);
  for (let i = 0; i < events.length; i += 97) await s.viaPrisma.append(events.slice(i, i + 97));
  insertOddRows(s.db);
  // A store seeded after them (as after a restart) appends behind them.
  const later = new EventStore(s.db.prisma, new StoreWriter(s.db.prisma), { publish: () => {} });
  const more = await later.append(history(40).map((e) => ({ ...e, tsMs: e.tsMs + 1e6 })));
  expect(later.stats.appendFailures).toBe(0);
  expect(more).toHaveLength(40);
  return s;
}

const cursors = (events: readonly FleetEvent[]) => events.map((e) => encodeCursor(e));

const STREAMS = [A1, A2, B1, "workspace:w", "workspace:v", "fleet", "nobody"];
const KIND_SETS: (EventKind[] | undefined)[] = [
  undefined,
  ["output"],
  ["output", "status_changed", "output"],
  ["workspace_health", "schedule_changed", "ingest_gap"],
  [],
];

describe("SqliteEventReader", () => {
  it("readStream: the same events and cursors as the Prisma read, for every stream, cursor and page size", async () => {
    const { viaPrisma, viaRaw } = await seeded();
    for (const k of STREAMS) {
      for (const after of [0, 1, 5, 33, 90, 10_000]) {
        for (const limit of [1, 2, 7, 50, 1000]) {
          const a = await viaPrisma.readStream(k, after, limit);
          const b = await viaRaw.readStream(k, after, limit);
          expect(b).toEqual(a);
          expect(cursors(b)).toEqual(cursors(a));
        }
      }
    }
    // The two corrupt rows of a1 are skipped and do not shorten a page: a page across them is full.
    const { c } = db!.raw
      .prepare(`SELECT MIN("seq") AS c FROM "Event" WHERE "streamKey" = ? AND "payload" = '{"from":1}'`)
      .get(A1) as { c: number };
    expect((await viaRaw.readStream(A1, c - 2, 3)).map((e) => e.seq)).toEqual([c - 1, c + 2, c + 3]);
    const all = await viaRaw.readStream(A1, 0, 10_000);
    expect(all.some((e) => (e.kind as string) === "no_such_kind" || e.seq === c)).toBe(false);
    const gap = (await viaRaw.readStream(A2, 0, 10_000)).find((e) => e.kind === "ingest_gap");
    expect(gap?.payload).toEqual({ missedLines: 3, detail: "old", missedBytes: null, reason: null });
  });

  it("readGlobal: the same events for agent, fleet-level, workspace and kinds filters, with predicates", async () => {
    const { viaPrisma, viaRaw } = await seeded();
    const filters: GlobalFilter[] = [
      {},
      { agentId: A1 },
      { agentId: "" },
      { workspace: "w" },
      { workspace: "v", agentId: B1 },
      { workspace: "w", agentId: B1 },
      { agentId: "nobody" },
      ...KIND_SETS.map((kinds) => ({ kinds })),
      { workspace: "w", agentId: A2, kinds: ["output", "ingest_gap"] },
      { agentId: "", kinds: ["schedule_changed"] },
    ];
    const predicates = [undefined, (e: FleetEvent) => e.seq % 2 === 0];
    for (const where of filters) {
      for (const predicate of predicates) {
        for (const after of [0, 17, 150, 100_000]) {
          for (const limit of [1, 3, 64, 5000]) {
            const a = await viaPrisma.readGlobal(after, limit, predicate, where);
            const b = await viaRaw.readGlobal(after, limit, predicate, where);
            expect(b).toEqual(a);
            expect(cursors(b)).toEqual(cursors(a));
          }
        }
      }
    }
  });

  const PAGE_SCOPES: [string, EventPageQuery["scope"][]][] = [
    ["streams", [{ streamKey: A1 }, { streamKey: "workspace:w" }, { streamKey: "fleet" }]],
    ["workspaces", [{ workspace: "w" }, { workspace: "v" }, { workspace: "" }, { workspace: "nowhere" }]],
  ];
  for (const [name, scopes] of PAGE_SCOPES)
    it(`readPage, existsBeyond and countScope of ${name}: the same pages, flags and counts, forward and backward, with bounds`, async () => {
      const { viaPrisma, viaRaw } = await seeded();
      const bounds: [number | undefined, number | undefined][] = [
        [undefined, undefined],
        [10, undefined],
        [undefined, 40],
        [5, 120],
        [120, 5],
        [0, 100_000],
      ];
      for (const scope of scopes) {
        for (const kinds of KIND_SETS) {
          expect(await viaRaw.countScope(scope, kinds)).toBe(await viaPrisma.countScope(scope, kinds));
          for (const [after, before] of bounds) {
            for (const limit of [0, 1, 4, 100, 1000]) {
              for (const backward of [false, true]) {
                const q: EventPageQuery = { scope, kinds, after, before, limit, backward };
                const a = await viaPrisma.readPage(q);
                const b = await viaRaw.readPage(q);
                expect(b).toEqual(a);
                expect(cursors(b.events)).toEqual(cursors(a.events));
              }
            }
          }
          for (const at of [0, 1, 30, 200, 100_000]) {
            for (const side of [{ atOrBefore: at }, { atOrAfter: at }]) {
              expect(await viaRaw.existsBeyond(scope, kinds, side)).toBe(
                await viaPrisma.existsBeyond(scope, kinds, side),
              );
            }
          }
        }
      }
    });

  it("connection pages resolve to the same events, cursors and page info through either reader", async () => {
    const { viaPrisma, viaRaw } = await seeded();
    const ctx = (store: EventStore) => ({ store }) as Partial<GraphQLContext> as GraphQLContext;
    const first = await resolveEventPage(ctx(viaPrisma), { workspace: "w" }, { first: 10 });
    const mid = encodeCursor(first.events[4]!);
    const argsList: EventPageArgs[] = [
      { first: 10 },
      { first: 10, after: mid },
      { last: 3, before: mid },
      { last: 50, after: mid },
      { first: 0 },
      { first: 5, kinds: ["output"] },
      { last: 5, kinds: ["workspace_health", "input_sent"] },
    ];
    for (const scope of [{ workspace: "w" }, { streamKey: A1 }] as EventPageQuery["scope"][]) {
      for (const args of argsList) {
        if ("streamKey" in scope && (args.after ?? args.before) !== undefined) continue; // mid is a workspace-page cursor
        const a = await resolveEventPage(ctx(viaPrisma), scope, args);
        const b = await resolveEventPage(ctx(viaRaw), scope, args);
        expect(cursors(b.events)).toEqual(cursors(a.events));
        expect(b.events).toEqual(a.events);
        expect([b.hasNextPage, b.hasPreviousPage]).toEqual([a.hasNextPage, a.hasPreviousPage]);
        expect(await b.totalCount()).toBe(await a.totalCount());
      }
    }
  });

  it("readByKeys, highWater (seeding) and the last global id match the Prisma reads", async () => {
    const s = await seeded();
    const keys = [
      { streamKey: A1, seq: 3 },
      { streamKey: "fleet", seq: 1 },
      { streamKey: A1, seq: 9999 },
      { streamKey: A2, seq: 1 },
      { streamKey: A1, seq: 3 },
      ...[1, 2, 3, 4, 5].map((d) => ({ streamKey: A1, seq: 100 + d })), // around the corrupt rows
    ];
    expect(await s.viaRaw.readByKeys(keys)).toEqual(await s.viaPrisma.readByKeys(keys));
    expect(await s.viaRaw.readByKeys([])).toEqual([]);
    expect(await s.viaRaw.lastGlobalId()).toBe(await s.viaPrisma.lastGlobalId());
    // Retention removed a stream's events: its seqs stay allocated through StreamHead.
    s.db.raw.prepare(`DELETE FROM "Event" WHERE "streamKey" = ?`).run(B1);
    const fresh = (reader?: SqliteEventReader) =>
      new EventStore(s.db.prisma, new StoreWriter(s.db.prisma), { publish: () => {} }, undefined, { reader });
    for (const k of STREAMS) {
      expect(await fresh(new SqliteEventReader(s.db.raw)).highWater(k)).toBe(await fresh().highWater(k));
    }
    expect(await fresh(new SqliteEventReader(s.db.raw)).highWater(B1)).toBeGreaterThan(0);
    // Seeded raw, the next append continues after the high-water mark.
    const [next] = await fresh(new SqliteEventReader(s.db.raw)).append([
      { kind: "input_sent", payload: { text: "x" }, workspace: "v", agentId: B1, tsMs: T0 },
    ]);
    expect(next?.seq).toBe(await fresh().highWater(B1));
    expect(next?.seq).toBeGreaterThan(1);
  });

  it("a page of one agent among many rows of other agents: exactly its events, in order, at every cursor", async () => {
    const s = await open();
    // 30 events of a1, spread through 6,000 of a2 and b1 (other workspace too).
    const events: NewEvent[] = [];
    for (let i = 0; i < 6_000; i++) {
      const agentId = i % 2 ? A2 : B1;
      events.push({
        kind: "output",
        payload: { stream: "text", text: `o${i}`, turnIndex: 0, blockIndex: i },
        workspace: agentId === B1 ? "v" : "w",
        agentId,
        tsMs: T0 + i,
      });
      if (i % 200 === 7)
        events.push({
          kind: "input_sent",
          payload: { text: `mine ${i}` },
          workspace: "w",
          agentId: A1,
          tsMs: T0 + i,
        });
    }
    for (let i = 0; i < events.length; i += 500) await s.viaRaw.append(events.slice(i, i + 500));
    const mine = events.filter((e) => e.agentId === A1).map((e) => e.payload);
    expect(mine).toHaveLength(30);

    // Fleet-wide commit order narrowed to a1 (fleetEvents(filter: {agentId})), in pages of 7.
    const paged: FleetEvent[] = [];
    for (let after = 0; ;) {
      const page = await s.viaRaw.readGlobal(after, 7, undefined, { agentId: A1 });
      paged.push(...page);
      if (page.length < 7) break;
      after = page[page.length - 1]!.globalId!;
    }
    expect(paged.map((e) => e.payload)).toEqual(mine);
    expect(paged.map((e) => e.seq)).toEqual(mine.map((_, i) => i + 1));
    // The same through a kinds filter and through the workspace scope with kinds.
    const byKind = await s.viaRaw.readGlobal(0, 1000, undefined, { agentId: A1, kinds: ["input_sent"] });
    expect(byKind.map((e) => e.payload)).toEqual(mine);
    expect(await s.viaRaw.readGlobal(0, 1000, undefined, { agentId: A1, kinds: ["output"] })).toEqual([]);
    const wsPage = await s.viaRaw.readPage({
      scope: { workspace: "w" },
      kinds: ["input_sent"],
      limit: 10,
      backward: true,
    });
    expect(wsPage.events.map((e) => e.payload)).toEqual(mine.slice(-10));
    expect(wsPage.more).toBe(true);
    const before = wsPage.events[0]!.globalId!;
    const prev = await s.viaRaw.readPage({
      scope: { workspace: "w" },
      kinds: ["input_sent"],
      before,
      limit: 100,
      backward: true,
    });
    expect(prev.events.map((e) => e.payload)).toEqual(mine.slice(0, -10));
    expect(prev.more).toBe(false);
    expect(await s.viaRaw.countScope({ workspace: "w" }, ["input_sent"])).toBe(30);
    expect(await s.viaRaw.readGlobal(0, 1000, undefined, { workspace: "v", agentId: A1 })).toEqual([]);
    // And identical to the Prisma read of the same pages.
    expect(await s.viaPrisma.readGlobal(0, 1000, undefined, { agentId: A1 })).toEqual(paged);
  });

  it("a predicate that rejects most rows: readGlobal lets other work run between its raw pages, and still finds the one match", async () => {
    const s = await open();
    const events: NewEvent[] = [];
    for (let i = 0; i < 6_000; i++)
      events.push({
        kind: "workspace_health",
        payload: { state: "healthy", reason: null },
        workspace: "w",
        agentId: "",
        tsMs: T0 + i,
      });
    for (let i = 0; i < events.length; i += 500) await s.viaRaw.append(events.slice(i, i + 500));
    await s.viaRaw.append([{ ...events[0]!, workspace: "v", tsMs: T0 + 10_000 }]);
    let ticks = 0;
    let ticking = true;
    const tick = (): void => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const before = ticks;
    // As a token limited to workspace v reads fleet-wide history: 13 pages of 500, one match.
    const found = await s.viaRaw.readGlobal(0, 500, (e) => e.workspace === "v");
    const during = ticks - before;
    ticking = false;
    expect(found.map((e) => e.workspace)).toEqual(["v"]);
    expect(during).toBeGreaterThanOrEqual(10);
  });

  it("every statement shape the reader prepares walks an index in order: no table scan, no sort", async () => {
    const s = await seeded(60);
    const kinds: EventKind[] = ["output", "input_sent"];
    await s.viaRaw.readStream(A1, 0, 10);
    for (const where of [
      {},
      { agentId: A1 },
      { agentId: "" },
      { workspace: "w" },
      { workspace: "w", agentId: A1 },
    ])
      for (const k of [undefined, kinds]) await s.viaRaw.readGlobal(0, 10, undefined, { ...where, kinds: k });
    for (const scope of [{ streamKey: A1 }, { workspace: "w" }] as EventPageQuery["scope"][]) {
      for (const k of [undefined, kinds]) {
        for (const [after, before] of [
          [undefined, undefined],
          [1, undefined],
          [undefined, 50],
          [1, 50],
        ] as const) {
          for (const backward of [false, true])
            await s.viaRaw.readPage({ scope, kinds: k, after, before, limit: 5, backward });
        }
        await s.viaRaw.existsBeyond(scope, k, { atOrBefore: 3 });
        await s.viaRaw.existsBeyond(scope, k, { atOrAfter: 3 });
        await s.viaRaw.countScope(scope, k);
      }
    }
    await s.viaRaw.readByKeys([{ streamKey: A1, seq: 1 }]);
    await s.viaRaw.lastGlobalId();
    const fresh = new EventStore(
      s.db.prisma,
      new StoreWriter(s.db.prisma),
      { publish: () => {} },
      undefined,
      {
        reader: new SqliteEventReader(s.db.raw),
      },
    );
    await fresh.highWater(A1);

    const shapes = [...new Set(s.prepared.filter((sql) => sql.startsWith("SELECT")))];
    expect(shapes.length).toBeGreaterThanOrEqual(40);
    for (const sql of shapes) {
      const params = Array.from(sql.matchAll(/\?/g), () => 1);
      const plan = (s.db.raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join(" | ");
      expect(plan, sql).not.toMatch(/TEMP B-TREE|SCAN Event/);
      expect(plan, sql).toMatch(/^SEARCH (Event|StreamHead)\b/);
    }
  });
});
