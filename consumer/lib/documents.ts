/**
 * The consumer's GraphQL documents (operations/*.graphql), parsed at run time and typed with the
 * types GraphQL Code Generator wrote from the live gateway's introspection (generated/graphql.ts).
 *
 * Why not import the generated document objects: a document the live schema rejects would then stop
 * codegen — and with it every test — while here it fails its own tests only (with the gateway's
 * validation error), and test/codegen-tsc.test.ts fails on the codegen error. The types are what
 * `tsc --strict` checks.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  Kind,
  parse,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
} from "graphql";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";

const OPERATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../operations");

const all: DefinitionNode[] = fs
  .readdirSync(OPERATIONS_DIR)
  .filter((f) => f.endsWith(".graphql"))
  .sort()
  .flatMap((f) => parse(fs.readFileSync(path.join(OPERATIONS_DIR, f), "utf8")).definitions);

const fragments = new Map(
  all
    .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
    .map((d) => [d.name.value, d]),
);

/** Names of the fragments `node` spreads, transitively. */
function spreadFragments(node: DefinitionNode, into: Set<string>): Set<string> {
  visit(node, {
    FragmentSpread(spread) {
      const name = spread.name.value;
      const def = fragments.get(name);
      if (!into.has(name) && def) {
        into.add(name);
        spreadFragments(def, into);
      }
    },
  });
  return into;
}

/**
 * The operation `name` of operations/*.graphql (with the fragments it uses) as a typed document.
 * @throws Error when no operation has that name.
 */
export function operation<R, V extends Record<string, unknown>>(name: string): TypedDocumentNode<R, V> {
  const op = all.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
  if (!op) throw new Error(`no operation ${name} in ${OPERATIONS_DIR}`);
  const used = [...spreadFragments(op, new Set())].map((n) => fragments.get(n)!);
  const doc: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...used] };
  return doc as TypedDocumentNode<R, V>;
}
