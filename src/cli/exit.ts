/**
 * Exit codes of the `prospero` client commands and the mapping from every failure to one of them:
 * commander usage errors, SDK errors (GraphQL errors by `extensions.code`, unreachable gateway) and
 * typed mutation results (`__typename` of the schema's Error types).
 */
import { GraphQLRequestError, NetworkError, isMutationError } from "../sdk/index.js";

/** Exit codes (also in `prospero --help` and docs/cli.md). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** Unexpected failure (a bug, a masked server error, a startup failure of `serve`). */
  failure: 1,
  /** Bad command line (unknown command or option, missing or malformed argument). */
  usage: 2,
  /** The agent, workspace, launch or schedule does not exist. */
  notFound: 3,
  /** The gateway refused: invalid state, conflict, provider misconfigured, validation, daemon refused. */
  refused: 4,
  /**
   * The gateway (or the workspace's caliband) could not be reached, or the caliband it needed
   * could not be started (binary not installed, daemon exited at start).
   */
  unreachable: 5,
  /** Not allowed: no valid token, or the token's role or workspaces do not allow this. */
  denied: 6,
  /** Interrupted (Ctrl-C) while waiting. */
  interrupted: 130,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit-code table printed after `prospero --help`. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    ok
  1    unexpected error
  2    usage error (bad command, option or argument)
  3    not found (agent, workspace, launch or schedule)
  4    refused (invalid state, conflict, provider misconfigured, validation, daemon refused)
  5    unreachable (the gateway, or the workspace's caliband; caliband not installed or failed to start)
  6    not allowed (no valid token, or its role or workspaces do not allow it)
  130  interrupted (Ctrl-C while waiting)

Environment:
  PROSPERO_URL    gateway URL for client commands (default http://127.0.0.1:7878)
  PROSPERO_TOKEN  API token (default: the admin token of a gateway on this machine)
  NO_COLOR        disable colors (colors are only used on a terminal anyway)
`;

/** Appended to authentication failures: where the CLI looks for a token. */
const TOKEN_HINT =
  " (give a token with --token or PROSPERO_TOKEN; on the gateway's machine the CLI reads its admin-token file by itself)";

/** A failure with a chosen exit code and a one-line message for stderr. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

/** Exit code of a typed mutation error by `__typename`. */
export function exitCodeForTypename(typename: string): ExitCode {
  switch (typename) {
    case "NotFoundError":
      return EXIT.notFound;
    case "UnreachableError":
    case "CalibandNotInstalledError":
    case "DaemonStartFailedError":
      return EXIT.unreachable;
    case "InvalidStateError":
    case "ConflictError":
    case "ProviderMisconfiguredError":
    case "ValidationError":
    case "DaemonRefusedError":
      return EXIT.refused;
    case "ForbiddenError":
    case "UnauthenticatedError":
      return EXIT.denied;
    default:
      return EXIT.failure;
  }
}

/** Fields of a typed mutation error the CLI reports (a subset of the ErrorFields fragment). */
interface ReportedError {
  __typename: string;
  code: string;
  message: string;
  fieldErrors?: readonly { path: readonly string[]; message: string }[];
  reason?: string;
  /** DaemonStartFailedError: where the daemon's output went. */
  logPath?: string;
}

/** The message line of a typed mutation error: `what: message [CODE]` plus field errors. */
export function describeMutationError(what: string, e: ReportedError): string {
  const unmentioned = (e.fieldErrors ?? []).filter((f) => !e.message.includes(f.message));
  const fields = unmentioned.length
    ? ` (${unmentioned.map((f) => `${f.path.join(".") || "input"}: ${f.message}`).join("; ")})`
    : "";
  const reason = e.reason && !e.message.includes(e.reason) ? ` (${e.reason})` : "";
  const log = e.logPath && !e.message.includes(e.logPath) ? ` (see ${e.logPath})` : "";
  return `${what}: ${e.message}${fields}${reason}${log} [${e.code}]`;
}

/**
 * Return a mutation result's payload, or throw a {@link CliError} with the exit code of its typed
 * error (see {@link exitCodeForTypename}) and a message naming `what` was attempted.
 */
export function unwrapResult<T extends { __typename: string }>(
  what: string,
  result: T,
): Exclude<T, { __typename: ReportedErrorTypename }> {
  if (isMutationError(result)) {
    throw new CliError(exitCodeForTypename(result.__typename), describeMutationError(what, result));
  }
  return result as Exclude<T, { __typename: ReportedErrorTypename }>;
}

type ReportedErrorTypename =
  | "NotFoundError"
  | "InvalidStateError"
  | "ConflictError"
  | "ProviderMisconfiguredError"
  | "UnreachableError"
  | "CalibandNotInstalledError"
  | "DaemonStartFailedError"
  | "ValidationError"
  | "DaemonRefusedError"
  | "UnauthenticatedError"
  | "ForbiddenError";

/**
 * Exit code and one-line message for any failure of a client command: CliError as given,
 * NetworkError → 5 (a WebSocket closed 4401/4403 → 6), GraphQL errors by `extensions.code`
 * (UNAUTHENTICATED/FORBIDDEN → 6, NOT_FOUND → 3, BAD_USER_INPUT → 2, CALIBAND_NOT_INSTALLED /
 * DAEMON_START_FAILED / UNREACHABLE → 5, as the typed results of those are: a gateway older than
 * issue 12 answered them as top-level errors), the rest → 1.
 */
export function describeFailure(err: unknown): { exitCode: ExitCode; message: string } {
  if (err instanceof CliError) return { exitCode: err.exitCode, message: err.message };
  if (err instanceof NetworkError) {
    if (err.closeCode === 4401 || err.closeCode === 4403) {
      return { exitCode: EXIT.denied, message: `${err.message}${TOKEN_HINT}` };
    }
    return { exitCode: EXIT.unreachable, message: err.message };
  }
  if (err instanceof GraphQLRequestError) {
    if (err.hasCode("UNAUTHENTICATED"))
      return { exitCode: EXIT.denied, message: `${err.message}${TOKEN_HINT}` };
    if (err.hasCode("FORBIDDEN")) return { exitCode: EXIT.denied, message: err.message };
    if (err.hasCode("NOT_FOUND")) return { exitCode: EXIT.notFound, message: err.message };
    if (err.hasCode("BAD_USER_INPUT")) return { exitCode: EXIT.usage, message: err.message };
    if (
      err.hasCode("CALIBAND_NOT_INSTALLED") ||
      err.hasCode("DAEMON_START_FAILED") ||
      err.hasCode("UNREACHABLE")
    )
      return { exitCode: EXIT.unreachable, message: err.message };
    return { exitCode: EXIT.failure, message: `the gateway answered with an error: ${err.message}` };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT.failure, message: `unexpected error: ${message}` };
}

/**
 * A nullable root field's value. The SDK throws on any GraphQL error, so null here means the
 * gateway answered without an error and without the field (a gateway bug): a failure naming it.
 * @throws CliError (failure) when `value` is null or undefined.
 */
export function present<T>(value: T | null | undefined, field: string): T {
  if (value === null || value === undefined) {
    throw new CliError(EXIT.failure, `the gateway returned no ${field} (and no error)`);
  }
  return value;
}
