/** Unit tests of the `follow` timeline renderer and the option parsers (no gateway). */
import { describe, expect, it } from "vitest";
import pc from "picocolors";
import { InvalidArgumentError } from "commander";
import { TimelineRenderer } from "../../src/cli/timeline.js";
import {
  collectEnv,
  collectNames,
  parseGroupBy,
  parseInstant,
  parseProvider,
  parseStatuses,
} from "../../src/cli/parse.js";
import type { AgentEvent } from "../../src/sdk/index.js";

const base = {
  id: "gid",
  cursor: "c",
  ts: "2026-11-29T12:00:00.000Z",
  streamKey: "a",
  workspace: "demo",
  agentId: "a",
};
const text = (seq: number, t: string, blockIndex = 0, stream: "TEXT" | "THINKING" = "TEXT"): AgentEvent => ({
  ...base,
  __typename: "OutputEvent",
  seq,
  turnIndex: 0,
  blockIndex,
  stream,
  text: t,
});

function render(events: AgentEvent[], limits = {}): string {
  let s = "";
  const r = new TimelineRenderer((t) => (s += t), pc.createColors(false), limits);
  for (const e of events) r.event(e);
  r.end();
  // Times are local wall-clock: normalize them.
  return s.replace(/^\d\d:\d\d:\d\d/gm, "HH:MM:SS");
}

describe("TimelineRenderer", () => {
  it("merges consecutive text of one block into one paragraph, indenting continuation lines", () => {
    expect(
      render([text(1, "Hello, "), text(2, "world.\nSecond "), text(3, "line.\n"), text(4, "Next block", 1)]),
    ).toBe("HH:MM:SS Hello, world.\n         Second line.\nHH:MM:SS Next block\n");
  });

  it("shows tool calls with input, result (capped) and duration; turn usage; the outcome with its cost", () => {
    const out = render(
      [
        { ...base, __typename: "ToolStartedEvent", seq: 1, turnIndex: 0, toolUseId: "t1", name: "Read" },
        {
          ...base,
          __typename: "ToolFinishedEvent",
          seq: 2,
          turnIndex: 0,
          toolUseId: "t1",
          name: "Read",
          ok: true,
          input: { file_path: "README.md" },
          inputRaw: '{"file_path":"README.md"}',
          resultText: "l1\nl2\nl3\nl4\n",
          truncated: true,
          durationMs: 12,
        },
        {
          ...base,
          __typename: "TurnCompletedEvent",
          seq: 3,
          turnIndex: 0,
          model: "m",
          stopReason: "TOOL_USE",
          stopReasonName: "tool_use",
          ttftMs: 412,
          tbtMs: null,
          estimatedCostUsd: 0.0043,
          usage: { inputTokens: 1200, outputTokens: 48, cacheReadTokens: 0, cacheCreationTokens: 0 },
        },
        {
          ...base,
          __typename: "AgentFinishedEvent",
          seq: 4,
          outcome: "END_OF_TURN",
          outcomeName: "EndOfTurn",
          outcomeDetail: null,
          turns: 2,
          model: "m",
          estimatedCostUsd: 0.0084,
          usage: { inputTokens: 2510, outputTokens: 60, cacheReadTokens: 10, cacheCreationTokens: 5 },
        },
        { ...base, __typename: "StatusChangedEvent", seq: 5, from: "RUNNING", to: "DONE" },
      ],
      { resultLines: 2 },
    );
    expect(out).toBe(
      [
        "HH:MM:SS ⚙ Read started (t1)",
        'HH:MM:SS ✓ Read {"file_path":"README.md"} · 12 ms',
        "         │ l1",
        "         │ l2",
        "         │ … (2 more lines, cut by the gateway)",
        "HH:MM:SS ↳ turn 0 tool_use · in 1,200 · out 48 · $0.0043 · ttft 412 ms",
        "HH:MM:SS ■ finished: EndOfTurn · 2 turns · in 2,510 · out 60 (cache read 10, write 5) · cost $0.0084",
        "HH:MM:SS · status RUNNING → DONE",
        "",
      ].join("\n"),
    );
  });

  it("closes an open paragraph before any other event; thinking is labelled", () => {
    const out = render([
      text(1, "pondering", 0, "THINKING"),
      text(2, "answer", 1),
      { ...base, __typename: "InputSentEvent", seq: 3, text: "hi" },
      { ...base, __typename: "InputEndedEvent", seq: 4, ended: true },
    ]);
    expect(out).toBe(
      "HH:MM:SS (thinking) pondering\nHH:MM:SS answer\nHH:MM:SS » you: hi\nHH:MM:SS » input ended\n",
    );
  });
});

describe("option parsers", () => {
  it("accept the documented forms", () => {
    expect(parseProvider("OpenAI")).toBe("OPENAI");
    expect(parseStatuses("running, idle", ["DONE"])).toEqual(["DONE", "RUNNING", "IDLE"]);
    expect(parseGroupBy("model,day,model")).toEqual(["MODEL", "DAY"]);
    expect(collectNames("Read,Edit", ["Bash"])).toEqual(["Bash", "Read", "Edit"]);
    expect(collectEnv("A=x=y", [{ name: "A", value: "old" }])).toEqual([{ name: "A", value: "x=y" }]);
    const now = () => Date.parse("2026-11-29T12:00:00Z");
    expect(parseInstant("24h", now)).toBe("2026-11-28T12:00:00.000Z");
    expect(parseInstant("2w", now)).toBe("2026-11-15T12:00:00.000Z");
    expect(parseInstant("2026-11-01")).toBe("2026-11-01T00:00:00.000Z");
  });
  it("reject the rest as usage errors", () => {
    expect(() => parseProvider("acme")).toThrow(InvalidArgumentError);
    expect(() => parseStatuses("sleeping")).toThrow(/unknown status "sleeping"/);
    expect(() => parseGroupBy("week")).toThrow(InvalidArgumentError);
    expect(() => collectEnv("NOVALUE")).toThrow(/KEY=VALUE/);
    expect(() => parseInstant("yesterday")).toThrow(InvalidArgumentError);
    expect(() => parseInstant("5y")).toThrow(InvalidArgumentError);
  });
});
