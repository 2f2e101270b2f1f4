/**
 * One reachable caliband per workspace: discovery and autostart through `ensureDaemon`
 * (protocol §5.2) with the workspace's provider environment (§5.3), cached per workspace; a failed
 * call drops the cache so the next poll rediscovers (and may autostart again). Restart-for-config
 * = `shutdown`, wait until the control socket stops answering, rediscover with the new env.
 */
import fs from "node:fs";
import { ensureDaemon, type DaemonHandle } from "../caliband/discovery.js";
import type { CalibandClient } from "../caliband/client.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { daemonEnvOverlay } from "./provider.js";
import type { Workspace } from "./registry.js";

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
  /** Autostart readiness deadline, ms (default 10000). */
  startupTimeoutMs?: number;
  /** Per-request deadlines override for the clients, ms. */
  deadlines?: { list?: number; status?: number; spawn?: number };
  logger?: Logger;
}

/** Cached daemon handles, one per workspace name. */
export class DaemonPool {
  private readonly handles = new Map<string, Promise<DaemonHandle>>();
  private readonly log: Logger;

  constructor(private readonly opts: DaemonPoolOptions) {
    this.log = (opts.logger ?? silentLogger).child({ module: "daemons" });
  }

  /**
   * A client for the workspace's caliband, discovering or autostarting it when needed.
   * @throws Unreachable / CalibandNotInstalled / DaemonStartFailed / ProviderMisconfigured (the
   *   key variable named by apiKeyFromEnv is unset, so the daemon cannot be given its env).
   */
  async client(ws: Workspace): Promise<CalibandClient> {
    return (await this.handle(ws)).client;
  }

  /** Like {@link client} but returns the whole handle (socket path, whether we started it). */
  handle(ws: Workspace): Promise<DaemonHandle> {
    let p = this.handles.get(ws.name);
    if (!p) {
      p = ensureDaemon({
        root: ws.root,
        env: this.opts.env ?? process.env,
        calibandBin: this.opts.calibandBin,
        autostart: this.opts.autostart,
        dataDir: this.opts.dataDir,
        startupTimeoutMs: this.opts.startupTimeoutMs,
        envOverlay: daemonEnvOverlay(ws.config, this.opts.env ?? process.env),
        clientOptions: { deadlines: this.opts.deadlines },
        logger: this.opts.logger ?? silentLogger,
      });
      p.then(
        (h) => {
          if (h.started)
            this.log.info({ workspace: ws.name, pid: h.pid, log: h.logPath }, "autostarted caliband");
        },
        () => this.handles.delete(ws.name),
      );
      this.handles.set(ws.name, p);
    }
    return p;
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

  /** Forget the cached daemon of a workspace (after a failed call). */
  invalidate(name: string): void {
    this.handles.delete(name);
  }

  /**
   * Stop the workspace's daemon and start it again with the workspace's current env. Workers
   * survive a daemon shutdown; after the restart caliband lists running agents as `crashed`
   * (§5.7).
   * @throws Unreachable when the old daemon does not go away within the startup timeout, or the
   *   errors of {@link client} for the new one.
   */
  async restart(ws: Workspace): Promise<DaemonHandle> {
    const timeout = this.opts.startupTimeoutMs ?? 10_000;
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
