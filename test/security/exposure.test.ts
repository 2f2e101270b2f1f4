// Exposure off loopback and local file modes (issue 11 items 1, 6 and 8), with real `prospero serve`
// processes: a non-loopback bind starts only with TLS or behind a trusted proxy, and says so loudly;
// `--insecure-no-auth` is loopback-only (and not behind a proxy), warns, and still checks Origin
// and Host; over TLS the API, graphql-ws and the session cookie are HTTPS-only (`Secure`,
// `__Host-`); behind `--trust-proxy` only the proxy may connect and the audit log records the
// forwarded client; the data dir, the database and the admin token are private to the gateway's
// user, also when they were not before.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import {
  runProspero,
  serveToken,
  startServe,
  waitForStatus,
  type ServeProcess,
} from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";
import { makeTestTls, type TestTls } from "../support/tls.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  }
});

let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls?.cleanup());

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const p = await startServe(["--no-autostart", ...args], env);
  running.push(p);
  return p;
}

/** `prospero serve --port 0 --no-autostart <args>` for an HTTP or HTTPS gateway. */
const serveAnyScheme = (args: string[]): Promise<ServeProcess> => serve(args);

/** One pino line of the gateway's stderr. */
interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function logLines(stderr: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // a line still being written
    }
  }
  return out;
}

