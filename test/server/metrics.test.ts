// Issue 15 item 4: Prometheus metrics of a real gateway (startAppHarness: store, fleet, yoga on a
// real port, the caliband double), scraped as Prometheus does and parsed with
// parse-prometheus-text-format. GET /metrics is authenticated like the API; --metrics-bind serves
// it without a token on a loopback address of its own.
import http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import parsePrometheusTextFormat, {
  type PrometheusFamily,
  type PrometheusHistogramSample,
  type PrometheusSample,
} from "parse-prometheus-text-format";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { HEALTH_CHECKS } from "../../src/attention/thresholds.js";
import { startApp } from "../../src/app.js";
import { resolveConfig } from "../../src/config.js";
import { StartupError } from "../../src/errors.js";
import { silentLogger } from "../../src/log.js";
import { MAX_OPERATION_NAMES } from "../../src/server/metrics.js";
import { tmpDir } from "../helpers/tmp.js";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request (Origin, Cookie and Host exactly as given; fetch would add or refuse some). */
function request(
  url: string,
  opts: { path?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname.replace(/^\[|\]$/g, ""),
        port: u.port,
        path: opts.path ?? "/metrics",
        method: opts.method ?? "GET",
        headers: opts.headers ?? {},
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The text of one scrape of `url`'s /metrics with `token`. */
async function scrapeText(url: string, token?: string): Promise<string> {
  const res = await request(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status, res.body).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(res.headers["cache-control"]).toBe("no-store");
  return res.body;
}

/** Scrape `url`'s /metrics with `token` and parse the families by name. */
async function scrape(url: string, token?: string): Promise<Map<string, PrometheusFamily>> {
  return new Map(parsePrometheusTextFormat(await scrapeText(url, token)).map((f) => [f.name, f]));
}

function family(fams: Map<string, PrometheusFamily>, name: string): PrometheusFamily {
  const f = fams.get(name);
  if (!f) throw new Error(`no family ${name} in the scrape (has ${[...fams.keys()].join(", ")})`);
  return f;
}

/** The value of the sample of `name` whose labels include `labels` (NaN when there is none). */
function value(
  fams: Map<string, PrometheusFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const s = (family(fams, name).metrics as PrometheusSample[]).find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
  return s ? Number(s.value) : NaN;
}

/**
 * The observation count of an unlabelled histogram. (parse-prometheus-text-format 1.1.1 drops the
 * labels, count and sum of a labelled histogram whose `le` comes first, as prom-client writes it:
 * labelled histograms are read from the text, see {@link sampleOf}.)
 */
function histogramCount(fams: Map<string, PrometheusFamily>, name: string): number {
  const f = family(fams, name);
  expect(f.type).toBe("HISTOGRAM");
  const s = (f.metrics as PrometheusHistogramSample[])[0];
  return s ? Number(s.count) : NaN;
}

/** The value of the sample line `name{labels}` in a scrape's text (labels exactly as written), or NaN. */
function sampleOf(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : NaN;
}

/** The families the design names, with their Prometheus types. */
const FAMILIES: [string, PrometheusFamily["type"]][] = [
  ["prospero_agents", "GAUGE"],
  ["prospero_workspace_up", "GAUGE"],
  ["prospero_frames_ingested_total", "COUNTER"],
  ["prospero_ingest_lag_bytes", "GAUGE"],
  ["prospero_ingest_gaps_total", "COUNTER"],
  ["prospero_poll_round_duration_seconds", "HISTOGRAM"],
  ["prospero_polls_total", "COUNTER"],
  ["prospero_poll_failures_total", "COUNTER"],
  ["prospero_websocket_connections", "GAUGE"],
  ["prospero_subscriptions", "GAUGE"],
  ["prospero_bus_dropped_events_total", "COUNTER"],
  ["prospero_bus_overflows_total", "COUNTER"],
  ["prospero_store_write_duration_seconds", "HISTOGRAM"],
  ["prospero_events_stored_total", "COUNTER"],
  ["prospero_inbox_items", "GAUGE"],
  ["prospero_health_check_failing", "GAUGE"],
  ["prospero_launches", "GAUGE"],
  ["prospero_queue_dispatches_total", "COUNTER"],
  ["prospero_queue_retries_total", "COUNTER"],
  ["prospero_queue_timeouts_total", "COUNTER"],
  ["prospero_queue_oldest_wait_seconds", "GAUGE"],
  ["prospero_webhook_deliveries", "GAUGE"],
  ["prospero_graphql_operations_total", "COUNTER"],
  ["prospero_graphql_operation_duration_seconds", "HISTOGRAM"],
  ["prospero_graphql_errors_total", "COUNTER"],
  ["process_cpu_user_seconds_total", "COUNTER"],
  ["process_resident_memory_bytes", "GAUGE"],
  ["nodejs_heap_size_used_bytes", "GAUGE"],
  ["nodejs_eventloop_lag_seconds", "GAUGE"],
];

async function spawn(h: AppHarness, prompt: string): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent?: { agentId: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt },
  );
  const id = r.data?.spawnAgent.agent?.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return id;
}

