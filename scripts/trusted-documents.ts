/**
 * Writes the trusted-documents manifest (`trusted-documents.json`, see
 * src/server/trusted-documents.ts) from the documents the shipped clients send, exactly as they send
 * them: the SDK's generated operations (`src/sdk/generated/graphql.ts`, from
 * `src/sdk/operations/*.graphql` through codegen.ts; the CLI sends only these) and the dashboard's
 * (every exported string of `dashboard/src/api/*.ts` that is a GraphQL document). With `--check` it
 * writes nothing and exits 1 when the committed manifest differs from what it would write (CI runs
 * the check after `codegen:check`); `--manifest <file>` reads or writes another file.
 *
 * Exits 1 as well, naming the file, when a source defines an operation the collection cannot see
 * (a named `query`/`mutation`/`subscription` in a dashboard, SDK or CLI source that is not an
 * exported document): under `--trusted-documents-only` the gateway would refuse it.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Kind, parse, type DocumentNode } from "graphql";
import { documentHash, TRUSTED_DOCUMENTS_FILE } from "../src/server/trusted-documents.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The shipped clients. */
type Client = "sdk" | "dashboard";

/** Per client: the modules whose exported documents are registered. */
const DOCUMENT_MODULES: Record<Client, string[]> = {
  sdk: ["src/sdk/generated/graphql.ts"],
  dashboard: fs
    .readdirSync(path.join(root, "dashboard/src/api"))
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .map((f) => `dashboard/src/api/${f}`),
};

/**
 * Per client: the sources searched for named operations that none of its registered documents
 * defines (the SDK's generated files excluded; the CLI sends the SDK's documents).
 */
const SCANNED_DIRS: Record<Client, string[]> = {
  sdk: ["src/sdk", "src/cli"],
  dashboard: ["dashboard/src"],
};

/** A GraphQL-looking string: what a document starts with. */
const LOOKS_LIKE_GRAPHQL = /^\s*(?:#[^\n]*\n\s*)*(?:query|mutation|subscription|fragment)\b|^\s*\{/;

/** A named operation written in a source file. */
const OPERATION_IN_SOURCE = /\b(?:query|mutation|subscription)\s+([A-Z][A-Za-z0-9_]*)\s*[({]/g;

interface Collected {
  client: Client;
  text: string;
  /** Where it came from, e.g. `dashboard/src/api/documents.ts#AGENT_QUERY`. */
  origin: string;
  /** Names of the operations it defines. */
  operations: string[];
}

function operationNames(doc: DocumentNode): string[] {
  return doc.definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value ?? "(anonymous)"] : [],
  );
}

/** Every exported document of {@link DOCUMENT_MODULES} that defines an operation. */
async function collect(problems: string[]): Promise<Collected[]> {
  const out: Collected[] = [];
  for (const [client, modules] of Object.entries(DOCUMENT_MODULES) as [Client, string[]][])
    for (const rel of modules) {
      const mod = (await import(pathToFileURL(path.join(root, rel)).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        // Plain strings (the dashboard) and codegen's TypedDocumentString (a String subclass).
        if (typeof value !== "string" && !(value instanceof String)) continue;
        const text = value.toString();
        let doc: DocumentNode;
        try {
          doc = parse(text);
        } catch (err) {
          if (LOOKS_LIKE_GRAPHQL.test(text))
            problems.push(`${rel}#${name} does not parse: ${(err as Error).message}`);
          continue;
        }
        const operations = operationNames(doc);
        if (operations.length) out.push({ client, text, origin: `${rel}#${name}`, operations });
      }
    }
  return out;
}

/** Named operations written in the scanned sources that no collected document defines. */
function unseenOperations(collected: Collected[]): string[] {
  const problems: string[] = [];
  for (const [client, dirs] of Object.entries(SCANNED_DIRS) as [Client, string[]][])
    for (const dir of dirs) {
      const known = new Set(collected.filter((c) => c.client === client).flatMap((c) => c.operations));
      const files = fs
        .readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && /\.(ts|graphql)$/.test(e.name))
        .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
        .filter((f) => !f.startsWith(path.join("src", "sdk", "generated")))
        .sort();
      for (const file of files) {
        const text = fs.readFileSync(path.join(root, file), "utf8");
        for (const m of text.matchAll(OPERATION_IN_SOURCE)) {
          if (!known.has(m[1]!)) {
            problems.push(
              `${file} defines operation ${m[1]} but no registered document of the ${client} does (export it from ${DOCUMENT_MODULES[client].join(", ")}, or run npm run codegen)`,
            );
          }
        }
      }
    }
  return problems;
}

const { values } = parseArgs({
  options: { check: { type: "boolean", default: false }, manifest: { type: "string" } },
  strict: true,
});
const manifestFile = path.resolve(values.manifest ?? TRUSTED_DOCUMENTS_FILE);
const rel = path.relative(root, manifestFile);

const problems: string[] = [];
const collected = await collect(problems);
problems.push(...unseenOperations(collected));
if (problems.length) {
  console.error("cannot build the trusted-documents manifest:");
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
const byHash = new Map<string, Collected>();
for (const c of collected) byHash.set(documentHash(c.text), c);
const manifest = Object.fromEntries([...byHash.keys()].sort().map((h) => [h, byHash.get(h)!.text]));
const content = `${JSON.stringify(manifest, null, 2)}\n`;

if (values.check) {
  let committed: Record<string, unknown> = {};
  let raw: string | null = null;
  try {
    raw = fs.readFileSync(manifestFile, "utf8");
    const json: unknown = JSON.parse(raw);
    if (typeof json === "object" && json !== null && !Array.isArray(json))
      committed = json as Record<string, unknown>;
  } catch {
    // reported below as missing or not JSON
  }
  if (raw !== content) {
    const lines: string[] = [];
    if (raw === null) lines.push("missing");
    for (const [hash, c] of byHash) {
      if (!(hash in committed)) lines.push(`not registered: ${c.operations.join(", ")} (${c.origin})`);
    }
    for (const [hash, text] of Object.entries(committed)) {
      if (byHash.has(hash)) continue;
      let names = "unparsable entry";
      try {
        names = operationNames(parse(String(text))).join(", ");
      } catch {
        // keep "unparsable entry"
      }
      lines.push(`no longer sent by any client: ${names} (${hash})`);
    }
    if (lines.length === 0) lines.push("same documents, but not as `npm run documents` writes them");
    console.error(`${rel} is out of date (run \`npm run documents\` and commit the result):`);
    for (const l of lines) console.error(`  ${l}`);
    process.exit(1);
  }
  console.log(`${rel} is up to date (${byHash.size} documents)`);
} else {
  if (!fs.existsSync(manifestFile) || fs.readFileSync(manifestFile, "utf8") !== content) {
    fs.writeFileSync(manifestFile, content);
  }
  console.log(`wrote ${rel} (${byHash.size} documents)`);
}
