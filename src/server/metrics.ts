/**
 * Prometheus metrics of the gateway (issue 15 item 4): `GET /metrics` on the gateway's port
 * (behind a viewer token, src/server/gateway.ts) and, with `--metrics-bind`, on a loopback
 * address of its own without one ({@link startMetricsServer}).
 *
 * Every figure is read at scrape time from the service that owns it, through prom-client
 * `collect()` callbacks: the fleet's counters (src/fleet/metrics.ts), its served state (agents by
 * workspace and status, workspace health), ingest lag, the bus and store counters, the launch
 * queue's `metrics()`, the inbox's counts, the health monitor's last report and the webhook
 * deliveries by state. Nothing is copied on a timer, so a scrape never shows a stale figure and
 * an idle gateway does no work. Two histograms are fed as things happen: poll round durations
 * (the poller's `onRound`) and store write transaction latencies (the writer's `onTransaction`).
 * GraphQL operation counts, durations and errors by operation name come from the yoga prometheus
 * plugin, under our names (`prospero_graphql_operations_total`, `prospero_graphql_operation_duration_seconds`, `prospero_graphql_errors_total`), and the process defaults (`process_*`, `nodejs_*`) from
 * prom-client's `collectDefaultMetrics`.
 *
 * Names follow Prometheus conventions: `_total` counters, base units (`_seconds`, `_bytes`; the
 * services' milliseconds are converted). Labels are bounded sets: workspace names (registered),
 * caliband's statuses (unknown ones as `unknown`), the catalogue's checks, the schema's kinds and
 * states, and at most {@link MAX_OPERATION_NAMES} GraphQL operation names (then `other`).
 *
 * A service that is not there yet (the store still opening: `services()` is null) or whose read
 * fails leaves its families without samples for that scrape; the scrape itself still answers.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from "prom-client";
import { createCounter, createHistogram, usePrometheus } from "@graphql-yoga/plugin-prometheus";
import type { Plugin } from "graphql-yoga";
import { AGENT_STATUSES, toAgentStatus } from "../caliband/wire.js";
import { INBOX_KINDS, INBOX_STATES } from "../attention/types.js";
import { HEALTH_CHECKS } from "../attention/thresholds.js";
import { AccessPolicy } from "../auth/http-policy.js";
import { silentLogger, type Logger } from "../log.js";
import type { GraphQLServices } from "../schema/context.js";
import { plainText } from "./sessions.js";

/** Where the metrics are served, on the gateway's port and on `--metrics-bind`. */
export const METRICS_PATH = "/metrics";

/**
 * Most distinct GraphQL operation names used as label values; operations under further names
 * are counted as `other` (operation names are chosen by clients: without a bound, one client
 * could create any number of series).
 */
export const MAX_OPERATION_NAMES = 200;

/** Webhook delivery states (prisma/schema.prisma `WebhookDelivery.state`). */
const DELIVERY_STATES = ["PENDING", "DELIVERED", "FAILED"] as const;

/** Launch states that are not final: what the queue holds in memory (src/queue/queue.ts). */
const ACTIVE_LAUNCH_STATES = ["QUEUED", "DISPATCHED", "RUNNING"] as const;

/** Bucket bounds of `prospero_poll_round_duration_seconds`, seconds. */
const POLL_ROUND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Bucket bounds of `prospero_store_write_duration_seconds`, seconds. */
const STORE_WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What the metrics read, at scrape time. */
export interface MetricsSources {
  /** The gateway's services, or null while the store is not open yet (those families stay empty). */
  services: () => GraphQLServices | null;
  /**
   * The gateway's live connections: authenticated graphql-ws connections, and GraphQL
   * subscriptions running now over any transport (graphql-ws, SSE, graphql-sse).
   */
  live: () => { websockets: number; subscriptions: number };
  /** Where a failing read is reported (once per family until it works again); default silent. */
  log?: Logger;
}

