/**
 * The queue view's main column: counts, caps in use and budgets; the waiting launches in dispatch
 * order with why each waits; the dispatched and running ones; the most recent final ones; the
 * schedules with their next fire time; and the enqueue form. Rows update in place from the
 * {@link QueueState} (itself live from `fleetChanges`); the action buttons appear only where the
 * token may use them (operator within the launch's workspace).
 */
import { mayOperate, type Viewer } from "../api/session.js";
import type { Budget, Cap, Launch, Schedule } from "../api/types.js";
import type { QueueState } from "../state/queue.js";
import { agentHref } from "./agents-table.js";
import { h, replaceChildren } from "./dom.js";
import {
  excerpt,
  formatAge,
  formatCost,
  formatDateTime,
  formatRelative,
  launchStateLabel,
} from "./format.js";
import { KeyedTable, type CellContent, type Column } from "./keyed-table.js";
import {
  cancelLaunch,
  launchHref,
  launchName,
  scheduleAction,
  type ActionSink,
  type ScheduleAction,
} from "./launch-actions.js";

/** "global", "workspace demo", "provider anthropic". */
export function capName(cap: { scope: string; key: string }): string {
  return cap.scope === "GLOBAL" ? "global" : `${cap.scope.toLowerCase()} ${cap.key}`;
}

function since(iso: string | null, now: number): string {
  return iso === null ? "—" : formatAge(now - Date.parse(iso));
}

function launchLink(l: Launch): CellContent {
  const name = launchName(l);
  return {
    key: `${l.launchId}|${name}`,
    content: h("a", { href: launchHref(l.launchId), title: l.launchId }, name),
  };
}

function agentLink(l: Launch): CellContent {
  const a = l.agent;
  if (!a) return "—";
  return { key: `${a.agentId}|${a.name}`, content: h("a", { href: agentHref(a.agentId) }, a.name) };
}

function stateBadge(l: Launch): CellContent {
  const label = l.state === "UNKNOWN" ? l.stateName.toLowerCase() : launchStateLabel(l.state);
  return {
    key: `${l.state}|${label}`,
    content: h("span", { class: `badge launch-${l.state.toLowerCase().replace(/_/g, "-")}` }, label),
  };
}

function attempts(l: Launch): string {
  const n = `${l.attemptCount}/${l.retry.maxAttempts}`;
  return l.attemptCount > 1 ? `${n} (retried)` : n;
}

/** Why a queued launch waits, in words, with when the wait ends by itself. */
export function waitText(l: Launch, now: number): string {
  const w = l.waitingFor;
  if (!w) return l.notBefore && Date.parse(l.notBefore) > now ? "not before its time" : "next dispatch pass";
  return w.until ? `${w.message} (${formatRelative(Date.parse(w.until), now)})` : w.message;
}

function section(id: string, title: string, ...body: (Node | null)[]): HTMLElement {
  return h("section", { "aria-labelledby": id, class: "queue-section" }, h("h2", { id }, title), ...body);
}

/** The queue view's main column. */
export class QueueView {
  /** The view's first heading (focused when the view is opened). */
  readonly heading = h("h2", { id: "queue-heading", tabindex: -1 }, "Launch queue");
  private readonly summary = h("p", { class: "queue-summary" });
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly caps: KeyedTable<Cap>;
  private readonly budgets: KeyedTable<Budget>;
  private readonly waitingTable: KeyedTable<Launch>;
  private readonly activeTable: KeyedTable<Launch>;
  private readonly recentTable: KeyedTable<Launch>;
  private readonly scheduleTable: KeyedTable<Schedule>;
  private readonly loading = h("p", { class: "muted" }, "Loading the queue…");
  /** Launch ids and schedule ids with a mutation on its way (their buttons are disabled). */
  private readonly busy = new Set<string>();
  private readonly cancelButtons = new Map<string, HTMLButtonElement>();
  private readonly scheduleButtons = new Map<
    string,
    { box: HTMLElement; toggle: HTMLButtonElement; run: HTMLButtonElement }
  >();

