/**
 * Root fields of the webhooks (issue 15 item 3): `webhooks` (a connection), `webhook(id:)`, and the
 * mutations `createWebhook` (the only answer that carries the secret), `updateWebhook`,
 * `deleteWebhook` and `testWebhook`. Every one is for admins not limited to workspaces (a hook
 * receives every workspace's notifications); each mutation takes one `input:`, returns a
 * `<Name>Result` union of its payload and the typed errors it can produce, is audited by the audit
 * plugin (the `secret` input is marked sensitive, so the audit row stores `[redacted]`), delegates
 * to the webhook service (`ctx.webhooks`, src/attention/webhooks.ts) and changes nothing when it
 * fails. Types are in src/schema/webhooks.ts.
 *
 * A webhook argument (`webhook:` of the inputs, `id:` of Query.webhook) takes the Webhook's
 * global id or its 12-hex webhookId.
 */
import { decodeGlobalID } from "@pothos/plugin-relay";
import { z } from "zod";
import type { NotificationType } from "../attention/types.js";
import type { WebhookPatch } from "../attention/webhooks.js";
import { InvalidState, NotFound, ValidationFailed } from "../errors.js";
import { builder } from "../schema/builder.js";
import { domain, mutationErrors } from "../schema/errors.js";
import {
  FLEET_ADMIN,
  WEBHOOK_ID,
  WebhookConnectionRef,
  WebhookEventTypeEnum,
  WebhookFormatEnum,
  webhookCursorArgs,
} from "../schema/webhooks.js";

/**
 * The raw id a webhook argument names: a Webhook global id or a 12-hex webhookId; null for
 * anything else (another type's global id, garbage).
 */
export function webhookIdOf(raw: string): string | null {
  if (WEBHOOK_ID.test(raw)) return raw;
  try {
    const g = decodeGlobalID(raw);
    return g.typename === "Webhook" && WEBHOOK_ID.test(g.id) ? g.id : null;
  } catch {
    return null;
  }
}

/** The webhook a mutation's input names. @throws ValidationFailed at `["input", "webhook"]`. */
function hookArg(raw: string | number): string {
  const id = webhookIdOf(String(raw));
  if (id === null) {
    throw new ValidationFailed([
      { path: ["input", "webhook"], message: "not a webhook id (a Webhook's id or its 12-hex webhookId)" },
    ]);
  }
  return id;
}

/** Notification types of an events argument (UNKNOWN stays `unknown`: the service refuses it). */
const eventsArg = (events: readonly string[]): NotificationType[] => events as NotificationType[];

/** The format of an argument (UNKNOWN stays `unknown`: the service refuses it). */
const formatArg = (f: string): "JSON" | "SLACK" => f as "JSON" | "SLACK";

/** A bound on an events list (there are fewer types; duplicates are merged). */
const EVENTS_LIST = z.array(z.unknown()).max(50, "at most 50 items");

// Queries -----------------------------------------------------------------------------------------

builder.queryFields((t) => ({
  webhooks: t.prismaConnection(
    {
      type: "Webhook",
      cursor: "id",
      nullable: true,
      description:
        "Registered webhooks, oldest first (never their secrets). Admin role, not limited to workspaces. Null (with an error) when an argument is bad.",
      authScopes: FLEET_ADMIN,
      validate: webhookCursorArgs(),
      totalCount: (_r, _a, ctx) => ctx.prisma.webhook.count({ where: { deletedAt: null } }),
      resolve: (query, _r, _a, ctx) =>
        ctx.prisma.webhook.findMany({
          ...query,
          where: { deletedAt: null },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        }),
    },
    WebhookConnectionRef,
  ),
  webhook: t.prismaField({
    type: "Webhook",
    nullable: true,
    description:
      "One registered webhook by its id or 12-hex webhookId, or null when it is unknown or deleted. Admin role, not limited to workspaces.",
    authScopes: FLEET_ADMIN,
    args: { id: t.arg.id({ required: true, description: "The Webhook's id or its webhookId." }) },
    resolve: (query, _r, args, ctx) => {
      const id = webhookIdOf(String(args.id));
      return id === null ? null : ctx.prisma.webhook.findFirst({ ...query, where: { id, deletedAt: null } });
    },
  }),
}));

