/**
 * curl-level tests of every HTTP and WebSocket rule of issue 11, against the real in-process
 * gateway on its real port, with raw requests (`http.request` with explicit headers, a raw `net`
 * socket, `ws`): 401 with `WWW-Authenticate` on HTTP, GET and SSE; open `/healthz` and `/readyz`;
 * 415 for non-JSON bodies; 421 for a foreign `Host`; no reflective CORS; the session cookie and its
 * Origin rules; WebSocket 4401 / 403 / 421 / 503 and per-connection operation caps; document and
 * `nodes(ids:)` limits; the slow-header timeout; the env and root rules of what reaches processes;
 * GraphiQL's CSP and caching. Each refusal is checked for its status (or close code) and error
 * code, for having changed nothing, and for its audit row.
 *
 * Refusals are audited at most 20 per client address per minute (src/auth/audit.ts), so every test
 * that reads audit rows sends from its own loopback source address (127.0.0.N; Linux routes all of
 * 127.0.0.0/8 to lo) and reads only the rows of that address.
 */
import http from "node:http";
import net from "node:net";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { onCleanup } from "../helpers/cleanup.js";
import { tmpDir } from "../helpers/tmp.js";
import { HTTP_TIMEOUTS, MAX_SUBSCRIPTIONS_PER_CONNECTION, QUERY_LIMITS } from "../../src/server/gateway.js";

const CORS_ORIGIN = "https://ops.example";
const PUBLIC_HOST = "prospero.test";
const EVIL = "http://evil.example";

let h: AppHarness;

beforeAll(async () => {
  h = await startAppHarness({ config: { corsOrigins: [CORS_ORIGIN], publicHosts: [PUBLIC_HOST] } });
});

afterAll(async () => {
  await h?.close();
});

const port = (): number => h.app.gateway.port;
/** The gateway's own origin, as a browser on its dashboard sends it. */
const own = (): string => `http://127.0.0.1:${port()}`;

let nextSource = 2;
/** A loopback source address of its own (127.0.0.N) for one test's audited requests. */
function freshSource(): string {
  return `127.0.0.${nextSource++}`;
}

// ─── raw HTTP ──────────────────────────────────────────────────────────────────────────────────

/** An HTTP answer as a client sees it. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One raw request (see {@link send}). */
interface RawRequest {
  method?: string;
  path?: string;
  /** Sent exactly as given; `host` defaults to `127.0.0.1:<port>`; null leaves a header out. */
  headers?: Record<string, string | null>;
  body?: string;
  /** Local source address (127.0.0.N). */
  from?: string;
  /** Resolve once the head arrives and drop the connection (always done for an event stream). */
  headOnly?: boolean;
  /** Another gateway's port (default: the shared harness's). */
  port?: number;
}

/** Send one request on a fresh connection with exactly the given headers. */
function send(r: RawRequest): Promise<Answer> {
  const headers: Record<string, string> = {};
  const to = r.port ?? port();
  for (const [k, v] of Object.entries({ host: `127.0.0.1:${to}`, ...r.headers })) {
    if (v !== null) headers[k] = v;
  }
  if (r.body !== undefined) headers["content-length"] = String(Buffer.byteLength(r.body));
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port: to,
      method: r.method ?? "GET",
      path: r.path ?? "/graphql",
      headers,
      setHost: false,
      agent: false,
      localAddress: r.from,
    });
    req.on("error", reject);
    req.on("response", (res) => {
      // An event stream does not end: a refusal is never one, so a stream answers at once.
      if (r.headOnly || /^text\/event-stream/.test(res.headers["content-type"] ?? "")) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: "" });
        res.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.end(r.body);
  });
}

/** A GraphQL response body. */
interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

function parse(a: Answer): GqlBody {
  return JSON.parse(a.text) as GqlBody;
}

/** POST a GraphQL document as JSON with the given extra headers. */
function postGql(
  query: string,
  headers: Record<string, string | null> = {},
  from?: string,
  variables?: Record<string, unknown>,
): Promise<Answer> {
  return send({
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json", ...headers },
    body: JSON.stringify({ query, variables }),
    from,
  });
}

const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });

/** The 401 every refused credential gets before GraphQL. */
function expect401(a: Answer, message?: RegExp): void {
  expect(a.status).toBe(401);
  expect(a.headers["www-authenticate"]).toBe('Bearer realm="prospero"');
  expect(a.headers["content-type"]).toMatch(/^application\/json/);
  const body = parse(a);
  expect(body).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
  expect(body.data).toBeUndefined();
  if (message) expect(body.errors![0]!.message).toMatch(message);
}

// ─── what changed ──────────────────────────────────────────────────────────────────────────────

/** Everything a refused request must leave alone. */
async function fleetSnapshot() {
  const p = h.app.db.prisma;
  return {
    agents: await p.agent.count(),
    daemonRecords: h.d.daemon.records().length,
    workspaces: await p.workspace.findMany({ orderBy: { name: "asc" } }),
  };
}

/** The denied audit rows from `from` once there are at least `atLeast` of them, oldest first. */
async function deniedFrom(from: string, atLeast: number) {
  return waitFor(
    async () => {
      const rows = await h.app.db.prisma.auditEntry.findMany({
        where: { remoteAddress: from, denied: true },
        orderBy: { id: "asc" },
      });
      return rows.length >= atLeast ? rows : null;
    },
    5_000,
    `${atLeast} denied audit rows from ${from}`,
  );
}

/** Create a token through the API; `expiresAt` optional. @returns its secret. */
async function token(name: string, role: "VIEWER" | "OPERATOR" | "ADMIN", expiresAt?: Date): Promise<string> {
  const r = await h.gql<{ createToken: { __typename: string; secret?: string } }>(
    `mutation($input: CreateTokenInput!) { createToken(input: $input) { __typename ... on CreateTokenPayload { secret } ... on Error { message } } }`,
    { input: { name, role, ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) } },
  );
  const secret = r.data?.createToken.secret;
  if (!secret) throw new Error(`createToken failed: ${JSON.stringify(r)}`);
  return secret;
}

async function revoke(name: string): Promise<void> {
  const r = await h.gql<{ revokeToken: { __typename: string } }>(
    `mutation($t: String!) { revokeToken(input: { token: $t }) { __typename } }`,
    { t: name },
  );
  expect(r.data?.revokeToken.__typename).toBe("RevokeTokenPayload");
}

/** A session cookie (`name=value`) for the admin token, from `GET /?token=`. */
async function sessionCookie(): Promise<string> {
  const a = await send({ path: `/?token=${encodeURIComponent(h.token)}` });
  expect(a.status).toBe(303);
  const set = [a.headers["set-cookie"] ?? []].flat()[0];
  expect(set).toBeDefined();
  return set!.split(";")[0]!;
}

// ─── raw WebSocket ─────────────────────────────────────────────────────────────────────────────

interface WsMessage {
  id?: string;
  type: string;
  payload?: unknown;
}

/** An open graphql-transport-ws connection. */
interface WsConn {
  ws: WebSocket;
  messages: WsMessage[];
  closed: Promise<{ code: number; reason: string }>;
  send(m: WsMessage): void;
}

