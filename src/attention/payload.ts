/**
 * What a webhook receives (issue 15 item 3), as pure functions: the request body of a
 * {@link Notification} in each format (JSON v1 and Slack), the request headers, and the
 * signature — `X-Prospero-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` with
 * the unix-seconds timestamp of `X-Prospero-Timestamp` — plus {@link verifySignature}, the check a
 * receiver runs. docs/webhooks.md documents every shape here; keep the two in step.
 *
 * No clock, no I/O, no randomness: the service (src/attention/webhooks.ts) passes the time and
 * the delivery id in.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Notification, NotificationType, NotificationValue } from "./types.js";

/** The `version` field of a JSON body; bumped only for an incompatible change of its shape. */
export const JSON_BODY_VERSION = 1;

/** Body formats of a webhook (`Webhook.format`). */
export const WEBHOOK_FORMATS = ["JSON", "SLACK"] as const;
/** One of {@link WEBHOOK_FORMATS}. */
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Longest `title` a body carries, characters (the notifier's contract; bounded again here). */
export const TITLE_MAX = 200;
/** Longest `message` a body carries, characters (the notifier's contract; bounded again here). */
export const MESSAGE_MAX = 4_000;
/** Longest text of one Slack section block, characters (Slack's limit is 3 000). */
const SLACK_SECTION_MAX = 2_900;

/** How far `X-Prospero-Timestamp` may be from the receiver's clock by default, seconds. */
export const DEFAULT_TOLERANCE_S = 300;

/**
 * The JSON body, version 1 (`format` JSON). Field order as sent; `null` where a field does not
 * apply (a fleet-wide alert has no workspace, a skipped schedule no inbox item).
 */
export interface JsonBodyV1 {
  version: 1;
  /** The notification's id: the same for every hook it goes to, stable across retries (dedup key). */
  id: string;
  type: NotificationType;
  /** When it happened, ISO 8601 UTC with milliseconds. */
  occurredAt: string;
  workspace: string | null;
  agentId: string | null;
  inboxItemId: string | null;
  /** One line, at most {@link TITLE_MAX} characters. */
  title: string;
  /** Details, at most {@link MESSAGE_MAX} characters. */
  message: string;
  /** Link to the thing in the dashboard (never carrying a token), or null without a public URL. */
  url: string | null;
  /** Extra fields by type (kind, outcome, check, value, threshold, escalations, …): scalars only. */
  data: Record<string, NotificationValue>;
}

/** `s` cut to `max` characters (an ellipsis marks a cut). */
function bound(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/**
 * The dashboard link of a notification: its inbox item (`#/inbox/<itemId>`), else its agent
 * (`#/agent/<agentId>`), else the inbox; null when `publicUrl` is null. `publicUrl` is the
 * gateway's base URL without a token (links never carry credentials: the reader signs in).
 */
export function dashboardLink(n: Notification, publicUrl: string | null): string | null {
  if (publicUrl === null) return null;
  const base = publicUrl.replace(/\/+$/, "");
  if (n.inboxItemId !== null) return `${base}/#/inbox/${encodeURIComponent(n.inboxItemId)}`;
  if (n.agentId !== null) return `${base}/#/agent/${encodeURIComponent(n.agentId)}`;
  return `${base}/#/inbox`;
}

/** The {@link JsonBodyV1} object of `n` (see {@link renderBody} for the text sent). */
export function jsonBodyOf(n: Notification, publicUrl: string | null): JsonBodyV1 {
  return {
    version: JSON_BODY_VERSION,
    id: n.id,
    type: n.type,
    occurredAt: n.occurredAt.toISOString(),
    workspace: n.workspace,
    agentId: n.agentId,
    inboxItemId: n.inboxItemId,
    title: bound(n.title, TITLE_MAX),
    message: bound(n.message, MESSAGE_MAX),
    url: dashboardLink(n, publicUrl),
    data: { ...n.data },
  };
}

/** Emoji shown before the title in Slack, by notification type. */
const SLACK_EMOJI: Record<NotificationType, string> = {
  "inbox.opened": ":inbox_tray:",
  "inbox.closed": ":white_check_mark:",
  "inbox.escalated": ":bell:",
  "run.failed": ":x:",
  "run.timed_out": ":hourglass:",
  "alert.opened": ":rotating_light:",
  "alert.resolved": ":large_green_circle:",
  "schedule.skipped": ":fast_forward:",
  ping: ":wave:",
};

/** `s` safe inside Slack mrkdwn: `&`, `<` and `>` escaped (Slack's rule for text it must not parse). */
export function slackEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * `s` escaped ({@link slackEscape}) and cut to at most `max` characters, an ellipsis marking a
 * cut. The cut never splits an entity: a trailing `&`, `&am`, `&lt` … is dropped whole (every `&`
 * of escaped text starts an entity, so a partial one is an `&` without its `;`).
 */
export function slackEscapeBounded(s: string, max: number): string {
  const escaped = slackEscape(s);
  if (escaped.length <= max) return escaped;
  return `${escaped.slice(0, max - 1).replace(/&[a-z]*$/, "")}…`;
}

/** A Slack Block Kit block, as much of it as {@link slackBodyOf} uses. */
export type SlackBlock =
  | { type: "section"; text: { type: "mrkdwn"; text: string } }
  | { type: "context"; elements: { type: "mrkdwn"; text: string }[] }
  | {
      type: "actions";
      elements: { type: "button"; text: { type: "plain_text"; text: string }; url: string }[];
    };

/** A Slack incoming-webhook body (`format` SLACK). */
export interface SlackBody {
  /** The fallback text (push notifications, clients without blocks): the title, escaped. */
  text: string;
  blocks: SlackBlock[];
}

/**
 * The Slack body of `n` for an incoming webhook: `text` = the title (the fallback Slack shows in
 * push notifications), blocks = the title in bold with an emoji by type, the message (when there
 * is one, cut to Slack's section limit between entities, {@link slackEscapeBounded}), a context
 * line (type, workspace, agent, time) and an "Open in Prospero" button when a dashboard link
 * exists. User text is escaped everywhere, `text` included ({@link slackEscape}): it cannot
 * mention people (`<!channel>`) or make links (`<http://…|…>`).
 */
export function slackBodyOf(n: Notification, publicUrl: string | null): SlackBody {
  const title = bound(n.title, TITLE_MAX);
  const message = bound(n.message, MESSAGE_MAX);
  const blocks: SlackBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: `${SLACK_EMOJI[n.type]} *${slackEscape(title)}*` } },
  ];
  if (message.trim() !== "") {
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: slackEscapeBounded(message, SLACK_SECTION_MAX) },
    });
  }
  const context = [`\`${n.type}\``];
  if (n.workspace !== null) context.push(`workspace *${slackEscape(n.workspace)}*`);
  if (n.agentId !== null) context.push(`agent \`${slackEscape(n.agentId)}\``);
  context.push(n.occurredAt.toISOString());
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: context.join(" · ") }] });
  const url = dashboardLink(n, publicUrl);
  if (url !== null) {
    blocks.push({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open in Prospero" }, url }],
    });
  }
  return { text: slackEscape(title), blocks };
}

