/**
 * The agents table v2, the launch drawer and the page's states (issue 16 item 5) in headless
 * Chromium against a real gateway and the caliband double: filters, search, sort, paging with
 * totals, the URL reproducing all of it, live rows, 420 px, loading / empty / disconnected.
 *
 * Runs stored in workspace "archive" (a workspace no daemon serves, so nothing changes them) give
 * the sort and paging tests exact costs and counts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page, Route, WebSocketRoute } from "playwright-core";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { upsertAgentOp } from "../../src/store/agents.js";
import { ensureDashboardBuilt, launchChromium, watchErrors } from "./support.js";

let browser: Browser;
let h: AppHarness;
let context: BrowserContext | undefined;
let errors: string[] = [];
/** Errors a test expects (e.g. the socket it closed on purpose). */
let allowed: RegExp[] = [];

/** Archived run i (1..30): cost i × $0.10 (run 5: unknown), every third one failed. */
const ARCHIVED = 30;
const archivedId = (i: number) => `a0000000${String(i).padStart(4, "0")}`;
const archivedCost = (i: number) => (i === 5 ? null : i / 10);

beforeAll(async () => {
  ensureDashboardBuilt();
  [browser, h] = await Promise.all([launchChromium(), startAppHarness()]);
  const db = h.app.db.prisma;
  for (const name of ["archive", "vacant"])
    await db.workspace.create({ data: { name, root: `/nonexistent/${name}`, env: {} } });
  for (let i = 1; i <= ARCHIVED; i++) {
    const id = archivedId(i);
    const status = i % 3 === 0 ? "failed" : "done";
    await upsertAgentOp(db, {
      id,
      workspace: "archive",
      name: `arch-${String(i).padStart(2, "0")}`,
      status,
      interactive: false,
      isolated: true,
      spec: { label: `arch-${String(i).padStart(2, "0")}`, initial_prompt: `archived task ${i}` },
      sessionDir: "",
      workingDir: "",
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
      model: null,
      respawnedFrom: null,
    });
    await db.agent.update({
      where: { id },
      data: {
        finishedAt: new Date(Date.UTC(2026, 0, 1, 1, i)),
        costUsd: archivedCost(i),
        inputTokens: 1000 * i,
        outputTokens: 10,
        turns: 1,
        outcome: status === "done" ? "EndOfTurn" : null,
        goneAt: new Date(Date.UTC(2026, 0, 2)),
      },
    });
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(errors.filter((e) => !allowed.some((a) => a.test(e)))).toEqual([]);
  errors = [];
  allowed = [];
});

async function newPage(viewport = { width: 1400, height: 900 }): Promise<Page> {
  context = await browser.newContext({ viewport });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  errors = watchErrors(page);
  return page;
}

async function openPage(hash = "", opts: { token?: string; width?: number } = {}): Promise<Page> {
  const page = await newPage({ width: opts.width ?? 1400, height: 900 });
  await page.goto(`${h.url}/?token=${encodeURIComponent(opts.token ?? h.token)}${hash}`);
  await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
  return page;
}

async function spawn(prompt: string, label?: string): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation($p: String!, $l: String) { spawnAgent(input: { workspace: "demo", prompt: $p, label: $l }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt, l: label ?? null },
  );
  const id = r.data?.spawnAgent.agent.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return id;
}

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const rows = (page: Page) => page.locator("table.agents tbody tr[data-agent-id]");
const rowIds = (page: Page) =>
  rows(page).evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset["agentId"] ?? ""));
const summary = (page: Page) => page.locator(".agents-summary");
/** The table's filter controls (the launch drawer has fields of the same names). */
const filters = (page: Page) => page.getByRole("search", { name: "Filter agents" });
const hashQuery = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split("?")[1] ?? "");