describe("GET /metrics on the gateway", () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("serves every family with its type, the process defaults included, read at scrape time", async () => {
    // Poll rounds run every 100 ms (the harness's interval); the daemon answers them.
    const fams = await waitFor(async () => {
      const f = await scrape(h.url, h.token);
      return histogramCount(f, "prospero_poll_round_duration_seconds") > 0 &&
        value(f, "prospero_workspace_up", { workspace: "demo" }) === 1
        ? f
        : null;
    });
    for (const [name, type] of FAMILIES) expect(family(fams, name).type, name).toBe(type);
    expect(histogramCount(fams, "prospero_store_write_duration_seconds")).toBeGreaterThan(0);
    expect(value(fams, "prospero_polls_total")).toBeGreaterThan(0);
    expect(value(fams, "prospero_workspace_up", { workspace: "demo" })).toBe(1);
    for (const c of HEALTH_CHECKS)
      expect(value(fams, "prospero_health_check_failing", { check: c.id })).toBe(0);
    for (const state of ["QUEUED", "DISPATCHED", "RUNNING"])
      expect(value(fams, "prospero_launches", { state })).toBe(0);
    for (const state of ["PENDING", "DELIVERED", "FAILED"])
      expect(value(fams, "prospero_webhook_deliveries", { state })).toBe(0);
    // Base units: seconds, not the services' milliseconds.
    expect(family(fams, "prospero_queue_oldest_wait_seconds").help).not.toMatch(/ms\b/);
  });

  it("prospero_agents{workspace,status} follows a spawned agent of the daemon", async () => {
    const before = await scrape(h.url, h.token);
    const running0 = value(before, "prospero_agents", { workspace: "demo", status: "running" });
    expect(running0).toBe(0);
    const id = await spawn(h, "long fake:hold=60000");
    const fams = await waitFor(async () => {
      const f = await scrape(h.url, h.token);
      return value(f, "prospero_agents", { workspace: "demo", status: "running" }) === 1 ? f : null;
    });
    expect(value(fams, "prospero_agents", { workspace: "demo", status: "idle" })).toBe(0);
    await h.gql(`mutation($id: String!) { killAgent(input: { agentId: $id }) { __typename } }`, { id });
    await waitFor(async () => {
      const f = await scrape(h.url, h.token);
      return value(f, "prospero_agents", { workspace: "demo", status: "running" }) === 0 &&
        value(f, "prospero_agents", { workspace: "demo", status: "killed" }) === 1
        ? f
        : null;
    });
  });

  it("prospero_frames_ingested_total and prospero_events_stored_total grow with a run", async () => {
    const before = await scrape(h.url, h.token);
    const frames0 = value(before, "prospero_frames_ingested_total");
    const events0 = value(before, "prospero_events_stored_total");
    await spawn(h, "hello");
    const after = await waitFor(async () => {
      const f = await scrape(h.url, h.token);
      return value(f, "prospero_frames_ingested_total") > frames0 ? f : null;
    });
    expect(value(after, "prospero_events_stored_total")).toBeGreaterThan(events0);
  });

  it("GraphQL operations are counted and timed by operation name", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await h.gql(`query MetricsProbe { __typename }`);
      expect(r.errors).toBeUndefined();
    }
    const broken = await h.gql(`query MetricsBroken { noSuchField }`);
    expect(broken.errors?.[0]?.extensions?.code).toBe("GRAPHQL_VALIDATION_FAILED");
    const text = await scrapeText(h.url, h.token);
    const fams = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    const op = { operationName: "MetricsProbe", operationType: "query" };
    expect(value(fams, "prospero_graphql_operations_total", op)).toBe(3);
    const labels = `operationName="MetricsProbe",operationType="query"`;
    expect(sampleOf(text, "prospero_graphql_operation_duration_seconds_count", labels)).toBe(3);
    expect(sampleOf(text, "prospero_graphql_operation_duration_seconds_bucket", `le="+Inf",${labels}`)).toBe(
      3,
    );
    // Refused in validation: an error of that phase, never executed.
    expect(
      value(fams, "prospero_graphql_errors_total", { operationName: "MetricsBroken", phase: "validate" }),
    ).toBe(1);
    expect(value(fams, "prospero_graphql_operations_total", { operationName: "MetricsBroken" })).toBeNaN();
  });

  it("operation names are a bounded label: past MAX_OPERATION_NAMES distinct names they count as `other`", async () => {
    for (let i = 0; i < MAX_OPERATION_NAMES + 20; i++) await h.gql(`query Many${i} { __typename }`);
    const fams = await scrape(h.url, h.token);
    const names = new Set(
      (family(fams, "prospero_graphql_operations_total").metrics as PrometheusSample[]).map(
        (m) => m.labels?.operationName,
      ),
    );
    expect(names.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 3); // + Anonymous, other, invalid
    expect(
      value(fams, "prospero_graphql_operations_total", { operationName: "other" }),
    ).toBeGreaterThanOrEqual(20);
    expect(value(fams, "prospero_graphql_operations_total", { operationName: "MetricsProbe" })).toBe(3);
  });

  it("live WebSocket connections and subscriptions are gauges", async () => {
    const before = await scrape(h.url, h.token);
    const subs0 = value(before, "prospero_subscriptions");
    const client = h.ws();
    const sub = collect<unknown>(client, `subscription { fleetChanges { __typename } }`, {});
    await waitFor(() => sub.items.length > 0);
    const during = await scrape(h.url, h.token);
    expect(value(during, "prospero_websocket_connections")).toBeGreaterThanOrEqual(1);
    expect(value(during, "prospero_subscriptions")).toBe(subs0 + 1);
    sub.stop();
    await waitFor(async () => value(await scrape(h.url, h.token), "prospero_subscriptions") === subs0);
    await client.dispose();
    await waitFor(async () => value(await scrape(h.url, h.token), "prospero_websocket_connections") === 0);
  });

  it("webhook deliveries are counted by state from the store", async () => {
    const now = new Date();
    await h.app.db.prisma.webhook.create({
      data: {
        id: "aaaaaaaaaaaa",
        name: "metrics-test",
        url: "https://hooks.example/x",
        format: "JSON",
        events: ["run.failed"],
        secret: "s".repeat(32),
        createdAt: now,
      },
    });
    const row = (id: string, state: string) => ({
      id,
      webhookId: "aaaaaaaaaaaa",
      notificationId: `n:${id}`,
      eventType: "run.failed",
      body: "{}",
      state,
      createdAt: now,
    });
    await h.app.db.prisma.webhookDelivery.createMany({
      data: [
        row("d00000000001", "DELIVERED"),
        row("d00000000002", "DELIVERED"),
        row("d00000000003", "FAILED"),
      ],
    });
    const fams = await scrape(h.url, h.token);
    expect(value(fams, "prospero_webhook_deliveries", { state: "DELIVERED" })).toBe(2);
    expect(value(fams, "prospero_webhook_deliveries", { state: "FAILED" })).toBe(1);
    expect(value(fams, "prospero_webhook_deliveries", { state: "PENDING" })).toBe(0);
  });

  it("a viewer token may scrape; a token limited to workspaces may not (the metrics name every workspace)", async () => {
    const viewer = await h.createToken({ name: "prom", role: "VIEWER" });
    expect(value(await scrape(h.url, viewer), "prospero_workspace_up", { workspace: "demo" })).not.toBeNaN();
    const limited = await h.createToken({ name: "prom-demo", role: "ADMIN", workspaces: ["demo"] });
    const res = await request(h.url, { headers: { authorization: `Bearer ${limited}` } });
    expect(res.status).toBe(403);
    expect(res.body).toMatch(/not limited to workspaces/);
    expect(res.body).not.toContain("prospero_");
  });

  it("no token: 401 with WWW-Authenticate, nothing served; a bad token: 401", async () => {
    const none = await request(h.url);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="prospero"');
    expect(none.headers["cache-control"]).toBe("no-store");
    expect(none.body).not.toContain("prospero_");
    const bad = await request(h.url, { headers: { authorization: "Bearer prospero_nope" } });
    expect(bad.status).toBe(401);
    expect(bad.body).not.toContain("prospero_");
  });

  it("cross-origin is refused like the API: a foreign Origin (even with a token), a cookie without the own Origin", async () => {
    const foreign = await request(h.url, {
      headers: { authorization: `Bearer ${h.token}`, origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).not.toContain("prospero_");

    const exchange = await request(h.url, { path: `/?token=${encodeURIComponent(h.token)}` });
    expect(exchange.status).toBe(303);
    const cookie = [exchange.headers["set-cookie"] ?? []].flat()[0]!.split(";")[0]!;
    const own = new URL(h.url).origin;
    const viaCookie = await request(h.url, { headers: { cookie, origin: own } });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toContain("prospero_agents");
    const cookieNoOrigin = await request(h.url, { headers: { cookie } });
    expect(cookieNoOrigin.status).toBe(403);
    const cookieForeign = await request(h.url, { headers: { cookie, origin: "https://evil.example" } });
    expect(cookieForeign.status).toBe(403);
    expect(cookieForeign.body).not.toContain("prospero_");

    const post = await request(h.url, { method: "POST", headers: { authorization: `Bearer ${h.token}` } });
    expect(post.status).toBe(405);
  });
});

