/**
 * The launch panel of the queue view: one launch's facts, its attempts (each a run, with how it
 * ended) and its state changes, and a cancel button while it is not final (for operators of its
 * workspace). Read by query when opened and again after each `LaunchChanged` of that launch
 * (debounced; no timer).
 */
import { LAUNCH_QUERY } from "../api/documents.js";
import { request } from "../api/http.js";
import { mayOperate, type Viewer } from "../api/session.js";
import { FINAL_LAUNCH_STATES, type LaunchAttempt, type LaunchDetail } from "../api/types.js";
import { agentHref } from "./agents-table.js";
import { h, replaceChildren, type Child } from "./dom.js";
import { formatDateTime, formatDuration, launchStateLabel } from "./format.js";
import { cancelLaunch, launchName, type ActionSink } from "./launch-actions.js";
import { waitText } from "./queue-view.js";

/** Pause after a change of the open launch before reading it again, ms (a burst is one read). */
const RELOAD_DEBOUNCE_MS = 150;

/** The panel. */
export class LaunchPanel {
  private launchId: string | null = null;
  private detail: LaunchDetail | null = null;
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;
  private readonly heading = h("h2", { id: "queue-launch-heading", tabindex: -1 }, "Launch");
  private readonly statusLine = h("p", { class: "launch-status", "aria-live": "polite" });
  private readonly facts = h("dl", { class: "facts" });
  private readonly cancel = h("button", { type: "button", class: "button danger" }, "Cancel launch");
  private readonly bar = h(
    "div",
    { class: "button-row actions", role: "group", "aria-label": "Launch actions" },
    this.cancel,
  );
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly attemptRows = h("tbody");
  private readonly transitions = h("ol", {
    class: "transitions",
    "aria-labelledby": "queue-transitions-heading",
  });
  private readonly body = h(
    "div",
    { class: "agent-detail", hidden: true },
    this.statusLine,
    this.facts,
    this.bar,
    this.error,
    h("h3", { id: "queue-attempts-heading" }, "Attempts"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "data attempts", "aria-labelledby": "queue-attempts-heading" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["#", "Run", "Kind", "Requested", "Outcome", "Error"].map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        this.attemptRows,
      ),
    ),
    h("h3", { id: "queue-transitions-heading" }, "State changes"),
    this.transitions,
  );
  private readonly placeholder = h(
    "p",
    { class: "muted" },
    "Select a launch to see its attempts and state changes.",
  );

  constructor(
    container: HTMLElement,
    private readonly viewer: Viewer,
    private readonly sink: ActionSink,
  ) {
    replaceChildren(container, this.heading, this.placeholder, this.body);
    this.cancel.addEventListener("click", () => void this.onCancel());
  }

  /** Open `launchId` (or close with null). */
  show(launchId: string | null): void {
    if (launchId === this.launchId) return;
    this.launchId = launchId;
    this.detail = null;
    this.generation++;
    clearTimeout(this.timer);
    this.placeholder.hidden = launchId !== null;
    this.body.hidden = launchId === null;
    this.setError(null);
    if (launchId === null) {
      this.heading.textContent = "Launch";
      return;
    }
    this.heading.textContent = `Launch ${launchId}`;
    this.statusLine.textContent = "Loading…";
    replaceChildren(this.facts);
    replaceChildren(this.attemptRows);
    replaceChildren(this.transitions);
    this.bar.hidden = true;
    void this.load();
  }

  /** Move keyboard focus to the panel's heading (after choosing a launch). */
  focus(): void {
    this.heading.focus();
  }

  /** A launch changed (live item or mutation result): read it again if it is the open one. */
  changed(launchId: string): void {
    if (launchId !== this.launchId) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), RELOAD_DEBOUNCE_MS);
  }

  /** Read the open launch again (e.g. after the live connection was re-established). */
  reload(): void {
    if (this.launchId !== null) this.changed(this.launchId);
  }

  private async load(): Promise<void> {
    const launchId = this.launchId;
    if (launchId === null) return;
    const generation = ++this.generation;
    try {
      const data = await request<{ launch: LaunchDetail | null }>(LAUNCH_QUERY, { launchId });
      if (generation !== this.generation) return;
      if (data.launch === null) {
        this.statusLine.textContent = "";
        this.setError(`No launch with id ${launchId}.`);
        return;
      }
      this.detail = data.launch;
      this.draw();
    } catch (err) {
      if (generation === this.generation) this.setError(err instanceof Error ? err.message : String(err));
    }
  }

  private draw(): void {
    const l = this.detail;
    if (!l) return;
    this.heading.textContent = launchName(l);
    const state = l.state === "UNKNOWN" ? l.stateName.toLowerCase() : launchStateLabel(l.state);
    const where =
      l.state === "QUEUED"
        ? ` · position ${l.queuePosition ?? "—"} · ${waitText(l, Date.now())}`
        : l.reason
          ? ` · ${l.reason}`
          : "";
    this.statusLine.textContent = `State: ${state}${where}`;
    this.statusLine.dataset["state"] = l.state;
    replaceChildren(this.facts, factRows(l));
    this.bar.hidden = FINAL_LAUNCH_STATES.has(l.state) || !mayOperate(this.viewer, l.workspace.name);
    this.cancel.setAttribute("aria-disabled", String(this.busy));
    replaceChildren(
      this.attemptRows,
      l.attempts.length === 0
        ? h("tr", { class: "empty" }, h("td", { colspan: 6 }, "No attempt yet."))
        : l.attempts.map((a) => attemptRow(a, l.retry.maxAttempts)),
    );
    const more = l.transitions.totalCount - l.transitions.edges.length;
    replaceChildren(
      this.transitions,
      more > 0 ? h("li", { class: "muted" }, `${more} earlier state changes not shown`) : null,
      l.transitions.edges.map(({ node: t }) =>
        h(
          "li",
          { "data-to": t.to },
          h("time", { datetime: t.at, class: "ts" }, formatDateTime(t.at)),
          " ",
          h(
            "span",
            { class: "transition" },
            `${t.from === null ? "enqueued" : launchStateLabel(t.from)} → ${launchStateLabel(t.to)}`,
          ),
          // The reason may name the attempt already ("attempt 2 of 3 after …").
          t.attempt === null || t.reason?.includes(`attempt ${t.attempt}`)
            ? null
            : h("span", { class: "muted" }, ` · attempt ${t.attempt}`),
          t.reason ? h("span", { class: "reason" }, ` · ${t.reason}`) : null,
        ),
      ),
    );
  }

  private async onCancel(): Promise<void> {
    const l = this.detail;
    if (!l || this.busy) return;
    this.busy = true;
    // aria-disabled, not disabled: a disabled button would lose the keyboard focus.
    this.cancel.setAttribute("aria-disabled", "true");
    try {
      await cancelLaunch(l, {
        launch: (launch) => {
          this.sink.launch(launch);
          this.changed(launch.launchId);
        },
        schedule: (s) => this.sink.schedule(s),
        report: (message) => this.setError(message),
      });
    } finally {
      this.busy = false;
      this.cancel.setAttribute("aria-disabled", "false");
    }
  }

  private setError(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = message === null;
  }
}

