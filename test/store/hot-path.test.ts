/**
 * The write hot path (issue 17): SqliteHotPath on the driver connection, and StoreWriter's one FIFO
 * queue of Prisma and hot jobs (order across the two, group commit, a bad job failing alone,
 * flush/close), over real SQLite files.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type OpenedDatabase } from "../../src/store/db.js";
import { StoreWriter, type StoreWriterOptions } from "../../src/store/writer.js";
import {
  SqliteHotPath,
  type HotEventRow,
  type HotJob,
  type HotPathWriter,
  type HotResult,
  type HotTotals,
} from "../../src/store/hot-path.js";
import { tmpDir } from "../helpers/tmp.js";

let db: OpenedDatabase | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

/** A migrated store with workspace `w` and run `a1`. */
async function open(): Promise<OpenedDatabase> {
  db = await openDatabase(tmpDir());
  await db.prisma.workspace.create({ data: { name: "w", root: "/srv/w", env: {} } });
  await agentRow(db, "a1");
  return db;
}

async function agentRow(d: OpenedDatabase, id: string): Promise<void> {
  await d.prisma.agent.create({
    data: { id, workspace: "w", name: id, status: "running", spec: {}, startedAt: new Date(0) },
  });
}

/** The writer as production builds it (src/app.ts), plus options. */
function writerOf(d: OpenedDatabase, opts: Omit<StoreWriterOptions, "hotPath"> = {}): StoreWriter {
  return new StoreWriter(d.prisma, undefined, undefined, { ...opts, hotPath: new SqliteHotPath(d.raw) });
}

const row = (streamKey: string, seq: number, agentId: string | null = null): HotEventRow => ({
  streamKey,
  seq,
  tsMs: 1_000 + seq,
  workspace: "w",
  agentId,
  kind: "test",
  payload: JSON.stringify({ seq }),
});

const hotEvents = (...rows: HotEventRow[]): HotJob => ({ events: rows });

/** Event rows of the store in commit order. */
function stored(d: OpenedDatabase): { id: number; streamKey: string; seq: number }[] {
  return d.raw.prepare(`SELECT "id", "streamKey", "seq" FROM "Event" ORDER BY "id"`).all() as {
    id: number;
    streamKey: string;
    seq: number;
  }[];
}

