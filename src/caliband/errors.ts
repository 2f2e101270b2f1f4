/**
 * Typed failures of the caliband client (caliband-protocol.md §1.5–1.6, §5.2, §6). Each extends
 * {@link ProsperoError} with a stable `code`; supervisor error replies map to `AgentNotFound`,
 * `InvalidState` and `Protocol` exactly like the reference client does (§1.6).
 */
import { ProsperoError } from "../errors.js";

/** The daemon answered `not_found` for `id` (§1.6): unknown, removed, or respawned-away agent. */
export class AgentNotFound extends ProsperoError {
  readonly code = "NOT_FOUND";
  constructor(readonly id: string) {
    super(`agent not found: ${id}`);
  }
}

/** The daemon refused `op` on agent `id` because it is `status` (§1.6; today only `rm` without force). */
export class InvalidState extends ProsperoError {
  readonly code = "INVALID_STATE";
  constructor(
    readonly op: string,
    readonly id: string,
    readonly status: string,
  ) {
    super(`invalid state for ${op}: agent ${id} is ${status}`);
  }
}

/**
 * The daemon's reply was unusable (not JSON, unknown or unexpected `kind`, wrong shape, connection
 * closed before a reply line, over-long line) or it answered with a supervisor `internal` error,
 * whose text is kept verbatim in `daemonMessage` (§1.6). `endpoint` describes the peer.
 */
export class Protocol extends ProsperoError {
  readonly code = "PROTOCOL";
  readonly endpoint: string | undefined;
  readonly daemonMessage: string | undefined;
  constructor(message: string, options: { endpoint?: string; daemonMessage?: string; cause?: unknown } = {}) {
    super(options.endpoint ? `caliband protocol error at ${options.endpoint}: ${message}` : message, {
      cause: options.cause,
    });
    this.endpoint = options.endpoint;
    this.daemonMessage = options.daemonMessage;
  }
}

/**
 * caliband (control or per-agent endpoint) could not be reached or did not answer in time:
 * missing socket (`ENOENT`), nothing listening (`ECONNREFUSED`), TLS verification failure,
 * connection reset, or a deadline (`reason` = `"timeout after N ms"`). `errno` holds the Node
 * error code when there was one, so callers can decide whether retrying makes sense.
 */
export class Unreachable extends ProsperoError {
  /** `UNREACHABLE`; a subclass with a schema type of its own has its own code. */
  readonly code: string = "UNREACHABLE";
  readonly errno: string | undefined;
  /**
   * True when the connection failed while it was being set up (TCP connect, TLS handshake,
   * before the bearer preamble was written): nothing of the request was sent.
   */
  readonly duringSetup: boolean;
  constructor(
    readonly endpoint: string,
    readonly reason: string,
    options: { errno?: string; cause?: unknown; duringSetup?: boolean } = {},
  ) {
    super(`caliband unreachable at ${endpoint}: ${reason}`, { cause: options.cause });
    this.errno = options.errno;
    this.duringSetup = options.duringSetup ?? false;
  }
}

/**
 * Where an autostart failure stands in its backoff (issue 11 item 9): `failures` in a row so far,
 * and when the next attempt may start. Set on a {@link DaemonStartFailed} or
 * {@link CalibandNotInstalled} that answers a call made while the backoff waits (the call started
 * no daemon), absent on the failure of an attempt itself.
 */
export interface AutostartRetry {
  failures: number;
  nextAttemptAt: Date;
}

/** `; autostart failed N times in a row, next attempt at <ISO>` for a message, or "" without `retry`. */
function retryText(retry: AutostartRetry | null): string {
  if (retry === null) return "";
  const n = retry.failures;
  return `; autostart failed ${n} time${n === 1 ? "" : "s"} in a row, next attempt at ${retry.nextAttemptAt.toISOString()}`;
}

/**
 * Autostarted caliband never answered `status` (§5.2): it exited first (`exitCode`/`signal` set) or
 * the startup deadline passed. `logPath` is the file its stdout/stderr were appended to. Code
 * `DAEMON_START_FAILED` (an {@link Unreachable} all the same: nothing answers at `endpoint`).
 * `retry` is set when this answers a call made during the backoff that followed (see
 * {@link AutostartRetry}).
 */
export class DaemonStartFailed extends Unreachable {
  override readonly code: string = "DAEMON_START_FAILED";
  constructor(
    endpoint: string,
    reason: string,
    readonly logPath: string,
    readonly exitCode: number | null = null,
    readonly signal: string | null = null,
    readonly retry: AutostartRetry | null = null,
  ) {
    super(endpoint, `${reason}; see ${logPath}`);
  }