/** The gateway's metrics. */
export interface GatewayMetrics {
  /** The registry holding every family served (this gateway's own; never prom-client's global one). */
  registry: Registry;
  /** yoga plugin recording GraphQL operation counts/durations/errors by operation name (usePrometheus). */
  yogaPlugin(): Plugin;
  /** Serve one scrape (text format, content-type `registry.contentType`). */
  scrape(): Promise<{ contentType: string; body: string }>;
  /** Record one poll round's duration, ms (histogram, observed in seconds). */
  observePollRound(ms: number): void;
  /** Record one store write (transaction) latency, ms (histogram, observed in seconds). */
  observeStoreWrite(ms: number): void;
}

/**
 * The process-wide default metrics (`process_*`, `nodejs_*`), collected once per process: each
 * `collectDefaultMetrics` call starts an event-loop-delay monitor and a GC observer of its own
 * that are never released, so every gateway's registry registers these same metric objects.
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (processRegistry === null) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A metric whose samples a collect callback replaces. */
interface Resettable {
  reset(): void;
}

/**
 * Create the gateway's registry and metrics. Figures are read through `sources` at scrape time;
 * `yogaPlugin()` goes into the gateway's yoga plugins; the two `observe…` hooks are wired to the
 * poller and the store writer by src/app.ts.
 */
