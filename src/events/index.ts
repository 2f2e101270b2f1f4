/**
 * The fleet event model: the durable and live unit of history. Every event belongs to one
 * stream — an agent id, `workspace:<name>`, or `fleet` — and carries a per-stream `seq`
 * allocated by the store's single writer. Payloads are plain JSON (no bigint, no Date) and are
 * validated with zod at every boundary (store read, bus publish).
 *
 * Kinds (payload fields; token counts are tokens, durations ms, costs USD):
 * - lifecycle (poll-derived / our own commands): `agent_spawned`, `agent_discovered`,
 *   `status_changed {from,to}`, `agent_gone {reason}`, `workspace_health {state,reason}`
 * - normalized TurnEvents (protocol §3.3): `turn_started`, `output`, `tool_started`,
 *   `tool_finished`, `turn_completed`, `agent_finished`
 * - operator input (not echoed by the worker, §3.5): `input_sent {text}`, `input_ended`, both
 *   recorded before the write to the worker; `input_failed {text,reason}` when that write failed
 * - ingest bookkeeping: `ingest_gap {missedLines,missedBytes,reason,detail}`, `store_persist_failed {lostSeq,detail}`
 * - why a run failed: `worker_log {status,tail,truncated,bytes,exitCode,reason}`, stored just before
 *   the `status_changed` that ends a run `failed` or `crashed` (in the same transaction, so before
 *   the stream completes), or after `agent_discovered` for a run first seen already ended
 * - launch queue (issue 14, workspace streams): `launch_changed {launchId,from,to,reason,attempt,agentId}`,
 *   `schedule_changed {scheduleId,change,launchId,fireAtMs,reason}`
 */
import { z } from "zod";

/** Token usage of a turn or run, in tokens (cache fields are subsets of `input`). */
export const UsageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  cacheCreation: z.number().int().nonnegative(),
});
/** Token usage in tokens. */
export type Usage = z.infer<typeof UsageSchema>;

/**
 * Why an agent's output was not read to its end (`ingest_gap.reason`):
 * - `replay_evicted`: socket-only ingest; the worker's replay (last 1024 lines, protocol §3.2) no
 *   longer overlapped what was stored, so the lines in between were evicted before being read;
 * - `stream_not_ended`: socket-only ingest stopped before the stream's EOF;
 * - `deadline`: the finish deadline passed without progress while stdout.ndjson still held unread
 *   bytes (unreadable file, failing commits);
 * - `file_removed`: stdout.ndjson disappeared (`rm`/`respawn` deleted the session dir) before every
 *   byte of it was read;
 * - `stopped_while_running`: ingest had to end (the daemon no longer lists the agent) while its
 *   worker was still running and writing; what it writes afterwards is not read.
 */
export const INGEST_GAP_REASONS = [
  "replay_evicted",
  "stream_not_ended",
  "deadline",
  "file_removed",
  "stopped_while_running",
] as const;
/** One of {@link INGEST_GAP_REASONS}. */
export type IngestGapReason = (typeof INGEST_GAP_REASONS)[number];