  /**
   * @param container the queue's main column
   * @param enqueue the enqueue form's element (placed last; null when the token may not enqueue)
   * @param sink where action results and errors go (the view shows errors itself when
   *   `sink.report` is its own)
   */
  constructor(
    container: HTMLElement,
    private readonly state: QueueState,
    private readonly viewer: Viewer,
    enqueue: HTMLElement | null,
    private readonly sink: ActionSink,
  ) {
    const cancelCol: Column<Launch> = {
      header: "Actions",
      cell: (l) => this.cancelCell(l),
    };
    this.caps = new KeyedTable<Cap>({
      caption: "Concurrency caps: live runs counted and the most allowed",
      hideCaption: true,
      cls: "caps",
      empty: "No caps.",
      key: (c) => `${c.scope}:${c.key}`,
      rowData: (c) => ({ cap: `${c.scope}:${c.key}`, full: String(c.inUse >= c.max) }),
      columns: [
        { header: "Cap", rowHeader: true, cell: (c) => capName(c) },
        { header: "In use", cls: "num", cell: (c) => `${c.inUse} / ${c.max}` },
        { header: "", cell: (c) => (c.inUse >= c.max ? "full" : "") },
      ],
    });
    this.budgets = new KeyedTable<Budget>({
      caption: "Spend budgets of the current period",
      hideCaption: true,
      cls: "budgets",
      empty: "No budgets set.",
      key: (b) => `${b.scope}:${b.key}:${b.period}`,
      rowData: (b) => ({ budget: `${b.scope}:${b.key}:${b.period}`, exhausted: String(b.exhausted) }),
      columns: [
        {
          header: "Budget",
          rowHeader: true,
          cell: (b) => `${b.scope.toLowerCase()} ${b.key} · ${b.period === "DAY" ? "today" : "this month"}`,
        },
        {
          header: "Spent / limit",
          cls: "num",
          cell: (b) => `${formatCost(b.spentUsd)} / ${formatCost(b.limitUsd)}`,
        },
        { header: "", cell: (b) => (b.exhausted ? "exhausted" : "") },
      ],
    });
    const launchRow = (l: Launch) => ({ launchId: l.launchId, state: l.state });
    this.waitingTable = new KeyedTable<Launch>({
      caption: "Waiting launches, in dispatch order",
      hideCaption: true,
      cls: "launches waiting",
      empty: "Nothing waits.",
      key: (l) => l.launchId,
      rowData: launchRow,
      columns: [
        { header: "#", cls: "num", cell: (l) => (l.queuePosition === null ? "—" : String(l.queuePosition)) },
        { header: "Launch", rowHeader: true, cell: launchLink },
        { header: "Workspace", cell: (l) => l.workspace.name },
        {
          header: "Prompt",
          cell: (l) => ({
            key: l.spec.prompt,
            content: h("span", { class: "excerpt", title: l.spec.prompt }, excerpt(l.spec.prompt)),
          }),
        },
        { header: "Priority", cls: "num", cell: (l) => String(l.priority) },
        { header: "Age", cls: "num", cell: (l, now) => since(l.createdAt, now) },
        { header: "Why it waits", cls: "wait", cell: (l, now) => waitText(l, now) },
        cancelCol,
      ],
    });
    this.activeTable = new KeyedTable<Launch>({
      caption: "Dispatched and running launches",
      hideCaption: true,
      cls: "launches active",
      empty: "Nothing runs.",
      key: (l) => l.launchId,
      rowData: launchRow,
      columns: [
        { header: "Launch", rowHeader: true, cell: launchLink },
        { header: "Workspace", cell: (l) => l.workspace.name },
        { header: "State", cell: stateBadge },
        { header: "Agent", cell: agentLink },
        { header: "Attempt", cls: "num", cell: attempts },
        { header: "Since", cls: "num", cell: (l, now) => since(l.startedAt ?? l.dispatchedAt, now) },
        cancelCol,
      ],
    });
    this.recentTable = new KeyedTable<Launch>({
      caption: "Recently finished launches, last finished first",
      hideCaption: true,
      cls: "launches recent",
      empty: "No launch finished yet.",
      key: (l) => l.launchId,
      rowData: launchRow,
      columns: [
        { header: "Launch", rowHeader: true, cell: launchLink },
        { header: "Workspace", cell: (l) => l.workspace.name },
        { header: "State", cell: stateBadge },
        { header: "Attempts", cls: "num", cell: attempts },
        { header: "Agent", cell: agentLink },
        {
          header: "Finished",
          cls: "num",
          cell: (l, now) => (l.finishedAt ? `${formatAge(now - Date.parse(l.finishedAt))} ago` : "—"),
        },
        { header: "Reason", cell: (l) => l.reason ?? "" },
      ],
    });
    this.scheduleTable = new KeyedTable<Schedule>({
      caption: "Schedules by name",
      hideCaption: true,
      cls: "schedules",
      empty: "No schedules.",
      key: (s) => s.scheduleId,
      rowData: (s) => ({ scheduleId: s.scheduleId, paused: String(s.paused) }),
      columns: [
        { header: "Schedule", rowHeader: true, cell: (s) => s.name },
        { header: "Workspace", cell: (s) => s.workspace.name },
        { header: "Cron", cell: (s) => `${s.cron} (${s.timeZone})` },
        {
          header: "Next fire",
          cls: "next-fire",
          cell: (s, now) =>
            s.paused || s.nextFireAt === null
              ? "paused"
              : `${formatDateTime(s.nextFireAt)} (${formatRelative(Date.parse(s.nextFireAt), now)})`,
        },
        {
          header: "Last fire",
          cell: (s) => (s.lastFireAt ? formatDateTime(s.lastFireAt) : "never"),
        },
        { header: "Prompt", cell: (s) => excerpt(s.template.spec.prompt, 60) },
        { header: "Actions", cell: (s) => this.scheduleCell(s) },
      ],
    });

    const wrap = (t: HTMLTableElement) => h("div", { class: "table-wrap" }, t);
    replaceChildren(
      container,
      h(
        "section",
        { "aria-labelledby": "queue-heading", class: "queue-section" },
        this.heading,
        this.summary,
        this.loading,
        this.error,
        h(
          "div",
          { class: "limits" },
          h(
            "section",
            { "aria-labelledby": "queue-caps-heading" },
            h("h3", { id: "queue-caps-heading" }, "Caps in use"),
            wrap(this.caps.element),
          ),
          h(
            "section",
            { "aria-labelledby": "queue-budgets-heading" },
            h("h3", { id: "queue-budgets-heading" }, "Budgets"),
            wrap(this.budgets.element),
          ),
        ),
      ),
      section("queue-waiting-heading", "Waiting", wrap(this.waitingTable.element)),
      section("queue-active-heading", "Running", wrap(this.activeTable.element)),
      section("queue-recent-heading", "Recently finished", wrap(this.recentTable.element)),
      section("queue-schedules-heading", "Schedules", wrap(this.scheduleTable.element)),
      enqueue ? section("queue-enqueue-heading", "Enqueue a launch", enqueue) : null,
    );
  }

