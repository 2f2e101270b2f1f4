/**
 * One snapshot of a working tree (issue 16 item 1; design-16 §2): the working tree's state — tracked
 * changes, new files git does not ignore, deletions — as a commit in the repository's object store,
 * built in a temporary index outside the repository. The agent's index, working tree, branch and
 * HEAD are never written: only objects are added (blobs, one tree, at most one commit). The caller
 * (CaptureService) points our refs at the result. docs/changes.md says what this writes.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GitError, runGit, splitNul } from "./git.js";
import type { CaptureLimits } from "./types.js";

/** Why a working tree cannot be snapshotted at all (not a transient git failure). */
export type NotCapturedWhy =
  "not_a_repository" | "not_toplevel" | "unborn" | "vanished" | "dubious_ownership";

/** A working tree that cannot be snapshotted; `message` says why in words. */
export class NotCaptured extends Error {
  constructor(
    readonly why: NotCapturedWhy,
    message: string,
  ) {
    super(message);
    this.name = "NotCaptured";
  }
}

/** What {@link takeSnapshot} needs besides the directory. */
export interface SnapshotOptions extends CaptureLimits {
  /** The snapshot commit's message. */
  message: string;
  /** Deadline of each git call, ms (default 60 000). */
  gitTimeoutMs?: number;
  /** The commit's author and committer date (default now). */
  now?: Date;
  /**
   * The previous snapshot's commit: when the working tree is unchanged since (same tree, same agent
   * HEAD as its parent) it is returned again instead of a new commit with the same content.
   */
  previousHead?: string | null;
}

/** A snapshot taken. */
export interface Snapshot {
  /** The snapshot commit: a new commit whose parent is `agentHead`, or `agentHead` itself when the
   *  working tree is exactly the agent's HEAD. */
  headCommit: string;
  /** The agent's own HEAD commit at the snapshot. */
  agentHead: string;
  /** The snapshot's tree. */
  tree: string;
  /** Absolute git common dir of the repository (where objects and refs live). */
  gitDir: string;
  /** Files of the working tree the caps left out (their changes are not in the snapshot). */
  skippedFiles: number;
  /** Their bytes (lstat sizes). */
  skippedBytes: number;
  /** The caps (and unreadable files) in words, or null when nothing was left out. */
  capNote: string | null;
}

/** The identity of every snapshot commit (never a person's). */
export const SNAPSHOT_IDENTITY = { name: "Prospero", email: "prospero@localhost" } as const;

/** Top-level directory caliband keeps its worktrees in (`<source>/.caliban/worktrees`, §5.5): never a run's change. */
const CALIBAND_DIR = ".caliban/";

const MiB = 1024 * 1024;

/** Bytes in words: "812 B", "3.4 KiB", "10 MiB", "2.0 GiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const s = Number.isInteger(v) ? String(v) : v.toFixed(1);
  return `${s} ${units[u]}`;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

function names(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(", ");
  return paths.length > 5 ? `${shown}, …` : shown;
}

/**
 * The cap note in words, or null: one sentence per reason, each naming the first 5 paths.
 * e.g. "big.bin (2.0 GiB) not captured: over 10 MiB (--capture-max-file-bytes)".
 */
export function capNoteOf(
  limits: CaptureLimits,
  tooLarge: readonly { path: string; bytes: number }[],
  overFiles: readonly string[],
  overBytes: readonly string[],
  unreadable: string | null,
): string | null {
  const parts: string[] = [];
  if (tooLarge.length === 1) {
    const f = tooLarge[0]!;
    parts.push(
      `${f.path} (${formatBytes(f.bytes)}) not captured: over ${formatBytes(limits.maxFileBytes)} (--capture-max-file-bytes)`,
    );
  } else if (tooLarge.length > 1) {
    parts.push(
      `${count(tooLarge.length, "file")} over ${formatBytes(limits.maxFileBytes)} not captured (--capture-max-file-bytes): ${names(tooLarge.map((f) => f.path))}`,
    );
  }
  if (overFiles.length > 0) {
    parts.push(
      `${count(overFiles.length, "file")} not captured: more than ${count(limits.maxFiles, "new or changed file")} (--capture-max-files): ${names(overFiles)}`,
    );
  }
  if (overBytes.length > 0) {
    parts.push(
      `${count(overBytes.length, "file")} not captured: more than ${formatBytes(limits.maxBytes)} of new or changed files (--capture-max-bytes): ${names(overBytes)}`,
    );
  }
  if (unreadable !== null) parts.push(`some files could not be read and were not captured: ${unreadable}`);
  return parts.length > 0 ? parts.join("; ") : null;
}

