/**
 * The HTTP gateway: one Node http(s) server carrying graphql-yoga (queries, mutations, SSE
 * subscriptions), graphql-ws on the same path (every envelop plugin applies to WebSocket
 * operations through `yoga.getEnveloped`), GraphiQL, the dashboard, `/healthz` and `/readyz`.
 *
 * Closed by default (issue 11, ARCHITECTURE decision 11). Every request, in this order:
 * 1. behind `--trust-proxy`, only the proxy may connect (403);
 * 2. its `Host` must name this gateway (421: DNS rebinding);
 * 3. `/healthz` and `/readyz` answer (counts only); the dashboard's and GraphiQL's static files
 *    are public (they hold no data), and `?token=` on a page is exchanged for a session cookie;
 * 4. on `/graphql` (and `/graphql/stream`, graphql-sse's single connection mode:
 *    src/server/graphql-sse.ts): a foreign `Origin` is refused (403) unless on `--cors-origin`; POST bodies
 *    must be JSON (415); credentials are required — a bearer token, or the session cookie with
 *    this gateway's own `Origin` (401/403, audited); cookie-authenticated requests also pass
 *    yoga's CSRF prevention;
 * 5. WebSocket upgrades get the same Host/Origin checks, a connection cap (503), and credentials
 *    from the upgrade or from `connectionParams` (closed 4401 without, 4403 when refused).
 * `GET /metrics` (Prometheus text, src/server/metrics.ts) follows the API's rules: a foreign `Origin` is
 * refused (403), credentials are required (401 with `WWW-Authenticate`; a token limited to
 * workspaces is refused, 403: the metrics cover every workspace), and it is never cached.
 * Open connections are closed when their token is revoked or expires. Over SSE every event frame of
 * a subscription carries its cursor as the event id, and `Last-Event-ID` resumes after it
 * (src/server/sse-ids.ts, src/resolvers/resume.ts).
 *
 * Subscription events are executed once per group of subscribers entitled to the same result
 * (same document, operation, execution-read variables and token: src/server/shared-subscriptions.ts),
 * and over graphql-ws such a result is serialized once for all of them (src/server/shared-payload.ts).
 */
import { setMaxListeners } from "node:events";
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import {
  createYoga,
  isAsyncIterable,
  maskError as yogaMaskError,
  Repeater,
  type Plugin,
  type YogaServerInstance,
} from "graphql-yoga";
import { GraphQLError, type ExecutionResult } from "graphql";
import { queryLimitPlugins, type QueryLimits } from "./query-limits.js";
import { deferStreamPlugins } from "./defer-stream.js";
import { useSseEventIds } from "./sse-ids.js";
import { GRAPHQL_STREAM_PATH, graphqlSsePlugins } from "./graphql-sse.js";
import { queryOf, TrustedDocuments, trustedDocumentPlugins } from "./trusted-documents.js";
import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention";
import { ProsperoError, ValidationFailed } from "../errors.js";
import { clientErrorCode, withCode, withoutHttp } from "./error-codes.js";
import type { ExecutionArgs } from "graphql";
import { WebSocketServer, type WebSocket } from "ws";
import { useServer } from "graphql-ws/use/ws";
import type { OperationResult } from "graphql-ws";
import type { Logger } from "../log.js";
import { buildSchema } from "../schema/index.js";
import { KEEPALIVE_MS } from "../resolvers/subscription.js";
import type { GraphQLContext, GraphQLServices } from "../schema/context.js";
import type { Readiness } from "./readiness.js";
import { serveDashboard } from "./static.js";
import { createGraphiQLHandler, isGraphiQLRequest } from "./graphiql.js";
import { CoalescingWebSocket } from "./coalescing-websocket.js";
import {
  captureSubscriptionSources,
  isSharedResult,
  useSharedSubscriptions,
} from "./shared-subscriptions.js";
import { createEventExecutor, type EventExecutor } from "./event-executor.js";
import { sharedPayloadOf } from "./shared-payload.js";
import { AccessPolicy, type AccessPolicyOptions, type RequestFacts } from "../auth/http-policy.js";
import { authenticate, authenticateSecret, sessionCookieName, type AuthDeps } from "../auth/authenticate.js";
import { CLOSE_FORBIDDEN, CLOSE_UNAUTHORIZED, LiveConnections } from "../auth/connections.js";
import { Forbidden, Unauthenticated } from "../auth/errors.js";
import type { Principal } from "../auth/roles.js";
import { exchangeTokenInUrl, graphqlError, plainText, serveSessionEndpoints } from "./sessions.js";
import { LOCAL_PROOF_PATH, localProof } from "../auth/local-credentials.js";
import { createMetrics, METRICS_PATH, serveScrape, type GatewayMetrics } from "./metrics.js";

/** Largest accepted request body, bytes (GraphQL documents and variables). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Query limits (graphql-armor, src/server/query-limits.ts): nesting depth, estimated cost (about
 * the number of values an answer holds: a page of 1000 events with a dozen fields each costs
 * ~13,000), aliases, lexical tokens of a document, directives per document. A refusal names the
 * limit and has a stable `extensions.code` (QUERY_TOO_DEEP, QUERY_TOO_COSTLY, TOO_MANY_ALIASES,
 * TOO_MANY_TOKENS, TOO_MANY_DIRECTIVES).
 */