// Inputs ------------------------------------------------------------------------------------------

const CreateWebhookInput = builder.inputType("CreateWebhookInput", {
  description: "A webhook to register.",
  fields: (t) => ({
    name: t.string({ required: true, description: "Name for people (1–100 characters)." }),
    url: t.string({
      required: true,
      description:
        "Where to POST: an http or https URL of at most 2048 characters, without credentials or fragment, not this gateway itself. Redirects are not followed. Stored redacted in the audit log (a hook URL can be a credential); reads show it with token-like parts as `…`.",
      extensions: { sensitive: true },
    }),
    events: t.field({
      type: [WebhookEventTypeEnum],
      required: true,
      description: "The notification types it receives (at least one).",
      validate: EVENTS_LIST,
    }),
    format: t.field({
      type: WebhookFormatEnum,
      required: false,
      defaultValue: "JSON",
      description: "The body it receives. Default JSON.",
    }),
    secret: t.string({
      required: false,
      description:
        "The HMAC-SHA256 key of its signatures (16–256 characters, no spaces); omit it to have 32 random bytes generated. Write-only: returned once by this mutation, never shown again, stored redacted in the audit log.",
      extensions: { sensitive: true },
    }),
  }),
});

/** The input field naming one webhook. */
const WEBHOOK_FIELD = "The Webhook's id or its 12-hex webhookId.";

const UpdateWebhookInput = builder.inputType("UpdateWebhookInput", {
  description: "Changes to a webhook; absent (or null) fields stay as they are.",
  fields: (t) => ({
    webhook: t.id({ required: true, description: WEBHOOK_FIELD }),
    name: t.string({ required: false, description: "New name (1–100 characters)." }),
    url: t.string({
      required: false,
      description: "New URL (the rules of createWebhook; stored redacted in the audit log).",
      extensions: { sensitive: true },
    }),
    events: t.field({
      type: [WebhookEventTypeEnum],
      required: false,
      description: "New notification types (at least one).",
      validate: EVENTS_LIST,
    }),
    format: t.field({ type: WebhookFormatEnum, required: false, description: "New body format." }),
    enabled: t.boolean({
      required: false,
      description:
        "False: it receives nothing and its pending deliveries wait; true: they resume and new notifications come again.",
    }),
  }),
});

const DeleteWebhookInput = builder.inputType("DeleteWebhookInput", {
  description: "The webhook to delete.",
  fields: (t) => ({ webhook: t.id({ required: true, description: WEBHOOK_FIELD }) }),
});

const TestWebhookInput = builder.inputType("TestWebhookInput", {
  description: "The webhook to send a test notification to.",
  fields: (t) => ({ webhook: t.id({ required: true, description: WEBHOOK_FIELD }) }),
});

// Payloads ----------------------------------------------------------------------------------------

const CreateWebhookPayload = builder
  .objectRef<{ webhookId: string; secret: string }>("CreateWebhookPayload")
  .implement({
    description: "A new webhook and its secret. The secret is shown this once: store it now.",
    fields: (t) => ({
      webhook: t.prismaField({
        type: "Webhook",
        description: "The webhook.",
        resolve: (query, p, _a, ctx) =>
          ctx.prisma.webhook.findUniqueOrThrow({ ...query, where: { id: p.webhookId } }),
      }),
      secret: t.exposeString("secret", {
        description:
          "The key of its X-Prospero-Signature HMACs (docs/webhooks.md shows how a receiver checks them). Never shown again.",
      }),
    }),
  });

/** A payload holding just the webhook after the operation, one type per mutation. */
const webhookPayload = (name: string, description: string, field: string) =>
  builder.objectRef<{ webhookId: string }>(name).implement({
    description,
    fields: (t) => ({
      webhook: t.prismaField({
        type: "Webhook",
        description: field,
        resolve: (query, p, _a, ctx) =>
          ctx.prisma.webhook.findUniqueOrThrow({ ...query, where: { id: p.webhookId } }),
      }),
    }),
  });

