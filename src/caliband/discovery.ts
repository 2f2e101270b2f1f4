/**
 * Find — and if allowed, start — the caliband daemon of a workspace (caliband-protocol.md §1.1,
 * §5.1, §5.2). The root is canonicalised ONCE and that exact string is hashed for the socket name
 * and passed as `--workspace-root` (§9 #45); `--socket-path` is passed too, so env overlays cannot
 * move the daemon's socket away from where we look. Liveness is probed with a real `status`
 * request (a bare connect can hit a stale socket file), and a second daemon is never started
 * while anything accepts on the socket: starting one would steal the socket from a live daemon
 * (§1.1, §9).
 *
 * Local trust (issue 11 item 8, §1.1 "Permissions"): the runtime dir must be ours and closed to
 * group and others, and the socket file ours, before anything is sent or a daemon is started
 * (`trust.ts`); we create a missing runtime dir 0700 ourselves. An autostarted daemon that does not
 * answer (or exits) is killed with its whole process group, never left running (item 9).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import * as path from "node:path";

import { silentLogger, type Logger } from "../log.js";
import { withOperatorUmask } from "../process-umask.js";
import { CalibandClient, type CalibandClientOptions } from "./client.js";
import { CalibandNotInstalled, DaemonStartFailed, Unreachable, UntrustedSocket, errnoOf } from "./errors.js";
import { canonicalizeRoot, controlSocketPath, runtimeDir, workspaceHash } from "./paths.js";
import { checkRuntimeDir } from "./trust.js";

/**
 * The gateway's own secrets, never handed to a daemon (and through it to every agent it spawns):
 * the database URL and password (issue 18: it may hold one), the supplied admin token, remote
 * calibands' tokens.
 */
const GATEWAY_SECRET_ENV =
  /^(PROSPERO_DATABASE_URL|PROSPERO_ADMIN_TOKEN|PGPASSWORD|PROSPERO_CALIBAND_TOKEN_.*)$/;

/** `env` without {@link GATEWAY_SECRET_ENV}. */
export function daemonEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !GATEWAY_SECRET_ENV.test(k)));
}

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
  /**
   * After SIGTERM to the process group of an autostarted daemon that failed to start, how long to
   * wait for the group to go before SIGKILL, in ms; default {@link DEFAULT_KILL_GRACE_MS}.
   */
  killGraceMs?: number;
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

/** Default SIGTERM → SIGKILL grace for a failed autostart's process group: 1000 ms. */
export const DEFAULT_KILL_GRACE_MS = 1_000;

/** In-process de-duplication: concurrent calls for the same socket share one discovery. */
const inflight = new Map<string, Promise<DaemonHandle>>();

/**
 * Make sure caliband answers for `options.root` (§5.2): canonicalise the root, derive the socket
 * path (§1.1), check the runtime dir and socket file are ours ({@link checkRuntimeDir}; the socket
 * file is checked on every connect), probe with `status`; if it answers, return it
 * (`started: false`). If nothing listens (`ENOENT`/`ECONNREFUSED`, which includes a stale socket
 * file) and autostart is enabled: create a missing runtime dir with mode 0700, spawn
 * `<calibandBin> --workspace-root <canonical> --socket-path <computed>` detached (its own process
 * group) with the operator's umask (`withOperatorUmask`), stdout and stderr appended to
 * `<dataDir>/caliband-<hash16>.log` (mode 0600), env = `env` + `envOverlay`, and poll `status`
 * every `pollIntervalMs` until `startupTimeoutMs`. A daemon that exits or stays silent is killed
 * with its whole process group (SIGTERM, SIGKILL after `killGraceMs`) before the error is thrown.
 * @throws WorkspaceRootNotFound (bad root); UntrustedSocket (an Unreachable) when the runtime dir
 *   or socket file is not trusted — nothing is sent and nothing started; Unreachable when nothing
 *   answers and autostart is disabled, or when something accepts but does not answer properly
 *   (never replaced); CalibandNotInstalled when the binary cannot be executed; DaemonStartFailed
 *   (an Unreachable, with `logPath` and `exitCode`) when the started daemon exits or stays silent.
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
  const dir = runtimeDir(options.env ?? process.env);
  await checkRuntimeDir(dir, socketPath);

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

  await makePrivateRuntimeDir(dir, socketPath);
  const bin = options.calibandBin ?? "caliband";
  const logPath = path.join(options.dataDir, `caliband-${workspaceHash(canonicalRoot)}.log`);
  const started = await startDetached(bin, ["--workspace-root", canonicalRoot, "--socket-path", socketPath], {
    env: daemonEnv({ ...(options.env ?? process.env), ...options.envOverlay }),
    logPath,
  });
  const { pid } = started;
  logger.info({ pid, logPath }, "caliband started");
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  /** Kill the failed daemon's process group, then throw `err`. */
  const fail = async (err: Error): Promise<never> => {
    logger.warn({ pid, reason: err.message }, "caliband did not start; killing its process group");
    await killProcessGroup(started, killGraceMs);
    throw err;
  };

  const timeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const pollMs = options.pollIntervalMs ?? 50;
  const deadlineAt = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadlineAt - Date.now();
    try {
      await client.status({ deadlineMs: Math.max(1, Math.min(remaining, 1_000)) });
      return { canonicalRoot, socketPath, client, started: true, pid, logPath };
    } catch (err) {
      if (err instanceof UntrustedSocket) return fail(err);
      const exited = started.exited;
      if (exited) {
        const how = exited.signal ? `signal ${exited.signal}` : `code ${exited.code}`;
        return fail(
          new DaemonStartFailed(
            socketPath,
            `caliband (pid ${pid}) exited with ${how} before answering status`,
            logPath,
            exited.code,
            exited.signal,
          ),
        );
      }
      if (Date.now() + pollMs >= deadlineAt) {
        const last = err instanceof Error ? err.message : String(err);
        return fail(
          new DaemonStartFailed(
            socketPath,
            `caliband (pid ${pid}) did not answer status within ${timeoutMs} ms, so its process group ` +
              `was killed (last: ${last})`,
            logPath,
          ),
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * Create caliband's runtime dir `dir` with mode 0700 when it is missing (caliband would create it
 * 0777 & ~umask, §1.1), then require it to be trusted — someone may have created it first.
 * @throws UntrustedSocket (see {@link checkRuntimeDir}); Unreachable when it cannot be created.
 */
async function makePrivateRuntimeDir(dir: string, socketPath: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Unreachable(socketPath, `cannot create runtime dir ${dir}: ${String(err)}`, {
      errno: errnoOf(err),
      cause: err,
    });
  }
  if (!(await checkRuntimeDir(dir, socketPath))) {
    throw new Unreachable(socketPath, `runtime dir ${dir} vanished right after it was created`);
  }
}

/** True for "no daemon here": missing socket or nothing accepting (incl. a stale/regular file). */
function isNothingListening(err: unknown): err is Unreachable {
  return err instanceof Unreachable && (err.errno === "ENOENT" || err.errno === "ECONNREFUSED");
}

/** A daemon process {@link startDetached} started; `exited` is set once it exited. */
interface StartedDaemon {
  child: ChildProcess;
  /** Its pid, which is also its process group id (`detached` → `setsid`). */
  pid: number;
  exited: { code: number | null; signal: string | null } | undefined;
}

/**
 * Signal the whole process group `pgid` (`kill(-pgid, signal)`; 0 probes).
 * @returns false when no process of the group is left (ESRCH), true otherwise (also for EPERM:
 *   a member we may not signal still exists).
 */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    return errnoOf(err) !== "ESRCH";
  }
}

