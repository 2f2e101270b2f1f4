/**
 * GraphiQL as static files (src/server/graphiql.ts) behind a real http server, routed the way
 * the gateway routes it (GraphiQL's requests first, then a small yoga): headers (CSP with
 * `frame-ancestors 'none'`, caching, ETag/304, gzip), a page without inline code that carries
 * Prospero's example query, the package's bytes as files, memory under 100 paused clients, and a
 * working GraphiQL in headless Chromium with no CSP violation (queries over HTTP with the
 * session cookie, a subscription over graphql-ws).
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import path from "node:path";
import zlib from "node:zlib";
import { buildSchema as buildSdlSchema, parse, validate, Kind } from "graphql";
import { createSchema, createYoga } from "graphql-yoga";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pkg from "@graphql-yoga/render-graphiql/graphiql";
import {
  acceptPrefersHtml,
  createGraphiQLHandler,
  DEFAULT_QUERY,
  EXAMPLE_OPERATIONS,
  GRAPHIQL_ASSET_PREFIX,
  GRAPHIQL_IMMUTABLE_CACHE,
  graphiqlCsp,
  isGraphiQLRequest,
  type GraphiQLHandlerOptions,
} from "../../src/server/graphiql.js";
import { ConfigError } from "../../src/errors.js";
import { launchChromium, REPO } from "../dashboard/support.js";

const SDL = fs.readFileSync(path.join(REPO, "schema.graphql"), "utf8");

/** Accept headers real clients send. */
const BROWSER_ACCEPT =
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8";
const GRAPHIQL_FETCH_ACCEPT = "application/graphql-response+json, application/json, multipart/mixed";

const EXPECTED_CSP =
  "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; " +
  "base-uri 'none'; object-src 'none'; form-action 'none'";

const AGENT = {
  agentId: "0123456789ab",
  name: "readme",
  status: "RUNNING",
  model: "test-model",
  turns: 2,
  startedAt: "2025-01-02T03:04:05.000Z",
  estimatedCostUsd: 0.25,
};

/** Prospero's own schema (schema.graphql) with canned data: enough for the example operations. */
const prosperoDouble = () =>
  createSchema({
    typeDefs: SDL,
    resolvers: {
      Query: {
        fleet: () => ({ host: "graphiql-test-host" }),
        workspaces: () => [
          {
            name: "demo",
            root: "/srv/demo",
            health: { state: "HEALTHY", reason: null, since: "2025-01-01T00:00:00.000Z" },
            agents: { edges: [{ cursor: "c1", node: AGENT }], pageInfo: {} },
          },
        ],
      },
      Subscription: {
        agentEvents: {
          subscribe: async function* () {
            for (let seq = 1; seq <= 3; seq++) {
              await new Promise((r) => setTimeout(r, 30));
              yield {
                agentEvents: {
                  __typename: "OutputEvent",
                  seq,
                  ts: "2025-01-02T03:04:05.000Z",
                  text: `live line ${seq}`,
                },
              };
            }
          },
        },
      },
    },
  });

interface Served {
  url: string;
  port: number;
  /** What the server saw of each POST and WebSocket upgrade to /graphql. */
  seen: string[];
  /** Server-side sockets, to look at what the server holds for a paused client. */
  sockets: Set<net.Socket>;
  close(): Promise<void>;
}

/** The handler in front of a yoga with Prospero's schema, graphql-ws on /graphql, as the gateway routes. */
async function serve(options: GraphiQLHandlerOptions = {}): Promise<Served> {
  const graphiql = createGraphiQLHandler(options);
  const schema = prosperoDouble();
  const yoga = createYoga({ schema, graphiql: false, landingPage: false, logging: false });
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    if (req.method === "POST") seen.push(`POST origin=${req.headers.origin} cookie=${req.headers.cookie}`);
    if (isGraphiQLRequest(req)) {
      void graphiql(req, res);
      return;
    }
    void yoga.handle(req, res);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ server, path: "/graphql" });
  wss.on("connection", (_ws, req) =>
    seen.push(`WS origin=${req.headers.origin} cookie=${req.headers.cookie}`),
  );
  useServer({ schema }, wss);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    sockets,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as received (not decompressed). */
  body: Buffer;
}

