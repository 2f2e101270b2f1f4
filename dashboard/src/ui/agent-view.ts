/**
 * The agent view: facts about one run, its actions (see `agent-actions.ts`), and three tabs
 * (issue 16): its live timeline from `agentEvents` (resumed after the last cursor on reconnect),
 * its changes (`changes-view.ts`, read again when a `ChangesCaptured` item of `fleetChanges` names
 * it: {@link AgentView.onFleetChange}) and its report (`report-view.ts`, read again when a turn or
 * the run ends). The tab is in the URL hash: `#/agent/<id>` (timeline), `#/agent/<id>/changes`,
 * `#/agent/<id>/report`; choosing a tab replaces the hash without a history entry.
 */
import { AGENT_EVENTS, AGENT_QUERY } from "../api/documents.js";
import { NONE } from "../../../src/format/index.js";
import { request } from "../api/http.js";
import type { LiveConnection } from "../api/live.js";
import type { Agent, FleetEvent, RunFailure } from "../api/types.js";
import type { FleetState } from "../state/fleet.js";
import { Timeline } from "../state/timeline.js";
import { AgentActions } from "./agent-actions.js";
import { agentHref } from "./agents-table.js";
import { ChangesView } from "./changes-view.js";
import { h, replaceChildren, type Child } from "./dom.js";
import { formatCost, formatDateTime, formatTokens, statusLabel } from "./format.js";
import { ReportView } from "./report-view.js";
import { agentTabHref, AGENT_TABS, tabFromHash, Tabs, type AgentTab } from "./tabs.js";
import {
  carryOpenState,
  collapsible,
  exitCodeText,
  renderEntry,
  setExpanded,
  workerLogBlock,
} from "./timeline-view.js";

/** How long to wait after a turn's end before re-reading the agent's totals, ms. */
const REFRESH_DEBOUNCE_MS = 500;

/** One open agent. */
interface Open {
  agentId: string;
  timeline: Timeline;
  items: HTMLLIElement[];
  /** The agent as last read by query (for one caliband no longer lists). */
  fetched: Agent | null;
  stop: () => void;
  refreshTimer?: ReturnType<typeof setTimeout>;
  /** The run was seen terminal (its report is read again once when it ends). */
  sawEnd: boolean;
}

/** The tab labels. */
const TAB_LABELS: Readonly<Record<AgentTab, string>> = {
  timeline: "Timeline",
  changes: "Changes",
  report: "Report",
};

/** The agent panel. */
export class AgentView {
  private open: Open | null = null;
  private readonly heading = h("h2", { id: "agent-heading", tabindex: -1 }, "Agent");
  private readonly statusLine = h("p", { class: "agent-status", "aria-live": "polite" });
  private readonly facts = h("dl", { class: "facts" });
  /** Why the run failed (exit code, end of worker.log); hidden unless it ended FAILED or CRASHED. */
  private readonly failure = h("section", {
    class: "failure",
    hidden: true,
    "aria-labelledby": "failure-heading",
  });
  /** What the failure block shows now (see `showFailure`); null while it is hidden. */
  private failureKey: string | null = null;
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly actions = new AgentActions({
    agent: () => this.agent(),
    accepted: (agent, removed) => {
      if (removed && this.open?.agentId === agent.agentId) this.open.fetched = agent;
      else this.fleet.upsertAgent(agent);
      this.refresh();
    },
    report: (message) => this.setError(message),
    refresh: () => this.refresh(),
  });
  private readonly list = h("ol", { class: "timeline", "aria-label": "Events" });
  private readonly scroller = h(
    "div",
    { class: "timeline-scroll", tabindex: 0, role: "region", "aria-label": "Timeline" },
    this.list,
  );
  private readonly streamState = h("p", { class: "muted stream-state" });
  private readonly changes = new ChangesView();
  private readonly report = new ReportView();
  private readonly tabs = new Tabs<AgentTab>(
    "agent",
    "Agent views",
    AGENT_TABS.map((key) => ({
      key,
      label: TAB_LABELS[key],
      content:
        key === "timeline"
          ? h("div", { class: "timeline-panel" }, this.scroller, this.streamState)
          : key === "changes"
            ? this.changes.element
            : this.report.element,
    })),
    (tab) => this.onTab(tab),
  );
  private readonly detail = h(
    "div",
    { class: "agent-detail", hidden: true },
    this.statusLine,
    this.actions.bar,
    this.error,
    this.actions.inputForm,
    this.facts,
    this.failure,
    this.tabs.list,
    this.tabs.panels,
  );
  private readonly placeholder = h(
    "p",
    { class: "muted" },
    "Select an agent in the table to follow its timeline.",
  );

