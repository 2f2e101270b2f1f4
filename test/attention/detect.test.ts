/**
 * The inbox's pure rules (src/attention/detect.ts): which events end a wait, what a question, a
 * plan and a failure reason read as, the bounds and sanitizing of every text a person sees, and
 * the notifications each action sends.
 */
import { describe, expect, it } from "vitest";
import {
  BODY_MAX_BYTES,
  MESSAGE_MAX_CHARS,
  QUESTION_MAX_BYTES,
  TITLE_MAX_CHARS,
  alertKey,
  answerTextProblem,
  boundBytes,
  failureBody,
  failureTitle,
  formatDuration,
  isBoundaryStop,
  isFailedStatus,
  isFailureOutcome,
  isPlanTool,
  notificationsFor,
  planText,
  questionBody,
  questionTitle,
  scheduleSkipped,
  snoozeProblem,
  turnText,
  waitEndReason,
  type NotifiedItem,
  type RunFailure,
} from "../../src/attention/detect.js";
import type { FleetEvent, PayloadOf } from "../../src/events/index.js";

const ev = (e: Pick<FleetEvent, "kind" | "payload">): FleetEvent =>
  ({
    ...e,
    workspace: "demo",
    agentId: "a1b2c3d4e5f6",
    tsMs: 1_000,
    streamKey: "a1b2c3d4e5f6",
    seq: 1,
    globalId: 1,
  }) as FleetEvent;

const out = (turnIndex: number, blockIndex: number, text: string, stream: "text" | "thinking" = "text") =>
  ({ stream, text, turnIndex, blockIndex }) satisfies PayloadOf<"output">;

describe("what ends a wait", () => {
  it("a status back to running/spawning resumes; a terminal status or agent_gone ends the run; idle does nothing", () => {
    expect(waitEndReason(ev({ kind: "status_changed", payload: { from: "idle", to: "running" } }))).toEqual({
      reason: "the agent resumed",
      resumed: true,
    });
    expect(
      waitEndReason(ev({ kind: "status_changed", payload: { from: "idle", to: "spawning" } }))?.resumed,
    ).toBe(true);
    expect(waitEndReason(ev({ kind: "status_changed", payload: { from: "idle", to: "done" } }))).toEqual({
      reason: "the run ended (done)",
      resumed: false,
    });
    expect(
      waitEndReason(ev({ kind: "status_changed", payload: { from: "running", to: "idle" } })),
    ).toBeNull();
    expect(
      waitEndReason(ev({ kind: "agent_gone", payload: { reason: "respawned", replacedBy: "ffffffffffff" } }))
        ?.reason,
    ).toBe("the run ended (respawned as ffffffffffff)");
    expect(
      waitEndReason(ev({ kind: "agent_gone", payload: { reason: "removed", replacedBy: null } }))?.reason,
    ).toBe("the run ended (removed)");
    expect(waitEndReason(ev({ kind: "input_ended", payload: {} }))).toBeNull();
  });

  it("classifies statuses, outcomes, plan tools and turn ends", () => {
    expect(["failed", "crashed"].every(isFailedStatus)).toBe(true);
    expect(["killed", "done", "idle", "running"].some(isFailedStatus)).toBe(false);
    expect(["EndOfTurn", "MaxTurnsReached", "Cancelled"].some(isFailureOutcome)).toBe(false);
    expect(["ProviderError", "HookDenied", "Refusal", "Unknown"].every(isFailureOutcome)).toBe(true);
    expect(isPlanTool("EnterPlanMode") && isPlanTool("ExitPlanMode")).toBe(true);
    expect(isPlanTool("Read") || isPlanTool("enterplanmode")).toBe(false);
    expect(isBoundaryStop("end_turn") && isBoundaryStop("stop_sequence")).toBe(true);
    expect(isBoundaryStop("tool_use") || isBoundaryStop("max_tokens")).toBe(false);
    expect(alertKey("data_disk_free", null)).toBe("alert:data_disk_free:*");
    expect(alertKey("daemon_unreachable", "demo")).toBe("alert:daemon_unreachable:demo");
  });
});

