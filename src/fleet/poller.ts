/**
 * The poll loop: every `intervalMs`, `list` every workspace's caliband CONCURRENTLY, each under
 * its own deadline, so a hung or dead daemon marks only its own workspace unreachable and never
 * delays the others (ARCHITECTURE decision 2). Each reply is reconciled against recorded history
 * under the workspace's lock (shared with lifecycle commands), ingest is finished before a
 * terminal status is recorded, and every non-terminal agent is attached (#51).
 */
import { Mutex } from "async-mutex";
import { isTerminal, type AgentRecord } from "../caliband/wire.js";
import type { Logger } from "../log.js";
import type { DaemonPool } from "./daemons.js";
import type { IngestManager } from "./ingest-manager.js";
import type { IngestTarget } from "./ingest.js";
import type { FleetMetrics } from "./metrics.js";
import type { InFlight } from "./inflight.js";
import { diffAgents, type KnownAgent } from "./reconcile.js";
import type { Recorder } from "./recorder.js";
import type { Workspace, WorkspaceRegistry } from "./registry.js";
import type { AgentView, FleetState } from "./state.js";

/** Per-workspace locks serializing reconciliation with lifecycle commands. */
export class WorkspaceLocks {
  private readonly locks = new Map<string, Mutex>();
  /** Run `fn` holding the workspace's lock. */
  run<T>(workspace: string, fn: () => Promise<T>): Promise<T> {
    let m = this.locks.get(workspace);
    if (!m) {
      m = new Mutex();
      this.locks.set(workspace, m);
    }
    return m.runExclusive(fn);
  }
}

/** Ingest target of a served agent. */
export function ingestTargetOf(a: AgentView, fallback?: AgentRecord): IngestTarget | null {
  const endpoint = a.endpoint ?? fallback?.endpoint ?? null;
  if (!endpoint) return null;
  return {
    agentId: a.id,
    workspace: a.workspace,
    sessionDir: a.sessionDir || fallback?.session_dir || "",
    endpoint,
    transport: {},
    specModel: typeof a.spec.model === "string" ? a.spec.model : null,
  };
}

/** What the poller needs. */
export interface PollerDeps {
  registry: WorkspaceRegistry;
  daemons: DaemonPool;
  state: FleetState;
  recorder: Recorder;
  ingest: IngestManager;
  locks: WorkspaceLocks;
  metrics: FleetMetrics;
  log: Logger;
  /** Interval between poll rounds, ms. */
  intervalMs: number;
  /** Deadline of one `list`, ms (default min(5000, interval × 2)). */
  listDeadlineMs?: number;
  /** Commands in flight (#122, #123). */
  inflight: InFlight;
  /** Called after a workspace's agents all became terminal (pending config changes). */
  onQuiescent?: (ws: Workspace) => Promise<void>;
}

