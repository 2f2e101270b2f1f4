/**
 * GraphQL types of the operator inbox (issue 15 item 1): `InboxItem` (a Relay Node, raw ids 12
 * lowercase hex), its `InboxAction` history, the enums of its kind, state, resolution and
 * actions, `InboxFilter`, the `InboxItemConnection` (with `openCount`, the badge figure) and
 * `InboxChanged` (what `inboxChanges` delivers). Rows are read through Prisma; they are written by
 * the inbox service only (src/attention/inbox.ts). Root fields are in src/resolvers/inbox.ts.
 *
 * Scope: an item of a workspace is visible to tokens allowed that workspace; a fleet-wide item (an
 * alert about the data dir or the database) only to tokens not limited to workspaces — lists are
 * filtered where they are read ({@link inboxVisibleWhere}) and the type repeats the rule, so
 * `node(id:)` answers null for an item the token may not see.
 */
import { decodeGlobalID } from "@pothos/plugin-relay";
import { visibleWorkspaces, type Principal } from "../auth/roles.js";
import { answerHint, canAnswerKind } from "../attention/detect.js";
import { INBOX_ACTIONS, INBOX_KINDS, INBOX_RESOLUTIONS, INBOX_STATES } from "../attention/types.js";
import type { InboxItem } from "../generated/prisma/client.js";
import { builder, registerNode } from "./builder.js";
import { connectionTotal, prismaCursorArgs } from "./connections.js";
import type { GraphQLContext } from "./context.js";
import { HealthCheckKindEnum, healthCheckValue } from "./health-monitor.js";

/** The raw id of an inbox item: 12 lowercase hex characters. */
export const INBOX_ITEM_ID = /^[0-9a-f]{12}$/;

/** Cursor rule of the inbox connection (`GPC:S:<12 hex>`, the form of agent ids). */
export const inboxCursorArgs = () => prismaCursorArgs("agent");

/**
 * The raw id an `item` argument names: an InboxItem global id or its 12-hex itemId; null for
 * anything else (another type's global id, garbage).
 */
export function inboxItemIdOf(raw: string): string | null {
  if (INBOX_ITEM_ID.test(raw)) return raw;
  try {
    const g = decodeGlobalID(raw);
    return g.typename === "InboxItem" && INBOX_ITEM_ID.test(g.id) ? g.id : null;
  } catch {
    return null;
  }
}

/** Internal value of the UNKNOWN member of the inbox enums. */
const UNKNOWN = "unknown";

/** A stored value of `known` as the enum's internal value, `unknown` for anything else. */
const valueOf =
  (known: readonly string[]) =>
  (raw: string | null): string =>
    raw !== null && known.includes(raw) ? raw : UNKNOWN;

/** Map a stored kind onto {@link InboxItemKindEnum}'s internal values. */
export const inboxKindValue = valueOf(INBOX_KINDS);
/** Map a stored state onto {@link InboxItemStateEnum}'s internal values. */
export const inboxStateValue = valueOf(INBOX_STATES);
/** Map a stored resolution onto {@link InboxResolutionEnum}'s internal values. */
export const inboxResolutionValue = valueOf(INBOX_RESOLUTIONS);
/** Map a stored action onto {@link InboxActionKindEnum}'s internal values. */
export const inboxActionValue = valueOf(INBOX_ACTIONS);

const values = (described: Record<string, string>, unknown: string) => ({
  ...Object.fromEntries(Object.entries(described).map(([k, d]) => [k, { value: k, description: d }])),
  UNKNOWN: { value: UNKNOWN, description: unknown },
});

/** GraphQL `InboxItemKind`. */
export const InboxItemKindEnum = builder.enumType("InboxItemKind", {
  description: "What an inbox item waits for. UNKNOWN: a kind this gateway does not know.",
  values: values(
    {
      QUESTION:
        "An interactive agent waits for input after a turn; the body is its last assistant message. Answering sends input to it.",
      PLAN: "An agent shared a plan (its EnterPlanMode/ExitPlanMode tool call) and waits for approval: approve it or send changes.",
      RUN_FAILED: "A run failed, crashed or timed out and nobody acknowledged it yet; the body says why.",
      ALERT:
        "A health check fails (the monitor's message is the body); it closes by itself when the check passes again.",
    },
    "A kind this gateway does not know.",
  ) as Record<string, { value: string; description: string }>,
});

