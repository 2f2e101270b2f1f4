/**
 * Normalization of one agent's per-agent stream (caliband `TurnEvent` NDJSON, caliband-protocol.md
 * §3.3–3.6) into fleet events (`src/events/index.ts`), richer than the reference consumer (§4.1;
 * ARCHITECTURE.md decision 4):
 *
 * | frame | event |
 * |---|---|
 * | `TurnStart` | `turn_started {turnIndex, model, messageId}` (remembers the model) |
 * | `AssistantTextDelta` / `AssistantThinkingDelta` | `output {stream:"text"/"thinking", text, turnIndex, blockIndex}`, adjacent deltas of one block coalesced |
 * | `ToolCallStart` | `tool_started {toolUseId, name, turnIndex}` (remembers the tool) |
 * | `ToolCallInputDelta` | none; `partial_json` is accumulated on the open tool |
 * | `ToolCallEnd` | `tool_finished {…}`: name paired by `tool_use_id` (§9 #106), assembled input, result text, duration |
 * | `TurnEnd` | `turn_completed {…}`: stop reason, token usage, latency (ms), model, estimated cost (USD) |
 * | `RunEnd` | `agent_finished {…}`: outcome/detail from `stopped_for`, turns, total usage, model, cost, final assistant message ({@link finalAssistantMessage}) |
 *
 * **What counts as a turn** (one rule for the agent's `turns`, tokens and cost and for `usage`,
 * issue 12 item 11): a turn counts exactly when its `TurnEnd` produced a `turn_completed` event —
 * a `TurnEnd` whose `turn_index`, `stop_reason` and `usage` parse, its other parts (conversation
 * messages, latency) possibly malformed (a `lenient` problem). A `TurnEnd` whose usage cannot be
 * read (missing or non-numeric token counts) produces no event and is counted as an invalid line;
 * neither the agent nor `usage` counts it. The agent row takes its totals from
 * {@link agentTotals} (the counted turns), `usage` (src/store/usage.ts) sums the same
 * `turn_completed` events; `RunEnd`'s own `turn_count`/`total_usage` stay the daemon's report on
 * `agent_finished` (and verbatim in its frame), and a disagreement with the counted totals is
 * reported as a `totals_mismatch` problem.
 *
 * Everything here is pure: {@link normalizeLines} takes the previous {@link NormalizerState} and a
 * batch of lines and returns the next state and the events; the state is plain JSON so the ingest
 * loop can persist it with its cursor and resume after a gateway restart. It never throws.
 */
import { z } from "zod";

import {
  DurationSchema,
  parseFrame,
  RunEndSchema,
  StopConditionSchema,
  ToolCallEndSchema,
  TurnEndSchema,
  type Duration,
  type ParseFrameResult,
  type StopCondition,
  type TurnEvent,
  type Usage as WireUsage,
} from "../caliband/wire.js";
import { UsageSchema, type EventKind, type NewEvent, type PayloadOf, type Usage } from "../events/index.js";
import { estimateCostUsd, type PriceTable } from "./pricing.js";

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/**
 * A tool call between its `ToolCallStart` and `ToolCallEnd` (§3.3). `name` is `""` when the tool
 * was first seen through an input delta (its start was not observed); `startedAtMs` (ms since the
 * epoch, from the start line's `tsMs`) is then `null`; `inputRaw` is the concatenated
 * `partial_json` so far.
 */
export interface OpenTool {
  toolUseId: string;
  name: string;
  turnIndex: number;
  startedAtMs: number | null;
  inputRaw: string;
}

/**
 * Everything the normalizer carries between calls, plain JSON (objects, arrays, strings, numbers,
 * booleans, null) so it can be stored next to the ingest cursor:
 * - `model` / `turnIndex` / `messageId`: from the latest `TurnStart` (`null` before the first);
 * - `openTools`: tool calls started but not finished, oldest first, keyed by `toolUseId`
 *   (at most {@link MAX_OPEN_TOOLS}; the oldest is forgotten beyond that);
 * - `turnsCompleted` / `usage`: the counted turns — `turn_completed` events emitted — and the sum
 *   of their usage (tokens); the run's totals, `RunEnd` or not (see "What counts as a turn" above,
 *   {@link agentTotals});
 * - `runEnded`: a `RunEnd` was seen.
 */
