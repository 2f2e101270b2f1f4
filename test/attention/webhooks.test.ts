/**
 * Webhook delivery (issue 15 item 3, src/attention/webhooks.ts) against REAL HTTP receivers on
 * loopback (node:http on port 0) and real SQLite stores: signatures a receiver verifies with the
 * shared secret, retries through the backoff (a hand-moved clock, test/helpers/manual-clock.ts),
 * final failure, timeouts, a 10 MB answer read only in part, redirects (a malformed `Location`
 * too, with logs naming the hook by its origin only), event filters, one attempt per hook and
 * `concurrency` in all, stop/restart (of the service, and of a whole gateway on the same data
 * dir), disable/delete, and the URL rules (the self check again before each attempt: DNS
 * rebinding).
 */
import fs from "node:fs";
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { startApp, type App } from "../../src/app.js";
import { Notifier } from "../../src/attention/notify.js";
import { verifySignature } from "../../src/attention/payload.js";
import type { Notification, NotificationType } from "../../src/attention/types.js";
import { WebhookService, type WebhookDeps } from "../../src/attention/webhooks.js";
import { resolveConfig } from "../../src/config.js";
import { NotFound, ValidationFailed } from "../../src/errors.js";
import type { WebhookDelivery } from "../../src/generated/prisma/client.js";
import { createLogger, silentLogger } from "../../src/log.js";
import { openDatabase, type OpenedDatabase } from "../../src/store/db.js";
import { VERSION } from "../../src/version.js";
import { startAppHarness } from "../helpers/app-harness.js";
import { onCleanup } from "../helpers/cleanup.js";
import { ManualClock } from "../helpers/manual-clock.js";
import { tmpDir } from "../helpers/tmp.js";

const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const MiB = 1024 * 1024;
/** The "gateway's" port for the URL rules of the service-level tests. */
const SELF_PORT = 7878;

// Receivers ---------------------------------------------------------------------------------------

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  handle: Handler;
}

/** An HTTP server on 127.0.0.1:0 recording every request (after its body) and answering with `handle`. */
async function receiver(handle: Handler): Promise<Receiver> {
  const rx: Receiver = { url: "", port: 0, requests: [], handle };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      rx.requests.push({ path: req.url ?? "", headers: req.headers, body });
      rx.handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rx.port = (server.address() as AddressInfo).port;
  rx.url = `http://127.0.0.1:${rx.port}/hook`;
  onCleanup(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return rx;
}

/** Answer `status` with `body`. */
const answer =
  (status: number, body = "") =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.statusCode = status;
    res.end(body);
  };

// A service over a real store -----------------------------------------------------------------------

interface Service {
  db: OpenedDatabase;
  svc: WebhookService;
  notifier: Notifier;
  /** Every log line the service wrote. */
  lines: string[];
}

/** A started WebhookService on the database in `dir` (created and migrated on first use). */
async function service(dir: string, clock: ManualClock, opts: Partial<WebhookDeps> = {}): Promise<Service> {
  const db = await openDatabase(dir);
  onCleanup(() => db.close());
  const lines: string[] = [];
  const log = createLogger(
    "debug",
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString("utf8"));
        cb();
      },
    }),
  );
  const notifier = new Notifier(log);
  const svc = new WebhookService({
    db: db.prisma,
    notifier,
    log,
    clock,
    selfAddresses: () => ({ hosts: ["127.0.0.1"], port: SELF_PORT }),
    ...opts,
  });
  onCleanup(() => svc.stop());
  await svc.start();
  return { db, svc, notifier, lines };
}

let seq = 0;
/** A notification of `type` with a fresh id. */
function note(type: NotificationType = "run.failed", over: Partial<Notification> = {}): Notification {
  seq++;
  return {
    id: `${type}:item${seq}:${seq}`,
    type,
    occurredAt: new Date(T0),
    workspace: "demo",
    agentId: "a1b2c3d4e5f6",
    inboxItemId: `0000000000${String(seq).padStart(2, "0")}`,
    title: `Run a1b2c3d4e5f6 failed in demo (${seq})`,
    message: "ProviderError: 401 invalid x-api-key",
    data: { kind: "RUN_FAILED", outcome: "ProviderError" },
    ...over,
  };
}

/** The deliveries of hook `webhookId`, oldest first. */
const deliveries = (s: Service, webhookId: string): Promise<WebhookDelivery[]> =>
  s.db.prisma.webhookDelivery.findMany({ where: { webhookId }, orderBy: { createdAt: "asc" } });