describe("agents table v2", { timeout: 90_000 }, () => {
  it("filters by status, searches a finished run by its label, and the URL keeps both", async () => {
    const needle = await spawn("tidy the changelog please", "Needle-Label-Run");
    await waitFor(() => h.app.fleet.state.agent(needle)?.status === "done", 15_000, "done");
    const page = await openPage("#/agents");
    await eventually(() => summary(page).textContent()).toMatch(/^Showing 1–25 of \d+$/);

    // Search: typed in the box, found among finished runs; the URL has it.
    await filters(page).getByLabel("Search").fill("needle-LABEL");
    await eventually(() => rowIds(page)).toEqual([needle]);
    expect(hashQuery(page).get("q")).toBe("needle-LABEL");
    await expect(page.locator(`tr[data-agent-id="${needle}"] .badge`).textContent()).resolves.toBe("done");
    // Its prompt is shown under its name.
    await expect(page.locator(`tr[data-agent-id="${needle}"] .prompt-excerpt`).textContent()).resolves.toBe(
      "tidy the changelog please",
    );
    await expect(summary(page).textContent()).resolves.toBe("Showing 1–1 of 1");

    // Status filter (several at once) in a workspace.
    await page.getByRole("button", { name: "Clear filters" }).click();
    await eventually(() => hashQuery(page).get("q")).toBe(null);
    await filters(page).getByLabel("Workspace").selectOption("archive");
    await page.getByRole("checkbox", { name: "failed" }).check();
    await eventually(() => summary(page).textContent()).toBe("Showing 1–10 of 10");
    const statuses = await rows(page).evaluateAll((trs) =>
      trs.map((tr) => (tr as HTMLElement).dataset["status"]),
    );
    expect(new Set(statuses)).toEqual(new Set(["FAILED"]));
    expect(hashQuery(page).get("status")).toBe("FAILED");
    expect(hashQuery(page).get("ws")).toBe("archive");
    await page.getByRole("checkbox", { name: "done" }).check();
    await eventually(() => summary(page).textContent()).toBe("Showing 1–25 of 30");
    expect(hashQuery(page).get("status")?.split(",").sort()).toEqual(["DONE", "FAILED"]);
  });

  it("sorts by a column header (aria-sort), unknown costs last, and pages next/prev with totals", async () => {
    const page = await openPage("#/agents?ws=archive");
    await eventually(() => summary(page).textContent()).toBe("Showing 1–25 of 30");
    // Default: newest first.
    expect((await rowIds(page))[0]).toBe(archivedId(30));
    const costHeader = page.locator("table.agents thead th", { hasText: "Cost" });
    await costHeader.getByRole("button").click();
    await eventually(() => costHeader.getAttribute("aria-sort")).toBe("descending");
    expect(hashQuery(page).get("sort")).toBe("COST_DESC");
    const byCost = Array.from({ length: ARCHIVED }, (_, k) => k + 1)
      .filter((i) => archivedCost(i) !== null)
      .sort((a, b) => b - a)
      .map(archivedId);
    await eventually(() => rowIds(page)).toEqual(byCost.slice(0, 25));
    await expect(
      page.locator(`tr[data-agent-id="${archivedId(30)}"] td[data-label="Cost"]`).textContent(),
    ).resolves.toBe("$3.00");
    // Only one column claims the order.
    await expect(page.locator("table.agents thead th[aria-sort]").count()).resolves.toBe(1);

    await page.getByRole("button", { name: "Next" }).click();
    await eventually(() => summary(page).textContent()).toBe("Showing 26–30 of 30");
    // The rest, then the run of unknown cost (shown as —) last.
    await expect(rowIds(page)).resolves.toEqual([...byCost.slice(25), archivedId(5)]);
    await expect(
      page.locator(`tr[data-agent-id="${archivedId(5)}"] td[data-label="Cost"]`).textContent(),
    ).resolves.toBe("—");
    await expect(page.getByRole("button", { name: "Next" }).isDisabled()).resolves.toBe(true);
    expect(hashQuery(page).get("after")).toBeTruthy();

    await page.getByRole("button", { name: "Previous" }).click();
    await eventually(() => summary(page).textContent()).toBe("Showing 1–25 of 30");
    await expect(rowIds(page)).resolves.toEqual(byCost.slice(0, 25));
    await expect(page.getByRole("button", { name: "Previous" }).isDisabled()).resolves.toBe(true);

    // Same header again: ascending. Page size 50: everything on one page.
    await costHeader.getByRole("button").click();
    await eventually(() => costHeader.getAttribute("aria-sort")).toBe("ascending");
    await filters(page).getByLabel("Per page").selectOption("50");
    await eventually(() => summary(page).textContent()).toBe("Showing 1–30 of 30");
    await expect(rowIds(page)).resolves.toEqual([...[...byCost].reverse(), archivedId(5)]);
  });

  it("a link reproduces the table: filters, search, order and page", async () => {
    const page = await openPage("#/agents?ws=archive&sort=TOKENS_ASC&status=DONE&q=arch-&size=50");
    // Done archived runs (every third one failed), fewest tokens first.
    const done = Array.from({ length: ARCHIVED }, (_, k) => k + 1).filter((i) => i % 3 !== 0);
    await eventually(() => rowIds(page)).toEqual(done.map(archivedId));
    await expect(summary(page).textContent()).resolves.toBe("Showing 1–20 of 20");
    await expect(filters(page).getByLabel("Search").inputValue()).resolves.toBe("arch-");
    await expect(filters(page).getByLabel("Workspace").inputValue()).resolves.toBe("archive");
    await expect(filters(page).getByLabel("Sort by").inputValue()).resolves.toBe("TOKENS_ASC");
    await expect(filters(page).getByLabel("Per page").inputValue()).resolves.toBe("50");
    await expect(page.getByRole("checkbox", { name: "done" }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole("checkbox", { name: "failed" }).isChecked()).resolves.toBe(false);
    const tokensHeader = page.locator("table.agents thead th", { hasText: "Tokens" });
    await expect(tokensHeader.getAttribute("aria-sort")).resolves.toBe("ascending");

    // A later page: its URL, opened in a fresh browser context, shows the same runs and range.
    await page.goto(`${h.url}/#/agents?ws=archive`);
    await eventually(() => summary(page).textContent()).toBe("Showing 1–25 of 30");
    await page.getByRole("button", { name: "Next" }).click();
    await eventually(() => summary(page).textContent()).toBe("Showing 26–30 of 30");
    const later = new URL(page.url()).hash;
    const other = await browser.newContext();
    try {
      const second = await other.newPage();
      await second.goto(`${h.url}/?token=${encodeURIComponent(h.token)}${later}`);
      await eventually(() => second.locator(".agents-summary").textContent()).toBe("Showing 26–30 of 30");
      await expect(rowIds(second)).resolves.toEqual([5, 4, 3, 2, 1].map(archivedId));
      // Back from there: the first page.
      await second.getByRole("button", { name: "Previous" }).click();
      await eventually(() => second.locator(".agents-summary").textContent()).toBe("Showing 1–25 of 30");
      await expect(rowIds(second).then((ids) => ids[0])).resolves.toBe(archivedId(30));
    } finally {
      await other.close();
    }
  });

  it("a new run appears live at the top without a reload, the total grows, and nothing polls", async () => {
    const page = await openPage("#/agents");
    await eventually(() => summary(page).textContent()).toMatch(/^Showing 1–25 of \d+$/);
    const total = Number(/of (\d+)$/.exec((await summary(page).textContent()) ?? "")?.[1]);
    await page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes"));
    const reads: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && (r.postData() ?? "").includes("DashboardAgentsPage")) reads.push(r.url());
    });
    const id = await spawn("appear live please fake:hold=60000", "live-one");
    await eventually(() => rowIds(page).then((ids) => ids[0])).toBe(id);
    await eventually(() => summary(page).textContent()).toBe(`Showing 1–25 of ${total + 1}`);
    await eventually(() => page.locator(`tr[data-agent-id="${id}"]`).getAttribute("data-status")).toBe(
      "RUNNING",
    );
    expect(await page.evaluate(() => document.body.getAttribute("data-loaded-once"))).toBe("yes");
    // Reads followed changes (a debounced few), and stop when nothing changes.
    expect(reads.length).toBeGreaterThan(0);
    const settled = reads.length;
    await page.waitForTimeout(2_500);
    expect(reads.length).toBe(settled);
    // A listed row follows its status live.
    await h.gql(`mutation { killAgent(input: { agentId: "${id}" }) { __typename } }`);
    await eventually(() => page.locator(`tr[data-agent-id="${id}"]`).getAttribute("data-status")).toBe(
      "KILLED",
    );
  });

  it("at 420 px nothing is cut off: rows, the launch button, the pager and the agent's actions fit", async () => {
    const long = `${"Refactor the whole parser and explain every step in detail ".repeat(30)}fake:hold=60000`;
    const id = await spawn(long, "a-rather-long-label-for-a-narrow-screen-test-run");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "running", 10_000, "running");
    const page = await openPage("#/agents", { width: 420 });
    await page.locator(`tr[data-agent-id="${id}"]`).waitFor();
    const fits = async (selector: string) =>
      page.locator(selector).evaluateAll((els) =>
        els
          .filter((e) => (e as HTMLElement).offsetParent !== null)
          .map((e) => {
            const r = e.getBoundingClientRect();
            return {
              what: e.tagName + (e.textContent ?? "").slice(0, 20),
              ok: r.left >= 0 && r.right <= 420.5,
            };
          })
          .filter((x) => !x.ok),
      );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await expect(fits("table.agents tbody tr, table.agents tbody tr > *")).resolves.toEqual([]);
    await expect(
      fits("#launch-open, .pager button, .agents-filters input, .agents-filters select"),
    ).resolves.toEqual([]);
    // The long prompt is cut with an ellipsis, not wrapped into a wall of text.
    const excerpt = page.locator(`tr[data-agent-id="${id}"] .prompt-excerpt`);
    await expect(excerpt.evaluate((e) => e.scrollWidth > e.clientWidth)).resolves.toBe(true);
    await expect(excerpt.evaluate((e) => getComputedStyle(e).textOverflow)).resolves.toBe("ellipsis");

    // The agent view next to the table: its actions stay on screen.
    await page.locator(`tr[data-agent-id="${id}"] a`).click();
    const actions = page.getByRole("group", { name: "Agent actions" });
    await actions.getByRole("button", { name: "Kill" }).waitFor();
    await expect(fits('[role="group"][aria-label="Agent actions"] button')).resolves.toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await h.gql(`mutation { killAgent(input: { agentId: "${id}" }) { __typename } }`);
  });
});