export const QUERY_LIMITS = {
  maxDepth: 12,
  maxCost: 20_000,
  maxAliases: 30,
  maxTokens: 5_000,
  maxDirectives: 50,
} as const satisfies QueryLimits;

/**
 * Most WebSocket connections at once that have not authenticated yet (their token is to come in
 * `connection_init`, within graphql-ws's 3 s init timeout).
 */
export const MAX_PENDING_CONNECTIONS = 32;

/** Of those, most from one client address. */
export const MAX_PENDING_PER_ADDRESS = 8;

/**
 * Executions of a subscription document (per operation; shared executions count once) that
 * graphql-tools answers before graphql-jit compiles it: compiling is synchronous and costs tens of
 * ms for a large selection, so a one-off document (GraphiQL) never pays it, while a dashboard's or
 * SDK's document, executed for every event, is compiled within its first events (issue 17).
 */
export const JIT_COMPILE_AFTER = 100;

/** Close code for "the server is at capacity, try again later" (RFC 6455 1013; the SDK retries it). */
const CLOSE_TRY_AGAIN = 1013;

/** Most subscriptions one graphql-ws connection may run at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

/**
 * HTTP timeouts, ms: the whole request head must arrive within `headers`, the whole request
 * (head and body; not the response, so SSE streams may last) within `request`; an idle
 * keep-alive connection is closed after `keepAlive`.
 */
export const HTTP_TIMEOUTS = { headers: 10_000, request: 30_000, keepAlive: 5_000 } as const;

/**
 * Mask unexpected errors (logged with their stack by yoga, at level error); let the gateway's own
 * typed errors through with their message and a stable `extensions.code` (plus `requiredRole` /
 * `workspace` for FORBIDDEN, `fieldErrors` for BAD_USER_INPUT from input validation), keeping
 * their location and path. Every error leaves with a code (src/server/error-codes.ts): input
 * validation (the domain's BAD_USER_INPUT), Pothos' argument and cursor errors and graphql-js's
 * variable errors are BAD_USER_INPUT; a field error graphql-js raised without one is
 * INTERNAL_SERVER_ERROR.
 */
function maskError(error: unknown, message: string, isDev?: boolean): GraphQLError {
  const original = error instanceof GraphQLError ? error.originalError : error;
  const located = (extensions: Record<string, unknown>, text: string): GraphQLError =>
    error instanceof GraphQLError
      ? new GraphQLError(text, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: error.originalError,
          extensions,
        })
      : new GraphQLError(text, { extensions });
  if (original instanceof Forbidden) {
    return located(
      {
        code: original.code,
        ...(original.requiredRole ? { requiredRole: original.requiredRole.toUpperCase() } : {}),
        ...(original.workspace ? { workspace: original.workspace } : {}),
      },
      original.message,
    );
  }
  if (original instanceof ValidationFailed) {
    return located({ code: "BAD_USER_INPUT", fieldErrors: original.issues }, original.message);
  }
  if (original instanceof ProsperoError) return located({ code: original.code }, original.message);
  const masked = yogaMaskError(error, message, isDev) as GraphQLError;
  if (typeof masked.extensions?.code === "string") return masked;
  return withCode(masked, clientErrorCode(masked) ?? "INTERNAL_SERVER_ERROR");
}

/**
 * Yoga's log lines, with errors the client caused ({@link clientErrorCode}: a bad document,
 * argument or cursor, a refused limit or credential, a missing entity) at `debug` instead of
 * `error`; the gateway's own failures stay at `error`.
 */
function yogaLogging(log: Logger) {
  return {
    debug: (...args: unknown[]) => log.debug({ args }, "yoga"),
    info: (...args: unknown[]) => log.info({ args }, "yoga"),
    warn: (...args: unknown[]) => log.warn({ args }, "yoga"),
    error: (...args: unknown[]) => {
      const code = args.length === 1 ? clientErrorCode(args[0]) : null;
      if (code !== null) log.debug({ code, err: args[0] }, "request refused");
      else log.error({ args }, "yoga");
    },
  };
}

/** GraphQL path for HTTP, SSE and graphql-ws. */
export const GRAPHQL_PATH = "/graphql";

/** What the gateway needs from the rest of the process. */
export interface GatewayDeps {
  logger: Logger;
  /** Current readiness; `/readyz` answers 200 only when `ready`. */
  readiness: () => Readiness;
  /** Services for operations, or null while the store is not open yet (operations then answer 503). */
  context: () => GraphQLServices | null;
  /** Browser-origin and network policy (issue 11 items 5, 6). */
  access: AccessPolicyOptions;
  /** `--insecure-no-auth`: every request is admin. */
  insecure: boolean;
  /** PEM certificate and key: serve HTTPS and WSS. */
  tls?: { cert: string | Buffer; key: string | Buffer } | null;
  /** Most WebSocket connections, and separately SSE streams, open at once (default 256). */
  maxConnections?: number;
  /**
   * `--trusted-documents-only`: run only the documents registered in the trusted-documents
   * manifest (src/server/trusted-documents.ts); registered ids resolve either way.
   */
  trustedDocumentsOnly?: boolean;
  /** Expose stack traces in errors (tests only). */
  isDev?: boolean;
  /**
   * Executes one subscription event for all the subscribers sharing it
   * (src/server/shared-subscriptions.ts); default the compiled executor of
   * src/server/event-executor.ts (graphql-jit once a document has run {@link JIT_COMPILE_AFTER}
   * times, graphql-tools before and for any result with errors: the same bytes either way).
   */
  executeEvent?: EventExecutor;
}

