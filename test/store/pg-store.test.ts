/**
 * The PostgreSQL store (issue 18 item 1) on a real PostgreSQL (a throwaway cluster for this file):
 * opening and migrating, refusals that name the target without its password, the hot path's
 * handling of what PostgreSQL refuses (NUL), the hand-written SQL giving the same answers as on
 * SQLite, and a gateway process riding out a database outage.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, type OpenedPostgres } from "../../src/store/pg.js";
import { openDatabase } from "../../src/store/db.js";
import { POSTGRES, SQLITE, dialectOf } from "../../src/store/dialect.js";
import { PgHotPath } from "../../src/store/pg-hot-path.js";
import { SqliteHotPath } from "../../src/store/hot-path.js";
import { StoreWriter } from "../../src/store/writer.js";
import { EventStore } from "../../src/store/events.js";
import { aggregateUsage } from "../../src/store/usage.js";
import { loadToolCalls } from "../../src/report/load.js";
import { readMigrations } from "../../src/store/migrate.js";
import { PG_MIGRATIONS_DIR } from "../../src/store/pg-migrate.js";
import { resolveConfig } from "../../src/config.js";
import { ConfigError, StartupError } from "../../src/errors.js";
import type { OpenedStore } from "../../src/app.js";
import type { NewEvent } from "../../src/events/index.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import {
  runProspero,
  serveToken,
  startServe,
  waitForStatus,
  type ServeProcess,
} from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";

let server: TestPostgres;
const opened: OpenedStore[] = [];
const running: ServeProcess[] = [];

beforeAll(async () => {
  // Its own cluster: the tests stop and start it.
  server = await startPostgres({ own: true });
}, 120_000);
afterEach(async () => {
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  }
  for (const db of opened.splice(0)) await db.close();
});
afterAll(async () => {
  await server?.stop();
});

async function openPg(url?: string): Promise<OpenedPostgres> {
  const db = await openPostgres(url ?? (await server.createDatabase()));
  opened.push(db);
  return db;
}

/** The URL `url` with user password `password` (trust authentication never asks for it). */
function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

