/**
 * Root mutation fields of the launch queue (issue 14), in the shape of src/resolvers/mutation.ts:
 * each takes one `input:` object (zod-validated, validation plugin), returns a `<Name>Result`
 * union of its `<Name>Payload` and exactly the typed errors it can produce (`mutationErrors`;
 * UnauthenticatedError, ForbiddenError and ValidationError on every one), declares who may call it
 * (`authScopes`), is audited by the audit plugin, delegates to the queue (`ctx.queue`,
 * src/queue/queue.ts) or the schedules (`ctx.schedules`, src/queue/schedules.ts), and changes
 * nothing when it fails.
 *
 * Who may call what (design-14 "Session 22"):
 * - enqueueLaunch, cancelLaunch, createSchedule and the schedule actions: operator role within the
 *   workspace. A launch or schedule of a workspace outside the token's scope is answered
 *   NotFoundError (as agents are: the `launch` / `schedule` scopes of src/schema/auth-scopes.ts),
 *   and audited as denied.
 * - setCap, setBudget: admin role; a WORKSPACE cap or budget within that workspace, every other
 *   scope (GLOBAL, PROVIDER, MODEL) an admin not limited to workspaces (it governs every workspace).
 * - setWorkspaceLaunchTimeout: admin role within the workspace.
 */
import { z } from "zod";
import { builder } from "../schema/builder.js";
import {
  BudgetPeriodEnum,
  BudgetScopeEnum,
  CapScopeEnum,
  ProviderEnum,
  ScheduleMissedEnum,
  ScheduleOverlapEnum,
} from "../schema/enums.js";
import { BudgetRef, CapRef, QUEUE_ID, budgetVisible, capVisible } from "../schema/launch.js";
import { DAEMON_ERRORS, domain, mutationErrors as errors } from "../schema/errors.js";
import { Conflict, InvalidState, NotFound } from "../errors.js";
import { SPAWN_VALIDATORS } from "./mutation.js";
import {
  NO_RETRY,
  NOT_BEFORE_PAST_TOLERANCE_MS,
  PRIORITY_DEFAULT,
  PRIORITY_MAX,
  PRIORITY_MIN,
  RETRY_MAX_ATTEMPTS,
  TIMEOUT_MAX_MS,
  TIMEOUT_MIN_MS,
  type BudgetPeriod,
  type BudgetScope,
  type CapScope,
  type RetryPolicy,
} from "../queue/types.js";
import { BUDGET_MAX_USD, CAP_MAX, DEDUP_KEY_MAX, type BudgetUsage, type CapUsage } from "../queue/queue.js";
import { SCHEDULE_NAME_MAX, type ScheduleTemplate } from "../queue/schedules.js";
import { CRON_MAX_LENGTH } from "../queue/cron.js";
import type { SpawnOptions } from "../fleet/lifecycle.js";
import type { Provider } from "../fleet/provider.js";

// Limits ------------------------------------------------------------------------------------------

/** Shortest first retry delay, ms (the queue's rule, src/queue/queue.ts `validateLaunchRequest`). */
const BACKOFF_MIN_MS = 100;
/** Longest first retry delay, ms (1 h). */
const BACKOFF_MAX_MS = 3_600_000;
/** Longest delay between two attempts, ms (24 h). */
const MAX_BACKOFF_MAX_MS = 24 * 3_600_000;

const LAUNCH_ID = z.string().regex(QUEUE_ID, "a launch id is 12 lowercase hex characters");
const SCHEDULE_ID = z.string().regex(QUEUE_ID, "a schedule id is 12 lowercase hex characters");
const WORKSPACE = SPAWN_VALIDATORS.workspace;
const PRIORITY = z
  .number()
  .int()
  .min(PRIORITY_MIN, `must be ${PRIORITY_MIN}–${PRIORITY_MAX}`)
  .max(PRIORITY_MAX, `must be ${PRIORITY_MIN}–${PRIORITY_MAX}`);
