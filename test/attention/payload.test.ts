/**
 * The webhook bodies and signature (src/attention/payload.ts): the JSON v1 body and the Slack body
 * of a notification, the headers of an attempt, and the signature round trip a receiver runs.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  dashboardLink,
  renderBody,
  requestHeaders,
  signature,
  slackBodyOf,
  verifySignature,
} from "../../src/attention/payload.js";
import type { Notification } from "../../src/attention/types.js";

const runFailed: Notification = {
  id: "run.failed:0123456789ab:7",
  type: "run.failed",
  occurredAt: new Date("2026-12-01T10:00:00.000Z"),
  workspace: "demo",
  agentId: "a1b2c3d4e5f6",
  inboxItemId: "0123456789ab",
  title: "Run a1b2c3d4e5f6 failed in demo",
  message: "ProviderError: 401 <b>invalid</b> & key",
  data: { kind: "RUN_FAILED", outcome: "ProviderError", escalations: 0, retried: false, launchId: null },
};

const SECRET = "s3cret-s3cret-s3cret";

describe("JSON body v1", () => {
  it("carries every field in the documented order, with a dashboard link to the inbox item", () => {
    const body = renderBody("JSON", runFailed, "http://127.0.0.1:7878");
    expect(Object.keys(JSON.parse(body) as object)).toEqual([
      "version",
      "id",
      "type",
      "occurredAt",
      "workspace",
      "agentId",
      "inboxItemId",
      "title",
      "message",
      "url",
      "data",
    ]);
    expect(JSON.parse(body)).toEqual({
      version: 1,
      id: "run.failed:0123456789ab:7",
      type: "run.failed",
      occurredAt: "2026-12-01T10:00:00.000Z",
      workspace: "demo",
      agentId: "a1b2c3d4e5f6",
      inboxItemId: "0123456789ab",
      title: "Run a1b2c3d4e5f6 failed in demo",
      message: "ProviderError: 401 <b>invalid</b> & key",
      url: "http://127.0.0.1:7878/#/inbox/0123456789ab",
      data: { kind: "RUN_FAILED", outcome: "ProviderError", escalations: 0, retried: false, launchId: null },
    });
  });

  it("has null for what does not apply, and no link without a public URL", () => {
    const alert: Notification = {
      ...runFailed,
      id: "alert.opened:x:1",
      type: "alert.opened",
      workspace: null,
      agentId: null,
      inboxItemId: null,
    };
    const b = JSON.parse(renderBody("JSON", alert, null)) as Record<string, unknown>;
    expect(b).toMatchObject({ workspace: null, agentId: null, inboxItemId: null, url: null });
    expect(dashboardLink(alert, "http://gw:1/")).toBe("http://gw:1/#/inbox");
    expect(dashboardLink({ ...alert, agentId: "a1b2c3d4e5f6" }, "http://gw:1")).toBe(
      "http://gw:1/#/agent/a1b2c3d4e5f6",
    );
  });

  it("bounds an oversized title and message", () => {
    const big = { ...runFailed, title: "t".repeat(500), message: "m".repeat(10_000) };
    const b = JSON.parse(renderBody("JSON", big, null)) as { title: string; message: string };
    expect(b.title.length).toBe(200);
    expect(b.message.length).toBe(4000);
    expect(b.message.endsWith("…")).toBe(true);
  });
});

describe("Slack body", () => {
  it("has the title as text and escaped blocks with context and a button", () => {
    const s = slackBodyOf(runFailed, "http://127.0.0.1:7878");
    expect(s.text).toBe("Run a1b2c3d4e5f6 failed in demo");
    expect(s.blocks[0]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: ":x: *Run a1b2c3d4e5f6 failed in demo*" },
    });
    // User text cannot make links or mentions.
    expect(s.blocks[1]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: "ProviderError: 401 &lt;b&gt;invalid&lt;/b&gt; &amp; key" },
    });
    expect(JSON.stringify(s.blocks[2])).toContain("workspace *demo*");
    expect(s.blocks[3]).toEqual({
      type: "actions",
      elements: [
        {
          type: "button",
          text: { type: "plain_text", text: "Open in Prospero" },
          url: "http://127.0.0.1:7878/#/inbox/0123456789ab",
        },
      ],
    });
    expect(JSON.parse(renderBody("SLACK", runFailed, "http://127.0.0.1:7878"))).toEqual(s);
  });

  it("escapes the push-notification text too: agent text cannot mention @channel or make a link", () => {
    const s = slackBodyOf({ ...runFailed, title: "<!channel> see <http://evil.example|click> & pay" }, null);
    expect(s.text).toBe("&lt;!channel&gt; see &lt;http://evil.example|click&gt; &amp; pay");
    expect(s.blocks[0]).toEqual({
      type: "section",
      text: {
        type: "mrkdwn",
        text: ":x: *&lt;!channel&gt; see &lt;http://evil.example|click&gt; &amp; pay*",
      },
    });
  });

  it("cuts a long message only between entities (never `&am…`), within Slack's section limit", () => {
    for (const pad of ["", "x", "xx", "xxx", "xxxx"]) {
      const s = slackBodyOf({ ...runFailed, message: pad + "&<>".repeat(1_300) }, null);
      const text = (s.blocks[1] as { text: { text: string } }).text.text;
      expect(text.length, pad).toBeLessThanOrEqual(2_900);
      expect(text.endsWith("…"), pad).toBe(true);
      // Every `&` starts a whole entity: nothing of the message is left half-escaped.
      expect(text.slice(0, -1).replace(/&(amp|lt|gt);/g, ""), pad).not.toContain("&");
      expect(text.startsWith(`${pad}&amp;&lt;&gt;`), pad).toBe(true);
    }
  });

  it("leaves out an empty message and the button without a public URL", () => {
    const s = slackBodyOf({ ...runFailed, message: "  " }, null);
    expect(s.blocks.map((b) => b.type)).toEqual(["section", "context"]);
  });
});

describe("signature", () => {
  const body = renderBody("JSON", runFailed, null);
  const now = 1_800_000_000;

  it("is sha256=<hex HMAC-SHA256(secret, '<timestamp>.<body>')>", () => {
    const expected = createHmac("sha256", SECRET).update(`${now}.${body}`).digest("hex");
    expect(signature(SECRET, now, body)).toBe(`sha256=${expected}`);
  });

  it("round-trips through the headers and verifySignature", () => {
    const h = requestHeaders({
      eventType: "run.failed",
      deliveryId: "abcdefabcdef",
      timestampS: now,
      body,
      secret: SECRET,
      version: "0.2.0",
    });
    expect(h).toMatchObject({
      "content-type": "application/json",
      "user-agent": "prospero/0.2.0",
      "x-prospero-event": "run.failed",
      "x-prospero-delivery": "abcdefabcdef",
      "x-prospero-timestamp": String(now),
    });
    expect(JSON.stringify(h)).not.toContain(SECRET);
    const req = { body, timestamp: h["x-prospero-timestamp"], signature: h["x-prospero-signature"] };
    expect(verifySignature(SECRET, req, { nowS: now + 10 })).toBe(true);
  });

  it("fails for a tampered body, another secret, a changed timestamp, a stale or malformed request", () => {
    const sig = signature(SECRET, now, body);
    const ok = { body, timestamp: String(now), signature: sig };
    expect(verifySignature(SECRET, ok, { nowS: now })).toBe(true);
    expect(verifySignature(SECRET, { ...ok, body: body.replace("demo", "prod") }, { nowS: now })).toBe(false);
    expect(verifySignature("another-secret-entirely", ok, { nowS: now })).toBe(false);
    expect(verifySignature(SECRET, { ...ok, timestamp: String(now + 1) }, { nowS: now })).toBe(false);
    expect(verifySignature(SECRET, ok, { nowS: now + 301 })).toBe(false);
    expect(verifySignature(SECRET, ok, { nowS: now + 3600, toleranceS: 7200 })).toBe(true);
    expect(verifySignature(SECRET, { ...ok, signature: sig.toUpperCase() }, { nowS: now })).toBe(false);
    expect(verifySignature(SECRET, { ...ok, signature: undefined }, { nowS: now })).toBe(false);
    expect(verifySignature(SECRET, { ...ok, timestamp: "1e9" }, { nowS: now })).toBe(false);
  });
});
