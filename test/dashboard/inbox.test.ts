/**
 * The dashboard's inbox in a real browser (Debian's headless Chromium through playwright-core)
 * against a real gateway started in-process with the caliband double and its real inbox: the
 * header badge counts what needs a person live on every view; an interactive agent's question is
 * answered from the inbox and the agent resumes with the answer; a plan is approved; a failed run
 * is acknowledged; an item is snoozed; a viewer sees the items but no action; an action on an item
 * closed meanwhile shows the gateway's error, and a typed draft is never thrown away.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page, WebSocketRoute } from "playwright-core";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { FAKE_PLAN, FAKE_QUESTION } from "../support/fake-scripts.js";
import { ensureDashboardBuilt, launchChromium, watchErrors } from "./support.js";

let browser: Browser;
let h: AppHarness;
let viewerToken: string;
let context: BrowserContext | undefined;
let errors: string[] = [];
/** Agents a test spawned (their input is ended afterwards so nothing waits into the next test). */
let spawned: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  [browser, h] = await Promise.all([launchChromium(), startAppHarness()]);
  viewerToken = await h.createToken({ name: "inbox-viewer", role: "VIEWER" });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  for (const id of spawned) {
    await h.gql(`mutation($id: String!) { endAgentInput(input: { agentId: $id }) { __typename } }`, { id });
  }
  spawned = [];
  // Nothing left open for the next test (an ended run resolves its question by itself).
  for (const item of await inboxItems()) {
    await h.gql(`mutation($item: ID!) { dismissInboxItem(input: { item: $item }) { __typename } }`, {
      item: item.itemId,
    });
  }
  await eventually(async () => (await inboxItems()).length).toBe(0);
  expect(errors).toEqual([]);
  errors = [];
});

/** Run an operation as `token` (default admin) and return its data; GraphQL errors fail the test. */
async function gqlOk<T>(query: string, variables?: Record<string, unknown>, token?: string): Promise<T> {
  const r = await h.gql<T>(query, variables, token);
  if (r.errors?.length || !r.data) throw new Error(`GraphQL failed: ${JSON.stringify(r)}`);
  return r.data;
}

interface StoredItem {
  itemId: string;
  kind: string;
  state: string;
  body: string;
  resolution: string | null;
  closedBy: string | null;
  agent: { agentId: string } | null;
}

const ITEM_FIELDS = "itemId kind state body resolution closedBy agent { agentId }";

/** The OPEN and SNOOZED items, as the API lists them. */
async function inboxItems(): Promise<StoredItem[]> {
  const r = await gqlOk<{ inbox: { edges: { node: StoredItem }[] } }>(
    `{ inbox(first: 100) { edges { node { ${ITEM_FIELDS} } } } }`,
  );
  return r.inbox.edges.map((e) => e.node);
}

/** Every item of an agent, closed ones too. */
async function itemsOf(agentId: string): Promise<StoredItem[]> {
  const r = await gqlOk<{ inbox: { edges: { node: StoredItem }[] } }>(
    `query($a: String!) { inbox(first: 100, filter: { agentId: $a, states: [OPEN, SNOOZED, CLOSED] }) {
      edges { node { ${ITEM_FIELDS} } } } }`,
    { a: agentId },
  );
  return r.inbox.edges.map((e) => e.node);
}

/** The open item of `kind` of an agent, once the inbox opened it. */
async function openItem(agentId: string, kind: string): Promise<StoredItem> {
  let found: StoredItem | undefined;
  await eventually(async () => {
    found = (await inboxItems()).find((i) => i.agent?.agentId === agentId && i.kind === kind);
    return found !== undefined;
  }, 20_000).toBe(true);
  return found!;
}

