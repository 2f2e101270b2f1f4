/**
 * The dashboard's overview (`#/`, issue 16 item 5) in a real browser (Debian's headless Chromium
 * through playwright-core) against a real gateway with the caliband double and a few scripted runs:
 * the empty state, counts and totals equal to what the runs did (and to the GraphQL usage answer),
 * the charts with their legends and text alternatives, light and dark, 420 px, live updates
 * without a reload, and "unknown" health while the socket is down.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page, WebSocketRoute } from "playwright-core";
import { formatCost, formatInt, formatTokens } from "../../src/format/index.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
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

/** Run an operation as the admin and return its data; GraphQL errors fail the test. */
async function gqlOk<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const r = await h.gql<T>(query, variables);
  if (r.errors?.length || !r.data) throw new Error(`GraphQL failed: ${JSON.stringify(r)}`);
  return r.data;
}

async function spawn(prompt: string): Promise<string> {
  const r = await gqlOk<{ spawnAgent: { agent?: { agentId: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) {
      ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt },
  );
  const id = r.spawnAgent.agent?.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return id;
}

async function statusOf(id: string): Promise<string> {
  const r = await gqlOk<{ agent: { status: string } | null }>(
    `query($id: String!) { agent(agentId: $id) { status } }`,
    { id },
  );
  return r.agent?.status ?? "";
}

async function waitStatus(id: string, status: string): Promise<void> {
  await waitFor(async () => (await statusOf(id)) === status, 20_000, `${id} ${status}`, 100);
}

interface Usage {
  inputTokens: number;
  outputTokens: number;
  estimatedCostUsd: number;
  outcomes: { done: number; failed: number; killed: number; crashed: number };
}

/** The gateway's own totals since local midnight and over the 7 UTC days the overview shows. */
async function apiUsage(): Promise<{ today: Usage; week: Usage }> {
  const now = new Date();
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString();
  const week = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 6),
  ).toISOString();
  const fields = "inputTokens outputTokens estimatedCostUsd outcomes { done failed killed crashed }";
  const r = await gqlOk<{ today: Usage[]; week: Usage[] }>(
    `query($today: DateTime!, $week: DateTime!) {
      today: usage(groupBy: [], since: $today) { ${fields} }
      week: usage(groupBy: [], since: $week) { ${fields} } }`,
    { today, week },
  );
  const zero: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    estimatedCostUsd: 0,
    outcomes: { done: 0, failed: 0, killed: 0, crashed: 0 },
  };
  return { today: r.today[0] ?? zero, week: r.week[0] ?? zero };
}

/** What the runs themselves report: the sum of every agent's tokens and cost. */
async function runsTotal(): Promise<{ input: number; output: number; cost: number; count: number }> {
  const r = await gqlOk<{
    agents: {
      edges: {
        node: { estimatedCostUsd: number | null; usage: { inputTokens: number; outputTokens: number } };
      }[];
    };
  }>(`{ agents(first: 500) { edges { node { estimatedCostUsd usage { inputTokens outputTokens } } } } }`);
  const nodes = r.agents.edges.map((e) => e.node);
  return {
    input: nodes.reduce((a, n) => a + n.usage.inputTokens, 0),
    output: nodes.reduce((a, n) => a + n.usage.outputTokens, 0),
    cost: nodes.reduce((a, n) => a + (n.estimatedCostUsd ?? 0), 0),
    count: nodes.length,
  };
}

/** A fresh browser context whose waits fail (with a useful message) before the test times out. */
async function newContext(width = 1400): Promise<BrowserContext> {
  const c = await browser.newContext({ viewport: { width, height: 900 } });
  c.setDefaultTimeout(20_000);
  return c;
}

/** The dashboard signed in as the admin on the overview, once its usage was read. */
async function openOverview(width = 1400, before?: (page: Page) => Promise<void>): Promise<Page> {
  context = await newContext(width);
  const page = await context.newPage();
  errors = watchErrors(page);
  await before?.(page);
  await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}#/`);
  await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
  await overview(page).getByRole("heading", { name: "Overview" }).waitFor();
  await eventually(() => stat(page, "done")).not.toBe("—");
  return page;
}

