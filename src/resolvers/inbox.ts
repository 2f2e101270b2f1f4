/**
 * Root fields of the operator inbox (issue 15 item 1): `inbox` (a connection, default the OPEN and
 * SNOOZED items, with `openCount`), the live `inboxChanges` subscription, and the mutations
 * `answerInboxItem`, `approveInboxItem`, `acknowledgeInboxItem`, `snoozeInboxItem` and
 * `dismissInboxItem`. Types are in src/schema/inbox.ts; everything delegates to the inbox service
 * (`ctx.inbox`, src/attention/inbox.ts).
 *
 * Who may do what: reading needs the viewer role, and a token limited to workspaces sees only
 * their items (fleet-wide alerts only for tokens not limited to workspaces). Each mutation needs
 * the operator role within the item's workspace (an unlimited operator for a fleet-wide item): an
 * item outside the token's scope is answered NotFoundError, like an unknown one, and audited as
 * denied (the `inboxItem` scope of src/schema/auth-scopes.ts). Each mutation takes one `input:`
 * whose `item` is the InboxItem's global id or its 12-hex itemId, returns a `<Name>Result` union,
 * is audited by the audit plugin (its payload names the item's workspace and agent for the row)
 * and changes nothing when it fails.
 */
import { GraphQLError } from "graphql";
import { z } from "zod";
import { ANSWER_MAX_CHARS } from "../attention/detect.js";
import type { InboxChange } from "../attention/types.js";
import { visibleWorkspaces } from "../auth/roles.js";
import { InvalidState, NotFound, ValidationFailed } from "../errors.js";
import type { InboxItem } from "../generated/prisma/client.js";
import { builder } from "../schema/builder.js";
import { agentOfCursor } from "../schema/connections.js";
import type { GraphQLContext } from "../schema/context.js";
import { DAEMON_ERRORS, domain, mutationErrors as errors } from "../schema/errors.js";
import {
  InboxChangedRef,
  InboxFilterRef,
  InboxItemConnectionRef,
  InboxItemRef,
  inboxChangeMatches,
  inboxCursorArgs,
  inboxFilterWhere,
  inboxItemIdOf,
  inboxItemVisible,
  inboxVisibleWhere,
  type InboxChangedItem,
  type InboxFilterArg,
} from "../schema/inbox.js";

/** Most changes buffered for one `inboxChanges` subscriber before it is ended as fallen behind. */
export const INBOX_CHANGES_BUFFER = 1000;

// Inputs ------------------------------------------------------------------------------------------

const ITEM_DESCRIPTION = "The item: its id (InboxItem.id, a global id) or its 12-hex itemId.";
const ITEM = z
  .unknown()
  .refine(
    (v) => inboxItemIdOf(String(v)) !== null,
    "not an inbox item id (an InboxItem's id or its 12-hex itemId)",
  );
const TEXT = z
  .string()
  .refine((t) => t.trim() !== "", "must not be empty")
  .refine((t) => t.length <= ANSWER_MAX_CHARS, `must be at most ${ANSWER_MAX_CHARS} characters`);

type InputFields = Parameters<NonNullable<Parameters<typeof builder.inputType>[1]["fields"]>>[0];
const itemField = (t: InputFields) => t.id({ required: true, description: ITEM_DESCRIPTION, validate: ITEM });

const AnswerInboxItemInput = builder.inputType("AnswerInboxItemInput", {
  description: "An answer to a QUESTION, or the changes asked of a PLAN.",
  fields: (t) => ({
    item: itemField(t),
    text: t.string({
      required: true,
      description: `What to send to the agent (1–${ANSWER_MAX_CHARS} characters, not only whitespace).`,
      validate: TEXT,
    }),
  }),
});

const ApproveInboxItemInput = builder.inputType("ApproveInboxItemInput", {
  description: "The approval of a PLAN.",
  fields: (t) => ({
    item: itemField(t),
    text: t.string({
      required: false,
      description:
        'What to send to the agent; default "The plan is approved. Go ahead." (1–100000 characters when given).',
      validate: TEXT,
    }),
  }),
});

const itemInput = (name: string, description: string) =>
  builder.inputType(name, { description, fields: (t) => ({ item: itemField(t) }) });

const AcknowledgeInboxItemInput = itemInput("AcknowledgeInboxItemInput", "The item to acknowledge.");
const DismissInboxItemInput = itemInput("DismissInboxItemInput", "The item to dismiss.");

const SnoozeInboxItemInput = builder.inputType("SnoozeInboxItemInput", {
  description: "The item to snooze, and until when.",
  fields: (t) => ({
    item: itemField(t),
    until: t.field({
      type: "DateTime",
      required: true,
      description: "When it opens again: in the future, at most 30 days ahead.",
    }),
  }),
});

// Payloads ----------------------------------------------------------------------------------------

