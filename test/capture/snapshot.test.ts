/**
 * takeSnapshot against real git repositories (issue 16 item 1): what a snapshot holds (edits, new
 * files, deletions, the agent's own commits as history; .gitignore honoured), that the agent's
 * index, working tree, branch and HEAD are untouched, the caps, and the typed errors of bad input.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitError, gitEnv, runGit } from "../../src/capture/git.js";
import { NotCaptured, takeSnapshot, type SnapshotOptions } from "../../src/capture/snapshot.js";
import { changedFiles } from "../../src/capture/diff.js";
import { git, makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";

const LIMITS = { maxFiles: 5000, maxFileBytes: 10 * 1024 * 1024, maxBytes: 100 * 1024 * 1024 };
const opts = (over: Partial<SnapshotOptions> = {}): SnapshotOptions => ({
  ...LIMITS,
  message: "test snapshot",
  ...over,
});

let ws: TempWorkspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function repo(): string {
  ws = makeTempWorkspace();
  return ws.root;
}

/** What a person (or agent) would see of a checkout: status (untracked included), index bytes, HEAD, branches. */
function checkoutState(dir: string): { status: string; index: string; head: string; branches: string } {
  const gitPath = git(dir, ["rev-parse", "--git-path", "index"]).trim();
  return {
    status: git(dir, ["status", "--porcelain=v2", "--untracked-files=all", "--branch"]),
    index: fs.readFileSync(path.resolve(dir, gitPath)).toString("base64"),
    head: git(dir, ["rev-parse", "HEAD"]).trim(),
    branches: git(dir, ["branch", "--list", "--format=%(refname) %(objectname)"]),
  };
}

function treeOf(dir: string, commit: string): string[] {
  return git(dir, ["ls-tree", "-r", "--name-only", commit]).trim().split("\n").filter(Boolean).sort();
}

/** Run `fn` with a private TMPDIR (other test processes snapshot too); returns what it left there. */
async function inPrivateTmp<T>(fn: () => Promise<T>): Promise<{ value: T | unknown; left: string[] }> {
  const dir = fs.mkdtempSync(path.join(ws!.tmp, "tmpdir-"));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    const value = await fn().catch((e: unknown) => e);
    return { value, left: fs.readdirSync(dir) };
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

function write(dir: string, rel: string, body: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), body);
}

