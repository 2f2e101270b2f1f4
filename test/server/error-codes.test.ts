// Issue 13 item 7: every error a client can get carries `extensions.code` from one documented set
// (README "Errors"), with the HTTP status the GraphQL-over-HTTP spec asks for under
// `Accept: application/graphql-response+json`; over graphql-ws the same codes, without yoga's
// `extensions.http`; errors the client caused are logged at debug, the gateway's own failures at
// error. A real gateway on a real port (startAppHarness, and startApp with a capturing logger).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { startApp, type App } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";

type WireError = { message: string; extensions?: Record<string, unknown> };

async function post(
  url: string,
  token: string,
  body: { query: string; variables?: Record<string, unknown>; operationName?: string },
  accept = "application/graphql-response+json",
): Promise<{ status: number; errors: WireError[] }> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { errors?: WireError[] };
  return { status: res.status, errors: json.errors ?? [] };
}

/** [what, request, code, status under application/graphql-response+json] */
const CASES: [
  string,
  { query: string; variables?: Record<string, unknown>; operationName?: string },
  string,
  number,
][] = [
  [
    "a bad cursor on agents",
    { query: `{ agents(after: "garbage") { edges { cursor } } }` },
    "BAD_USER_INPUT",
    200,
  ],
  [
    "a bad cursor on events",
    { query: `{ events(of: { workspace: "demo" }, after: "garbage") { edges { cursor } } }` },
    "BAD_USER_INPUT",
    200,
  ],
  ["agents(first: -1)", { query: `{ agents(first: -1) { edges { cursor } } }` }, "BAD_USER_INPUT", 200],
  [
    "agents(first: 1, last: 1) (input validation: not both)",
    { query: `{ agents(first: 1, last: 1) { edges { cursor } } }` },
    "BAD_USER_INPUT",
    200,
  ],
  [
    "events(first: 501) (input validation)",
    { query: `{ events(of: { workspace: "demo" }, first: 501) { edges { cursor } } }` },
    "BAD_USER_INPUT",
    200,
  ],
  [
    // EventSourceInput is @oneOf: both sources written in fail document validation.
    "events with both agentId and workspace",
    { query: `{ events(of: { workspace: "demo", agentId: "0123456789ab" }) { edges { cursor } } }` },
    "GRAPHQL_VALIDATION_FAILED",
    400,
  ],
  [
    "events with both sources in a variable",
    {
      query: `query($of: EventSourceInput!) { events(of: $of) { edges { cursor } } }`,
      variables: { of: { workspace: "demo", agentId: "0123456789ab" } },
    },
    "BAD_USER_INPUT",
    400,
  ],
  [
    "a variable of the wrong type",
    { query: `query($n: Int) { agents(first: $n) { edges { cursor } } }`, variables: { n: "ten" } },
    "BAD_USER_INPUT",
    400,
  ],
  [
    "an unknown operation name",
    { query: `query A { version }`, operationName: "B" },
    "OPERATION_RESOLUTION_FAILURE",
    400,
  ],
  ["a parse error", { query: `{ version ` }, "GRAPHQL_PARSE_FAILED", 400],
  ["a missing required argument", { query: `{ workspace { name } }` }, "GRAPHQL_VALIDATION_FAILED", 400],
  ["an unknown field", { query: `{ nope }` }, "GRAPHQL_VALIDATION_FAILED", 400],
];

describe("every error carries a code", () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(CASES)("over HTTP: %s", async (_what, body, code, status) => {
    const r = await post(h.url, h.token, body);
    expect(r.status).toBe(status);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.extensions).toMatchObject({ code });
    expect(r.errors[0]!.extensions).not.toHaveProperty("http");
  });

  it("input validation names the fields it refused", async () => {
    const r = await post(h.url, h.token, {
      query: `{ events(of: { workspace: "demo" }, first: 501) { edges { cursor } } }`,
    });
    expect(r.errors[0]!.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      fieldErrors: [{ path: ["first"], message: expect.any(String) }],
    });
    const both = await post(h.url, h.token, { query: `{ agents(first: 1, last: 1) { edges { cursor } } }` });
    expect(both.errors[0]!.extensions).toMatchObject({
      code: "BAD_USER_INPUT",
      fieldErrors: [{ path: ["last"], message: expect.any(String) }],
    });
  });

  it("first: 0 is no error but an empty page, with its pageInfo and totalCount", async () => {
    await h.app.fleet.lifecycle.spawn({ workspace: "demo", prompt: "one run" });
    for (const query of [
      `{ page: events(of: { workspace: "demo" }, first: 0) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`,
      `{ page: agents(first: 0) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`,
    ]) {
      const res = await fetch(`${h.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${h.token}` },
        body: JSON.stringify({ query }),
      });
      const json = (await res.json()) as {
        errors?: unknown;
        data: { page: { edges: unknown[]; pageInfo: { hasNextPage: boolean }; totalCount: number } };
      };
      expect(json.errors, query).toBeUndefined();
      expect(json.data.page.edges, query).toEqual([]);
      // Items exist after the empty page: hasNextPage, as a Relay client expects to page on.
      expect(json.data.page.pageInfo, query).toEqual({
        hasNextPage: true,
        hasPreviousPage: false,
        startCursor: null,
        endCursor: null,
      });
      expect(json.data.page.totalCount, query).toBeGreaterThan(0);
    }
  });

  it("over graphql-ws: the same codes, and no HTTP status hint", async () => {
    const client = h.ws();
    const errorsOf = (query: string, variables?: Record<string, unknown>) =>
      new Promise<WireError[]>((resolve, reject) => {
        let got: WireError[] = [];
        client.subscribe(
          { query, variables },
          {
            next: (r) => void (got = (r.errors as WireError[] | undefined) ?? []),
            error: (e) => (Array.isArray(e) ? resolve(e as WireError[]) : reject(e as Error)),
            complete: () => resolve(got),
          },
        );
      });
    const cases: [string, Record<string, unknown> | undefined, string][] = [
      [`{ version `, undefined, "GRAPHQL_PARSE_FAILED"],
      [`{ nope }`, undefined, "GRAPHQL_VALIDATION_FAILED"],
      [`query($n: Int) { agents(first: $n) { edges { cursor } } }`, { n: "ten" }, "BAD_USER_INPUT"],
      [`{ agents(after: "garbage") { edges { cursor } } }`, undefined, "BAD_USER_INPUT"],
      [
        `query($n: Int) { agents(first: $n) { edges { node { events(first: $n) { nodes { seq } } } } } }`,
        { n: 500 },
        "QUERY_TOO_COSTLY",
      ],
      [
        `{ agents(first: 100) { edges { node { events(first: 500) { nodes { seq } } } } } }`,
        undefined,
        "QUERY_TOO_COSTLY",
      ],
    ];
    for (const [query, variables, code] of cases) {
      const errors = await errorsOf(query, variables);
      expect(errors, query).toHaveLength(1);
      expect(errors[0]!.extensions, query).toMatchObject({ code });
      expect(errors[0]!.extensions, query).not.toHaveProperty("http");
    }
  });
});

