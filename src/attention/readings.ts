/**
 * The health monitor's disk figures from the real filesystem (the {@link DiskReader} of
 * src/attention/monitor.ts; tests inject their own): free space by `statfs`, a file's size, and the
 * space a directory tree uses — walked without following symbolic links, without crossing into
 * another filesystem, counting each hard-linked inode once, stopping as soon as the count passes
 * the caller's limit, and giving the event loop a turn every {@link WALK_YIELD_EVERY} entries, so a
 * huge `.caliban/worktrees` never stalls the gateway and costs at most what the limit needs.
 */
import fsp from "node:fs/promises";
import type { Stats } from "node:fs";
import path from "node:path";
import type { DiskReader } from "./monitor.js";

/** Entries examined between two explicit yields to the event loop. */
export const WALK_YIELD_EVERY = 256;

/** Hard-linked inodes remembered at most per walk (beyond, further links are counted again). */
const MAX_LINKED_INODES = 100_000;

/** A missing path (or one of its parents not a directory): nothing there to count. */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Bytes a file occupies on disk (allocated blocks of 512 bytes, as `du` counts them). */
function allocated(st: Stats): number {
  return st.blocks * 512;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Bytes used under `dir` (its own entry included): allocated blocks of every entry, symbolic links
 * counted as themselves and never followed, directories on another filesystem (a mount point
 * inside) counted as their mount entry only, hard links once. Unreadable or vanishing entries are
 * skipped. Counting stops as soon as the total exceeds `limit`, so a result above `limit` is a
 * lower bound.
 * @returns 0 when `dir` does not exist.
 * @throws the `lstat` error of `dir` itself other than "missing" (EACCES on the path, EIO …).
 */
export async function usedBytes(dir: string, limit: number): Promise<number> {
  let top: Stats;
  try {
    top = await fsp.lstat(dir);
  } catch (err) {
    if (isMissing(err)) return 0;
    throw err;
  }
  let total = allocated(top);
  if (!top.isDirectory()) return total;
  const linked = new Set<string>();
  const pending = [dir];
  let examined = 0;
  while (pending.length > 0 && total <= limit) {
    const d = pending.pop()!;
    let handle;
    try {
      handle = await fsp.opendir(d);
    } catch {
      continue; // unreadable, or removed since it was listed (a worktree deleted at agent exit)
    }
    // `for await` closes the handle when the loop ends, breaks or throws.
    for await (const e of handle) {
      const p = path.join(d, e.name);
      let st: Stats;
      try {
        st = await fsp.lstat(p);
      } catch {
        continue;
      }
      if (!st.isDirectory() && st.nlink > 1 && linked.size < MAX_LINKED_INODES) {
        const key = `${st.dev}:${st.ino}`;
        if (linked.has(key)) continue;
        linked.add(key);
      }
      total += allocated(st);
      if (st.isDirectory() && st.dev === top.dev) pending.push(p);
      if (total > limit) break;
      if (++examined % WALK_YIELD_EVERY === 0) await yieldToLoop();
    }
  }
  return total;
}

/**
 * Free bytes for an unprivileged user on the filesystem holding `p` (`statfs` bavail × bsize).
 * @throws the statfs error (ENOENT for a missing path, …).
 */
export async function freeBytes(p: string): Promise<number> {
  const s = await fsp.statfs(p);
  return s.bavail * s.bsize;
}

/**
 * Size of the file at `p`, bytes (its length, not its allocation).
 * @returns 0 when it does not exist.
 * @throws other stat errors.
 */
export async function fileBytes(p: string): Promise<number> {
  try {
    return (await fsp.stat(p)).size;
  } catch (err) {
    if (isMissing(err)) return 0;
    throw err;
  }
}

/** The real {@link DiskReader}: {@link freeBytes}, {@link usedBytes}, {@link fileBytes}. */
export const fsDiskReader: DiskReader = { freeBytes, usedBytes, fileBytes };
