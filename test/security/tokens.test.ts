/**
 * API token lifecycle (issue 11 item 3) through the real `prospero` binary and the API: the
 * secret shown once and stored only as a hash, listing without secrets, reserved and duplicate
 * names, revocation closing open WebSocket subscriptions and SSE streams at once, expiry closing
 * them within one sweep, the audit log through the CLI, denials exiting 6, and the bootstrap
 * admin token of a real `prospero serve` process.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { sqliteOf } from "../helpers/store.js";
import { waitFor } from "../helpers/fleet-harness.js";
import {
  PROSPERO_BIN,
  serveToken,
  startServe,
  waitForStatus,
  type ServeProcess,
} from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";
import { cli } from "../cli/run-cli.js";
import { spawnVia } from "./support.js";

const SECRET_LINE = /^prospero_[A-Za-z0-9_-]{43}\n$/;

/** POST a GraphQL operation as `token` and return the HTTP status and body. */
async function post(url: string, query: string, token: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: await res.json() };
}

/** A graphql-ws subscription as `token`, recording items and how the socket closed (code, when). */
function openSubscription(
  url: string,
  token: string,
  query: string,
): { client: Client; items: unknown[]; closed: Promise<{ code: number; at: number }> } {
  const items: unknown[] = [];
  let onClosed: (v: { code: number; at: number }) => void = () => {};
  const closed = new Promise<{ code: number; at: number }>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${url.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: { authorization: `Bearer ${token}` },
    on: { closed: (e) => onClosed({ code: (e as { code: number }).code, at: Date.now() }) },
  });
  client.subscribe({ query }, { next: (v) => items.push(v), error: () => {}, complete: () => {} });
  return { client, items, closed };
}

/** An SSE subscription as `token`: resolves `ended` when the stream ends or breaks. */
async function openSse(
  url: string,
  token: string,
  query: string,
): Promise<{ received: () => string; ended: Promise<number>; abort: () => void }> {
  const ac = new AbortController();
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query }),
    signal: ac.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
  let text = "";
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    } catch {
      // the connection was cut: that ends the stream too
    }
    return Date.now();
  })();
  return { received: () => text, ended, abort: () => ac.abort() };
}

