/**
 * The SDK ships Apollo's `possibleTypes` (src/sdk/possible-types.ts, the one import from the
 * repository an outside team may take): it must equal what the live gateway's introspection says,
 * i.e. what GraphQL Code Generator's fragment matcher generated into generated/possible-types.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";
import generated from "../generated/possible-types.js";
import { REPO_ROOT } from "../lib/gateway.mjs";

/** Where the SDK exports it from. */
const SHIPPED = path.join(REPO_ROOT, "src", "sdk", "possible-types.ts");

/** Each supertype's subtypes, sorted (the order carries no meaning). */
function normalized(p: Record<string, readonly string[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(p)
      .map(([k, v]) => [k, [...v].sort()] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

test("the SDK's shipped possibleTypes equal the live schema's unions and interfaces", async () => {
  expect(fs.existsSync(SHIPPED), `${path.relative(REPO_ROOT, SHIPPED)} exists`).toBe(true);
  const mod = (await import(pathToFileURL(SHIPPED).href)) as { possibleTypes?: Record<string, string[]> };
  expect(mod.possibleTypes, "it exports possibleTypes").toBeDefined();
  expect(normalized(mod.possibleTypes!)).toEqual(normalized(generated.possibleTypes));
  // The mutation error case of the other tests depends on these two entries.
  expect(generated.possibleTypes["Error"]).toContain("NotFoundError");
  expect(generated.possibleTypes["KillAgentResult"]).toContain("NotFoundError");
});