export function createMetrics(sources: MetricsSources): GatewayMetrics {
  const registry = new Registry();
  // (getMetricsAsArray is typed as plain objects; they are the metric instances, as merge uses them.)
  for (const m of processMetrics().getMetricsAsArray()) registry.registerMetric(m as unknown as Metric);
  const log = sources.log ?? silentLogger;
  const failing = new Set<string>();

  /**
   * A collect callback: read (awaiting what it must) with the services, then write the samples
   * synchronously — so concurrent scrapes never see a half-written family. No services, or a
   * failed read: the family has no samples this scrape (a failure is logged once until it heals).
   */
  const collectWith = <M extends Resettable, T>(
    name: string,
    read: (svc: GraphQLServices) => T | Promise<T>,
    write: (metric: M, value: T) => void,
  ) =>
    async function (this: M): Promise<void> {
      const svc = sources.services();
      if (svc === null) {
        this.reset();
        return;
      }
      let value: T;
      try {
        value = await read(svc);
      } catch (err) {
        this.reset();
        if (!failing.has(name)) {
          failing.add(name);
          log.warn(
            { err, metric: name },
            "a metric could not be read; it is left out of scrapes until it can",
          );
        }
        return;
      }
      failing.delete(name);
      this.reset();
      write(this, value);
    };

  /** A counter that mirrors a service's running total. */
  const total = (name: string, help: string, read: (svc: GraphQLServices) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect: collectWith<Counter, number>(name, read, (m, v) => m.inc(Math.max(0, v))),
    });

  /** An unlabelled gauge read from a service. */
  const gauge = (name: string, help: string, read: (svc: GraphQLServices) => number | Promise<number>) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect: collectWith<Gauge, number>(name, read, (m, v) => m.set(v)),
    });

  // Fleet --------------------------------------------------------------------------------------
  new Gauge({
    name: "prospero_agents",
    help: "Agents the workspaces' daemons list now, by workspace and caliband status.",
    labelNames: ["workspace", "status"] as const,
    registers: [registry],
    collect: collectWith<Gauge<"workspace" | "status">, Map<string, Map<string, number>>>(
      "prospero_agents",
      (svc) => {
        const byWorkspace = new Map<string, Map<string, number>>();
        for (const ws of svc.fleet.registry.list()) {
          const counts = new Map<string, number>(AGENT_STATUSES.map((s) => [s, 0]));
          for (const a of svc.fleet.state.agentsOf(ws.name)) {
            const status = toAgentStatus(a.status);
            counts.set(status, (counts.get(status) ?? 0) + 1);
          }
          byWorkspace.set(ws.name, counts);
        }
        return byWorkspace;
      },
      (m, byWorkspace) => {
        for (const [workspace, counts] of byWorkspace)
          for (const [status, n] of counts) m.set({ workspace, status }, n);
      },
    ),
  });
  new Gauge({
    name: "prospero_workspace_up",
    help: "1 when the workspace's caliband answered its last poll, else 0 (unreachable, or not polled yet).",
    labelNames: ["workspace"] as const,
    registers: [registry],
    collect: collectWith<Gauge<"workspace">, [string, number][]>(
      "prospero_workspace_up",
      (svc) =>
        svc.fleet.registry
          .list()
          .map((ws) => [ws.name, svc.fleet.state.healthOf(ws.name).state === "healthy" ? 1 : 0]),
      (m, rows) => {
        for (const [workspace, up] of rows) m.set({ workspace }, up);
      },
    ),
  });
  total(
    "prospero_frames_ingested_total",
    "TurnEvent lines of agents' output stored (exactly once each).",
    (svc) => svc.fleet.metrics.frames_ingested_total,
  );
  gauge(
    "prospero_ingest_lag_bytes",
    "Bytes workers wrote to their output files that are not ingested yet, summed over running agents.",
    (svc) => svc.fleet.ingest.lagBytes(),
  );
  total(
    "prospero_ingest_gaps_total",
    "Times an agent's output could not be read to its end (ingest_gap events stored).",
    (svc) => svc.fleet.metrics.ingest_gaps_total,
  );
  const pollRound = new Histogram({
    name: "prospero_poll_round_duration_seconds",
    help: "Wall time of a poll round: from its start until every workspace poll it covers settled.",
    buckets: POLL_ROUND_BUCKETS,
    registers: [registry],
  });
  total(
    "prospero_polls_total",
    "Polls of a workspace's caliband attempted.",
    (svc) => svc.fleet.metrics.polls_total,
  );
  total(
    "prospero_poll_failures_total",
    "Polls that failed (daemon unreachable, protocol error, deadline).",
    (svc) => svc.fleet.metrics.poll_failures_total,
  );

  // Connections and the bus --------------------------------------------------------------------
  new Gauge({
    name: "prospero_websocket_connections",
    help: "Authenticated graphql-ws connections open now.",
    registers: [registry],
    collect() {
      this.set(sources.live().websockets);
    },
  });
  new Gauge({
    name: "prospero_subscriptions",
    help: "GraphQL subscriptions running now (graphql-ws, SSE and graphql-sse).",
    registers: [registry],
    collect() {
      this.set(sources.live().subscriptions);
    },
  });
  total(
    "prospero_bus_dropped_events_total",
    "Events dropped from slow subscribers' buffers (those subscribers were refilled from the store).",
    (svc) => svc.bus.stats.dropped,
  );
  total(
    "prospero_bus_overflows_total",
    "Times a subscriber fell behind its buffer (one per episode, however many events it covered).",
    (svc) => svc.bus.stats.overflows,
  );

  // The store ----------------------------------------------------------------------------------
  const storeWrite = new Histogram({
    name: "prospero_store_write_duration_seconds",
    help: "Latency of the store writer's batch transactions (committed or failed).",
    buckets: STORE_WRITE_BUCKETS,
    registers: [registry],
  });
  total("prospero_events_stored_total", "Events committed to the store.", (svc) => svc.store.stats.appended);

  // Attention ----------------------------------------------------------------------------------
  new Gauge({
    name: "prospero_inbox_items",
    help: "Inbox items by kind and state (CLOSED ones until retention removes them).",
    labelNames: ["kind", "state"] as const,
    registers: [registry],
    collect: collectWith<Gauge<"kind" | "state">, { kind: string; state: string; count: number }[]>(
      "prospero_inbox_items",
      (svc) => svc.inbox.countsByKindState(),
      (m, rows) => {
        for (const kind of INBOX_KINDS) for (const state of INBOX_STATES) m.set({ kind, state }, 0);
        for (const r of rows) m.set({ kind: r.kind, state: r.state }, r.count);
      },
    ),
  });
  new Gauge({
    name: "prospero_health_check_failing",
    help: "Subjects failing each health check in the monitor's last round (0: passing).",
    labelNames: ["check"] as const,
    registers: [registry],
    collect: collectWith<Gauge<"check">, Map<string, number>>(
      "prospero_health_check_failing",
      (svc) => {
        const failingByCheck = new Map<string, number>(HEALTH_CHECKS.map((c) => [c.id, 0]));
        for (const r of svc.monitor.report().results) {
          if (!r.ok && failingByCheck.has(r.check))
            failingByCheck.set(r.check, failingByCheck.get(r.check)! + 1);
        }
        return failingByCheck;
      },
      (m, counts) => {
        for (const [check, n] of counts) m.set({ check }, n);
      },
    ),
  });
  new Gauge({
    name: "prospero_webhook_deliveries",
    help: "Webhook deliveries stored, by state (until retention removes them).",
    labelNames: ["state"] as const,
    registers: [registry],
    collect: collectWith<Gauge<"state">, { state: string; count: number }[]>(
      "prospero_webhook_deliveries",
      async (svc) =>
        (await svc.prisma.webhookDelivery.groupBy({ by: ["state"], _count: { _all: true } })).map((g) => ({
          state: g.state,
          count: g._count._all,
        })),
      (m, rows) => {
        for (const state of DELIVERY_STATES) m.set({ state }, 0);
        for (const r of rows) m.set({ state: r.state }, r.count);
      },
    ),
  });

  // The launch queue ---------------------------------------------------------------------------
  new Gauge({
    name: "prospero_launches",
    help: "Launches not yet final, by state.",
    labelNames: ["state"] as const,
    registers: [registry],
    collect: collectWith<Gauge<"state">, Record<(typeof ACTIVE_LAUNCH_STATES)[number], number>>(
      "prospero_launches",
      (svc) => {
        const q = svc.queue.metrics();
        return { QUEUED: q.queued, DISPATCHED: q.dispatched, RUNNING: q.running };
      },
      (m, counts) => {
        for (const state of ACTIVE_LAUNCH_STATES) m.set({ state }, counts[state]);
      },
    ),
  });
  total(
    "prospero_queue_dispatches_total",
    "Launch attempts dispatched (spawn or respawn sent).",
    (svc) => svc.queue.metrics().dispatches_total,
  );
  total(
    "prospero_queue_retries_total",
    "Retries scheduled after transient provider failures.",
    (svc) => svc.queue.metrics().retries_total,
  );
  total(
    "prospero_queue_timeouts_total",
    "Launches ended TIMED_OUT.",
    (svc) => svc.queue.metrics().timeouts_total,
  );
  gauge(
    "prospero_queue_oldest_wait_seconds",
    "Age of the oldest QUEUED launch (0 when none).",
    (svc) => svc.queue.metrics().oldest_queued_age_ms / 1000,
  );

  // GraphQL operations (the yoga prometheus plugin) --------------------------------------------
  const names = new Set<string>();
  /** The operation-name label: a GraphQL name, bounded (see {@link MAX_OPERATION_NAMES}). */
  const operationName = (name: string | undefined): string => {
    if (name === undefined || name === "" || name === "Anonymous") return "Anonymous";
    if (!/^[_A-Za-z][_0-9A-Za-z]{0,99}$/.test(name)) return "invalid";
    if (names.has(name)) return name;
    if (names.size >= MAX_OPERATION_NAMES) return "other";
    names.add(name);
    return name;
  };
  type OperationLabels = "operationName" | "operationType";
  const operationLabels = (params: { operationName?: string; operationType?: string }) => ({
    operationName: operationName(params.operationName),
    operationType: params.operationType ?? "unknown",
  });
  const requests = createCounter<"execute" | "subscribe", OperationLabels>({
    registry,
    counter: {
      name: "prospero_graphql_operations_total",
      help: "GraphQL operations executed (queries and mutations) or subscribed, by operation name and type.",
      labelNames: ["operationName", "operationType"],
    },
    fillLabelsFn: operationLabels,
  });
  const durations = createHistogram<"execute" | "subscribe", OperationLabels>({
    registry,
    histogram: {
      name: "prospero_graphql_operation_duration_seconds",
      help: "Time to execute a GraphQL operation (for a subscription: until it ended), seconds.",
      labelNames: ["operationName", "operationType"],
    },
    fillLabelsFn: operationLabels,
  });
  const errors = createCounter<
    "parse" | "validate" | "context" | "execute" | "subscribe",
    OperationLabels | "phase",
    { operationName?: string; operationType?: string; errorPhase?: string }
  >({
    registry,
    counter: {
      name: "prospero_graphql_errors_total",
      help: "Errors in GraphQL results, by operation name, type and phase (parse, validate, context, execute, subscribe).",
      labelNames: ["operationName", "operationType", "phase"],
    },
    fillLabelsFn: (params) => ({ ...operationLabels(params), phase: params.errorPhase ?? "unknown" }),
  });

  return {
    registry,
    yogaPlugin: () =>
      usePrometheus({
        registry,
        // Served by the gateway's own route (authenticated), never by yoga on its path.
        endpoint: false,
        metrics: {
          graphql_envelop_request: requests,
          graphql_envelop_request_duration: durations,
          graphql_envelop_error_result: errors,
          // Off: per-phase and per-field histograms, a summary, and an HTTP histogram labelled by
          // full URL (unbounded). The three above answer "which operations, how often, how slow".
          graphql_envelop_request_time_summary: false,
          graphql_envelop_phase_parse: false,
          graphql_envelop_phase_validate: false,
          graphql_envelop_phase_context: false,
          graphql_envelop_phase_execute: false,
          graphql_envelop_phase_subscribe: false,
          graphql_envelop_execute_resolver: false,
          graphql_envelop_deprecated_field: false,
          graphql_envelop_schema_change: false,
          graphql_yoga_http_duration: false,
        },
      }),
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    observePollRound(ms) {
      if (Number.isFinite(ms) && ms >= 0) pollRound.observe(ms / 1000);
    },
    observeStoreWrite(ms) {
      if (Number.isFinite(ms) && ms >= 0) storeWrite.observe(ms / 1000);
    },
  };
}