/**
 * The context part of the shared-execution key of an operation: everything of its token that
 * resolvers and type-level authScopes read (src/schema/auth-scopes.ts: role, workspaces, and
 * validity, which follows from the token's id and expiry). Operations of one token share; tokens
 * of the same role and workspaces do not (conservative: a revoked one must not answer for another).
 * Null (not shared) for a context without a principal.
 */
function sharingKeyOf(contextValue: unknown): string | null {
  const auth = (contextValue as Partial<GraphQLContext>).auth;
  if (auth === undefined) return null;
  const workspaces = auth.workspaces === null ? null : [...auth.workspaces].sort();
  return JSON.stringify([auth.credential, auth.tokenId, auth.role, auth.expiresAtMs, workspaces]);
}

/** A listening gateway. */
export interface Gateway {
  /** Base URL, e.g. `http://127.0.0.1:7878` (the loopback address for a wildcard bind). */
  url: string;
  /** Bound port (useful with port 0). */
  port: number;
  /** Name of the session cookie for direct connections (per port; `__Host-` prefixed under TLS). */
  cookieName: string;
  yoga: YogaServerInstance<GatewayServerContext, GraphQLContext>;
  /** Open authenticated connections (graphql-ws and in-flight HTTP requests). */
  live: LiveConnections;
  /**
   * Prometheus metrics served on `/metrics` (src/server/metrics.ts); the app wires the poller's
   * and the store writer's hooks to `observePollRound` / `observeStoreWrite`.
   */
  metrics: GatewayMetrics;
  /**
   * Stop accepting, close WebSocket clients with code 1001 and let in-flight HTTP requests
   * finish, then resolve. After `graceMs` (default 5000 ms) whatever is still open is destroyed:
   * a client that stopped reading never answers the close handshake, and would otherwise hold
   * shutdown for ws's own 30 s close timeout.
   */
  close(graceMs?: number): Promise<void>;
}

/** What the HTTP layer hands to every operation (yoga server context). */
export interface GatewayServerContext {
  /** Who is asking (authenticated before yoga). */
  principal?: Principal;
  /** The client's address for the audit log. */
  remoteAddress?: string | null;
  /** Fair-queue key of the client (one per HTTP request or WebSocket connection). */
  clientKey?: string;
  /** Served over HTTP (a subscription is then an SSE stream), not over graphql-ws. */
  overHttp?: boolean;
}

/** What the gateway adds to graphql-ws's per-connection data (`ctx.extra`). */
type WsExtra = {
  /** Who opened the connection (set by onConnect). */
  principal?: Principal;
};

const upgradeInfo = new WeakMap<
  http.IncomingMessage,
  { principal: Principal | null; remoteAddress: string | null }
>();

function tokenFromConnectionParams(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!params) return null;
  const auth = params["authorization"] ?? params["Authorization"];
  if (typeof auth === "string") {
    const m = /^Bearer +(\S+)$/i.exec(auth.trim());
    return m ? m[1]! : auth.trim();
  }
  const token = params["token"];
  return typeof token === "string" ? token : null;
}