/** What an inbox mutation's payload resolves from. */
interface InboxPayload {
  item: InboxItem;
  /** The item's workspace and agent (for the audit row, src/schema/audit-plugin.ts `auditTargets`). */
  workspace: string | null;
  agentId: string | null;
}

const payload = (name: string, description: string, itemDescription: string) =>
  builder.objectRef<InboxPayload>(name).implement({
    description,
    fields: (t) => ({
      item: t.field({ type: InboxItemRef, description: itemDescription, resolve: (p) => p.item }),
    }),
  });

const AnswerInboxItemPayload = payload(
  "AnswerInboxItemPayload",
  "An answer sent to the agent.",
  "The item, closed ANSWERED.",
);
const ApproveInboxItemPayload = payload(
  "ApproveInboxItemPayload",
  "A plan approved (the approval sent to the agent).",
  "The item, closed APPROVED.",
);
const AcknowledgeInboxItemPayload = payload(
  "AcknowledgeInboxItemPayload",
  "An acknowledged item.",
  "The item, closed ACKNOWLEDGED.",
);
const SnoozeInboxItemPayload = payload("SnoozeInboxItemPayload", "A snoozed item.", "The item, SNOOZED.");
const DismissInboxItemPayload = payload(
  "DismissInboxItemPayload",
  "A dismissed item.",
  "The item, closed DISMISSED.",
);

/** The raw item id of a validated `item` argument. */
const itemArg = (raw: string | number): string => inboxItemIdOf(String(raw)) ?? "";

/** The scope rule of every inbox mutation: operator within the item's workspace. */
const operatorOfItem = (_p: unknown, { input }: { input: { item: string | number } }) => ({
  role: "operator" as const,
  inboxItem: itemArg(input.item),
});

const by = (ctx: { auth: { name: string } }): string => ctx.auth.name;

/** The payload of a changed item. */
const done = (item: InboxItem): InboxPayload => ({ item, workspace: item.workspace, agentId: item.agentId });

// Live changes ------------------------------------------------------------------------------------

/**
 * The items of one `inboxChanges` subscription: changes of items the token may see that match the
 * filter, each with the token's `openCount` after it (counted when the item is delivered). Bounded:
 * a subscriber {@link INBOX_CHANGES_BUFFER} changes behind is ended with an error (it re-queries
 * `inbox` and subscribes again). `return()` stops listening at once.
 */
class InboxChangeStream implements AsyncIterableIterator<InboxChangedItem> {
  private readonly queue: InboxChange[] = [];
  private wake: (() => void) | null = null;
  private done = false;
  private fellBehind = false;
  private readonly off: () => void;

  constructor(
    private readonly ctx: GraphQLContext,
    filter: InboxFilterArg | null | undefined,
  ) {
    this.off = ctx.inbox.onChange((c) => {
      if (this.done || this.fellBehind) return;
      if (!inboxItemVisible(ctx.auth, c.item) || !inboxChangeMatches(filter, c.change, c.item)) return;
      if (this.queue.length >= INBOX_CHANGES_BUFFER) {
        this.fellBehind = true;
        this.queue.length = 0;
      } else this.queue.push(c);
      this.wake?.();
      this.wake = null;
    });
  }