async function spawn(
  prompt: string,
  extra = ", interactive: true",
): Promise<{ agentId: string; name: string }> {
  const r = await gqlOk<{ spawnAgent: { agent?: { agentId: string; name: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p ${extra} }) {
      ... on SpawnAgentPayload { agent { agentId name } } } }`,
    { p: prompt },
  );
  const agent = r.spawnAgent.agent;
  if (!agent) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  spawned.push(agent.agentId);
  return agent;
}

/** A fresh browser context whose waits fail (with a useful message) before the test times out. */
async function newContext(): Promise<BrowserContext> {
  const c = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  c.setDefaultTimeout(20_000);
  return c;
}

/** The dashboard signed in with `token` (default: the admin token), on `hash`, live. */
async function openPage(hash: string, token = h.token, setup?: (page: Page) => Promise<void>): Promise<Page> {
  context = await newContext();
  const page = await context.newPage();
  errors = watchErrors(page);
  await setup?.(page);
  await page.goto(`${h.url}/?token=${encodeURIComponent(token)}${hash}`);
  await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
  return page;
}

/** `expect.poll` with room for a loaded CI machine. */
const eventually = <T>(fn: () => T | Promise<T>, timeout = 15_000) => expect.poll(fn, { timeout });

const card = (page: Page, itemId: string) => page.locator(`#inbox li.inbox-item[data-item-id="${itemId}"]`);
const badge = (page: Page) => page.locator("#inbox-count");

/** What the badge shows: null while hidden, else its text and accessible name. */
async function badgeState(page: Page): Promise<{ text: string | null; label: string | null } | null> {
  const b = badge(page);
  if (await b.isHidden()) return null;
  return { text: await b.textContent(), label: await b.getAttribute("aria-label") };
}

/**
 * Record what the element with this id shows from now on (a MutationObserver in the page): the
 * badge's count ("0" while hidden), or the live region's text. Returns a reader of the record.
 */
async function record(page: Page, id: "inbox-count" | "announcer"): Promise<() => Promise<string[]>> {
  await page.evaluate((id) => {
    const el = document.getElementById(id)!;
    const read = () =>
      id === "inbox-count" ? (el.hidden ? "0" : (el.dataset["count"] ?? "")) : (el.textContent ?? "");
    const seen: string[] = [read()];
    (window as unknown as Record<string, string[]>)[`seen-${id}`] = seen;
    new MutationObserver(() => {
      const now = read();
      if (seen[seen.length - 1] !== now) seen.push(now);
    }).observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  }, id);
  return () => page.evaluate((id) => (window as unknown as Record<string, string[]>)[`seen-${id}`]!, id);
}

describe("dashboard inbox in Chromium", { timeout: 90_000 }, () => {
  it("a question: the badge counts it live on the fleet view; answered from the inbox, the agent resumes with the answer", async () => {
    const page = await openPage("#/");
    await page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes"));
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(badgeState(page)).resolves.toBeNull();
    await expect(nav.getByRole("link", { name: "Inbox", exact: true }).count()).resolves.toBe(1);

    const agent = await spawn("chat with me fake:ask");
    const item = await openItem(agent.agentId, "QUESTION");
    expect(item.body).toBe(FAKE_QUESTION);
    // Counted on the fleet view without a reload, and named for assistive technology.
    await eventually(() => badgeState(page)).toEqual({ text: "1", label: "1 item needs you" });
    await expect(nav.getByRole("link", { name: "Inbox 1 item needs you" }).count()).resolves.toBe(1);
    expect(await page.evaluate(() => document.body.getAttribute("data-loaded-once"))).toBe("yes");

    // Reached from the main navigation (keyboard).
    await nav.getByRole("link", { name: /^Inbox/ }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/#\/inbox$/);
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe("inbox-heading");
    await expect(nav.getByRole("link", { name: /^Inbox/ }).getAttribute("aria-current")).resolves.toBe(
      "page",
    );
    await expect(page.getByRole("heading", { name: "Agents" }).isHidden()).resolves.toBe(true);
    expect(await page.title()).toBe("Inbox · Prospero");

    // The question: kind, workspace, the agent (linked), its age, and the agent's last message.
    const q = card(page, item.itemId);
    await q.waitFor();
    await expect(q.getAttribute("data-kind")).resolves.toBe("QUESTION");
    await expect(q.locator(".inbox-kind").textContent()).resolves.toBe("Question");
    await expect(q.locator(".inbox-body").textContent()).resolves.toBe(FAKE_QUESTION);
    await expect(q.getByRole("button", { name: "Show more" }).count()).resolves.toBe(0);
    const meta = q.locator(".inbox-meta");
    await expect(meta.textContent()).resolves.toMatch(/^workspace demo · agent .+ · opened .+ ago$/);
    await expect(meta.getByRole("link", { name: agent.name }).getAttribute("href")).resolves.toBe(
      `#/agent/${agent.agentId}`,
    );
    await expect(page.locator(".inbox-summary").textContent()).resolves.toBe("1 needs you");

    const seen = await record(page, "inbox-count");
    const said = await record(page, "announcer");
    const answer = `Use vitest ${Date.now()}`;
    await q.getByLabel("Your answer").fill(answer);
    await q.getByRole("button", { name: `Send answer to ${agent.name}` }).click();
    // The item leaves, the badge drops to 0, the focus goes on (no item left: the heading).
    await eventually(() => card(page, item.itemId).count()).toBe(0);
    await eventually(async () => (await seen()).includes("0")).toBe(true);
    expect((await seen())[0]).toBe("1");
    // No item left (the agent's reply may be one already): the heading, or that item.
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toMatch(
      /^inbox-(heading|[0-9a-f]{12}-title)$/,
    );
    await eventually(() => said()).toContain(
      `Answer sent to ${agent.name}; the question from ${agent.name} is closed.`,
    );
    const closed = (await itemsOf(agent.agentId)).find((i) => i.itemId === item.itemId);
    expect(closed).toMatchObject({ state: "CLOSED", resolution: "ANSWERED", closedBy: expect.any(String) });

    // The agent resumed with the answer: its reply is the next question (live, a new item)…
    await eventually(
      async () =>
        (await itemsOf(agent.agentId)).find((i) => i.itemId !== item.itemId && i.state === "OPEN")?.body,
    ).toBe(`You said: ${answer}`);
    await eventually(() => badgeState(page)).toEqual({ text: "1", label: "1 item needs you" });
    // …and its timeline shows it.
    await page.evaluate((hash) => (location.hash = hash), `#/agent/${agent.agentId}`);
    const timeline = page.getByRole("region", { name: "Timeline" });
    await timeline.getByText(`You said: ${answer}`).waitFor();
    // The badge stays in the header on the agent view.
    await expect(badgeState(page)).resolves.toEqual({ text: "1", label: "1 item needs you" });
  });

  it("a plan: shown collapsed with Show more; Approve tells the agent to go ahead", async () => {
    const agent = await spawn("plan it fake:plan");
    const plan = await openItem(agent.agentId, "PLAN");
    expect(plan.body).toBe(FAKE_PLAN);
    const page = await openPage(`#/inbox/${plan.itemId}`);
    const p = card(page, plan.itemId);
    await p.waitFor();
    // Opened by its link: marked and focused.
    await expect(p.getAttribute("aria-current")).resolves.toBe("true");
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe(
      `inbox-${plan.itemId}-title`,
    );
    await expect(p.locator(".inbox-kind").textContent()).resolves.toBe("Plan");
    // No question while the plan waits (the agent's "Shall I go ahead?" is part of the plan item).
    await waitFor(() => h.app.fleet.state.agent(agent.agentId)?.status === "idle", 10_000, "idle");
    expect((await inboxItems()).filter((i) => i.agent?.agentId === agent.agentId).map((i) => i.kind)).toEqual(
      ["PLAN"],
    );

    const body = p.locator(".inbox-body");
    await expect(body.textContent()).resolves.toBe(FAKE_PLAN);
    await expect(body.getAttribute("data-collapsed")).resolves.toBe("true");
    const more = p.getByRole("button", { name: "Show more" });
    await expect(more.getAttribute("aria-expanded")).resolves.toBe("false");
    await more.click();
    await expect(body.getAttribute("data-collapsed")).resolves.toBe("false");
    await expect(p.getByRole("button", { name: "Show less" }).getAttribute("aria-expanded")).resolves.toBe(
      "true",
    );
    await expect(p.getByRole("textbox", { name: "Changes to the plan" }).count()).resolves.toBe(1);
    await expect(
      p.getByRole("button", { name: `Send changes to the plan of ${agent.name}` }).count(),
    ).resolves.toBe(1);

    await p.getByRole("button", { name: `Approve the plan of ${agent.name}` }).click();
    await eventually(() => card(page, plan.itemId).count()).toBe(0);
    const closed = (await itemsOf(agent.agentId)).find((i) => i.itemId === plan.itemId);
    expect(closed).toMatchObject({ state: "CLOSED", resolution: "APPROVED" });
    await page.evaluate((hash) => (location.hash = hash), `#/agent/${agent.agentId}`);
    await page
      .getByRole("region", { name: "Timeline" })
      .getByText(/^You said: .*go ahead/i)
      .waitFor();
  });

  it("a failed run is acknowledged; a question snoozed for an hour moves to Snoozed and leaves the count", async () => {
    const failed = await spawn("doomed fake:provider-error=401", "");
    const asking = await spawn("chat fake:ask");
    const failure = await openItem(failed.agentId, "RUN_FAILED");
    const question = await openItem(asking.agentId, "QUESTION");
    const page = await openPage("#/inbox");
    await eventually(() => badgeState(page)).toEqual({ text: "2", label: "2 items need you" });
    const f = card(page, failure.itemId);
    await f.waitFor();
    await expect(f.locator(".inbox-kind").textContent()).resolves.toBe("Run failed");
    await expect(f.locator(".inbox-body").textContent()).resolves.toMatch(/401/);
    await expect(f.getByRole("textbox").count()).resolves.toBe(0);
    await f.getByRole("button", { name: `Acknowledge failure of ${failed.name}` }).click();
    await eventually(() => card(page, failure.itemId).count()).toBe(0);
    await eventually(() => badgeState(page)).toEqual({ text: "1", label: "1 item needs you" });
    expect((await itemsOf(failed.agentId)).find((i) => i.itemId === failure.itemId)).toMatchObject({
      state: "CLOSED",
      resolution: "ACKNOWLEDGED",
    });

    const q = card(page, question.itemId);
    await q.getByRole("button", { name: `Snooze 1 hour: question from ${asking.name}` }).click();
    const snoozed = page.getByRole("region", { name: "Snoozed" });
    await eventually(() => q.getAttribute("data-state")).toBe("SNOOZED");
    await expect(snoozed.locator(`li[data-item-id="${question.itemId}"]`).count()).resolves.toBe(1);
    await expect(q.locator(".inbox-meta").textContent()).resolves.toMatch(
      /snoozed until .* \(in (59m|1h 0m)/,
    );
    await eventually(() => badgeState(page)).toBeNull();
    await expect(page.locator(".inbox-summary").textContent()).resolves.toBe("0 need you · 1 snoozed");
    await expect(page.getByText("Nothing needs you.").isVisible()).resolves.toBe(true);
    expect((await inboxItems()).find((i) => i.itemId === question.itemId)?.state).toBe("SNOOZED");

    await q.getByRole("button", { name: `Dismiss question from ${asking.name}` }).click();
    await eventually(() => card(page, question.itemId).count()).toBe(0);
    expect((await itemsOf(asking.agentId)).find((i) => i.itemId === question.itemId)).toMatchObject({
      state: "CLOSED",
      resolution: "DISMISSED",
    });
  });

  it("an alert opens, changes and clears live; its text from the monitor is shown as text, never as markup", async () => {
    const page = await openPage("#/inbox");
    await eventually(() => page.getByText("Nothing needs you.").isVisible()).toBe(true);
    const message =
      'daemon of workspace demo unreachable for 3 min (threshold 1 min): <img src=x onerror="window.pwned=1">';
    const raised = await h.app.inbox.raiseAlert({
      check: "daemon_unreachable",
      subject: "demo",
      workspace: "demo",
      agentId: null,
      title: "Daemon of workspace demo unreachable <b>now</b>",
      message,
    });
    const a = card(page, raised.id);
    await a.waitFor();
    await eventually(() => badgeState(page)).toEqual({ text: "1", label: "1 item needs you" });
    await expect(a.locator(".inbox-kind").textContent()).resolves.toBe("Alert");
    await expect(a.getByRole("heading").textContent()).resolves.toBe(
      "Daemon of workspace demo unreachable <b>now</b>",
    );
    await expect(a.locator(".inbox-body").textContent()).resolves.toBe(message);
    await expect(a.locator("img, b").count()).resolves.toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await expect(a.locator(".inbox-meta").textContent()).resolves.toMatch(
      /^workspace demo · check daemon unreachable · opened .+ ago$/,
    );
    await expect(a.getByRole("textbox").count()).resolves.toBe(0);
    await expect(
      a
        .getByRole("button", { name: "Acknowledge alert: Daemon of workspace demo unreachable <b>now</b>" })
        .count(),
    ).resolves.toBe(1);

    // The same condition, measured again: the card's body follows (UPDATED), still one item.
    await h.app.inbox.raiseAlert({
      check: "daemon_unreachable",
      subject: "demo",
      workspace: "demo",
      agentId: null,
      title: "Daemon of workspace demo unreachable <b>now</b>",
      message: "daemon of workspace demo unreachable for 5 min (threshold 1 min)",
    });
    await eventually(() => a.locator(".inbox-body").textContent()).toBe(
      "daemon of workspace demo unreachable for 5 min (threshold 1 min)",
    );
    await expect(page.locator("#inbox li.inbox-item").count()).resolves.toBe(1);

    // The check passes again: the alert closes by itself and leaves the page.
    await h.app.inbox.clearAlert("daemon_unreachable", "demo", "daemon of workspace demo reachable again");
    await eventually(() => card(page, raised.id).count()).toBe(0);
    await eventually(() => badgeState(page)).toBeNull();
  });

  it("a viewer token sees the items but no action", async () => {
    const agent = await spawn("chat fake:ask");
    const item = await openItem(agent.agentId, "QUESTION");
    const page = await openPage("#/inbox", viewerToken);
    await expect(page.locator("#whoami-name").textContent()).resolves.toMatch(/\(viewer\)/);
    const q = card(page, item.itemId);
    await q.waitFor();
    await expect(q.locator(".inbox-body").textContent()).resolves.toBe(FAKE_QUESTION);
    await eventually(() => badgeState(page)).toEqual({ text: "1", label: "1 item needs you" });
    await expect(page.locator("#inbox").getByRole("button").count()).resolves.toBe(0);
    await expect(page.locator("#inbox").getByRole("textbox").count()).resolves.toBe(0);

    // The same item for the admin: the controls are there.
    const admin = await context!.browser()!.newContext();
    try {
      const p2 = await admin.newPage();
      await p2.goto(`${h.url}/?token=${encodeURIComponent(h.token)}#/inbox`);
      await card(p2, item.itemId)
        .getByRole("button", { name: `Send answer to ${agent.name}` })
        .waitFor();
    } finally {
      await admin.close();
    }
  });

  it("answering an item closed meanwhile shows the gateway's error; the typed answer is kept until removed", async () => {
    const agent = await spawn("chat fake:ask");
    const item = await openItem(agent.agentId, "QUESTION");
    const routes: WebSocketRoute[] = [];
    let refuse = false;
    const reads = { inFlight: 0, last: Date.now() };
    const page = await openPage("#/inbox", h.token, async (pg) => {
      await pg.routeWebSocket(/\/graphql$/, (ws) => {
        routes.push(ws);
        // While refusing, a reconnect is closed at once (the page hears no live change).
        if (refuse) void ws.close({ code: 1001, reason: "test keeps the page offline" });
        else ws.connectToServer();
      });
      // The page's reads of the inbox (over HTTP: cutting the socket does not stop them).
      const isRead = (r: { postData(): string | null }) =>
        r.postData()?.includes("query DashboardInbox") ?? false;
      pg.on("request", (r) => {
        if (isRead(r)) [reads.inFlight, reads.last] = [reads.inFlight + 1, Date.now()];
      });
      const done = (r: { postData(): string | null }) => {
        if (isRead(r)) [reads.inFlight, reads.last] = [reads.inFlight - 1, Date.now()];
      };
      pg.on("requestfinished", done);
      pg.on("requestfailed", done);
    });
    const q = card(page, item.itemId);
    await q.waitFor();
    // The reads that follow the first subscription are done (a late one would see the close).
    await eventually(() => reads.inFlight === 0 && Date.now() - reads.last > 1_000).toBe(true);
    refuse = true;
    await routes[0]?.close({ code: 1001, reason: "test drops the connection" });
    await eventually(() =>
      page
        .getByRole("status")
        .filter({ hasText: /reconnecting/ })
        .count(),
    ).toBe(1);

    // Closed through the API while the page cannot hear it.
    const dismissed = await gqlOk<{ dismissInboxItem: { __typename: string } }>(
      `mutation($item: ID!) { dismissInboxItem(input: { item: $item }) { __typename } }`,
      { item: item.itemId },
    );
    expect(dismissed.dismissInboxItem.__typename).toBe("DismissInboxItemPayload");
    await q.getByLabel("Your answer").fill("too late");
    await q.getByRole("button", { name: `Send answer to ${agent.name}` }).click();
    const alert = q.getByRole("alert");
    await eventually(() => alert.textContent()).toMatch(/^Send failed: INVALID_STATE: .*closed/);
    await expect(alert.isVisible()).resolves.toBe(true);
    await expect(q.getByLabel("Your answer").getAttribute("aria-invalid")).resolves.toBeNull();
    // Nothing was sent to the agent.
    expect((await itemsOf(agent.agentId)).find((i) => i.itemId === item.itemId)?.resolution).toBe(
      "DISMISSED",
    );

    // Back online: the inbox is read again; the card holds a draft, so it stays, read-only, saying so.
    refuse = false;
    await eventually(() => page.getByRole("status").filter({ hasText: "Live" }).count(), 20_000).toBe(1);
    await eventually(() => q.locator(".inbox-closed").textContent(), 20_000).toMatch(
      /closed meanwhile.*Your text was not sent/,
    );
    await expect(q.getByLabel("Your answer").inputValue()).resolves.toBe("too late");
    await expect(q.getByLabel("Your answer").getAttribute("readonly")).resolves.toBe("");
    await expect(q.getByRole("button", { name: /^Send/ }).count()).resolves.toBe(0);
    await q.getByRole("button", { name: `Remove the closed question from ${agent.name}` }).click();
    await eventually(() => card(page, item.itemId).count()).toBe(0);
    await eventually(() => page.evaluate(() => document.activeElement?.id)).toBe("inbox-heading");
  });
});