describe("the question of an agent waiting after a turn", () => {
  it("is the last turn's text stream: blocks joined by a blank line, thinking and other turns left out", () => {
    const outputs = [
      out(0, 0, "I'll look "),
      out(0, 0, "first."),
      out(1, 0, "hmm", "thinking"),
      out(1, 1, "The README says hello. "),
      out(1, 1, "Shall I go on?"),
      out(1, 2, "  "),
      out(1, 3, "Second block."),
    ];
    expect(turnText(outputs, 1)).toBe("The README says hello. Shall I go on?\n\nSecond block.");
    expect(turnText(outputs, 0)).toBe("I'll look first.");
    expect(turnText(outputs, 2)).toBe("");
  });

  it("is sanitized, redacted and bounded to 8 KiB keeping its end (where the question is)", () => {
    const long = `${"x".repeat(20_000)}é\u001b[31m red\u0007 sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 — shall I?`;
    const body = questionBody(long);
    expect(Buffer.byteLength(body, "utf8")).toBeLessThanOrEqual(QUESTION_MAX_BYTES);
    expect(body.startsWith("…")).toBe(true);
    expect(body.endsWith("shall I?")).toBe(true);
    for (const gone of ["\u001b", "\u0007", "sk-ant-api03"]) expect(body).not.toContain(gone);
    expect(body).toContain("[redacted]");
    expect(questionBody("   ")).toBe("(the agent's last turn had no text)");
  });

  it("titles it with the agent, its workspace and the question's last sentence, one line of at most 200 characters", () => {
    expect(questionTitle({ name: "docs", workspace: "demo" }, "I read it.\nShould I add tests?")).toBe(
      "docs in demo waits for input: Should I add tests?",
    );
    expect(questionTitle({ name: "docs", workspace: "demo" }, "")).toBe("docs in demo waits for input");
    const t = questionTitle({ name: "docs", workspace: "demo" }, `${"word ".repeat(100)}?`);
    expect(t.length).toBe(TITLE_MAX_CHARS);
    expect(t.endsWith("…")).toBe(true);
  });

  it("cuts bytes at a character boundary, head or tail", () => {
    const s = "ééééé"; // 10 bytes
    expect(boundBytes(s, 10, "head")).toBe(s);
    expect(boundBytes(s, 8, "head")).toBe("éé…");
    expect(boundBytes(s, 8, "tail")).toBe("…éé");
  });
});

describe("plans and failures", () => {
  it("a plan is input.plan, else the raw input", () => {
    expect(planText({ plan: "## Plan\n1. a" }, '{"plan":"## Plan\\n1. a"}')).toBe("## Plan\n1. a");
    expect(planText({ steps: ["a"] }, '{"steps":["a"]}')).toBe('{"steps":["a"]}');
    expect(planText({ plan: "  " }, "raw")).toBe("raw");
    expect(planText(null, "{broken")).toBe("{broken");
  });

  const failure = (over: Partial<RunFailure> = {}): RunFailure => ({
    status: "failed",
    outcome: "ProviderError",
    detail: "401 Unauthorized: authentication_error: invalid x-api-key",
    exitCode: 1,
    logTail: Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n"),
    logUnreadable: null,
    launchReason: null,
    ...over,
  });

  it("a failure reason says how the run ended and quotes the last 20 worker.log lines", () => {
    const body = failureBody(failure());
    expect(body).toMatch(
      /^The run ended failed \(ProviderError: 401 Unauthorized: authentication_error: invalid x-api-key\), exit code 1\./,
    );
    expect(body).toContain("Last 20 lines of worker.log:\nline 10\n");
    expect(body).not.toContain("line 9\n");
    expect(body.endsWith("line 29")).toBe(true);
    expect(
      failureBody(
        failure({ outcome: null, detail: null, exitCode: null, logTail: null, logUnreadable: "gone" }),
      ),
    ).toBe("The run ended failed.\n\nworker.log could not be read: gone");
    expect(Buffer.byteLength(failureBody(failure({ logTail: "y".repeat(100_000) })))).toBeLessThanOrEqual(
      BODY_MAX_BYTES,
    );
  });

  it("a timed-out run the queue killed says the launch's reason, not 'ended killed'", () => {
    const f = failure({
      status: "killed",
      outcome: null,
      detail: null,
      exitCode: null,
      logTail: null,
      launchReason: "timed out after 1000 ms: run a1b2c3d4e5f6 was killed",
    });
    expect(failureBody(f)).toBe("The launch timed out after 1000 ms: run a1b2c3d4e5f6 was killed.");
    expect(failureTitle({ name: "slow", workspace: "demo" }, f, true)).toBe("Run slow in demo timed out");
    expect(failureTitle({ name: "x", workspace: "demo" }, failure(), false)).toBe(
      "Run x in demo failed: 401 Unauthorized: authentication_error: invalid x-api-key",
    );
    expect(
      failureTitle(
        { name: "x", workspace: "demo" },
        failure({ status: "crashed", outcome: null, detail: null }),
        false,
      ),
    ).toBe("Run x in demo crashed");
  });
});

