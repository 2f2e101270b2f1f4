/**
 * The one wording of numbers, money, durations and "nothing" shared by the CLI (src/cli/format.ts)
 * and the dashboard (dashboard/src/ui/format.ts) — issue 16 item 5: a run shows the same "—", cost
 * and token text in a terminal, a report and a browser. Pure, no Node or DOM imports (the dashboard
 * bundles it).
 */

/** What every surface shows for a value that is absent or unknown (no outcome, no cost, no time). */
export const NONE = "—";

/** {@link NONE}: the value is absent or unknown. */
export function formatNone(): string {
  return NONE;
}

/** `1234567` → `1,234,567` (en-US grouping). */
export function formatInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** Token count, compact: `950`, `1.2k`, `12k`, `4.1M`; {@link NONE} for null. */
export function formatTokens(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return NONE;
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * Estimated cost in USD: `$0`, `< $0.0001`, `$0.0123` (below $1: four decimals), `$4.20`;
 * {@link NONE} when unknown (null: the model's price is unknown — never a fake 0).
 */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return NONE;
  if (usd === 0) return "$0";
  if (usd < 0.0001) return "< $0.0001";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Milliseconds as `850 ms`, `12.4 s`, `3m 05s`, `2h 05m`; {@link NONE} for null. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return NONE;
  const v = Math.max(0, ms);
  if (v < 1000) return `${Math.round(v)} ms`;
  if (v < 60_000) return `${(v / 1000).toFixed(1)} s`;
  const m = Math.floor(v / 60_000);
  const s = Math.floor((v % 60_000) / 1000);
  return m < 60
    ? `${m}m ${String(s).padStart(2, "0")}s`
    : `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/**
 * A run's outcome in words: the GraphQL RunOutcome value lower-cased with spaces
 * (`END_OF_TURN` → `end of turn`), or the worker's raw name for UNKNOWN outcomes
 * (`outcomeName`); {@link NONE} when no end of run was read.
 */
export function formatOutcome(outcome: string | null | undefined, outcomeName?: string | null): string {
  if (outcome === null || outcome === undefined) return NONE;
  if (outcome === "UNKNOWN") return outcomeName ?? "unknown";
  return outcome.toLowerCase().replace(/_/g, " ");
}

/** Bytes in binary units: `512 B`, `1.5 KiB`, `10 MiB`, `2.0 GiB`; {@link NONE} for null. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return NONE;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = Math.max(0, n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  if (i === 0) return `${Math.round(v)} B`;
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
