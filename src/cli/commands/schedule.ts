/**
 * `prospero schedule add|ls|show|pause|resume|rm|run`: cron schedules of launches (issue 14 item
 * 4). Every firing is a launch through the same queue, caps and budgets as `prospero enqueue`. The
 * cron expression and time zone are checked by the gateway (croner): a bad one is its
 * ValidationError naming `input.cron` or `input.timeZone` (exit 4), and nothing is stored.
 */
import { InvalidArgumentError, type Command } from "commander";
import {
  CreateScheduleDocument,
  DeleteScheduleDocument,
  PauseScheduleDocument,
  ResumeScheduleDocument,
  RunScheduleDocument,
  ScheduleDocument,
  SchedulesDocument,
  type CreateScheduleInput,
  type ScheduleFilter,
  type ScheduleMissed,
  type ScheduleOverlap,
  type ScheduleQuery,
  type ScheduleSummaryFragment,
  type SchedulesQuery,
} from "../../sdk/index.js";
import { clientAction, clientOptions, positiveInt, type CliContext } from "../context.js";
import { CliError, EXIT, present, unwrapResult } from "../exit.js";
import { age, duration, firstLine } from "../format.js";
import { table, type Colors } from "../output.js";
import { safeData, singleLine } from "../sanitize.js";
import {
  launchQueueFields,
  launchQueueOptions,
  launchSpawnFields,
  launchSpawnOptions,
  launchState,
  type LaunchQueueFlags,
  type LaunchSpawnFlags,
} from "./queue.js";

/** Schedules per `schedules` request, and the default number of rows of `schedule ls`. */
export const SCHEDULES_PAGE = 50;

/** Next fire times and latest firings `schedule show` prints. */
export const SHOW_UPCOMING = 5;
/** See {@link SHOW_UPCOMING}. */
export const SHOW_FIRINGS = 10;

/** `skip`, `queue` or `allow` (any case) → the ScheduleOverlap value. */
export function parseOverlap(raw: string): ScheduleOverlap {
  const v = raw.trim().toUpperCase();
  if (v === "SKIP" || v === "QUEUE" || v === "ALLOW") return v;
  throw new InvalidArgumentError(
    `unknown overlap policy ${JSON.stringify(raw)} (skip: no firing while the previous launch is active; queue: wait for it; allow: run alongside)`,
  );
}

/** `skip` or `run-once` (any case, `run_once` too) → the ScheduleMissed value. */
export function parseMissed(raw: string): ScheduleMissed {
  const v = raw.trim().toUpperCase().replace("-", "_");
  if (v === "SKIP" || v === "RUN_ONCE") return v;
  throw new InvalidArgumentError(
    `unknown missed-run policy ${JSON.stringify(raw)} (skip, or run-once: one launch at start for firings missed while the gateway was down)`,
  );
}

interface AddFlags extends LaunchSpawnFlags, LaunchQueueFlags {
  tz?: string;
  overlap?: ScheduleOverlap;
  missed?: ScheduleMissed;
  paused?: boolean;
}

/** The CreateScheduleInput for the arguments and flags (only the fields given). */
export function createScheduleInput(
  name: string,
  workspace: string,
  cron: string,
  prompt: string,
  f: AddFlags,
): CreateScheduleInput {
  return {
    name,
    workspace,
    cron,
    ...(f.tz !== undefined ? { timeZone: f.tz } : {}),
    ...(f.overlap !== undefined ? { overlap: f.overlap } : {}),
    ...(f.missed !== undefined ? { missed: f.missed } : {}),
    ...(f.paused ? { paused: true } : {}),
    template: { prompt, ...launchSpawnFields(f), ...launchQueueFields(f) },
  };
}

/** `2026-12-01T09:00:00.000Z (in 3m)`, or `—`. */
function fireTime(c: Colors, iso: string | null, now = Date.now()): string {
  if (iso === null) return c.dim("—");
  const t = Date.parse(iso);
  // age(a, b) is b − a: the time from now to t, for an instant ahead.
  return t >= now ? `${iso} (in ${age(new Date(now).toISOString(), t)})` : `${iso} (${age(iso, now)} ago)`;
}

function scheduleRows(c: Colors, list: readonly ScheduleSummaryFragment[]): string {
  const now = Date.now();
  return table(
    ["ID", "NAME", "WORKSPACE", "CRON", "TZ", "NEXT FIRE", "LAST FIRE", "PAUSED"].map((h) => c.dim(h)),
    list.map((s) => [
      s.scheduleId,
      firstLine(s.name, 28),
      s.workspace.name,
      s.cron,
      s.timeZone,
      s.deletedAt !== null ? c.dim("deleted") : fireTime(c, s.nextFireAt, now),
      fireTime(c, s.lastFireAt, now),
      s.paused ? c.yellow("paused") : "no",
    ]),
  );
}

