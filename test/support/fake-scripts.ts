// Scripted runs of the fake worker: the `TurnEvent` frame sequences of the recorded stand-in worker
// (fixtures agent-basic/agent-killed/agent-interactive .out.ndjson) and the `fake:*` prompt tokens
// that steer them. Frame vocabulary: docs/caliband-protocol.md §3.3; interactive semantics §3.5.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { SpawnSpecJson } from "./wire-format.js";

/**
 * One outbound frame: an object (serialised with `JSON.stringify`, key order kept), a raw line, or
 * a line's raw bytes (written as they are, e.g. not valid UTF-8; no newline inside).
 */
export type Frame = Record<string, unknown> | string | Buffer;

/**
 * What a script can do inside the fake worker. Every method rejects/throws once the worker was
 * killed or finished from outside, which ends the script.
 */
export interface WorkerContext {
  /** Agent id (12 hex). */
  readonly id: string;
  /** The spec from the agent's manifest (§2.2). */
  readonly spec: SpawnSpecJson;
  /** Default pause between scripted frames, ms. */
  readonly frameDelayMs: number;
  /** The agent's session dir, `<store base>/<id>` (§5.6). */
  readonly sessionDir: string;
  /** The record's `working_dir`: the worker's cwd (its worktree, or the source dir); "" when none. */
  readonly workingDir: string;
  /** Publishes one frame: ring buffer, every connected reader, and `stdout.ndjson` (§3.2). */
  emit(frame: Frame): void;
  /** Waits `ms` milliseconds (0 = yield once). */
  sleep(ms: number): Promise<void>;
  /** Waits `ms` milliseconds or until `FakeWorker.release()` is called. */
  hold(ms: number): Promise<void>;
  /**
   * Interactive end-of-turn boundary (§3.5): reports `idle`, waits for the next inbound frame, and
   * resolves with a `UserMessage` text (after reporting `running`) or `null` for `EndInput` or the
   * idle timeout.
   */
  nextInput(): Promise<string | null>;
  /** Appends one line to the agent's `worker.log`. */
  log(line: string): void;
}

/** How a script ends: exit code, and whether to keep connections open ~100 ms first (§3.1 step 4). */
export interface ScriptExit {
  exitCode: number;
  linger: boolean;
}

/**
 * A scripted worker run. `run` returns the exit code (a plain number lingers 100 ms like a normal run
 * end; `{exitCode, linger:false}` exits at once like a stream error).
 */
export interface WorkerScript {
  /** Delay before the per-agent endpoint is bound, ms (overrides the daemon default). */
  bindDelayMs?: number;
  /** The worker dies during preflight: writes `log` to worker.log and exits, never binding. */
  preflightFailure?: { exitCode: number; log: string };
  /** The daemon fails to launch the worker at all: record `failed`, reply still `spawned` (§1.7 step 5). */
  launchFailure?: boolean;
  run(ctx: WorkerContext): Promise<number | ScriptExit>;
}

/** `fake:*` tokens found in an initial prompt (see test/support/README.md). */
export interface PromptTokens {
  /** `fake:hold=MS`: pause after `TurnStart` of turn 1. */
  hold?: number;
  /** `fake:delay=MS`: pause after binding, before the first frame. */
  delay?: number;
  /** `fake:exit=N`: after the startup delay, exit with code N without any frame. */
  exit?: number;
  /** `fake:frames=N`: turn 0 streams N `AssistantTextDelta` frames. */
  frames?: number;
  /** `fake:pace=MS`: with `fake:frames`, pause MS between those frames (a long, steady stream). */
  pace?: number;
  /** `fake:bind-delay=MS`: bind the per-agent endpoint MS after launch. */
  bindDelay?: number;
  /** `fake:no-run-end`: both turns, then a stream error: exit 1 without `RunEnd`. */
  noRunEnd: boolean;
  /** `fake:preflight-fail`: exit 1 at once, never bind, reason in worker.log. */
  preflightFail: boolean;
  /** `fake:launch-fail`: the daemon cannot launch the worker (record `failed`). */
  launchFail: boolean;
  /** `fake:unknown-frame`: one frame with an unknown `type` right after `TurnStart(0)`. */
  unknownFrame: boolean;
  /** `fake:provider-error=CODE`: no turn, one `RunEnd` with `{"ProviderError": …}`, exit 1. */
  providerError?: number;
  /**
   * `fake:fail-first=N`: the failure tokens (`provider-error`, `no-run-end`, `exit`) apply only to
   * the first N runs of this prompt in the daemon's store; later runs are the default, successful one.
   */
  failFirst?: number;
  /**
   * `fake:plan`: turn 0 calls the `EnterPlanMode` tool with input `{"plan": FAKE_PLAN}` instead of
   * `Read`; turn 1 asks for approval ({@link FAKE_PLAN_ASK}).
   */
  plan: boolean;
  /** `fake:ask`: turn 1's answer ends with a question ({@link FAKE_QUESTION}). */
  ask: boolean;
  /**
   * `fake:edit`: the run really edits files in its working dir over two tool-using turns, then
   * (after `fake:hold`, default {@link FAKE_EDIT_SUMMARY_PAUSE_MS}) a text-only summary turn; see
   * {@link runEdit}.
   */
  edit: boolean;
}