const TIMEOUT = z
  .number()
  .int()
  .min(TIMEOUT_MIN_MS, `must be at least ${TIMEOUT_MIN_MS} ms (0 would end every run at once)`)
  .max(TIMEOUT_MAX_MS, `must be at most ${TIMEOUT_MAX_MS} ms (7 days)`);
const DESCRIBE_TIMEOUT = `Run timeout, ms (${TIMEOUT_MIN_MS}–${TIMEOUT_MAX_MS}, i.e. up to 7 days): a run still going after this long is killed and the launch ends TIMED_OUT.`;

/** The whole input of a mutation whose `field` may be null but must be given (null has a meaning). */
const mustGive = (field: string, meaning: string) =>
  z
    .looseObject({})
    .refine((o) => o[field] !== undefined, { path: [field], message: `give ${field} (${meaning})` });

// Inputs ------------------------------------------------------------------------------------------

const RetryPolicyInput = builder.inputType("RetryPolicyInput", {
  description:
    "How a launch retries transient provider failures (rate limits, overload, connection resets, timeouts — issue 14 item 7); permanent failures are never retried. Each retry waits backoffMs, doubled per further retry with jitter, at most maxBackoffMs.",
  fields: (t) => ({
    maxAttempts: t.int({
      required: false,
      description: `Attempts in all, the first one included (1 = never retry); 1–${RETRY_MAX_ATTEMPTS}. Required: a retry policy without a limit is a ValidationError.`,
      validate: z
        .number()
        .int()
        .min(1, `must be 1–${RETRY_MAX_ATTEMPTS}`)
        .max(RETRY_MAX_ATTEMPTS, `must be 1–${RETRY_MAX_ATTEMPTS}`),
    }),
    backoffMs: t.int({
      required: false,
      description: `Nominal delay before the first retry, ms (${BACKOFF_MIN_MS}–${BACKOFF_MAX_MS}); doubled per further retry up to maxBackoffMs, and the real delay is 50–100 % of it (equal jitter). Default ${NO_RETRY.backoffMs}.`,
      validate: z.number().int().min(BACKOFF_MIN_MS).max(BACKOFF_MAX_MS),
    }),
    maxBackoffMs: t.int({
      required: false,
      description: `Longest delay between two attempts, ms (at least backoffMs, at most ${MAX_BACKOFF_MAX_MS}: 24 h). Default ${NO_RETRY.maxBackoffMs}, or backoffMs when that is larger.`,
      validate: z.number().int().min(BACKOFF_MIN_MS).max(MAX_BACKOFF_MAX_MS),
    }),
  }),
  validate: z
    .looseObject({
      maxAttempts: z.number().nullish(),
      backoffMs: z.number().nullish(),
      maxBackoffMs: z.number().nullish(),
    })
    .refine((r) => r.maxAttempts != null, {
      path: ["maxAttempts"],
      message: `required: a retry policy needs a limit (1–${RETRY_MAX_ATTEMPTS} attempts)`,
    })
    .refine((r) => r.maxBackoffMs == null || r.maxBackoffMs >= (r.backoffMs ?? NO_RETRY.backoffMs), {
      path: ["maxBackoffMs"],
      message: "must be at least backoffMs",
    }),
});

type RetryArg = { maxAttempts?: number | null; backoffMs?: number | null; maxBackoffMs?: number | null };

/** The retry policy asked for, defaults filled in ({@link NO_RETRY}: one attempt, when none). */
function toRetry(r: RetryArg | null | undefined): RetryPolicy {
  if (!r) return { ...NO_RETRY };
  const backoffMs = r.backoffMs ?? NO_RETRY.backoffMs;
  return {
    // Validation refused a policy without maxAttempts; the default only satisfies the type.
    maxAttempts: r.maxAttempts ?? NO_RETRY.maxAttempts,
    backoffMs,
    maxBackoffMs: r.maxBackoffMs ?? Math.max(NO_RETRY.maxBackoffMs, backoffMs),
  };
}

/** The fields a launch's spawn and its queue options share between EnqueueLaunchInput and LaunchTemplateInput. */
type InputFields = Parameters<NonNullable<Parameters<typeof builder.inputType>[1]["fields"]>>[0];