/** The first log line matching `pred`, waiting up to `timeoutMs`. */
async function logged(p: ServeProcess, pred: (l: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const hit = logLines(p.stderr()).find(pred);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no such log line:\n${p.stderr()}`);
}

const portOf = (p: ServeProcess): number => Number(new URL(p.url).port);

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP(S) request with full control of the headers (including Host) and of the local address
 * it comes from, on a fresh connection.
 */
function request(opts: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  localAddress?: string;
  ca?: string;
}): Promise<RawResponse> {
  const u = new URL(opts.url);
  const lib = u.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      {
        hostname: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: opts.method ?? "GET",
        headers: opts.headers ?? {},
        localAddress: opts.localAddress,
        agent: false,
        ...(opts.ca ? { ca: opts.ca } : {}),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.setTimeout(10_000, () => req.destroy(new Error("request timed out")));
    req.end(opts.body);
  });
}

/** POST a GraphQL document as JSON (through `request`). */
function gqlRequest(
  url: string,
  query: string,
  opts: { token?: string; headers?: Record<string, string>; localAddress?: string; ca?: string } = {},
): Promise<RawResponse> {
  return request({
    url: `${url}/graphql`,
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({ query }),
    localAddress: opts.localAddress,
    ca: opts.ca,
  });
}

/** A WebSocket upgrade's outcome: the HTTP status it was refused with, or "open". */
function upgrade(url: string, opts: WebSocket.ClientOptions = {}): Promise<number | "open"> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, "graphql-transport-ws", opts);
    ws.on("open", () => {
      ws.terminate();
      resolve("open");
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on("error", reject);
  });
}

/** A mutation that needs no workspace: its typed NotFound result proves it was allowed to run. */
const KILL_NOBODY = `mutation { killAgent(input: { agentId: "000000000000" }) { __typename ... on Error { code } ... on NotFoundError { entity key } } }`;

const mode = (p: string): number => fs.statSync(p).mode & 0o7777;

describe("start-up refusals", () => {
  it("--bind 0.0.0.0 without TLS or a trusted proxy: exit 2, says TLS or --trust-proxy is needed, creates nothing", async () => {
    const data = path.join(tmpDir(), "data");
    const res = await runProspero(["serve", "--port", "0", "--bind", "0.0.0.0", "--data-dir", data]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/invalid --bind \/ PROSPERO_BIND/);
    expect(res.stderr).toMatch(/--tls-cert and --tls-key/);
    expect(res.stderr).toMatch(/--trust-proxy/);
    expect(res.stderr).toMatch(/0\.0\.0\.0 would expose/);
    expect(fs.existsSync(data)).toBe(false);
    // The same through the environment, and for an IPv6 wildcard.
    const viaEnv = await runProspero(["serve", "--port", "0", "--data-dir", data], { PROSPERO_BIND: "::" });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stderr).toMatch(/--trust-proxy/);
  });

  it("--insecure-no-auth with a non-loopback bind: exit 2, also with TLS or a proxy", async () => {
    const data = path.join(tmpDir(), "data");
    const plain = await runProspero([
      "serve",
      "--port",
      "0",
      "--insecure-no-auth",
      "--bind",
      "0.0.0.0",
      "--data-dir",
      data,
    ]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/invalid --insecure-no-auth/);
    expect(plain.stderr).toMatch(/refusing to serve without authentication on 0\.0\.0\.0/);
    const withTls = await runProspero([
      "serve",
      "--port",
      "0",
      "--insecure-no-auth",
      "--bind",
      "0.0.0.0",
      "--tls-cert",
      tls.certPath,
      "--tls-key",
      tls.keyPath,
      "--data-dir",
      data,
    ]);
    expect(withTls.code).toBe(2);
    expect(withTls.stderr).toMatch(/refusing to serve without authentication/);
    const behindProxy = await runProspero(
      ["serve", "--port", "0", "--bind", "0.0.0.0", "--trust-proxy", "127.0.0.2", "--data-dir", data],
      { PROSPERO_INSECURE_NO_AUTH: "1" },
    );
    expect(behindProxy.code).toBe(2);
    expect(behindProxy.stderr).toMatch(/refusing to serve without authentication/);
    expect(fs.existsSync(data)).toBe(false);
  });

  it("--insecure-no-auth behind --trust-proxy on a loopback bind: exit 2 (the proxy makes it reachable from the network)", async () => {
    // A trusted proxy exists to carry other machines' requests to the gateway: with authentication
    // off, everyone who can reach the proxy would be admin, exactly what a non-loopback bind is
    // refused for.
    const data = path.join(tmpDir(), "data");
    const outcome = await startServe([
      "--insecure-no-auth",
      "--bind",
      "127.0.0.1",
      "--trust-proxy",
      "127.0.0.2",
      "--no-autostart",
      "--data-dir",
      data,
    ]).then(
      (p) => {
        running.push(p);
        return `listening on ${p.url}`;
      },
      (err: Error) => err.message,
    );
    expect(outcome).toMatch(/exited \(2\) before listening/);
    expect(outcome).toMatch(/invalid --insecure-no-auth/);
  });

  it("--tls-cert without --tls-key (or the reverse): exit 2", async () => {
    const data = path.join(tmpDir(), "data");
    const certOnly = await runProspero([
      "serve",
      "--port",
      "0",
      "--tls-cert",
      tls.certPath,
      "--data-dir",
      data,
    ]);
    expect(certOnly.code).toBe(2);
    expect(certOnly.stderr).toMatch(/invalid --tls-cert \/ --tls-key: only one was given/);
    const keyOnly = await runProspero(["serve", "--port", "0", "--tls-key", tls.keyPath, "--data-dir", data]);
    expect(keyOnly.code).toBe(2);
    expect(keyOnly.stderr).toMatch(/both a certificate and its key/);
    expect(fs.existsSync(data)).toBe(false);
  });

  it("an unreadable or unusable certificate: exit 1 with a clear message, nothing created", async () => {
    const data = path.join(tmpDir(), "data");
    const missing = path.join(tmpDir(), "no-such-cert.pem");
    const res = await runProspero([
      "serve",
      "--port",
      "0",
      "--tls-cert",
      missing,
      "--tls-key",
      tls.keyPath,
      "--data-dir",
      data,
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/prospero: cannot read the TLS certificate or key: ENOENT/);
    expect(res.stderr).toContain(missing);
    const aDir = await runProspero([
      "serve",
      "--port",
      "0",
      "--tls-cert",
      tls.dir,
      "--tls-key",
      tls.keyPath,
      "--data-dir",
      data,
    ]);
    expect(aDir.code).toBe(1);
    expect(aDir.stderr).toMatch(/cannot read the TLS certificate or key: EISDIR/);
    // A FIFO with no writer: refused at once instead of blocking the process (signals included).
    const fifo = path.join(tmpDir(), "cert.pem");
    execFileSync("mkfifo", [fifo]);
    const aFifo = await runProspero([
      "serve",
      "--port",
      "0",
      "--tls-cert",
      fifo,
      "--tls-key",
      tls.keyPath,
      "--data-dir",
      data,
    ]);
    expect(aFifo.code).toBe(1);
    expect(aFifo.stderr).toContain(
      `prospero: cannot read the TLS certificate or key: ${fifo} is not a regular file`,
    );
    const garbage = path.join(tmpDir(), "garbage.pem");
    fs.writeFileSync(garbage, "not a certificate\n");
    const notPem = await runProspero([
      "serve",
      "--port",
      "0",
      "--tls-cert",
      garbage,
      "--tls-key",
      tls.keyPath,
      "--data-dir",
      data,
    ]);
    expect(notPem.code).toBe(1);
    expect(notPem.stderr).toMatch(/prospero: the TLS certificate or key is not usable/);
    // A key that does not belong to the certificate.
    const other = makeTestTls();
    try {
      const mismatch = await runProspero([
        "serve",
        "--port",
        "0",
        "--tls-cert",
        tls.certPath,
        "--tls-key",
        other.keyPath,
        "--data-dir",
        data,
      ]);
      expect(mismatch.code).toBe(1);
      expect(mismatch.stderr).toMatch(/prospero: the TLS certificate or key is not usable/);
    } finally {
      other.cleanup();
    }
    expect(fs.existsSync(data)).toBe(false);
  });
});

describe("--insecure-no-auth on loopback", () => {
  it("starts, warns (level 40), answers a mutation without a token, still refuses a foreign Origin and Host", async () => {
    const p = await serve(["--insecure-no-auth", "--data-dir", path.join(tmpDir(), "data")]);
    const warning = await logged(p, (l) => /AUTHENTICATION IS OFF/.test(l.msg));
    expect(warning.level).toBe(40);
    expect(warning.msg).toMatch(/--insecure-no-auth/);
    await waitForStatus(`${p.url}/readyz`, 200);

    const ok = await gqlRequest(p.url, KILL_NOBODY);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({
      data: {
        killAgent: { __typename: "NotFoundError", code: "NOT_FOUND", entity: "AGENT", key: "000000000000" },
      },
    });

    // Not authentication, so still enforced: a foreign page and a rebound host name.
    const foreignOrigin = await gqlRequest(p.url, KILL_NOBODY, {
      headers: { origin: "http://evil.example" },
    });
    expect(foreignOrigin.status).toBe(403);
    expect(foreignOrigin.body).not.toContain("killAgent");
    const nullOrigin = await gqlRequest(p.url, KILL_NOBODY, { headers: { origin: "null" } });
    expect(nullOrigin.status).toBe(403);
    const foreignHost = await gqlRequest(p.url, KILL_NOBODY, {
      headers: { host: `evil.example:${portOf(p)}` },
    });
    expect(foreignHost.status).toBe(421);
    expect(foreignHost.body).not.toContain("killAgent");
    const form = await request({
      url: `${p.url}/graphql`,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `query=${encodeURIComponent(KILL_NOBODY)}`,
    });
    expect(form.status).toBe(415);
    const ws = p.url.replace("http", "ws");
    expect(await upgrade(`${ws}/graphql`, { origin: "http://evil.example" })).toBe(403);
    expect(await upgrade(`${ws}/graphql`, { headers: { host: "evil.example" } })).toBe(421);
    expect(await upgrade(`${ws}/graphql`)).toBe("open");

    // Only the allowed call ran: one killAgent row, by the insecure principal.
    const audit = await gqlRequest(
      p.url,
      `{ auditLog(filter: { operation: "killAgent" }) { edges { node { role denied result } } } }`,
    );
    expect(JSON.parse(audit.body)).toEqual({
      data: { auditLog: { edges: [{ node: { role: "insecure", denied: false, result: "NOT_FOUND" } }] } },
    });
  });
});

describe("TLS", () => {
  it("--bind 0.0.0.0 with a certificate: https URL, a warning naming the exposure, HTTPS and WSS with the token, no plain HTTP, a Secure __Host- cookie", async () => {
    const p = await serveAnyScheme([
      "--bind",
      "0.0.0.0",
      "--tls-cert",
      tls.certPath,
      "--tls-key",
      tls.keyPath,
      "--data-dir",
      path.join(tmpDir(), "data"),
    ]);
    const listening = await logged(p, (l) => l.msg === "gateway listening");
    // A wildcard bind logs a URL a browser can open: the loopback address, never 0.0.0.0.
    expect(listening.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(listening.graphql).toMatch(/^https:\/\/.*\/graphql$/);
    const exposed = await logged(p, (l) => l.level === 40 && l.bind === "0.0.0.0");
    expect(exposed).toMatchObject({ tls: true, trustedProxies: [] });
    expect(exposed.msg).toMatch(/exposed beyond this machine on 0\.0\.0\.0/);
    expect(exposed.msg).toMatch(/GraphQL API/);
    expect(exposed.msg).toMatch(/dashboard/);
    const token = await serveToken(p);
    const port = portOf(p);
    const base = `https://127.0.0.1:${port}`;

    const viewer = await gqlRequest(base, "{ viewer { role } }", { token, ca: tls.caPem });
    expect(viewer.status).toBe(200);
    expect(JSON.parse(viewer.body)).toEqual({ data: { viewer: { role: "ADMIN" } } });
    const anonymous = await gqlRequest(base, "{ viewer { role } }", { ca: tls.caPem });
    expect(anonymous.status).toBe(401);
    // Without the CA the certificate is not trusted (it is the test CA's, not a public one).
    await expect(gqlRequest(base, "{ viewer { role } }", { token })).rejects.toThrow(/certificate/i);
    // Plain HTTP to the TLS port gets no HTTP answer at all.
    const plain = await request({ url: `http://127.0.0.1:${port}/healthz` }).then(
      (r) => `HTTP ${r.status}`,
      (err: Error) => `error: ${err.message}`,
    );
    expect(plain).toMatch(/^error: /);
    const plainGql = await gqlRequest(`http://127.0.0.1:${port}`, "{ viewer { role } }", { token }).then(
      (r) => r.body,
      () => "",
    );
    expect(plainGql).not.toContain("ADMIN");

    // WSS: a graphql-ws subscription with the token in connectionParams.
    const ca = tls.caPem;
    class TrustingWebSocket extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols, { ca });
      }
    }
    const client = createClient({
      url: `wss://127.0.0.1:${port}/graphql`,
      webSocketImpl: TrustingWebSocket,
      retryAttempts: 0,
      lazy: true,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    try {
      const first = await new Promise<unknown>((resolve, reject) => {
        const stop = client.subscribe<{ fleetChanges: { __typename: string } }>(
          { query: "subscription { fleetChanges { __typename } }" },
          {
            next: (v) => {
              stop();
              resolve(v);
            },
            error: (e: unknown) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))),
            complete: () => reject(new Error("completed without an item")),
          },
        );
      });
      expect(first).toEqual({ data: { fleetChanges: { __typename: "FleetSeedComplete" } } });
    } finally {
      await client.dispose();
    }
    // ws:// to the TLS port does not upgrade.
    await expect(upgrade(`ws://127.0.0.1:${port}/graphql`)).rejects.toThrow();

    // The dashboard's ?token= exchange over TLS: a Secure, __Host- prefixed, host-only cookie.
    const exchange = await request({ url: `${base}/?token=${encodeURIComponent(token)}`, ca: tls.caPem });
    expect(exchange.status).toBe(303);
    expect(exchange.headers.location).toBe("/");
    const setCookie = exchange.headers["set-cookie"]?.[0] ?? "";
    const [nameValue, ...attrs] = setCookie.split(";").map((s) => s.trim());
    expect(nameValue).toMatch(new RegExp(`^__Host-prospero_session_${port}=`));
    const lower = attrs.map((a) => a.toLowerCase());
    expect(lower).toContain("secure");
    expect(lower).toContain("httponly");
    expect(lower).toContain("samesite=strict");
    expect(lower).toContain("path=/");
    expect(lower.some((a) => a.startsWith("domain="))).toBe(false);
    // That cookie works from the gateway's own https origin.
    const byCookie = await gqlRequest(base, "{ viewer { role } }", {
      ca: tls.caPem,
      headers: { cookie: nameValue!, origin: base },
    });
    expect(byCookie.status).toBe(200);
    expect(JSON.parse(byCookie.body)).toEqual({ data: { viewer: { role: "ADMIN" } } });
    // ...and not from the http:// origin of the same host (a page served in clear text).
    const fromHttpOrigin = await gqlRequest(base, "{ viewer { role } }", {
      ca: tls.caPem,
      headers: { cookie: nameValue!, origin: `http://127.0.0.1:${port}` },
    });
    expect(fromHttpOrigin.status).toBe(403);
  });
});

