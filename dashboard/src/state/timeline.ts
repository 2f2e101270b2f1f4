/**
 * An agent's event stream folded into timeline entries: tool calls paired by `toolUseId` (input,
 * result, duration), consecutive output of one block merged, turn usage, the run's summary, and
 * a failed run's end of worker.log.
 * Events at or below the last seen `seq` are skipped, so a resumed stream never repeats an entry.
 */
import type { AgentStatus, FleetEvent, TokenUsage } from "../api/types.js";

/** A text longer than this many lines is shown collapsed ("Show more"): the prompt, a long message. */
export const COLLAPSED_LINES = 6;

/** Characters a line holds before it wraps, for {@link isLongText} (a narrow panel's width). */
export const WRAP_COLUMNS = 90;

/**
 * Whether `text` takes more than `lines` lines when shown: each line of it counts as one line per
 * `columns` characters (it wraps), at least one. Decided from the text (not the layout), so it is
 * the same in a hidden tab and at any width.
 */
export function isLongText(text: string, lines = COLLAPSED_LINES, columns = WRAP_COLUMNS): boolean {
  let n = 0;
  for (const line of text.split("\n")) {
    n += Math.max(1, Math.ceil(line.length / columns));
    if (n > lines) return true;
  }
  return false;
}

/** One row of the timeline. */
export type TimelineEntry =
  | { kind: "status"; ts: string; from: AgentStatus; to: AgentStatus }
  | { kind: "turn"; ts: string; turnIndex: number; model: string }
  | { kind: "text"; ts: string; turnIndex: number; blockIndex: number; stream: string; text: string }
  | {
      kind: "tool";
      ts: string;
      toolUseId: string;
      name: string;
      /** Parsed input (null until the call finished). */
      input: unknown;
      inputRaw: string | null;
      result: string | null;
      ok: boolean | null;
      truncated: boolean;
      durationMs: number | null;
    }
  | {
      kind: "usage";
      ts: string;
      turnIndex: number;
      stopReason: string;
      usage: TokenUsage;
      costUsd: number | null;
      model: string | null;
      ttftMs: number | null;
    }
  | {
      kind: "summary";
      ts: string;
      outcome: string;
      detail: string | null;
      turns: number;
      usage: TokenUsage;
      costUsd: number | null;
      model: string | null;
    }
  | { kind: "input"; ts: string; text: string }
  | {
      kind: "workerLog";
      ts: string;
      status: AgentStatus;
      /** Last lines of worker.log; null when it could not be read (see `reason`). */
      tail: string | null;
      truncated: boolean;
      exitCode: number | null;
      reason: string | null;
    }
  | { kind: "note"; ts: string; text: string; warn: boolean };

/** A folded stream and its resume position. */
export class Timeline {
  readonly entries: TimelineEntry[] = [];
  /** Highest `seq` applied. */
  lastSeq = 0;
  /** Cursor of the last applied event: resume with `after: cursor`. */
  cursor: string | null = null;
  /** The run's end was seen. */
  finished = false;
  private readonly tools = new Map<string, number>();