type Upgrade = { ok: true; conn: WsConn } | { ok: false; status: number; body: string };

/** Open a raw WebSocket to /graphql with exactly these headers; an HTTP refusal is returned, not thrown. */
function upgrade(
  opts: { headers?: Record<string, string>; origin?: string; from?: string; port?: number } = {},
): Promise<Upgrade> {
  const ws = new WebSocket(`ws://127.0.0.1:${opts.port ?? port()}/graphql`, "graphql-transport-ws", {
    headers: opts.headers,
    origin: opts.origin,
    localAddress: opts.from,
  });
  onCleanup(() => ws.terminate());
  const messages: WsMessage[] = [];
  ws.on("message", (d: Buffer) => messages.push(JSON.parse(d.toString()) as WsMessage));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.once("open", () =>
      resolve({ ok: true, conn: { ws, messages, closed, send: (m) => ws.send(JSON.stringify(m)) } }),
    );
    ws.once("unexpected-response", (req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ ok: false, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
        req.destroy();
      });
    });
    ws.on("error", reject);
  });
}

/** Send `connection_init` and wait for the ack or the close. */
function init(
  conn: WsConn,
  payload?: Record<string, unknown>,
): Promise<"ack" | { code: number; reason: string }> {
  return new Promise((resolve) => {
    conn.ws.on("message", (d: Buffer) => {
      if ((JSON.parse(d.toString()) as WsMessage).type === "connection_ack") resolve("ack");
    });
    void conn.closed.then(resolve);
    conn.send({ type: "connection_init", ...(payload ? { payload } : {}) });
  });
}

async function openUpgrade(opts: Parameters<typeof upgrade>[0] = {}): Promise<WsConn> {
  const u = await upgrade(opts);
  if (!u.ok) throw new Error(`upgrade refused: ${u.status} ${u.body}`);
  return u.conn;
}

/** Messages of operation `id`. */
const ofOp = (conn: WsConn, id: string): WsMessage[] => conn.messages.filter((m) => m.id === id);

/** Run a query over the connection and return its messages once it completed or failed. */
async function wsQuery(conn: WsConn, id: string, query: string): Promise<WsMessage[]> {
  conn.send({ id, type: "subscribe", payload: { query } });
  await waitFor(
    () => ofOp(conn, id).some((m) => m.type === "complete" || m.type === "error"),
    10_000,
    `operation ${id} to end`,
  );
  return ofOp(conn, id);
}

const VIEWER = "{ viewer { name role authenticatedBy } }";
const SPAWN = (prompt: string) =>
  `mutation { spawnAgent(input: { workspace: "demo", prompt: ${JSON.stringify(prompt)} }) { __typename ... on SpawnAgentPayload { agent { agentId } } ... on Error { code message } } }`;

// ═══ 1. 401 ════════════════════════════════════════════════════════════════════════════════════

describe("401: no valid credentials, on HTTP POST, GET and SSE", () => {
  /** Try one Authorization value (null = none) on the three transports; all must be 401, audited. */
  async function refusedEverywhere(authorization: string | null, message: RegExp): Promise<void> {
    const from = freshSource();
    const headers = { authorization };
    const post = await postGql(VIEWER, headers, from);
    const get = await send({
      path: `/graphql?query=${encodeURIComponent(VIEWER)}`,
      headers: { ...headers, accept: "application/graphql-response+json" },
      from,
    });
    const sse = await send({
      path: `/graphql?query=${encodeURIComponent("subscription { fleetChanges { __typename } }")}`,
      headers: { ...headers, accept: "text/event-stream" },
      from,
    });
    for (const a of [post, get, sse]) expect401(a, message);
    const rows = await deniedFrom(from, 3);
    expect(rows.map((r) => [r.operation, r.result, r.tokenName])).toEqual([
      ["http", "UNAUTHENTICATED", null],
      ["http", "UNAUTHENTICATED", null],
      ["http", "UNAUTHENTICATED", null],
    ]);
  }

  it("a valid bearer token passes on POST, GET and SSE (the control)", async () => {
    const post = await postGql(VIEWER, bearer(h.token));
    expect(post.status).toBe(200);
    expect(parse(post).data).toEqual({ viewer: { name: "admin", role: "ADMIN", authenticatedBy: "bearer" } });
    const get = await send({
      path: `/graphql?query=${encodeURIComponent(VIEWER)}`,
      headers: { ...bearer(h.token), accept: "application/graphql-response+json" },
    });
    expect(get.status).toBe(200);
    expect(parse(get).data).toMatchObject({ viewer: { name: "admin" } });
    const sse = await send({
      path: `/graphql?query=${encodeURIComponent("subscription { fleetChanges { __typename } }")}`,
      headers: { ...bearer(h.token), accept: "text/event-stream" },
      headOnly: true,
    });
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toMatch(/^text\/event-stream/);
  });

  it("no credentials", async () => {
    await refusedEverywhere(null, /authentication required/);
  });

  it("an unknown token", async () => {
    await refusedEverywhere("Bearer prospero_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", /unknown token/);
  });

  it("a malformed Authorization header (Basic, bare token, empty Bearer)", async () => {
    await refusedEverywhere("Basic x", /malformed Authorization/);
    await refusedEverywhere(h.token, /malformed Authorization/);
    await refusedEverywhere("Bearer ", /malformed Authorization/);
  });

  it("an over-long token (4096 characters)", async () => {
    await refusedEverywhere(`Bearer ${"A".repeat(4096)}`, /unknown token/);
  });

  it("an expired token (worked until its expiresAt)", async () => {
    const expiresAt = new Date(Date.now() + 2_000);
    const secret = await token("soon-expired", "VIEWER", expiresAt);
    const before = await postGql(VIEWER, bearer(secret));
    expect(before.status).toBe(200);
    expect(parse(before).data).toMatchObject({ viewer: { name: "soon-expired" } });
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt.getTime() - Date.now()) + 50));
    await refusedEverywhere(`Bearer ${secret}`, /expired/);
  });

  it("a revoked token (worked until revoked)", async () => {
    const secret = await token("to-revoke-http", "OPERATOR");
    expect((await postGql(VIEWER, bearer(secret))).status).toBe(200);
    await revoke("to-revoke-http");
    await refusedEverywhere(`Bearer ${secret}`, /revoked/);
  });

  it("/healthz and /readyz answer without a token; /readyz reveals only counts", async () => {
    const health = await send({ path: "/healthz" });
    expect(health.status).toBe(200);
    expect(health.text).toBe("ok\n");
    const ready = await send({ path: "/readyz" });
    expect(ready.status).toBe(200);
    const body = JSON.parse(ready.text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "migrationsApplied",
        "ready",
        "storeWritable",
        "workspacesHealthy",
        "workspacesTotal",
        "workspacesUnreachable",
      ].sort(),
    );
    for (const v of Object.values(body)) {
      expect(typeof v === "boolean" || Number.isInteger(v)).toBe(true);
    }
    expect(body).toMatchObject({ ready: true, workspacesTotal: 1 });
    expect(ready.text).not.toContain("demo");
    expect(ready.text).not.toContain(h.d.ws.root);
  });
});

