/**
 * Root fields of the health monitor (issue 15 item 2):
 * - `Query.health(refresh)`: the last round's results (a round runs first when `refresh` is true
 *   or none ran yet) and the thresholds. Viewer role; a token limited to workspaces sees its
 *   workspaces' results only, fleet-wide results need a token not limited to workspaces
 *   (src/schema/health-monitor.ts `resultVisible`).
 * - `Mutation.setHealthThreshold(input)`: set a check's threshold, or (value null) return it to its
 *   default. Admin role not limited to workspaces (a threshold governs every workspace); one
 *   `input:`, a `SetHealthThresholdResult` union, ValidationError for an unknown check or a value
 *   out of its range (nothing changes then); audited by the audit plugin.
 */
import { builder } from "../schema/builder.js";
import { domain, mutationErrors as errors } from "../schema/errors.js";
import {
  HealthCheckKindEnum,
  HealthRef,
  HealthThresholdRef,
  resultVisible,
  type ThresholdRow,
} from "../schema/health-monitor.js";
import { HEALTH_CHECKS } from "../attention/thresholds.js";

builder.queryFields((t) => ({
  health: t.field({
    type: HealthRef,
    nullable: true,
    description:
      "The health monitor: every check's result from its last round (failing ones also in `failing`), and the thresholds. `refresh: true` runs a round first (rounds never overlap; the disk walk of worktrees still runs at most every 5 intervals). Viewer role; a token limited to workspaces sees only its workspaces' results, fleet-wide ones need a token not limited to workspaces.",
    authScopes: { role: "viewer" },
    args: {
      refresh: t.arg.boolean({
        required: false,
        defaultValue: false,
        description: "Run a round of checks now instead of answering from the last one.",
      }),
    },
    resolve: async (_r, args, ctx) => {
      const last = ctx.monitor.report();
      const rep = args.refresh || last.checkedAt === null ? await ctx.monitor.runChecks() : last;
      return { checkedAt: rep.checkedAt, results: rep.results.filter((r) => resultVisible(ctx.auth, r)) };
    },
  }),
}));

const SetHealthThresholdInput = builder.inputType("SetHealthThresholdInput", {
  description: "A health check's threshold to set, or (value null or omitted) to return to its default.",
  fields: (t) => ({
    check: t.field({ type: HealthCheckKindEnum, required: true, description: "Which check." }),
    value: t.float({
      required: false,
      description: `The threshold in the check's unit (HealthThreshold.unit), within HealthThreshold.min–max; null = the default. Ranges: ${HEALTH_CHECKS.map((c) => `${c.id} ${c.min}–${c.max} ${c.unit}`).join(", ")}.`,
    }),
  }),
});

const SetHealthThresholdPayload = builder.objectRef<ThresholdRow>("SetHealthThresholdPayload").implement({
  description: "A health check's threshold after the change (in force from the monitor's next round).",
  fields: (t) => ({
    threshold: t.field({ type: HealthThresholdRef, description: "The threshold now.", resolve: (p) => p }),
  }),
});

builder.mutationFields((t) => ({
  setHealthThreshold: t.field({
    type: SetHealthThresholdPayload,
    description:
      "Set a health check's threshold (stored; in force from the next round), or with value null return it to its default. A `--health-threshold` flag replaces it at the next gateway start. Admin role, token not limited to workspaces (thresholds govern every workspace).",
    errors: errors("SetHealthThreshold", []),
    authScopes: { role: "admin", allWorkspaces: true },
    args: { input: t.arg({ type: SetHealthThresholdInput, required: true, description: "The threshold." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        await ctx.monitor.setThreshold(input.check, input.value ?? null, ctx.auth.name);
        return ctx.monitor.thresholds().find((x) => x.check === input.check)!;
      }),
  }),
}));
