/**
 * GraphQL `RunReport` and `ToolCallSummary`, and `Agent.report` (issue 16 item 4, design-16 §4):
 * what one run did — outcome and failure, duration, turns, tokens, cost, tool calls by name,
 * files changed and the final assistant message — plus the same as markdown to paste into a pull
 * request or a ticket. Read from the store by src/report/load.ts, built by src/report/build.ts and
 * written by src/report/markdown.ts (both pure); nothing here but the mapping to schema types.
 *
 * Scope: `Agent`'s type-level rule already keeps a token limited to workspaces away from other
 * workspaces' runs; the field repeats it (viewer, within the run's workspace).
 */
import { buildReport, type ReportAgentRow, type RunReport, type ToolCallSummary } from "../report/build.js";
import { loadReportInputs } from "../report/load.js";
import { reportMarkdown } from "../report/markdown.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import { RunFailureRef } from "./agent.js";
import { ChangedFileRef } from "./changes.js";
import {
  AgentStatusEnum,
  ChangeCaptureStateEnum,
  RunOutcomeEnum,
  captureStateValue,
  outcomeValue,
  statusValue,
} from "./enums.js";
import { TokenUsageRef } from "./events.js";

/**
 * The GraphQL RunOutcome name of a stored StopCondition name: `EndOfTurn` → `END_OF_TURN` for the
 * conditions {@link RunOutcomeEnum} knows (its names are the variants in upper snake case),
 * `UNKNOWN` for others — what src/format's `formatOutcome` words, the same as the dashboard's.
 */
export function outcomeEnumName(raw: string): string {
  const known = outcomeValue(raw);
  return known === "unknown" ? "UNKNOWN" : known.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

const ToolCallSummaryRef = builder.objectRef<ToolCallSummary>("ToolCallSummary").implement({
  description: "The calls of one tool in a run (finished calls: a ToolCallEnd was read).",
  fields: (t) => ({
    name: t.exposeString("name", {
      description: "The tool's name as the model called it; empty when the call's start was never seen.",
    }),
    calls: t.exposeInt("calls", { description: "Finished calls." }),
    failures: t.exposeInt("failures", { description: "Of them, those that ended with an error (is_error)." }),
  }),
});

/** GraphQL `RunReport`. */
export const RunReportRef = builder.objectRef<RunReport>("RunReport").implement({
  description:
    "What a run did: its outcome and why it failed, duration, turns, tokens, cost, tool calls by name, the files it changed and its final assistant message — final once the run has ended, the run so far while it is active. `markdown` is the same as text to paste into a pull request or a ticket.",
  fields: (t) => ({
    final: t.exposeBoolean("final", {
      description: "The run has ended (a terminal status): the report will not change any more.",
    }),
    status: t.field({
      type: AgentStatusEnum,
      description: "The run's status.",
      resolve: (r) => statusValue(r.status),
    }),
    outcome: t.field({
      type: RunOutcomeEnum,
      nullable: true,
      description: "Why the run ended, as its worker reported it; null when no end of run was read.",
      resolve: (r) => (r.outcomeName === null ? null : outcomeValue(r.outcomeName)),
    }),
    outcomeName: t.exposeString("outcomeName", {
      nullable: true,
      description: "The stop condition as the worker named it, e.g. `EndOfTurn`; null when none was read.",
    }),
    outcomeDetail: t.exposeString("outcomeDetail", {
      nullable: true,
      description:
        "The stop condition's detail: the provider's error text (`401 Unauthorized`), a limit; null when it has none.",
    }),
    failure: t.field({
      type: RunFailureRef,
      nullable: true,
      description: "Why the run failed (FAILED or CRASHED): the end of its worker's log and its exit code.",
      resolve: (r) => r.failure,
    }),
    startedAt: t.field({
      type: "DateTime",
      description: "When caliband started it.",
      resolve: (r) => r.startedAt,
    }),
    finishedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it ended; null while active.",
      resolve: (r) => r.finishedAt,
    }),
    durationMs: t.exposeFloat("durationMs", {
      nullable: true,
      description:
        "How long it ran, ms: start to end; while active, until now. Null for an ended run without a recorded end time.",
    }),
    turns: t.exposeInt("turns", { description: "Completed turns." }),
    usage: t.field({ type: TokenUsageRef, description: "Tokens of the run.", resolve: (r) => r.usage }),
    estimatedCostUsd: t.exposeFloat("estimatedCostUsd", {
      nullable: true,
      description: "Estimated cost in USD; null when the model's price is unknown (never a fake 0).",
    }),
    toolCalls: t.field({
      type: [ToolCallSummaryRef],
      description: "Tool calls by tool name, most calls first (then by name); at most 100 names.",
      resolve: (r) => r.toolCalls,
    }),
    toolCallCount: t.exposeInt("toolCallCount", { description: "Finished tool calls in all." }),
    toolFailureCount: t.exposeInt("toolFailureCount", { description: "Of them, those that failed." }),
    changes: t.field({
      type: ChangeCaptureStateEnum,
      description:
        "Whether the run's changes are captured (Agent.changes has them all). A run change capture never watched reads NOT_CAPTURED once ended, PENDING while live.",
      resolve: (r) => captureStateValue(r.changes.state),
    }),
    changesReason: t.string({
      nullable: true,
      description: "Why they are not captured, or a note on captured ones; null when none.",
      resolve: (r) => r.changes.reason,
    }),
    filesChanged: t.int({
      nullable: true,
      description: "Files changed (the latest snapshot against the run's start); null without a snapshot.",
      resolve: (r) => r.changes.fileCount,
    }),
    additions: t.int({
      nullable: true,
      description: "Lines added; null without a snapshot.",
      resolve: (r) => r.changes.additions,
    }),
    deletions: t.int({
      nullable: true,
      description: "Lines deleted; null without a snapshot.",
      resolve: (r) => r.changes.deletions,
    }),
    files: t.field({
      type: [ChangedFileRef],
      description:
        "The first 50 files of the latest snapshot, path order (Agent.changes.files pages through all); empty unless CAPTURED.",
      resolve: (r) => r.files,
    }),
    finalMessage: t.exposeString("finalMessage", {
      nullable: true,
      description:
        "The run's final assistant message (the text of the last assistant message of its RunEnd, at most 16 KiB); null when there is none.",
    }),
    markdown: t.string({
      description:
        "This report as GitHub-flavoured markdown, for a pull request or a ticket: title, outcome, duration, turns, tokens, cost, tool calls, files changed (or why not captured) and the final message as a quote.",
      resolve: (r) => reportMarkdown(r),
    }),
  }),
});

/** The report of run `a` now (store reads through src/report/load.ts). */
export async function reportOf(ctx: GraphQLContext, a: ReportAgentRow): Promise<RunReport> {
  const loaded = await loadReportInputs(ctx.prisma, a.id);
  return buildReport({
    ...loaded,
    agent: a,
    outcome: a.outcome === null ? null : outcomeEnumName(a.outcome),
    now: new Date(),
  });
}

// prismaObjectFields (not prismaObjectField): the singular form's FieldRef type does not check
// against the validation plugin's augmented one.
builder.prismaObjectFields("Agent", (t) => ({
  report: t.field({
    type: RunReportRef,
    description:
      "The run report: what the run did (so far, while it is active), with a markdown version. Intended for one run at a time (it costs a few queries per run). Viewer role, within the run's workspace.",
    authScopes: (a) => ({ role: "viewer", workspace: a.workspace }),
    resolve: (a, _args, ctx) => reportOf(ctx, a),
  }),
}));
