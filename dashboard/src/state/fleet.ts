/**
 * The fleet as `fleetChanges` describes it: workspaces with their health and the agents caliband
 * lists. A seed (items with `seed: true`, then `FleetSeedComplete`) replaces everything at once, so
 * a reconnect that re-seeds also forgets agents removed while the page was offline.
 */
import type { Agent, FleetChange, WorkspaceHealth } from "../api/types.js";

/** A workspace card's data. */
export interface WorkspaceEntry {
  name: string;
  root: string;
  health: WorkspaceHealth;
}

/** Why an agent left the fleet (`AgentGone`). */
export interface GoneInfo {
  reason: string;
  replacedBy: string | null;
}

/** What a change did, for listeners that react to specific transitions. */
export type FleetUpdate =
  | { type: "seeded" }
  | { type: "agent"; agentId: string; appeared: boolean }
  | { type: "gone"; agentId: string }
  | { type: "workspace"; name: string };

interface Seed {
  workspaces: Map<string, WorkspaceEntry>;
  agents: Map<string, Agent>;
}

/** Live fleet state with change listeners. */
export class FleetState {
  readonly workspaces = new Map<string, WorkspaceEntry>();
  readonly agents = new Map<string, Agent>();
  /** Agents that left the fleet since the page loaded. */
  readonly gone = new Map<string, GoneInfo>();
  /** True once a first seed was complete. */
  seeded = false;
  private seed: Seed | null = null;
  private readonly listeners = new Set<(update: FleetUpdate) => void>();

  /** Call `fn` after every visible change; returns the unsubscribe function. */
  onChange(fn: (update: FleetUpdate) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Apply one `fleetChanges` item. */
  apply(change: FleetChange): void {
    switch (change.__typename) {
      case "AgentAppeared":
        if (change.seed) {
          this.seedBuffer().agents.set(change.agent.agentId, change.agent);
          return;
        }
        this.setAgent(change.agent);
        return;
      case "AgentStatusChanged":
        this.setAgent(change.agent);
        return;
      case "AgentGone":
        this.gone.set(change.agentId, { reason: change.reason.toLowerCase(), replacedBy: change.replacedBy });
        this.agents.delete(change.agentId);
        this.emit({ type: "gone", agentId: change.agentId });
        return;
      case "WorkspaceHealthChanged": {
        const entry = { name: change.workspace.name, root: change.workspace.root, health: change.health };
        if (change.seed) {
          this.seedBuffer().workspaces.set(entry.name, entry);
          return;
        }
        this.workspaces.set(entry.name, entry);
        this.emit({ type: "workspace", name: entry.name });
        return;
      }
      case "FleetSeedComplete": {
        const seed = this.seed;
        this.seed = null;
        // A re-seed after falling behind is followed by the refilled changes themselves.
        if (change.fellBehind && !seed) return;
        replaceMap(this.workspaces, seed?.workspaces ?? new Map());
        replaceMap(this.agents, seed?.agents ?? new Map());
        this.seeded = true;
        this.emit({ type: "seeded" });
        return;
      }
    }
  }

  /**
   * Record an agent read outside the subscription (a mutation's result, a query); ignored once
   * the agent left the fleet, so a late answer never brings a removed row back.
   */
  upsertAgent(agent: Agent): void {
    if (agent.goneAt !== null || this.gone.has(agent.agentId)) return;
    // Before the first seed, the seed itself brings it.
    if (this.seeded || this.agents.has(agent.agentId)) this.setAgent(agent);
  }

  /** Listed agents, newest first. */
  agentsNewestFirst(): Agent[] {
    return [...this.agents.values()].sort(newestFirst);
  }

  private setAgent(agent: Agent): void {
    const appeared = !this.agents.has(agent.agentId);
    this.agents.set(agent.agentId, agent);
    this.emit({ type: "agent", agentId: agent.agentId, appeared });
  }

  private seedBuffer(): Seed {
    this.seed ??= { workspaces: new Map(), agents: new Map() };
    return this.seed;
  }

  private emit(update: FleetUpdate): void {
    for (const fn of this.listeners) fn(update);
  }
}

/** Order of the agent table: newest start first, then id for a stable order. */
export function newestFirst(a: Agent, b: Agent): number {
  return b.startedAt.localeCompare(a.startedAt) || b.agentId.localeCompare(a.agentId);
}

function replaceMap<K, V>(target: Map<K, V>, source: Map<K, V>): void {
  target.clear();
  for (const [k, v] of source) target.set(k, v);
}