/** Extracts `fake:*` tokens from a prompt; unknown tokens are plain prompt text. */
export function parsePromptTokens(prompt: string): PromptTokens {
  const t: PromptTokens = {
    noRunEnd: false,
    preflightFail: false,
    launchFail: false,
    unknownFrame: false,
    plan: false,
    ask: false,
    edit: false,
  };
  for (const m of prompt.matchAll(/fake:([a-z-]+)(?:=(\d+))?/g)) {
    const name = m[1];
    const n = m[2] === undefined ? undefined : Number(m[2]);
    if (name === "hold" && n !== undefined) t.hold = n;
    else if (name === "delay" && n !== undefined) t.delay = n;
    else if (name === "exit" && n !== undefined) t.exit = n;
    else if (name === "frames" && n !== undefined) t.frames = n;
    else if (name === "pace" && n !== undefined) t.pace = n;
    else if (name === "bind-delay" && n !== undefined) t.bindDelay = n;
    else if (name === "no-run-end") t.noRunEnd = true;
    else if (name === "preflight-fail") t.preflightFail = true;
    else if (name === "launch-fail") t.launchFail = true;
    else if (name === "unknown-frame") t.unknownFrame = true;
    else if (name === "provider-error" && n !== undefined) t.providerError = n;
    else if (name === "fail-first" && n !== undefined) t.failFirst = n;
    else if (name === "plan") t.plan = true;
    else if (name === "ask") t.ask = true;
    else if (name === "edit") t.edit = true;
  }
  return t;
}

/**
 * The `ProviderError` message of `fake:provider-error=CODE`: the provider's texts for 429, 529 and
 * 401 (Anthropic's error types), `<CODE> provider error` for any other code.
 */
export function providerErrorMessage(code: number): string {
  if (code === 429)
    return "429 Too Many Requests: rate_limit_error: This request would exceed your rate limit";
  if (code === 529) return "529 overloaded_error: Overloaded";
  if (code === 401) return "401 Unauthorized: authentication_error: invalid x-api-key";
  return `${code} provider error`;
}

/** Directory of `fake:fail-first` claims in a store base: `<base>/.fake-attempts` (no manifest: not an agent). */
export const FAKE_ATTEMPTS_DIR = ".fake-attempts";

/**
 * Claims the next of the first `n` failing runs of `prompt` in the store `dataBase`
 * (`fake:fail-first=N`). Each claim is a file `<base>/.fake-attempts/<sha256(prompt)[0..16]>/<k>`
 * (k = 1 … n) created exclusively (`wx`) and holding the claiming agent's id, so the count survives
 * a daemon restart or SIGKILL and stays exact when worker processes of the same prompt run at once
 * (no read-modify-write). Returns the claimed k, or null once all n are taken (this run succeeds).
 */