export interface NormalizerState {
  version: 1;
  model: string | null;
  turnIndex: number | null;
  messageId: string | null;
  openTools: OpenTool[];
  turnsCompleted: number;
  usage: Usage;
  runEnded: boolean;
}

/** Upper bound on remembered open tools (protects the persisted state from garbage streams). */
export const MAX_OPEN_TOOLS = 256;

/** Code points of tool result text kept when it must be flattened from `content` (§3.3: 8192, head kept). */
export const RESULT_TEXT_CAP = 8192;

const OpenToolSchema = z.object({
  toolUseId: z.string(),
  name: z.string(),
  turnIndex: z.number().int(),
  startedAtMs: z.number().nullable(),
  inputRaw: z.string(),
});

/** Schema of a persisted {@link NormalizerState} (used to restore it safely). */
export const NormalizerStateSchema = z.object({
  version: z.literal(1),
  model: z.string().nullable(),
  turnIndex: z.number().int().nullable(),
  messageId: z.string().nullable(),
  openTools: z.array(OpenToolSchema),
  turnsCompleted: z.number().int().nonnegative(),
  usage: UsageSchema,
  runEnded: z.boolean(),
});

/** The state before an agent's first line: no model, no turn, no open tool, zero usage. */
export function initialNormalizerState(): NormalizerState {
  return {
    version: 1,
    model: null,
    turnIndex: null,
    messageId: null,
    openTools: [],
    turnsCompleted: 0,
    usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
    runEnded: false,
  };
}

/**
 * The totals an agent row shows for its run so far (`Agent.turns` and its token columns): the
 * counted turns of `state` — exactly the `turn_completed` events emitted for it, which
 * src/store/usage.ts sums for `usage`, so the two always agree (see "What counts as a turn" in the
 * module comment). Tokens; the cost is the sum of those events' `estimatedCostUsd`, kept by the
 * caller.
 */
export function agentTotals(state: NormalizerState): {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
} {
  return {
    turns: state.turnsCompleted,
    inputTokens: state.usage.input,
    outputTokens: state.usage.output,
    cacheReadTokens: state.usage.cacheRead,
    cacheCreationTokens: state.usage.cacheCreation,
  };
}

/**
 * Restore a persisted state (e.g. `JSON.parse` of what was stored with the cursor). Anything that
 * is not a valid {@link NormalizerState} (missing, corrupt, older version) yields the initial state.
 */
export function restoreNormalizerState(json: unknown): NormalizerState {
  const parsed = NormalizerStateSchema.safeParse(json);
  return parsed.success ? parsed.data : initialNormalizerState();
}

// ---------------------------------------------------------------------------------------------
// Inputs and outputs
// ---------------------------------------------------------------------------------------------

/** One raw stream line (without its `\n`) and when it was read, ms since the epoch. */
export interface StampedLine {
  line: string;
  tsMs: number;
}

/**
 * Per-agent context: `workspace` and `agentId` are copied onto every event; `prices` (USD per MTok)
 * prices turns and runs; `specModel` (the spawn spec's model, §2.2) is the fallback model when no
 * `TurnStart` was seen.
 */
export interface NormalizeContext {
  workspace: string;
  agentId: string;
  prices: PriceTable;
  specModel?: string | null;
}

