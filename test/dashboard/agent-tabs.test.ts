/**
 * The agent view's tabs in a real browser (Debian's headless Chromium through playwright-core)
 * against a real gateway started in-process with the caliband double (issue 16 item 5): the
 * tablist by keyboard and in the URL hash, the timeline's one-line tool calls and collapsed long
 * text, the changes tab of the double's `fake:edit` run (file list, diff2html, "Create branch"
 * with its typed errors, live while the run goes on), what a viewer sees, and the report tab
 * (the numbers of `Agent.report`, live at the run's end, "Copy markdown").
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { git } from "../support/temp-workspace.js";
import {
  formatCost,
  formatDuration,
  formatInt,
  formatOutcome,
  formatTokens,
} from "../../src/format/index.js";
import { ensureDashboardBuilt, launchChromium, watchErrors } from "./support.js";

let browser: Browser;
let h: AppHarness;
let context: BrowserContext | undefined;
let errors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  [browser, h] = await Promise.all([launchChromium(), startAppHarness()]);
  // fake:edit removes this file: its runs add, modify and delete one file each.
  fs.writeFileSync(path.join(h.d.ws.root, "OBSOLETE.txt"), "to be removed\n");
  git(h.d.ws.root, ["add", "OBSOLETE.txt"]);
  git(h.d.ws.root, ["commit", "-q", "-m", "an obsolete file"]);
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

/** `expect.poll` with room for a loaded CI machine. */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

async function openPage(
  hash: string,
  opts: { token?: string; width?: number; clipboard?: boolean; dark?: boolean } = {},
): Promise<Page> {
  context = await browser.newContext({
    viewport: { width: opts.width ?? 1400, height: 900 },
    colorScheme: opts.dark ? "dark" : "light",
  });
  context.setDefaultTimeout(20_000);
  if (opts.clipboard)
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.url });
  const page = await context.newPage();
  errors = watchErrors(page);
  await page.goto(`${h.url}/?token=${encodeURIComponent(opts.token ?? h.token)}${hash}`);
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

interface Capture {
  terminal: boolean;
  changes: {
    state: string;
    reason: string | null;
    final: boolean;
    applied: { branch: string } | null;
    fileCount: number;
    headCommit: string | null;
    files: {
      edges: { node: { path: string; status: string; additions: number | null; deletions: number | null } }[];
    };
  };
}

async function capture(id: string): Promise<Capture> {
  const r = await h.gql<{ agent: Capture }>(
    `query($id: String!) { agent(agentId: $id) { terminal changes { state reason final fileCount headCommit applied { branch }
      files(first: 500) { edges { node { path status additions deletions } } } } } }`,
    { id },
  );
  if (!r.data?.agent) throw new Error(JSON.stringify(r));
  return r.data.agent;
}

/**
 * The run ended and its capture settled: the final snapshot, or the last one with the reason
 * there is no final one (the worktree was removed first).
 */
const settled = (c: Capture) =>
  c.terminal && c.changes.state === "CAPTURED" && (c.changes.final || c.changes.reason !== null);

/** A finished `fake:edit` run whose capture settled. */
async function finishedEditRun(): Promise<{ id: string; capture: Capture }> {
  const id = await spawn("edit the notes fake:edit");
  const c = await waitFor(
    async () => {
      const c = await capture(id);
      return settled(c) ? c : null;
    },
    30_000,
    "the run's end and its last snapshot",
    100,
  );
  return { id, capture: c };
}

let edited: Promise<{ id: string; capture: Capture }> | null = null;
/** One finished `fake:edit` run shared by the tests that only read it. */
const sharedEditRun = () => (edited ??= finishedEditRun());

const tab = (page: Page, name: string) =>
  page.getByRole("tablist", { name: "Agent views" }).getByRole("tab", { name });
const panel = (page: Page, name: string) => page.getByRole("tabpanel", { name });

