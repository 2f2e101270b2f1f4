/**
 * The agents table's state (issue 16 item 5): what is asked (status, workspace, search, order,
 * page size, page position) — kept in the URL hash query, so a link reproduces it
 * (`#/agents?status=DONE&q=fix&sort=COST_DESC`) — and the page the gateway answered.
 *
 * Live without polling: rows of listed runs follow the subscription's agents as they arrive;
 * a new run, an ended one or a gone one makes the current page be read again (debounced, and only
 * while the table is shown — a hidden table is read once it is shown again).
 */
import type {
  AgentOrder,
  AgentOrderField,
  AgentRow,
  AgentsPageResult,
  AgentsPageVariables,
} from "../api/agents-documents.js";
import { AGENT_STATUSES, type AgentStatus, type FleetChange } from "../api/types.js";

/** Page sizes the table offers. */
export const PAGE_SIZES = [25, 50, 100] as const;

/** A page size the table offers. */
export type PageSize = (typeof PAGE_SIZES)[number];

/** Order fields of the API, as the table names them. */
export const ORDER_FIELDS: readonly AgentOrderField[] = [
  "STARTED_AT",
  "FINISHED_AT",
  "NAME",
  "STATUS",
  "COST",
  "TOKENS",
];

/** The order the gateway uses when none is given (newest first). */
export const DEFAULT_ORDER: AgentOrder = { field: "STARTED_AT", direction: "DESC" };

/** Longest search the gateway accepts (AgentFilter.search). */
export const SEARCH_MAX = 200;

/** What the table asks for; every field has a URL form ({@link toQueryString}). */
export interface AgentsQuery {
  /** Only these statuses (empty: all). */
  status: AgentStatus[];
  /** Only this workspace (null: all). */
  workspace: string | null;
  /** Label / prompt search ("" = none); at most {@link SEARCH_MAX} characters. */
  search: string;
  order: AgentOrder;
  size: PageSize;
  /** The page: after this cursor (forward), before it (backward), or the first page. */
  after: string | null;
  before: string | null;
  /** How many runs come before this page (for "showing 26–50 of 312"; display only). */
  offset: number;
}

/** The first page, every run, newest first, 25 a page. */
export function defaultQuery(): AgentsQuery {
  return {
    status: [],
    workspace: null,
    search: "",
    order: { ...DEFAULT_ORDER },
    size: 25,
    after: null,
    before: null,
    offset: 0,
  };
}

/** True when the query narrows the runs (a status, a workspace or a search). */
export function isFiltered(q: AgentsQuery): boolean {
  return q.status.length > 0 || q.workspace !== null || q.search.trim() !== "";
}

/** `COST_DESC` → the order; null for anything else. */
export function parseOrder(text: string): AgentOrder | null {
  const m = /^([A-Z_]+)_(ASC|DESC)$/.exec(text);
  if (!m) return null;
  const field = ORDER_FIELDS.find((f) => f === m[1]);
  return field ? { field, direction: m[2] === "ASC" ? "ASC" : "DESC" } : null;
}

/** The order as the URL writes it: `COST_DESC`. */
export function orderText(o: AgentOrder): string {
  return `${o.field}_${o.direction}`;
}

/**
 * The query of a hash's query string (`status=DONE,FAILED&ws=demo&q=fix&sort=COST_DESC&size=50&after=…&at=25`).
 * Unknown statuses, orders and sizes are ignored (the default stays), never an error.
 */
export function parseQueryString(text: string): AgentsQuery {
  const p = new URLSearchParams(text);
  const q = defaultQuery();
  const statuses = (p.get("status") ?? "")
    .split(",")
    .map((s) => s.trim().toUpperCase())
    .flatMap((s) => AGENT_STATUSES.filter((k) => k === s));
  q.status = [...new Set(statuses)];
  const ws = p.get("ws");
  q.workspace = ws !== null && ws !== "" ? ws : null;
  q.search = (p.get("q") ?? "").slice(0, SEARCH_MAX);
  q.order = parseOrder(p.get("sort") ?? "") ?? { ...DEFAULT_ORDER };
  const size = Number(p.get("size"));
  q.size = PAGE_SIZES.find((s) => s === size) ?? 25;
  q.after = p.get("after") || null;
  q.before = q.after === null ? p.get("before") || null : null;
  const at = Number(p.get("at"));
  q.offset = q.after !== null || q.before !== null ? (Number.isInteger(at) && at > 0 ? at : 0) : 0;
  return q;
}

/** The URL form of a query (defaults left out: the plain `#/agents` is the default table). */
export function toQueryString(q: AgentsQuery): string {
  const p = new URLSearchParams();
  if (q.status.length) p.set("status", q.status.join(","));
  if (q.workspace !== null) p.set("ws", q.workspace);
  if (q.search !== "") p.set("q", q.search);
  if (orderText(q.order) !== orderText(DEFAULT_ORDER)) p.set("sort", orderText(q.order));
  if (q.size !== 25) p.set("size", String(q.size));
  if (q.after !== null) p.set("after", q.after);
  else if (q.before !== null) p.set("before", q.before);
  if ((q.after !== null || q.before !== null) && q.offset > 0) p.set("at", String(q.offset));
  return p.toString();
}

/** The route of a query: `#/agents` or `#/agents?…`. */
export function agentsHref(q: AgentsQuery): string {
  const qs = toQueryString(q);
  return qs ? `#/agents?${qs}` : "#/agents";
}

