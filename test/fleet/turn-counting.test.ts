// Issue 12 item 11 (usage half): one rule decides what a counted turn is, so `usage` and the
// agent's own fields (turns, tokens, cost) agree, whatever the stream holds — a TurnEnd with a
// malformed conversation (still counted: its tokens were spent), one without readable usage (not
// counted by either), and a RunEnd whose turn_count/total_usage disagree with the frames. Real
// gateway on a real port; the run comes from a scripted worker of the caliband double serving a
// second workspace.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { framesScript, type Frame } from "../support/fake-scripts.js";
import { makeTempWorkspace } from "../support/temp-workspace.js";
import { normalizeLines, initialNormalizerState, agentTotals } from "../../src/fleet/normalize.js";

const MODEL = "claude-sonnet-4-5";
const msg = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
const turnStart = (i: number) => ({ type: "TurnStart", turn_index: i, message_id: `msg_${i}`, model: MODEL });

/** Turn 0 well formed; turn 1's TurnEnd has a malformed message; turn 2's has no usage; RunEnd counts 1 turn. */
const FRAMES: Frame[] = [
  turnStart(0),
  { type: "AssistantTextDelta", turn_index: 0, content_block_index: 0, text: "hello" },
  {
    type: "TurnEnd",
    turn_index: 0,
    assistant_message: msg("hello"),
    tool_results: [],
    stop_reason: "end_turn",
    usage: { input_tokens: 1000, output_tokens: 100 },
    ttft: null,
    tbt: null,
  },
  turnStart(1),
  {
    type: "TurnEnd",
    turn_index: 1,
    assistant_message: "not a message",
    tool_results: [],
    stop_reason: "end_turn",
    usage: { input_tokens: 500, output_tokens: 50, cache_read_input_tokens: 200 },
    ttft: null,
    tbt: null,
  },
  turnStart(2),
  {
    type: "TurnEnd",
    turn_index: 2,
    assistant_message: msg("no usage"),
    tool_results: [],
    stop_reason: "end_turn",
    usage: { input_tokens: 7 },
    ttft: null,
    tbt: null,
  },
  {
    type: "RunEnd",
    final_messages: [],
    total_usage: { input_tokens: 1000, output_tokens: 100 },
    turn_count: 1,
    stopped_for: "EndOfTurn",
  },
];

/** The counted turns: turn 0 and turn 1 (malformed message, readable usage), not turn 2. */
const COUNTED = { turns: 2, input: 1500, output: 150, cacheRead: 200, cacheCreation: 0 };

async function scriptedWorkspace(h: AppHarness): Promise<void> {
  const ws = makeTempWorkspace("scripted-repo");
  const root = fs.realpathSync(ws.root);
  const env = { ...h.env };
  const daemon = await FakeCaliband.start({
    workspaceRoot: root,
    socketPath: controlSocketPath(root, env),
    dataBase: ws.data,
    env,
    script: () => framesScript(FRAMES),
  });
  onCleanup(async () => {
    await daemon.close();
    ws.cleanup();
  });
  const r = await h.gql<{ addWorkspace: { __typename: string } }>(
    `mutation($root: String!) { addWorkspace(input: { name: "scripted", root: $root }) { __typename ... on Error { message } } }`,
    { root },
  );
  expect(r.data?.addWorkspace.__typename, JSON.stringify(r)).toBe("AddWorkspacePayload");
}

