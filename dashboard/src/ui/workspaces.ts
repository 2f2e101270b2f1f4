/**
 * Workspace cards (shown in the overview, issue 16): health of each caliband and how many of its
 * agents are in each status. While the page's live connection is down the health is "unknown" —
 * the last state read may no longer be true, so a card never says "healthy" then (issue 16 item 5).
 */
import { AGENT_STATUSES, type AgentStatus } from "../api/types.js";
import type { FleetState, WorkspaceEntry } from "../state/fleet.js";
import { h, replaceChildren } from "./dom.js";
import { formatDateTime, statusLabel } from "./format.js";

/** The health a card shows: the workspace's, or UNKNOWN while the page is not connected. */
function shownHealth(w: WorkspaceEntry, connected: boolean): WorkspaceEntry["health"]["state"] {
  return connected ? w.health.state : "UNKNOWN";
}

function healthText(w: WorkspaceEntry, connected: boolean): string {
  if (!connected) return "unknown (not connected)";
  switch (w.health.state) {
    case "HEALTHY":
      return "healthy";
    case "UNREACHABLE":
      return w.health.reason ? `unreachable: ${w.health.reason}` : "unreachable";
    default:
      return "not polled yet";
  }
}

function card(w: WorkspaceEntry, counts: Map<AgentStatus, number>, connected: boolean): HTMLElement {
  const id = `workspace-${w.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const present = AGENT_STATUSES.filter((s) => (counts.get(s) ?? 0) > 0);
  return h(
    "article",
    { class: "card", "aria-labelledby": id, "data-workspace": w.name },
    h("h3", { id }, w.name),
    h(
      "p",
      {
        class: `health health-${shownHealth(w, connected).toLowerCase()}`,
        "data-health": shownHealth(w, connected),
        title: connected
          ? `since ${formatDateTime(w.health.since)}`
          : `The live connection is down; last read: ${healthText(w, true)} since ${formatDateTime(w.health.since)}`,
      },
      h("span", { class: "dot", "aria-hidden": "true" }),
      healthText(w, connected),
    ),
    h("p", { class: "root muted" }, w.root),
    total === 0
      ? h("p", { class: "muted" }, "No agents.")
      : h(
          "ul",
          { class: "counts", "aria-label": `${total} agent${total === 1 ? "" : "s"} by status` },
          present.map((s) =>
            h(
              "li",
              { class: `badge status-${s.toLowerCase()}`, "data-status": s },
              h("span", { class: "count" }, String(counts.get(s))),
              ` ${statusLabel(s)}`,
            ),
          ),
        ),
  );
}

/**
 * Render every workspace card into `container` (nothing before the fleet's first seed: the
 * container keeps its loading text).
 * @param connected whether the live connection is up; false shows every health as "unknown".
 */
export function renderWorkspaces(container: HTMLElement, fleet: FleetState, connected = true): void {
  if (!fleet.seeded) return;
  const counts = new Map<string, Map<AgentStatus, number>>();
  for (const a of fleet.agents.values()) {
    const byStatus = counts.get(a.workspace.name) ?? new Map<AgentStatus, number>();
    byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    counts.set(a.workspace.name, byStatus);
  }
  const workspaces = [...fleet.workspaces.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (workspaces.length === 0) {
    replaceChildren(
      container,
      h("p", { class: "muted" }, "No workspace is registered. Add one with `prospero workspace add`."),
    );
    return;
  }
  replaceChildren(
    container,
    workspaces.map((w) => card(w, counts.get(w.name) ?? new Map(), connected)),
  );
}
