/**
 * graphql-sse's single connection mode (issue 13 item 8) at {@link GRAPHQL_STREAM_PATH}, served by
 * graphql-sse's own protocol handler (`createHandler` of graphql-sse/lib/use/fetch) inside yoga,
 * beside yoga's built-in SSE at `/graphql`, which serves graphql-sse's distinct connections mode
 * (with event ids for `Last-Event-ID`).
 *
 * The protocol (graphql-sse PROTOCOL.md): a client reserves a stream (`PUT`, answered 201 with a
 * token), opens it (`GET` with `Accept: text/event-stream` and the token in the
 * `x-graphql-event-stream-token` header or `?token=`), then runs operations on it (`POST` with the
 * token and an `extensions.operationId`; 202) and stops them (`DELETE ?operationId=`). The
 * gateway routes every request of the path through the same checks as `/graphql` before yoga
 * sees it (Host, Origin, media type, credentials, the SSE stream cap for the open stream, closing
 * it when its token is revoked or expires: src/server/gateway.ts). On top of those, what graphql-sse
 * leaves to its host:
 * - A stream belongs to the API token that reserved it: a request with its stream token but
 *   another API token is answered as if the stream did not exist (404). Stream tokens are random
 *   UUIDs chosen by the gateway: every `PUT` reserves a new one, answered in its body, whatever
 *   stream token it carries. (graphql-sse's client writes the token it was given into its
 *   `headers` object, so when its stream is gone its next `PUT`, a reconnect, carries that stale
 *   token; graphql-sse's own handler then registers a stream under it again. Refusing that `PUT`
 *   would leave the client unable to reconnect; a token the client names is never registered.)
 * - Reservations not opened yet are capped ({@link MAX_RESERVATIONS} in all,
 *   {@link MAX_RESERVATIONS_PER_TOKEN} per API token; 503 beyond) and dropped after
 *   {@link RESERVATION_TTL_MS} (graphql-sse would keep them forever). Operations may only be
 *   posted to an open stream (409 before), and at most `maxOperations` subscriptions run on one
 *   stream at a time (more end at once with a TOO_MANY_SUBSCRIPTIONS error).
 * - Backpressure: graphql-sse queues every result of every operation for the stream without a
 *   bound; each result waits here until the stream's response has drained, so a client that stops
 *   reading holds at most about one result per operation in the gateway, and its subscriptions'
 *   own bounded buffers overflow into a GapEvent and a refill instead (as over graphql-ws).
 * - Cookie credentials need the `x-prospero-csrf` header, as yoga's CSRF prevention asks on
 *   `/graphql` (403 CSRF_HEADER_MISSING); a mutation must be a POST (405).
 * - graphql-sse's distinct connections mode (an event stream request without a stream token) is
 *   not served here (400): `/graphql` serves it, with event ids for `Last-Event-ID`.
 * Every operation runs through the same yoga envelop as on `/graphql` and graphql-ws (persisted
 * and trusted documents, parse, validation and query limits, auth scopes, audit, masked errors);
 * a document that does not parse or validate is answered 400 with its errors and their codes (the
 * protocol's answer to a bad request), an error at a subscription's start (NOT_FOUND, FORBIDDEN, a
 * bad cursor) is the operation's one `next` message, followed by `complete`.
 *
 * Why not `@graphql-yoga/plugin-graphql-sse`: in 3.24.1 it hands graphql-sse results without
 * `data` (`{ errors }` of a failed validation or of a subscription that could not start), which
 * graphql-sse takes for execution arguments and answers 400 "Unable to detect operation AST",
 * and a parse error escapes as a 500; the few lines it adds around graphql-sse's handler are here,
 * with those shapes right.
 */
