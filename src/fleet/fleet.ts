/**
 * The fleet service: wires registry, daemons, state, recorder, ingest, poller and lifecycle
 * together and owns their start/stop order. It holds no logic of its own beyond workspace
 * registration and configuration changes, which span several parts.
 */
import { isTerminal } from "../caliband/wire.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/events.js";
import type { StoreWriter } from "../store/writer.js";
import { DaemonPool, type DaemonPoolOptions } from "./daemons.js";
import { InvalidState } from "../errors.js";
import { IngestManager } from "./ingest-manager.js";
import type { IngestTarget } from "./ingest.js";
import { Lifecycle } from "./lifecycle.js";
import { newFleetMetrics, type FleetMetrics } from "./metrics.js";
import { Poller, WorkspaceLocks } from "./poller.js";
import { DEFAULT_PRICES, type PriceTable } from "./pricing.js";
import {
  EnvPolicy,
  daemonEnvOverlay,
  needsDaemonRestart,
  type ProviderConfig,
  type ProviderConfigChange,
} from "./provider.js";
import { Recorder } from "./recorder.js";
import { InFlight } from "./inflight.js";
import { WorkspaceRegistry, type Workspace } from "./registry.js";
import { agentEndpointRefusal, type RemoteCalibandInput, type RemotePolicy } from "./remote.js";
import { parseAllowRoots } from "./roots.js";
import { FleetState } from "./state.js";

/** Settings of the fleet. */
export interface FleetOptions extends DaemonPoolOptions {
  db: PrismaClient;
  store: EventStore;
  writer: StoreWriter;
  logger: Logger;
  /** Poll interval, ms. */
  pollIntervalMs: number;
  /** Deadline of one `list` request, ms (default min(5000, 2 × pollIntervalMs)). */
  listDeadlineMs?: number;
  /** Per-model prices (USD per million tokens). */
  prices?: PriceTable;
  /** Ingest from sockets only (tests; remote daemons). */
  forceSocketIngest?: boolean;
  /** Pause between reads of a quiet stdout.ndjson, ms. */
  tailIntervalMs?: number;
  /**
   * Operator additions to the env allowlist (`--allow-env <pattern>`, repeatable; `*` wildcards):
   * names a workspace's `env` may set and `apiKeyFromEnv` may name beyond the built-in list
   * (provider.ts `DEFAULT_ENV_ALLOW`, `*_API_KEY`). Never allows the socket-moving names or, for
   * `apiKeyFromEnv`, `PROSPERO_*`. A malformed pattern throws ConfigError from the constructor.
   */
  allowEnv?: readonly string[];
  /**
   * Operator root prefixes (`--allow-root <prefix>`, repeatable, absolute): when non-empty, a new
   * workspace's canonical root must equal or lie under one of them (by path segments). A
   * malformed prefix throws ConfigError from the constructor.
   */
  allowRoots?: readonly string[];
  /**
   * Directories holding one credentials directory per remote endpoint, `<host>_<port>/` with
   * `ca.pem`, `token`, `server-name` (`--caliband-credentials-dir`, absolute; issue 18 item 5,
   * src/fleet/remote.ts). Empty or absent: no remote workspace can be added.
   */
  credentialsDirs?: readonly string[];
  /**
   * Called with each completed poll round's wall time, ms (the gateway's `/metrics` histogram
   * `prospero_poll_round_duration_seconds`). Must not throw.
   */
  onPollRound?: (ms: number) => void;
}

/** Outcome of a configuration change. */
export interface ConfigChangeResult {
  workspace: Workspace;
  /** The new config is in effect. */
  applied: boolean;
  /** The change waits for these non-terminal agents to end (daemon restart needed). */
  pendingOn: string[];
  /** Agents a forced restart turned into `crashed` (their workers keep running unobserved). */
  orphaned: string[];
}

/** The fleet: one per gateway process. */
export class Fleet {
  readonly registry: WorkspaceRegistry;
  readonly daemons: DaemonPool;
  readonly state = new FleetState();
  readonly metrics: FleetMetrics = newFleetMetrics();
  readonly recorder: Recorder;
  readonly ingest: IngestManager;
  readonly lifecycle: Lifecycle;
  readonly poller: Poller;
  private readonly locks = new WorkspaceLocks();
  private readonly log: Logger;