/** GraphQL `InboxItemState`. */
export const InboxItemStateEnum = builder.enumType("InboxItemState", {
  description: "Where an inbox item is. UNKNOWN: a state this gateway does not know.",
  values: values(
    {
      OPEN: "Needs a person.",
      SNOOZED: "Hidden until snoozedUntil, then OPEN again (and notified again).",
      CLOSED:
        "Done: answered, approved, acknowledged, dismissed, or resolved by itself (see resolution). Kept as history.",
    },
    "A state this gateway does not know.",
  ) as Record<string, { value: string; description: string }>,
});

/** GraphQL `InboxResolution`. */
export const InboxResolutionEnum = builder.enumType("InboxResolution", {
  description: "How an inbox item closed. UNKNOWN: a resolution this gateway does not know.",
  values: values(
    {
      ANSWERED: "A person sent input to the agent (an answer, or changes to a plan).",
      APPROVED: "A person approved the plan.",
      ACKNOWLEDGED: "A person acknowledged it.",
      DISMISSED: "A person dismissed it as not needed.",
      RESOLVED:
        "It closed by itself: the agent resumed, the run ended, the launch was retried, the check passes again (closeReason says which).",
    },
    "A resolution this gateway does not know.",
  ) as Record<string, { value: string; description: string }>,
});

/** GraphQL `InboxActionKind`. */
export const InboxActionKindEnum = builder.enumType("InboxActionKind", {
  description:
    "What one recorded action did to an inbox item. UNKNOWN: an action this gateway does not know.",
  values: values(
    {
      OPENED: "It was opened (detail: what opened it).",
      ANSWERED: "Input was sent to the agent and it closed (detail: the text).",
      APPROVED: "The plan was approved and it closed (detail: the text sent).",
      ACKNOWLEDGED: "It was acknowledged and closed.",
      SNOOZED: "It was snoozed (detail: until when).",
      DISMISSED: "It was dismissed and closed.",
      ESCALATED: "It was notified again for being open longer than the escalation time.",
      REOPENED: "Its snooze ended: OPEN again.",
      RESOLVED: "It closed by itself (detail: why).",
      UPDATED: "Its title or body changed (a new plan, the alert's new message, a timeout).",
    },
    "An action this gateway does not know.",
  ) as Record<string, { value: string; description: string }>,
});

/** GraphQL `InboxChangeKind` (live only: no stored values, so no UNKNOWN). */
export const InboxChangeKindEnum = builder.enumType("InboxChangeKind", {
  description: "What changed, as inboxChanges reports it.",
  values: {
    OPENED: { value: "OPENED", description: "A new item." },
    UPDATED: { value: "UPDATED", description: "Its title or body changed." },
    SNOOZED: { value: "SNOOZED", description: "It was snoozed." },
    REOPENED: { value: "REOPENED", description: "Its snooze ended: OPEN again." },
    ESCALATED: { value: "ESCALATED", description: "It was notified again for being open long." },
    CLOSED: { value: "CLOSED", description: "It closed (see resolution)." },
  } as const,
});

/** Whether `auth` may see an item: its workspace's, or a fleet-wide one for an unlimited token. */
export function inboxItemVisible(auth: Principal, item: { workspace: string | null }): boolean {
  const only = visibleWorkspaces(auth);
  if (only === null) return true;
  return item.workspace !== null && only.includes(item.workspace);
}

/** The Prisma `where` of the items `ctx`'s token may see (a list never holds fleet-wide items then). */
export function inboxVisibleWhere(ctx: GraphQLContext): Record<string, unknown> {
  const only = visibleWorkspaces(ctx.auth);
  return only === null ? {} : { workspace: { in: [...only] } };
}

builder.prismaObject("InboxAction", {
  description:
    "One thing done to an inbox item, by a person (actor: the token's name) or by Prospero (actor null).",
  fields: (t) => ({
    action: t.field({
      type: InboxActionKindEnum,
      description: "What was done.",
      resolve: (a) => inboxActionValue(a.action),
    }),
    actor: t.exposeString("actor", {
      nullable: true,
      description:
        "Name of the token that did it; null when Prospero did (opened, closed by itself, escalated).",
    }),
    detail: t.exposeString("detail", {
      nullable: true,
      description:
        "The text sent, until when it was snoozed, what opened it or why it closed; null when none.",
    }),
    at: t.field({ type: "DateTime", description: "When.", resolve: (a) => a.at }),
  }),
});

registerNode("InboxItem", INBOX_ITEM_ID);