/** A listening `--metrics-bind` server. */
export interface MetricsServer {
  /** Where the metrics are, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  /** Stop listening and close open connections. */
  close(): Promise<void>;
}

/**
 * Serve `GET /metrics` (and HEAD) without a token on `addr`, a loopback address
 * (`--metrics-bind`, checked loopback by src/config.ts): for a Prometheus scraper on this host.
 * Nothing else is served (404; other methods 405). Browsers are kept out as on the gateway's
 * port: a `Host` that is not an IP literal or `localhost` (a DNS-rebinding page) is refused (421),
 * and so is a request with a foreign `Origin` (403). Never cached.
 * @throws (rejects) the listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL) with the OS reason.
 */
export async function startMetricsServer(
  addr: { host: string; port: number },
  metrics: GatewayMetrics,
  log: Logger,
): Promise<MetricsServer> {
  const policy = new AccessPolicy({
    bind: addr.host,
    tls: false,
    publicHosts: [],
    corsOrigins: [],
    trustProxy: [],
  });
  const server = http.createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    const facts = { headers: req.headers, remoteAddress: req.socket.remoteAddress };
    const pathname = (req.url ?? "/").split("?")[0];
    if (!policy.hostAllowed(req.headers.host)) {
      plainText(res, 421, "unknown Host: this metrics address answers to localhost and IP addresses");
      return;
    }
    if (policy.origin(facts) === "forbidden") {
      plainText(res, 403, "cross-origin requests are refused");
      return;
    }
    if (pathname !== METRICS_PATH) {
      plainText(res, 404, `not found: only ${METRICS_PATH} is served here`);
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      plainText(res, 405, "method not allowed: GET /metrics", { allow: "GET, HEAD" });
      return;
    }
    void serveScrape(res, metrics, log, req.method === "HEAD");
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(addr.port, addr.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => log.error({ err }, "metrics server error"));
  const bound = server.address() as AddressInfo;
  const host = bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Answer one scrape: 200 with the text format and `Cache-Control: no-store`; 500 (logged) when
 * the registry fails. Shared by the gateway's route and {@link startMetricsServer}.
 */
export async function serveScrape(
  res: http.ServerResponse,
  metrics: GatewayMetrics,
  log: Logger,
  headOnly = false,
): Promise<void> {
  try {
    const { contentType, body } = await metrics.scrape();
    res.writeHead(200, {
      "content-type": contentType,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-length": Buffer.byteLength(body),
    });
    res.end(headOnly ? undefined : body);
  } catch (err) {
    log.error({ err }, "serving /metrics failed");
    if (!res.headersSent) plainText(res, 500, "metrics could not be collected");
    else res.destroy();
  }
}
