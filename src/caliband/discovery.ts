/**
 * Find — and if allowed, start — the caliband daemon of a workspace (caliband-protocol.md §1.1,
 * §5.1, §5.2). The root is canonicalised ONCE and that exact string is hashed for the socket name
 * and passed as `--workspace-root` (§9 #45); `--socket-path` is passed too, so env overlays cannot
 * move the daemon's socket away from where we look. Liveness is probed with a real `status`
 * request (a bare connect can hit a stale socket file), and a second daemon is never started
 * while anything accepts on the socket: starting one would steal the socket from a live daemon
 * (§1.1, §9).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import * as path from "node:path";

import { silentLogger, type Logger } from "../log.js";
import { CalibandClient, type CalibandClientOptions } from "./client.js";
import { CalibandNotInstalled, DaemonStartFailed, Unreachable, errnoOf } from "./errors.js";
import { canonicalizeRoot, controlSocketPath, workspaceHash } from "./paths.js";

/** Options of {@link ensureDaemon}. */
export interface EnsureDaemonOptions {
  /** Workspace root as configured (may be a symlink or relative); canonicalised here. */
  root: string;
  /** Environment used to derive the runtime dir (§1.1) and as the daemon's base env; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** caliband executable (name on PATH or a path); default `"caliband"`. */
  calibandBin?: string;
  /** Start caliband when nothing answers; default true. */
  autostart?: boolean;
  /** Directory for the daemon's log file `caliband-<hash16>.log` (created if missing). */
  dataDir: string;
  /** How long to wait for an autostarted daemon to answer `status`, in ms; default 10000. */
  startupTimeoutMs?: number;
  /** Interval between readiness probes while starting, in ms; default 50. */
  pollIntervalMs?: number;
  /** Deadline of the initial liveness probe, in ms; default 5000 (the `status` deadline). */
  probeDeadlineMs?: number;
  /** Variables added to (and overriding) `env` for the daemon process (§5.3). */
  envOverlay?: Readonly<Record<string, string>>;
  /** Options for the returned client (deadlines, line bound). */
  clientOptions?: Omit<CalibandClientOptions, "logger">;
  logger?: Logger;
}

/** A reachable daemon for one workspace. */
export interface DaemonHandle {
  /** realpath of the configured root; the string hashed and passed as `--workspace-root`. */
  canonicalRoot: string;
  /** Control socket path, `<runtimeDir>/<hash16>.sock` (§1.1). */
  socketPath: string;
  /** Client bound to `socketPath`. */
  client: CalibandClient;
  /** True when this call started the daemon. */
  started: boolean;
  /** pid of the daemon this call started. */
  pid?: number;
  /** Log file of the daemon this call started (append mode). */
  logPath?: string;
}

/** Default startup wait for an autostarted daemon: 10000 ms (§5.2). */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;

/** In-process de-duplication: concurrent calls for the same socket share one discovery. */
const inflight = new Map<string, Promise<DaemonHandle>>();

/**
 * Make sure caliband answers for `options.root` (§5.2): canonicalise the root, derive the socket
 * path (§1.1), probe with `status`; if it answers, return it (`started: false`). If nothing
 * listens (`ENOENT`/`ECONNREFUSED`, which includes a stale socket file) and autostart is enabled,
 * spawn `<calibandBin> --workspace-root <canonical> --socket-path <computed>` detached, stdout and
 * stderr appended to `<dataDir>/caliband-<hash16>.log`, env = `env` + `envOverlay`, and poll
 * `status` every `pollIntervalMs` until `startupTimeoutMs`.
 * @throws WorkspaceRootNotFound (bad root); Unreachable when nothing answers and autostart is
 *   disabled, or when something accepts but does not answer properly (never replaced);
 *   CalibandNotInstalled when the binary cannot be executed; DaemonStartFailed (an Unreachable,
 *   with `logPath` and `exitCode`) when the started daemon exits or stays silent.
 */