/** A path of the working tree `ls-files` reported, with what lstat found. */
interface Candidate {
  path: string;
  /** null: gone (deleted). */
  bytes: number | null;
}

/** lstat every path (relative to `top`), yielding to the event loop every 2 000 paths. */
async function statAll(top: string, paths: readonly string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % 2000 === 0) await new Promise((r) => setImmediate(r));
    const p = paths[i]!;
    try {
      const st = fs.lstatSync(path.join(top, p));
      out.push({ path: p, bytes: st.isFile() ? st.size : st.isSymbolicLink() ? st.size : 0 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") out.push({ path: p, bytes: null });
      else out.push({ path: p, bytes: 0 });
    }
  }
  return out;
}

/** How the worktree's own index is opened for its copy: read-only, non-blocking, never through a symlink. */
const INDEX_OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/** Code-point order of git paths (git sorts paths bytewise; equal for UTF-8). */
function byPath(a: string, b: string): number {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return Buffer.compare(x, y);
}

/**
 * Snapshot the working tree containing `workingDir` (design-16 §2 steps 1–5):
 * 1. the agent's HEAD (`rev-parse --verify HEAD^{commit}`);
 * 2. a temp index `<os tmpdir>/prospero-capture-<random>/index` (0700), a copy of the working tree's
 *    own index (else `read-tree HEAD`), removed afterwards whatever happens;
 * 3. `ls-files --modified --others --deleted --exclude-standard` against it (honours .gitignore);
 *    deletions are always taken; a file over `maxFileBytes` is left out; then, in path order, files
 *    until `maxFiles` or `maxBytes` would be exceeded — the rest are left out (`capNote` says so);
 *    caliband's own `.caliban/` directory is never taken;
 * 4. `add -A --ignore-errors --pathspec-from-file` (literal pathspecs) into the temp index only;
 * 5. `write-tree`; the same tree as HEAD's → `headCommit` is HEAD, else `commit-tree -p HEAD` as
 *    `Prospero <prospero@localhost>`.
 * The working tree is checked again at the end: one removed meanwhile (caliband deletes an isolated
 * worktree when its worker exits) is `vanished`, not a snapshot of a half-deleted tree.
 * @throws NotCaptured (not a repository, no commit yet, the directory is gone, refused ownership),
 *   GitError (a git call timed out, printed too much, or failed otherwise).
 */
