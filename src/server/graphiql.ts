/**
 * GraphiQL at `/graphql` as static files: a small page with no inline code, and the bundle of
 * `@graphql-yoga/render-graphiql` (the GraphiQL UMD bundle, its CSS, three Monaco workers and the
 * favicon) split into content-hashed files under {@link GRAPHIQL_ASSET_PREFIX}.
 *
 * Why: yoga's `renderGraphiQL` builds a 9 MB HTML string per request (everything inline, the
 * workers as blob: URLs), so 100 clients that stop reading hold ~1.6 GB, and its inline script
 * forbids a strict CSP. Here the bytes are loaded once (lazily, on the first GraphiQL request, by
 * a short-lived worker thread so the package's 9 MB module never sits in the gateway's heap),
 * kept as Buffers with a gzip variant computed once, and every answer hands out those same
 * Buffers: a paused client costs a socket, not a copy. Assets are immutable (their names carry
 * their hash), the page is `no-cache`; every answer carries {@link graphiqlCsp} (issue 11, item 5:
 * `frame-ancestors 'none'`) and the usual hardening headers.
 *
 * The page's default tab is {@link DEFAULT_QUERY}, a commented Prospero example, instead of
 * yoga's welcome text. GraphiQL sends its requests to the endpoint with `credentials:
 * "same-origin"` (the session cookie) and subscribes over graphql-ws on the same path.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import zlib from "node:zlib";
import type { GraphiQLOptions } from "graphql-yoga";
import { ConfigError } from "../errors.js";

/** Path prefix of GraphiQL's files (`/graphiql/graphiql-<hash>.js`, …). */
export const GRAPHIQL_ASSET_PREFIX = "/graphiql/";

/** Default GraphQL endpoint GraphiQL is served at and talks to (the gateway's `GRAPHQL_PATH`). */
export const DEFAULT_GRAPHIQL_ENDPOINT = "/graphql";

/** Title of the page and of GraphiQL's header. */
export const GRAPHIQL_TITLE = "Prospero GraphiQL";

/** Cache-Control of the content-hashed files. */
export const GRAPHIQL_IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

/**
 * The example operations of {@link DEFAULT_QUERY}, each valid against `schema.graphql` (a test
 * checks): the fleet's workspaces with their health and agents, a spawn, and an agent's live
 * events.
 */
export const EXAMPLE_OPERATIONS = {
  fleet: `query Fleet {
  fleet {
    host
  }
  workspaces {
    name
    root
    health {
      state
      reason
      since
    }
    agents(first: 10) {
      edges {
        node {
          agentId
          name
          status
          model
          turns
          startedAt
          estimatedCostUsd
        }
      }
    }
  }
}`,
  spawnAgent: `mutation Spawn {
  spawnAgent(
    input: {
      workspace: "demo"
      prompt: "Summarise the README"
      label: "readme"
    }
  ) {
    __typename
    ... on SpawnAgentPayload {
      created
      agent {
        agentId
        status
      }
    }
    ... on Error {
      code
      message
    }
  }
}`,
  agentEvents: `subscription Events {
  agentEvents(agentId: "0123456789ab") {
    __typename
    seq
    ts
    ... on OutputEvent {
      text
    }
    ... on StatusChangedEvent {
      from
      to
    }
  }
}`,
} as const;

const commented = (text: string): string =>
  text
    .split("\n")
    .map((line) => `# ${line}`)
    .join("\n");

/**
 * The first tab's text: what Prospero's API is, the fleet query ready to run, and a spawn and a
 * subscription to uncomment (only one operation is live, so Ctrl-Enter runs it without asking).
 */
export const DEFAULT_QUERY = `# Prospero GraphiQL: the fleet's GraphQL API.
#
# Requests carry this browser's session, so what
# you may run is your token's role (viewer:
# queries and subscriptions; operator: also
# spawn, kill, input...). Docs (top left) lists
# every type and field; Ctrl-Space completes.
#
# Run the query below with Ctrl-Enter (or the
# play button): every workspace, the health of
# its caliband, and its newest agents.

${EXAMPLE_OPERATIONS.fleet}

# Spawn an agent (operator role): select these
# lines, uncomment them with Ctrl-/, name one of
# your workspaces, and run. A refusal is a typed
# result (... on Error), not a crash.
#
${commented(EXAMPLE_OPERATIONS.spawnAgent)}

# Follow one agent live over WebSocket, from its
# first event until it ends: paste an agentId
# from the query above.
#
${commented(EXAMPLE_OPERATIONS.agentEvents)}
`;

