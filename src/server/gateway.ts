/**
 * The HTTP gateway: one Node http server carrying graphql-yoga (queries, mutations, SSE
 * subscriptions, GraphiQL at /graphql), graphql-ws on the same path (every envelop plugin
 * applies to WebSocket operations through `yoga.getEnveloped`), `/healthz` and `/readyz`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createYoga, maskError as yogaMaskError, type YogaServerInstance } from "graphql-yoga";
import { GraphQLError } from "graphql";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { ProsperoError } from "../errors.js";
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import type { ExecutionArgs } from "graphql";
import { WebSocketServer } from "ws";
import { useServer } from "graphql-ws/use/ws";
import type { OperationResult } from "graphql-ws";
import type { Logger } from "../log.js";
import { buildSchema } from "../schema/index.js";
import { KEEPALIVE_MS } from "../resolvers/subscription.js";
import type { GraphQLContext, GraphQLServices } from "../schema/context.js";
import type { Readiness } from "./readiness.js";
import { serveDashboard } from "./static.js";
import { CoalescingWebSocket } from "./coalescing-websocket.js";

/** Largest accepted request body, bytes (GraphQL documents and variables). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Query limits: nesting depth, estimated cost, aliases (graphql-armor). */
export const QUERY_LIMITS = { maxDepth: 12, maxCost: 20_000, maxAliases: 30 } as const;

/**
 * Mask unexpected errors (logged with their stack by yoga); let the gateway's own typed errors
 * through with their message and a stable `extensions.code`.
 */
function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof ProsperoError) {
    return new GraphQLError(original.message, { extensions: { code: original.code } });
  }
  return yogaMaskError(error, message, isDev);
}

/** GraphQL path for HTTP, SSE and graphql-ws. */
export const GRAPHQL_PATH = "/graphql";

/** What the gateway needs from the rest of the process. */
export interface GatewayDeps {
  logger: Logger;
  /** Current readiness; `/readyz` answers 200 only when `ready`. */
  readiness: () => Readiness;
  /** Services for operations, or null while the store is not open yet (operations then fail). */
  context: () => GraphQLServices | null;
  /** Expose stack traces in errors (tests only). */
  isDev?: boolean;
}

/** A listening gateway. */
export interface Gateway {
  /** Base URL, e.g. `http://127.0.0.1:7878`. */
  url: string;
  /** Bound port (useful with port 0). */
  port: number;
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  /**
   * Stop accepting, close WebSocket clients with code 1001 and let in-flight HTTP requests
   * finish, then resolve. After `graceMs` (default 5000 ms) whatever is still open is destroyed:
   * a client that stopped reading never answers the close handshake, and would otherwise hold
   * shutdown for ws's own 30 s close timeout.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Create and start the gateway on `bind:port`.
 * @throws (rejects) when the address cannot be bound (e.g. EADDRINUSE), with the OS reason.
 */
export async function startGateway(bind: string, port: number, deps: GatewayDeps): Promise<Gateway> {
  const log = deps.logger.child({ module: "gateway" });
  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: { subscriptionsProtocol: "WS", title: "Prospero" },
    // Served from the package itself: no CDN, so GraphiQL works on machines without internet.
    renderGraphiQL,
    landingPage: false,
    maskedErrors: { isDev: deps.isDev ?? false, maskError },
    plugins: [
      maxDepthPlugin({
        n: QUERY_LIMITS.maxDepth,
        exposeLimits: true,
        ignoreIntrospection: true,
        flattenFragments: true,
      }),
      costLimitPlugin({ maxCost: QUERY_LIMITS.maxCost, exposeLimits: true, ignoreIntrospection: true }),
      maxAliasesPlugin({ n: QUERY_LIMITS.maxAliases, exposeLimits: true }),
    ],
    logging: {
      debug: (...args) => log.debug({ args }, "yoga"),
      info: (...args) => log.info({ args }, "yoga"),
      warn: (...args) => log.warn({ args }, "yoga"),
      error: (...args) => log.error({ args }, "yoga"),
    },
    context: () => {
      const ctx = deps.context();
      if (!ctx) throw new Error("the store is not open yet; retry when /readyz answers 200");
      return { ...ctx, readiness: deps.readiness };
    },
  });

  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    const pathname = url.split("?")[0];
    if (pathname === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok\n");
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      res
        .writeHead(413, { "content-type": "text/plain; charset=utf-8", connection: "close" })
        .end(`request body larger than ${MAX_BODY_BYTES} bytes\n`);
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
    if ((req.method === "GET" || req.method === "HEAD") && pathname !== GRAPHQL_PATH) {
      // The dashboard and its assets (src/server/static.ts); everything else is yoga's.
      void serveDashboard(req, res);
      return;
    }
    if (req.headers["transfer-encoding"] !== undefined) {
      // No declared length: count as the body streams and cut it off past the limit.
      let seen = 0;
      req.on("data", (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > MAX_BODY_BYTES && !res.headersSent) {
          res.writeHead(413, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end();
          req.destroy();
        }
      });
    }
    void yoga.handle(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(port, bind, () => {
      server.off("error", onError);
      resolve();
    });
  });
  // WebSockets attach only once the port is ours (a failed listen must not reach graphql-ws).
  const wss = new WebSocketServer({
    server,
    path: GRAPHQL_PATH,
    maxPayload: MAX_BODY_BYTES,
    WebSocket: CoalescingWebSocket,
  });
  useServer<Record<string, unknown>>(
    {
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params: payload,
        });
        // A bad document (or a store not open yet) is this operation's error, answered with an
        // `error` message for its id; thrown, graphql-ws would close the whole connection (4500)
        // and with it every other subscription on it.
        let document: ExecutionArgs["document"];
        let contextValue: unknown;
        try {
          document = parse(payload.query);
          contextValue = await contextFactory();
        } catch (err) {
          if (err instanceof GraphQLError) return [err];
          return [new GraphQLError(err instanceof Error ? err.message : String(err))];
        }
        const args: ExecutionArgs = {
          schema,
          operationName: payload.operationName ?? null,
          document,
          variableValues: payload.variables ?? null,
          contextValue,
          rootValue: { execute, subscribe } as EnvelopedRoot,
        };
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args;
      },
    },
    wss,
    KEEPALIVE_MS,
  );

  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const gateway: Gateway = {
    url: `http://${host}:${addr.port}`,
    port: addr.port,
    yoga,
    async close(graceMs = 5000) {
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
        await closed;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return gateway;
}

/** Enveloped execute/subscribe carried to graphql-ws through `rootValue`. */
interface EnvelopedRoot {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
}
