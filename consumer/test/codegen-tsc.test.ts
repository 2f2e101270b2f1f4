/**
 * Step 2 of the integration: the operation types are generated from the live gateway's
 * introspection (GraphQL Code Generator, with the token), and the whole consumer — tests, helpers,
 * run.mjs — compiles under `tsc --strict` against them. A document the live schema rejects fails
 * the first test with codegen's validation messages; a type the tests misuse fails the second.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { generate } from "@graphql-codegen/cli";
import { expect, test } from "vitest";
import { CONSUMER_DIR, GENERATED_DIR, typesConfig } from "../codegen.mjs";
import { GATEWAY_URL, TOKEN } from "../lib/env.js";

/** A codegen failure with the messages of the errors it aggregates (codegen nests them). */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const nested = (err as Error & { errors?: unknown[] }).errors;
  const details = Array.isArray(nested) ? nested.map(describeError) : [];
  return [err.message, ...details].join("\n");
}

test("operation types generate from the live gateway's introspection", { timeout: 60_000 }, async () => {
  const out = path.join(CONSUMER_DIR, GENERATED_DIR, "graphql.ts");
  fs.rmSync(out, { force: true });
  try {
    await generate({ ...typesConfig(GATEWAY_URL, TOKEN), cwd: CONSUMER_DIR }, true);
  } catch (err) {
    throw new Error(`codegen against ${GATEWAY_URL} failed:\n${describeError(err)}`);
  }
  const generated = fs.readFileSync(out, "utf8");
  expect(generated).toContain("export type KillAgentMutation =");
  expect(generated).toContain("export type AgentEventsSubscription =");
});

test("the consumer compiles with tsc --strict against the generated types", { timeout: 90_000 }, () => {
  const tsc = spawnSync(
    process.execPath,
    [path.join(CONSUMER_DIR, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--noEmit"],
    { cwd: CONSUMER_DIR, encoding: "utf8" },
  );
  const output = `${tsc.stdout}${tsc.stderr}`.trim();
  expect(output, "tsc --strict --noEmit reported errors").toBe("");
  expect(tsc.status).toBe(0);
});
