/**
 * Records lifecycle facts: appends the event and the run-table change in one transaction, then
 * updates the served view. Every "has this already been recorded?" question is answered from
 * what these writes left in the store (run table, last health event), never from memory alone.
 *
 * Rules kept here, so that every caller (poller, lifecycle commands) gets them (issue 12):
 * - a run that is gone while live ends in our model: {@link Recorder.gone} records a terminal
 *   status first ({@link GONE_WHILE_LIVE_STATUS});
 * - a recorded terminal status is never replaced by a live one (the daemon never moves an id out
 *   of a terminal status, protocol §2.1; a list sent before our own kill could still say running);
 * - an agent id recorded for one workspace is never moved to another ({@link Recorder.discovered});
 * - a run that ends `failed` or `crashed` keeps why (issue 12 item 7): the end of its worker.log and
 *   the exit code its RunEnd implies, as a `worker_log` event stored right before the terminal
 *   `status_changed` (same transaction) and on the run's row ({@link Recorder.statusChanged},
 *   {@link Recorder.gone}, {@link Recorder.endedBeforeDiscovery}).
 */
import type { AgentRecord, Endpoint } from "../caliband/wire.js";
import { isTerminal } from "../caliband/wire.js";
import { Conflict } from "../errors.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import { setFailureOp, setGoneOp, setStatusOp, upsertAgentOp, type NewAgentRow } from "../store/agents.js";
import type { EventStore } from "../store/events.js";
import type { NewEvent, PayloadOf } from "../events/index.js";
import type { FleetMetrics } from "./metrics.js";
import type { AgentView, FleetState } from "./state.js";
import { FAILURE_STATUSES, exitCodeOfOutcome, readWorkerLogTail, unread } from "./worker-log.js";

/** Why caliband stopped listing an agent (`agent_gone.reason`). */
export type GoneReason = "removed" | "respawned" | "vanished";

/**
 * The terminal status recorded for a run that is gone while its recorded status is still live
 * (spawning/running/idle), by why it is gone (issue 12 item 5):
 * - `removed` (our forced `rm`): `killed` — caliband SIGTERMs the worker it tracks before removing
 *   the record (protocol §1.7 rm with force);
 * - `vanished` (removed on the daemon directly, a lost registry) and `respawned` (the old record
 *   replaced while live): `crashed` — the run ended without an outcome we could observe, as for a
 *   run its daemon lost (§5.7).
 */
export const GONE_WHILE_LIVE_STATUS: Readonly<Record<GoneReason, "killed" | "crashed">> = {
  removed: "killed",
  vanished: "crashed",
  respawned: "crashed",
};

/** What the recorder checks against besides the served view. */
export interface RecorderChecks {
  /** The run table (which workspace an id was recorded for, its recorded status). */
  db?: PrismaClient;
  /** Counts `agent_workspace_conflicts_total`. */
  metrics?: FleetMetrics;
  /**
   * Why a workspace's runs' worker.log may not be read here, or null when it may: a daemon on
   * another host (issue 18 item 5) names session dirs there (the same path here is another file).
   */
  workerLogRefusal?: (workspace: string) => string | null;
}

/** Writes lifecycle events and keeps the served view in step. */
export class Recorder {
  /** `workspace\0id` pairs already warned about (one warning and one count per pair). */
  private readonly conflicts = new Set<string>();
  private readonly db: PrismaClient | null;
  private readonly metrics: FleetMetrics | null;
  private readonly workerLogRefusal: (workspace: string) => string | null;

  constructor(
    private readonly store: EventStore,
    private readonly state: FleetState,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    checks: RecorderChecks = {},
  ) {
    this.db = checks.db ?? null;
    this.metrics = checks.metrics ?? null;
    this.workerLogRefusal = checks.workerLogRefusal ?? (() => null);
  }

  /**
   * The workspace `id` is already recorded for when that is not `workspace` (served view first,
   * then the run table, gone runs included), else null.
   */
  private async recordedElsewhere(workspace: string, id: string): Promise<string | null> {
    const served = this.state.workspaceOf(id);
    if (served !== undefined) return served === workspace ? null : served;
    const row = this.db
      ? await this.db.agent.findUnique({ where: { id }, select: { workspace: true } })
      : null;
    return row && row.workspace !== workspace ? row.workspace : null;
  }