describe("launch drawer", { timeout: 90_000 }, () => {
  it("opens from the queue view, shows a typed error for a bad source, launches, and closes", async () => {
    const page = await openPage("#/queue");
    await page.locator("#queue-heading").waitFor();
    const opener = page.getByRole("banner").getByRole("button", { name: "Launch", exact: true });
    await opener.click();
    const drawer = page.getByRole("dialog", { name: "Launch an agent" });
    await drawer.waitFor();
    // The focus is in the form; Escape closes it and the focus is back on the button.
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe("launch-workspace");
    await page.keyboard.press("Escape");
    await eventually(() => drawer.isVisible()).toBe(false);
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe("launch-open");
    expect(new URL(page.url()).hash).toBe("#/queue");

    await opener.click();
    // The browser's own check: no prompt, no request.
    await drawer.getByRole("button", { name: "Launch", exact: true }).click();
    await expect(
      drawer.getByLabel("Prompt").evaluate((e) => (e as HTMLTextAreaElement).validity.valueMissing),
    ).resolves.toBe(true);
    // (This gateway also lists the test's daemon-less workspaces; launch in the served one.)
    await drawer.getByLabel("Workspace", { exact: true }).selectOption("demo");
    // The gateway's typed error, inline.
    await drawer.getByLabel("Prompt").fill("from the drawer");
    await drawer.getByLabel("Source checkout").fill("no-such-source");
    await drawer.getByRole("button", { name: "Launch", exact: true }).click();
    const alert = drawer.locator("form.launch [role=alert]");
    await eventually(() => alert.textContent()).toMatch(/^Launch failed: [A-Z_]+: .*no-such-source/);
    await expect(drawer.isVisible()).resolves.toBe(true);

    await drawer.getByLabel("Source checkout").fill("");
    await drawer.getByLabel("Label").fill("drawer-run");
    await drawer.getByRole("button", { name: "Launch", exact: true }).click();
    await page.waitForURL(/#\/agent\/[0-9a-f]{12}$/);
    await eventually(() => drawer.isVisible()).toBe(false);
    const id = new URL(page.url()).hash.split("/")[2] ?? "";
    await eventually(() => page.locator("#agent-heading").textContent()).toBe("drawer-run");
    await page.locator(`tr[data-agent-id="${id}"]`).waitFor();
  });

  it("viewers get no Launch button; an empty history says 'No runs yet', never with 'Loading…'", async () => {
    const viewer = await h.createToken({ name: "vacant-viewer", role: "VIEWER", workspaces: ["vacant"] });
    const page = await newPage();
    // Hold the first page read to see the loading state.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/graphql", async (route: Route) => {
      if ((route.request().postData() ?? "").includes("DashboardAgentsPage")) await held;
      await route.continue();
    });
    await page.goto(`${h.url}/?token=${encodeURIComponent(viewer)}#/agents`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    const table = page.locator("table.agents");
    await eventually(() => table.locator("tr.empty").textContent()).toBe("Loading…");
    await expect(summary(page).textContent()).resolves.toBe("Loading…");
    await expect(page.getByText("No runs yet").count()).resolves.toBe(0);
    await expect(page.getByText("No agents match").count()).resolves.toBe(0);
    release();
    await eventually(() => table.locator("tr.empty").textContent()).toBe("No runs yet");
    await expect(page.getByText("Loading…").count()).resolves.toBe(0);
    await expect(page.locator("#launch-open").isHidden()).resolves.toBe(true);
    await page.unrouteAll({ behavior: "wait" });

    // A search that matches nothing: "No agents match".
    await filters(page).getByLabel("Search").fill("nothing like this");
    await filters(page).getByLabel("Search").press("Enter");
    await eventually(() => table.locator("tr.empty").textContent()).toBe("No agents match");
    await expect(page.getByText("Loading…").count()).resolves.toBe(0);
  });

  it("while the socket is down the header says so and nothing claims Live or healthy", async () => {
    const page = await newPage();
    let up = true;
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      if (!up) {
        // The gateway is unreachable: every new connection is closed at once.
        void ws.close({ code: 1006, reason: "gateway down (test)" });
        return;
      }
      sockets.push(ws);
      ws.connectToServer();
    });
    allowed = [/WebSocket|graphql|1006/i];
    await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}#/`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    const card = page.locator('article[data-workspace="demo"]');
    await card.getByText("healthy").waitFor();

    up = false;
    for (const ws of sockets) await ws.close({ code: 1001, reason: "test drops the connection" });
    const header = page.locator("#connection");
    await eventually(() => header.textContent()).toBe("Connection lost, reconnecting…");
    await expect(header.getAttribute("data-state")).resolves.toBe("reconnecting");
    await eventually(() => card.getByText("healthy", { exact: true }).count()).toBe(0);
    await expect(page.getByText("Live", { exact: true }).count()).resolves.toBe(0);
    // The agents view says its rows may be stale.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    await expect(page.locator(".agents-offline").isVisible()).resolves.toBe(true);

    up = true;
    await eventually(() => header.textContent()).toBe("Live");
    await eventually(() => page.locator(".agents-offline").isVisible()).toBe(false);
  });
});