/** Spawn fields (SpawnAgentInput's, same validators) without workspace and clientRequestId. */
const spawnFields = (t: InputFields) => ({
  prompt: t.string({ required: true, description: "Initial prompt.", validate: SPAWN_VALIDATORS.prompt }),
  label: t.string({
    required: false,
    description: "Label (becomes the agent's name).",
    validate: SPAWN_VALIDATORS.label,
  }),
  model: t.string({
    required: false,
    description: "Model; default the workspace's (when the run starts).",
    validate: SPAWN_VALIDATORS.model,
  }),
  provider: t.field({
    type: ProviderEnum,
    required: false,
    description: "Provider; default the workspace's (when the run starts).",
  }),
  source: t.string({
    required: false,
    description: "Source checkout name (see Workspace.sources); default the workspace root.",
    validate: SPAWN_VALIDATORS.source,
  }),
  isolated: t.boolean({ required: false, description: "Run in its own git worktree. Default true." }),
  interactive: t.boolean({
    required: false,
    description: "Wait for operator input at each end of turn. Default false.",
  }),
  toolAllowlist: t.stringList({
    required: false,
    description: "Tools the agent may use; default caliban's set.",
  }),
});

/** Queue fields shared by EnqueueLaunchInput and LaunchTemplateInput. */
const queueFields = (t: InputFields) => ({
  priority: t.int({
    required: false,
    description: `${PRIORITY_MIN} (lowest) – ${PRIORITY_MAX} (highest); higher dispatches first, equal priorities oldest first. Default ${PRIORITY_DEFAULT}.`,
    validate: PRIORITY,
  }),
  timeoutMs: t.int({
    required: false,
    description: `${DESCRIBE_TIMEOUT} Default the workspace's launch timeout (Workspace.launchTimeoutMs), else none.`,
    validate: TIMEOUT,
  }),
  retry: t.field({
    type: RetryPolicyInput,
    required: false,
    description: "Retries of transient failures; default one attempt (no retry).",
  }),
});

const EnqueueLaunchInput = builder.inputType("EnqueueLaunchInput", {
  description:
    "A launch to queue: everything spawnAgent takes (but clientRequestId: dedupKey plays its part), plus when, how urgently, how long and how often to try.",
  fields: (t) => ({
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
    ...spawnFields(t),
    frontmatterPath: t.string({
      required: false,
      description: "Agent template path (stored only by caliband today).",
    }),
    dedupKey: t.string({
      required: false,
      description: `Unique among launches not yet final (1–${DEDUP_KEY_MAX} characters): enqueueing it again returns the existing launch with created: false, or a ConflictError when the spec differs. Free again once that launch is final.`,
      validate: z.string().min(1).max(DEDUP_KEY_MAX),
    }),
    notBefore: t.field({
      type: "DateTime",
      required: false,
      description: `Not dispatched before this time. A time up to ${NOT_BEFORE_PAST_TOLERANCE_MS / 1000} s in the past means now; further in the past is refused as a mistake.`,
      validate: z
        .date()
        .refine(
          (d) => d.getTime() >= Date.now() - NOT_BEFORE_PAST_TOLERANCE_MS,
          `is more than ${NOT_BEFORE_PAST_TOLERANCE_MS / 1000} s in the past`,
        ),
    }),
    ...queueFields(t),
  }),
});

/** A mutation's input naming just one launch. */
const launchInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      launchId: t.string({
        required: true,
        description: "The launch's 12-hex id (Launch.launchId).",
        validate: LAUNCH_ID,
      }),
    }),
  });

const CancelLaunchInput = launchInput("CancelLaunchInput", "The launch to cancel.");

/** What the key of a PROVIDER cap or budget names. */
const PROVIDER_KEY =
  "provider name in lower case as caliband spells it, e.g. `anthropic`, or `default` for runs whose spec and workspace name none (PROVIDER)";

