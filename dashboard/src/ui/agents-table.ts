/**
 * The agents table v2 (`#/agents`, issue 16 item 5): every run the gateway stored — finished and
 * gone ones included — one page at a time from the `agents` connection, with filters (status,
 * workspace, label/prompt search), an order (column headers with `aria-sort`, or the "Sort by"
 * choice on narrow screens), a page size and previous/next by cursor. What is asked lives in the
 * URL hash (src/state/agents.ts), so a link reproduces the table; the controls only navigate.
 *
 * Rows are keyed and updated in place (a focused link keeps its focus while the fleet changes);
 * a long prompt is cut with an ellipsis; below 720 px the rows are stacked blocks.
 */
import { AGENT_STATUSES, type AgentStatus } from "../api/types.js";
import type { AgentOrderField, AgentRow } from "../api/agents-documents.js";
import {
  PAGE_SIZES,
  SEARCH_MAX,
  defaultQuery,
  isFiltered,
  orderText,
  parseOrder,
  toggledOrder,
  type AgentsQuery,
  type AgentsState,
} from "../state/agents.js";
import type { FleetState } from "../state/fleet.js";
import { h, replaceChildren } from "./dom.js";
import { KeyedTable, type Column } from "./keyed-table.js";
import {
  NONE,
  excerpt,
  formatAge,
  formatCost,
  formatInt,
  formatTokenCount,
  outcomeText,
  statusLabel,
} from "./format.js";

/** Link target of an agent's view. */
export function agentHref(agentId: string): string {
  return `#/agent/${agentId}`;
}

/** Pause after the last keystroke of a search before it is asked, ms. */
const SEARCH_DEBOUNCE_MS = 300;

/** The "Sort by" choices (field and direction), in the order offered. */
const SORT_CHOICES: readonly [string, string][] = [
  ["STARTED_AT_DESC", "Started, newest first"],
  ["STARTED_AT_ASC", "Started, oldest first"],
  ["FINISHED_AT_DESC", "Ended, latest first"],
  ["FINISHED_AT_ASC", "Ended, earliest first"],
  ["NAME_ASC", "Name, A to Z"],
  ["NAME_DESC", "Name, Z to A"],
  ["STATUS_ASC", "Status, active first"],
  ["STATUS_DESC", "Status, ended first"],
  ["COST_DESC", "Cost, highest first"],
  ["COST_ASC", "Cost, lowest first"],
  ["TOKENS_DESC", "Tokens, most first"],
  ["TOKENS_ASC", "Tokens, fewest first"],
];

/** How the table asks to show another query (the URL changes; `replace` for typing). */
export type Navigate = (q: AgentsQuery, opts?: { replace?: boolean }) => void;

/** "Showing 1–25 of 312" (or "Showing 0 of 0"). */
export function rangeText(offset: number, rows: number, total: number): string {
  if (rows === 0) return `Showing 0 of ${formatInt(total)}`;
  return `Showing ${formatInt(offset + 1)}–${formatInt(offset + rows)} of ${formatInt(total)}`;
}

