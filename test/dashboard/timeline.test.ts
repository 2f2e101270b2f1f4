/** The dashboard's timeline folding (pure logic, no browser). */
import { describe, expect, it } from "vitest";
import type { FleetEvent } from "../../dashboard/src/api/types.js";
import { isLongText, Timeline } from "../../dashboard/src/state/timeline.js";
import { agentTabHref, tabFromHash } from "../../dashboard/src/ui/tabs.js";

let seq = 0;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
/** An event without its position fields (distributed over the union's members). */
type Unplaced<T> = T extends unknown
  ? Omit<T, "seq" | "cursor" | "ts"> & { ts?: string; seq?: number }
  : never;

function ev(e: Unplaced<FleetEvent>): FleetEvent {
  const s = e.seq ?? ++seq;
  return { ts: at(s * 10), ...e, seq: s, cursor: `c${s}` } as FleetEvent;
}

describe("Timeline", () => {
  it("pairs tool calls by id, merges consecutive output of one block, records usage and the summary", () => {
    seq = 0;
    const t = new Timeline();
    const usage = { input: 10, output: 2, cacheRead: 0, cacheCreation: 0 };
    const events: FleetEvent[] = [
      ev({ __typename: "TurnStartedEvent", turnIndex: 0, startModel: "m" }),
      ev({ __typename: "OutputEvent", turnIndex: 0, blockIndex: 0, stream: "TEXT", text: "Hello " }),
      ev({ __typename: "OutputEvent", turnIndex: 0, blockIndex: 0, stream: "TEXT", text: "world" }),
      ev({ __typename: "ToolStartedEvent", turnIndex: 0, toolUseId: "a", name: "Read" }),
      ev({ __typename: "ToolStartedEvent", turnIndex: 0, toolUseId: "b", name: "Grep" }),
      ev({
        __typename: "ToolFinishedEvent",
        turnIndex: 0,
        toolUseId: "b",
        name: "Grep",
        input: { pattern: "x" },
        inputRaw: '{"pattern":"x"}',
        ok: false,
        resultText: "denied",
        truncated: false,
        durationMs: null,
      }),
      ev({
        __typename: "ToolFinishedEvent",
        turnIndex: 0,
        toolUseId: "a",
        name: "Read",
        input: { file_path: "README.md" },
        inputRaw: '{"file_path":"README.md"}',
        ok: true,
        resultText: "# hi",
        truncated: false,
        durationMs: 12.5,
      }),
      ev({ __typename: "OutputEvent", turnIndex: 0, blockIndex: 1, stream: "TEXT", text: "after" }),
      ev({
        __typename: "TurnCompletedEvent",
        turnIndex: 0,
        turnModel: "m",
        stopReason: "tool_use",
        usage,
        estimatedCostUsd: null,
        ttftMs: 400,
      }),
      ev({
        __typename: "AgentFinishedEvent",
        outcome: "EndOfTurn",
        detail: null,
        turns: 1,
        runModel: "m",
        usage,
        estimatedCostUsd: 0.5,
      }),
    ];
    for (const e of events) t.apply(e);
    expect(t.entries.map((e) => e.kind)).toEqual([
      "turn",
      "text",
      "tool",
      "tool",
      "text",
      "usage",
      "summary",
    ]);
    expect(t.entries[1]).toMatchObject({ text: "Hello world" });
    expect(t.entries[2]).toMatchObject({
      name: "Read",
      input: { file_path: "README.md" },
      result: "# hi",
      ok: true,
      durationMs: 12.5,
    });
    // No duration reported: the time between its start and its end (10 ms apart here).
    expect(t.entries[3]).toMatchObject({ name: "Grep", ok: false, result: "denied", durationMs: 10 });
    expect(t.entries[6]).toMatchObject({ outcome: "EndOfTurn", costUsd: 0.5 });
    expect(t.finished).toBe(true);
    expect(t.cursor).toBe(`c${seq}`);
  });

  it("skips events at or below the last seq (a resumed or repeated stream adds nothing)", () => {
    seq = 0;
    const t = new Timeline();
    const first = ev({ __typename: "StatusChangedEvent", from: "SPAWNING", to: "RUNNING" });
    expect(t.apply(first)).toBe(0);
    expect(t.apply(first)).toBeNull();
    expect(t.apply(ev({ __typename: "InputSentEvent", text: "hi" }))).toBe(1);
    expect(t.apply(ev({ __typename: "GapEvent", reason: "slow", seq: 1 }))).toBe(2);
    expect(t.lastSeq).toBe(2);
    expect(t.cursor).toBe("c2");
  });

  it("a tool end without its start is still shown", () => {
    seq = 0;
    const t = new Timeline();
    t.apply(
      ev({
        __typename: "ToolFinishedEvent",
        turnIndex: 0,
        toolUseId: "z",
        name: "",
        input: "raw",
        inputRaw: "raw",
        ok: true,
        resultText: "r",
        truncated: true,
        durationMs: null,
      }),
    );
    expect(t.entries[0]).toMatchObject({
      kind: "tool",
      toolUseId: "z",
      result: "r",
      truncated: true,
      durationMs: null,
    });
  });

  it("a failed run's worker log is an entry of its own, unreadable ones with their reason", () => {
    seq = 0;
    const t = new Timeline();
    t.apply(
      ev({
        __typename: "WorkerLogEvent",
        endStatus: "FAILED",
        logTail: "Error: preflight failed: ANTHROPIC_API_KEY is not set",
        logTruncated: false,
        exitCode: null,
        logReason: null,
      }),
    );
    t.apply(ev({ __typename: "StatusChangedEvent", from: "RUNNING", to: "FAILED" }));
    expect(t.entries.map((e) => e.kind)).toEqual(["workerLog", "status"]);
    expect(t.entries[0]).toEqual({
      kind: "workerLog",
      ts: expect.any(String),
      status: "FAILED",
      tail: "Error: preflight failed: ANTHROPIC_API_KEY is not set",
      truncated: false,
      exitCode: null,
      reason: null,
    });
  });
});

describe("long text and the agent tab in the hash", () => {
  it("a text is long past six lines, a line counting once per 90 characters it wraps to", () => {
    expect(isLongText("")).toBe(false);
    expect(isLongText(Array(6).fill("x").join("\n"))).toBe(false);
    expect(isLongText(Array(7).fill("x").join("\n"))).toBe(true);
    expect(isLongText("y".repeat(6 * 90))).toBe(false);
    expect(isLongText("y".repeat(6 * 90 + 1))).toBe(true);
    // Empty lines count too (a blank line takes a line on screen).
    expect(isLongText("a\n\n\n\n\n\nb")).toBe(true);
  });

  it("the tab is the hash's last segment; the timeline has none", () => {
    expect(tabFromHash("#/agent/abc123")).toBe("timeline");
    expect(tabFromHash("#/agent/abc123/changes")).toBe("changes");
    expect(tabFromHash("#/agent/abc123/report/")).toBe("report");
    expect(tabFromHash("#/agent/abc123/nonsense")).toBe("timeline");
    expect(tabFromHash("#/queue/abc")).toBe("timeline");
    expect(agentTabHref("abc123", "timeline")).toBe("#/agent/abc123");
    expect(agentTabHref("abc123", "changes")).toBe("#/agent/abc123/changes");
    for (const tab of ["timeline", "changes", "report"] as const)
      expect(tabFromHash(agentTabHref("abc123", tab))).toBe(tab);
  });
});