/**
 * The exact request body for a hook of `format`: JSON text of {@link jsonBodyOf} (JSON) or
 * {@link slackBodyOf} (SLACK). This text is what is stored (`WebhookDelivery.body`), signed and
 * sent on every attempt.
 */
export function renderBody(format: WebhookFormat, n: Notification, publicUrl: string | null): string {
  return JSON.stringify(format === "SLACK" ? slackBodyOf(n, publicUrl) : jsonBodyOf(n, publicUrl));
}

/**
 * The `X-Prospero-Signature` value: `sha256=` and the lowercase hex HMAC-SHA256, keyed with the
 * hook's secret (UTF-8), of `"<timestampS>.<body>"` (the decimal unix-seconds timestamp sent as
 * `X-Prospero-Timestamp`, a dot, the body bytes exactly as sent). Signing the timestamp lets a
 * receiver refuse a replayed request.
 */
export function signature(secret: string, timestampS: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestampS}.${body}`, "utf8").digest("hex")}`;
}

/** What a receiver got: the raw body and the two headers, as strings. */
export interface SignedRequest {
  /** The request body exactly as received (before any JSON parsing). */
  body: string;
  /** `X-Prospero-Timestamp`. */
  timestamp: string | undefined;
  /** `X-Prospero-Signature`. */
  signature: string | undefined;
}

/**
 * A receiver's check of a request (the same rule as docs/webhooks.md shows in plain Node): true
 * when `req.signature` is `sha256=<64 hex>` and equals {@link signature}(secret, timestamp, body)
 * (compared in constant time), and the timestamp is a whole number of seconds within
 * `toleranceS` (default {@link DEFAULT_TOLERANCE_S}) of `nowS` (default the current time).
 * False for anything else — a missing or malformed header, another secret, a changed body or
 * timestamp, a stale request. Never throws.
 */
export function verifySignature(
  secret: string,
  req: SignedRequest,
  opts: { toleranceS?: number; nowS?: number } = {},
): boolean {
  const { timestamp, signature: given } = req;
  if (timestamp === undefined || given === undefined) return false;
  if (!/^\d{1,15}$/.test(timestamp) || !/^sha256=[0-9a-f]{64}$/.test(given)) return false;
  const ts = Number(timestamp);
  const now = opts.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - ts) > (opts.toleranceS ?? DEFAULT_TOLERANCE_S)) return false;
  const expected = Buffer.from(signature(secret, ts, req.body), "utf8");
  const actual = Buffer.from(given, "utf8");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The values of one attempt's headers. */
export interface HeaderInput {
  /** The notification type (`X-Prospero-Event`). */
  eventType: string;
  /** The delivery's id (`X-Prospero-Delivery`): the same on every attempt of one delivery. */
  deliveryId: string;
  /** This attempt's time, unix seconds (`X-Prospero-Timestamp`). */
  timestampS: number;
  /** The body as sent. */
  body: string;
  /** The hook's secret. */
  secret: string;
  /** Prospero's version (`User-Agent: prospero/<version>`). */
  version: string;
}

/**
 * The request headers of one attempt: `Content-Type: application/json`, `User-Agent:
 * prospero/<version>`, `X-Prospero-Event`, `X-Prospero-Delivery`, `X-Prospero-Timestamp` and
 * `X-Prospero-Signature` ({@link signature}). The secret itself is never sent.
 */
export function requestHeaders(h: HeaderInput): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": `prospero/${h.version}`,
    "x-prospero-event": h.eventType,
    "x-prospero-delivery": h.deliveryId,
    "x-prospero-timestamp": String(h.timestampS),
    "x-prospero-signature": signature(h.secret, h.timestampS, h.body),
  };
}
