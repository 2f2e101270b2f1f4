// Rows for the pure report tests (src/report/build.ts, markdown.ts): an Agent row, a RunCapture row
// and CapturedFile rows shaped as the store holds them.
import type { CapturedFileRow, RunCaptureRow } from "../../src/capture/types.js";
import type { ReportAgentRow, ReportInputs } from "../../src/report/build.js";

export const T0 = new Date("2026-12-01T10:00:00.000Z");

/** A finished (done) run: 3 turns, 65 s, priced. */
export function agentRow(over: Partial<ReportAgentRow> = {}): ReportAgentRow {
  return {
    id: "0123456789ab",
    name: "fix-flaky-test",
    workspace: "demo",
    status: "done",
    startedAt: T0,
    finishedAt: new Date(T0.getTime() + 65_000),
    outcome: "EndOfTurn",
    turns: 3,
    inputTokens: 12_345,
    outputTokens: 678,
    cacheReadTokens: 9_000,
    cacheCreationTokens: 120,
    costUsd: 0.0421,
    exitCode: null,
    failureLogTail: null,
    failureLogTruncated: null,
    failureReason: null,
    ...over,
  };
}

/** A CAPTURED capture row with `fileCount` files. */
export function captureRow(over: Partial<RunCaptureRow> = {}): RunCaptureRow {
  return {
    agentId: "0123456789ab",
    workspace: "demo",
    state: "CAPTURED",
    reason: null,
    gitDir: "/srv/demo/.git",
    workingDir: "/srv/demo/.caliban/worktrees/x",
    baseCommit: "a".repeat(40),
    headCommit: "b".repeat(40),
    agentHead: "a".repeat(40),
    trigger: "RUN_END",
    turnIndex: null,
    snapshots: 3,
    final: true,
    capturedAt: new Date(T0.getTime() + 65_000),
    fileCount: 3,
    additions: 14,
    deletions: 2,
    skippedFiles: 0,
    skippedBytes: 0,
    capNote: null,
    appliedBranch: null,
    appliedCommit: null,
    appliedAt: null,
    appliedBy: null,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/** One CapturedFile row. */
export function fileRow(
  path: string,
  status: string,
  additions: number | null,
  deletions: number | null,
): CapturedFileRow {
  return { agentId: "0123456789ab", path, workspace: "demo", status, additions, deletions };
}

export const FILES: CapturedFileRow[] = [
  fileRow("README.md", "MODIFIED", 1, 0),
  fileRow("logo.png", "ADDED", null, null),
  fileRow("src/flaky.test.ts", "MODIFIED", 13, 2),
];

/** Inputs of a done run with tools, a capture and a final message. */
export function inputs(over: Partial<ReportInputs> = {}): ReportInputs {
  return {
    agent: agentRow(),
    outcome: "END_OF_TURN",
    toolCalls: [
      { name: "Bash", calls: 2, failures: 1 },
      { name: "Read", calls: 5, failures: 0 },
      { name: "Edit", calls: 2, failures: 0 },
    ],
    toolCallCount: 9,
    toolFailureCount: 1,
    finished: { detail: null, finalMessage: "Fixed the flaky test.\n\nAll 212 tests pass." },
    capture: captureRow(),
    files: FILES,
    now: new Date(T0.getTime() + 3_600_000),
    ...over,
  };
}
