/**
 * The webhooks' read types (issue 15 item 3): enums `WebhookFormat`, `WebhookEventType` and
 * `WebhookDeliveryState` (each with UNKNOWN for a stored value this gateway does not know), and the
 * Relay Nodes `Webhook` (a registered hook; never its secret: no field exposes it) and
 * `WebhookDelivery` (one notification to one hook, with its attempts), plus their connections.
 * Root fields and mutations are in src/resolvers/webhooks.ts; the service is src/attention/webhooks.ts.
 *
 * Every field is for admins not limited to workspaces: a hook receives every workspace's
 * notifications, so seeing or changing one is fleet-wide.
 */
import { displayUrl } from "../attention/url-policy.js";
import { builder, registerNode } from "./builder.js";
import { connectionTotal, prismaCursorArgs } from "./connections.js";
import { eventsOf } from "../attention/webhooks.js";
import { NOTIFICATION_TYPES, type NotificationType } from "../attention/types.js";

/** The rule of every webhook type and field: admin, not limited to workspaces. */
export const FLEET_ADMIN = { role: "admin", allWorkspaces: true } as const;

/** The raw id of a webhook or a delivery: 12 lowercase hex characters. */
export const WEBHOOK_ID = /^[0-9a-f]{12}$/;

/** Cursor rule of the webhook and delivery connections (`GPC:S:<12 hex>`, the form of agent ids). */
export const webhookCursorArgs = () => prismaCursorArgs("agent");

/** GraphQL `WebhookFormat`: the body a hook receives. */
export const WebhookFormatEnum = builder.enumType("WebhookFormat", {
  description: "The body a webhook receives (docs/webhooks.md).",
  values: {
    JSON: {
      value: "JSON",
      description: 'Prospero\'s JSON body, version 1 (`{"version":1,"id":…,"type":…,…}`), signed.',
    },
    SLACK: {
      value: "SLACK",
      description: "A Slack incoming-webhook body (`text` and `blocks`), signed like JSON.",
    },
    UNKNOWN: { value: "unknown", description: "A format this gateway does not know." },
  } as const,
});

/** Map a stored format onto {@link WebhookFormatEnum}'s internal values. */
export function formatValue(raw: string): "JSON" | "SLACK" | "unknown" {
  return raw === "JSON" || raw === "SLACK" ? raw : "unknown";
}

/** Descriptions of the notification types, by stored name. */
const EVENT_DESCRIPTIONS: Record<NotificationType, string> = {
  "inbox.opened": "An inbox item opened (any kind), or a snoozed one came back (`data.reopened`).",
  "inbox.closed": "An inbox item closed (answered, approved, acknowledged, dismissed or resolved).",
  "inbox.escalated": "An inbox item stayed open longer than --inbox-escalate-after-ms.",
  "run.failed": "A run failed or crashed.",
  "run.timed_out": "A launch's run exceeded its timeout.",
  "alert.opened": "A health check started failing.",
  "alert.resolved": "A failing health check cleared.",
  "schedule.skipped": "A schedule's fire time was skipped (overlap policy, missed while down, …).",
  ping: "A test notification (testWebhook); always sent, whatever the hook's events.",
};

/** The GraphQL name of a notification type: `inbox.opened` → `INBOX_OPENED`. */
export function eventTypeName(t: NotificationType): string {
  return t.toUpperCase().replace(/\./g, "_");
}

/**
 * GraphQL `WebhookEventType`: internal values are the notification types (`run.failed`, …), so
 * INBOX_OPENED ↔ `inbox.opened`; UNKNOWN (`unknown`) for a stored type this gateway does not know.
 */
export const WebhookEventTypeEnum = builder.enumType("WebhookEventType", {
  description:
    "A notification type a webhook can receive; the JSON body's `type` and the `X-Prospero-Event` header carry its dotted name (INBOX_OPENED = `inbox.opened`, RUN_FAILED = `run.failed`, …).",
  values: {
    ...Object.fromEntries(
      NOTIFICATION_TYPES.map((t) => [
        eventTypeName(t),
        { value: t, description: `\`${t}\`: ${EVENT_DESCRIPTIONS[t]}` },
      ]),
    ),
    UNKNOWN: { value: "unknown", description: "A type this gateway does not know." },
  } as Record<string, { value: NotificationType | "unknown"; description: string }>,
});

/** Map a stored notification type onto {@link WebhookEventTypeEnum}'s internal values. */
export function eventTypeValue(raw: string): NotificationType | "unknown" {
  return (NOTIFICATION_TYPES as readonly string[]).includes(raw) ? (raw as NotificationType) : "unknown";
}

/** GraphQL `WebhookDeliveryState`. */
export const WebhookDeliveryStateEnum = builder.enumType("WebhookDeliveryState", {
  description: "Where a delivery is: PENDING (attempts left) → DELIVERED | FAILED.",
  values: {
    PENDING: {
      value: "PENDING",
      description: "Not delivered yet: the next attempt is at nextAttemptAt (retries back off to 5 min).",
    },
    DELIVERED: { value: "DELIVERED", description: "The receiver answered 2xx (final)." },
    FAILED: {
      value: "FAILED",
      description: "Every attempt failed, or the webhook was deleted first (final; see lastError).",
    },
    UNKNOWN: { value: "unknown", description: "A state this gateway does not know." },
  } as const,
});

/** Map a stored delivery state onto {@link WebhookDeliveryStateEnum}'s internal values. */
export function deliveryStateValue(raw: string): "PENDING" | "DELIVERED" | "FAILED" | "unknown" {
  return raw === "PENDING" || raw === "DELIVERED" || raw === "FAILED" ? raw : "unknown";
}

