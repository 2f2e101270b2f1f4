/**
 * The webhook API (issue 15 item 3; src/schema/webhooks.ts, src/resolvers/webhooks.ts) over a real
 * gateway port: the secret is returned once by createWebhook and nowhere else (not by any query,
 * not in the schema, not in the audit log), deliveries are visible with their state, attempts and
 * last error, testWebhook sends a ping a real receiver gets, bad input is a ValidationError that
 * stores nothing, and only admins not limited to workspaces may use any of it.
 */
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { onCleanup } from "../helpers/cleanup.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP receiver on 127.0.0.1:0 answering `status` to every request (changeable). */
async function receiver(status: number): Promise<{ url: string; requests: Received[]; status: number }> {
  const rx = { url: "", requests: [] as Received[], status };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      rx.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.statusCode = rx.status;
      res.end(rx.status >= 400 ? "receiver is down" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rx.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  onCleanup(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return rx;
}

async function harness(): Promise<AppHarness> {
  const h = await startAppHarness();
  onCleanup(() => h.close());
  return h;
}

const WEBHOOK_FIELDS = `id webhookId name url format events enabled createdAt createdBy`;
const DELIVERY_FIELDS = `id deliveryId eventType notificationId state attempts lastStatus lastError createdAt lastAttemptAt nextAttemptAt deliveredAt`;

const CREATE = `mutation($input: CreateWebhookInput!) {
  createWebhook(input: $input) {
    __typename
    ... on CreateWebhookPayload { secret webhook { ${WEBHOOK_FIELDS} } }
    ... on ValidationError { fieldErrors { path message } }
    ... on ForbiddenError { requiredRole message }
  }
}`;

interface Created {
  createWebhook: {
    __typename: string;
    secret?: string;
    webhook?: { id: string; webhookId: string; [k: string]: unknown };
    fieldErrors?: { path: string[]; message: string }[];
    requiredRole?: string;
  };
}

async function create(h: AppHarness, input: Record<string, unknown>, token?: string) {
  const r = await h.gql<Created>(CREATE, { input }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!.createWebhook;
}

describe("webhook API", () => {
  it("returns the secret once: no query, no type and no audit row shows it", async () => {
    const h = await harness();
    const generated = await create(h, {
      name: "ops",
      url: "https://hooks.example.com/prospero",
      events: ["RUN_FAILED", "ALERT_OPENED"],
    });
    expect(generated.__typename).toBe("CreateWebhookPayload");
    expect(generated.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generated.webhook).toMatchObject({
      name: "ops",
      url: "https://hooks.example.com/prospero",
      format: "JSON",
      events: ["RUN_FAILED", "ALERT_OPENED"],
      enabled: true,
      createdBy: "admin",
    });
    const chosen = "my-own-webhook-secret-0123456789";
    const own = await create(h, {
      name: "slack",
      url: "https://hooks.example.com/slack",
      events: ["INBOX_OPENED"],
      format: "SLACK",
      secret: chosen,
    });
    expect(own.secret).toBe(chosen);

    const q = await h.gql(
      `query($id: ID!, $raw: ID!) {
        webhooks { totalCount edges { node { ${WEBHOOK_FIELDS} deliveries { totalCount } lastDelivery { id } } } }
        a: webhook(id: $id) { ${WEBHOOK_FIELDS} }
        b: webhook(id: $raw) { webhookId }
        n: node(id: $id) { __typename id }
      }`,
      { id: own.webhook!.id, raw: own.webhook!.webhookId },
    );
    expect(q.errors).toBeUndefined();
    const text = JSON.stringify(q.data);
    expect(text).not.toContain(chosen);
    expect(text).not.toContain(generated.secret);
    expect(q.data).toMatchObject({
      webhooks: { totalCount: 2 },
      a: { webhookId: own.webhook!.webhookId, format: "SLACK", events: ["INBOX_OPENED"] },
      b: { webhookId: own.webhook!.webhookId },
      n: { __typename: "Webhook", id: own.webhook!.id },
    });

    // No field of the read types can return it.
    const types = await h.gql<{ [k: string]: { fields: { name: string }[] } }>(
      `{ w: __type(name: "Webhook") { fields { name } } d: __type(name: "WebhookDelivery") { fields { name } } }`,
    );
    const names = [...types.data!.w!.fields, ...types.data!.d!.fields].map((f) => f.name);
    expect(names).toContain("url");
    expect(names.filter((n) => /secret/i.test(n))).toEqual([]);

    // The audit rows of both calls: the chosen secret is redacted, the generated one never there.
    const audit = await h.gql<{ auditLog: { edges: { node: { result: string; args: unknown } }[] } }>(
      `{ auditLog(filter: { operation: "createWebhook" }) { edges { node { result args } } } }`,
    );
    const rows = audit.data!.auditLog.edges.map((e) => e.node);
    expect(rows.map((r) => r.result)).toEqual(["CreateWebhookPayload", "CreateWebhookPayload"]);
    expect(rows[0]!.args).toMatchObject({ input: { name: "slack", secret: "[redacted]" } });
    expect(JSON.stringify(rows)).not.toContain(chosen);
    expect(JSON.stringify(rows)).not.toContain(generated.secret);
  });

  it("shows deliveries with their state, attempts and last error; testWebhook sends a ping", async () => {
    const h = await harness();
    const rx = await receiver(500);
    const c = await create(h, { name: "ops", url: rx.url, events: ["RUN_FAILED"] });
    h.app.notifier.emit({
      id: "run.failed:0123456789ab:1",
      type: "run.failed",
      occurredAt: new Date(),
      workspace: "demo",
      agentId: "a1b2c3d4e5f6",
      inboxItemId: "0123456789ab",
      title: "Run a1b2c3d4e5f6 failed",
      message: "crashed",
      data: {},
    });
    type Shown = {
      webhook: {
        deliveries: { totalCount: number; edges: { node: Record<string, unknown> }[] };
        lastDelivery: Record<string, unknown> | null;
      } | null;
    };
    const show = (id: string) =>
      h.gql<Shown>(
        `query($id: ID!) { webhook(id: $id) {
          deliveries(first: 10) { totalCount edges { node { ${DELIVERY_FIELDS} } } }
          lastDelivery { ${DELIVERY_FIELDS} } } }`,
        { id },
      );
    await vi.waitFor(
      async () => {
        const r = await show(c.webhook!.id);
        expect(r.data?.webhook?.deliveries.edges[0]?.node).toMatchObject({
          eventType: "RUN_FAILED",
          notificationId: "run.failed:0123456789ab:1",
          state: "PENDING",
          attempts: 1,
          lastStatus: 500,
          lastError: "HTTP 500 Internal Server Error: receiver is down",
          lastAttemptAt: expect.any(String),
          nextAttemptAt: expect.any(String),
          deliveredAt: null,
        });
      },
      { timeout: 10_000 },
    );

    rx.status = 200;
    const t = await h.gql<{
      testWebhook: { __typename: string; delivery?: Record<string, unknown> };
    }>(
      `mutation($w: ID!) { testWebhook(input: { webhook: $w }) { __typename
        ... on TestWebhookPayload { delivery { ${DELIVERY_FIELDS} } } } }`,
      { w: c.webhook!.webhookId },
    );
    expect(t.data?.testWebhook).toMatchObject({
      __typename: "TestWebhookPayload",
      delivery: { eventType: "PING", state: "PENDING", attempts: 0 },
    });
    const pingId = t.data!.testWebhook.delivery!.deliveryId as string;
    await vi.waitFor(
      async () => {
        const r = await show(c.webhook!.id);
        expect(r.data?.webhook?.lastDelivery).toMatchObject({
          deliveryId: pingId,
          eventType: "PING",
          state: "DELIVERED",
          attempts: 1,
          lastStatus: 200,
          lastError: null,
          deliveredAt: expect.any(String),
          nextAttemptAt: null,
        });
        // Newest first.
        expect(r.data?.webhook?.deliveries.totalCount).toBe(2);
        expect(r.data?.webhook?.deliveries.edges[0]?.node.deliveryId).toBe(pingId);
      },
      { timeout: 10_000 },
    );
    const ping = rx.requests.find((r) => r.headers["x-prospero-event"] === "ping")!;
    expect(ping.headers["x-prospero-delivery"]).toBe(pingId);
    expect(JSON.parse(ping.body)).toMatchObject({ version: 1, type: "ping", data: { requestedBy: "admin" } });
  });

  it("refuses bad input with a ValidationError at its path and stores nothing", async () => {
    const h = await harness();
    const port = new URL(h.url).port;
    for (const url of [
      "ftp://example.com/x",
      "https://user:pass@example.com/x",
      `http://127.0.0.1:${port}/graphql`,
      `http://localhost:${port}/`,
    ]) {
      const r = await create(h, { name: "bad", url, events: ["RUN_FAILED"] });
      expect(r.__typename, url).toBe("ValidationError");
      expect(
        r.fieldErrors!.map((e) => e.path),
        url,
      ).toEqual([["input", "url"]]);
    }
    const none = await create(h, { name: "x", url: "https://example.com/", events: [] });
    expect(none.fieldErrors).toEqual([
      { path: ["input", "events"], message: "give at least one notification type" },
    ]);
    const unknown = await create(h, { name: "x", url: "https://example.com/", events: ["UNKNOWN"] });
    expect(unknown.fieldErrors?.[0]?.path).toEqual(["input", "events"]);
    const short = await create(h, {
      name: "x",
      url: "https://example.com/",
      events: ["PING"],
      secret: "abc",
    });
    expect(short.fieldErrors?.[0]?.path).toEqual(["input", "secret"]);
    const bad = await h.gql<{ updateWebhook: { __typename: string; fieldErrors?: unknown } }>(
      `mutation { updateWebhook(input: { webhook: "nope", enabled: false }) { __typename ... on ValidationError { fieldErrors { path } } } }`,
    );
    expect(bad.data?.updateWebhook).toEqual({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "webhook"] }],
    });
    const count = await h.gql<{ webhooks: { totalCount: number } }>(`{ webhooks { totalCount } }`);
    expect(count.data?.webhooks.totalCount).toBe(0);
    expect(await h.app.db.prisma.webhook.count()).toBe(0);
  });

  it("updates, disables and deletes a webhook by its id or webhookId", async () => {
    const h = await harness();
    const c = await create(h, { name: "ops", url: "https://example.com/a", events: ["RUN_FAILED"] });
    const upd = await h.gql<{ updateWebhook: Record<string, unknown> }>(
      `mutation($w: ID!) { updateWebhook(input: { webhook: $w, name: "renamed", enabled: false, events: [INBOX_OPENED, RUN_TIMED_OUT], format: SLACK }) {
        __typename ... on UpdateWebhookPayload { webhook { ${WEBHOOK_FIELDS} } } } }`,
      { w: c.webhook!.id },
    );
    expect(upd.data?.updateWebhook).toMatchObject({
      __typename: "UpdateWebhookPayload",
      webhook: {
        name: "renamed",
        enabled: false,
        events: ["INBOX_OPENED", "RUN_TIMED_OUT"],
        format: "SLACK",
      },
    });
    const disabled = await h.gql<{ testWebhook: { __typename: string } }>(
      `mutation($w: ID!) { testWebhook(input: { webhook: $w }) { __typename } }`,
      { w: c.webhook!.webhookId },
    );
    expect(disabled.data?.testWebhook.__typename).toBe("InvalidStateError");
    const del = `mutation($w: ID!) { deleteWebhook(input: { webhook: $w }) { __typename
      ... on DeleteWebhookPayload { webhook { webhookId } } ... on NotFoundError { entity key } } }`;
    const d1 = await h.gql<{ deleteWebhook: Record<string, unknown> }>(del, { w: c.webhook!.webhookId });
    expect(d1.data?.deleteWebhook).toEqual({
      __typename: "DeleteWebhookPayload",
      webhook: { webhookId: c.webhook!.webhookId },
    });
    const d2 = await h.gql<{ deleteWebhook: Record<string, unknown> }>(del, { w: c.webhook!.id });
    expect(d2.data?.deleteWebhook).toEqual({
      __typename: "NotFoundError",
      entity: "WEBHOOK",
      key: c.webhook!.webhookId,
    });
    const gone = await h.gql<Record<string, unknown>>(
      `query($id: ID!) { webhook(id: $id) { webhookId } node(id: $id) { id } webhooks { totalCount } }`,
      { id: c.webhook!.id },
    );
    expect(gone.data).toEqual({ webhook: null, node: null, webhooks: { totalCount: 0 } });
  });

  it("is for admins not limited to workspaces: an operator or a limited admin is FORBIDDEN", async () => {
    const h = await harness();
    const operator = await h.createToken({ name: "op", role: "OPERATOR" });
    const limited = await h.createToken({ name: "wsadmin", role: "ADMIN", workspaces: ["demo"] });
    for (const token of [operator, limited]) {
      const r = await create(h, { name: "x", url: "https://example.com/", events: ["PING"] }, token);
      expect(r).toMatchObject({ __typename: "ForbiddenError", requiredRole: "ADMIN" });
      const q = await h.gql<{ webhooks: unknown }>(`{ webhooks { totalCount } }`, undefined, token);
      expect(q.data?.webhooks).toBeNull();
      expect(q.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    }
    expect(await h.app.db.prisma.webhook.count()).toBe(0);
    const audit = await h.gql<{
      auditLog: { edges: { node: { tokenName: string; result: string; denied: boolean } }[] };
    }>(`{ auditLog(filter: { operation: "createWebhook" }) { edges { node { tokenName result denied } } } }`);
    expect(audit.data?.auditLog.edges.map((e) => e.node)).toEqual([
      { tokenName: "wsadmin", result: "FORBIDDEN", denied: true },
      { tokenName: "op", result: "FORBIDDEN", denied: true },
    ]);
  });
});