// ═══ 2. 415 ════════════════════════════════════════════════════════════════════════════════════

describe("415: only JSON bodies, whatever the credentials", () => {
  it("form-urlencoded, multipart and text/plain POSTs of spawnAgent with a valid token are refused; nothing spawned", async () => {
    const doc = SPAWN("csrf attempt");
    const json = JSON.stringify({ query: doc });
    const boundary = "----prosperoBoundary7MA4YWxkTrZu0gW";
    const bodies: [string | null, string][] = [
      ["application/x-www-form-urlencoded", new URLSearchParams({ query: doc }).toString()],
      [
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${json}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{}\r\n--${boundary}--\r\n`,
      ],
      ["text/plain", json],
      ["text/plain;charset=UTF-8", json],
      // A Blob without a type: browsers send no Content-Type at all.
      [null, json],
    ];
    const before = await fleetSnapshot();
    const from = freshSource();
    for (const [type, body] of bodies) {
      const a = await send({
        method: "POST",
        headers: { ...bearer(h.token), "content-type": type },
        body,
        from,
      });
      expect(a.status, String(type)).toBe(415);
      expect(a.text).toMatch(/application\/json/);
    }
    // The same request as JSON does spawn (so the document above is a working attack).
    expect(await fleetSnapshot()).toEqual(before);
    const control = await postGql(doc, bearer(h.token));
    expect(parse(control).data).toMatchObject({ spawnAgent: { __typename: "SpawnAgentPayload" } });
    expect(h.d.daemon.records().length).toBe(before.daemonRecords + 1);
  });

  it("a 415 refusal carrying a mutation is audited as a denied attempt (issue 11 item 4)", async () => {
    const from = freshSource();
    const a = await send({
      method: "POST",
      headers: { ...bearer(h.token), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ query: SPAWN("audited csrf attempt") }).toString(),
      from,
    });
    expect(a.status).toBe(415);
    const rows = await deniedFrom(from, 1);
    expect(rows.map((r) => r.operation)).toEqual(["http"]);
  });

  it("a mutation over GET is refused even with a bearer token; nothing spawned", async () => {
    const before = await fleetSnapshot();
    const a = await send({
      path: `/graphql?query=${encodeURIComponent(SPAWN("mutation over GET"))}`,
      headers: { ...bearer(h.token), accept: "application/graphql-response+json" },
    });
    expect(a.status).toBe(405);
    expect(parse(a).data ?? undefined).toBeUndefined();
    expect(parse(a).errors?.[0]?.message).toMatch(/mutation/i);
    expect(await fleetSnapshot()).toEqual(before);
  });
});

// ═══ 3. 421 ════════════════════════════════════════════════════════════════════════════════════

describe("421: the Host header must name this gateway", () => {
  it("Host: evil.example on /, /graphql and /healthz, and on a WebSocket upgrade", async () => {
    const from = freshSource();
    const before = await fleetSnapshot();
    for (const path of ["/", "/graphql", "/healthz"]) {
      const a = await send({ path, headers: { host: "evil.example", ...bearer(h.token) }, from });
      expect(a.status, path).toBe(421);
      expect(a.text).toMatch(/unknown Host/);
    }
    const post = await send({
      method: "POST",
      headers: { host: `evil.example:${port()}`, ...bearer(h.token), "content-type": "application/json" },
      body: JSON.stringify({ query: SPAWN("rebinding attempt") }),
      from,
    });
    expect(post.status).toBe(421);
    const userinfo = await send({
      path: "/healthz",
      headers: { host: `evil.example@127.0.0.1:${port()}` },
      from,
    });
    expect(userinfo.status).toBe(421);
    // HTTP/1.0 without any Host header (Node requires Host only for HTTP/1.1).
    const noHost = await new Promise<string>((resolve, reject) => {
      const sock = net.connect({ host: "127.0.0.1", port: port(), localAddress: from }, () =>
        sock.end("GET /healthz HTTP/1.0\r\n\r\n"),
      );
      let got = "";
      sock.on("data", (d: Buffer) => (got += d.toString("latin1")));
      sock.on("close", () => resolve(got));
      sock.on("error", reject);
    });
    expect(noHost).toMatch(/^HTTP\/1\.1 421 /);
    const ws = await upgrade({ headers: { host: "evil.example", ...bearer(h.token) }, from });
    expect(ws).toMatchObject({ ok: false, status: 421 });
    expect(await fleetSnapshot()).toEqual(before);
    const rows = await deniedFrom(from, 7);
    expect(rows.map((r) => [r.operation, r.result])).toEqual([
      ["http", "MISDIRECTED_HOST"],
      ["http", "MISDIRECTED_HOST"],
      ["http", "MISDIRECTED_HOST"],
      ["http", "MISDIRECTED_HOST"],
      ["http", "MISDIRECTED_HOST"],
      ["http", "MISDIRECTED_HOST"],
      ["websocket", "MISDIRECTED_HOST"],
    ]);
  });

  it("allowed: IP literals, localhost and the configured --public-host, on HTTP and WebSocket", async () => {
    const hosts = [
      `127.0.0.1:${port()}`,
      `localhost:${port()}`,
      `[::1]:${port()}`,
      `192.0.2.7:${port()}`,
      `${PUBLIC_HOST}:${port()}`,
      PUBLIC_HOST,
      "PROSPERO.TEST",
    ];
    for (const host of hosts) {
      const health = await send({ path: "/healthz", headers: { host } });
      expect(health.status, host).toBe(200);
      const gql = await postGql(VIEWER, { host, ...bearer(h.token) });
      expect(gql.status, host).toBe(200);
      expect(parse(gql).data).toMatchObject({ viewer: { name: "admin" } });
    }
    for (const host of [`localhost:${port()}`, `${PUBLIC_HOST}:${port()}`]) {
      const conn = await openUpgrade({ headers: { host, ...bearer(h.token) } });
      expect(await init(conn)).toBe("ack");
      conn.ws.close();
    }
    // Near misses of the public host are not it.
    for (const host of [`${PUBLIC_HOST}.evil.example`, `evil-${PUBLIC_HOST}`, `${PUBLIC_HOST}x`]) {
      expect((await send({ path: "/healthz", headers: { host } })).status, host).toBe(421);
    }
  });
});

// ═══ 4. Origin / CORS ══════════════════════════════════════════════════════════════════════════

describe("Origin and CORS: same origin only, plus the --cors-origin allowlist", () => {
  it("a foreign Origin is 403 with no CORS header (request and preflight); Origin: null too", async () => {
    const from = freshSource();
    const before = await fleetSnapshot();
    const post = await send({
      method: "POST",
      headers: { ...bearer(h.token), origin: EVIL, "content-type": "application/json" },
      body: JSON.stringify({ query: SPAWN("cross-origin attempt") }),
      from,
    });
    expect(post.status).toBe(403);
    expect(post.text).toMatch(/cross-origin/);
    expect(post.headers["access-control-allow-origin"]).toBeUndefined();
    expect(post.headers["access-control-allow-credentials"]).toBeUndefined();
    const preflight = await send({
      method: "OPTIONS",
      headers: {
        origin: EVIL,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
      from,
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expect(preflight.headers["access-control-allow-credentials"]).toBeUndefined();
    const nullOrigin = await postGql(VIEWER, { ...bearer(h.token), origin: "null" }, from);
    expect(nullOrigin.status).toBe(403);
    expect(nullOrigin.headers["access-control-allow-origin"]).toBeUndefined();
    // Look-alikes of the allowlisted origin are foreign too.
    for (const origin of [
      "http://ops.example",
      "https://ops.example.evil.example",
      "https://ops.example:8443",
    ]) {
      const a = await postGql(VIEWER, { ...bearer(h.token), origin }, from);
      expect(a.status, origin).toBe(403);
      expect(a.headers["access-control-allow-origin"], origin).toBeUndefined();
    }
    expect(await fleetSnapshot()).toEqual(before);
    const rows = await deniedFrom(from, 6);
    expect(rows.map((r) => [r.operation, r.result])).toEqual(
      Array.from({ length: 6 }, () => ["http", "FORBIDDEN_ORIGIN"]),
    );
  });

  it("the gateway's own origin passes (no CORS header needed)", async () => {
    const a = await postGql(VIEWER, { ...bearer(h.token), origin: own() });
    expect(a.status).toBe(200);
    expect(parse(a).data).toMatchObject({ viewer: { name: "admin" } });
    const viaName = await postGql(VIEWER, {
      ...bearer(h.token),
      host: `localhost:${port()}`,
      origin: `http://localhost:${port()}`,
    });
    expect(viaName.status).toBe(200);
  });

  it("an allowlisted origin gets exactly its own access-control-allow-origin, without credentials", async () => {
    const a = await postGql(VIEWER, { ...bearer(h.token), origin: CORS_ORIGIN });
    expect(a.status).toBe(200);
    expect(parse(a).data).toMatchObject({ viewer: { name: "admin" } });
    expect(a.headers["access-control-allow-origin"]).toBe(CORS_ORIGIN);
    expect(a.headers["access-control-allow-credentials"]).not.toBe("true");
    const preflight = await send({
      method: "OPTIONS",
      headers: {
        origin: CORS_ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers["access-control-allow-origin"]).toBe(CORS_ORIGIN);
    expect(preflight.headers["access-control-allow-credentials"]).not.toBe("true");
    // Never `*`, never reflected for a request without Origin or from the own origin.
    const plain = await postGql(VIEWER, bearer(h.token));
    expect(plain.headers["access-control-allow-origin"]).toBeUndefined();
    const same = await postGql(VIEWER, { ...bearer(h.token), origin: own() });
    expect(same.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("the allowlisted origin cannot use the session cookie (bearer tokens only)", async () => {
    const cookie = await sessionCookie();
    const from = freshSource();
    const a = await postGql(VIEWER, { cookie, origin: CORS_ORIGIN }, from);
    expect(a.status).toBe(403);
    expect(parse(a)).toMatchObject({ errors: [{ extensions: { code: "FORBIDDEN" } }] });
    expect(parse(a).data).toBeUndefined();
    const rows = await deniedFrom(from, 1);
    expect(rows.map((r) => [r.operation, r.result])).toEqual([["http", "FORBIDDEN"]]);
  });
});

// ═══ 5. Session cookie ═════════════════════════════════════════════════════════════════════════

describe("the session cookie", () => {
  it("GET /?token= answers 303 with an HttpOnly SameSite=Strict cookie and a Location without the token", async () => {
    const a = await send({ path: `/?token=${encodeURIComponent(h.token)}&view=agents` });
    expect(a.status).toBe(303);
    expect(a.headers.location).toBe("/?view=agents");
    expect(a.headers.location).not.toContain(h.token);
    expect(a.headers["referrer-policy"]).toBe("no-referrer");
    const cookies = [a.headers["set-cookie"] ?? []].flat();
    expect(cookies).toHaveLength(1);
    const c = cookies[0]!;
    expect(c.startsWith(`${h.app.gateway.cookieName}=`)).toBe(true);
    expect(c).toMatch(/;\s*HttpOnly/i);
    expect(c).toMatch(/;\s*SameSite=Strict/i);
    expect(c).toMatch(/;\s*Path=\//i);
    expect(c).not.toContain(h.token);
    const plain = await send({ path: `/?token=${encodeURIComponent(h.token)}` });
    expect(plain.headers.location).toBe("/");
    const graphiql = await send({
      path: `/graphql?token=${encodeURIComponent(h.token)}`,
      headers: { accept: "text/html" },
    });
    expect(graphiql.status).toBe(303);
    expect(graphiql.headers.location).toBe("/graphql");
    expect([graphiql.headers["set-cookie"] ?? []].flat()[0]).toMatch(/HttpOnly/i);
  });

  it("a bad ?token= redirects with login=failed and no cookie, audited", async () => {
    const from = freshSource();
    const a = await send({ path: "/?token=prospero_nope", from });
    expect(a.status).toBe(303);
    expect(a.headers.location).toBe("/?login=failed");
    expect(a.headers["set-cookie"]).toBeUndefined();
    const rows = await deniedFrom(from, 1);
    expect(rows[0]).toMatchObject({ operation: "session" });
    expect(rows[0]!.result).toMatch(/^UNAUTHENTICATED/);
  });

  it("with the own Origin a cookie POST works; without Origin or from a foreign one it is refused", async () => {
    const cookie = await sessionCookie();
    const ok = await postGql(VIEWER, { cookie, origin: own() });
    expect(ok.status).toBe(200);
    expect(parse(ok).data).toEqual({ viewer: { name: "admin", role: "ADMIN", authenticatedBy: "cookie" } });

    const from = freshSource();
    const before = await fleetSnapshot();
    const noOrigin = await postGql(SPAWN("cookie without origin"), { cookie }, from);
    expect(noOrigin.status).toBe(403);
    expect(parse(noOrigin)).toMatchObject({ errors: [{ extensions: { code: "FORBIDDEN" } }] });
    expect(parse(noOrigin).data).toBeUndefined();
    const foreign = await postGql(SPAWN("cookie from a foreign page"), { cookie, origin: EVIL }, from);
    expect(foreign.status).toBe(403);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
    expect(await fleetSnapshot()).toEqual(before);
    const rows = await deniedFrom(from, 2);
    expect(rows.map((r) => [r.operation, r.result])).toEqual([
      ["http", "FORBIDDEN"],
      ["http", "FORBIDDEN_ORIGIN"],
    ]);
  });

  it("a cookie GET /graphql?query= needs x-prospero-csrf (yoga's CSRF prevention); a bearer GET does not", async () => {
    const cookie = await sessionCookie();
    const path = `/graphql?query=${encodeURIComponent(VIEWER)}`;
    const accept = "application/graphql-response+json";
    const refused = await send({ path, headers: { cookie, origin: own(), accept } });
    expect(refused.status).toBe(403);
    expect(parse(refused).errors?.[0]?.message).toMatch(/CSRF/);
    expect(parse(refused).data ?? undefined).toBeUndefined();
    const withHeader = await send({
      path,
      headers: { cookie, origin: own(), accept, "x-prospero-csrf": "1" },
    });
    expect(withHeader.status).toBe(200);
    expect(parse(withHeader).data).toMatchObject({ viewer: { authenticatedBy: "cookie" } });
    const viaBearer = await send({ path, headers: { ...bearer(h.token), accept } });
    expect(viaBearer.status).toBe(200);
    expect(parse(viaBearer).data).toMatchObject({ viewer: { authenticatedBy: "bearer" } });
  });

  it("POST /auth/session: bad token 401, good token 204 + cookie, foreign Origin 403, non-JSON 415", async () => {
    const from = freshSource();
    const post = (body: string, headers: Record<string, string | null>) =>
      send({ method: "POST", path: "/auth/session", headers, body, from });
    const json = { "content-type": "application/json" };

    const bad = await post(JSON.stringify({ token: "prospero_nope" }), json);
    expect(bad.status).toBe(401);
    expect(parse(bad)).toMatchObject({ errors: [{ extensions: { code: "UNAUTHENTICATED" } }] });
    expect(bad.headers["set-cookie"]).toBeUndefined();

    const good = await post(JSON.stringify({ token: h.token }), { ...json, origin: own() });
    expect(good.status).toBe(204);
    const set = [good.headers["set-cookie"] ?? []].flat();
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(/HttpOnly/i);
    expect(set[0]).toMatch(/SameSite=Strict/i);
    const cookie = set[0]!.split(";")[0]!;
    expect(parse(await postGql(VIEWER, { cookie, origin: own() })).data).toMatchObject({
      viewer: { authenticatedBy: "cookie" },
    });

    const foreign = await post(JSON.stringify({ token: h.token }), { ...json, origin: EVIL });
    expect(foreign.status).toBe(403);
    expect(foreign.headers["set-cookie"]).toBeUndefined();

    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const form = await post(
        type === "text/plain" ? JSON.stringify({ token: h.token }) : `token=${h.token}`,
        {
          "content-type": type,
        },
      );
      expect(form.status, type).toBe(415);
      expect(form.headers["set-cookie"]).toBeUndefined();
    }

    const rows = await deniedFrom(from, 1);
    expect(rows[0]).toMatchObject({ operation: "session" });
    expect(rows[0]!.result).toMatch(/^UNAUTHENTICATED/);
  });

  it("POST /auth/logout ends the session: the cookie stops working", async () => {
    const cookie = await sessionCookie();
    expect((await postGql(VIEWER, { cookie, origin: own() })).status).toBe(200);
    const out = await send({ method: "POST", path: "/auth/logout", headers: { cookie, origin: own() } });
    expect(out.status).toBe(204);
    const cleared = [out.headers["set-cookie"] ?? []].flat()[0];
    expect(cleared).toMatch(new RegExp(`^${h.app.gateway.cookieName}=;`));
    expect(cleared).toMatch(/Max-Age=0/i);
    const after = await postGql(VIEWER, { cookie, origin: own() });
    expect401(after, /session has ended/);
  });
});

// ═══ 6. WebSocket ══════════════════════════════════════════════════════════════════════════════

describe("WebSocket upgrades and graphql-ws", () => {
  it("no credentials, a bad token or a revoked token in connectionParams: closed 4401, audited", async () => {
    const from = freshSource();
    const revokedSecret = await token("to-revoke-ws", "VIEWER");
    await revoke("to-revoke-ws");
    const cases: [Record<string, unknown> | undefined, RegExp][] = [
      [undefined, /Unauthorized/],
      [{ authorization: "Bearer prospero_nope" }, /unknown token/],
      [{ token: "prospero_nope" }, /unknown token/],
      [{ authorization: `Bearer ${revokedSecret}` }, /revoked/],
    ];
    for (const [payload, reason] of cases) {
      const conn = await openUpgrade({ from });
      const outcome = await init(conn, payload);
      expect(outcome, JSON.stringify(payload)).toMatchObject({ code: 4401 });
      expect((outcome as { reason: string }).reason).toMatch(reason);
      expect(conn.messages.some((m) => m.type === "connection_ack")).toBe(false);
    }
    // A revoked token in the upgrade's Authorization header: refused at the upgrade.
    const atUpgrade = await upgrade({ headers: bearer(revokedSecret), from });
    expect(atUpgrade).toMatchObject({ ok: false, status: 401 });
    const malformed = await upgrade({ headers: { authorization: "Basic x" }, from });
    expect(malformed).toMatchObject({ ok: false, status: 401 });
    const rows = await deniedFrom(from, 6);
    expect(rows.map((r) => [r.operation, r.result])).toEqual(
      Array.from({ length: 6 }, () => ["websocket", "UNAUTHENTICATED"]),
    );
  });

  it("a token in the upgrade's Authorization header works without connectionParams", async () => {
    const conn = await openUpgrade({ headers: bearer(h.token) });
    expect(await init(conn)).toBe("ack");
    const msgs = await wsQuery(conn, "q", VIEWER);
    expect(msgs[0]).toMatchObject({
      type: "next",
      payload: { data: { viewer: { name: "admin", authenticatedBy: "bearer" } } },
    });
    conn.ws.close();
  });

  it("a foreign Origin is refused at the upgrade (403) even with a valid token: no cross-site WebSocket hijacking", async () => {
    const from = freshSource();
    const u = await upgrade({ headers: bearer(h.token), origin: EVIL, from });
    expect(u).toMatchObject({ ok: false, status: 403 });
    const n = await upgrade({ headers: bearer(h.token), origin: "null", from });
    expect(n).toMatchObject({ ok: false, status: 403 });
    const rows = await deniedFrom(from, 2);
    expect(rows.map((r) => [r.operation, r.result])).toEqual([
      ["websocket", "FORBIDDEN_ORIGIN"],
      ["websocket", "FORBIDDEN_ORIGIN"],
    ]);
  });

  it("the session cookie works on an upgrade with the own Origin, and is refused (403) with a foreign or no Origin", async () => {
    const cookie = await sessionCookie();
    const conn = await openUpgrade({ headers: { cookie }, origin: own() });
    expect(await init(conn)).toBe("ack");
    const msgs = await wsQuery(conn, "q", VIEWER);
    expect(msgs[0]).toMatchObject({ payload: { data: { viewer: { authenticatedBy: "cookie" } } } });
    conn.ws.close();
    const from = freshSource();
    const foreign = await upgrade({ headers: { cookie }, origin: EVIL, from });
    expect(foreign).toMatchObject({ ok: false, status: 403 });
    const none = await upgrade({ headers: { cookie }, from });
    expect(none).toMatchObject({ ok: false, status: 403 });
    const rows = await deniedFrom(from, 2);
    expect(rows.map((r) => [r.operation, r.result])).toEqual([
      ["websocket", "FORBIDDEN_ORIGIN"],
      ["websocket", "FORBIDDEN"],
    ]);
  });

  it("maxConnections 2: the third upgrade gets HTTP 503; a freed slot is usable again", async () => {
    const small = await startAppHarness({ config: { maxConnections: "2" } });
    onCleanup(() => small.close());
    const p = small.app.gateway.port;
    const a = await openUpgrade({ port: p, headers: bearer(small.token) });
    const b = await openUpgrade({ port: p, headers: bearer(small.token) });
    expect(await init(a)).toBe("ack");
    expect(await init(b)).toBe("ack");
    const third = await upgrade({ port: p, headers: bearer(small.token) });
    expect(third).toMatchObject({ ok: false, status: 503 });
    expect((third as { body: string }).body).toMatch(/too many WebSocket connections \(2\)/);
    a.ws.close();
    await a.closed;
    const again = await waitFor(
      async () => {
        const u = await upgrade({ port: p, headers: bearer(small.token) });
        return u.ok ? u.conn : null;
      },
      5_000,
      "a freed connection slot",
      100,
    );
    expect(await init(again)).toBe("ack");
  });

  it("maxConnections 2 caps SSE streams too: the third gets 503 TOO_MANY_CONNECTIONS", async () => {
    const small = await startAppHarness({ config: { maxConnections: "2" } });
    onCleanup(() => small.close());
    const p = small.app.gateway.port;
    /** Open an SSE stream and keep it open (closed after the test). */
    const stream = () =>
      new Promise<{ status: number; text: Promise<string> }>((resolve, reject) => {
        const req = http.request({
          host: "127.0.0.1",
          port: p,
          path: `/graphql?query=${encodeURIComponent("subscription { fleetChanges { __typename } }")}`,
          headers: { ...bearer(small.token), accept: "text/event-stream" },
          agent: false,
        });
        onCleanup(() => void req.destroy());
        req.on("error", reject);
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          const text = new Promise<string>((done) =>
            res.on("end", () => done(Buffer.concat(chunks).toString("utf8"))),
          );
          resolve({ status: res.statusCode ?? 0, text });
        });
        req.end();
      });
    expect((await stream()).status).toBe(200);
    expect((await stream()).status).toBe(200);
    const third = await stream();
    expect(third.status).toBe(503);
    expect(JSON.parse(await third.text)).toMatchObject({
      errors: [{ extensions: { code: "TOO_MANY_CONNECTIONS" } }],
    });
  });

  it("connections that never authenticate do not lock operators out of the connection cap", async () => {
    const small = await startAppHarness({ config: { maxConnections: "2" } });
    onCleanup(() => small.close());
    const p = small.app.gateway.port;
    // Two clients with no credentials upgrade and never send connection_init.
    await openUpgrade({ port: p });
    await openUpgrade({ port: p });
    // An operator with a valid token must still get in.
    const operator = await upgrade({ port: p, headers: bearer(small.token) });
    expect(operator.ok ? "open" : `refused ${operator.status}: ${operator.body.trim()}`).toBe("open");
  });

  it(`${MAX_SUBSCRIPTIONS_PER_CONNECTION} operations run on one connection; the next gets TOO_MANY_SUBSCRIPTIONS and the others keep working`, async () => {
    const conn = await openUpgrade({ headers: bearer(h.token) });
    expect(await init(conn)).toBe("ack");
    const query =
      "subscription { fleetChanges { __typename ... on AgentAppeared { seed agent { agentId } } } }";
    const ids = Array.from({ length: MAX_SUBSCRIPTIONS_PER_CONNECTION + 1 }, (_, i) => `s${i + 1}`);
    for (const id of ids) conn.send({ id, type: "subscribe", payload: { query } });
    const over = ids.at(-1)!;
    await waitFor(() => ofOp(conn, over).length > 0, 10_000, "an answer to the extra operation");
    const settled = (id: string) =>
      ofOp(conn, id).some(
        (m) =>
          m.type === "error" ||
          (m.type === "next" && JSON.stringify(m.payload).includes("FleetSeedComplete")),
      );
    await waitFor(() => ids.every(settled), 10_000, "every operation's seed or error");
    const refused = ids.filter((id) => ofOp(conn, id).some((m) => m.type === "error"));
    expect(refused).toEqual([over]);
    const err = ofOp(conn, over)[0]!;
    expect(err.type).toBe("error");
    expect(err.payload).toMatchObject([{ extensions: { code: "TOO_MANY_SUBSCRIPTIONS" } }]);
    // The first 100 are live: a spawn reaches every one of them.
    const spawned = parse(await postGql(SPAWN("reaches every subscription"), bearer(h.token))).data as {
      spawnAgent: { agent: { agentId: string } };
    };
    const agentId = spawned.spawnAgent.agent.agentId;
    await waitFor(
      () =>
        ids
          .slice(0, -1)
          .every((id) =>
            ofOp(conn, id).some((m) => m.type === "next" && JSON.stringify(m.payload).includes(agentId)),
          ),
      10_000,
      "the new agent on every running subscription",
    );
    // Ending one frees its slot.
    conn.send({ id: "s1", type: "complete" });
    const extra = await wsQuery(conn, "q-after", VIEWER);
    expect(extra[0]).toMatchObject({ type: "next", payload: { data: { viewer: { name: "admin" } } } });
    conn.ws.close();
  });

  it("an over-limit document on a shared connection is an error for that operation only (no 4500 close)", async () => {
    const conn = await openUpgrade({ headers: bearer(h.token) });
    expect(await init(conn)).toBe("ack");
    conn.send({
      id: "live",
      type: "subscribe",
      payload: {
        query: "subscription { fleetChanges { __typename ... on AgentAppeared { agent { agentId } } } }",
      },
    });
    await waitFor(
      () => ofOp(conn, "live").some((m) => JSON.stringify(m.payload).includes("FleetSeedComplete")),
      10_000,
      "the live subscription's seed",
    );
    const bad: Record<string, [string, RegExp]> = {
      deep: [DEEP_QUERY, /depth/i],
      aliases: [ALIASES_QUERY, /alias/i],
      tokens: [TOKENS_QUERY, /token/i],
      directives: [DIRECTIVES_QUERY, /directive/i],
      syntax: ["{ viewer { name ", /Syntax Error/],
    };
    for (const [id, [query, message]] of Object.entries(bad)) {
      const msgs = await wsQuery(conn, id, query);
      expect(msgs, id).toHaveLength(1);
      expect(msgs[0]!.type, id).toBe("error");
      expect(JSON.stringify(msgs[0]!.payload), id).toMatch(message);
    }
    let closedWith: number | null = null;
    void conn.closed.then((c) => (closedWith = c.code));
    // The other operations of the connection go on: a query, and live changes of the subscription.
    const ok = await wsQuery(conn, "after", VIEWER);
    expect(ok[0]).toMatchObject({ type: "next", payload: { data: { viewer: { name: "admin" } } } });
    const spawned = parse(await postGql(SPAWN("after a bad document"), bearer(h.token))).data as {
      spawnAgent: { agent: { agentId: string } };
    };
    const agentId = spawned.spawnAgent.agent.agentId;
    await waitFor(
      () => ofOp(conn, "live").some((m) => m.type === "next" && JSON.stringify(m.payload).includes(agentId)),
      10_000,
      "the spawn on the live subscription",
    );
    expect(closedWith).toBeNull();
    expect(conn.ws.readyState).toBe(WebSocket.OPEN);
    conn.ws.close();
  });
});

// ═══ 7. Limits on HTTP ═════════════════════════════════════════════════════════════════════════

/** Depth 16 (> 12): agents → edges → node → workspace → agents → … */
const DEEP_QUERY =
  "{ agents(first: 1) { edges { node { workspace { agents(first: 1) { edges { node { workspace { agents(first: 1) { edges { node { workspace { name } } } } } } } } } } } } }";
/** 31 aliases (> 30). */
const ALIASES_QUERY = `{ ${Array.from({ length: QUERY_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: version`).join(" ")} }`;
/** More than 5000 tokens. */
const TOKENS_QUERY = `{ viewer { ${"name ".repeat(QUERY_LIMITS.maxTokens)} } }`;
/** 51 directives (> 50), few tokens otherwise. */
const DIRECTIVES_QUERY = `{ ${"__typename @skip(if: false) ".repeat(QUERY_LIMITS.maxDirectives + 1)} }`;

describe("limits on HTTP", () => {
  it("nodes(ids:) takes at most 100 ids", async () => {
    const spawned = parse(await postGql(SPAWN("a node to fetch"), bearer(h.token))).data as {
      spawnAgent: { agent: { agentId: string } };
    };
    const agentId = spawned.spawnAgent.agent.agentId;
    const relayId = await waitFor(
      async () => {
        const r = await h.gql<{ agent: { id: string } | null }>(
          `query($a: String!) { agent(agentId: $a) { id } }`,
          { a: agentId },
        );
        return r.data?.agent?.id;
      },
      10_000,
      "the spawned agent's row",
    );
    const q = "query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Agent { agentId } } }";
    const ok = parse(await postGql(q, bearer(h.token), undefined, { ids: Array(100).fill(relayId) }));
    expect(ok.errors).toBeUndefined();
    const nodes = (ok.data as { nodes: { agentId: string }[] }).nodes;
    expect(nodes).toHaveLength(100);
    expect(new Set(nodes.map((n) => n.agentId))).toEqual(new Set([agentId]));
    for (const n of [101, 30_000]) {
      const over = parse(await postGql(q, bearer(h.token), undefined, { ids: Array(n).fill(relayId) }));
      expect(over.errors?.[0]?.message, `${n} ids`).toMatch(/at most 100 ids/);
      expect((over.data as { nodes?: unknown } | null)?.nodes ?? null).toBeNull();
    }
  });

  it("nodes(ids:) answers null for unknown and malformed ids, as its description says", async () => {
    const unknown = Buffer.from("Agent:0000000000ff").toString("base64");
    const notANode = Buffer.from("Viewer:admin").toString("base64");
    const r = parse(
      await postGql("query($ids: [ID!]!) { nodes(ids: $ids) { id } }", bearer(h.token), undefined, {
        ids: [unknown, "not a global id", notANode],
      }),
    );
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ nodes: [null, null, null] });
  });

  it("documents over the token, directive, alias and depth limits are refused with a clear error", async () => {
    const cases: [string, string, RegExp][] = [
      ["tokens", TOKENS_QUERY, new RegExp(`token limit of ${QUERY_LIMITS.maxTokens}`, "i")],
      ["directives", DIRECTIVES_QUERY, new RegExp(`directives limit of ${QUERY_LIMITS.maxDirectives}`, "i")],
      ["aliases", ALIASES_QUERY, new RegExp(`aliases limit of ${QUERY_LIMITS.maxAliases}`, "i")],
      ["depth", DEEP_QUERY, new RegExp(`depth limit of ${QUERY_LIMITS.maxDepth}`, "i")],
    ];
    for (const [what, query, message] of cases) {
      const a = await postGql(query, bearer(h.token));
      const body = parse(a);
      expect(body.data ?? undefined, what).toBeUndefined();
      expect(body.errors?.map((e) => e.message).join("\n"), what).toMatch(message);
    }
    // Just under the limits they run.
    const fine = await postGql(
      `{ viewer { ${"name ".repeat(100)} } ${"__typename @skip(if: false) ".repeat(QUERY_LIMITS.maxDirectives - 1)} }`,
      bearer(h.token),
    );
    expect(parse(fine).errors).toBeUndefined();
  });

  it(
    "a request whose headers never finish is closed by the server within ~15 s",
    async () => {
      const socket = net.connect({ host: "127.0.0.1", port: port() });
      onCleanup(() => void socket.destroy());
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", resolve);
        socket.once("error", reject);
      });
      const started = Date.now();
      let answer = "";
      socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
      socket.on("error", () => {});
      socket.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port()}\r\n`);
      const closedAfter = await new Promise<number>((resolve) => {
        const timer = setTimeout(() => resolve(Infinity), HTTP_TIMEOUTS.headers + 6_000);
        socket.once("close", () => {
          clearTimeout(timer);
          resolve(Date.now() - started);
        });
      });
      expect(closedAfter).toBeGreaterThanOrEqual(HTTP_TIMEOUTS.headers - 500);
      expect(closedAfter).toBeLessThanOrEqual(HTTP_TIMEOUTS.headers + 5_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    },
    HTTP_TIMEOUTS.headers + 15_000,
  );
});