function rejectUpgrade(socket: Duplex, status: number, text: string, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Create and start the gateway on `bind:port`.
 * @throws (rejects) when the address cannot be bound (e.g. EADDRINUSE), with the OS reason.
 */
export async function startGateway(bind: string, port: number, deps: GatewayDeps): Promise<Gateway> {
  const log = deps.logger.child({ module: "gateway" });
  const policy = new AccessPolicy(deps.access);
  const tlsOn = deps.tls != null;
  const maxConnections = deps.maxConnections ?? 256;
  let boundPort = port; // set once the port is known (port 0 picks one)
  const live = new LiveConnections((id, now) => deps.context()?.tokens.isActive(id, now) ?? false);
  let clientSeq = 0;
  let sseStreams = 0;
  /** Open SSE responses (waited for by `close`). */
  const sseOpen = new Set<http.ServerResponse>();
  /** Aborted by `close`: open SSE subscriptions then end with a final event and `complete`. */
  const closing = new AbortController();
  // One listener per running SSE subscription (bounded by the stream and operation caps), not a leak.
  setMaxListeners(0, closing.signal);
  /** GraphQL subscriptions running now, every transport (the `prospero_subscriptions` gauge). */
  let subscriptionsRunning = 0;
  const countSubscriptions: Plugin<GatewayServerContext> = {
    onSubscribe() {
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return;
          subscriptionsRunning++;
          let ended = false;
          return {
            onEnd() {
              if (ended) return;
              ended = true;
              subscriptionsRunning--;
            },
          };
        },
      };
    },
  };
  const metrics = createMetrics({
    services: deps.context,
    // `authed` is set up once the port is bound, before any request can be served.
    live: () => ({ websockets: authed.size, subscriptions: subscriptionsRunning }),
    log,
  });
  const endStreamsOnClose: Plugin<GatewayServerContext> = {
    onSubscribe({ args }) {
      if ((args.contextValue as GatewayServerContext).overHttp !== true) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(endOnSignal(result, closing.signal));
        },
      };
    },
  };

  const serveGraphiQL = createGraphiQLHandler({ endpoint: GRAPHQL_PATH });
  const trusted = {
    documents: TrustedDocuments.load(),
    only: deps.trustedDocumentsOnly ?? false,
    onRefused: (ctx: Readonly<Record<string, unknown>>) => {
      const server = ctx as GatewayServerContext;
      deps.context()?.audit.recordRefusal({
        principal: server.principal ?? null,
        remoteAddress: server.remoteAddress ?? null,
        operation: server.overHttp === true ? "http" : "websocket",
        result: "DOCUMENT_NOT_TRUSTED",
      });
    },
  };
  if (trusted.only) {
    log.info(
      { documents: trusted.documents.size },
      "running only trusted documents (--trusted-documents-only)",
    );
  }
  const csrf = useCSRFPrevention({ requestHeaders: ["x-prospero-csrf"] });
  /** yoga's CSRF prevention, for requests authenticated by the session cookie only. */
  const csrfForCookies: Plugin<GatewayServerContext> = {
    onRequestParse(payload) {
      const server = payload.serverContext as GatewayServerContext;
      if (server.principal?.credential !== "cookie") return;
      try {
        return csrf.onRequestParse?.(payload as never);
      } catch (err) {
        deps.context()?.audit.recordRefusal({
          principal: server.principal,
          remoteAddress: server.remoteAddress ?? null,
          operation: "http",
          result: "CSRF_HEADER_MISSING",
        });
        throw new GraphQLError(
          "CSRF protection: a request authenticated by the session cookie must be a JSON POST, or carry the x-prospero-csrf header",
          { extensions: { code: "CSRF_HEADER_MISSING", http: { status: 403 } }, originalError: err as Error },
        );
      }
    },
  };

  const yoga = createYoga<GatewayServerContext, GraphQLContext>({
    schema: captureSubscriptionSources(buildSchema()),
    graphqlEndpoint: GRAPHQL_PATH,
    // GraphiQL is served by src/server/graphiql.ts as cached static files (no CDN, strict CSP).
    graphiql: false,
    landingPage: false,
    // Same origin only; an operator's `--cors-origin` allowlist (bearer tokens, no cookies).
    cors: (request) => {
      const origin = request.headers.get("origin");
      if (origin === null || !policy.corsAllowed(origin)) return false;
      return {
        origin: [origin],
        credentials: false,
        methods: ["GET", "POST"],
        allowedHeaders: ["authorization", "content-type", "accept"],
        maxAge: 600,
      };
    },
    maskedErrors: { isDev: deps.isDev ?? false, maskError },
    // `documentId`: a persisted document's id (GraphQL-over-HTTP), beside the standard parameters.
    extraParamNames: ["documentId"],
    plugins: [
      // First: it pairs each subscription result with its item's SSE event id (src/server/sse-ids.ts).
      useSseEventIds(),
      endStreamsOnClose,
      csrfForCookies,
      // Trusted documents first (a refused document costs nothing more); then the query limits,
      // which see the whole document, deferred and streamed parts included.
      ...trustedDocumentPlugins(trusted),
      ...queryLimitPlugins(QUERY_LIMITS),
      // @defer / @stream: multipart/mixed (or SSE) over HTTP, several `next` messages over graphql-ws.
      ...deferStreamPlugins((error) => maskError(error, "Unexpected error.", deps.isDev)),
      // graphql-sse's single connection mode at /graphql/stream (src/server/graphql-sse.ts).
      ...graphqlSsePlugins({
        maxOperations: MAX_SUBSCRIPTIONS_PER_CONNECTION,
        queryOf: (params) => queryOf(trusted, { ...params, query: params.query ?? "" }),
        logger: log,
      }),
      // One execution per event for subscribers entitled to the same result (issue 17).
      useSharedSubscriptions({
        executeEvent: deps.executeEvent ?? createEventExecutor({ compileAfter: JIT_COMPILE_AFTER }),
        contextKey: sharingKeyOf,
      }),
      countSubscriptions,
      // GraphQL operation counts, durations and errors by operation name (`graphql_envelop_*`).
      metrics.yogaPlugin(),
    ],
    logging: yogaLogging(log),
    context: (initial) => {
      const ctx = deps.context();
      if (!ctx) throw new Error("the store is not open yet; retry when /readyz answers 200");
      if (!initial.principal) throw new Unauthenticated("authentication required");
      return {
        ...ctx,
        readiness: deps.readiness,
        auth: initial.principal,
        remoteAddress: initial.remoteAddress ?? null,
        clientKey: initial.clientKey ?? "unknown",
        // An SSE reconnect's last received event id: its subscription resumes after it.
        lastEventId:
          initial.overHttp === true ? (initial.request?.headers.get("last-event-id") ?? null) : null,
      };
    },
  });

  /**
   * The session cookie of a request: `Secure` and `__Host-` prefixed when the browser talks HTTPS
   * to us — TLS of our own, or a trusted proxy's `X-Forwarded-Proto: https`.
   */
  const cookieFor = (facts: RequestFacts) => {
    const secure = policy.scheme(facts) === "https";
    return { name: sessionCookieName(boundPort, secure), secure };
  };

  const authDeps = (svc: GraphQLServices, facts: RequestFacts): AuthDeps => ({
    tokens: svc.tokens,
    cookieName: cookieFor(facts).name,
    insecure: deps.insecure,
  });

  const refuse = (svc: GraphQLServices | null, req: RequestFacts, operation: string, result: string) => {
    svc?.audit.recordRefusal({
      principal: null,
      remoteAddress: policy.clientAddress(req),
      operation,
      result,
    });
  };

  /**
   * `GET /metrics`: authenticated like the API (a bearer token, or the session cookie with this
   * gateway's own `Origin`), by a token not limited to workspaces (the metrics name every
   * workspace); a foreign `Origin` is refused. Refusals are audited as operation `metrics`.
   */
  const serveMetrics = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    facts: RequestFacts,
    origin: ReturnType<AccessPolicy["origin"]>,
    svc: GraphQLServices | null,
  ): Promise<void> => {
    req.resume();
    if (req.method !== "GET" && req.method !== "HEAD") {
      plainText(res, 405, `method not allowed: GET ${METRICS_PATH}`, { allow: "GET, HEAD" });
      return;
    }
    if (origin === "forbidden") {
      refuse(svc, facts, "metrics", "FORBIDDEN_ORIGIN");
      plainText(res, 403, "cross-origin requests are refused (allow an origin with --cors-origin)");
      return;
    }
    if (!svc) {
      plainText(res, 503, "the store is not open yet; retry when /readyz answers 200", {
        "retry-after": "1",
      });
      return;
    }
    const auth = authenticate(
      { authorization: req.headers.authorization, cookie: req.headers.cookie, origin },
      authDeps(svc, facts),
    );
    if (!auth.ok) {
      refuse(svc, facts, "metrics", auth.code);
      plainText(res, auth.status, auth.message, { "www-authenticate": 'Bearer realm="prospero"' });
      return;
    }
    if (auth.principal!.workspaces !== null) {
      svc.audit.recordRefusal({
        principal: auth.principal,
        remoteAddress: policy.clientAddress(facts),
        operation: "metrics",
        result: "FORBIDDEN",
      });
      plainText(
        res,
        403,
        "the metrics cover every workspace: use a token that is not limited to workspaces (role viewer or above)",
      );
      return;
    }
    await serveScrape(res, metrics, log, req.method === "HEAD");
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = req.url ?? "/";
    const pathname = url.split("?")[0] ?? "/";
    const facts: RequestFacts = { headers: req.headers, remoteAddress: req.socket.remoteAddress };
    const open = pathname === "/healthz" || pathname === "/readyz";
    if (policy.behindProxy && !policy.fromTrustedProxy(facts) && !open) {
      plainText(res, 403, "this gateway accepts connections only from its trusted proxy (--trust-proxy)");
      return;
    }
    if (!policy.hostAllowed(req.headers.host)) {
      refuse(deps.context(), facts, "http", "MISDIRECTED_HOST");
      const text =
        "unknown Host: this gateway answers to localhost, IP addresses and its --public-host names";
      if (pathname === GRAPHQL_PATH || pathname === GRAPHQL_STREAM_PATH) {
        graphqlError(res, 421, "MISDIRECTED_HOST", text);
      } else plainText(res, 421, text);
      return;
    }
    if (pathname === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok\n");
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      payloadTooLarge(res);
      req.resume();
      return;
    }
    if (pathname === "/readyz") {
      const r = deps.readiness();
      res
        .writeHead(r.ready ? 200 : 503, { "content-type": "application/json; charset=utf-8" })
        .end(JSON.stringify(r));
      return;
    }
    const origin = policy.origin(facts);
    const svc = deps.context();
    const isGet = req.method === "GET" || req.method === "HEAD";
    if (pathname === LOCAL_PROOF_PATH) {
      // A local CLI/SDK checks we hold the admin token it found before sending it to this port.
      const nonce = new URL(url, "http://gateway").searchParams.get("nonce") ?? "";
      const hash = svc?.tokens.activeBootstrapHash() ?? null;
      if (!isGet || origin === "forbidden" || !/^[0-9a-f]{32,128}$/.test(nonce) || hash === null) {
        plainText(res, 404, "not found");
        return;
      }
      res
        .writeHead(200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
        .end(JSON.stringify({ proof: localProof(hash, nonce, boundPort) }));
      return;
    }
    if (pathname === METRICS_PATH) {
      await serveMetrics(req, res, facts, origin, svc);
      return;
    }
    const graphiql = isGraphiQLRequest(req, GRAPHQL_PATH);
    if (
      svc &&
      isGet &&
      (pathname === "/" || pathname === "/index.html" || (graphiql && pathname === GRAPHQL_PATH))
    ) {
      // `?token=` on the dashboard or GraphiQL page: a session cookie, and the token leaves the URL.
      if (await exchangeTokenInUrl(req, res, sessionDeps(svc, facts))) return;
    }
    if (graphiql) {
      // GraphiQL's page and files: public, no data (the API calls it makes are authenticated).
      void serveGraphiQL(req, res);
      return;
    }
    if (pathname !== GRAPHQL_PATH && pathname !== GRAPHQL_STREAM_PATH) {
      if (svc && (await serveSessionEndpoints(req, res, pathname, origin, sessionDeps(svc, facts)))) return;
      if (isGet) {
        // The dashboard and its assets (src/server/static.ts): public files, no data.
        void serveDashboard(req, res);
        return;
      }
      plainText(res, 404, "not found");
      return;
    }
    // /graphql and /graphql/stream (graphql-sse's single connection mode) ----------------------
    if (origin === "forbidden") {
      refuse(svc, facts, "http", "FORBIDDEN_ORIGIN");
      graphqlError(
        res,
        403,
        "FORBIDDEN_ORIGIN",
        "cross-origin requests are refused (allow an origin with --cors-origin)",
      );
      return;
    }
    if (req.method === "OPTIONS") {
      // A CORS preflight of an allowlisted origin: yoga answers it (no credentials involved).
      void yoga.handle(req, res, {});
      return;
    }
    if (
      req.method === "POST" &&
      !/^application\/(graphql-response\+)?json\b/i.test(req.headers["content-type"] ?? "")
    ) {
      refuse(svc, facts, "http", "UNSUPPORTED_MEDIA_TYPE");
      graphqlError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "GraphQL requests must be sent as application/json");
      req.resume();
      return;
    }
    if (!svc) {
      graphqlError(res, 503, "NOT_READY", "the store is not open yet; retry when /readyz answers 200", {
        "retry-after": "1",
      });
      return;
    }
    const auth = authenticate(
      { authorization: req.headers.authorization, cookie: req.headers.cookie, origin },
      authDeps(svc, facts),
    );
    if (!auth.ok) {
      refuse(svc, facts, "http", auth.code);
      graphqlError(res, auth.status, auth.code, auth.message, {
        "www-authenticate": 'Bearer realm="prospero"',
      });
      req.resume();
      return;
    }
    const principal = auth.principal!;
    // SSE streams are long-lived connections too: the same cap as WebSockets, and revoking the
    // token ends them. (A plain request finishes: revokeToken's own answer must not be cut.)
    if (/text\/event-stream/.test(req.headers.accept ?? "")) {
      if (sseStreams >= maxConnections) {
        graphqlError(
          res,
          503,
          "TOO_MANY_CONNECTIONS",
          `too many open subscription streams (${maxConnections})`,
          {
            "retry-after": "5",
          },
        );
        req.resume();
        return;
      }
      sseStreams++;
      sseOpen.add(res);
      const untrack = live.add(principal, () => res.destroy());
      res.once("close", () => {
        sseStreams--;
        sseOpen.delete(res);
        untrack();
      });
    }
    if (req.headers["transfer-encoding"] !== undefined) limitStreamingBody(req, res);
    void yoga.handle(req, res, {
      principal,
      remoteAddress: policy.clientAddress(facts),
      clientKey: `http:${++clientSeq}`,
      overHttp: true,
    });
  };

  const sessionDeps = (svc: GraphQLServices, facts: RequestFacts) => ({
    tokens: svc.tokens,
    cookieName: cookieFor(facts).name,
    secure: cookieFor(facts).secure,
    refused: (reason: string) => refuse(svc, facts, "session", `UNAUTHENTICATED: ${reason}`),
    opened: (principal: Principal) =>
      void svc.audit.record({
        principal,
        remoteAddress: policy.clientAddress(facts),
        operation: "openSession",
        result: "SESSION_OPENED",
        denied: false,
      }),
  });

  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, "request handler failed");
      if (!res.headersSent) plainText(res, 500, "internal error");
      else res.destroy();
    });
  };
  // Timeouts are enforced by a sweep every `connectionsCheckingInterval` (Node's default: 30 s).
  const serverOptions = { connectionsCheckingInterval: 1_000 };
  const server = deps.tls
    ? https.createServer({ ...serverOptions, cert: deps.tls.cert, key: deps.tls.key }, listener)
    : http.createServer(serverOptions, listener);
  server.headersTimeout = HTTP_TIMEOUTS.headers;
  server.requestTimeout = HTTP_TIMEOUTS.request;
  server.keepAliveTimeout = HTTP_TIMEOUTS.keepAlive;

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(port, bind, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  boundPort = addr.port;

  /** Open WebSocket connections that authenticated, and those still waiting for connection_init. */
  const authed = new Set<WebSocket>();
  /** Connections still waiting for connection_init, with their client address. */
  const pending = new Map<WebSocket, string>();
  // WebSockets attach only once the port is ours (a failed listen must not reach graphql-ws).
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_BODY_BYTES,
    WebSocket: CoalescingWebSocket,
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const facts: RequestFacts = { headers: req.headers, remoteAddress: (socket as Socket).remoteAddress };
    const pathname = (req.url ?? "/").split("?")[0];
    if (pathname !== GRAPHQL_PATH)
      return rejectUpgrade(socket, 404, "Not Found", "WebSockets live at /graphql");
    if (policy.behindProxy && !policy.fromTrustedProxy(facts)) {
      return rejectUpgrade(socket, 403, "Forbidden", "only the trusted proxy may connect");
    }
    const svc = deps.context();
    if (!policy.hostAllowed(req.headers.host)) {
      refuse(svc, facts, "websocket", "MISDIRECTED_HOST");
      return rejectUpgrade(socket, 421, "Misdirected Request", "unknown Host");
    }
    const origin = policy.origin(facts);
    if (origin === "forbidden") {
      refuse(svc, facts, "websocket", "FORBIDDEN_ORIGIN");
      return rejectUpgrade(
        socket,
        403,
        "Forbidden",
        "cross-origin WebSocket refused (allow it with --cors-origin)",
      );
    }
    if (!svc) return rejectUpgrade(socket, 503, "Service Unavailable", "the store is not open yet");
    const auth = authenticate(
      { authorization: req.headers.authorization, cookie: req.headers.cookie, origin },
      authDeps(svc, facts),
      true,
    );
    if (!auth.ok) {
      refuse(svc, facts, "websocket", auth.code);
      return rejectUpgrade(
        socket,
        auth.status,
        auth.status === 401 ? "Unauthorized" : "Forbidden",
        auth.message,
      );
    }
    // Authenticated connections count against --max-connections; those whose token is still to
    // come in connection_init against a small cap of their own, so clients without a token
    // cannot crowd operators out (they are dropped after graphql-ws's init timeout anyway).
    const address = policy.clientAddress(facts) ?? "unknown";
    const pendingHere = [...pending.values()].filter((a) => a === address).length;
    if (
      auth.principal !== null
        ? authed.size >= maxConnections
        : pending.size >= MAX_PENDING_CONNECTIONS || pendingHere >= MAX_PENDING_PER_ADDRESS
    ) {
      return rejectUpgrade(
        socket,
        503,
        "Service Unavailable",
        auth.principal !== null
          ? `too many WebSocket connections (${maxConnections})`
          : `too many WebSocket connections waiting to authenticate (${MAX_PENDING_CONNECTIONS})`,
      );
    }
    upgradeInfo.set(req, { principal: auth.principal, remoteAddress: policy.clientAddress(facts) });
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (auth.principal !== null) authed.add(ws);
      else pending.set(ws, address);
      ws.once("close", () => {
        authed.delete(ws);
        pending.delete(ws);
      });
      wss.emit("connection", ws, req);
    });
  });

  useServer<Record<string, unknown>, WsExtra>(
    {
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args),
      onConnect: (ctx) => {
        const svc = deps.context();
        const info = upgradeInfo.get(ctx.extra.request);
        const facts: RequestFacts = {
          headers: ctx.extra.request.headers,
          remoteAddress: info?.remoteAddress ?? undefined,
        };
        if (!svc || !info) {
          ctx.extra.socket.close(CLOSE_FORBIDDEN, "Forbidden");
          return false;
        }
        let principal = info.principal;
        const secret = tokenFromConnectionParams(ctx.connectionParams);
        if (secret !== null) {
          const checked = authenticateSecret(secret, authDeps(svc, facts));
          if (!checked.ok) {
            refuse(svc, facts, "websocket", checked.code);
            ctx.extra.socket.close(CLOSE_UNAUTHORIZED, `Unauthorized: ${checked.message}`);
            return false;
          }
          principal = checked.principal;
        }
        if (principal === null) {
          refuse(svc, facts, "websocket", "UNAUTHENTICATED");
          ctx.extra.socket.close(
            CLOSE_UNAUTHORIZED,
            "Unauthorized: send connectionParams { authorization: 'Bearer <token>' }",
          );
          return false;
        }
        const socket = ctx.extra.socket;
        if (pending.delete(socket)) {
          if (authed.size >= maxConnections) {
            socket.close(
              CLOSE_TRY_AGAIN,
              `too many WebSocket connections (${maxConnections}); try again later`,
            );
            return false;
          }
          authed.add(socket);
        }
        ctx.extra.principal = principal;
        const untrack = live.add(principal, (code, reason) => socket.close(code, reason));
        socket.once("close", untrack);
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        const principal = ctx.extra.principal;
        if (!principal)
          return [new GraphQLError("not authenticated", { extensions: { code: "UNAUTHENTICATED" } })];
        // graphql-ws records the new operation (as null) before calling onSubscribe: it counts itself.
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return [
            new GraphQLError(
              `too many operations on this connection (at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION}); open another connection or stop some`,
              { extensions: { code: "TOO_MANY_SUBSCRIPTIONS" } },
            ),
          ];
        }
        const info = upgradeInfo.get(ctx.extra.request);
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params: payload,
          principal,
          remoteAddress: info?.remoteAddress ?? null,
          clientKey: `ws:${wsKey(ctx.extra.socket)}`,
        });
        // A bad or over-limit document (graphql-armor throws from validate), or a store not open
        // yet, is this operation's error, answered with an `error` message for its id; thrown,
        // graphql-ws would close the whole connection (4500) and every other subscription on it.
        // Every error carries a code; `extensions.http` (an HTTP status hint) stays off the socket.
        try {
          let document;
          try {
            const query = queryOf(trusted, payload);
            if (query instanceof GraphQLError) return withoutHttp([query], "BAD_REQUEST");
            document = parse(query);
          } catch (err) {
            if (err instanceof GraphQLError) return withoutHttp([err], "GRAPHQL_PARSE_FAILED");
            throw err;
          }
          const errors = validate(schema, document);
          if (errors.length) return withoutHttp(errors, "GRAPHQL_VALIDATION_FAILED");
          const contextValue = await contextFactory();
          const args: ExecutionArgs = {
            schema,
            operationName: payload.operationName ?? null,
            document,
            variableValues: payload.variables ?? null,
            contextValue,
            rootValue: { execute, subscribe } as EnvelopedRoot,
          };
          return args;
        } catch (err) {
          const code = clientErrorCode(err);
          if (code === null) log.error({ err }, "graphql-ws operation failed");
          else log.debug({ code, err }, "request refused");
          const error =
            err instanceof GraphQLError || err instanceof ProsperoError
              ? maskError(err, "Unexpected error.", deps.isDev)
              : new GraphQLError(err instanceof Error ? err.message : String(err));
          return withoutHttp([error], "INTERNAL_SERVER_ERROR");
        }
      },
      onNext: (_ctx, _id, _payload, _args, result) => {
        if (result.errors === undefined) {
          // A shared result is serialized once for all its subscribers (src/server/shared-payload.ts).
          return isSharedResult(result) ? (sharedPayloadOf(result) as unknown as ExecutionResult) : undefined;
        }
        return result.errors.some((e) => e.extensions?.http !== undefined)
          ? { ...result, errors: withoutHttp(result.errors, "INTERNAL_SERVER_ERROR").map((e) => e.toJSON()) }
          : undefined;
      },
    },
    wss,
    KEEPALIVE_MS,
  );

  // A wildcard bind is reachable on loopback: the URL the gateway logs must be one a browser opens.
  const address = addr.address === "0.0.0.0" ? "127.0.0.1" : addr.address === "::" ? "::1" : addr.address;
  const host = address.includes(":") ? `[${address}]` : address;
  const gateway: Gateway = {
    url: `${tlsOn ? "https" : "http"}://${host}:${addr.port}`,
    port: addr.port,
    cookieName: sessionCookieName(addr.port, tlsOn),
    yoga,
    live,
    metrics,
    async close(graceMs = 5000) {
      live.stop();
      // SSE subscriptions end as promptly as graphql-ws ones: a final SHUTTING_DOWN event, then
      // `complete` (see endOnSignal), instead of being cut when the grace runs out.
      closing.abort();
      const sseEnded = Promise.all(
        [...sseOpen].map((res) => new Promise<void>((resolve) => res.once("close", () => resolve()))),
      );
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        for (const client of wss.clients) client.terminate();
        server.closeAllConnections();
      }, graceMs);
      try {
        for (const client of wss.clients) client.close(1001, "server shutting down");
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        if (expired) server.closeAllConnections();
        await sseEnded;
        // The keep-alive connections that carried them are idle now.
        setImmediate(() => server.closeIdleConnections());
        await closed;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  live.start();
  return gateway;
}

