/**
 * Mutations with typed results: every document aliases its field to `result`, which is either the
 * payload or an `Error` (`code`, `message`, and for validation the failing fields).
 */
import { request } from "./http.js";
import type { MutationError } from "./types.js";

/** Why a mutation did not happen, ready to show. */
export interface Failure {
  /** "CODE: message", or the transport's explanation. */
  message: string;
  /** Invalid input fields (ValidationError). */
  fieldErrors: { path: string[]; message: string }[];
}

/** A mutation's outcome. */
export type Outcome<P> = { ok: true; payload: P } | { ok: false; failure: Failure };

function isError(value: unknown): value is MutationError {
  return typeof value === "object" && value !== null && "code" in value && "message" in value;
}

/** Run a mutation whose field is aliased `result`; never throws. */
export async function mutate<P>(query: string, variables: Record<string, unknown>): Promise<Outcome<P>> {
  try {
    const data = await request<{ result: P | MutationError }>(query, variables);
    const result = data.result;
    if (isError(result)) {
      return {
        ok: false,
        failure: { message: `${result.code}: ${result.message}`, fieldErrors: result.fieldErrors ?? [] },
      };
    }
    return { ok: true, payload: result };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, failure: { message, fieldErrors: [] } };
  }
}
