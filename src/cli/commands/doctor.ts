/**
 * The health monitor on the command line (issue 15 item 2): `doctor` runs a round of the gateway's
 * health checks and prints their results — failing ones first, each with its measured value, its
 * threshold and the monitor's message — and every threshold; `health set <check> <value|default>`
 * sets one threshold (setHealthThreshold, admin).
 *
 * Exit codes of `doctor`: 0 when every check passes, 1 when any fails (documented in docs/cli.md:
 * a script can run `prospero doctor || page-someone`), and the usual ones otherwise (exit.ts: 5 the
 * gateway cannot be reached, 6 the token is refused).
 *
 * Its summary counts checks by the gateway's catalogue (the `thresholds` list, one per check), not
 * result rows: a check about workspaces or agents with nothing to check this round (agent_stuck
 * with no running agent) has no result and is listed as passing with why; a token limited to
 * workspaces does not see the fleet-wide checks, and the summary says so (`checks visible to this
 * token`, or `no checks visible to this token` when it sees no result at all).
 *
 * Threshold values are read in the check's unit (src/attention/thresholds.ts HEALTH_CHECKS):
 * durations for `ms` checks (`90s`, `2m`, `1h`, `1d`; queue.ts {@link parseDuration}), sizes for
 * `bytes` checks (`512MiB`, `2GiB`, from the {@link BYTE_UNITS} table), a whole number for
 * `events/h`; checked against the check's range here (exit 2) before the gateway checks it again.
 */
import { InvalidArgumentError, type Command } from "commander";
import {
  HealthDocument,
  SetHealthThresholdDocument,
  ViewerDocument,
  type HealthCheckKind,
  type HealthCheckResultFieldsFragment,
  type HealthThresholdFieldsFragment,
} from "../../sdk/index.js";
import { HEALTH_CHECKS, type HealthCheckSpec } from "../../attention/thresholds.js";
import { clientAction, clientOptions, type CliContext } from "../context.js";
import { CliError, EXIT, present, unwrapResult } from "../exit.js";
import { age, duration, int } from "../format.js";
import { table, type Colors } from "../output.js";
import { safeData } from "../sanitize.js";
import { parseDuration } from "./queue.js";

/**
 * Every HealthCheckKind but UNKNOWN (the schema's names of HEALTH_CHECKS' ids, upper case), kept
 * equal to the schema's enum by the `satisfies` check and the one below.
 */
export const HEALTH_CHECK_KINDS = [
  "DAEMON_UNREACHABLE",
  "AGENT_STUCK",
  "INGEST_LAG",
  "QUEUE_WAIT",
  "DATA_DISK_FREE",
  "WORKSPACE_DISK_FREE",
  "WORKTREES_DISK_USED",
  "DATABASE_SIZE",
  "EVENT_GROWTH",
] as const satisfies readonly Exclude<HealthCheckKind, "UNKNOWN">[];

// Compile-time completeness: HEALTH_CHECK_KINDS names every HealthCheckKind but UNKNOWN.
const _checksComplete: Exclude<HealthCheckKind, "UNKNOWN" | (typeof HEALTH_CHECK_KINDS)[number]> extends never
  ? true
  : never = true;
void _checksComplete;

/** Binary size units `health set` takes for a `bytes` check (case-insensitive; a bare number is bytes). */
export const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  pib: 1024 ** 5,
};

/** A size as `health set` takes it: a number (fractions only with a unit) and an optional unit. */
const SIZE = /^(\d+(?:\.\d+)?)\s?([a-z]+)?$/i;

/** `1536` → `1.5 KiB`, `1073741824` → `1 GiB`, `512` → `512 B` (binary units, one decimal at most). */
export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const shown = i === 0 ? String(Math.round(v)) : v.toFixed(1).replace(/\.0$/, "");
  return `${shown} ${units[i]}`;
}

/** Duration units from the largest, for {@link durationText}. */
const DURATION_UNITS: readonly (readonly [string, number])[] = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1000],
];

/**
 * A threshold in ms as `health set` takes it back: in the largest of d, h, m, s that divides it
 * (`7d`, `10m`, `90s`), else in ms (`1500ms`).
 */