describe("SqliteHotPath", () => {
  it("commits every job of a call in one transaction and gives each event the id of its own row", async () => {
    const d = await open();
    const hot = new SqliteHotPath(d.raw);
    const res = await hot.commit([
      hotEvents(row("s", 1), row("t", 1), row("s", 2)),
      { events: [row("a1", 1, "a1")], heads: [{ streamKey: "a1", lastSeq: 1 }] },
    ]);
    const ids = new Map(stored(d).map((r) => [`${r.streamKey}#${r.seq}`, r.id]));
    expect(res.map((r) => r.eventIds)).toEqual([
      [ids.get("s#1"), ids.get("t#1"), ids.get("s#2")],
      [ids.get("a1#1")],
    ]);
    expect(d.raw.prepare(`SELECT "lastSeq" FROM "StreamHead" WHERE "streamKey" = 'a1'`).pluck().get()).toBe(
      1,
    );
    // All or nothing: a job violating UNIQUE(streamKey, seq) undoes the other jobs of its call.
    await expect(hot.commit([hotEvents(row("u", 1)), hotEvents(row("s", 1))])).rejects.toThrow(/UNIQUE/);
    expect(stored(d).map((r) => r.streamKey)).not.toContain("u");
  });

  it("writes frames and the ingest cursor as the Prisma SQL did (exact bytes, 0/1 booleans, ms times)", async () => {
    const d = await open();
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    await new SqliteHotPath(d.raw).commit([
      {
        frames: [
          { agentId: "a1", line: 0, text: "{}", bytes: null, tsMs: 5 },
          { agentId: "a1", line: 1, text: "{\uFFFD}", bytes, tsMs: 5 },
        ],
        cursor: {
          agentId: "a1",
          workspace: "w",
          mode: "file",
          byteOffset: 7,
          lineCount: 2,
          state: `{"costUsd":null}`,
          finished: true,
          tsMs: 5,
        },
      },
    ]);
    const frames = await d.prisma.frame.findMany({ orderBy: { line: "asc" } });
    expect(frames.map((f) => [f.line, f.text, f.bytes && Buffer.from(f.bytes), f.ts.getTime()])).toEqual([
      [0, "{}", null, 5],
      [1, "{\uFFFD}", bytes, 5],
    ]);
    const cursor = await d.prisma.ingestCursor.findUniqueOrThrow({ where: { agentId: "a1" } });
    expect(cursor).toMatchObject({ byteOffset: 7, lineCount: 2, mode: "file", finished: true });
    expect(cursor.state).toEqual({ costUsd: null });
    expect(cursor.updatedAt.getTime()).toBe(5);
  });

  it("the run totals UPDATE leaves the Agent row exactly as Prisma's updateMany did", async () => {
    const d = await open();
    for (const id of ["p1", "h1"]) await agentRow(d, id);
    const base = {
      turns: 2,
      inputTokens: 10,
      outputTokens: 20,
      cacheReadTokens: 3,
      cacheCreationTokens: 4,
    };
    // A turn with a model, then a turn without one and unpriced, then the run's end.
    const steps: Omit<HotTotals, "agentId">[] = [
      { ...base, costUsd: 0.5, model: "claude-sonnet-4-5" },
      { ...base, turns: 3, costUsd: null },
      { ...base, turns: 3, costUsd: null, outcome: "EndTurn" },
    ];
    const hot = new SqliteHotPath(d.raw);
    const columns = (id: string): Record<string, unknown> => {
      const cols = (d.raw.pragma(`table_info("Agent")`) as { name: string }[]).map((c) => c.name);
      const r = d.raw
        .prepare(
          `SELECT ${cols.map((c) => `"${c}", typeof("${c}") AS "${c}:type"`).join(", ")} FROM "Agent" WHERE "id" = ?`,
        )
        .get(id) as Record<string, unknown>;
      // Differ by construction (the two rows' own id, name and creation instant).
      for (const k of ["id", "name", "searchText", "createdAt"]) delete r[k];
      return r;
    };
    for (const step of steps) {
      const before = Date.now();
      await d.prisma.agent.updateMany({ where: { id: "p1" }, data: step });
      await hot.commit([{ totals: { agentId: "h1", ...step } }]);
      const p = columns("p1");
      const h = columns("h1");
      // updatedAt: each the wall clock of its own update, stored the same way.
      expect(h["updatedAt:type"]).toBe(p["updatedAt:type"]);
      expect(h.updatedAt as number).toBeGreaterThanOrEqual(before);
      delete p.updatedAt;
      delete h.updatedAt;
      expect(h).toEqual(p);
    }
    expect(columns("h1")).toMatchObject({ model: "claude-sonnet-4-5", outcome: "EndTurn", turns: 3 });
    // No row: nothing, like updateMany.
    await expect(hot.commit([{ totals: { agentId: "nope", ...steps[0]! } }])).resolves.toHaveLength(1);
  });
});

