/**
 * Lifecycle commands — the service the GraphQL layer calls. Each validates against the served
 * view first, talks to the workspace's caliband, and records the outcome; each failure is a typed
 * error and leaves no partial state. Rules from the protocol's pitfalls (§9): kill refuses a
 * terminal agent (caliband would overwrite `done` with `killed`) on the daemon's CURRENT record,
 * not our view of it, which is up to a poll old (issue 12 item 4); respawn refuses a live agent
 * unless forced (it would orphan the worker), ingest is finished before rm/respawn delete the
 * session dir, input goes to the per-agent endpoint only (#130) and is recorded before it is
 * written (issue 12 item 6).
 */
import { AgentNotFound, Protocol } from "../caliband/errors.js";
import { sendInbound } from "../caliband/stream.js";
import {
  encodeSpawnSpec,
  isTerminal,
  type AgentRecord,
  type Endpoint,
  type InboundFrame,
  type SpawnSpecInput,
} from "../caliband/wire.js";
import type { Logger } from "../log.js";
import type { DaemonPool } from "./daemons.js";
import { Conflict, InvalidState, NotFound, ValidationFailed } from "../errors.js";
import type { IngestManager } from "./ingest-manager.js";
import type { InFlight } from "./inflight.js";
import { ingestTargetOf, type WorkspaceLocks } from "./poller.js";
import { settledStatus } from "./reconcile.js";
import { daemonEnvOverlay } from "./provider.js";
import { Recorder } from "./recorder.js";
import { agentEndpointRefusal, describeRemote } from "./remote.js";
import type { WorkspaceRegistry } from "./registry.js";
import type { AgentView, FleetState } from "./state.js";

/** Options of a spawn; see protocol §2.2 for each SpawnSpec field. */
export interface SpawnOptions {
  workspace: string;
  /** First user message (`initial_prompt`). */
  prompt: string;
  /** Display name (`label`); caliband names the agent `agent-<id>` without one. */
  label?: string | null;
  /** Model; default the workspace's configured model, else the provider's default. */
  model?: string | null;
  /** Provider override; default the workspace's configured provider (caliban #93). */
  provider?: string | null;
  /** Source checkout name (§2.6); null = the workspace root. */
  source?: string | null;
  /** Git worktree isolation (`isolation_worktree`); default true. */
  isolated?: boolean;
  /** Wait for operator input at each end of turn (§3.5); default false. */
  interactive?: boolean;
  /** Tools the agent may use; null = caliban's default set. */
  toolAllowlist?: string[] | null;
  frontmatterPath?: string | null;
  /**
   * Idempotency key: repeating the same spawn with the same key returns the first agent with
   * `created: false`; the same key with different options is a Conflict.
   */
  clientRequestId?: string | null;
}

/**
 * The spawn spec sent for `opts` in a workspace configured with `config`: the options, with the
 * workspace's model and provider where the options name none, and caliban's defaults (isolated,
 * not interactive) otherwise (protocol §2.2). The launch queue fingerprints exactly this spec to
 * adopt the run of an attempt whose spawn reply was lost (issue 14 item 3).
 */
export function resolveSpawnSpec(
  opts: Omit<SpawnOptions, "workspace" | "clientRequestId">,
  config: { model?: string | null; provider?: string | null },
): SpawnSpecInput {
  return {
    initial_prompt: opts.prompt,
    label: opts.label ?? null,
    model: opts.model ?? config.model ?? null,
    provider: opts.provider ?? config.provider ?? null,
    source: opts.source ?? null,
    isolation_worktree: opts.isolated ?? true,
    interactive: opts.interactive ?? false,
    tool_allowlist: opts.toolAllowlist ?? null,
    frontmatter_path: opts.frontmatterPath ?? null,
  };
}

/** Result of {@link Lifecycle.drain}. */
export interface DrainResult {
  /** Status when drain returned. */
  status: string;
  /** Whether drain had to kill the agent after the timeout. */
  killed: boolean;
}

/** What lifecycle commands need. */
export interface LifecycleDeps {
  registry: WorkspaceRegistry;
  daemons: DaemonPool;
  state: FleetState;
  recorder: Recorder;
  ingest: IngestManager;
  locks: WorkspaceLocks;
  /** Commands in flight, shared with the poller (#122, #123). */
  inflight: InFlight;
  log: Logger;
  env?: NodeJS.ProcessEnv;
}

/** How long `kill` waits for its before-kill hook (a change snapshot) at most, ms. */
export const BEFORE_KILL_MAX_MS = 5_000;