  /** @throws ConfigError for a malformed `allowEnv` pattern or `allowRoots` prefix. */
  constructor(private readonly opts: FleetOptions) {
    this.log = opts.logger.child({ module: "fleet" });
    const envPolicy = new EnvPolicy(opts.allowEnv ?? []);
    const remotePolicy: RemotePolicy = { credentialsDirs: opts.credentialsDirs ?? [] };
    this.registry = new WorkspaceRegistry(opts.db, opts.writer, {
      envPolicy,
      allowRoots: parseAllowRoots(opts.allowRoots ?? []),
      // Agents of a workspace rooted at (or above) the data dir would work next to its admin token.
      protectedDirs: [opts.dataDir],
      remotePolicy,
      env: opts.env ?? process.env,
    });
    this.daemons = new DaemonPool({ ...opts, envPolicy, remotePolicy, logger: opts.logger });
    this.recorder = new Recorder(opts.store, this.state, this.log, Date.now, {
      db: opts.db,
      metrics: this.metrics,
      // An unknown workspace's paths are not known to be ours either: read nothing.
      workerLogRefusal: (name) => {
        const ws = this.registry.find(name);
        if (ws === undefined) return `workspace ${name} is not registered: its worker.log is not read`;
        return ws.remote
          ? "the run's daemon is on another host: its worker.log is not readable from the gateway"
          : null;
      },
    });
    this.ingest = new IngestManager(
      {
        db: opts.db,
        store: opts.store,
        prices: opts.prices ?? DEFAULT_PRICES,
        metrics: this.metrics,
        log: opts.logger,
        forceSocket: opts.forceSocketIngest ?? false,
        tailIntervalMs: opts.tailIntervalMs ?? 100,
      },
      (t) => this.ingestTargetFor(t),
    );
    const inflight = new InFlight();
    this.lifecycle = new Lifecycle({
      registry: this.registry,
      daemons: this.daemons,
      state: this.state,
      recorder: this.recorder,
      ingest: this.ingest,
      locks: this.locks,
      inflight,
      log: this.log,
      env: opts.env,
    });
    this.poller = new Poller({
      registry: this.registry,
      daemons: this.daemons,
      state: this.state,
      recorder: this.recorder,
      ingest: this.ingest,
      locks: this.locks,
      metrics: this.metrics,
      log: this.log,
      intervalMs: opts.pollIntervalMs,
      ...(opts.listDeadlineMs !== undefined ? { listDeadlineMs: opts.listDeadlineMs } : {}),
      inflight,
      onQuiescent: (ws) => this.applyPendingConfig(ws),
      ...(opts.onPollRound ? { onRound: opts.onPollRound } : {}),
    });
  }

  /**
   * A remote workspace's agent as ingest follows it (issue 18 item 5): over its per-agent TCP
   * endpoint with the daemon's TLS settings and token, through the socket only (its session dir
   * is on another host). A local workspace's target is returned as it is.
   * @throws Error for an unregistered workspace, or when a remote daemon advertised an endpoint
   *   that is not TCP on its own host (`agentEndpointRefusal`); the errors of
   *   `DaemonPool.transportOf`.
   */
  private async ingestTargetFor(t: IngestTarget): Promise<IngestTarget> {
    const ws = this.registry.find(t.workspace);
    // Unknown (removed meanwhile): nothing says the paths are ours, so none is followed.
    if (!ws) throw new Error(`workspace ${t.workspace} is not registered; agent ${t.agentId} not followed`);
    if (!ws.remote) return t;
    const refusal = agentEndpointRefusal(ws.remote, t.endpoint);
    if (refusal !== null) {
      throw new Error(
        `the remote daemon of workspace ${ws.name} advertised an endpoint for agent ${t.agentId} that is not followed: ${refusal}`,
      );
    }
    return { ...t, sessionDir: "", transport: await this.daemons.transportOf(ws) };
  }

  /** The gateway environment daemons are started from (API keys are read from it by name). */
  get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  /** Load durable state and start polling. */
  async start(): Promise<void> {
    await this.registry.load();
    await this.state.load(
      this.opts.db,
      this.registry.list().map((w) => w.name),
    );
    this.poller.start();
  }

  /** Stop polling and ingest (resumable); idempotent. */
  async stop(): Promise<void> {
    await this.poller.stop();
    await this.ingest.stopAll();
  }

  /**
   * Register a workspace and poll it at once (see {@link WorkspaceRegistry.add} for the root and
   * config rules; an env entry without a value has nothing to keep and is refused).
   * @throws ValidationFailed, Conflict, ProviderMisconfigured.
   */
  async addWorkspace(input: {
    name: string;
    root: string;
    config?: ProviderConfigChange;
    remote?: RemoteCalibandInput | null;
  }): Promise<{ workspace: Workspace; created: boolean }> {
    const res = await this.registry.add(input);
    this.state.ensureWorkspace(res.workspace.name);
    if (res.created) await this.poller.pollOnce(res.workspace);
    return res;
  }