const SetCapInput = builder.inputType("SetCapInput", {
  description: "A concurrency cap to set or remove: at most `max` live runs in the scope.",
  fields: (t) => ({
    scope: t.field({ type: CapScopeEnum, required: true, description: "What the cap counts." }),
    key: t.string({
      required: false,
      description: `The workspace name (WORKSPACE), ${PROVIDER_KEY}, or model name (MODEL); omit for GLOBAL (required for the others).`,
      validate: z.string().min(1).max(200),
    }),
    max: t.int({
      required: false,
      description: `Most live runs, 0–${CAP_MAX} (0 pauses dispatch in the scope). Must be given: null removes the cap (the GLOBAL cap cannot be removed).`,
      validate: z.number().int().min(0, `must be 0–${CAP_MAX}`).max(CAP_MAX, `must be 0–${CAP_MAX}`),
    }),
  }),
  validate: mustGive("max", "null removes the cap"),
});

const SetBudgetInput = builder.inputType("SetBudgetInput", {
  description:
    "A spend limit to set or remove: new dispatch in the scope waits while the period's estimated spend is at the limit; running work finishes.",
  fields: (t) => ({
    scope: t.field({ type: BudgetScopeEnum, required: true, description: "What the budget counts." }),
    key: t.string({
      required: true,
      description: `The workspace name (WORKSPACE) or ${PROVIDER_KEY}.`,
      validate: z.string().min(1).max(200),
    }),
    period: t.field({ type: BudgetPeriodEnum, required: true, description: "The UTC day or month." }),
    limitUsd: t.float({
      required: false,
      description: `Limit, USD (more than 0, at most ${BUDGET_MAX_USD}). Must be given: null removes the budget.`,
      validate: z
        .number()
        .gt(0, "must be more than 0")
        .max(BUDGET_MAX_USD, `must be at most ${BUDGET_MAX_USD}`),
    }),
  }),
  validate: mustGive("limitUsd", "null removes the budget"),
});

const SetWorkspaceLaunchTimeoutInput = builder.inputType("SetWorkspaceLaunchTimeoutInput", {
  description: "A workspace's default run timeout for launches that name none.",
  fields: (t) => ({
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
    timeoutMs: t.int({
      required: false,
      description: `${DESCRIBE_TIMEOUT} Must be given: null clears the default (no timeout). Applies to launches enqueued from now on.`,
      validate: TIMEOUT,
    }),
  }),
  validate: mustGive("timeoutMs", "null clears the default"),
});

const LaunchTemplateInput = builder.inputType("LaunchTemplateInput", {
  description: "What each firing of a schedule enqueues (the workspace is the schedule's).",
  fields: (t) => ({ ...spawnFields(t), ...queueFields(t) }),
});

const CreateScheduleInput = builder.inputType("CreateScheduleInput", {
  description: "A cron schedule of launches.",
  fields: (t) => ({
    name: t.string({
      required: true,
      description: `Name for people (1–${SCHEDULE_NAME_MAX} characters).`,
      validate: z.string().trim().min(1, "must not be empty").max(SCHEDULE_NAME_MAX),
    }),
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
    cron: t.string({
      required: true,
      description:
        "Cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first; croner syntax (e.g. `*/15 * * * *`, or `@daily`). Fire times must be at least a minute apart.",
      validate: z.string().trim().min(1, "must not be empty").max(CRON_MAX_LENGTH),
    }),
    timeZone: t.string({
      required: false,
      description: "IANA time zone the expression is read in, e.g. `Europe/Paris`. Default UTC.",
      validate: z.string().min(1).max(100),
    }),
    overlap: t.field({
      type: ScheduleOverlapEnum,
      required: false,
      description: "What a firing does while the schedule's previous launch is still active. Default SKIP.",
    }),
    missed: t.field({
      type: ScheduleMissedEnum,
      required: false,
      description: "What to do at start about firings missed while the gateway was down. Default SKIP.",
    }),
    paused: t.boolean({ required: false, description: "Create it paused (no firings). Default false." }),
    template: t.field({
      type: LaunchTemplateInput,
      required: true,
      description: "What each firing enqueues.",
    }),
  }),
});

/** A mutation's input naming just one schedule. */
const scheduleInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      scheduleId: t.string({
        required: true,
        description: "The schedule's 12-hex id (Schedule.scheduleId).",
        validate: SCHEDULE_ID,
      }),
    }),
  });

