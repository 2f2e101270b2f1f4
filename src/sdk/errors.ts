/**
 * Errors the SDK throws. A request either reached the gateway and GraphQL reported errors
 * ({@link GraphQLRequestError}), or it never got a usable answer ({@link NetworkError}). Domain
 * failures of mutations are not errors: they come back as typed results (`... on Error`).
 */
import { z } from "zod";

/** One entry of a GraphQL response's `errors` array, as the gateway sends it. */
export interface GraphQLErrorItem {
  /** Human-readable message. */
  message: string;
  /** Path of the failed field in the response, when the error belongs to a field. */
  path?: readonly (string | number)[];
  /** Source locations in the document. */
  locations?: readonly { line: number; column: number }[];
  /** Extra data; the gateway sets a stable `code`, e.g. `NOT_FOUND`, `BAD_USER_INPUT`. */
  extensions?: Record<string, unknown>;
}

/** zod schema of a GraphQL error entry (unknown extra keys are kept). */
export const GraphQLErrorItemSchema = z.looseObject({
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  locations: z.array(z.object({ line: z.number(), column: z.number() })).optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The gateway answered, with GraphQL errors: a validation failure, an unknown agent in a
 * subscription, a masked unexpected error, …. `errors` is the response's array (never empty);
 * `data` is whatever partial data came with it.
 */
export class GraphQLRequestError extends Error {
  override readonly name = "GraphQLRequestError";
  /** The errors, as received. */
  readonly errors: readonly GraphQLErrorItem[];
  /** Partial data sent with the errors (usually null). */
  readonly data: unknown;
  /** HTTP status of the response (undefined over WebSocket). */
  readonly status: number | undefined;

  constructor(errors: readonly GraphQLErrorItem[], data: unknown = null, status?: number) {
    super(errors.map((e) => e.message).join("; ") || "GraphQL request failed");
    this.errors = errors;
    this.data = data;
    this.status = status;
  }

  /** The errors' `extensions.code` values (e.g. `NOT_FOUND`), without duplicates. */
  get codes(): string[] {
    const codes = this.errors
      .map((e) => e.extensions?.["code"])
      .filter((c): c is string => typeof c === "string");
    return [...new Set(codes)];
  }

  /** True when one of the errors has `extensions.code === code`. */
  hasCode(code: string): boolean {
    return this.codes.includes(code);
  }
}

/**
 * The gateway could not be reached or did not answer with GraphQL: connection refused, DNS
 * failure, a dropped WebSocket that could not be re-established, an HTTP response that is not a
 * GraphQL response (e.g. a proxy's 502).
 */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  /** The GraphQL endpoint (http(s) or ws(s) URL) that failed. */
  readonly endpoint: string;
  /** Short reason, e.g. `ECONNREFUSED`, `HTTP 502`, `closed 1006`. */
  readonly reason: string;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** WebSocket close code, when the socket closed. */
  readonly closeCode: number | undefined;

  constructor(
    endpoint: string,
    reason: string,
    opts: { status?: number; closeCode?: number; cause?: unknown } = {},
  ) {
    super(`cannot reach the gateway at ${endpoint}: ${reason}`, { cause: opts.cause });
    this.endpoint = endpoint;
    this.reason = reason;
    this.status = opts.status;
    this.closeCode = opts.closeCode;
  }
}

/**
 * A short reason for a failed `fetch` or socket: the first system error code along its cause chain
 * (`ECONNREFUSED`), else the innermost message (`bad port`), else the text of `err`.
 */
export function describeNetworkFailure(err: unknown): string {
  let innermost: string | null = null;
  let cur: unknown = err;
  for (let depth = 0; depth < 6 && cur !== null && typeof cur === "object"; depth++) {
    const { code, message } = cur as { code?: unknown; message?: unknown };
    if (typeof code === "string" && code !== "") return code;
    if (typeof message === "string" && message !== "") innermost = message;
    cur = (cur as { cause?: unknown }).cause ?? (cur as { error?: unknown }).error;
  }
  return innermost ?? String(err);
}