describe("trusted proxy", () => {
  /** `{ auditLog }` rows of `operation`, asked through the proxy. */
  async function auditRows(
    url: string,
    token: string,
    operation: string,
  ): Promise<{ remoteAddress: string | null; result: string; denied: boolean }[]> {
    const res = await gqlRequest(
      url,
      `{ auditLog(filter: { operation: "${operation}" }) { edges { node { remoteAddress result denied } } } }`,
      { token, localAddress: "127.0.0.2" },
    );
    const body = JSON.parse(res.body) as {
      data: {
        auditLog: { edges: { node: { remoteAddress: string | null; result: string; denied: boolean } }[] };
      };
    };
    return body.data.auditLog.edges.map((e) => e.node);
  }

  it("loopback bind with --trust-proxy 127.0.0.2: only the proxy connects, X-Forwarded-For is the audited address, /healthz stays open", async () => {
    const p = await serve([
      "--bind",
      "127.0.0.1",
      "--trust-proxy",
      "127.0.0.2",
      "--data-dir",
      path.join(tmpDir(), "data"),
    ]);
    const token = await serveToken(p);
    await waitForStatus(`${p.url}/readyz`, 200);

    // Direct from 127.0.0.1, even with the admin token: refused.
    const direct = await gqlRequest(p.url, "{ viewer { role } }", { token });
    expect(direct.status).toBe(403);
    expect(direct.body).toMatch(/trusted proxy/);
    const directMutation = await gqlRequest(p.url, KILL_NOBODY, { token });
    expect(directMutation.status).toBe(403);
    const ws = p.url.replace("http", "ws");
    expect(await upgrade(`${ws}/graphql`, { headers: { authorization: `Bearer ${token}` } })).toBe(403);
    const page = await request({ url: `${p.url}/?token=${encodeURIComponent(token)}` });
    expect(page.status).toBe(403);
    expect(page.headers["set-cookie"]).toBeUndefined();

    // Through the proxy: the forwarded client is who the audit log names.
    const forwarded = { "x-forwarded-for": "203.0.113.7" };
    const viaProxy = await gqlRequest(p.url, "{ viewer { role } }", {
      token,
      localAddress: "127.0.0.2",
      headers: forwarded,
    });
    expect(viaProxy.status).toBe(200);
    expect(JSON.parse(viaProxy.body)).toEqual({ data: { viewer: { role: "ADMIN" } } });
    const mutation = await gqlRequest(p.url, KILL_NOBODY, {
      token,
      localAddress: "127.0.0.2",
      headers: forwarded,
    });
    expect(JSON.parse(mutation.body)).toEqual({
      data: {
        killAgent: { __typename: "NotFoundError", code: "NOT_FOUND", entity: "AGENT", key: "000000000000" },
      },
    });
    // A client-supplied entry in front of the proxy's own is not believed: the proxy's last hop is.
    await gqlRequest(p.url, KILL_NOBODY, {
      token,
      localAddress: "127.0.0.2",
      headers: { "x-forwarded-for": "198.51.100.66, 203.0.113.8" },
    });
    // The proxy itself, with no forwarded header, is the client.
    await gqlRequest(p.url, KILL_NOBODY, { token, localAddress: "127.0.0.2" });
    // A denied attempt through the proxy is audited with the forwarded address too.
    await gqlRequest(p.url, KILL_NOBODY, {
      token: "prospero_not-a-real-token",
      localAddress: "127.0.0.2",
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    const rows = await auditRows(p.url, token, "killAgent");
    expect(rows.map((r) => r.remoteAddress).sort()).toEqual(["127.0.0.2", "203.0.113.7", "203.0.113.8"]);
    expect(rows.every((r) => r.result === "NOT_FOUND" && !r.denied)).toBe(true);
    const refused = await gqlRequest(
      p.url,
      `{ auditLog(filter: { deniedOnly: true }) { edges { node { operation remoteAddress result } } } }`,
      { token, localAddress: "127.0.0.2" },
    );
    expect(JSON.parse(refused.body)).toMatchObject({
      data: {
        auditLog: {
          edges: expect.arrayContaining([
            { node: { operation: "http", remoteAddress: "203.0.113.9", result: "UNAUTHENTICATED" } },
          ]) as unknown,
        },
      },
    });

    // Health checks answer anyone (counts only).
    const health = await request({ url: `${p.url}/healthz` });
    expect(health.status).toBe(200);
    expect(health.body).toBe("ok\n");
    expect((await request({ url: `${p.url}/readyz` })).status).toBe(200);
  });

  it("--bind 0.0.0.0 --trust-proxy 127.0.0.2: accepted because of the proxy, warns, still only the proxy connects", async () => {
    const p = await serve([
      "--bind",
      "0.0.0.0",
      "--trust-proxy",
      "127.0.0.2",
      "--data-dir",
      path.join(tmpDir(), "data"),
    ]);
    const exposed = await logged(p, (l) => l.level === 40 && l.bind === "0.0.0.0");
    expect(exposed).toMatchObject({ tls: false, trustedProxies: ["127.0.0.2"] });
    expect(exposed.msg).toMatch(/exposed beyond this machine on 0\.0\.0\.0/);
    const token = await serveToken(p);
    const base = `http://127.0.0.1:${portOf(p)}`;
    await waitForStatus(`${base}/readyz`, 200);
    expect((await gqlRequest(base, "{ viewer { role } }", { token })).status).toBe(403);
    const viaProxy = await gqlRequest(base, "{ viewer { role } }", { token, localAddress: "127.0.0.2" });
    expect(viaProxy.status).toBe(200);
    expect(JSON.parse(viaProxy.body)).toEqual({ data: { viewer: { role: "ADMIN" } } });
  });

  it("behind an HTTPS-terminating proxy (X-Forwarded-Proto: https): the dashboard's own https origin passes, and the session cookie is Secure", async () => {
    const p = await serve([
      "--trust-proxy",
      "127.0.0.2",
      "--public-host",
      "prospero.example.com",
      "--data-dir",
      path.join(tmpDir(), "data"),
    ]);
    const token = await serveToken(p);
    await waitForStatus(`${p.url}/readyz`, 200);
    const proxied = {
      host: "prospero.example.com",
      "x-forwarded-proto": "https",
      "x-forwarded-for": "203.0.113.7",
    };
    const exchange = await request({
      url: `${p.url}/?token=${encodeURIComponent(token)}`,
      localAddress: "127.0.0.2",
      headers: proxied,
    });
    expect(exchange.status).toBe(303);
    const setCookie = exchange.headers["set-cookie"]?.[0] ?? "";
    const cookie = setCookie.split(";")[0]!;
    const own = await gqlRequest(p.url, "{ viewer { role } }", {
      localAddress: "127.0.0.2",
      headers: { ...proxied, cookie, origin: "https://prospero.example.com" },
    });
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body)).toEqual({ data: { viewer: { role: "ADMIN" } } });
    const clearText = await gqlRequest(p.url, "{ viewer { role } }", {
      localAddress: "127.0.0.2",
      headers: { ...proxied, cookie, origin: "http://prospero.example.com" },
    });
    expect(clearText.status).toBe(403);
    // The browser reached the gateway over HTTPS: its session cookie must never travel in clear text.
    expect(setCookie.split(";").map((s) => s.trim().toLowerCase())).toContain("secure");
  });
});

