/**
 * The run report (issue 16 item 4, design-16 §4): what one run did — outcome and why it failed,
 * duration, turns, tokens, cost, tool calls by name (with failures), files changed and the final
 * assistant message — as plain data, built from what the store already holds (the Agent row, the
 * run's `tool_finished` events aggregated by name, its `agent_finished` event and its RunCapture /
 * CapturedFile rows; src/report/load.ts reads them). Pure: no I/O, no clock of its own (`now` is
 * given), so the GraphQL field (`Agent.report`), the CLI (`prospero report`) and the markdown
 * (src/report/markdown.ts) all show the same numbers.
 */
import type { Agent } from "../generated/prisma/client.js";
import { isTerminal } from "../caliband/wire.js";
import { runFailureOf } from "../store/agents.js";
import { NEVER_WATCHED_REASON, type CapturedFileRow, type RunCaptureRow } from "../capture/types.js";

/** Files of the latest snapshot a report lists (the rest are counted; `prospero diff` shows all). */
export const REPORT_MAX_FILES = 50;

/** Tool names a report lists, most calls first (the counts {@link RunReport.toolCallCount} stay exact). */
export const REPORT_MAX_TOOLS = 100;

/** Why a finished run without a capture row has no snapshot (src/capture/types.ts). */
export { NEVER_WATCHED_REASON };

/** Calls of one tool in a run: `calls` finished calls, `failures` of them with `is_error` (ToolCallEnd). */
export interface ToolCallSummary {
  /** The tool's name as the model called it; `""` when the call's start was never seen (§9 #106). */
  name: string;
  calls: number;
  failures: number;
}

/** The Agent row columns a report reads. */
export type ReportAgentRow = Pick<
  Agent,
  | "id"
  | "name"
  | "workspace"
  | "status"
  | "startedAt"
  | "finishedAt"
  | "outcome"
  | "turns"
  | "inputTokens"
  | "outputTokens"
  | "cacheReadTokens"
  | "cacheCreationTokens"
  | "costUsd"
  | "exitCode"
  | "failureLogTail"
  | "failureLogTruncated"
  | "failureReason"
>;

/** Everything {@link buildReport} needs (what src/report/load.ts reads, plus the instant `now`). */
export interface ReportInputs {
  agent: ReportAgentRow;
  /**
   * The GraphQL `RunOutcome` name of the agent's outcome (`END_OF_TURN`, …, `UNKNOWN` for a
   * condition this gateway does not know), null without one; the caller maps it (src/schema/enums.ts).
   */
  outcome: string | null;
  /**
   * The run's tool calls, one entry per name, in any order (src/report/load.ts counts them); the
   * {@link REPORT_MAX_TOOLS} with the most calls are kept.
   */
  toolCalls: readonly ToolCallSummary[];
  /** Finished tool calls in all (exact, also beyond the listed names). */
  toolCallCount: number;
  /** Of them, failed (exact). */
  toolFailureCount: number;
  /** The run's `agent_finished` event (its last), or null without one. */
  finished: { detail: string | null; finalMessage: string | null } | null;
  /** Its RunCapture row; null when change capture never watched it. */
  capture: RunCaptureRow | null;
  /** The first files of its latest snapshot, path order (at most {@link REPORT_MAX_FILES} are kept). */
  files: readonly CapturedFileRow[];
  /** The instant the report is made (the duration of an active run runs until then). */
  now: Date;
}

/** Why a FAILED or CRASHED run failed (the Agent row's failure columns, issue 12 item 7). */
export interface ReportFailure {
  /** The end of the worker's log (≤ 40 lines, 8 KiB, secrets redacted), or null (see `reason`). */
  logTail: string | null;
  logTruncated: boolean;
  /** The worker's exit code as its RunEnd implies it; null when unknown. */
  exitCode: number | null;
  /** Why `logTail` is null, else null. */
  reason: string | null;
}

/** What a run changed, as a report shows it. */
export interface ReportChanges {
  /** RunCapture.state (PENDING, CAPTURED, NOT_CAPTURED, OFF, EXPIRED); see {@link buildReport} for runs without a row. */
  state: string;
  /** Why not captured (NOT_CAPTURED, OFF, EXPIRED), or a note on a captured one; null when none. */
  reason: string | null;
  /** Files changed base..head; null when no snapshot describes the run (not CAPTURED or EXPIRED). */
  fileCount: number | null;
  additions: number | null;
  deletions: number | null;
  /** What the size caps left out, in words; null when nothing. */
  capNote: string | null;
  /** The latest snapshot was taken at or after the run's end. */
  final: boolean;
  /** The branch `applyChanges` made of them, or null. */
  appliedBranch: string | null;
}

