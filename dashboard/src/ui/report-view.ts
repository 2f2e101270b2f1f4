/**
 * The agent view's report tab (issue 16 item 4): `Agent.report` — outcome and why it failed,
 * duration, turns, tokens, cost, tool calls by name with their failures, the files changed and the
 * final assistant message — and "Copy markdown", which puts `report.markdown` (the summary a
 * person pastes into a PR or a ticket) on the clipboard. Read when shown, and again when the run
 * ends (the agent view calls {@link ReportView.invalidate}).
 */
import {
  formatCost,
  formatDuration,
  formatInt,
  formatOutcome,
  formatTokens,
  NONE,
} from "../../../src/format/index.js";
import { AGENT_REPORT_QUERY, type AgentReportResult, type RunReport } from "../api/agent-documents.js";
import { request } from "../api/http.js";
import { announce } from "./announce.js";
import { fileStatusLabel } from "./changes-view.js";
import { h, replaceChildren, type Child } from "./dom.js";
import { formatDateTime } from "./format.js";
import { LivePanel } from "./tabs.js";
import { collapsible, exitCodeText, workerLogBlock } from "./timeline-view.js";

/** The changed files the report lists (the report carries at most 50). */
const REPORT_FILES = 50;

/**
 * Put `text` on the clipboard: the Clipboard API where the page may use it (a secure context:
 * https or localhost), else a selected, off-screen textarea and the copy command.
 * @returns whether it was copied.
 */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall back below (e.g. permission refused)
    }
  }
  const area = h("textarea", { class: "visually-hidden", readonly: true, "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  try {
    // The deprecated command is the only way left on plain http (no Clipboard API there).
    return document.execCommand("copy");
  } finally {
    area.remove();
  }
}

/** The report's facts, each value as the shared formatter (src/format) writes it. */
function facts(r: RunReport): Child[] {
  const row = (label: string, value: Child, key: string) => [
    h("dt", {}, label),
    h("dd", { "data-fact": key }, value),
  ];
  const u = r.usage;
  return [
    row("Outcome", formatOutcome(r.outcome, r.outcomeName), "outcome"),
    r.outcomeDetail ? row("Detail", r.outcomeDetail, "detail") : null,
    row("Status", r.status.toLowerCase(), "status"),
    row("Duration", [formatDuration(r.durationMs), r.final ? "" : " (so far)"], "duration"),
    row("Started", formatDateTime(r.startedAt), "started"),
    row("Finished", r.finishedAt ? formatDateTime(r.finishedAt) : NONE, "finished"),
    row("Turns", formatInt(r.turns), "turns"),
    row(
      "Tokens",
      `${formatTokens(u.input)} in / ${formatTokens(u.output)} out · cache ${formatTokens(u.cacheRead)} read / ${formatTokens(u.cacheCreation)} written`,
      "tokens",
    ),
    row("Cost", formatCost(r.estimatedCostUsd), "cost"),
    row(
      "Tool calls",
      `${formatInt(r.toolCallCount)}${r.toolFailureCount ? ` (${formatInt(r.toolFailureCount)} failed)` : ""}`,
      "tool-calls",
    ),
    row("Files changed", filesChanged(r), "files-changed"),
  ];
}

function filesChanged(r: RunReport): string {
  if (r.changes !== "CAPTURED" || r.filesChanged === null) {
    return `${NONE}${r.changesReason ? ` (${r.changesReason})` : ""}`;
  }
  return `${formatInt(r.filesChanged)} (+${formatInt(r.additions ?? 0)} \u2212${formatInt(r.deletions ?? 0)})`;
}

