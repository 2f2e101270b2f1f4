/**
 * Typed mutation errors (ARCHITECTURE decision 9). Every domain failure of a mutation is a result
 * type implementing the `Error` interface; anything else is an unexpected error, masked to clients
 * and logged with its stack. caliband's own error classes are mapped onto these by
 * {@link toDomainError} so one GraphQL type stands for one kind of failure.
 */
import {
  AgentNotFound,
  AutostartBackoff,
  CalibandNotInstalled,
  DaemonStartFailed,
  InvalidState as CalibandInvalidState,
  Protocol,
  Unreachable,
} from "../caliband/errors.js";
import { ProsperoError } from "../errors.js";
import {
  Conflict,
  InvalidState,
  NotFound,
  ProviderMisconfigured,
  ValidationFailed,
  type FieldIssue,
} from "../errors.js";
import { Forbidden, Unauthenticated } from "../auth/errors.js";
import { builder } from "./builder.js";
import {
  AgentStatusEnum,
  EntityTypeEnum,
  ErrorCodeEnum,
  RoleEnum,
  statusValue,
  type ErrorCode,
} from "./enums.js";

/** caliband refused a request (supervisor `internal` error: bad source, worktree failure, …). */
export class DaemonRefused extends ProsperoError {
  readonly code = "DAEMON_REFUSED";
}

/** The error classes a mutation can return as typed results. */
export const MUTATION_ERRORS = {
  NotFound,
  InvalidState,
  Conflict,
  ProviderMisconfigured,
  Unreachable,
  CalibandNotInstalled,
  DaemonStartFailed,
  ValidationFailed,
  DaemonRefused,
  Unauthenticated,
  Forbidden,
} as const;

/** One typed error class of {@link MUTATION_ERRORS}. */
export type MutationErrorClass = (typeof MUTATION_ERRORS)[keyof typeof MUTATION_ERRORS];

/** Errors every mutation can return: a refused token or scope, and input that fails validation. */
const ALWAYS = [Unauthenticated, Forbidden, ValidationFailed] as const;

/** Errors of any call that needs the workspace's caliband (reaching, autostarting or asking it). */
export const DAEMON_ERRORS = [Unreachable, CalibandNotInstalled, DaemonStartFailed, DaemonRefused] as const;

/**
 * The `errors` option of a mutation field: a `<name>Result` union of its payload and exactly the
 * error types it can produce (`types`, plus {@link ALWAYS}), the payload returned directly. A
 * domain error outside the list is a bug of the mutation's declaration: it reaches the client as
 * a top-level error with its code (src/server/error-codes.ts), never as a union member.
 */
export function mutationErrors(name: string, types: readonly MutationErrorClass[]) {
  return {
    types: [...new Set<MutationErrorClass>([...types, ...ALWAYS])],
    directResult: true as const,
    union: {
      name: `${name}Result`,
      description: `Result of ${name.charAt(0).toLowerCase()}${name.slice(1)}: its payload, or one of the errors it can produce.`,
    },
  };
}

/**
 * Map any error to the domain class the schema exposes (caliband's `AgentNotFound` → NotFound,
 * its `InvalidState` → InvalidState, `Protocol` with a daemon message → DaemonRefused, other
 * `Protocol` failures → Unreachable, an `AutostartBackoff` after a missing binary or a failed
 * daemon start → that failure again (CalibandNotInstalled / DaemonStartFailed with `retry` set:
 * the call started nothing, and says when the next attempt may); other errors are returned
 * unchanged: CalibandNotInstalled and DaemonStartFailed are typed results as they are (issue 12
 * item 10), anything unknown ends up masked.
 */
export function toDomainError(err: unknown): unknown {
  if (err instanceof AutostartBackoff) {
    const retry = { failures: err.failures, nextAttemptAt: err.nextAttemptAt };
    if (err.lastError instanceof CalibandNotInstalled)
      return CalibandNotInstalled.during(err.lastError, retry);
    if (err.lastError instanceof DaemonStartFailed) return DaemonStartFailed.during(err.lastError, retry);
    return err;
  }
  if (err instanceof AgentNotFound) return new NotFound("agent", err.id);
  if (err instanceof CalibandInvalidState) return new InvalidState(err.message, err.status);
  if (err instanceof Protocol) {
    if (err.daemonMessage !== undefined) return new DaemonRefused(err.daemonMessage);
    // No usable reply (connection closed, garbage): to the caller the daemon is not answering.
    return new Unreachable(err.endpoint ?? "caliband", err.message);
  }
  return err;
}