/** Options of {@link createGraphiQLHandler}. */
export interface GraphiQLHandlerOptions {
  /**
   * Path of the GraphQL endpoint: where the page is served and where GraphiQL sends operations
   * (HTTP) and subscriptions (graphql-ws, same path). Default {@link DEFAULT_GRAPHIQL_ENDPOINT}.
   */
  endpoint?: string;
  /**
   * Sources added to the CSP's `connect-src` after `'self'`, e.g. `wss://prospero.example.com`
   * when the WebSocket is reached under another origin than the page (a proxy). Each must be
   * `http(s)://` or `ws(s)://` with a host and optional port, nothing else. `'self'` already
   * covers same-origin `ws:`/`wss:` in current browsers (CSP Level 3).
   */
  connectSrc?: readonly string[];
}

/**
 * The Content-Security-Policy of the page and its files. Scripts, workers, styles, images and
 * fonts only from this origin (plus the `data:` fonts and images the CSS embeds); inline styles
 * are allowed because Monaco and GraphiQL insert `<style>` elements and `style` attributes at
 * runtime (without it the editor renders broken); no inline or eval'd script, no framing, no
 * `<base>`, plugins or form submissions.
 * @param connectSrc extra `connect-src` sources, already validated ({@link createGraphiQLHandler}).
 */
export function graphiqlCsp(connectSrc: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "worker-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...connectSrc].join(" ")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** A list header (`Accept`, `Accept-Encoding`) as lower-cased tokens with their q-values. */
function parseQList(header: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (header ?? "").split(",")) {
    const [token, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!token) continue;
    let q = 1;
    for (const p of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(p);
      if (m?.[1] !== undefined) q = Math.min(1, Number(m[1]));
    }
    out.set(token, Math.max(out.get(token) ?? 0, q));
  }
  return out;
}

/** Media types a GraphQL-over-HTTP client (or an SSE subscriber) asks for. */
const GRAPHQL_RESPONSE_TYPES = [
  "application/graphql-response+json",
  "application/json",
  "text/event-stream",
  "multipart/mixed",
];

/**
 * Whether an `Accept` header prefers the GraphiQL page to a GraphQL response: `text/html` is
 * listed with q > 0 and above every GraphQL response type it lists (a browser navigating:
 * `text/html,…,*\/*;q=0.8`). Yoga's own rule (`use-graphiql.js`) is "Accept contains
 * text/html"; this one also leaves to GraphQL a client that lists text/html beside
 * `text/event-stream` or JSON at the same or a higher q. Wildcards prefer nothing.
 */
export function acceptPrefersHtml(accept: string | undefined): boolean {
  const ranges = parseQList(accept);
  const html = ranges.get("text/html") ?? 0;
  if (html <= 0) return false;
  return GRAPHQL_RESPONSE_TYPES.every((t) => (ranges.get(t) ?? 0) < html);
}

/** Path of a request URL without its query string. */
function pathnameOf(req: IncomingMessage): string {
  return (req.url ?? "/").split("?")[0] ?? "/";
}

/**
 * Whether `req` is GraphiQL's: any request under {@link GRAPHIQL_ASSET_PREFIX} (the handler
 * answers 404/405 for what it does not serve), or a GET/HEAD of `endpoint` (or `endpoint/`,
 * query string ignored, as yoga does) whose `Accept` prefers HTML ({@link acceptPrefersHtml}).
 * Route these to {@link createGraphiQLHandler}'s handler before yoga.
 */
