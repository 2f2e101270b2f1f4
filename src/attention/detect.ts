/**
 * What the inbox reads out of fleet events (issue 15 item 1), as pure functions: which event opens
 * or closes which item kind, the question of an interactive agent waiting after a turn (the text of
 * its last assistant message), the plan of an `EnterPlanMode`/`ExitPlanMode` tool call, the reason
 * a run failed, and the texts (titles, hints, notifications) the inbox stores and sends. No I/O:
 * the service (src/attention/inbox.ts) reads the store and calls these.
 *
 * Every text that leaves here for a person is bounded and sanitized the way worker.log tails are
 * (src/fleet/worker-log.ts): escape sequences and control characters removed (LF and TAB kept),
 * token-shaped secrets replaced by `[redacted]`.
 */
import type { FleetEvent, PayloadOf } from "../events/index.js";
import { cleanLogText, redactSecrets } from "../fleet/worker-log.js";
import type { InboxResolution, Notification, NotificationType, NotificationValue } from "./types.js";

/** Most bytes (UTF-8) of a question kept in an item's body (design-15: "bounded 8 KiB"). */
export const QUESTION_MAX_BYTES = 8 * 1024;
/** Most bytes (UTF-8) of any other item body (a plan, a failure reason, an alert message). */
export const BODY_MAX_BYTES = 16 * 1024;
/** Most characters of an item's title and of a notification's title (types.ts `Notification`). */
export const TITLE_MAX_CHARS = 200;
/** Most characters of a notification's message (types.ts `Notification`). */
export const MESSAGE_MAX_CHARS = 4000;
/** Most characters of an InboxAction's `detail` (the text sent, why it closed). */
export const DETAIL_MAX_CHARS = 4000;
/** Most characters of an answer, approval or change request sent to an agent. */
export const ANSWER_MAX_CHARS = 100_000;
/** Furthest ahead a snooze may end, ms (30 days). */
export const SNOOZE_MAX_MS = 30 * 24 * 3600 * 1000;
/** Lines of a worker.log tail quoted in a RUN_FAILED item's body. */
export const FAILURE_LOG_LINES = 20;
/** What approving a plan sends to the agent when the operator gives no text of their own. */
export const DEFAULT_APPROVAL = "The plan is approved. Go ahead.";

/**
 * Tool names by which an agent hands a plan to a person and waits for approval: caliban's
 * `EnterPlanMode` (issue 15: "caliban's EnterPlanMode tool input is the plan") and Claude Code's
 * `ExitPlanMode`, its name for the same hand-off.
 */
export const PLAN_TOOLS: ReadonlySet<string> = new Set(["EnterPlanMode", "ExitPlanMode"]);

/** Statuses at which a run has failed (protocol §2.1; `killed` is an operator's or the queue's kill, not a failure). */
const FAILED_STATUSES: ReadonlySet<string> = new Set(["failed", "crashed"]);
/** Statuses after which a run is over (protocol §2.1). */
const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["killed", "done", "failed", "crashed"]);
/** Statuses of an agent working (again): a QUESTION or PLAN it waited with is over. */
const WORKING_STATUSES: ReadonlySet<string> = new Set(["running", "spawning"]);
/**
 * `agent_finished` outcomes that are not failures (design-15): a normal end, the turn budget, a
 * cancel. Every other stop condition (provider error, hook denial, refusal, …) is one.
 */
const NON_FAILURE_OUTCOMES: ReadonlySet<string> = new Set(["EndOfTurn", "MaxTurnsReached", "Cancelled"]);
/**
 * Turn stop reasons at which an interactive worker reaches its end-of-turn boundary and waits for
 * input (protocol §3.5: `end_turn`/`stop_sequence` with no tool call pending).
 */
const BOUNDARY_STOP_REASONS: ReadonlySet<string> = new Set(["end_turn", "stop_sequence"]);

/** True when `status` means the run failed (failed, crashed). */
export function isFailedStatus(status: string): boolean {
  return FAILED_STATUSES.has(status);
}