/** Payload schema of every event kind. */
export const PayloadSchemas = {
  agent_spawned: z.object({ name: z.string(), spec: z.record(z.string(), z.unknown()) }),
  agent_discovered: z.object({ name: z.string(), status: z.string() }),
  status_changed: z.object({ from: z.string(), to: z.string() }),
  agent_gone: z.object({
    reason: z.enum(["removed", "respawned", "vanished"]),
    replacedBy: z.string().nullable(),
  }),
  workspace_health: z.object({ state: z.enum(["healthy", "unreachable"]), reason: z.string().nullable() }),
  turn_started: z.object({ turnIndex: z.number().int(), model: z.string(), messageId: z.string() }),
  output: z.object({
    stream: z.enum(["text", "thinking"]),
    text: z.string(),
    turnIndex: z.number().int(),
    blockIndex: z.number().int(),
  }),
  tool_started: z.object({ toolUseId: z.string(), name: z.string(), turnIndex: z.number().int() }),
  tool_finished: z.object({
    toolUseId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    input: z.unknown(),
    inputRaw: z.string(),
    resultText: z.string(),
    truncated: z.boolean(),
    durationMs: z.number().nonnegative().nullable(),
    turnIndex: z.number().int(),
  }),
  turn_completed: z.object({
    turnIndex: z.number().int(),
    stopReason: z.string(),
    usage: UsageSchema,
    ttftMs: z.number().nonnegative().nullable(),
    tbtMs: z.number().nonnegative().nullable(),
    model: z.string().nullable(),
    estimatedCostUsd: z.number().nonnegative().nullable(),
  }),
  agent_finished: z.object({
    outcome: z.string(),
    detail: z.string().nullable(),
    turns: z.number().int().nonnegative(),
    usage: UsageSchema,
    model: z.string().nullable(),
    estimatedCostUsd: z.number().nonnegative().nullable(),
    /**
     * The run's final assistant message (issue 16 item 4): the text blocks of the last assistant
     * message of RunEnd's `final_messages`, joined with a blank line, at most 16 KiB of UTF-8 (cut
     * at a character boundary, "…" appended); null when it has none, and on events stored before
     * issue 16.
     */
    finalMessage: z.string().nullable().default(null),
  }),
  input_sent: z.object({ text: z.string() }),
  input_ended: z.object({}),
  /** The `input_sent` (text) or `input_ended` (text null) just before could not be written to the worker. */
  input_failed: z.object({ text: z.string().nullable(), reason: z.string() }),
  ingest_gap: z.object({
    missedLines: z.number().int().nonnegative().nullable(),
    detail: z.string(),
    /** Bytes of stdout.ndjson not read, when known (events stored before issue 12 have none). */
    missedBytes: z.number().int().nonnegative().nullable().default(null),
    /** Why ingest stopped short (see {@link IngestGapReason}); null on events stored before issue 12. */
    reason: z.enum(INGEST_GAP_REASONS).nullable().default(null),
  }),
  store_persist_failed: z.object({ lostSeq: z.number().int(), detail: z.string() }),
  /**
   * The end of the worker's `<session_dir>/worker.log` (its stdout+stderr, protocol §5.4: where
   * preflight failures show up) for a run that ended `failed` or `crashed` (issue 12 item 7):
   * - `status`: the status the run ended with (`failed` or `crashed`);
   * - `tail`: its last lines (bounded in lines and bytes, UTF-8, token-shaped secrets redacted), or
   *   null when the file could not be read (then `reason` says why);
   * - `truncated`: earlier lines (or the start of an over-long line) were left out;
   * - `bytes`: the file's size when read, bytes (null when not read);
   * - `exitCode`: the worker's exit code inferred from the run's RunEnd stop condition (§5.4
   *   mapping; caliband does not report exit codes), null when no RunEnd was read or its stop
   *   condition is unknown;
   * - `reason`: why `tail` is null (file missing: a remote daemon's, or removed), else null.
   */
  worker_log: z.object({
    status: z.string(),
    tail: z.string().nullable(),
    truncated: z.boolean(),
    bytes: z.number().int().nonnegative().nullable(),
    exitCode: z.number().int().nullable(),
    reason: z.string().nullable(),
  }),
  /**
   * A launch changed state (issue 14; stored in its workspace's stream, with the Launch row's update
   * in the same transaction): `from` null for the launch's first state (QUEUED); `reason` in words
   * (why it failed, which retry, "cancelled by <token>", …); `attempt` the attempt concerned (null
   * before the first); `agentId` that attempt's run, once known.
   */
  launch_changed: z.object({
    launchId: z.string(),
    from: z.string().nullable(),
    to: z.string(),
    reason: z.string().nullable(),
    attempt: z.number().int().positive().nullable(),
    agentId: z.string().nullable(),
  }),
  /**
   * A schedule changed or fired (issue 14 item 4; its workspace's stream): `change` is created,
   * updated, paused, resumed, deleted, fired (a launch was enqueued: `launchId`) or skipped
   * (`reason`); `fireAtMs` the fire time concerned (ms since the epoch), else null.
   */
  schedule_changed: z.object({
    scheduleId: z.string(),
    change: z.enum(["created", "updated", "paused", "resumed", "deleted", "fired", "skipped"]),
    launchId: z.string().nullable(),
    fireAtMs: z.number().int().nullable(),
    reason: z.string().nullable(),
  }),
  /**
   * What a run changed was captured, or could not be (issue 16 item 1; stored in the run's
   * workspace stream, `agentId` set, with the RunCapture row's update in the same transaction):
   * emitted when the latest snapshot's head or the capture state changes. `state` CAPTURED,
   * NOT_CAPTURED, OFF or EXPIRED (`reason` says why, or notes a CAPTURED one); commits are 40-hex
   * ids (null when none); `trigger` what took the snapshot; `turnIndex` its TurnEnd's turn (else
   * null); `files`/`additions`/`deletions` base..head; `skippedFiles` left out by the caps;
   * `final` taken at or after the run's end.
   */
  changes_captured: z.object({
    state: z.enum(["CAPTURED", "NOT_CAPTURED", "OFF", "EXPIRED"]),
    reason: z.string().nullable(),
    baseCommit: z.string().nullable(),
    headCommit: z.string().nullable(),
    trigger: z.enum(["START", "TURN_END", "RUN_END", "KILL", "STOPPED"]).nullable(),
    turnIndex: z.number().int().nullable(),
    files: z.number().int().nonnegative(),
    additions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
    skippedFiles: z.number().int().nonnegative(),
    final: z.boolean(),
  }),
} as const;

