/**
 * The Prospero client: typed queries and mutations over HTTP, subscriptions over graphql-ws with
 * reconnect, and `agentEvents`, `workspaceEvents` and `fleetEvents` that resume after the last
 * cursor they delivered.
 *
 * Every request is authenticated (issue 11): pass `token` (sent as `Authorization: Bearer` on HTTP
 * and in graphql-ws `connectionParams`); without one, a client on the gateway's machine finds the
 * token by itself (`PROSPERO_TOKEN`, then the local gateway's admin-token file: see
 * src/auth/local-credentials.ts).
 *
 * ```ts
 * const prospero = createProsperoClient({ url: "http://127.0.0.1:7878", token: process.env.PROSPERO_TOKEN });
 * const { agents } = await prospero.request(AgentsDocument, { filter: { workspace: "demo" } });
 * await prospero.agentEvents(id, { onEvent: (e) => console.log(e.seq, e.__typename) });
 * await prospero.dispose();
 * ```
 */
import WsWebSocket from "ws";
import { documentText, type ProsperoDocument, type VariablesArgs } from "./documents.js";
import { NetworkError } from "./errors.js";
import { postGraphQL, resolveHeaders, type FetchLike, type HeadersOption } from "./http.js";
import {
  openWsClient,
  subscribeWithRetry,
  type RetryOptions,
  type SubscriptionHandlers,
  type WsClientOptions,
  type WsConnection,
} from "./subscriptions.js";
import {
  followAgentEvents,
  followEventStream,
  type AgentEventsOptions,
  type AgentEventsResult,
  type EventStreamOptions,
  type EventStreamResult,
  type StreamEvent,
  type StreamItem,
} from "./agent-events.js";
import {
  AgentEventsDocument,
  FleetEventsDocument,
  WorkspaceEventsDocument,
  type FleetEventFilter,
  type FleetEventsSubscription,
  type WorkspaceEventsSubscription,
} from "./generated/graphql.js";
import { findVerifiedLocalToken } from "../auth/local-credentials.js";

/** Options of {@link createProsperoClient}. */
export interface ProsperoClientOptions {
  /**
   * The gateway: its base URL (`http://127.0.0.1:7878`, `/graphql` is appended) or the full
   * GraphQL endpoint. The WebSocket endpoint is derived from it (http → ws, https → wss).
   */
  url: string;
  /**
   * The API token (secret), sent as `Authorization: Bearer <token>` and as graphql-ws
   * `connectionParams.authorization`. Omitted: `PROSPERO_TOKEN` from the environment, else a
   * token found on this machine for a loopback gateway (its admin-token file); `false` sends none.
   */
  token?: string | false;
  /** HTTP headers for queries and mutations (e.g. `authorization`), or a function giving them per request. */
  headers?: HeadersOption;
  /** `connection_init` payload of WebSocket connections (browsers cannot set WebSocket headers). */
  connectionParams?: WsClientOptions["connectionParams"];
  /** `fetch` implementation (default: the global one). */
  fetch?: FetchLike;
  /** WebSocket constructor (default: the `ws` package on Node, the global `WebSocket` elsewhere). */
  webSocketImpl?: unknown;
  /** Ping the server after this much quiet on a WebSocket, ms (default 10000; 0 = never). */
  keepAliveMs?: number;
  /** Reconnect policy of subscriptions (default 8 consecutive attempts, 250 ms → 5 s). */
  retry?: RetryOptions | false;
}