/**
 * Why a line produced no event (or was only partly understood), for debug logging:
 * `not_json`, `unknown_type` (frame type this client does not know, §7), `invalid` (known type with
 * a wrong shape, or JSON without a string `type`), `lenient` (a known frame whose unused parts —
 * conversation messages, an unrecognised `stopped_for` shape, … — did not match the wire schema; it
 * was still normalized), `state_reset` (the given state was not valid and was replaced by the
 * initial one), `totals_mismatch` (a `RunEnd` whose `turn_count` or `total_usage` differs from the
 * counted turns, e.g. after a `TurnEnd` without readable usage; `detail` gives both), `error`
 * (unexpected internal failure; the line was skipped). `index` is the position in the batch (-1
 * for `state_reset`).
 */
export interface NormalizeProblem {
  index: number;
  reason: "not_json" | "unknown_type" | "invalid" | "lenient" | "state_reset" | "totals_mismatch" | "error";
  type?: string;
  detail?: string;
}

/**
 * Result of {@link normalizeLines}: the next state, the events in stream order, and counts of
 * skipped lines — `unknownFrames` (unknown `type`), `invalidLines` (not JSON, JSON that is not a
 * frame, or a known frame with a wrong shape), `blankLines` (empty / whitespace-only) — plus up to
 * {@link MAX_PROBLEMS} `problems` describing them.
 */
export interface NormalizeResult {
  state: NormalizerState;
  events: NewEvent[];
  unknownFrames: number;
  invalidLines: number;
  blankLines: number;
  problems: NormalizeProblem[];
}

/** Cap on {@link NormalizeResult.problems} per call. */
export const MAX_PROBLEMS = 20;

// ---------------------------------------------------------------------------------------------
// Pure helpers
// ---------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Map wire usage (§3.3, snake_case, cache fields optional) to fleet {@link Usage} (tokens; absent cache fields → 0). */
export function mapUsage(u: WireUsage): Usage {
  return {
    input: u.input_tokens,
    output: u.output_tokens,
    cacheRead: u.cache_read_input_tokens ?? 0,
    cacheCreation: u.cache_creation_input_tokens ?? 0,
  };
}

/** A wire `Duration` (§3.3) in milliseconds; `null` stays `null`. */
export function durationToMs(d: Duration | null): number | null {
  return d === null ? null : d.secs * 1000 + d.nanos / 1_000_000;
}

/** A wire `Duration` (§3.3) as seconds text: `{secs:120,nanos:0}` → `"120s"`, `{secs:1,nanos:5e8}` → `"1.5s"`. */
export function formatDuration(d: Duration): string {
  return `${d.secs + d.nanos / 1_000_000_000}s`;
}

function valueText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const duration = DurationSchema.safeParse(value);
  if (duration.success) return formatDuration(duration.data);
  try {
    return JSON.stringify(value) ?? null;
  } catch {
    return null;
  }
}

/**
 * `agent_finished.outcome`/`detail` for a decoded `StopCondition` (§3.3): outcome is the variant
 * name as on the wire (`"EndOfTurn"`, `"MaxTurnsReached"`, an unknown tag as is); detail is its
 * payload as text (`"50"`, `"401 Unauthorized"`, `"120s"`) or `null` for unit variants.
 */
export function describeStopCondition(sc: StopCondition): { outcome: string; detail: string | null } {
  switch (sc.variant) {
    case "unknown":
      return { outcome: sc.name, detail: valueText(sc.value) };
    case "StreamIdle":
      return { outcome: sc.variant, detail: formatDuration(sc.value) };
    case "MaxTurnsReached":
      return { outcome: sc.variant, detail: String(sc.value) };
    case "ProviderError":
    case "HookDenied":
    case "CompactionFailed":
    case "Refusal":
    case "ContentFilter":
      return { outcome: sc.variant, detail: sc.value };
    default:
      return { outcome: sc.variant, detail: null };
  }
}

/**
 * Like {@link describeStopCondition} for a raw `stopped_for` value of any shape: a string is its
 * own outcome, a single-key object's key is the outcome and its value the detail; any other shape
 * → outcome `"Unknown"` (detail: its JSON text, `null` when absent).
 */