/** Every event kind. */
export type EventKind = keyof typeof PayloadSchemas;
/** Event kinds as a list (schema order). */
export const EVENT_KINDS = Object.keys(PayloadSchemas) as EventKind[];
/** Payload type of kind K. */
export type PayloadOf<K extends EventKind> = z.infer<(typeof PayloadSchemas)[K]>;

/** An event before the store assigns its stream position. */
export type NewEvent = {
  [K in EventKind]: {
    kind: K;
    payload: PayloadOf<K>;
    /** Workspace name ("" for fleet-level events). */
    workspace: string;
    /** Agent id ("" for workspace- and fleet-level events). */
    agentId: string;
    /** When it happened, ms since the epoch. */
    tsMs: number;
  };
}[EventKind];

/** A committed (or, for `store_persist_failed`, live-only) event. */
export type FleetEvent = NewEvent & {
  /** Stream key: agent id, `workspace:<name>`, or `fleet`. */
  streamKey: string;
  /** Position in its stream, from 1, strictly increasing, never reused. */
  seq: number;
  /**
   * Fleet-wide commit order (the store's row id), increasing across all streams; null for an
   * event that was published but could not be stored (see `store_persist_failed`).
   */
  globalId: number | null;
};

/**
 * Stream key of an event (reference §3.1, renamed `repo:` → `workspace:`). `changes_captured` goes
 * to its workspace's stream although its `agentId` is set (issue 16: the final snapshot comes after
 * the agent's own stream completed at its terminal event).
 */
export function streamKeyOf(e: { workspace: string; agentId: string; kind?: string }): string {
  if (e.kind === "changes_captured" && e.workspace !== "") return `workspace:${e.workspace}`;
  if (e.agentId !== "") return e.agentId;
  if (e.workspace !== "") return `workspace:${e.workspace}`;
  return "fleet";
}

/** Stream key of a workspace's own events. */
export function workspaceStream(name: string): string {
  return `workspace:${name}`;
}

const TERMINAL_STATUSES = new Set(["killed", "done", "failed", "crashed"]);

/**
 * True for the event after which an agent's stream is complete: its `status_changed` to a
 * terminal status (killed|done|failed|crashed, protocol §2.1), or `agent_gone`. The reconciler
 * finishes ingesting an agent before recording its terminal status, so nothing follows it but a
 * later `agent_gone`.
 */
export function isTerminalEvent(e: NewEvent): boolean {
  if (e.kind === "agent_gone") return true;
  return e.kind === "status_changed" && TERMINAL_STATUSES.has(e.payload.to);
}

/**
 * Validate a payload for its kind.
 * @throws ZodError when the payload does not match the kind's schema.
 */
export function parsePayload<K extends EventKind>(kind: K, payload: unknown): PayloadOf<K> {
  return PayloadSchemas[kind].parse(payload) as PayloadOf<K>;
}

/** The columns of a stored Event row (`tsMs` in ms since the epoch; `agentId` null = none). */
export interface StoredEventFields {
  id: number;
  streamKey: string;
  seq: number;
  tsMs: number;
  workspace: string;
  agentId: string | null;
  kind: string;
  /** The payload as parsed JSON (not yet validated). */
  payload: unknown;
}

/**
 * A stored event as a FleetEvent: the kind is checked and the payload validated (zod) once.
 * Used by both event read paths (Prisma rows and raw rows, src/store).
 * @throws Error when the kind is unknown; ZodError when the payload does not match it (a
 *   corrupt row: readers skip it).
 */
export function storedEvent(row: StoredEventFields): FleetEvent {
  if (!Object.hasOwn(PayloadSchemas, row.kind))
    throw new Error(`unknown event kind ${JSON.stringify(row.kind)}`);
  const kind = row.kind as EventKind;
  return {
    kind,
    payload: parsePayload(kind, row.payload),
    streamKey: row.streamKey,
    seq: row.seq,
    globalId: row.id,
    workspace: row.workspace,
    agentId: row.agentId ?? "",
    tsMs: row.tsMs,
  } as FleetEvent;
}