export function claimFailingRun(dataBase: string, prompt: string, n: number, agentId: string): number | null {
  const key = createHash("sha256").update(prompt, "utf8").digest("hex").slice(0, 16);
  const dir = path.join(dataBase, FAKE_ATTEMPTS_DIR, key);
  fs.mkdirSync(dir, { recursive: true });
  for (let k = 1; k <= n; k++) {
    try {
      fs.writeFileSync(path.join(dir, String(k)), `${agentId}\n`, { flag: "wx" });
      return k;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  return null;
}

/** Model named in `TurnStart` when the spec has none (as in the recorded stand-in). */
export const DEFAULT_FAKE_MODEL = "claude-sonnet-4-5";

/** Text the fake `Read` tool returns for README.md (fixture agent-basic.out.ndjson). */
export const FAKE_README = "# scratch repo\nhello from the fake worker\n";

/** The plan `fake:plan` hands to the `EnterPlanMode` tool (markdown, as Claude Code's plans are). */
export const FAKE_PLAN =
  "## Plan\n\n1. Read README.md\n2. Add a section on running the tests\n3. Run the test suite and report";

/** What the `EnterPlanMode` tool returns to the model in the fake (`fake:plan`). */
export const FAKE_PLAN_RESULT =
  "The plan was shown to the user. Wait for their approval before making changes.";

/** Turn 1's text under `fake:plan`: the agent asks for approval and waits. */
export const FAKE_PLAN_ASK = "I've written up a plan. Shall I go ahead?";

/** Turn 1's text under `fake:ask`: an answer that ends with a question for the operator. */
export const FAKE_QUESTION = "The README says hello. Should I also add a section on running the tests?";

/** Providers the real worker accepts (§2.2); anything else exits 64 at preflight. */
export const KNOWN_PROVIDERS: ReadonlySet<string> = new Set(["anthropic", "openai", "ollama", "google"]);

type Json = Record<string, unknown>;
const text = (t: string): Json => ({ type: "text", text: t });
const usage = (input: number, output: number): Json => ({ input_tokens: input, output_tokens: output });
const dur = (nanos: number): Json => ({ secs: 0, nanos });

/** Tracks conversation and usage while a default script runs. */
class Conversation {
  readonly messages: Json[];
  input = 0;
  output = 0;
  turns = 0;

  constructor(prompt: string) {
    this.messages = [{ role: "user", content: [text(prompt)] }];
  }

  turnEnd(index: number, assistant: Json, toolResults: Json[], stop: string, u: [number, number]): Json {
    this.messages.push(assistant, ...toolResults);
    this.input += u[0];
    this.output += u[1];
    this.turns++;
    return {
      type: "TurnEnd",
      turn_index: index,
      assistant_message: assistant,
      tool_results: toolResults,
      stop_reason: stop,
      usage: usage(u[0], u[1]),
      ttft: dur(index === 0 ? 412_000_000 : 388_000_000),
      tbt: index === 0 ? dur(23_000_000) : null,
    };
  }

  runEnd(): Json {
    return {
      type: "RunEnd",
      final_messages: this.messages,
      total_usage: usage(this.input, this.output),
      turn_count: this.turns,
      stopped_for: "EndOfTurn",
      turns_without_edit: this.turns,
      no_edit_nudge_emitted: false,
    };
  }
}

/** Emits frames with `frameDelayMs` between consecutive frames of one run. */
class Pacer {
  private first = true;
  constructor(private readonly ctx: WorkerContext) {}

  async emit(frame: Frame, delayMs = this.ctx.frameDelayMs): Promise<void> {
    if (!this.first) await this.ctx.sleep(delayMs);
    this.first = false;
    this.ctx.emit(frame);
  }
}

/**
 * The stand-in worker's run (fixtures agent-basic / agent-killed / agent-interactive): turn 0 reads
 * README.md with the `Read` tool, turn 1 answers; interactive agents then answer `You said: <text>`
 * per `UserMessage` until `EndInput`/idle timeout; then `RunEnd` and exit 0. Tokens change timing
 * and failure modes (see {@link PromptTokens}).
 */
export function defaultScript(spec: SpawnSpecJson, id: string): WorkerScript {
  const tok = parsePromptTokens(spec.initial_prompt);
  const provider = spec.provider;
  const script: WorkerScript = {
    run: (ctx) => runDefault(ctx, tok),
  };
  if (tok.bindDelay !== undefined) script.bindDelayMs = tok.bindDelay;
  if (tok.launchFail) script.launchFailure = true;
  if (provider !== null && !KNOWN_PROVIDERS.has(provider.toLowerCase())) {
    script.preflightFailure = {
      exitCode: 64,
      log: `[caliban __agent-worker] unknown provider ${JSON.stringify(provider)}`,
    };
  } else if (tok.preflightFail) {
    script.preflightFailure = {
      exitCode: 1,
      log: `[caliban __agent-worker] provider: API key is not set (simulated by fake:preflight-fail for agent ${id})`,
    };
  }
  return script;
}

/**
 * `tok` with its failure tokens dropped when `fake:fail-first=N` says this run is past the first N
 * failing runs of its prompt (claimed in the store, see {@link claimFailingRun}).
 */
function applyFailFirst(ctx: WorkerContext, tok: PromptTokens): PromptTokens {
  if (tok.failFirst === undefined) return tok;
  if (tok.providerError === undefined && !tok.noRunEnd && tok.exit === undefined) return tok;
  const k = claimFailingRun(path.dirname(ctx.sessionDir), ctx.spec.initial_prompt, tok.failFirst, ctx.id);
  if (k !== null) {
    ctx.log(
      `[fake caliban __agent-worker] fake:fail-first=${tok.failFirst}: failing run ${k} of this prompt`,
    );
    return tok;
  }
  ctx.log(`[fake caliban __agent-worker] fake:fail-first=${tok.failFirst}: used up, this run succeeds`);
  const rest: PromptTokens = { ...tok, noRunEnd: false };
  delete rest.providerError;
  delete rest.exit;
  return rest;
}

async function runDefault(ctx: WorkerContext, given: PromptTokens): Promise<number | ScriptExit> {
  const { id, spec } = ctx;
  const model = spec.model ?? DEFAULT_FAKE_MODEL;
  const toolId = `toolu_fake_${id}`;
  if (given.delay !== undefined) await ctx.sleep(given.delay);
  const tok = applyFailFirst(ctx, given);
  if (tok.exit !== undefined) return { exitCode: tok.exit, linger: false };
  if (tok.providerError !== undefined) {
    // The provider refused the first request: no TurnStart, a RunEnd with zero usage (§3.3's
    // second RunEnd example), exit 1 → failed (§5.4).
    const message = providerErrorMessage(tok.providerError);
    ctx.log(`[caliban __agent-worker] run ended: provider error: ${message}`);
    ctx.emit({
      type: "RunEnd",
      final_messages: [],
      total_usage: usage(0, 0),
      turn_count: 0,
      stopped_for: { ProviderError: message },
      turns_without_edit: 0,
      no_edit_nudge_emitted: false,
    });
    return { exitCode: 1, linger: true };
  }
  if (tok.edit) return runEdit(ctx, tok);
  const conv = new Conversation(spec.initial_prompt);
  const p = new Pacer(ctx);
  const turnStart = (i: number): Json => ({
    type: "TurnStart",
    turn_index: i,
    message_id: `msg_fake_${id}_${i}`,
    model,
  });
  const delta = (i: number, t: string): Json => ({
    type: "AssistantTextDelta",
    turn_index: i,
    content_block_index: 0,
    text: t,
  });

  // Turn 0: text, then one tool call (Read, or EnterPlanMode under fake:plan).
  await p.emit(turnStart(0));
  if (tok.unknownFrame) {
    await p.emit({ type: "FakeUnknownFrame", turn_index: 0, detail: "emitted by fake:unknown-frame" });
  }
  let chunks = tok.plan ? ["I'll write up a plan ", "first."] : ["I'll look at the README ", "first."];
  if (tok.frames !== undefined) chunks = Array.from({ length: tok.frames }, (_, i) => `chunk-${i} `);
  for (const [i, c] of chunks.entries()) {
    // Long runs stream without a per-frame pause (but still yield now and then), unless paced.
    const pause =
      tok.frames === undefined ? ctx.frameDelayMs : tok.pace !== undefined ? tok.pace : i % 64 === 0 ? 0 : -1;
    if (pause < 0) ctx.emit(delta(0, c));
    else await p.emit(delta(0, c), pause);
  }
  // The tool call: `Read` README.md, or under `fake:plan` `EnterPlanMode` with the plan.
  const tool = tok.plan
    ? { name: "EnterPlanMode", input: { plan: FAKE_PLAN }, result: FAKE_PLAN_RESULT }
    : { name: "Read", input: { file_path: "README.md" }, result: FAKE_README };
  const inputJson = JSON.stringify(tool.input);
  const cut = inputJson.indexOf(":") + 1;
  await p.emit({ type: "ToolCallStart", turn_index: 0, tool_use_id: toolId, name: tool.name });
  for (const part of [inputJson.slice(0, cut), inputJson.slice(cut)]) {
    await p.emit({ type: "ToolCallInputDelta", turn_index: 0, tool_use_id: toolId, partial_json: part });
  }
  await p.emit({
    type: "ToolCallEnd",
    turn_index: 0,
    tool_use_id: toolId,
    is_error: false,
    content: [text(tool.result)],
    result_text: tool.result,
    truncated: false,
  });
  const assistant0 = {
    role: "assistant",
    content: [text(chunks.join("")), { type: "tool_use", id: toolId, name: tool.name, input: tool.input }],
  };
  const results0 = [
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: toolId, content: [text(tool.result)], is_error: false }],
    },
  ];
  await p.emit(conv.turnEnd(0, assistant0, results0, "tool_use", [1200, 48]));

  // Turn 1: the answer.
  await p.emit(turnStart(1));
  if (tok.hold !== undefined) await ctx.hold(tok.hold);
  const answer = tok.plan ? FAKE_PLAN_ASK : tok.ask ? FAKE_QUESTION : "The README says hello. Done.";
  await p.emit(delta(1, answer));
  await p.emit(conv.turnEnd(1, { role: "assistant", content: [text(answer)] }, [], "end_turn", [1310, 12]));

  if (tok.noRunEnd) {
    ctx.log(
      "[caliban __agent-worker] stream error: connection reset by provider (simulated by fake:no-run-end)",
    );
    return { exitCode: 1, linger: false };
  }

  if (spec.interactive) {
    let turn = 2;
    for (;;) {
      const input = await ctx.nextInput();
      if (input === null) break;
      conv.messages.push({ role: "user", content: [text(input)] });
      const reply = `You said: ${input}`;
      await p.emit(turnStart(turn));
      await p.emit(delta(turn, reply));
      const u: [number, number] = [1310 + 90 * (turn - 1), Math.ceil(reply.length / 4) + 1];
      await p.emit(conv.turnEnd(turn, { role: "assistant", content: [text(reply)] }, [], "end_turn", u));
      turn++;
    }
  }
  await p.emit(conv.runEnd());
  return 0;
}