/** The one-line summary printed after a schedule mutation; `s` must have passed through `safeData`. */
function scheduleLine(c: Colors, verb: string, s: ScheduleSummaryFragment): string {
  const next =
    s.deletedAt !== null
      ? "deleted"
      : s.paused
        ? c.yellow("paused")
        : `next fire ${fireTime(c, s.nextFireAt)}`;
  return `${verb} ${c.bold(s.scheduleId)} ${s.name} in ${s.workspace.name} · ${s.cron} (${s.timeZone}) · ${next}`;
}

/** Print one schedule; `s` must have passed through `safeData`. */
function printSchedule(ctx: CliContext, s: NonNullable<ScheduleQuery["schedule"]>): void {
  const { c } = ctx.out;
  const row = (k: string, v: string) => ctx.out.line(`  ${c.dim(k.padEnd(14))}${singleLine(v)}`);
  const t = s.template;
  ctx.out.line(`${c.bold(s.name)}  ${c.dim(s.scheduleId)}`);
  row("workspace", s.workspace.name);
  row("cron", `${s.cron} (${s.timeZone})`);
  row("state", s.deletedAt !== null ? `deleted ${s.deletedAt}` : s.paused ? c.yellow("paused") : "active");
  row("overlap", s.overlap.toLowerCase());
  row("missed runs", s.missed.toLowerCase().replace("_", "-"));
  row("next fire", fireTime(c, s.nextFireAt));
  row("last fire", fireTime(c, s.lastFireAt));
  row("created", `${s.createdAt}${s.createdBy !== null ? ` by ${s.createdBy}` : ""}`);
  ctx.out.line(`  ${c.dim("each firing enqueues")}`);
  row("  prompt", firstLine(t.spec.prompt, 80));
  row("  label", t.spec.label ?? "—");
  row("  provider", t.spec.provider?.toLowerCase() ?? "default");
  row("  model", t.spec.model ?? "default");
  row("  priority", String(t.priority));
  row("  timeout", t.timeoutMs !== null ? duration(t.timeoutMs) : "the workspace's");
  row(
    "  retries",
    t.retry.maxAttempts <= 1
      ? "none (1 attempt)"
      : `up to ${t.retry.maxAttempts} attempts · backoff ${duration(t.retry.backoffMs)}`,
  );
  ctx.out.line(`  ${c.dim("upcoming")}`);
  if (s.upcoming.length === 0) ctx.out.line(`    ${c.dim("none")}`);
  for (const at of s.upcoming) ctx.out.line(`    ${at}`);
  ctx.out.line(`  ${c.dim(`firings (${s.firings.totalCount}; the latest ${s.firings.edges.length})`)}`);
  if (s.firings.edges.length > 0) {
    const tab = table(
      ["FIRE TIME", "TRIGGER", "LAUNCH", "RESULT"].map((h) => c.dim(h)),
      s.firings.edges.map(({ node: f }) => [
        f.fireAt,
        f.trigger.toLowerCase(),
        f.launch ? f.launch.launchId : c.dim("—"),
        f.launch
          ? launchState(c, f.launch.state)
          : f.skippedReason !== null
            ? `skipped: ${f.skippedReason}`
            : c.dim("—"),
      ]),
    );
    for (const line of tab.split("\n")) ctx.out.line(`    ${line}`);
  }
}

