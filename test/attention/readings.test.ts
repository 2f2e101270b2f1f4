// The real disk figures of the health monitor (src/attention/readings.ts) on real files: a walk
// counts what a tree holds on disk, never follows a symlink out of it, counts a hard-linked file
// once, stops soon after passing its limit, and leaves the event loop free while it walks.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileBytes, freeBytes, usedBytes, WALK_YIELD_EVERY } from "../../src/attention/readings.js";
import { tmpDir } from "../helpers/tmp.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/** A file of `bytes` random bytes (random: no filesystem compresses or dedups it away). */
function writeFile(p: string, bytes: number): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 4096) buf.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
  fs.writeFileSync(p, buf);
}

/** What `du` would say: allocated blocks of `p`. */
const blocksOf = (p: string) => fs.lstatSync(p).blocks * 512;

describe("usedBytes", () => {
  it("sums what a tree occupies, nested directories included", async () => {
    const d = tmpDir();
    const wt = path.join(d, ".caliban", "worktrees");
    writeFile(path.join(wt, "a", "big.bin"), MiB);
    writeFile(path.join(wt, "b", "deep", "er", "f.bin"), 256 * KiB);
    const used = await usedBytes(wt, 1024 * MiB);
    const expected = [
      wt,
      `${wt}/a`,
      `${wt}/a/big.bin`,
      `${wt}/b`,
      `${wt}/b/deep`,
      `${wt}/b/deep/er`,
      `${wt}/b/deep/er/f.bin`,
    ]
      .map(blocksOf)
      .reduce((a, b) => a + b, 0);
    expect(used).toBe(expected);
    expect(used).toBeGreaterThanOrEqual(MiB + 256 * KiB);
  });

  it("does not follow symlinks (to a big file or a directory outside) and counts a hard link once", async () => {
    const d = tmpDir();
    const outside = path.join(d, "outside");
    writeFile(path.join(outside, "huge.bin"), 8 * MiB);
    const wt = path.join(d, "wt");
    writeFile(path.join(wt, "small.bin"), 64 * KiB);
    fs.symlinkSync(path.join(outside, "huge.bin"), path.join(wt, "link-to-file"));
    fs.symlinkSync(outside, path.join(wt, "link-to-dir"));
    fs.linkSync(path.join(wt, "small.bin"), path.join(wt, "hard-link.bin"));
    const used = await usedBytes(wt, 1024 * MiB);
    expect(used).toBeLessThan(MiB);
    const expected =
      blocksOf(wt) +
      blocksOf(path.join(wt, "small.bin")) +
      blocksOf(path.join(wt, "link-to-file")) +
      blocksOf(path.join(wt, "link-to-dir"));
    expect(used).toBe(expected);
  });

  it("stops counting past the limit", async () => {
    const d = tmpDir();
    for (let i = 0; i < 40; i++) writeFile(path.join(d, `f${i}.bin`), 128 * KiB);
    const all = await usedBytes(d, Number.MAX_SAFE_INTEGER);
    expect(all).toBeGreaterThanOrEqual(40 * 128 * KiB);
    const capped = await usedBytes(d, 300 * KiB);
    expect(capped).toBeGreaterThan(300 * KiB);
    // At most one entry past the limit: the walk ended there.
    expect(capped).toBeLessThanOrEqual(300 * KiB + blocksOf(path.join(d, "f0.bin")) + blocksOf(d));
    expect(capped).toBeLessThan(all);
  });

  it("is 0 for a missing directory; a plain file counts as itself", async () => {
    const d = tmpDir();
    expect(await usedBytes(path.join(d, "no", "such", "dir"), MiB)).toBe(0);
    writeFile(path.join(d, "file.bin"), 10 * KiB);
    expect(await usedBytes(path.join(d, "file.bin", "below"), MiB)).toBe(0);
    expect(await usedBytes(path.join(d, "file.bin"), MiB)).toBe(blocksOf(path.join(d, "file.bin")));
  });

  it("lets the event loop run while it walks a big tree", async () => {
    const d = tmpDir();
    const n = WALK_YIELD_EVERY * 8;
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(d, `e${i}`), "x");
    let turns = 0;
    let walking = true;
    const tick = () => {
      turns++;
      if (walking) setImmediate(tick);
    };
    setImmediate(tick);
    const used = await usedBytes(d, Number.MAX_SAFE_INTEGER);
    walking = false;
    expect(used).toBeGreaterThan(0);
    // Other work got turns during the walk (at least one per explicit yield).
    expect(turns).toBeGreaterThanOrEqual(8);
  });
});

describe("freeBytes and fileBytes", () => {
  it("free bytes are statfs's for unprivileged users; a missing path is an error", async () => {
    const d = tmpDir();
    const s = fs.statfsSync(d);
    const free = await freeBytes(d);
    expect(free).toBeGreaterThan(0);
    // The same filesystem a moment later: within 64 MiB of what statfs said.
    expect(Math.abs(free - s.bavail * s.bsize)).toBeLessThan(64 * MiB);
    await expect(freeBytes(path.join(d, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a file's size, 0 when it does not exist", async () => {
    const d = tmpDir();
    fs.writeFileSync(path.join(d, "db.sqlite"), Buffer.alloc(12_345));
    expect(await fileBytes(path.join(d, "db.sqlite"))).toBe(12_345);
    expect(await fileBytes(path.join(d, "db.sqlite-wal"))).toBe(0);
  });
});