export function describeRawStopCondition(raw: unknown): { outcome: string; detail: string | null } {
  const parsed = StopConditionSchema.safeParse(raw);
  if (parsed.success) return describeStopCondition(parsed.data);
  if (typeof raw === "string") return { outcome: raw, detail: null };
  if (isRecord(raw)) {
    const entries = Object.entries(raw);
    const entry = entries[0];
    if (entries.length === 1 && entry !== undefined)
      return { outcome: entry[0], detail: valueText(entry[1]) };
  }
  return { outcome: "Unknown", detail: valueText(raw) };
}

/**
 * Text of a tool result's `content` (§3.3 `ContentBlock[]`, or any JSON): the `text` of every text
 * block, recursing into nested `tool_result` blocks, joined with `"\n"`; images, thinking and
 * unknown blocks are skipped; anything that is not an array yields `""`.
 */
export function flattenToolResult(content: unknown): string {
  const parts: string[] = [];
  const walk = (blocks: unknown, depth: number): void => {
    if (!Array.isArray(blocks) || depth > 8) return;
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
      else if (block.type === "tool_result") walk(block.content, depth + 1);
    }
  };
  walk(content, 0);
  return parts.join("\n");
}

/** Bytes of UTF-8 kept of the final assistant message on `agent_finished` (16 KiB, design-16 §1), "…" included. */
export const FINAL_MESSAGE_MAX_BYTES = 16 * 1024;

const ELLIPSIS = "…";

/** UTF-8 length of one code point (1–4 bytes). */
function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * `text` cut to at most `maxBytes` bytes of UTF-8 (default {@link FINAL_MESSAGE_MAX_BYTES}): unchanged
 * when it fits, else the longest prefix of whole code points (never half a surrogate pair or a
 * multi-byte character) that leaves room for "…" (3 bytes), with "…" appended. Pure.
 */
export function capUtf8(text: string, maxBytes: number = FINAL_MESSAGE_MAX_BYTES): string {
  // Fast path: every UTF-16 unit is at most 3 bytes of UTF-8.
  if (text.length * 3 <= maxBytes) return text;
  let total = 0;
  for (const ch of text) total += utf8Length(ch.codePointAt(0) ?? 0);
  if (total <= maxBytes) return text;
  const budget = maxBytes - utf8Length(ELLIPSIS.codePointAt(0) ?? 0);
  let used = 0;
  let end = 0; // UTF-16 index of the cut
  for (const ch of text) {
    const n = utf8Length(ch.codePointAt(0) ?? 0);
    if (used + n > budget) break;
    used += n;
    end += ch.length;
  }
  return text.slice(0, end) + ELLIPSIS;
}

/**
 * The run's final assistant message (design-16 §1, issue 16 item 4) from RunEnd's `final_messages`
 * (§3.3: the whole conversation, any JSON accepted so a lenient frame still yields it): the last
 * message whose `role` is `"assistant"`, its `text` blocks (non-blank ones, in order) joined with
 * `"\n\n"`, cut by {@link capUtf8} to {@link FINAL_MESSAGE_MAX_BYTES}. `null` when there is no
 * assistant message, or the last one has no text (only tool calls or thinking). Pure, never throws.
 */
export function finalAssistantMessage(finalMessages: unknown): string | null {
  if (!Array.isArray(finalMessages)) return null;
  for (let i = finalMessages.length - 1; i >= 0; i--) {
    const message: unknown = finalMessages[i];
    if (!isRecord(message) || message.role !== "assistant") continue;
    const content = Array.isArray(message.content) ? (message.content as unknown[]) : [];
    const texts: string[] = [];
    for (const block of content) {
      if (
        isRecord(block) &&
        block.type === "text" &&
        typeof block.text === "string" &&
        block.text.trim() !== ""
      )
        texts.push(block.text);
    }
    return texts.length === 0 ? null : capUtf8(texts.join("\n\n"));
  }
  return null;
}

