/**
 * Generates the typed SDK (`src/sdk/generated/`) with GraphQL Code Generator from `codegen.ts`
 * (the committed `schema.graphql` plus `src/sdk/operations/*.graphql`), or with `--check` exits 1
 * when the committed files differ from what it would generate — changed, missing or left-over
 * files — without touching them (CI runs the check).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "@graphql-codegen/cli";
import config, { GENERATED_DIR } from "../codegen.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outDir = path.join(root, GENERATED_DIR);

/** One generated file, as `generate(…, false)` returns it (its type also covers watch mode). */
interface FileOutput {
  filename: string;
  content: string;
}

const outputs = (await generate({ ...config, cwd: root }, false)) as FileOutput[];
const expected = new Map(outputs.map((o) => [path.resolve(root, o.filename), o.content]));
const present = fs.existsSync(outDir)
  ? fs
      .readdirSync(outDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
  : [];

if (process.argv.includes("--check")) {
  const problems: string[] = [];
  for (const [file, content] of expected) {
    const rel = path.relative(root, file);
    if (!fs.existsSync(file)) problems.push(`missing: ${rel}`);
    else if (fs.readFileSync(file, "utf8") !== content) problems.push(`stale: ${rel}`);
  }
  for (const file of present)
    if (!expected.has(file)) problems.push(`not generated: ${path.relative(root, file)}`);
  if (problems.length) {
    console.error(`${GENERATED_DIR} is out of date (run \`npm run codegen\` and commit the result):`);
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`${GENERATED_DIR} is up to date`);
} else {
  for (const file of present) if (!expected.has(file)) fs.rmSync(file);
  for (const [file, content] of expected) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== content) fs.writeFileSync(file, content);
  }
  console.log(`generated ${[...expected.keys()].map((f) => path.relative(root, f)).join(", ")}`);
}