/** The InboxItem node type. */
export const InboxItemRef = builder.prismaNode("InboxItem", {
  id: { field: "id" },
  // node(id:)/nodes(ids:) answer null for an id that names no item.
  nullable: true,
  description:
    "Something that needs a person: an agent's question or plan, a failed run, a failing health check. It closes when a person answers, approves, acknowledges or dismisses it — or by itself when what it waited for happens (the agent resumed, the run ended, the check passes again).",
  authScopes: (i, ctx) =>
    i.workspace === null
      ? { allWorkspaces: true }
      : ctx.auth.workspaces === null || { workspace: i.workspace },
  fields: (t) => ({
    itemId: t.exposeString("id", {
      description: "The item's 12-hex id (the CLI's `prospero answer <item>`; mutations take it or `id`).",
    }),
    kind: t.field({
      type: InboxItemKindEnum,
      description: "What it waits for.",
      resolve: (i) => inboxKindValue(i.kind),
    }),
    state: t.field({
      type: InboxItemStateEnum,
      description: "Where it is.",
      resolve: (i) => inboxStateValue(i.state),
    }),
    workspace: t.prismaField({
      type: "Workspace",
      nullable: true,
      description: "The workspace concerned; null for a fleet-wide alert.",
      resolve: (query, i, _a, ctx) =>
        i.workspace === null
          ? null
          : ctx.prisma.workspace.findUnique({ ...query, where: { name: i.workspace } }),
    }),
    agent: t.prismaField({
      type: "Agent",
      nullable: true,
      description:
        "The run concerned (questions, plans, failures; an alert about one agent); null otherwise.",
      resolve: (query, i, _a, ctx) =>
        i.agentId === null ? null : ctx.prisma.agent.findUnique({ ...query, where: { id: i.agentId } }),
    }),
    launch: t.prismaField({
      type: "Launch",
      nullable: true,
      description: "The launch of that run, when the queue started it; null otherwise.",
      resolve: (query, i, _a, ctx) =>
        i.launchId === null ? null : ctx.prisma.launch.findUnique({ ...query, where: { id: i.launchId } }),
    }),
    title: t.exposeString("title", { description: "One line: what this is about (at most 200 characters)." }),
    body: t.exposeString("body", {
      description:
        "The question (the agent's last assistant message), the plan (markdown), the failure reason, or the alert's message. Bounded (8 KiB for a question, 16 KiB otherwise), control characters removed, token-shaped secrets redacted; clients still escape what they show.",
    }),
    answerHint: t.string({
      description:
        'What answering means, in words: "Send input to the agent", "Approve the plan or send changes", "Acknowledge the failure", "Acknowledge the alert".',
      resolve: (i) => answerHint(i.kind),
    }),
    canAnswer: t.boolean({
      description: "answerInboxItem applies: a QUESTION or PLAN not closed.",
      resolve: (i) => i.state !== "CLOSED" && canAnswerKind(i.kind),
    }),
    canApprove: t.boolean({
      description: "approveInboxItem applies: a PLAN not closed.",
      resolve: (i) => i.state !== "CLOSED" && i.kind === "PLAN",
    }),
    check: t.field({
      type: HealthCheckKindEnum,
      nullable: true,
      description: "ALERT: the failing health check; null for other kinds.",
      resolve: (i) => (i.check === null ? null : healthCheckValue(i.check)),
    }),
    subject: t.exposeString("subject", {
      nullable: true,
      description:
        "ALERT: what the check is about (a workspace name, an agent id, a path); null for a fleet-wide one and other kinds.",
    }),
    openedAt: t.field({
      type: "DateTime",
      description: "Since when it needs a person.",
      resolve: (i) => i.openedAt,
    }),
    updatedAt: t.field({
      type: "DateTime",
      description: "When it last changed.",
      resolve: (i) => i.updatedAt,
    }),
    snoozedUntil: t.field({
      type: "DateTime",
      nullable: true,
      description: "SNOOZED: when it opens again; null otherwise.",
      resolve: (i) => i.snoozedUntil,
    }),
    closedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it closed; null while not closed.",
      resolve: (i) => i.closedAt,
    }),
    resolution: t.field({
      type: InboxResolutionEnum,
      nullable: true,
      description: "How it closed; null while not closed.",
      resolve: (i) => (i.resolution === null ? null : inboxResolutionValue(i.resolution)),
    }),
    closedBy: t.exposeString("closedBy", {
      nullable: true,
      description: "Name of the token that closed it; null while open or when it closed by itself.",
    }),
    closeReason: t.exposeString("closeReason", {
      nullable: true,
      description:
        'Why it closed by itself, in words ("the agent resumed", "retried as attempt 2", the monitor\'s message); null otherwise.',
    }),
    escalations: t.exposeInt("escalations", {
      description:
        "Times it was notified again for being open longer than the escalation time (--inbox-escalate-after-ms).",
    }),
    lastNotifiedAt: t.field({
      type: "DateTime",
      description: "When it was last notified: opened, reopened after a snooze, or escalated.",
      resolve: (i) => i.lastNotifiedAt,
    }),
    actions: t.relation("actions", {
      description: "Everything done to it, oldest first.",
      query: { orderBy: { id: "asc" } },
    }),
  }),
});

