/**
 * Which directories may become workspace roots (issue 11 §7): absolute, length-capped, an
 * existing directory of the gateway's user, not a system directory (as given and after realpath),
 * and under an --allow-root prefix when the operator gave any.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { ValidationFailed } from "../../src/errors.js";
import { checkWorkspaceRoot, isWithin, MAX_ROOT_LENGTH, parseAllowRoots } from "../../src/fleet/roots.js";
import { startDaemon, startFleet } from "../helpers/fleet-harness.js";
import { tmpDir } from "../helpers/tmp.js";

/** The ValidationFailed message `checkWorkspaceRoot` refuses `root` with (fails when it accepts). */
async function refusal(root: string, allowRoots?: string[]): Promise<string> {
  try {
    await checkWorkspaceRoot(root, allowRoots ? { allowRoots } : {});
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    const issues = (err as ValidationFailed).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toEqual(["root"]);
    return issues[0]?.message ?? "";
  }
  throw new Error(`${root} was accepted`);
}

describe("workspace roots", () => {
  it("accepts a project directory under the OS temp dir and returns its realpath", async () => {
    const dir = tmpDir("roots-");
    const repo = path.join(dir, "demo-repo");
    fs.mkdirSync(repo);
    const link = path.join(dir, "link");
    fs.symlinkSync(repo, link);
    expect(await checkWorkspaceRoot(repo)).toBe(fs.realpathSync(repo));
    expect(await checkWorkspaceRoot(`${link}/`)).toBe(fs.realpathSync(repo));
    expect(await checkWorkspaceRoot(dir)).toBe(fs.realpathSync(dir));
  });

  it("refuses / and system directories, as given and below", async () => {
    for (const root of [
      "/",
      "/proc",
      "/proc/self",
      "/proc/self/cwd", // resolves to the gateway's cwd: refused as given
      "/proc/1/root",
      "/sys",
      "/dev",
      "/dev/shm",
      "/etc",
      "/etc/ssh",
      "/boot",
      "/bin",
      "/sbin",
      "/lib",
      "/usr",
      "/usr/local/lib",
      "/run",
      "/var/run",
      "/snap",
      "/tmp/../etc",
      "//etc",
    ]) {
      expect(await refusal(root), root).toMatch(/system directory|whole file system/);
    }
  });

  it("refuses shared parents exactly (/tmp, /var/tmp, /home, /Users, the OS temp dir), not what is inside them", async () => {
    for (const root of ["/tmp", "/tmp/", "/var/tmp", "/home", "/Users", os.tmpdir()]) {
      expect(await refusal(root), root).toContain("shared parent directory");
    }
    const inside = tmpDir("roots-");
    expect(await checkWorkspaceRoot(inside)).toBe(fs.realpathSync(inside));
  });

  it("refuses a symlink that resolves into a system directory or to /tmp", async () => {
    const dir = tmpDir("roots-");
    fs.symlinkSync("/etc", path.join(dir, "to-etc"));
    fs.symlinkSync("/usr/lib", path.join(dir, "to-usr-lib"));
    fs.symlinkSync("/tmp", path.join(dir, "to-tmp"));
    expect(await refusal(path.join(dir, "to-etc"))).toMatch(/resolves to \/etc.*system directory/);
    expect(await refusal(path.join(dir, "to-usr-lib"))).toMatch(/inside the system directory \/usr/);
    expect(await refusal(path.join(dir, "to-tmp"))).toContain("shared parent directory");
  });

  it("refuses relative, over-long, missing and non-directory paths", async () => {
    const dir = tmpDir("roots-");
    fs.writeFileSync(path.join(dir, "file"), "x");
    expect(await refusal("src/demo-repo")).toContain("absolute");
    expect(await refusal("")).toContain("absolute");
    expect(await refusal("/" + "a".repeat(MAX_ROOT_LENGTH))).toContain(`at most ${MAX_ROOT_LENGTH}`);
    expect(await refusal(path.join(dir, "nope"))).toContain("does not exist");
    expect(await refusal(path.join(dir, "file"))).toContain("not a directory");
    expect(await refusal(`${dir}/a\0b`)).toContain("NUL");
  });

  // chown needs root; elsewhere this case is skipped.
  it.runIf(process.getuid?.() === 0)("refuses a directory owned by another uid", async () => {
    const dir = path.join(tmpDir("roots-"), "theirs");
    fs.mkdirSync(dir);
    fs.chownSync(dir, 65534, 65534);
    expect(await refusal(dir)).toBe(
      `${fs.realpathSync(dir)} is owned by uid 65534, not by the gateway's user (uid 0)`,
    );
  });

  it("--allow-root narrows to prefixes, by whole path segments, as given or through a symlinked prefix", async () => {
    const base = tmpDir("roots-");
    for (const d of ["a/b", "a/b/c", "a/bc", "x"]) fs.mkdirSync(path.join(base, d), { recursive: true });
    fs.symlinkSync(path.join(base, "a"), path.join(base, "alias-a"));
    const allow = parseAllowRoots([path.join(base, "a/b")]);
    expect(await checkWorkspaceRoot(path.join(base, "a/b"), { allowRoots: allow })).toBe(
      fs.realpathSync(path.join(base, "a/b")),
    );
    expect(await checkWorkspaceRoot(path.join(base, "a/b/c"), { allowRoots: allow })).toBe(
      fs.realpathSync(path.join(base, "a/b/c")),
    );
    expect(await refusal(path.join(base, "a/bc"), allow)).toContain("not under an allowed root");
    expect(await refusal(path.join(base, "x"), allow)).toContain("--allow-root");
    expect(await refusal(path.join(base, "a"), allow)).toContain("not under an allowed root");
    // A prefix given through a symlink matches the canonical roots beneath it.
    const viaAlias = parseAllowRoots([path.join(base, "alias-a") + "/"]);
    expect(await checkWorkspaceRoot(path.join(base, "a/bc"), { allowRoots: viaAlias })).toBe(
      fs.realpathSync(path.join(base, "a/bc")),
    );
    // A root reached through a symlink is judged by its realpath.
    fs.symlinkSync(path.join(base, "x"), path.join(base, "a/b/to-x"));
    expect(await refusal(path.join(base, "a/b/to-x"), allow)).toContain("not under an allowed root");
    // System directories stay refused even when a prefix covers them.
    expect(await refusal("/etc", parseAllowRoots(["/"]))).toContain("system directory");
  });

  it("isWithin compares whole segments", () => {
    expect(isWithin("/a/b", "/a/b")).toBe(true);
    expect(isWithin("/a/b/c", "/a/b")).toBe(true);
    expect(isWithin("/a/b/c", "/a/b/")).toBe(true);
    expect(isWithin("/a/bc", "/a/b")).toBe(false);
    expect(isWithin("/a", "/a/b")).toBe(false);
    expect(isWithin("/anything", "/")).toBe(true);
  });

  it("parseAllowRoots: absolute prefixes only, normalized; otherwise a ConfigError naming the setting", () => {
    expect(parseAllowRoots(["/srv/repos/", "/srv/repos", "/home/me/../me/src"])).toEqual([
      "/srv/repos",
      "/home/me/src",
    ]);
    for (const bad of ["", "relative", "./x", "~/src", "/" + "a".repeat(MAX_ROOT_LENGTH), "/a\0b"]) {
      const err = (() => {
        try {
          parseAllowRoots([bad], "--allow-root / PROSPERO_ALLOW_ROOT");
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err, JSON.stringify(bad)).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).setting).toBe("--allow-root / PROSPERO_ALLOW_ROOT");
    }
  });
});

describe("addWorkspace applies the root rules", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("refuses system roots and roots outside --allow-root with ValidationFailed [root]; nothing is stored", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    const elsewhere = tmpDir("roots-");
    const h = await startFleet({ runtimeDir: d.ws.runtime, allowRoots: [path.dirname(d.ws.root)] });
    cleanups.push(() => h.close());
    for (const root of ["/", "/etc", "/proc/self/cwd", "/tmp", elsewhere]) {
      await expect(h.fleet.addWorkspace({ name: "demo", root }), root).rejects.toMatchObject({
        code: "BAD_USER_INPUT",
        issues: [{ path: ["root"] }],
      });
    }
    expect(await h.db.prisma.workspace.count()).toBe(0);
    expect(d.daemon.requests).toHaveLength(0);
    const { workspace } = await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    expect(workspace.root).toBe(d.ws.root);
  });
});
