/**
 * Where the caliband transcripts recorded from the real daemon live: `$CALIBAND_FIXTURES`, else
 * the shared copy beside the repository (`../shared/fixtures/caliband`, the source of truth), else
 * the copy committed under `test/fixtures/caliband` (so a lone clone still runs every test).
 */
import fs from "node:fs";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "../..");

function find(): string {
  const candidates = [
    process.env.CALIBAND_FIXTURES,
    path.resolve(repo, "../shared/fixtures/caliband"),
    path.join(repo, "test/fixtures/caliband"),
  ];
  for (const c of candidates) if (c && fs.existsSync(path.join(c, "README.md"))) return c;
  throw new Error(`caliband fixtures not found (tried ${candidates.filter(Boolean).join(", ")})`);
}

/** Absolute path of the fixture directory. */
export const FIXTURES_DIR = find();

/** Read one fixture file as UTF-8. */
export function readFixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES_DIR, name), "utf8");
}