  constructor(
    private readonly container: HTMLElement,
    private readonly fleet: FleetState,
    private readonly live: LiveConnection,
  ) {
    replaceChildren(container, this.heading, this.placeholder, this.detail);
  }

  /**
   * Show `agentId` (or nothing), following its events live, on `tab` (by default the one the URL
   * hash names: `#/agent/<id>/<tab>`, else the timeline).
   */
  show(agentId: string | null, tab: AgentTab = tabFromHash(location.hash)): void {
    if (this.open?.agentId === agentId) {
      if (agentId !== null) this.selectTab(tab);
      return;
    }
    this.close();
    this.placeholder.hidden = agentId !== null;
    this.detail.hidden = agentId === null;
    this.changes.open(agentId);
    this.report.open(agentId);
    if (agentId === null) {
      this.heading.textContent = "Agent";
      return;
    }
    const open: Open = {
      agentId,
      timeline: new Timeline(),
      items: [],
      fetched: null,
      stop: () => {},
      sawEnd: false,
    };
    this.open = open;
    this.selectTab(tab);
    this.list.replaceChildren();
    this.setError(null);
    this.streamState.textContent = "Connecting to the agent's events…";
    this.refresh();
    if (!this.fleet.agents.has(agentId)) void this.fetch(open);
    open.stop = this.live.subscribe<{ agentEvents: FleetEvent }>({
      query: AGENT_EVENTS,
      variables: () => ({ agentId, after: open.timeline.cursor }),
      next: (data) => this.onEvent(open, data.agentEvents),
      error: (message) => {
        if (this.open !== open) return;
        this.streamState.textContent = "";
        this.setError(`The event stream failed: ${message}`);
      },
      complete: () => {
        if (this.open === open) this.streamState.textContent = "The run ended; this is its whole history.";
      },
    });
  }

  /** Move keyboard focus (and the viewport) to the agent's heading, e.g. after choosing it. */
  focus(): void {
    this.heading.focus();
  }

  /**
   * A `fleetChanges` item (main.ts forwards every one): a `ChangesCaptured` item for the agent shown
   * makes its changes and report tabs read again (now if shown, else when shown). Others are ignored.
   */
  onFleetChange(change: { readonly __typename: string }): void {
    const open = this.open;
    if (!open || change.__typename !== "ChangesCaptured") return;
    if (!("agentId" in change) || change.agentId !== open.agentId) return;
    this.changes.invalidate();
    this.report.invalidate();
  }

  /** The selected tab. */
  get tab(): AgentTab {
    return this.tabs.selected;
  }

  private selectTab(tab: AgentTab): void {
    this.tabs.select(tab);
    // The page may give the view more room for a diff (style.css: the changes tab).
    this.container.dataset["tab"] = tab;
    this.changes.setVisible(tab === "changes");
    this.report.setVisible(tab === "report");
  }

  /** The reader chose a tab: show it and put it in the hash (no history entry, no hashchange). */
  private onTab(tab: AgentTab): void {
    this.selectTab(tab);
    const open = this.open;
    if (open) history.replaceState(history.state, "", agentTabHref(open.agentId, tab));
  }

  /** Redraw facts and actions (after any fleet change). */
  refresh(): void {
    const open = this.open;
    if (!open) return;
    const agent = this.agent();
    const listed = this.fleet.agents.has(open.agentId);
    this.actions.update(agent, listed);
    if (!agent) {
      this.heading.textContent = `Agent ${open.agentId}`;
      this.statusLine.textContent = open.fetched === null && !this.error.textContent ? "Loading…" : "";
      replaceChildren(this.facts);
      this.showFailure(null);
      return;
    }
    if (agent.terminal && !open.sawEnd) {
      // The run ended: its report is final now, and its changes are no longer "still going".
      open.sawEnd = true;
      this.report.invalidate();
      this.changes.invalidate();
    }
    const gone = this.fleet.gone.get(open.agentId);
    this.heading.textContent = agent.name;
    const note = listed ? "" : " (no longer listed by caliband)";
    this.statusLine.textContent = `Status: ${statusLabel(agent.status)}${note}`;
    this.statusLine.dataset["status"] = agent.status;
    // Every fleet change redraws the facts: a prompt the reader expanded stays expanded.
    const expanded = [...this.facts.querySelectorAll<HTMLElement>(".collapsible")].map(
      (b) => b.dataset["collapsed"] === "false",
    );
    replaceChildren(this.facts, factRows(agent, gone?.replacedBy ?? null));
    this.facts.querySelectorAll<HTMLElement>(".collapsible").forEach((b, i) => {
      if (expanded[i]) setExpanded(b, true);
    });
    this.showFailure(agent.failure);
  }

