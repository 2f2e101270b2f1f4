/**
 * Human-readable rendering of an agent's event stream for `prospero follow`: consecutive text of
 * one content block merged into one paragraph, tool calls with their input and result, turn
 * usage, the final outcome with its cost, and a failed run's end of worker.log. Pure: it writes
 * strings to a sink. Every string of an event (agent text, tool input and result, prompt, names,
 * reasons, worker log lines) passes through sanitize.ts `safeText` before it is colored, so what an
 * agent or user wrote cannot act on the terminal.
 */
import type { AgentEvent, GapEvent } from "../sdk/index.js";
import { clock, duration, int, truncate, usd } from "./format.js";
import type { Colors } from "./output.js";
import { safeData } from "./sanitize.js";

/** Limits of the human timeline. */
export interface TimelineLimits {
  /** Tool input shown, characters (default 400). */
  inputChars: number;
  /** Tool result lines shown (default 12). */
  resultLines: number;
  /** Characters per result line (default 200). */
  lineChars: number;
}

/** A line break inside a paragraph: the next line is indented past the time column. */
const CONTINUATION = "\n         ";

const DEFAULT_LIMITS: TimelineLimits = { inputChars: 400, resultLines: 12, lineChars: 200 };

type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
};

function usageText(u: Usage): string {
  const cache =
    u.cacheReadTokens || u.cacheCreationTokens
      ? ` (cache read ${int(u.cacheReadTokens)}, write ${int(u.cacheCreationTokens)})`
      : "";
  return `in ${int(u.inputTokens)} · out ${int(u.outputTokens)}${cache}`;
}

/** Renders events, in order, as lines of text written to `write`. */
export class TimelineRenderer {
  /** Key of the text block being written (`turn:block:stream`), or null when at a line start. */
  private openBlock: string | null = null;
  /** Newlines at the end of the open block not written yet. */
  private pendingBreaks = 0;
  private readonly limits: TimelineLimits;