import crypto from "node:crypto";
import type http from "node:http";
import { GraphQLError, getOperationAST, type ExecutionArgs } from "graphql";
import { isAsyncIterable, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { createHandler, type HandlerOptions, type RequestContext } from "graphql-sse/lib/use/fetch";
import type { Request as SseRequest, RequestParams, Response as SseResponse } from "graphql-sse";
import type { Principal } from "../auth/roles.js";
import type { Logger } from "../log.js";
import { withoutHttp } from "./error-codes.js";

/** Path of graphql-sse's single connection mode. */
export const GRAPHQL_STREAM_PATH = "/graphql/stream";

/** Header carrying the stream token (graphql-sse's `TOKEN_HEADER_KEY`). */
const TOKEN_HEADER_KEY = "x-graphql-event-stream-token";

/** Query parameter carrying the stream token, for EventSource (graphql-sse's `TOKEN_QUERY_KEY`). */
const TOKEN_QUERY_KEY = "token";

/** Most reserved (`PUT`) streams not opened yet, in all. */
export const MAX_RESERVATIONS = 32;

/** Of those, most per API token. */
export const MAX_RESERVATIONS_PER_TOKEN = 8;

/** A reserved stream not opened within this is dropped, ms (the client opens it right after `PUT`). */
export const RESERVATION_TTL_MS = 5_000;

/** The gateway's server context as this module reads it (src/server/gateway.ts). */
interface ServerContextView {
  principal?: Principal;
  /** The Node response of the request (added by yoga's Node adapter). */
  res?: http.ServerResponse;
}

/** A reserved or open stream. */
interface Stream {
  /** Token id of the API token that reserved it. */
  owner: string;
  /** The open event stream's response; null while only reserved. */
  res: http.ServerResponse | null;
  /** Subscriptions running on it. */
  ops: number;
  /** Resolves when `res` has drained (or closed); null while nothing waits for it. */
  drained: Promise<void> | null;
  /** Drops the reservation when it is not opened in time. */
  timer: ReturnType<typeof setTimeout> | null;
}

/** Options of {@link graphqlSsePlugins}. */
export interface GraphqlSseOptions {
  /** Most subscriptions running at once on one stream (as on one graphql-ws connection). */
  maxOperations: number;
  /**
   * The document text an operation asks to run (a persisted document's id resolved, as for
   * graphql-ws), or the GraphQLError refusing it.
   */
  queryOf: (params: RequestParams) => string | GraphQLError;
  /** Where failures of the gateway itself are logged (at error). */
  logger: Logger;
}

/** A request as graphql-sse's fetch handler passes it to its hooks. */
type Req = SseRequest<Request, RequestContext>;

/**
 * Headers of a JSON answer: a new object each time (the fetch Response keeps the object it is given
 * and adds `content-length` to it).
 */
function jsonHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { "content-type": "application/json; charset=utf-8", ...extra };
}

/** A GraphQL-shaped refusal in graphql-sse's response form. */
function refusal(
  status: number,
  code: string,
  message: string,
  extra: Record<string, string> = {},
): SseResponse {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code } }] }),
    { status, statusText: "", headers: jsonHeaders(extra) },
  ];
}

/** A 400 answer carrying GraphQL errors, each with a code (`fallback` when it had none). */
function badRequest(errors: readonly GraphQLError[], fallback: string): SseResponse {
  return [
    JSON.stringify({ errors: withoutHttp(errors, fallback).map((e) => e.toJSON()) }),
    { status: 400, statusText: "Bad Request", headers: jsonHeaders() },
  ];
}

function streamTokenOf(
  url: string,
  headers: { get: (key: string) => string | null | undefined },
): string | null {
  const header = headers.get(TOKEN_HEADER_KEY);
  if (header) return header;
  return new URL(url, "http://gateway/").searchParams.get(TOKEN_QUERY_KEY);
}

/**
 * The yoga plugin of single connection mode (see the module comment). Put it in the gateway's
 * list; requests reach it only after the gateway's own checks.
 */
