// The run report's markdown (src/report/markdown.ts, pure): every section in src/format's wording,
// a failed run's reason, "not captured: why", tool failures, the cut final message, and text from
// users or agents that cannot become markup of the report.
import { describe, expect, it } from "vitest";

import { formatCost, formatDuration, formatTokens, NONE } from "../../src/format/index.js";
import { finalAssistantMessage } from "../../src/fleet/normalize.js";
import { buildReport } from "../../src/report/build.js";
import { blockQuote, codeSpan, reportMarkdown } from "../../src/report/markdown.js";
import { agentRow, captureRow, fileRow, inputs } from "./fixtures.js";

const md = (over: Parameters<typeof inputs>[0] = {}) => reportMarkdown(buildReport(inputs(over)));

describe("reportMarkdown", () => {
  it("a finished run: title, outcome, duration, turns, tokens, cost, tools, files, final message", () => {
    const text = md();
    expect(text).toBe(
      [
        "## Run report: fix-flaky-test (`0123456789ab`)",
        "",
        "- **Outcome:** end of turn",
        "- **Status:** done · **Workspace:** demo",
        "- **Started:** 2026-12-01T10:00:00.000Z · **Finished:** 2026-12-01T10:01:05.000Z",
        "- **Duration:** 1m 05s",
        "- **Turns:** 3",
        "- **Tokens:** 12k in · 678 out · 9.0k cache read · 120 cache write",
        "- **Estimated cost:** $0.0421",
        "",
        "### Tool calls",
        "",
        "9 calls, 1 failed.",
        "",
        "| Tool | Calls | Failed |",
        "|---|---:|---:|",
        "| `Read` | 5 | 0 |",
        "| `Bash` | 2 | 1 |",
        "| `Edit` | 2 | 0 |",
        "",
        "### Files changed",
        "",
        "3 files, +14 \u22122.",
        "",
        "| File | Change | Lines |",
        "|---|---|---:|",
        "| `README.md` | modified | +1 \u22120 |",
        `| \`logo.png\` | added | ${NONE} |`,
        "| `src/flaky.test.ts` | modified | +13 \u22122 |",
        "",
        "### Final message",
        "",
        "> Fixed the flaky test.",
        ">",
        "> All 212 tests pass.",
        "",
      ].join("\n"),
    );
    // the shared wording, not a spelling of its own
    expect(text).toContain(formatDuration(65_000));
    expect(text).toContain(formatTokens(12_345));
    expect(text).toContain(formatCost(0.0421));
  });

  it("a failed run: the outcome with its reason, the exit code and the worker's log", () => {
    const text = md({
      agent: agentRow({
        status: "failed",
        outcome: "ProviderError",
        turns: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
        costUsd: null,
        exitCode: 1,
        failureLogTail: "starting\nerror: 401 Unauthorized",
        failureLogTruncated: true,
      }),
      outcome: "PROVIDER_ERROR",
      toolCalls: [],
      toolCallCount: 0,
      toolFailureCount: 0,
      finished: { detail: "401 Unauthorized", finalMessage: null },
    });
    expect(text).toContain("- **Outcome:** provider error: 401 Unauthorized\n");
    expect(text).toContain(`- **Estimated cost:** ${NONE}\n`);
    expect(text).toContain("- **Turns:** 0\n");
    expect(text).toContain(
      "### Why it failed\n\nExit code: 1 (inferred from the RunEnd's stop condition).\n\n" +
        "Worker log (last lines):\n\n```text\nstarting\nerror: 401 Unauthorized\n```",
    );
    expect(text).toContain("### Tool calls\n\nNo tool calls.");
    expect(text).toContain("### Final message\n\n_No final assistant message._\n");
    // a log that could not be read says why
    const unread = md({
      agent: agentRow({ status: "crashed", outcome: null, failureReason: "the file does not exist" }),
    });
    expect(unread).toContain(`- **Outcome:** ${NONE}\n`);
    expect(unread).toContain(`Exit code: ${NONE} (no RunEnd was read; caliband does not report exit codes).`);
    expect(unread).toContain("Worker log: not available: the file does not exist.");
  });

  it("a run without captured changes says why", () => {
    expect(md({ capture: null, files: [] })).toContain(
      "### Files changed\n\nNot captured: the run ended before Prospero watched it.\n",
    );
    expect(
      md({ capture: captureRow({ state: "OFF", reason: "the workspace is not a git repository" }) }),
    ).toContain("### Files changed\n\nNot captured: the workspace is not a git repository.\n");
    expect(
      md({
        capture: captureRow({
          state: "NOT_CAPTURED",
          reason: "the worktree was removed before the first snapshot",
        }),
      }),
    ).toContain("Not captured: the worktree was removed before the first snapshot.");
    expect(
      md({ capture: captureRow({ state: "EXPIRED", reason: "removed by retention (--retention-days 30)" }) }),
    ).toContain("3 files, +14 \u22122.\n\nNo longer kept: removed by retention \\(--retention-days 30\\).");
    const live = md({ capture: null, files: [], agent: agentRow({ status: "running", finishedAt: null }) });
    expect(live).toContain("Not captured yet: no snapshot has been taken so far.");
    expect(live).toContain("_In progress (running): this is the run so far._");
    expect(live).toContain("(so far)");
    expect(live).toContain(`**Finished:** ${NONE}`);
  });

  it("counts tool failures, and names calls whose start was never seen", () => {
    const text = md({
      toolCalls: [
        { name: "Bash", calls: 4, failures: 3 },
        { name: "", calls: 1, failures: 1 },
      ],
      toolCallCount: 1_205,
      toolFailureCount: 4,
    });
    expect(text).toContain("1,205 calls, 4 failed.");
    expect(text).toContain("| `Bash` | 4 | 3 |\n| (unknown tool) | 1 | 1 |");
    // calls of tools beyond the listed names are still accounted for
    expect(text).toContain("…and 1,200 calls of other tools.");
  });

  it("lists the first 50 files and says how many more there are; notes on the snapshot", () => {
    const many = Array.from({ length: 50 }, (_, i) =>
      fileRow(`f${String(i).padStart(3, "0")}.txt`, "ADDED", 1, 0),
    );
    const text = md({
      capture: captureRow({
        fileCount: 73,
        additions: 73,
        deletions: 0,
        capNote: "big.bin (2.0 GiB) not captured: over 10 MiB (--capture-max-file-bytes)",
      }),
      files: many,
    });
    expect(text).toContain("73 files, +73 \u22120.");
    expect(text.match(/^\| `f\d{3}\.txt` \| added \| \+1 −0 \|$/gm)).toHaveLength(50);
    expect(text).toContain("…and 23 more files (`prospero diff 0123456789ab` shows all).");
    expect(text).toContain(
      "_Note: big.bin \\(2.0 GiB\\) not captured: over 10 MiB \\(--capture-max-file-bytes\\)._",
    );
    expect(md({ capture: captureRow({ fileCount: 0, additions: 0, deletions: 0 }), files: [] })).toContain(
      "### Files changed\n\nNo files changed.",
    );
  });

  it("quotes the final message as cut at 16 KiB of UTF-8, every line of it", () => {
    const cut = finalAssistantMessage([
      { role: "assistant", content: [{ type: "text", text: `${"日本語\n".repeat(3000)}` }] },
    ]);
    const text = md({ finished: { detail: null, finalMessage: cut } });
    const quoted = text.slice(text.indexOf("### Final message\n\n") + 19, -1);
    expect(quoted).toBe(blockQuote(cut ?? ""));
    expect(quoted.split("\n").every((l) => l.startsWith("> ") || l === ">")).toBe(true);
    expect(quoted.endsWith("…")).toBe(true);
    expect(Buffer.byteLength(cut ?? "", "utf8")).toBeLessThanOrEqual(16 * 1024);
  });

  it("text from users and agents cannot become markup: names escaped, code spans fenced, the message last", () => {
    const text = md({
      agent: agentRow({ name: "*bold* | [link](http://x) <b>\n# heading" }),
      toolCalls: [{ name: "mcp|``odd``", calls: 1, failures: 0 }],
      toolCallCount: 1,
      toolFailureCount: 0,
      capture: captureRow({ fileCount: 1 }),
      files: [fileRow("a|b`c.md", "DELETED", 0, 4)],
      finished: { detail: null, finalMessage: "```\nunclosed fence" },
    });
    expect(text.split("\n")[0]).toBe(
      "## Run report: \\*bold\\* \\| \\[link\\]\\(http://x\\) \\<b\\> \\# heading (`0123456789ab`)",
    );
    expect(text).toContain("| ``` mcp\\|``odd`` ``` | 1 | 0 |");
    expect(text).toContain("| ``a\\|b`c.md`` | deleted | +0 \u22124 |");
    // whatever the final message holds comes after every other section
    expect(text.endsWith("### Final message\n\n> ```\n> unclosed fence\n")).toBe(true);
    expect(codeSpan("`x`")).toBe("`` `x` ``");
    expect(codeSpan("")).toBe("`  `");
  });
});
