/**
 * The chaos run of issue 12 ("Tests"): several agents streaming, their daemon SIGKILLed mid-run,
 * then the gateway SIGKILLed and restarted — all real processes (`prospero serve`, the autostarted
 * caliband-sim and its worker processes). Afterwards every agent's stored frames equal its
 * stdout.ndjson byte for byte, each run is recorded with the outcome it reached, and no lifecycle
 * event is duplicated.
 */
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { CalibandClient } from "../../src/caliband/client.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { openDatabase, DB_FILE } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { SqliteHotPath } from "../../src/store/hot-path.js";
import { WorkspaceRegistry } from "../../src/fleet/registry.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { startServe, type ServeProcess } from "../helpers/serve-process.js";
import { makeTempWorkspace } from "../support/temp-workspace.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");
const AGENTS = 3;
const FRAMES = 3_000;

describe("chaos: daemon SIGKILL mid-run, then gateway SIGKILL and restart", () => {
  it(`${AGENTS} agents × ${FRAMES} frames: stored frames equal every stdout.ndjson byte for byte`, async () => {
    const ws = makeTempWorkspace();
    onCleanup(() => ws.cleanup());
    const root = fs.realpathSync(ws.root);
    const dataDir = path.join(ws.tmp, "gw");
    const db = await openDatabase(dataDir);
    const writer = new StoreWriter(db.prisma, undefined, undefined, { hotPath: new SqliteHotPath(db.raw) });
    await new WorkspaceRegistry(db.prisma, writer).add({ name: "demo", root });
    await writer.close();
    await db.close();

    const env = {
      CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime,
      CALIBAN_SIM_DATA_BASE: path.join(ws.tmp, "sessions"),
      CALIBAN_SIM_FRAME_DELAY_MS: "1",
    };
    const args = ["--data-dir", dataDir, "--caliband-bin", SIM, "--poll-interval-ms", "200"];
    const serve = async (): Promise<ServeProcess> => {
      const p = await startServe(args, env);
      onCleanup(async () => {
        if (p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill("SIGKILL");
          await p.exited;
        }
      });
      return p;
    };
    const daemon = new CalibandClient({ scheme: "unix", path: controlSocketPath(root, env) });
    /** Pid of the daemon answering now (each is its own process group, with its workers). */
    const daemonPid = async (): Promise<number | null> => {
      try {
        return (await daemon.status({ deadlineMs: 1_000 })).pid;
      } catch {
        return null;
      }
    };
    const groups = new Set<number>();
    onCleanup(() => {
      for (const g of groups) {
        try {
          process.kill(-g, "SIGKILL");
        } catch {
          // gone
        }
      }
    });

    const first = await serve();
    const pid1 = await waitFor(daemonPid, 30_000, "the autostarted daemon");
    groups.add(pid1);
    const ids: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      ids.push((await daemon.spawn({ initial_prompt: `chaos ${i} fake:frames=${FRAMES} fake:pace=2` })).id);
    }
    const reader = new BetterSqlite3(path.join(dataDir, DB_FILE), { readonly: true, timeout: 5000 });
    onCleanup(() => {
      reader.close();
    });
    const stored = (id: string) =>
      (reader.prepare(`SELECT COUNT(*) AS n FROM "Frame" WHERE agentId = ?`).get(id) as { n: number }).n;
    for (const id of ids) await waitFor(() => stored(id) >= 200, 30_000, `200 frames of ${id} stored`);

    process.kill(pid1, "SIGKILL"); // the daemon; its worker processes stream on
    const pid2 = await waitFor(
      async () => {
        const p = await daemonPid();
        return p !== null && p !== pid1 ? p : null;
      },
      30_000,
      "a new daemon autostarted by the gateway",
    );
    groups.add(pid2);
    const midway = ids.map(stored);
    const sessionDirs = new Map((await daemon.list()).map((r) => [r.id, r.session_dir]));
    const written = (id: string) =>
      fs.readFileSync(path.join(sessionDirs.get(id)!, "stdout.ndjson"), "utf8").split("\n").length - 1;
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");
    // Still mid-run: the workers have more to write than they had when the gateway died.
    expect(ids.some((id) => written(id) < FRAMES + 10)).toBe(true);
    await new Promise((r) => setTimeout(r, 500)); // the workers write on while no gateway reads
    const second = await serve();

    const row = (id: string) =>
      reader
        .prepare(
          `SELECT a.status, a.outcome, a.turns, c.finished FROM "Agent" a JOIN "IngestCursor" c ON c.agentId = a.id WHERE a.id = ?`,
        )
        .get(id) as { status: string; outcome: string | null; turns: number; finished: number } | undefined;
    for (const id of ids) {
      await waitFor(
        () => row(id)?.status === "done" && row(id)?.finished === 1,
        60_000,
        `${id} recorded done`,
      );
    }
    const records = await daemon.list();
    for (const [i, id] of ids.entries()) {
      const rec = records.find((r) => r.id === id)!;
      expect(rec.rawStatus).toBe("crashed"); // the restarted daemon's word; the run reached EndOfTurn
      const file = fs.readFileSync(path.join(rec.session_dir, "stdout.ndjson"));
      const frames = reader
        .prepare(`SELECT line, text, bytes FROM "Frame" WHERE agentId = ? ORDER BY line`)
        .all(id) as { line: number; text: string; bytes: Buffer | null }[];
      expect(frames.map((f) => f.line)).toEqual(frames.map((_, j) => j));
      expect(frames.length).toBe(FRAMES + 10);
      expect(frames.length).toBeGreaterThan(midway[i]!);
      const bytes = Buffer.concat(
        frames.flatMap((f) => [f.bytes ?? Buffer.from(f.text, "utf8"), Buffer.from("\n")]),
      );
      expect(bytes.equals(file)).toBe(true);
      expect(row(id)).toMatchObject({ outcome: "EndOfTurn", turns: 2 });
      const kinds = (
        reader.prepare(`SELECT kind FROM "Event" WHERE streamKey = ? ORDER BY seq`).all(id) as {
          kind: string;
        }[]
      ).map((r) => r.kind);
      expect(kinds.filter((k) => k === "agent_discovered")).toHaveLength(1);
      expect(kinds.filter((k) => k === "agent_finished")).toHaveLength(1);
      expect(kinds.filter((k) => k === "status_changed")).toHaveLength(1);
      expect(kinds).not.toContain("ingest_gap");
      expect(kinds.at(-1)).toBe("status_changed");
    }
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);
});