describe("one derivation of a run's turns", () => {
  it("usage and the agent agree on turns, tokens and cost after malformed TurnEnds and a disagreeing RunEnd", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    await scriptedWorkspace(h);
    const spawned = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "scripted", prompt: "scripted run" }) { ... on SpawnAgentPayload { agent { agentId } } ... on Error { message } } }`,
    );
    const id = spawned.data!.spawnAgent.agent.agentId;
    type AgentView = {
      status: string;
      turns: number;
      estimatedCostUsd: number | null;
      outcome: string | null;
      usage: {
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheCreationTokens: number;
      };
    };
    const agent = await waitFor(
      async () => {
        const r = await h.gql<{ agent: AgentView }>(
          `query($id: String!) { agent(agentId: $id) { status turns estimatedCostUsd outcome usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens } } }`,
          { id },
        );
        const a = r.data?.agent;
        return a && a.status === "DONE" && a.outcome !== null ? a : undefined;
      },
      15_000,
      "the scripted run to be done",
    );
    const u = await h.gql<{
      usage: {
        workspace: string;
        turns: number;
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheCreationTokens: number;
        estimatedCostUsd: number;
        unpricedTurns: number;
      }[];
    }>(
      `{ usage(groupBy: [WORKSPACE]) { workspace turns inputTokens outputTokens cacheReadTokens cacheCreationTokens estimatedCostUsd unpricedTurns } }`,
    );
    expect(u.errors).toBeUndefined();
    const row = u.data!.usage.find((r) => r.workspace === "scripted");
    expect(row).toBeDefined();

    // The two views agree with each other ...
    expect(agent.turns).toBe(row!.turns);
    expect(agent.usage).toEqual({
      inputTokens: row!.inputTokens,
      outputTokens: row!.outputTokens,
      cacheReadTokens: row!.cacheReadTokens,
      cacheCreationTokens: row!.cacheCreationTokens,
    });
    expect(row!.unpricedTurns).toBe(0);
    expect(agent.estimatedCostUsd).not.toBeNull();
    expect(agent.estimatedCostUsd!).toBeCloseTo(row!.estimatedCostUsd, 12);
    // ... and with the rule: the two TurnEnds whose usage could be read.
    expect(agent.turns).toBe(COUNTED.turns);
    expect(agent.usage).toEqual({
      inputTokens: COUNTED.input,
      outputTokens: COUNTED.output,
      cacheReadTokens: COUNTED.cacheRead,
      cacheCreationTokens: COUNTED.cacheCreation,
    });

    // The daemon's own report stays on the finished event.
    const fin = await h.gql<{ events: { nodes: { __typename: string; turns?: number }[] } }>(
      `query($id: String!) { events(of: { agentId: $id }, first: 100) { nodes { __typename ... on AgentFinishedEvent { turns } } } }`,
      { id },
    );
    expect(fin.data!.events.nodes.filter((n) => n.__typename === "TurnCompletedEvent")).toHaveLength(
      COUNTED.turns,
    );
    expect(fin.data!.events.nodes.find((n) => n.__typename === "AgentFinishedEvent")?.turns).toBe(1);
  }, 60_000);

  it("the normalizer reports a RunEnd that disagrees with the counted turns", () => {
    const lines = FRAMES.map((f) => ({ line: JSON.stringify(f), tsMs: 1 }));
    const res = normalizeLines(initialNormalizerState(), lines, { workspace: "w", agentId: "a", prices: {} });
    expect(agentTotals(res.state)).toEqual({
      turns: COUNTED.turns,
      inputTokens: COUNTED.input,
      outputTokens: COUNTED.output,
      cacheReadTokens: COUNTED.cacheRead,
      cacheCreationTokens: COUNTED.cacheCreation,
    });
    expect(res.events.filter((e) => e.kind === "turn_completed")).toHaveLength(COUNTED.turns);
    expect(res.invalidLines).toBe(1);
    const mismatch = res.problems.find((p) => p.reason === "totals_mismatch");
    expect(mismatch).toMatchObject({ type: "RunEnd", index: FRAMES.length - 1 });
    expect(mismatch!.detail).toMatch(/RunEnd reports 1 turns.*counted 2 turns/);
    // A consistent stream reports nothing of the kind.
    const consistent = normalizeLines(initialNormalizerState(), lines.slice(0, 3), {
      workspace: "w",
      agentId: "a",
      prices: {},
    });
    const end = FRAMES[FRAMES.length - 1] as Record<string, unknown>; // 1 turn, 1000/100: as counted
    const ended = normalizeLines(consistent.state, [{ line: JSON.stringify(end), tsMs: 2 }], {
      workspace: "w",
      agentId: "a",
      prices: {},
    });
    expect(ended.problems).toEqual([]);
  });
});
