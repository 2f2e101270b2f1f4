// Issue 13 item 9: trusted documents. The manifest (trusted-documents.json, written by
// scripts/trusted-documents.ts) holds every document the SDK, the CLI and the dashboard send; under
// `--trusted-documents-only` (or PROSPERO_TRUSTED_DOCUMENTS_ONLY=1) the gateway runs only those —
// given as their exact text or by their sha256 — and refuses anything else with DOCUMENT_NOT_TRUSTED
// (HTTP 400) over HTTP, SSE and graphql-ws; without it arbitrary documents run and registered ids
// resolve. Real gateways: in-process (startAppHarness, with the caliband double) and `prospero
// serve` processes; the SDK client, the CLI, graphql-ws and graphql-sse clients as users run them.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Kind, parse } from "graphql";
import { createClient as createSseClient, NetworkError as SseNetworkError } from "graphql-sse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { startServe, serveToken, type ServeProcess } from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";
import { cli } from "../cli/run-cli.js";
import {
  AgentEventsDocument,
  GraphQLRequestError,
  SpawnAgentDocument,
  StatusDocument,
  ViewerDocument,
  createProsperoClient,
  isMutationError,
  type ProsperoClient,
} from "../../src/sdk/index.js";
import * as sdkDocuments from "../../src/sdk/generated/graphql.js";
import * as dashboardDocuments from "../../dashboard/src/api/documents.js";
import { VIEWER_QUERY } from "../../dashboard/src/api/session.js";
import { StartupError } from "../../src/errors.js";
import { TRUSTED_DOCUMENTS_FILE, TrustedDocuments } from "../../src/server/trusted-documents.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** A document no client sends. */
const UNREGISTERED = "query { viewer { name role } }";
/** A subscription no client sends. */
const UNREGISTERED_SUBSCRIPTION = "subscription { fleetChanges { __typename } }";

const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");
const manifest = (): Record<string, string> =>
  JSON.parse(fs.readFileSync(TRUSTED_DOCUMENTS_FILE, "utf8")) as Record<string, string>;

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
  };
}

/** POST a raw GraphQL-over-HTTP body (`accept` default: application/graphql-response+json). */
async function post(
  url: string,
  token: string,
  body: Record<string, unknown>,
  accept = "application/graphql-response+json",
): Promise<Answer> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

function expectRefused(a: Answer, code = "DOCUMENT_NOT_TRUSTED"): void {
  expect(a.status).toBe(400);
  expect(a.body.data ?? null).toBeNull();
  expect(a.body.errors).toHaveLength(1);
  expect(a.body.errors![0]!.extensions).toEqual({ code });
  expect(a.body.errors![0]!.message).toMatch(
    code === "DOCUMENT_NOT_TRUSTED" ? /trusted/ : /PersistedQueryNotFound/,
  );
}

/** Every error a graphql-ws or graphql-sse operation ended with (its `error`, or `next` errors). */
async function operationErrors(
  iterate: AsyncIterable<{ errors?: readonly { message: string; extensions?: unknown }[] }>,
): Promise<{ message: string; extensions?: unknown }[]> {
  const errors: { message: string; extensions?: unknown }[] = [];
  try {
    for await (const r of iterate) errors.push(...(r.errors ?? []));
  } catch (err) {
    if (Array.isArray(err)) errors.push(...(err as { message: string }[]));
    else throw err;
  }
  return errors;
}

/** The `extensions` of the errors in the `data:` lines of an SSE body (one JSON result a line). */
function sseErrors(text: string): unknown[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("data:") && l.length > 5)
    .flatMap((l) => ((JSON.parse(l.slice(5)) as Answer["body"]).errors ?? []).map((e) => e.extensions));
}

