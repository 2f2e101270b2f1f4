/**
 * The dashboard's queue view in a real browser (Debian's headless Chromium through playwright-core)
 * against a real gateway started in-process with the caliband double and its real launch queue:
 * waiting launches with why they wait, running ones, recent final ones (timed out, retried), caps
 * in use, schedules with their buttons, a launch's attempts and state changes, cancel and enqueue
 * from the UI, all live from `fleetChanges` without a reload; a viewer token sees no action.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page, WebSocketRoute } from "playwright-core";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { ensureDashboardBuilt, launchChromium, watchErrors } from "./support.js";

let browser: Browser;
let h: AppHarness;
let viewerToken: string;
let context: BrowserContext | undefined;
let errors: string[] = [];

/** The GLOBAL cap the gateway starts with (config default), restored after each test. */
let defaultCap: number;

beforeAll(async () => {
  ensureDashboardBuilt();
  [browser, h] = await Promise.all([launchChromium(), startAppHarness()]);
  viewerToken = await h.createToken({ name: "queue-viewer", role: "VIEWER" });
  const caps = await gqlOk<{ queue: { caps: { scope: string; max: number }[] } }>(
    `{ queue { caps { scope max } } }`,
  );
  defaultCap = caps.queue.caps.find((c) => c.scope === "GLOBAL")?.max ?? 5;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  // Leave nothing waiting or running for the next test, and the default cap.
  const live = await gqlOk<{ launches: { edges: { node: { launchId: string } }[] } }>(
    `{ launches(filter: { states: [QUEUED, DISPATCHED, RUNNING] }, first: 500) { edges { node { launchId } } } }`,
  );
  for (const { node } of live.launches.edges) await cancel(node.launchId);
  await setGlobalCap(defaultCap);
  await gqlOk(
    `mutation { setBudget(input: { scope: WORKSPACE, key: "demo", period: DAY, limitUsd: null }) { __typename } }`,
  );
  expect(errors).toEqual([]);
  errors = [];
});

/** Run an operation as `token` (default admin) and return its data; GraphQL errors fail the test. */
async function gqlOk<T>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T> {
  const r = await h.gql<T>(query, variables, token);
  if (r.errors?.length || !r.data) throw new Error(`GraphQL failed: ${JSON.stringify(r)}`);
  return r.data;
}

async function setGlobalCap(max: number): Promise<void> {
  const r = await gqlOk<{ setCap: { __typename: string } }>(
    `mutation($max: Int) { setCap(input: { scope: GLOBAL, max: $max }) { __typename } }`,
    { max },
  );
  expect(r.setCap.__typename).toBe("SetCapPayload");
}

async function enqueue(input: Record<string, unknown>): Promise<string> {
  const r = await gqlOk<{ enqueueLaunch: { __typename: string; launch?: { launchId: string } } }>(
    `mutation($input: EnqueueLaunchInput!) { enqueueLaunch(input: $input) {
      __typename ... on EnqueueLaunchPayload { launch { launchId } } ... on Error { message } } }`,
    { input: { workspace: "demo", ...input } },
  );
  const id = r.enqueueLaunch.launch?.launchId;
  if (!id) throw new Error(`enqueue failed: ${JSON.stringify(r)}`);
  return id;
}

async function cancel(launchId: string): Promise<void> {
  await gqlOk(`mutation($id: String!) { cancelLaunch(input: { launchId: $id }) { __typename } }`, {
    id: launchId,
  });
}

interface StoredLaunch {
  state: string;
  priority: number;
  dedupKey: string | null;
  timeoutMs: number | null;
  retry: { maxAttempts: number };
  spec: { prompt: string };
}

async function stored(launchId: string): Promise<StoredLaunch | null> {
  const r = await gqlOk<{ launch: StoredLaunch | null }>(
    `query($id: String!) { launch(launchId: $id) { state priority dedupKey timeoutMs retry { maxAttempts } spec { prompt } } }`,
    { id: launchId },
  );
  return r.launch;
}

/** A fresh browser context whose waits fail (with a useful message) before the test times out. */
async function newContext(): Promise<BrowserContext> {
  const c = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  c.setDefaultTimeout(20_000);
  return c;
}

/** The dashboard signed in with `token` (default: the admin token), on `hash`. */
async function openPage(hash: string, token = h.token): Promise<Page> {
  context = await newContext();
  const page = await context.newPage();
  errors = watchErrors(page);
  await page.goto(`${h.url}/?token=${encodeURIComponent(token)}${hash}`);
  await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
  await page.getByRole("heading", { name: "Launch queue" }).waitFor();
  await expect.poll(() => page.getByText("Loading the queue…").isHidden()).toBe(true);
  return page;
}

