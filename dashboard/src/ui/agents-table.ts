/**
 * The agent table (status, age, model, tokens, cost, outcome), updated row by row so a focused
 * link keeps its focus while the fleet changes around it.
 */
import type { Agent } from "../api/types.js";
import type { FleetState } from "../state/fleet.js";
import { h, replaceChildren } from "./dom.js";
import { formatAge, formatCost, formatInt, statusLabel } from "./format.js";

/** Link target of an agent's view. */
export function agentHref(agentId: string): string {
  return `#/agent/${agentId}`;
}

interface Row {
  tr: HTMLTableRowElement;
  link: HTMLAnchorElement;
  workspace: HTMLTableCellElement;
  status: HTMLSpanElement;
  age: HTMLTableCellElement;
  model: HTMLTableCellElement;
  tokens: HTMLTableCellElement;
  cost: HTMLTableCellElement;
  outcome: HTMLTableCellElement;
  agent: Agent;
}

/** The table and its rows by agent id. */
export class AgentsTable {
  private readonly rows = new Map<string, Row>();
  private readonly tbody = h("tbody");
  private readonly empty = h(
    "tr",
    { class: "empty" },
    h("td", { colspan: 8 }, "No agents. Launch one with the form below."),
  );
  private selected: string | null = null;

  constructor(container: HTMLElement) {
    const col = (label: string, cls?: string) => h("th", { scope: "col", class: cls }, label);
    replaceChildren(
      container,
      h(
        "table",
        { class: "agents", "aria-describedby": "agents-caption" },
        h(
          "caption",
          { id: "agents-caption", class: "visually-hidden" },
          "Agents caliband lists, newest first",
        ),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            col("Agent"),
            col("Workspace"),
            col("Status"),
            col("Age", "num"),
            col("Model"),
            col("Tokens (in / out)", "num"),
            col("Cost", "num"),
            col("Outcome"),
          ),
        ),
        this.tbody,
      ),
    );
    this.tbody.append(this.empty);
  }

  /** Bring the rows in line with the fleet (adds, updates, removes). */
  sync(fleet: FleetState): void {
    for (const [id, row] of this.rows) {
      if (!fleet.agents.has(id)) {
        row.tr.remove();
        this.rows.delete(id);
      }
    }
    const ordered = fleet.agentsNewestFirst();
    let older: Row | undefined;
    // Walk oldest to newest: a new row goes right above the next older one (existing rows never
    // move: their order is fixed by their start time).
    for (let i = ordered.length - 1; i >= 0; i--) {
      const agent = ordered[i];
      if (!agent) continue;
      let row = this.rows.get(agent.agentId);
      if (!row) {
        row = this.createRow(agent);
        this.rows.set(agent.agentId, row);
        this.tbody.insertBefore(row.tr, older?.tr ?? null);
      }
      this.fill(row, agent);
      older = row;
    }
    if (this.rows.size > 0) this.empty.remove();
    else this.tbody.append(this.empty);
  }

  /** Mark the agent whose view is open. */
  select(agentId: string | null): void {
    this.selected = agentId;
    for (const [id, row] of this.rows) {
      if (id === agentId) row.link.setAttribute("aria-current", "true");
      else row.link.removeAttribute("aria-current");
      row.tr.classList.toggle("selected", id === agentId);
    }
  }

  /** Refresh the age column (called on a timer; no network). */
  tick(now = Date.now()): void {
    for (const row of this.rows.values()) row.age.textContent = this.age(row.agent, now);
  }

  private createRow(agent: Agent): Row {
    const link = h("a", { href: agentHref(agent.agentId) });
    const status = h("span", { class: "badge" });
    const cell = (cls?: string) => h("td", { class: cls });
    const row: Row = {
      tr: h("tr", { "data-agent-id": agent.agentId }),
      link,
      workspace: cell(),
      status,
      age: cell("num"),
      model: cell(),
      tokens: cell("num"),
      cost: cell("num"),
      outcome: cell(),
      agent,
    };
    row.tr.append(
      h("th", { scope: "row" }, link),
      row.workspace,
      h("td", { class: "status-cell" }, status),
      row.age,
      row.model,
      row.tokens,
      row.cost,
      row.outcome,
    );
    if (agent.agentId === this.selected) {
      link.setAttribute("aria-current", "true");
      row.tr.classList.add("selected");
    }
    return row;
  }

  private fill(row: Row, agent: Agent): void {
    row.agent = agent;
    row.link.textContent = agent.name;
    row.link.title = agent.agentId;
    row.workspace.textContent = agent.workspace.name;
    row.status.textContent = statusLabel(agent.status);
    row.status.className = `badge status-${agent.status.toLowerCase()}`;
    row.tr.dataset["status"] = agent.status;
    row.age.textContent = this.age(agent, Date.now());
    row.model.textContent = agent.model ?? "default";
    row.tokens.textContent = `${formatInt(agent.usage.input)} / ${formatInt(agent.usage.output)}`;
    row.cost.textContent = formatCost(agent.estimatedCostUsd);
    row.outcome.textContent = agent.outcome ?? (agent.terminal ? "none" : "…");
  }

  private age(agent: Agent, now: number): string {
    return formatAge(now - Date.parse(agent.startedAt));
  }
}