describe("under --trusted-documents-only (in-process gateway with a daemon)", () => {
  let h: AppHarness;
  const clients: ProsperoClient[] = [];
  beforeAll(async () => {
    h = await startAppHarness({ config: { trustedDocumentsOnly: true } });
  });
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    await h?.close();
  });
  const sdk = () => {
    const c = createProsperoClient({ url: h.url, token: h.token });
    clients.push(c);
    return c;
  };

  it("the SDK's documents run: queries and a mutation over HTTP, a subscription over graphql-ws", async () => {
    const client = sdk();
    const viewer = await client.request(ViewerDocument);
    expect(viewer.viewer.role).toBe("ADMIN");
    const status = await client.request(StatusDocument);
    expect(status.readiness.ready).toBe(true);
    const spawned = await client.request(SpawnAgentDocument, {
      input: { workspace: "demo", prompt: "trusted documents" },
    });
    if (isMutationError(spawned.spawnAgent)) throw new Error(spawned.spawnAgent.message);
    const agentId = (spawned.spawnAgent as { agent: { agentId: string } }).agent.agentId;
    const kinds = await new Promise<string[]>((resolve, reject) => {
      const seen: string[] = [];
      client.subscribe(
        AgentEventsDocument,
        { agentId },
        {
          onNext: (r) => void seen.push(r.agentEvents.__typename),
          onError: reject,
          onComplete: () => resolve(seen),
        },
      );
    });
    expect(kinds[0]).toBe("AgentSpawnedEvent");
    expect(kinds).toContain("AgentFinishedEvent");
  });

  it("the dashboard's documents run as the dashboard sends them (HTTP and graphql-ws)", async () => {
    const viewer = await post(h.url, h.token, { query: VIEWER_QUERY }, "application/graphql-response+json");
    expect(viewer.status).toBe(200);
    expect(viewer.body.errors).toBeUndefined();
    const ws = h.ws();
    const seen: string[] = [];
    for await (const r of ws.iterate<{ fleetChanges: { __typename: string } }>({
      query: dashboardDocuments.FLEET_CHANGES,
    })) {
      expect(r.errors).toBeUndefined();
      seen.push(r.data!.fleetChanges.__typename);
      if (seen.at(-1) === "FleetSeedComplete") break;
    }
    expect(seen.at(-1)).toBe("FleetSeedComplete");
  });

  it("a registered document runs by its sha256 alone: persistedQuery (HTTP, graphql-ws) and documentId", async () => {
    const text = ViewerDocument.toString();
    const hash = sha256(text);
    const byApq = await post(h.url, h.token, {
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
    });
    expect(byApq.status).toBe(200);
    expect(byApq.body.data).toMatchObject({ viewer: { role: "ADMIN" } });
    const byId = await post(h.url, h.token, { documentId: `sha256:${hash}` });
    expect(byId.body.data).toMatchObject({ viewer: { role: "ADMIN" } });
    const ws = h.ws();
    const results: unknown[] = [];
    for await (const r of ws.iterate({
      query: "",
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
    }))
      results.push(r);
    expect(results).toEqual([
      { data: expect.objectContaining({ viewer: expect.objectContaining({ role: "ADMIN" }) }) },
    ]);
  });

  it("HTTP: an unregistered document, a registered one re-spaced, or an unknown hash is refused with 400 DOCUMENT_NOT_TRUSTED", async () => {
    expectRefused(await post(h.url, h.token, { query: UNREGISTERED }));
    expectRefused(await post(h.url, h.token, { query: UNREGISTERED }, "application/json"));
    expectRefused(await post(h.url, h.token, { query: `${ViewerDocument.toString()} ` }));
    expectRefused(await post(h.url, h.token, { documentId: sha256(UNREGISTERED) }));
    expectRefused(
      await post(h.url, h.token, {
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256(UNREGISTERED) } },
      }),
    );
    // GraphiQL's schema introspection is not a registered document either.
    expectRefused(await post(h.url, h.token, { query: "{ __schema { types { name } } }" }));
    // The SDK surfaces it as a GraphQLRequestError with the code.
    const err = await sdk()
      .request(UNREGISTERED as unknown as typeof ViewerDocument)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphQLRequestError);
    expect((err as GraphQLRequestError).errors.map((e) => e.extensions?.["code"])).toEqual([
      "DOCUMENT_NOT_TRUSTED",
    ]);
  });

  it("SSE: an unregistered subscription is refused with DOCUMENT_NOT_TRUSTED", async () => {
    const res = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: `Bearer ${h.token}`,
      },
      body: JSON.stringify({ query: UNREGISTERED_SUBSCRIPTION }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(sseErrors(text)).toEqual([{ code: "DOCUMENT_NOT_TRUSTED" }]);
    expect(text).not.toContain("FleetSeedComplete");
    // The graphql-sse client (distinct connections, what yoga serves on /graphql) gets the same answer.
    const sse = createSseClient({
      url: `${h.url}/graphql`,
      headers: { authorization: `Bearer ${h.token}` },
      retryAttempts: 0,
    });
    try {
      const err = await (async () => {
        for await (const _r of sse.iterate({ query: UNREGISTERED_SUBSCRIPTION })) return "delivered";
        return "completed";
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SseNetworkError);
      const response = (err as SseNetworkError<Response>).response!;
      expect(response.status).toBe(400);
      expect(sseErrors(await response.text())).toEqual([{ code: "DOCUMENT_NOT_TRUSTED" }]);
    } finally {
      sse.dispose();
    }
  });

  it("graphql-ws: an unregistered operation or unknown hash gets an error with the code; the connection stays usable", async () => {
    const ws = h.ws();
    const refused = await operationErrors(ws.iterate({ query: UNREGISTERED_SUBSCRIPTION }));
    expect(refused.map((e) => e.extensions)).toEqual([{ code: "DOCUMENT_NOT_TRUSTED" }]);
    const unknown = await operationErrors(
      ws.iterate({
        query: "",
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256(UNREGISTERED) } },
      }),
    );
    expect(unknown.map((e) => e.extensions)).toEqual([{ code: "DOCUMENT_NOT_TRUSTED" }]);
    const after: unknown[] = [];
    for await (const r of ws.iterate({ query: ViewerDocument.toString() })) after.push(r);
    expect(after).toEqual([{ data: expect.objectContaining({ viewer: expect.anything() }) }]);
  });

  it("refusals are in the audit log (denied, DOCUMENT_NOT_TRUSTED), read with the SDK's own document", async () => {
    await post(h.url, h.token, { query: UNREGISTERED });
    const log = await sdk().request(sdkDocuments.AuditLogDocument, {
      filter: { deniedOnly: true },
      first: 100,
    });
    const results = log.auditLog!.edges.map((e) => e.node.result);
    expect(results).toContain("DOCUMENT_NOT_TRUSTED");
  });
});

