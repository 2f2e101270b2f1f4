// Agent.report (issue 16 item 4) through the real gateway (in-process, real port) and the caliband
// double: the report of a scripted run equals what the run did — turns, tokens and cost as its
// RunEnd and TurnEnd frames say, tool calls by name (with failures) as its ToolCallStart/End frames
// say, the final message as the last assistant message of the RunEnd's final_messages the double
// emitted — and its markdown says the same; a provider error's failure; an interactive run's report
// so far and at its end; a token limited to another workspace reads no report of this one.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { formatCost, formatDuration, formatTokens } from "../../src/format/index.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { framesScript } from "../support/fake-scripts.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

interface Report {
  final: boolean;
  status: string;
  outcome: string | null;
  outcomeName: string | null;
  outcomeDetail: string | null;
  failure: { logTail: string | null; exitCode: number | null } | null;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  turns: number;
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheCreationTokens: number };
  estimatedCostUsd: number | null;
  toolCalls: { name: string; calls: number; failures: number }[];
  toolCallCount: number;
  toolFailureCount: number;
  changes: string;
  changesReason: string | null;
  filesChanged: number | null;
  files: { path: string }[];
  finalMessage: string | null;
  markdown: string;
}
interface Answer {
  agent: {
    agentId: string;
    name: string;
    status: string;
    turns: number;
    estimatedCostUsd: number | null;
    usage: Report["usage"];
    startedAt: string;
    finishedAt: string | null;
    changes: { state: string; reason: string | null };
    report: Report;
  } | null;
}

const REPORT = `query($id: String!) { agent(agentId: $id) {
  agentId name status turns estimatedCostUsd startedAt finishedAt
  usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens }
  changes { state reason }
  report { final status outcome outcomeName outcomeDetail failure { logTail exitCode }
    startedAt finishedAt durationMs turns
    usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens } estimatedCostUsd
    toolCalls { name calls failures } toolCallCount toolFailureCount
    changes changesReason filesChanged files { path } finalMessage markdown } } }`;

let h: AppHarness;
let other: { daemon: FakeCaliband; ws: TempWorkspace } | undefined;