/** The table, its controls and its states, bound to the agents state. */
export class AgentsTable {
  private readonly table: KeyedTable<AgentRow>;
  private readonly search = h("input", {
    id: "agents-search",
    type: "search",
    name: "q",
    autocomplete: "off",
    maxlength: SEARCH_MAX,
    placeholder: "Label or prompt",
  });
  private readonly workspace = h("select", { id: "agents-workspace", name: "ws" });
  private readonly sort = h(
    "select",
    { id: "agents-sort", name: "sort" },
    SORT_CHOICES.map(([value, label]) => h("option", { value }, label)),
  );
  private readonly size = h(
    "select",
    { id: "agents-size", name: "size" },
    PAGE_SIZES.map((n) => h("option", { value: String(n) }, String(n))),
  );
  private readonly statusBoxes = new Map<AgentStatus, HTMLInputElement>();
  private readonly clear = h("button", { type: "button", class: "button" }, "Clear filters");
  private readonly summary = h("p", { class: "agents-summary", "aria-live": "polite" });
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly offline = h(
    "p",
    { class: "agents-offline", hidden: true },
    "Not connected to the gateway: these rows may be out of date until the connection is back.",
  );
  private readonly prev = h("button", { type: "button", class: "button" }, "Previous");
  private readonly next = h("button", { type: "button", class: "button" }, "Next");
  private readonly pagerText = h("span", { class: "pager-text" });
  private readonly wrap: HTMLDivElement;
  private readonly sortButtons = new Map<AgentOrderField, { th: HTMLTableCellElement; mark: HTMLElement }>();
  private selected: string | null = null;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    container: HTMLElement,
    private readonly state: AgentsState,
    private readonly fleet: FleetState,
    private readonly navigate: Navigate,
  ) {
    const sortable = (field: AgentOrderField): { sort: AgentOrderField } => ({ sort: field });
    const columns: (Column<AgentRow> & { sort?: AgentOrderField })[] = [
      {
        header: "Agent",
        rowHeader: true,
        cls: "agent-cell",
        ...sortable("NAME"),
        cell: (a) => {
          const current = a.agentId === this.selected;
          const prompt = a.spec.prompt.trim();
          return {
            key: `${a.name}\u0000${a.agentId}\u0000${prompt}\u0000${current}`,
            content: [
              h(
                "a",
                {
                  href: agentHref(a.agentId),
                  title: a.agentId,
                  "aria-current": current ? "true" : undefined,
                },
                a.name,
              ),
              prompt ? h("span", { class: "prompt-excerpt", title: prompt }, excerpt(prompt, 160)) : null,
            ],
          };
        },
      },
      { header: "Workspace", cell: (a) => a.workspace.name },
      {
        header: "Status",
        cls: "status-cell",
        ...sortable("STATUS"),
        cell: (a) => ({
          key: `${a.status}\u0000${a.goneAt !== null}`,
          content: [
            h("span", { class: `badge status-${a.status.toLowerCase()}` }, statusLabel(a.status)),
            a.goneAt !== null
              ? h("span", { class: "gone-note muted", title: "caliband no longer lists this run" }, " gone")
              : null,
          ],
        }),
      },
      {
        header: "Started",
        cls: "num",
        ...sortable("STARTED_AT"),
        cell: (a, now) => `${formatAge(now - Date.parse(a.startedAt))} ago`,
      },
      {
        header: "Ended",
        cls: "num",
        ...sortable("FINISHED_AT"),
        cell: (a, now) => (a.finishedAt ? `${formatAge(now - Date.parse(a.finishedAt))} ago` : NONE),
      },
      { header: "Model", cell: (a) => a.model ?? "default" },
      {
        header: "Tokens (in / out)",
        cls: "num",
        ...sortable("TOKENS"),
        cell: (a) => `${formatTokenCount(a.usage.input)} / ${formatTokenCount(a.usage.output)}`,
      },
      { header: "Cost", cls: "num", ...sortable("COST"), cell: (a) => formatCost(a.estimatedCostUsd) },
      { header: "Outcome", cls: "outcome-cell", cell: (a) => (a.terminal ? outcomeText(a.outcome) : "…") },
    ];
    this.table = new KeyedTable<AgentRow>({
      caption: "Agent runs, history included",
      hideCaption: true,
      cls: "agents",
      columns,
      key: (a) => a.agentId,
      rowData: (a) => ({
        agentId: a.agentId,
        status: a.status,
        selected: String(a.agentId === this.selected),
      }),
      empty: "Loading…",
    });
    columns.forEach((c, i) => {
      const th = this.table.headers[i];
      if (!th || !c.sort) return;
      const field = c.sort;
      const mark = h("span", { class: "sort-mark", "aria-hidden": "true" });
      const button = h("button", { type: "button", class: "sort-button" }, c.header, mark);
      button.addEventListener("click", () =>
        this.go({ ...this.state.query, order: toggledOrder(this.state.query.order, field) }),
      );
      replaceChildren(th, button);
      this.sortButtons.set(field, { th, mark });
    });

    const statuses = h(
      "fieldset",
      { class: "status-filter" },
      h("legend", {}, "Status"),
      AGENT_STATUSES.filter((s) => s !== "UNKNOWN").map((s) => {
        const box = h("input", { type: "checkbox", id: `agents-status-${s.toLowerCase()}`, value: s });
        box.addEventListener("change", () =>
          this.go({ ...this.state.query, status: this.checkedStatuses() }),
        );
        this.statusBoxes.set(s, box);
        return h("span", { class: "check" }, box, h("label", { for: box.id }, statusLabel(s)));
      }),
    );
    const field = (id: string, label: string, control: HTMLElement) =>
      h("div", { class: "field" }, h("label", { for: id }, label), control);
    const filters = h(
      "form",
      { class: "agents-filters", role: "search", "aria-label": "Filter agents" },
      field("agents-search", "Search", this.search),
      field("agents-workspace", "Workspace", this.workspace),
      field("agents-sort", "Sort by", this.sort),
      field("agents-size", "Per page", this.size),
      statuses,
      h("div", { class: "filter-actions" }, this.clear),
    );
    filters.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.searchNow(false);
    });
    this.search.addEventListener("input", () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => this.searchNow(true), SEARCH_DEBOUNCE_MS);
    });
    this.workspace.addEventListener("change", () =>
      this.go({ ...this.state.query, workspace: this.workspace.value || null }),
    );
    this.sort.addEventListener("change", () => {
      const order = parseOrder(this.sort.value);
      if (order) this.go({ ...this.state.query, order });
    });
    this.size.addEventListener("change", () => {
      const size = PAGE_SIZES.find((n) => String(n) === this.size.value);
      if (size) this.go({ ...this.state.query, size });
    });
    this.clear.addEventListener("click", () => {
      const q = defaultQuery();
      this.go({ ...q, order: this.state.query.order, size: this.state.query.size });
    });
    this.prev.addEventListener("click", () => this.page(-1));
    this.next.addEventListener("click", () => this.page(1));

    this.wrap = h("div", { class: "table-wrap agents-wrap" }, this.table.element);
    replaceChildren(
      container,
      filters,
      this.offline,
      this.error,
      this.summary,
      this.wrap,
      h("nav", { class: "pager", "aria-label": "Agent pages" }, this.prev, this.pagerText, this.next),
    );
    state.onChange(() => this.render());
    this.syncWorkspaces();
    this.render();
  }

  /** Offer the fleet's workspaces (and the one the URL names, known or not). */
  syncWorkspaces(): void {
    const names = new Set(this.fleet.workspaces.keys());
    const asked = this.state.query.workspace;
    if (asked !== null) names.add(asked);
    const wanted = ["", ...[...names].sort()];
    const shown = Array.from(this.workspace.options, (o) => o.value);
    if (shown.join("\n") !== wanted.join("\n")) {
      replaceChildren(
        this.workspace,
        wanted.map((n) => h("option", { value: n }, n === "" ? "All workspaces" : n)),
      );
    }
    this.workspace.value = asked ?? "";
  }

  /** Mark the run whose view is open. */
  select(agentId: string | null): void {
    if (this.selected === agentId) return;
    this.selected = agentId;
    this.render();
  }

  /** The live connection is up or down (down: a note says the rows may be stale). */
  setConnected(connected: boolean): void {
    this.offline.hidden = connected;
  }

  /** Redraw the age columns (local clock only, no requests). */
  tick(now = Date.now()): void {
    this.table.tick(now);
  }

  /** Bring the controls and rows in line with the state. */
  render(): void {
    const { query: q, page, phase } = this.state;
    // Controls show the query (the URL's), except a search being typed.
    if (document.activeElement !== this.search && this.search.value !== q.search)
      this.search.value = q.search;
    this.syncWorkspaces();
    this.sort.value = SORT_CHOICES.some(([v]) => v === orderText(q.order))
      ? orderText(q.order)
      : "STARTED_AT_DESC";
    this.size.value = String(q.size);
    for (const [s, box] of this.statusBoxes) box.checked = q.status.includes(s);
    this.clear.hidden = !isFiltered(q);
    for (const [field, { th, mark }] of this.sortButtons) {
      const on = q.order.field === field;
      if (on) th.setAttribute("aria-sort", q.order.direction === "ASC" ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
      mark.textContent = on ? (q.order.direction === "ASC" ? " ▲" : " ▼") : "";
    }

    this.error.hidden = phase !== "error";
    this.error.textContent =
      phase === "error" ? `The agents could not be read: ${this.state.error ?? ""}` : "";
    const answered = phase !== "loading" && page !== null;
    const rows = answered ? page.rows : [];
    this.table.setEmpty(
      !answered
        ? "Loading…"
        : phase === "error"
          ? "The agents could not be read."
          : isFiltered(q)
            ? "No agents match"
            : "No runs yet",
    );
    this.table.sync(rows, Date.now());
    this.table.element.setAttribute("aria-busy", String(this.state.busy));
    if (!answered) {
      this.summary.textContent = "Loading…";
      this.pagerText.textContent = "";
    } else {
      const text = rangeText(q.offset, rows.length, page.total);
      this.summary.textContent =
        rows.length === 0 ? (isFiltered(q) ? "No agents match" : "No runs yet") : text;
      this.pagerText.textContent = rows.length === 0 ? "" : text;
    }
    const pager = this.prev.parentElement;
    this.prev.disabled = !answered || !page.hasPrevious || (q.after === null && q.before === null);
    this.next.disabled = !answered || !page.hasNext;
    if (pager) pager.hidden = answered && this.prev.disabled && this.next.disabled;
  }

  private checkedStatuses(): AgentStatus[] {
    return [...this.statusBoxes].filter(([, box]) => box.checked).map(([s]) => s);
  }

  private searchNow(replace: boolean): void {
    clearTimeout(this.searchTimer);
    const search = this.search.value.slice(0, SEARCH_MAX);
    if (search.trim() === this.state.query.search.trim()) return;
    this.go({ ...this.state.query, search }, replace);
  }

  /** Ask for a new question: back to its first page. */
  private go(q: AgentsQuery, replace = false): void {
    this.navigate({ ...q, after: null, before: null, offset: 0 }, { replace });
  }

  private page(step: -1 | 1): void {
    const { query: q, page } = this.state;
    if (!page) return;
    if (step === 1 && page.endCursor !== null) {
      this.navigate({ ...q, after: page.endCursor, before: null, offset: q.offset + page.rows.length });
    } else if (step === -1 && page.startCursor !== null) {
      const offset = Math.max(0, q.offset - q.size);
      // The page before the first one after the start is the first page itself.
      this.navigate(
        offset === 0
          ? { ...q, after: null, before: null, offset: 0 }
          : { ...q, after: null, before: page.startCursor, offset },
      );
    }
  }
}