describe("the PostgreSQL store", () => {
  it("opens a fresh database, applies every migration once; a second open finds them applied; its SQL dialect is known through $extends", async () => {
    const url = await server.createDatabase();
    const first = await openPg(url);
    const names = readMigrations(PG_MIGRATIONS_DIR).map((m) => m.name);
    expect(first.migrations.applied).toEqual(names);
    const second = await openPg(url);
    expect(second.migrations).toEqual({ applied: [], alreadyApplied: names });
    expect(first.writable()).toBe(true);
    expect(dialectOf(first.prisma)).toBe(POSTGRES);
    // A client made by $extends is a new object: its dialect still reads as PostgreSQL's.
    const extended = first.prisma.$extends({});
    expect(dialectOf(extended as unknown as typeof first.prisma)).toBe(POSTGRES);
    const sqlite = await openDatabase(tmpDir());
    opened.push(sqlite);
    expect(dialectOf(sqlite.prisma.$extends({}) as unknown as typeof sqlite.prisma)).toBe(SQLITE);
    // The audit log is append-only here too (the hand-written trigger migration).
    await first.prisma.auditEntry.create({
      data: { ts: new Date(), tokenName: "t", role: "admin", operation: "op", result: "ok", denied: false },
    });
    await expect(first.pool.query(`UPDATE "AuditEntry" SET "result" = 'tampered'`)).rejects.toThrow(
      /append-only/,
    );
    expect((await first.prisma.auditEntry.findFirstOrThrow()).result).toBe("ok");
  });

  it("refuses a server it cannot reach, a database that does not exist, and unknown migrations: a StartupError naming the target without its password", async () => {
    const secret = "hunter2-not-for-logs";
    const closed = `postgresql://prospero:${secret}@127.0.0.1:1/prospero`;
    const err1 = await openPostgres(closed).catch((e: unknown) => e);
    expect(err1).toBeInstanceOf(StartupError);
    expect((err1 as Error).message).toMatch(
      /cannot connect to PostgreSQL at postgresql:\/\/prospero:\*\*\*@127\.0\.0\.1:1\/prospero: .*ECONNREFUSED/,
    );
    expect((err1 as Error).message).not.toContain(secret);

    const good = new URL(await server.createDatabase());
    good.pathname = "/no_such_database";
    const err2 = await openPostgres(withPassword(good.toString(), secret)).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(StartupError);
    expect((err2 as Error).message).toMatch(/no_such_database.*does not exist/);
    expect((err2 as Error).message).not.toContain(secret);

    // A database migrated by a build that knows one more migration.
    const url = await server.createDatabase();
    const db = await openPg(url);
    await db.pool.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ('x', 'abc', now(), '29990101000000_from_the_future', now(), 1)`,
    );
    const tables = (
      await db.pool.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)
    ).rows[0] as { n: number };
    const err3 = await openPostgres(url).catch((e: unknown) => e);
    expect(err3).toBeInstanceOf(StartupError);
    expect((err3 as Error).message).toMatch(
      /29990101000000_from_the_future.*does not know.*nothing was changed/,
    );
    const after = (
      await db.pool.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)
    ).rows[0] as { n: number };
    expect(after.n).toBe(tables.n);
  });

  it("--database-url / PROSPERO_DATABASE_URL: a malformed value is a ConfigError that never echoes its password", () => {
    const secret = "s3cr3t-pw";
    for (const bad of [
      `mysql://u:${secret}@db/prospero`,
      `postgres://u:${secret}@db`,
      `postgres://u:${secret}@/prospero`,
      `not a url ${secret}`,
      // No `//`: WHATWG URL reads these as paths, with the password in them.
      `postgres:u:${secret}@db/prospero`,
      `postgresql:/u:${secret}@db:5432/prospero`,
      // Trimmed by WHATWG URL but not by node-postgres; a malformed %-escape.
      ` postgres://u:${secret}@db/prospero`,
      `postgres://u:${secret}@db/%zz`,
    ]) {
      let err: unknown;
      try {
        resolveConfig({}, { PROSPERO_DATABASE_URL: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/--database-url \/ PROSPERO_DATABASE_URL/);
      expect((err as Error).message).not.toContain(secret);
    }
    expect(resolveConfig({ databaseUrl: "postgres://u@db.example:5433/prospero" }, {}).databaseUrl).toBe(
      "postgres://u@db.example:5433/prospero",
    );
    expect(resolveConfig({}, {}).databaseUrl).toBeNull();
  });

  it("the hot path stores a frame with NUL byte for byte and an event whose payload holds NUL, in one transaction", async () => {
    const db = await openPg();
    await db.prisma.workspace.create({ data: { name: "w", root: "/srv/w", env: {} } });
    await db.prisma.agent.create({
      data: { id: "a1", workspace: "w", name: "a1", status: "running", spec: {}, startedAt: new Date() },
    });
    const hot = new PgHotPath(db.pool);
    const line = '{"type":"text","text":"a\\u0000b"}\u0000tail';
    const [res] = await hot.commit([
      {
        frames: [{ agentId: "a1", line: 0, text: line, bytes: null, tsMs: 1_000 }],
        events: [
          {
            streamKey: "a1",
            seq: 1,
            tsMs: 1_000,
            workspace: "w",
            agentId: "a1",
            kind: "text",
            payload: JSON.stringify({ text: "a\u0000b \\u0000 kept", cut: "x\ud83d", whole: "😀" }),
          },
        ],
        heads: [{ streamKey: "a1", lastSeq: 1 }],
      },
    ]);
    expect(res!.eventIds).toHaveLength(1);
    const frame = await db.prisma.frame.findUniqueOrThrow({
      where: { agentId_line: { agentId: "a1", line: 0 } },
    });
    expect(Buffer.from(frame.bytes!).equals(Buffer.from(line, "utf8"))).toBe(true);
    expect(frame.text).toBe(line.replaceAll("\u0000", "\uFFFD"));
    const event = await db.prisma.event.findUniqueOrThrow({ where: { id: res!.eventIds[0]! } });
    // NUL becomes U+FFFD; an escaped backslash before "u0000" is text, kept as it was.
    expect(event.payload).toEqual({ text: "a\uFFFDb \\u0000 kept", cut: "x\uFFFD", whole: "😀" });
    expect(event.ts.getTime()).toBe(1_000);
    // A failing job rolls back the whole call: the frame of the first job is not stored either.
    await expect(
      hot.commit([
        { frames: [{ agentId: "a1", line: 1, text: "ok", bytes: null, tsMs: 2_000 }] },
        { frames: [{ agentId: "a1", line: 0, text: "duplicate", bytes: null, tsMs: 2_000 }] },
      ]),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.prisma.frame.count()).toBe(1);
  });

  it("a write through Prisma holding NUL (a prompt, a label, a JSON value, a raw parameter) is stored with U+FFFD instead of failing", async () => {
    const db = await openPg();
    await db.prisma.workspace.create({ data: { name: "w", root: "/srv/w", env: {} } });
    await db.prisma.agent.create({
      data: {
        id: "a\u0000",
        workspace: "w",
        name: "la\u0000bel",
        status: "running",
        spec: { prompt: "p\u0000q", nested: [{ x: "\u0000" }], n: 1 },
        startedAt: new Date(5),
      },
    });
    const row = await db.prisma.agent.findUniqueOrThrow({ where: { id: "a\u0000" } });
    expect(row).toMatchObject({
      id: "a\uFFFD",
      name: "la\uFFFDbel",
      spec: { prompt: "p\uFFFDq", nested: [{ x: "\uFFFD" }], n: 1 },
    });
    expect(row.startedAt.getTime()).toBe(5);
    const found = await db.prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT "id" FROM "Agent" WHERE "name" = $1`,
      "la\u0000bel",
    );
    expect(found).toEqual([{ id: "a\uFFFD" }]);
    // A lone UTF-16 surrogate (text cut inside an emoji) is refused by jsonb too: U+FFFD.
    await db.prisma.agent.update({
      where: { id: "a\uFFFD" },
      data: { spec: { prompt: "cut \ud83d", whole: "😀" }, name: "\udc00x" },
    });
    expect(await db.prisma.agent.findUniqueOrThrow({ where: { id: "a\uFFFD" } })).toMatchObject({
      spec: { prompt: "cut \uFFFD", whole: "😀" },
      name: "\uFFFDx",
    });
  });

  it("the same events give the same usage sums and tool-call counts on SQLite and on PostgreSQL", async () => {
    const stores = [await openDatabase(tmpDir()), await openPg()];
    opened.push(stores[0]!);
    const day1 = Date.UTC(2026, 10, 1, 23, 59, 59, 999);
    const day2 = Date.UTC(2026, 10, 2, 0, 0, 0, 1);
    const events: NewEvent[] = [];
    const turn = (
      agentId: string,
      ws: string,
      tsMs: number,
      model: string | null,
      input: number,
      cost: number | null,
    ) =>
      events.push({
        kind: "turn_completed",
        workspace: ws,
        agentId,
        tsMs,
        payload: {
          turnIndex: 0,
          stopReason: "end_turn",
          usage: { input, output: 7, cacheRead: 3, cacheCreation: 1 },
          ttftMs: null,
          tbtMs: null,
          model,
          estimatedCostUsd: cost,
        },
      });
    turn("a", "w", day1, "m1", 100, 0.25);
    turn("a", "w", day2, "m1", 50, null);
    turn("b", "v", day2, null, 9, 0.5);
    const tool = (agentId: string, name: string, ok: boolean) =>
      events.push({
        kind: "tool_finished",
        workspace: "w",
        agentId,
        tsMs: day2,
        payload: {
          toolUseId: `${name}-${events.length}`,
          name,
          ok,
          input: {},
          inputRaw: "{}",
          resultText: "",
          truncated: false,
          durationMs: 1,
          turnIndex: 0,
        },
      });
    for (const [name, ok] of [
      ["Read", true],
      ["Read", false],
      ["Bash", true],
      ["Read", true],
    ] as const)
      tool("a", name, ok);
    events.push({
      kind: "status_changed",
      workspace: "w",
      agentId: "a",
      tsMs: day2,
      payload: { from: "running", to: "done" },
    });
    const answers: unknown[] = [];
    for (const db of stores) {
      for (const w of ["w", "v"])
        await db.prisma.workspace.create({ data: { name: w, root: `/srv/${w}`, env: {} } });
      for (const [id, w] of [
        ["a", "w"],
        ["b", "v"],
      ] as const)
        await db.prisma.agent.create({
          data: { id, workspace: w, name: id, status: "done", spec: {}, startedAt: new Date(0), model: "m1" },
        });
      const hotPath = db.dialect === "sqlite" ? new SqliteHotPath(db.raw) : new PgHotPath(db.pool);
      const store = new EventStore(db.prisma, new StoreWriter(db.prisma, undefined, undefined, { hotPath }), {
        publish: () => {},
      });
      await store.append(events);
      const window = { since: new Date(Date.UTC(2026, 10, 1)), until: new Date(Date.UTC(2026, 10, 3)) };
      answers.push({
        byDay: await aggregateUsage(db.prisma, { ...window, groupBy: ["workspace", "model", "day"] }),
        all: await aggregateUsage(db.prisma, { ...window, groupBy: [] }),
        onlyV: await aggregateUsage(db.prisma, { ...window, groupBy: ["workspace"], workspaces: ["v"] }),
        tools: await loadToolCalls(db.prisma, "a"),
      });
    }
    expect(answers[1]).toEqual(answers[0]);
    // And they are the right answers, not two equal wrong ones.
    expect(answers[0]).toMatchObject({
      all: [
        {
          inputTokens: 159,
          outputTokens: 21,
          turns: 3,
          unpricedTurns: 1,
          estimatedCostUsd: 0.75,
          outcomes: { done: 1 },
        },
      ],
      onlyV: [{ workspace: "v", inputTokens: 9 }],
      tools: {
        toolCallCount: 4,
        toolFailureCount: 1,
        toolCalls: [
          { name: "Read", calls: 3, failures: 1 },
          { name: "Bash", calls: 1, failures: 0 },
        ],
      },
    });
    // UTC days, split at midnight to the ms (rows ordered by workspace, model, day).
    const days = (answers[0] as { byDay: { workspace: string; day: string }[] }).byDay.map(
      (r) => `${r.workspace} ${r.day}`,
    );
    expect(days).toEqual(["v 2026-11-02", "w 2026-11-01", "w 2026-11-02"]);
  });

  it("one gateway per database: a second is refused at start naming the first, which goes on; once the first is SIGKILLed a new one starts at once", async () => {
    const url = await server.createDatabase();
    const first = await startServe(["--data-dir", path.join(tmpDir(), "a"), "--no-autostart"], {
      PROSPERO_DATABASE_URL: url,
    });
    running.push(first);
    await waitForStatus(`${first.url}/readyz`, 200);
    const second = await runProspero(
      ["serve", "--port", "0", "--data-dir", path.join(tmpDir(), "b"), "--no-autostart"],
      {
        PROSPERO_DATABASE_URL: url,
      },
    );
    expect(second.code).toBe(1);
    // The holder as PostgreSQL keeps its application_name (63 bytes at most).
    const holder = `prospero gateway on ${os.hostname()} (pid ${first.child.pid})`.slice(0, 63);
    expect(second.stderr).toContain(`another gateway (${holder}) is serving the database`);
    expect(second.stderr).toMatch(/one gateway per database/);
    // Refused before migrating or writing anything: the first goes on serving.
    await waitForStatus(`${first.url}/readyz`, 200);
    first.child.kill("SIGKILL");
    await first.exited;
    const third = await startServe(["--data-dir", path.join(tmpDir(), "c"), "--no-autostart"], {
      PROSPERO_DATABASE_URL: url,
    });
    running.push(third);
    await waitForStatus(`${third.url}/readyz`, 200);
  });

  it("a gateway on PostgreSQL rides out a database outage: not ready while it is down, ready again and writing once it is back, its password never logged", async () => {
    const secret = "pw-never-in-logs";
    const url = withPassword(await server.createDatabase(), secret);
    const data = path.join(tmpDir(), "data");
    const p = await startServe(["--data-dir", data, "--no-autostart"], { PROSPERO_DATABASE_URL: url });
    running.push(p);
    const ready = await waitForStatus(`${p.url}/readyz`, 200);
    expect(await ready.json()).toMatchObject({ ready: true, migrationsApplied: true, storeWritable: true });
    // The store is PostgreSQL: no SQLite file in the data dir.
    expect(fs.existsSync(path.join(data, "prospero.db"))).toBe(false);
    const token = await serveToken(p);
    const createToken = async (name: string) => {
      const res = await fetch(`${p.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query: `mutation($n: String!) { createToken(input: { name: $n, role: VIEWER }) { __typename } }`,
          variables: { n: name },
        }),
      });
      return (await res.json()) as { data?: { createToken: { __typename: string } }; errors?: unknown[] };
    };
    expect((await createToken("before")).data?.createToken.__typename).toBe("CreateTokenPayload");

    await server.halt();
    try {
      await waitForStatus(`${p.url}/readyz`, 503, 15_000);
      const during = await createToken("during");
      expect(during.data?.createToken.__typename).not.toBe("CreateTokenPayload");
      expect(p.child.exitCode).toBeNull();
    } finally {
      await server.start();
    }
    await waitForStatus(`${p.url}/readyz`, 200, 30_000);
    // The pool reconnects by itself: writes work again without a restart.
    let after: Awaited<ReturnType<typeof createToken>> | undefined;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      after = await createToken("after");
      if (after.data?.createToken.__typename === "CreateTokenPayload") break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(after?.data?.createToken.__typename).toBe("CreateTokenPayload");
    expect(p.child.exitCode).toBeNull();
    expect(p.stderr()).toMatch(/"msg":"store open"/);
    expect(p.stderr()).toContain(":***@localhost/");
    expect(p.stderr()).not.toContain(secret);
  });
});