/**
 * Kill a failed daemon with its whole process group (it was spawned `detached`, so pid = pgid):
 * SIGTERM, wait up to `graceMs` for the group to go, then SIGKILL whatever is left, and wait (up
 * to `graceMs` again) until the daemon process itself has exited. Never throws.
 */
async function killProcessGroup(daemon: StartedDaemon, graceMs: number): Promise<void> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  if (!signalGroup(daemon.pid, "SIGTERM")) return;
  const termUntil = Date.now() + graceMs;
  while (Date.now() < termUntil) {
    await sleep(Math.min(25, Math.max(1, termUntil - Date.now())));
    if (!signalGroup(daemon.pid, 0)) return;
  }
  signalGroup(daemon.pid, "SIGKILL");
  const killUntil = Date.now() + graceMs;
  while (daemon.exited === undefined && Date.now() < killUntil) await sleep(10);
}

/**
 * Open (creating with mode 0600) the append-mode log file `logPath`, its directory created 0700
 * when missing; a log file of ours that is looser is tightened to 0600 (issue 11 item 8).
 * @returns the file descriptor; the caller closes it.
 */
function openPrivateLog(logPath: string): number {
  mkdirSync(path.dirname(logPath), { recursive: true, mode: 0o700 });
  const fd = openSync(logPath, "a", 0o600);
  try {
    const st = fstatSync(fd);
    if ((st.mode & 0o077) !== 0 && st.uid === process.geteuid?.()) fchmodSync(fd, 0o600);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/**
 * Spawn `bin args` in its own process group (`detached`), stdio → append log file (0600), then
 * `unref()` so the daemon outlives us. The spawn runs under the operator's original umask, not
 * the gateway's 077 (`withOperatorUmask`): the daemon's agents write files in the user's
 * repositories, which must keep their usual modes. Resolves once the process exists.
 * @throws CalibandNotInstalled for ENOENT/EACCES on the binary.
 */
async function startDetached(
  bin: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; logPath: string },
): Promise<StartedDaemon> {
  const fd = openPrivateLog(options.logPath);
  try {
    const child = withOperatorUmask(() =>
      spawn(bin, args, { detached: true, stdio: ["ignore", fd, fd], env: options.env }),
    );
    const started: { exited: StartedDaemon["exited"] } = { exited: undefined };
    child.once("exit", (code, signal) => {
      started.exited = { code, signal };
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    child.unref();
    const pid = child.pid;
    if (pid === undefined) throw new Error(`spawning ${bin} gave no pid`);
    return Object.assign(started, { child, pid });
  } catch (err) {
    const errno = errnoOf(err);
    if (errno === "ENOENT" || errno === "EACCES") throw new CalibandNotInstalled(bin, errno);
    throw err;
  } finally {
    closeSync(fd);
  }
}