/** Pause before `fake:edit`'s summary turn without `fake:hold` (a model writing its summary), ms. */
export const FAKE_EDIT_SUMMARY_PAUSE_MS = 300;

/** The file `fake:edit` creates in turn 0 and edits in turn 1: `notes/fake-<id>.md`. */
export function fakeEditNotePath(id: string): string {
  return `notes/fake-${id}.md`;
}

/** Contents of {@link fakeEditNotePath} after turn 0 (`after` 0) and after turn 1 (`after` 1). */
export function fakeEditNote(id: string, after: 0 | 1): string {
  const first = `# Notes of fake agent ${id}\n`;
  return after === 0 ? first : `${first}second pass by ${id}\n`;
}

/** The line `fake:edit` appends after README.md's last line in turn 0. */
export function fakeEditReadmeLine(id: string): string {
  return `edited by fake agent ${id}`;
}

/** The file `fake:edit` removes in turn 0 (with `rm -f`, so it may be absent). */
export const FAKE_EDIT_REMOVED = "OBSOLETE.txt";

/** A tool the fake ran: its frames' blocks for the conversation. */
interface ToolRun {
  use: Json;
  result: Json;
}

/**
 * One tool call's frames (`ToolCallStart`, two `ToolCallInputDelta`, `ToolCallEnd`), as the default
 * script's `Read`; `act` performs the tool's effect between the input and the end (as a real tool
 * runs), returning its result text and whether it failed.
 */