describe("what people may send", () => {
  it("an answer is not empty nor over 100 000 characters", () => {
    expect(answerTextProblem("yes")).toBeNull();
    expect(answerTextProblem(" \n ")).toBe("must not be empty");
    expect(answerTextProblem("a".repeat(100_001))).toMatch(/at most 100000/);
    expect(answerTextProblem("a".repeat(100_000))).toBeNull();
  });

  it("a snooze ends in the future, at most 30 days ahead", () => {
    const now = 1_000_000;
    expect(snoozeProblem(now, now)).toBe("must be in the future");
    expect(snoozeProblem(now - 1, now)).toBe("must be in the future");
    expect(snoozeProblem(now + 30 * 86_400_000 + 1, now)).toBe("must be at most 30 days ahead");
    expect(snoozeProblem(now + 30 * 86_400_000, now)).toBeNull();
    expect(snoozeProblem(Number.NaN, now)).toBe("must be a time");
  });

  it("formats durations for people", () => {
    expect(formatDuration(45_000)).toBe("45 s");
    expect(formatDuration(12 * 60_000)).toBe("12 min");
    expect(formatDuration(3 * 3_600_000)).toBe("3 h");
    expect(formatDuration(52 * 3_600_000)).toBe("2 d 4 h");
    expect(formatDuration(48 * 3_600_000)).toBe("2 d");
  });
});

