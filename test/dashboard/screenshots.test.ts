/**
 * What a newcomer sees (issue 16 item 6 and "Done when"), end to end against a REAL
 * `prospero serve --demo` process in headless Chromium: the overview's counts; the agents table's
 * search finds the demo's isolated editing run (`tidy-docs`) by its label; its report tab shows
 * its outcome and files; its changes tab shows the diff after its worktree is gone; "Create
 * branch" makes a branch in the demo workspace (git rev-parse).
 *
 * With `PROSPERO_UPDATE_SCREENSHOTS=1` (`npm run screenshots`) it also writes the README's
 * screenshots, docs/screenshots/overview.png and agent-changes.png (1280×800); without it, it
 * checks that they are there, PNGs of that size.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { serveToken, startServe, type ServeProcess } from "../helpers/serve-process.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { ensureDashboardBuilt, launchChromium, REPO, watchErrors } from "./support.js";

/** Where the README's screenshots are. */
const SHOTS = path.join(REPO, "docs", "screenshots");
const VIEWPORT = { width: 1280, height: 800 };
const UPDATE = process.env["PROSPERO_UPDATE_SCREENSHOTS"] === "1";
/** The demo's isolated run that edits files (src/demo.ts). */
const LABEL = "tidy-docs";

let browser: Browser;
let serve: ServeProcess;
let token: string;

beforeAll(async () => {
  ensureDashboardBuilt();
  if (UPDATE) fs.mkdirSync(SHOTS, { recursive: true });
  [browser, serve] = await Promise.all([launchChromium(), startServe(["--demo"], {}, 60_000)]);
  token = await serveToken(serve);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (serve && serve.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
});

async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${serve.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data || body.errors) throw new Error(JSON.stringify(body));
  return body.data;
}

interface Run {
  agentId: string;
  terminal: boolean;
  isolated: boolean;
  changes: {
    state: string;
    final: boolean;
    reason: string | null;
    fileCount: number;
    headCommit: string | null;
  };
}

/** The run's working directory as the simulator recorded it (its manifest in the demo's session store). */
function workingDirOf(demoDir: string, agentId: string): string {
  const sessions = path.join(demoDir, "sessions");
  for (const rel of fs.readdirSync(sessions, { recursive: true, encoding: "utf8" })) {
    if (path.basename(rel) !== "manifest.json" || path.basename(path.dirname(rel)) !== agentId) continue;
    const manifest = JSON.parse(fs.readFileSync(path.join(sessions, rel), "utf8")) as {
      working_dir?: string;
    };
    if (manifest.working_dir) return manifest.working_dir;
  }
  throw new Error(`no manifest of ${agentId} under ${sessions}`);
}