/** Register `schedule` and its subcommands on `program`. */
export function registerScheduleCommands(program: Command): void {
  const schedule = program
    .command("schedule")
    .description("cron schedules of launches: every firing is a launch through the queue, caps and budgets");

  clientOptions(
    launchQueueOptions(
      launchSpawnOptions(
        schedule
          .command("add")
          .description("create a schedule: at each fire time of <cron> a launch of <prompt> is enqueued")
          .argument("<name>", "name for people")
          .argument("<workspace>", "workspace name")
          .argument(
            "<cron>",
            'cron expression: 5 fields (minute hour day-of-month month day-of-week; "* * * * *" every minute), 6 with seconds first, or @daily, @hourly, …; at most one firing a minute',
          )
          .argument("<prompt>", "initial prompt of each launch"),
      ),
    )
      .option("--tz <zone>", "IANA time zone the expression is read in, e.g. Europe/Paris (default UTC)")
      .option(
        "--overlap <policy>",
        "while the previous launch is still active: skip (default), queue (wait for it) or allow",
        parseOverlap,
      )
      .option(
        "--missed <policy>",
        "firings missed while the gateway was down: skip (default) or run-once",
        parseMissed,
      )
      .option("--paused", "create it paused (no firings until `schedule resume`)"),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(
      async (ctx, name: string, workspace: string, cron: string, prompt: string, flags: AddFlags) => {
        const input = createScheduleInput(name, workspace, cron, prompt, flags);
        const data = await ctx.client.request(CreateScheduleDocument, { input });
        if (ctx.json) ctx.out.json(data);
        const r = safeData(unwrapResult(`schedule add ${name}`, data.createSchedule));
        if (ctx.json) return;
        ctx.out.line(scheduleLine(ctx.out.c, "created schedule", r.schedule));
        ctx.out.line(ctx.out.c.dim(`its firings: prospero schedule show ${r.schedule.scheduleId}`));
      },
    ),
  );

  clientOptions(
    schedule
      .command("ls")
      .description("schedules by name: cron, time zone, next and last fire time, paused")
      .option("--workspace <name>", "only this workspace's")
      .option("--all", "deleted schedules too")
      .option(
        "--limit <n>",
        `at most n schedules (default ${SCHEDULES_PAGE})`,
        positiveInt("--limit", 10_000),
      ),
    "print the schedules query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx, flags: { workspace?: string; all?: boolean; limit?: number }) => {
      const filter: ScheduleFilter = {
        ...(flags.workspace !== undefined ? { workspace: flags.workspace } : {}),
        ...(flags.all ? { includeDeleted: true } : {}),
      };
      const limit = flags.limit ?? SCHEDULES_PAGE;
      type Conn = NonNullable<SchedulesQuery["schedules"]>;
      const edges: Conn["edges"] = [];
      let after: string | null = null;
      let totalCount = 0;
      let pageInfo: Conn["pageInfo"] = { hasNextPage: false, endCursor: null };
      do {
        const page: SchedulesQuery = await ctx.client.request(SchedulesDocument, {
          filter,
          first: Math.min(SCHEDULES_PAGE, limit - edges.length),
          after,
        });
        const conn = present(page.schedules, "schedules");
        edges.push(...conn.edges);
        totalCount = conn.totalCount;
        pageInfo = conn.pageInfo;
        after = pageInfo.endCursor;
      } while (pageInfo.hasNextPage && edges.length < limit && after !== null);
      if (ctx.json) {
        ctx.out.json({ schedules: { totalCount, edges, pageInfo } });
        return;
      }
      const { c } = ctx.out;
      if (edges.length === 0) {
        ctx.out.line(c.dim("no schedules"));
        return;
      }
      ctx.out.line(
        scheduleRows(
          c,
          edges.map((e) => safeData(e.node)),
        ),
      );
      if (totalCount > edges.length)
        ctx.out.line(c.dim(`(+${totalCount - edges.length} more: raise --limit)`));
    }),
  );

  clientOptions(
    schedule
      .command("show")
      .description(
        "one schedule: its template, next fire times and latest firings (fired, or skipped because …)",
      )
      .argument("<id>", "schedule id (12 hex)"),
    "print the schedule query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(ScheduleDocument, {
        scheduleId: id,
        upcoming: SHOW_UPCOMING,
        firingsLast: SHOW_FIRINGS,
      });
      if (ctx.json) ctx.out.json(data);
      if (!data.schedule) throw new CliError(EXIT.notFound, `schedule not found: ${id}`);
      if (!ctx.json) printSchedule(ctx, safeData(data.schedule));
    }),
  );

  const byId = (cmdName: string, description: string) =>
    clientOptions(
      schedule.command(cmdName).description(description).argument("<id>", "schedule id (12 hex)"),
      "print the mutation result as JSON on stdout",
    );

  byId("pause", "pause a schedule (no firings until it is resumed)").action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(PauseScheduleDocument, { scheduleId: id });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`schedule pause ${id}`, data.pauseSchedule));
      if (!ctx.json) ctx.out.line(scheduleLine(ctx.out.c, "paused schedule", r.schedule));
    }),
  );

  byId("resume", "resume a paused schedule").action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(ResumeScheduleDocument, { scheduleId: id });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`schedule resume ${id}`, data.resumeSchedule));
      if (!ctx.json) ctx.out.line(scheduleLine(ctx.out.c, "resumed schedule", r.schedule));
    }),
  );

  byId("rm", "delete a schedule (no more firings; its firings and launches stay queryable)").action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(DeleteScheduleDocument, { scheduleId: id });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`schedule rm ${id}`, data.deleteSchedule));
      if (!ctx.json) ctx.out.line(scheduleLine(ctx.out.c, "deleted schedule", r.schedule));
    }),
  );

  byId(
    "run",
    "fire a schedule now, paused or not: one launch through the queue, caps and budgets (its overlap policy does not apply; its next fire time is unchanged)",
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(RunScheduleDocument, { scheduleId: id });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`schedule run ${id}`, data.runSchedule));
      if (ctx.json) return;
      const { c } = ctx.out;
      const l = r.launch;
      ctx.out.line(
        `fired ${c.bold(r.schedule.scheduleId)} ${r.schedule.name}: launch ${c.bold(l.launchId)} · ${launchState(c, l.state, l.stateName)}`,
      );
      ctx.out.line(c.dim(`see it: prospero launch ${l.launchId}`));
    }),
  );
}
