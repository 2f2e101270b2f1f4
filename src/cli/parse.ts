/**
 * Parsers of command-line values (commander `argParser`s). Each throws commander's
 * InvalidArgumentError, which the CLI reports as a usage error (exit 2).
 */
import { InvalidArgumentError } from "commander";
import type { AgentStatus, Provider, Role, UsageGroupBy } from "../sdk/index.js";

/** Every AgentStatus value (kept equal to the schema's enum by the `satisfies` checks below). */
export const AGENT_STATUSES = [
  "SPAWNING",
  "RUNNING",
  "IDLE",
  "DONE",
  "FAILED",
  "KILLED",
  "CRASHED",
  "UNKNOWN",
] as const satisfies readonly AgentStatus[];

/** Every Provider value. */
export const PROVIDERS = ["ANTHROPIC", "OPENAI", "OLLAMA", "GOOGLE"] as const satisfies readonly Provider[];

/** Every Role value. */
export const ROLES = ["VIEWER", "OPERATOR", "ADMIN"] as const satisfies readonly Role[];

/** Every UsageGroupBy value. */
export const GROUP_BY = ["WORKSPACE", "MODEL", "DAY"] as const satisfies readonly UsageGroupBy[];

// Compile-time completeness: each list names every member of its union.
type Missing<U, L extends readonly unknown[]> = Exclude<U, L[number]>;
const _statusesComplete: Missing<AgentStatus, typeof AGENT_STATUSES> extends never ? true : never = true;
const _providersComplete: Missing<Provider, typeof PROVIDERS> extends never ? true : never = true;
const _groupByComplete: Missing<UsageGroupBy, typeof GROUP_BY> extends never ? true : never = true;
const _rolesComplete: Missing<Role, typeof ROLES> extends never ? true : never = true;
void [_statusesComplete, _providersComplete, _groupByComplete, _rolesComplete];

function oneOf<T extends string>(what: string, allowed: readonly T[], raw: string): T {
  const v = raw.trim().toUpperCase();
  const hit = allowed.find((a) => a === v);
  if (!hit) {
    throw new InvalidArgumentError(
      `unknown ${what} ${JSON.stringify(raw)} (one of ${allowed.map((a) => a.toLowerCase()).join(", ")})`,
    );
  }
  return hit;
}

/** `anthropic` (any case) → `ANTHROPIC`. */
export function parseProvider(raw: string): Provider {
  return oneOf("provider", PROVIDERS, raw);
}

/** `operator` (any case) → `OPERATOR`. */
export function parseRole(raw: string): Role {
  return oneOf("role", ROLES, raw);
}

/** Repeatable, comma-separated workspace names: `--workspace a,b --workspace c`. */
export function collectWorkspaces(raw: string, prev: string[] = []): string[] {
  const names = splitList(raw);
  if (names.length === 0) throw new InvalidArgumentError("expected a workspace name");
  return [...new Set([...prev, ...names])];
}

/**
 * An expiry for `--expires`: a duration from now (`90m` = minutes, `12h`, `30d`, `2w`) or an ISO
 * 8601 date or date-time in the future, at most 10 years ahead. Returns RFC 3339 in UTC.
 */
export function parseExpiry(raw: string, now: () => number = Date.now): string {
  const rel = RELATIVE.exec(raw.trim());
  let t: number;
  if (rel) {
    const ms = Number(rel[1]) * (UNIT_MS[rel[2] ?? "d"] ?? 0);
    if (ms <= 0) throw new InvalidArgumentError("the expiry must be in the future");
    t = now() + ms;
  } else {
    t = Date.parse(raw);
    if (!realCalendarDate(raw) || Number.isNaN(t)) {
      throw new InvalidArgumentError(
        `expected a duration (90m minutes, 12h, 30d, 2w) or an ISO date/time (2027-01-01), got ${JSON.stringify(raw)}`,
      );
    }
    if (t <= now()) throw new InvalidArgumentError(`the expiry ${raw} is not in the future`);
  }
  if (t > now() + MAX_EXPIRY_MS) throw new InvalidArgumentError("the expiry may be at most 10 years ahead");
  return new Date(t).toISOString();
}

/** Comma-separated statuses, accumulated over repeated flags: `running,idle` → `["RUNNING","IDLE"]`. */
export function parseStatuses(raw: string, prev: AgentStatus[] = []): AgentStatus[] {
  return [...prev, ...splitList(raw).map((s) => oneOf("status", AGENT_STATUSES, s))];
}

/** Comma-separated grouping: `workspace,model,day` → `["WORKSPACE","MODEL","DAY"]` (no repeats). */
export function parseGroupBy(raw: string, prev: UsageGroupBy[] = []): UsageGroupBy[] {
  const all = [...prev, ...splitList(raw).map((s) => oneOf("grouping", GROUP_BY, s))];
  return [...new Set(all)];
}

/** Repeatable, comma-separated names (tools): `--tool Read,Edit --tool Bash`. */
export function collectNames(raw: string, prev: string[] = []): string[] {
  const names = splitList(raw);
  if (names.length === 0) throw new InvalidArgumentError("expected a name");
  return [...prev, ...names];
}

/** Repeatable `KEY=VALUE` pairs (the value may contain `=` and be empty). */
export function collectEnv(
  raw: string,
  prev: { name: string; value: string }[] = [],
): { name: string; value: string }[] {
  const i = raw.indexOf("=");
  if (i <= 0) throw new InvalidArgumentError(`expected KEY=VALUE, got ${JSON.stringify(raw)}`);
  const name = raw.slice(0, i);
  return [...prev.filter((e) => e.name !== name), { name, value: raw.slice(i + 1) }];
}

const RELATIVE = /^(\d+)(m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * An instant for `--since`/`--until`: an ISO 8601 date or date-time (`2026-11-01`,
 * `2026-11-01T12:00:00Z`), or a time ago (`30m`, `24h`, `7d`, `2w`). Returns RFC 3339 in UTC.
 */
export function parseInstant(raw: string, now: () => number = Date.now): string {
  const rel = RELATIVE.exec(raw.trim());
  if (rel) return new Date(now() - Number(rel[1]) * (UNIT_MS[rel[2] ?? "d"] ?? 0)).toISOString();
  const t = Date.parse(raw);
  if (!realCalendarDate(raw) || Number.isNaN(t)) {
    throw new InvalidArgumentError(
      `expected an ISO date/time (2026-11-01, 2026-11-01T12:00:00Z) or a time ago (30m, 24h, 7d, 2w), got ${JSON.stringify(raw)}`,
    );
  }
  return new Date(t).toISOString();
}

/** True when `raw` starts with a real calendar date `YYYY-MM-DD` (no 2030-02-30 rolling into March). */
function realCalendarDate(raw: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(raw.trim());
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Latest `--expires`: the gateway accepts at most 10 years ahead. */
const MAX_EXPIRY_MS = 10 * 365 * 86_400_000;

function splitList(raw: string): string[] {
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