/** `expect.poll` with room for a loaded CI machine. */
const eventually = <T>(fn: () => T | Promise<T>, timeout = 15_000) => expect.poll(fn, { timeout });

const rows = (page: Page, table: "waiting" | "active" | "recent") =>
  page.locator(`table.${table} tbody tr[data-launch-id]`);
const row = (page: Page, table: "waiting" | "active" | "recent", id: string) =>
  page.locator(`table.${table} tbody tr[data-launch-id="${id}"]`);

/** What the waiting, running and recent tables show: per row, its id, state and cells' text. */
async function tables(page: Page) {
  const read = (table: "waiting" | "active" | "recent") =>
    rows(page, table).evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute("data-launch-id"),
        state: tr.getAttribute("data-state"),
        cells: Array.from(tr.children, (c) => c.textContent ?? ""),
      })),
    );
  return { waiting: await read("waiting"), active: await read("active"), recent: await read("recent") };
}

describe("dashboard queue view in Chromium", { timeout: 90_000 }, () => {
  it("with the GLOBAL cap at 1, three launches: two wait for the cap, one runs, then all three succeed, live", async () => {
    await setGlobalCap(1);
    const budget = await gqlOk<{ setBudget: { __typename: string } }>(
      `mutation { setBudget(input: { scope: WORKSPACE, key: "demo", period: DAY, limitUsd: 10 }) { __typename } }`,
    );
    expect(budget.setBudget.__typename).toBe("SetBudgetPayload");
    // Reached from the main navigation (keyboard), not by URL.
    context = await newContext();
    const page = await context.newPage();
    errors = watchErrors(page);
    await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Overview" }).getAttribute("aria-current")).resolves.toBe(
      "page",
    );
    await nav.getByRole("link", { name: "Queue" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/#\/queue$/);
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe("queue-heading");
    await expect(nav.getByRole("link", { name: "Queue" }).getAttribute("aria-current")).resolves.toBe("page");
    await expect(page.getByRole("heading", { name: "Agents" }).isHidden()).resolves.toBe(true);
    await page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes"));
    // Every read of the queue the page makes (it must follow the subscription, not poll).
    const reads: string[] = [];
    page.on("request", (req) => {
      if (req.method() === "POST" && req.postData()?.includes("query DashboardQueue")) reads.push(req.url());
    });

    const globalCap = page.locator('table.caps tr[data-cap="GLOBAL:"]');
    await eventually(() => globalCap.textContent()).toBe("global0 / 1");
    const demoBudget = page.locator('table.budgets tr[data-budget="WORKSPACE:demo:DAY"]');
    await expect(demoBudget.textContent()).resolves.toBe("workspace demo · today$0 / $10.00");

    const ids: string[] = [];
    for (const i of [1, 2, 3])
      ids.push(await enqueue({ prompt: `queued ${i} fake:hold=1500`, label: `q${i}` }));

    // Two wait for the cap (in dispatch order, positions 1 and 2), one runs.
    await eventually(async () => {
      const t = await tables(page);
      return {
        waiting: t.waiting.map((r) => ({
          id: r.id,
          position: r.cells[0],
          why: /cap/.test(r.cells[6] ?? ""),
        })),
        active: t.active.map((r) => ({ id: r.id, state: r.state })),
      };
    }).toEqual({
      waiting: [
        { id: ids[1], position: "1", why: true },
        { id: ids[2], position: "2", why: true },
      ],
      active: [{ id: ids[0], state: "RUNNING" }],
    });
    await expect(row(page, "waiting", ids[1]!).locator("td.wait").textContent()).resolves.toMatch(
      /^cap global: 1 of 1 runs in use/,
    );
    await eventually(() => globalCap.textContent()).toBe("global1 / 1full");
    const running = row(page, "active", ids[0]!);
    await expect(running.locator("th a").textContent()).resolves.toBe("q1");
    await expect(running.locator("td").nth(2).locator("a").getAttribute("href")).resolves.toMatch(
      /^#\/agent\/[0-9a-f]{12}$/,
    );
    await expect(running.locator("td").nth(3).textContent()).resolves.toBe("1/1");

    // Drains to three succeeded, without a reload.
    await eventually(async () => {
      const t = await tables(page);
      return { waiting: t.waiting.length, active: t.active.length, recent: t.recent.map((r) => r.state) };
    }, 45_000).toEqual({ waiting: 0, active: 0, recent: ["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"] });
    expect(await page.evaluate(() => document.body.getAttribute("data-loaded-once"))).toBe("yes");
    await eventually(() => globalCap.textContent()).toBe("global0 / 1");
    // The three runs' estimated cost is spent from the budget (live too).
    await eventually(() => demoBudget.locator("td").first().textContent()).toMatch(
      /^\$0\.0(?!000)\d{3} \/ \$10\.00$/,
    );
    for (const id of ids) expect((await stored(id))?.state).toBe("SUCCEEDED");
    expect(reads.length).toBeGreaterThan(0);
    // Once nothing changes, nothing is read (the ages still move: a local timer).
    const quietFrom = reads.length;
    const age = await row(page, "recent", ids[0]!).locator("td").nth(4).textContent();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(reads.length).toBe(quietFrom);
    await expect(row(page, "recent", ids[0]!).locator("td").nth(4).textContent()).resolves.not.toBe(age);

    // A launch's attempts and state changes, opened from its row.
    await row(page, "recent", ids[2]!).locator("th a").click();
    await page.waitForURL(new RegExp(`#/queue/${ids[2]}$`));
    const panel = page.locator("#launch-view");
    await eventually(() => panel.getByRole("heading", { level: 2 }).textContent()).toBe("q3");
    await expect(panel.locator(".launch-status").textContent()).resolves.toBe("State: succeeded");
    const attempts = panel.locator("table.attempts tbody tr");
    await expect(attempts.count()).resolves.toBe(1);
    await expect(attempts.first().getAttribute("data-outcome")).resolves.toBe("SUCCEEDED");
    const changes = await panel.locator("ol.transitions .transition").allTextContents();
    expect(changes).toEqual([
      "enqueued → queued",
      "queued → dispatched",
      "dispatched → running",
      "running → succeeded",
    ]);
    // A final launch has no cancel.
    await expect(panel.getByRole("button", { name: "Cancel launch" }).isHidden()).resolves.toBe(true);
  });

  it("the enqueue form queues a launch with its options; cancel from the UI ends it CANCELLED", async () => {
    await setGlobalCap(0);
    const page = await openPage("#/queue");
    const form = page.getByRole("form", { name: "Enqueue a launch" });
    await eventually(() => form.getByLabel("Workspace").inputValue()).toBe("demo");
    await form.getByLabel("Prompt").fill("from the queue form");
    await form.getByLabel("Priority").fill("70");
    await form.getByLabel("Timeout, seconds").fill("90");
    await form.getByLabel("Retries").fill("2");
    await form.getByLabel("Dedup key").fill("ui-form-1");
    await form.getByRole("button", { name: "Enqueue" }).click();

    await eventually(() => rows(page, "waiting").count()).toBe(1);
    const id = (await rows(page, "waiting").first().getAttribute("data-launch-id")) ?? "";
    expect(await stored(id)).toEqual({
      state: "QUEUED",
      priority: 70,
      dedupKey: "ui-form-1",
      timeoutMs: 90_000,
      retry: { maxAttempts: 3 },
      spec: { prompt: "from the queue form" },
    });
    const waiting = row(page, "waiting", id);
    await eventually(() => waiting.locator("td.wait").textContent()).toMatch(
      /^cap global: 0 of 0 runs in use/,
    );
    await expect(waiting.locator("td").nth(3).textContent()).resolves.toBe("70");

    // Bad input is a typed error shown inline, naming the field; nothing is queued.
    await form.getByLabel("Prompt").fill("bad key");
    await form.getByLabel("Dedup key").fill("x".repeat(201));
    await form.getByRole("button", { name: "Enqueue" }).click();
    const alert = form.getByRole("alert");
    await eventually(() => alert.textContent()).toMatch(
      /^Enqueue failed: BAD_USER_INPUT: .*input\.dedupKey: /,
    );
    // Each invalid field is named once (the message already names it: no second list).
    expect((await alert.textContent())?.split("input.dedupKey").length).toBe(2);
    await expect(form.getByLabel("Dedup key").getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(rows(page, "waiting").count()).resolves.toBe(1);

    // Cancel: asks first; Escape-like "Cancel" changes nothing.
    const cancelButton = waiting.getByRole("button", { name: "Cancel launch" });
    await cancelButton.click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByRole("heading").textContent()).resolves.toBe(`Cancel launch ${id}?`);
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    expect((await stored(id))?.state).toBe("QUEUED");
    await cancelButton.click();
    await dialog.getByRole("button", { name: "Cancel launch" }).click();
    await eventually(() => row(page, "recent", id).getAttribute("data-state")).toBe("CANCELLED");
    await expect(row(page, "waiting", id).count()).resolves.toBe(0);
    await expect(row(page, "recent", id).locator(".badge").textContent()).resolves.toBe("cancelled");
    expect((await stored(id))?.state).toBe("CANCELLED");
  });

  it("cancel from the launch panel ends a waiting launch CANCELLED, and the panel follows it live", async () => {
    await setGlobalCap(0);
    const id = await enqueue({ prompt: "wait in the panel", label: "panel-one" });
    const page = await openPage(`#/queue/${id}`);
    const panel = page.locator("#launch-view");
    await eventually(() => panel.locator(".launch-status").textContent()).toMatch(
      /^State: queued · position 1 · cap global: 0 of 0/,
    );
    await panel.getByRole("button", { name: "Cancel launch" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel launch" }).click();
    await eventually(() => panel.locator(".launch-status").textContent()).toMatch(/^State: cancelled/);
    await expect(panel.getByRole("button", { name: "Cancel launch" }).isHidden()).resolves.toBe(true);
    await eventually(() => panel.locator("ol.transitions .transition").allTextContents()).toEqual([
      "enqueued → queued",
      "queued → cancelled",
    ]);
    expect((await stored(id))?.state).toBe("CANCELLED");
  });

  it("a viewer token sees the queue but no cancel, enqueue or schedule button", async () => {
    await setGlobalCap(0);
    const id = await enqueue({ prompt: "seen by a viewer", label: "viewer-sees" });
    const created = await gqlOk<{ createSchedule: { __typename: string } }>(
      `mutation { createSchedule(input: { name: "viewer-sched", workspace: "demo", cron: "0 0 1 1 *",
        template: { prompt: "yearly" } }) { __typename } }`,
    );
    expect(created.createSchedule.__typename).toBe("CreateSchedulePayload");
    const page = await openPage("#/queue", viewerToken);
    await expect(page.locator("#whoami-name").textContent()).resolves.toMatch(/\(viewer\)/);
    await eventually(() => row(page, "waiting", id).locator("td.wait").textContent()).toMatch(/^cap global/);
    const schedule = page.locator("table.schedules tbody tr[data-schedule-id]", { hasText: "viewer-sched" });
    await schedule.waitFor();
    await expect(page.locator("#queue").getByRole("button").count()).resolves.toBe(0);
    await expect(page.getByRole("form", { name: "Enqueue a launch" }).count()).resolves.toBe(0);
    await page.evaluate((hash) => (location.hash = hash), `#/queue/${id}`);
    const panel = page.locator("#launch-view");
    await eventually(() => panel.locator(".launch-status").textContent()).toMatch(/^State: queued/);
    await expect(panel.getByRole("button", { name: "Cancel launch" }).isHidden()).resolves.toBe(true);

    // The same queue for the admin: the buttons are there.
    const admin = await context!.browser()!.newContext();
    try {
      const p2 = await admin.newPage();
      await p2.goto(`${h.url}/?token=${encodeURIComponent(h.token)}#/queue`);
      await p2
        .locator(`table.waiting tr[data-launch-id="${id}"]`)
        .getByRole("button", { name: "Cancel launch" })
        .waitFor();
      await p2
        .locator("table.schedules tbody tr", { hasText: "viewer-sched" })
        .getByRole("button", { name: "Pause schedule viewer-sched" })
        .waitFor();
    } finally {
      await admin.close();
    }
  });

  it("schedules: listed live with their next fire time; pause, resume and run now from the UI", async () => {
    await setGlobalCap(0);
    const page = await openPage("#/queue");
    await page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes"));
    const r = await gqlOk<{ createSchedule: { schedule: { scheduleId: string; nextFireAt: string } } }>(
      `mutation { createSchedule(input: { name: "nightly-ui", workspace: "demo", cron: "30 2 * * *",
        timeZone: "UTC", template: { prompt: "nightly fake:hold=10", label: "nightly" } }) {
        ... on CreateSchedulePayload { schedule { scheduleId nextFireAt } } } }`,
    );
    const { scheduleId, nextFireAt } = r.createSchedule.schedule;
    const schedule = page.locator(`table.schedules tr[data-schedule-id="${scheduleId}"]`);
    await schedule.waitFor();
    const next = schedule.locator("td.next-fire");
    await expect(next.textContent()).resolves.toMatch(/\(in \d+h \d+m\)$|\(in \d+m \d+s\)$/);
    expect(Date.parse(nextFireAt)).toBeGreaterThan(Date.now());
    await expect(schedule.locator("td").nth(1).textContent()).resolves.toBe("30 2 * * * (UTC)");

    await schedule.getByRole("button", { name: "Pause schedule nightly-ui" }).click();
    await eventually(() => schedule.getAttribute("data-paused")).toBe("true");
    await expect(next.textContent()).resolves.toBe("paused");
    // The focus stays on the same (relabelled) button.
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Resume");
    await schedule.getByRole("button", { name: "Resume schedule nightly-ui" }).click();
    await eventually(() => schedule.getAttribute("data-paused")).toBe("false");
    await eventually(() => next.textContent()).toMatch(/\(in /);

    await schedule.getByRole("button", { name: "Run schedule nightly-ui now" }).click();
    await eventually(async () => {
      const l = await gqlOk<{ launches: { edges: { node: { launchId: string } }[] } }>(
        `query($s: String!) { launches(filter: { scheduleId: $s }) { edges { node { launchId } } } }`,
        { s: scheduleId },
      );
      return l.launches.edges.length;
    }).toBe(1);
    await eventually(() => rows(page, "waiting").allTextContents()).toEqual([
      expect.stringContaining("nightly"),
    ]);
    await expect(schedule.locator("td").nth(3).textContent()).resolves.not.toBe("never");
    expect(await page.evaluate(() => document.body.getAttribute("data-loaded-once"))).toBe("yes");
  });

  it("after the socket drops, the queue is read again: a launch enqueued while offline appears", async () => {
    await setGlobalCap(0);
    context = await newContext();
    const page = await context.newPage();
    errors = watchErrors(page);
    const routes: WebSocketRoute[] = [];
    let refuse = false;
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      routes.push(ws);
      // While refusing, a reconnect is closed at once (the page stays offline).
      if (refuse) void ws.close({ code: 1001, reason: "test keeps the page offline" });
      else ws.connectToServer();
    });
    await page.goto(`${h.url}/?token=${encodeURIComponent(h.token)}#/queue`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    await expect.poll(() => page.getByText("Loading the queue…").isHidden()).toBe(true);
    await expect(rows(page, "waiting").count()).resolves.toBe(0);

    refuse = true;
    await routes[0]?.close({ code: 1001, reason: "test drops the connection" });
    await eventually(() => page.getByRole("status").textContent()).toBe("Connection lost, reconnecting…");
    const id = await enqueue({ prompt: "enqueued while the page was offline", label: "offline" });
    // Reconnects are refused until now: its LaunchChanged reached no page, only a new read shows it.
    await eventually(() => routes.length).toBeGreaterThanOrEqual(2);
    refuse = false;
    await eventually(() => page.getByRole("status").textContent()).toBe("Live");
    await eventually(() => row(page, "waiting", id).locator("td.wait").textContent()).toMatch(/^cap global/);
  });

  it("recent launches show a timeout and a retried attempt; the panel lists both attempts", async () => {
    const page = await openPage("#/queue");
    const timedOut = await enqueue({ prompt: "too slow fake:hold=60000", label: "slow", timeoutMs: 1000 });
    const retried = await enqueue({
      prompt: `flaky ${Date.now()} fake:provider-error=429 fake:fail-first=1`,
      label: "flaky",
      retry: { maxAttempts: 3, backoffMs: 100 },
    });
    await eventually(() => row(page, "recent", timedOut).getAttribute("data-state"), 30_000).toBe(
      "TIMED_OUT",
    );
    await expect(row(page, "recent", timedOut).locator(".badge").textContent()).resolves.toBe("timed out");
    await eventually(() => row(page, "recent", retried).getAttribute("data-state"), 30_000).toBe("SUCCEEDED");
    await expect(row(page, "recent", retried).locator("td").nth(2).textContent()).resolves.toBe(
      "2/3 (retried)",
    );

    await row(page, "recent", retried).locator("th a").click();
    const panel = page.locator("#launch-view");
    const attempts = panel.locator("table.attempts tbody tr");
    await eventually(() => attempts.count()).toBe(2);
    await expect(attempts.nth(0).getAttribute("data-outcome")).resolves.toBe("FAILED");
    await expect(attempts.nth(0).textContent()).resolves.toMatch(/transient/);
    await expect(attempts.nth(1).getAttribute("data-outcome")).resolves.toBe("SUCCEEDED");
    await expect(attempts.nth(0).locator("th").textContent()).resolves.toBe("1/3");
  });
});
