// The run report's data (src/report/build.ts, pure): every field from the Agent row, the tool-call
// counts, the agent_finished event and the capture rows; failed, active and never-captured runs.
import { describe, expect, it } from "vitest";

import { finalAssistantMessage, FINAL_MESSAGE_MAX_BYTES } from "../../src/fleet/normalize.js";
import {
  buildReport,
  NEVER_WATCHED_REASON,
  REPORT_MAX_FILES,
  REPORT_MAX_TOOLS,
} from "../../src/report/build.js";
import { agentRow, captureRow, FILES, fileRow, inputs, T0 } from "./fixtures.js";

describe("buildReport", () => {
  it("a finished run: every field from its row, tool calls, capture and final message", () => {
    const r = buildReport(inputs());
    expect(r).toEqual({
      agentId: "0123456789ab",
      name: "fix-flaky-test",
      workspace: "demo",
      final: true,
      status: "done",
      outcome: "END_OF_TURN",
      outcomeName: "EndOfTurn",
      outcomeDetail: null,
      failure: null,
      startedAt: T0,
      finishedAt: new Date(T0.getTime() + 65_000),
      durationMs: 65_000,
      turns: 3,
      usage: { input: 12_345, output: 678, cacheRead: 9_000, cacheCreation: 120 },
      estimatedCostUsd: 0.0421,
      // most calls first, equal counts by name
      toolCalls: [
        { name: "Read", calls: 5, failures: 0 },
        { name: "Bash", calls: 2, failures: 1 },
        { name: "Edit", calls: 2, failures: 0 },
      ],
      toolCallCount: 9,
      toolFailureCount: 1,
      changes: {
        state: "CAPTURED",
        reason: null,
        fileCount: 3,
        additions: 14,
        deletions: 2,
        capNote: null,
        final: true,
        appliedBranch: null,
      },
      files: FILES,
      finalMessage: "Fixed the flaky test.\n\nAll 212 tests pass.",
    });
  });

  it("a failed run: its outcome's detail and the failure facts of its row", () => {
    const r = buildReport(
      inputs({
        agent: agentRow({
          status: "failed",
          outcome: "ProviderError",
          turns: 0,
          exitCode: 1,
          failureLogTail: "error: 401 Unauthorized",
          failureLogTruncated: false,
          costUsd: null,
        }),
        outcome: "PROVIDER_ERROR",
        finished: { detail: "401 Unauthorized", finalMessage: null },
      }),
    );
    expect(r).toMatchObject({
      final: true,
      status: "failed",
      outcome: "PROVIDER_ERROR",
      outcomeName: "ProviderError",
      outcomeDetail: "401 Unauthorized",
      failure: { logTail: "error: 401 Unauthorized", logTruncated: false, exitCode: 1, reason: null },
      estimatedCostUsd: null,
      finalMessage: null,
    });
    // a log that could not be read is still a failure (its reason says why)
    const unread = buildReport(
      inputs({ agent: agentRow({ status: "crashed", outcome: null, failureReason: "no such file" }) }),
    );
    expect(unread.failure).toEqual({
      logTail: null,
      logTruncated: false,
      exitCode: null,
      reason: "no such file",
    });
    // no RunEnd read: no outcome, whatever the caller mapped
    expect(unread.outcome).toBeNull();
    expect(unread.outcomeName).toBeNull();
  });

  it("an active run: not final, its duration until now; an ended run without an end time has none", () => {
    const now = new Date(T0.getTime() + 12_500);
    const live = buildReport(
      inputs({ agent: agentRow({ status: "running", finishedAt: null, outcome: null }), now }),
    );
    expect(live).toMatchObject({ final: false, status: "running", durationMs: 12_500, finishedAt: null });
    const idle = buildReport(inputs({ agent: agentRow({ status: "idle", finishedAt: null }), now }));
    expect(idle.final).toBe(false);
    const ended = buildReport(inputs({ agent: agentRow({ status: "killed", finishedAt: null }), now }));
    expect(ended).toMatchObject({ final: true, durationMs: null });
    // a clock behind the start never makes a negative duration
    const skew = buildReport(
      inputs({ agent: agentRow({ status: "running", finishedAt: null }), now: new Date(T0.getTime() - 5) }),
    );
    expect(skew.durationMs).toBe(0);
  });

  it("a run change capture never watched: NOT_CAPTURED with why once ended, PENDING while live", () => {
    const ended = buildReport(inputs({ capture: null, files: [] }));
    expect(ended.changes).toEqual({
      state: "NOT_CAPTURED",
      reason: NEVER_WATCHED_REASON,
      fileCount: null,
      additions: null,
      deletions: null,
      capNote: null,
      final: false,
      appliedBranch: null,
    });
    expect(NEVER_WATCHED_REASON).toBe("the run ended before Prospero watched it");
    const live = buildReport(
      inputs({ capture: null, files: [], agent: agentRow({ status: "running", finishedAt: null }) }),
    );
    expect(live.changes).toMatchObject({ state: "PENDING", reason: null, fileCount: null });
  });

  it("capture off or impossible: its reason, no counts, no files; expired: the counts, no files", () => {
    const off = buildReport(
      inputs({
        capture: captureRow({ state: "OFF", reason: "change capture is turned off for workspace demo" }),
      }),
    );
    expect(off.changes).toMatchObject({
      state: "OFF",
      reason: "change capture is turned off for workspace demo",
      fileCount: null,
      additions: null,
      deletions: null,
    });
    expect(off.files).toEqual([]);
    const expired = buildReport(
      inputs({
        capture: captureRow({ state: "EXPIRED", reason: "removed by retention (--retention-days 30)" }),
      }),
    );
    expect(expired.changes).toMatchObject({ state: "EXPIRED", fileCount: 3, additions: 14, deletions: 2 });
    expect(expired.files).toEqual([]);
  });

  it("a captured run's note, cap note and applied branch are kept; files are capped at 50", () => {
    const many = Array.from({ length: 70 }, (_, i) =>
      fileRow(`f${String(i).padStart(3, "0")}`, "ADDED", 1, 0),
    );
    const r = buildReport(
      inputs({
        capture: captureRow({
          fileCount: 70,
          final: false,
          reason:
            "the worktree was removed before the final snapshot; these are the changes at the end of turn 1",
          capNote: "big.bin (2.0 GiB) not captured: over 10 MiB (--capture-max-file-bytes)",
          appliedBranch: "review/fix",
        }),
        files: many,
      }),
    );
    expect(REPORT_MAX_FILES).toBe(50);
    expect(r.files).toEqual(many.slice(0, 50));
    expect(r.changes).toMatchObject({
      fileCount: 70,
      final: false,
      reason: expect.stringContaining("end of turn 1"),
      capNote: expect.stringContaining("big.bin"),
      appliedBranch: "review/fix",
    });
  });

  it("keeps the final message as the normalizer cut it (16 KiB of UTF-8)", () => {
    const long = "ü".repeat(12_000);
    const cut = finalAssistantMessage([{ role: "assistant", content: [{ type: "text", text: long }] }]);
    expect(Buffer.byteLength(cut ?? "", "utf8")).toBeLessThanOrEqual(FINAL_MESSAGE_MAX_BYTES);
    const r = buildReport(inputs({ finished: { detail: null, finalMessage: cut } }));
    expect(r.finalMessage).toBe(cut);
    expect(r.finalMessage?.endsWith("ü…")).toBe(true);
  });

  it("lists at most 100 tool names, the most used; the totals stay exact", () => {
    const tools = Array.from({ length: 120 }, (_, i) => ({ name: `t${i}`, calls: i + 1, failures: i % 2 }));
    const r = buildReport(inputs({ toolCalls: tools, toolCallCount: 7260, toolFailureCount: 60 }));
    expect(REPORT_MAX_TOOLS).toBe(100);
    expect(r.toolCalls).toHaveLength(100);
    expect(r.toolCalls[0]).toEqual({ name: "t119", calls: 120, failures: 1 });
    expect(r.toolCalls.at(-1)).toEqual({ name: "t20", calls: 21, failures: 0 });
    expect([r.toolCallCount, r.toolFailureCount]).toEqual([7260, 60]);
  });
});
