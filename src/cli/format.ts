/** Human formatting of numbers, money, durations and instants for the CLI. */
import type { AgentStatus, HealthState } from "../sdk/index.js";
import type { Colors } from "./output.js";

/** `1234567` → `1,234,567`. */
export function int(n: number): string {
  return n.toLocaleString("en-US");
}

/** Token count, compact: `950`, `12.3k`, `4.1M`. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** USD amount (`$0.0123`, `$4.20`), or `—` when unknown (null). */
export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return "—";
  if (v === 0) return "$0";
  return v < 1 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

/** Milliseconds as `850 ms`, `12.4 s`, `3m 05s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return m < 60
    ? `${m}m ${String(s).padStart(2, "0")}s`
    : `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
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