export async function takeSnapshot(workingDir: string, opts: SnapshotOptions): Promise<Snapshot> {
  const timeoutMs = opts.gitTimeoutMs ?? 60_000;
  if (!isDirectory(workingDir))
    throw new NotCaptured("vanished", `the working directory ${workingDir} does not exist`);
  const small = { timeoutMs, maxOutputBytes: MiB };
  let top: string;
  let gitDir: string;
  let indexPath: string;
  try {
    const out = await runGit(["rev-parse", "--show-toplevel", "--git-common-dir", "--git-path", "index"], {
      cwd: workingDir,
      ...small,
    });
    const [t, c, i] = out.split("\n");
    if (!t || !c || !i) throw new GitError("failed", `unexpected rev-parse output: ${out.slice(0, 200)}`, []);
    top = t;
    gitDir = path.resolve(workingDir, c);
    indexPath = path.resolve(workingDir, i);
  } catch (err) {
    throw notCapturedOf(err, workingDir);
  }
  // The working directory must be the top of its own repository: a worktree whose `.git` is gone
  // (being removed, or deleted by the agent) would otherwise resolve to the repository around it —
  // the person's own checkout — and a directory inside a bigger repository to all of that one.
  if (realOrSelf(top) !== realOrSelf(workingDir))
    throw new NotCaptured(
      "not_toplevel",
      `the working directory ${workingDir} is not the top of a git repository (git finds ${top})`,
    );
  const inTop = { cwd: top, ...small };
  let agentHead: string;
  let headTree: string;
  try {
    const [c, t] = (await runGit(["rev-parse", "HEAD^{commit}", "HEAD^{tree}"], inTop)).split("\n");
    if (!c || !t) throw new GitError("failed", "HEAD does not resolve", []);
    agentHead = c;
    headTree = t;
  } catch (err) {
    // The directory is a repository (rev-parse above said so): a HEAD that does not resolve is
    // unborn — unless the worktree is being removed right now.
    if (!isDirectory(top) || !fs.existsSync(path.join(top, ".git")))
      throw new NotCaptured(
        "vanished",
        `the working directory ${workingDir} was removed during the snapshot`,
      );
    if (err instanceof GitError && err.code === "failed")
      throw new NotCaptured("unborn", "the repository has no commit yet");
    throw notCapturedOf(err, workingDir);
  }
  // The temp dir and the index copy go through fs/promises: a big repository's index is MiBs, and
  // a copy on the event loop stalls every stream of the fleet (issue 17).
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "prospero-capture-"));
  try {
    await fsp.chmod(tmp, 0o700);
    const index = path.join(tmp, "index");
    const withIndex = { ...inTop, indexFile: index };
    const listed = await listChanges(indexPath, index, withIndex);
    const candidates = await statAll(top, listed);
    const taken: string[] = [];
    const tooLarge: { path: string; bytes: number }[] = [];
    const overFiles: string[] = [];
    const overBytes: string[] = [];
    let skippedBytes = 0;
    let files = 0;
    let bytes = 0;
    let capped: "files" | "bytes" | null = null;
    for (const c of candidates) {
      if (c.bytes === null) {
        taken.push(c.path);
        continue;
      }
      if (c.bytes > opts.maxFileBytes) {
        tooLarge.push({ path: c.path, bytes: c.bytes });
        skippedBytes += c.bytes;
        continue;
      }
      if (capped === null) {
        if (files + 1 > opts.maxFiles) capped = "files";
        else if (bytes + c.bytes > opts.maxBytes) capped = "bytes";
      }
      if (capped !== null) {
        (capped === "files" ? overFiles : overBytes).push(c.path);
        skippedBytes += c.bytes;
        continue;
      }
      files++;
      bytes += c.bytes;
      taken.push(c.path);
    }
    let unreadable: string | null = null;
    if (taken.length > 0) {
      const specFile = path.join(tmp, "pathspec");
      await fsp.writeFile(specFile, taken.map((p) => `${p}\0`).join(""), { mode: 0o600 });
      try {
        await runGit(
          ["add", "-A", "--ignore-errors", `--pathspec-from-file=${specFile}`, "--pathspec-file-nul"],
          { ...withIndex, maxOutputBytes: 16 * MiB },
        );
      } catch (err) {
        // --ignore-errors: the readable files were added; git exits 1 naming the others.
        if (!(err instanceof GitError) || err.code !== "failed") throw notCapturedOf(err, workingDir);
        unreadable = err.stderr || "git add failed";
      }
    }
    const tree = (await runGit(["write-tree"], withIndex)).trim();
    let headCommit = agentHead;
    if (tree !== headTree && opts.previousHead && opts.previousHead !== agentHead) {
      const prev = await runGit(["show", "-s", "--format=%T %P", opts.previousHead], inTop).then(
        (out) => out.trim(),
        () => "",
      );
      if (prev === `${tree} ${agentHead}`) headCommit = opts.previousHead;
    }
    if (tree !== headTree && headCommit === agentHead) {
      const when = `@${Math.floor((opts.now ?? new Date()).getTime() / 1000)} +0000`;
      headCommit = (
        await runGit(["commit-tree", "--no-gpg-sign", tree, "-p", agentHead, "-m", opts.message], {
          ...inTop,
          env: {
            GIT_AUTHOR_NAME: SNAPSHOT_IDENTITY.name,
            GIT_AUTHOR_EMAIL: SNAPSHOT_IDENTITY.email,
            GIT_AUTHOR_DATE: when,
            GIT_COMMITTER_NAME: SNAPSHOT_IDENTITY.name,
            GIT_COMMITTER_EMAIL: SNAPSHOT_IDENTITY.email,
            GIT_COMMITTER_DATE: when,
          },
        })
      ).trim();
    }
    // The worktree may have been removed while we read it (caliband removes an isolated worktree
    // when its worker exits): then what we read may be a half-deleted tree. Refuse it.
    if (
      !isDirectory(top) ||
      !fs.existsSync(path.join(top, ".git")) ||
      !fs.existsSync(indexPathDir(indexPath))
    )
      throw new NotCaptured(
        "vanished",
        `the working directory ${workingDir} was removed during the snapshot`,
      );
    const skippedFiles = tooLarge.length + overFiles.length + overBytes.length;
    return {
      headCommit,
      agentHead,
      tree,
      gitDir,
      skippedFiles,
      skippedBytes,
      capNote: capNoteOf(opts, tooLarge, overFiles, overBytes, unreadable),
    };
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}

