/**
 * The whole gateway in-process (startApp: store, fleet, yoga, graphql-ws on a real port) next to
 * an in-process caliband double, for API tests.
 */
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { startApp, type App } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { startDaemon, type DaemonFixture } from "./fleet-harness.js";

/** A running gateway and its daemon. */
export interface AppHarness {
  app: App;
  d: DaemonFixture;
  url: string;
  /** POST a GraphQL operation through `yoga.fetch` (in-process, no socket). */
  gql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }>;
  /** A graphql-ws client on the real port. */
  ws(): Client;
  close(): Promise<void>;
}

/** Start the gateway with a fresh data dir and a daemon for workspace "demo" (registered). */
export async function startAppHarness(opts: { register?: boolean } = {}): Promise<AppHarness> {
  const d = await startDaemon();
  const config = resolveConfig(
    { dataDir: path.join(d.ws.tmp, "gw"), port: "0", pollIntervalMs: "100", autostart: false },
    { HOME: process.env.HOME },
  );
  const app = await startApp(config, silentLogger, {
    isDev: true,
    env: { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: d.ws.runtime },
  });
  if (opts.register !== false) await app.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  const clients: Client[] = [];
  return {
    app,
    d,
    url: app.gateway.url,
    async gql(query, variables) {
      const res = await app.gateway.yoga.fetch("http://gateway/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as never;
    },
    ws() {
      const c = createClient({
        url: `${app.gateway.url.replace("http", "ws")}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: true,
      });
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) await c.dispose();
      await app.stop();
      await d.close();
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