// ═══ 8. What reaches processes ═════════════════════════════════════════════════════════════════

const RESULT = `__typename ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }
  ... on ProviderMisconfiguredError { field }`;

type Results = Record<
  string,
  {
    __typename: string;
    code?: string;
    message?: string;
    field?: string;
    fieldErrors?: { path: string[]; message: string }[];
  }
>;

describe("what reaches processes (as an admin)", () => {
  const HIJACKS: Record<string, Record<string, string>> = {
    nodeOptions: { NODE_OPTIONS: "--import=data:text/javascript,process.exit(7)" },
    ldPreload: { LD_PRELOAD: "/tmp/evil.so" },
    gitConfig: {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.fsmonitor",
      GIT_CONFIG_VALUE_0: "touch /tmp/pwned",
    },
    path: { PATH: "/tmp/evil:/usr/bin" },
    bashEnv: { BASH_ENV: "/tmp/evil.sh" },
  };
  const envLiteral = (vars: Record<string, string>) =>
    `[${Object.entries(vars)
      .map(([name, value]) => `{ name: ${JSON.stringify(name)}, value: ${JSON.stringify(value)} }`)
      .join(", ")}]`;

  it("env that hijacks a process is ProviderMisconfiguredError (field env) on add and update; nothing stored", async () => {
    const root = tmpDir("pt-hijack-");
    const before = await fleetSnapshot();
    const fields = Object.entries(HIJACKS)
      .map(
        ([alias, vars]) =>
          `add_${alias}: addWorkspace(input: { name: "hijack", root: ${JSON.stringify(root)}, config: { env: ${envLiteral(vars)} } }) { ${RESULT} }
           update_${alias}: updateWorkspaceConfig(input: { workspace: "demo", force: true, config: { env: ${envLiteral(vars)} } }) { ${RESULT} }`,
      )
      .join("\n");
    const r = await h.gql<Results>(`mutation { ${fields} }`);
    expect(r.errors).toBeUndefined();
    for (const [alias, vars] of Object.entries(HIJACKS)) {
      for (const op of ["add", "update"]) {
        const res = r.data![`${op}_${alias}`]!;
        expect(res, `${op} ${alias}`).toMatchObject({
          __typename: "ProviderMisconfiguredError",
          field: "env",
        });
        expect(res.message).toContain(Object.keys(vars)[0]);
      }
    }
    expect(await fleetSnapshot()).toEqual(before);
    const stored = await h.app.db.prisma.workspace.findUnique({ where: { name: "hijack" } });
    expect(stored).toBeNull();
    // The refusals are in the audit log, without the values.
    const rows = await h.app.db.prisma.auditEntry.findMany({
      where: {
        operation: { in: ["addWorkspace", "updateWorkspaceConfig"] },
        result: "PROVIDER_MISCONFIGURED",
      },
    });
    expect(rows.length).toBeGreaterThanOrEqual(2 * Object.keys(HIJACKS).length);
    expect(JSON.stringify(rows)).not.toContain("/tmp/evil");
  });

  it('apiKeyFromEnv "HOME", "PROSPERO_ADMIN_TOKEN" or "PROSPERO_API_KEY" is refused', async () => {
    const root = tmpDir("pt-key-");
    const before = await fleetSnapshot();
    const r = await h.gql<Results>(
      `mutation($root: String!) {
        home: addWorkspace(input: { name: "keyhome", root: $root, config: { provider: ANTHROPIC, apiKeyFromEnv: "HOME" } }) { ${RESULT} }
        admin: addWorkspace(input: { name: "keyadmin", root: $root, config: { provider: ANTHROPIC, apiKeyFromEnv: "PROSPERO_ADMIN_TOKEN" } }) { ${RESULT} }
        prosperoKey: addWorkspace(input: { name: "keypk", root: $root, config: { provider: ANTHROPIC, apiKeyFromEnv: "PROSPERO_API_KEY" } }) { ${RESULT} }
        update: updateWorkspaceConfig(input: { workspace: "demo", force: true, config: { provider: ANTHROPIC, apiKeyFromEnv: "PROSPERO_ADMIN_TOKEN" } }) { ${RESULT} }
      }`,
      { root },
    );
    expect(r.errors).toBeUndefined();
    for (const k of ["home", "admin", "prosperoKey", "update"]) {
      expect(r.data![k], k).toMatchObject({
        __typename: "ProviderMisconfiguredError",
        field: "apiKeyFromEnv",
      });
    }
    expect(await fleetSnapshot()).toEqual(before);
  });

  it("an allowed env var's value is stored but never returned; EnvVar has no value field", async () => {
    const root = tmpDir("pt-envok-");
    const SECRET = "s3cret-value-that-must-not-come-back";
    const added = await h.gql<Results>(
      `mutation($root: String!, $v: String!) { addWorkspace(input: { name: "envok", root: $root, config: { provider: ANTHROPIC, env: [{ name: "ANTHROPIC_VERSION", value: $v }] } }) { ${RESULT} } }`,
      { root, v: SECRET },
    );
    expect(added.data?.addWorkspace).toMatchObject({ __typename: "AddWorkspacePayload" });
    onCleanup(async () => {
      await h.gql(`mutation { removeWorkspace(input: { workspace: "envok" }) { __typename } }`);
    });
    const q = await postGql(
      `{ workspace(name: "envok") { config { env { name valueSet } apiKeyFromEnv baseUrl } } workspaces { name config { env { name valueSet } } } }`,
      bearer(h.token),
    );
    expect(parse(q).data).toMatchObject({
      workspace: { config: { env: [{ name: "ANTHROPIC_VERSION", valueSet: true }] } },
    });
    expect(q.text).not.toContain(SECRET);
    const withValue = await postGql(
      `{ workspace(name: "envok") { config { env { name value } } } }`,
      bearer(h.token),
    );
    expect(parse(withValue).errors?.[0]?.message).toMatch(/Cannot query field "value" on type "EnvVar"/);
    const introspected = parse(
      await postGql(`{ __type(name: "EnvVar") { fields { name } } }`, bearer(h.token)),
    ).data as { __type: { fields: { name: string }[] } };
    expect(introspected.__type.fields.map((f) => f.name).sort()).toEqual(["name", "valueSet"]);
    const audit = await h.app.db.prisma.auditEntry.findMany({
      where: { operation: "addWorkspace", workspace: "envok" },
    });
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    const log = parse(
      await postGql(`{ auditLog(first: 50) { edges { node { operation args } } } }`, bearer(h.token)),
    );
    expect(JSON.stringify(log)).not.toContain(SECRET);
  });

  it('roots "/", "/etc", "/proc/self/cwd" and a 2000-character path are ValidationError with path ["input", "root"]', async () => {
    const before = await fleetSnapshot();
    const roots: Record<string, string> = {
      slash: "/",
      etc: "/etc",
      procCwd: "/proc/self/cwd",
      long: `/${"a".repeat(1999)}`,
    };
    const r = await h.gql<Results>(
      `mutation { ${Object.entries(roots)
        .map(
          ([alias, root]) =>
            `${alias}: addWorkspace(input: { name: "r-${alias.toLowerCase()}", root: ${JSON.stringify(root)} }) { ${RESULT} }`,
        )
        .join("\n")} }`,
    );
    expect(r.errors).toBeUndefined();
    for (const alias of Object.keys(roots)) {
      expect(r.data![alias], alias).toMatchObject({
        __typename: "ValidationError",
        code: "BAD_USER_INPUT",
        fieldErrors: [{ path: ["input", "root"] }],
      });
    }
    expect(r.data!.slash!.fieldErrors![0]!.message).toMatch(/whole file system/);
    expect(r.data!.etc!.fieldErrors![0]!.message).toMatch(/system directory/);
    expect(r.data!.procCwd!.fieldErrors![0]!.message).toMatch(/\/proc/);
    expect(r.data!.long!.fieldErrors![0]!.message).toMatch(/at most 1024 characters/);
    expect(await fleetSnapshot()).toEqual(before);
  });
});

// ═══ 9. GraphiQL ═══════════════════════════════════════════════════════════════════════════════

describe("GraphiQL", () => {
  it("GET /graphql as a browser: a small page with a CSP forbidding framing; immutable cached assets", async () => {
    const page = await send({
      path: "/graphql",
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(page.headers["content-security-policy"]).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(Buffer.byteLength(page.text)).toBeLessThan(100 * 1024);
    expect(page.text).not.toMatch(/<script>(?!\s*<\/script>)/);
    const assets = [...page.text.matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const a = await send({ path: asset, headOnly: true });
      expect(a.status, asset).toBe(200);
      expect(a.headers["cache-control"], asset).toMatch(/immutable/);
      expect(a.headers["cache-control"], asset).toMatch(/max-age=\d{6,}/);
    }
  });
});