export function durationText(ms: number): string {
  for (const [unit, size] of DURATION_UNITS) if (ms !== 0 && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** A threshold in its unit: `1m`, `7d`, `1 GiB`, `1,000,000/h`; another unit as `n unit`. */
export function thresholdText(value: number, unit: string): string {
  switch (unit) {
    case "ms":
      return durationText(value);
    case "bytes":
      return bytes(value);
    case "events/h":
      return `${int(value)}/h`;
    default:
      return `${int(value)} ${unit}`;
  }
}

/** A measured value in its unit: `3m 05s`, `76.3 GiB`, `1,250/h` (durations as format.ts `duration`). */
export function measuredText(value: number, unit: string): string {
  return unit === "ms" ? duration(value) : thresholdText(value, unit);
}

/**
 * The health check named `raw`: its id (`data_disk_free`), in any case, `-` for `_`.
 * @throws InvalidArgumentError for an unknown check, naming every check.
 */
export function parseCheck(raw: string): HealthCheckSpec {
  const id = raw.trim().toLowerCase().replace(/-/g, "_");
  const spec = HEALTH_CHECKS.find((c) => c.id === id);
  if (!spec) {
    throw new InvalidArgumentError(
      `unknown health check ${JSON.stringify(raw)} (one of ${HEALTH_CHECKS.map((c) => c.id).join(", ")})`,
    );
  }
  return spec;
}

/** What `health set` writes: a number in the check's unit, or null for the default. */
function valueForms(spec: HealthCheckSpec): string {
  switch (spec.unit) {
    case "ms":
      return "a duration (90s, 2m, 1h, 1d; a bare number is ms)";
    case "bytes":
      return "a size (512MiB, 2GiB, 1TiB; B, KiB, MiB, GiB, TiB, PiB; a bare number is bytes)";
    default:
      return `a whole number (${spec.unit})`;
  }
}

/**
 * A threshold for `spec` as `health set` takes it: `default` (null: back to the default), or a
 * value in the check's unit — a duration for `ms`, a size for `bytes` ({@link BYTE_UNITS}, rounded
 * to whole bytes), a whole number otherwise — within the check's min … max.
 * @throws CliError (usage) for another form or a value outside the range, naming the forms and range.
 */
export function parseThreshold(spec: HealthCheckSpec, raw: string): number | null {
  const v = raw.trim();
  if (v.toLowerCase() === "default") return null;
  const bad = () =>
    new CliError(
      EXIT.usage,
      `the threshold of ${spec.id} must be ${valueForms(spec)} or default, got ${JSON.stringify(raw)}`,
    );
  let n: number;
  if (spec.unit === "ms") {
    try {
      n = parseDuration(`the threshold of ${spec.id}`, v);
    } catch {
      throw bad();
    }
  } else if (spec.unit === "bytes") {
    const m = SIZE.exec(v);
    const unit = m?.[2]?.toLowerCase();
    const factor = unit === undefined ? 1 : BYTE_UNITS[unit];
    if (!m || factor === undefined || (unit === undefined && m[1]!.includes("."))) throw bad();
    n = Math.round(Number(m[1]) * factor);
  } else {
    if (!/^\d+$/.test(v)) throw bad();
    n = Number(v);
  }
  if (!Number.isSafeInteger(n) || n < spec.min || n > spec.max) {
    throw new CliError(
      EXIT.usage,
      `the threshold of ${spec.id} must be from ${thresholdText(spec.min, spec.unit)} to ${thresholdText(spec.max, spec.unit)}, got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** The schema's HealthCheckKind of a check id, or UNKNOWN. */
function kindOf(id: string): HealthCheckKind {
  const v = id.toUpperCase();
  return HEALTH_CHECK_KINDS.find((k) => k === v) ?? "UNKNOWN";
}

/** A check's id as people write it (`data_disk_free`). */
function checkName(k: HealthCheckKind): string {
  return k.toLowerCase();
}

/** Which way a check fails, from the catalogue (`fails above it` / `fails below it`), or "". */
function failsWhen(k: HealthCheckKind): string {
  const spec = HEALTH_CHECKS.find((c) => c.id === checkName(k));
  return spec ? (spec.direction === "max" ? "fails above it" : "fails below it") : "";
}

/**
 * The checks with a result per workspace or per agent, and why one has no result: nothing to check
 * (for a token not limited to workspaces, and for one limited to some). The other checks are
 * fleet-wide: one result each round, visible only to a token not limited to workspaces
 * (src/schema/health-monitor.ts `resultVisible`; src/attention/monitor.ts makes the results).
 */
const PER_WORKSPACE: Partial<Record<HealthCheckKind, { all: string; limited: string }>> = {
  DAEMON_UNREACHABLE: { all: "no workspace is registered", limited: "none of its workspaces is registered" },
  AGENT_STUCK: { all: "no running agents", limited: "no running agents in its workspaces" },
  WORKSPACE_DISK_FREE: {
    all: "no workspace is registered",
    limited: "none of its workspaces is registered",
  },
  WORKTREES_DISK_USED: {
    all: "no workspace is registered",
    limited: "none of its workspaces is registered",
  },
};

/** One check as `doctor` counts it: its visible results, and why it has none (null when it has some). */
export interface CheckSummary {
  check: HealthCheckKind;
  results: HealthCheckResultFieldsFragment[];
  failing: number;
  /** `no running agents`: why a visible check has no result (it then passes). */
  none: string | null;
}

/** The checks `doctor` counts, and the ones this token cannot see. */
export interface HealthSummary {
  /** The checks visible to the token, in catalogue order. */
  checks: CheckSummary[];
  /** Fleet-wide checks hidden from a token limited to workspaces. */
  hidden: HealthCheckKind[];
}

/**
 * Group the visible results by check, over the gateway's catalogue (its thresholds, one per check,
 * in catalogue order; a result of a check not among them is added after). `limitedTo` is the
 * token's workspaces, null when not limited: then every check is visible, one without a result has
 * nothing to check; a limited token sees the checks with a result and the per-workspace checks
 * ({@link PER_WORKSPACE}), the fleet-wide ones are `hidden`.
 */
export function summarizeHealth(
  results: readonly HealthCheckResultFieldsFragment[],
  thresholds: readonly { check: HealthCheckKind }[],
  limitedTo: readonly string[] | null,
): HealthSummary {
  const kinds: HealthCheckKind[] = [];
  for (const k of [...thresholds.map((t) => t.check), ...results.map((r) => r.check)]) {
    if (!kinds.includes(k)) kinds.push(k);
  }
  const checks: CheckSummary[] = [];
  const hidden: HealthCheckKind[] = [];
  for (const check of kinds) {
    const rows = results.filter((r) => r.check === check);
    const failing = rows.filter((r) => !r.ok).length;
    const why = PER_WORKSPACE[check];
    if (rows.length > 0) checks.push({ check, results: rows, failing, none: null });
    else if (limitedTo === null) {
      checks.push({ check, results: [], failing: 0, none: why?.all ?? "no result in the last round" });
    } else if (why) checks.push({ check, results: [], failing: 0, none: why.limited });
    else hidden.push(check);
  }
  return { checks, hidden };
}

/** `1 result`, `12 results`. */
function resultsText(n: number): string {
  return n === 1 ? "1 result" : `${n} results`;
}

/** `workspace demo`, `workspaces api, web`. */
function workspacesText(names: readonly string[]): string {
  return `${names.length === 1 ? "workspace" : "workspaces"} ${names.join(", ")}`;
}

/**
 * The summary line of `doctor`: `healthy: all 9 checks pass (12 results)`, `1 of 9 checks failing
 * (1 of 12 results)`, `… checks visible to this token …` for a limited token, or `no checks visible
 * to this token` when it sees no result.
 */
export function summaryLine(c: Colors, s: HealthSummary, limitedTo: readonly string[] | null): string {
  const results = s.checks.reduce((n, k) => n + k.results.length, 0);
  const failingResults = s.checks.reduce((n, k) => n + k.failing, 0);
  if (results === 0 && limitedTo !== null) {
    return `${c.yellow("no checks visible to this token")}: it is limited to ${workspacesText(limitedTo)}, ${limitedTo.length === 1 ? "which is not registered" : "none of which is registered"}`;
  }
  const checks = s.checks.length;
  const failing = s.checks.filter((k) => k.failing > 0).length;
  const noun = `${checks === 1 ? "check" : "checks"}${limitedTo !== null ? " visible to this token" : ""}`;
  if (failing === 0) {
    return `${c.green("healthy")}: ${checks === 1 ? `the 1 ${noun} passes` : `all ${checks} ${noun} pass`} (${resultsText(results)})`;
  }
  return `${c.red(`${failing} of ${checks} ${noun} failing`)} (${failingResults} of ${resultsText(results)})`;
}

function resultRows(
  c: Colors,
  results: readonly HealthCheckResultFieldsFragment[],
  empty: readonly { check: HealthCheckKind; none: string; threshold: string }[],
): string {
  const now = Date.now();
  return table(
    ["", "CHECK", "SUBJECT", "VALUE", "THRESHOLD", "SINCE", "MESSAGE"].map((h) => c.dim(h)),
    [
      ...results.map((r) => [
        r.ok ? c.green("ok") : c.red("FAIL"),
        checkName(r.check),
        r.subject ?? c.dim("fleet-wide"),
        r.value !== null ? measuredText(r.value, r.unit) : c.dim("—"),
        thresholdText(r.threshold, r.unit),
        r.since !== null ? `${age(r.since, now)} ago` : c.dim("—"),
        r.message,
      ]),
      ...empty.map((e) => [
        c.green("ok"),
        checkName(e.check),
        c.dim("none"),
        c.dim("—"),
        e.threshold,
        c.dim("—"),
        `${e.none}: nothing to check`,
      ]),
    ],
  );
}

function thresholdRows(c: Colors, thresholds: readonly HealthThresholdFieldsFragment[]): string {
  return table(
    ["CHECK", "THRESHOLD", "DEFAULT", "RANGE", "WHAT IT WATCHES"].map((h) => c.dim(h)),
    thresholds.map((t) => [
      checkName(t.check),
      t.isDefault ? thresholdText(t.value, t.unit) : c.yellow(thresholdText(t.value, t.unit)),
      t.isDefault ? c.dim("(default)") : thresholdText(t.defaultValue, t.unit),
      `${thresholdText(t.min, t.unit)} … ${thresholdText(t.max, t.unit)}`,
      t.description,
    ]),
  );
}

/**
 * Print the health report: the summary by check (see {@link summaryLine}), failing results first,
 * then ok ones, then the checks with nothing to check, a note on checks hidden from a limited token
 * (`limitedTo`: its workspaces, null when not limited), then the thresholds.
 */
function printHealth(
  ctx: CliContext,
  h: {
    ok: boolean;
    checkedAt: string | null;
    results: readonly HealthCheckResultFieldsFragment[];
    thresholds: readonly HealthThresholdFieldsFragment[];
  },
  limitedTo: readonly string[] | null,
): void {
  const { c } = ctx.out;
  const summary = summarizeHealth(h.results, h.thresholds, limitedTo);
  const failing = h.results.filter((r) => !r.ok);
  const passing = h.results.filter((r) => r.ok);
  const when = h.checkedAt !== null ? ` · checked ${h.checkedAt} (${age(h.checkedAt)} ago)` : "";
  ctx.out.line(`${summaryLine(c, summary, limitedTo)}${c.dim(when)}`);
  if (h.results.length > 0) {
    const empty = summary.checks.flatMap((k) => {
      if (k.none === null) return [];
      const t = h.thresholds.find((x) => x.check === k.check);
      return [{ check: k.check, none: k.none, threshold: t ? thresholdText(t.value, t.unit) : c.dim("—") }];
    });
    ctx.out.line();
    ctx.out.line(resultRows(c, [...failing, ...passing], empty));
  }
  if (summary.hidden.length > 0) {
    ctx.out.line(
      c.dim(
        `not shown: the fleet-wide checks (${summary.hidden.map(checkName).join(", ")}) need a token not limited to workspaces; this one is limited to ${workspacesText(limitedTo ?? [])}`,
      ),
    );
  }
  ctx.out.line();
  ctx.out.line(c.bold("thresholds"));
  ctx.out.line(thresholdRows(c, h.thresholds));
  ctx.out.line(c.dim("change one: prospero health set <check> <value|default>"));
}

/** Register `doctor` and `health set` on `program`. */
export function registerDoctorCommands(program: Command): void {
  clientOptions(
    program
      .command("doctor")
      .description(
        "run the gateway's health checks now and print the results (failing first) and thresholds; exit 1 when any check fails",
      ),
    "print the health query's data as JSON on stdout (the exit code still says whether a check fails)",
  ).action(
    clientAction(async (ctx) => {
      // Who asks (human output only): a token limited to workspaces sees fewer checks, and the
      // summary says so.
      const [data, viewer] = await ctx.out.spin("running the health checks…", () =>
        Promise.all([
          ctx.client.request(HealthDocument, { refresh: true }),
          ctx.json ? Promise.resolve(null) : ctx.client.request(ViewerDocument),
        ]),
      );
      const health = present(data.health, "health");
      const failing = health.results.some((r) => !r.ok);
      if (ctx.json) ctx.out.json(data);
      else printHealth(ctx, safeData(health), viewer === null ? null : safeData(viewer.viewer.workspaces));
      return failing ? EXIT.failure : EXIT.ok;
    }),
  );

  const health = program
    .command("health")
    .description("the health monitor's thresholds (`prospero doctor` shows the checks' results)");
  clientOptions(
    health
      .command("set")
      .description(
        "set a health check's threshold (admin), in the check's unit (2m, 1h, 512MiB, 2GiB, …), or default",
      )
      .argument("<check>", `the check: ${HEALTH_CHECKS.map((c) => c.id).join(", ")}`, parseCheck)
      .argument("<value>", "the threshold in the check's unit, or default"),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(async (ctx, spec: HealthCheckSpec, raw: string) => {
      const value = parseThreshold(spec, raw);
      const data = await ctx.client.request(SetHealthThresholdDocument, { check: kindOf(spec.id), value });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`health set ${spec.id}`, data.setHealthThreshold));
      if (ctx.json) return;
      const t = r.threshold;
      const { c } = ctx.out;
      const fails = failsWhen(t.check);
      ctx.out.line(
        t.isDefault
          ? `threshold ${c.bold(checkName(t.check))} is its default, ${thresholdText(t.value, t.unit)}${fails ? ` (${fails})` : ""}`
          : `threshold ${c.bold(checkName(t.check))} set to ${thresholdText(t.value, t.unit)} (default ${thresholdText(t.defaultValue, t.unit)}${fails ? `; ${fails}` : ""})`,
      );
      ctx.out.line(c.dim("see the checks: prospero doctor"));
    }),
  );
}