/** Polls every registered workspace. */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly deps: PollerDeps) {}

  /**
   * Start polling: every `intervalMs`, each workspace whose previous poll has finished is polled
   * again. Workspaces never wait for each other: a hung daemon holds up only its own poll.
   */
  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      void this.round();
      this.timer = setTimeout(tick, this.deps.intervalMs);
    };
    tick();
  }

  /** Stop polling and wait for polls in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.inFlight.values());
  }

  /** Start a poll of every workspace that has none in flight; returns their promises. */
  private kickAll(): Promise<void>[] {
    return this.deps.registry.list().map((ws) => {
      const existing = this.inFlight.get(ws.name);
      if (existing) return existing;
      const p = this.pollOnce(ws).finally(() => this.inFlight.delete(ws.name));
      this.inFlight.set(ws.name, p);
      return p;
    });
  }

  /** One round now: poll every workspace concurrently and wait for all of them. */
  async pollAll(): Promise<void> {
    await this.round();
  }

  /**
   * Kick every workspace's poll and, once all of them settled, record the round's wall time in
   * `poll_round_duration_ms`. Rounds may overlap (a slow one finishes after the next tick); the
   * gauge holds the last to complete. Never rejects (polls never throw).
   */
  private async round(): Promise<void> {
    const t0 = performance.now();
    await Promise.all(this.kickAll());
    this.deps.metrics.poll_round_duration_ms = performance.now() - t0;
  }

  /** Poll one workspace now: list, health, reconcile, attach. Never throws. */
  async pollOnce(ws: Workspace): Promise<void> {
    const { deps } = this;
    deps.metrics.polls_total++;
    const sentAt = Date.now();
    let records: AgentRecord[];
    try {
      const client = await deps.daemons.client(ws);
      records = await client.list({
        deadlineMs: deps.listDeadlineMs ?? Math.min(5_000, deps.intervalMs * 2),
      });
    } catch (err) {
      deps.metrics.poll_failures_total++;
      deps.daemons.invalidate(ws.name);
      const reason = err instanceof Error ? err.message : String(err);
      await this.safely(ws.name, () => deps.recorder.health(ws.name, "unreachable", reason));
      return;
    }
    if (!deps.registry.find(ws.name)) return; // removed while we were listing
    await this.safely(ws.name, () => deps.recorder.health(ws.name, "healthy", null));
    await deps.locks.run(ws.name, () => this.safely(ws.name, () => this.reconcile(ws, records, sentAt)));
  }

  private async safely(workspace: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.deps.log.error({ err, workspace }, "recording poll results failed; will retry next poll");
    }
  }

  private async reconcile(ws: Workspace, records: AgentRecord[], listSentAt: number): Promise<void> {
    const { state, recorder, ingest } = this.deps;
    const { recentSpawns, recentRemovals, pendingSpawns, pendingRemovals } = this.deps.inflight;
    const known = new Map<string, KnownAgent>(
      state.agentsOf(ws.name).map((a) => [a.id, { id: a.id, status: a.status }]),
    );
    const protect = new Set<string>(pendingRemovals);
    for (const [id, at] of recentSpawns) {
      if (at >= listSentAt) protect.add(id);
      else recentSpawns.delete(id);
    }
    for (const [id, at] of recentRemovals) {
      if (at < listSentAt) recentRemovals.delete(id);
    }
    const current = records.filter((r) => !recentRemovals.has(r.id) && !pendingSpawns.has(r.id));
    const byId = new Map(current.map((r) => [r.id, r]));
    for (const change of diffAgents(known, current, protect)) {
      if (change.type === "discovered") {
        await recorder.discovered(ws.name, change.record);
        const view = state.agent(change.record.id);
        const target = view && ingestTargetOf(view, change.record);
        if (target) {
          if (isTerminal(change.record.rawStatus)) await ingest.finish(target);
          else ingest.ensure(target);
        }
      } else if (change.type === "status_changed") {
        const view = state.agent(change.id);
        if (isTerminal(change.to) && view) {
          const target = ingestTargetOf(view, change.record);
          if (target) await ingest.finish(target);
        }
        await recorder.statusChanged(ws.name, change.id, change.from, change.to, change.record.endpoint);
      } else {
        const view = state.agent(change.id);
        const target = view && ingestTargetOf(view);
        if (target) await ingest.finish(target, 1_000);
        await recorder.gone(ws.name, change.id, "vanished");
      }
    }
    // Attach every non-terminal agent (idle included, #51), e.g. after a gateway restart.
    for (const a of state.agentsOf(ws.name)) {
      const r = byId.get(a.id);
      if (r && !a.endpoint) state.patch(a.id, { endpoint: r.endpoint, sessionDir: r.session_dir });
      if (!isTerminal(a.status)) {
        const target = ingestTargetOf(state.agent(a.id) ?? a, r);
        if (target) ingest.ensure(target);
      }
    }
    if (this.deps.onQuiescent && state.agentsOf(ws.name).every((a) => isTerminal(a.status))) {
      await this.deps.onQuiescent(ws);
    }
  }
}