/** Spawn, kill, respawn, rm, drain, input. */
export class Lifecycle {
  /** clientRequestId → the agent it created and a fingerprint of what was asked. */
  private readonly byRequestId = new Map<string, { id: string; fingerprint: string }>();
  /** Called right before a kill is sent (change capture's last snapshot, issue 16); see {@link setBeforeKill}. */
  private beforeKill: ((agent: AgentView) => Promise<void>) | null = null;

  constructor(private readonly deps: LifecycleDeps) {}

  /**
   * Register what runs right before `kill` sends SIGTERM through caliband (issue 16: change
   * capture snapshots the run's working tree while it still exists — the worker's exit removes an
   * isolated worktree). It is awaited at most {@link BEFORE_KILL_MAX_MS}; its errors are logged,
   * never stop the kill. Null removes it.
   */
  setBeforeKill(fn: ((agent: AgentView) => Promise<void>) | null): void {
    this.beforeKill = fn;
  }

  /** Run the before-kill hook, bounded in time; never throws. */
  private async runBeforeKill(a: AgentView): Promise<void> {
    const fn = this.beforeKill;
    if (!fn) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        fn(a),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, BEFORE_KILL_MAX_MS);
        }),
      ]);
    } catch (err) {
      this.deps.log.warn({ err, id: a.id }, "before-kill step failed; killing anyway");
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The served agent `id` with its workspace.
   * @throws NotFound when no served agent has that id.
   */
  private served(id: string): AgentView {
    const a = this.deps.state.agent(id);
    if (!a) throw new NotFound("agent", id);
    return a;
  }

  private async fetchRecord(workspace: string, id: string): Promise<AgentRecord | undefined> {
    try {
      const client = await this.deps.daemons.client(this.deps.registry.get(workspace));
      return (await client.list()).find((r) => r.id === id);
    } catch (err) {
      this.deps.log.warn(
        { err, workspace, id },
        "could not list after spawn; the next poll will fill in the record",
      );
      return undefined;
    }
  }

  /**
   * Spawn an agent (protocol §1.7 spawn).
   * @returns the served agent and whether it was created (false for a repeated clientRequestId).
   * @throws NotFound (workspace), ValidationFailed (empty prompt), ProviderMisconfigured (key
   *   variable unset), Unreachable, Protocol (caliband refused: bad source, not a git checkout, …).
   */
  async spawn(opts: SpawnOptions): Promise<{ agent: AgentView; created: boolean }> {
    const ws = this.deps.registry.get(opts.workspace);
    if (opts.prompt.trim() === "")
      throw new ValidationFailed([{ path: ["prompt"], message: "must not be empty" }]);
    const fingerprint = JSON.stringify({ ...opts, clientRequestId: null });
    if (opts.clientRequestId) {
      const prior = this.byRequestId.get(opts.clientRequestId);
      if (prior && prior.fingerprint !== fingerprint) {
        throw new Conflict(`clientRequestId ${opts.clientRequestId} was already used for a different spawn`);
      }
      const a = prior ? this.deps.state.agent(prior.id) : undefined;
      if (a) return { agent: a, created: false };
    }
    // ProviderMisconfigured before any side effect
    daemonEnvOverlay(ws.config, this.deps.env ?? process.env, this.deps.registry.envPolicy);
    const specInput = resolveSpawnSpec(opts, ws.config);
    const spec = encodeSpawnSpec(specInput);
    const client = await this.deps.daemons.client(ws);
    const { id, endpoint } = await client.spawn(specInput);
    this.deps.inflight.recentSpawns.set(id, Date.now());
    this.deps.inflight.pendingSpawns.add(id);
    if (opts.clientRequestId) this.byRequestId.set(opts.clientRequestId, { id, fingerprint });
    try {
      return await this.recordSpawn(ws.name, id, endpoint, spec);
    } finally {
      this.deps.inflight.pendingSpawns.delete(id);
    }
  }

  private async recordSpawn(
    workspace: string,
    id: string,
    endpoint: Endpoint,
    spec: ReturnType<typeof encodeSpawnSpec>,
  ): Promise<{ agent: AgentView; created: boolean }> {
    const ws = this.deps.registry.get(workspace);
    const record = await this.fetchRecord(ws.name, id);
    // Recorded as `running` (its status right after the spawn reply, §1.7) even if the worker
    // already ended: the next poll records that transition after ingesting all of its output.
    const view: AgentView = record
      ? { ...Recorder.viewOf(ws.name, record), status: "running" }
      : {
          id,
          workspace: ws.name,
          name: spec.label ?? `agent-${id}`,
          status: "running",
          interactive: spec.interactive,
          isolated: spec.isolation_worktree,
          spec: spec as unknown as Record<string, unknown>,
          sessionDir: "",
          workingDir: "",
          endpoint,
          startedAt: new Date(),
        };
    await this.deps.locks.run(ws.name, () => this.deps.recorder.spawned(view, null));
    const target = ingestTargetOf(view, record);
    if (target && target.sessionDir !== "") this.deps.ingest.ensure(target);
    return { agent: this.deps.state.agent(id) ?? view, created: true };
  }

  /**
   * Kill a live agent (SIGTERM through caliband) and record the status caliband then reports.
   * caliband's kill turns ANY status into `killed` (§1.7), and our view is up to a poll old, so
   * under the workspace's lock (no poll is reconciled meanwhile) the daemon's current record is
   * asked for right before killing: a run it already lists as ended is refused, and that real
   * terminal transition is recorded (after its output is ingested, as the poller does). After the
   * kill, the status the daemon then lists is recorded (`killed`, the kill reply's meaning, when
   * the list fails). What remains is the daemon's own race between our `list` and our `kill`.
   * @throws NotFound (not served, or no longer listed by its daemon), InvalidState (already
   *   terminal: caliband would overwrite its outcome), Unreachable.
   */
  async kill(id: string): Promise<AgentView> {
    const a = this.served(id);
    if (isTerminal(a.status)) throw Lifecycle.killRefused(id, a.status);
    await this.runBeforeKill(a);
    const client = await this.deps.daemons.client(this.deps.registry.get(a.workspace));
    return this.deps.locks.run(a.workspace, async () => {
      const before = (await client.list()).find((r) => r.id === id);
      const cur = this.deps.state.agent(id);
      if (!cur || !before) throw new NotFound("agent", id);
      if (isTerminal(before.rawStatus)) {
        if (!isTerminal(cur.status)) {
          const target = ingestTargetOf(cur, before);
          if (target && (await this.deps.ingest.workerAlive(target))) {
            // The daemon lost a worker that still runs (a restart's `crashed`, §5.7): it cannot
            // stop it, and the poller follows the run to its end before recording it.
            throw new InvalidState(
              `agent ${id} is ${before.rawStatus} on its daemon, which no longer controls its worker (it still runs and is followed to its end); kill cannot stop it`,
              before.rawStatus,
            );
          }
          await this.recordEnd(cur, target, before.rawStatus, before.endpoint, 5_000);
        }
        throw Lifecycle.killRefused(id, this.deps.state.agent(id)?.status ?? before.rawStatus);
      }
      if (isTerminal(cur.status)) throw Lifecycle.killRefused(id, cur.status);
      await client.kill(id);
      let after: AgentRecord | undefined;
      try {
        after = (await client.list()).find((r) => r.id === id);
      } catch (err) {
        this.deps.log.warn(
          { err, id },
          "could not list after kill; recording killed (the kill reply's meaning)",
        );
      }
      const status = after?.rawStatus ?? "killed";
      const now = this.deps.state.agent(id);
      if (now && !isTerminal(now.status) && isTerminal(status)) {
        await this.recordEnd(now, ingestTargetOf(now, after), status, undefined, 2_000);
      }
      return this.deps.state.agent(id) ?? { ...cur, status };
    });
  }

  /**
   * Finish ingesting a run that ended, then record its terminal status: the stream's word first
   * (`settledStatus`: a RunEnd ingested before the kill took effect means the run finished, not
   * killed), else the daemon's `daemonStatus`; `finishedAt` from the stream when it has one.
   * Call holding the workspace's lock.
   */
  private async recordEnd(
    view: AgentView,
    target: ReturnType<typeof ingestTargetOf>,
    daemonStatus: string,
    endpoint: Endpoint | undefined,
    timeoutMs: number,
  ): Promise<void> {
    const end = target ? await this.deps.ingest.finish(target, timeoutMs) : null;
    const final =
      settledStatus(daemonStatus, {
        runEndOutcome: end?.runEnd?.outcome ?? null,
        workerGone: end?.workerGoneAtMs != null,
      }) ?? daemonStatus;
    const atMs = end?.runEnd?.atMs ?? end?.workerGoneAtMs ?? null;
    await this.deps.recorder.statusChanged(
      view.workspace,
      view.id,
      view.status,
      final,
      endpoint,
      atMs === null ? undefined : new Date(atMs),
    );
  }

  private static killRefused(id: string, status: string): InvalidState {
    return new InvalidState(
      `agent ${id} has already ended (${status}); kill is refused so its outcome is not overwritten`,
      status,
    );
  }

  /** kill(), except that a run that ended meanwhile is not an error (respawn --force, drain). */
  private async killUnlessEnded(id: string): Promise<AgentView> {
    try {
      return await this.kill(id);
    } catch (err) {
      const cur = this.deps.state.agent(id);
      if (err instanceof InvalidState && cur && isTerminal(cur.status)) return cur;
      throw err;
    }
  }

  /**
   * Start the agent's spec again as a new run (new id) linked to the old one; the old run is
   * recorded gone. A live agent is refused unless `force`, which kills it first (respawn alone
   * would orphan its worker, §1.7).
   * @throws NotFound, InvalidState (live without force), Unreachable, Protocol.
   */
  async respawn(id: string, force = false): Promise<AgentView> {
    const a = this.served(id);
    if (!isTerminal(a.status)) {
      if (!force) {
        throw new InvalidState(
          `agent ${id} is ${a.status}; respawn it with force to kill it first`,
          a.status,
        );
      }
      await this.killUnlessEnded(id);
    }
    const ws = this.deps.registry.get(a.workspace);
    const client = await this.deps.daemons.client(ws);
    const target = ingestTargetOf(this.deps.state.agent(id) ?? a);
    if (target) await this.deps.ingest.finish(target);
    this.deps.inflight.pendingRemovals.add(id);
    let newId: string;
    try {
      newId = await client.respawn(id);
    } catch (err) {
      this.deps.inflight.pendingRemovals.delete(id);
      throw err;
    }
    this.deps.inflight.recentSpawns.set(newId, Date.now());
    this.deps.inflight.pendingSpawns.add(newId);
    this.deps.inflight.recentRemovals.set(id, Date.now());
    let view: AgentView;
    let record: AgentRecord | undefined;
    try {
      record = await this.fetchRecord(ws.name, newId);
      const v: AgentView = record
        ? { ...Recorder.viewOf(ws.name, record), status: "running" }
        : { ...a, id: newId, status: "running", endpoint: null, sessionDir: "", startedAt: new Date() };
      view = v;
      await this.deps.locks.run(ws.name, async () => {
        if (this.deps.state.agent(id)) await this.deps.recorder.gone(ws.name, id, "respawned", newId);
        await this.deps.recorder.spawned(v, id);
      });
    } finally {
      this.deps.inflight.pendingSpawns.delete(newId);
      this.deps.inflight.pendingRemovals.delete(id);
    }
    const newTarget = ingestTargetOf(view, record);
    if (newTarget && newTarget.sessionDir !== "") this.deps.ingest.ensure(newTarget);
    return this.deps.state.agent(newId) ?? view;
  }

  /**
   * Remove an agent from caliband (deleting its session dir) after ingesting all of its output;
   * the run stays in history. Drops it from the served view at once with exactly one
   * `agent_gone` (#123).
   * @throws NotFound, InvalidState (live without force), Unreachable.
   */
  async rm(id: string, force = false): Promise<void> {
    const a = this.served(id);
    if (!isTerminal(a.status) && !force) {
      throw new InvalidState(`agent ${id} is ${a.status}; remove it with force, or kill it first`, a.status);
    }
    const client = await this.deps.daemons.client(this.deps.registry.get(a.workspace));
    const target = ingestTargetOf(a);
    if (target && isTerminal(a.status)) await this.deps.ingest.finish(target);
    this.deps.inflight.pendingRemovals.add(id);
    try {
      try {
        await client.rm(id, { force });
      } catch (err) {
        if (!(err instanceof AgentNotFound)) throw err;
        // caliband already forgot it: record the removal all the same.
      }
      if (target && !isTerminal(a.status)) await this.deps.ingest.finish(target, 1_000);
      this.deps.inflight.recentRemovals.set(id, Date.now());
      await this.deps.locks.run(a.workspace, async () => {
        if (this.deps.state.agent(id)) await this.deps.recorder.gone(a.workspace, id, "removed");
      });
    } finally {
      this.deps.inflight.pendingRemovals.delete(id);
    }
  }

  /**
   * Stop an agent gracefully: send `EndInput` if it is interactive, wait up to `timeoutMs` for a
   * terminal status, and kill it only if it is still running then.
   * @throws NotFound, Unreachable.
   */
  async drain(id: string, timeoutMs: number): Promise<DrainResult> {
    const a = this.served(id);
    if (isTerminal(a.status)) return { status: a.status, killed: false };
    if (a.interactive) {
      try {
        await this.endInput(id);
      } catch (err) {
        this.deps.log.warn({ err, id }, "drain: EndInput could not be delivered");
      }
    }
    const client = await this.deps.daemons.client(this.deps.registry.get(a.workspace));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const served = this.deps.state.agent(id);
      if (!served) return { status: "gone", killed: false };
      if (isTerminal(served.status)) return { status: served.status, killed: false };
      const r = (await client.list()).find((x) => x.id === id);
      if (!r) return { status: "gone", killed: false };
      if (isTerminal(r.rawStatus)) {
        await this.deps.locks.run(a.workspace, async () => {
          const cur = this.deps.state.agent(id);
          if (!cur || isTerminal(cur.status)) return;
          const target = ingestTargetOf(cur, r);
          if (target) await this.deps.ingest.finish(target);
          await this.deps.recorder.statusChanged(a.workspace, id, cur.status, r.rawStatus);
        });
        return { status: r.rawStatus, killed: false };
      }
      if (Date.now() >= deadline) break;
      await new Promise((res) => setTimeout(res, Math.min(100, Math.max(1, deadline - Date.now()))));
    }
    try {
      const killed = await this.kill(id);
      return { status: killed.status, killed: true };
    } catch (err) {
      // It ended between our last look and the kill (the kill asked the daemon first).
      const cur = this.deps.state.agent(id);
      if (err instanceof InvalidState && cur && isTerminal(cur.status))
        return { status: cur.status, killed: false };
      throw err;
    }
  }

  private async interactiveTarget(id: string): Promise<AgentView> {
    const a = this.served(id);
    if (!a.interactive) throw new InvalidState(`agent ${id} is not interactive`, a.status);
    if (isTerminal(a.status)) throw new InvalidState(`agent ${id} is ${a.status}`, a.status);
    return a;
  }

  /**
   * Send a user message to an interactive, non-terminal agent over its per-agent endpoint
   * (`attach` first, §3.5 / #130). `input_sent` is recorded before the write (see {@link deliver}).
   * @throws NotFound, InvalidState (not interactive, or terminal), ValidationFailed (empty), Unreachable.
   */
  async sendInput(id: string, text: string): Promise<void> {
    if (text === "") throw new ValidationFailed([{ path: ["text"], message: "must not be empty" }]);
    await this.deliver(id, { type: "UserMessage", text });
  }

  /**
   * Tell an interactive agent that no more input will come (`EndInput`); it finishes its run.
   * `input_ended` is recorded before the write (see {@link deliver}).
   * @throws NotFound, InvalidState, Unreachable.
   */
  async endInput(id: string): Promise<void> {
    await this.deliver(id, { type: "EndInput" });
  }

  /**
   * Write one inbound frame to an interactive agent's endpoint. The input is recorded FIRST
   * (`input_sent`/`input_ended`): the worker may answer within moments of the write, and its
   * answer must be stored after the input it answers (issue 12 item 6). A write that fails is
   * recorded as `input_failed` right after, so no stored event claims input that never arrived;
   * an input that cannot be recorded is not sent.
   * @throws NotFound, InvalidState, Unreachable (attach or write failed), the store's error.
   */
  private async deliver(id: string, frame: InboundFrame): Promise<void> {
    const a = await this.interactiveTarget(id);
    const ws = this.deps.registry.get(a.workspace);
    const client = await this.deps.daemons.client(ws);
    const endpoint = await client.attach(id);
    const refusal = ws.remote ? agentEndpointRefusal(ws.remote, endpoint) : null;
    if (ws.remote && refusal !== null) {
      // Nothing but the daemon's own host is dialed for another host's daemon.
      throw new Protocol(
        `the remote daemon's endpoint for agent ${id} is not followed: ${refusal}; input not sent`,
        {
          endpoint: describeRemote(ws.remote),
        },
      );
    }
    const text = frame.type === "UserMessage" ? frame.text : null;
    await this.deps.recorder.input(a.workspace, id, text);
    try {
      await sendInbound(endpoint, client.transport, frame);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      await this.deps.recorder.inputFailed(a.workspace, id, text, reason).catch((recordErr: unknown) => {
        this.deps.log.error({ err: recordErr, id }, "could not record that input was not delivered");
      });
      throw err;
    }
  }
}
