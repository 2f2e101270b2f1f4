// Runs `prisma generate` offline: the schema engine points at a stub that explains itself
// and exits 1, so no download is attempted and no migrate command can silently no-op.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stub = path.join(root, "scripts", "schema-engine-unavailable.sh");
const prismaBin = path.join(root, "node_modules", "prisma", "build", "index.js");
const result = spawnSync(process.execPath, [prismaBin, "generate"], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    PATH: `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH ?? ""}`,
    PRISMA_SCHEMA_ENGINE_BINARY: stub,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
if (result.error) {
  console.error(`prisma generate could not start: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