  constructor(
    private readonly write: (text: string) => void,
    private readonly c: Colors,
    limits: Partial<TimelineLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Render one event (its strings made terminal-safe first). */
  event(event: AgentEvent): void {
    const e = safeData(event);
    if (e.__typename === "OutputEvent") {
      this.text(e);
      return;
    }
    this.closeBlock();
    const c = this.c;
    const t = c.dim(clock(e.ts));
    switch (e.__typename) {
      case "AgentSpawnedEvent": {
        const prompt = e.spec.prompt;
        this.line(t, `${c.bold("▶ spawned")} ${e.name} in ${e.workspace}`);
        if (prompt) this.line(t, c.dim(`  prompt: ${truncate(prompt.replace(/\s+/g, " "), 200)}`));
        break;
      }
      case "AgentDiscoveredEvent":
        this.line(t, `${c.bold("▶ discovered")} ${e.name} in ${e.workspace} (${e.discoveredStatus})`);
        break;
      case "StatusChangedEvent":
        this.line(t, c.dim(`· status ${e.from} → `) + this.statusColor(e.to));
        break;
      case "TurnStartedEvent":
        this.line(t, c.cyan(`── turn ${e.turnIndex} · ${e.turnModel} ──`));
        break;
      case "ToolStartedEvent":
        this.line(t, `${c.blue("⚙")} ${c.bold(e.name)} ${c.dim(`started (${e.toolUseId})`)}`);
        break;
      case "ToolFinishedEvent": {
        const mark = e.ok ? c.green("✓") : c.red("✗");
        const input = truncate(
          e.input === undefined || e.input === null ? e.inputRaw : JSON.stringify(e.input),
          this.limits.inputChars,
        );
        const took = e.durationMs !== null ? c.dim(` · ${duration(e.durationMs)}`) : "";
        this.line(t, `${mark} ${c.bold(e.name || "(unknown tool)")} ${input}${took}`);
        this.result(e.resultText, e.truncated);
        break;
      }
      case "TurnCompletedEvent": {
        const cost = e.estimatedCostUsd !== null ? ` · ${usd(e.estimatedCostUsd)}` : "";
        const ttft = e.ttftMs !== null ? ` · ttft ${duration(e.ttftMs)}` : "";
        this.line(
          t,
          c.dim(`↳ turn ${e.turnIndex} ${e.stopReasonName} · ${usageText(e.usage)}${cost}${ttft}`),
        );
        break;
      }
      case "AgentFinishedEvent": {
        const detail = e.outcomeDetail ? ` (${e.outcomeDetail})` : "";
        const outcome = e.outcome === "END_OF_TURN" ? c.green(e.outcomeName) : c.yellow(e.outcomeName);
        this.line(
          t,
          `${c.bold("■ finished:")} ${outcome}${detail} · ${e.turns} turns · ${usageText(e.usage)} · cost ${usd(e.estimatedCostUsd)}`,
        );
        break;
      }
      case "InputSentEvent":
        this.line(t, `${c.magenta("» you:")} ${e.text}`);
        break;
      case "InputEndedEvent":
        this.line(t, c.magenta("» input ended"));
        break;
      case "InputFailedEvent":
        this.line(
          t,
          c.red(`! ${e.undeliveredText === null ? "end of input" : "input"} not delivered: ${e.reason}`),
        );
        break;
      case "AgentGoneEvent":
        this.line(
          t,
          c.dim(
            `· gone: ${e.goneReason.toLowerCase()}${e.replacedBy ? ` (replaced by ${e.replacedBy})` : ""}`,
          ),
        );
        break;
      case "IngestGapEvent":
        this.line(
          t,
          c.yellow(`! output lost: ${e.detail}${e.missedLines !== null ? ` (${e.missedLines} lines)` : ""}`),
        );
        break;
      case "StorePersistFailedEvent":
        this.line(t, c.red(`! event ${e.lostSeq} was shown live but not stored: ${e.detail}`));
        break;
      case "WorkerLogEvent": {
        const code =
          e.exitCode === null ? "exit code unknown" : `exit code ${e.exitCode}, inferred from its RunEnd`;
        this.line(t, c.red(`! ${e.endStatus.toLowerCase()}: worker.log (${code})`));
        if (e.logTail === null) this.line(t, c.dim(`  not available: ${e.logReason ?? "unknown reason"}`));
        else if (e.logTail === "") this.line(t, c.dim("  (empty)"));
        else {
          if (e.logTruncated) this.write(`         ${c.dim("│ … (earlier lines left out)")}\n`);
          for (const l of e.logTail.split("\n")) this.write(`         ${c.dim("│")} ${l}\n`);
        }
        break;
      }
      case "WorkspaceHealthEvent":
        this.line(
          t,
          c.dim(`· workspace ${e.workspace} ${e.state}${e.healthReason ? ` (${e.healthReason})` : ""}`),
        );
        break;
    }
  }

  /** Note that this follower fell behind and the missed events follow. */
  gap(gap: GapEvent): void {
    const g = safeData(gap);
    this.closeBlock();
    this.line(
      this.c.dim(clock(g.ts)),
      this.c.yellow(`! fell behind (${g.gapReason}); the missed events follow`),
    );
  }

  /** Finish the last open text block (call at the end). */
  end(): void {
    this.closeBlock();
  }

  private statusColor(s: string): string {
    if (s === "DONE") return this.c.green(s);
    if (s === "FAILED" || s === "CRASHED") return this.c.red(s);
    if (s === "KILLED") return this.c.magenta(s);
    return this.c.cyan(s);
  }

  private text(e: Extract<AgentEvent, { __typename: "OutputEvent" }>): void {
    const key = `${e.turnIndex}:${e.blockIndex}:${e.stream}`;
    const style = e.stream === "THINKING" ? this.c.dim : (s: string) => s;
    if (this.openBlock !== key) {
      this.closeBlock();
      const label = e.stream === "THINKING" ? this.c.dim("(thinking) ") : "";
      this.write(`${this.c.dim(clock(e.ts))} ${label}`);
      this.openBlock = key;
    }
    // Trailing newlines are held back so a paragraph never ends in an empty indented line;
    // continuation lines are indented under the paragraph's first line.
    const body = e.text.replace(/\n+$/, "");
    const trailing = e.text.length - body.length;
    if (body === "") {
      this.pendingBreaks += trailing;
      return;
    }
    this.write(`${CONTINUATION.repeat(this.pendingBreaks)}${style(body.replace(/\n/g, CONTINUATION))}`);
    this.pendingBreaks = trailing;
  }

  private result(text: string, truncated: boolean): void {
    const lines = text.replace(/\n+$/, "").split("\n");
    const shown = lines.slice(0, this.limits.resultLines);
    for (const l of shown) this.write(`         ${this.c.dim("│")} ${truncate(l, this.limits.lineChars)}\n`);
    const more = lines.length - shown.length;
    if (more > 0 || truncated) {
      const parts = [
        ...(more > 0 ? [`${more} more lines`] : []),
        ...(truncated ? ["cut by the gateway"] : []),
      ];
      this.write(`         ${this.c.dim(`│ … (${parts.join(", ")})`)}\n`);
    }
  }

  private closeBlock(): void {
    if (this.openBlock !== null) this.write("\n");
    this.openBlock = null;
    this.pendingBreaks = 0;
  }

  private line(time: string, text: string): void {
    this.write(`${time} ${text}\n`);
  }
}