export function isGraphiQLRequest(req: IncomingMessage, endpoint = DEFAULT_GRAPHIQL_ENDPOINT): boolean {
  const pathname = pathnameOf(req);
  if (pathname.startsWith(GRAPHIQL_ASSET_PREFIX)) return true;
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  if (pathname !== endpoint && pathname !== `${endpoint}/`) return false;
  return acceptPrefersHtml(req.headers.accept);
}

/** One servable file: its bytes once, and a gzip variant made on first demand. */
interface Entry {
  readonly body: Buffer;
  readonly type: string;
  readonly cacheControl: string;
  readonly etag: string;
  /** The gzip variant, or null when gzip would not be smaller; computed once. */
  gzip?: Promise<{ body: Buffer; etag: string } | null>;
}

const gzipAsync = promisify(zlib.gzip);

function contentHash(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex").slice(0, 16);
}

function makeEntry(body: Buffer, type: string, cacheControl: string): Entry {
  return { body, type, cacheControl, etag: `"${contentHash(body)}"` };
}

function gzipOf(entry: Entry): Promise<{ body: Buffer; etag: string } | null> {
  entry.gzip ??= gzipAsync(entry.body, { level: zlib.constants.Z_BEST_COMPRESSION }).then(
    (body) => (body.length < entry.body.length ? { body, etag: `${entry.etag.slice(0, -1)}-gzip"` } : null),
    () => null,
  );
  return entry.gzip;
}

/**
 * The script that starts GraphiQL, loaded (deferred) before the bundle: it points Monaco at the
 * same-origin worker files and renders once the bundle has run. Its settings come from the
 * page's `application/json` block, so the script is the same file for every configuration.
 */
const INIT_SCRIPT = `"use strict";
(function () {
  var config = JSON.parse(document.getElementById("graphiql-options").textContent);
  var workers = config.workers;
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) {
      var url = workers[label];
      if (!url) throw new Error("GraphiQL: no worker for " + label);
      return url;
    },
  };
  document.addEventListener("DOMContentLoaded", function () {
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById("root"), config.options);
  });
})();
`;

const JS = "text/javascript; charset=utf-8";

/** The package's files, hashed: loaded once per process, shared by every handler. */
interface Bundle {
  /** Asset name (after the prefix) → file. */
  readonly assets: ReadonlyMap<string, Entry>;
  readonly names: {
    readonly js: string;
    readonly css: string;
    readonly init: string;
    readonly favicon: string;
    readonly workers: Readonly<Record<"editorWorkerService" | "json" | "graphql", string>>;
  };
}

let bundle: Promise<Bundle> | undefined;

/** The package's exports (`@graphql-yoga/render-graphiql/graphiql`), as bytes where they are code. */
interface PackageFiles {
  js: Buffer;
  css: Buffer;
  editorWorkerService: Buffer;
  jsonWorker: Buffer;
  graphqlWorker: Buffer;
  /** A `data:` URL. */
  favicon: string;
}

const CODE_EXPORTS = ["js", "css", "editorWorkerService", "jsonWorker", "graphqlWorker"] as const;

/**
 * Run by a one-off worker thread: load the package (its CommonJS build, whose strings equal the
 * ESM build's; a test compares) and send back its exports as UTF-8 bytes. When the thread ends,
 * the module's source and strings (~30 MB of heap) go with it.
 */
const EXTRACT_SOURCE = `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const pkg = require(workerData);
const out = { favicon: String(pkg.favicon) };
for (const k of ${JSON.stringify(CODE_EXPORTS)}) out[k] = Buffer.from(String(pkg[k]), "utf8");
parentPort.postMessage(out);
`;

