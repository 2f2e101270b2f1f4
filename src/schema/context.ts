/**
 * The per-operation GraphQL context, identical for HTTP, SSE and graphql-ws operations (built by
 * the same yoga context factory, enveloped for WebSocket operations too).
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import type { EventBus } from "../bus/bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { EventStore } from "../store/events.js";
import type { Readiness } from "../server/readiness.js";
import type { Principal } from "../auth/roles.js";
import type { TokenService } from "../auth/tokens.js";
import type { AuditLog } from "../auth/audit.js";
import type { ReplayLimiter } from "../bus/replay-limiter.js";
import type { LaunchQueue } from "../queue/queue.js";
import type { ScheduleService } from "../queue/schedules.js";
import type { InboxService } from "../attention/inbox.js";
import type { HealthMonitor } from "../attention/monitor.js";
import type { WebhookService } from "../attention/webhooks.js";
import type { CaptureService } from "../capture/service.js";
import type { Notifier } from "../attention/notify.js";

/** Long-lived services the schema reads from and delegates to. */
export interface GraphQLServices {
  /** Prisma client of the store (read paths; writes go through the fleet and store services). */
  prisma: PrismaClient;
  fleet: Fleet;
  store: EventStore;
  bus: EventBus;
  /** API tokens and sessions (issue 11). */
  tokens: TokenService;
  /** The audit log writer. */
  audit: AuditLog;
  /** Gateway-wide fair limit on concurrent store reads of replaying subscriptions. */
  replays: ReplayLimiter;
  /** The durable launch queue (issue 14). */
  queue: LaunchQueue;
  /** Cron schedules of launches (issue 14 item 4). */
  schedules: ScheduleService;
  /** The operator inbox (issue 15 item 1). */
  inbox: InboxService;
  /** The health monitor (issue 15 item 2). */
  monitor: HealthMonitor;
  /** Registered webhooks and their deliveries (issue 15 item 3). */
  webhooks: WebhookService;
  /** Fan-out of notifications to webhooks. */
  notifier: Notifier;
  /** Change capture: runs' snapshots, diffs, overlaps, apply-as-branch (issue 16). */
  capture: CaptureService;
}

/** What every resolver receives. Resolvers call services; they never hold state. */
export interface GraphQLContext extends GraphQLServices {
  /** Current readiness of the gateway. */
  readiness: () => Readiness;
  /** Who is asking (authenticated by src/server before the operation runs). */
  auth: Principal;
  /** The client's address (a trusted proxy's forwarded one), for the audit log; null if unknown. */
  remoteAddress: string | null;
  /**
   * Key under which this client's replays queue for the {@link ReplayLimiter} (one per
   * WebSocket connection or HTTP request), so one client cannot starve the others.
   */
  clientKey: string;
  /**
   * The `Last-Event-ID` request header of an operation over HTTP (an SSE client reconnecting after
   * the last event id it received); null or absent otherwise (graphql-ws). A subscription resumes
   * after it, overriding its `after` argument (src/resolvers/resume.ts).
   */
  lastEventId?: string | null;
  /**
   * Per-operation memo for batched loads (e.g. usage of every workspace in one query); created by
   * {@link memoize} on first use, so an operation that batches nothing carries none. It lives as
   * long as the operation: a subscription that selects a memoized field (e.g. `usage`) keeps the
   * value loaded for its first event.
   */
  memo?: Map<string, Promise<unknown>>;
}

/** Run `load` once per operation for `key`. */
export function memoize<T>(ctx: GraphQLContext, key: string, load: () => Promise<T>): Promise<T> {
  ctx.memo ??= new Map();
  let p = ctx.memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    ctx.memo.set(key, p);
  }
  return p;
}