  /** Warn and count once per (workspace, id) that `id`, recorded for `owner`, is listed by `workspace`. */
  private conflict(workspace: string, id: string, owner: string): void {
    const key = `${workspace}\0${id}`;
    if (this.conflicts.has(key)) return;
    this.conflicts.add(key);
    if (this.metrics) this.metrics.agent_workspace_conflicts_total++;
    this.log.warn(
      { workspace, agent: id, recordedFor: owner },
      "a daemon lists an agent id already recorded for another workspace (shared session store?); it stays with that workspace",
    );
  }

  private ev<K extends NewEvent["kind"]>(
    kind: K,
    workspace: string,
    agentId: string,
    payload: Extract<NewEvent, { kind: K }>["payload"],
  ): NewEvent {
    return { kind, workspace, agentId, payload, tsMs: this.now() } as NewEvent;
  }

  /** View of a caliband record. */
  static viewOf(workspace: string, r: AgentRecord): AgentView {
    return {
      id: r.id,
      workspace,
      name: r.name,
      status: r.rawStatus,
      interactive: r.spec.interactive,
      isolated: r.spec.isolation_worktree,
      spec: r.spec as unknown as Record<string, unknown>,
      sessionDir: r.session_dir,
      workingDir: r.working_dir,
      endpoint: r.endpoint,
      startedAt: new Date(r.started_at),
    };
  }

  private static rowOf(v: AgentView, respawnedFrom: string | null): NewAgentRow {
    const model = typeof v.spec.model === "string" ? v.spec.model : null;
    return {
      id: v.id,
      workspace: v.workspace,
      name: v.name,
      status: v.status,
      interactive: v.interactive,
      isolated: v.isolated,
      spec: v.spec,
      sessionDir: v.sessionDir,
      workingDir: v.workingDir,
      startedAt: Number.isNaN(v.startedAt.getTime()) ? new Date() : v.startedAt,
      model,
      respawnedFrom,
    };
  }

  /**
   * An agent caliband lists that this workspace has no record of (spawned elsewhere, or while we
   * were down). An id already recorded for ANOTHER workspace is left with it (issue 12 item 12:
   * two daemons over one session store list the same agents): nothing is recorded, and the first
   * sighting per (workspace, id) logs a warning and counts `agent_workspace_conflicts_total`.
   */
  async discovered(workspace: string, r: AgentRecord): Promise<void> {
    const owner = await this.recordedElsewhere(workspace, r.id);
    if (owner !== null) {
      this.conflict(workspace, r.id, owner);
      return;
    }
    const view = Recorder.viewOf(workspace, r);
    await this.store.append(
      [this.ev("agent_discovered", workspace, r.id, { name: r.name, status: r.rawStatus })],
      {
        extra: (db) => [upsertAgentOp(db, Recorder.rowOf(view, null))],
      },
    );
    this.state.put(view);
  }

  /**
   * An agent we spawned (or a respawn's new run, linked to the old one).
   * @throws Conflict when the daemon answered with an id already recorded for another workspace
   *   (counted and logged like a conflicting discovery; nothing is recorded).
   */
  async spawned(view: AgentView, respawnedFrom: string | null): Promise<void> {
    const owner = await this.recordedElsewhere(view.workspace, view.id);
    if (owner !== null) {
      this.conflict(view.workspace, view.id, owner);
      throw new Conflict(
        `caliband of workspace ${view.workspace} answered with agent id ${view.id}, already recorded for workspace ${owner}`,
        owner,
      );
    }
    await this.store.append(
      [this.ev("agent_spawned", view.workspace, view.id, { name: view.name, spec: view.spec })],
      {
        extra: (db) => [upsertAgentOp(db, Recorder.rowOf(view, respawnedFrom))],
      },
    );
    this.state.put(view);
  }