/**
 * Run a mutation's work `fn`, rethrowing failures as domain errors (see {@link toDomainError}).
 * Every mutation takes one `input:` argument, so a ValidationFailed from the domain whose paths are
 * relative to the input object gets `input` prepended: the same paths input validation reports.
 * Paths a service already reports from the argument (`["input", …]`: the queue, the schedules,
 * the webhooks) are kept as they are. (No input type has a field named `input`.)
 */
export async function domain<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ValidationFailed) {
      throw new ValidationFailed(
        err.issues.map((i) => ({ ...i, path: i.path[0] === "input" ? i.path : ["input", ...i.path] })),
      );
    }
    throw toDomainError(err);
  }
}

const ErrorInterface = builder.interfaceRef<Error & { code?: string }>("Error").implement({
  description:
    "A failure a client can act on; nothing was changed. `code` is stable; `message` is for humans. Clients with a normalized cache (Apollo's InMemoryCache) need the schema's possibleTypes to read these fields through `... on Error`: the SDK exports them as `possibleTypes`.",
  fields: (t) => ({
    message: t.exposeString("message", { description: "Human-readable explanation." }),
    code: t.field({
      type: ErrorCodeEnum,
      description: "Stable machine-readable code.",
      resolve: (e) => e.code as ErrorCode,
    }),
  }),
});

builder.objectType(NotFound, {
  name: "NotFoundError",
  description:
    "The workspace, agent, token, launch or schedule does not exist (anywhere in the fleet or its history).",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof NotFound,
  fields: (t) => ({
    entity: t.field({
      type: EntityTypeEnum,
      description: "What kind of thing was looked up.",
      resolve: (e) => e.entity,
    }),
    key: t.exposeString("id", {
      description:
        "What was looked up, as the caller gave it: a workspace name, a caliband agent id, or a token's name or id (not a global Node id).",
    }),
  }),
});

builder.objectType(InvalidState, {
  name: "InvalidStateError",
  description: "Not allowed in the target's current state (e.g. kill on an agent that is already done).",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof InvalidState,
  fields: (t) => ({
    status: t.field({
      type: AgentStatusEnum,
      nullable: true,
      description: "The agent's current status, when the refusal is about an agent's state.",
      resolve: (e) => (e.status === null ? null : statusValue(e.status)),
    }),
  }),
});

builder.objectType(Conflict, {
  name: "ConflictError",
  description:
    "Collides with existing state, e.g. a second name for an already registered root (one caliband per root), or an idempotency key reused for a different request.",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof Conflict,
  fields: () => ({}),
});

builder.objectType(ProviderMisconfigured, {
  name: "ProviderMisconfiguredError",
  description: "The workspace's provider configuration is incoherent or incomplete (e.g. a key on ollama).",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof ProviderMisconfigured,
  fields: (t) => ({
    field: t.exposeString("field", {
      nullable: true,
      description: "The offending config field, e.g. `apiKeyFromEnv`.",
    }),
  }),
});

builder.objectType(Unreachable, {
  name: "UnreachableError",
  description: "The workspace's caliband could not be reached or did not answer in time.",
  interfaces: [ErrorInterface],
  // A daemon that could not be started has a type of its own (DaemonStartFailedError).
  isTypeOf: (e) => e instanceof Unreachable && !(e instanceof DaemonStartFailed),
  fields: (t) => ({
    endpoint: t.exposeString("endpoint", { description: "The daemon endpoint that failed." }),
    reason: t.exposeString("reason", { description: "Why, e.g. `timeout after 5000 ms` or `ECONNREFUSED`." }),
  }),
});