async function toolCall(
  p: Pacer,
  turn: number,
  toolId: string,
  name: string,
  input: Json,
  act: () => { ok: boolean; text: string },
): Promise<ToolRun> {
  const inputJson = JSON.stringify(input);
  const cut = inputJson.indexOf(":") + 1;
  await p.emit({ type: "ToolCallStart", turn_index: turn, tool_use_id: toolId, name });
  for (const part of [inputJson.slice(0, cut), inputJson.slice(cut)]) {
    await p.emit({ type: "ToolCallInputDelta", turn_index: turn, tool_use_id: toolId, partial_json: part });
  }
  let r: { ok: boolean; text: string };
  try {
    r = act();
  } catch (e) {
    r = { ok: false, text: (e as Error).message };
  }
  await p.emit({
    type: "ToolCallEnd",
    turn_index: turn,
    tool_use_id: toolId,
    is_error: !r.ok,
    content: [text(r.text)],
    result_text: r.text,
    truncated: false,
  });
  return {
    use: { type: "tool_use", id: toolId, name, input },
    result: { type: "tool_result", tool_use_id: toolId, content: [text(r.text)], is_error: !r.ok },
  };
}

/** Claude Code's `Edit`: replace the first `old_string` of a file under `dir`. */
function editFile(
  dir: string,
  file: string,
  oldString: string,
  newString: string,
): { ok: boolean; text: string } {
  const abs = path.join(dir, file);
  if (!fs.existsSync(abs)) return { ok: false, text: "File does not exist." };
  const body = fs.readFileSync(abs, "utf8");
  const at = body.indexOf(oldString);
  if (at < 0) return { ok: false, text: "String to replace not found in file." };
  fs.writeFileSync(abs, body.slice(0, at) + newString + body.slice(at + oldString.length));
  return { ok: true, text: `The file ${file} has been updated.` };
}