/** True when `status` is terminal (killed, done, failed, crashed). */
export function isEndedStatus(status: string): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** True when an `agent_finished` outcome is a failure (see {@link NON_FAILURE_OUTCOMES}). */
export function isFailureOutcome(outcome: string): boolean {
  return !NON_FAILURE_OUTCOMES.has(outcome);
}

/** True for a `tool_finished` name that hands a plan over (see {@link PLAN_TOOLS}). */
export function isPlanTool(name: string): boolean {
  return PLAN_TOOLS.has(name);
}

/** True when a turn that stopped for `stopReason` leaves an interactive agent waiting for input (§3.5). */
export function isBoundaryStop(stopReason: string): boolean {
  return BOUNDARY_STOP_REASONS.has(stopReason);
}

/** The one open item per thing (InboxItem.activeKey): `question:<agentId>`. */
export function questionKey(agentId: string): string {
  return `question:${agentId}`;
}
/** `plan:<agentId>`. */
export function planKey(agentId: string): string {
  return `plan:${agentId}`;
}
/** `run:<agentId>`: one RUN_FAILED item per run. */
export function runKey(agentId: string): string {
  return `run:${agentId}`;
}
/** `alert:<check>:<subject>` (`*` for a fleet-wide alert). */
export function alertKey(check: string, subject: string | null): string {
  return `alert:${check}:${subject ?? "*"}`;
}

/**
 * What a QUESTION or PLAN item of an agent must do on `e` (an event of that agent), by the rules of
 * design-15: a status back to running/spawning means the agent resumed; a terminal status or
 * `agent_gone` means the run ended. Returns why it closes, or null when `e` does not close it.
 * (PLAN items close on "resumed" only after the agent went idle since the plan: the caller checks.)
 */
export function waitEndReason(e: FleetEvent): { reason: string; resumed: boolean } | null {
  if (e.kind === "status_changed") {
    if (WORKING_STATUSES.has(e.payload.to)) return { reason: "the agent resumed", resumed: true };
    if (TERMINAL_STATUSES.has(e.payload.to))
      return { reason: `the run ended (${e.payload.to})`, resumed: false };
    return null;
  }
  if (e.kind === "agent_gone") {
    const how =
      e.payload.reason === "respawned" && e.payload.replacedBy
        ? `respawned as ${e.payload.replacedBy}`
        : e.payload.reason;
    return { reason: `the run ended (${how})`, resumed: false };
  }
  return null;
}

/**
 * The plan of a plan tool call: `input.plan` when it is a non-empty string (caliban's
 * `EnterPlanMode` and Claude Code's `ExitPlanMode` both take `{plan}`), else the raw input text as
 * the model streamed it (a plan in another shape is still shown, not lost).
 */
export function planText(input: unknown, inputRaw: string): string {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const plan = (input as Record<string, unknown>)["plan"];
    if (typeof plan === "string" && plan.trim() !== "") return plan;
  }
  return inputRaw;
}

/**
 * The text of one turn's assistant message from its `output` events (in stream order): the `text`
 * stream only (thinking is not the message), deltas of one content block joined as they came,
 * blocks separated by a blank line. Events of other turns are ignored.
 */
export function turnText(outputs: readonly PayloadOf<"output">[], turnIndex: number): string {
  const blocks: string[] = [];
  let block: number | null = null;
  for (const o of outputs) {
    if (o.turnIndex !== turnIndex || o.stream !== "text") continue;
    if (block !== o.blockIndex || blocks.length === 0) {
      blocks.push("");
      block = o.blockIndex;
    }
    blocks[blocks.length - 1] += o.text;
  }
  return blocks
    .map((b) => b.trim())
    .filter((b) => b !== "")
    .join("\n\n");
}

/** `text` cleaned for a person (escape sequences, control characters removed; secrets redacted). */
export function sanitize(text: string): string {
  return redactSecrets(cleanLogText(text));
}

/**
 * `text` in at most `maxBytes` bytes of UTF-8, cut at a character boundary: its start (`head`,
 * then `…`) or its end (`tail`, `…` first). Unchanged when it fits.
 */