describe("takeSnapshot", () => {
  it("captures edits, new files and deletions, honours .gitignore, and leaves the checkout exactly as it was", async () => {
    const root = repo();
    write(root, "OBSOLETE.txt", "old\n");
    write(root, ".gitignore", "*.log\nbuild/\n");
    write(root, "src/keep.ts", "export const k = 1;\n");
    git(root, ["add", "."]);
    git(root, ["commit", "-q", "-m", "more"]);
    const base = git(root, ["rev-parse", "HEAD"]).trim();
    // The agent's work: an edit, a staged edit, a new file, a deletion, ignored output.
    fs.appendFileSync(path.join(root, "README.md"), "a new line\n");
    write(root, "src/keep.ts", "export const k = 2;\n");
    git(root, ["add", "src/keep.ts"]);
    write(root, "src/new.ts", "export const n = 1;\n");
    fs.rmSync(path.join(root, "OBSOLETE.txt"));
    write(root, "debug.log", "noise\n");
    write(root, "build/out.js", "compiled\n");
    const before = checkoutState(root);

    const run = await inPrivateTmp(() => takeSnapshot(root, opts()));
    const snap = run.value as Awaited<ReturnType<typeof takeSnapshot>>;

    expect(checkoutState(root)).toEqual(before);
    // The temp index lived outside the repository and is gone.
    expect(run.left).toEqual([]);
    expect(snap.agentHead).toBe(base);
    expect(snap.headCommit).not.toBe(base);
    expect(snap.gitDir).toBe(fs.realpathSync(path.join(root, ".git")));
    expect(git(root, ["rev-parse", `${snap.headCommit}^`]).trim()).toBe(base);
    expect(git(root, ["log", "-1", "--format=%an <%ae>|%cn <%ce>", snap.headCommit]).trim()).toBe(
      "Prospero <prospero@localhost>|Prospero <prospero@localhost>",
    );
    expect(treeOf(root, snap.headCommit)).toEqual([".gitignore", "README.md", "src/keep.ts", "src/new.ts"]);
    expect(git(root, ["show", `${snap.headCommit}:README.md`])).toBe(
      fs.readFileSync(path.join(root, "README.md"), "utf8"),
    );
    expect(git(root, ["show", `${snap.headCommit}:src/keep.ts`])).toBe("export const k = 2;\n");
    expect(await changedFiles(snap.gitDir, base, snap.headCommit)).toEqual([
      { path: "OBSOLETE.txt", status: "DELETED", additions: 0, deletions: 1 },
      { path: "README.md", status: "MODIFIED", additions: 1, deletions: 0 },
      { path: "src/keep.ts", status: "MODIFIED", additions: 1, deletions: 1 },
      { path: "src/new.ts", status: "ADDED", additions: 1, deletions: 0 },
    ]);
    expect(snap).toMatchObject({ skippedFiles: 0, skippedBytes: 0, capNote: null });
    // No ref was written.
    expect(git(root, ["for-each-ref"]).trim().split("\n")).toHaveLength(1);
  });

  it("a clean working tree is the agent's HEAD itself; the agent's own commits are the snapshot's history", async () => {
    const root = repo();
    const start = git(root, ["rev-parse", "HEAD"]).trim();
    const clean = await takeSnapshot(root, opts());
    expect(clean.headCommit).toBe(start);
    // The agent commits on its branch, then edits some more.
    write(root, "a.txt", "committed by the agent\n");
    git(root, ["add", "a.txt"]);
    git(root, ["commit", "-q", "-m", "agent commit"]);
    const agentCommit = git(root, ["rev-parse", "HEAD"]).trim();
    write(root, "b.txt", "not committed\n");
    const snap = await takeSnapshot(root, opts());
    expect(snap.agentHead).toBe(agentCommit);
    expect(git(root, ["rev-list", snap.headCommit]).trim().split("\n")).toEqual([
      snap.headCommit,
      agentCommit,
      start,
    ]);
    expect(treeOf(root, snap.headCommit)).toEqual(["README.md", "a.txt", "b.txt"]);
  });

  it("snapshots a linked worktree into the common object store without touching it", async () => {
    const root = repo();
    const wt = path.join(ws!.tmp, "wt");
    git(root, ["worktree", "add", "-q", "-b", "caliban/0123456789abcdef0123456789abcdef", wt, "HEAD"]);
    write(wt, "x.txt", "in the worktree\n");
    const before = checkoutState(wt);
    const rootBefore = checkoutState(root);
    const snap = await takeSnapshot(wt, opts());
    expect(checkoutState(wt)).toEqual(before);
    expect(checkoutState(root)).toEqual(rootBefore);
    expect(snap.gitDir).toBe(fs.realpathSync(path.join(root, ".git")));
    // The objects are in the main repository: readable after the worktree is gone.
    git(root, ["worktree", "remove", "--force", wt]);
    expect(treeOf(root, snap.headCommit)).toEqual(["README.md", "x.txt"]);
  });

  it("a worktree inside the repository that lost its .git is not snapshotted as the repository around it", async () => {
    const root = repo();
    // caliband's layout: the worktree lives inside the person's checkout.
    const wt = path.join(root, ".caliban", "worktrees", "0123456789abcdef0123456789abcdef");
    git(root, ["worktree", "add", "-q", "-b", "caliban/0123456789abcdef0123456789abcdef", wt, "HEAD"]);
    write(root, "PRIVATE_NOTES.txt", "the person's own, never the run's\n");
    write(wt, "x.txt", "the run's\n");
    fs.renameSync(path.join(wt, ".git"), path.join(wt, ".git.moved"));
    const refsBefore = git(root, ["for-each-ref"]);
    const e = await takeSnapshot(wt, opts()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NotCaptured);
    expect(e).toMatchObject({ why: "not_toplevel" });
    expect((e as Error).message).toContain(`git finds ${fs.realpathSync(root)}`);
    expect(git(root, ["for-each-ref"])).toBe(refsBefore);
  });

  it("a working directory below the top of a bigger repository is refused, not captured as all of it", async () => {
    const root = repo();
    const sub = path.join(root, "sub");
    fs.mkdirSync(sub);
    write(root, "outside.txt", "not under sub\n");
    write(sub, "inside.txt", "under sub\n");
    const e = await takeSnapshot(sub, opts()).catch((err: unknown) => err);
    expect(e).toMatchObject({ why: "not_toplevel" });
    expect((e as Error).message).toMatch(/^the working directory .*\/sub is not the top of a git repository/);
  });

  it("leaves a 2 GB file out and says so", async () => {
    const root = repo();
    const big = path.join(root, "big.bin");
    fs.writeFileSync(big, "");
    fs.truncateSync(big, 2 * 1024 * 1024 * 1024);
    write(root, "small.txt", "kept\n");
    const snap = await takeSnapshot(root, opts());
    expect(treeOf(root, snap.headCommit)).toEqual(["README.md", "small.txt"]);
    expect(snap.skippedFiles).toBe(1);
    expect(snap.skippedBytes).toBe(2 * 1024 * 1024 * 1024);
    expect(snap.capNote).toBe("big.bin (2 GiB) not captured: over 10 MiB (--capture-max-file-bytes)");
  });

  it("caps the number of new or changed files and their bytes, in path order, and says so", async () => {
    const root = repo();
    for (let i = 0; i < 25; i++) write(root, `f/${String(i).padStart(2, "0")}.txt`, "12345\n");
    fs.rmSync(path.join(root, "README.md"));
    const snap = await takeSnapshot(root, opts({ maxFiles: 10 }));
    // The deletion is always taken; 10 files fit; 15 are left out.
    expect(treeOf(root, snap.headCommit)).toEqual(
      Array.from({ length: 10 }, (_, i) => `f/${String(i).padStart(2, "0")}.txt`),
    );
    expect(snap.skippedFiles).toBe(15);
    expect(snap.skippedBytes).toBe(15 * 6);
    expect(snap.capNote).toBe(
      "15 files not captured: more than 10 new or changed files (--capture-max-files): f/10.txt, f/11.txt, f/12.txt, f/13.txt, f/14.txt, …",
    );
    const bytes = await takeSnapshot(root, opts({ maxBytes: 20 }));
    expect(treeOf(root, bytes.headCommit)).toEqual(["f/00.txt", "f/01.txt", "f/02.txt"]);
    expect(bytes.skippedFiles).toBe(22);
    expect(bytes.capNote).toMatch(
      /^22 files not captured: more than 20 B of new or changed files \(--capture-max-bytes\): f\/03\.txt/,
    );
  });

  it("a worktree with 100,000 untracked files is capped at --capture-max-files within seconds", async () => {
    const root = repo();
    for (let d = 0; d < 100; d++) {
      fs.mkdirSync(path.join(root, "gen", `d${String(d).padStart(3, "0")}`), { recursive: true });
      for (let i = 0; i < 1000; i++)
        fs.writeFileSync(
          path.join(root, "gen", `d${String(d).padStart(3, "0")}`, `f${String(i).padStart(4, "0")}`),
          "x",
        );
    }
    const snap = await takeSnapshot(root, opts());
    expect(snap.skippedFiles).toBe(95_000);
    expect(snap.skippedBytes).toBe(95_000);
    expect(snap.capNote).toMatch(
      /^95,000 files not captured: more than 5,000 new or changed files \(--capture-max-files\): gen\/d005\/f0000, /,
    );
    expect(treeOf(root, snap.headCommit)).toHaveLength(5001);
  }, 120_000);

  it("refuses what cannot be snapshotted with typed errors", async () => {
    const root = repo();
    // Not a git repository.
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), "not-git-"));
    try {
      const e1 = await takeSnapshot(plain, opts()).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(NotCaptured);
      expect(e1).toMatchObject({ why: "not_a_repository", message: "the workspace is not a git repository" });
      // A repository without a commit.
      git(plain, ["init", "-q"]);
      write(plain, "a.txt", "a\n");
      const e2 = await takeSnapshot(plain, opts()).catch((e: unknown) => e);
      expect(e2).toMatchObject({ why: "unborn", message: "the repository has no commit yet" });
    } finally {
      fs.rmSync(plain, { recursive: true, force: true });
    }
    // A directory that is gone.
    const gone = path.join(root, "no-such-dir");
    const e3 = await takeSnapshot(gone, opts()).catch((e: unknown) => e);
    expect(e3).toMatchObject({ why: "vanished" });
  });

  it("a hung git (a clean filter that never returns) is killed at its deadline: GitError timeout, checkout untouched", async () => {
    const root = repo();
    git(root, ["config", "filter.slow.clean", "sleep 10; cat"]);
    write(root, ".gitattributes", "*.txt filter=slow\n");
    write(root, "a.txt", "filtered\n");
    const before = checkoutState(root);
    const started = Date.now();
    const run = await inPrivateTmp(() => takeSnapshot(root, opts({ gitTimeoutMs: 500 })));
    const e = run.value;
    expect(run.left).toEqual([]);
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).code).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(9000);
    expect(checkoutState(root)).toEqual(before);
  });
});