describe("agent view tabs", { timeout: 90_000 }, () => {
  it("are a keyboard-navigable tablist whose selected tab is in the URL hash", async () => {
    const id = await spawn("quick");
    const page = await openPage(`#/agent/${id}`);
    const timeline = tab(page, "Timeline");
    await expect(timeline.getAttribute("aria-selected")).resolves.toBe("true");
    await expect(tab(page, "Changes").getAttribute("tabindex")).resolves.toBe("-1");
    await expect(panel(page, "Timeline").isVisible()).resolves.toBe(true);
    await expect(panel(page, "Changes").isHidden()).resolves.toBe(true);

    await timeline.focus();
    await page.keyboard.press("ArrowRight");
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? "");
    await expect(focused()).resolves.toBe("Changes");
    await expect(tab(page, "Changes").getAttribute("aria-selected")).resolves.toBe("true");
    await expect(panel(page, "Changes").isVisible()).resolves.toBe(true);
    await expect(panel(page, "Timeline").isHidden()).resolves.toBe(true);
    expect(new URL(page.url()).hash).toBe(`#/agent/${id}/changes`);
    // Choosing a tab leaves focus on it (the view does not jump to its heading).
    await page.keyboard.press("ArrowRight");
    await expect(focused()).resolves.toBe("Report");
    expect(new URL(page.url()).hash).toBe(`#/agent/${id}/report`);
    await page.keyboard.press("ArrowRight");
    await expect(focused()).resolves.toBe("Timeline");
    expect(new URL(page.url()).hash).toBe(`#/agent/${id}`);
    await page.keyboard.press("ArrowLeft");
    await expect(focused()).resolves.toBe("Report");
    await page.keyboard.press("Home");
    await expect(focused()).resolves.toBe("Timeline");
    await page.keyboard.press("End");
    await expect(focused()).resolves.toBe("Report");
    await expect(panel(page, "Report").isVisible()).resolves.toBe(true);
    // The selected tab comes back from the hash (a link, a reload).
    await page.waitForLoadState("networkidle");
    await page.reload();
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    await expect(tab(page, "Report").getAttribute("aria-selected")).resolves.toBe("true");
    await expect(panel(page, "Report").isVisible()).resolves.toBe(true);
    await page.evaluate((hash) => (location.hash = hash), `#/agent/${id}/changes`);
    await eventually(() => tab(page, "Changes").getAttribute("aria-selected")).toBe("true");
  });

  it("the timeline shows a tool call on one line at 420 px, expandable to its input and result", async () => {
    const { id } = await sharedEditRun();
    const page = await openPage(`#/agent/${id}`, { width: 420 });
    const note = `notes/fake-${id}.md`;
    const tool = page
      .getByRole("region", { name: "Timeline" })
      .locator("li.entry-tool", { has: page.locator(".tool-name", { hasText: "Write" }) });
    await tool.waitFor();
    const summary = tool.locator("summary");
    // Its line would wrap at this width ("tool Write notes/fake-<id>.md ok · 1.2 s").
    await expect(summary.textContent()).resolves.toMatch(new RegExp(`^tool Write ${note} ok · `));
    await expect(tool.locator("details").evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(
      false,
    );
    await expect(tool.locator(".tool-input").isVisible()).resolves.toBe(false);
    const lines = () =>
      summary.evaluate((s) =>
        Math.round(s.getBoundingClientRect().height / parseFloat(getComputedStyle(s).lineHeight)),
      );
    await expect(lines()).resolves.toBe(1);
    await summary.click();
    await expect(tool.locator(".tool-input").isVisible()).resolves.toBe(true);
    expect(JSON.parse((await tool.locator(".tool-input").textContent()) ?? "null")).toEqual({
      file_path: note,
      content: expect.stringContaining(`# Notes of fake agent ${id}`),
    });
    await expect(tool.locator(".tool-result").textContent()).resolves.toBe(
      `File created successfully at: ${note}`,
    );
    // Expanded, the summary wraps instead of cutting the line.
    await expect(lines()).resolves.toBeGreaterThan(1);
  });

  it("a long prompt and a long message are collapsed after six lines, with Show more", async () => {
    const prompt = Array.from({ length: 30 }, (_, i) => `line ${i} of a long prompt`).join("\n");
    // fake:frames=300 streams 300 chunks into one message of turn 0: far more than six lines.
    const id = await spawn(`${prompt}\nfake:frames=300`);
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "done", 15_000, "done");
    const page = await openPage(`#/agent/${id}`);
    const box = page.locator(".facts .collapsible");
    await box.waitFor();
    await expect(box.locator(".prompt").textContent()).resolves.toBe(`${prompt}\nfake:frames=300`);
    const more = box.getByRole("button", { name: "Show more" });
    await expect(more.getAttribute("aria-expanded")).resolves.toBe("false");
    // Measured in one step inside the page: a fleet change redraws the facts, and an element
    // resolved by one protocol call can be detached by the next (CI once measured a detached one).
    const size = () =>
      page.evaluate(() => {
        const p = document.querySelector<HTMLElement>(".facts .collapsible .prompt");
        if (!p) return null;
        return {
          shown: Math.round(p.clientHeight / parseFloat(getComputedStyle(p).lineHeight)),
          whole: p.scrollHeight > p.clientHeight + 2,
        };
      });
    await expect(size()).resolves.toEqual({ shown: 6, whole: true });
    await more.click();
    const less = box.getByRole("button", { name: "Show less" });
    await expect(less.getAttribute("aria-expanded")).resolves.toBe("true");
    await expect(size().then((s) => s?.whole)).resolves.toBe(false);
    // Any fleet change redraws the facts (another run starting here): the prompt stays expanded.
    const before = await less.elementHandle();
    const other = await spawn("another run while the prompt is open");
    await eventually(() => before?.evaluate((b) => b.isConnected)).toBe(false);
    await expect(less.getAttribute("aria-expanded")).resolves.toBe("true");
    await eventually(() => size().then((s) => s?.whole)).toBe(false);
    // The other run's changes keep redrawing the facts while it runs: read sizes once it is done.
    await waitFor(() => h.app.fleet.state.agent(other)?.status === "done", 15_000, "the other run done");
    await less.click();
    await eventually(size).toEqual({ shown: 6, whole: true });

    const message = page
      .getByRole("region", { name: "Timeline" })
      .locator("li.entry-text .collapsible", { hasText: "chunk-299" });
    await message.waitFor();
    await expect(message.getAttribute("data-collapsed")).resolves.toBe("true");
    await message.getByRole("button", { name: "Show more" }).click();
    await expect(message.getAttribute("data-collapsed")).resolves.toBe("false");
    // A short message is not collapsed.
    const short = page.getByRole("region", { name: "Timeline" }).locator("li.entry-text", {
      hasText: "The README says hello. Done.",
    });
    await expect(short.locator(".collapsible").count()).resolves.toBe(0);
  });

  it("the changes tab shows the run's files and its diff (diff2html), line by line at 420 px", async () => {
    const { id, capture: c } = await sharedEditRun();
    const files = c.changes.files.edges.map((e) => e.node);
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ["OBSOLETE.txt", "DELETED"],
      ["README.md", "MODIFIED"],
      [`notes/fake-${id}.md`, "ADDED"],
    ]);
    const page = await openPage(`#/agent/${id}/changes`, { width: 420 });
    const changes = panel(page, "Changes");
    const rows = changes.locator("table.changed-files tbody tr");
    await eventually(() => rows.count()).toBe(files.length);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        path: tr.querySelector("th")?.textContent,
        status: tr.querySelector(".file-status")?.textContent,
        nums: [...tr.querySelectorAll("td.num")].map((td) => td.textContent).join(" "),
      })),
    );
    expect(shown).toEqual(
      files.map((f) => ({
        path: f.path,
        status: f.status.toLowerCase().replace(/_/g, " "),
        nums: f.additions === null ? "binary" : `+${f.additions} \u2212${f.deletions}`,
      })),
    );
    const headline = changes.locator(".changes-headline");
    await expect(headline.textContent()).resolves.toMatch(
      new RegExp(`^${files.length} files changed, \\+\\d+ \u2212\\d+$`),
    );
    // diff2html's table, one column at this width, one file wrapper per file with text.
    const diff = changes.locator(".diff");
    await diff.locator("table.d2h-diff-table").first().waitFor();
    await expect(diff.getAttribute("data-format")).resolves.toBe("line-by-line");
    await expect(diff.locator(".d2h-file-side-diff").count()).resolves.toBe(0);
    const readme = diff.locator('.diff-file[data-path="README.md"]');
    await expect(readme.locator(".d2h-file-name").textContent()).resolves.toBe("README.md");
    await expect(readme.locator("td.d2h-ins").count()).resolves.toBeGreaterThan(0);
    // Nothing wider than the viewport but the diff's own scroller.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(overflow).toBeLessThanOrEqual(420);
  });

  it("Create branch shows the typed errors for a bad and an existing name, then makes the branch", async () => {
    const { id, capture: c } = await sharedEditRun();
    const page = await openPage(`#/agent/${id}/changes`);
    const form = page.getByRole("form", { name: "Create a branch from these changes" });
    const name = form.getByLabel("Branch name");
    const alert = form.getByRole("alert");
    // Let the tab's first reads settle before typing (CI once saw no alert after the click; a
    // re-read racing the click is suspected, not proven).
    await page.waitForLoadState("networkidle");
    await name.fill("bad..name");
    await form.getByRole("button", { name: "Create branch" }).click();
    await eventually(() => alert.textContent()).toBe(
      "Create branch failed: BAD_USER_INPUT: git refuses it as a branch name",
    );
    // A live ChangesCaptured item for this run re-reads the tab: the typed name and the error stay.
    const reread = page.waitForResponse(
      (r) => r.url().includes("/graphql") && r.request().method() === "POST",
    );
    await h.app.store.append([
      {
        kind: "changes_captured",
        payload: {
          state: "CAPTURED",
          reason: null,
          baseCommit: null,
          headCommit: c.changes.headCommit,
          trigger: "RUN_END",
          turnIndex: null,
          files: c.changes.fileCount,
          additions: 0,
          deletions: 0,
          skippedFiles: 0,
          final: true,
        },
        workspace: "demo",
        agentId: id,
        tsMs: Date.now(),
      },
    ]);
    await reread;
    await page.waitForLoadState("networkidle");
    await expect(name.inputValue()).resolves.toBe("bad..name");
    await expect(alert.textContent()).resolves.toBe(
      "Create branch failed: BAD_USER_INPUT: git refuses it as a branch name",
    );
    // A branch that exists: the workspace's own current branch.
    const current = git(h.d.ws.root, ["rev-parse", "--abbrev-ref", "HEAD"]).trim();
    await name.fill(current);
    await form.getByRole("button", { name: "Create branch" }).click();
    await eventually(() => alert.textContent()).toMatch(/^Create branch failed: CONFLICT: /);
    expect(git(h.d.ws.root, ["branch", "--list", "from-the-dashboard"]).trim()).toBe("");

    await name.fill("from-the-dashboard");
    await form.getByRole("button", { name: "Create branch" }).click();
    const applied = panel(page, "Changes").locator(".applied");
    await eventually(() => applied.locator(".applied-branch").textContent()).toBe("from-the-dashboard");
    await expect(form.count()).resolves.toBe(0);
    expect(git(h.d.ws.root, ["rev-parse", "refs/heads/from-the-dashboard"]).trim()).toBe(
      c.changes.headCommit,
    );
    // It stays shown after a reload (it is the stored capture's).
    await page.waitForLoadState("networkidle");
    await page.reload();
    await eventually(() => applied.locator(".applied-branch").textContent()).toBe("from-the-dashboard");
  });

  it("a viewer sees the changes but no Create branch form", async () => {
    // A run of its own: not applied, so an operator would see the form.
    const { id, capture: c } = await finishedEditRun();
    expect(c.changes.applied).toBeNull();
    const viewer = await h.createToken({ name: "watcher", role: "VIEWER" });
    const page = await openPage(`#/agent/${id}/changes`, { token: viewer });
    const changes = panel(page, "Changes");
    await eventually(() => changes.locator("table.changed-files tbody tr").count()).toBe(
      c.changes.files.edges.length,
    );
    await expect(changes.getByRole("form").count()).resolves.toBe(0);
    await expect(changes.getByRole("button", { name: "Create branch" }).count()).resolves.toBe(0);
    await context?.close();
    expect(errors).toEqual([]);
    // The same run as an operator: the form is there.
    const operator = await h.createToken({ name: "hands", role: "OPERATOR" });
    const again = await openPage(`#/agent/${id}/changes`, { token: operator });
    await panel(again, "Changes").getByRole("button", { name: "Create branch" }).waitFor();
  });

  it("the changes and report tabs follow a run live: new snapshots and its end", async () => {
    // No frame for 6 s: the page is open before the run's first changes (at the end of turn 0).
    const id = await spawn("edit live fake:edit fake:delay=6000 fake:hold=60000");
    const page = await openPage(`#/agent/${id}/changes`);
    const changes = panel(page, "Changes");
    const headline = changes.locator(".changes-headline");
    // Before turn 0 ends: no snapshot yet, or the one at the start of the run (no changes).
    await eventually(() => headline.textContent()).toMatch(/^(No snapshot yet|No changes): /);
    // Turn 0 and 1's snapshots arrive while the view is open (ChangesCaptured items, no polling).
    await eventually(() => headline.textContent()).toMatch(/^3 files changed, /);
    await expect(changes.locator(".not-final").textContent()).resolves.toMatch(
      /^Not final: the run is still going; these are its changes at the end of turn [01]\.$/,
    );
    await tab(page, "Report").click();
    const report = panel(page, "Report");
    await eventually(() => report.locator(".report-headline").textContent()).toBe(
      "The run is still going: this is its report so far.",
    );
    await expect(report.locator('dd[data-fact="duration"]').textContent()).resolves.toMatch(/ \(so far\)$/);
    h.d.daemon.agent(id)?.release();
    await eventually(() => report.locator(".report-headline").textContent()).toBe("The run has ended.");
    const c = await waitFor(async () => {
      const c = await capture(id);
      return settled(c) ? c : null;
    });
    await tab(page, "Changes").click();
    const note = async () =>
      (await changes.locator(".not-final").count()) ? changes.locator(".not-final").textContent() : null;
    await eventually(note).toBe(c.changes.final ? null : `Not final: ${c.changes.reason}`);
    await expect(changes.locator("table.changed-files tbody tr").count()).resolves.toBe(c.changes.fileCount);
  });

  it("a long diff comes in pages (Load more), readable in dark mode", async () => {
    // Interactive: after its last turn it waits for input, its worktree still there for the snapshot.
    const id = await spawn("edit many fake:edit fake:hold=60000", ", interactive: true");
    await waitFor(async () => (await capture(id)).changes.fileCount === 3, 15_000, "turn 1's snapshot");
    // While the run holds before its last turn, 25 more files appear in its worktree.
    const dir = h.d.daemon.record(id)?.working_dir ?? "";
    fs.mkdirSync(path.join(dir, "extra"));
    for (let i = 0; i < 25; i++)
      fs.writeFileSync(path.join(dir, "extra", `f-${String(i).padStart(2, "0")}.txt`), `file ${i}\n`);
    h.d.daemon.agent(id)?.release();
    const c = await waitFor(
      async () => {
        const c = await capture(id);
        return c.changes.fileCount === 28 ? c : null;
      },
      20_000,
      "turn 2's snapshot",
    );
    const page = await openPage(`#/agent/${id}/changes`, { dark: true });
    const changes = panel(page, "Changes");
    await eventually(() => changes.locator("table.changed-files tbody tr").count()).toBe(28);
    const files = changes.locator(".diff .diff-file");
    await expect(files.count()).resolves.toBe(20);
    const more = changes.getByRole("button", { name: /^Load more/ });
    await expect(more.textContent()).resolves.toBe("Load more (20 of 28 files shown)");
    await more.click();
    await eventually(() => files.count()).toBe(28);
    await expect(more.isHidden()).resolves.toBe(true);
    const paths = await files.evaluateAll((els) => els.map((e) => e.getAttribute("data-path")));
    expect(paths).toEqual(c.changes.files.edges.map((e) => e.node.path));

    // diff2html's dark scheme on our dark surface: added lines' text contrasts with their background.
    const colors = await changes
      .locator(".diff td.d2h-ins .d2h-code-line-ctn")
      .first()
      .evaluate((el) => {
        const rgba = (c: string) => {
          const [r = 0, g = 0, b = 0, a = 1] = (c.match(/[\d.]+/g) ?? []).map(Number);
          return { r, g, b, a };
        };
        // The background seen behind `el`: its own and its ancestors' layers, composited.
        const layers: ReturnType<typeof rgba>[] = [];
        for (let n: Element | null = el; n; n = n.parentElement) {
          const c = rgba(getComputedStyle(n).backgroundColor);
          if (c.a > 0) layers.push(c);
          if (c.a >= 1) break;
        }
        const bg = layers.reverse().reduce(
          (under, c) => ({
            r: c.r * c.a + under.r * (1 - c.a),
            g: c.g * c.a + under.g * (1 - c.a),
            b: c.b * c.a + under.b * (1 - c.a),
          }),
          { r: 255, g: 255, b: 255 },
        );
        const lum = ({ r, g, b }: { r: number; g: number; b: number }) => {
          const [R = 0, G = 0, B = 0] = [r, g, b].map((v) => {
            const s = v / 255;
            return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * R + 0.7152 * G + 0.0722 * B;
        };
        const fg = lum(rgba(getComputedStyle(el).color));
        const back = lum(bg);
        return {
          contrast: (Math.max(fg, back) + 0.05) / (Math.min(fg, back) + 0.05),
          darkBackground: back < 0.1,
        };
      });
    expect(colors.darkBackground).toBe(true);
    expect(colors.contrast).toBeGreaterThanOrEqual(4.5);
  });

  it("the report tab shows Agent.report's numbers and copies its markdown", async () => {
    const { id } = await sharedEditRun();
    const r = await h.gql<{
      agent: {
        report: {
          outcome: string | null;
          outcomeName: string | null;
          durationMs: number | null;
          turns: number;
          estimatedCostUsd: number | null;
          usage: {
            inputTokens: number;
            outputTokens: number;
            cacheReadTokens: number;
            cacheCreationTokens: number;
          };
          toolCalls: { name: string; calls: number; failures: number }[];
          toolCallCount: number;
          toolFailureCount: number;
          filesChanged: number | null;
          additions: number | null;
          deletions: number | null;
          files: { path: string }[];
          finalMessage: string | null;
          markdown: string;
        };
      };
    }>(
      `query($id: String!) { agent(agentId: $id) { report { outcome outcomeName durationMs turns estimatedCostUsd
        usage { inputTokens outputTokens cacheReadTokens cacheCreationTokens }
        toolCalls { name calls failures } toolCallCount toolFailureCount filesChanged additions deletions
        files { path } finalMessage markdown } } }`,
      { id },
    );
    const report = r.data?.agent.report;
    if (!report) throw new Error(JSON.stringify(r));
    expect(report.toolCalls.length).toBeGreaterThan(0);
    expect(report.filesChanged).toBeGreaterThan(0);

    const page = await openPage(`#/agent/${id}/report`, { clipboard: true });
    const view = panel(page, "Report");
    const fact = (key: string) => view.locator(`dd[data-fact="${key}"]`).textContent();
    await eventually(() => fact("outcome")).toBe(formatOutcome(report.outcome, report.outcomeName));
    await expect(fact("duration")).resolves.toBe(formatDuration(report.durationMs));
    await expect(fact("turns")).resolves.toBe(formatInt(report.turns));
    await expect(fact("cost")).resolves.toBe(formatCost(report.estimatedCostUsd));
    const u = report.usage;
    await expect(fact("tokens")).resolves.toBe(
      `${formatTokens(u.inputTokens)} in / ${formatTokens(u.outputTokens)} out · cache ${formatTokens(u.cacheReadTokens)} read / ${formatTokens(u.cacheCreationTokens)} written`,
    );
    await expect(fact("tool-calls")).resolves.toBe(
      `${report.toolCallCount}${report.toolFailureCount ? ` (${report.toolFailureCount} failed)` : ""}`,
    );
    await expect(fact("files-changed")).resolves.toBe(
      `${report.filesChanged} (+${report.additions} \u2212${report.deletions})`,
    );
    const tools = await view.locator("table.report-tools tbody tr").evaluateAll((trs) =>
      trs.map((tr) => ({
        name: tr.querySelector("th")?.textContent,
        calls: Number(tr.querySelector(".calls")?.textContent),
        failures: Number(tr.querySelector(".failures")?.textContent),
      })),
    );
    expect(tools).toEqual(report.toolCalls);
    await expect(view.locator(".report-files li code").allTextContents()).resolves.toEqual(
      report.files.map((f) => f.path),
    );
    if (report.finalMessage !== null)
      await expect(view.locator(".final-message").textContent()).resolves.toBe(report.finalMessage);

    await view.getByRole("button", { name: "Copy markdown" }).click();
    await eventually(() => page.evaluate(() => navigator.clipboard.readText())).toBe(report.markdown);
    expect(report.markdown.length).toBeGreaterThan(0);
  });
});

// The worktree of a finished isolated run is gone; its changes are still shown (the refs keep them).
describe("agent view changes after the worktree is gone", { timeout: 90_000 }, () => {
  it("the diff is read from the stored snapshot", async () => {
    const { id } = await sharedEditRun();
    const record = h.d.daemon.record(id);
    const dir = record?.working_dir;
    expect(dir && dir !== h.d.ws.root).toBeTruthy();
    expect(fs.existsSync(path.resolve(dir ?? ""))).toBe(false);
    const page = await openPage(`#/agent/${id}/changes`);
    await panel(page, "Changes").locator('.diff-file[data-path="README.md"] table.d2h-diff-table').waitFor();
  });
});