/** Read the package's files in a worker thread. */
function readPackage(): Promise<PackageFiles> {
  const file = createRequire(import.meta.url).resolve("@graphql-yoga/render-graphiql/graphiql");
  return new Promise<PackageFiles>((resolve, reject) => {
    const worker = new Worker(EXTRACT_SOURCE, { eval: true, workerData: file });
    worker.unref();
    worker.once("message", (msg: Record<string, unknown>) => {
      const bytes = (k: string): Buffer => {
        const v = msg[k];
        if (!(v instanceof Uint8Array)) throw new Error(`GraphiQL package: ${k} is not code`);
        return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      };
      try {
        if (typeof msg.favicon !== "string") throw new Error("GraphiQL package: favicon is not a string");
        resolve({
          js: bytes("js"),
          css: bytes("css"),
          editorWorkerService: bytes("editorWorkerService"),
          jsonWorker: bytes("jsonWorker"),
          graphqlWorker: bytes("graphqlWorker"),
          favicon: msg.favicon,
        });
      } catch (err) {
        reject(err);
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) =>
      reject(new Error(`GraphiQL package reader exited (${code}) before answering`)),
    );
  });
}

async function buildBundle(): Promise<Bundle> {
  const pkg = await readPackage();
  const assets = new Map<string, Entry>();
  const add = (stem: string, ext: string, body: Buffer, type: string): string => {
    const entry = makeEntry(body, type, GRAPHIQL_IMMUTABLE_CACHE);
    const name = `${stem}-${entry.etag.slice(1, -1)}.${ext}`;
    assets.set(name, entry);
    return `${GRAPHIQL_ASSET_PREFIX}${name}`;
  };
  const icon = /^data:([^;,]+);base64,(.*)$/s.exec(pkg.favicon);
  const favicon =
    icon?.[1] !== undefined && icon[2] !== undefined
      ? add("favicon", "ico", Buffer.from(icon[2], "base64"), icon[1])
      : "";
  return {
    assets,
    names: {
      js: add("graphiql", "js", pkg.js, JS),
      css: add("graphiql", "css", pkg.css, "text/css; charset=utf-8"),
      init: add("init", "js", Buffer.from(INIT_SCRIPT, "utf8"), JS),
      favicon,
      workers: {
        editorWorkerService: add("editor-worker", "js", pkg.editorWorkerService, JS),
        json: add("json-worker", "js", pkg.jsonWorker, JS),
        graphql: add("graphql-worker", "js", pkg.graphqlWorker, JS),
      },
    },
  };
}

function loadBundle(): Promise<Bundle> {
  bundle ??= buildBundle().catch((err: unknown) => {
    bundle = undefined; // a later request tries again
    throw err;
  });
  return bundle;
}

/** JSON for a `<script type="application/json">` block: nothing in it can close the element. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function renderPage(b: Bundle, options: GraphiQLOptions): Buffer {
  const config = { options, workers: b.names.workers };
  const icon = b.names.favicon ? `\n    <link rel="icon" href="${b.names.favicon}" />` : "";
  return Buffer.from(
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${GRAPHIQL_TITLE}</title>${icon}
    <link rel="stylesheet" href="${b.names.css}" />
    <script type="application/json" id="graphiql-options">${jsonForHtml(config)}</script>
    <script src="${b.names.init}" defer></script>
    <script src="${b.names.js}" defer></script>
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript.</noscript>
    <div id="root"></div>
  </body>
</html>
`,
    "utf8",
  );
}

/** A CSP source for `connect-src`: scheme, host, optional port; nothing a policy could misread. */
const CONNECT_SOURCE =
  /^(?:https?|wss?):\/\/(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** An absolute URL path of plain segments (no `.`/`..`, empty segment, query, quotes or spaces). */
const ENDPOINT_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/** Whether a comma-separated `If-None-Match` names `etag` (weak comparison, `*` matches). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

function acceptsGzip(header: string | undefined): boolean {
  const codings = parseQList(header);
  const gzip = codings.get("gzip") ?? codings.get("x-gzip");
  return gzip !== undefined ? gzip > 0 : (codings.get("*") ?? 0) > 0;
}

/**
 * A request handler for GraphiQL: the page at `endpoint` (GET/HEAD; route only requests that
 * {@link isGraphiQLRequest} accepts) and the files under {@link GRAPHIQL_ASSET_PREFIX}. Answers:
 * 200 with the bytes (gzip when the client accepts it and it is smaller), 304 when
 * `If-None-Match` names the current ETag, 404 for an unknown file, 405 (with `Allow`) for methods
 * other than GET and HEAD, 500 if the package cannot be loaded. HEAD gets the headers only. The
 * returned promise resolves once the answer is handed to the socket; it never rejects.
 * @throws ConfigError when `endpoint` is not a plain absolute path or a `connectSrc` entry is not
 *   a `scheme://host[:port]` source (nothing is created then).
 */
export function createGraphiQLHandler(
  options: GraphiQLHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const endpoint = options.endpoint ?? DEFAULT_GRAPHIQL_ENDPOINT;
  if (!ENDPOINT_PATH.test(endpoint) || endpoint.startsWith(GRAPHIQL_ASSET_PREFIX)) {
    throw new ConfigError(
      "GraphiQL endpoint",
      `an absolute path such as /graphql, outside ${GRAPHIQL_ASSET_PREFIX}`,
      JSON.stringify(endpoint),
    );
  }
  const connectSrc = [...(options.connectSrc ?? [])];
  for (const src of connectSrc) {
    if (!CONNECT_SOURCE.test(src) || src.length > 300) {
      throw new ConfigError(
        "GraphiQL connect-src",
        "scheme://host[:port] with scheme http, https, ws or wss",
        JSON.stringify(src),
      );
    }
  }
  const security: Record<string, string> = {
    "content-security-policy": graphiqlCsp(connectSrc),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
  };
  const graphiqlOptions: GraphiQLOptions = {
    endpoint,
    subscriptionsProtocol: "WS",
    title: GRAPHIQL_TITLE,
    defaultQuery: DEFAULT_QUERY,
    credentials: "same-origin",
    // A token typed into the headers editor must not stay behind in localStorage.
    shouldPersistHeaders: false,
  };
  let page: Entry | undefined;

  const plain = (res: ServerResponse, status: number, body: string, head: boolean, extra = {}): void => {
    res.writeHead(status, {
      ...security,
      ...extra,
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "content-length": Buffer.byteLength(body),
    });
    res.end(head ? undefined : body);
  };

  const send = async (req: IncomingMessage, res: ServerResponse, entry: Entry, head: boolean) => {
    let body = entry.body;
    let etag = entry.etag;
    const headers: Record<string, string | number> = {
      ...security,
      "content-type": entry.type,
      "cache-control": entry.cacheControl,
      vary: "accept-encoding",
    };
    if (entry.type.startsWith("text/html")) headers["cross-origin-opener-policy"] = "same-origin";
    if (acceptsGzip(req.headers["accept-encoding"])) {
      const gz = await gzipOf(entry);
      if (gz) {
        body = gz.body;
        etag = gz.etag;
        headers["content-encoding"] = "gzip";
      }
    }
    headers.etag = etag;
    if (matches(req.headers["if-none-match"], etag)) {
      delete headers["content-encoding"];
      res.writeHead(304, headers).end();
      return;
    }
    headers["content-length"] = body.length;
    res.writeHead(200, headers);
    // The shared Buffer itself: a slow or paused client keeps a reference, never a copy.
    res.end(head ? undefined : body);
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const head = req.method === "HEAD";
    if (req.method !== "GET" && !head) {
      plain(res, 405, "GraphiQL answers GET and HEAD only\n", false, { allow: "GET, HEAD" });
      return;
    }
    const pathname = pathnameOf(req);
    const isPage = pathname === endpoint || pathname === `${endpoint}/`;
    if (!isPage && !pathname.startsWith(GRAPHIQL_ASSET_PREFIX)) {
      plain(res, 404, "Not found\n", head);
      return;
    }
    const b = await loadBundle();
    if (isPage) {
      page ??= makeEntry(renderPage(b, graphiqlOptions), "text/html; charset=utf-8", "no-cache");
      await send(req, res, page, head);
      return;
    }
    const entry = b.assets.get(pathname.slice(GRAPHIQL_ASSET_PREFIX.length));
    if (!entry) {
      plain(res, 404, "Not found\n", head);
      return;
    }
    await send(req, res, entry, head);
  };

  return async (req, res) => {
    try {
      await serve(req, res);
    } catch {
      if (res.headersSent) res.destroy();
      else
        plain(res, 500, "GraphiQL is unavailable (its package could not be loaded)\n", req.method === "HEAD");
    }
  };
}