describe("StoreWriter with a hot path", () => {
  it("keeps FIFO order across Prisma and hot jobs: a run row created by a Prisma job commits before hot events referencing it", async () => {
    const d = await open();
    const writer = writerOf(d);
    // All submitted in one turn: the hot jobs share the window with the Prisma jobs between them.
    const jobs = [
      writer.submitHot(hotEvents(row("s", 1))),
      writer.submit((p) => [
        p.agent.create({
          data: { id: "b2", workspace: "w", name: "b2", status: "running", spec: {}, startedAt: new Date(0) },
        }),
        p.$executeRawUnsafe(
          `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload") VALUES ('s', 2, 0, 'w', NULL, 'test', '{}')`,
        ),
      ]),
      // References b2 (FOREIGN KEY): fails unless the Prisma job above committed first.
      writer.submitHot(hotEvents(row("s", 3), row("b2", 1, "b2"))),
      writer.submit((p) => [
        p.$executeRawUnsafe(
          `INSERT INTO "Event" ("streamKey", "seq", "ts", "workspace", "agentId", "kind", "payload") VALUES ('s', 4, 0, 'w', NULL, 'test', '{}')`,
        ),
      ]),
      writer.submitHot(hotEvents(row("s", 5))),
    ];
    await Promise.all(jobs);
    // Commit order (ids) = submission order, across both kinds.
    expect(stored(d).map((r) => `${r.streamKey}#${r.seq}`)).toEqual([
      "s#1",
      "s#2",
      "s#3",
      "b2#1",
      "s#4",
      "s#5",
    ]);
    expect(writer.stats).toMatchObject({ jobs: 5, failures: 0, batches: 5 });
    await writer.close();
  });

  it("group-commits the hot jobs of one turn in ONE transaction, resolving each with its own ids", async () => {
    const d = await open();
    const transactions: boolean[] = [];
    const writer = writerOf(d, { onTransaction: (_ms, ok) => transactions.push(ok) });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writer.submitHot(hotEvents(row(`r${i % 5}`, 1 + Math.floor(i / 5)))),
      ),
    );
    expect(transactions).toEqual([true]);
    expect(writer.stats).toMatchObject({ batches: 1, jobs: 50 });
    const ids = new Map(stored(d).map((r) => [`${r.streamKey}#${r.seq}`, r.id]));
    expect(results.map((r) => r.eventIds)).toEqual(
      Array.from({ length: 50 }, (_, i) => [ids.get(`r${i % 5}#${1 + Math.floor(i / 5)}`)]),
    );
    await writer.close();
  });

  it("hotWindowMs collects jobs of later turns too; maxHotRows bounds the rows of a transaction", async () => {
    const d = await open();
    const sizes: number[] = [];
    const inner = new SqliteHotPath(d.raw);
    const counting: HotPathWriter = {
      commit(jobs: readonly HotJob[]): Promise<HotResult[]> {
        sizes.push(jobs.reduce((n, j) => n + (j.events?.length ?? 0), 0));
        return inner.commit(jobs);
      },
    };
    const windowed = new StoreWriter(d.prisma, undefined, undefined, { hotPath: counting, hotWindowMs: 200 });
    const first = windowed.submitHot(hotEvents(row("x", 1)));
    await new Promise((r) => setImmediate(r));
    const second = windowed.submitHot(hotEvents(row("x", 2)));
    await Promise.all([first, second]);
    expect(sizes).toEqual([2]);
    await windowed.close();

    sizes.length = 0;
    const bounded = new StoreWriter(d.prisma, undefined, undefined, { hotPath: counting, maxHotRows: 10 });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        bounded.submitHot(
          hotEvents(row("y", 4 * i + 1), row("y", 4 * i + 2), row("y", 4 * i + 3), row("y", 4 * i + 4)),
        ),
      ),
    );
    // 4 rows a job, at most 10 a transaction: 2 jobs each.
    expect(sizes).toEqual([8, 8, 8, 8]);
    await bounded.close();
  });

  it("a failing hot job fails alone: the others of its transaction still commit", async () => {
    const d = await open();
    const transactions: boolean[] = [];
    const writer = writerOf(d, { onTransaction: (_ms, ok) => transactions.push(ok) });
    const ok1 = writer.submitHot(hotEvents(row("a", 1)));
    const dup = writer.submitHot(hotEvents(row("a", 2), row("a", 1))); // violates UNIQUE(streamKey, seq)
    const ok2 = writer.submitHot(hotEvents(row("a", 3)));
    await expect(ok1).resolves.toMatchObject({ eventIds: [expect.any(Number)] });
    await expect(dup).rejects.toThrow(/UNIQUE/);
    await expect(ok2).resolves.toMatchObject({ eventIds: [expect.any(Number)] });
    expect(stored(d).map((r) => r.seq)).toEqual([1, 3]);
    expect(writer.stats).toMatchObject({ failures: 1, jobs: 2 });
    // The grouped attempt, then each job alone.
    expect(transactions).toEqual([false, true, false, true]);
    await writer.close();
  });

  it("flush waits for hot jobs still in their window; close finishes them and then rejects new jobs", async () => {
    const d = await open();
    const writer = writerOf(d, { hotWindowMs: 50 });
    const queued = writer.submitHot(hotEvents(row("c", 1)));
    await writer.flush();
    expect(stored(d)).toHaveLength(1);
    const last = writer.submitHot(hotEvents(row("c", 2)));
    await writer.close();
    await expect(last).resolves.toMatchObject({ eventIds: [expect.any(Number)] });
    await expect(queued).resolves.toBeDefined();
    await expect(writer.submitHot(hotEvents(row("c", 3)))).rejects.toThrow(/closed/);
    expect(stored(d)).toHaveLength(2);
  });

  it("without a hot path, submitHot rejects and nothing is written", async () => {
    const d = await open();
    const writer = new StoreWriter(d.prisma);
    expect(writer.hasHotPath).toBe(false);
    await expect(writer.submitHot(hotEvents(row("n", 1)))).rejects.toThrow(/no hot path/);
    expect(stored(d)).toHaveLength(0);
  });
});