  /** Show an action's error (or clear it). */
  report(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = message === null;
  }

  /** Redraw from the state. */
  render(now = Date.now()): void {
    this.loading.hidden = this.state.loaded;
    const s = this.state.summary;
    const waiting = this.state.waiting();
    const active = this.state.active();
    this.summary.textContent = s
      ? [
          `${s.depth} waiting`,
          `${s.running} running`,
          s.dispatched > 0 ? `${s.dispatched} dispatched` : null,
          s.oldestQueuedAt ? `oldest waits ${since(s.oldestQueuedAt, now)}` : null,
        ]
          .filter((x) => x !== null)
          .join(" · ")
      : "";
    this.caps.sync(s?.caps ?? [], now);
    this.budgets.sync(s?.budgets ?? [], now);
    const more = (total: number, shown: number) => (total > shown ? `and ${total - shown} more` : null);
    this.waitingTable.sync(waiting, now, more(this.state.totals.waiting, waiting.length));
    this.activeTable.sync(active, now, more(this.state.totals.active, active.length));
    this.recentTable.sync(this.state.recent(), now);
    this.scheduleTable.sync(this.state.scheduleList(), now);
    for (const id of this.cancelButtons.keys())
      if (!this.state.launches.has(id)) this.cancelButtons.delete(id);
    for (const id of this.scheduleButtons.keys())
      if (!this.state.schedules.has(id)) this.scheduleButtons.delete(id);
  }