/** Keep the first `cap` code points of `text` (§3.3 caps `result_text` the same way). */
function capHead(text: string, cap: number): { text: string; truncated: boolean } {
  if (text.length <= cap) return { text, truncated: false };
  const points = Array.from(text);
  if (points.length <= cap) return { text, truncated: false };
  return { text: points.slice(0, cap).join(""), truncated: true };
}

/** `JSON.parse` of assembled tool input; the raw text when it does not parse; `null` when empty. */
function parseToolInput(raw: string): unknown {
  if (raw.trim() === "") return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

// Lenient variants of the frames whose conversation payload we do not use: a mismatch in those
// parts must not lose a turn's tokens or the run's outcome.
const OptionalDuration = z
  .unknown()
  .optional()
  .transform((v): Duration | null => {
    const d = DurationSchema.safeParse(v);
    return d.success ? d.data : null;
  });
const LenientToolCallEndSchema = ToolCallEndSchema.omit({ content: true }).extend({
  content: z.unknown().optional(),
});
const LenientTurnEndSchema = TurnEndSchema.omit({
  assistant_message: true,
  tool_results: true,
  ttft: true,
  tbt: true,
}).extend({ ttft: OptionalDuration, tbt: OptionalDuration });
const LenientRunEndSchema = RunEndSchema.pick({ type: true, total_usage: true, turn_count: true }).extend({
  stopped_for: z.unknown().optional(),
  final_messages: z.unknown().optional(),
});

interface ToolEndFrame {
  turnIndex: number;
  toolUseId: string;
  isError: boolean;
  resultText: string | undefined;
  content: unknown;
  truncated: boolean | undefined;
}
interface TurnEndFrame {
  turnIndex: number;
  stopReason: string;
  usage: WireUsage;
  ttft: Duration | null;
  tbt: Duration | null;
}
interface RunEndFrame {
  totalUsage: WireUsage;
  turnCount: number;
  outcome: string;
  detail: string | null;
  finalMessage: string | null;
}

/** A frame reduced to what the normalizer uses (strict or lenient parse). */
type Reduced =
  | { type: "plain"; frame: Exclude<TurnEvent, { type: "ToolCallEnd" | "TurnEnd" | "RunEnd" }> }
  | { type: "ToolCallEnd"; frame: ToolEndFrame }
  | { type: "TurnEnd"; frame: TurnEndFrame }
  | { type: "RunEnd"; frame: RunEndFrame };

function reduce(frame: TurnEvent): Reduced {
  switch (frame.type) {
    case "ToolCallEnd":
      return {
        type: "ToolCallEnd",
        frame: {
          turnIndex: frame.turn_index,
          toolUseId: frame.tool_use_id,
          isError: frame.is_error,
          resultText: frame.result_text,
          content: frame.content,
          truncated: frame.truncated,
        },
      };
    case "TurnEnd":
      return {
        type: "TurnEnd",
        frame: {
          turnIndex: frame.turn_index,
          stopReason: frame.stop_reason,
          usage: frame.usage,
          ttft: frame.ttft,
          tbt: frame.tbt,
        },
      };
    case "RunEnd":
      return {
        type: "RunEnd",
        frame: {
          totalUsage: frame.total_usage,
          turnCount: frame.turn_count,
          ...describeStopCondition(frame.stopped_for),
          finalMessage: finalAssistantMessage(frame.final_messages),
        },
      };
    default:
      return { type: "plain", frame };
  }
}

function reduceLenient(type: string, line: string): Reduced | null {
  let value: unknown;
  try {
    value = JSON.parse(line) as unknown;
  } catch {
    return null;
  }
  if (type === "ToolCallEnd") {
    const p = LenientToolCallEndSchema.safeParse(value);
    if (!p.success) return null;
    const f = p.data;
    return {
      type: "ToolCallEnd",
      frame: {
        turnIndex: f.turn_index,
        toolUseId: f.tool_use_id,
        isError: f.is_error,
        resultText: f.result_text,
        content: f.content,
        truncated: f.truncated,
      },
    };
  }
  if (type === "TurnEnd") {
    const p = LenientTurnEndSchema.safeParse(value);
    if (!p.success) return null;
    const f = p.data;
    return {
      type: "TurnEnd",
      frame: { turnIndex: f.turn_index, stopReason: f.stop_reason, usage: f.usage, ttft: f.ttft, tbt: f.tbt },
    };
  }
  if (type === "RunEnd") {
    const p = LenientRunEndSchema.safeParse(value);
    if (!p.success) return null;
    const f = p.data;
    return {
      type: "RunEnd",
      frame: {
        totalUsage: f.total_usage,
        turnCount: f.turn_count,
        ...describeRawStopCondition(f.stopped_for),
        finalMessage: finalAssistantMessage(f.final_messages),
      },
    };
  }
  return null;
}

/**
 * {@link parseFrame}, guarded: the wire schemas recurse through nested `tool_result` content, so a
 * pathologically deep frame can overflow the stack; such a line is reported as `invalid` (with its
 * `type` when it has one, so the lenient path can still use it) instead of throwing.
 */
function safeParseFrame(line: string): ParseFrameResult {
  try {
    return parseFrame(line);
  } catch (err) {
    let type: string | undefined;
    try {
      const value = JSON.parse(line) as unknown;
      if (isRecord(value) && typeof value.type === "string") type = value.type;
    } catch {
      return { ok: false, reason: "not_json" };
    }
    return { ok: false, reason: "invalid", type, detail: err instanceof Error ? err.message : String(err) };
  }
}

// ---------------------------------------------------------------------------------------------
// The normalizer
// ---------------------------------------------------------------------------------------------

interface PendingOutput {
  stream: "text" | "thinking";
  turnIndex: number;
  blockIndex: number;
  text: string;
  tsMs: number;
}

/**
 * Normalize a batch of one agent's stream lines (protocol §3.3–3.6) into fleet events, continuing
 * from `state` (which is not mutated). Mapping: see the module comment; in detail —
 * - every event gets `workspace`/`agentId` from `ctx` and `tsMs` from its line;
 * - consecutive text (or thinking) deltas of the same (stream, turn, block) **within this call**
 *   become one `output` event stamped with the first delta's `tsMs`; any other line (another block,
 *   a tool frame, an input delta, an unparseable line, …) ends the run of deltas (blank lines, which
 *   carry nothing, do not), and nothing is held back across calls, so the caller's read batching is
 *   the coalescing window; empty texts produce no event;
 * - `tool_finished.durationMs` = end `tsMs` − start `tsMs` (≥ 0), `null` when the start was not
 *   seen; its `name` is the start's (paired by `tool_use_id`, §9 #106), `""` if never started;
 *   `resultText` is `result_text`, else the flattened `content` capped at {@link RESULT_TEXT_CAP}
 *   code points (then `truncated: true`);
 * - `turn_completed.model`, `agent_finished.model` = latest `TurnStart` model, else
 *   `ctx.specModel`, else `null`; costs in USD from `ctx.prices`, `null` when unpriced;
 * - blank lines, non-JSON lines, unknown frame types and malformed frames are counted and skipped;
 *   a `ToolCallEnd`/`TurnEnd`/`RunEnd` whose only defects are in parts not used here (conversation
 *   messages, `content` blocks, latency, an unrecognised `stopped_for` shape → outcome `"Unknown"`)
 *   is still normalized and reported as a `lenient` problem.
 * Never throws.
 */
export function normalizeLines(
  state: NormalizerState,
  lines: readonly StampedLine[],
  ctx: NormalizeContext,
): NormalizeResult {
  const problems: NormalizeProblem[] = [];
  const problem = (p: NormalizeProblem): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  const restored = NormalizerStateSchema.safeParse(state);
  if (!restored.success)
    problem({ index: -1, reason: "state_reset", detail: restored.error.message.slice(0, 200) });
  const st: NormalizerState = restored.success ? restored.data : initialNormalizerState();

  const events: NewEvent[] = [];
  let unknownFrames = 0;
  let invalidLines = 0;
  let blankLines = 0;
  let pending: PendingOutput | null = null;

  const emit = <K extends EventKind>(kind: K, payload: PayloadOf<K>, tsMs: number): void => {
    events.push({ kind, payload, workspace: ctx.workspace, agentId: ctx.agentId, tsMs } as NewEvent);
  };
  const flush = (): void => {
    if (pending !== null && pending.text !== "") {
      const { stream, text, turnIndex, blockIndex, tsMs } = pending;
      emit("output", { stream, text, turnIndex, blockIndex }, tsMs);
    }
    pending = null;
  };
  const currentModel = (): string | null => st.model ?? ctx.specModel ?? null;
  const findTool = (id: string): number => st.openTools.findIndex((t) => t.toolUseId === id);
  const remember = (tool: OpenTool): void => {
    st.openTools.push(tool);
    if (st.openTools.length > MAX_OPEN_TOOLS) st.openTools.splice(0, st.openTools.length - MAX_OPEN_TOOLS);
  };

  const handle = (r: Reduced, tsMs: number): void => {
    if (r.type === "plain") {
      const f = r.frame;
      if (f.type === "AssistantTextDelta" || f.type === "AssistantThinkingDelta") {
        const stream = f.type === "AssistantTextDelta" ? "text" : "thinking";
        if (
          pending !== null &&
          pending.stream === stream &&
          pending.turnIndex === f.turn_index &&
          pending.blockIndex === f.content_block_index
        ) {
          pending.text += f.text;
        } else {
          flush();
          pending = {
            stream,
            turnIndex: f.turn_index,
            blockIndex: f.content_block_index,
            text: f.text,
            tsMs,
          };
        }
        return;
      }
      flush();
      switch (f.type) {
        case "TurnStart":
          if (f.model !== "") st.model = f.model;
          st.turnIndex = f.turn_index;
          st.messageId = f.message_id;
          emit("turn_started", { turnIndex: f.turn_index, model: f.model, messageId: f.message_id }, tsMs);
          return;
        case "ToolCallStart": {
          const at = findTool(f.tool_use_id);
          const prior = at >= 0 ? st.openTools.splice(at, 1)[0] : undefined;
          remember({
            toolUseId: f.tool_use_id,
            name: f.name,
            turnIndex: f.turn_index,
            startedAtMs: Number.isFinite(tsMs) ? tsMs : null,
            // keep input that arrived before its start (only possible after a lost start)
            inputRaw: prior !== undefined && prior.name === "" ? prior.inputRaw : "",
          });
          emit("tool_started", { toolUseId: f.tool_use_id, name: f.name, turnIndex: f.turn_index }, tsMs);
          return;
        }
        case "ToolCallInputDelta": {
          const tool = st.openTools[findTool(f.tool_use_id)];
          if (tool !== undefined) tool.inputRaw += f.partial_json;
          else
            remember({
              toolUseId: f.tool_use_id,
              name: "",
              turnIndex: f.turn_index,
              startedAtMs: null,
              inputRaw: f.partial_json,
            });
          return;
        }
      }
      return;
    }
    flush();
    switch (r.type) {
      case "ToolCallEnd": {
        const f = r.frame;
        const at = findTool(f.toolUseId);
        const tool = at >= 0 ? st.openTools.splice(at, 1)[0] : undefined;
        const inputRaw = tool?.inputRaw ?? "";
        let resultText: string;
        let truncated = f.truncated ?? false;
        if (f.resultText !== undefined) resultText = f.resultText;
        else {
          const capped = capHead(flattenToolResult(f.content), RESULT_TEXT_CAP);
          resultText = capped.text;
          truncated = truncated || capped.truncated;
        }
        const startedAt = tool?.startedAtMs ?? null;
        const durationMs = startedAt !== null && Number.isFinite(tsMs) ? Math.max(0, tsMs - startedAt) : null;
        emit(
          "tool_finished",
          {
            toolUseId: f.toolUseId,
            name: tool?.name ?? "",
            ok: !f.isError,
            input: parseToolInput(inputRaw),
            inputRaw,
            resultText,
            truncated,
            durationMs,
            turnIndex: f.turnIndex,
          },
          tsMs,
        );
        return;
      }
      case "TurnEnd": {
        const f = r.frame;
        const usage = mapUsage(f.usage);
        const model = currentModel();
        st.turnsCompleted += 1;
        st.usage = {
          input: st.usage.input + usage.input,
          output: st.usage.output + usage.output,
          cacheRead: st.usage.cacheRead + usage.cacheRead,
          cacheCreation: st.usage.cacheCreation + usage.cacheCreation,
        };
        emit(
          "turn_completed",
          {
            turnIndex: f.turnIndex,
            stopReason: f.stopReason,
            usage,
            ttftMs: durationToMs(f.ttft),
            tbtMs: durationToMs(f.tbt),
            model,
            estimatedCostUsd: estimateCostUsd(model, usage, ctx.prices),
          },
          tsMs,
        );
        return;
      }
      case "RunEnd": {
        const f = r.frame;
        const usage = mapUsage(f.totalUsage);
        const model = currentModel();
        st.runEnded = true;
        const counted = st.usage;
        if (
          f.turnCount !== st.turnsCompleted ||
          usage.input !== counted.input ||
          usage.output !== counted.output ||
          usage.cacheRead !== counted.cacheRead ||
          usage.cacheCreation !== counted.cacheCreation
        ) {
          problem({
            index: lineIndex,
            reason: "totals_mismatch",
            type: "RunEnd",
            detail:
              `RunEnd reports ${f.turnCount} turns, usage ${JSON.stringify(usage)}; counted ` +
              `${st.turnsCompleted} turns, usage ${JSON.stringify(counted)}`,
          });
        }
        emit(
          "agent_finished",
          {
            outcome: f.outcome,
            detail: f.detail,
            turns: f.turnCount,
            usage,
            model,
            estimatedCostUsd: estimateCostUsd(model, usage, ctx.prices),
            finalMessage: f.finalMessage,
          },
          tsMs,
        );
        return;
      }
    }
  };

  let lineIndex = -1;
  for (let index = 0; index < lines.length; index++) {
    lineIndex = index;
    try {
      const item = lines[index];
      if (item === undefined) continue;
      const { line, tsMs } = item;
      if (line.trim() === "") {
        blankLines++;
        continue;
      }
      const parsed = safeParseFrame(line);
      if (parsed.ok) {
        handle(reduce(parsed.frame), tsMs);
        continue;
      }
      flush();
      if (parsed.reason === "unknown_type") {
        unknownFrames++;
        problem({ index, reason: "unknown_type", type: parsed.type });
        continue;
      }
      if (parsed.reason === "invalid" && parsed.type !== undefined) {
        const lenient = reduceLenient(parsed.type, line);
        if (lenient !== null) {
          problem({ index, reason: "lenient", type: parsed.type, detail: parsed.detail });
          handle(lenient, tsMs);
          continue;
        }
      }
      invalidLines++;
      problem({ index, reason: parsed.reason, type: parsed.type, detail: parsed.detail });
    } catch (err) {
      // Defensive: nothing above is expected to throw; never let one line stop ingest.
      try {
        flush();
      } catch {
        pending = null;
      }
      invalidLines++;
      problem({ index, reason: "error", detail: err instanceof Error ? err.message : String(err) });
    }
  }
  try {
    flush();
  } catch {
    // unreachable in practice: emit only pushes onto an array
  }
  return { state: st, events, unknownFrames, invalidLines, blankLines, problems };
}
