/**
 * Human formatting of numbers, times and statuses. Money, token counts, durations, outcomes and
 * "nothing" are src/format's — the one wording the CLI and run reports share (issue 16 item 5) —
 * re-exported here; this module adds what only the page needs (ages, clock times, labels).
 */
import {
  NONE,
  formatBytes,
  formatCost as sharedCost,
  formatDuration as sharedDuration,
  formatInt,
  formatNone,
  formatOutcome,
  formatTokens as compactTokens,
} from "../../../src/format/index.js";
import type { AgentStatus, TokenUsage } from "../api/types.js";

export { NONE, formatBytes, formatInt, formatNone, formatOutcome };

/** "1,200 in / 48 out" (a run's or a turn's usage in full). */
export function formatTokens(u: TokenUsage): string {
  return `${formatInt(u.input)} in / ${formatInt(u.output)} out`;
}

/** Compact token count: "950", "1.2k", "4.1M"; "—" for null (src/format `formatTokens`). */
export function formatTokenCount(n: number | null | undefined): string {
  return compactTokens(n);
}

/** "$0.0123", "$4.20", or "—" when the model's price is unknown (never a fake 0; src/format `formatCost`). */
export function formatCost(usd: number | null | undefined): string {
  return sharedCost(usd);
}

/** Elapsed time in its two largest units: "42s", "3m 4s", "2h 5m", "3d 2h". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const hrs = Math.floor(m / 60);
  if (hrs < 24) return `${hrs}h ${m % 60}m`;
  return `${Math.floor(hrs / 24)}d ${hrs % 24}h`;
}

/** "420 ms", "1.2 s", "3m 05s"; "—" for null (src/format `formatDuration`). */
export function formatDuration(ms: number | null | undefined): string {
  return sharedDuration(ms);
}

/**
 * A run's outcome as the worker named it (`EndOfTurn`, the CLI's spelling too), or "—" when no
 * end of run was read.
 */
export function outcomeText(outcomeName: string | null | undefined): string {
  return outcomeName ?? NONE;
}

/** Local time of an RFC 3339 instant, e.g. "14:03:11". */
export function formatClock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour12: false });
}

/** Local date and time of an RFC 3339 instant. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hour12: false });
}

/** "running" */
export function statusLabel(s: AgentStatus): string {
  return s.toLowerCase();
}

/** "in 4m 2s" for an instant ahead of `now`, "3m 4s ago" for one behind (ms since the epoch). */
export function formatRelative(at: number, now: number): string {
  return at >= now ? `in ${formatAge(at - now)}` : `${formatAge(now - at)} ago`;
}

/** A launch state in words: "queued", "timed out". */
export function launchStateLabel(state: string): string {
  return state.toLowerCase().replace(/_/g, " ");
}

/** The first line of a prompt, cut at `max` characters with an ellipsis. */
export function excerpt(text: string, max = 80): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > max || text.trim().includes("\n") ? `${line.slice(0, max).trimEnd()}…` : line;
}
