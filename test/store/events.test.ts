import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db.js";
import { openPostgres } from "../../src/store/pg.js";
import { StoreWriter } from "../../src/store/writer.js";
import { SqliteHotPath } from "../../src/store/hot-path.js";
import { PgHotPath } from "../../src/store/pg-hot-path.js";
import { EventStore } from "../../src/store/events.js";
import { aggregateUsage } from "../../src/store/usage.js";
import { DAY_MS } from "../../src/store/retention.js";
import type { FleetEvent, NewEvent } from "../../src/events/index.js";
import type { OpenedStore } from "../../src/app.js";
import { tmpDir } from "../helpers/tmp.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";

type StoreKind = "sqlite" | "postgresql";
let db: OpenedStore | undefined;
let server: Promise<TestPostgres> | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});
afterAll(async () => {
  await (await server)?.stop();
});

/**
 * @param hot build the writer with the hot path (appends without Prisma extras take it).
 * @param kind the store: the embedded SQLite file, or a fresh database on a throwaway PostgreSQL.
 */
async function open(
  hot = false,
  kind: StoreKind = "sqlite",
): Promise<{
  store: EventStore;
  published: FleetEvent[];
  db: OpenedStore;
  writer: StoreWriter;
}> {
  if (kind === "sqlite") db = await openDatabase(tmpDir());
  else {
    server ??= startPostgres();
    db = await openPostgres(await (await server).createDatabase());
  }
  const opened = db;
  const hotPath = opened.dialect === "sqlite" ? new SqliteHotPath(opened.raw) : new PgHotPath(opened.pool);
  const writer = new StoreWriter(db.prisma, undefined, undefined, hot ? { hotPath } : {});
  const published: FleetEvent[] = [];
  const store = new EventStore(db.prisma, writer, { publish: (e) => published.push(e) });
  // Runs referenced by the events below (events of an agent reference its run row).
  for (const w of ["w", "wx"])
    await db.prisma.workspace.create({ data: { name: w, root: `/srv/${w}`, env: {} } });
  for (const id of ["a1", "a2", "dead", "a", "b", "x1"]) {
    await db.prisma.agent.create({
      data: {
        id,
        workspace: id.startsWith("x") ? "wx" : "w",
        name: id,
        status: "done",
        spec: {},
        startedAt: new Date(0),
      },
    });
  }
  return { store, published, db, writer };
}

/** Store event seq `seq` of stream a1 behind the EventStore's back (as something else would). */
async function takeSeq(opened: OpenedStore, seq: number): Promise<void> {
  if (opened.dialect === "sqlite") {
    opened.raw
      .prepare(
        `INSERT INTO "Event" (streamKey, seq, ts, workspace, agentId, kind, payload) VALUES ('a1', ?, 0, 'w', 'a1', 'x', '{}')`,
      )
      .run(seq);
  } else {
    await opened.pool.query(
      `INSERT INTO "Event" ("streamKey", seq, ts, workspace, "agentId", kind, payload) VALUES ('a1', $1, now(), 'w', 'a1', 'x', '{}')`,
      [seq],
    );
  }
}

const status = (agentId: string, from: string, to: string, tsMs = Date.now()): NewEvent => ({
  kind: "status_changed",
  payload: { from, to },
  workspace: "w",
  agentId,
  tsMs,
});