describe("prospero serve --trusted-documents-only / PROSPERO_TRUSTED_DOCUMENTS_ONLY=1 (processes)", () => {
  const running: ServeProcess[] = [];
  afterAll(async () => {
    for (const p of running) {
      p.child.kill("SIGTERM");
      await p.exited;
    }
  });

  it("the flag: the CLI works, an unregistered document is refused", async () => {
    const p = await startServe(["--data-dir", tmpDir(), "--trusted-documents-only"]);
    running.push(p);
    const token = await serveToken(p);
    const status = await cli(p.url, ["status", "--json"], { PROSPERO_TOKEN: token });
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expectRefused(await post(p.url, token, { query: UNREGISTERED }));
    const viewer = await post(p.url, token, { query: ViewerDocument.toString() });
    expect(viewer.body.errors).toBeUndefined();
  }, 40_000);

  it("the environment variable does the same", async () => {
    const p = await startServe(["--data-dir", tmpDir()], { PROSPERO_TRUSTED_DOCUMENTS_ONLY: "1" });
    running.push(p);
    const token = await serveToken(p);
    expectRefused(await post(p.url, token, { query: UNREGISTERED }));
  }, 40_000);
});

describe("without the switch", () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness({ register: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("arbitrary documents run, registered hashes resolve, an unknown hash answers PERSISTED_QUERY_NOT_FOUND", async () => {
    const any = await post(h.url, h.token, { query: UNREGISTERED });
    expect(any.status).toBe(200);
    expect(any.body.data).toMatchObject({ viewer: { role: "ADMIN" } });
    const hash = sha256(ViewerDocument.toString());
    const byHash = await post(h.url, h.token, {
      extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
    });
    expect(byHash.body.data).toMatchObject({ viewer: { role: "ADMIN" } });
    const byId = await post(h.url, h.token, { documentId: hash });
    expect(byId.body.data).toMatchObject({ viewer: { role: "ADMIN" } });
    expectRefused(
      await post(h.url, h.token, { documentId: sha256(UNREGISTERED) }),
      "PERSISTED_QUERY_NOT_FOUND",
    );
    // An Apollo client then sends the text with the hash: it runs.
    const retried = await post(h.url, h.token, {
      query: UNREGISTERED,
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(UNREGISTERED) } },
    });
    expect(retried.body.data).toMatchObject({ viewer: { role: "ADMIN" } });
    // No document at all is still a bad request.
    const none = await post(h.url, h.token, {});
    expect(none.status).toBe(400);
    expect(none.body.errors![0]!.extensions).toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("the manifest", () => {
  it("holds every operation of src/sdk/operations, exactly as the SDK sends it", () => {
    const m = manifest();
    const texts = new Set(Object.values(m));
    for (const [hash, text] of Object.entries(m)) expect(sha256(text), hash).toBe(hash);
    const dir = path.join(REPO, "src/sdk/operations");
    const names = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".graphql"))
      .flatMap((f) =>
        parse(fs.readFileSync(path.join(dir, f), "utf8")).definitions.flatMap((d) =>
          d.kind === Kind.OPERATION_DEFINITION ? [d.name!.value] : [],
        ),
      );
    expect(names.length).toBeGreaterThan(10);
    const generated = sdkDocuments as unknown as Record<string, { toString(): string } | undefined>;
    for (const name of names) {
      const doc = generated[`${name}Document`];
      expect(doc, `${name}Document is generated`).toBeDefined();
      expect(texts.has(doc!.toString()), `${name} is registered`).toBe(true);
    }
  });

  it("holds every document of dashboard/src/api, and every operation written anywhere in the dashboard", () => {
    const texts = new Set(Object.values(manifest()));
    const exported = [...Object.entries(dashboardDocuments), ["VIEWER_QUERY", VIEWER_QUERY] as const];
    for (const [name, text] of exported) expect(texts.has(text), name).toBe(true);
    const registeredNames = new Set(
      [...texts].flatMap((t) =>
        parse(t).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value] : [])),
      ),
    );
    const sources = fs
      .readdirSync(path.join(REPO, "dashboard/src"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".ts"))
      .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "utf8"));
    const written = sources.flatMap((s) =>
      [...s.matchAll(/\b(?:query|mutation|subscription)\s+([A-Z]\w*)\s*[({]/g)].map((m) => m[1]!),
    );
    expect(written.length).toBeGreaterThanOrEqual(exported.length);
    for (const name of written) expect(registeredNames.has(name), name).toBe(true);
  });

  it("documents:check passes on the committed manifest and fails, naming the difference, on a stale one", async () => {
    const script = path.join(REPO, "scripts/trusted-documents.ts");
    const tsx = path.join(REPO, "node_modules/.bin/tsx");
    const check = (file: string) =>
      run(tsx, [script, "--check", "--manifest", file], { cwd: REPO }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({
          code: e.code,
          stdout: e.stdout,
          stderr: e.stderr,
        }),
      );
    const dir = tmpDir("manifest-");
    const fresh = path.join(dir, "fresh.json");
    fs.copyFileSync(TRUSTED_DOCUMENTS_FILE, fresh);
    expect(await check(fresh)).toMatchObject({ code: 0 });

    const m = manifest();
    const viewerHash = sha256(ViewerDocument.toString());
    const { [viewerHash]: _dropped, ...without } = m;
    const missing = path.join(dir, "missing.json");
    fs.writeFileSync(missing, `${JSON.stringify(without, null, 2)}\n`);
    const r1 = await check(missing);
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/not registered: Viewer \(src\/sdk\/generated\/graphql\.ts#ViewerDocument\)/);

    const extra = path.join(dir, "extra.json");
    fs.writeFileSync(extra, `${JSON.stringify({ ...m, [sha256(UNREGISTERED)]: UNREGISTERED }, null, 2)}\n`);
    const r2 = await check(extra);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`no longer sent by any client: (anonymous) (${sha256(UNREGISTERED)})`);

    const reformatted = path.join(dir, "reformatted.json");
    fs.writeFileSync(reformatted, JSON.stringify(m));
    const r3 = await check(reformatted);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain("same documents, but not as `npm run documents` writes them");
    // Nothing was written.
    expect(fs.readFileSync(missing, "utf8")).toBe(`${JSON.stringify(without, null, 2)}\n`);
  }, 60_000);

  it("a manifest whose key is not the sha256 of its document is refused at start", () => {
    const text = ViewerDocument.toString();
    expect(() => TrustedDocuments.parse({ [sha256(text)]: text }, "ok.json")).not.toThrow();
    expect(() => TrustedDocuments.parse({ [sha256(UNREGISTERED)]: text }, "bad.json")).toThrow(StartupError);
    expect(() => TrustedDocuments.parse({ [sha256(UNREGISTERED)]: text }, "bad.json")).toThrow(
      /bad\.json: the key .* is not the sha256 of its document/,
    );
    expect(() => TrustedDocuments.parse(["not", "a", "map"], "list.json")).toThrow(StartupError);
  });
});
