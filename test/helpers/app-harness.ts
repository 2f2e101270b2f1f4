/**
 * The whole gateway in-process (startApp: store, fleet, yoga, graphql-ws on a real port) next to
 * an in-process caliband double, for API tests. Every request is authenticated as users do it:
 * over the real port with the bootstrap admin token (or another token given per call).
 */
import fs from "node:fs";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { startApp, type App } from "../../src/app.js";
import type { EventExecutor } from "../../src/server/event-executor.js";
import { resolveConfig, type Config } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { startDaemon, type DaemonFixture } from "./fleet-harness.js";
import { dropTestDatabase, testDatabaseUrl } from "./store.js";

/** A GraphQL response as the tests read it. */
export interface GqlResponse<T> {
  data?: T;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** A running gateway and its daemon. */
export interface AppHarness {
  app: App;
  d: DaemonFixture;
  url: string;
  /** The bootstrap admin token (what a local operator's CLI uses). */
  token: string;
  /** The environment the gateway runs with (its endpoint record for local clients lives there). */
  env: NodeJS.ProcessEnv;
  /** POST a GraphQL operation over the real port, as `token` (default: the admin token). */
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    token?: string,
  ): Promise<GqlResponse<T>>;
  /** A graphql-ws client on the real port, authenticated with `token` (default: the admin token). */
  ws(token?: string): Client;
  /** Create a token through the API and return its secret. */
  createToken(input: {
    name: string;
    role: "VIEWER" | "OPERATOR" | "ADMIN";
    workspaces?: string[];
  }): Promise<string>;
  close(): Promise<void>;
}

/** Gateway URL → admin token of harnesses running in this process (for the CLI helper). */
export const HARNESS_TOKENS = new Map<string, string>();

/**
 * Start the gateway with a fresh data dir and a daemon for workspace "demo" (registered).
 * @param opts.config settings as `prospero serve` flags would give them (e.g. `{ maxConnections: "2",
 *   corsOrigins: ["https://ops.example"] }`), on top of the harness's own.
 * @param opts.executeEvent the gateway's per-event subscription executor (e.g. one that counts).
 */
export async function startAppHarness(
  opts: {
    register?: boolean;
    config?: Partial<Record<keyof Config, unknown>>;
    executeEvent?: EventExecutor;
  } = {},
): Promise<AppHarness> {
  const d = await startDaemon();
  // On the PostgreSQL run of the suite, each gateway gets a fresh database of its own.
  const databaseUrl = await testDatabaseUrl();
  const config = resolveConfig(
    {
      dataDir: path.join(d.ws.tmp, "gw"),
      ...(databaseUrl !== null ? { databaseUrl } : {}),
      port: "0",
      pollIntervalMs: "100",
      autostart: false,
      ...opts.config,
    },
    { HOME: process.env.HOME },
  );
  // The gateway's endpoint record for local clients goes under this test's own runtime dir.
  const xdg = path.join(d.ws.tmp, "xdg-runtime");
  fs.mkdirSync(xdg, { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CALIBAN_DAEMON_RUNTIME_DIR: d.ws.runtime,
    XDG_RUNTIME_DIR: xdg,
  };
  delete env.PROSPERO_ADMIN_TOKEN;
  const app = await startApp(config, silentLogger, {
    isDev: true,
    env,
    showTokenInLog: false,
    executeEvent: opts.executeEvent,
  });
  if (opts.register !== false) await app.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  const clients: Client[] = [];
  const token = app.adminToken;
  HARNESS_TOKENS.set(app.gateway.url, token);
  const gql = async <T>(
    query: string,
    variables?: Record<string, unknown>,
    as = token,
  ): Promise<GqlResponse<T>> => {
    const res = await fetch(`${app.gateway.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${as}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GqlResponse<T>;
  };
  return {
    app,
    d,
    url: app.gateway.url,
    token,
    env,
    gql,
    ws(as = token) {
      const c = createClient({
        url: `${app.gateway.url.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: true,
        connectionParams: { authorization: `Bearer ${as}` },
      });
      clients.push(c);
      return c;
    },
    async createToken(input) {
      const r = await gql<{ createToken: { __typename: string; secret?: string; message?: string } }>(
        `mutation($input: CreateTokenInput!) { createToken(input: $input) { __typename ... on CreateTokenPayload { secret } ... on Error { message } } }`,
        { input },
      );
      const secret = r.data?.createToken.secret;
      if (!secret) throw new Error(`createToken failed: ${JSON.stringify(r)}`);
      return secret;
    },
    async close() {
      for (const c of clients) await c.dispose();
      HARNESS_TOKENS.delete(app.gateway.url);
      await app.stop();
      await d.close();
      await dropTestDatabase(databaseUrl);
    },
  };
}

/** Collect a subscription's items until it completes (or `until` says stop). */
export function collect<T>(
  client: Client,
  query: string,
  variables: Record<string, unknown>,
  until?: (items: T[]) => boolean,
): { items: T[]; done: Promise<void>; stop: () => void } {
  const items: T[] = [];
  let stop = () => {};
  const done = new Promise<void>((resolve, reject) => {
    const unsubscribe = client.subscribe<T>(
      { query, variables },
      {
        next: (v) => {
          if (v.errors) {
            reject(new Error(JSON.stringify(v.errors)));
            return;
          }
          items.push(v.data as T);
          if (until?.(items)) {
            unsubscribe();
            resolve();
          }
        },
        error: (e: unknown) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))),
        complete: () => resolve(),
      },
    );
    stop = () => {
      unsubscribe();
      resolve();
    };
  });
  return { items, done, stop: () => stop() };
}