builder.objectType(CalibandNotInstalled, {
  name: "CalibandNotInstalledError",
  description:
    "The gateway needed to start the workspace's caliband and cannot run the caliband binary (not installed, not on PATH, or not executable). `hint` says how to fix it: install caliban, which ships `caliband`, or start the gateway with `--caliband-bin` / `PROSPERO_CALIBAND_BIN` naming the executable. Nothing was changed.",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof CalibandNotInstalled,
  fields: (t) => ({
    bin: t.exposeString("bin", {
      description: "The binary the gateway tried to run (its `--caliband-bin`, default `caliband` on PATH).",
    }),
    errno: t.exposeString("errno", {
      nullable: true,
      description: "Why it could not be run: `ENOENT` (not found) or `EACCES` (not executable).",
    }),
    hint: t.exposeString("hint", { description: "How to fix it." }),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description:
        "Set when this call came during the autostart backoff (it tried nothing): when the gateway tries the binary again.",
      resolve: (e) => e.retry?.nextAttemptAt ?? null,
    }),
  }),
});

builder.objectType(DaemonStartFailed, {
  name: "DaemonStartFailedError",
  description:
    "The gateway started the workspace's caliband, but it exited or did not answer before its startup deadline. Its output is in `logPath` on the gateway's machine. Nothing was changed.",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof DaemonStartFailed,
  fields: (t) => ({
    endpoint: t.exposeString("endpoint", { description: "The control socket the daemon was to answer on." }),
    reason: t.exposeString("reason", {
      description: "What happened, e.g. `caliband (pid 123) exited with code 2 before answering status`.",
    }),
    logPath: t.exposeString("logPath", {
      description: "The file the daemon's stdout and stderr were appended to (on the gateway's machine).",
    }),
    exitCode: t.exposeInt("exitCode", { nullable: true, description: "Its exit code, when it exited." }),
    signal: t.exposeString("signal", {
      nullable: true,
      description: "The signal that ended it, when one did (e.g. `SIGKILL`).",
    }),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description:
        "Set when this call came during the autostart backoff (it started nothing): when the gateway tries again.",
      resolve: (e) => e.retry?.nextAttemptAt ?? null,
    }),
  }),
});

const FieldErrorRef = builder.objectRef<FieldIssue>("FieldError").implement({
  description: "One invalid input field.",
  fields: (t) => ({
    path: t.exposeStringList("path", {
      description:
        'Path of argument and field names from the mutation\'s arguments, e.g. ["input", "config", "baseUrl"].',
    }),
    message: t.exposeString("message", { description: "What is wrong with it." }),
  }),
});

builder.objectType(ValidationFailed, {
  name: "ValidationError",
  description: "Input that failed validation; nothing was changed.",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof ValidationFailed,
  fields: (t) => ({
    fieldErrors: t.field({
      type: [FieldErrorRef],
      description: "Each invalid field with its path.",
      resolve: (e) => e.issues,
    }),
  }),
});

builder.objectType(DaemonRefused, {
  name: "DaemonRefusedError",
  description:
    "caliband refused the request (e.g. unknown source, not a git checkout for worktree isolation).",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof DaemonRefused,
  fields: () => ({}),
});

builder.objectType(Unauthenticated, {
  name: "UnauthenticatedError",
  description:
    "The request's credentials are no longer valid (the token was revoked or expired while a connection stayed open). Requests with no or bad credentials are refused before GraphQL with HTTP 401 (graphql-ws: close 4401).",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof Unauthenticated,
  fields: () => ({}),
});

builder.objectType(Forbidden, {
  name: "ForbiddenError",
  description:
    "The token is valid but may not do this: it lacks the role (`requiredRole`) or is limited to other workspaces (`workspaceName`). Nothing was changed.",
  interfaces: [ErrorInterface],
  isTypeOf: (e) => e instanceof Forbidden,
  fields: (t) => ({
    requiredRole: t.field({
      type: RoleEnum,
      nullable: true,
      description: "The role the operation needs, when the role is what is missing.",
      resolve: (e) => e.requiredRole,
    }),
    workspaceName: t.exposeString("workspace", {
      nullable: true,
      description: "The workspace the token may not use, when the scope is what is missing.",
    }),
  }),
});
