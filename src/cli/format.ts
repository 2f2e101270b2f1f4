/**
 * Human formatting of numbers, money, durations and instants for the CLI. Money, tokens,
 * durations and "nothing" are src/format's (the wording the dashboard and run reports share,
 * issue 16 item 5); this module adds what only a terminal needs (colors, ages, cuts).
 */
import { NONE, formatCost, formatDuration, formatInt, formatTokens } from "../format/index.js";
import type { AgentStatus, HealthState } from "../sdk/index.js";
import type { Colors } from "./output.js";

/** What the CLI prints for an absent or unknown value: src/format's `NONE` ("—"). */
export const none = NONE;

/** `1234567` → `1,234,567`. */
export function int(n: number): string {
  return formatInt(n);
}

/** Token count, compact: `950`, `12.3k`, `4.1M` (src/format `formatTokens`). */
export function tokens(n: number): string {
  return formatTokens(n);
}

/** USD amount (`$0.0123`, `$4.20`, `< $0.0001`), or `—` when unknown (null; src/format `formatCost`). */
export function usd(v: number | null | undefined): string {
  return formatCost(v);
}

/** Milliseconds as `850 ms`, `12.4 s`, `3m 05s` (src/format `formatDuration`). */
export function duration(ms: number): string {
  return formatDuration(ms);
}

/** Age of an RFC 3339 instant relative to `now` (ms): `5s`, `3m`, `2h`, `4d`. */
export function age(iso: string, now = Date.now()): string {
  const ms = Math.max(0, now - Date.parse(iso));
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h`;
  return `${Math.floor(ms / 86_400_000)}d`;
}

/** Local wall-clock time of an instant, `HH:MM:SS`. */
export function clock(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** An agent status, colored by meaning (green done, red failed/crashed, …). */
export function status(c: Colors, s: AgentStatus): string {
  switch (s) {
    case "RUNNING":
    case "SPAWNING":
      return c.cyan(s);
    case "IDLE":
      return c.yellow(s);
    case "DONE":
      return c.green(s);
    case "FAILED":
    case "CRASHED":
      return c.red(s);
    case "KILLED":
      return c.magenta(s);
    default:
      return c.dim(s);
  }
}

/** A workspace health state, colored. */
export function health(c: Colors, h: HealthState): string {
  if (h === "HEALTHY") return c.green(h);
  if (h === "UNREACHABLE") return c.red(h);
  return c.dim(h);
}

/** Cut `s` to `max` characters with an ellipsis. */
export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** First line of `s`, cut to `max` characters. */
export function firstLine(s: string, max = 80): string {
  const line = s.split("\n", 1)[0] ?? "";
  return truncate(line, max) + (s.includes("\n") && line.length <= max ? " …" : "");
}