/** Per-request options of {@link ProsperoClient.request}. */
export interface RequestOptions {
  /** Abort the request (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Per-subscription options of {@link ProsperoClient.subscribe}. */
export interface SubscribeOptions {
  /** Override the client's reconnect policy; false = fail on the first dropped connection. */
  retry?: RetryOptions | false;
}

/** A connected-on-demand client of one gateway. */
export interface ProsperoClient {
  /** The HTTP GraphQL endpoint, e.g. `http://127.0.0.1:7878/graphql`. */
  readonly endpoint: string;
  /** The WebSocket endpoint, e.g. `ws://127.0.0.1:7878/graphql`. */
  readonly wsEndpoint: string;
  /**
   * Run a query or mutation over HTTP and return its typed `data`. Mutation failures that are part
   * of the schema come back as typed results (`__typename` of an Error type), not as throws.
   * @throws GraphQLRequestError when the response has GraphQL errors (`errors`, `codes`, `data`).
   * @throws NetworkError when the gateway is unreachable or answers with something else than GraphQL.
   */
  request<TResult, TVariables>(
    document: ProsperoDocument<TResult, TVariables>,
    ...args: VariablesArgs<TVariables, RequestOptions>
  ): Promise<TResult>;
  /**
   * Start a subscription over graphql-ws. `variables` may be a function: it is called before every
   * (re)subscribe, so a resumable stream can pass its latest cursor. A dropped connection is
   * retried (see `retry`); GraphQL errors are final.
   * @returns a function that stops the subscription (no callback follows).
   */
  subscribe<TResult, TVariables>(
    document: ProsperoDocument<TResult, TVariables>,
    variables: TVariables | (() => TVariables),
    handlers: SubscriptionHandlers<TResult>,
    options?: SubscribeOptions,
  ): () => void;
  /**
   * Follow an agent's events (history after `after`, then live) until its stream completes,
   * resuming after the last delivered cursor on reconnect and de-duplicating by `seq`.
   * @returns how it ended (completed, or aborted through `signal`) and the last cursor.
   * @throws (rejects) GraphQLRequestError for an unknown agent (code NOT_FOUND) or bad cursor
   *   (BAD_USER_INPUT); NetworkError when reconnecting gave up.
   */
  agentEvents(agentId: string, options: AgentEventsOptions): Promise<AgentEventsResult>;
  /**
   * Follow a workspace's events (its agents' included; history after `after`, then live, in commit
   * order), resuming after the last delivered cursor on reconnect. The stream does not complete by
   * itself: it ends through `signal` (resolves `completed: false`) or a failure.
   * @throws (rejects) GraphQLRequestError for an unknown workspace (code NOT_FOUND) or a bad cursor
   *   (BAD_USER_INPUT); NetworkError when reconnecting gave up.
   */
  workspaceEvents(workspace: string, options: EventStreamOptions<StreamEvent>): Promise<EventStreamResult>;
  /**
   * Follow the fleet's events matching `options.filter` (history after `after`, then live, in
   * commit order; only the token's workspaces), resuming after the last delivered cursor on
   * reconnect. Ends through `signal` or a failure, as {@link ProsperoClient.workspaceEvents}.
   * @throws (rejects) GraphQLRequestError for a bad cursor (BAD_USER_INPUT) or a workspace or agent
   *   outside the token's scope (FORBIDDEN); NetworkError when reconnecting gave up.
   */
  fleetEvents(
    options: EventStreamOptions<StreamEvent> & { filter?: FleetEventFilter | null },
  ): Promise<EventStreamResult>;
  /**
   * Stop every subscription (each gets `onError` with a NetworkError "the client was disposed";
   * pending `agentEvents` promises reject with it) and close the WebSocket. Requests still work
   * afterwards; new subscriptions fail the same way.
   */
  dispose(): Promise<void>;
}

/** The HTTP GraphQL endpoint for a gateway URL (`/graphql` appended to a bare base URL). */
export function graphqlEndpoint(url: string): string {
  const u = new URL(url);
  if (u.pathname === "" || u.pathname === "/") u.pathname = "/graphql";
  return u.toString();
}

/** The graphql-ws endpoint for an HTTP endpoint (http → ws, https → wss). */
export function webSocketEndpoint(httpEndpoint: string): string {
  const u = new URL(httpEndpoint);
  if (u.protocol === "http:") u.protocol = "ws:";
  else if (u.protocol === "https:") u.protocol = "wss:";
  return u.toString();
}

function defaultWebSocket(): unknown {
  const isNode = typeof process !== "undefined" && typeof process.versions?.node === "string";
  return isNode ? WsWebSocket : (globalThis as { WebSocket?: unknown }).WebSocket;
}

/**
 * Create a client of the gateway at `opts.url`. Nothing connects until the first request or
 * subscription.
 * @throws TypeError when `url` is not a valid URL.
 */
export function createProsperoClient(opts: ProsperoClientOptions): ProsperoClient {
  const endpoint = graphqlEndpoint(opts.url);
  const wsEndpoint = webSocketEndpoint(endpoint);
  const fetchImpl: FetchLike = opts.fetch ?? ((input, init) => fetch(input, init));
  // An explicit token (option or PROSPERO_TOKEN) is known at once; one found on this machine only
  // after the local gateway proved it owns it (one request, made before the first operation).
  const explicit = explicitToken(opts);
  let token: string | null = explicit;
  let discovery: Promise<string | null> | null = null;
  const currentToken = async (): Promise<string | null> => {
    if (explicit !== null || opts.token === false || !isNode()) return explicit;
    discovery ??= findVerifiedLocalToken(opts.url, process.env, fetchImpl).then((t) => {
      token = t;
      // Not found (e.g. the gateway was not up yet): look again on the next request.
      if (t === null) discovery = null;
      return t;
    });
    return discovery;
  };
  const headers: HeadersOption = async () => {
    const t = await currentToken();
    return {
      ...(t === null ? {} : { authorization: `Bearer ${t}` }),
      ...(await resolveHeaders(opts.headers)),
    };
  };
  const connectionParams: WsClientOptions["connectionParams"] =
    opts.connectionParams ??
    (async () => {
      const t = await currentToken();
      return t === null ? {} : { authorization: `Bearer ${t}` };
    });
  // On Node the token also goes in the upgrade's Authorization header (when known by then), so the
  // connection counts as authenticated from its first byte.
  const webSocketImpl = opts.webSocketImpl ?? (isNode() ? withUpgradeAuth(() => token) : defaultWebSocket());
  let ws: WsConnection | null = null;
  let disposed = false;
  /** Running subscriptions: their stop function and how to tell them the client went away. */
  const active = new Map<() => void, (e: NetworkError) => void>();

  const connection = (): WsConnection => {
    if (disposed) throw new NetworkError(wsEndpoint, "the client was disposed");
    ws ??= openWsClient({
      endpoint: wsEndpoint,
      connectionParams,
      webSocketImpl,
      ...(opts.keepAliveMs !== undefined ? { keepAliveMs: opts.keepAliveMs } : {}),
    });
    return ws;
  };

  const subscribe = <TResult, TVariables>(
    document: ProsperoDocument<TResult, TVariables>,
    variables: TVariables | (() => TVariables),
    handlers: SubscriptionHandlers<TResult>,
    options: SubscribeOptions = {},
  ): (() => void) => {
    let stop: (() => void) | null = null;
    const release = () => {
      if (stop) active.delete(stop);
    };
    let failed = false;
    stop = subscribeWithRetry<TResult, TVariables>({
      query: documentText(document),
      variables,
      connection,
      retry: options.retry ?? opts.retry ?? {},
      handlers: {
        ...handlers,
        onError: (e) => {
          release();
          if (failed) return;
          failed = true;
          handlers.onError?.(e);
        },
        onComplete: () => {
          release();
          handlers.onComplete?.();
        },
      },
    });
    const unsubscribe = stop;
    active.set(unsubscribe, (e) => {
      if (failed) return;
      failed = true;
      handlers.onError?.(e);
    });
    return () => {
      active.delete(unsubscribe);
      unsubscribe();
    };
  };

  return {
    endpoint,
    wsEndpoint,
    async request<TResult, TVariables>(
      document: ProsperoDocument<TResult, TVariables>,
      ...args: VariablesArgs<TVariables, RequestOptions>
    ): Promise<TResult> {
      const [variables, options] = args;
      const data = await postGraphQL({
        endpoint,
        query: documentText(document),
        variables,
        headers,
        fetch: fetchImpl,
        ...(options?.signal ? { signal: options.signal } : {}),
      });
      return data as TResult;
    },
    subscribe,
    agentEvents(agentId, options) {
      return followAgentEvents(
        (variables, handlers, retry) =>
          subscribe(AgentEventsDocument, variables, handlers, retry === undefined ? {} : { retry }),
        agentId,
        options,
      );
    },
    workspaceEvents(workspace, options) {
      return followEventStream<WorkspaceEventsSubscription, StreamItem>(
        (after, handlers, retry) =>
          subscribe(
            WorkspaceEventsDocument,
            () => ({ workspace, after: after() }),
            handlers,
            retry === undefined ? {} : { retry },
          ),
        (data) => data.workspaceEvents,
        options,
        "commit",
      );
    },
    fleetEvents(options) {
      const filter = options.filter ?? null;
      return followEventStream<FleetEventsSubscription, StreamItem>(
        (after, handlers, retry) =>
          subscribe(
            FleetEventsDocument,
            () => ({ filter, after: after() }),
            handlers,
            retry === undefined ? {} : { retry },
          ),
        (data) => data.fleetEvents,
        options,
        "commit",
      );
    },
    async dispose() {
      disposed = true;
      const running = [...active];
      active.clear();
      for (const [stop, fail] of running) {
        stop();
        fail(new NetworkError(wsEndpoint, "the client was disposed"));
      }
      const conn = ws;
      ws = null;
      await conn?.client.dispose();
    },
  };
}

function isNode(): boolean {
  return typeof process !== "undefined" && typeof process.versions?.node === "string";
}

/** The token given outright: the option, else PROSPERO_TOKEN (Node); null for none or `false`. */
function explicitToken(opts: ProsperoClientOptions): string | null {
  if (opts.token === false) return null;
  if (typeof opts.token === "string" && opts.token !== "") return opts.token;
  return isNode() ? process.env["PROSPERO_TOKEN"] || null : null;
}

/** The `ws` WebSocket class sending `Authorization: Bearer <token()>` with the upgrade when there is one. */
function withUpgradeAuth(token: () => string | null): unknown {
  return class extends WsWebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      const t = token();
      super(address, protocols, t === null ? {} : { headers: { authorization: `Bearer ${t}` } });
    }
  };
}
