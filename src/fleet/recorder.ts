/**
 * Records lifecycle facts: appends the event and the run-table change in one transaction, then
 * updates the served view. Every "has this already been recorded?" question is answered from
 * what these writes left in the store (run table, last health event), never from memory alone.
 */
import type { AgentRecord, Endpoint } from "../caliband/wire.js";
import { isTerminal } from "../caliband/wire.js";
import type { Logger } from "../log.js";
import { setGoneOp, setStatusOp, upsertAgentOp, type NewAgentRow } from "../store/agents.js";
import type { EventStore } from "../store/events.js";
import type { NewEvent } from "../events/index.js";
import type { AgentView, FleetState } from "./state.js";

/** Writes lifecycle events and keeps the served view in step. */
export class Recorder {
  constructor(
    private readonly store: EventStore,
    private readonly state: FleetState,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

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

  /** An agent caliband lists that we have no record of (spawned elsewhere, or while we were down). */
  async discovered(workspace: string, r: AgentRecord): Promise<void> {
    const view = Recorder.viewOf(workspace, r);
    await this.store.append(
      [this.ev("agent_discovered", workspace, r.id, { name: r.name, status: r.rawStatus })],
      {
        extra: (db) => [upsertAgentOp(db, Recorder.rowOf(view, null))],
      },
    );
    this.state.put(view);
  }

  /** An agent we spawned (or a respawn's new run, linked to the old one). */
  async spawned(view: AgentView, respawnedFrom: string | null): Promise<void> {
    await this.store.append(
      [this.ev("agent_spawned", view.workspace, view.id, { name: view.name, spec: view.spec })],
      {
        extra: (db) => [upsertAgentOp(db, Recorder.rowOf(view, respawnedFrom))],
      },
    );
    this.state.put(view);
  }

  /** A status transition observed by polling (or implied by our own command). */
  async statusChanged(
    workspace: string,
    id: string,
    from: string,
    to: string,
    endpoint?: Endpoint,
  ): Promise<void> {
    const at = this.now();
    await this.store.append([this.ev("status_changed", workspace, id, { from, to })], {
      extra: (db) => [setStatusOp(db, id, to, new Date(at), isTerminal(to))],
    });
    this.state.patch(id, { status: to, ...(endpoint ? { endpoint } : {}) });
  }

  /** caliband no longer lists the agent: exactly one `agent_gone` per run (#123). */
  async gone(
    workspace: string,
    id: string,
    reason: "removed" | "respawned" | "vanished",
    replacedBy: string | null = null,
  ): Promise<void> {
    const at = this.now();
    await this.store.append([this.ev("agent_gone", workspace, id, { reason, replacedBy })], {
      extra: (db) => [setGoneOp(db, id, new Date(at))],
    });
    this.state.remove(id);
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

  /** Operator input we delivered to an interactive agent (the worker does not echo it, §3.5). */
  async input(workspace: string, id: string, text: string | null): Promise<void> {
    await this.store.append([
      text === null
        ? this.ev("input_ended", workspace, id, {})
        : this.ev("input_sent", workspace, id, { text }),
    ]);
  }
}