  /**
   * A status transition observed by polling (or implied by our own command). A served run whose
   * recorded status is terminal is never moved back to a live status (a `list` answered before our
   * own kill or a stale daemon record may still say running/idle): that is logged and ignored; nor
   * is a "change" to the status already recorded. A terminal-to-terminal change (caliband's kill
   * overwrites any status, §1.7) is recorded but keeps the first `finishedAt`. `finishedAt`: when the run ended by its stream (the RunEnd's write
   * time, issue 12 item 6), used instead of now when this change ends the run. A change that ends
   * the run `failed` or `crashed` is preceded, in the same transaction, by its `worker_log` (issue
   * 12 item 7), so an agent's stream delivers it before it completes.
   */
  async statusChanged(
    workspace: string,
    id: string,
    from: string,
    to: string,
    endpoint?: Endpoint,
    finishedAt?: Date,
  ): Promise<void> {
    const recorded = this.state.agent(id)?.status;
    if (recorded === to) return; // nothing changes (e.g. the stream settled what the daemon says otherwise)
    if (recorded !== undefined && isTerminal(recorded) && !isTerminal(to)) {
      this.log.debug(
        { workspace, agent: id, recorded, listed: to },
        "ignoring a live status for a run already recorded as ended",
      );
      return;
    }
    const at = this.now();
    const ends = isTerminal(to) && !(recorded !== undefined ? isTerminal(recorded) : isTerminal(from));
    const failure = ends && FAILURE_STATUSES.has(to) ? await this.failure(workspace, id, to) : null;
    const events = [this.ev("status_changed", workspace, id, { from, to })];
    if (failure) events.unshift(this.ev("worker_log", workspace, id, failure));
    await this.store.append(events, {
      extra: (db) => [
        setStatusOp(db, id, to, finishedAt ?? new Date(at), ends),
        ...(failure ? [setFailureOp(db, id, failure)] : []),
      ],
    });
    this.state.patch(id, { status: to, ...(endpoint ? { endpoint } : {}) });
  }

  /**
   * Why the run `id` ended `status` (failed or crashed): the tail of its worker.log, read now (a
   * crashed run's worker may still be writing), and the exit code its RunEnd's stop condition
   * implies (null without one). The session dir comes from the served view, else the run table.
   * Never throws: whatever goes wrong is the payload's `reason`.
   */
  private async failure(workspace: string, id: string, status: string): Promise<PayloadOf<"worker_log">> {
    try {
      let sessionDir = this.state.agent(id)?.sessionDir ?? "";
      let outcome: string | null = null;
      if (this.db) {
        const row = await this.db.agent.findUnique({
          where: { id },
          select: { sessionDir: true, outcome: true },
        });
        if (row) {
          outcome = row.outcome;
          if (sessionDir === "") sessionDir = row.sessionDir;
        }
      }
      const refusal = this.workerLogRefusal(workspace);
      const log = refusal !== null ? unread(refusal) : await readWorkerLogTail(sessionDir);
      return { status, ...log, exitCode: exitCodeOfOutcome(outcome) };
    } catch (err) {
      this.log.warn({ err, workspace, agent: id }, "could not read why the run failed");
      const reason = `worker.log could not be read: ${err instanceof Error ? err.message : String(err)}`;
      return { status, tail: null, truncated: false, bytes: null, exitCode: null, reason };
    }
  }

  /**
   * A run first seen already ended (discovered with a terminal status, after its output was
   * ingested and its status settled): when it ended `failed` or `crashed` and nothing says why
   * yet, record it as for a run that ends under our eyes — a `worker_log` event (after its
   * `agent_discovered`; no `status_changed` follows) and the row's failure fields. Nothing for any
   * other status, or a run not recorded for `workspace`.
   */
  async endedBeforeDiscovery(workspace: string, id: string): Promise<void> {
    let status = this.state.agent(id)?.status ?? null;
    if (this.db) {
      const row = await this.db.agent.findUnique({
        where: { id },
        select: { workspace: true, status: true, failureLogTail: true, failureReason: true },
      });
      if (!row || row.workspace !== workspace) return;
      if (row.failureLogTail !== null || row.failureReason !== null) return; // already recorded
      status = row.status;
    }
    if (status === null || !FAILURE_STATUSES.has(status)) return;
    const failure = await this.failure(workspace, id, status);
    await this.store.append([this.ev("worker_log", workspace, id, failure)], {
      extra: (db) => [setFailureOp(db, id, failure)],
    });
  }

