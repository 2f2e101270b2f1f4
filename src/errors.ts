/**
 * Typed domain errors shared by every layer. Each carries a stable machine-readable `code`;
 * the GraphQL layer maps them to typed mutation results (errors plugin) and the CLI to exit codes.
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