const UpdateWebhookPayload = webhookPayload("UpdateWebhookPayload", "A changed webhook.", "The webhook.");
const DeleteWebhookPayload = webhookPayload(
  "DeleteWebhookPayload",
  "A deleted webhook: it receives nothing more; its pending deliveries ended FAILED (`webhook deleted`).",
  "The webhook as it was deleted.",
);

const TestWebhookPayload = builder.objectRef<{ deliveryId: string }>("TestWebhookPayload").implement({
  description: "A test notification on its way.",
  fields: (t) => ({
    delivery: t.prismaField({
      type: "WebhookDelivery",
      description:
        "Its delivery, PENDING when returned (the attempt runs in the background: read it again, or Webhook.lastDelivery).",
      resolve: (query, p, _a, ctx) =>
        ctx.prisma.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: p.deliveryId } }),
    }),
  }),
});

// Mutations ---------------------------------------------------------------------------------------

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreateWebhookPayload,
    description:
      "Register a webhook: from now on every notification of its event types is POSTed to its URL, signed with its secret (returned here, once), retried with backoff up to 8 attempts. Admin role, not limited to workspaces.",
    errors: mutationErrors("CreateWebhook", []),
    authScopes: FLEET_ADMIN,
    args: { input: t.arg({ type: CreateWebhookInput, required: true, description: "The webhook." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const res = await ctx.webhooks.create(
          {
            name: input.name,
            url: input.url,
            events: eventsArg(input.events),
            format: formatArg(input.format ?? "JSON"),
            secret: input.secret ?? null,
          },
          ctx.auth.name,
        );
        return { webhookId: res.webhook.id, secret: res.secret };
      }),
  }),
  updateWebhook: t.field({
    type: UpdateWebhookPayload,
    description:
      "Change a webhook's name, URL, events, format, or enable/disable it. Admin role, not limited to workspaces.",
    errors: mutationErrors("UpdateWebhook", [NotFound]),
    authScopes: FLEET_ADMIN,
    args: { input: t.arg({ type: UpdateWebhookInput, required: true, description: "The changes." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const patch: WebhookPatch = {};
        if (input.name != null) patch.name = input.name;
        if (input.url != null) patch.url = input.url;
        if (input.events != null) patch.events = eventsArg(input.events);
        if (input.format != null) patch.format = formatArg(input.format);
        if (input.enabled != null) patch.enabled = input.enabled;
        const h = await ctx.webhooks.update(hookArg(input.webhook), patch, ctx.auth.name);
        return { webhookId: h.id };
      }),
  }),
  deleteWebhook: t.field({
    type: DeleteWebhookPayload,
    description:
      "Delete a webhook: it receives nothing more and its pending deliveries end FAILED (`webhook deleted`); its delivery log stays until retention. Admin role, not limited to workspaces.",
    errors: mutationErrors("DeleteWebhook", [NotFound]),
    authScopes: FLEET_ADMIN,
    args: { input: t.arg({ type: DeleteWebhookInput, required: true, description: "The webhook." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const h = await ctx.webhooks.remove(hookArg(input.webhook), ctx.auth.name);
        return { webhookId: h.id };
      }),
  }),
  testWebhook: t.field({
    type: TestWebhookPayload,
    description:
      "Send a `ping` notification to this webhook only (whatever its events); the delivery is returned PENDING and attempted in the background like any other. A disabled webhook is an InvalidStateError. Admin role, not limited to workspaces.",
    errors: mutationErrors("TestWebhook", [NotFound, InvalidState]),
    authScopes: FLEET_ADMIN,
    args: { input: t.arg({ type: TestWebhookInput, required: true, description: "The webhook." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const d = await ctx.webhooks.test(hookArg(input.webhook), ctx.auth.name);
        return { deliveryId: d.id };
      }),
  }),
}));