function request(
  port: number,
  rawPath: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: rawPath, method: opts.method ?? "GET", headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const page = (port: number, headers: Record<string, string> = {}) =>
  request(port, "/graphql", { headers: { accept: BROWSER_ACCEPT, ...headers } });

/** The page's `application/json` settings block. */
function configOf(html: string): {
  options: Record<string, unknown>;
  workers: Record<string, string>;
} {
  const m = /<script type="application\/json" id="graphiql-options">([^<]*)<\/script>/.exec(html);
  if (!m?.[1]) throw new Error(`no settings block in ${html}`);
  return JSON.parse(m[1]) as { options: Record<string, unknown>; workers: Record<string, string> };
}

/** Every `src`/`href` of the page. */
function referencedUrls(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
}

let s: Served;

beforeAll(async () => {
  s = await serve();
});

afterAll(async () => {
  await s?.close();
});

describe("routing", () => {
  it("sends a browser's GET of /graphql to GraphiQL and GraphQL clients' requests to yoga", async () => {
    const browser = await page(s.port);
    expect(browser.status).toBe(200);
    expect(browser.headers["content-type"]).toBe("text/html; charset=utf-8");
    // A reload after editing (GraphiQL keeps the query in the address bar) is still the page.
    const withQuery = await request(s.port, "/graphql?query=%7B%20__typename%20%7D", {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(withQuery.headers["content-type"]).toBe("text/html; charset=utf-8");

    const client = await request(s.port, "/graphql?query=%7B%20__typename%20%7D", {
      headers: { accept: GRAPHIQL_FETCH_ACCEPT },
    });
    expect(client.headers["content-type"]).toMatch(/^application\/graphql-response\+json/);
    expect(JSON.parse(client.body.toString())).toEqual({ data: { __typename: "Query" } });

    const sse = await request(s.port, "/graphql?query=%7B%20__typename%20%7D", {
      headers: { accept: "text/event-stream" },
    });
    expect(sse.headers["content-type"]).toMatch(/^text\/event-stream/);
  });

  it("decides by the Accept header's preference, as a browser and GraphQL clients send it", () => {
    expect(acceptPrefersHtml(BROWSER_ACCEPT)).toBe(true);
    expect(acceptPrefersHtml("text/html")).toBe(true);
    expect(acceptPrefersHtml("application/json;q=0.5, text/html")).toBe(true);
    expect(acceptPrefersHtml(GRAPHIQL_FETCH_ACCEPT)).toBe(false);
    expect(acceptPrefersHtml("text/event-stream")).toBe(false);
    expect(acceptPrefersHtml("text/html, text/event-stream")).toBe(false);
    expect(acceptPrefersHtml("text/html;q=0.5, application/json")).toBe(false);
    expect(acceptPrefersHtml("text/html;q=0")).toBe(false);
    expect(acceptPrefersHtml("*/*")).toBe(false);
    expect(acceptPrefersHtml(undefined)).toBe(false);

    const req = (method: string, url: string, accept?: string) =>
      ({ method, url, headers: accept === undefined ? {} : { accept } }) as http.IncomingMessage;
    expect(isGraphiQLRequest(req("GET", "/graphql", BROWSER_ACCEPT))).toBe(true);
    expect(isGraphiQLRequest(req("HEAD", "/graphql/", BROWSER_ACCEPT))).toBe(true);
    expect(isGraphiQLRequest(req("POST", "/graphql", BROWSER_ACCEPT))).toBe(false);
    expect(isGraphiQLRequest(req("GET", "/graphqlx", BROWSER_ACCEPT))).toBe(false);
    expect(isGraphiQLRequest(req("GET", "/", BROWSER_ACCEPT))).toBe(false);
    expect(isGraphiQLRequest(req("GET", "/api", BROWSER_ACCEPT), "/api")).toBe(true);
    // Everything under the prefix is GraphiQL's (it answers 404/405 for what it does not serve).
    expect(isGraphiQLRequest(req("POST", `${GRAPHIQL_ASSET_PREFIX}anything`))).toBe(true);
  });
});

describe("the page", () => {
  it("carries the strict CSP, no-cache, a strong ETag (304 on If-None-Match) and HEAD without a body", async () => {
    const a = await page(s.port);
    expect(a.headers["content-security-policy"]).toBe(EXPECTED_CSP);
    expect(a.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(a.headers["x-frame-options"]).toBe("DENY");
    expect(a.headers["x-content-type-options"]).toBe("nosniff");
    expect(a.headers["referrer-policy"]).toBe("no-referrer");
    expect(a.headers["cross-origin-opener-policy"]).toBe("same-origin");
    expect(a.headers["cross-origin-resource-policy"]).toBe("same-origin");
    expect(a.headers["cache-control"]).toBe("no-cache");
    expect(a.headers.vary).toBe("accept-encoding");
    const etag = a.headers.etag ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(Number(a.headers["content-length"])).toBe(a.body.length);
    // Small: everything big is a separate cached file.
    expect(a.body.length).toBeLessThan(8 * 1024);

    const again = await page(s.port, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers["content-security-policy"]).toBe(EXPECTED_CSP);
    expect((await page(s.port, { "if-none-match": '"other"' })).status).toBe(200);

    const head = await request(s.port, "/graphql", { method: "HEAD", headers: { accept: BROWSER_ACCEPT } });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-length"]).toBe(a.headers["content-length"]);
    expect(head.headers.etag).toBe(etag);
  });

  it("has no inline code, and starts GraphiQL on /graphql over WS with the session cookie and Prospero's example", async () => {
    const html = (await page(s.port)).body.toString();
    for (const tag of html.match(/<script\b[^>]*>[^<]*<\/script>/g) ?? []) {
      // Either a file, or a JSON data block (browsers never execute it).
      const external = /^<script src="\/graphiql\/[^"]+"( defer)?><\/script>$/.test(tag);
      const data = tag.startsWith('<script type="application/json" id="graphiql-options">');
      expect(external || data, tag).toBe(true);
    }
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/javascript:|data:|blob:/i);
    expect(html).not.toContain("Welcome to");
    expect(html).toContain("<title>Prospero GraphiQL</title>");

    const { options, workers } = configOf(html);
    expect(options).toEqual({
      endpoint: "/graphql",
      subscriptionsProtocol: "WS",
      title: "Prospero GraphiQL",
      defaultQuery: DEFAULT_QUERY,
      credentials: "same-origin",
      shouldPersistHeaders: false,
    });
    expect(Object.keys(workers).sort()).toEqual(["editorWorkerService", "graphql", "json"]);
    for (const url of [...referencedUrls(html), ...Object.values(workers)]) {
      expect(url.startsWith(GRAPHIQL_ASSET_PREFIX), url).toBe(true);
    }
  });

  it("defaults to a Prospero query that is valid against schema.graphql, with the other examples commented", () => {
    const schema = buildSdlSchema(SDL);
    for (const [name, op] of Object.entries(EXAMPLE_OPERATIONS)) {
      expect(validate(schema, parse(op)), name).toEqual([]);
    }
    const doc = parse(DEFAULT_QUERY);
    expect(validate(schema, doc)).toEqual([]);
    // One live operation (Ctrl-Enter runs it without asking which), the rest to uncomment.
    const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(ops.map((d) => d.name?.value)).toEqual(["Fleet"]);
    const uncommented = DEFAULT_QUERY.split("\n")
      .filter((l) => l.startsWith("# ") && /^# (mutation|subscription| {2}|\})/.test(l))
      .map((l) => l.slice(2))
      .join("\n");
    expect(uncommented).toContain(EXAMPLE_OPERATIONS.spawnAgent);
    expect(uncommented).toContain(EXAMPLE_OPERATIONS.agentEvents);
  });

  it("adds configured connect-src origins, and refuses a bad endpoint or source", async () => {
    expect(graphiqlCsp(["wss://prospero.example.com"])).toContain(
      "connect-src 'self' wss://prospero.example.com;",
    );
    const other = await serve({ connectSrc: ["wss://prospero.example.com:8443"] });
    try {
      const a = await page(other.port);
      expect(a.headers["content-security-policy"]).toContain(
        "connect-src 'self' wss://prospero.example.com:8443; frame-ancestors 'none'",
      );
    } finally {
      await other.close();
    }
    for (const bad of ["*", "'unsafe-eval'", "wss://a.example; script-src *", "javascript:x", "wss://"]) {
      expect(() => createGraphiQLHandler({ connectSrc: [bad] }), bad).toThrow(ConfigError);
    }
    for (const bad of [
      "graphql",
      "/",
      "/graphql/",
      "/a/../b",
      "//x",
      "/graphql?x",
      "/a b",
      "/graphiql/x",
      '/"',
    ]) {
      expect(() => createGraphiQLHandler({ endpoint: bad }), bad).toThrow(ConfigError);
    }
  });
});

describe("the files", () => {
  /** Asset URL → the bytes and type the package holds for it. */
  async function expectedAssets(): Promise<{ url: string; bytes: Buffer; type: string }[]> {
    const html = (await page(s.port)).body.toString();
    const { workers } = configOf(html);
    const urls = referencedUrls(html);
    const find = (re: RegExp) => {
      const u = urls.find((x) => re.test(x));
      if (!u) throw new Error(`no ${re} in ${urls.join(" ")}`);
      return u;
    };
    const js = "text/javascript; charset=utf-8";
    const icon = /^data:([^;]+);base64,(.*)$/s.exec(pkg.favicon);
    return [
      { url: find(/\/graphiql-[0-9a-f]{16}\.js$/), bytes: Buffer.from(pkg.js), type: js },
      {
        url: find(/\/graphiql-[0-9a-f]{16}\.css$/),
        bytes: Buffer.from(pkg.css),
        type: "text/css; charset=utf-8",
      },
      { url: workers.editorWorkerService ?? "", bytes: Buffer.from(pkg.editorWorkerService), type: js },
      { url: workers.json ?? "", bytes: Buffer.from(pkg.jsonWorker), type: js },
      { url: workers.graphql ?? "", bytes: Buffer.from(pkg.graphqlWorker), type: js },
      {
        url: find(/\/favicon-[0-9a-f]{16}\.ico$/),
        bytes: Buffer.from(icon?.[2] ?? "", "base64"),
        type: icon?.[1] ?? "",
      },
    ];
  }

  it("are the package's bytes, immutable, with a strong ETag (304) and the CSP", async () => {
    const assets = await expectedAssets();
    expect(assets.length).toBe(6);
    for (const { url, bytes, type } of assets) {
      const a = await request(s.port, url);
      expect(a.status, url).toBe(200);
      expect(a.headers["content-type"], url).toBe(type);
      expect(a.body.equals(bytes), url).toBe(true);
      expect(a.headers["cache-control"], url).toBe(GRAPHIQL_IMMUTABLE_CACHE);
      expect(a.headers["content-security-policy"], url).toBe(EXPECTED_CSP);
      expect(a.headers["x-content-type-options"], url).toBe("nosniff");
      expect(a.headers["cross-origin-resource-policy"], url).toBe("same-origin");
      expect(a.headers.etag, url).toMatch(/^"[0-9a-f]{16}"$/);
      // The name carries the content's hash.
      expect(url, url).toContain(`-${(a.headers.etag ?? "").slice(1, -1)}.`);
      const cached = await request(s.port, url, { headers: { "if-none-match": `W/"x", ${a.headers.etag}` } });
      expect(cached.status, url).toBe(304);
      expect(cached.body.length, url).toBe(0);
    }
    // The init script is a file too, the same for every configuration.
    const html = (await page(s.port)).body.toString();
    const init = referencedUrls(html).find((u) => /\/init-[0-9a-f]{16}\.js$/.test(u)) ?? "";
    const script = (await request(s.port, init)).body.toString();
    expect(script).toContain("YogaGraphiQL.renderYogaGraphiQL");
    expect(script).toContain("getWorkerUrl");
  });

  it("are gzipped for clients that accept it (a fraction of the size), with their own ETag", async () => {
    const [bundle] = await expectedAssets();
    if (!bundle) throw new Error("no bundle");
    const plain = await request(s.port, bundle.url, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const gz = await request(s.port, bundle.url, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(gz.status).toBe(200);
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toBe("accept-encoding");
    expect(Number(gz.headers["content-length"])).toBe(gz.body.length);
    expect(gz.body.length).toBeLessThan(bundle.bytes.length / 3);
    expect(zlib.gunzipSync(gz.body).equals(bundle.bytes)).toBe(true);
    expect(gz.headers.etag).not.toBe(plain.headers.etag);
    const cached = await request(s.port, bundle.url, {
      headers: { "accept-encoding": "gzip", "if-none-match": gz.headers.etag ?? "" },
    });
    expect(cached.status).toBe(304);
    expect(
      (await request(s.port, bundle.url, { headers: { "accept-encoding": "gzip;q=0" } })).headers[
        "content-encoding"
      ],
    ).toBeUndefined();
    const head = await request(s.port, bundle.url, {
      method: "HEAD",
      headers: { "accept-encoding": "gzip" },
    });
    expect(head.body.length).toBe(0);
    expect(head.headers["content-length"]).toBe(gz.headers["content-length"]);
    // The page too.
    const html = await page(s.port, { "accept-encoding": "gzip" });
    expect(html.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(html.body).toString()).toContain("graphiql-options");
  });

  it("answers 404 for an unknown or stale name and 405 for other methods, with the CSP", async () => {
    const [bundle] = await expectedAssets();
    const stale = (bundle?.url ?? "").replace(/-[0-9a-f]{16}\./, "-0000000000000000.");
    for (const p of [stale, `${GRAPHIQL_ASSET_PREFIX}`, `${GRAPHIQL_ASSET_PREFIX}../package.json`]) {
      const a = await request(s.port, p);
      expect(a.status, p).toBe(404);
      expect(a.headers["content-security-policy"], p).toBe(EXPECTED_CSP);
    }
    const post = await request(s.port, bundle?.url ?? "", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
  });
});

describe("memory", () => {
  it("100 clients that stop reading the 5 MB bundle retain a few MiB, not a copy each", async () => {
    const html = (await page(s.port)).body.toString();
    const bundleUrl = referencedUrls(html).find((u) => /\/graphiql-[0-9a-f]{16}\.js$/.test(u)) ?? "";
    await request(s.port, bundleUrl); // loaded, and its first answer made
    // Full GCs with a turn between them, so Buffers freed by the first are released by the second.
    const retained = async () => {
      for (let i = 0; i < 3; i++) {
        global.gc!();
        await new Promise((r) => setImmediate(r));
      }
      const m = process.memoryUsage();
      return { heap: m.heapUsed + m.external, rss: m.rss };
    };
    const before = await retained();
    const clients: net.Socket[] = [];
    for (let i = 0; i < 100; i++) {
      const c = net.connect(s.port, "127.0.0.1");
      c.pause(); // never reads: the server's writes stop once the socket buffers are full
      c.on("error", () => {});
      c.write(`GET ${bundleUrl} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n`);
      clients.push(c);
    }
    try {
      // Wait until every request is answered and stuck: the server holds unsent bytes for each.
      await expect
        .poll(() => [...s.sockets].filter((x) => x.writableLength > 0).length, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(100);
      const stuck = [...s.sockets].reduce((n, x) => n + x.writableLength, 0);
      const after = await retained();
      const heap = after.heap - before.heap;
      const rss = after.rss - before.rss;
      console.log(
        `100 paused GETs: ${(stuck / 1048576).toFixed(0)} MiB unsent; retained heap+buffers ` +
          `${(heap / 1048576).toFixed(1)} MiB, rss ${(rss / 1048576).toFixed(1)} MiB`,
      );
      // What is waiting to be sent is the shared bundle, many times over, not copies of it.
      expect(stuck).toBeGreaterThan(100 * 1024 * 1024);
      expect(heap).toBeLessThan(16 * 1024 * 1024);
      expect(rss).toBeLessThan(64 * 1024 * 1024);
    } finally {
      for (const c of clients) c.destroy();
    }
  });
});

describe("in Chromium", { timeout: 90_000 }, () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function open(query?: string) {
    if (!browser) throw new Error("no browser");
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    context.setDefaultTimeout(20_000);
    await context.addCookies([{ name: "prospero_session", value: "s3ss10n", url: s.url }]);
    const p = await context.newPage();
    const problems: string[] = [];
    // Violations are reported as events (and console errors); injected by the browser, not the page.
    await p.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) =>
        console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const record = (where: string) => (msg: { type(): string; text(): string }) => {
      if (msg.type() === "error" || msg.type() === "warning") problems.push(`${where}: ${msg.text()}`);
    };
    p.on("console", record("console"));
    p.on("worker", (w) => w.on("console", record(`worker ${w.url()}`)));
    p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    p.on("requestfailed", (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
    const workers: string[] = [];
    p.on("worker", (w) => workers.push(w.url()));
    await p.goto(`${s.url}/graphql${query === undefined ? "" : `?query=${encodeURIComponent(query)}`}`);
    const editorText = async () =>
      (await p.locator(".graphiql-query-editor").innerText()).replace(/\u00a0/g, " ");
    const responseText = async () =>
      (await p.locator(".graphiql-response").innerText()).replace(/\u00a0/g, " ");
    const run = () => p.getByRole("button", { name: /execute query/i }).click();
    return { context, page: p, problems, workers, editorText, responseText, run };
  }

  const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

  it("renders GraphiQL with Prospero's query, runs it with the session cookie, no CSP violation", async () => {
    s.seen.length = 0;
    const t = await open();
    try {
      expect(await t.page.title()).toBe("Prospero GraphiQL");
      await eventually(t.editorText).toContain("query Fleet {");
      const shown = await t.editorText();
      expect(shown).toContain("# Prospero GraphiQL: the fleet's GraphQL API.");
      expect(shown).not.toContain("Welcome");
      await t.run();
      await eventually(t.responseText).toContain('"host": "graphiql-test-host"');
      expect(await t.responseText()).toContain('"agentId": "0123456789ab"');
      // Monaco's workers run from our files (not blob: URLs).
      await eventually(() => t.workers.length).toBeGreaterThanOrEqual(2);
      for (const w of t.workers) expect(w.startsWith(`${s.url}${GRAPHIQL_ASSET_PREFIX}`), w).toBe(true);
      // Introspection and the query carried the cookie and this page's Origin.
      expect(s.seen.length).toBeGreaterThanOrEqual(2);
      for (const line of s.seen) expect(line).toBe(`POST origin=${s.url} cookie=prospero_session=s3ss10n`);
      expect(t.problems).toEqual([]);
    } finally {
      await t.context.close();
    }
  });

  it("runs the example subscription over a same-origin WebSocket allowed by connect-src 'self'", async () => {
    s.seen.length = 0;
    const t = await open(EXAMPLE_OPERATIONS.agentEvents);
    try {
      await eventually(t.editorText).toContain("agentEvents(agentId:");
      await t.run();
      await eventually(t.responseText).toContain('"text": "live line 3"');
      expect(s.seen).toContain(`WS origin=${s.url} cookie=prospero_session=s3ss10n`);
      expect(t.problems).toEqual([]);
    } finally {
      await t.context.close();
    }
  });
});
