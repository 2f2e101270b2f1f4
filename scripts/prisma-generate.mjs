// Runs `prisma generate` offline, twice from the one datamodel (prisma/schema.prisma): the SQLite
// client (src/generated/prisma, the embedded default) and Pothos' types, then the PostgreSQL client
// (src/generated/prisma-pg) from a derived copy whose only differences are the datasource provider
// and the generators (issue 18 item 1: one datamodel is the source of truth). The schema engine
// points at a stub that explains itself and exits 1, so no download is attempted and no migrate
// command can silently no-op.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stub = path.join(root, "scripts", "schema-engine-unavailable.sh");
const prismaBin = path.join(root, "node_modules", "prisma", "build", "index.js");
const schemaPath = path.join(root, "prisma", "schema.prisma");
const pgOutput = path.join(root, "src", "generated", "prisma-pg");

/** Run `prisma generate` with `args`; exit with its status when it fails. */
function generate(args) {
  const result = spawnSync(process.execPath, [prismaBin, "generate", ...args], {
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
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * The PostgreSQL copy of the datamodel: provider "postgresql", the Pothos generator dropped (its
 * types are the SQLite client's, and the models are the same), the client written to
 * src/generated/prisma-pg. Anything else in the file is kept byte for byte.
 */
function postgresSchema(text) {
  const provider = /(datasource\s+db\s*\{[^}]*provider\s*=\s*)"sqlite"/;
  const client = /(generator\s+client\s*\{[^}]*output\s*=\s*)"[^"]*"/;
  const pothos = /generator\s+pothos\s*\{[^}]*\}/;
  for (const [re, what] of [
    [provider, "a sqlite datasource"],
    [client, "a client generator with an output"],
    [pothos, "a pothos generator"],
  ]) {
    if (!re.test(text)) {
      console.error(`prisma-generate: ${schemaPath} has no ${what}`);
      process.exit(1);
    }
  }
  return text
    .replace(provider, '$1"postgresql"')
    .replace(client, `$1${JSON.stringify(pgOutput)}`)
    .replace(pothos, "");
}

generate([]);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-generate-"));
try {
  const file = path.join(dir, "schema.prisma");
  fs.writeFileSync(file, postgresSchema(fs.readFileSync(schemaPath, "utf8")));
  generate(["--schema", file]);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
