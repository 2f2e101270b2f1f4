/**
 * Helpers for typed mutation results: every mutation returns its payload or one of the schema's
 * Error types (`NotFoundError`, `InvalidStateError`, …), distinguished by `__typename`.
 */

/** The `__typename`s of the schema's Error types. */
export const ERROR_TYPENAMES = [
  "NotFoundError",
  "InvalidStateError",
  "ConflictError",
  "ProviderMisconfiguredError",
  "UnreachableError",
  "CalibandNotInstalledError",
  "DaemonStartFailedError",
  "ValidationError",
  "DaemonRefusedError",
  "UnauthenticatedError",
  "ForbiddenError",
] as const;

/** A typed mutation error as selected by the `ErrorFields` fragment (at least `code` and `message`). */
export interface MutationError {
  __typename: (typeof ERROR_TYPENAMES)[number];
  code: string;
  message: string;
}

const ERROR_SET: ReadonlySet<string> = new Set(ERROR_TYPENAMES);

/** True when a mutation result is one of the schema's Error types (narrows the union). */
export function isMutationError<T extends { __typename?: string }>(
  result: T,
): result is Extract<T, MutationError> {
  return result.__typename !== undefined && ERROR_SET.has(result.__typename);
}