/** The directory holding a worktree's index (`.git/worktrees/<name>` or `.git`). */
function indexPathDir(indexPath: string): string {
  return path.dirname(indexPath);
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Seed the temp index (a copy of the working tree's own, else `read-tree HEAD`) and list the paths
 * that differ from it: modified, deleted, and untracked-not-ignored; sorted, unique, without
 * caliband's `.caliban/` directory.
 */
async function listChanges(
  ownIndex: string,
  index: string,
  withIndex: { cwd: string; indexFile: string; timeoutMs: number; maxOutputBytes: number },
): Promise<string[]> {
  const list = async (): Promise<string[]> =>
    splitNul(
      await runGit(["ls-files", "-z", "--modified", "--others", "--deleted", "--exclude-standard"], {
        ...withIndex,
        maxOutputBytes: 256 * MiB,
      }),
    );
  let paths: string[] | null = null;
  try {
    // Only a regular file is copied (a FIFO or device there would block the copy): opened
    // non-blocking without following a symlink, checked, and copied through that handle — a file
    // swapped in after a check by path cannot hold a thread of the pool.
    const fh = await fsp.open(ownIndex, INDEX_OPEN_FLAGS);
    try {
      if (!(await fh.stat()).isFile()) throw new Error("the index is not a regular file");
      await fsp.writeFile(index, await fh.readFile(), { mode: 0o600 });
    } finally {
      await fh.close();
    }
    paths = await list();
  } catch (err) {
    if (err instanceof GitError && err.code !== "failed") throw err;
    // No index yet, or one this git cannot read as a copy (split index…): start from HEAD.
    await fsp.rm(index, { force: true });
    await runGit(["read-tree", "HEAD"], withIndex);
    paths = await list();
  }
  const unique = [...new Set(paths)].filter((p) => p !== "" && !p.startsWith(CALIBAND_DIR));
  return unique.sort(byPath);
}

/** A rev-parse failure in words: not a repository / refused ownership / the directory is gone. */
function notCapturedOf(err: unknown, workingDir: string): unknown {
  if (err instanceof NotCaptured) return err;
  if (!isDirectory(workingDir))
    return new NotCaptured("vanished", `the working directory ${workingDir} does not exist`);
  if (err instanceof GitError) {
    if (err.code === "not_a_repository")
      return new NotCaptured("not_a_repository", "the workspace is not a git repository");
    if (err.code === "dubious_ownership")
      return new NotCaptured("dubious_ownership", `git refuses the repository: ${err.stderr}`);
  }
  return err;
}

/** realpath of `p`, or `p` itself when it cannot be resolved (gone). */
function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
