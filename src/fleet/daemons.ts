/**
 * One reachable caliband per workspace: discovery and autostart through `ensureDaemon`
 * (protocol §5.2) with the workspace's provider environment (§5.3), cached per workspace; a failed
 * call drops the cache so the next poll rediscovers. A failed AUTOSTART (the daemon exited, stayed
 * silent — `ensureDaemon` then killed its process group — or could not be executed) is retried
 * with exponential backoff, not on every poll (issue 11 item 9): meanwhile calls fail at once with
 * `AutostartBackoff`. Restart-for-config = `shutdown`, wait until the control socket stops
 * answering, rediscover with the new env.
 */
import fs from "node:fs";
import { ensureDaemon, type DaemonHandle } from "../caliband/discovery.js";
import { CalibandClient } from "../caliband/client.js";
import { AutostartBackoff, CalibandNotInstalled, DaemonStartFailed } from "../caliband/errors.js";
import type { Transport } from "../caliband/transport.js";
import { InvalidState } from "../errors.js";
import { controlSocketPath } from "../caliband/paths.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { daemonEnvOverlay, type EnvPolicy } from "./provider.js";
import type { Workspace } from "./registry.js";
import {
  describeRemote,
  loadRemoteTransport,
  remoteControlEndpoint,
  type RemoteCaliband,
  type RemotePolicy,
} from "./remote.js";

/** Settings of the pool (from the gateway config). */
export interface DaemonPoolOptions {
  /** Directory for autostarted daemons' log files. */
  dataDir: string;
  /** caliband executable for autostart. */
  calibandBin: string;
  /** Whether a silent daemon may be started. */
  autostart: boolean;
  /** Base environment (runtime-dir derivation and the daemon's env); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Env policy the overlay is checked against (the Fleet passes its own); default built-in only. */
  envPolicy?: EnvPolicy;
  /** Autostart readiness deadline, ms (default 10000). */
  startupTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace for a failed autostart's process group, ms (default 1000). */
  startupKillGraceMs?: number;
  /**
   * Backoff between autostart attempts for one workspace after failures, ms: `initialMs` after
   * the first failure, doubled per further failure up to `maxMs`; reset by a success (or an
   * explicit {@link DaemonPool.restart}). Defaults {@link DEFAULT_AUTOSTART_BACKOFF}.
   */
  autostartBackoff?: { initialMs?: number; maxMs?: number };
  /** Per-request deadlines override for the clients, ms. */
  deadlines?: { list?: number; status?: number; spawn?: number };
  /** Where remote workspaces' credential files may be (the registry's policy); default none. */
  remotePolicy?: RemotePolicy;
  logger?: Logger;
}

/** Default autostart backoff: 1 s after the first failure, doubling up to 60 s. */
export const DEFAULT_AUTOSTART_BACKOFF = { initialMs: 1_000, maxMs: 60_000 } as const;

/** Consecutive autostart failures of one workspace (keyed by name; `root` guards a re-registration). */
interface Backoff {
  root: string;
  failures: number;
  delayMs: number;
  nextAttemptAt: number;
  /** Where the daemon was expected: its control socket path. */
  endpoint: string;
  lastError: Error;
}

/** Cached daemon handles, one per workspace name. */
export class DaemonPool {
  private readonly handles = new Map<string, Promise<DaemonHandle>>();
  private readonly backoffs = new Map<string, Backoff>();
  private readonly log: Logger;

  constructor(private readonly opts: DaemonPoolOptions) {
    this.log = (opts.logger ?? silentLogger).child({ module: "daemons" });
  }

  /**
   * A client for the workspace's caliband, discovering or autostarting it when needed.
   * @throws AutostartBackoff (an Unreachable, at once, no probe) while a failed autostart waits
   *   for its next attempt; UntrustedSocket / Unreachable / CalibandNotInstalled /
   *   DaemonStartFailed / ProviderMisconfigured (the key variable named by apiKeyFromEnv is unset,
   *   so the daemon cannot be given its env).
   */
  async client(ws: Workspace): Promise<CalibandClient> {
    return (await this.handle(ws)).client;
  }

  /**
   * Like {@link client} but returns the whole handle (socket path, whether we started it).
   * @throws as {@link client} (a backoff as a rejected promise).
   */
  handle(ws: Workspace): Promise<DaemonHandle> {
    let p = this.handles.get(ws.name);
    if (!p && ws.remote) {
      p = this.remoteHandle(ws.name, ws.root, ws.remote);
      const attempt = p;
      p.catch(() => {
        if (this.handles.get(ws.name) === attempt) this.handles.delete(ws.name);
      });
      this.handles.set(ws.name, p);
    }
    if (!p) {
      const backoff = this.backoffs.get(ws.name);
      if (backoff && backoff.root !== ws.root) this.backoffs.delete(ws.name);
      else if (backoff && Date.now() < backoff.nextAttemptAt) {
        return Promise.reject(
          new AutostartBackoff(
            backoff.endpoint,
            backoff.failures,
            new Date(backoff.nextAttemptAt),
            backoff.delayMs,
            backoff.lastError,
          ),
        );
      }
      p = ensureDaemon({
        root: ws.root,
        env: this.opts.env ?? process.env,
        calibandBin: this.opts.calibandBin,
        autostart: this.opts.autostart,
        dataDir: this.opts.dataDir,
        startupTimeoutMs: this.opts.startupTimeoutMs,
        killGraceMs: this.opts.startupKillGraceMs,
        envOverlay: daemonEnvOverlay(ws.config, this.opts.env ?? process.env, this.opts.envPolicy),
        clientOptions: { deadlines: this.opts.deadlines },
        logger: this.opts.logger ?? silentLogger,
      });
      const attempt = p;
      p.then(
        (h) => {
          this.backoffs.delete(ws.name);
          if (h.started)
            this.log.info({ workspace: ws.name, pid: h.pid, log: h.logPath }, "autostarted caliband");
        },
        (err: unknown) => {
          if (this.handles.get(ws.name) === attempt) this.handles.delete(ws.name);
          if (err instanceof DaemonStartFailed || err instanceof CalibandNotInstalled) {
            this.recordAutostartFailure(ws, err);
          }
        },
      );
      this.handles.set(ws.name, p);
    }
    return p;
  }

