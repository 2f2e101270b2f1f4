/**
 * Typed domain errors shared by every layer (the ground floor: this module imports nothing of
 * ours). Each carries a stable machine-readable `code`; the GraphQL layer maps them to typed
 * mutation results (errors plugin) and the CLI to exit codes. caliband's transport failures
 * (`Unreachable` and its kin) live beside the protocol in src/caliband/errors.ts.
 */

/** Base class of every error Prospero raises on purpose. `code` is stable; `message` is for humans. */
export abstract class ProsperoError extends Error {
  /** Stable identifier, e.g. `NOT_FOUND`, `UNREACHABLE`. */
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A configuration value is invalid. `setting` names the flag/env var; `expected` the accepted form. */
export class ConfigError extends ProsperoError {
  readonly code = "CONFIG";
  constructor(
    readonly setting: string,
    readonly expected: string,
    detail?: string,
  ) {
    super(`invalid ${setting}: ${detail ? `${detail}; ` : ""}expected ${expected}`);
  }
}

/** Startup could not proceed (data dir unusable, database not SQLite, migration drift, …). */
export class StartupError extends ProsperoError {
  readonly code = "STARTUP";
}

/** A workspace, agent, API token, launch or schedule that does not exist (anywhere in the fleet or its history). */
export class NotFound extends ProsperoError {
  readonly code = "NOT_FOUND";
  constructor(
    readonly entity: "workspace" | "agent" | "token" | "launch" | "schedule" | "inbox item" | "webhook",
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
  readonly code = "BAD_USER_INPUT";
  constructor(readonly issues: FieldIssue[]) {
    super(`invalid input: ${issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ")}`);
  }
}
