/**
 * GraphQL types of the health monitor (issue 15 item 2): `HealthCheckKind` (the catalogue's check
 * ids upper-cased, UNKNOWN for an id this gateway does not know), `HealthCheckResult`,
 * `HealthThreshold` and `Health`. The root fields are src/resolvers/health-monitor.ts; the data
 * comes from the monitor (src/attention/monitor.ts) and the catalogue (src/attention/thresholds.ts).
 *
 * Scope: a result about a workspace (or one of its agents) is visible to tokens allowed that
 * workspace; a fleet-wide result (data dir, database, queue, ingest) only to tokens not limited to
 * workspaces — the resolvers filter by {@link resultVisible}, and the type repeats the rule.
 */
import { allowsWorkspace, type Principal } from "../auth/roles.js";
import { HEALTH_CHECKS, healthCheck } from "../attention/thresholds.js";
import type { CheckResult } from "../attention/monitor.js";
import { builder } from "./builder.js";

/** Internal value of HealthCheckKind.UNKNOWN. */
const UNKNOWN_CHECK = "unknown";

/** GraphQL `HealthCheckKind`: internal values are the catalogue's ids (`daemon_unreachable`, …). */
export const HealthCheckKindEnum = builder.enumType("HealthCheckKind", {
  description:
    "A health check of the monitor (the ids of `--health-threshold`, upper-cased). UNKNOWN: a check this gateway does not know.",
  values: {
    ...Object.fromEntries(
      HEALTH_CHECKS.map((c) => [c.id.toUpperCase(), { value: c.id, description: c.description }]),
    ),
    UNKNOWN: { value: UNKNOWN_CHECK, description: "A check this gateway does not know." },
  } as Record<string, { value: string; description: string }>,
});

/** Map a stored check id onto {@link HealthCheckKindEnum}'s internal values (`unknown` for others). */
export function healthCheckValue(raw: string | null | undefined): string {
  return raw != null && healthCheck(raw) ? raw : UNKNOWN_CHECK;
}

/** Whether `auth` may see a result: its workspace's, or a fleet-wide one for an unlimited token. */
export function resultVisible(auth: Principal, r: { workspace: string | null }): boolean {
  return r.workspace === null ? auth.workspaces === null : allowsWorkspace(auth, r.workspace);
}

/** GraphQL `HealthCheckResult`: one check's result for one subject. */
export const HealthCheckResultRef = builder.objectRef<CheckResult>("HealthCheckResult").implement({
  description:
    "One health check's result for one subject (a workspace, an agent) or the whole fleet, from the monitor's last round.",
  authScopes: (r, ctx) =>
    r.workspace === null
      ? { allWorkspaces: true }
      : ctx.auth.workspaces === null || { workspace: r.workspace },
  fields: (t) => ({
    check: t.field({
      type: HealthCheckKindEnum,
      description: "Which check.",
      resolve: (r) => healthCheckValue(r.check),
    }),
    subject: t.exposeString("subject", {
      nullable: true,
      description: "What it is about: a workspace name, an agent id; null for a fleet-wide check.",
    }),
    workspace: t.prismaField({
      type: "Workspace",
      nullable: true,
      description: "The workspace concerned; null for a fleet-wide check.",
      resolve: (query, r, _a, ctx) =>
        r.workspace === null
          ? null
          : ctx.prisma.workspace.findUnique({ ...query, where: { name: r.workspace } }),
    }),
    ok: t.exposeBoolean("ok", {
      description: "The check passes (also when it could not be measured: value null).",
    }),
    value: t.float({
      nullable: true,
      description: "The measured figure in `unit`; null when it could not be measured (message says why).",
      resolve: (r) => r.value,
    }),
    threshold: t.float({
      description: "The threshold it was judged against, in `unit`.",
      resolve: (r) => r.threshold,
    }),
    unit: t.string({
      description: "Unit of value and threshold: `ms`, `bytes` or `events/h`.",
      resolve: (r) => healthCheck(r.check)?.unit ?? "",
    }),
    message: t.exposeString("message", {
      description: "One line: what was measured, against what, and what to do when it fails.",
    }),
    since: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it started failing; null when it passes.",
      resolve: (r) => r.since,
    }),
  }),
});

/** A threshold in force, as `HealthThreshold` resolves from. */
export interface ThresholdRow {
  check: string;
  value: number;
  isDefault: boolean;
}

/** GraphQL `HealthThreshold`: a check's threshold with its default and accepted range. */
export const HealthThresholdRef = builder.objectRef<ThresholdRow>("HealthThreshold").implement({
  description:
    "A health check's threshold in force (set with setHealthThreshold or `--health-threshold`), its default and accepted range. `max` checks fail above it, `min` checks (free disk space) below it.",
  fields: (t) => ({
    check: t.field({
      type: HealthCheckKindEnum,
      description: "Which check.",
      resolve: (r) => healthCheckValue(r.check),
    }),
    value: t.float({ description: "The threshold in force, in `unit`.", resolve: (r) => r.value }),
    defaultValue: t.float({
      description: "The check's default threshold.",
      resolve: (r) => healthCheck(r.check)?.defaultValue ?? r.value,
    }),
    min: t.float({
      description: "Smallest accepted threshold.",
      resolve: (r) => healthCheck(r.check)?.min ?? r.value,
    }),
    max: t.float({
      description: "Largest accepted threshold.",
      resolve: (r) => healthCheck(r.check)?.max ?? r.value,
    }),
    unit: t.string({
      description: "`ms`, `bytes` or `events/h`.",
      resolve: (r) => healthCheck(r.check)?.unit ?? "",
    }),
    isDefault: t.exposeBoolean("isDefault", { description: "No threshold is set: the default is in force." }),
    description: t.string({
      description: "What the check watches.",
      resolve: (r) => healthCheck(r.check)?.description ?? "",
    }),
  }),
});

/** What `Health` resolves from: the last round as the asking token may see it. */
export interface HealthView {
  checkedAt: Date | null;
  /** Visible results only. */
  results: CheckResult[];
}

/** GraphQL `Health`. */
export const HealthRef = builder.objectRef<HealthView>("Health").implement({
  description:
    "The health monitor's last round of checks (every `--health-interval-ms`) and the thresholds. A token limited to workspaces sees its workspaces' results only; fleet-wide results (data dir, database, queue, ingest, event growth) need a token not limited to workspaces.",
  fields: (t) => ({
    ok: t.boolean({
      description: "Every result shown passes.",
      resolve: (h) => h.results.every((r) => r.ok),
    }),
    checkedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the round ran; null before the first one.",
      resolve: (h) => h.checkedAt,
    }),
    results: t.field({
      type: [HealthCheckResultRef],
      description: "Every result, in catalogue order (per workspace or agent where the check has a subject).",
      resolve: (h) => h.results,
    }),
    failing: t.field({
      type: [HealthCheckResultRef],
      description: "The results that fail, in the same order.",
      resolve: (h) => h.results.filter((r) => !r.ok),
    }),
    thresholds: t.field({
      type: [HealthThresholdRef],
      description: "Every check's threshold in force, in catalogue order.",
      resolve: (_h, _a, ctx) => ctx.monitor.thresholds(),
    }),
  }),
});