  /**
   * A remote workspace's daemon (issue 18 item 5): a client over TCP + TLS + bearer token built
   * from its credentials as they are now; never started, never probed here (the poll's `list`
   * finds out whether it answers, and its failure drops this handle).
   * @throws RemoteCredentialsUnavailable when the CA or token cannot be read.
   */
  private async remoteHandle(name: string, root: string, remote: RemoteCaliband): Promise<DaemonHandle> {
    const transport = await loadRemoteTransport(
      remote,
      this.opts.remotePolicy ?? { credentialsDirs: [] },
      this.opts.env ?? process.env,
    );
    const client = new CalibandClient(remoteControlEndpoint(remote, transport), {
      deadlines: this.opts.deadlines,
      logger: (this.opts.logger ?? silentLogger).child({ module: "caliband-remote", workspace: name }),
    });
    return { canonicalRoot: root, socketPath: describeRemote(remote), client, started: false };
  }

  /**
   * The transport per-agent streams of `ws` use: none for a local workspace (Unix sockets), the
   * TLS settings and token of its daemon's client for a remote one.
   * @throws as {@link client}.
   */
  async transportOf(ws: Workspace): Promise<Transport> {
    if (!ws.remote) return {};
    return (await this.handle(ws)).client.transport;
  }

  /** Count a failed autostart and schedule the next attempt (doubling delay, capped). */
  private recordAutostartFailure(ws: Workspace, err: DaemonStartFailed | CalibandNotInstalled): void {
    const initial = this.opts.autostartBackoff?.initialMs ?? DEFAULT_AUTOSTART_BACKOFF.initialMs;
    const max = this.opts.autostartBackoff?.maxMs ?? DEFAULT_AUTOSTART_BACKOFF.maxMs;
    const prev = this.backoffs.get(ws.name);
    const failures = (prev?.root === ws.root ? prev.failures : 0) + 1;
    const delayMs = Math.min(max, initial * 2 ** Math.min(failures - 1, 30));
    const next: Backoff = {
      root: ws.root,
      failures,
      delayMs,
      nextAttemptAt: Date.now() + delayMs,
      endpoint:
        err instanceof DaemonStartFailed
          ? err.endpoint
          : controlSocketPath(ws.root, this.opts.env ?? process.env),
      lastError: err,
    };
    this.backoffs.set(ws.name, next);
    this.log.warn(
      { workspace: ws.name, failures, retryInMs: delayMs, err },
      "autostarting caliband failed; backing off",
    );
  }

  /**
   * Shut down every daemon this process autostarted (demo mode owns them) and wait up to
   * `timeoutMs` for their processes to exit. Never throws.
   */
  async shutdownStarted(timeoutMs = 5_000): Promise<void> {
    const handles = await Promise.all([...this.handles.values()].map((p) => p.catch(() => null)));
    await Promise.all(
      handles.map(async (h) => {
        if (!h?.started) return;
        await h.client.shutdown().catch(() => undefined);
        const deadline = Date.now() + timeoutMs;
        while (h.pid !== undefined && Date.now() < deadline) {
          try {
            process.kill(h.pid, 0);
          } catch {
            return; // exited
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }),
    );
  }

  /**
   * Forget the cached daemon of a workspace (after a failed call). An autostart backoff stays:
   * the poller invalidates after every failure, and that must not restart the daemon at once.
   */
  invalidate(name: string): void {
    this.handles.delete(name);
  }

  /**
   * Stop the workspace's daemon and start it again with the workspace's current env. Workers
   * survive a daemon shutdown; after the restart caliband lists running agents as `crashed`
   * (§5.7). An explicit restart clears an autostart backoff (it is one attempt, not a poll loop).
   * @throws InvalidState for a remote workspace (its daemon is another host's to start); Unreachable
   *   when the old daemon does not go away within the startup timeout, or the errors of
   *   {@link client} for the new one.
   */
  async restart(ws: Workspace): Promise<DaemonHandle> {
    if (ws.remote) {
      throw new InvalidState(
        `workspace ${ws.name}'s caliband runs on another host (${describeRemote(ws.remote)}): restart it there`,
      );
    }
    const timeout = this.opts.startupTimeoutMs ?? 10_000;
    this.backoffs.delete(ws.name);
    try {
      const old = await this.handle(ws);
      await old.client.shutdown();
      const deadline = Date.now() + timeout;
      while (Date.now() < deadline) {
        if (!fs.existsSync(old.socketPath)) break;
        try {
          await old.client.status({ deadlineMs: 500 });
        } catch {
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    } catch (err) {
      this.log.warn({ err, workspace: ws.name }, "old daemon did not shut down cleanly; starting a new one");
    }
    this.invalidate(ws.name);
    return this.handle(ws);
  }
}