/** Width and height of a PNG file (its IHDR chunk). */
function pngSize(file: string): { width: number; height: number } {
  const b = fs.readFileSync(file);
  expect(b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe("the demo as a newcomer sees it", { timeout: 150_000 }, () => {
  it("overview, search by label, report, the diff after the worktree is gone, a branch from it", async () => {
    const { workspace } = await gql<{ workspace: { root: string } }>(`{ workspace(name: "demo") { root } }`);
    const root = workspace.root;
    // The demo's editing run has ended and its last snapshot is stored.
    const run = await waitFor(
      async () => {
        const d = await gql<{ agents: { edges: { node: Run }[] } }>(
          `query($q: String!) { agents(first: 5, filter: { search: $q }) { edges { node {
            agentId terminal isolated changes { state final reason fileCount headCommit } } } } }`,
          { q: LABEL },
        );
        const r = d.agents.edges[0]?.node;
        return r?.terminal && r.changes.state === "CAPTURED" && (r.changes.final || r.changes.reason !== null)
          ? r
          : null;
      },
      60_000,
      `the demo's ${LABEL} run to end with its changes captured`,
      250,
    );
    expect(run.isolated).toBe(true);
    expect(run.changes.fileCount).toBe(3);
    const worktree = workingDirOf(path.dirname(root), run.agentId);
    expect(worktree.startsWith(path.join(root, ".caliban", "worktrees"))).toBe(true);
    // Caliband removed its worktree (and branch) when the worker exited.
    await waitFor(() => !fs.existsSync(worktree), 15_000, "the worktree's removal");

    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: "light" });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${serve.url}/?token=${encodeURIComponent(token)}#/`);
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();

    // The overview: counts by status and the usage of today, with the charts.
    const overview = page.locator("section.overview");
    await overview.getByRole("heading", { name: "Overview" }).waitFor();
    const stat = (key: string) => overview.locator(`[data-stat="${key}"] .stat-value`);
    await expect.poll(() => stat("running").textContent(), { timeout: 15_000 }).toMatch(/^\d+$/);
    await expect
      .poll(async () => Number(await stat("done").textContent()), { timeout: 15_000 })
      .toBeGreaterThan(0);
    await expect.poll(() => stat("cost-today").textContent(), { timeout: 15_000 }).toMatch(/^\$/);
    await overview.locator(".charts").waitFor();
    if (UPDATE) {
      await page.waitForTimeout(500); // the charts' first frame
      await page.screenshot({ path: path.join(SHOTS, "overview.png") });
    }

    // The agents table: search by the run's label finds it (history included).
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    await page.getByRole("searchbox", { name: "Search" }).fill(LABEL);
    const rows = page.locator("table.agents tbody tr");
    const row = page.locator(`tr[data-agent-id="${run.agentId}"]`);
    // The search is debounced into the URL; until the answer comes the table may show one
    // "Loading…" row (or the unfiltered first page, which may hold the run), so the URL is
    // awaited first and then the one row must be the run's.
    await page.waitForURL((u) => u.hash.includes(`q=${LABEL}`));
    await row.waitFor();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    await row.getByRole("link").first().click();
    await page.waitForURL((u) => u.hash === `#/agent/${run.agentId}`);

    // Its report: outcome and the files it changed.
    const tabs = page.getByRole("tablist", { name: "Agent views" });
    await tabs.getByRole("tab", { name: "Report" }).click();
    const report = page.getByRole("tabpanel", { name: "Report" });
    await expect
      .poll(() => report.locator('dd[data-fact="outcome"]').textContent(), { timeout: 15_000 })
      .toBe("end of turn");
    await expect(report.locator('dd[data-fact="files-changed"]').textContent()).resolves.toMatch(
      /^3 \(\+\d+ \u2212\d+\)$/,
    );
    await expect(report.locator(".report-files li code").allTextContents()).resolves.toEqual([
      "OBSOLETE.txt",
      "README.md",
      `notes/fake-${run.agentId}.md`,
    ]);

    // Its changes, read from the refs after the worktree is gone.
    await tabs.getByRole("tab", { name: "Changes" }).click();
    expect(new URL(page.url()).hash).toBe(`#/agent/${run.agentId}/changes`);
    const changes = page.getByRole("tabpanel", { name: "Changes" });
    await changes.locator('.diff-file[data-path="README.md"] table.d2h-diff-table').waitFor();
    await expect(changes.locator(".changes-headline").textContent()).resolves.toMatch(/^3 files changed, /);
    await expect(changes.locator(".diff .diff-file").count()).resolves.toBe(3);
    expect(fs.existsSync(worktree)).toBe(false);
    if (UPDATE) {
      // The view from its prompt and tabs down: files, the diff and the Create branch form.
      await tabs.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 56));
      await page.screenshot({ path: path.join(SHOTS, "agent-changes.png") });
    }

    // Turn them into a branch (the user's checkout is not touched).
    const tracked = () =>
      execFileSync("git", ["-C", root, "status", "--porcelain", "--untracked-files=no"], {
        encoding: "utf8",
      });
    const status = tracked();
    const form = changes.getByRole("form", { name: "Create a branch from these changes" });
    await form.getByLabel("Branch name").fill(`review/${LABEL}`);
    await form.getByRole("button", { name: "Create branch" }).click();
    await expect
      .poll(() => changes.locator(".applied-branch").textContent(), { timeout: 15_000 })
      .toBe(`review/${LABEL}`);
    const branch = execFileSync("git", ["-C", root, "rev-parse", `refs/heads/review/${LABEL}`], {
      encoding: "utf8",
    }).trim();
    expect(branch).toBe(run.changes.headCommit);
    expect(tracked()).toBe(status);

    await context.close();
    expect(errors).toEqual([]);

    // The README's screenshots are there, at the size they are taken.
    for (const name of ["overview.png", "agent-changes.png"])
      expect(pngSize(path.join(SHOTS, name))).toEqual(VIEWPORT);
  });
});
