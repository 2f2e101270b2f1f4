/**
 * The run table: every agent ever seen, kept after caliband forgets it (rm, respawn), so
 * history stays queryable. Write helpers return pending operations so callers commit them in the
 * same transaction as the events that justify them (one source of truth for "already recorded").
 */
import type { PrismaClient, Prisma } from "../generated/prisma/client.js";
import type { PendingOp } from "./writer.js";

/** A stored run. Token counts in tokens, cost in USD (null = unknown model). */
export type AgentRow = Prisma.AgentModel;

/** Fields describing a run when it is first recorded. */
export interface NewAgentRow {
  id: string;
  workspace: string;
  name: string;
  status: string;
  interactive: boolean;
  isolated: boolean;
  spec: Record<string, unknown>;
  sessionDir: string;
  workingDir: string;
  startedAt: Date;
  model: string | null;
  respawnedFrom: string | null;
}

/** How much of the initial prompt {@link agentSearchText} keeps, in characters (the migration's rule). */
export const SEARCH_PROMPT_CHARS = 4096;

/**
 * What `agents(filter: {search})` matches for a run (issue 16 item 5): its name, the spec's
 * `label` and the first {@link SEARCH_PROMPT_CHARS} characters (code points, as SQLite's `substr`
 * counts them) of the spec's `initial_prompt`, joined by "\n" and lower-cased — the same rule as
 * the backfill of migration 20261202004911_changes. A missing or non-string label or prompt counts
 * as "".
 */
export function agentSearchText(name: string, spec: Record<string, unknown>): string {
  const label = typeof spec["label"] === "string" ? spec["label"] : "";
  const prompt = typeof spec["initial_prompt"] === "string" ? spec["initial_prompt"] : "";
  // Code points, not UTF-16 units (an emoji is one character for SQLite too); a long prompt is
  // cut before splitting so a huge one costs nothing.
  const head = Array.from(prompt.slice(0, SEARCH_PROMPT_CHARS * 2))
    .slice(0, SEARCH_PROMPT_CHARS)
    .join("");
  return `${name}\n${label}\n${head}`.toLowerCase();
}

/**
 * Insert a run (or refresh an existing row's descriptive fields without touching its history);
 * `searchText` is rewritten from the name and spec every time ({@link agentSearchText}).
 */
export function upsertAgentOp(db: PrismaClient, a: NewAgentRow): PendingOp {
  const data = {
    searchText: agentSearchText(a.name, a.spec),
    workspace: a.workspace,
    name: a.name,
    status: a.status,
    interactive: a.interactive,
    isolated: a.isolated,
    spec: a.spec as Prisma.InputJsonValue,
    sessionDir: a.sessionDir,
    workingDir: a.workingDir,
    startedAt: a.startedAt,
    model: a.model,
  };
  return db.agent.upsert({
    where: { id: a.id },
    create: { id: a.id, ...data, respawnedFrom: a.respawnedFrom },
    update: { ...data, goneAt: null },
  });
}

/** Record a status; sets `finishedAt` when the status is terminal. */
export function setStatusOp(
  db: PrismaClient,
  id: string,
  status: string,
  at: Date,
  terminal: boolean,
): PendingOp {
  return db.agent.update({ where: { id }, data: { status, ...(terminal ? { finishedAt: at } : {}) } });
}

/** Mark a run as no longer listed by caliband. */
export function setGoneOp(db: PrismaClient, id: string, at: Date): PendingOp {
  return db.agent.update({ where: { id }, data: { goneAt: at } });
}

/** Why a run failed, as stored on its row (issue 12 item 7; see the `worker_log` event). */
export interface RunFailureRow {
  /** Last lines of worker.log, secrets redacted; null when it could not be read. */
  tail: string | null;
  /** Earlier lines were left out of `tail`. */
  truncated: boolean;
  /** Exit code inferred from the RunEnd's stop condition; null when not known. */
  exitCode: number | null;
  /** Why `tail` is null; null when it was read. */
  reason: string | null;
}

/** Why a stored run failed, as the API shows it (`RunFailure`): its worker.log tail, exit code, why unread. */
export interface RunFailureView {
  logTail: string | null;
  logTruncated: boolean;
  exitCode: number | null;
  reason: string | null;
}

/**
 * The failure of a stored run (`Agent.failure`, `RunReport.failure`): null for a run that did not
 * fail (neither a log tail nor a reason recorded, issue 12 item 7).
 */
export function runFailureOf(
  a: Pick<AgentRow, "failureLogTail" | "failureLogTruncated" | "exitCode" | "failureReason">,
): RunFailureView | null {
  if (a.failureLogTail === null && a.failureReason === null) return null;
  return {
    logTail: a.failureLogTail,
    logTruncated: a.failureLogTruncated ?? false,
    exitCode: a.exitCode,
    reason: a.failureReason,
  };
}

/** Record why a run failed (the row's `failureLogTail`, `failureLogTruncated`, `exitCode`, `failureReason`). */
export function setFailureOp(db: PrismaClient, id: string, f: RunFailureRow): PendingOp {
  return db.agent.update({
    where: { id },
    data: {
      failureLogTail: f.tail,
      failureLogTruncated: f.truncated,
      exitCode: f.exitCode,
      failureReason: f.reason,
    },
  });
}