const wsKeys = new WeakMap<object, number>();
let wsSeq = 0;
function wsKey(socket: object): number {
  let k = wsKeys.get(socket);
  if (k === undefined) {
    k = ++wsSeq;
    wsKeys.set(socket, k);
  }
  return k;
}

/** Answer 413 PAYLOAD_TOO_LARGE (a body over {@link MAX_BODY_BYTES}) and close the connection. */
function payloadTooLarge(res: http.ServerResponse): void {
  graphqlError(res, 413, "PAYLOAD_TOO_LARGE", `request body larger than ${MAX_BODY_BYTES} bytes`, {
    connection: "close",
  });
}

/** A request without a declared length: count as the body streams and cut it off past the limit. */
function limitStreamingBody(req: http.IncomingMessage, res: http.ServerResponse): void {
  let seen = 0;
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > MAX_BODY_BYTES && !res.headersSent) {
      payloadTooLarge(res);
      req.destroy();
    }
  });
}

/**
 * The message of the last event of an SSE subscription ended by the gateway's shutdown (its
 * `extensions.code` is SHUTTING_DOWN): the stream did not end because the subscription is over.
 */
export const SHUTTING_DOWN_MESSAGE =
  "the gateway is shutting down; subscribe again, after the last cursor you received, once it is back";

