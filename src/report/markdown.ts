/**
 * The run report as markdown (issue 16 item 4): what a person pastes into a pull request or a
 * ticket — a title with the run's name and id, its outcome (and why it failed), duration, turns,
 * tokens and cost, the tool calls by name with their failures, the files changed (or "not
 * captured: why") and the final assistant message as a quote. GitHub-flavoured markdown; every
 * number, "none", cost, token count and duration in the one wording of src/format (NONE is "—").
 *
 * Text that came from users or agents (names, tool names, paths, reasons, the worker's log) is
 * escaped, or put in code spans and fences longer than any backtick run it holds, so it cannot
 * become markup of the report; the final message is quoted as the agent wrote it (it is markdown)
 * and comes last, so whatever it holds cannot swallow the sections above it. Pure.
 */
import { NONE, formatCost, formatDuration, formatInt, formatOutcome, formatTokens } from "../format/index.js";
import { REPORT_MAX_FILES, type RunReport } from "./build.js";

/** CRLF and lone CR as LF. */
function lf(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** `text` on one line, with markdown's inline markup characters backslash-escaped. */
export function escapeInline(text: string): string {
  return lf(text)
    .replace(/\s*\n\s*/g, " ")
    .replace(/[\\`*_{}[\]<>()#+!|~&]/g, (ch) => `\\${ch}`);
}

/**
 * `text` as one code span: delimited by one more backtick than its longest run of backticks,
 * padded with a space when it starts or ends with one (CommonMark §6.1), on one line. In a table
 * cell (`inTable`), `|` is escaped as GFM tables require even inside code.
 */
export function codeSpan(text: string, inTable = false): string {
  let body = lf(text).replace(/\n/g, " ");
  if (inTable) body = body.replace(/\|/g, "\\|");
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = body.startsWith("`") || body.endsWith("`") || body === "" ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** `text` as a fenced code block (info `lang`), fenced by more backticks than any run it holds (≥ 3). */
export function fencedBlock(text: string, lang = "text"): string {
  const body = lf(text).replace(/\n+$/, "");
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

/** `text` as a block quote: every line prefixed with `> ` (an empty line with `>`). */
export function blockQuote(text: string): string {
  return lf(text)
    .replace(/\n+$/, "")
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** `n` with its noun, singular for 1: `1 call`, `12 calls` (grouped digits). */
function count(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/** `+12 −3` (U+2212 minus), or {@link NONE} for a binary file (no line counts). */
function lineCounts(additions: number | null, deletions: number | null): string {
  if (additions === null && deletions === null) return NONE;
  return `+${formatInt(additions ?? 0)} \u2212${formatInt(deletions ?? 0)}`;
}

/** How a file changed, in words. */
function fileStatus(status: string): string {
  switch (status) {
    case "ADDED":
      return "added";
    case "MODIFIED":
      return "modified";
    case "DELETED":
      return "deleted";
    case "TYPE_CHANGED":
      return "type changed";
    default:
      return status.toLowerCase();
  }
}

/** The outcome in words, with its detail (`provider error: 401 Unauthorized`). */
export function outcomeText(r: Pick<RunReport, "outcome" | "outcomeName" | "outcomeDetail">): string {
  const words = formatOutcome(r.outcome, r.outcomeName);
  if (r.outcome === null) return words;
  return r.outcomeDetail === null || r.outcomeDetail === "" ? words : `${words}: ${r.outcomeDetail}`;
}

/** What a run's changes are, when there is no list of files to show. */
export function changesNote(c: RunReport["changes"]): string {
  const why = c.reason ?? "no reason was recorded";
  switch (c.state) {
    case "PENDING":
      return "Not captured yet: no snapshot has been taken so far.";
    case "EXPIRED":
      return `No longer kept: ${why}.`;
    case "OFF":
    case "NOT_CAPTURED":
      return `Not captured: ${why}.`;
    default:
      return `Not captured (${c.state.toLowerCase()}): ${why}.`;
  }
}

function summary(r: RunReport): string[] {
  const lines = [
    `- **Outcome:** ${escapeInline(outcomeText(r))}`,
    `- **Status:** ${escapeInline(r.status)} · **Workspace:** ${escapeInline(r.workspace)}`,
    `- **Started:** ${r.startedAt.toISOString()} · **Finished:** ${r.finishedAt ? r.finishedAt.toISOString() : NONE}`,
    `- **Duration:** ${formatDuration(r.durationMs)}${r.final ? "" : " (so far)"}`,
    `- **Turns:** ${formatInt(r.turns)}`,
    `- **Tokens:** ${formatTokens(r.usage.input)} in · ${formatTokens(r.usage.output)} out · ` +
      `${formatTokens(r.usage.cacheRead)} cache read · ${formatTokens(r.usage.cacheCreation)} cache write`,
    `- **Estimated cost:** ${formatCost(r.estimatedCostUsd)}`,
  ];
  return lines;
}

function failureSection(f: NonNullable<RunReport["failure"]>): string[] {
  const out = ["### Why it failed", ""];
  out.push(
    f.exitCode === null
      ? `Exit code: ${NONE} (no RunEnd was read; caliband does not report exit codes).`
      : `Exit code: ${formatInt(f.exitCode)} (inferred from the RunEnd's stop condition).`,
  );
  out.push("");
  if (f.logTail === null)
    out.push(`Worker log: not available: ${escapeInline(f.reason ?? "unknown reason")}.`);
  else if (f.logTail === "") out.push("Worker log: empty.");
  else {
    out.push(f.logTruncated ? "Worker log (last lines):" : "Worker log:", "", fencedBlock(f.logTail));
  }
  return out;
}

function toolSection(r: RunReport): string[] {
  const out = ["### Tool calls", ""];
  if (r.toolCallCount === 0) {
    out.push("No tool calls.");
    return out;
  }
  out.push(`${count(r.toolCallCount, "call")}, ${formatInt(r.toolFailureCount)} failed.`, "");
  out.push("| Tool | Calls | Failed |", "|---|---:|---:|");
  for (const t of r.toolCalls) {
    const name = t.name === "" ? "(unknown tool)" : codeSpan(t.name, true);
    out.push(`| ${name} | ${formatInt(t.calls)} | ${formatInt(t.failures)} |`);
  }
  const listed = r.toolCalls.reduce((n, t) => n + t.calls, 0);
  if (listed < r.toolCallCount)
    out.push("", `…and ${count(r.toolCallCount - listed, "call")} of other tools.`);
  return out;
}

function filesSection(r: RunReport): string[] {
  const c = r.changes;
  const out = ["### Files changed", ""];
  if (c.state !== "CAPTURED") {
    if (c.state === "EXPIRED" && c.fileCount !== null)
      out.push(`${count(c.fileCount, "file")}, ${lineCounts(c.additions, c.deletions)}.`, "");
    out.push(escapeInline(changesNote(c)));
    return out;
  }
  const files = c.fileCount ?? r.files.length;
  if (files === 0) out.push("No files changed.");
  else {
    out.push(`${count(files, "file")}, ${lineCounts(c.additions, c.deletions)}.`, "");
    out.push("| File | Change | Lines |", "|---|---|---:|");
    for (const f of r.files.slice(0, REPORT_MAX_FILES)) {
      out.push(
        `| ${codeSpan(f.path, true)} | ${fileStatus(f.status)} | ${lineCounts(f.additions, f.deletions)} |`,
      );
    }
    if (files > r.files.length)
      out.push(
        "",
        `…and ${count(files - r.files.length, "more file", "more files")} (\`prospero diff ${r.agentId}\` shows all).`,
      );
  }
  const notes: string[] = [];
  if (c.reason) notes.push(c.reason);
  else if (!c.final && r.final)
    notes.push("these are the changes of the latest snapshot, taken before the run ended");
  if (c.capNote) notes.push(c.capNote);
  if (c.appliedBranch) notes.push(`applied as branch ${c.appliedBranch}`);
  if (notes.length) out.push("", ...notes.map((n) => `_Note: ${escapeInline(n)}._`));
  return out;
}

/**
 * The markdown of a run report (see the module comment for its sections). Ends with a newline.
 * Pure; never throws.
 */
export function reportMarkdown(r: RunReport): string {
  const title = `## Run report: ${escapeInline(r.name)} (${codeSpan(r.agentId)})`;
  const parts: string[][] = [[title]];
  if (!r.final) parts.push([`_In progress (${escapeInline(r.status)}): this is the run so far._`]);
  parts.push(summary(r));
  if (r.failure) parts.push(failureSection(r.failure));
  parts.push(toolSection(r), filesSection(r));
  parts.push([
    "### Final message",
    "",
    r.finalMessage === null || r.finalMessage.trim() === ""
      ? "_No final assistant message._"
      : blockQuote(r.finalMessage),
  ]);
  return `${parts.map((p) => p.join("\n")).join("\n\n")}\n`;
}