/** The last non-empty line of a file under `dir` ("" when it has none or is missing). */
function lastLine(dir: string, file: string): string {
  try {
    const lines = fs
      .readFileSync(path.join(dir, file), "utf8")
      .split("\n")
      .filter((l) => l !== "");
    return lines[lines.length - 1] ?? "";
  } catch {
    return "";
  }
}

/**
 * `fake:edit`: a run that changes files in its working dir (`ctx.workingDir`), for change capture.
 * - turn 0: `Write` creates {@link fakeEditNotePath} ({@link fakeEditNote} 0), `Edit` appends
 *   {@link fakeEditReadmeLine} after README.md's last line, `Bash` runs `rm -f OBSOLETE.txt`;
 *   `stop_reason: tool_use`;
 * - turn 1: `Edit` adds a second line to the note ({@link fakeEditNote} 1); `tool_use`;
 * - then a pause: `fake:hold=MS` (`release()` ends it), else {@link FAKE_EDIT_SUMMARY_PAUSE_MS};
 * - turn 2: a text-only summary, `end_turn`; an interactive agent then waits for input as the
 *   default script does; `RunEnd(EndOfTurn)`, exit 0.
 */
async function runEdit(ctx: WorkerContext, tok: PromptTokens): Promise<number | ScriptExit> {
  const { id, spec } = ctx;
  const dir = ctx.workingDir;
  const model = spec.model ?? DEFAULT_FAKE_MODEL;
  const conv = new Conversation(spec.initial_prompt);
  const p = new Pacer(ctx);
  const turnStart = (i: number): Json => ({
    type: "TurnStart",
    turn_index: i,
    message_id: `msg_fake_${id}_${i}`,
    model,
  });
  const delta = (i: number, t: string): Json => ({
    type: "AssistantTextDelta",
    turn_index: i,
    content_block_index: 0,
    text: t,
  });
  const noDir = (): { ok: boolean; text: string } => ({ ok: false, text: "No working directory." });
  const note = fakeEditNotePath(id);

  // Turn 0: write a note, edit the README, remove the obsolete file.
  await p.emit(turnStart(0));
  const say0 = "I'll make the changes.";
  await p.emit(delta(0, say0));
  const runs0: ToolRun[] = [];
  runs0.push(
    await toolCall(
      p,
      0,
      `toolu_fake_${id}_w`,
      "Write",
      { file_path: note, content: fakeEditNote(id, 0) },
      () => {
        if (dir === "") return noDir();
        fs.mkdirSync(path.join(dir, path.dirname(note)), { recursive: true });
        fs.writeFileSync(path.join(dir, note), fakeEditNote(id, 0));
        return { ok: true, text: `File created successfully at: ${note}` };
      },
    ),
  );
  const last = dir === "" ? "" : lastLine(dir, "README.md");
  runs0.push(
    await toolCall(
      p,
      0,
      `toolu_fake_${id}_e`,
      "Edit",
      { file_path: "README.md", old_string: last, new_string: `${last}\n${fakeEditReadmeLine(id)}` },
      () =>
        dir === ""
          ? noDir()
          : last === ""
            ? { ok: false, text: "File does not exist." }
            : editFile(dir, "README.md", last, `${last}\n${fakeEditReadmeLine(id)}`),
    ),
  );
  runs0.push(
    await toolCall(
      p,
      0,
      `toolu_fake_${id}_b`,
      "Bash",
      { command: `rm -f ${FAKE_EDIT_REMOVED}`, description: "Remove the obsolete file" },
      () => {
        if (dir === "") return noDir();
        fs.rmSync(path.join(dir, FAKE_EDIT_REMOVED), { force: true });
        return { ok: true, text: "" };
      },
    ),
  );
  await p.emit(
    conv.turnEnd(
      0,
      { role: "assistant", content: [text(say0), ...runs0.map((r) => r.use)] },
      [{ role: "user", content: runs0.map((r) => r.result) }],
      "tool_use",
      [1200, 96],
    ),
  );

  // Turn 1: a second pass over the note.
  await p.emit(turnStart(1));
  const say1 = "One more line for the note.";
  await p.emit(delta(1, say1));
  const first = fakeEditNote(id, 0).trimEnd();
  const run1 = await toolCall(
    p,
    1,
    `toolu_fake_${id}_e2`,
    "Edit",
    { file_path: note, old_string: first, new_string: `${first}\nsecond pass by ${id}` },
    () => (dir === "" ? noDir() : editFile(dir, note, first, `${first}\nsecond pass by ${id}`)),
  );
  await p.emit(
    conv.turnEnd(
      1,
      { role: "assistant", content: [text(say1), run1.use] },
      [{ role: "user", content: [run1.result] }],
      "tool_use",
      [1400, 40],
    ),
  );

  // The model writes its summary (tests wait here for the snapshot of turn 1).
  await ctx.hold(tok.hold ?? FAKE_EDIT_SUMMARY_PAUSE_MS);

  // Turn 2: the summary, text only.
  await p.emit(turnStart(2));
  const summary = `Done: wrote ${note}, appended a line to README.md and removed ${FAKE_EDIT_REMOVED}.`;
  await p.emit(delta(2, summary));
  await p.emit(conv.turnEnd(2, { role: "assistant", content: [text(summary)] }, [], "end_turn", [1500, 30]));

  if (spec.interactive) {
    let turn = 3;
    for (;;) {
      const input = await ctx.nextInput();
      if (input === null) break;
      conv.messages.push({ role: "user", content: [text(input)] });
      const reply = `You said: ${input}`;
      await p.emit(turnStart(turn));
      await p.emit(delta(turn, reply));
      await p.emit(
        conv.turnEnd(turn, { role: "assistant", content: [text(reply)] }, [], "end_turn", [1600, 8]),
      );
      turn++;
    }
  }
  await p.emit(conv.runEnd());
  return 0;
}

/**
 * A script that publishes `frames` in order (pausing `frameDelayMs`, default the daemon's, between
 * them) and exits with `exitCode` (default 0). `linger` defaults to true when the last frame is a
 * `RunEnd`, so the connection closes ~100 ms later like a normal run end.
 */
export function framesScript(
  frames: readonly Frame[],
  opts: { exitCode?: number; frameDelayMs?: number; linger?: boolean; bindDelayMs?: number } = {},
): WorkerScript {
  const last = frames[frames.length - 1];
  const endsWithRunEnd =
    last !== undefined &&
    (typeof last === "string" || Buffer.isBuffer(last)
      ? last.toString().includes('"type":"RunEnd"')
      : last.type === "RunEnd");
  const script: WorkerScript = {
    run: async (ctx) => {
      const p = new Pacer(ctx);
      for (const f of frames) await p.emit(f, opts.frameDelayMs ?? ctx.frameDelayMs);
      return { exitCode: opts.exitCode ?? 0, linger: opts.linger ?? endsWithRunEnd };
    },
  };
  if (opts.bindDelayMs !== undefined) script.bindDelayMs = opts.bindDelayMs;
  return script;
}