/** Wait until hook `webhookId` has exactly one delivery and `ok(it)` holds; return it. */
async function oneDelivery(
  s: Service,
  webhookId: string,
  ok: (d: WebhookDelivery) => boolean,
): Promise<WebhookDelivery> {
  return vi.waitFor(
    async () => {
      const rows = await deliveries(s, webhookId);
      expect(rows).toHaveLength(1);
      const d = rows[0]!;
      if (!ok(d)) throw new Error(`not yet: ${JSON.stringify(d)}`);
      return d;
    },
    { timeout: 10_000, interval: 10 },
  );
}

/** Move the clock to its earliest timer and run what is due; returns the new time. */
function advance(clock: ManualClock): number {
  const next = Math.min(...clock.pending());
  expect(Number.isFinite(next)).toBe(true);
  clock.set(next);
  clock.runDue();
  return next;
}

/** True when `r` carries a signature made with `secret` over its own timestamp and body. */
function signedWith(secret: string, r: Received): boolean {
  const timestamp = r.headers["x-prospero-timestamp"] as string | undefined;
  return verifySignature(
    secret,
    { body: r.body, timestamp, signature: r.headers["x-prospero-signature"] as string | undefined },
    { nowS: Number(timestamp) },
  );
}

// Tests -------------------------------------------------------------------------------------------

