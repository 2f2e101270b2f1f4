/**
 * Rendering of timeline entries (see `state/timeline.ts`), one list item per entry: a tool call is
 * one line that expands (details/summary) to its input and result; a long message is collapsed
 * after `COLLAPSED_LINES` (state/timeline.ts) lines behind "Show more".
 */
import { isLongText, type TimelineEntry } from "../state/timeline.js";
import { h, type Child } from "./dom.js";
import { formatClock, formatCost, formatDuration, formatInt, formatTokens, statusLabel } from "./format.js";

let collapseIds = 0;

/**
 * `content` (showing `text`) as is when short; when {@link isLongText}, wrapped in a box that shows
 * its first `COLLAPSED_LINES` lines and a "Show more" / "Show less" button (aria-expanded,
 * aria-controls the content).
 */
export function collapsible(content: HTMLElement, text: string): HTMLElement {
  if (!isLongText(text)) return content;
  content.id ||= `collapsible-${++collapseIds}`;
  content.classList.add("collapse-body");
  const button = h(
    "button",
    { type: "button", class: "link-button show-more", "aria-expanded": "false", "aria-controls": content.id },
    "Show more",
  );
  const box = h("div", { class: "collapsible", "data-collapsed": "true" }, content, button);
  button.addEventListener("click", () => setExpanded(box, box.dataset["collapsed"] === "true"));
  return box;
}

/** Expand (or collapse again) a box made by {@link collapsible}. */
export function setExpanded(box: HTMLElement, expanded: boolean): void {
  box.dataset["collapsed"] = String(!expanded);
  const button = box.querySelector<HTMLButtonElement>(":scope > .show-more");
  if (!button) return;
  button.setAttribute("aria-expanded", String(expanded));
  button.textContent = expanded ? "Show less" : "Show more";
}

/**
 * Carry what the reader opened in an entry's old rendering over to its new one (an expanded tool
 * call stays expanded when its result arrives; an expanded long message stays expanded as it grows).
 */
export function carryOpenState(from: Element, to: Element): void {
  if (from.querySelector("details")?.open) to.querySelector("details")?.setAttribute("open", "");
  const was = from.querySelector<HTMLElement>(".collapsible");
  const box = to.querySelector<HTMLElement>(".collapsible");
  if (was?.dataset["collapsed"] === "false" && box) setExpanded(box, true);
}

function time(ts: string): HTMLTimeElement {
  return h("time", { datetime: ts, class: "ts" }, formatClock(ts));
}

function pretty(value: unknown, raw: string | null): string {
  if (value === null || value === undefined) return raw ?? "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

/**
 * A one-line hint of a tool's input: its first string argument (e.g. the file path), first as the
 * model wrote it — `inputRaw`, the exact text, when it parses — since a store may not keep the
 * order of an object's keys (PostgreSQL's jsonb sorts them), else of `input`.
 */
export function inputPreview(input: unknown, inputRaw: string | null = null): string {
  let value = input;
  if (inputRaw) {
    try {
      value = JSON.parse(inputRaw) as unknown;
    } catch {
      // not JSON (yet: a tool still streaming its input): the structured value
    }
  }
  if (typeof value === "string") return value.slice(0, 80);
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) if (typeof v === "string") return v.slice(0, 80);
  }
  return "";
}

function toolEntry(e: Extract<TimelineEntry, { kind: "tool" }>): Child[] {
  const state = e.ok === null ? "running…" : e.ok ? "ok" : "failed";
  const preview = inputPreview(e.input, e.inputRaw);
  return [
    h(
      "details",
      { class: "tool" },
      h(
        "summary",
        {},
        h("span", { class: "label" }, "tool"),
        " ",
        h("strong", { class: "tool-name" }, e.name || "(unknown tool)"),
        preview ? [" ", h("code", { class: "tool-preview" }, preview)] : null,
        " ",
        h("span", { class: e.ok === false ? "tool-state bad" : "tool-state" }, state),
        e.durationMs === null ? null : h("span", { class: "muted" }, ` · ${formatDuration(e.durationMs)}`),
      ),
      h("h4", {}, "Input"),
      h("pre", { class: "tool-input" }, pretty(e.input, e.inputRaw) || "(not finished)"),
      h("h4", {}, e.truncated ? "Result (truncated)" : "Result"),
      h("pre", { class: "tool-result" }, e.result ?? "(not finished)"),
      h("p", { class: "muted small" }, `id ${e.toolUseId}`),
    ),
  ];
}