function toolTable(r: RunReport): Child {
  if (r.toolCalls.length === 0) return h("p", { class: "muted" }, "No tool calls.");
  return h(
    "table",
    { class: "report-tools" },
    h("caption", { class: "visually-hidden" }, "Tool calls by name"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Tool"),
        h("th", { scope: "col", class: "num" }, "Calls"),
        h("th", { scope: "col", class: "num" }, "Failed"),
      ),
    ),
    h(
      "tbody",
      {},
      r.toolCalls.map((t) =>
        h(
          "tr",
          { "data-tool": t.name },
          h("th", { scope: "row" }, t.name),
          h("td", { class: "num calls" }, formatInt(t.calls)),
          h("td", { class: t.failures ? "num failures bad" : "num failures" }, formatInt(t.failures)),
        ),
      ),
    ),
  );
}

function fileList(r: RunReport): Child {
  if (r.files.length === 0) return null;
  const more = (r.filesChanged ?? r.files.length) - r.files.length;
  return [
    h(
      "ul",
      { class: "report-files" },
      r.files
        .slice(0, REPORT_FILES)
        .map((f) =>
          h(
            "li",
            { "data-path": f.path },
            h("code", {}, f.path),
            ` (${fileStatusLabel(f.status)}`,
            f.binary || f.additions === null
              ? ", binary"
              : `, +${formatInt(f.additions)} \u2212${formatInt(f.deletions ?? 0)}`,
            ")",
          ),
        ),
    ),
    more > 0 ? h("p", { class: "muted small" }, `and ${formatInt(more)} more (see the changes tab)`) : null,
  ];
}

/** The report tab. */
export class ReportView extends LivePanel {
  private readonly status = h("p", { class: "muted report-loading" });
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly body = h("div", { class: "report-body" });
  private readonly copy = h("button", { type: "button", class: "button copy-markdown" }, "Copy markdown");
  private report: RunReport | null = null;

  constructor() {
    super("report-view");
    this.element.append(this.status, this.error, this.body);
    this.copy.addEventListener("click", () => void this.onCopy());
  }

  protected clear(): void {
    this.report = null;
    replaceChildren(this.body);
    this.setError(null);
    this.status.textContent = "Loading the run report…";
    this.status.hidden = false;
  }

  protected async read(agentId: string, generation: number): Promise<void> {
    try {
      const data = await request<AgentReportResult>(AGENT_REPORT_QUERY, { agentId });
      if (!this.current(generation)) return;
      this.status.hidden = true;
      if (!data.agent) {
        this.setError(`No agent with id ${agentId}.`);
        return;
      }
      this.setError(null);
      this.report = data.agent.report;
      this.render(data.agent.report);
    } catch (err) {
      if (!this.current(generation)) return;
      this.status.hidden = true;
      this.setError(`The run report could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private setError(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = message === null;
  }

  private render(r: RunReport): void {
    const f = r.failure;
    replaceChildren(
      this.body,
      h(
        "p",
        { class: "report-headline", "data-final": String(r.final) },
        r.final ? "The run has ended." : "The run is still going: this is its report so far.",
      ),
      h("div", { class: "button-row" }, this.copy),
      h("dl", { class: "facts report-facts" }, facts(r)),
      f
        ? h(
            "section",
            { class: "report-failure", "aria-labelledby": "report-failure-heading" },
            h("h4", { id: "report-failure-heading" }, "Why it failed"),
            h("p", { class: "exit-code" }, exitCodeText(f.exitCode)),
            workerLogBlock(f.logTail, f.logTruncated, f.reason),
          )
        : null,
      h("h4", {}, "Tool calls"),
      toolTable(r),
      r.files.length ? [h("h4", {}, "Files changed"), fileList(r)] : null,
      h("h4", {}, "Final message"),
      r.finalMessage === null
        ? h("p", { class: "muted final-message" }, NONE)
        : collapsible(h("p", { class: "output final-message" }, r.finalMessage), r.finalMessage),
    );
  }

  private async onCopy(): Promise<void> {
    const r = this.report;
    if (!r) return;
    const ok = await copyText(r.markdown);
    if (ok) {
      this.setError(null);
      announce("The report's markdown is on the clipboard.");
    } else {
      this.setError("The markdown could not be copied: this browser refused clipboard access.");
    }
  }
}
