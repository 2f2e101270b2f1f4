/**
 * The gateway the suite runs against, handed over by run.mjs: CONSUMER_GATEWAY_URL (base URL) and
 * CONSUMER_TOKEN (its admin token). Run the suite through `npm test` (run.mjs), not vitest alone.
 */

function required(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(
      `${name} is not set: run the consumer suite with \`npm test\` (run.mjs starts the gateway)`,
    );
  return v;
}

/** Base URL of the demo gateway, e.g. `http://127.0.0.1:41234`. */
export const GATEWAY_URL: string = required("CONSUMER_GATEWAY_URL");

/** Its admin token. */
export const TOKEN: string = required("CONSUMER_TOKEN");

/** HTTP GraphQL endpoint (queries, mutations, SSE subscriptions). */
export const HTTP_URL = `${GATEWAY_URL}/graphql`;

/** graphql-ws endpoint (same path). */
export const WS_URL = HTTP_URL.replace(/^http/, "ws");

/** The Authorization header of every request. */
export const AUTH = { authorization: `Bearer ${TOKEN}` } as const;

/** The demo fleet's workspace (src/demo.ts registers it). */
export const DEMO_WORKSPACE = "demo";
