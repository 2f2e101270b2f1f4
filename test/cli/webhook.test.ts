/**
 * `prospero webhook add|ls|show|rm|test|enable|disable` (issue 15 item 3) as the real
 * `bin/prospero.js` against a real gateway (in-process, real port, real SQLite) and a real HTTP
 * receiver on loopback (node:http, port 0): the secret printed once, a signed ping received, the
 * delivery shown with its state, attempts and HTTP status; a receiver that cannot be reached shows
 * as a failed attempt (exit 1); bad input refused (exit 2 for what the CLI checks, 4 for the
 * gateway's URL policy) with nothing stored. Plus the value parsers (pure).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "commander";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson, closedPort } from "./run-cli.js";
import {
  collectEvents,
  eventName,
  parseFormat,
  parseHookUrl,
  parseTestWait,
} from "../../src/cli/commands/webhook.js";

describe("command-line values of the webhook commands", () => {
  it("--event: notification names (or the schema's), comma-separated and repeatable; not ping", () => {
    expect(collectEvents("run.failed, ALERT_OPENED")).toEqual(["RUN_FAILED", "ALERT_OPENED"]);
    expect(collectEvents("run.timed_out,run-failed", ["RUN_FAILED"])).toEqual([
      "RUN_FAILED",
      "RUN_TIMED_OUT",
    ]);
    for (const bad of ["", ",", "run.exploded", "ping", "unknown", "inbox"]) {
      expect(() => collectEvents(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => collectEvents("run.exploded")).toThrow(
      /^unknown event type "run.exploded" \(one of inbox\.opened, inbox\.closed, inbox\.escalated, run\.failed, run\.timed_out, alert\.opened, alert\.resolved, schedule\.skipped;/,
    );
    expect(["RUN_TIMED_OUT", "SCHEDULE_SKIPPED", "PING"].map((t) => eventName(t as "PING"))).toEqual([
      "run.timed_out",
      "schedule.skipped",
      "ping",
    ]);
  });

  it("URLs http(s) only; formats json and slack", () => {
    expect(parseHookUrl("https://hooks.example.com/x")).toBe("https://hooks.example.com/x");
    for (const bad of [
      "ftp://example.com/x",
      "hooks.example.com",
      "",
      "file:///etc/passwd",
      "javascript:alert(1)",
    ]) {
      expect(() => parseHookUrl(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => parseHookUrl("ftp://example.com/x")).toThrow(/must be http:\/\/ or https:\/\/, got "ftp"/);
    expect([parseFormat("json"), parseFormat("Slack")]).toEqual(["JSON", "SLACK"]);
    expect(() => parseFormat("xml")).toThrow(InvalidArgumentError);
  });

  it("test --wait: a duration from 1 s to 5 min", () => {
    expect(["1s", "3s", "90s", "5m", "2000"].map(parseTestWait)).toEqual([1000, 3000, 90_000, 300_000, 2000]);
    for (const bad of ["", "0", "999", "6m", "soon", "-1s", "1.5s"]) {
      expect(() => parseTestWait(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => parseTestWait("6m")).toThrow(/^--wait must be from 1 s to 5 min .*got "6m"$/);
  });
});

/** One request the receiver got. */
interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let h: AppHarness;
let receiver: http.Server;
let hookUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  h = await startAppHarness();
  receiver = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/prospero`;
}, 60_000);
afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

const hookCount = () => h.app.db.prisma.webhook.count();

/** Check a request's X-Prospero-Signature against `secret` (HMAC-SHA256 of "<timestamp>.<body>"). */
function signedWith(r: Received, secret: string): boolean {
  const ts = String(r.headers["x-prospero-timestamp"]);
  const want = `sha256=${crypto.createHmac("sha256", secret).update(`${ts}.${r.body}`).digest("hex")}`;
  return r.headers["x-prospero-signature"] === want;
}

interface HookJson {
  webhookId: string;
  name: string;
  url: string;
  events: string[];
  enabled: boolean;
}

describe("a webhook to a receiver on loopback", () => {
  let id: string;
  let secret: string;

  it("add prints the secret alone on stdout, once, with a warning on stderr", async () => {
    const r = await cli(h.url, [
      "webhook",
      "add",
      hookUrl,
      "--event",
      "run.failed",
      "--event",
      "alert.opened,inbox.opened",
      "--name",
      "ops-receiver",
    ]);
    expect(r.code).toBe(0);
    secret = r.stdout.trimEnd();
    expect(r.stdout).toBe(`${secret}\n`);
    expect(secret.length).toBeGreaterThanOrEqual(16);
    expect(r.stderr).toMatch(
      /^created webhook [0-9a-f]{12} ops-receiver → http:\/\/127\.0\.0\.1:\d+\/hooks\/prospero · run\.failed, alert\.opened, inbox\.opened · json$/m,
    );
    expect(r.stderr).toMatch(/it is not shown again/);
    id = /created webhook ([0-9a-f]{12})/.exec(r.stderr)![1]!;
    // Not shown again: neither ls nor show (human or JSON) carries it.
    const ls = await cli(h.url, ["webhook", "ls"]);
    const lsJson = await cli(h.url, ["webhook", "ls", "--json"]);
    const show = await cli(h.url, ["webhook", "show", id, "--json"]);
    for (const out of [ls.stdout, lsJson.stdout, show.stdout]) expect(out).not.toContain(secret);
    expect(ls.stdout).toMatch(/^ID\s+NAME\s+URL\s+FORMAT\s+EVENTS\s+STATE\s+LAST DELIVERY$/m);
    expect(ls.stdout).toMatch(
      new RegExp(
        `^${id}\\s+ops-receiver\\s+http://127\\.0\\.0\\.1:\\d+/hooks/prospero\\s+json\\s+run\\.failed, alert\\.opened, inbox\\.opened\\s+enabled\\s+—$`,
        "m",
      ),
    );
    const hooks = (JSON.parse(lsJson.stdout) as { webhooks: { edges: { node: HookJson }[] } }).webhooks.edges;
    expect(hooks.map((e) => e.node)).toContainEqual(
      expect.objectContaining({
        webhookId: id,
        enabled: true,
        events: ["RUN_FAILED", "ALERT_OPENED", "INBOX_OPENED"],
      }),
    );
  });

  it("test: the receiver gets a signed ping; show lists the delivery", async () => {
    const before = received.length;
    const r = await cli(h.url, ["webhook", "test", id]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ping delivered \(HTTP 204\) · delivery [0-9a-f]{12}$/m);
    const deliveryId = /delivery ([0-9a-f]{12})/.exec(r.stdout)![1]!;
    expect(received.length).toBe(before + 1);
    const ping = received[before]!;
    expect(ping).toMatchObject({ method: "POST", url: "/hooks/prospero" });
    expect(ping.headers["content-type"]).toMatch(/^application\/json/);
    expect(ping.headers["x-prospero-event"]).toBe("ping");
    expect(ping.headers["x-prospero-delivery"]).toBe(deliveryId);
    expect(signedWith(ping, secret)).toBe(true);
    expect(signedWith(ping, `${secret}x`)).toBe(false);
    expect(JSON.parse(ping.body)).toMatchObject({ version: 1, type: "ping" });

    const show = await cli(h.url, ["webhook", "show", id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^ops-receiver {2}[0-9a-f]{12}$/m);
    expect(show.stdout).toMatch(/^ {2}deliveries \(1; the latest 1, newest first\)$/m);
    expect(show.stdout).toMatch(
      /^ {4}DELIVERY\s+EVENT\s+STATE\s+ATTEMPTS\s+LAST STATUS\s+CREATED\s+NEXT ATTEMPT\s+LAST ERROR$/m,
    );
    expect(show.stdout).toMatch(
      new RegExp(`^ {4}${deliveryId}\\s+ping\\s+DELIVERED\\s+1\\s+204\\s+\\d+[smhd] ago\\s+—\\s+—$`, "m"),
    );
    const ls = await cli(h.url, ["webhook", "ls"]);
    expect(ls.stdout).toMatch(new RegExp(`^${id}\\s.*\\sDELIVERED \\d+[smhd] ago \\(HTTP 204\\)$`, "m"));
  });

  it("disable and enable", async () => {
    const off = await cli(h.url, ["webhook", "disable", id]);
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(new RegExp(`^disabled webhook ${id} ops-receiver → .* · disabled$`, "m"));
    expect(await cliJson<{ webhook: HookJson }>(h.url, ["webhook", "show", id])).toMatchObject({
      webhook: { enabled: false },
    });
    const on = await cli(h.url, ["webhook", "enable", id]);
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(
      new RegExp(
        `^enabled webhook ${id} ops-receiver → \\S+ · run\\.failed, alert\\.opened, inbox\\.opened · json$`,
        "m",
      ),
    );
  });

  it("rm deletes it: ls no longer lists it, test is refused", async () => {
    const r = await cli(h.url, ["webhook", "rm", id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^deleted webhook ${id} ops-receiver`, "m"));
    const ls = await cli(h.url, ["webhook", "ls"]);
    expect(ls.stdout).not.toContain(id);
    const before = received.length;
    const t = await cli(h.url, ["webhook", "test", id]);
    expect(t.code).toBe(3);
    expect(t.stderr).toMatch(/\[NOT_FOUND\]/);
    expect(received.length).toBe(before);
  });
});

describe("a receiver that cannot be reached, a secret from a file", () => {
  it("test exits 1 naming the failure; show has the attempt and its error", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/down`;
    const add = await cli(h.url, ["webhook", "add", url, "--event", "run.failed"]);
    expect(add.code).toBe(0);
    const id = /created webhook ([0-9a-f]{12}) 127\.0\.0\.1:\d+ →/.exec(add.stderr)![1]!;
    const t = await cli(h.url, ["webhook", "test", id], {}, 30_000);
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(/^ping failed: .+ · delivery [0-9a-f]{12} · (PENDING|FAILED) after 1 attempt/m);
    const show = await cliJson<{
      webhook: {
        deliveries: { edges: { node: { attempts: number; lastError: string | null; state: string } }[] };
      };
    }>(h.url, ["webhook", "show", id]);
    const d = show.webhook.deliveries.edges[0]!.node;
    expect(d.attempts).toBeGreaterThanOrEqual(1);
    expect(d.lastError).toBeTruthy();
    expect((await cli(h.url, ["webhook", "rm", id])).code).toBe(0);
  }, 40_000);

  it("a receiver that never answers: test exits 1 once its wait is over, saying the ping was not delivered", async () => {
    // Accepts connections and reads the request, never answers (the gateway's attempt stays in
    // flight until its 10 s timeout, longer than the wait).
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
      s.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/silent`;
      const add = await cli(h.url, ["webhook", "add", url, "--event", "run.failed"]);
      expect(add.code).toBe(0);
      const id = /created webhook ([0-9a-f]{12}) /.exec(add.stderr)![1]!;
      // 3 s of readings every 200 ms on one abort signal (a listener per reading used to pile up).
      const t = await cli(h.url, ["webhook", "test", id, "--wait", "3s"]);
      expect(t.stderr).not.toMatch(/MaxListenersExceededWarning/);
      expect(t.stderr).toBe("");
      expect(t.code).toBe(1);
      expect(t.stdout).toMatch(
        /^ping not delivered within 3s: delivery [0-9a-f]{12} is still PENDING with no attempt finished \(the receiver has not answered yet, or another delivery to this webhook is in flight\); its attempts go on$/m,
      );
      expect(t.stdout).toContain(`its deliveries: prospero webhook show ${id}`);
      expect(sockets.size).toBeGreaterThan(0);
      expect((await cli(h.url, ["webhook", "rm", id])).code).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 30_000);

  it("--secret-file: signs with that secret, which is not printed", async () => {
    const file = path.join(h.d.ws.tmp, "hook-secret");
    const mine = "file-secret-0123456789abcdef";
    fs.writeFileSync(file, `${mine}\n`, { mode: 0o600 });
    const add = await cli(h.url, [
      "webhook",
      "add",
      hookUrl,
      "--event",
      "alert.opened",
      "--format",
      "json",
      "--secret-file",
      file,
    ]);
    expect(add.code).toBe(0);
    expect(add.stdout + add.stderr).not.toContain(mine);
    const id = /^created webhook ([0-9a-f]{12}) /m.exec(add.stdout)![1]!;
    expect(add.stdout).toContain(`it signs with the secret of ${file}`);
    const before = received.length;
    expect((await cli(h.url, ["webhook", "test", id])).code).toBe(0);
    await waitFor(() => received.length > before, 5000, "the ping");
    expect(signedWith(received[before]!, mine)).toBe(true);
    expect((await cli(h.url, ["webhook", "rm", id])).code).toBe(0);
  });
});

describe("bad input", () => {
  it("is refused with a clear message and nothing is created", async () => {
    const before = await hookCount();
    const missing = path.join(h.d.ws.tmp, "no-such-secret");
    for (const [args, code, message] of [
      [
        ["webhook", "add", "ftp://127.0.0.1/x", "--event", "run.failed"],
        2,
        /must be http:\/\/ or https:\/\/, got "ftp"/,
      ],
      [["webhook", "add", "not a url", "--event", "run.failed"], 2, /not a URL: "not a url"/],
      [["webhook", "add", hookUrl, "--event", "run.exploded"], 2, /unknown event type "run\.exploded"/],
      [["webhook", "add", hookUrl, "--event", "ping"], 2, /every webhook gets the ping/],
      [["webhook", "add", hookUrl], 2, /required option '--event <type>' not specified/],
      [
        ["webhook", "add", hookUrl, "--event", "run.failed", "--format", "xml"],
        2,
        /unknown webhook format "xml"/,
      ],
      [
        ["webhook", "add", hookUrl, "--event", "run.failed", "--secret-file", missing],
        2,
        /cannot read --secret-file .*ENOENT/,
      ],
      // The gateway's URL policy: no user info in the URL (ValidationError at input.url).
      [["webhook", "add", "http://user:pw@127.0.0.1:9/x", "--event", "run.failed"], 4, /input\.url|user/i],
    ] as const) {
      const r = await cli(h.url, [...args]);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toMatch(message);
      expect(r.stdout, args.join(" ")).toBe("");
    }
    expect(await hookCount()).toBe(before);
    const show = await cli(h.url, ["webhook", "show", "0123456789ab"]);
    expect(show.code).toBe(3);
    expect(show.stderr).toMatch(/^prospero: webhook not found: 0123456789ab\n$/);
  });

  it("needs an admin token (exit 6 for an operator); nothing is created", async () => {
    const operator = await h.createToken({ name: "hook-operator", role: "OPERATOR" });
    const before = await hookCount();
    const r = await cli(h.url, ["webhook", "add", hookUrl, "--event", "run.failed"], {
      PROSPERO_TOKEN: operator,
    });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe("");
    expect(await hookCount()).toBe(before);
  });

  it("an admin limited to a workspace is refused (exit 6), told that webhooks need an unlimited admin", async () => {
    const limited = await h.createToken({ name: "hook-admin-demo", role: "ADMIN", workspaces: ["demo"] });
    const before = await hookCount();
    for (const args of [
      ["webhook", "add", hookUrl, "--event", "run.failed"],
      ["webhook", "ls"],
    ]) {
      const r = await cli(h.url, args, { PROSPERO_TOKEN: limited });
      expect(r.code, args.join(" ")).toBe(6);
      expect(r.stdout, args.join(" ")).toBe("");
      expect(r.stderr, args.join(" ")).toMatch(
        /needs an admin token not limited to workspaces \(.*\bwebhooks\b.*\); token hook-admin-demo is limited/,
      );
    }
    expect(await hookCount()).toBe(before);
  });
});
