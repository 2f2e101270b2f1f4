/**
 * File-mode ingest commits a read in slices of at most MAX_COMMIT_LINES lines (issue 17): the hot
 * path commits synchronously, so one transaction per 1 MiB read of short lines would block the
 * event loop for hundreds of ms. Each slice carries the offset after its own last line, so the
 * stored frames still equal the file line for line and a restart resumes where the last slice
 * ended.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { IngestTask, MAX_COMMIT_LINES, MAX_READ_BYTES } from "../../src/fleet/ingest.js";
import { newFleetMetrics } from "../../src/fleet/metrics.js";
import { DEFAULT_PRICES } from "../../src/fleet/pricing.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { startFleet } from "../helpers/fleet-harness.js";
import { onCleanup } from "../helpers/cleanup.js";
import { sqliteOf } from "../helpers/store.js";

describe("file-mode ingest commit slices", () => {
  it("a read of many short lines commits in slices of at most MAX_COMMIT_LINES, each with its own offset", async () => {
    const runtime = tmpDir("rt-");
    const h = await startFleet({ runtimeDir: runtime, pollIntervalMs: 3_600_000 });
    onCleanup(() => h.close());
    await h.db.prisma.workspace.create({ data: { name: "demo", root: tmpDir(), env: {} } });
    const agentId = "0123456789ab";
    await h.db.prisma.agent.create({
      data: {
        id: agentId,
        workspace: "demo",
        name: "slices",
        status: "done",
        spec: {},
        startedAt: new Date(),
      },
    });
    // 3.5 slices of short lines, all within one read.
    const lines = [
      JSON.stringify({ type: "TurnStart", turn_index: 0, message_id: "m", model: "claude-sonnet-4-5" }),
    ];
    const count = Math.floor(3.5 * MAX_COMMIT_LINES);
    for (let i = 0; i < count; i++) {
      lines.push(
        JSON.stringify({
          type: "AssistantTextDelta",
          turn_index: 0,
          content_block_index: i % 2,
          text: `l${i}`,
        }),
      );
    }
    const sessionDir = tmpDir();
    const file = path.join(sessionDir, "stdout.ndjson");
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    expect(fs.statSync(file).size).toBeLessThan(MAX_READ_BYTES);

    // Record the lines and the stored offset of each commit.
    const metrics = newFleetMetrics();
    const perCommit: { lines: number; offset: number | undefined }[] = [];
    let total = 0;
    Object.defineProperty(metrics, "frames_ingested_total", {
      get: () => total,
      set: (v: number) => {
        const row = sqliteOf(h.db)
          .raw.prepare(`SELECT "byteOffset" FROM "IngestCursor" WHERE "agentId" = ?`)
          .pluck()
          .get(agentId) as number | undefined;
        // (The finishing commit stores no line.)
        if (v > total) perCommit.push({ lines: v - total, offset: row });
        total = v;
      },
    });
    const task = await IngestTask.start(
      {
        agentId,
        workspace: "demo",
        sessionDir,
        endpoint: { scheme: "unix", path: path.join(sessionDir, "gone.sock") },
        transport: {},
        specModel: null,
      },
      {
        db: h.db.prisma,
        store: h.store,
        prices: DEFAULT_PRICES,
        metrics,
        log: silentLogger,
        tailIntervalMs: 20,
      },
    );
    await task.finish(10_000);
    expect(task.isFinished).toBe(true);
    const frames = await h.db.prisma.frame.findMany({ where: { agentId }, orderBy: { line: "asc" } });
    expect(frames.map((f) => f.text)).toEqual(lines);
    // The read of the whole file went in 4 commits: 3 full slices and the rest.
    expect(perCommit.map((c) => c.lines)).toEqual([
      MAX_COMMIT_LINES,
      MAX_COMMIT_LINES,
      MAX_COMMIT_LINES,
      lines.length - 3 * MAX_COMMIT_LINES,
    ]);
    // Each commit stored the offset just after its own last line.
    let end = 0;
    const offsets: number[] = [];
    let n = 0;
    for (const c of perCommit) {
      for (let i = 0; i < c.lines; i++) end += Buffer.byteLength(lines[n++]!) + 1;
      offsets.push(end);
    }
    expect(perCommit.map((c) => c.offset)).toEqual(offsets);
    expect(offsets.at(-1)).toBe(fs.statSync(file).size);
  }, 60_000);
});
