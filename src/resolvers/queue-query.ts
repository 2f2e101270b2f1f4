/**
 * Root query fields of the launch queue (issue 14 item 8): `launches` (a connection with filters),
 * `launch(launchId:)`, `schedules`, `schedule(scheduleId:)` and `queue`. Viewer role; a token
 * limited to workspaces sees only their launches and schedules (lists are filtered by
 * {@link visibleWhere}; one named outside them reads as unknown, null) and only their caps and
 * budgets (src/schema/launch.ts).
 */
import { allowsWorkspace } from "../auth/roles.js";
import { ValidationFailed } from "../errors.js";
import { builder } from "../schema/builder.js";
import { agentOfCursor } from "../schema/connections.js";
import {
  LaunchConnectionRef,
  LaunchFilterRef,
  QueueRef,
  ScheduleConnectionRef,
  ScheduleFilterRef,
  launchFilterWhere,
  launchOrder,
  queueCursorArgs,
  scheduleFilterWhere,
} from "../schema/launch.js";
import { visibleWhere } from "./query.js";

/**
 * Refuse an `after`/`before` cursor naming no row the token may see (another workspace's, or
 * none): a cursor is a position only among visible rows, and the answer is the same for both, so
 * it tells nothing about the other workspace's rows (as Query.agents does).
 * @throws ValidationFailed at `after` or `before`.
 */
async function checkCursors(
  args: { after?: string | null; before?: string | null },
  seen: (id: string) => Promise<number>,
): Promise<void> {
  for (const c of [args.after, args.before]) {
    if (c == null) continue;
    if ((await seen(agentOfCursor(c))) === 0)
      throw new ValidationFailed([
        { path: [c === args.after ? "after" : "before"], message: "not a cursor of this connection" },
      ]);
  }
}

builder.queryFields((t) => ({
  launches: t.prismaConnection(
    {
      type: "Launch",
      cursor: "id",
      nullable: true,
      description:
        "Launches, newest first — or, when the filter asks for exactly the QUEUED ones, in dispatch order (priority, then oldest first). Viewer role; only the token's workspaces. Null (with an error) when an argument is bad.",
      authScopes: { role: "viewer" },
      args: { filter: t.arg({ type: LaunchFilterRef, required: false, description: "Which launches." }) },
      validate: queueCursorArgs(),
      // AND: a filter on another workspace must not widen the token's view.
      totalCount: (_root, args, ctx) =>
        ctx.prisma.launch.count({ where: { AND: [visibleWhere(ctx), launchFilterWhere(args.filter)] } }),
      resolve: async (query, _root, args, ctx) => {
        await checkCursors(args, (id) =>
          ctx.prisma.launch.count({ where: { AND: [visibleWhere(ctx), { id }] } }),
        );
        return ctx.prisma.launch.findMany({
          ...query,
          where: { AND: [visibleWhere(ctx), launchFilterWhere(args.filter)] },
          orderBy: launchOrder(args.filter),
        });
      },
    },
    LaunchConnectionRef,
  ),
  launch: t.prismaField({
    type: "Launch",
    nullable: true,
    description:
      "One launch by its 12-hex id, or null when it is unknown or outside the token's workspaces. Viewer role.",
    authScopes: { role: "viewer" },
    args: { launchId: t.arg.string({ required: true, description: "The launch's 12-hex id." }) },
    resolve: async (query, _root, args, ctx) => {
      const row = await ctx.prisma.launch.findUnique({ ...query, where: { id: args.launchId } });
      return row !== null && allowsWorkspace(ctx.auth, row.workspace) ? row : null;
    },
  }),
  schedules: t.prismaConnection(
    {
      type: "Schedule",
      cursor: "id",
      nullable: true,
      description:
        "Schedules by name (deleted ones only with filter.includeDeleted). Viewer role; only the token's workspaces. Null (with an error) when an argument is bad.",
      authScopes: { role: "viewer" },
      args: { filter: t.arg({ type: ScheduleFilterRef, required: false, description: "Which schedules." }) },
      validate: queueCursorArgs(),
      totalCount: (_root, args, ctx) =>
        ctx.prisma.schedule.count({
          where: { AND: [visibleWhere(ctx), scheduleFilterWhere(args.filter)] },
        }),
      resolve: async (query, _root, args, ctx) => {
        await checkCursors(args, (id) =>
          ctx.prisma.schedule.count({ where: { AND: [visibleWhere(ctx), { id }] } }),
        );
        return ctx.prisma.schedule.findMany({
          ...query,
          where: { AND: [visibleWhere(ctx), scheduleFilterWhere(args.filter)] },
          orderBy: [{ name: "asc" }, { id: "asc" }],
        });
      },
    },
    ScheduleConnectionRef,
  ),
  schedule: t.prismaField({
    type: "Schedule",
    nullable: true,
    description:
      "One schedule by its 12-hex id (also once deleted: see deletedAt), or null when it is unknown or outside the token's workspaces. Viewer role.",
    authScopes: { role: "viewer" },
    args: { scheduleId: t.arg.string({ required: true, description: "The schedule's 12-hex id." }) },
    resolve: async (query, _root, args, ctx) => {
      const row = await ctx.prisma.schedule.findUnique({ ...query, where: { id: args.scheduleId } });
      return row !== null && allowsWorkspace(ctx.auth, row.workspace) ? row : null;
    },
  }),
  queue: t.field({
    type: QueueRef,
    nullable: true,
    description:
      "The launch queue at a glance: counts, caps in use, budgets. Viewer role; a token limited to workspaces sees only theirs (besides fleet-wide, provider and model caps).",
    authScopes: { role: "viewer" },
    resolve: () => ({ queue: true as const }),
  }),
}));