describe("file modes", () => {
  let previousUmask: number | undefined;
  afterEach(() => {
    if (previousUmask !== undefined) process.umask(previousUmask);
    previousUmask = undefined;
  });

  it("a fresh data dir is 0700, prospero.db and admin-token 0600, under an operator umask of 022", async () => {
    previousUmask = process.umask(0o022);
    const data = path.join(tmpDir(), "fresh", "data");
    const p = await serve(["--data-dir", data]);
    await serveToken(p);
    await waitForStatus(`${p.url}/readyz`, 200);
    expect(mode(data)).toBe(0o700);
    expect(mode(path.join(data, "prospero.db"))).toBe(0o600);
    expect(mode(path.join(data, "admin-token"))).toBe(0o600);
    for (const f of fs.readdirSync(data)) expect(mode(path.join(data, f)) & 0o077, f).toBe(0);
    // The endpoint record local clients read: private too.
    const records = path.join(p.env.XDG_RUNTIME_DIR!, "prospero", "gateways");
    expect(mode(records)).toBe(0o700);
    expect(mode(path.join(records, `${portOf(p)}.json`))).toBe(0o600);
  });

  it("a pre-existing 0755 data dir with a 0644 database and admin-token is tightened at start", async () => {
    previousUmask = process.umask(0o022);
    const data = path.join(tmpDir(), "data");
    const first = await serve(["--data-dir", data]);
    const token = await serveToken(first);
    await waitForStatus(`${first.url}/readyz`, 200);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    fs.chmodSync(data, 0o755);
    for (const f of fs.readdirSync(data)) fs.chmodSync(path.join(data, f), 0o644);
    expect(mode(path.join(data, "prospero.db"))).toBe(0o644);

    const second = await serve(["--data-dir", data]);
    expect(await serveToken(second)).toBe(token); // the same gateway state, not a fresh one
    await waitForStatus(`${second.url}/readyz`, 200);
    expect(mode(data)).toBe(0o700);
    expect(mode(path.join(data, "prospero.db"))).toBe(0o600);
    expect(mode(path.join(data, "admin-token"))).toBe(0o600);
    for (const f of fs.readdirSync(data)) expect(mode(path.join(data, f)) & 0o077, f).toBe(0);
    const viewer = await gqlRequest(second.url, "{ viewer { role } }", { token });
    expect(JSON.parse(viewer.body)).toEqual({ data: { viewer: { role: "ADMIN" } } });
  });
});

describe("--allow-env", () => {
  it("a bare * is refused (exit 2); patterns that open process-hijacking variables are warned about at start", async () => {
    const star = await runProspero([
      "serve",
      "--port",
      "0",
      "--allow-env",
      "*",
      "--data-dir",
      path.join(tmpDir(), "d"),
    ]);
    expect(star.code).toBe(2);
    expect(star.stderr).toMatch(/--allow-env.*a pattern of only \* would let configs set any variable/);
    const p = await serve(["--allow-env", "LD_*", "--data-dir", path.join(tmpDir(), "data")]);
    const warned = await logged(p, (l) => l.level === 40 && Array.isArray(l.variables));
    expect(warned.variables).toEqual(["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"]);
    expect(warned.msg).toMatch(/run commands as this user/);
  });
});