const PauseScheduleInput = scheduleInput("PauseScheduleInput", "The schedule to pause.");
const ResumeScheduleInput = scheduleInput("ResumeScheduleInput", "The schedule to resume.");
const DeleteScheduleInput = scheduleInput("DeleteScheduleInput", "The schedule to delete.");
const RunScheduleInput = scheduleInput("RunScheduleInput", "The schedule to fire now.");

// Payloads ----------------------------------------------------------------------------------------

/** The field builder `implement({ fields })` passes for payload objects of type T. */
type FieldsOf<T> = Parameters<
  NonNullable<Parameters<ReturnType<typeof builder.objectRef<T>>["implement"]>[0]["fields"]>
>[0];

interface LaunchPayload {
  launchId: string;
  created?: boolean;
  /** The launch's workspace (for the audit row, src/schema/audit-plugin.ts `auditTargets`). */
  workspace?: string;
}

const LaunchField = (t: FieldsOf<LaunchPayload>, description: string) =>
  t.prismaField({
    type: "Launch",
    description,
    resolve: (query, p, _a, ctx) =>
      ctx.prisma.launch.findUniqueOrThrow({ ...query, where: { id: p.launchId } }),
  });

const EnqueueLaunchPayload = builder.objectRef<LaunchPayload>("EnqueueLaunchPayload").implement({
  description: "A queued launch (or the unfinished one its dedupKey already names).",
  fields: (t) => ({
    launch: LaunchField(t, "The launch."),
    created: t.boolean({
      description:
        "False when dedupKey named a launch not yet final with the same spec (that one is returned).",
      resolve: (p) => p.created ?? true,
    }),
  }),
});

const CancelLaunchPayload = builder.objectRef<LaunchPayload>("CancelLaunchPayload").implement({
  description: "A cancelled launch.",
  fields: (t) => ({
    launch: LaunchField(
      t,
      "The launch after the cancel: CANCELLED (or the outcome of a run that ended first).",
    ),
  }),
});

interface CapPayload {
  cap: CapUsage | null;
  caps: CapUsage[];
}

const SetCapPayload = builder.objectRef<CapPayload>("SetCapPayload").implement({
  description: "Caps after a change.",
  fields: (t) => ({
    cap: t.field({
      type: CapRef,
      nullable: true,
      description: "The cap as set; null when it was removed.",
      resolve: (p) => p.cap,
    }),
    caps: t.field({
      type: [CapRef],
      description:
        "Every cap now in force, GLOBAL first (for a token limited to workspaces: the WORKSPACE caps of its workspaces and every other cap, as Queue.caps).",
      resolve: (p) => p.caps,
    }),
  }),
});

interface BudgetPayload {
  budget: BudgetUsage | null;
  budgets: BudgetUsage[];
}

const SetBudgetPayload = builder.objectRef<BudgetPayload>("SetBudgetPayload").implement({
  description: "Budgets after a change.",
  fields: (t) => ({
    budget: t.field({
      type: BudgetRef,
      nullable: true,
      description: "The budget as set, with the period's spend so far; null when it was removed.",
      resolve: (p) => p.budget,
    }),
    budgets: t.field({
      type: [BudgetRef],
      description:
        "Every budget now in force, with its spend (for a token limited to workspaces: its workspaces' and the PROVIDER budgets, as Queue.budgets).",
      resolve: (p) => p.budgets,
    }),
  }),
});

const SetWorkspaceLaunchTimeoutPayload = builder
  .objectRef<{ name: string }>("SetWorkspaceLaunchTimeoutPayload")
  .implement({
    description: "A workspace with its new default launch timeout.",
    fields: (t) => ({
      workspace: t.prismaField({
        type: "Workspace",
        description: "The workspace (its launchTimeoutMs is the new default).",
        resolve: (query, p, _a, ctx) =>
          ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: p.name } }),
      }),
    }),
  });

interface SchedulePayload {
  scheduleId: string;
  launchId?: string;
  /** The schedule's workspace (for the audit row, src/schema/audit-plugin.ts `auditTargets`). */
  workspace?: string;
}

