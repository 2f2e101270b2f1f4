/**
 * The poll loop: every `intervalMs`, `list` every workspace's caliband CONCURRENTLY, each under
 * its own deadline, so a hung or dead daemon marks only its own workspace unreachable and never
 * delays the others (ARCHITECTURE decision 2). Each reply is reconciled against recorded history
 * under the workspace's lock (shared with lifecycle commands), ingest is finished before a
 * terminal status is recorded, and every non-terminal agent is attached (#51).
 *
 * Issue 12: a run's end is taken from its stream first ({@link settledStatus}). A daemon's
 * terminal word for an agent whose worker is still alive (a restarted daemon sweeps survivors to
 * `crashed`, §5.7) is not recorded yet: ingest follows the worker to its end, then the run is
 * recorded with the outcome it reached. A run whose stream ended (RunEnd, or the worker gone) is
 * recorded terminal even while the daemon's record stays live (a stale `idle`), or while the daemon
 * does not answer (RunEnd only). Ingest reports a run's end and every closed stream at once, and
 * the workspace is polled right then ({@link Poller.pollSoon}), so statuses follow within moments
 * and `finishedAt` is the RunEnd's time, not the next poll's.
 */
import { Mutex } from "async-mutex";
import { isTerminal, type AgentRecord } from "../caliband/wire.js";
import type { Logger } from "../log.js";
import type { DaemonPool } from "./daemons.js";
import type { IngestManager } from "./ingest-manager.js";
import type { IngestTarget, RunEndInfo } from "./ingest.js";
import type { FleetMetrics } from "./metrics.js";
import type { InFlight } from "./inflight.js";
import { diffAgents, settledStatus, type KnownAgent } from "./reconcile.js";
import { Recorder } from "./recorder.js";
import { remoteFailureReason } from "./remote.js";
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
  /**
   * Called with each completed poll round's wall time, ms (the value `poll_round_duration_ms`
   * takes; e.g. the `/metrics` histogram, src/server/metrics.ts). Must not throw (a throw is
   * ignored).
   */
  onRound?: (ms: number) => void;
}

