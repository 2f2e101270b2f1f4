/**
 * The vocabulary of operator attention (issue 15): inbox item kinds, states and actions, and the
 * notifications that the inbox and the monitor send to webhooks. Stored as these strings in the
 * InboxItem / InboxAction / WebhookDelivery rows (prisma/schema.prisma).
 */
import type { InboxItem } from "../generated/prisma/client.js";

/**
 * What an inbox item waits for: QUESTION (an interactive agent idle after a turn, its last
 * assistant message the question), PLAN (an agent shared a plan and waits for approval),
 * RUN_FAILED (a run failed, crashed or timed out and nobody acknowledged it), ALERT (a health
 * check failing).
 */
export const INBOX_KINDS = ["QUESTION", "PLAN", "RUN_FAILED", "ALERT"] as const;
/** One of {@link INBOX_KINDS}. */
export type InboxKind = (typeof INBOX_KINDS)[number];

/** OPEN (needs a person), SNOOZED (hidden until `snoozedUntil`), CLOSED (done; kept as history). */
export const INBOX_STATES = ["OPEN", "SNOOZED", "CLOSED"] as const;
/** One of {@link INBOX_STATES}. */
export type InboxState = (typeof INBOX_STATES)[number];

/**
 * How an item closed: ANSWERED (input sent), APPROVED (plan approved), ACKNOWLEDGED, DISMISSED,
 * RESOLVED (closed by itself: the agent resumed, the run ended, the check cleared, a retry).
 */
export const INBOX_RESOLUTIONS = ["ANSWERED", "APPROVED", "ACKNOWLEDGED", "DISMISSED", "RESOLVED"] as const;
/** One of {@link INBOX_RESOLUTIONS}. */
export type InboxResolution = (typeof INBOX_RESOLUTIONS)[number];

/** What an InboxAction row records. */
export const INBOX_ACTIONS = [
  "OPENED",
  "ANSWERED",
  "APPROVED",
  "ACKNOWLEDGED",
  "SNOOZED",
  "DISMISSED",
  "ESCALATED",
  "REOPENED",
  "RESOLVED",
  "UPDATED",
] as const;
/** One of {@link INBOX_ACTIONS}. */
export type InboxActionKind = (typeof INBOX_ACTIONS)[number];

/** What changed, as the live `inboxChanges` subscription reports it. */
export const INBOX_CHANGES = ["OPENED", "UPDATED", "SNOOZED", "REOPENED", "ESCALATED", "CLOSED"] as const;
/** One of {@link INBOX_CHANGES}. */
export type InboxChangeKind = (typeof INBOX_CHANGES)[number];

/** One change of the inbox, after its transaction committed. */
export interface InboxChange {
  change: InboxChangeKind;
  /** The item as stored after the change. */
  item: InboxItem;
}

/** An alert the health monitor raises (one open item per check and subject). */
export interface AlertInput {
  /** The check's id (src/attention/thresholds.ts), e.g. `daemon_unreachable`. */
  check: string;
  /** What it is about (a workspace name, an agent id, a path); null = fleet-wide. */
  subject: string | null;
  /** The workspace concerned, or null for a fleet-wide alert. */
  workspace: string | null;
  /** The agent concerned (agent_stuck), else null. */
  agentId: string | null;
  /** One line. */
  title: string;
  /** The check's message: measured value, threshold, what to do. */
  message: string;
}

/**
 * Notification types (webhook `type` field and event filter), issue 15 item 3. `ping` is only
 * sent by a webhook test.
 */
export const NOTIFICATION_TYPES = [
  "inbox.opened",
  "inbox.closed",
  "inbox.escalated",
  "run.failed",
  "run.timed_out",
  "alert.opened",
  "alert.resolved",
  "schedule.skipped",
  "ping",
] as const;
/** One of {@link NOTIFICATION_TYPES}. */
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Scalar values a notification's `data` may carry. */
export type NotificationValue = string | number | boolean | null;

/** Something a person may want to hear about, as the notifier hands it to webhooks. */
export interface Notification {
  /** Unique and stable per thing notified (e.g. `run.failed:<itemId>:<actionId>`): delivery dedup key. */
  id: string;
  type: NotificationType;
  occurredAt: Date;
  workspace: string | null;
  agentId: string | null;
  inboxItemId: string | null;
  /** One line, at most 200 characters. */
  title: string;
  /** Details, at most 4 000 characters (control characters removed, secrets redacted). */
  message: string;
  /** Extra fields by type (kind, outcome, check, value, threshold, escalations, …). */
  data: Record<string, NotificationValue>;
}