export function graphqlSsePlugins(opts: GraphqlSseOptions): Plugin[] {
  const serverContexts = new WeakMap<Request, ServerContextView>();
  /** The gateway's own requests that free a reservation nobody opened. */
  const reaping = new WeakSet<Request>();
  const streams = new Map<string, Stream>();
  let handler: ((req: Request) => Promise<Response>) | null = null;

  const contextOf = (req: Req): ServerContextView => serverContexts.get(req.raw) ?? {};

  /** Free graphql-sse's own record of a reservation nobody opened: open it and cancel at once. */
  const reap = (token: string) => {
    const s = streams.get(token);
    if (!s || s.res !== null) return;
    streams.delete(token);
    const request = new Request(`http://gateway${GRAPHQL_STREAM_PATH}`, {
      headers: { accept: "text/event-stream", [TOKEN_HEADER_KEY]: token },
    });
    reaping.add(request);
    void handler?.(request)
      .then((res) => res.body?.cancel())
      .catch((err: unknown) => opts.logger.error({ err }, "freeing a graphql-sse reservation failed"));
  };

  const authenticate = (req: Req): string | SseResponse => {
    const token = streamTokenOf(req.url, req.headers);
    if (reaping.has(req.raw) && token !== null) return token;
    const principal = contextOf(req).principal;
    if (!principal) return refusal(401, "UNAUTHENTICATED", "authentication required");
    if (principal.credential === "cookie" && !req.headers.get("x-prospero-csrf")) {
      return refusal(
        403,
        "CSRF_HEADER_MISSING",
        "CSRF protection: a request authenticated by the session cookie must carry the x-prospero-csrf header",
      );
    }
    if (req.method === "PUT") {
      // A new reservation, whatever stream token the request carries (see the module comment).
      let pending = 0;
      let mine = 0;
      for (const s of streams.values()) {
        if (s.res !== null) continue;
        pending++;
        if (s.owner === principal.tokenId) mine++;
      }
      if (pending >= MAX_RESERVATIONS || mine >= MAX_RESERVATIONS_PER_TOKEN) {
        return refusal(
          503,
          "TOO_MANY_CONNECTIONS",
          `too many event streams reserved and not opened yet (at most ${mine >= MAX_RESERVATIONS_PER_TOKEN ? `${MAX_RESERVATIONS_PER_TOKEN} per token` : MAX_RESERVATIONS}); open or let go of some`,
          { "retry-after": "5" },
        );
      }
      const created = crypto.randomUUID();
      const timer = setTimeout(() => reap(created), RESERVATION_TTL_MS);
      timer.unref();
      streams.set(created, { owner: principal.tokenId, res: null, ops: 0, drained: null, timer });
      return created;
    }
    if (token === null) {
      return refusal(
        400,
        "BAD_REQUEST",
        `${GRAPHQL_STREAM_PATH} serves graphql-sse's single connection mode: reserve a stream with PUT first. Its distinct connections mode (one event stream per operation) is served at /graphql.`,
      );
    }
    const s = streams.get(token);
    if (!s || s.owner !== principal.tokenId) {
      return refusal(
        404,
        "NOT_FOUND",
        "no such event stream (expired, closed, or reserved with another token)",
      );
    }
    if (req.method !== "DELETE" && req.headers.get("accept") !== "text/event-stream" && s.res === null) {
      return refusal(
        409,
        "CONFLICT",
        "open the event stream (GET with Accept: text/event-stream) before posting operations",
      );
    }
    return token;
  };

  const onConnect = (req: Req): void => {
    const token = streamTokenOf(req.url, req.headers);
    if (reaping.has(req.raw) || token === null) return;
    const s = streams.get(token);
    const res = contextOf(req).res;
    if (!s || s.res !== null || !res) return; // graphql-sse answers 409 to a second open
    s.res = res;
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    res.once("close", () => {
      if (streams.get(token) === s) streams.delete(token);
    });
  };

  /** Resolves once `s`'s response has room again (or is gone); undefined when it has room now. */
  const roomIn = (s: Stream): Promise<void> | undefined => {
    const res = s.res;
    if (!res || !res.writableNeedDrain || res.destroyed) return undefined;
    s.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        s.drained = null;
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
    return s.drained;
  };

  /** Run one operation of a stream through yoga's envelop (what graphql-sse calls onSubscribe). */
  const run = async (
    yoga: YogaServerInstance<Record<string, unknown>, Record<string, unknown>>,
    req: Req,
    params: RequestParams,
  ) => {
    const query = opts.queryOf(params);
    if (query instanceof GraphQLError) return badRequest([query], "BAD_REQUEST");
    const enveloped = yoga.getEnveloped({
      ...contextOf(req),
      request: req.raw,
      params: { ...params, query },
    });
    let document;
    try {
      document = enveloped.parse(query);
    } catch (err) {
      if (err instanceof GraphQLError) return badRequest([err], "GRAPHQL_PARSE_FAILED");
      throw err;
    }
    const errors = enveloped.validate(enveloped.schema, document);
    if (errors.length) return badRequest(errors, "GRAPHQL_VALIDATION_FAILED");
    const operation = getOperationAST(document, params.operationName);
    if (!operation) {
      return badRequest(
        [new GraphQLError("operationName names no operation of the document (or the document has several)")],
        "OPERATION_RESOLUTION_FAILURE",
      );
    }
    if (operation.operation === "mutation" && req.method !== "POST") {
      return refusal(405, "BAD_REQUEST", "a mutation must be sent with POST", { allow: "POST" });
    }
    const args: ExecutionArgs = {
      schema: enveloped.schema,
      document,
      contextValue: await enveloped.contextFactory(),
      variableValues: params.variables ?? null,
      operationName: params.operationName ?? null,
    };
    const result = await (operation.operation === "subscription"
      ? enveloped.subscribe(args)
      : enveloped.execute(args));
    // graphql-sse tells a result from execution arguments by its `data`.
    return isAsyncIterable(result) || "data" in result ? result : { data: null, ...result };
  };

  return [
    {
      onYogaInit({ yoga }) {
        const y = yoga as unknown as YogaServerInstance<Record<string, unknown>, Record<string, unknown>>;
        const options: HandlerOptions<Record<string, unknown>> = {
          authenticate,
          onConnect,
          onSubscribe: (req, params) => run(y, req, params),
          onNext: async (_ctx, req) => {
            const token = streamTokenOf(req.url, req.headers);
            const s = token === null ? undefined : streams.get(token);
            if (s) await roomIn(s);
          },
        };
        handler = createHandler(options, y.fetchAPI);
      },
      onRequest({ request, serverContext, url, endResponse }) {
        if (url.pathname !== GRAPHQL_STREAM_PATH || handler === null) return;
        serverContexts.set(request, serverContext as ServerContextView);
        return handler(request).then(endResponse, (err: unknown) => {
          opts.logger.error({ err }, "graphql-sse request failed");
          endResponse(
            new Response(
              JSON.stringify({
                errors: [{ message: "Unexpected error.", extensions: { code: "INTERNAL_SERVER_ERROR" } }],
              }),
              { status: 500, headers: jsonHeaders() },
            ),
          );
        });
      },
      // Subscriptions running on a stream, counted from their start to their end.
      onSubscribe({ args, setResultAndStopExecution }) {
        const request = (args.contextValue as { request?: Request } | undefined)?.request;
        if (!request || new URL(request.url).pathname !== GRAPHQL_STREAM_PATH) return;
        const token = streamTokenOf(request.url, request.headers);
        const s = token === null ? undefined : streams.get(token);
        if (!s) return;
        if (s.ops >= opts.maxOperations) {
          setResultAndStopExecution({
            data: null,
            errors: [
              new GraphQLError(
                `too many operations on this stream (at most ${opts.maxOperations}); open another stream or stop some`,
                { extensions: { code: "TOO_MANY_SUBSCRIPTIONS" } },
              ),
            ],
          });
          return;
        }
        s.ops++;
        return {
          onSubscribeResult({ result }) {
            if (!isAsyncIterable(result)) {
              s.ops--;
              return;
            }
            return { onEnd: () => void s.ops-- };
          },
        };
      },
    },
  ];
}