  async next(): Promise<IteratorResult<InboxChangedItem>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      if (this.fellBehind) {
        await this.return();
        throw new GraphQLError(
          `inboxChanges fell more than ${INBOX_CHANGES_BUFFER} changes behind: query inbox again and subscribe again`,
          { extensions: { code: "FELL_BEHIND" } },
        );
      }
      const c = this.queue.shift();
      if (c) {
        const openCount = await this.ctx.inbox.openCount(visibleWorkspaces(this.ctx.auth));
        return { done: false, value: { change: c.change, item: c.item, openCount } };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async return(): Promise<IteratorResult<InboxChangedItem>> {
    if (!this.done) {
      this.done = true;
      this.off();
      this.wake?.();
      this.wake = null;
    }
    return { done: true, value: undefined };
  }

  async throw(err?: unknown): Promise<IteratorResult<InboxChangedItem>> {
    await this.return();
    throw err;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

// Fields ------------------------------------------------------------------------------------------

builder.queryFields((t) => ({
  inbox: t.prismaConnection(
    {
      type: "InboxItem",
      cursor: "id",
      nullable: true,
      description:
        "The operator inbox, newest first: by default the items that need a person (OPEN and SNOOZED); give filter.states with CLOSED for history. `openCount` is the number of OPEN items the token may see. Viewer role; a token limited to workspaces sees only their items (fleet-wide alerts need a token not limited to workspaces). Null (with an error) when an argument is bad.",
      authScopes: { role: "viewer" },
      args: { filter: t.arg({ type: InboxFilterRef, required: false, description: "Which items." }) },
      validate: inboxCursorArgs(),
      // AND: a filter on another workspace must not widen the token's view.
      totalCount: (_root, args, ctx) =>
        ctx.prisma.inboxItem.count({
          where: { AND: [inboxVisibleWhere(ctx), inboxFilterWhere(args.filter)] },
        }),
      resolve: async (query, _root, args, ctx) => {
        // A cursor is a position only among the items the token may see.
        for (const c of [args.after, args.before]) {
          if (c == null) continue;
          const seen = await ctx.prisma.inboxItem.count({
            where: { AND: [inboxVisibleWhere(ctx), { id: agentOfCursor(c) }] },
          });
          if (seen === 0)
            throw new ValidationFailed([
              { path: [c === args.after ? "after" : "before"], message: "not a cursor of this connection" },
            ]);
        }
        return ctx.prisma.inboxItem.findMany({
          ...query,
          where: { AND: [inboxVisibleWhere(ctx), inboxFilterWhere(args.filter)] },
          orderBy: [{ openedAt: "desc" }, { id: "desc" }],
        });
      },
    },
    InboxItemConnectionRef,
  ),
}));

builder.subscriptionFields((t) => ({
  inboxChanges: t.field({
    type: InboxChangedRef,
    description:
      "Live changes of the inbox (opened, updated, snoozed, reopened, escalated, closed), each with the token's openCount after it. Live only: query `inbox` first, then subscribe (and query again after a reconnect). `filter.states` selects by the state after the change, but changes that take an item out of view (CLOSED, SNOOZED) always come. Viewer role; only the items the token may see.",
    authScopes: { role: "viewer" },
    args: { filter: t.arg({ type: InboxFilterRef, required: false, description: "Which items." }) },
    subscribe: (_root, args, ctx) => new InboxChangeStream(ctx, args.filter),
    resolve: (c: InboxChangedItem) => c,
  }),
}));

builder.mutationFields((t) => ({
  answerInboxItem: t.field({
    type: AnswerInboxItemPayload,
    description:
      "Answer a QUESTION (or send changes to a PLAN): the text goes to the agent as input (an idle or running interactive agent accepts it), then the item closes ANSWERED. A closed item, another kind, or an agent that no longer waits is an InvalidStateError; when the input cannot be delivered (UnreachableError, …) the item stays open. Operator role within the item's workspace (an item outside the token's scope is a NotFoundError).",
    errors: errors("AnswerInboxItem", [NotFound, InvalidState, ...DAEMON_ERRORS]),
    authScopes: operatorOfItem,
    args: { input: t.arg({ type: AnswerInboxItemInput, required: true, description: "The answer." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => done(await ctx.inbox.answer(itemArg(input.item), input.text, by(ctx)))),
  }),
  approveInboxItem: t.field({
    type: ApproveInboxItemPayload,
    description:
      'Approve a PLAN: the approval (text, default "The plan is approved. Go ahead.") goes to the agent, then the item closes APPROVED. Errors as answerInboxItem; an item that is not a PLAN is an InvalidStateError. Operator role within the item\'s workspace.',
    errors: errors("ApproveInboxItem", [NotFound, InvalidState, ...DAEMON_ERRORS]),
    authScopes: operatorOfItem,
    args: { input: t.arg({ type: ApproveInboxItemInput, required: true, description: "The approval." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => done(await ctx.inbox.approve(itemArg(input.item), by(ctx), input.text ?? null))),
  }),
  acknowledgeInboxItem: t.field({
    type: AcknowledgeInboxItemPayload,
    description:
      "Acknowledge an item of any kind (a failure seen, an alert noted): it closes ACKNOWLEDGED. A closed item is an InvalidStateError. Operator role within the item's workspace.",
    errors: errors("AcknowledgeInboxItem", [NotFound, InvalidState]),
    authScopes: operatorOfItem,
    args: { input: t.arg({ type: AcknowledgeInboxItemInput, required: true, description: "The item." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => done(await ctx.inbox.acknowledge(itemArg(input.item), by(ctx)))),
  }),
  snoozeInboxItem: t.field({
    type: SnoozeInboxItemPayload,
    description:
      "Hide an item until `until` (in the future, at most 30 days ahead): SNOOZED, then OPEN again and notified again. Snoozing a snoozed item moves its end. A closed item is an InvalidStateError. Operator role within the item's workspace.",
    errors: errors("SnoozeInboxItem", [NotFound, InvalidState]),
    authScopes: operatorOfItem,
    args: { input: t.arg({ type: SnoozeInboxItemInput, required: true, description: "The snooze." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => done(await ctx.inbox.snooze(itemArg(input.item), input.until.getTime(), by(ctx)))),
  }),
  dismissInboxItem: t.field({
    type: DismissInboxItemPayload,
    description:
      "Dismiss an item as not needed: it closes DISMISSED. A closed item is an InvalidStateError. Operator role within the item's workspace.",
    errors: errors("DismissInboxItem", [NotFound, InvalidState]),
    authScopes: operatorOfItem,
    args: { input: t.arg({ type: DismissInboxItemInput, required: true, description: "The item." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => done(await ctx.inbox.dismiss(itemArg(input.item), by(ctx)))),
  }),
}));