async function report(id: string, token?: string): Promise<Answer> {
  const r = await h.gql<Answer>(REPORT, { id }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!;
}

async function spawn(
  workspace: string,
  prompt: string,
  opts: { interactive?: boolean; label?: string } = {},
) {
  const r = await h.gql<{ spawnAgent: { agent?: { agentId: string } } }>(
    `mutation($input: SpawnAgentInput!) { spawnAgent(input: $input) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    {
      input: {
        workspace,
        prompt,
        interactive: opts.interactive ?? false,
        ...(opts.label ? { label: opts.label } : {}),
      },
    },
  );
  const id = r.data?.spawnAgent.agent?.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return id;
}

/**
 * Wait until the stored run has `status` — for an ended one also its outcome, i.e. its RunEnd is
 * ingested (the status may come first, from the daemon's list).
 */
async function until(id: string, status: string): Promise<Answer> {
  const ended = status === "DONE" || status === "FAILED";
  return waitFor(
    async () => {
      const a = await report(id);
      return a.agent?.status === status && (!ended || a.agent.report.outcomeName !== null) ? a : null;
    },
    15_000,
    `${id} ${status}`,
  );
}

/** The frames the double wrote for run `id` (stored verbatim, in order), parsed. */
async function frames(id: string): Promise<Record<string, unknown>[]> {
  const rows = await h.app.db.prisma.frame.findMany({ where: { agentId: id }, orderBy: { line: "asc" } });
  return rows.map((r) => JSON.parse(r.text) as Record<string, unknown>);
}

type Block = { type: string; text?: string };
type Msg = { role: string; content: Block[] };

/** What the frames say the run did: turns and usage (RunEnd), tool calls by name, the final message. */
function whatTheFramesSay(fs: Record<string, unknown>[]) {
  const runEnd = fs.find((f) => f.type === "RunEnd") as
    | {
        final_messages: Msg[];
        turn_count: number;
        total_usage: { input_tokens: number; output_tokens: number };
      }
    | undefined;
  const names = new Map<string, string>();
  const tools = new Map<string, { name: string; calls: number; failures: number }>();
  for (const f of fs) {
    if (f.type === "ToolCallStart") names.set(f.tool_use_id as string, f.name as string);
    if (f.type === "ToolCallEnd") {
      const name = names.get(f.tool_use_id as string) ?? "";
      const t = tools.get(name) ?? { name, calls: 0, failures: 0 };
      t.calls += 1;
      if (f.is_error === true) t.failures += 1;
      tools.set(name, t);
    }
  }
  const lastAssistant = runEnd?.final_messages.filter((m) => m.role === "assistant").at(-1);
  const text = lastAssistant?.content.filter((b) => b.type === "text").map((b) => b.text ?? "");
  return {
    turns: runEnd?.turn_count ?? null,
    usage: runEnd?.total_usage ?? null,
    tools: [...tools.values()].sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name)),
    finalMessage: text && text.length ? text.join("\n\n") : null,
  };
}

// A run of workspace "other" with 1 200 + 1 tool calls (every third Bash fails) and a final
// assistant message of two text blocks, from a script (frames as caliban writes them).
const BASH_CALLS = 1200;
function toolHeavyFrames() {
  const out: Record<string, unknown>[] = [
    { type: "TurnStart", turn_index: 0, message_id: "m0", model: "claude-sonnet-4-5" },
  ];
  const uses: unknown[] = [];
  const results: unknown[] = [];
  const call = (id: string, name: string, ok: boolean) => {
    out.push({ type: "ToolCallStart", turn_index: 0, tool_use_id: id, name });
    out.push({
      type: "ToolCallInputDelta",
      turn_index: 0,
      tool_use_id: id,
      partial_json: '{"command":"true"}',
    });
    out.push({
      type: "ToolCallEnd",
      turn_index: 0,
      tool_use_id: id,
      is_error: !ok,
      content: [{ type: "text", text: ok ? "ok" : "exit 1" }],
      result_text: ok ? "ok" : "exit 1",
      truncated: false,
    });
    uses.push({ type: "tool_use", id, name, input: { command: "true" } });
    results.push({
      type: "tool_result",
      tool_use_id: id,
      content: [{ type: "text", text: "ok" }],
      is_error: !ok,
    });
  };
  call("toolu_read", "Read", true);
  for (let i = 0; i < BASH_CALLS; i++) call(`toolu_b${i}`, "Bash", i % 3 !== 0);
  const usage0 = { input_tokens: 2000, output_tokens: 50 };
  out.push({
    type: "TurnEnd",
    turn_index: 0,
    assistant_message: {
      role: "assistant",
      content: [{ type: "text", text: "Running the tests." }, ...uses],
    },
    tool_results: [{ role: "user", content: results }],
    stop_reason: "tool_use",
    usage: usage0,
    ttft: { secs: 0, nanos: 300_000_000 },
    tbt: null,
  });
  out.push({ type: "TurnStart", turn_index: 1, message_id: "m1", model: "claude-sonnet-4-5" });
  out.push({ type: "AssistantTextDelta", turn_index: 1, content_block_index: 0, text: "Fixed it." });
  const usage1 = { input_tokens: 3000, output_tokens: 40 };
  const final = {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "done", signature: "s" },
      { type: "text", text: "Fixed it." },
      { type: "text", text: "400 of the Bash calls failed; the rest pass." },
    ],
  };
  out.push({
    type: "TurnEnd",
    turn_index: 1,
    assistant_message: final,
    tool_results: [],
    stop_reason: "end_turn",
    usage: usage1,
    ttft: null,
    tbt: null,
  });
  out.push({
    type: "RunEnd",
    final_messages: [
      { role: "user", content: [{ type: "text", text: "fix the tests" }] },
      { role: "assistant", content: [{ type: "text", text: "Running the tests." }, ...uses] },
      { role: "user", content: results },
      final,
    ],
    total_usage: { input_tokens: 5000, output_tokens: 90 },
    turn_count: 2,
    stopped_for: "EndOfTurn",
    turns_without_edit: 2,
    no_edit_nudge_emitted: false,
  });
  return out;
}

beforeAll(async () => {
  h = await startAppHarness();
  const ws = makeTempWorkspace("other-repo");
  const root = fs.realpathSync(ws.root);
  const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: h.d.ws.runtime };
  const script = framesScript(toolHeavyFrames() as never, { frameDelayMs: 0 });
  const daemon = await FakeCaliband.start({
    workspaceRoot: root,
    socketPath: controlSocketPath(root, env),
    dataBase: ws.data,
    env,
    script: () => script,
  });
  other = { daemon, ws };
  const res = await h.gql<{ addWorkspace: { __typename: string } }>(
    `mutation($input: AddWorkspaceInput!) { addWorkspace(input: $input) { __typename } }`,
    { input: { name: "other", root } },
  );
  expect(res.data?.addWorkspace.__typename).toBe("AddWorkspacePayload");
  await waitFor(() => h.app.fleet.state.healthOf("other").state === "healthy", 10_000, "other healthy");
}, 60_000);
afterAll(async () => {
  await h?.close();
  await other?.daemon.close();
  other?.ws.cleanup();
});

describe("Agent.report", () => {
  it("a scripted run (the default script): every field as the run did it, and the markdown says so", async () => {
    const id = await spawn("demo", "Read README.md and summarize it.", { label: "summarize" });
    const { agent } = await until(id, "DONE");
    const r = agent!.report;
    const did = whatTheFramesSay(await frames(id));
    expect(did.finalMessage).toBe("The README says hello. Done."); // the fixture's last assistant message
    expect(r).toMatchObject({
      final: true,
      status: "DONE",
      outcome: "END_OF_TURN",
      outcomeName: "EndOfTurn",
      outcomeDetail: null,
      failure: null,
      startedAt: agent!.startedAt,
      finishedAt: agent!.finishedAt,
      turns: did.turns,
      usage: {
        ...agent!.usage,
        inputTokens: did.usage!.input_tokens,
        outputTokens: did.usage!.output_tokens,
      },
      estimatedCostUsd: agent!.estimatedCostUsd,
      toolCalls: did.tools,
      toolCallCount: 1,
      toolFailureCount: 0,
      finalMessage: did.finalMessage,
    });
    expect(did.tools).toEqual([{ name: "Read", calls: 1, failures: 0 }]);
    expect(r.estimatedCostUsd).toBeGreaterThan(0);
    expect(r.durationMs).toBe(Date.parse(agent!.finishedAt!) - Date.parse(agent!.startedAt));
    // The changes part reads as Agent.changes does.
    expect([r.changes, r.changesReason]).toEqual([agent!.changes.state, agent!.changes.reason]);

    const md = r.markdown;
    expect(md.startsWith(`## Run report: summarize (\`${id}\`)\n`)).toBe(true);
    expect(md).toContain("- **Outcome:** end of turn\n");
    expect(md).toContain(`- **Duration:** ${formatDuration(r.durationMs)}\n`);
    expect(md).toContain(`- **Turns:** ${did.turns}\n`);
    expect(md).toContain(
      `- **Tokens:** ${formatTokens(did.usage!.input_tokens)} in · ${formatTokens(did.usage!.output_tokens)} out`,
    );
    expect(md).toContain(`- **Estimated cost:** ${formatCost(r.estimatedCostUsd)}\n`);
    expect(md).toContain("1 call, 0 failed.");
    expect(md).toContain("| `Read` | 1 | 0 |");
    expect(md).toContain("### Files changed\n");
    expect(md.endsWith("### Final message\n\n> The README says hello. Done.\n")).toBe(true);
  });

  it("a run with 1 201 tool calls: counted by name with their failures; the final message of two text blocks", async () => {
    const id = await spawn("other", "fix the tests");
    const { agent } = await until(id, "DONE");
    const r = agent!.report;
    const did = whatTheFramesSay(await frames(id));
    expect(did.tools).toEqual([
      { name: "Bash", calls: BASH_CALLS, failures: BASH_CALLS / 3 },
      { name: "Read", calls: 1, failures: 0 },
    ]);
    expect(r.toolCalls).toEqual(did.tools);
    expect([r.toolCallCount, r.toolFailureCount]).toEqual([BASH_CALLS + 1, BASH_CALLS / 3]);
    expect(r.finalMessage).toBe("Fixed it.\n\n400 of the Bash calls failed; the rest pass.");
    expect(r.finalMessage).toBe(did.finalMessage);
    expect(r).toMatchObject({ turns: 2, usage: { inputTokens: 5000, outputTokens: 90 } });
    expect(r.markdown).toContain("1,201 calls, 400 failed.");
    expect(r.markdown).toContain("| `Bash` | 1,200 | 400 |\n| `Read` | 1 | 0 |");
    expect(r.markdown).toContain("> Fixed it.\n>\n> 400 of the Bash calls failed; the rest pass.\n");
  });

  it("a provider error: FAILED with its reason, no turns, no tools, no final message", async () => {
    const id = await spawn("demo", "go fake:provider-error=401");
    const { agent } = await until(id, "FAILED");
    const r = agent!.report;
    const did = whatTheFramesSay(await frames(id));
    expect(did).toMatchObject({ turns: 0, tools: [], finalMessage: null });
    expect(r).toMatchObject({
      final: true,
      status: "FAILED",
      outcome: "PROVIDER_ERROR",
      outcomeDetail: "401 Unauthorized: authentication_error: invalid x-api-key",
      turns: 0,
      toolCalls: [],
      toolCallCount: 0,
      finalMessage: null,
    });
    expect(r.failure?.exitCode).toBe(1);
    expect(r.failure?.logTail).toContain("provider error");
    expect(r.markdown).toContain(
      "- **Outcome:** provider error: 401 Unauthorized: authentication\\_error: invalid x-api-key\n",
    );
    expect(r.markdown).toContain(
      "### Why it failed\n\nExit code: 1 (inferred from the RunEnd's stop condition).",
    );
    expect(r.markdown).toContain("No tool calls.");
    expect(r.markdown).toContain("_No final assistant message._");
  });

  it("an interactive run: the report so far while it waits, the final one after its input ended", async () => {
    const id = await spawn("demo", "chat with me", { interactive: true });
    const idle = await until(id, "IDLE");
    const so = idle.agent!.report;
    expect(so).toMatchObject({
      final: false,
      status: "IDLE",
      finishedAt: null,
      outcome: null,
      finalMessage: null,
    });
    expect(so.turns).toBe(idle.agent!.turns);
    expect(so.durationMs).toBeGreaterThan(0);
    expect(so.markdown).toContain("_In progress (idle): this is the run so far._");
    expect(so.markdown).toContain(`- **Duration:** ${formatDuration(so.durationMs)} (so far)`);
    // later, a longer duration (until now)
    await new Promise((r) => setTimeout(r, 50));
    expect((await report(id)).agent!.report.durationMs).toBeGreaterThan(so.durationMs!);

    const sent = await h.gql<{ sendAgentInput: { __typename: string } }>(
      `mutation($id: String!) { sendAgentInput(input: { agentId: $id, text: "ping" }) { __typename } }`,
      { id },
    );
    expect(sent.data?.sendAgentInput.__typename).toBe("SendAgentInputPayload");
    await waitFor(async () => (await report(id)).agent!.report.turns === 3, 10_000, "answer turn");
    const ended = await h.gql<{ endAgentInput: { __typename: string } }>(
      `mutation($id: String!) { endAgentInput(input: { agentId: $id }) { __typename } }`,
      { id },
    );
    expect(ended.data?.endAgentInput.__typename).toBe("EndAgentInputPayload");
    const { agent } = await until(id, "DONE");
    const did = whatTheFramesSay(await frames(id));
    expect(did.finalMessage).toBe("You said: ping");
    expect(agent!.report).toMatchObject({
      final: true,
      outcome: "END_OF_TURN",
      turns: 3,
      toolCalls: did.tools,
      finalMessage: "You said: ping",
    });
    expect(agent!.report.markdown.endsWith("> You said: ping\n")).toBe(true);
  });

  it("a token limited to another workspace reads no report of this one; its own it does", async () => {
    const id = await spawn("demo", "Read README.md and summarize it.");
    await until(id, "DONE");
    const otherOnly = await h.createToken({ name: "report-other", role: "VIEWER", workspaces: ["other"] });
    const demoOnly = await h.createToken({ name: "report-demo", role: "VIEWER", workspaces: ["demo"] });
    const refused = await h.gql<Answer>(REPORT, { id }, otherOnly);
    expect(refused).toEqual({ data: { agent: null } });
    const gid = (
      await h.gql<{ agent: { id: string } }>(`query($id: String!) { agent(agentId: $id) { id } }`, { id })
    ).data!.agent.id;
    const byNode = await h.gql(
      `query($gid: ID!) { node(id: $gid) { ... on Agent { report { markdown finalMessage } } } }`,
      { gid },
      otherOnly,
    );
    expect(byNode).toEqual({ data: { node: null } });
    expect(JSON.stringify([refused, byNode])).not.toContain("README says hello");
    const allowed = await report(id, demoOnly);
    expect(allowed.agent!.report.finalMessage).toBe("The README says hello. Done.");
  });
});
