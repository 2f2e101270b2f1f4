// Installs tools/prisma-migrate (prisma 6.19.3, dev only) from its own lockfile when missing;
// the migration test needs it. Quiet when already installed.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const tool = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "tools", "prisma-migrate");
if (!existsSync(path.join(tool, "node_modules", "prisma", "build", "index.js"))) {
  console.error("installing tools/prisma-migrate (dev-only migration tool) …");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const res = spawnSync(npm, ["ci", "--no-audit", "--no-fund", "--prefix", tool], { stdio: "inherit" });
  if (res.status !== 0) {
    console.error(
      "could not install tools/prisma-migrate; run `npm ci --prefix tools/prisma-migrate` and retry",
    );
    process.exit(res.status ?? 1);
  }
}
