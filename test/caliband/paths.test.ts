// Socket-path derivation exactly as caliband does it (caliband-protocol.md §1.1).
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { WorkspaceRootNotFound } from "../../src/caliband/errors.js";
import {
  canonicalizeRoot,
  controlSocketPath,
  runtimeDir,
  rustJoin,
  workspaceHash,
} from "../../src/caliband/paths.js";

describe("workspaceHash", () => {
  it.each([
    ["/some/repo/root", "ae89cb2b620ea8fc"],
    ["/home/alice/src/myrepo", "60d6754cf1ca0990"],
    ["/private/tmp/ws", "627a62660da8cef5"],
    ["/home/operator/src/demo-repo", "3a9d6497a15b086a"],
  ])("%s → %s", (root, hash) => {
    expect(workspaceHash(root)).toBe(hash);
  });

  it("hashes the exact string: trailing slash and aliases differ", () => {
    expect(workspaceHash("/some/repo/root/")).not.toBe(workspaceHash("/some/repo/root"));
  });
});

describe("runtimeDir precedence", () => {
  it.each<[string, Record<string, string>, string]>([
    [
      "explicit dir wins",
      { CALIBAN_DAEMON_RUNTIME_DIR: "/rt", XDG_RUNTIME_DIR: "/run/user/1", TMPDIR: "/t" },
      "/rt",
    ],
    [
      "explicit relative dir is verbatim",
      { CALIBAN_DAEMON_RUNTIME_DIR: "./rt", XDG_RUNTIME_DIR: "/run/user/1" },
      "./rt",
    ],
    [
      "empty explicit dir falls through",
      { CALIBAN_DAEMON_RUNTIME_DIR: "", XDG_RUNTIME_DIR: "/run/user/1" },
      "/run/user/1/caliban",
    ],
    ["absolute XDG", { XDG_RUNTIME_DIR: "/run/user/1000", TMPDIR: "/t" }, "/run/user/1000/caliban"],
    ["XDG with trailing slash", { XDG_RUNTIME_DIR: "/run/user/1000/" }, "/run/user/1000/caliban"],
    ["relative XDG ignored", { XDG_RUNTIME_DIR: "run/user", TMPDIR: "/t" }, "/t/caliban-daemon"],
    ["empty XDG ignored", { XDG_RUNTIME_DIR: "", TMPDIR: "/t" }, "/t/caliban-daemon"],
    ["TMPDIR", { TMPDIR: "/var/tmp/x" }, "/var/tmp/x/caliban-daemon"],
    ["TMPDIR with trailing slash", { TMPDIR: "/var/folders/ab/T/" }, "/var/folders/ab/T/caliban-daemon"],
    ["empty TMPDIR → /tmp", { TMPDIR: "" }, "/tmp/caliban-daemon"],
    ["nothing set → /tmp", {}, "/tmp/caliban-daemon"],
  ])("%s", (_name, env, expected) => {
    expect(runtimeDir(env)).toBe(expected);
  });
});

describe("controlSocketPath", () => {
  it("matches the documented example and the fixture layout", () => {
    expect(controlSocketPath("/home/alice/src/myrepo", { XDG_RUNTIME_DIR: "/run/user/1000" })).toBe(
      "/run/user/1000/caliban/60d6754cf1ca0990.sock",
    );
    expect(controlSocketPath("/home/operator/src/demo-repo", { XDG_RUNTIME_DIR: "/run/user/1000" })).toBe(
      "/run/user/1000/caliban/3a9d6497a15b086a.sock",
    );
  });

  it("joins like Rust (no normalisation)", () => {
    expect(controlSocketPath("/some/repo/root", { CALIBAN_DAEMON_RUNTIME_DIR: "./rt" })).toBe(
      "./rt/ae89cb2b620ea8fc.sock",
    );
    expect(controlSocketPath("/some/repo/root", { TMPDIR: "/tmp/" })).toBe(
      "/tmp/caliban-daemon/ae89cb2b620ea8fc.sock",
    );
    expect(rustJoin("a//b", "c")).toBe("a//b/c");
    expect(rustJoin("", "c")).toBe("c");
  });
});

describe("canonicalizeRoot", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("resolves symlinks and trailing slashes to one spelling (#45)", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cc-"));
    const real = path.join(dir, "real");
    await mkdir(real);
    const alias = path.join(dir, "alias");
    await symlink(real, alias);
    const canonical = await canonicalizeRoot(real);
    expect(await canonicalizeRoot(alias)).toBe(canonical);
    expect(await canonicalizeRoot(`${alias}/`)).toBe(canonical);
    expect(await canonicalizeRoot(path.join(alias, "..", "real"))).toBe(canonical);
    const env = { CALIBAN_DAEMON_RUNTIME_DIR: "/rt" };
    expect(controlSocketPath(await canonicalizeRoot(alias), env)).toBe(controlSocketPath(canonical, env));
  });

  it("rejects a missing path and a non-directory with a typed error", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cc-"));
    await expect(canonicalizeRoot(path.join(dir, "missing"))).rejects.toBeInstanceOf(WorkspaceRootNotFound);
    const file = path.join(dir, "file");
    await writeFile(file, "x");
    await expect(canonicalizeRoot(file)).rejects.toThrow(/not a directory/);
  });
});