describe("the log", () => {
  let app: App;
  let tmp: string;
  const lines: { level: number; msg: string; code?: string }[] = [];
  const ERROR = 50;
  const DEBUG = 20;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-error-log-"));
    const xdg = path.join(tmp, "xdg");
    fs.mkdirSync(xdg, { mode: 0o700 });
    const config = resolveConfig(
      { dataDir: path.join(tmp, "gw"), port: "0", autostart: false },
      { HOME: tmp },
    );
    const logger = createLogger("debug", {
      write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]),
    });
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: xdg };
    delete env.PROSPERO_ADMIN_TOKEN;
    app = await startApp(config, logger, { env, showTokenInLog: false });
  });
  afterAll(async () => {
    await app?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("logs errors the client caused at debug, the gateway's own failures at error", async () => {
    const clientCaused: [string, string][] = [
      [`{ agents(after: "garbage") { edges { cursor } } }`, "BAD_USER_INPUT"],
      [`{ agents(first: 501) { edges { cursor } } }`, "BAD_USER_INPUT"],
      [`{ agents(first: 1, last: 1) { edges { cursor } } }`, "BAD_USER_INPUT"],
      [
        `{ events(of: { workspace: "demo", agentId: "0123456789ab" }) { edges { cursor } } }`,
        "GRAPHQL_VALIDATION_FAILED",
      ],
      [
        `{ agents(first: 100) { edges { node { events(first: 500) { nodes { seq } } } } } }`,
        "QUERY_TOO_COSTLY",
      ],
      [`{ nope }`, "GRAPHQL_VALIDATION_FAILED"],
    ];
    for (const [query, code] of clientCaused) {
      const r = await post(app.gateway.url, app.adminToken, { query });
      expect(r.errors[0]!.extensions?.code, query).toBe(code);
    }
    const bad = await post(app.gateway.url, app.adminToken, {
      query: `query($n: Int) { agents(first: $n) { edges { cursor } } }`,
      variables: { n: "ten" },
    });
    expect(bad.errors[0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT" });
    // None at error; they were seen at debug, with their code.
    expect(lines.filter((l) => l.level >= ERROR)).toEqual([]);
    // The resolvers' refusals and the variable coercion error (executed through the defer/stream
    // executor, which masks it like a resolver's); document errors are answered unlogged.
    expect(lines.filter((l) => l.level === DEBUG && l.msg === "request refused").map((l) => l.code)).toEqual([
      "BAD_USER_INPUT",
      "BAD_USER_INPUT",
      "BAD_USER_INPUT",
      "BAD_USER_INPUT",
    ]);

    // A failure of the gateway's own (its store lost a table) is masked and logged at error.
    await app.db.prisma.$executeRawUnsafe(`ALTER TABLE "Agent" RENAME TO "Agent_gone"`);
    try {
      const failed = await post(app.gateway.url, app.adminToken, {
        query: `{ agents(first: 1) { edges { cursor } } }`,
      });
      expect(failed.errors[0]!.extensions).toMatchObject({ code: "INTERNAL_SERVER_ERROR" });
      expect(failed.errors[0]!.message).toBe("Unexpected error.");
      expect(lines.filter((l) => l.level >= ERROR)).not.toEqual([]);
    } finally {
      await app.db.prisma.$executeRawUnsafe(`ALTER TABLE "Agent_gone" RENAME TO "Agent"`);
    }
  });
});
