/**
 * The dashboard in a real browser (Debian's headless Chromium through playwright-core) against a
 * real gateway started in-process with the caliband double: load, live fleet, live timeline,
 * kill from the UI, launch form, and a resumed agent stream after the socket drops.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page, WebSocketRoute } from "playwright-core";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { DASHBOARD_CSP } from "../../src/server/static.js";
import { ensureDashboardBuilt, launchChromium, watchErrors } from "./support.js";

let browser: Browser;
let h: AppHarness;
let context: BrowserContext | undefined;
let errors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  [browser, h] = await Promise.all([launchChromium(), startAppHarness()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(errors).toEqual([]);
  errors = [];
});

/** A fresh browser context whose waits fail (with a useful message) before the test times out. */
async function newContext(): Promise<BrowserContext> {
  const c = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  c.setDefaultTimeout(20_000);
  return c;
}

async function openPage(hash = ""): Promise<Page> {
  context = await newContext();
  const page = await context.newPage();
  errors = watchErrors(page);
  // Signed in as an operator would be: the URL the gateway logs, with the admin token.
  await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}${hash}`);
  await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
  return page;
}

async function spawn(prompt: string, extra = ""): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p ${extra} }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt },
  );
  const id = r.data?.spawnAgent.agent.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return id;
}

/** `expect.poll` with room for a loaded CI machine. */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

const row = (page: Page, id: string) => page.locator(`tr[data-agent-id="${id}"]`);

/** Open the launch drawer from the header; its dialog. */
async function openLaunch(page: Page) {
  await page.getByRole("banner").getByRole("button", { name: "Launch", exact: true }).click();
  const drawer = page.getByRole("dialog", { name: "Launch an agent" });
  await drawer.waitFor();
  return drawer;
}

describe("dashboard in Chromium", { timeout: 60_000 }, () => {
  it("loads under the strict CSP with correct content types and no console errors", async () => {
    context = await newContext();
    const page = await context.newPage();
    errors = watchErrors(page);
    const assets: { url: string; type: string; cache: string }[] = [];
    page.on("response", (res) => {
      if (/\.(js|css)$/.test(res.url())) {
        const headers = res.headers();
        assets.push({
          url: res.url(),
          type: headers["content-type"] ?? "",
          cache: headers["cache-control"] ?? "",
        });
      }
    });
    const res = await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}`);
    expect(res?.status()).toBe(200);
    // The token was exchanged for an HttpOnly, SameSite=Strict session cookie and left the URL.
    expect(page.url()).toBe(`${h.url}/`);
    const cookies = await context.cookies();
    expect(cookies).toEqual([
      expect.objectContaining({
        name: h.app.gateway.cookieName,
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
      }),
    ]);
    expect(cookies[0]?.value).not.toContain(h.token);
    const headers = res?.headers() ?? {};
    expect(headers["content-security-policy"]).toBe(DASHBOARD_CSP);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(headers["cache-control"]).toBe("no-cache");

    await eventually(() => page.getByRole("status").textContent()).toBe("Live");
    const card = page.locator('article[data-workspace="demo"]');
    await card.getByText("healthy").waitFor();
    expect(await page.title()).toBe("Prospero");

    const js = assets.filter((a) => a.url.endsWith(".js"));
    const css = assets.filter((a) => a.url.endsWith(".css"));
    expect(js.length).toBeGreaterThan(0);
    expect(css.length).toBeGreaterThan(0);
    for (const a of js) expect(a.type).toBe("text/javascript; charset=utf-8");
    for (const a of css) expect(a.type).toBe("text/css; charset=utf-8");
    for (const a of [...js, ...css]) expect(a.cache).toBe("public, max-age=31536000, immutable");

    // The launch form (in the header's drawer) is labelled and offers the workspace.
    const drawer = await openLaunch(page);
    await eventually(() => drawer.getByLabel("Workspace", { exact: true }).inputValue()).toBe("demo");
    await expect(drawer.getByLabel("Prompt").isVisible()).resolves.toBe(true);
  });

  it("the gateway keeps /graphql, /healthz and /readyz; other GET/HEAD paths are the dashboard's", async () => {
    expect(await (await fetch(`${h.url}/healthz`)).text()).toBe("ok\n");
    expect((await fetch(`${h.url}/readyz`)).headers.get("content-type")).toMatch(/application\/json/);
    const graphiql = await fetch(`${h.url}/graphql`, { headers: { accept: "text/html" } });
    expect(graphiql.status).toBe(200);
    expect(await graphiql.text()).toMatch(/graphiql/i);
    const head = await fetch(`${h.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    expect((await fetch(`${h.url}/no-such-file.js`)).status).toBe(404);
    const post = await fetch(`${h.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${h.token}` },
      body: JSON.stringify({ query: "{ version }" }),
    });
    expect(((await post.json()) as { data: { version: string } }).data.version).toMatch(/\d/);
  });

  it("a spawned agent appears without a reload, and its status changes live", async () => {
    const page = await openPage("#/agents");
    await page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes"));
    const id = await spawn("long fake:hold=60000");
    await row(page, id).waitFor();
    await eventually(() => row(page, id).getAttribute("data-status")).toBe("RUNNING");
    await expect(row(page, id).locator(".badge").textContent()).resolves.toBe("running");
    // The overview's workspace card counts it (same document, another view).
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click();
    const counts = page.locator('article[data-workspace="demo"] li[data-status="RUNNING"] .count');
    await eventually(async () => Number(await counts.textContent())).toBeGreaterThanOrEqual(1);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    // Still the same document: no reload happened.
    expect(await page.evaluate(() => document.body.getAttribute("data-loaded-once"))).toBe("yes");
    await h.gql(`mutation { killAgent(input: { agentId: "${id}" }) { __typename } }`);
    await eventually(() => row(page, id).getAttribute("data-status")).toBe("KILLED");
  });

  it("the agent's timeline fills live: paired tool call, merged text, turn usage, final summary", async () => {
    // The page is open before the agent exists, so everything after the hold arrives live.
    const page = await openPage();
    const id = await spawn("read the README fake:hold=2000");
    await page.evaluate((hash) => (location.hash = hash), `#/agent/${id}`);
    const timeline = page.getByRole("region", { name: "Timeline" });
    const tool = timeline.locator("li.entry-tool");
    await tool.waitFor();
    await expect(tool.locator(".tool-name").textContent()).resolves.toBe("Read");
    await expect(tool.locator(".tool-preview").textContent()).resolves.toBe("README.md");
    // The summary arrives after the hold, i.e. live while the view is open.
    expect(await timeline.locator("li.entry-summary").count()).toBe(0);
    const summary = timeline.locator("li.entry-summary");
    await summary.waitFor({ timeout: 15_000 });
    await expect(summary.locator(".outcome").textContent()).resolves.toBe("EndOfTurn");

    await tool.locator("summary").click();
    expect(JSON.parse((await tool.locator(".tool-input").textContent()) ?? "null")).toEqual({
      file_path: "README.md",
    });
    await expect(tool.locator(".tool-result").textContent()).resolves.toContain("hello from the fake worker");
    await expect(tool.locator(".tool-state").textContent()).resolves.toBe("ok");
    await expect(tool.locator("summary").textContent()).resolves.toMatch(/\d+(\.\d)? m?s/);

    const texts = await timeline.locator("li.entry-text .output").allTextContents();
    expect(texts).toEqual(["I'll look at the README first.", "The README says hello. Done."]);
    const usage = await timeline.locator("li.entry-usage").allTextContents();
    expect(usage).toHaveLength(2);
    expect(usage[0]).toContain("ended (tool_use) · 1,200 in / 48 out");
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: done");
    await expect(page.locator(".stream-state").textContent()).resolves.toBe(
      "The run ended; this is its whole history.",
    );
    await eventually(() => row(page, id).locator("td").last().textContent()).toBe("EndOfTurn");
  });

  it("a run that failed at preflight shows why: exit code and the end of worker.log, in the view and the timeline", async () => {
    const id = await spawn("go fake:preflight-fail");
    const page = await openPage(`#/agent/${id}`);
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: failed");
    const failure = page.getByRole("region", { name: "Why it failed" });
    await expect(failure.locator("pre.worker-log").textContent()).resolves.toMatch(
      /provider: API key is not set/,
    );
    await expect(failure.locator(".exit-code").textContent()).resolves.toMatch(/^Exit code unknown/);
    const timeline = page.getByRole("region", { name: "Timeline" });
    const entry = timeline.locator("li.entry-workerLog");
    await expect(entry.locator("pre.worker-log").textContent()).resolves.toMatch(/API key is not set/);
    // It comes right before the status that ends the run.
    await expect(timeline.locator("li.entry").last().textContent()).resolves.toContain("running → failed");
    // A run that did not fail has no such block.
    const fine = await spawn("quick");
    await waitFor(() => h.app.fleet.state.agent(fine)?.status === "done", 10_000, "done");
    await page.evaluate((hash) => (location.hash = hash), `#/agent/${fine}`);
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: done");
    await expect(page.locator("section.failure").isHidden()).resolves.toBe(true);
  });

  it("a worker.log tail longer than its box shows its end: the error, not the first lines", async () => {
    // Binds, waits, then exits 1 without a frame; meanwhile its worker.log gets long.
    const id = await spawn("go fake:delay=3000 fake:exit=1");
    const lines = Array.from({ length: 30 }, (_, i) => `argv line ${i} ${"x".repeat(60)}`);
    const log = path.join(h.d.daemon.record(id)!.session_dir, "worker.log");
    fs.appendFileSync(log, [...lines, "Error: the reason it failed"].join("\n") + "\n");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "failed", 15_000, "failed");
    const page = await openPage(`#/agent/${id}`);
    const box = page.getByRole("region", { name: "Why it failed" }).locator("pre.worker-log");
    await eventually(() => box.textContent()).toMatch(/argv line 0 [^]*Error: the reason it failed/);
    const seen = await box.evaluate((pre, error) => {
      const text = pre.firstChild!;
      const frame = pre.getBoundingClientRect();
      const shown = (i: number) => {
        const r = document.createRange();
        r.setStart(text, i);
        r.setEnd(text, i + 1);
        const c = r.getBoundingClientRect();
        return c.top >= frame.top && c.bottom <= frame.bottom;
      };
      return {
        overflows: pre.scrollHeight > pre.clientHeight,
        first: shown(0),
        error: shown(text.textContent!.indexOf(error) + error.length - 1),
        last: shown(text.textContent!.length - 1),
      };
    }, "Error: the reason it failed");
    expect(seen).toEqual({ overflows: true, first: false, error: true, last: true });

    // The reader scrolls up to the first lines. Other agents' changes redraw the view's facts, but
    // not this box: it is the same element, still scrolled where the reader left it.
    const scrolledUp = await box.evaluate((pre) => {
      pre.dataset["seen"] = "before";
      document.querySelector<HTMLElement>("#agent-view dl.facts > *")!.dataset["seen"] = "before";
      // column-reverse: 0 is the end, negative is up; halfway, so no clamping moves it
      pre.scrollTop = -Math.round((pre.scrollHeight - pre.clientHeight) / 2);
      return pre.scrollTop;
    });
    expect(scrolledUp).toBeLessThan(0);
    const other = await spawn("quick");
    await eventually(() => row(page, other).getAttribute("data-status")).toBe("DONE");
    const after = await box.evaluate((pre) => ({
      seen: pre.dataset["seen"],
      scrollTop: pre.scrollTop,
      // The view did redraw meanwhile: its facts are new elements.
      factsRedrawn: document.querySelector('#agent-view dl.facts [data-seen="before"]') === null,
    }));
    expect(after).toEqual({ seen: "before", scrollTop: scrolledUp, factsRedrawn: true });
  });

  it("kill from the agent view asks for confirmation, then the status becomes killed", async () => {
    const id = await spawn("long fake:hold=60000");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "running", 10_000, "running");
    const page = await openPage(`#/agent/${id}`);
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: running");

    const kill = page.getByRole("group", { name: "Agent actions" }).getByRole("button", { name: "Kill" });
    await kill.click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByRole("heading").textContent()).resolves.toMatch(/^Kill /);
    // Cancel first: nothing happens.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog.isVisible()).resolves.toBe(false);
    expect(h.app.fleet.state.agent(id)?.status).toBe("running");

    await kill.click();
    await dialog.getByRole("button", { name: "Kill agent" }).click();
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: killed");
    await eventually(() => row(page, id).getAttribute("data-status")).toBe("KILLED");
    await expect(kill.isHidden()).resolves.toBe(true);
    await expect(
      page
        .getByRole("alert")
        .filter({ hasText: /failed/ })
        .count(),
    ).resolves.toBe(0);
    const timeline = page.getByRole("region", { name: "Timeline" });
    await expect
      .poll(() => timeline.locator("li.entry-status").last().textContent())
      .toContain("running → killed");
  });

  it("respawn from the agent view opens the new run, linked to the old one", async () => {
    const id = await spawn("quick one");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "done", 10_000, "done");
    const page = await openPage(`#/agent/${id}`);
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: done");
    await page.getByRole("group", { name: "Agent actions" }).getByRole("button", { name: "Respawn" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Respawn" }).click();
    await page.waitForURL((u) => /#\/agent\/[0-9a-f]{12}$/.test(u.hash) && !u.hash.endsWith(id));
    const next = new URL(page.url()).hash.split("/")[2] ?? "";
    await row(page, next).waitFor();
    // The old run stays in the table (history), marked as no longer listed by caliband.
    await eventually(() => row(page, id).locator(".gone-note").count()).toBe(1);
    await page.locator(".facts a", { hasText: id }).waitFor();
  });

  it("the launch form spawns an agent with its options and opens it", async () => {
    const page = await openPage();
    const drawer = await openLaunch(page);
    await drawer.getByLabel("Prompt").fill("hello from the form");
    await drawer.getByLabel("Label").fill("form-agent");
    await drawer.getByLabel("Tool allowlist").fill("Read, Grep");
    await drawer.getByLabel("Shared working tree").check();
    await drawer.getByRole("button", { name: "Launch", exact: true }).click();
    await page.waitForURL(/#\/agent\/[0-9a-f]{12}$/);
    // The drawer closed once the run was launched.
    await eventually(() => drawer.isVisible()).toBe(false);
    const id = new URL(page.url()).hash.split("/")[2] ?? "";
    await row(page, id).waitFor();
    await expect(row(page, id).locator("a").textContent()).resolves.toBe("form-agent");
    await eventually(() => page.locator("#agent-heading").textContent()).toBe("form-agent");
    const r = await h.gql<{
      agent: { spec: { label: string; toolAllowlist: string[]; prompt: string }; isolated: boolean };
    }>(`{ agent(agentId: "${id}") { isolated spec { label toolAllowlist prompt } } }`);
    expect(r.data?.agent).toEqual({
      isolated: false,
      spec: { label: "form-agent", toolAllowlist: ["Read", "Grep"], prompt: "hello from the form" },
    });
    await eventually(() => row(page, id).getAttribute("data-status")).toBe("DONE");
  });

  it("a typed mutation error is shown to the operator", async () => {
    const page = await openPage();
    const drawer = await openLaunch(page);
    await drawer.getByLabel("Prompt").fill("bad source");
    await drawer.getByLabel("Source checkout").fill("no-such-source");
    await drawer.getByRole("button", { name: "Launch", exact: true }).click();
    const alert = drawer.locator("form.launch [role=alert]");
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(/^Launch failed: [A-Z_]+: /);
  });

  it("an unknown agent id shows an error instead of an empty view", async () => {
    const page = await openPage("#/agent/000000000000");
    // The view's own alert (its tabs' alerts are hidden while they have nothing to say).
    const alert = page.locator("#agent-view [role=alert]:visible");
    await eventually(() => alert.textContent()).toMatch(/000000000000/);
    await expect(alert.isVisible()).resolves.toBe(true);
  });

  it("after the socket drops, the agent stream resumes after its last cursor: nothing repeated, nothing lost", async () => {
    const id = await spawn("chat with me", ", interactive: true");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
    context = await newContext();
    const page = await context.newPage();
    errors = watchErrors(page);
    const routes: WebSocketRoute[] = [];
    const subscribes: { query: string; variables: Record<string, unknown> }[] = [];
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      routes.push(ws);
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        const msg = JSON.parse(String(m)) as { type: string; payload?: (typeof subscribes)[number] };
        if (msg.type === "subscribe" && msg.payload) subscribes.push(msg.payload);
        server.send(m);
      });
    });
    await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}#/agent/${id}`);
    const form = page.getByRole("form", { name: "Input to the agent" });
    await form.waitFor();
    const timeline = page.getByRole("region", { name: "Timeline" });
    await eventually(() => timeline.locator("li.entry-usage").count()).toBe(2);
    const before = await timeline.locator("li.entry").count();

    await routes[0]?.close({ code: 1001, reason: "test drops the connection" });
    await eventually(() => page.getByRole("status").textContent()).toBe("Live");
    await eventually(() => routes.length).toBe(2);
    const resumed = subscribes.filter((s) => s.query.includes("agentEvents"));
    expect(resumed).toHaveLength(2);
    expect(resumed[0]?.variables.after).toBeNull();
    expect(typeof resumed[1]?.variables.after).toBe("string");

    await page.getByLabel(/Message to the agent/).fill("ping from the browser");
    await page.getByRole("button", { name: "Send input" }).click();
    await timeline.getByText("You said: ping from the browser").waitFor();
    const texts = await timeline.locator("li.entry-text .output").allTextContents();
    expect(texts.filter((t) => t === "You said: ping from the browser")).toHaveLength(1);
    expect(await timeline.locator("li.entry").count()).toBeGreaterThan(before);
    expect(await timeline.locator("li.entry-note", { hasText: "Spawned as" }).count()).toBe(1);
    // The reply's turn usage follows its text (a later event of the same turn).
    await eventually(() => timeline.locator("li.entry-usage").count()).toBe(3);

    // End input: confirmation, then the run finishes.
    await page.getByRole("button", { name: "End input", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "End input", exact: true }).click();
    await timeline.locator("li.entry-summary").waitFor({ timeout: 15_000 });
    await eventually(() => form.isHidden()).toBe(true);
    await eventually(() => page.locator(".agent-status").textContent()).toBe("Status: done");
  });
});