  /**
   * Unregister a workspace. Its caliband and agents keep running; history stays queryable. The row
   * stays as history only: a restarted gateway does not load it (see `WorkspaceRegistry.load`).
   * @throws NotFound
   */
  async removeWorkspace(name: string): Promise<Workspace> {
    const ws = await this.locks.run(name, () => this.registry.remove(name));
    for (const a of this.state.agentsOf(name)) this.state.remove(a.id);
    this.state.dropWorkspace(name);
    this.daemons.invalidate(name);
    return ws;
  }

  private liveAgents(name: string): string[] {
    return this.state
      .agentsOf(name)
      .filter((a) => !isTerminal(a.status))
      .map((a) => a.id);
  }

  /**
   * Change a workspace's provider config. Changes that only reach agents through the spawn spec
   * (provider, model) apply at once. Changes to the daemon's environment (base URL, key, env)
   * need a daemon restart: applied at once when no agent is live; otherwise recorded as pending
   * and applied when the last live agent ends — unless `force`, which restarts now and reports the
   * agents it orphans (a restart turns running agents into `crashed`, protocol §5.7).
   * An env entry without a value keeps the value stored for its name (pending config first, then
   * the applied one); the result must pass the env policy.
   * @throws NotFound, ValidationFailed (incl. a kept value with none stored), ProviderMisconfigured,
   *   Unreachable (restart failed).
   */
  async updateWorkspaceConfig(
    name: string,
    input: ProviderConfigChange,
    force = false,
  ): Promise<ConfigChangeResult> {
    const ws = this.registry.get(name);
    const config = this.registry.validateConfig(input, ws);
    if (!needsDaemonRestart(ws.config, config)) {
      const updated = await this.registry.setConfig(name, config, null);
      return { workspace: updated, applied: true, pendingOn: [], orphaned: [] };
    }
    const live = this.liveAgents(name);
    if (live.length > 0 && !force) {
      const updated = await this.registry.setConfig(name, ws.config, config);
      return { workspace: updated, applied: false, pendingOn: live, orphaned: [] };
    }
    const updated = await this.applyConfig(ws, config);
    return { workspace: updated, applied: true, pendingOn: [], orphaned: live };
  }

  /**
   * Restart the daemon with `config` and only then store it: a failed restart changes nothing
   * (the daemon is brought back with the old config when possible) and rethrows. The new env is
   * built first, so a config the env policy refuses (a stored pending one from before the policy)
   * or whose key variable is unset never shuts the running daemon down.
   * @throws ProviderMisconfigured before any side effect, or the restart's errors.
   */
  private async applyConfig(ws: Workspace, config: ProviderConfig): Promise<Workspace> {
    daemonEnvOverlay(config, this.opts.env ?? process.env, this.registry.envPolicy);
    try {
      await this.daemons.restart({ ...ws, config });
    } catch (err) {
      this.daemons.invalidate(ws.name);
      // handle() throws synchronously when the old config's env is refused: keep `err`.
      await Promise.resolve()
        .then(() => this.daemons.handle(ws))
        .catch(() => undefined);
      throw err;
    }
    const updated = await this.registry.setConfig(ws.name, config, null);
    await this.poller.pollOnce(updated);
    return updated;
  }

  private async applyPendingConfig(ws: Workspace): Promise<void> {
    const cur = this.registry.find(ws.name);
    if (!cur?.pendingConfig) return;
    this.log.info({ workspace: ws.name }, "agents ended: applying pending config with a daemon restart");
    const pending = cur.pendingConfig;
    // Runs inside the poll's reconcile; restart outside the lock.
    setImmediate(() => {
      void this.applyConfig(cur, pending).catch((err: unknown) =>
        this.log.error({ err }, "applying pending config failed"),
      );
    });
  }

  /**
   * Restart a workspace's caliband (same config). Refused while agents are live unless `force`.
   * @returns the agents the restart orphaned.
   * @throws NotFound, InvalidState, Unreachable.
   */
  async restartWorkspaceDaemon(name: string, force = false): Promise<{ orphaned: string[] }> {
    const ws = this.registry.get(name);
    const live = this.liveAgents(name);
    if (live.length > 0 && !force) {
      throw new InvalidState(
        `workspace ${name} has live agents (${live.join(", ")}); restart with force to orphan them`,
      );
    }
    await this.daemons.restart(ws);
    await this.poller.pollOnce(ws);
    return { orphaned: live };
  }
}