  /**
   * Apply one event. Returns the index of the entry it added or changed, or null when it changed
   * nothing visible (a repeat, or a kind the timeline does not show).
   */
  apply(e: FleetEvent): number | null {
    if (e.__typename === "GapEvent") {
      return this.push({
        kind: "note",
        ts: e.ts,
        text: `Fell behind live delivery (${e.reason}); refilled from history.`,
        warn: true,
      });
    }
    if (e.seq <= this.lastSeq) return null;
    this.lastSeq = e.seq;
    this.cursor = e.cursor;
    switch (e.__typename) {
      case "AgentSpawnedEvent":
        return this.push({ kind: "note", ts: e.ts, text: `Spawned as ${e.name}.`, warn: false });
      case "AgentDiscoveredEvent":
        return this.push({
          kind: "note",
          ts: e.ts,
          text: `Discovered as ${e.name} (${e.discoveredStatus.toLowerCase()}).`,
          warn: false,
        });
      case "StatusChangedEvent":
        return this.push({ kind: "status", ts: e.ts, from: e.from, to: e.to });
      case "TurnStartedEvent":
        return this.push({ kind: "turn", ts: e.ts, turnIndex: e.turnIndex, model: e.startModel });
      case "OutputEvent":
        return this.output(e);
      case "ToolStartedEvent":
        return this.toolStarted(e);
      case "ToolFinishedEvent":
        return this.toolFinished(e);
      case "TurnCompletedEvent":
        return this.push({
          kind: "usage",
          ts: e.ts,
          turnIndex: e.turnIndex,
          stopReason: e.stopReason,
          usage: e.usage,
          costUsd: e.estimatedCostUsd,
          model: e.turnModel,
          ttftMs: e.ttftMs,
        });
      case "AgentFinishedEvent":
        this.finished = true;
        return this.push({
          kind: "summary",
          ts: e.ts,
          outcome: e.outcome,
          detail: e.detail,
          turns: e.turns,
          usage: e.usage,
          costUsd: e.estimatedCostUsd,
          model: e.runModel,
        });
      case "InputSentEvent":
        return this.push({ kind: "input", ts: e.ts, text: e.text });
      case "InputEndedEvent":
        return this.push({ kind: "note", ts: e.ts, text: "Input ended by the operator.", warn: false });
      case "InputFailedEvent":
        return this.push({
          kind: "note",
          ts: e.ts,
          text: `${e.undeliveredText === null ? "Ending the input" : "The input above"} did not reach the agent: ${e.reason}`,
          warn: true,
        });
      case "AgentGoneEvent":
        return this.push({
          kind: "note",
          ts: e.ts,
          text: `No longer listed by caliband (${e.goneReason.toLowerCase()}${e.replacedBy ? `, replaced by ${e.replacedBy}` : ""}).`,
          warn: false,
        });
      case "IngestGapEvent":
        return this.push({
          kind: "note",
          ts: e.ts,
          text: `Output lost before it could be read${e.missedLines === null ? "" : ` (${e.missedLines} lines)`}: ${e.gapDetail}`,
          warn: true,
        });
      case "WorkerLogEvent":
        return this.push({
          kind: "workerLog",
          ts: e.ts,
          status: e.endStatus,
          tail: e.logTail,
          truncated: e.logTruncated,
          exitCode: e.exitCode,
          reason: e.logReason,
        });
      case "StorePersistFailedEvent":
        return this.push({
          kind: "note",
          ts: e.ts,
          text: `Event ${e.lostSeq} could not be stored: ${e.failDetail}`,
          warn: true,
        });
      default:
        return null;
    }
  }

  private push(entry: TimelineEntry): number {
    this.entries.push(entry);
    return this.entries.length - 1;
  }

  private output(e: Extract<FleetEvent, { __typename: "OutputEvent" }>): number {
    const i = this.entries.length - 1;
    const last = this.entries[i];
    if (
      last?.kind === "text" &&
      last.turnIndex === e.turnIndex &&
      last.blockIndex === e.blockIndex &&
      last.stream === e.stream.toLowerCase()
    ) {
      last.text += e.text;
      return i;
    }
    return this.push({
      kind: "text",
      ts: e.ts,
      turnIndex: e.turnIndex,
      blockIndex: e.blockIndex,
      stream: e.stream.toLowerCase(),
      text: e.text,
    });
  }

  private toolStarted(e: Extract<FleetEvent, { __typename: "ToolStartedEvent" }>): number {
    const i = this.push({
      kind: "tool",
      ts: e.ts,
      toolUseId: e.toolUseId,
      name: e.name,
      input: null,
      inputRaw: null,
      result: null,
      ok: null,
      truncated: false,
      durationMs: null,
    });
    this.tools.set(e.toolUseId, i);
    return i;
  }

  private toolFinished(e: Extract<FleetEvent, { __typename: "ToolFinishedEvent" }>): number {
    const i = this.tools.get(e.toolUseId);
    const started = i === undefined ? undefined : this.entries[i];
    if (i === undefined || started?.kind !== "tool") {
      return this.push({
        kind: "tool",
        ts: e.ts,
        toolUseId: e.toolUseId,
        name: e.name,
        input: e.input,
        inputRaw: e.inputRaw,
        result: e.resultText,
        ok: e.ok,
        truncated: e.truncated,
        durationMs: e.durationMs,
      });
    }
    this.tools.delete(e.toolUseId);
    started.name = e.name || started.name;
    started.input = e.input;
    started.inputRaw = e.inputRaw;
    started.result = e.resultText;
    started.ok = e.ok;
    started.truncated = e.truncated;
    started.durationMs = e.durationMs ?? Math.max(0, Date.parse(e.ts) - Date.parse(started.ts));
    return i;
  }
}