// Prisma (appends with extras) and the hot path (issue 17).
// Both write paths keep the same contract on both stores (issue 18 item 1).
describe.each([
  { path: "Prisma", kind: "sqlite" as StoreKind },
  { path: "hot", kind: "sqlite" as StoreKind },
  { path: "Prisma", kind: "postgresql" as StoreKind },
  { path: "hot", kind: "postgresql" as StoreKind },
])("EventStore ($path path, $kind)", ({ path, kind }) => {
  const hot = path === "hot";
  it("allocates per-stream seqs from 1, publishes only after commit, with fleet-wide globalIds", async () => {
    const { store, published } = await open(hot, kind);
    const a = await store.append([status("a1", "running", "idle"), status("a2", "running", "idle")]);
    const b = await store.append([status("a1", "idle", "running")]);
    expect([...a, ...b].map((e) => [e.streamKey, e.seq])).toEqual([
      ["a1", 1],
      ["a2", 1],
      ["a1", 2],
    ]);
    expect(published.map((e) => e.globalId)).toEqual([1, 2, 3]);
    expect((await store.readStream("a1", 1, 10)).map((e) => e.seq)).toEqual([2]);
    expect((await store.readGlobal(1, 10)).map((e) => e.globalId)).toEqual([2, 3]);
  });

  it("a large append (several multi-row INSERTs) gives every event the globalId of its own stored row", async () => {
    const { store, db: opened } = await open(hot, kind);
    const events: NewEvent[] = [];
    for (let i = 0; i < 1_234; i++) events.push(status(i % 3 === 0 ? "a2" : "a1", "running", `s${i}`));
    const stored = await store.append(events);
    expect(stored.map((e) => e.payload)).toEqual(events.map((e) => e.payload)); // input order kept
    const rows = await opened.prisma.event.findMany({
      select: { id: true, streamKey: true, seq: true, payload: true },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const e of stored) {
      const row = byId.get(e.globalId!);
      expect(row).toMatchObject({ streamKey: e.streamKey, seq: e.seq, payload: e.payload });
    }
    expect(new Set(stored.map((e) => e.globalId)).size).toBe(1_234);
    // Commit order = input order: globalIds increase along the input.
    const ids = stored.map((e) => e.globalId!);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
  });

  it("a failed append is still published, followed by a stored store_persist_failed marker (#25)", async () => {
    const { store, published, db } = await open(hot, kind);
    await store.append([status("a1", "running", "idle")]);
    // Something else took seq 2 behind the store's back: the next append violates UNIQUE(streamKey, seq).
    await takeSeq(db, 2);
    await store.append([status("a1", "idle", "running")]);
    const live = published.slice(1);
    expect(live[0]).toMatchObject({ kind: "status_changed", seq: 2, globalId: null });
    expect(live[1]).toMatchObject({ kind: "store_persist_failed", payload: { lostSeq: 2 } });
    expect(live[1]?.globalId).not.toBeNull();
    const replay = await store.readStream("a1", 0, 10);
    expect(replay.map((e) => e.kind)).toContain("store_persist_failed");
    expect(store.stats.appendFailures).toBe(1);
  });

  it("with onFailure: throw, a failed append publishes nothing and rejects (ingest retries from its source)", async () => {
    const { store, published, db } = await open(hot, kind);
    await store.append([status("a1", "running", "idle")]);
    await takeSeq(db, 2);
    await expect(store.append([status("a1", "idle", "running")], { onFailure: "throw" })).rejects.toThrow();
    expect(published).toHaveLength(1);
    // A conflict keeps its seq spent (the same seq would be refused again): the retry takes 3.
    const [retried] = await store.append([status("a1", "idle", "running")], { onFailure: "throw" });
    expect(retried?.seq).toBe(3);
  });

  it("with onFailure: throw, an append the database could not take gives its seqs back: the retry has no gap", async () => {
    const { store, db } = await open(hot, kind);
    await store.append([status("a1", "running", "idle")]);
    // The run's row is gone for a moment: the events' foreign key refuses the append.
    await db.prisma.agent.update({ where: { id: "a1" }, data: { id: "a1-away" } });
    await expect(
      store.append([status("a1", "idle", "running"), status("a1", "running", "idle")], {
        onFailure: "throw",
      }),
    ).rejects.toThrow();
    await db.prisma.agent.update({ where: { id: "a1-away" }, data: { id: "a1" } });
    const again = await store.append([status("a1", "idle", "running")], { onFailure: "throw" });
    expect(again.map((e) => e.seq)).toEqual([2]);
    expect((await store.readStream("a1", 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it("retention compares instants, keeps a live agent's events, and never reuses a seq", async () => {
    const { store, db } = await open(hot, kind);
    const old = Date.now() - 10 * DAY_MS;
    await db.prisma.agent.create({
      data: {
        id: "live",
        workspace: "w",
        name: "live",
        status: "running",
        spec: {},
        startedAt: new Date(old),
      },
    });
    await store.append([status("dead", "running", "done", old), status("live", "spawning", "running", old)]);
    await store.append([status("dead", "done", "killed")]);
    const deleted = await store.prune(new Date(Date.now() - 7 * DAY_MS));
    expect(deleted).toBe(1);
    expect((await store.readStream("dead", 0, 10)).map((e) => e.seq)).toEqual([2]);
    expect((await store.readStream("live", 0, 10)).map((e) => e.seq)).toEqual([1]);
    // Everything of "dead" pruned: a fresh process still continues after the high-water mark.
    await store.prune(new Date(Date.now() + DAY_MS));
    const fresh = new EventStore(db.prisma, new StoreWriter(db.prisma), { publish: () => {} });
    const [next] = await fresh.append([status("dead", "killed", "killed")]);
    expect(next?.seq).toBe(3);
  });
});

describe.each([{ kind: "sqlite" as StoreKind }, { kind: "postgresql" as StoreKind }])(
  "usage aggregation ($kind)",
  ({ kind }) => {
    const turn = (
      agentId: string,
      model: string | null,
      tsMs: number,
      input: number,
      cost: number | null,
    ): NewEvent => ({
      kind: "turn_completed",
      payload: {
        turnIndex: 0,
        stopReason: "end_turn",
        usage: { input, output: 10, cacheRead: 0, cacheCreation: 0 },
        ttftMs: null,
        tbtMs: null,
        model,
        estimatedCostUsd: cost,
      },
      workspace: agentId.startsWith("x") ? "wx" : "w",
      agentId,
      tsMs,
    });

    it("sums tokens, cost, turns and outcomes per workspace, model and UTC day within [since, until)", async () => {
      const { store } = await open(false, kind);
      const day1 = Date.UTC(2026, 10, 1, 12);
      const day2 = Date.UTC(2026, 10, 2, 12);
      await store.append([
        turn("a", "claude-sonnet-4-5", day1, 100, 0.01),
        turn("a", "claude-sonnet-4-5", day1 + 1000, 200, 0.02),
        turn("b", "local-model", day2, 50, null),
        turn("x1", "claude-sonnet-4-5", day2, 7, 0.001),
        status("a", "running", "done", day1 + 5000),
        status("b", "running", "failed", day2 + 5000),
        turn("a", "claude-sonnet-4-5", Date.UTC(2026, 10, 5), 999, 9), // outside the window
      ]);
      const rows = await aggregateUsage(db!.prisma, {
        since: new Date(Date.UTC(2026, 10, 1)),
        until: new Date(Date.UTC(2026, 10, 3)),
        groupBy: ["workspace", "day"],
      });
      expect(rows).toEqual([
        expect.objectContaining({
          workspace: "w",
          day: "2026-11-01",
          inputTokens: 300,
          turns: 2,
          estimatedCostUsd: 0.03,
          outcomes: { done: 1, failed: 0, killed: 0, crashed: 0 },
        }),
        expect.objectContaining({
          workspace: "w",
          day: "2026-11-02",
          inputTokens: 50,
          turns: 1,
          estimatedCostUsd: 0,
          unpricedTurns: 1,
          outcomes: { done: 0, failed: 1, killed: 0, crashed: 0 },
        }),
        expect.objectContaining({ workspace: "wx", day: "2026-11-02", inputTokens: 7, turns: 1 }),
      ]);
      const total = await aggregateUsage(db!.prisma, {
        since: new Date(0),
        until: new Date(Date.UTC(2027, 0, 1)),
        groupBy: [],
      });
      expect(total).toHaveLength(1);
      expect(total[0]).toMatchObject({
        workspace: null,
        model: null,
        day: null,
        inputTokens: 1356,
        turns: 5,
      });
      await expect(
        aggregateUsage(db!.prisma, { since: new Date(2), until: new Date(1), groupBy: [] }),
      ).rejects.toMatchObject({
        code: "BAD_USER_INPUT",
        issues: [{ path: ["since"], message: "must be before until" }],
      });
    });
  },
);