  /**
   * caliband no longer lists the agent: exactly one `agent_gone` per run (#123). A run whose
   * recorded status is still live ends first: `status_changed` to
   * {@link GONE_WHILE_LIVE_STATUS}[reason] (with `finishedAt`) and `agent_gone`, in that order and in
   * one transaction, so the run is terminal and its `agentEvents` stream completes (issue 12 item
   * 5). Callers finish ingesting the run before calling this (the poller, rm and respawn do). A run
   * ended `crashed` here gets its `worker_log` first (issue 12 item 7; after `rm`/`respawn` the
   * daemon has deleted the file with the session dir, and the event says so).
   */
  async gone(
    workspace: string,
    id: string,
    reason: GoneReason,
    replacedBy: string | null = null,
  ): Promise<void> {
    const at = this.now();
    const recorded = await this.recordedStatus(id);
    const end = recorded !== null && !isTerminal(recorded) ? GONE_WHILE_LIVE_STATUS[reason] : null;
    const failure = end !== null && FAILURE_STATUSES.has(end) ? await this.failure(workspace, id, end) : null;
    const events: NewEvent[] = [];
    if (failure) events.push(this.ev("worker_log", workspace, id, failure));
    if (end !== null) events.push(this.ev("status_changed", workspace, id, { from: recorded!, to: end }));
    events.push(this.ev("agent_gone", workspace, id, { reason, replacedBy }));
    await this.store.append(events, {
      extra: (db) => [
        ...(end !== null ? [setStatusOp(db, id, end, new Date(at), true)] : []),
        ...(failure ? [setFailureOp(db, id, failure)] : []),
        setGoneOp(db, id, new Date(at)),
      ],
    });
    if (end !== null) {
      this.log.info({ workspace, agent: id, reason, from: recorded, to: end }, "run gone while live: ended");
    }
    this.state.remove(id);
  }

  /** The recorded status of a run: the run table when available (what commits left), else the view. */
  private async recordedStatus(id: string): Promise<string | null> {
    if (this.db) {
      const row = await this.db.agent.findUnique({ where: { id }, select: { status: true } });
      if (row) return row.status;
    }
    return this.state.agent(id)?.status ?? null;
  }

  /** Workspace health; records an event only on a transition (recovery included). */
  async health(workspace: string, state: "healthy" | "unreachable", reason: string | null): Promise<void> {
    const cur = this.state.healthOf(workspace);
    if (cur.state === state && (state === "healthy" || cur.reason === reason)) return;
    if (cur.state === state && state === "unreachable") {
      // Same state, new reason: update the view without another event.
      this.state.setHealth(workspace, { state, reason, since: cur.since });
      return;
    }
    const at = this.now();
    await this.store.append([this.ev("workspace_health", workspace, "", { state, reason })]);
    this.state.setHealth(workspace, { state, reason, since: new Date(at) });
    this.log.info({ workspace, state, reason }, "workspace health changed");
  }

  /**
   * Operator input about to be written to an interactive agent's endpoint (the worker does not
   * echo it, §3.5): `input_sent {text}`, or `input_ended` for EndInput (`text` null). Recorded
   * BEFORE the write, so it is stored ahead of the output that answers it (issue 12 item 6); a
   * write that then fails is recorded with {@link inputFailed}.
   * @throws (rejects) the store error: the caller must not send what could not be recorded.
   */
  async input(workspace: string, id: string, text: string | null): Promise<void> {
    await this.store.append(
      [
        text === null
          ? this.ev("input_ended", workspace, id, {})
          : this.ev("input_sent", workspace, id, { text }),
      ],
      { onFailure: "throw" },
    );
  }

  /**
   * The input recorded just before by {@link input} could not be written to the agent's endpoint
   * (`text` null for EndInput): `input_failed {text, reason}`, so no stored event claims it arrived.
   */
  async inputFailed(workspace: string, id: string, text: string | null, reason: string): Promise<void> {
    await this.store.append([this.ev("input_failed", workspace, id, { text, reason })]);
  }
}
