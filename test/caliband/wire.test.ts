// Wire schemas against the transcripts recorded from the real daemon (../fixtures/caliband) and
// the tolerance rules of caliband-protocol.md §7.
import { FIXTURES_DIR } from "../support/fixtures.js";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";

import { describe, expect, it } from "vitest";

import {
  AgentRecordSchema,
  CtlRequestSchema,
  encodeInbound,
  encodeRequest,
  encodeSpawnSpec,
  isTerminal,
  parseFrame,
  parseInbound,
  parseReply,
  stopConditionName,
  TERMINAL_STATUSES,
  type CtlReply,
  type StopCondition,
  type TurnEvent,
} from "../../src/caliband/wire.js";

const FIXTURES = FIXTURES_DIR;

function lines(file: string): string[] {
  return readFileSync(path.join(FIXTURES, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

function fixtureFiles(predicate: (name: string) => boolean): string[] {
  return readdirSync(FIXTURES).filter(predicate).sort();
}

function reply(line: string): CtlReply {
  const r = parseReply(line);
  if (!r.ok) throw new Error(`reply did not parse: ${JSON.stringify(r)}`);
  return r.reply;
}

function frame(line: string): TurnEvent {
  const r = parseFrame(line);
  if (!r.ok) throw new Error(`frame did not parse: ${JSON.stringify(r)}`);
  return r.frame;
}

const ctlFiles = fixtureFiles((n) => n.startsWith("ctl-") || n === "worker-control-report-status.ndjson");
// requests the daemon rejected on purpose (malformed JSON, unknown kind, missing initial_prompt)
const DELIBERATELY_BAD = new Set([
  "ctl-21-bad-json.ndjson",
  "ctl-22-unknown-kind.ndjson",
  "ctl-25-spawn-missing-prompt.ndjson",
]);

describe("recorded control transcripts", () => {
  it("has the expected fixture set", () => {
    expect(ctlFiles.length).toBe(41);
  });

  it.each(ctlFiles)("%s: every reply line parses", (file) => {
    const all = lines(file);
    expect(all.length % 2).toBe(0);
    for (let i = 1; i < all.length; i += 2) reply(all[i]!);
  });

  it.each(ctlFiles.filter((f) => !DELIBERATELY_BAD.has(f)))("%s: every request line parses", (file) => {
    const all = lines(file);
    for (let i = 0; i < all.length; i += 2) {
      expect(CtlRequestSchema.safeParse(JSON.parse(all[i]!)).success).toBe(true);
    }
  });

  it("rejects the deliberately bad requests", () => {
    for (const file of DELIBERATELY_BAD) {
      const req = lines(file)[0]!;
      let value: unknown = null;
      try {
        value = JSON.parse(req);
      } catch {
        // ctl-21 is not JSON at all
      }
      expect(CtlRequestSchema.safeParse(value).success).toBe(false);
    }
  });

  it("decodes replies into the right variants and values", () => {
    const status = reply(lines("ctl-01-status.ndjson")[1]!);
    expect(status).toEqual({
      kind: "status",
      pid: 19649,
      agents: 0,
      uptime_secs: 0,
      endpoint: { scheme: "unix", path: "/run/user/1000/caliban/3a9d6497a15b086a.sock" },
    });
    expect(reply(lines("ctl-02-list-empty.ndjson")[1]!)).toEqual({ kind: "listed", agents: [] });
    expect(reply(lines("ctl-03-spawn.ndjson")[1]!)).toEqual({
      kind: "spawned",
      id: "852e69bc230a",
      endpoint: { scheme: "unix", path: "/run/user/1000/caliban/agents/77edbe36-agent.sock" },
    });
    expect(reply(lines("ctl-13-respawn.ndjson")[1]!)).toEqual({ kind: "respawned", id: "ee13a812ce54" });
    expect(reply(lines("ctl-12-kill-unknown.ndjson")[1]!)).toEqual({
      kind: "error",
      error: { kind: "not_found", id: "nosuchagent0" },
    });
    expect(reply(lines("ctl-16-rm-running-refused.ndjson")[1]!)).toEqual({
      kind: "error",
      error: { kind: "invalid_state", op: "rm", id: "ee13a812ce54", status: "running" },
    });
    const internal = reply(lines("ctl-21-bad-json.ndjson")[1]!);
    expect(internal.kind === "error" && internal.error.kind === "internal" && internal.error.message).toMatch(
      /^bad request: /,
    );
    for (const f of ["ctl-36-shutdown.ndjson", "ctl-09-kill.ndjson", "ctl-17-rm-force-running.ndjson"]) {
      expect(["shutdown_ack", "killed", "removed"]).toContain(reply(lines(f)[1]!).kind);
    }
    expect(reply(lines("worker-control-report-status.ndjson")[1]!)).toEqual({ kind: "status_reported" });
  });

  it("decodes records with statuses, working dirs and specs", () => {
    const listed = reply(lines("ctl-37-list-after-restart-crashed.ndjson")[1]!);
    if (listed.kind !== "listed") throw new Error("expected listed");
    expect(listed.agents.map((a) => a.status)).toEqual(["failed", "done", "done", "crashed"]);
    expect(listed.agents.map((a) => a.rawStatus)).toEqual(["failed", "done", "done", "crashed"]);
    const wt = listed.agents[1]!;
    expect(wt.working_dir).toMatch(/\.caliban\/worktrees\/[0-9a-f]{32}$/);
    expect(wt.spec).toMatchObject({
      label: "wt",
      isolation_worktree: true,
      source: "demo-repo",
      inherit_hooks: true,
    });
    const idle = reply(lines("ctl-31-list-idle.ndjson")[1]!);
    if (idle.kind !== "listed") throw new Error("expected listed");
    expect(idle.agents.find((a) => a.name === "chatty")).toMatchObject({
      status: "idle",
      spec: { interactive: true },
    });
  });

  it("parses the on-disk manifest as an AgentRecord", () => {
    const manifest: unknown = JSON.parse(
      readFileSync(path.join(FIXTURES, "session-interactive.manifest.json"), "utf8"),
    );
    const rec = AgentRecordSchema.parse(manifest);
    expect(rec).toMatchObject({ id: "8ee85da78998", status: "done", rawStatus: "done" });
  });

  it("parses all three replies of the pipelined connection (ctl-34 alternates too)", () => {
    const all = lines("ctl-34-one-conn-pipelined.ndjson");
    expect([1, 3, 5].map((i) => reply(all[i]!).kind)).toEqual(["status", "listed", "error"]);
  });
});

describe("spawn spec encoding", () => {
  it("reproduces the recorded ctl-03 request byte for byte", () => {
    const recorded = lines("ctl-03-spawn.ndjson")[0]!;
    const parsed = JSON.parse(recorded) as { spec: { label: string; initial_prompt: string } };
    expect(JSON.stringify({ kind: "spawn", spec: encodeSpawnSpec(parsed.spec) })).toBe(recorded);
    // only the two set fields: defaults fill in the rest in declaration order
    expect(
      encodeRequest({
        kind: "spawn",
        spec: { label: "fixture-basic", initial_prompt: parsed.spec.initial_prompt },
      }),
    ).toBe(recorded);
  });

  it("reproduces the recorded interactive spawn (ctl-30)", () => {
    const recorded = lines("ctl-30-spawn-interactive.ndjson")[0]!;
    expect(
      encodeRequest({
        kind: "spawn",
        spec: {
          label: "chatty",
          initial_prompt: "Say hi, then wait for me. fake:delay=40",
          interactive: true,
        },
      }),
    ).toBe(recorded);
  });

  it("defaults inherit_hooks to true and omits inherited_hooks_config unless set", () => {
    const minimal = encodeSpawnSpec({ initial_prompt: "hi" });
    expect(minimal.inherit_hooks).toBe(true);
    expect("inherited_hooks_config" in minimal).toBe(false);
    expect(Object.keys(minimal)).toEqual([
      "label",
      "frontmatter_path",
      "initial_prompt",
      "model",
      "provider",
      "tool_allowlist",
      "isolation_worktree",
      "inherit_hooks",
      "interactive",
      "source",
    ]);
    const full = encodeSpawnSpec({
      initial_prompt: "hi",
      provider: "ollama",
      source: "gonzalo",
      frontmatter_path: "agents/x.md",
      tool_allowlist: ["Read"],
      inherit_hooks: false,
      inherited_hooks_config: '{"rules":[]}',
    });
    expect(Object.keys(full)).toEqual([
      "label",
      "frontmatter_path",
      "initial_prompt",
      "model",
      "provider",
      "tool_allowlist",
      "isolation_worktree",
      "inherit_hooks",
      "interactive",
      "inherited_hooks_config",
      "source",
    ]);
    expect(full).toMatchObject({ provider: "ollama", source: "gonzalo", inherit_hooks: false });
  });

  it("encodes other requests like the recordings", () => {
    expect(encodeRequest({ kind: "list" })).toBe(lines("ctl-02-list-empty.ndjson")[0]);
    expect(encodeRequest({ kind: "attach", id: "852e69bc230a" })).toBe(lines("ctl-04-attach.ndjson")[0]);
    expect(encodeRequest({ kind: "rm", id: "ee13a812ce54", force: true })).toBe(
      lines("ctl-17-rm-force-running.ndjson")[0],
    );
    expect(encodeRequest({ kind: "rm", id: "852e69bc230a" })).toBe(lines("ctl-19-rm-unknown.ndjson")[0]);
    expect(encodeRequest({ kind: "report_status", id: "8ee85da78998", status: "idle" })).toBe(
      lines("worker-control-report-status.ndjson")[0],
    );
  });
});

describe("recorded per-agent streams", () => {
  const outFiles = fixtureFiles(
    (n) => n.endsWith(".out.ndjson") || n === "session-interactive.stdout.ndjson",
  );

  it.each(outFiles)("%s: every line is a known frame", (file) => {
    for (const line of lines(file)) frame(line);
  });

  it("decodes a full run", () => {
    const frames = lines("agent-basic.out.ndjson").map(frame);
    expect(frames.map((f) => f.type)).toEqual([
      "TurnStart",
      "AssistantTextDelta",
      "AssistantTextDelta",
      "ToolCallStart",
      "ToolCallInputDelta",
      "ToolCallInputDelta",
      "ToolCallEnd",
      "TurnEnd",
      "TurnStart",
      "AssistantTextDelta",
      "TurnEnd",
      "RunEnd",
    ]);
    const end = frames.at(-1);
    if (end?.type !== "RunEnd") throw new Error("expected RunEnd");
    expect(end.stopped_for).toEqual({ variant: "EndOfTurn" });
    expect(end.turn_count).toBe(2);
    expect(end.final_messages[2]!.content[0]).toMatchObject({ type: "tool_result", is_error: false });
    const turnEnd = frames[10];
    if (turnEnd?.type !== "TurnEnd") throw new Error("expected TurnEnd");
    expect(turnEnd.tbt).toBeNull();
    expect(turnEnd.ttft).toEqual({ secs: 0, nanos: 388000000 });
    const toolEnd = frames[6];
    if (toolEnd?.type !== "ToolCallEnd") throw new Error("expected ToolCallEnd");
    expect(toolEnd.result_text).toContain("hello from the fake worker");
  });

  it("parses the inbound frames", () => {
    expect(lines("agent-interactive.in.ndjson").map(parseInbound)).toEqual([
      { type: "UserMessage", text: "ping from the operator" },
      { type: "EndInput" },
    ]);
    expect(encodeInbound({ type: "UserMessage", text: "ping from the operator" })).toBe(
      lines("agent-interactive.in.ndjson")[0],
    );
    expect(encodeInbound({ type: "EndInput" })).toBe(lines("agent-interactive.in.ndjson")[1]);
    expect(parseInbound('{"type":"user_message","text":"x"}')).toBeUndefined();
    expect(parseInbound("nope")).toBeUndefined();
  });
});

describe("tolerance (§7)", () => {
  const record = {
    id: "4b1e9f0c2a7d",
    name: "x",
    status: "running",
    started_at: "2026-08-20T14:03:11.482915337+00:00",
    session_dir: "/s/4b1e9f0c2a7d",
    endpoint: { scheme: "unix", path: "/r/a.sock" },
    working_dir: "/w",
    spec: { initial_prompt: "hi" },
  };

  it("ignores unknown fields everywhere", () => {
    const r = reply(
      JSON.stringify({
        kind: "listed",
        future: 1,
        agents: [{ ...record, extra: true, spec: { initial_prompt: "hi", temperature: 0.2 } }],
      }),
    );
    if (r.kind !== "listed") throw new Error("expected listed");
    expect(r.agents[0]).not.toHaveProperty("extra");
    expect(r.agents[0]!.spec).not.toHaveProperty("temperature");
    expect(frame('{"type":"TurnStart","turn_index":0,"message_id":"m","model":"x","seq":9}')).toEqual({
      type: "TurnStart",
      turn_index: 0,
      message_id: "m",
      model: "x",
    });
  });

  it("keeps a record with an unknown status as unknown + rawStatus", () => {
    const r = reply(JSON.stringify({ kind: "listed", agents: [{ ...record, status: "paused" }, record] }));
    if (r.kind !== "listed") throw new Error("expected listed");
    expect(r.agents[0]).toMatchObject({ status: "unknown", rawStatus: "paused" });
    expect(r.agents[1]).toMatchObject({ status: "running", rawStatus: "running" });
    expect(isTerminal(r.agents[0]!.status)).toBe(false);
  });

  it("accepts a legacy record without working_dir and with socket_path", () => {
    const legacy: Record<string, unknown> = { ...record, socket_path: "/old/a.sock" };
    delete legacy.endpoint;
    delete legacy.working_dir;
    const r = reply(JSON.stringify({ kind: "listed", agents: [legacy] }));
    if (r.kind !== "listed") throw new Error("expected listed");
    expect(r.agents[0]).toMatchObject({ endpoint: { scheme: "unix", path: "/old/a.sock" }, working_dir: "" });
    expect(reply('{"kind":"spawned","id":"abc","socket_path":"/old/b.sock"}')).toEqual({
      kind: "spawned",
      id: "abc",
      endpoint: { scheme: "unix", path: "/old/b.sock" },
    });
    expect(reply('{"kind":"attach_ack","socket_path":"/old/b.sock"}')).toEqual({
      kind: "attach_ack",
      endpoint: { scheme: "unix", path: "/old/b.sock" },
    });
    expect(
      reply('{"kind":"status","pid":1,"agents":0,"uptime_secs":3,"socket_path":"/old/c.sock"}'),
    ).toMatchObject({
      endpoint: { scheme: "unix", path: "/old/c.sock" },
    });
  });

  it("reports unknown reply kinds and bad lines without throwing", () => {
    expect(parseReply('{"kind":"frobnicated"}')).toEqual({
      ok: false,
      reason: "unknown_kind",
      kind: "frobnicated",
    });
    expect(parseReply("{not json")).toEqual({ ok: false, reason: "not_json" });
    expect(parseReply('{"kind":"spawned"}')).toMatchObject({ ok: false, reason: "invalid", kind: "spawned" });
    expect(parseReply("[1]")).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("reports unknown frame types, non-JSON and malformed frames", () => {
    expect(parseFrame('{"type":"Heartbeat","n":1}')).toEqual({
      ok: false,
      reason: "unknown_type",
      type: "Heartbeat",
    });
    expect(parseFrame('{"type":"system","subtype":"init"}')).toEqual({
      ok: false,
      reason: "unknown_type",
      type: "system",
    });
    expect(parseFrame("not json")).toEqual({ ok: false, reason: "not_json" });
    expect(parseFrame('{"no_type":1}')).toMatchObject({ ok: false, reason: "invalid" });
    expect(parseFrame('{"type":"TurnStart","turn_index":"zero"}')).toMatchObject({
      ok: false,
      reason: "invalid",
      type: "TurnStart",
    });
  });

  function runEnd(stoppedFor: unknown): string {
    return JSON.stringify({
      type: "RunEnd",
      final_messages: [],
      total_usage: { input_tokens: 0, output_tokens: 0 },
      turn_count: 0,
      stopped_for: stoppedFor,
    });
  }

  function stopped(stoppedFor: unknown): StopCondition {
    const f = frame(runEnd(stoppedFor));
    if (f.type !== "RunEnd") throw new Error("expected RunEnd");
    return f.stopped_for;
  }

  it("decodes every StopCondition variant, including unknown ones", () => {
    expect(stopped("EndOfTurn")).toEqual({ variant: "EndOfTurn" });
    expect(stopped("Cancelled")).toEqual({ variant: "Cancelled" });
    expect(stopped("MaxTokensExhausted")).toEqual({ variant: "MaxTokensExhausted" });
    expect(stopped("ThinkingBudgetExhausted")).toEqual({ variant: "ThinkingBudgetExhausted" });
    expect(stopped({ MaxTurnsReached: 50 })).toEqual({ variant: "MaxTurnsReached", value: 50 });
    for (const v of ["ProviderError", "HookDenied", "CompactionFailed", "Refusal", "ContentFilter"]) {
      expect(stopped({ [v]: "msg" })).toEqual({ variant: v, value: "msg" });
    }
    expect(stopped({ StreamIdle: { secs: 120, nanos: 0 } })).toEqual({
      variant: "StreamIdle",
      value: { secs: 120, nanos: 0 },
    });
    const unknownUnit = stopped("Exploded");
    expect(unknownUnit).toEqual({ variant: "unknown", name: "Exploded" });
    expect(stopConditionName(unknownUnit)).toBe("Exploded");
    const unknownData = stopped({ BudgetExceeded: { usd: 3 } });
    expect(unknownData).toEqual({ variant: "unknown", name: "BudgetExceeded", value: { usd: 3 } });
    expect(stopConditionName(stopped({ ProviderError: "401" }))).toBe("ProviderError");
    // not an externally tagged value at all
    expect(parseFrame(runEnd({ a: 1, b: 2 }))).toMatchObject({ ok: false, reason: "invalid" });
    expect(parseFrame(runEnd({ MaxTurnsReached: "many" }))).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("defaults RunEnd's newer fields", () => {
    const f = frame(runEnd("EndOfTurn"));
    expect(f).toMatchObject({ turns_without_edit: 0, no_edit_nudge_emitted: false });
  });

  it("accepts usage without cache fields, null or missing ttft/tbt, ToolCallEnd without result_text", () => {
    const turnEnd = frame(
      JSON.stringify({
        type: "TurnEnd",
        turn_index: 0,
        assistant_message: { role: "assistant", content: [] },
        tool_results: [],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 2 },
        ttft: null,
      }),
    );
    expect(turnEnd).toMatchObject({ ttft: null, tbt: null, usage: { input_tokens: 10, output_tokens: 2 } });
    const withCache = frame(
      JSON.stringify({
        type: "TurnEnd",
        turn_index: 0,
        assistant_message: { role: "assistant", content: [] },
        tool_results: [],
        stop_reason: "tool_use",
        usage: { input_tokens: 4210, output_tokens: 96, cache_read_input_tokens: 3900 },
        ttft: { secs: 0, nanos: 612000000 },
        tbt: null,
      }),
    );
    expect(withCache).toMatchObject({ usage: { cache_read_input_tokens: 3900 } });
    const legacyEnd = frame(
      '{"type":"ToolCallEnd","turn_index":1,"tool_use_id":"t","is_error":true,"content":[]}',
    );
    expect(legacyEnd).toEqual({
      type: "ToolCallEnd",
      turn_index: 1,
      tool_use_id: "t",
      is_error: true,
      content: [],
    });
  });

  it("keeps unknown content blocks and image sources as unknown", () => {
    const f = frame(
      JSON.stringify({
        type: "TurnEnd",
        turn_index: 0,
        assistant_message: {
          role: "assistant",
          content: [
            { type: "text", text: "a", cache_control: { type: "ephemeral" } },
            { type: "thinking", thinking: "hm", signature: "sig" },
            { type: "redacted_thinking", data: "zzz" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: "AA==" },
              dims: [2, 3],
            },
            { type: "image", source: { type: "s3", bucket: "b" } },
            { type: "tool_use", id: "t1", name: "Read", input: { file_path: "x" } },
          ],
        },
        tool_results: [
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "t1", content: [{ type: "mystery" }], is_error: false },
            ],
          },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 1, output_tokens: 1 },
        ttft: null,
        tbt: null,
      }),
    );
    if (f.type !== "TurnEnd") throw new Error("expected TurnEnd");
    expect(f.assistant_message.content.map((b) => b.type)).toEqual([
      "text",
      "thinking",
      "unknown",
      "image",
      "image",
      "tool_use",
    ]);
    expect(f.assistant_message.content[2]).toEqual({ type: "unknown", rawType: "redacted_thinking" });
    expect(f.assistant_message.content[4]).toEqual({
      type: "image",
      source: { type: "unknown", rawType: "s3" },
    });
    expect(f.tool_results[0]!.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "t1",
      content: [{ type: "unknown", rawType: "mystery" }],
      is_error: false,
    });
  });

  it("knows the terminal statuses", () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(["crashed", "done", "failed", "killed"]);
    for (const s of ["spawning", "running", "idle", "unknown", "paused"]) expect(isTerminal(s)).toBe(false);
    for (const s of TERMINAL_STATUSES) expect(isTerminal(s)).toBe(true);
  });
});