  /** Redraw ages and next fire times (a timer; no request). */
  tick(now = Date.now()): void {
    for (const t of [this.waitingTable, this.activeTable, this.recentTable]) t.tick(now);
    this.scheduleTable.tick(now);
  }

  /**
   * The cancel button of a launch's row: one element per launch, kept across redraws (so it keeps
   * the focus, and the confirmation dialog gives the focus back to it). While its mutation runs it
   * is `aria-disabled` and its clicks are ignored.
   */
  private cancelCell(l: Launch): CellContent {
    if (!mayOperate(this.viewer, l.workspace.name)) return "";
    let button = this.cancelButtons.get(l.launchId);
    if (!button) {
      const id = l.launchId;
      button = h(
        "button",
        { type: "button", class: "button danger small", onclick: () => void this.onCancel(id) },
        "Cancel",
      );
      this.cancelButtons.set(id, button);
    }
    button.setAttribute("aria-label", `Cancel launch ${launchName(l)}`);
    // aria-disabled, not disabled: a disabled button would lose the keyboard focus.
    button.setAttribute("aria-disabled", String(this.busy.has(l.launchId)));
    return { key: `cancel|${l.launchId}`, content: button };
  }

  /** Pause/resume (one button, its label follows the schedule) and run now, kept across redraws. */
  private scheduleCell(s: Schedule): CellContent {
    if (!mayOperate(this.viewer, s.workspace.name)) return "";
    let b = this.scheduleButtons.get(s.scheduleId);
    if (!b) {
      const id = s.scheduleId;
      const toggle = h("button", {
        type: "button",
        class: "button small",
        onclick: () => {
          const now = this.state.schedules.get(id);
          if (now) void this.onSchedule(now.paused ? "resume" : "pause", id);
        },
      });
      const run = h(
        "button",
        { type: "button", class: "button small", onclick: () => void this.onSchedule("run", id) },
        "Run now",
      );
      b = { box: h("div", { class: "row-actions" }, toggle, run), toggle, run };
      this.scheduleButtons.set(id, b);
    }
    const verb = s.paused ? "Resume" : "Pause";
    b.toggle.textContent = verb;
    b.toggle.setAttribute("aria-label", `${verb} schedule ${s.name}`);
    b.run.setAttribute("aria-label", `Run schedule ${s.name} now`);
    for (const button of [b.toggle, b.run])
      button.setAttribute("aria-disabled", String(this.busy.has(s.scheduleId)));
    return { key: `schedule|${s.scheduleId}`, content: b.box };
  }

  private async onCancel(launchId: string): Promise<void> {
    const launch = this.state.launches.get(launchId);
    if (!launch || this.busy.has(launchId)) return;
    this.busy.add(launchId);
    this.render();
    try {
      await cancelLaunch(launch, this.sink);
    } finally {
      this.busy.delete(launchId);
      this.render();
    }
  }

  private async onSchedule(action: ScheduleAction, scheduleId: string): Promise<void> {
    const schedule = this.state.schedules.get(scheduleId);
    if (!schedule || this.busy.has(scheduleId)) return;
    this.busy.add(scheduleId);
    this.render();
    try {
      await scheduleAction(action, schedule, this.sink);
    } finally {
      this.busy.delete(scheduleId);
      this.render();
    }
  }
}