describe("health checks in /metrics", () => {
  let h: AppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("a failing check shows in prospero_health_check_failing{check}", async () => {
    // Free space below 1 PiB: data_disk_free fails on any disk.
    h = await startAppHarness({ config: { healthThresholds: [`data_disk_free=${1024 ** 5}`] } });
    await h.app.monitor.runChecks();
    const fams = await scrape(h.url, h.token);
    expect(value(fams, "prospero_health_check_failing", { check: "data_disk_free" })).toBe(1);
    expect(value(fams, "prospero_health_check_failing", { check: "database_size" })).toBe(0);
  });
});

/** A free loopback port (bound and released; the gateway binds it moments later). */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("--metrics-bind", () => {
  let h: AppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("serves /metrics without a token on its loopback address; the main port still needs one", async () => {
    const port = await freePort();
    h = await startAppHarness({ config: { metricsBind: `127.0.0.1:${port}` } });
    expect(h.app.metricsUrl).toBe(`http://127.0.0.1:${port}/metrics`);
    const fams = await scrape(`http://127.0.0.1:${port}`);
    expect(family(fams, "prospero_agents").type).toBe("GAUGE");
    expect(value(fams, "prospero_workspace_up", { workspace: "demo" })).not.toBeNaN();
    expect((await request(h.url)).status).toBe(401);
    // Only /metrics, only GET/HEAD, and browsers are kept out (DNS rebinding, foreign Origin).
    const base = `http://127.0.0.1:${port}`;
    expect((await request(base, { path: "/graphql" })).status).toBe(404);
    expect((await request(base, { method: "POST" })).status).toBe(405);
    const rebound = await request(base, { headers: { host: `evil.example:${port}` } });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain("prospero_");
    expect((await request(base, { headers: { origin: "https://evil.example" } })).status).toBe(403);
    const head = await request(base, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");

    const app = h.app;
    await h.close();
    h = undefined;
    // Closed with the gateway.
    await expect(request(base)).rejects.toThrow(/ECONNREFUSED/);
    expect(app.metricsUrl).not.toBeNull();
  });

  it("a port already taken fails the start with a StartupError naming --metrics-bind, and undoes it", async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
    const port = (s.address() as net.AddressInfo).port;
    const dataDir = tmpDir();
    const config = resolveConfig(
      { dataDir, port: "0", autostart: false, metricsBind: `127.0.0.1:${port}` },
      { HOME: process.env.HOME },
    );
    const env = { ...process.env, XDG_RUNTIME_DIR: tmpDir("xdg-"), PROSPERO_ADMIN_TOKEN: undefined };
    try {
      const started = startApp(config, silentLogger, { env, showTokenInLog: false });
      await expect(started).rejects.toThrow(StartupError);
      await expect(started).rejects.toThrow(/--metrics-bind 127\.0\.0\.1:\d+ \(EADDRINUSE\)/);
      // Undone: the data dir is free for the next gateway.
      const next = await startApp({ ...config, metricsBind: null }, silentLogger, {
        env,
        showTokenInLog: false,
      });
      await next.stop();
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  });
});
