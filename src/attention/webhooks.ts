/**
 * Webhooks (issue 15 item 3): registered HTTP endpoints that receive the notifications of the
 * inbox and the health monitor (src/attention/notify.ts), with a durable delivery log.
 *
 * - Intake: the notifier's listener returns at once. For every enabled, registered hook whose
 *   `events` include the notification's type it writes one WebhookDelivery row (PENDING, the body
 *   rendered once in the hook's format, src/attention/payload.ts), asynchronously through the
 *   store's writer; the pair (hook, notification id) is unique, so a notification emitted twice is
 *   delivered once. A failed write is logged. Notifications emitted after construction and before
 *   {@link WebhookService.start} are kept (bounded) and taken in at start.
 * - Attempts: first the URL rule "not the gateway itself" again (src/attention/url-policy.ts
 *   `gatewayAddressOf`, the same lookup: a host name may resolve to this gateway by now — DNS
 *   rebinding; such an attempt fails unsent), then one POST of the stored body with fresh headers
 *   (`X-Prospero-Timestamp` and its signature per attempt, the same `X-Prospero-Delivery`),
 *   `redirect: "manual"` (a 3xx is a failure whatever its `Location`: a hook's URL is what it
 *   says), an abort after `timeoutMs` (the injected clock's timer), the response body read at most
 *   {@link RESPONSE_READ_MAX} bytes and then cancelled (a receiver sending 10 MB is never
 *   buffered). 2xx = DELIVERED; anything else is a failed attempt, retried after `retryDelayMs`
 *   (src/queue/retry.ts: equal jitter, {@link BACKOFF} 1 s doubling to 5 min) until
 *   `maxAttempts`, then FAILED; an error thrown during an attempt is such a failure too.
 *   `lastError` is one line, without the hook's secret. Should the store fail, the delivery stays
 *   PENDING and is tried again after the same backoff (counted in memory).
 * - Scheduling: an in-memory index of the PENDING rows (loaded at start: deliveries survive a
 *   restart) drives at most one attempt per hook and `concurrency` in all; hooks take turns (the
 *   one served longest ago first), and per hook the earliest due row goes first (a delivery in
 *   backoff does not hold back newer ones). One clock timer
 *   wakes the scheduler at the next due time. Nothing on the gateway's request paths awaits an
 *   attempt.
 * - Disabling a hook pauses its PENDING deliveries (resumed when enabled again) and stops new
 *   ones; deleting it (soft: its delivery log stays until retention) marks them FAILED "webhook
 *   deleted". stop() aborts attempts in flight and leaves their rows PENDING (delivered at the next
 *   start: delivery is at least once — receivers dedup on `X-Prospero-Delivery` or the body's `id`).
 *
 * The secret is returned once by {@link WebhookService.create}, never logged, never put into an
 * error; log lines name a hook's URL by its origin only (a path may carry a token, as Slack's do).
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import type { Prisma, PrismaClient, Webhook, WebhookDelivery } from "../generated/prisma/client.js";
import { InvalidState, NotFound, ValidationFailed, type FieldIssue } from "../errors.js";
import { cleanLogText, redactSecrets } from "../fleet/worker-log.js";
import type { Logger } from "../log.js";
import { systemClock, type Clock, type TimerHandle } from "../queue/clock.js";
import { retryDelayMs } from "../queue/retry.js";
import { StoreWriter } from "../store/writer.js";
import { VERSION } from "../version.js";
import type { Notifier } from "./notify.js";
import { WEBHOOK_FORMATS, renderBody, requestHeaders, type WebhookFormat } from "./payload.js";
import { NOTIFICATION_TYPES, type Notification, type NotificationType } from "./types.js";
import {
  checkWebhookUrl,
  gatewayAddressOf,
  systemLookup,
  urlSecretParts,
  type HostLookup,
} from "./url-policy.js";

/** Per-attempt timeout by default, ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Attempts per delivery by default (then FAILED). */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** Attempts in flight at once gateway-wide by default. */
export const DEFAULT_CONCURRENCY = 4;
/** Backoff between attempts (design-15): 1 s before the second attempt, doubling, at most 5 min; equal jitter. */
export const BACKOFF = { backoffMs: 1_000, maxBackoffMs: 300_000 } as const;
/** Most bytes of a response body read (the rest is cancelled unread). */
export const RESPONSE_READ_MAX = 64 * 1024;
/** Longest `lastError`, characters. */
export const LAST_ERROR_MAX = 300;
/** Longest response excerpt quoted in `lastError`, characters. */
const EXCERPT_MAX = 160;
/** Longest webhook name, characters. */
export const NAME_MAX = 100;
/** Shortest and longest secret a caller may choose, characters. */
export const SECRET_MIN = 16;
/** See {@link SECRET_MIN}. */
export const SECRET_MAX = 256;
/** Most notifications kept between construction and start (more are dropped, logged). */
const EARLY_MAX = 10_000;