  /**
   * Show why the run failed, or hide the block. It is redrawn only when what it shows changed:
   * every fleet change (any agent's) calls this, and a redraw would throw away the reader's scroll
   * position in the worker.log box and any text they selected there.
   */
  private showFailure(f: Agent["failure"]): void {
    // Every field of RunFailure, so that adding one without listing it here fails to compile.
    const shown: Record<keyof RunFailure, unknown> | null =
      f === null
        ? null
        : { exitCode: f.exitCode, logTail: f.logTail, logTruncated: f.logTruncated, reason: f.reason };
    const key = shown === null ? null : JSON.stringify(shown);
    if (key === this.failureKey) return;
    this.failureKey = key;
    this.failure.hidden = f === null;
    if (f === null) {
      replaceChildren(this.failure);
      return;
    }
    replaceChildren(
      this.failure,
      h("h3", { id: "failure-heading" }, "Why it failed"),
      h("p", { class: "exit-code" }, exitCodeText(f.exitCode)),
      workerLogBlock(f.logTail, f.logTruncated, f.reason),
    );
  }

  private close(): void {
    if (!this.open) return;
    this.open.stop();
    clearTimeout(this.open.refreshTimer);
    this.open = null;
    // Another agent's identical failure gets a box of its own (its own scroll position).
    this.showFailure(null);
  }

  private agent(): Agent | null {
    if (!this.open) return null;
    return this.fleet.agents.get(this.open.agentId) ?? this.open.fetched;
  }

  /** Read the agent by query (it is not in the fleet, or its totals changed). */
  private async fetch(open: Open): Promise<void> {
    try {
      const data = await request<{ agent: Agent | null }>(AGENT_QUERY, { agentId: open.agentId });
      if (this.open !== open) return;
      if (data.agent === null) {
        this.setError(`No agent with id ${open.agentId}.`);
      } else {
        open.fetched = data.agent;
        this.fleet.upsertAgent(data.agent);
      }
      this.refresh();
    } catch (err) {
      if (this.open === open) this.setError(err instanceof Error ? err.message : String(err));
    }
  }

  private onEvent(open: Open, event: FleetEvent): void {
    if (this.open !== open) return;
    const index = open.timeline.apply(event);
    const entry = index === null ? undefined : open.timeline.entries[index];
    if (index === null || !entry) return;
    const s = this.scroller;
    const atBottom = s.scrollHeight - s.scrollTop - s.clientHeight < 40;
    const li = renderEntry(entry);
    const old = open.items[index];
    if (old) {
      // Keep an expanded tool call or message expanded when it changes.
      carryOpenState(old, li);
      old.replaceWith(li);
    } else {
      this.list.append(li);
    }
    open.items[index] = li;
    if (atBottom) s.scrollTop = s.scrollHeight;
    if (!open.timeline.finished) this.streamState.textContent = "Following live.";
    if (entry.kind === "usage" || entry.kind === "summary") {
      // A turn ended: re-read the agent's totals (tokens, cost) once the burst settles.
      clearTimeout(open.refreshTimer);
      open.refreshTimer = setTimeout(() => void this.fetch(open), REFRESH_DEBOUNCE_MS);
      this.report.invalidate();
    }
  }

  private setError(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = message === null;
  }
}

/** The facts list of an agent. */
function factRows(agent: Agent, replacedBy: string | null): Child[] {
  const row = (label: string, value: Child) => [h("dt", {}, label), h("dd", {}, value)];
  const spec = agent.spec;
  const link = (id: string) => h("a", { href: agentHref(id) }, id);
  return [
    row("Id", h("code", {}, agent.agentId)),
    row("Workspace", agent.workspace.name),
    row("Model", agent.model ?? spec.model ?? "default"),
    row("Provider", spec.provider?.toLowerCase() ?? "default"),
    row("Source", spec.source ?? "workspace root"),
    row("Tree", agent.isolated ? "own git worktree" : "shared working tree"),
    row("Interactive", agent.interactive ? "yes" : "no"),
    row("Tools", spec.toolAllowlist?.join(", ") ?? "default set"),
    row("Started", formatDateTime(agent.startedAt)),
    agent.finishedAt ? row("Finished", formatDateTime(agent.finishedAt)) : null,
    row("Turns", String(agent.turns)),
    row("Tokens", formatTokens(agent.usage)),
    row("Cost", formatCost(agent.estimatedCostUsd)),
    row("Outcome", agent.outcome ?? (agent.terminal ? NONE : "still running")),
    agent.respawnedFrom ? row("Respawned from", link(agent.respawnedFrom.agentId)) : null,
    replacedBy ? row("Replaced by", link(replacedBy)) : null,
    row("Prompt", collapsible(h("p", { class: "prompt" }, spec.prompt), spec.prompt)),
  ];
}
