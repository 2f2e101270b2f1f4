/**
 * Trusted documents (issue 13 item 9): the GraphQL documents the SDK, the CLI (through the SDK) and
 * the dashboard send are registered at build time in a committed manifest,
 * {@link TRUSTED_DOCUMENTS_FILE} (`npm run documents` writes it from the sources,
 * scripts/trusted-documents.ts; `npm run documents:check` fails in CI when it is stale). Its shape is
 * `{ "<sha256 hex of the exact document text>": "<document text>" }`: the shape of GraphQL Code
 * Generator's persisted-documents file, keyed by the hash of the text the clients really send (the
 * client preset's `persistedDocuments` hashes a normalized reprint instead, which matches no text a
 * client sends, and knows nothing of the dashboard's documents).
 *
 * Every gateway resolves a registered id to its text: an HTTP request may carry, in place of
 * `query`, `extensions.persistedQuery.sha256Hash` (Apollo's automatic persisted queries, as
 * `@graphql-yoga/plugin-persisted-operations` reads it) or `documentId` (the GraphQL-over-HTTP
 * persisted documents appendix, `sha256:<hex>` or the bare hex); over graphql-ws the same ids go
 * with an empty `query`. An unknown id answers {@link PERSISTED_QUERY_NOT_FOUND} (an Apollo client
 * then sends the text).
 *
 * With `--trusted-documents-only` a gateway runs nothing else: every document it is about to parse —
 * over HTTP, SSE and graphql-ws alike, since every transport parses through yoga's envelop (the
 * gate is an `onParse` hook) — must be the exact text of a registered one, whether it came by id or
 * as text; anything else is refused with {@link DOCUMENT_NOT_TRUSTED} (HTTP 400) before it is
 * parsed, so an attacker holding a token can send only what the shipped clients send. Without the
 * switch arbitrary documents run as before (GraphiQL needs that).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { usePersistedOperations } from "@graphql-yoga/plugin-persisted-operations";
import { z } from "zod";
import { StartupError } from "../errors.js";

/** The committed manifest (repository root, beside `schema.graphql`). */
export const TRUSTED_DOCUMENTS_FILE = fileURLToPath(new URL("../../trusted-documents.json", import.meta.url));

/** `extensions.code` of a document refused by `--trusted-documents-only` (README "Errors"). */
export const DOCUMENT_NOT_TRUSTED = "DOCUMENT_NOT_TRUSTED";

/**
 * `extensions.code` of a persisted-document id this gateway does not know, when arbitrary documents
 * are allowed (Apollo's code: its persisted-queries link then sends the full text).
 */
export const PERSISTED_QUERY_NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND";

/** The codes above: errors the client caused (logged at debug). */
export const TRUSTED_DOCUMENT_CODES = [DOCUMENT_NOT_TRUSTED, PERSISTED_QUERY_NOT_FOUND] as const;

/** A persisted-document id: 64 hex digits, optionally prefixed `sha256:`. */
const DOCUMENT_ID = /^(?:sha256:)?([0-9a-fA-F]{64})$/;

/** The manifest's key of `text`: the lowercase hex SHA-256 of its UTF-8 bytes, exactly as sent. */
export function documentHash(text: string): string {
  return crypto.createHash("sha256").update(text, "utf8").digest("hex");
}

const Manifest = z.record(
  z.string().regex(/^[0-9a-f]{64}$/, "a key is the lowercase sha256 hex"),
  z.string(),
);

/** The registered documents of a manifest. */
export class TrustedDocuments {
  private readonly texts: ReadonlySet<string>;

  /** @param byHash {@link documentHash} of each text → the text (see {@link TrustedDocuments.parse}). */
  constructor(private readonly byHash: ReadonlyMap<string, string>) {
    this.texts = new Set(byHash.values());
  }

  /**
   * The documents of a parsed manifest file.
   * @throws StartupError naming `origin` when `json` is not `{ sha256 hex: text }` or a key is not
   *   the hash of its text (a hand-edited or corrupted manifest would otherwise refuse or admit the
   *   wrong documents).
   */
  static parse(json: unknown, origin: string): TrustedDocuments {
    const parsed = Manifest.safeParse(json);
    if (!parsed.success) {
      throw new StartupError(
        `${origin} is not a trusted-documents manifest ({ "<sha256 hex>": "<document>" }): ${parsed.error.issues[0]?.message ?? "invalid"} (regenerate it with npm run documents)`,
      );
    }
    for (const [hash, text] of Object.entries(parsed.data)) {
      if (documentHash(text) !== hash) {
        throw new StartupError(
          `${origin}: the key ${hash} is not the sha256 of its document (regenerate it with npm run documents)`,
        );
      }
    }
    return new TrustedDocuments(new Map(Object.entries(parsed.data)));
  }