describe("runGit", () => {
  it("runs git with an allowlisted environment: nothing else of the gateway's reaches it", async () => {
    const root = repo();
    const saved = { GIT_DIR: process.env.GIT_DIR, SECRET: process.env.PROSPERO_TEST_SECRET };
    process.env.GIT_DIR = "/nonexistent/.git";
    process.env.PROSPERO_TEST_SECRET = "s3cr3t";
    try {
      // GIT_DIR would point git elsewhere; it is not passed.
      expect(
        (
          await runGit(["rev-parse", "--show-toplevel"], {
            cwd: root,
            timeoutMs: 10_000,
            maxOutputBytes: 4096,
          })
        ).trim(),
      ).toBe(fs.realpathSync(root));
      const env = gitEnv({ indexFile: "/tmp/i", env: { GIT_AUTHOR_NAME: "P", OTHER: "x" } });
      expect(Object.keys(env).sort()).toEqual(
        [
          "GIT_AUTHOR_NAME",
          "GIT_INDEX_FILE",
          "GIT_LITERAL_PATHSPECS",
          "GIT_OPTIONAL_LOCKS",
          "GIT_TERMINAL_PROMPT",
          "HOME",
          "LANG",
          "LC_ALL",
          "PATH",
        ].filter((k) => k !== "HOME" || process.env.HOME !== undefined),
      );
    } finally {
      if (saved.GIT_DIR === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved.GIT_DIR;
      if (saved.SECRET === undefined) delete process.env.PROSPERO_TEST_SECRET;
      else process.env.PROSPERO_TEST_SECRET = saved.SECRET;
    }
  });

  it("bounds output and time with typed errors", async () => {
    const root = repo();
    const e1 = await runGit(["log", "-p"], { cwd: root, timeoutMs: 10_000, maxOutputBytes: 10 }).catch(
      (e: unknown) => e,
    );
    expect(e1).toMatchObject({ code: "output_too_large" });
    // git blocks opening a FIFO nobody writes to: only the deadline ends it.
    const fifo = path.join(ws!.tmp, "fifo");
    execFileSync("mkfifo", [fifo]);
    const e2 = await runGit(["hash-object", fifo], { cwd: root, timeoutMs: 300, maxOutputBytes: 4096 }).catch(
      (e: unknown) => e,
    );
    expect(e2).toMatchObject({ code: "timeout" });
    const e3 = await runGit(["rev-parse", "HEAD"], {
      cwd: os.tmpdir(),
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
    }).catch((e: unknown) => e);
    expect(e3).toMatchObject({ code: "not_a_repository" });
  });
});
