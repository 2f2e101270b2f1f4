/**
 * A second gateway, started with `--trusted-documents-only`, runs only the documents registered in
 * the repository's committed manifest (`{ "<sha256 hex>": "<document text>" }`): the consumer's
 * own documents are refused, over HTTP and over graphql-ws alike, while a registered one runs —
 * by its id (GraphQL-over-HTTP `documentId`, or Apollo's `persistedQuery` extension) or as its
 * exact text.
 */
import fs from "node:fs";
import path from "node:path";
import { Kind, parse, print, type OperationDefinitionNode } from "graphql";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { REPO_ROOT, startGateway, type Gateway } from "../lib/gateway.mjs";
import { Workspaces } from "../lib/operations.js";

/** Where the manifest may be, first match wins (repository root, or generated next to the sources). */
const MANIFEST_CANDIDATES = ["trusted-documents.json", "src/generated/trusted-documents.json"].map((p) =>
  path.join(REPO_ROOT, p),
);

/** A registered query that needs no variables: the shortest one, for a clear test. */
function registeredQuery(): { hash: string; text: string; name: string } {
  const file = MANIFEST_CANDIDATES.find((f) => fs.existsSync(f));
  if (!file) throw new Error(`no trusted-documents manifest at ${MANIFEST_CANDIDATES.join(" or ")}`);
  const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>;
  const candidates = Object.entries(manifest)
    .map(([hash, text]) => {
      const op = parse(text).definitions.find(
        (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
      );
      return { hash, text, op };
    })
    .filter(
      ({ op }) =>
        op?.operation === "query" &&
        (op.variableDefinitions ?? []).every((v) => v.type.kind !== Kind.NON_NULL_TYPE || v.defaultValue),
    )
    .sort((a, b) => a.text.length - b.text.length);
  const pick = candidates[0];
  if (!pick) throw new Error(`${file} registers no query without required variables`);
  return { hash: pick.hash, text: pick.text, name: pick.op?.name?.value ?? "(anonymous)" };
}

// Started once for the file. A failed start fails every test with its reason (a throwing beforeAll
// would only mark them skipped, and skipped tests are not counted as failures).
const starting: Promise<Gateway | Error> = startGateway(["--trusted-documents-only"]).catch((err: unknown) =>
  err instanceof Error ? err : new Error(String(err)),
);
let gateway: Gateway;
beforeEach(async () => {
  const g = await starting;
  if (g instanceof Error) throw g;
  gateway = g;
});
afterAll(async () => {
  const g = await starting;
  if (!(g instanceof Error)) await g.stop();
});

/** POST a GraphQL-over-HTTP request body; returns the status and the parsed JSON. */
async function post(body: Record<string, unknown>): Promise<{ status: number; json: GraphQLResponse }> {
  const res = await fetch(`${gateway.url}/graphql`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${gateway.token}`,
      "content-type": "application/json",
      accept: "application/graphql-response+json",
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as GraphQLResponse };
}

interface GraphQLResponse {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe("under --trusted-documents-only", () => {
  test("a document that is not registered is refused with DOCUMENT_NOT_TRUSTED, and nothing runs", async () => {
    for (const query of [print(Workspaces), "{ version }"]) {
      const { status, json } = await post({ query });
      expect(status, query).toBe(400);
      expect(json.data, query).toBeUndefined();
      expect(json.errors?.[0]?.extensions?.code, query).toBe("DOCUMENT_NOT_TRUSTED");
    }
  });

  test("an id no document is registered under is refused too", async () => {
    const { status, json } = await post({ documentId: `sha256:${"0".repeat(64)}` });
    expect(status).toBe(400);
    expect(json.errors?.[0]?.extensions?.code).toBe("DOCUMENT_NOT_TRUSTED");
  });

  test("a registered document runs: by documentId, by Apollo's persistedQuery hash, and as its exact text", async () => {
    const doc = registeredQuery();
    const bodies: Record<string, unknown>[] = [
      { documentId: `sha256:${doc.hash}` },
      { extensions: { persistedQuery: { version: 1, sha256Hash: doc.hash } } },
      { query: doc.text },
    ];
    for (const body of bodies) {
      const { status, json } = await post(body);
      expect(json.errors, `${doc.name} via ${Object.keys(body).join()}`).toBeUndefined();
      expect(status).toBe(200);
      expect(json.data).toBeTruthy();
    }
  });

  test("over graphql-ws the same rule holds: a registered text runs, any other is refused", async () => {
    const doc = registeredQuery();
    const client = createClient({
      url: `${gateway.url.replace(/^http/, "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${gateway.token}` },
      retryAttempts: 0,
    });
    try {
      const run = async (query: string) => {
        const results: unknown[] = [];
        for await (const r of client.iterate({ query })) results.push(r);
        return results;
      };
      const ok = (await run(doc.text)) as GraphQLResponse[];
      expect(ok).toHaveLength(1);
      expect(ok[0]!.errors).toBeUndefined();
      expect(ok[0]!.data).toBeTruthy();
      await expect(run(print(Workspaces))).rejects.toSatisfy((errs: unknown) =>
        JSON.stringify(errs).includes("DOCUMENT_NOT_TRUSTED"),
      );
    } finally {
      await client.dispose();
    }
  });
});
