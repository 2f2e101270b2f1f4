/**
 * Pure reconciliation of one `list` reply against what is already recorded (durable history,
 * loaded from the run table — never process memory alone — so a gateway restart emits nothing
 * twice, reference #194/#196). Status transitions observed by polling are lossy (§1.8): only the
 * current status matters.
 */
import type { AgentRecord } from "../caliband/wire.js";

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
    else if (k.status !== r.rawStatus)
      changes.push({ type: "status_changed", id: r.id, from: k.status, to: r.rawStatus, record: r });
  }
  for (const id of [...known.keys()].sort()) {
    if (!seen.has(id) && !protect.has(id)) changes.push({ type: "gone", id });
  }
  return changes;
}