/** The exit code line of a failed run (the code is inferred from its RunEnd; caliband reports none). */
export function exitCodeText(exitCode: number | null): string {
  return exitCode === null
    ? "Exit code unknown (no RunEnd was read; caliband does not report exit codes)."
    : `Exit code ${exitCode} (inferred from the RunEnd's stop condition).`;
}

/**
 * The end of a failed run's worker.log as a `<pre class="worker-log">` (text, never markup), or
 * why it could not be read.
 */
export function workerLogBlock(tail: string | null, truncated: boolean, reason: string | null): Child[] {
  if (tail === null)
    return [h("p", { class: "muted" }, `worker.log not available: ${reason ?? "unknown reason"}`)];
  return [
    truncated ? h("p", { class: "muted small" }, "Last lines of worker.log (earlier lines left out):") : null,
    h("pre", { class: "worker-log" }, tail === "" ? "(worker.log is empty)" : tail),
  ];
}

function body(e: TimelineEntry): Child[] {
  switch (e.kind) {
    case "status":
      return [
        h("span", { class: "label" }, "status"),
        ` ${statusLabel(e.from)} → `,
        h("strong", {}, statusLabel(e.to)),
      ];
    case "turn":
      return [h("span", { class: "label" }, `turn ${e.turnIndex}`), ` started · ${e.model}`];
    case "text":
      return [
        e.stream === "text" ? null : h("span", { class: "label" }, e.stream),
        collapsible(h("p", { class: `output output-${e.stream}` }, e.text), e.text),
      ];
    case "tool":
      return toolEntry(e);
    case "usage":
      return [
        h("span", { class: "label" }, `turn ${e.turnIndex}`),
        ` ended (${e.stopReason}) · ${formatTokens(e.usage)}`,
        e.usage.cacheRead || e.usage.cacheCreation
          ? ` · cache ${formatInt(e.usage.cacheRead)} read / ${formatInt(e.usage.cacheCreation)} written`
          : null,
        ` · ${formatCost(e.costUsd)}`,
        e.ttftMs === null ? null : ` · first token ${formatDuration(e.ttftMs)}`,
      ];
    case "summary":
      return [
        h("h4", {}, "Run finished"),
        h(
          "dl",
          { class: "facts compact" },
          h("dt", {}, "Outcome"),
          h("dd", { class: "outcome" }, e.outcome),
          e.detail ? [h("dt", {}, "Detail"), h("dd", {}, e.detail)] : null,
          h("dt", {}, "Turns"),
          h("dd", {}, String(e.turns)),
          h("dt", {}, "Tokens"),
          h("dd", {}, formatTokens(e.usage)),
          h("dt", {}, "Cost"),
          h("dd", {}, formatCost(e.costUsd)),
          e.model ? [h("dt", {}, "Model"), h("dd", {}, e.model)] : null,
        ),
      ];
    case "input":
      return [
        h("span", { class: "label" }, "operator"),
        collapsible(h("p", { class: "output" }, e.text), e.text),
      ];
    case "workerLog":
      return [
        h("h4", {}, `Worker log · ${statusLabel(e.status)}`),
        h("p", { class: "exit-code" }, exitCodeText(e.exitCode)),
        workerLogBlock(e.tail, e.truncated, e.reason),
      ];
    case "note":
      return [e.text];
  }
}

/** The list item of one entry. */
export function renderEntry(e: TimelineEntry): HTMLLIElement {
  const warn = e.kind === "note" && e.warn;
  return h(
    "li",
    { class: `entry entry-${e.kind}${warn ? " warn" : ""}`, "data-kind": e.kind },
    time(e.ts),
    h("div", { class: "entry-body" }, body(e)),
  );
}
