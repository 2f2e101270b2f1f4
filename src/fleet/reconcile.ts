/**
 * Pure reconciliation of one `list` reply against what is already recorded (durable history,
 * loaded from the run table — never process memory alone — so a gateway restart emits nothing
 * twice, reference #194/#196). Status transitions observed by polling are lossy (§1.8): only the
 * current status matters. A recorded terminal status is final: no later listing changes it (a
 * restarted daemon's stale `idle`, a sweep's `crashed`, a kill that overwrote `done`, §1.7/§5.7).
 */
import { isTerminal, type AgentRecord } from "../caliband/wire.js";

/** What the gateway has recorded about an agent that caliband still listed last time. */
export interface KnownAgent {
  id: string;
  /** Last recorded caliband status string (raw, may be an unknown future value). */
  status: string;
}

/** One change to record. */
export type AgentChange =
  | { type: "discovered"; record: AgentRecord }
  | { type: "status_changed"; id: string; from: string; to: string; record: AgentRecord }
  | { type: "gone"; id: string };

/**
 * Diff a `list` reply against the recorded, not-gone agents of one workspace.
 * @param known recorded agents not yet marked gone.
 * @param listed the daemon's records (any order).
 * @param pendingSpawns ids we spawned whose record the daemon may not list yet is irrelevant here:
 *   ids in `known` that caliband does not list are gone unless listed in `protect` (ids whose
 *   spawn or respawn reply arrived after this list request was sent, #122).
 * @returns changes in a stable order: discoveries and status changes by `started_at`, then gones.
 *   No status change is reported for an agent whose recorded status is terminal.
 */
export function diffAgents(
  known: ReadonlyMap<string, KnownAgent>,
  listed: readonly AgentRecord[],
  protect: ReadonlySet<string> = new Set(),
): AgentChange[] {
  const changes: AgentChange[] = [];
  const seen = new Set<string>();
  const ordered = [...listed].sort((a, b) =>
    a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0,
  );
  for (const r of ordered) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    const k = known.get(r.id);
    if (!k) changes.push({ type: "discovered", record: r });
    else if (k.status !== r.rawStatus && !isTerminal(k.status))
      changes.push({ type: "status_changed", id: r.id, from: k.status, to: r.rawStatus, record: r });
  }
  for (const id of [...known.keys()].sort()) {
    if (!seen.has(id) && !protect.has(id)) changes.push({ type: "gone", id });
  }
  return changes;
}

/** How an agent's run ended as its output shows (see `RunEndInfo` in ingest.ts). */
export interface StreamEnd {
  /** The RunEnd's outcome (StopCondition name, §3.3), or null when no RunEnd was ingested. */
  runEndOutcome: string | null;
  /** The worker was found gone (its endpoint refuses connections). */
  workerGone: boolean;
}

/**
 * The terminal status to record for a run, or null while it is not known to have ended (issue 12
 * items 1 and 2). The stream's word comes first, because a daemon's record can be stale or wrong
 * about a run it lost (a restarted daemon lists a finished interactive worker as `idle` and a
 * surviving one as `crashed`, §5.7; `kill` overwrites `done`, §1.7):
 * 1. a RunEnd was ingested → `done` for `EndOfTurn`, else `failed` — exactly what a daemon that saw
 *    the worker exit records (only EndOfTurn exits 0, §5.4);
 * 2. else the daemon's terminal status (`killed`, `failed`, `crashed`, or `done`);
 * 3. else, when the worker is gone (no RunEnd, the daemon still says spawning/running/idle: it no
 *    longer tracks the worker) → `crashed`, caliband's word for a run its daemon lost;
 * 4. else null: the run goes on.
 * @param daemonStatus the daemon's current raw status, or null when it does not answer.
 */
export function settledStatus(daemonStatus: string | null, end: StreamEnd): string | null {
  if (end.runEndOutcome !== null) return end.runEndOutcome === "EndOfTurn" ? "done" : "failed";
  if (daemonStatus !== null && isTerminal(daemonStatus)) return daemonStatus;
  if (end.workerGone) return "crashed";
  return null;
}