export function boundBytes(text: string, maxBytes: number, keep: "head" | "tail"): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  const room = Math.max(0, maxBytes - 3); // "…" is 3 bytes
  if (keep === "head") {
    let end = room;
    while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
    return `${buf.subarray(0, end).toString("utf8")}…`;
  }
  let start = buf.length - room;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return `…${buf.subarray(start).toString("utf8")}`;
}

/** `text` as one line (whitespace runs collapsed) of at most `max` characters (`…` when cut). */
export function oneLine(text: string, max: number): string {
  const line = sanitize(text).replace(/\s+/g, " ").trim();
  if (line.length <= max) return line;
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("")}…`;
}

/** `text` of at most `max` characters (`…` when cut), lines kept. */
export function boundChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** The body of a QUESTION: its text sanitized, its END kept (the question is at the end), 8 KiB. */
export function questionBody(text: string): string {
  const clean = sanitize(text).trim();
  return clean === "" ? "(the agent's last turn had no text)" : boundBytes(clean, QUESTION_MAX_BYTES, "tail");
}

/** The body of a PLAN (its start kept) or an ALERT: sanitized, at most {@link BODY_MAX_BYTES}. */
export function plainBody(text: string): string {
  const clean = sanitize(text).trim();
  return clean === "" ? "(empty)" : boundBytes(clean, BODY_MAX_BYTES, "head");
}

/** Facts about a failed run, as the store holds them (Agent row, last `agent_finished`, launch). */
export interface RunFailure {
  /** The status it ended with (failed, crashed) — or the one it had when its launch timed out. */
  status: string;
  /** Stop condition of its RunEnd (`agent_finished.outcome`), null without one. */
  outcome: string | null;
  /** The stop condition's detail (e.g. the provider's error message), null when none. */
  detail: string | null;
  /** Exit code inferred from the outcome (Agent.exitCode), null when not known. */
  exitCode: number | null;
  /** The end of its worker.log (Agent.failureLogTail), null when not read. */
  logTail: string | null;
  /** Why worker.log could not be read (Agent.failureReason), null when it was or was not needed. */
  logUnreadable: string | null;
  /** The launch's reason (a timeout: "timed out after … ms: …"), null for a run not timed out. */
  launchReason: string | null;
}

/**
 * The reason of a RUN_FAILED item, in words: the launch's reason for a timeout, how the run ended
 * (status, stop condition and its detail, exit code; left out for a run the timeout killed), then the last {@link FAILURE_LOG_LINES}
 * lines of its worker.log (or why they could not be read). Sanitized, at most {@link BODY_MAX_BYTES}
 * (the end of the log kept).
 */
export function failureBody(f: RunFailure): string {
  const parts: string[] = [];
  if (f.launchReason !== null) parts.push(`The launch ${f.launchReason}.`);
  const how = f.outcome !== null ? ` (${f.outcome}${f.detail ? `: ${f.detail}` : ""})` : "";
  const code = f.exitCode !== null ? `, exit code ${f.exitCode}` : "";
  // A timed-out run the queue killed: the launch's reason already says so.
  if (!(f.launchReason !== null && f.status === "killed" && f.outcome === null))
    parts.push(`The run ended ${f.status}${how}${code}.`);
  if (f.logTail !== null && f.logTail.trim() !== "") {
    const lines = f.logTail.split("\n");
    const kept = lines.slice(-FAILURE_LOG_LINES);
    parts.push(
      `Last ${kept.length === lines.length ? "" : `${kept.length} `}lines of worker.log:\n${kept.join("\n")}`,
    );
  } else if (f.logUnreadable !== null) {
    parts.push(`worker.log could not be read: ${f.logUnreadable}`);
  }
  return boundBytes(sanitize(parts.join("\n\n")), BODY_MAX_BYTES, "tail");
}

/** Who and where an item is about, for titles: the run's name and its workspace. */
export interface Subject {
  name: string;
  workspace: string;
}

/** Title of a QUESTION: `<name> in <workspace> waits for input: <the question's last sentence>`. */
export function questionTitle(s: Subject, question: string): string {
  const head = `${s.name} in ${s.workspace} waits for input`;
  const last = lastSentence(question);
  return oneLine(last === "" ? head : `${head}: ${last}`, TITLE_MAX_CHARS);
}