/** Delivery states (`WebhookDelivery.state`). */
export const DELIVERY_STATES = ["PENDING", "DELIVERED", "FAILED"] as const;
/** One of {@link DELIVERY_STATES}. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** `lastError` of the PENDING deliveries of a deleted hook. */
export const DELETED_ERROR = "webhook deleted";

/** What the webhook service needs. */
export interface WebhookDeps {
  db: PrismaClient;
  notifier: Notifier;
  log: Logger;
  clock?: Clock;
  /** The gateway's own listening hosts and port, to refuse hooks pointing at it; null before it listens. */
  selfAddresses: () => { hosts: string[]; port: number } | null;
  fetch?: typeof fetch;
  /** Per-attempt timeout, ms (default 10 000). */
  timeoutMs?: number;
  /** Attempts per delivery before it is FAILED (default 8). */
  maxAttempts?: number;
  /** Most deliveries in flight at once gateway-wide (default 4); one per hook at a time. */
  concurrency?: number;
  /** Base URL for links in bodies (the dashboard), or null. */
  publicUrl?: () => string | null;
  /**
   * The store's single writer (ARCHITECTURE decision 7), which every write goes through. Default:
   * a writer of this service's own on `db` (batch transactions: the adapter serializes them).
   */
  writer?: StoreWriter;
  /** Host name resolution for the URL rules (default the system resolver). */
  lookup?: HostLookup;
}

/** A webhook to register. */
export interface WebhookCreateInput {
  name: string;
  url: string;
  events: NotificationType[];
  format: "JSON" | "SLACK";
  secret?: string | null;
}

/** Changes to a webhook (absent = unchanged). */
export interface WebhookPatch {
  name?: string;
  url?: string;
  events?: NotificationType[];
  format?: "JSON" | "SLACK";
  enabled?: boolean;
}

/** Why an attempt was aborted (the signal's reason). */
type AbortWhy = "timeout" | "stopping" | "deleted";

/** One attempt in flight. */
interface InFlight {
  deliveryId: string;
  controller: AbortController;
  done: Promise<void>;
}

/** The outcome of one HTTP attempt. */
interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** Aborted before any response by stop() or deletion: nothing to record. */
  abandoned: boolean;
}

const newId = (): string => randomBytes(6).toString("hex");

/** The notification types a stored hook receives (its `events` JSON), unknown strings dropped. */
export function eventsOf(h: Pick<Webhook, "events">): NotificationType[] {
  const raw = Array.isArray(h.events) ? h.events : [];
  return raw.filter((e): e is NotificationType => (NOTIFICATION_TYPES as readonly unknown[]).includes(e));
}

/** A URL as log lines name it: its origin (a path or query may carry a token). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * `text` as one line for `lastError`: escape sequences and control characters removed, token-
 * shaped secrets redacted, every occurrence of `hide` (the hook's secret and URL) replaced by
 * `[redacted]`, whitespace collapsed, at most {@link LAST_ERROR_MAX} characters.
 */
export function oneLine(text: string, hide: readonly string[]): string {
  let s = redactSecrets(cleanLogText(text));
  for (const h of hide) if (h.length >= 4) s = s.split(h).join("[redacted]");
  s = s.replace(/\s+/g, " ").trim();
  return s.length <= LAST_ERROR_MAX ? s : `${s.slice(0, LAST_ERROR_MAX - 1)}…`;
}

/**
 * A thrown value in words for a log line or `lastError`: its name and message only — never the
 * error object's own fields (a `TypeError: Invalid URL` of `new URL` carries the whole URL in
 * `input` and `base`, and pino's error serializer would log them) — with every `http(s)://` URL in
 * it cut to its origin, and put through {@link oneLine} with `hide` redacted.
 */
function errorText(err: unknown, hide: readonly string[]): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return oneLine(text, hide).replace(/\bhttps?:\/\/[^\s"'<>]+/gi, (u) => originOf(u));
}

/** Why `fetch` failed, in words (undici puts the socket error in `cause`), e.g. `connection failed: connect ECONNREFUSED 127.0.0.1:9`. */
function fetchFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const inner = cause instanceof AggregateError ? cause.errors.map((e) => String(e)).join("; ") : "";
    const msg = cause.message || inner || cause.name;
    const text = typeof code === "string" && !msg.includes(code) ? `${code} ${msg}` : msg;
    return `connection failed: ${text}`;
  }
  return `request failed: ${err.message || err.name}`;
}

