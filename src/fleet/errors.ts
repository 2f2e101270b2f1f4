/**
 * Domain errors of fleet operations. Each maps to a typed GraphQL mutation result
 * (NotFoundError, InvalidStateError, ConflictError, ProviderMisconfiguredError,
 * UnreachableError, ValidationError) and to a CLI exit code. caliband's own `Unreachable` is
 * re-exported so callers need one import.
 */
import { ProsperoError } from "../errors.js";

export { Unreachable } from "../caliband/errors.js";

/** A workspace, agent or API token that does not exist (anywhere in the fleet or its history). */
export class NotFound extends ProsperoError {
  readonly code = "NOT_FOUND";
  constructor(
    readonly entity: "workspace" | "agent" | "token",
    readonly id: string,
  ) {
    super(`${entity} not found: ${id}`);
  }
}

/** The operation is not allowed in the target's current state (e.g. kill on a `done` agent). */
export class InvalidState extends ProsperoError {
  readonly code = "INVALID_STATE";
  constructor(
    message: string,
    /** Current status of the target, when it is an agent. */
    readonly status: string | null = null,
  ) {
    super(message);
  }
}

/** The request collides with existing state (a name or canonical root already registered, #47). */
export class Conflict extends ProsperoError {
  readonly code = "CONFLICT";
  constructor(
    message: string,
    /** The other workspace the request collides with, when there is one (for scope-aware messages). */
    readonly workspace: string | null = null,
  ) {
    super(message);
  }
}

/** A workspace's provider configuration is incoherent or incomplete (#120, #23). */
export class ProviderMisconfigured extends ProsperoError {
  readonly code = "PROVIDER_MISCONFIGURED";
  constructor(
    message: string,
    /** The offending field, e.g. `apiKeyFromEnv`. */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

/** One problem with an input value: where (path of field names) and what. */
export interface FieldIssue {
  path: string[];
  message: string;
}

/** Input that fails validation; `issues` name each bad field. */
export class ValidationFailed extends ProsperoError {
  readonly code = "VALIDATION";
  constructor(readonly issues: FieldIssue[]) {
    super(`invalid input: ${issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ")}`);
  }
}