function attemptRow(a: LaunchAttempt, maxAttempts: number): HTMLTableRowElement {
  const run = a.agent ?? (a.agentId ? { agentId: a.agentId, name: a.agentId } : null);
  const ran =
    a.endedAt !== null ? ` (${formatDuration(Date.parse(a.endedAt) - Date.parse(a.requestedAt))})` : "";
  const outcome =
    a.outcome === null
      ? "running"
      : a.outcome === "UNKNOWN"
        ? (a.outcomeName ?? "unknown")
        : launchStateLabel(a.outcome);
  return h(
    "tr",
    { "data-attempt": a.n, "data-outcome": a.outcome ?? "RUNNING" },
    h("th", { scope: "row", class: "num" }, `${a.n}/${maxAttempts}`),
    h("td", {}, run ? h("a", { href: agentHref(run.agentId) }, run.name) : "—"),
    h("td", {}, a.respawnOf ? `${a.kind} of ${a.respawnOf}` : a.kind),
    h("td", {}, formatDateTime(a.requestedAt)),
    h("td", {}, `${outcome}${ran}${a.transient ? " · transient" : ""}`),
    h("td", {}, a.error ?? ""),
  );
}

function factRows(l: LaunchDetail): Child[] {
  const row = (label: string, value: Child) => [h("dt", {}, label), h("dd", {}, value)];
  const spec = l.spec;
  const r = l.retry;
  return [
    row("Id", h("code", {}, l.launchId)),
    row("Workspace", l.workspace.name),
    row("Priority", String(l.priority)),
    row("Attempts", `${l.attemptCount} of at most ${r.maxAttempts}`),
    r.maxAttempts > 1
      ? row("Retry backoff", `${formatDuration(r.backoffMs)}, up to ${formatDuration(r.maxBackoffMs)}`)
      : null,
    row("Timeout", l.timeoutMs === null ? "none" : formatDuration(l.timeoutMs)),
    l.dedupKey ? row("Dedup key", h("code", {}, l.dedupKey)) : null,
    l.notBefore ? row("Not before", formatDateTime(l.notBefore)) : null,
    l.retryAt ? row("Retry at", formatDateTime(l.retryAt)) : null,
    l.agent ? row("Run", h("a", { href: agentHref(l.agent.agentId) }, l.agent.name)) : null,
    l.schedule ? row("Schedule", l.schedule.name) : null,
    row("Enqueued", `${formatDateTime(l.createdAt)}${l.createdBy ? ` by ${l.createdBy}` : ""}`),
    l.dispatchedAt ? row("Dispatched", formatDateTime(l.dispatchedAt)) : null,
    l.startedAt ? row("Started", formatDateTime(l.startedAt)) : null,
    l.finishedAt ? row("Finished", formatDateTime(l.finishedAt)) : null,
    l.reason ? row("Reason", l.reason) : null,
    row("Model", spec.model ?? "workspace default"),
    row("Provider", spec.provider?.toLowerCase() ?? "workspace default"),
    row("Source", spec.source ?? "workspace root"),
    row("Tree", spec.isolated ? "own git worktree" : "shared working tree"),
    spec.interactive ? row("Interactive", "yes") : null,
    spec.toolAllowlist ? row("Tools", spec.toolAllowlist.join(", ")) : null,
    row("Prompt", h("p", { class: "prompt" }, spec.prompt)),
  ];
}