/**
 * ` (to <origin>)` naming where a 3xx points (`location` resolved against the hook's URL), or ""
 * when there is no `Location`, it does not parse (e.g. `http://[::1`) or it has no origin. Never
 * throws; never more of the URL than its origin.
 */
function redirectTarget(location: string | null, base: string): string {
  if (location === null || location === "") return "";
  let origin: string;
  try {
    origin = new URL(location, base).origin;
  } catch {
    return "";
  }
  return origin === "null" ? "" : ` (to ${origin})`;
}

/**
 * The first bytes of a response body, at most `max`, then the rest cancelled unread (so a huge or
 * endless body costs at most `max` bytes of memory). Errors while reading end the read quietly.
 */
async function readBounded(body: ReadableStream<Uint8Array> | null, max: number): Promise<string> {
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < max) {
      const { done, value } = await reader.read();
      if (done) break;
      const keep = value.subarray(0, max - total);
      chunks.push(keep);
      total += keep.byteLength;
    }
  } catch {
    // Aborted (timeout, stop) or the connection broke: what was read is enough.
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Registered webhooks and their deliveries. */
export class WebhookService {
  private readonly db: PrismaClient;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly concurrency: number;
  private readonly writer: StoreWriter;
  private readonly ownWriter: boolean;
  private readonly lookup: HostLookup;
  /** Registered (not deleted) hooks by id: this service is the only writer of their rows. */
  private readonly hooks = new Map<string, Webhook>();
  /** PENDING deliveries: hook id → delivery id → next attempt time (ms). */
  private readonly pending = new Map<string, Map<string, number>>();
  /** The attempt in flight per hook. */
  private readonly inflight = new Map<string, InFlight>();
  /** When each hook last had an attempt started (a count of {@link launches}), for round robin. */
  private readonly served = new Map<string, number>();
  /** Attempts started so far. */
  private launches = 0;
  /**
   * Attempts that ended in an unexpected error before their outcome was stored (the store failing),
   * by delivery id: the backoff of the next try (the delivery cannot be counted in its row then).
   */
  private readonly faults = new Map<string, number>();
  /** Intake writes not finished yet (stop waits for them). */
  private readonly intake = new Set<Promise<void>>();
  private early: Notification[] = [];
  private started = false;
  private stopped = false;
  private timer: TimerHandle | null = null;
  private readonly unsubscribe: () => void;

  /** Subscribes to `deps.notifier` at once (notifications before {@link start} are kept). */
  constructor(private readonly deps: WebhookDeps) {
    this.db = deps.db;
    this.log = deps.log;
    this.clock = deps.clock ?? systemClock;
    this.fetchFn = deps.fetch ?? fetch;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
    this.ownWriter = deps.writer === undefined;
    this.writer = deps.writer ?? new StoreWriter(deps.db, deps.log);
    this.lookup = deps.lookup ?? systemLookup;
    this.unsubscribe = deps.notifier.on((n) => this.onNotification(n));
  }

  /**
   * Load the registered hooks and the PENDING deliveries (those of a hook deleted meanwhile are
   * marked FAILED), take in the notifications that came before, and start delivering. A second
   * call, or one after stop(), does nothing.
   */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    for (const h of await this.db.webhook.findMany({ where: { deletedAt: null } })) this.hooks.set(h.id, h);
    const rows = await this.db.webhookDelivery.findMany({
      where: { state: "PENDING" },
      select: { id: true, webhookId: true, nextAttemptAt: true, createdAt: true },
    });
    const orphans: string[] = [];
    for (const r of rows) {
      if (!this.hooks.has(r.webhookId)) orphans.push(r.id);
      else this.index(r.webhookId, r.id, (r.nextAttemptAt ?? r.createdAt).getTime());
    }
    if (orphans.length > 0) {
      await this.writer.submit((db) => [
        db.webhookDelivery.updateMany({
          where: { id: { in: orphans }, state: "PENDING" },
          data: { state: "FAILED", lastError: DELETED_ERROR, nextAttemptAt: null },
        }),
      ]);
    }
    // stop() came while loading: stay stopped.
    if (this.stopped) return;
    this.started = true;
    const early = this.early;
    this.early = [];
    for (const n of early) this.take(n);
    if (rows.length > 0)
      this.log.info({ pending: rows.length - orphans.length }, "resuming webhook deliveries");
    this.pump();
  }

  /**
   * Stop: no new notifications are taken, intake writes under way finish, attempts in flight are
   * aborted and their deliveries stay PENDING (resumed at the next start). Idempotent.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    this.early = [];
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.intake]);
    const flying = [...this.inflight.values()];
    for (const a of flying) a.controller.abort("stopping" satisfies AbortWhy);
    await Promise.allSettled(flying.map((a) => a.done));
    if (this.ownWriter) await this.writer.close();
  }

  /**
   * Register a webhook. `secret` (16–256 characters) is generated when absent: 32 random bytes,
   * base64url. The secret is returned here only.
   * @throws ValidationFailed at `["input", <field>]` (name empty or too long, no or unknown events,
   *   unknown format, a secret of the wrong length, a URL breaking the rules of
   *   src/attention/url-policy.ts); nothing is stored then.
   */
  async create(input: WebhookCreateInput, actor: string): Promise<{ webhook: Webhook; secret: string }> {
    const issues: FieldIssue[] = [];
    const name = this.checkName(input.name, issues);
    const events = this.checkEvents(input.events, issues);
    const format = this.checkFormat(input.format, issues);
    const secret = input.secret ?? randomBytes(32).toString("base64url");
    if (input.secret != null) this.checkSecret(input.secret, issues);
    const url = await this.checkUrl(input.url, issues);
    if (issues.length > 0) throw new ValidationFailed(issues);
    const data: Prisma.WebhookCreateInput = {
      id: newId(),
      name,
      url,
      format,
      events,
      secret,
      enabled: true,
      createdAt: new Date(this.clock.now()),
      createdBy: actor,
    };
    let row: Webhook;
    try {
      [row] = (await this.writer.submit((db) => [db.webhook.create({ data })])) as [Webhook];
    } catch (err) {
      // A database error may quote the row it could not write: never let the secret reach a log.
      throw new Error(`could not store the webhook: ${oneLine(String((err as Error).message), [secret])}`);
    }
    this.hooks.set(row.id, row);
    this.log.info(
      { webhook: row.id, name, origin: originOf(url), events, format, by: actor },
      "webhook created",
    );
    return { webhook: row, secret };
  }

  /**
   * Change a registered webhook (absent fields stay). Enabling it resumes its PENDING deliveries;
   * disabling it pauses them and it receives no new notifications.
   * @throws NotFound ("webhook") for an unknown or deleted id; ValidationFailed at
   *   `["input", <field>]` as for create. Nothing changes on an error.
   */
  async update(id: string, patch: WebhookPatch, actor: string): Promise<Webhook> {
    const hook = this.registered(id);
    const issues: FieldIssue[] = [];
    const data: Prisma.WebhookUpdateInput = {};
    if (patch.name !== undefined) data.name = this.checkName(patch.name, issues);
    if (patch.events !== undefined) data.events = this.checkEvents(patch.events, issues);
    if (patch.format !== undefined) data.format = this.checkFormat(patch.format, issues);
    if (patch.enabled !== undefined) data.enabled = patch.enabled;
    if (patch.url !== undefined) data.url = await this.checkUrl(patch.url, issues);
    if (issues.length > 0) throw new ValidationFailed(issues);
    if (Object.keys(data).length === 0) return hook;
    const [row] = (await this.writer.submit((db) => [db.webhook.update({ where: { id }, data })])) as [
      Webhook,
    ];
    // Deleted while the write was queued: keep it out of the registered set.
    if (this.hooks.has(id)) this.hooks.set(id, row);
    this.log.info({ webhook: id, changed: Object.keys(data), by: actor }, "webhook updated");
    if (row.enabled) this.pump();
    return row;
  }

  /**
   * Delete a webhook (soft: the row and its delivery log stay until retention). Its PENDING
   * deliveries become FAILED "webhook deleted" in the same transaction; an attempt in flight is
   * aborted.
   * @throws NotFound ("webhook") for an unknown or already deleted id.
   */
  async remove(id: string, actor: string): Promise<Webhook> {
    this.registered(id);
    const now = new Date(this.clock.now());
    const [row, failed] = (await this.writer.submit((db) => [
      db.webhook.update({ where: { id }, data: { deletedAt: now } }),
      db.webhookDelivery.updateMany({
        where: { webhookId: id, state: "PENDING" },
        data: { state: "FAILED", lastError: DELETED_ERROR, nextAttemptAt: null },
      }),
    ])) as [Webhook, { count: number }];
    this.hooks.delete(id);
    this.pending.delete(id);
    this.served.delete(id);
    this.inflight.get(id)?.controller.abort("deleted" satisfies AbortWhy);
    this.log.info({ webhook: id, failedDeliveries: failed.count, by: actor }, "webhook deleted");
    return row;
  }

  /**
   * Send a `ping` notification to this hook only (whatever its events), as a new delivery: the
   * returned row is PENDING; its attempts follow as for any delivery.
   * @throws NotFound ("webhook") for an unknown or deleted id; InvalidState for a disabled hook
   *   (enable it first: its deliveries are paused).
   */
  async test(id: string, actor: string): Promise<WebhookDelivery> {
    const hook = this.registered(id);
    if (!hook.enabled) throw new InvalidState(`webhook ${id} is disabled: enable it to test it`);
    const deliveryId = newId();
    const now = this.clock.now();
    const n: Notification = {
      id: `ping:${id}:${deliveryId}`,
      type: "ping",
      occurredAt: new Date(now),
      workspace: null,
      agentId: null,
      inboxItemId: null,
      title: `Test notification for webhook ${hook.name}`,
      message: `Sent by ${actor} with testWebhook: if you can read this, the webhook works.`,
      data: { webhook: id, requestedBy: actor },
    };
    const [row] = (await this.writer.submit((db) => [
      db.webhookDelivery.create({ data: this.deliveryData(hook, n, deliveryId, now) }),
    ])) as [WebhookDelivery];
    if (this.hooks.has(id)) this.index(id, row.id, now);
    this.log.info({ webhook: id, delivery: row.id, by: actor }, "webhook test sent");
    this.pump();
    return row;
  }

  /**
   * Retention: delete the delivery rows created before `cutoff` that are not PENDING, then the
   * deleted hooks (deleted before `cutoff`) that have no delivery left.
   * @returns how many delivery rows were deleted.
   */
  async prune(cutoff: Date): Promise<number> {
    const [res] = (await this.writer.submit((db) => [
      db.webhookDelivery.deleteMany({ where: { state: { not: "PENDING" }, createdAt: { lt: cutoff } } }),
      db.webhook.deleteMany({ where: { deletedAt: { lt: cutoff }, deliveries: { none: {} } } }),
    ])) as [{ count: number }, { count: number }];
    return res.count;
  }

  /** Delivery rows by state, for metrics (`prospero_webhook_deliveries{state}`). */
  async countsByState(): Promise<{ state: string; count: number }[]> {
    const groups = await this.db.webhookDelivery.groupBy({ by: ["state"], _count: { _all: true } });
    return groups.map((g) => ({ state: g.state, count: g._count._all }));
  }

  // Intake ----------------------------------------------------------------------------------------

  private onNotification(n: Notification): void {
    if (this.stopped) return;
    if (!this.started) {
      if (this.early.length < EARLY_MAX) this.early.push(n);
      else this.log.error({ notification: n.id, type: n.type }, "webhooks not started: notification dropped");
      return;
    }
    this.take(n);
  }

  /** Write the deliveries of `n` (asynchronously; tracked so stop() waits for it). */
  private take(n: Notification): void {
    const targets = [...this.hooks.values()].filter((h) => h.enabled && eventsOf(h).includes(n.type));
    if (targets.length === 0) return;
    const now = this.clock.now();
    const rows = targets.map((h) => this.deliveryData(h, n, newId(), now));
    const p = this.writer
      .submit((db) =>
        rows.map((data) =>
          db.webhookDelivery.upsert({
            where: { webhookId_notificationId: { webhookId: data.webhookId, notificationId: n.id } },
            create: data,
            update: {},
            select: { id: true, webhookId: true, state: true },
          }),
        ),
      )
      .then((results) => {
        for (const [i, r] of (results as { id: string; webhookId: string; state: string }[]).entries()) {
          // An existing row (the same notification again) keeps its own course.
          if (r.id === rows[i]!.id && this.hooks.has(r.webhookId)) this.index(r.webhookId, r.id, now);
        }
        this.pump();
      })
      .catch((err: unknown) => {
        this.log.error(
          {
            error: errorText(
              err,
              targets.flatMap((h) => [h.secret, h.url]),
            ),
            notification: n.id,
            type: n.type,
            hooks: targets.map((h) => h.id),
          },
          "could not store webhook deliveries",
        );
      });
    const tracked = p.finally(() => this.intake.delete(tracked));
    this.intake.add(tracked);
  }

  private deliveryData(
    h: Webhook,
    n: Notification,
    id: string,
    nowMs: number,
  ): Prisma.WebhookDeliveryUncheckedCreateInput & { id: string; webhookId: string } {
    return {
      id,
      webhookId: h.id,
      notificationId: n.id,
      eventType: n.type,
      body: renderBody(h.format as WebhookFormat, n, this.deps.publicUrl?.() ?? null),
      state: "PENDING",
      attempts: 0,
      nextAttemptAt: new Date(nowMs),
      createdAt: new Date(nowMs),
    };
  }

  // Scheduling ------------------------------------------------------------------------------------

  private index(hookId: string, deliveryId: string, atMs: number): void {
    let m = this.pending.get(hookId);
    if (!m) {
      m = new Map();
      this.pending.set(hookId, m);
    }
    m.set(deliveryId, atMs);
  }

  private unindex(hookId: string, deliveryId: string): void {
    const m = this.pending.get(hookId);
    if (!m) return;
    m.delete(deliveryId);
    this.faults.delete(deliveryId);
    if (m.size === 0) this.pending.delete(hookId);
  }

  /**
   * Start every attempt that is due and has a slot (one per hook, `concurrency` in all; hooks in
   * turn, each its earliest due row), and arm the timer for the next due time. Synchronous: it only
   * reads the index.
   */
  private pump(): void {
    if (!this.started || this.stopped) return;
    const due: { hookId: string; deliveryId: string; at: number }[] = [];
    let wake = Infinity;
    const now = this.clock.now();
    for (const [hookId, m] of this.pending) {
      if (this.inflight.has(hookId) || this.hooks.get(hookId)?.enabled !== true) continue;
      let best: { id: string; at: number } | null = null;
      for (const [id, at] of m) if (best === null || at < best.at) best = { id, at };
      if (best === null) continue;
      if (best.at <= now) due.push({ hookId, deliveryId: best.id, at: best.at });
      else wake = Math.min(wake, best.at);
    }
    // Round robin: the hook served longest ago first (a hook with a backlog cannot starve the others).
    due.sort((a, b) => (this.served.get(a.hookId) ?? -1) - (this.served.get(b.hookId) ?? -1) || a.at - b.at);
    for (const d of due) {
      if (this.inflight.size >= this.concurrency) break;
      this.launch(d.hookId, d.deliveryId);
    }
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    // Due rows left without a slot start when an attempt ends (which pumps again).
    if (wake !== Infinity) this.timer = this.clock.setTimeout(() => this.pump(), wake - now);
  }

  private launch(hookId: string, deliveryId: string): void {
    this.served.set(hookId, ++this.launches);
    const controller = new AbortController();
    const entry: InFlight = { deliveryId, controller, done: Promise.resolve() };
    this.inflight.set(hookId, entry);
    entry.done = this.attempt(hookId, deliveryId, controller)
      .then(() => {
        this.faults.delete(deliveryId);
      })
      .catch((err: unknown) => {
        // The store failed (an error of the attempt itself is a counted failed attempt, see
        // attempt()): the row cannot be counted, so back off in memory, doubling like any retry.
        const hook = this.hooks.get(hookId);
        const faults = (this.faults.get(deliveryId) ?? 0) + 1;
        this.faults.set(deliveryId, faults);
        const delay = retryDelayMs(faults, { maxAttempts: this.maxAttempts, ...BACKOFF }, Math.random);
        this.log.error(
          {
            webhook: hookId,
            delivery: deliveryId,
            origin: hook ? originOf(hook.url) : null,
            error: errorText(err, hook ? [hook.secret, hook.url] : []),
            retryInMs: delay,
          },
          "webhook attempt failed unexpectedly",
        );
        if (hook) this.index(hookId, deliveryId, this.clock.now() + delay);
      })
      .finally(() => {
        if (this.inflight.get(hookId) === entry) this.inflight.delete(hookId);
        this.pump();
      });
  }

  /** One attempt of a delivery, its outcome stored (unless abandoned by stop() or deletion). */
  private async attempt(hookId: string, deliveryId: string, controller: AbortController): Promise<void> {
    const row = await this.db.webhookDelivery.findUnique({ where: { id: deliveryId } });
    const hook = this.hooks.get(hookId);
    if (row === null || row.state !== "PENDING" || hook === undefined) {
      this.unindex(hookId, deliveryId);
      return;
    }
    if (controller.signal.aborted) return;
    const result = await this.tryOnce(hook, row, controller);
    if (result.abandoned) return;
    const attempts = row.attempts + 1;
    const nowMs = this.clock.now();
    const now = new Date(nowMs);
    let state: DeliveryState;
    let next: number | null = null;
    if (result.ok) state = "DELIVERED";
    else if (attempts >= this.maxAttempts) state = "FAILED";
    else {
      state = "PENDING";
      next = nowMs + retryDelayMs(attempts, { maxAttempts: this.maxAttempts, ...BACKOFF }, Math.random);
    }
    const data: Prisma.WebhookDeliveryUpdateManyMutationInput = {
      state,
      attempts,
      lastAttemptAt: now,
      lastStatus: result.status,
      lastError: result.ok ? null : result.error,
      nextAttemptAt: next === null ? null : new Date(next),
      ...(result.ok ? { deliveredAt: now } : {}),
    };
    // Conditional: a deletion that marked it FAILED meanwhile wins.
    await this.writer.submit((db) => [
      db.webhookDelivery.updateMany({ where: { id: deliveryId, state: "PENDING" }, data }),
    ]);
    if (next !== null && this.hooks.has(hookId)) this.index(hookId, deliveryId, next);
    else this.unindex(hookId, deliveryId);
    const fields = {
      webhook: hookId,
      delivery: deliveryId,
      type: row.eventType,
      attempt: attempts,
      status: result.status,
    };
    if (state === "FAILED") {
      this.log.warn({ ...fields, error: result.error }, "webhook delivery failed: no attempts left");
    } else if (state === "PENDING") {
      this.log.debug({ ...fields, error: result.error, retryAt: new Date(next!) }, "webhook attempt failed");
    } else this.log.debug(fields, "webhook delivered");
  }

  /**
   * One attempt's outcome: refused when the URL now reaches this gateway ({@link refusal}), else
   * {@link send}. An error thrown on the way is a failed attempt too (counted and backed off like
   * any other, so it cannot loop), logged by its name and message only.
   */
  private async tryOnce(
    hook: Webhook,
    row: WebhookDelivery,
    controller: AbortController,
  ): Promise<AttemptResult> {
    const hide = [hook.secret, hook.url, ...urlSecretParts(hook.url)];
    try {
      const refused = await this.refusal(hook);
      // Stopped or deleted while resolving: nothing to record.
      if (controller.signal.aborted) return { ok: false, status: null, error: null, abandoned: true };
      if (refused !== null) {
        this.log.warn(
          { webhook: hook.id, delivery: row.id, origin: originOf(hook.url), error: refused },
          "webhook attempt refused: not sent",
        );
        return { ok: false, status: null, error: refused, abandoned: false };
      }
      return await this.send(hook, row, controller);
    } catch (err) {
      const why = controller.signal.aborted ? (controller.signal.reason as AbortWhy) : null;
      if (why === "stopping" || why === "deleted") {
        return { ok: false, status: null, error: null, abandoned: true };
      }
      const error = errorText(err, hide);
      this.log.error(
        { webhook: hook.id, delivery: row.id, origin: originOf(hook.url), error },
        "webhook attempt failed unexpectedly",
      );
      return {
        ok: false,
        status: null,
        error: oneLine(`unexpected error: ${error}`, hide),
        abandoned: false,
      };
    }
  }

  /**
   * The URL rule "not the gateway itself" again, right before an attempt (the check at create and
   * update cannot see a host name that resolves elsewhere later — DNS rebinding): the host is
   * resolved with the same lookup as the URL rules (src/attention/url-policy.ts
   * {@link gatewayAddressOf}: only when the URL's port is the gateway's). Returns why the attempt
   * is refused, or null to send it. A resolver that answers differently between this check and
   * fetch's own resolution is not caught (docs/webhooks.md, "URL rules").
   */
  private async refusal(hook: Webhook): Promise<string | null> {
    const self = this.deps.selfAddresses();
    if (self === null) return null;
    const u = new URL(hook.url);
    try {
      const hit = await gatewayAddressOf(u, self, this.lookup);
      if (hit === null) return null;
      const address = net.isIPv6(hit.address) ? `[${hit.address}]` : hit.address;
      return `the URL now resolves to this gateway (${address}:${self.port}); refused`;
    } catch (err) {
      const host = u.hostname.replace(/^\[|\]$/g, "");
      return oneLine(
        `cannot resolve ${host} to check that it is not this gateway (port ${self.port}): ${errorText(err, [hook.secret, hook.url])}; not sent`,
        [hook.secret, hook.url],
      );
    }
  }

  /** POST the stored body once (see the module comment for the rules). */
  private async send(
    hook: Webhook,
    row: WebhookDelivery,
    controller: AbortController,
  ): Promise<AttemptResult> {
    const hide = [hook.secret, hook.url, ...urlSecretParts(hook.url)];
    const timestampS = Math.floor(this.clock.now() / 1000);
    const headers = requestHeaders({
      eventType: row.eventType,
      deliveryId: row.id,
      timestampS,
      body: row.body,
      secret: hook.secret,
      version: VERSION,
    });
    const timer = this.clock.setTimeout(() => controller.abort("timeout" satisfies AbortWhy), this.timeoutMs);
    try {
      let res: Response;
      try {
        res = await this.fetchFn(hook.url, {
          method: "POST",
          headers,
          body: row.body,
          redirect: "manual",
          signal: controller.signal,
        });
      } catch (err) {
        const why = controller.signal.aborted ? (controller.signal.reason as AbortWhy) : null;
        if (why === "stopping" || why === "deleted") {
          return { ok: false, status: null, error: null, abandoned: true };
        }
        const error =
          why === "timeout" ? `timed out after ${this.timeoutMs} ms without a response` : fetchFailure(err);
        return { ok: false, status: null, error: oneLine(error, hide), abandoned: false };
      }
      const text = await readBounded(res.body, RESPONSE_READ_MAX);
      if (res.status >= 200 && res.status < 300) {
        return { ok: true, status: res.status, error: null, abandoned: false };
      }
      const head = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
      let error: string;
      if (res.status >= 300 && res.status < 400) {
        error = `${head}: redirects are not followed${redirectTarget(res.headers.get("location"), hook.url)}; register the final URL`;
      } else {
        const excerpt = oneLine(text, hide).slice(0, EXCERPT_MAX);
        error = excerpt === "" ? head : `${head}: ${excerpt}`;
      }
      return { ok: false, status: res.status, error: oneLine(error, hide), abandoned: false };
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  // Validation ------------------------------------------------------------------------------------

  private registered(id: string): Webhook {
    const h = this.hooks.get(id);
    if (h === undefined) throw new NotFound("webhook", id);
    return h;
  }

  private checkName(raw: string, issues: FieldIssue[]): string {
    const name = raw.trim();
    if (name === "") issues.push({ path: ["input", "name"], message: "must not be empty" });
    else if (name.length > NAME_MAX) {
      issues.push({ path: ["input", "name"], message: `must be at most ${NAME_MAX} characters` });
    } else if (cleanLogText(name) !== name || name.includes("\n") || name.includes("\t")) {
      issues.push({ path: ["input", "name"], message: "must not contain control characters" });
    }
    return name;
  }

  private checkEvents(raw: readonly string[], issues: FieldIssue[]): NotificationType[] {
    const known = NOTIFICATION_TYPES as readonly string[];
    const bad = raw.filter((e) => !known.includes(e));
    if (bad.length > 0) {
      issues.push({
        path: ["input", "events"],
        message: `unknown notification type ${JSON.stringify(bad[0])}; known: ${known.join(", ")}`,
      });
    } else if (raw.length === 0) {
      issues.push({ path: ["input", "events"], message: "give at least one notification type" });
    }
    return [...new Set(raw)].filter((e): e is NotificationType => known.includes(e));
  }

  private checkFormat(raw: string, issues: FieldIssue[]): WebhookFormat {
    if (!(WEBHOOK_FORMATS as readonly string[]).includes(raw)) {
      issues.push({ path: ["input", "format"], message: `must be ${WEBHOOK_FORMATS.join(" or ")}` });
    }
    return raw as WebhookFormat;
  }

  private checkSecret(secret: string, issues: FieldIssue[]): void {
    if (secret.length < SECRET_MIN || secret.length > SECRET_MAX) {
      issues.push({
        path: ["input", "secret"],
        message: `must be ${SECRET_MIN}–${SECRET_MAX} characters (omit it to have one generated)`,
      });
    } else if (/[\s\p{Cc}]/u.test(secret)) {
      issues.push({ path: ["input", "secret"], message: "must not contain spaces or control characters" });
    }
  }

  private async checkUrl(raw: string, issues: FieldIssue[]): Promise<string> {
    try {
      return (await checkWebhookUrl(raw, this.deps.selfAddresses(), this.lookup)).href;
    } catch (err) {
      if (!(err instanceof ValidationFailed)) throw err;
      issues.push(...err.issues);
      return raw;
    }
  }
}
