/**
 * The served, in-memory view of the fleet: each workspace's health and the agents caliband
 * currently lists (plus ones we just spawned, #122). Loaded from durable history at start
 * (run table + last health event) and changed only after the corresponding events commit, by
 * the {@link Recorder}. Readers get copies.
 */
import type { Endpoint } from "../caliband/wire.js";
import type { PrismaClient } from "../generated/prisma/client.js";

/** An agent in the served view. `status` is caliband's raw status string. */
export interface AgentView {
  id: string;
  workspace: string;
  name: string;
  status: string;
  interactive: boolean;
  isolated: boolean;
  /** SpawnSpec as caliband echoed it. */
  spec: Record<string, unknown>;
  sessionDir: string;
  workingDir: string;
  endpoint: Endpoint | null;
  startedAt: Date;
}

/** Health of a workspace's caliband. `since` is when the state was entered. */
export interface WorkspaceHealth {
  state: "unknown" | "healthy" | "unreachable";
  reason: string | null;
  since: Date;
}

/** Served fleet view. */
export class FleetState {
  private readonly agents = new Map<string, Map<string, AgentView>>();
  private readonly health = new Map<string, WorkspaceHealth>();
  /** agent id → workspace, for every agent we know of (served or just spawned). */
  private readonly owner = new Map<string, string>();

  /** Load not-gone runs and last health per workspace from the store. */
  async load(db: PrismaClient, workspaces: readonly string[]): Promise<void> {
    for (const ws of workspaces) this.ensureWorkspace(ws);
    const rows = await db.agent.findMany({ where: { goneAt: null, workspace: { in: [...workspaces] } } });
    for (const r of rows) {
      this.put({
        id: r.id,
        workspace: r.workspace,
        name: r.name,
        status: r.status,
        interactive: r.interactive,
        isolated: r.isolated,
        spec: (r.spec ?? {}) as Record<string, unknown>,
        sessionDir: r.sessionDir,
        workingDir: r.workingDir,
        endpoint: null,
        startedAt: r.startedAt,
      });
    }
    for (const ws of workspaces) {
      const last = await db.event.findFirst({
        where: { streamKey: `workspace:${ws}`, kind: "workspace_health" },
        orderBy: { seq: "desc" },
      });
      if (last) {
        const p = last.payload as { state?: string; reason?: string | null };
        if (p.state === "healthy" || p.state === "unreachable") {
          this.health.set(ws, { state: p.state, reason: p.reason ?? null, since: last.ts });
        }
      }
    }
  }

  /** Make sure a workspace has an (empty) entry. */
  ensureWorkspace(ws: string): void {
    if (!this.agents.has(ws)) this.agents.set(ws, new Map());
    if (!this.health.has(ws)) this.health.set(ws, { state: "unknown", reason: null, since: new Date() });
  }

  /** Forget a workspace (unregistered). */
  dropWorkspace(ws: string): void {
    for (const id of this.agents.get(ws)?.keys() ?? []) this.owner.delete(id);
    this.agents.delete(ws);
    this.health.delete(ws);
  }

  /** Insert or replace an agent. */
  put(a: AgentView): void {
    this.ensureWorkspace(a.workspace);
    this.agents.get(a.workspace)!.set(a.id, { ...a });
    this.owner.set(a.id, a.workspace);
  }

  /** Update fields of a served agent (no-op if absent). */
  patch(id: string, fields: Partial<Omit<AgentView, "id" | "workspace">>): void {
    const ws = this.owner.get(id);
    const a = ws ? this.agents.get(ws)?.get(id) : undefined;
    if (a) Object.assign(a, fields);
  }

  /** Remove an agent from the served view. */
  remove(id: string): void {
    const ws = this.owner.get(id);
    if (ws) this.agents.get(ws)?.delete(id);
    this.owner.delete(id);
  }

  /** One served agent (a copy). */
  agent(id: string): AgentView | undefined {
    const ws = this.owner.get(id);
    const a = ws ? this.agents.get(ws)?.get(id) : undefined;
    return a ? { ...a } : undefined;
  }

  /** Workspace serving an agent id. */
  workspaceOf(id: string): string | undefined {
    return this.owner.get(id);
  }

  /** Served agents of a workspace, by start time (copies). */
  agentsOf(ws: string): AgentView[] {
    return [...(this.agents.get(ws)?.values() ?? [])]
      .map((a) => ({ ...a }))
      .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.id.localeCompare(b.id));
  }

  /** Health of a workspace. */
  healthOf(ws: string): WorkspaceHealth {
    return { ...(this.health.get(ws) ?? { state: "unknown", reason: null, since: new Date(0) }) };
  }

  /** Set health (called after the transition event committed). */
  setHealth(ws: string, h: WorkspaceHealth): void {
    this.health.set(ws, { ...h });
  }
}
