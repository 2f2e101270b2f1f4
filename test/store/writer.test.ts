import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type OpenedDatabase } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { tmpDir } from "../helpers/tmp.js";

let db: OpenedDatabase | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

const ev = (streamKey: string, seq: number) => ({
  streamKey,
  seq,
  ts: new Date(),
  workspace: "w",
  agentId: null,
  kind: "test",
  payload: { seq },
});

describe("StoreWriter", () => {
  it("group-commits concurrent jobs in few transactions and resolves each with its own results", async () => {
    db = await openDatabase(tmpDir());
    const writer = new StoreWriter(db.prisma);
    const jobs = Array.from({ length: 200 }, (_, i) =>
      writer.submit((p) => [p.event.create({ data: ev("s", i + 1) })]),
    );
    const results = await Promise.all(jobs);
    expect(results.map((r) => (r[0] as { seq: number }).seq)).toEqual(
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
    expect(await db.prisma.event.count()).toBe(200);
    expect(writer.stats.jobs).toBe(200);
    expect(writer.stats.batches).toBeLessThan(20);
  });

  it("a failing job fails alone: the others in its batch still commit", async () => {
    db = await openDatabase(tmpDir());
    const writer = new StoreWriter(db.prisma);
    const ok1 = writer.submit((p) => [p.event.create({ data: ev("a", 1) })]);
    const dup = writer.submit((p) => [p.event.create({ data: ev("a", 1) })]); // violates UNIQUE(streamKey, seq)
    const ok2 = writer.submit((p) => [p.event.create({ data: ev("a", 2) })]);
    await expect(ok1).resolves.toHaveLength(1);
    await expect(dup).rejects.toThrow();
    await expect(ok2).resolves.toHaveLength(1);
    expect(await db.prisma.event.count()).toBe(2);
    expect(writer.stats.failures).toBe(1);
  });

  it("rejects jobs after close and finishes queued ones first", async () => {
    db = await openDatabase(tmpDir());
    const writer = new StoreWriter(db.prisma);
    const queued = writer.submit((p) => [p.event.create({ data: ev("c", 1) })]);
    await writer.close();
    await expect(queued).resolves.toHaveLength(1);
    await expect(writer.submit((p) => [p.event.create({ data: ev("c", 2) })])).rejects.toThrow(/closed/);
  });
});