const ScheduleField = (t: FieldsOf<SchedulePayload>, description: string) =>
  t.prismaField({
    type: "Schedule",
    description,
    resolve: (query, p, _a, ctx) =>
      ctx.prisma.schedule.findUniqueOrThrow({ ...query, where: { id: p.scheduleId } }),
  });

/** A payload holding just the schedule after the operation, one type per mutation. */
const schedulePayload = (name: string, description: string, scheduleDescription: string) =>
  builder.objectRef<SchedulePayload>(name).implement({
    description,
    fields: (t) => ({ schedule: ScheduleField(t, scheduleDescription) }),
  });

const CreateSchedulePayload = schedulePayload(
  "CreateSchedulePayload",
  "A new schedule.",
  "The schedule, with its next fire time.",
);
const PauseSchedulePayload = schedulePayload(
  "PauseSchedulePayload",
  "A paused schedule.",
  "The schedule (paused: no firings until resumed).",
);
const ResumeSchedulePayload = schedulePayload(
  "ResumeSchedulePayload",
  "A resumed schedule.",
  "The schedule, with its next fire time.",
);
const DeleteSchedulePayload = schedulePayload(
  "DeleteSchedulePayload",
  "A deleted schedule (its firings and launches stay queryable).",
  "The schedule as it was deleted.",
);

const RunSchedulePayload = builder.objectRef<SchedulePayload>("RunSchedulePayload").implement({
  description: "A schedule fired now, outside its cron times.",
  fields: (t) => ({
    schedule: ScheduleField(t, "The schedule."),
    launch: t.prismaField({
      type: "Launch",
      description: "The launch the firing enqueued (through the same queue, caps and budgets).",
      resolve: (query, p, _a, ctx) =>
        ctx.prisma.launch.findUniqueOrThrow({ ...query, where: { id: p.launchId ?? "" } }),
    }),
  }),
});

// Helpers -----------------------------------------------------------------------------------------

type SpawnArg = {
  prompt: string;
  label?: string | null;
  model?: string | null;
  provider?: Provider | null;
  source?: string | null;
  isolated?: boolean | null;
  interactive?: boolean | null;
  toolAllowlist?: readonly string[] | null;
};

/** The spawn a launch asks for, defaults made explicit (so equal requests have equal specs). */
function toSpec(s: SpawnArg): Omit<SpawnOptions, "workspace" | "clientRequestId"> {
  return {
    prompt: s.prompt,
    label: s.label ?? null,
    model: s.model ?? null,
    provider: s.provider ?? null,
    source: s.source ?? null,
    isolated: s.isolated ?? true,
    interactive: s.interactive ?? false,
    toolAllowlist: s.toolAllowlist ? [...s.toolAllowlist] : null,
  };
}

/** The scope rule of setCap / setBudget: admin; within the workspace for WORKSPACE, unlimited otherwise. */
function adminOfScope(scope: string, key: string | null | undefined) {
  if (scope !== "WORKSPACE") return { role: "admin" as const, allWorkspaces: true };
  // Without a key the input is invalid (ValidationError, after this rule): admin is enough to learn that.
  return key ? { role: "admin" as const, workspace: key } : { role: "admin" as const };
}

/** Who asked, for the queue's records (`createdBy`, `updatedBy`): the token's name. */
const by = (ctx: { auth: { name: string } }): string => ctx.auth.name;

/** Errors of the schedule actions on an existing schedule. */
const SCHEDULE_CALL = [NotFound, InvalidState];

// Fields ------------------------------------------------------------------------------------------