/** Polls every registered workspace. */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Lists sent so far (a monotonic number per list, immune to wall-clock steps). */
  private listsSent = 0;
  /** Per workspace, the number of the newest list reconciled so far. */
  private readonly reconciledList = new Map<string, number>();
  /** Workspaces asked to be polled again as soon as their poll in flight ends. */
  private readonly again = new Set<string>();

  constructor(private readonly deps: PollerDeps) {
    deps.ingest.listen({
      onEnded: (t) => this.pollSoon(t.workspace),
      onSocketClosed: (t) => this.pollSoon(t.workspace),
    });
  }

  /**
   * Poll workspace `name` now (its run ended or a stream closed): at once when no poll of it is in
   * flight, else once more right after that one. No-op once stopped or for an unknown workspace.
   */
  pollSoon(name: string): void {
    if (this.stopped) return;
    const ws = this.deps.registry.find(name);
    if (!ws) return;
    if (this.inFlight.has(name)) this.again.add(name);
    else void this.startPoll(ws);
  }

  /** Start a poll of `ws` (one in flight per workspace), chaining a requested re-poll after it. */
  private startPoll(ws: Workspace): Promise<void> {
    const p = this.pollOnce(ws).finally(() => {
      this.inFlight.delete(ws.name);
      if (this.again.delete(ws.name)) this.pollSoon(ws.name);
    });
    this.inFlight.set(ws.name, p);
    return p;
  }

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
    return this.deps.registry.list().map((ws) => this.inFlight.get(ws.name) ?? this.startPoll(ws));
  }

  /** One round now: poll every workspace concurrently and wait for all of them. */
  async pollAll(): Promise<void> {
    await this.round();
  }

  /**
   * Kick every workspace's poll and, once all of them settled, record the round's wall time in
   * `poll_round_duration_ms` (and tell `onRound`). Rounds may overlap (a slow one finishes after
   * the next tick); the gauge holds the last to complete. Never rejects (polls never throw).
   */
  private async round(): Promise<void> {
    const t0 = performance.now();
    await Promise.all(this.kickAll());
    const ms = performance.now() - t0;
    this.deps.metrics.poll_round_duration_ms = ms;
    try {
      this.deps.onRound?.(ms);
    } catch {
      // a metrics hook must not break the poll loop
    }
  }

  /** Poll one workspace now: list, health, reconcile, attach. Never throws. */
  async pollOnce(ws: Workspace): Promise<void> {
    const { deps } = this;
    deps.metrics.polls_total++;
    const sentAt = Date.now();
    const listNo = ++this.listsSent;
    let records: AgentRecord[];
    try {
      const client = await deps.daemons.client(ws);
      records = await client.list({
        deadlineMs: deps.listDeadlineMs ?? Math.min(5_000, deps.intervalMs * 2),
      });
    } catch (err) {
      deps.metrics.poll_failures_total++;
      deps.daemons.invalidate(ws.name);
      const reason = ws.remote
        ? remoteFailureReason(err, ws.remote)
        : err instanceof Error
          ? err.message
          : String(err);
      await this.safely(ws.name, () => deps.recorder.health(ws.name, "unreachable", reason));
      // Workers outlive their daemon (§5.7): a run whose RunEnd was ingested has ended, whatever
      // the daemon will say when it answers again.
      if (deps.registry.find(ws.name)) {
        await deps.locks.run(ws.name, () => this.safely(ws.name, () => this.settleEnded(ws, null)));
      }
      return;
    }
    if (!deps.registry.find(ws.name)) return; // removed while we were listing
    await this.safely(ws.name, () => deps.recorder.health(ws.name, "healthy", null));
    await deps.locks.run(ws.name, () =>
      this.safely(ws.name, () => this.reconcile(ws, records, sentAt, listNo)),
    );
  }

  private async safely(workspace: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.deps.log.error({ err, workspace }, "recording poll results failed; will retry next poll");
    }
  }

  /**
   * Record how a run ended, from its output first ({@link settledStatus}): finish its ingest,
   * then record the status with `finishedAt` from the stream (the RunEnd's write time, else when
   * the worker was found gone), unless it is already recorded.
   * @returns false when the run has not ended yet (nothing recorded).
   */
  private async settle(
    ws: Workspace,
    view: AgentView,
    target: IngestTarget,
    daemonStatus: string | null,
    endpoint?: AgentRecord["endpoint"],
    known?: RunEndInfo | null,
  ): Promise<boolean> {
    const status = known ? statusOf(daemonStatus, known) : null;
    if (known && status === null) return false;
    const end = await this.deps.ingest.finish(target);
    const final = statusOf(daemonStatus, end ?? { runEnd: null, workerGoneAtMs: null }) ?? daemonStatus;
    if (final === null || !isTerminal(final)) return false;
    const at = end?.runEnd?.atMs ?? end?.workerGoneAtMs ?? null;
    await this.deps.recorder.statusChanged(
      ws.name,
      view.id,
      view.status,
      final,
      endpoint,
      at === null ? undefined : new Date(at),
    );
    return true;
  }

  /**
   * Record every live agent of `ws` whose run ended by its output while the daemon did not say so:
   * its record is stale (`listed` has it live) or the daemon does not answer (`listed` null: then
   * only a RunEnd counts, the daemon's word is awaited for anything else).
   */
  private async settleEnded(ws: Workspace, listed: ReadonlyMap<string, AgentRecord> | null): Promise<void> {
    const { state, ingest } = this.deps;
    for (const a of state.agentsOf(ws.name)) {
      if (isTerminal(a.status)) continue;
      const p = await ingest.progress(a.id);
      if (!p?.finished) continue;
      const r = listed?.get(a.id);
      if (listed && !r) continue; // not listed: the gone path handles it
      const info: RunEndInfo = listed ? p : { runEnd: p.runEnd, workerGoneAtMs: null };
      if (statusOf(r?.rawStatus ?? null, info) === null) continue;
      const target = ingestTargetOf(a, r);
      if (target) await this.settle(ws, a, target, r?.rawStatus ?? null, r?.endpoint, info);
    }
  }

  private async reconcile(
    ws: Workspace,
    records: AgentRecord[],
    listSentAt: number,
    listNo: number,
  ): Promise<void> {
    // Lists of one workspace can overlap (pollOnce is also called by addWorkspace, config updates,
    // daemon restarts and the launch queue's adoption, beside the loop), and replies are
    // reconciled in lock order, not send order. A list sent before one already reconciled is
    // stale: it may lack a run spawned between the two, whose spawn protection (recentSpawns) the
    // newer list already retired — reconciling it would record a live run as gone (crashed).
    const newest = this.reconciledList.get(ws.name);
    if (newest !== undefined && listNo < newest) return;
    this.reconciledList.set(ws.name, listNo);
    const { state, recorder, ingest } = this.deps;
    const { recentSpawns, recentRemovals, pendingSpawns, pendingRemovals } = this.deps.inflight;
    const known = new Map<string, KnownAgent>(
      state.agentsOf(ws.name).map((a) => [a.id, { id: a.id, status: a.status }]),
    );
    // A spawn still being recorded is filtered out of the listed records below (its recording
    // owns it), so it must not be read as gone either: its view may already be in the state while
    // its recording finishes (the workspace lock is released before pendingSpawns is cleared).
    const protect = new Set<string>([...pendingRemovals, ...pendingSpawns]);
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
        const r = change.record;
        const probe = Recorder.viewOf(ws.name, r);
        const probeTarget = ingestTargetOf(probe, r);
        // A terminal record whose worker still runs (its daemon lost it): it is running.
        const alive =
          isTerminal(r.rawStatus) && probeTarget !== null && (await ingest.workerAlive(probeTarget));
        await recorder.discovered(ws.name, alive ? { ...r, status: "running", rawStatus: "running" } : r);
        const view = state.agent(r.id);
        if (!view || view.workspace !== ws.name) continue;
        const target = ingestTargetOf(view, r);
        if (!target) {
          if (isTerminal(view.status)) await recorder.endedBeforeDiscovery(ws.name, r.id);
          continue;
        }
        if (isTerminal(view.status)) {
          // Recorded as the daemon says; the stream may know better (a RunEnd it reached).
          const end = await ingest.finish(target);
          const status = end ? statusOf(r.rawStatus, end) : null;
          if (status !== null && status !== view.status) {
            await recorder.statusChanged(ws.name, r.id, view.status, status, r.endpoint);
          }
          // Why it failed, once its output (a RunEnd's stop condition) is in (issue 12 item 7).
          await recorder.endedBeforeDiscovery(ws.name, r.id);
        } else ingest.ensure(target);
      } else if (change.type === "status_changed") {
        const view = state.agent(change.id);
        if (!view) continue;
        if (!isTerminal(change.to)) {
          const p = await ingest.progress(change.id);
          // The stream already ended: settleEnded below records it; a live status would be stale.
          if (p?.finished && statusOf(change.to, p) !== null) continue;
          await recorder.statusChanged(ws.name, change.id, change.from, change.to, change.record.endpoint);
          continue;
        }
        const target = ingestTargetOf(view, change.record);
        if (!target) {
          await recorder.statusChanged(ws.name, change.id, change.from, change.to, change.record.endpoint);
          continue;
        }
        ingest.ensure(target);
        const p = await ingest.progress(change.id);
        if (p?.runEnd == null && !p?.finished && (await ingest.workerAlive(target))) {
          // The daemon's word (a restart's `crashed`, a kill it could not deliver) while the worker
          // still runs and writes: follow it to its end before recording anything (issue 12 item 1).
          continue;
        }
        await this.settle(ws, view, target, change.to, change.record.endpoint);
      } else {
        const view = state.agent(change.id);
        const target = view && ingestTargetOf(view);
        if (target) await ingest.finish(target, 1_000);
        await recorder.gone(ws.name, change.id, "vanished");
      }
    }
    await this.settleEnded(ws, byId);
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

/** {@link settledStatus} of a daemon status and what ingest knows of the run's end. */
function statusOf(daemonStatus: string | null, end: RunEndInfo): string | null {
  return settledStatus(daemonStatus, {
    runEndOutcome: end.runEnd?.outcome ?? null,
    workerGone: end.workerGoneAtMs !== null,
  });
}