/** The last sentence of `text` (where a question usually is), as one line; "" for blank text. */
function lastSentence(text: string): string {
  const line = sanitize(text).replace(/\s+/g, " ").trim();
  const parts = line.split(/(?<=[.!?])\s+/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? line;
}

/** Title of a PLAN: `<name> in <workspace> shared a plan and waits for approval`. */
export function planTitle(s: Subject): string {
  return oneLine(`${s.name} in ${s.workspace} shared a plan and waits for approval`, TITLE_MAX_CHARS);
}

/**
 * Title of a RUN_FAILED item: `Run <name> in <workspace> timed out`, or `… failed` / `… crashed`
 * with the stop condition's detail (else its outcome) when there is one.
 */
export function failureTitle(s: Subject, f: RunFailure, timedOut: boolean): string {
  if (timedOut) return oneLine(`Run ${s.name} in ${s.workspace} timed out`, TITLE_MAX_CHARS);
  const why = f.detail ?? f.outcome;
  return oneLine(`Run ${s.name} in ${s.workspace} ${f.status}${why ? `: ${why}` : ""}`, TITLE_MAX_CHARS);
}

/** What answering means for an item of `kind`, in words (InboxItem.answerHint). */
export function answerHint(kind: string): string {
  switch (kind) {
    case "QUESTION":
      return "Send input to the agent";
    case "PLAN":
      return "Approve the plan or send changes";
    case "RUN_FAILED":
      return "Acknowledge the failure";
    case "ALERT":
      return "Acknowledge the alert";
    default:
      return "Acknowledge or dismiss it";
  }
}

/** True when items of `kind` take an answer (input sent to the agent). */
export function canAnswerKind(kind: string): boolean {
  return kind === "QUESTION" || kind === "PLAN";
}

/**
 * Why `text` cannot be sent as an answer (empty or only whitespace; longer than
 * {@link ANSWER_MAX_CHARS}), or null when it can.
 */
export function answerTextProblem(text: string): string | null {
  if (text.trim() === "") return "must not be empty";
  if (text.length > ANSWER_MAX_CHARS) return `must be at most ${ANSWER_MAX_CHARS} characters`;
  return null;
}

/** Why a snooze until `untilMs` is refused at `nowMs` (not in the future; over 30 days ahead), or null. */
export function snoozeProblem(untilMs: number, nowMs: number): string | null {
  if (!Number.isFinite(untilMs)) return "must be a time";
  if (untilMs <= nowMs) return "must be in the future";
  if (untilMs > nowMs + SNOOZE_MAX_MS) return "must be at most 30 days ahead";
  return null;
}

/** A duration for people: `45 s`, `12 min`, `3 h`, `2 d 4 h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/** An inbox item as notifications need it (the InboxItem row's fields). */
export interface NotifiedItem {
  id: string;
  kind: string;
  state: string;
  workspace: string | null;
  agentId: string | null;
  launchId: string | null;
  check: string | null;
  subject: string | null;
  title: string;
  body: string;
  openedAt: Date;
  escalations: number;
  resolution: string | null;
  closedBy: string | null;
  closeReason: string | null;
}

/** One recorded action, as notifications need it (the InboxAction row). */
export interface NotifiedAction {
  /** The row id: part of every notification id, so each is unique and stable. */
  id: number;
  action: string;
  at: Date;
}

/**
 * The notifications one action of an item sends (design-15 "Notifications"), ids
 * `<type>:<itemId>:<actionId>`:
 * - OPENED: `inbox.opened`, plus `run.failed` or `run.timed_out` (RUN_FAILED; `extra.timedOut`)
 *   or `alert.opened` (ALERT);
 * - REOPENED (a snooze ended): `inbox.opened` with `data.reopened = true`;
 * - ESCALATED: `inbox.escalated`;
 * - a closing action (ANSWERED, APPROVED, ACKNOWLEDGED, DISMISSED, RESOLVED): `inbox.closed`,
 *   plus `alert.resolved` for an ALERT the monitor cleared (`extra.cleared`);
 * - SNOOZED, UPDATED: none.
 * `extra` adds scalar facts to `data` (status, outcome, exitCode of a failed run).
 */
export function notificationsFor(
  item: NotifiedItem,
  action: NotifiedAction,
  extra: Record<string, NotificationValue> = {},
): Notification[] {
  const base = {
    occurredAt: action.at,
    workspace: item.workspace,
    agentId: item.agentId,
    inboxItemId: item.id,
  };
  const data = (more: Record<string, NotificationValue>): Record<string, NotificationValue> => ({
    kind: item.kind,
    state: item.state,
    action: action.action,
    escalations: item.escalations,
    launchId: item.launchId,
    ...(item.kind === "ALERT" ? { check: item.check, subject: item.subject } : {}),
    ...more,
  });
  const one = (type: NotificationType, title: string, message: string, more = {}): Notification => ({
    id: `${type}:${item.id}:${action.id}`,
    type,
    ...base,
    title: oneLine(title, TITLE_MAX_CHARS),
    message: boundChars(sanitize(message), MESSAGE_MAX_CHARS),
    data: data(more),
  });
  const { timedOut, cleared, ...facts } = extra;
  switch (action.action) {
    case "OPENED": {
      const out = [one("inbox.opened", item.title, item.body, { reopened: false })];
      if (item.kind === "RUN_FAILED")
        out.push(one(timedOut === true ? "run.timed_out" : "run.failed", item.title, item.body, facts));
      if (item.kind === "ALERT") out.push(one("alert.opened", item.title, item.body));
      return out;
    }
    case "REOPENED":
      return [one("inbox.opened", item.title, item.body, { reopened: true })];
    case "ESCALATED": {
      const open = formatDuration(action.at.getTime() - item.openedAt.getTime());
      return [
        one("inbox.escalated", `Still open after ${open}: ${item.title}`, item.body, {
          openForMs: action.at.getTime() - item.openedAt.getTime(),
        }),
      ];
    }
    case "ANSWERED":
    case "APPROVED":
    case "ACKNOWLEDGED":
    case "DISMISSED":
    case "RESOLVED": {
      const verb = closedVerb(action.action as InboxResolution);
      const why = item.closeReason ?? `${verb}${item.closedBy ? ` by ${item.closedBy}` : ""}`;
      const closed = { resolution: item.resolution, closedBy: item.closedBy, closeReason: item.closeReason };
      const out = [one("inbox.closed", `${verb}: ${item.title}`, why, closed)];
      if (item.kind === "ALERT" && cleared === true)
        out.push(one("alert.resolved", `Resolved: ${item.title}`, why, closed));
      return out;
    }
    default:
      return [];
  }
}

/** The word for a closing: Answered, Approved, Acknowledged, Dismissed, Resolved. */
function closedVerb(r: InboxResolution): string {
  return r.charAt(0) + r.slice(1).toLowerCase();
}

/**
 * The `schedule.skipped` notification of a `schedule_changed` event with change `skipped`
 * (design-15), id `schedule.skipped:<scheduleId>:<fireAtMs>`; null for any other event.
 */
export function scheduleSkipped(e: FleetEvent): Notification | null {
  if (e.kind !== "schedule_changed" || e.payload.change !== "skipped") return null;
  const p = e.payload;
  const at = p.fireAtMs !== null ? new Date(p.fireAtMs).toISOString() : "now";
  return {
    id: `schedule.skipped:${p.scheduleId}:${p.fireAtMs ?? e.tsMs}`,
    type: "schedule.skipped",
    occurredAt: new Date(e.tsMs),
    workspace: e.workspace === "" ? null : e.workspace,
    agentId: null,
    inboxItemId: null,
    title: oneLine(`Schedule ${p.scheduleId} in ${e.workspace} skipped its firing of ${at}`, TITLE_MAX_CHARS),
    message: boundChars(sanitize(p.reason ?? "skipped"), MESSAGE_MAX_CHARS),
    data: { scheduleId: p.scheduleId, fireAtMs: p.fireAtMs, reason: p.reason },
  };
}