builder.mutationFields((t) => ({
  enqueueLaunch: t.field({
    type: EnqueueLaunchPayload,
    description:
      "Queue a launch: it is stored before anything is spawned, then dispatched in priority and age order when its notBefore has passed and the caps and budgets allow (Launch.waitingFor says why it waits), with its run timeout and retries of transient failures. A repeated dedupKey returns the launch already queued (created: false). spawnAgent is the immediate path that bypasses the queue (no caps, budgets or retries checked), but its runs count against the caps like every live run. Operator role (within the token's workspaces).",
    errors: errors("EnqueueLaunch", [NotFound, Conflict]),
    authScopes: (_p, { input }) => ({ role: "operator", workspace: input.workspace }),
    args: { input: t.arg({ type: EnqueueLaunchInput, required: true, description: "What to launch." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const res = await ctx.queue.enqueue({
          spec: {
            workspace: input.workspace,
            ...toSpec(input),
            frontmatterPath: input.frontmatterPath ?? null,
          },
          dedupKey: input.dedupKey ?? null,
          priority: input.priority ?? PRIORITY_DEFAULT,
          notBeforeMs: input.notBefore ? input.notBefore.getTime() : null,
          timeoutMs: input.timeoutMs ?? null,
          retry: toRetry(input.retry),
          scheduleId: null,
          createdBy: by(ctx),
        });
        return { launchId: res.launch.id, created: res.created };
      }),
  }),
  cancelLaunch: t.field({
    type: CancelLaunchPayload,
    description:
      "Cancel a launch in any state that is not final: a queued one ends CANCELLED at once; one with a run has the run killed and ends CANCELLED (or with the run's own outcome when it ended first). A final launch is an InvalidStateError; a daemon that cannot be reached for the kill is an UnreachableError (the cancel stays recorded and completes when the run ends). A launch of a workspace outside the token's scope is a NotFoundError. Operator role (within the token's workspaces).",
    // Cancelling a running launch kills its run through the workspace's daemon.
    errors: errors("CancelLaunch", [NotFound, InvalidState, ...DAEMON_ERRORS]),
    authScopes: (_p, { input }) => ({ role: "operator", launch: input.launchId }),
    args: { input: t.arg({ type: CancelLaunchInput, required: true, description: "The launch." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const l = await ctx.queue.cancel(input.launchId, by(ctx));
        return { launchId: l.id, workspace: l.workspace };
      }),
  }),
  setCap: t.field({
    type: SetCapPayload,
    description:
      "Set or remove a concurrency cap, in force at once (a raised cap dispatches waiting launches now). Caps count every live run on the daemons, also ones spawned by spawnAgent or outside Prospero. Admin role: a WORKSPACE cap within the token's workspaces; GLOBAL, PROVIDER and MODEL caps govern every workspace and need an admin token not limited to workspaces.",
    errors: errors("SetCap", [NotFound]),
    authScopes: (_p, { input }) => adminOfScope(input.scope, input.key),
    args: { input: t.arg({ type: SetCapInput, required: true, description: "The cap." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const scope = input.scope as CapScope;
        const cap = await ctx.queue.setCap({ scope, key: input.key ?? "", max: input.max ?? null }, by(ctx));
        return { cap, caps: ctx.queue.caps().filter((c) => capVisible(ctx.auth, c)) };
      }),
  }),
  setBudget: t.field({
    type: SetBudgetPayload,
    description:
      "Set or remove a spend budget (USD, from the cost estimate): at the limit new dispatch in the scope waits, running work finishes. Admin role: a WORKSPACE budget within the token's workspaces; a PROVIDER budget governs every workspace and needs an admin token not limited to workspaces.",
    errors: errors("SetBudget", [NotFound]),
    authScopes: (_p, { input }) => adminOfScope(input.scope, input.key),
    args: { input: t.arg({ type: SetBudgetInput, required: true, description: "The budget." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const budget = await ctx.queue.setBudget(
          {
            scope: input.scope as BudgetScope,
            key: input.key,
            period: input.period as BudgetPeriod,
            limitUsd: input.limitUsd ?? null,
          },
          by(ctx),
        );
        return { budget, budgets: (await ctx.queue.budgets()).filter((b) => budgetVisible(ctx.auth, b)) };
      }),
  }),
  setWorkspaceLaunchTimeout: t.field({
    type: SetWorkspaceLaunchTimeoutPayload,
    description:
      "Set or clear a workspace's default run timeout, used by launches enqueued afterwards that name no timeoutMs. Admin role (within the token's workspaces).",
    errors: errors("SetWorkspaceLaunchTimeout", [NotFound]),
    authScopes: (_p, { input }) => ({ role: "admin", workspace: input.workspace }),
    args: {
      input: t.arg({ type: SetWorkspaceLaunchTimeoutInput, required: true, description: "The default." }),
    },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        await ctx.queue.setWorkspaceTimeout(input.workspace, input.timeoutMs ?? null);
        return { name: input.workspace };
      }),
  }),
  createSchedule: t.field({
    type: CreateSchedulePayload,
    description:
      "Create a cron schedule: each firing enqueues its template as a launch through the same queue, caps and budgets (dedup key `schedule:<id>:<fire time>`, so a restart never fires one time twice). Operator role (within the token's workspaces).",
    errors: errors("CreateSchedule", [NotFound]),
    authScopes: (_p, { input }) => ({ role: "operator", workspace: input.workspace }),
    args: { input: t.arg({ type: CreateScheduleInput, required: true, description: "The schedule." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const tpl = input.template;
        const template: ScheduleTemplate = {
          spec: { ...toSpec(tpl), frontmatterPath: null },
          priority: tpl.priority ?? PRIORITY_DEFAULT,
          timeoutMs: tpl.timeoutMs ?? null,
          retry: toRetry(tpl.retry),
        };
        const s = await ctx.schedules.create(
          {
            name: input.name,
            workspace: input.workspace,
            cron: input.cron,
            timeZone: input.timeZone ?? "UTC",
            overlap: input.overlap ?? "SKIP",
            missed: input.missed ?? "SKIP",
            paused: input.paused ?? false,
            template,
          },
          by(ctx),
        );
        return { scheduleId: s.id };
      }),
  }),
  pauseSchedule: t.field({
    type: PauseSchedulePayload,
    description:
      "Pause a schedule: no firings until it is resumed (launches already queued stay). Operator role (within the token's workspaces).",
    errors: errors("PauseSchedule", SCHEDULE_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", schedule: input.scheduleId }),
    args: { input: t.arg({ type: PauseScheduleInput, required: true, description: "The schedule." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const sc = await ctx.schedules.pause(input.scheduleId, by(ctx));
        return { scheduleId: sc.id, workspace: sc.workspace };
      }),
  }),
  resumeSchedule: t.field({
    type: ResumeSchedulePayload,
    description:
      "Resume a paused schedule from now on (times passed while paused are not fired). Operator role (within the token's workspaces).",
    errors: errors("ResumeSchedule", SCHEDULE_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", schedule: input.scheduleId }),
    args: { input: t.arg({ type: ResumeScheduleInput, required: true, description: "The schedule." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const sc = await ctx.schedules.resume(input.scheduleId, by(ctx));
        return { scheduleId: sc.id, workspace: sc.workspace };
      }),
  }),
  deleteSchedule: t.field({
    type: DeleteSchedulePayload,
    description:
      "Delete a schedule: it never fires again; its firings and launches stay queryable (launches already queued stay queued). Operator role (within the token's workspaces).",
    errors: errors("DeleteSchedule", SCHEDULE_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", schedule: input.scheduleId }),
    args: { input: t.arg({ type: DeleteScheduleInput, required: true, description: "The schedule." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const sc = await ctx.schedules.remove(input.scheduleId, by(ctx));
        return { scheduleId: sc.id, workspace: sc.workspace };
      }),
  }),
  runSchedule: t.field({
    type: RunSchedulePayload,
    description:
      "Fire a schedule now, paused or not, outside its cron times and without its overlap policy (its next fire time is unchanged): its template is enqueued as a launch through the same queue, caps and budgets. Operator role (within the token's workspaces).",
    errors: errors("RunSchedule", SCHEDULE_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", schedule: input.scheduleId }),
    args: { input: t.arg({ type: RunScheduleInput, required: true, description: "The schedule." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const res = await ctx.schedules.runNow(input.scheduleId, by(ctx));
        return { scheduleId: res.schedule.id, launchId: res.launch.id, workspace: res.schedule.workspace };
      }),
  }),
}));