export async function ensureDaemon(options: EnsureDaemonOptions): Promise<DaemonHandle> {
  const canonicalRoot = await canonicalizeRoot(options.root);
  const socketPath = controlSocketPath(canonicalRoot, options.env ?? process.env);
  const running = inflight.get(socketPath);
  if (running) return running;
  const attempt = discover(options, canonicalRoot, socketPath).finally(() => inflight.delete(socketPath));
  inflight.set(socketPath, attempt);
  return attempt;
}

async function discover(
  options: EnsureDaemonOptions,
  canonicalRoot: string,
  socketPath: string,
): Promise<DaemonHandle> {
  const logger = (options.logger ?? silentLogger).child({ module: "caliband-discovery", socketPath });
  const client = new CalibandClient(
    { scheme: "unix", path: socketPath },
    { ...options.clientOptions, logger },
  );
  const probeDeadlineMs = options.probeDeadlineMs ?? client.deadlines.status;

  try {
    await client.status({ deadlineMs: probeDeadlineMs });
    logger.debug("caliband answered status");
    return { canonicalRoot, socketPath, client, started: false };
  } catch (err) {
    if (!isNothingListening(err)) throw err; // something accepted: never start a second daemon
    if (options.autostart === false) {
      throw new Unreachable(socketPath, `${err.reason}; autostart is disabled`, {
        errno: err.errno,
        cause: err,
      });
    }
    logger.info({ reason: err.reason }, "caliband not running; starting it");
  }

  const bin = options.calibandBin ?? "caliband";
  const logPath = path.join(options.dataDir, `caliband-${workspaceHash(canonicalRoot)}.log`);
  const child = await startDetached(bin, ["--workspace-root", canonicalRoot, "--socket-path", socketPath], {
    env: { ...(options.env ?? process.env), ...options.envOverlay },
    logPath,
  });
  let exited: { code: number | null; signal: string | null } | undefined;
  child.once("exit", (code, signal) => {
    exited = { code, signal };
  });
  logger.info({ pid: child.pid, logPath }, "caliband started");

  const timeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const pollMs = options.pollIntervalMs ?? 50;
  const deadlineAt = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadlineAt - Date.now();
    try {
      await client.status({ deadlineMs: Math.max(1, Math.min(remaining, 1_000)) });
      return { canonicalRoot, socketPath, client, started: true, pid: child.pid, logPath };
    } catch (err) {
      if (exited) {
        const how = exited.signal ? `signal ${exited.signal}` : `code ${exited.code}`;
        throw new DaemonStartFailed(
          socketPath,
          `caliband (pid ${child.pid}) exited with ${how} before answering status`,
          logPath,
          exited.code,
          exited.signal,
        );
      }
      if (Date.now() + pollMs >= deadlineAt) {
        const last = err instanceof Error ? err.message : String(err);
        throw new DaemonStartFailed(
          socketPath,
          `caliband (pid ${child.pid}) did not answer status within ${timeoutMs} ms (last: ${last})`,
          logPath,
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** True for "no daemon here": missing socket or nothing accepting (incl. a stale/regular file). */
function isNothingListening(err: unknown): err is Unreachable {
  return err instanceof Unreachable && (err.errno === "ENOENT" || err.errno === "ECONNREFUSED");
}

/**
 * Spawn `bin args` in its own process group (`detached`), stdio → append log file, then `unref()`
 * so the daemon outlives us. Resolves once the process exists.
 * @throws CalibandNotInstalled for ENOENT/EACCES on the binary.
 */
async function startDetached(
  bin: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; logPath: string },
): Promise<ChildProcess> {
  mkdirSync(path.dirname(options.logPath), { recursive: true });
  const fd = openSync(options.logPath, "a");
  try {
    const child = spawn(bin, args, { detached: true, stdio: ["ignore", fd, fd], env: options.env });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.unref();
    return child;
  } catch (err) {
    const errno = errnoOf(err);
    if (errno === "ENOENT" || errno === "EACCES") throw new CalibandNotInstalled(bin, errno);
    throw err;
  } finally {
    closeSync(fd);
  }
}
