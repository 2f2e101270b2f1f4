/**
 * The acceptance run: a 5,000-frame run with three socket drops and a gateway SIGKILL in
 * the middle is stored line-for-line equal to its stdout.ndjson — with the real `prospero serve`
 * process as the gateway and the caliband double in this process.
 */
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { CalibandClient } from "../../src/caliband/client.js";
import { openDatabase, DB_FILE } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { SqliteHotPath } from "../../src/store/hot-path.js";
import { WorkspaceRegistry } from "../../src/fleet/registry.js";
import { startDaemon, waitFor, type DaemonFixture } from "../helpers/fleet-harness.js";
import { startServe, type ServeProcess } from "../helpers/serve-process.js";
import { pacedScript } from "../helpers/paced-run.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("gateway SIGKILL mid-run", () => {
  it("5,000 frames, three socket drops, SIGKILL and restart: stored line-for-line equal to stdout.ndjson", async () => {
    const d: DaemonFixture = await startDaemon(pacedScript(2, "t"));
    cleanups.push(() => d.close());
    const dataDir = path.join(d.ws.tmp, "gw");
    // Register the workspace in the gateway's store before it starts.
    const db = await openDatabase(dataDir);
    const writer = new StoreWriter(db.prisma, undefined, undefined, { hotPath: new SqliteHotPath(db.raw) });
    await new WorkspaceRegistry(db.prisma, writer).add({ name: "demo", root: d.ws.root });
    await writer.close();
    await db.close();

    const env = { CALIBAN_DAEMON_RUNTIME_DIR: d.ws.runtime };
    const args = ["--data-dir", dataDir, "--no-autostart", "--poll-interval-ms", "100"];
    const serve = async (): Promise<ServeProcess> => {
      const p = await startServe(args, env);
      cleanups.push(async () => {
        if (p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill("SIGKILL");
          await p.exited;
        }
      });
      return p;
    };
    const reader = new BetterSqlite3(path.join(dataDir, DB_FILE), { readonly: true, timeout: 5000 });
    cleanups.push(async () => {
      reader.close();
    });
    const stored = (id: string) =>
      (reader.prepare(`SELECT COUNT(*) AS n FROM "Frame" WHERE agentId = ?`).get(id) as { n: number }).n;

    const first = await serve();
    const client = new CalibandClient({ scheme: "unix", path: d.daemon.socketPath });
    const { id } = await client.spawn({ initial_prompt: "long paced=5000" });
    const worker = () => d.daemon.agent(id)!;

    await waitFor(() => worker().linesWritten >= 1000, 30_000, "1000 lines written");
    worker().dropConnections();
    await waitFor(() => stored(id) >= 1500, 30_000, "1500 lines stored");
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    await waitFor(() => worker().linesWritten >= 2500, 30_000, "2500 lines written");
    worker().dropConnections();
    const second = await serve();
    await waitFor(() => worker().linesWritten >= 4000, 30_000, "4000 lines written");
    worker().dropConnections();

    await waitFor(
      () =>
        (
          reader.prepare(`SELECT finished FROM "IngestCursor" WHERE agentId = ?`).get(id) as
            { finished: number } | undefined
        )?.finished === 1,
      60_000,
      "ingest finished",
    );
    // The run's end (its status_changed and the row's status) is recorded after the ingest
    // finishes, in its own transaction: wait for it before counting the stream's events.
    await waitFor(
      () =>
        (reader.prepare(`SELECT status FROM "Agent" WHERE id = ?`).get(id) as { status: string } | undefined)
          ?.status === "done",
      60_000,
      "run recorded done",
    );
    const frames = reader
      .prepare(`SELECT line, text FROM "Frame" WHERE agentId = ? ORDER BY line`)
      .all(id) as { line: number; text: string }[];
    const file = fs.readFileSync(path.join(d.daemon.record(id)!.session_dir, "stdout.ndjson"), "utf8");
    expect(frames.length).toBe(5003);
    expect(frames.map((f) => f.line)).toEqual(frames.map((_, i) => i));
    expect(frames.map((f) => `${f.text}\n`).join("")).toBe(file);

    const kinds = (
      reader.prepare(`SELECT kind FROM "Event" WHERE streamKey = ? ORDER BY seq`).all(id) as {
        kind: string;
      }[]
    ).map((r) => r.kind);
    expect(kinds.filter((k) => k === "agent_discovered")).toHaveLength(1);
    expect(kinds.filter((k) => k === "turn_started")).toHaveLength(1);
    expect(kinds.filter((k) => k === "agent_finished")).toHaveLength(1);
    expect(kinds.filter((k) => k === "status_changed")).toHaveLength(1);
    const texts = (
      reader
        .prepare(`SELECT payload FROM "Event" WHERE streamKey = ? AND kind = 'output' ORDER BY seq`)
        .all(id) as { payload: string }[]
    )
      .map((r) => (JSON.parse(r.payload) as { text: string }).text)
      .join("");
    expect(texts).toBe(Array.from({ length: 5000 }, (_, i) => `t${i} `).join(""));
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 120_000);
});
