/**
 * `prospero report <agent> [--json | --markdown]` (issue 16 item 4): what a run did — outcome and
 * why it failed, duration, turns, tokens, cost, tool calls by name, files changed and the final
 * assistant message. By default a block for the terminal like `prospero show`'s; `--markdown`
 * prints the report's markdown (the gateway's `RunReport.markdown`, to paste into a pull request
 * or a ticket) exactly, made terminal-safe only where it holds control characters; `--json` the
 * query's data. Numbers, "none", costs, tokens and durations in src/format's wording.
 */
import type { Command } from "commander";
import { RunReportDocument, type RunReportQuery } from "../../sdk/index.js";
import {
  NONE,
  formatCost,
  formatDuration,
  formatInt,
  formatOutcome,
  formatTokens,
} from "../../format/index.js";
import { clientAction, clientOptions, type CliContext } from "../context.js";
import { CliError, EXIT } from "../exit.js";
import { status } from "../format.js";
import { safeData, singleLine } from "../sanitize.js";

/** The report part of the query's data. */
type Report = NonNullable<RunReportQuery["agent"]>["report"];

/** Files listed in the terminal block (the report holds up to 50; `prospero diff` shows all). */
export const TERMINAL_FILES = 20;

/** `+12 −3`, or {@link NONE} for a binary file. */
function lines(additions: number | null, deletions: number | null): string {
  if (additions === null && deletions === null) return NONE;
  return `+${formatInt(additions ?? 0)} \u2212${formatInt(deletions ?? 0)}`;
}

const STATUS_LETTER: Record<string, string> = { ADDED: "A", MODIFIED: "M", DELETED: "D", TYPE_CHANGED: "T" };

/**
 * Print a report for the terminal. `agent` must have passed through `safeData` (every text value
 * free of control characters but LF and TAB); each value stays on its line.
 */
function printReport(ctx: CliContext, agent: NonNullable<RunReportQuery["agent"]>): void {
  const { c } = ctx.out;
  const r: Report = agent.report;
  const row = (k: string, v: string) => ctx.out.line(`  ${c.dim(k.padEnd(14))}${v}`);
  ctx.out.line(`${c.bold(singleLine(agent.name))}  ${c.dim(agent.agentId)}`);
  row("workspace", singleLine(agent.workspace.name));
  row("status", status(c, r.status) + (r.final ? "" : c.dim(" (the run so far)")));
  const outcome = formatOutcome(r.outcome, r.outcomeName);
  row("outcome", singleLine(r.outcomeDetail && r.outcome ? `${outcome}: ${r.outcomeDetail}` : outcome));
  row("started", r.startedAt);
  row("finished", r.finishedAt ?? NONE);
  row("duration", formatDuration(r.durationMs) + (r.final ? "" : c.dim(" so far")));
  row("turns", formatInt(r.turns));
  row(
    "tokens",
    `in ${formatTokens(r.usage.inputTokens)} · out ${formatTokens(r.usage.outputTokens)} · cache read ${formatTokens(r.usage.cacheReadTokens)} · cache write ${formatTokens(r.usage.cacheCreationTokens)}`,
  );
  row("cost", formatCost(r.estimatedCostUsd));
  if (r.failure) {
    const f = r.failure;
    row("exit code", f.exitCode === null ? `${NONE} (no RunEnd was read)` : `${f.exitCode} (inferred)`);
    if (f.logTail === null)
      row("worker.log", c.dim(`not available: ${singleLine(f.reason ?? "unknown reason")}`));
    else if (f.logTail === "") row("worker.log", c.dim("(empty)"));
    else {
      row("worker.log", c.dim(f.logTruncated ? "last lines:" : "whole log:"));
      for (const line of f.logTail.split("\n")) ctx.out.line(`    ${c.dim("│")} ${line}`);
    }
  }
  row(
    "tool calls",
    r.toolCallCount === 0
      ? "none"
      : `${formatInt(r.toolCallCount)}${r.toolFailureCount ? c.red(` (${formatInt(r.toolFailureCount)} failed)`) : ""}`,
  );
  const width = Math.min(24, Math.max(0, ...r.toolCalls.map((t) => t.name.length)));
  for (const t of r.toolCalls) {
    const name = t.name === "" ? "(unknown)" : singleLine(t.name);
    ctx.out.line(
      `    ${name.padEnd(width)}  ${formatInt(t.calls).padStart(5)}${t.failures ? c.red(` (${formatInt(t.failures)} failed)`) : ""}`,
    );
  }
  if (r.changes === "CAPTURED") {
    row(
      "changes",
      r.filesChanged === 0
        ? "no files changed"
        : `${formatInt(r.filesChanged ?? 0)} ${r.filesChanged === 1 ? "file" : "files"}, ${lines(r.additions, r.deletions)}`,
    );
    for (const f of r.files.slice(0, TERMINAL_FILES)) {
      ctx.out.line(
        `    ${STATUS_LETTER[f.status] ?? "?"} ${singleLine(f.path)}  ${c.dim(lines(f.additions, f.deletions))}`,
      );
    }
    const more = (r.filesChanged ?? 0) - Math.min(r.files.length, TERMINAL_FILES);
    if (more > 0) ctx.out.line(c.dim(`    … ${formatInt(more)} more (prospero diff ${agent.agentId})`));
    if (r.changesReason) ctx.out.line(c.dim(`    note: ${singleLine(r.changesReason)}`));
  } else if (r.changes === "PENDING") {
    row("changes", c.dim("not captured yet: no snapshot so far"));
  } else {
    const why = singleLine(r.changesReason ?? "no reason was recorded");
    row("changes", c.dim(r.changes === "EXPIRED" ? `no longer kept: ${why}` : `not captured: ${why}`));
  }
  if (r.finalMessage === null) {
    row("final message", NONE);
    return;
  }
  ctx.out.line(`  ${c.dim("final message")}`);
  for (const line of r.finalMessage.split("\n")) ctx.out.line(`    ${c.dim("│")} ${line}`);
}

/** Register `report` on `program`. */
export function registerReportCommand(program: Command): void {
  clientOptions(
    program
      .command("report")
      .description(
        "what a run did: outcome, duration, turns, tokens, cost, tool calls, files changed and its final message",
      )
      .argument("<agent>", "agent id (12 hex)")
      .option("--markdown", "print the report as markdown (for a pull request or a ticket)"),
    "print the report query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string, flags: { markdown?: boolean }) => {
      if (flags.markdown && ctx.json) throw new CliError(EXIT.usage, "give --json or --markdown, not both");
      const data = await ctx.client.request(RunReportDocument, { agentId: id });
      if (!data.agent) {
        if (ctx.json) ctx.out.json(data);
        throw new CliError(EXIT.notFound, `agent not found: ${id}`);
      }
      if (ctx.json) {
        ctx.out.json(data);
        return;
      }
      const agent = safeData(data.agent);
      if (flags.markdown) ctx.out.out(agent.report.markdown);
      else printReport(ctx, agent);
    }),
  );
}