/** A run report (design-16 §4): plain data, the same for GraphQL, the CLI and the markdown. */
export interface RunReport {
  agentId: string;
  name: string;
  workspace: string;
  /** The run has ended (terminal status): the report will not change any more. */
  final: boolean;
  /** caliband status (lower case, e.g. `done`). */
  status: string;
  /** GraphQL RunOutcome name (`END_OF_TURN`, `UNKNOWN`, …), null when no end of run was read. */
  outcome: string | null;
  /** The stop condition as the worker named it (`EndOfTurn`), null without one. */
  outcomeName: string | null;
  /** The stop condition's detail (error text such as `401 Unauthorized`, a limit), null when none. */
  outcomeDetail: string | null;
  /** Why it failed (FAILED/CRASHED runs with recorded failure facts), else null. */
  failure: ReportFailure | null;
  startedAt: Date;
  finishedAt: Date | null;
  /** ms from start to finish; while active, until `now`; null for an ended run without a finish time. */
  durationMs: number | null;
  /** Completed (counted) turns. */
  turns: number;
  /** Tokens (input, output, cache read, cache creation). */
  usage: { input: number; output: number; cacheRead: number; cacheCreation: number };
  /** Estimated cost in USD; null when the model's price is unknown. */
  estimatedCostUsd: number | null;
  /** Tool calls by name, most calls first (then by name); at most {@link REPORT_MAX_TOOLS}. */
  toolCalls: ToolCallSummary[];
  toolCallCount: number;
  toolFailureCount: number;
  changes: ReportChanges;
  /** The first files of the latest snapshot, path order (empty unless CAPTURED); at most {@link REPORT_MAX_FILES}. */
  files: CapturedFileRow[];
  /** The final assistant message (`agent_finished.finalMessage`), null when none. */
  finalMessage: string | null;
}

/** Most calls first, then by name (code-point order); a new array. */
function sortToolCalls(list: readonly ToolCallSummary[]): ToolCallSummary[] {
  return [...list].sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The changes part of a report (a run without a capture row: NOT_CAPTURED when ended, else PENDING). */
function changesOf(capture: RunCaptureRow | null, terminal: boolean): ReportChanges {
  if (!capture) {
    return {
      state: terminal ? "NOT_CAPTURED" : "PENDING",
      reason: terminal ? NEVER_WATCHED_REASON : null,
      fileCount: null,
      additions: null,
      deletions: null,
      capNote: null,
      final: false,
      appliedBranch: null,
    };
  }
  const described = capture.state === "CAPTURED" || capture.state === "EXPIRED";
  return {
    state: capture.state,
    reason: capture.reason,
    fileCount: described ? capture.fileCount : null,
    additions: described ? capture.additions : null,
    deletions: described ? capture.deletions : null,
    capNote: capture.capNote,
    final: capture.final,
    appliedBranch: capture.appliedBranch,
  };
}

/**
 * The report of one run from its inputs (design-16 §4). Rules:
 * - `final` = terminal status; `durationMs` = finishedAt − startedAt, while active now − startedAt
 *   (never negative), null for an ended run with no finish time;
 * - turns, tokens and cost are the Agent row's (the counted turns, issue 12 item 11);
 * - `failure` only when the row holds failure facts (a FAILED or CRASHED run), as `Agent.failure`;
 * - changes: the capture row's state and reason; without a row, NOT_CAPTURED "the run ended before
 *   Prospero watched it" for an ended run, PENDING for a live one; counts only when a snapshot
 *   describes the run (CAPTURED, EXPIRED); `files` only for CAPTURED, at most {@link REPORT_MAX_FILES};
 * - `finalMessage` and `outcomeDetail` from the `agent_finished` event.
 * Pure; never throws.
 */
export function buildReport(inputs: ReportInputs): RunReport {
  const a = inputs.agent;
  const terminal = isTerminal(a.status);
  const end = a.finishedAt ?? (terminal ? null : inputs.now);
  const durationMs = end === null ? null : Math.max(0, end.getTime() - a.startedAt.getTime());
  const changes = changesOf(inputs.capture, terminal);
  return {
    agentId: a.id,
    name: a.name,
    workspace: a.workspace,
    final: terminal,
    status: a.status,
    outcome: a.outcome === null ? null : inputs.outcome,
    outcomeName: a.outcome,
    outcomeDetail: inputs.finished?.detail ?? null,
    failure: runFailureOf(a),
    startedAt: a.startedAt,
    finishedAt: a.finishedAt,
    durationMs,
    turns: a.turns,
    usage: {
      input: a.inputTokens,
      output: a.outputTokens,
      cacheRead: a.cacheReadTokens,
      cacheCreation: a.cacheCreationTokens,
    },
    estimatedCostUsd: a.costUsd,
    toolCalls: sortToolCalls(inputs.toolCalls).slice(0, REPORT_MAX_TOOLS),
    toolCallCount: inputs.toolCallCount,
    toolFailureCount: inputs.toolFailureCount,
    changes,
    files: changes.state === "CAPTURED" ? inputs.files.slice(0, REPORT_MAX_FILES) : [],
    finalMessage: inputs.finished?.finalMessage ?? null,
  };
}
