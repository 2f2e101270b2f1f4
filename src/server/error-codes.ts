/**
 * `extensions.code` of the errors a client can get at the top level of a GraphQL response (issue 13
 * item 7), one documented set (README "Errors"): every error carries one, and the codes of errors the
 * client caused are told apart from the gateway's own failures, so that only the latter are logged
 * at level `error`.
 *
 * Codes follow graphql-yoga's (`GRAPHQL_PARSE_FAILED`, `GRAPHQL_VALIDATION_FAILED`,
 * `OPERATION_RESOLUTION_FAILURE`, `BAD_REQUEST`, `INTERNAL_SERVER_ERROR`) and Apollo's
 * `BAD_USER_INPUT` for argument values, variables and cursors; the gateway's own are listed below.
 * Typed mutation results (`... on Error { code }`) are a separate set, in the schema.
 */
import { GraphQLError } from "graphql";
import { PothosValidationError } from "@pothos/core";
import { ProsperoError, ValidationFailed } from "../errors.js";
import { QUERY_LIMIT_CODES } from "./query-limits.js";
import { TRUSTED_DOCUMENT_CODES } from "./trusted-documents.js";

/**
 * Codes of errors caused by the request (a bad document, argument, variable, cursor or credential,
 * a refused limit, an entity that is not there or not in a state for it): logged at `debug`.
 */
export const CLIENT_ERROR_CODES: ReadonlySet<string> = new Set([
  "GRAPHQL_PARSE_FAILED",
  "GRAPHQL_VALIDATION_FAILED",
  "OPERATION_RESOLUTION_FAILURE",
  "BAD_REQUEST",
  "BAD_USER_INPUT",
  ...Object.values(QUERY_LIMIT_CODES),
  ...TRUSTED_DOCUMENT_CODES,
  "TOO_MANY_SUBSCRIPTIONS",
  "CSRF_HEADER_MISSING",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "INVALID_STATE",
  "CONFLICT",
  "PROVIDER_MISCONFIGURED",
]);

/** The error a GraphQLError wraps (a resolver's throw), else the error itself. */
function originalOf(error: unknown): unknown {
  let e = error;
  while (e instanceof GraphQLError && e.originalError) e = e.originalError;
  return e;
}

/**
 * The wire code of a client-caused error, or null for anything else (a failure of the gateway).
 * The domain's `VALIDATION` (input that failed a field's rules) is `BAD_USER_INPUT` on the wire,
 * like Pothos' own argument and cursor errors.
 */
export function clientErrorCode(error: unknown): string | null {
  const original = originalOf(error);
  if (original instanceof ValidationFailed || original instanceof PothosValidationError)
    return "BAD_USER_INPUT";
  if (original instanceof ProsperoError) return CLIENT_ERROR_CODES.has(original.code) ? original.code : null;
  if (!(error instanceof GraphQLError)) return null;
  const code = error.extensions?.code;
  if (typeof code === "string") return CLIENT_ERROR_CODES.has(code) ? code : null;
  // A GraphQLError raised by graphql-js itself (not wrapping a thrown Error) with no code and no
  // path is about the request (a variable of the wrong type); one with a path is a field the
  // server failed to answer.
  return original instanceof GraphQLError && !error.path ? "BAD_USER_INPUT" : null;
}

/**
 * `error` with `extensions` extended by `extra` (a copy: location, path and the original error kept).
 */
export function withExtensions(error: GraphQLError, extra: Record<string, unknown>): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, ...extra },
  });
}

/**
 * `error` with a code: its own, else `fallback` (a copy only when one is added).
 */
export function withCode(error: GraphQLError, fallback: string): GraphQLError {
  return typeof error.extensions?.code === "string" ? error : withExtensions(error, { code: fallback });
}

/**
 * `errors` without `extensions.http` (the HTTP status hint, meaningless over graphql-ws), each with
 * a code (`fallback` when it had none).
 */
export function withoutHttp(errors: readonly GraphQLError[], fallback: string): GraphQLError[] {
  return errors.map((e) => {
    const coded = withCode(e, fallback);
    if (coded.extensions.http === undefined) return coded;
    const copy = withExtensions(coded, {});
    delete copy.extensions.http;
    return copy;
  });
}