/** Every file of `dir` (recursively) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (fs.readFileSync(file).includes(Buffer.from(needle))) hits.push(file);
  }
  return hits;
}

describe("token lifecycle through the CLI", () => {
  let h: AppHarness;
  let ciSecret = "";
  let liveId = "";
  const dataDir = () => h.app.dataDir;
  beforeAll(async () => {
    h = await startAppHarness();
    liveId = await spawnVia(h, "demo", "wait fake:hold=60000");
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it("token create prints only the secret on stdout and stores only its hash", async () => {
    const r = await cli(h.url, [
      "token",
      "create",
      "--name",
      "ci",
      "--role",
      "operator",
      "--workspace",
      "demo",
      "--expires",
      "30d",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(SECRET_LINE);
    ciSecret = r.stdout.trim();
    expect(r.stderr).toMatch(
      /created token ci \([0-9a-f]{12}\): operator, workspaces demo, expires \d{4}-\d\d-\d\d/,
    );
    expect(r.stderr).toMatch(/shown this once/);
    expect(r.stderr).not.toContain(ciSecret);

    const row = await h.app.db.prisma.apiToken.findFirstOrThrow({ where: { name: "ci" } });
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.secretHash).toBe(createHash("sha256").update(ciSecret).digest("hex"));
    expect(row).toMatchObject({ role: "operator", workspaces: ["demo"], revokedAt: null, bootstrap: false });
    const inDays = (row.expiresAt!.getTime() - Date.now()) / 86_400_000;
    expect(inDays).toBeGreaterThan(29.99);
    expect(inDays).toBeLessThan(30.01);
    // The stderr line shows that expiry.
    expect(r.stderr).toContain(row.expiresAt!.toISOString().slice(0, 10));

    // The secret is nowhere in the store: not in the token or session tables, not in any byte of
    // the database files (WAL included), nor its random part alone.
    const raw = sqliteOf(h.app.db).raw;
    const tables = JSON.stringify([
      raw.prepare(`SELECT * FROM "ApiToken"`).all(),
      raw.prepare(`SELECT * FROM "Session"`).all(),
      raw.prepare(`SELECT * FROM "AuditEntry"`).all(),
    ]);
    expect(tables).not.toContain(ciSecret);
    expect(tables).toContain(row.secretHash);
    const body = ciSecret.slice("prospero_".length);
    expect(filesContaining(dataDir(), body)).toEqual([]);
    // (the scan does see what is there: the hash is in the database files)
    expect(filesContaining(dataDir(), row.secretHash).length).toBeGreaterThan(0);
  });

  it("token ls (and --json) shows name, role, workspaces, created, last used and expiry — never a secret", async () => {
    // Use the new token once, so it has a last-used time.
    const used = await cli(h.url, ["ls"], { PROSPERO_TOKEN: ciSecret });
    expect(used.code, used.stderr).toBe(0);

    const r = await cli(h.url, ["token", "ls"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/NAME\s+ID\s+ROLE\s+WORKSPACES\s+CREATED\s+LAST USED\s+EXPIRES/);
    const line = r.stdout.split("\n").find((l) => /^ci\s/.test(l));
    const row = await h.app.db.prisma.apiToken.findFirstOrThrow({ where: { name: "ci" } });
    expect(line).toMatch(
      /^ci\s+[0-9a-f]{12}\s+operator\s+demo\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+\S+ ago\s+\d{4}-/,
    );
    expect(line).toContain(row.expiresAt!.toISOString().slice(0, 10));
    expect(r.stdout).toMatch(/^admin \(bootstrap\)\s+[0-9a-f]{12}\s+admin\s+all\s/m);
    for (const s of [ciSecret, h.token]) {
      expect(r.stdout).not.toContain(s);
      expect(r.stderr).not.toContain(s);
    }

    const j = await cli(h.url, ["token", "ls", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    for (const s of [ciSecret, h.token, row.secretHash]) expect(j.stdout).not.toContain(s);
    expect(j.stdout).not.toMatch(/secret/i);
    const list = (JSON.parse(j.stdout) as { tokens: Record<string, unknown>[] }).tokens;
    const ci = list.find((t) => t["name"] === "ci")!;
    expect(ci).toMatchObject({
      role: "OPERATOR",
      workspaces: ["demo"],
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt!.toISOString(),
      revokedAt: null,
      active: true,
    });
    expect(Date.now() - Date.parse(ci["lastUsedAt"] as string)).toBeLessThan(60_000);
  });

  it("a second active token named ci is a Conflict (exit 4); the name admin is reserved", async () => {
    const before = await h.app.db.prisma.apiToken.count();
    const dup = await cli(h.url, ["token", "create", "--name", "ci", "--role", "viewer"]);
    expect(dup.code).toBe(4);
    expect(dup.stderr).toMatch(/already named ci.*\[CONFLICT\]/);
    expect(dup.stdout).toBe("");
    const reserved = await cli(h.url, ["token", "create", "--name", "admin", "--role", "admin"]);
    expect(reserved.code).toBe(4);
    expect(reserved.stderr).toMatch(/"admin" is reserved.*\[CONFLICT\]/);
    expect(reserved.stdout).toBe("");
    expect(await h.app.db.prisma.apiToken.count()).toBe(before);
  });

  it("token revoke ci: its next HTTP request is 401, its open subscription closes 4401 at once, its SSE stream ends", async () => {
    const sub = openSubscription(
      h.url,
      ciSecret,
      `subscription { agentEvents(agentId: "${liveId}") { __typename seq } }`,
    );
    const sse = await openSse(h.url, ciSecret, `subscription { agentEvents(agentId: "${liveId}") { seq } }`);
    await waitFor(() => sub.items.length > 0, 10_000, "the subscription's first items");
    await waitFor(() => /event: next/.test(sse.received()), 10_000, "the SSE stream's first items");
    expect(h.app.gateway.live.size).toBeGreaterThanOrEqual(2);

    const t0 = Date.now();
    const r = await cli(h.url, ["token", "revoke", "ci"]);
    const cliDone = Date.now();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^revoked ci$/m);

    // Closed by the revocation itself, before the CLI even exited — not by the 5 s expiry sweep.
    const closed = await sub.closed;
    expect(closed.code).toBe(4401);
    expect(closed.at).toBeLessThanOrEqual(cliDone + 200);
    expect(closed.at - t0).toBeLessThan(3_000);
    const sseEnd = await Promise.race([
      sse.ended,
      new Promise<number>((r2) => setTimeout(() => r2(-1), 3_000)),
    ]);
    expect(sseEnd, "the SSE stream did not end").toBeGreaterThan(0);
    expect(sseEnd).toBeLessThanOrEqual(cliDone + 200);
    await sub.client.dispose();

    const after = await post(h.url, "{ viewer { name } }", ciSecret);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
    expect(JSON.stringify(after.body)).toMatch(/revoked/);
    const viaCli = await cli(h.url, ["ls"], { PROSPERO_TOKEN: ciSecret });
    expect(viaCli.code).toBe(6);
    // A new WebSocket with it is refused too.
    const again = openSubscription(h.url, ciSecret, `subscription { fleetChanges { __typename } }`);
    expect((await again.closed).code).toBe(4401);
    await again.client.dispose();
  });

  it("an expired token's open subscription is closed by the sweep within ~5–6 s of its expiry", async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const res = await h.gql<{ createToken: { __typename: string; secret?: string } }>(
      `mutation($input: CreateTokenInput!) { createToken(input: $input) { __typename ... on CreateTokenPayload { secret } } }`,
      { input: { name: "short-lived", role: "VIEWER", expiresAt: expiresAt.toISOString() } },
    );
    const secret = res.data!.createToken.secret!;
    const sub = openSubscription(
      h.url,
      secret,
      `subscription { agentEvents(agentId: "${liveId}") { __typename seq } }`,
    );
    await waitFor(() => sub.items.length > 0, 5_000, "first items");
    const closed = await Promise.race([
      sub.closed,
      new Promise<null>((r) => setTimeout(() => r(null), 9_000)),
    ]);
    expect(closed, "still open 7.5 s after its expiry").not.toBeNull();
    expect(closed!.code).toBe(4401);
    expect(closed!.at).toBeGreaterThanOrEqual(expiresAt.getTime());
    expect(closed!.at - expiresAt.getTime()).toBeLessThan(6_000);
    await sub.client.dispose();
    expect((await post(h.url, "{ viewer { name } }", secret)).status).toBe(401);
  }, 20_000);

  it("prospero audit --json (admin) lists the rows newest first with the calls just made", async () => {
    const r = await cli(h.url, ["audit", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    type Row = {
      id: string;
      position: number;
      ts: string;
      operation: string;
      tokenName: string | null;
      role: string | null;
      remoteAddress: string | null;
      result: string;
      denied: boolean;
      args: unknown;
    };
    const rows = JSON.parse(r.stdout) as Row[];
    expect(rows.length).toBeGreaterThan(5);
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i]!.position).toBeLessThan(rows[i - 1]!.position);
      expect(Date.parse(rows[i]!.ts)).toBeLessThanOrEqual(Date.parse(rows[i - 1]!.ts));
    }
    const idx = (p: (row: Row) => boolean) => rows.findIndex(p);
    const revoke = idx((x) => x.operation === "revokeToken" && x.result === "RevokeTokenPayload");
    const created = idx(
      (x) =>
        x.operation === "createToken" &&
        x.result === "CreateTokenPayload" &&
        JSON.stringify(x.args).includes('"ci"'),
    );
    const conflicts = rows.filter((x) => x.operation === "createToken" && x.result === "CONFLICT");
    const spawn = idx((x) => x.operation === "spawnAgent" && x.result === "SpawnAgentPayload");
    expect(revoke).toBeGreaterThanOrEqual(0);
    expect(rows[revoke]).toMatchObject({
      tokenName: "admin",
      role: "admin",
      remoteAddress: "127.0.0.1",
      denied: false,
    });
    expect(created).toBeGreaterThan(revoke);
    expect(conflicts).toHaveLength(2);
    expect(spawn).toBeGreaterThan(created);
    // The revoked token's refused request is there too (before GraphQL: operation http).
    expect(rows.some((x) => x.operation === "http" && x.result === "UNAUTHENTICATED" && x.denied)).toBe(true);
    for (const s of [ciSecret, h.token]) expect(r.stdout).not.toContain(s);
  });

  it("prospero audit as an operator exits 6 with a clear message; prospero spawn as a viewer exits 6", async () => {
    const op = await h.createToken({ name: "op", role: "OPERATOR" });
    const a = await cli(h.url, ["audit"], { PROSPERO_TOKEN: op });
    expect(a.code).toBe(6);
    expect(a.stdout).toBe("");
    expect(a.stderr).toMatch(/needs the admin role; token op has operator/);

    const viewer = await h.createToken({ name: "watcher", role: "VIEWER" });
    const agents = await h.app.db.prisma.agent.count();
    const spawns = h.d.daemon.requests.filter((x) => x.line.includes('"spawn"')).length;
    const s = await cli(h.url, ["spawn", "demo", "do something"], { PROSPERO_TOKEN: viewer });
    expect(s.code).toBe(6);
    expect(s.stderr).toMatch(/needs the operator role; token watcher has viewer.*\[FORBIDDEN\]/);
    expect(await h.app.db.prisma.agent.count()).toBe(agents);
    expect(h.d.daemon.requests.filter((x) => x.line.includes('"spawn"')).length).toBe(spawns);
  });
});

/** Run `prospero serve` until it exits (killed after `timeoutMs`). */
function serveToExit(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 15_000,
): Promise<{ code: number | string; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROSPERO_BIN, "serve", "--port", "0", ...args], {
      env: { ...process.env, XDG_RUNTIME_DIR: tmpDir("xdg-"), ...env },
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`prospero serve still running after ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stderr, stdout });
    });
  });
}

describe("the bootstrap admin token of prospero serve", () => {
  const running: ServeProcess[] = [];
  afterEach(async () => {
    for (const p of running.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill("SIGKILL");
        await p.exited;
      }
    }
  });
  async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
    const p = await startServe(args, env);
    running.push(p);
    await waitForStatus(`${p.url}/readyz`, 200);
    return p;
  }

  it("PROSPERO_ADMIN_TOKEN of 40 characters is the admin token; one of 10 makes serve exit 2 naming it", async () => {
    const supplied = "S3cure-Supplied-Admin-Token-0123456789ab";
    expect(supplied).toHaveLength(40);
    const data = tmpDir();
    const p = await serve(["--data-dir", data], { PROSPERO_ADMIN_TOKEN: supplied });
    expect(await post(p.url, "{ viewer { name role } }", supplied)).toEqual({
      status: 200,
      body: { data: { viewer: { name: "admin", role: "ADMIN" } } },
    });
    expect(await serveToken(p)).toBe(supplied);
    expect((await post(p.url, "{ viewer { name } }", `${supplied}x`)).status).toBe(401);
    expect(p.stderr()).not.toContain(supplied);

    const short = "tooShort10";
    const bad = await serveToExit(["--data-dir", tmpDir()], { PROSPERO_ADMIN_TOKEN: short });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/prospero: invalid PROSPERO_ADMIN_TOKEN: got 10 characters; expected 32–512/);
    expect(bad.stderr + bad.stdout).not.toContain(short);
  });

  it("a bad PROSPERO_ADMIN_TOKEN is refused before anything is created (no data dir, no database)", async () => {
    // House rule: bad input gets a clear error and changes nothing.
    const data = path.join(tmpDir(), "fresh-data");
    const bad = await serveToExit(["--data-dir", data], { PROSPERO_ADMIN_TOKEN: "tooShort10" });
    expect(bad.code).toBe(2);
    expect(fs.existsSync(data)).toBe(false);
  });

  it("deleting <data dir>/admin-token and restarting issues a new token; the old secret stops working", async () => {
    const data = tmpDir();
    const first = await serve(["--data-dir", data]);
    const old = await serveToken(first);
    expect(first.stderr()).toMatch(/"issued":true/);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    fs.rmSync(path.join(data, "admin-token"));
    const second = await serve(["--data-dir", data]);
    const fresh = await serveToken(second);
    expect(second.stderr()).toMatch(/"issued":true/);
    expect(fresh).not.toBe(old);
    expect(fresh).toMatch(/^prospero_/);
    const refused = await post(second.url, "{ viewer { name } }", old);
    expect(refused.status).toBe(401);
    expect(await post(second.url, "{ viewer { name role } }", fresh)).toEqual({
      status: 200,
      body: { data: { viewer: { name: "admin", role: "ADMIN" } } },
    });
    // The old bootstrap token is listed as revoked, the new one active.
    const listed = await post(
      second.url,
      "{ tokens(includeRevoked: true) { name bootstrap active revokedAt } }",
      fresh,
    );
    const list = (listed.body as { data: { tokens: { bootstrap: boolean; active: boolean }[] } }).data.tokens;
    expect(list.filter((t) => t.bootstrap).map((t) => t.active)).toEqual([false, true]);

    // A plain restart (file kept) issues nothing new.
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    const third = await serve(["--data-dir", data]);
    expect(await serveToken(third)).toBe(fresh);
    expect(third.stderr()).toMatch(/"issued":false/);
  });
});
