/**
 * A scripted run of `n` text deltas for the caliband double, one frame every `frameDelayMs`
 * (the token-driven `fake:frames` run bursts instead, which evicts lines from the worker's replay
 * window faster than a reconnecting reader can catch up).
 */
import { framesScript, type Frame } from "../support/fake-scripts.js";
import type { FakeCalibandOptions } from "../support/fake-caliband.js";

/** A `TurnEnd` frame of turn 0 with `outputTokens` output tokens (100 input), ending the turn. */
export function turnEndFrame(outputTokens: number): Frame {
  return {
    type: "TurnEnd",
    turn_index: 0,
    assistant_message: { role: "assistant", content: [] },
    tool_results: [],
    stop_reason: "end_turn",
    usage: { input_tokens: 100, output_tokens: outputTokens },
    ttft: { secs: 0, nanos: 5_000_000 },
    tbt: null,
  };
}

/** The `RunEnd` frame of a one-turn run with `outputTokens` output tokens (100 input). */
export function runEndFrame(outputTokens: number): Frame {
  return {
    type: "RunEnd",
    final_messages: [],
    total_usage: { input_tokens: 100, output_tokens: outputTokens },
    turn_count: 1,
    stopped_for: "EndOfTurn",
    turns_without_edit: 1,
    no_edit_nudge_emitted: false,
  };
}

/** Frames of a paced run for agent `id`: TurnStart, `n` deltas `<prefix><i> `, TurnEnd, RunEnd. */
export function pacedRun(id: string, n: number, prefix = "paced-"): Frame[] {
  const frames: Frame[] = [
    { type: "TurnStart", turn_index: 0, message_id: `msg_${id}`, model: "claude-sonnet-4-5" },
  ];
  for (let i = 0; i < n; i++) {
    frames.push({
      type: "AssistantTextDelta",
      turn_index: 0,
      content_block_index: 0,
      text: `${prefix}${i} `,
    });
  }
  frames.push(turnEndFrame(n), runEndFrame(n));
  return frames;
}

/**
 * A `script` option for the double: prompts containing `paced=<n>` run {@link pacedRun} with
 * `frameDelayMs` between frames; other prompts use the default script.
 */
export function pacedScript(frameDelayMs: number, prefix?: string): Pick<FakeCalibandOptions, "script"> {
  return {
    script: (spec, id) => {
      const m = /paced=(\d+)/.exec(spec.initial_prompt);
      return m ? framesScript(pacedRun(id, Number(m[1]), prefix), { frameDelayMs }) : undefined;
    },
  };
}