  /**
   * Read and check the manifest at `file`.
   * @throws StartupError when it cannot be read, is not JSON, or fails {@link TrustedDocuments.parse}.
   */
  static load(file: string = TRUSTED_DOCUMENTS_FILE): TrustedDocuments {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (err) {
      throw new StartupError(
        `cannot read the trusted-documents manifest ${file}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new StartupError(`${file} is not JSON: ${(err as Error).message}`, { cause: err });
    }
    return TrustedDocuments.parse(json, file);
  }

  /** How many documents are registered. */
  get size(): number {
    return this.byHash.size;
  }

  /** The text registered under `id` (`sha256:<hex>` or `<hex>`, any case), or null. */
  textOf(id: string): string | null {
    const m = DOCUMENT_ID.exec(id);
    return m ? (this.byHash.get(m[1]!.toLowerCase()) ?? null) : null;
  }

  /** Whether `text` is, byte for byte, a registered document. */
  has(text: string): boolean {
    return this.texts.has(text);
  }
}

/**
 * The persisted-document id a request carries: `documentId` (a string), else
 * `extensions.persistedQuery.sha256Hash` (a string); null when it carries neither.
 */
export function documentIdOf(params: { documentId?: unknown; extensions?: unknown }): string | null {
  if (typeof params.documentId === "string") return params.documentId;
  const ext = params.extensions;
  if (typeof ext !== "object" || ext === null) return null;
  const pq = (ext as Record<string, unknown>)["persistedQuery"];
  if (typeof pq !== "object" || pq === null) return null;
  const hash = (pq as Record<string, unknown>)["sha256Hash"];
  return typeof hash === "string" ? hash : null;
}

/** What {@link trustedDocumentPlugins} and {@link queryOf} need. */
export interface TrustedDocumentsOptions {
  documents: TrustedDocuments;
  /** `--trusted-documents-only`: run registered documents only. */
  only: boolean;
  /**
   * Called with the operation's context (yoga's server context, or graphql-ws's) when a document is
   * refused under `only`, e.g. to audit the attempt. Must not throw.
   */
  onRefused?: (context: Readonly<Record<string, unknown>>) => void;
}

/** An error the client caused, with `code` and (over HTTP) status 400 whatever the Accept header. */
function requestError(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}

/** The refusal of an unregistered document under `--trusted-documents-only`. */
export function notTrusted(): GraphQLError {
  return requestError(
    "this gateway runs only trusted documents (--trusted-documents-only), and this document is not registered: " +
      "send a document of the Prospero SDK, CLI or dashboard as they send it, or its sha256 as " +
      "extensions.persistedQuery.sha256Hash or documentId",
    DOCUMENT_NOT_TRUSTED,
  );
}

/** The answer to an id no registered document has. */
function unknownId(id: string, only: boolean): GraphQLError {
  return only
    ? requestError(
        `no trusted document has the id ${JSON.stringify(id)}, and this gateway runs only trusted documents (--trusted-documents-only)`,
        DOCUMENT_NOT_TRUSTED,
      )
    : requestError(
        `PersistedQueryNotFound: no registered document has the id ${JSON.stringify(id)}; send the document's text in query`,
        PERSISTED_QUERY_NOT_FOUND,
      );
}

/**
 * The yoga plugins of trusted documents: yoga's persisted-operations plugin resolving an HTTP
 * request's id to its registered text (arbitrary text is let through to the gate), then, under
 * `only`, the gate refusing at parse time every document that is not a registered text (see the
 * module comment). Place them before the query limits: a refused document costs no more work.
 */
export function trustedDocumentPlugins(opts: TrustedDocumentsOptions): Plugin[] {
  const { documents, only } = opts;
  const resolve = usePersistedOperations({
    allowArbitraryOperations: true,
    extractPersistedOperationId: (params) => documentIdOf(params as { documentId?: unknown }),
    getPersistedOperation: (id) => documents.textOf(id),
    customErrors: {
      notFound: (payload) => unknownId(documentIdOf(payload.params as { documentId?: unknown }) ?? "", only),
      keyNotFound: () =>
        new GraphQLError(
          "Must provide query string (or a registered document's id as extensions.persistedQuery.sha256Hash or documentId).",
          { extensions: { code: "BAD_REQUEST", http: { spec: true, status: 400 } } },
        ),
    },
  });
  if (!only) return [resolve];
  const gate: Plugin = {
    onParse({ params, context }) {
      const source: unknown = params.source;
      const text =
        typeof source === "string"
          ? source
          : typeof source === "object" && source !== null && "body" in source
            ? String(source.body)
            : null;
      if (text !== null && documents.has(text)) return;
      opts.onRefused?.(context as Readonly<Record<string, unknown>>);
      throw notTrusted();
    },
  };
  return [resolve, gate];
}

/**
 * The text a graphql-ws `subscribe` payload asks to run: its `query`, or, when that is empty and
 * it carries a persisted-document id ({@link documentIdOf}), the registered text of that id. A
 * GraphQLError (DOCUMENT_NOT_TRUSTED or PERSISTED_QUERY_NOT_FOUND) for an id nobody registered.
 * Whether the text itself may run is the gate's business (it runs at parse time).
 */
export function queryOf(
  opts: Pick<TrustedDocumentsOptions, "documents" | "only">,
  payload: { query: string; documentId?: unknown; extensions?: unknown },
): string | GraphQLError {
  if (payload.query !== "") return payload.query;
  const id = documentIdOf(payload);
  if (id === null) return payload.query;
  return opts.documents.textOf(id) ?? unknownId(id, opts.only);
}
