/**
 * Faults of the PostgreSQL store as processes (issue 18, "Bad input and faults" and item 4 on one
 * replica): the real `prospero serve` on `--database-url` ingests a 5,000-frame run of the caliband
 * double while the database is stopped and started under it, then the gateway is SIGKILLed and
 * restarted; what is stored equals the worker's stdout.ndjson line for line, the run's stream has
 * gap-free seqs from 1 and each lifecycle event once.
 */
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CalibandClient } from "../../src/caliband/client.js";
import { openPostgres } from "../../src/store/pg.js";
import { StoreWriter } from "../../src/store/writer.js";
import { PgHotPath } from "../../src/store/pg-hot-path.js";
import { WorkspaceRegistry } from "../../src/fleet/registry.js";
import { startDaemon, waitFor, type DaemonFixture } from "../helpers/fleet-harness.js";
import { startServe, type ServeProcess } from "../helpers/serve-process.js";
import { pacedScript } from "../helpers/paced-run.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";

let server: TestPostgres;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  // Its own cluster: the tests stop and start it.
  server = await startPostgres({ own: true });
}, 120_000);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await server?.stop();
});

describe("the PostgreSQL store under faults", () => {
  it("5,000 frames; the database stopped and started mid-run, then the gateway SIGKILLed and restarted: stored line-for-line equal to stdout.ndjson, seqs gap-free", async () => {
    const d: DaemonFixture = await startDaemon(pacedScript(2, "t"));
    cleanups.push(() => d.close());
    const url = await server.createDatabase();
    // Register the workspace in the gateway's store before it starts.
    const db = await openPostgres(url);
    const writer = new StoreWriter(db.prisma, undefined, undefined, { hotPath: new PgHotPath(db.pool) });
    await new WorkspaceRegistry(db.prisma, writer).add({ name: "demo", root: d.ws.root });
    await writer.close();
    await db.close();

    const dataDir = path.join(d.ws.tmp, "gw");
    const env = { CALIBAN_DAEMON_RUNTIME_DIR: d.ws.runtime, PROSPERO_DATABASE_URL: url };
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
    // The test's own reader; reconnected after the outage.
    let reader: pg.Client | null = null;
    const query = async <T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> => {
      for (;;) {
        try {
          if (reader === null) {
            const c = new pg.Client({ connectionString: url });
            c.on("error", () => {});
            await c.connect();
            reader = c;
          }
          return (await reader.query<T>(text, values)).rows;
        } catch (err) {
          const dead = reader;
          reader = null;
          await dead?.end().catch(() => undefined);
          if (!/ECONNREFUSED|ENOENT|terminat|shut|closed|starting up|Connection/i.test(String(err)))
            throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    cleanups.push(async () => {
      await reader?.end().catch(() => undefined);
    });
    const stored = async (id: string) =>
      (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "Frame" WHERE "agentId" = $1`, [id]))[0]!.n;

    const first = await serve();
    const client = new CalibandClient({ scheme: "unix", path: d.daemon.socketPath });
    const { id } = await client.spawn({ initial_prompt: "long paced=5000" });
    const worker = () => d.daemon.agent(id)!;

    await waitFor(async () => (await stored(id)) >= 800, 30_000, "800 lines stored");
    // The database goes away while the worker keeps writing, and comes back.
    await server.halt();
    const linesAtHalt = worker().linesWritten;
    await waitFor(
      () => worker().linesWritten >= linesAtHalt + 500,
      30_000,
      "500 lines written during the outage",
    );
    expect(first.child.exitCode).toBeNull();
    await server.start();
    await waitFor(async () => (await stored(id)) >= linesAtHalt + 500, 60_000, "the outage's lines stored");

    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");
    await waitFor(() => worker().linesWritten >= 3500, 30_000, "3500 lines written");
    const second = await serve();

    await waitFor(
      async () =>
        (
          await query<{ finished: boolean }>(`SELECT finished FROM "IngestCursor" WHERE "agentId" = $1`, [id])
        )[0]?.finished === true,
      90_000,
      "ingest finished",
    );
    await waitFor(
      async () =>
        (await query<{ status: string }>(`SELECT status FROM "Agent" WHERE id = $1`, [id]))[0]?.status ===
        "done",
      60_000,
      "run recorded done",
    );
    const frames = await query<{ line: number; text: string; bytes: Buffer | null }>(
      `SELECT line, text, bytes FROM "Frame" WHERE "agentId" = $1 ORDER BY line`,
      [id],
    );
    const file = fs.readFileSync(path.join(d.daemon.record(id)!.session_dir, "stdout.ndjson"));
    expect(frames.length).toBe(5003);
    expect(frames.map((f) => f.line)).toEqual(frames.map((_, i) => i));
    expect(
      Buffer.concat(
        frames.map((f) => Buffer.concat([f.bytes ?? Buffer.from(f.text, "utf8"), Buffer.from("\n")])),
      ).equals(file),
    ).toBe(true);

    const events = await query<{ seq: number; kind: string; payload: { text?: string } }>(
      `SELECT seq, kind, payload FROM "Event" WHERE "streamKey" = $1 ORDER BY seq`,
      [id],
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const kinds = events.map((e) => e.kind);
    expect(kinds.filter((k) => k === "agent_discovered")).toHaveLength(1);
    expect(kinds.filter((k) => k === "turn_started")).toHaveLength(1);
    expect(kinds.filter((k) => k === "agent_finished")).toHaveLength(1);
    expect(kinds.filter((k) => k === "status_changed")).toHaveLength(1);
    const texts = events
      .filter((e) => e.kind === "output")
      .map((e) => e.payload.text ?? "")
      .join("");
    expect(texts).toBe(Array.from({ length: 5000 }, (_, i) => `t${i} `).join(""));
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 240_000);
});
