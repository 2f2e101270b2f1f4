/**
 * Workspace.sources discovery (protocol §2.6) on real directory trees with real `git init`
 * checkouts: semantics, async, and the caps on entries examined and sources returned.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverSources, scanSources, SOURCE_LIMITS } from "../../src/fleet/sources.js";
import { startDaemon, startFleet } from "../helpers/fleet-harness.js";
import { tmpDir } from "../helpers/tmp.js";

function gitInit(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q", dir], { env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
}

describe("source discovery", () => {
  it("root checkout by basename, immediate child checkouts, sorted, de-duplicated by name", async () => {
    const base = tmpDir("src-");
    const root = path.join(base, "mono");
    gitInit(root);
    gitInit(path.join(root, "zeta"));
    gitInit(path.join(root, "alpha"));
    gitInit(path.join(root, "mono")); // same name as the root: the root wins
    gitInit(path.join(root, "plain", "nested")); // grandchildren are not sources
    fs.mkdirSync(path.join(root, "worktree"));
    fs.writeFileSync(path.join(root, "worktree", ".git"), "gitdir: /elsewhere\n"); // a .git file counts
    fs.writeFileSync(path.join(root, "file.txt"), "x");
    const sources = await discoverSources(root);
    expect(sources).toEqual([
      { name: "alpha", path: path.join(root, "alpha") },
      { name: "mono", path: root },
      { name: "worktree", path: path.join(root, "worktree") },
      { name: "zeta", path: path.join(root, "zeta") },
    ]);
  });

  it("a root that is not a checkout lists only its child checkouts; a missing root lists none", async () => {
    const root = tmpDir("src-");
    gitInit(path.join(root, "one"));
    expect(await discoverSources(root)).toEqual([{ name: "one", path: path.join(root, "one") }]);
    expect(await discoverSources(path.join(root, "missing"))).toEqual([]);
  });

  it("caps the sources returned (the first ones by name) and says so", async () => {
    const root = tmpDir("src-");
    for (const n of ["e", "c", "a", "d", "b"]) gitInit(path.join(root, n));
    const scan = await scanSources(root, { entries: 100, sources: 3 });
    expect(scan.sources.map((s) => s.name)).toEqual(["a", "b", "c"]);
    expect(scan).toMatchObject({ sourcesTruncated: true, entriesTruncated: false });
    const full = await scanSources(root, { entries: 100, sources: 5 });
    expect(full).toMatchObject({ sourcesTruncated: false, entriesTruncated: false });
    expect(full.sources).toHaveLength(5);
  });

  it("caps the directory entries examined and says so", async () => {
    const root = tmpDir("src-");
    for (const n of ["r1", "r2", "r3"]) gitInit(path.join(root, n));
    for (let i = 0; i < 7; i++) fs.writeFileSync(path.join(root, `f${i}`), "");
    const capped = await scanSources(root, { entries: 4, sources: 100 });
    expect(capped.entriesTruncated).toBe(true);
    expect(capped.sources.length).toBeLessThanOrEqual(3);
    const exact = await scanSources(root, { entries: 10, sources: 100 });
    expect(exact.entriesTruncated).toBe(false);
    expect(exact.sources.map((s) => s.name)).toEqual(["r1", "r2", "r3"]);
  });

  it("the default caps hold on big roots: 10,000 entries examined, 1,000 sources returned", async () => {
    expect(SOURCE_LIMITS).toEqual({ entries: 10_000, sources: 1_000 });
    const many = tmpDir("src-");
    for (let i = 0; i < 1_005; i++)
      fs.mkdirSync(path.join(many, `c${String(i).padStart(4, "0")}`, ".git"), { recursive: true });
    const scan = await scanSources(many);
    expect(scan.sources).toHaveLength(1_000);
    expect(scan.sources.at(-1)?.name).toBe("c0999");
    expect(scan).toMatchObject({ sourcesTruncated: true, entriesTruncated: false });

    const huge = tmpDir("src-");
    for (let i = 0; i < 10_001; i++) fs.writeFileSync(path.join(huge, `f${i}`), "");
    expect((await scanSources(huge)).entriesTruncated).toBe(true);
  });

  it("registry.sources is async and discovers at call time (checkouts cloned later appear)", async () => {
    const d = await startDaemon();
    const h = await startFleet({ runtimeDir: d.ws.runtime });
    try {
      await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
      const before = h.fleet.registry.sources("demo");
      expect(before).toBeInstanceOf(Promise);
      expect((await before).map((s) => s.name)).toEqual(["demo-repo"]);
      gitInit(path.join(d.ws.root, "late"));
      expect((await h.fleet.registry.sources("demo")).map((s) => s.name)).toEqual(["demo-repo", "late"]);
      await expect(h.fleet.registry.sources("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    } finally {
      await h.close();
      await d.close();
    }
  });
});