const overview = (page: Page) => page.locator("#overview");

/** A stat tile's value. */
const stat = (page: Page, key: string) =>
  overview(page).locator(`[data-stat="${key}"] .stat-value`).textContent();

const figure = (page: Page, chart: string) => overview(page).locator(`figure[data-chart="${chart}"]`);

/** A chart's text alternative: its table as rows of cell texts (header row first). */
async function chartTable(page: Page, chart: string): Promise<string[][]> {
  return figure(page, chart)
    .locator("table tr")
    .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent ?? "")));
}

/** `expect.poll` with room for a loaded CI machine. */
const eventually = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });

/** Relative luminance (0 black … 1 white) of a computed `rgb(…)` color; alpha must be 1. */
function luminance(css: string): number {
  const m = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)$/.exec(css);
  if (!m) throw new Error(`not an rgb color: ${css}`);
  if (m[4] !== undefined && Number(m[4]) < 1) throw new Error(`transparent: ${css}`);
  const [r, g, b] = [m[1], m[2], m[3]].map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe("dashboard overview in Chromium", { timeout: 90_000 }, () => {
  let holding = "";

  it("before any run: the empty state instead of empty charts, and zero counts", async () => {
    const page = await openOverview();
    await overview(page).getByText("No runs in the last 7 days.").waitFor();
    expect(await overview(page).locator("canvas").count()).toBe(0);
    for (const key of ["done", "failed", "killed", "crashed", "running"])
      expect(await stat(page, key)).toBe("0");
    expect(await stat(page, "cost-today")).toBe(formatCost(0));
    await overview(page).locator('article[data-workspace="demo"]').getByText("healthy").waitFor();
  });

  it("counts and totals equal what the scripted runs did and the gateway's usage answer", async () => {
    const done = [await spawn("overview one"), await spawn("overview two")];
    const failed = await spawn("overview bad fake:exit=3");
    const killed = await spawn("overview killed fake:hold=60000");
    holding = await spawn("overview holding fake:hold=600000");
    for (const id of done) await waitStatus(id, "DONE");
    await waitStatus(failed, "FAILED");
    await waitStatus(killed, "RUNNING");
    await gqlOk(`mutation($id: String!) { killAgent(input: { agentId: $id }) { __typename } }`, {
      id: killed,
    });
    await waitStatus(killed, "KILLED");
    await waitStatus(holding, "RUNNING");

    const page = await openOverview();
    const api = await apiUsage();
    const runs = await runsTotal();
    // The runs did something, and the gateway's usage is exactly their sum.
    expect(runs.count).toBe(5);
    expect(runs.input).toBeGreaterThan(0);
    expect(api.week.inputTokens).toBe(runs.input);
    expect(api.week.outputTokens).toBe(runs.output);
    expect(api.week.estimatedCostUsd).toBeCloseTo(runs.cost, 10);
    expect(api.today.outcomes).toEqual({ done: 2, failed: 1, killed: 1, crashed: 0 });

    expect(await stat(page, "running")).toBe("1");
    expect(await stat(page, "idle")).toBe("0");
    expect(await stat(page, "done")).toBe("2");
    expect(await stat(page, "failed")).toBe("1");
    expect(await stat(page, "killed")).toBe("1");
    expect(await stat(page, "crashed")).toBe("0");
    expect(await stat(page, "tokens-today")).toBe(
      formatTokens(api.today.inputTokens + api.today.outputTokens),
    );
    expect(await stat(page, "cost-today")).toBe(formatCost(api.today.estimatedCostUsd));
    expect(await stat(page, "tokens-week")).toBe(formatTokens(runs.input + runs.output));
    expect(await stat(page, "cost-week")).toBe(formatCost(runs.cost));
    await expect(overview(page).locator('[data-stat="tokens-week"] .stat-sub').textContent()).resolves.toBe(
      `${formatTokens(runs.input)} in · ${formatTokens(runs.output)} out`,
    );
    // The workspace card counts the live and ended runs caliband lists.
    const card = overview(page).locator('article[data-workspace="demo"]');
    await expect(card.locator('li[data-status="DONE"] .count').textContent()).resolves.toBe("2");
    await expect(card.locator('li[data-status="RUNNING"] .count').textContent()).resolves.toBe("1");
  });

  it("charts render with a legend and a text alternative that lists the numbers; the toggle groups by model", async () => {
    const page = await openOverview();
    const runs = await runsTotal();
    const api = await apiUsage();
    for (const chart of ["cost", "tokens", "outcomes"]) {
      const canvas = figure(page, chart).locator("canvas").first();
      await canvas.waitFor();
      const size = await canvas.evaluate((c: HTMLCanvasElement) => ({ w: c.width, h: c.height }));
      expect(size.w, chart).toBeGreaterThan(0);
      expect(size.h, chart).toBeGreaterThan(0);
      // The canvas is hidden from assistive technology; the figure is named by its caption.
      await expect(figure(page, chart).locator(".chart-plot").getAttribute("aria-hidden")).resolves.toBe(
        "true",
      );
    }
    await expect(figure(page, "cost").getByRole("list", { name: "Legend" }).innerText()).resolves.toContain(
      "demo",
    );
    const legend = await figure(page, "outcomes").locator(".chart-legend li").allTextContents();
    expect(legend).toEqual(["done 2", "failed 1", "killed 1", "crashed 0"]);

    const cost = await chartTable(page, "cost");
    expect(cost[0]).toEqual(["Day", "demo", "All"]);
    expect(cost).toHaveLength(1 + 7 + 1);
    expect(cost.at(-1)).toEqual(["Total", formatCost(runs.cost), formatCost(runs.cost)]);
    const tokens = await chartTable(page, "tokens");
    expect(tokens[0]).toEqual(["Day", "input", "output", "All"]);
    expect(tokens.at(-1)).toEqual([
      "Total",
      formatTokens(api.week.inputTokens),
      formatTokens(api.week.outputTokens),
      formatTokens(api.week.inputTokens + api.week.outputTokens),
    ]);
    const outcomes = await chartTable(page, "outcomes");
    expect(outcomes.at(-1)).toEqual(["Total", "2", "1", "1", "0", formatInt(4)]);
    // Today's row (the last day) holds all of it.
    expect(outcomes.at(-2)?.slice(1)).toEqual(["2", "1", "1", "0", "4"]);

    await figure(page, "cost").getByLabel("Model").check();
    await eventually(() =>
      figure(page, "cost").locator(".chart-legend li .legend-name").allTextContents(),
    ).toEqual(["claude-sonnet-4-5"]);
    await expect(figure(page, "cost").locator("figcaption").textContent()).resolves.toMatch(/by model/);
    expect(await figure(page, "cost").locator("canvas").count()).toBeGreaterThan(0);
  });

  it("follows the system's light and dark color scheme", async () => {
    const page = await openOverview();
    const colors = () =>
      page.evaluate(() => ({
        body: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
        tile: getComputedStyle(document.querySelector("#overview .stat") ?? document.body).backgroundColor,
        chart: getComputedStyle(document.querySelector("#overview figure.chart") ?? document.body)
          .backgroundColor,
      }));
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await colors();
    expect(luminance(dark.body)).toBeLessThan(0.05);
    expect(luminance(dark.tile)).toBeLessThan(0.05);
    expect(luminance(dark.chart)).toBeLessThan(0.05);
    expect(luminance(dark.text)).toBeGreaterThan(0.6);
    await page.emulateMedia({ colorScheme: "light" });
    const light = await colors();
    expect(luminance(light.body)).toBeGreaterThan(0.8);
    expect(luminance(light.tile)).toBeGreaterThan(0.8);
    expect(luminance(light.chart)).toBeGreaterThan(0.8);
    expect(luminance(light.text)).toBeLessThan(0.1);
    // The charts were drawn again for the new scheme: still there, still sized.
    const w = await figure(page, "cost")
      .locator("canvas")
      .first()
      .evaluate((c: HTMLCanvasElement) => c.width);
    expect(w).toBeGreaterThan(0);
  });

  it("at 420 px nothing overflows sideways: the charts stack and fit the width", async () => {
    const page = await openOverview(420);
    await figure(page, "outcomes").locator("canvas").first().waitFor();
    const layout = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
      figures: Array.from(document.querySelectorAll("#overview figure.chart"), (f) => {
        const r = f.getBoundingClientRect();
        const c = f.querySelector("canvas")?.getBoundingClientRect();
        return {
          left: r.left,
          right: r.right,
          top: r.top,
          canvasRight: c?.right ?? 0,
          canvasWidth: c?.width ?? 0,
        };
      }),
    }));
    expect(layout.scroll).toBeLessThanOrEqual(layout.inner);
    expect(layout.figures).toHaveLength(3);
    for (const f of layout.figures) {
      expect(f.right).toBeLessThanOrEqual(layout.inner);
      expect(f.canvasWidth).toBeGreaterThan(0);
      expect(f.canvasRight).toBeLessThanOrEqual(f.right);
    }
    // Stacked: one chart per row.
    const tops = layout.figures.map((f) => f.top);
    expect(new Set(tops).size).toBe(3);
    // Resizing the window redraws the charts at the new width.
    await page.setViewportSize({ width: 1300, height: 900 });
    await eventually(() =>
      figure(page, "cost")
        .locator("canvas")
        .first()
        .evaluate((c: HTMLCanvasElement) => c.getBoundingClientRect().width),
    ).toBeGreaterThan(layout.figures[0]?.canvasWidth ?? 0);
  });

  it("a run finishing updates the counts, totals and charts without a reload", async () => {
    const page = await openOverview();
    await page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes"));
    expect(await stat(page, "done")).toBe("2");
    const id = await spawn("overview live one fake:hold=1500");
    await eventually(() => stat(page, "running")).toBe("2");
    await waitStatus(id, "DONE");
    await eventually(() => stat(page, "done")).toBe("3");
    const api = await apiUsage();
    const runs = await runsTotal();
    expect(api.week.inputTokens).toBe(runs.input);
    await eventually(() => stat(page, "tokens-week")).toBe(formatTokens(runs.input + runs.output));
    await eventually(() => stat(page, "cost-week")).toBe(formatCost(runs.cost));
    await eventually(() => stat(page, "running")).toBe("1");
    await eventually(async () => (await chartTable(page, "outcomes")).at(-1)?.[1]).toBe("3");
    expect(await page.evaluate(() => document.body.getAttribute("data-loaded-once"))).toBe("yes");
  });

  it("while the socket is down the workspace health is unknown, never healthy; back when it reconnects", async () => {
    let blocked = false;
    const routes: WebSocketRoute[] = [];
    const page = await openOverview(1400, (p) =>
      p.routeWebSocket(/\/graphql$/, (ws) => {
        if (blocked) {
          void ws.close({ code: 1001, reason: "test keeps the gateway away" });
          return;
        }
        routes.push(ws);
        ws.connectToServer();
      }),
    );
    const health = overview(page).locator('article[data-workspace="demo"] .health');
    await eventually(() => health.getAttribute("data-health")).toBe("HEALTHY");
    blocked = true;
    await routes[0]?.close({ code: 1001, reason: "test drops the connection" });
    await eventually(() => health.getAttribute("data-health")).toBe("UNKNOWN");
    expect(await health.textContent()).toMatch(/^unknown/);
    expect(await health.textContent()).not.toMatch(/healthy/);
    await overview(page)
      .getByText(/Not connected to the gateway/)
      .waitFor();
    blocked = false;
    await eventually(() => health.getAttribute("data-health"), 30_000).toBe("HEALTHY");
    await eventually(() =>
      overview(page)
        .getByText(/Not connected to the gateway/)
        .isHidden(),
    ).toBe(true);
    // The connection attempts refused on purpose are the only errors.
    errors = errors.filter((e) => !/WebSocket/.test(e));
  });

  afterAll(async () => {
    if (holding)
      await h.gql(`mutation($id: String!) { killAgent(input: { agentId: $id }) { __typename } }`, {
        id: holding,
      });
  });
});