/** The GraphQL variables of a query. */
export function pageVariables(q: AgentsQuery): AgentsPageVariables {
  const search = q.search.trim();
  return {
    ...(q.before !== null ? { last: q.size, before: q.before } : { first: q.size }),
    ...(q.after !== null ? { after: q.after } : {}),
    filter: {
      ...(q.status.length ? { status: q.status } : {}),
      ...(q.workspace !== null ? { workspace: q.workspace } : {}),
      ...(search !== "" ? { search } : {}),
    },
    orderBy: q.order,
  };
}

/** The order a click on a column header asks for: the other direction, or the column's natural one. */
export function toggledOrder(current: AgentOrder, field: AgentOrderField): AgentOrder {
  if (current.field === field) return { field, direction: current.direction === "ASC" ? "DESC" : "ASC" };
  // Names and statuses read A→Z; times, costs and tokens biggest (latest) first.
  return { field, direction: field === "NAME" || field === "STATUS" ? "ASC" : "DESC" };
}

/** The page the gateway answered. */
export interface AgentsPage {
  rows: AgentRow[];
  total: number;
  hasNext: boolean;
  hasPrevious: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** Where the table is: asked, answered, or failed. */
export type AgentsPhase = "loading" | "ready" | "error";

/** Pause between a change that moves the page and the read that follows it, ms. */
export const REREAD_DEBOUNCE_MS = 400;

/** Reads a page (the gateway, or a test's stand-in). */
export type PageReader = (vars: AgentsPageVariables) => Promise<AgentsPageResult>;

/**
 * The current query and page. `load` reads the page; `follow` takes each `fleetChanges` item.
 * Listeners run after every change of what the table shows.
 */
export class AgentsState {
  query: AgentsQuery = defaultQuery();
  page: AgentsPage | null = null;
  phase: AgentsPhase = "loading";
  error: string | null = null;
  /** A read was asked for while hidden (or while one was on its way). */
  private stale = false;
  private active = false;
  private inFlight = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly read: PageReader) {}

  /** Call `fn` after every change; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The table is shown (reads a page when one is due) or hidden (reads nothing). */
  setActive(active: boolean): void {
    this.active = active;
    if (active && (this.stale || this.page === null)) this.reload();
  }

  /**
   * Ask for `q` (from the URL): reads its page when it differs from the current query (or
   * nothing was read yet).
   */
  setQuery(q: AgentsQuery): void {
    const same = toQueryString(q) === toQueryString(this.query);
    this.query = q;
    if (!same || this.page === null) {
      // A new question: nothing of the old answer is shown as its answer.
      this.phase = "loading";
      this.emit();
      this.reload();
    }
  }

  /** Read the current page now (or once shown). */
  reload(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.active) {
      this.stale = true;
      return;
    }
    this.stale = false;
    void this.fetch();
  }

  /** One `fleetChanges` item: update a listed row, or read the page again when runs came or went. */
  follow(change: FleetChange): void {
    switch (change.__typename) {
      case "AgentAppeared":
        if (change.seed) return;
        this.updateRow(change.agent);
        this.soon();
        return;
      case "AgentStatusChanged": {
        const listed = this.updateRow(change.agent);
        // An ended run (or one whose status the filter or order depends on) may move or leave.
        if (
          change.agent.terminal ||
          !listed ||
          this.query.status.length > 0 ||
          this.query.order.field !== "STARTED_AT"
        )
          this.soon();
        return;
      }
      case "AgentGone":
        this.soon();
        return;
      case "FleetSeedComplete":
        // A (re)subscription: what changed while the socket was down is in the next read.
        if (this.page !== null) this.soon();
        return;
      default:
        return;
    }
  }

  /** Read again after {@link REREAD_DEBOUNCE_MS} (several changes: one read). */
  private soon(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reload();
    }, REREAD_DEBOUNCE_MS);
  }

  /** Replace a listed row by the subscription's newer agent; false when it is not listed. */
  private updateRow(agent: AgentRow): boolean {
    const rows = this.page?.rows;
    const i = rows?.findIndex((r) => r.agentId === agent.agentId) ?? -1;
    if (!rows || i < 0) return false;
    rows[i] = agent;
    this.emit();
    return true;
  }

  private async fetch(): Promise<void> {
    if (this.inFlight) {
      // One read at a time; the newest question is read right after.
      this.stale = true;
      return;
    }
    this.inFlight = true;
    const q = this.query;
    let applied = false;
    try {
      const data = await this.read(pageVariables(q));
      const c = data.agents;
      if (!c) throw new Error("the gateway answered no page");
      // Asked something else meanwhile: that is read next, this answer is dropped.
      if (q === this.query) {
        this.page = {
          rows: c.edges.map((e) => e.node),
          total: c.totalCount,
          hasNext: c.pageInfo.hasNextPage,
          hasPrevious: c.pageInfo.hasPreviousPage,
          startCursor: c.pageInfo.startCursor,
          endCursor: c.pageInfo.endCursor,
        };
        // Back at the start (a backward page with nothing before it): the first page.
        if (q.before !== null && !c.pageInfo.hasPreviousPage) q.offset = 0;
        this.phase = "ready";
        this.error = null;
        applied = true;
      }
    } catch (err) {
      if (q === this.query) {
        this.phase = "error";
        this.error = err instanceof Error ? err.message : String(err);
        applied = true;
      }
    } finally {
      this.inFlight = false;
    }
    if (!applied) this.stale = true;
    this.emit();
    if (this.stale && this.active) this.reload();
  }

  /** Whether a read is on its way (the table says so without hiding the rows it shows). */
  get busy(): boolean {
    return this.inFlight;
  }

  private emit(): void {
    for (const fn of this.listeners) fn();
  }
}