describe("webhook delivery", () => {
  it("retries a receiver failing twice (500) and delivers on the third attempt, through the backoff", async () => {
    const clock = new ManualClock(T0);
    const statuses = [500, 500, 200];
    const rx = await receiver((_req, res) => {
      res.statusCode = statuses.shift() ?? 200;
      res.end("try later");
    });
    const s = await service(tmpDir(), clock);
    const { webhook, secret } = await s.svc.create(
      { name: "ops", url: rx.url, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    s.notifier.emit(note());

    const first = await oneDelivery(s, webhook.id, (d) => d.attempts === 1 && clock.pending().length === 1);
    expect(first).toMatchObject({
      state: "PENDING",
      lastStatus: 500,
      lastError: "HTTP 500 Internal Server Error: try later",
    });
    // The second attempt waits 1 s with equal jitter: 0.5–1 s.
    const wait1 = first.nextAttemptAt!.getTime() - T0;
    expect(wait1).toBeGreaterThanOrEqual(500);
    expect(wait1).toBeLessThanOrEqual(1000);
    expect(clock.pending()).toEqual([first.nextAttemptAt!.getTime()]);
    const t1 = advance(clock);

    const second = await oneDelivery(s, webhook.id, (d) => d.attempts === 2 && clock.pending().length === 1);
    const wait2 = second.nextAttemptAt!.getTime() - t1;
    expect(wait2).toBeGreaterThanOrEqual(1000);
    expect(wait2).toBeLessThanOrEqual(2000);
    const t2 = advance(clock);

    const done = await oneDelivery(s, webhook.id, (d) => d.state === "DELIVERED");
    expect(done).toMatchObject({ attempts: 3, lastStatus: 200, lastError: null, nextAttemptAt: null });
    expect(done.deliveredAt?.getTime()).toBe(t2);
    expect(rx.requests).toHaveLength(3);
    // One delivery id on every attempt; a fresh timestamp per attempt, each signature verifies.
    expect(new Set(rx.requests.map((r) => r.headers["x-prospero-delivery"]))).toEqual(new Set([done.id]));
    expect(rx.requests.map((r) => Number(r.headers["x-prospero-timestamp"]))).toEqual(
      [T0, t1, t2].map((t) => Math.floor(t / 1000)),
    );
    for (const r of rx.requests) expect(signedWith(secret, r)).toBe(true);
    expect(clock.pending()).toEqual([]);
  });

  it("gives up after maxAttempts of 5xx: FAILED with the last status and error, without the secret", async () => {
    const clock = new ManualClock(T0);
    const secret = "receiver-knows-this-secret-1234";
    const rx = await receiver(answer(503, `overloaded; your key ${secret}\n<html>`));
    const s = await service(tmpDir(), clock, { maxAttempts: 3 });
    const { webhook } = await s.svc.create(
      { name: "ops", url: rx.url, events: ["run.failed"], format: "JSON", secret },
      "alice",
    );
    s.notifier.emit(note());
    await oneDelivery(s, webhook.id, (d) => d.attempts === 1 && clock.pending().length === 1);
    advance(clock);
    await oneDelivery(s, webhook.id, (d) => d.attempts === 2 && clock.pending().length === 1);
    advance(clock);
    const d = await oneDelivery(s, webhook.id, (x) => x.state === "FAILED");
    expect(d).toMatchObject({ attempts: 3, lastStatus: 503, nextAttemptAt: null, deliveredAt: null });
    expect(d.lastError).toBe("HTTP 503 Service Unavailable: overloaded; your key [redacted] <html>");
    expect(clock.pending()).toEqual([]);
    clock.set(T0 + 3_600_000);
    clock.runDue();
    expect(rx.requests).toHaveLength(3);
    expect(s.lines.join("")).toContain("no attempts left");
    expect(s.lines.join("")).not.toContain(secret);
  });

  it("a receiver's error page echoing the request path does not put a secret path into lastError or the log", async () => {
    const clock = new ManualClock(T0);
    // Express's default 404 quotes the path: for a Slack-style URL that is the hook's credential.
    const rx = await receiver((req, res) => {
      res.statusCode = 404;
      res.end(`<pre>Cannot POST ${req.url}</pre>`);
    });
    const token = "xoxSecretPathToken1234";
    const url = `http://127.0.0.1:${rx.port}/services/T0123ABCD/B0123ABCD/${token}?sig=abcd1234`;
    const s = await service(tmpDir(), clock, { maxAttempts: 1 });
    const { webhook } = await s.svc.create(
      { name: "slack", url, events: ["run.failed"], format: "SLACK" },
      "alice",
    );
    s.notifier.emit(note());
    const d = await oneDelivery(s, webhook.id, (x) => x.state === "FAILED");
    expect(d.lastStatus).toBe(404);
    expect(d.lastError).toBe("HTTP 404 Not Found: <pre>Cannot POST [redacted]</pre>");
    for (const secretPart of [token, "/services/T0123ABCD", "abcd1234"]) {
      expect(d.lastError).not.toContain(secretPart);
      expect(s.lines.join("")).not.toContain(secretPart);
    }
  });

  it("records a refused connection as a failed attempt without a status", async () => {
    const clock = new ManualClock(T0);
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const s = await service(tmpDir(), clock);
    const { webhook } = await s.svc.create(
      { name: "gone", url: `http://127.0.0.1:${port}/hook`, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    s.notifier.emit(note());
    const d = await oneDelivery(s, webhook.id, (x) => x.attempts === 1);
    expect(d).toMatchObject({
      state: "PENDING",
      lastStatus: null,
      lastError: `connection failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it("times out a receiver that never answers, and the receiver sees its connection closed", async () => {
    const clock = new ManualClock(T0);
    let closed = false;
    const rx = await receiver((_req, res) => {
      res.on("close", () => (closed = true));
    });
    const s = await service(tmpDir(), clock, { timeoutMs: 10_000 });
    const { webhook } = await s.svc.create(
      { name: "slow", url: rx.url, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    s.notifier.emit(note());
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1));
    // In flight: its timeout is the only timer.
    expect(clock.pending()).toEqual([T0 + 10_000]);
    expect((await deliveries(s, webhook.id))[0]).toMatchObject({ state: "PENDING", attempts: 0 });
    advance(clock);
    const d = await oneDelivery(s, webhook.id, (x) => x.attempts === 1);
    expect(d).toMatchObject({
      state: "PENDING",
      lastStatus: null,
      lastError: "timed out after 10000 ms without a response",
    });
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it("reads at most 64 KiB of a 10 MB answer and closes the connection; the attempt is recorded", async () => {
    const clock = new ManualClock(T0);
    let sent = 0;
    let finished = false;
    let closed = false;
    const rx = await receiver((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(10 * MiB) });
      res.on("finish", () => (finished = true));
      res.on("close", () => (closed = true));
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      const write = () => {
        while (sent < 10 * MiB && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", write);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      write();
    });
    const s = await service(tmpDir(), clock);
    const { webhook } = await s.svc.create(
      { name: "big", url: rx.url, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    s.notifier.emit(note());
    const d = await oneDelivery(s, webhook.id, (x) => x.state === "DELIVERED");
    expect(d).toMatchObject({ attempts: 1, lastStatus: 200, lastError: null });
    await vi.waitFor(() => expect(closed).toBe(true));
    // The gateway hung up before taking the whole body.
    expect(finished).toBe(false);
    expect(sent).toBeLessThan(10 * MiB);
  });

  it("does not follow a redirect: a 3xx is a failed attempt", async () => {
    const clock = new ManualClock(T0);
    const rx = await receiver((req, res) => {
      if (req.url === "/hook") {
        res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere?token=abc" });
        res.end();
      } else answer(200)(req, res);
    });
    const s = await service(tmpDir(), clock);
    const { webhook } = await s.svc.create(
      { name: "moved", url: rx.url, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    s.notifier.emit(note());
    const d = await oneDelivery(s, webhook.id, (x) => x.attempts === 1);
    expect(d).toMatchObject({ state: "PENDING", lastStatus: 302 });
    expect(d.lastError).toBe(
      "HTTP 302 Found: redirects are not followed (to http://127.0.0.1:1); register the final URL",
    );
    expect(rx.requests.map((r) => r.path)).toEqual(["/hook"]);
  });

  it("a 3xx with a malformed Location is a counted, backed-off failed attempt; FAILED after maxAttempts; logs name the origin only", async () => {
    const clock = new ManualClock(T0);
    const rx = await receiver((_req, res) => {
      res.writeHead(302, { location: "http://[::1" });
      res.end();
    });
    const s = await service(tmpDir(), clock, { maxAttempts: 3 });
    // A Slack-like URL: its path is the credential.
    const secretPath = "/services/T0123ABCD/B0456EFGH/xoxSecretPathToken1234";
    const url = `http://127.0.0.1:${rx.port}${secretPath}`;
    const { webhook } = await s.svc.create(
      { name: "moved", url, events: ["run.failed"], format: "SLACK" },
      "a",
    );
    s.notifier.emit(note());
    const first = await oneDelivery(s, webhook.id, (d) => d.attempts === 1 && clock.pending().length === 1);
    expect(first).toMatchObject({
      state: "PENDING",
      lastStatus: 302,
      lastError: "HTTP 302 Found: redirects are not followed; register the final URL",
    });
    // Backed off like any failure (0.5–1 s), not retried at once.
    expect(first.nextAttemptAt!.getTime() - T0).toBeGreaterThanOrEqual(500);
    expect(rx.requests).toHaveLength(1);
    advance(clock);
    await oneDelivery(s, webhook.id, (d) => d.attempts === 2 && clock.pending().length === 1);
    advance(clock);
    const d = await oneDelivery(s, webhook.id, (x) => x.state === "FAILED");
    expect(d).toMatchObject({ attempts: 3, lastStatus: 302, nextAttemptAt: null });
    expect(clock.pending()).toEqual([]);
    expect(rx.requests).toHaveLength(3);
    const log = s.lines.join("");
    expect(log).toContain("no attempts left");
    expect(log).not.toContain("failed unexpectedly");
    expect(log).not.toContain(secretPath);
    expect(log).not.toContain("xoxSecretPathToken1234");
  });

  it("refuses an attempt when the hook's host name now resolves to this gateway (DNS rebinding), never sending it", async () => {
    const clock = new ManualClock(T0);
    // The receiver plays the gateway: its port is the "gateway's" port.
    const gateway = await receiver(answer(200));
    let answerOf = "192.0.2.1";
    const lookups: string[] = [];
    const lookup = (host: string): Promise<string[]> => {
      lookups.push(host);
      return Promise.resolve([answerOf]);
    };
    // The same (fake) DNS for the connection: a name resolving to 127.0.0.1 reaches the gateway.
    const viaDns: typeof fetch = (input, init) => {
      const target = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      return fetch(target.replace("hooks.example.test", answerOf), init);
    };
    const s = await service(tmpDir(), clock, {
      lookup,
      fetch: viaDns,
      selfAddresses: () => ({ hosts: ["127.0.0.1"], port: gateway.port }),
    });
    const url = `http://hooks.example.test:${gateway.port}/hook`;
    const { webhook } = await s.svc.create(
      { name: "rebind", url, events: ["run.failed"], format: "JSON" },
      "a",
    );
    expect(lookups).toEqual(["hooks.example.test"]);
    answerOf = "127.0.0.1";
    s.notifier.emit(note());
    const d = await oneDelivery(s, webhook.id, (x) => x.attempts === 1);
    expect(d).toMatchObject({
      state: "PENDING",
      lastStatus: null,
      lastError: `the URL now resolves to this gateway (127.0.0.1:${gateway.port}); refused`,
    });
    expect(lookups).toEqual(["hooks.example.test", "hooks.example.test"]);
    expect(gateway.requests).toEqual([]);
  });

  it("delivers only the types in a hook's events, and a notification once per hook", async () => {
    const clock = new ManualClock(T0);
    const rx = await receiver(answer(204));
    const s = await service(tmpDir(), clock);
    const failures = await s.svc.create(
      { name: "failures", url: `${rx.url}/failures`, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    const alerts = await s.svc.create(
      {
        name: "alerts",
        url: `${rx.url}/alerts`,
        events: ["alert.opened", "alert.resolved"],
        format: "SLACK",
      },
      "alice",
    );
    const alert = note("alert.opened", { agentId: null, inboxItemId: null, title: "disk low" });
    const failed = note("run.failed");
    s.notifier.emit(alert);
    s.notifier.emit(failed);
    s.notifier.emit(failed); // the same notification again: no second delivery
    const a = await oneDelivery(s, alerts.webhook.id, (d) => d.state === "DELIVERED");
    const f = await oneDelivery(s, failures.webhook.id, (d) => d.state === "DELIVERED");
    expect(a).toMatchObject({ eventType: "alert.opened", notificationId: alert.id, lastStatus: 204 });
    expect(f).toMatchObject({ eventType: "run.failed", notificationId: failed.id });
    expect(rx.requests.map((r) => [r.path, r.headers["x-prospero-event"]]).sort()).toEqual([
      ["/hook/alerts", "alert.opened"],
      ["/hook/failures", "run.failed"],
    ]);
    // Each in its hook's format.
    const slack = JSON.parse(rx.requests.find((r) => r.path === "/hook/alerts")!.body) as { text: string };
    expect(slack.text).toBe("disk low");
    const json = JSON.parse(rx.requests.find((r) => r.path === "/hook/failures")!.body) as {
      version: number;
    };
    expect(json).toMatchObject({ version: 1, id: failed.id, type: "run.failed" });
  });

  it("has at most one attempt in flight per hook and `concurrency` in all", async () => {
    const clock = new ManualClock(T0);
    const held: ServerResponse[] = [];
    const open = new Map<string, number>();
    let maxOpen = 0;
    let maxPerHook = 0;
    const rx = await receiver((req, res) => {
      const hook = req.url ?? "";
      open.set(hook, (open.get(hook) ?? 0) + 1);
      maxPerHook = Math.max(maxPerHook, open.get(hook)!);
      maxOpen = Math.max(
        maxOpen,
        [...open.values()].reduce((x, y) => x + y, 0),
      );
      res.on("finish", () => open.set(hook, open.get(hook)! - 1));
      held.push(res);
    });
    const s = await service(tmpDir(), clock, { concurrency: 2 });
    const hooks = [];
    for (const n of ["a", "b", "c"]) {
      hooks.push(
        (await s.svc.create({ name: n, url: `${rx.url}/${n}`, events: ["run.failed"], format: "JSON" }, "al"))
          .webhook,
      );
    }
    s.notifier.emit(note());
    s.notifier.emit(note());
    // 3 hooks × 2 notifications, released two at a time.
    let released = 0;
    while (released < 6) {
      const expectOpen = Math.min(2, 6 - released);
      await vi.waitFor(() => expect(held.length).toBe(expectOpen), { timeout: 5_000 });
      for (const res of held.splice(0)) {
        res.statusCode = 200;
        res.end();
        released++;
      }
    }
    for (const h of hooks) {
      await vi.waitFor(async () => {
        const rows = await deliveries(s, h.id);
        expect(rows.map((d) => d.state)).toEqual(["DELIVERED", "DELIVERED"]);
      });
    }
    expect(maxOpen).toBe(2);
    expect(maxPerHook).toBe(1);
    expect(rx.requests).toHaveLength(6);
  });

  it("stop() aborts an attempt in flight and leaves it PENDING; the next start delivers it", async () => {
    const dir = tmpDir();
    const clock = new ManualClock(T0);
    let closed = false;
    const rx = await receiver((_req, res) => {
      if (rx.requests.length === 1) res.on("close", () => (closed = true));
      else answer(200)(_req, res);
    });
    const s1 = await service(dir, clock);
    const { webhook, secret } = await s1.svc.create(
      { name: "ops", url: rx.url, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    s1.notifier.emit(note());
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1));
    await s1.svc.stop();
    await vi.waitFor(() => expect(closed).toBe(true));
    expect((await deliveries(s1, webhook.id))[0]).toMatchObject({
      state: "PENDING",
      attempts: 0,
      lastError: null,
    });
    await s1.db.close();

    const s2 = await service(dir, clock);
    const d = await oneDelivery(s2, webhook.id, (x) => x.state === "DELIVERED");
    expect(d.attempts).toBe(1);
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.headers["x-prospero-delivery"]).toBe(d.id);
    expect(signedWith(secret, rx.requests[1]!)).toBe(true);
  });

  it("a disabled hook gets no new deliveries; deleting one fails its pending deliveries", async () => {
    const clock = new ManualClock(T0);
    const rx = await receiver(answer(500));
    const s = await service(tmpDir(), clock);
    const { webhook } = await s.svc.create(
      { name: "ops", url: rx.url, events: ["run.failed"], format: "JSON" },
      "alice",
    );
    await s.svc.update(webhook.id, { enabled: false }, "alice");
    s.notifier.emit(note());
    // The listener returns at once; the row (if any) is written right after. Give it a round trip.
    await s.svc.update(webhook.id, { name: "ops2" }, "alice");
    expect(await deliveries(s, webhook.id)).toEqual([]);
    await expect(s.svc.test(webhook.id, "alice")).rejects.toThrow(/disabled/);

    await s.svc.update(webhook.id, { enabled: true }, "alice");
    s.notifier.emit(note());
    await oneDelivery(s, webhook.id, (d) => d.attempts === 1 && clock.pending().length === 1);
    const removed = await s.svc.remove(webhook.id, "alice");
    expect(removed.deletedAt).not.toBeNull();
    expect((await deliveries(s, webhook.id))[0]).toMatchObject({
      state: "FAILED",
      lastError: "webhook deleted",
      nextAttemptAt: null,
    });
    clock.set(T0 + 3_600_000);
    clock.runDue();
    s.notifier.emit(note());
    await expect(s.svc.remove(webhook.id, "alice")).rejects.toBeInstanceOf(NotFound);
    await expect(s.svc.test(webhook.id, "alice")).rejects.toBeInstanceOf(NotFound);
    expect(rx.requests).toHaveLength(1);
    expect(await deliveries(s, webhook.id)).toHaveLength(1);
  });

  it("refuses bad URLs (not http(s), credentials, this gateway by address or name) and stores nothing", async () => {
    const s = await service(tmpDir(), new ManualClock(T0));
    const bad = [
      "ftp://example.com/hook",
      "file:///etc/passwd",
      "not a url",
      "http://user:pw@example.com/hook",
      "https://token@example.com/hook",
      "https://example.com/hook#part",
      `https://example.com/${"a".repeat(2048)}`,
      `http://127.0.0.1:${SELF_PORT}/graphql`,
      `http://localhost:${SELF_PORT}/`,
      `http://[::1]:${SELF_PORT}/`,
      `http://0.0.0.0:${SELF_PORT}/`,
      `http://2130706433:${SELF_PORT}/`,
      `http://[::ffff:127.0.0.1]:${SELF_PORT}/`,
    ];
    for (const url of bad) {
      const err: unknown = await s.svc
        .create({ name: "x", url, events: ["run.failed"], format: "JSON" }, "alice")
        .catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(ValidationFailed);
      expect(
        (err as ValidationFailed).issues.map((i) => i.path),
        url,
      ).toEqual([["input", "url"]]);
    }
    // An own interface address with the gateway's port is refused too.
    const own = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a?.family === "IPv4" && !a.internal)?.address;
    if (own !== undefined) {
      await expect(
        s.svc.create(
          { name: "x", url: `http://${own}:${SELF_PORT}/`, events: ["run.failed"], format: "JSON" },
          "a",
        ),
      ).rejects.toBeInstanceOf(ValidationFailed);
    }
    // Other bad fields are reported together, each at its path.
    const err = (await s.svc
      .create({ name: " ", url: "ftp://x/", events: [], format: "JSON", secret: "short" }, "alice")
      .catch((e: unknown) => e)) as ValidationFailed;
    expect(err.issues.map((i) => i.path.join("."))).toEqual([
      "input.name",
      "input.events",
      "input.secret",
      "input.url",
    ]);
    expect(await s.db.prisma.webhook.count()).toBe(0);
    // The same host on another port, and a plain https URL, are fine.
    await s.svc.create({ name: "ok", url: "http://127.0.0.1:9/x", events: ["ping"], format: "JSON" }, "a");
    await s.svc.create(
      { name: "ok", url: "https://hooks.example.com/x", events: ["ping"], format: "JSON" },
      "a",
    );
    expect(await s.db.prisma.webhook.count()).toBe(2);
  });
});

describe("webhook retention", () => {
  it("prune deletes finished deliveries before the cutoff, keeps pending ones, then deleted hooks left empty", async () => {
    const clock = new ManualClock(T0);
    const ok = await receiver(answer(200));
    const down = await receiver(answer(500));
    const s = await service(tmpDir(), clock);
    const kept = await s.svc.create(
      { name: "kept", url: ok.url, events: ["run.failed"], format: "JSON" },
      "a",
    );
    const failing = await s.svc.create(
      { name: "failing", url: down.url, events: ["run.failed"], format: "JSON" },
      "a",
    );
    const doomed = await s.svc.create(
      { name: "doomed", url: down.url, events: ["ping"], format: "JSON" },
      "a",
    );
    s.notifier.emit(note());
    await oneDelivery(s, kept.webhook.id, (d) => d.state === "DELIVERED");
    await oneDelivery(s, failing.webhook.id, (d) => d.attempts === 1);
    await s.svc.test(doomed.webhook.id, "a");
    await oneDelivery(s, doomed.webhook.id, (d) => d.attempts === 1);
    await s.svc.remove(doomed.webhook.id, "a");

    expect(await s.svc.prune(new Date(T0))).toBe(0); // nothing older than the cutoff
    expect(await s.svc.prune(new Date(T0 + 1))).toBe(2); // the DELIVERED one and the deleted hook's FAILED one
    const left = await s.db.prisma.webhookDelivery.findMany();
    expect(left.map((d) => [d.webhookId, d.state])).toEqual([[failing.webhook.id, "PENDING"]]);
    expect((await s.db.prisma.webhook.findMany({ orderBy: { name: "asc" } })).map((h) => h.name)).toEqual([
      "failing",
      "kept",
    ]);
  });
});

describe("webhooks in a running gateway", () => {
  it("delivers a notification with a signature the receiver verifies using the shared secret", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    const rx = await receiver(answer(200));
    const { webhook, secret } = await h.app.webhooks.create(
      { name: "ops", url: rx.url, events: ["run.failed"], format: "JSON" },
      "admin",
    );
    const n = note();
    h.app.notifier.emit(n);
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1), { timeout: 10_000 });
    const r = rx.requests[0]!;
    expect(signedWith(secret, r)).toBe(true);
    expect(signedWith("some-other-secret-value", r)).toBe(false);
    expect(r.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": `prospero/${VERSION}`,
      "x-prospero-event": "run.failed",
    });
    expect(Math.abs(Number(r.headers["x-prospero-timestamp"]) - Date.now() / 1000)).toBeLessThan(300);
    const body = JSON.parse(r.body) as Record<string, unknown>;
    expect(body).toMatchObject({ version: 1, id: n.id, type: "run.failed", workspace: "demo" });
    // The dashboard link is the gateway's URL, never with a token.
    expect(body.url).toBe(`${h.url}/#/inbox/${n.inboxItemId}`);
    expect(r.body).not.toContain(h.token);
    await vi.waitFor(async () => {
      const d = await h.app.db.prisma.webhookDelivery.findFirstOrThrow({
        where: { webhookId: webhook.id },
      });
      expect(d).toMatchObject({ state: "DELIVERED", id: r.headers["x-prospero-delivery"] });
    });
  });

  it("delivers run.failed for a scripted agent that fails, and nothing to a hook for alerts only", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    const rx = await receiver(answer(200));
    const failures = await h.app.webhooks.create(
      { name: "failures", url: `${rx.url}/failures`, events: ["run.failed"], format: "JSON" },
      "admin",
    );
    const alerts = await h.app.webhooks.create(
      { name: "alerts", url: `${rx.url}/alerts`, events: ["alert.opened"], format: "JSON" },
      "admin",
    );
    const r = await h.gql<{ spawnAgent: { __typename: string; agent: { agentId: string } } }>(
      `mutation { spawnAgent(input: { workspace: "demo", prompt: "bad key fake:provider-error=401" }) {
         __typename ... on SpawnAgentPayload { agent { agentId } } } }`,
    );
    expect(r.data?.spawnAgent.__typename, JSON.stringify(r)).toBe("SpawnAgentPayload");
    const agentId = r.data!.spawnAgent.agent.agentId;
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1), { timeout: 20_000, interval: 50 });
    const got = rx.requests[0]!;
    expect(got.path).toBe("/hook/failures");
    expect(signedWith(failures.secret, got)).toBe(true);
    const body = JSON.parse(got.body) as Record<string, unknown>;
    const item = await h.app.db.prisma.inboxItem.findFirstOrThrow({ where: { kind: "RUN_FAILED", agentId } });
    expect(body).toMatchObject({
      version: 1,
      type: "run.failed",
      workspace: "demo",
      agentId,
      inboxItemId: item.id,
      url: `${h.url}/#/inbox/${item.id}`,
      data: { kind: "RUN_FAILED", outcome: "ProviderError" },
    });
    expect(body.title).toContain("401");
    expect(await h.app.db.prisma.webhookDelivery.count({ where: { webhookId: alerts.webhook.id } })).toBe(0);
  });

  it("answers GraphQL while an attempt hangs on a receiver that never answers, and stops without waiting for it", async () => {
    const h = await startAppHarness();
    let stopped = false;
    onCleanup(async () => {
      if (!stopped) await h.close();
    });
    let closed = false;
    const rx = await receiver((_req, res) => res.on("close", () => (closed = true)));
    const { webhook } = await h.app.webhooks.create(
      { name: "slow", url: rx.url, events: ["run.failed"], format: "JSON" },
      "admin",
    );
    h.app.notifier.emit(note());
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1), { timeout: 10_000 });
    const r = await h.gql<{ webhooks: { edges: { node: { webhookId: string; lastDelivery: unknown } }[] } }>(
      "{ webhooks { edges { node { webhookId lastDelivery { state attempts } } } } }",
    );
    expect(r.errors).toBeUndefined();
    expect(r.data?.webhooks.edges).toEqual([
      { node: { webhookId: webhook.id, lastDelivery: { state: "PENDING", attempts: 0 } } },
    ]);
    // The attempt is still in flight (the receiver holds it); the gateway stops anyway.
    expect(closed).toBe(false);
    await h.close();
    stopped = true;
    // Stopping aborted the attempt: the receiver sees its connection go.
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it("a PENDING delivery survives a gateway restart on the same data dir and completes", async () => {
    const tmp = tmpDir("wh-");
    const xdg = path.join(tmp, "xdg");
    fs.mkdirSync(xdg, { mode: 0o700 });
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: xdg, CALIBAN_DAEMON_RUNTIME_DIR: tmp };
    delete env.PROSPERO_ADMIN_TOKEN;
    const dataDir = path.join(tmp, "gw");
    const start = async (): Promise<App> => {
      const config = resolveConfig({ dataDir, port: "0", autostart: false }, { HOME: process.env.HOME });
      const app = await startApp(config, silentLogger, { isDev: true, env, showTokenInLog: false });
      const realStop = app.stop.bind(app);
      let done = false;
      const stop = async () => {
        if (done) return;
        done = true;
        await realStop();
      };
      onCleanup(stop);
      return Object.assign(app, { stop });
    };
    const statuses = [500];
    const rx = await receiver((_req, res) => {
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
    const app1 = await start();
    const { webhook, secret } = await app1.webhooks.create(
      { name: "ops", url: rx.url, events: ["run.failed"], format: "JSON" },
      "admin",
    );
    app1.notifier.emit(note());
    // Mid-backoff: the first attempt failed, the next one is due 0.5–1 s later.
    await vi.waitFor(
      async () => {
        const d = await app1.db.prisma.webhookDelivery.findFirstOrThrow({
          where: { webhookId: webhook.id },
        });
        expect(d).toMatchObject({ state: "PENDING", attempts: 1, lastStatus: 500 });
      },
      { timeout: 10_000, interval: 5 },
    );
    await app1.stop();

    const app2 = await start();
    await vi.waitFor(
      async () => {
        const d = await app2.db.prisma.webhookDelivery.findFirstOrThrow({
          where: { webhookId: webhook.id },
        });
        expect(d).toMatchObject({ state: "DELIVERED", attempts: 2, lastStatus: 200 });
      },
      { timeout: 10_000 },
    );
    expect(rx.requests).toHaveLength(2);
    expect(new Set(rx.requests.map((r) => r.headers["x-prospero-delivery"])).size).toBe(1);
    expect(signedWith(secret, rx.requests[1]!)).toBe(true);
  });

  it("refuses a hook pointing at the gateway itself (127.0.0.1 and localhost with its port)", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    const port = new URL(h.url).port;
    for (const url of [`http://127.0.0.1:${port}/graphql`, `http://localhost:${port}/`, `${h.url}/x`]) {
      await expect(
        h.app.webhooks.create({ name: "loop", url, events: ["run.failed"], format: "JSON" }, "admin"),
      ).rejects.toBeInstanceOf(ValidationFailed);
    }
    expect(await h.app.db.prisma.webhook.count()).toBe(0);
  });
});