  /** The start failure `last` as the answer to a call made while its backoff waits (`retry` set). */
  static during(last: DaemonStartFailed, retry: AutostartRetry): DaemonStartFailed {
    const reason = last.reason.endsWith(`; see ${last.logPath}`)
      ? last.reason.slice(0, -`; see ${last.logPath}`.length)
      : last.reason;
    return new DaemonStartFailed(
      last.endpoint,
      `${reason}${retryText(retry)}`,
      last.logPath,
      last.exitCode,
      last.signal,
      retry,
    );
  }
}

/**
 * A caliband Unix socket failed the local-trust check (issue 11 item 8, caliband-protocol.md §1.1
 * "Permissions"; see `trust.ts`): its runtime dir is not a directory owned by this user that group
 * and others cannot write, or the file at the socket path is not ours (or is a symbolic link or
 * other non-socket). Nothing was sent on it and no daemon was started there. An
 * {@link Unreachable} without `errno`, so discovery never autostarts over it and the poller marks
 * the workspace unreachable with this message. `path` is the offending path, `found` what was
 * there, `expected` what would be trusted.
 */
export class UntrustedSocket extends Unreachable {
  constructor(
    endpoint: string,
    readonly path: string,
    readonly found: string,
    readonly expected: string,
  ) {
    super(endpoint, `untrusted: ${found}; expected ${expected}; nothing was sent`);
  }
}

/**
 * Autostarting the workspace's caliband failed `failures` times in a row (the last failure is
 * `lastError`: a {@link DaemonStartFailed} or {@link CalibandNotInstalled}), so the next attempt
 * waits until `nextAttemptAt` (exponential backoff, issue 11 item 9); until then every call fails
 * at once with this error instead of starting another daemon. `delayMs` is the current backoff.
 */
export class AutostartBackoff extends Unreachable {
  constructor(
    endpoint: string,
    readonly failures: number,
    readonly nextAttemptAt: Date,
    readonly delayMs: number,
    readonly lastError: Error,
  ) {
    super(
      endpoint,
      `autostart failed ${failures} time${failures === 1 ? "" : "s"} in a row; next attempt at ` +
        `${nextAttemptAt.toISOString()} (backoff ${delayMs} ms); last failure: ${lastError.message}`,
    );
  }
}

/** How to fix {@link CalibandNotInstalled}: the text its message ends with (and its `hint`). */
export const CALIBAND_INSTALL_HINT =
  "install caliban (it ships the `caliband` daemon) and put `caliband` on PATH, or set " +
  "--caliband-bin / PROSPERO_CALIBAND_BIN to the caliband executable";

/**
 * The caliband binary could not be executed (`ENOENT`/`EACCES` when autostarting, §5.2). The
 * message says how to fix it ({@link CALIBAND_INSTALL_HINT}, also in `hint`): install caliban
 * (which ships `caliband`) and put `caliband` on `PATH`, or point `--caliband-bin` /
 * `PROSPERO_CALIBAND_BIN` at the binary. `retry` is set when this answers a call made during the
 * autostart backoff that followed (see {@link AutostartRetry}).
 */
export class CalibandNotInstalled extends ProsperoError {
  readonly code = "CALIBAND_NOT_INSTALLED";
  readonly hint = CALIBAND_INSTALL_HINT;
  constructor(
    readonly bin: string,
    readonly errno?: string,
    readonly retry: AutostartRetry | null = null,
  ) {
    super(
      `cannot run caliband binary "${bin}"${errno ? ` (${errno})` : ""}: ${CALIBAND_INSTALL_HINT}${retryText(retry)}`,
    );
  }

  /** The failure `last` as the answer to a call made while its backoff waits (`retry` set). */
  static during(last: CalibandNotInstalled, retry: AutostartRetry): CalibandNotInstalled {
    return new CalibandNotInstalled(last.bin, last.errno, retry);
  }
}

/**
 * Thrown by the NDJSON reader when a line exceeds its byte bound (§1.2: 1 MiB by default) before
 * a newline arrives; the connection is unusable afterwards.
 */
export class LineTooLong extends Protocol {
  constructor(readonly maxLineBytes: number) {
    super(`line exceeds ${maxLineBytes} bytes without a newline`);
  }
}

/** Node's error code (`ENOENT`, `ECONNREFUSED`, `ERR_TLS_CERT_ALTNAME_INVALID`, …) of `err`, if any. */
export function errnoOf(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err && typeof err.code === "string"
    ? err.code
    : undefined;
}

/** The workspace root given for discovery does not exist or is not a directory (§1.1). */
export class WorkspaceRootNotFound extends ProsperoError {
  readonly code = "WORKSPACE_ROOT_NOT_FOUND";
  constructor(
    readonly root: string,
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(`workspace root ${root}: ${reason}`, options);
  }
}
