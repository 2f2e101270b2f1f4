/**
 * `workspace add|ls|config|rm` against a real gateway, with typed mutation errors mapped to exit
 * codes 3 (not found) and 4 (refused), and bad option values to 2.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { cli, cliJson } from "./run-cli.js";

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("workspace commands", () => {
  it("add, conflict (4), config merges fields, daemon unreachable (5), bad provider (2), rm, rm again (3)", async () => {
    const root = path.join(path.dirname(h.d.ws.root), "second");
    fs.mkdirSync(root);
    const add = await cli(h.url, [
      "workspace",
      "add",
      "second",
      root,
      "--model",
      "m-1",
      "--env",
      "LANG=C.UTF-8",
    ]);
    expect(add.stderr).toBe("");
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(
      /^registered second at \S+second · \S+ · provider default · model m-1 · env LANG$/m,
    );
    const conflict = await cli(h.url, ["workspace", "add", "other", root]);
    expect(conflict.code).toBe(4);
    expect(conflict.stderr).toMatch(/\[CONFLICT\]/);

    // A per-spawn setting (the model) applies at once; fields not given are kept.
    const model = await cli(h.url, ["workspace", "config", "second", "--model", "m-2"]);
    expect(model.stderr).toBe("");
    expect(model).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^configured second at .* · model m-2 · env LANG$/m),
    });
    const ls = await cliJson<{ workspaces: { name: string; config: Record<string, unknown> }[] }>(h.url, [
      "workspace",
      "ls",
    ]);
    expect(ls.workspaces.find((w) => w.name === "second")?.config).toEqual({
      provider: null,
      model: "m-2",
      baseUrl: null,
      apiKeyFromEnv: null,
      apiKeySet: false,
      // Env values are write-only: the API says a value is set, never what it is.
      env: [{ name: "LANG", valueSet: true }],
    });
    // A change to the daemon's environment needs its caliband, which does not run for "second".
    const needsDaemon = await cli(h.url, ["workspace", "config", "second", "--env", "TZ=UTC"]);
    expect(needsDaemon.code).toBe(5);
    expect(needsDaemon.stderr).toMatch(
      /^prospero: workspace config second: caliband unreachable .*\[UNREACHABLE\]\n$/,
    );

    const badProvider = await cli(h.url, ["workspace", "config", "second", "--provider", "acme"]);
    expect(badProvider.code).toBe(2);
    expect(badProvider.stderr).toMatch(/unknown provider "acme"/);
    const unknown = await cli(h.url, ["workspace", "config", "nowhere", "--model", "x"]);
    expect(unknown.code).toBe(3);

    const rm = await cli(h.url, ["workspace", "rm", "second"]);
    expect(rm).toMatchObject({ code: 0, stdout: "unregistered second\n" });
    const again = await cli(h.url, ["workspace", "rm", "second"]);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/\[NOT_FOUND\]/);
  });
});