describe("notifications", () => {
  const item = (over: Partial<NotifiedItem> = {}): NotifiedItem => ({
    id: "0123456789ab",
    kind: "RUN_FAILED",
    state: "OPEN",
    workspace: "demo",
    agentId: "a1b2c3d4e5f6",
    launchId: null,
    check: null,
    subject: null,
    title: "Run x in demo failed",
    body: "The run ended failed.",
    openedAt: new Date(0),
    escalations: 0,
    resolution: null,
    closedBy: null,
    closeReason: null,
    ...over,
  });
  const at = new Date(90_000_000);

  it("an opened RUN_FAILED sends inbox.opened and run.failed (or run.timed_out), ids <type>:<item>:<action>", () => {
    const ns = notificationsFor(
      item(),
      { id: 7, action: "OPENED", at },
      { status: "failed", outcome: "ProviderError" },
    );
    expect(ns.map((n) => n.id)).toEqual(["inbox.opened:0123456789ab:7", "run.failed:0123456789ab:7"]);
    expect(ns[1]).toMatchObject({
      type: "run.failed",
      occurredAt: at,
      workspace: "demo",
      agentId: "a1b2c3d4e5f6",
      inboxItemId: "0123456789ab",
      title: "Run x in demo failed",
      message: "The run ended failed.",
      data: {
        kind: "RUN_FAILED",
        state: "OPEN",
        action: "OPENED",
        status: "failed",
        outcome: "ProviderError",
      },
    });
    expect(ns[0]!.data["reopened"]).toBe(false);
    const t = notificationsFor(item(), { id: 8, action: "OPENED", at }, { timedOut: true });
    expect(t.map((n) => n.type)).toEqual(["inbox.opened", "run.timed_out"]);
    expect(t[1]!.data).not.toHaveProperty("timedOut");
  });

  it("alerts send alert.opened and, cleared, alert.resolved; a person's close only inbox.closed", () => {
    const alert = item({
      kind: "ALERT",
      check: "data_disk_free",
      subject: null,
      agentId: null,
      title: "Disk low",
    });
    expect(notificationsFor(alert, { id: 1, action: "OPENED", at }).map((n) => n.type)).toEqual([
      "inbox.opened",
      "alert.opened",
    ]);
    const cleared = {
      ...alert,
      state: "CLOSED",
      resolution: "RESOLVED",
      closeReason: "free space back to 3 GiB",
    };
    const ns = notificationsFor(cleared, { id: 2, action: "RESOLVED", at }, { cleared: true });
    expect(ns.map((n) => [n.type, n.title, n.message])).toEqual([
      ["inbox.closed", "Resolved: Disk low", "free space back to 3 GiB"],
      ["alert.resolved", "Resolved: Disk low", "free space back to 3 GiB"],
    ]);
    expect(ns[1]!.data).toMatchObject({ check: "data_disk_free", subject: null, resolution: "RESOLVED" });
    const acked = { ...alert, state: "CLOSED", resolution: "ACKNOWLEDGED", closedBy: "alice" };
    const a = notificationsFor(acked, { id: 3, action: "ACKNOWLEDGED", at });
    expect(a.map((n) => [n.type, n.message])).toEqual([["inbox.closed", "Acknowledged by alice"]]);
  });

  it("reopen, escalation; snooze and update send nothing; bounds hold", () => {
    expect(notificationsFor(item(), { id: 4, action: "REOPENED", at })[0]!.data["reopened"]).toBe(true);
    const esc = notificationsFor(item({ escalations: 1 }), { id: 5, action: "ESCALATED", at });
    expect(esc.map((n) => n.type)).toEqual(["inbox.escalated"]);
    expect(esc[0]!.title).toBe("Still open after 1 d 1 h: Run x in demo failed");
    expect(esc[0]!.data).toMatchObject({ escalations: 1, openForMs: 90_000_000 });
    expect(notificationsFor(item(), { id: 6, action: "SNOOZED", at })).toEqual([]);
    expect(notificationsFor(item(), { id: 6, action: "UPDATED", at })).toEqual([]);
    const big = notificationsFor(item({ title: "t".repeat(500), body: "b".repeat(10_000) }), {
      id: 9,
      action: "OPENED",
      at,
    });
    for (const n of big) {
      expect(n.title.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
      expect(n.message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    }
  });

  it("a skipped schedule firing is schedule.skipped, id by schedule and fire time; other changes nothing", () => {
    const n = scheduleSkipped(
      ev({
        kind: "schedule_changed",
        payload: {
          scheduleId: "5c5c5c5c5c5c",
          change: "skipped",
          launchId: null,
          fireAtMs: 1_700_000_000_000,
          reason: "overlap SKIP: the previous launch is still active",
        },
      }),
    );
    expect(n).toMatchObject({
      id: "schedule.skipped:5c5c5c5c5c5c:1700000000000",
      type: "schedule.skipped",
      workspace: "demo",
      inboxItemId: null,
      message: "overlap SKIP: the previous launch is still active",
      data: { scheduleId: "5c5c5c5c5c5c", fireAtMs: 1_700_000_000_000 },
    });
    expect(
      scheduleSkipped(
        ev({
          kind: "schedule_changed",
          payload: { scheduleId: "5c5c5c5c5c5c", change: "fired", launchId: "x", fireAtMs: 1, reason: null },
        }),
      ),
    ).toBeNull();
  });
});
