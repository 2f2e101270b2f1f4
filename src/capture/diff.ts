/**
 * Reading a run's changes back from its repository (issue 16 item 2): the files of base..head
 * (`diff-tree --numstat` + `--name-status`, no rename detection) and one file's unified diff,
 * bounded — blob sizes are checked with `ls-tree -l` before any diff runs, so a huge file is never
 * read, and a diff's text is cut at a byte bound on a character boundary. Plumbing commands only,
 * so a user's diff configuration (external diff, textconv, colour, renames) does not apply.
 */
import { GitError, runGit, runGitRaw, splitNul } from "./git.js";
import { formatBytes } from "./snapshot.js";
import type { FileChangeStatus } from "./types.js";

/** One file of base..head. */
export interface ChangedFile {
  path: string;
  status: FileChangeStatus;
  /** Lines added / deleted; null for a binary file. */
  additions: number | null;
  deletions: number | null;
}

/** Deadline of a read, ms. */
export const READ_TIMEOUT_MS = 30_000;

const STATUS: Record<string, FileChangeStatus> = {
  A: "ADDED",
  M: "MODIFIED",
  D: "DELETED",
  T: "TYPE_CHANGED",
};

/** Parse `diff-tree -r -z --no-renames --numstat` output: path → [additions, deletions] (null: binary). */
export function parseNumstat(out: string): Map<string, [number | null, number | null]> {
  const res = new Map<string, [number | null, number | null]>();
  for (const rec of splitNul(out)) {
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(rec);
    if (!m) continue;
    res.set(m[3]!, [m[1] === "-" ? null : Number(m[1]), m[2] === "-" ? null : Number(m[2])]);
  }
  return res;
}

/** Parse `diff-tree -r -z --no-renames --name-status` output: [status, path] pairs (A/M/D/T; others as MODIFIED). */
export function parseNameStatus(out: string): [FileChangeStatus, string][] {
  const parts = splitNul(out);
  const res: [FileChangeStatus, string][] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const letter = parts[i]!.charAt(0);
    res.push([STATUS[letter] ?? "MODIFIED", parts[i + 1]!]);
  }
  return res;
}

/**
 * The files changed between `base` and `head`, path order (bytewise, as git sorts).
 * @throws GitError
 */
export async function changedFiles(gitDir: string, base: string, head: string): Promise<ChangedFile[]> {
  const opts = { gitDir, cwd: gitDir, timeoutMs: READ_TIMEOUT_MS, maxOutputBytes: 256 * 1024 * 1024 };
  const [num, names] = await Promise.all([
    runGit(["diff-tree", "-r", "-z", "--no-renames", "--numstat", base, head], opts),
    runGit(["diff-tree", "-r", "-z", "--no-renames", "--name-status", base, head], opts),
  ]);
  const counts = parseNumstat(num);
  return parseNameStatus(names)
    .map(([status, p]) => {
      const c = counts.get(p) ?? [null, null];
      return { path: p, status, additions: c[0], deletions: c[1] };
    })
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/**
 * Sizes of blobs at `paths` in `commit` (`ls-tree -l`): path → bytes; a path absent from the commit,
 * or not a blob (a submodule), is not in the map.
 * @throws GitError
 */
export async function blobSizes(
  gitDir: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, number>> {
  const res = new Map<string, number>();
  if (paths.length === 0) return res;
  const out = await runGit(["ls-tree", "-l", "-z", commit, "--", ...paths], {
    gitDir,
    cwd: gitDir,
    timeoutMs: READ_TIMEOUT_MS,
    maxOutputBytes: 16 * 1024 * 1024,
  });
  for (const rec of splitNul(out)) {
    const m = /^\d+ (\w+) [0-9a-f]+ +(-|\d+)\t([\s\S]*)$/.exec(rec);
    if (m && m[1] === "blob" && m[2] !== "-") res.set(m[3]!, Number(m[2]));
  }
  return res;
}

/** Cut `buf` to at most `max` bytes on a UTF-8 character boundary. */
export function cutUtf8(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let end = max;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

/** One file's diff text, or why there is none. */
export interface FileDiff {
  text: string | null;
  truncated: boolean;
  omitted: string | null;
}

/**
 * The unified diff of one file base..head, at most `maxBytes` of text (cut on a character
 * boundary: `truncated`). Not read at all (text null, `omitted` says why) when the file is binary
 * or either side's blob is over `maxBlobBytes`.
 * @throws GitError
 */
export async function fileDiff(
  gitDir: string,
  base: string,
  head: string,
  file: { path: string; binary: boolean; sizes: readonly (number | undefined)[] },
  maxBytes: number,
  maxBlobBytes: number,
): Promise<FileDiff> {
  if (file.binary) return { text: null, truncated: false, omitted: "binary file" };
  const largest = Math.max(0, ...file.sizes.map((s) => s ?? 0));
  if (largest > maxBlobBytes)
    return { text: null, truncated: false, omitted: `${formatBytes(largest)}: too large to show` };
  let out: Buffer;
  try {
    out = await runGitRaw(
      [
        "diff-tree",
        "-p",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        base,
        head,
        "--",
        file.path,
      ],
      { gitDir, cwd: gitDir, timeoutMs: READ_TIMEOUT_MS, maxOutputBytes: 3 * maxBlobBytes + 64 * 1024 },
    );
  } catch (err) {
    if (err instanceof GitError && err.code === "output_too_large")
      return { text: null, truncated: false, omitted: "the diff is too large to show" };
    throw err;
  }
  const cut = cutUtf8(out, maxBytes);
  return { text: cut.toString("utf8"), truncated: cut.length < out.length, omitted: null };
}
