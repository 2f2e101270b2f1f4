/**
 * Browser-test support: the dashboard build (made once when missing or older than its sources)
 * and headless Chromium from Debian's `chromium` package driven by playwright-core.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

/** Repository root. */
export const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** The dashboard's sources and build. */
export const DASHBOARD = path.join(REPO, "dashboard");
export const DASHBOARD_DIST = path.join(DASHBOARD, "dist");

/** Debian's Chromium (`apt-get install chromium`); `.ci/run` installs it. */
export const CHROMIUM = "/usr/bin/chromium";

function newestMtime(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, name)));
  return newest;
}

/** Build the dashboard unless `dashboard/dist` exists and is newer than every source. */
export function ensureDashboardBuilt(): void {
  const index = path.join(DASHBOARD_DIST, "index.html");
  const sources = ["src", "public", "index.html", "vite.config.ts"].map((p) => path.join(DASHBOARD, p));
  const newestSource = Math.max(...sources.filter((p) => fs.existsSync(p)).map(newestMtime));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= newestSource) return;
  execFileSync(
    process.execPath,
    [path.join(REPO, "node_modules/vite/bin/vite.js"), "build", "--config", "dashboard/vite.config.ts"],
    { cwd: REPO, stdio: "pipe", timeout: 120_000 },
  );
}

/** Launch headless Chromium (fails with the install command when it is missing). */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get update && apt-get install -y chromium`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Console errors, uncaught page errors and failed requests of a page, for "no errors" checks. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("requestfailed", (req) =>
    errors.push(`requestfailed: ${req.url()} ${req.failure()?.errorText ?? ""}`),
  );
  return errors;
}