registerNode("WebhookDelivery", WEBHOOK_ID);

/** The WebhookDelivery node type. */
export const WebhookDeliveryRef = builder.prismaNode("WebhookDelivery", {
  id: { field: "id" },
  nullable: true,
  description:
    "One notification to one webhook: its state and attempts. Delivery is at least once: a receiver deduplicates on `deliveryId` (the X-Prospero-Delivery header) or the body's notification `id`.",
  authScopes: FLEET_ADMIN,
  fields: (t) => ({
    deliveryId: t.exposeString("id", {
      description: "The delivery's 12-hex id, sent as the X-Prospero-Delivery header on every attempt.",
    }),
    eventType: t.field({
      type: WebhookEventTypeEnum,
      description: "The notification's type.",
      resolve: (d) => eventTypeValue(d.eventType),
    }),
    notificationId: t.exposeString("notificationId", {
      description:
        "The notification's id (the JSON body's `id`): the same for every webhook it went to, e.g. `run.failed:<item>:<n>`.",
    }),
    state: t.field({
      type: WebhookDeliveryStateEnum,
      description: "Where it is.",
      resolve: (d) => deliveryStateValue(d.state),
    }),
    attempts: t.exposeInt("attempts", { description: "Attempts made so far." }),
    lastStatus: t.exposeInt("lastStatus", {
      nullable: true,
      description: "HTTP status of the last attempt; null when none was made or no response came.",
    }),
    lastError: t.exposeString("lastError", {
      nullable: true,
      description:
        "Why the last attempt failed, one line (e.g. `HTTP 500 Internal Server Error: …`, `timed out after 10000 ms without a response`); null after a success or before any attempt.",
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When the notification arrived for this webhook.",
      resolve: (d) => d.createdAt,
    }),
    lastAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the last attempt ended; null before the first.",
      resolve: (d) => d.lastAttemptAt,
    }),
    nextAttemptAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the next attempt is due (PENDING only); null once final.",
      resolve: (d) => (d.state === "PENDING" ? d.nextAttemptAt : null),
    }),
    deliveredAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the receiver answered 2xx; null otherwise.",
      resolve: (d) => d.deliveredAt,
    }),
  }),
});

/** The connection type of a webhook's deliveries. */
export const WebhookDeliveryConnectionRef = builder.connectionObject(
  {
    type: WebhookDeliveryRef,
    name: "WebhookDeliveryConnection",
    description: "A page of a webhook's deliveries, newest first.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Deliveries of the webhook, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "WebhookDeliveryEdge", description: "A delivery and its cursor." },
);

registerNode("Webhook", WEBHOOK_ID);

/** The Webhook node type (registered hooks only: a deleted one reads as null). */
export const WebhookRef = builder.prismaNode("Webhook", {
  id: { field: "id" },
  findUnique: (id) => ({ id, deletedAt: null }),
  nullable: true,
  description:
    "An HTTP endpoint that receives notifications (docs/webhooks.md): each one POSTed with an HMAC-SHA256 signature made with the webhook's secret, which is shown once by createWebhook and never again.",
  authScopes: FLEET_ADMIN,
  fields: (t) => ({
    webhookId: t.exposeString("id", {
      description: "The webhook's 12-hex id (the mutations also take it instead of `id`).",
    }),
    name: t.exposeString("name", { description: "Name for people." }),
    url: t.string({
      description:
        "Where notifications are POSTed (http or https, no credentials; redirects are not followed), as a URL with every token-like path segment (16+ letters, digits, `_-.`, both letters and digits) and every query value shown as `…`: hook URLs such as Slack's carry their secret in the path, and no secret is returned.",
      resolve: (h) => displayUrl(h.url),
    }),
    format: t.field({
      type: WebhookFormatEnum,
      description: "The body it receives.",
      resolve: (h) => formatValue(h.format),
    }),
    events: t.field({
      type: [WebhookEventTypeEnum],
      description:
        "The notification types it receives (PING also comes from testWebhook whatever this says).",
      resolve: (h) => eventsOf(h),
    }),
    enabled: t.exposeBoolean("enabled", {
      description: "A disabled webhook receives nothing; its pending deliveries wait until it is enabled.",
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was created.",
      resolve: (h) => h.createdAt,
    }),
    createdBy: t.exposeString("createdBy", {
      nullable: true,
      description: "Name of the token that created it.",
    }),
    deliveries: t.relatedConnection(
      "deliveries",
      {
        cursor: "id",
        totalCount: true,
        description: "Its deliveries, newest first; pages with first/after or last/before.",
        validate: webhookCursorArgs(),
        query: () => ({ orderBy: [{ createdAt: "desc" }, { id: "desc" }] }),
      },
      WebhookDeliveryConnectionRef,
    ),
    lastDelivery: t.prismaField({
      type: "WebhookDelivery",
      nullable: true,
      description: "Its newest delivery; null before the first.",
      resolve: (query, h, _a, ctx) =>
        ctx.prisma.webhookDelivery.findFirst({
          ...query,
          where: { webhookId: h.id },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        }),
    }),
  }),
});

/** The connection type of webhooks (Query.webhooks). */
export const WebhookConnectionRef = builder.connectionObject(
  {
    type: WebhookRef,
    name: "WebhookConnection",
    description: "A page of webhooks.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Registered webhooks, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "WebhookEdge", description: "A webhook and its cursor." },
);