/** The connection type of inbox items (Query.inbox), with the badge figure `openCount`. */
export const InboxItemConnectionRef = builder.connectionObject(
  {
    type: InboxItemRef,
    name: "InboxItemConnection",
    description: "A page of inbox items.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Items matching the field's filter, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
      openCount: t.int({
        description:
          "OPEN items (not SNOOZED) the token may see, whatever the filter: the number of things that need a person now (the dashboard's badge).",
        resolve: (_c, _a, ctx) => ctx.inbox.openCount(visibleWorkspaces(ctx.auth)),
      }),
    }),
  },
  { name: "InboxItemEdge", description: "An inbox item and its cursor." },
);

/** GraphQL `InboxFilter`. */
export const InboxFilterRef = builder.inputType("InboxFilter", {
  description: "Which inbox items; every given condition must hold.",
  fields: (t) => ({
    states: t.field({
      type: [InboxItemStateEnum],
      required: false,
      description:
        "Only items in these states. Default for `inbox`: [OPEN, SNOOZED] (give CLOSED too for history).",
    }),
    kinds: t.field({ type: [InboxItemKindEnum], required: false, description: "Only items of these kinds." }),
    workspace: t.string({ required: false, description: "Only items of this workspace." }),
    agentId: t.string({ required: false, description: "Only items about this agent." }),
  }),
});

/** Filter values of {@link InboxFilterRef}. */
export interface InboxFilterArg {
  states?: readonly string[] | null;
  kinds?: readonly string[] | null;
  workspace?: string | null;
  agentId?: string | null;
}

/** The states `inbox` lists when its filter names none. */
export const DEFAULT_INBOX_STATES: readonly string[] = ["OPEN", "SNOOZED"];

/** The Prisma `where` of an inbox filter (AND-ed with {@link inboxVisibleWhere}). */
export function inboxFilterWhere(f: InboxFilterArg | null | undefined): Record<string, unknown> {
  return {
    state: { in: [...(f?.states ?? DEFAULT_INBOX_STATES)] },
    ...(f?.kinds != null ? { kind: { in: [...f.kinds] } } : {}),
    ...(f?.workspace != null ? { workspace: f.workspace } : {}),
    ...(f?.agentId != null ? { agentId: f.agentId } : {}),
  };
}

/**
 * Whether a change of `item` is delivered to a subscription with filter `f`: kinds, workspace and
 * agentId must match; `states` (when given) the item's state after the change — except that a
 * change taking an item out of view (CLOSED, SNOOZED) is always delivered, so a client listing
 * OPEN items sees it leave.
 */
export function inboxChangeMatches(
  f: InboxFilterArg | null | undefined,
  change: string,
  item: Pick<InboxItem, "state" | "kind" | "workspace" | "agentId">,
): boolean {
  if (f?.kinds != null && !f.kinds.includes(item.kind)) return false;
  if (f?.workspace != null && item.workspace !== f.workspace) return false;
  if (f?.agentId != null && item.agentId !== f.agentId) return false;
  if (f?.states != null && change !== "CLOSED" && change !== "SNOOZED" && !f.states.includes(item.state))
    return false;
  return true;
}

/** One delivered change: what `InboxChanged` resolves from. */
export interface InboxChangedItem {
  change: string;
  item: InboxItem;
  /** OPEN items within the subscriber's scope after the change. */
  openCount: number;
}

/** GraphQL `InboxChanged`. */
export const InboxChangedRef = builder.objectRef<InboxChangedItem>("InboxChanged").implement({
  description: "One change of the inbox, after it was stored.",
  fields: (t) => ({
    change: t.field({
      type: InboxChangeKindEnum,
      description: "What changed.",
      resolve: (c) => c.change as never,
    }),
    item: t.field({
      type: InboxItemRef,
      description: "The item as stored after the change.",
      resolve: (c) => c.item,
    }),
    openCount: t.exposeInt("openCount", {
      description: "OPEN items the subscriber's token may see, after the change (the badge figure).",
    }),
  }),
});