/**
 * `source`, until `signal` aborts: then one last result carrying a SHUTTING_DOWN error, and the
 * end (for SSE: yoga then writes `event: complete` and ends the response). The source is
 * returned (its subscription released) when the stream ends either way, or when the client goes.
 */
function endOnSignal(
  source: AsyncIterable<ExecutionResult>,
  signal: AbortSignal,
): AsyncIterableIterator<ExecutionResult> {
  return new Repeater<ExecutionResult>(async (push, stop) => {
    const it = source[Symbol.asyncIterator]();
    const shutDown = () => {
      void push({
        errors: [new GraphQLError(SHUTTING_DOWN_MESSAGE, { extensions: { code: "SHUTTING_DOWN" } })],
      });
      stop();
    };
    if (signal.aborted) shutDown();
    else signal.addEventListener("abort", shutDown, { once: true });
    try {
      for (;;) {
        const next = it.next();
        next.catch(() => {}); // still rejects the race; only unobserved once `stop` has won it
        const r = await Promise.race([next, stop]);
        if (r === undefined || r.done) break;
        await push(r.value);
      }
    } finally {
      signal.removeEventListener("abort", shutDown);
      stop();
      await it.return?.();
    }
  });
}

/** Enveloped execute/subscribe carried to graphql-ws through `rootValue`. */
interface EnvelopedRoot {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
}
