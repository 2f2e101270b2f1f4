/**
 * Source discovery as caliband does it (protocol §2.6, caliband `sources.rs`): a source is a
 * directory with a `.git` entry (file or directory); sources are the workspace root itself (named
 * by its basename) when it is a checkout, plus every immediate child directory that is a checkout,
 * sorted by name and de-duplicated by name.
 *
 * Discovery runs on every `Workspace.sources` query, so it uses async fs (the event loop keeps
 * serving while a big or slow directory is read) and is capped ({@link SOURCE_LIMITS}): a root
 * with a million entries costs at most `entries` directory entries and `entries` `.git` lookups.
 */
import fs from "node:fs/promises";
import path from "node:path";

/** A checkout an agent can be spawned in (`SpawnSpec.source`). */
export interface Source {
  /** Name to pass as `SpawnSpec.source`. */
  name: string;
  /** Absolute path of the checkout. */
  path: string;
}

/** Caps of one discovery. */
export interface SourceLimits {
  /**
   * Directory entries of the root examined at most (in the order the OS lists them); entries
   * beyond are not looked at, so their checkouts are missing from the result.
   */
  entries: number;
  /** Sources returned at most: the first ones by name. */
  sources: number;
}

/** Default caps: 10,000 entries examined, 1,000 sources returned. */
export const SOURCE_LIMITS: Readonly<SourceLimits> = { entries: 10_000, sources: 1_000 };

/** Result of {@link scanSources}: the sources and whether a cap cut the result short. */
export interface SourceScan {
  sources: Source[];
  /** The root had more entries than `limits.entries` (later ones were not examined). */
  entriesTruncated: boolean;
  /** More checkouts were found than `limits.sources` (the last ones by name were dropped). */
  sourcesTruncated: boolean;
}

/** `.git` lookups in flight at once. */
const CONCURRENCY = 32;

async function isCheckout(dir: string): Promise<boolean> {
  try {
    await fs.stat(path.join(dir, ".git"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Discover the sources of a (canonical) workspace root within `limits`, saying whether a cap was
 * hit. An unreadable root yields the root alone (if it is a checkout) or nothing; never throws.
 */
export async function scanSources(root: string, limits: SourceLimits = SOURCE_LIMITS): Promise<SourceScan> {
  const found = new Map<string, Source>();
  const rootName = path.basename(root);
  if (await isCheckout(root)) found.set(rootName, { name: rootName, path: root });
  const children: string[] = [];
  let entriesTruncated = false;
  try {
    const dir = await fs.opendir(root);
    let examined = 0;
    // `for await` closes the handle when the loop ends early.
    for await (const e of dir) {
      if (examined >= limits.entries) {
        entriesTruncated = true;
        break;
      }
      examined++;
      if (e.isDirectory()) children.push(e.name);
    }
  } catch {
    // Unreadable root: only the root itself can be a source.
  }
  for (let i = 0; i < children.length; i += CONCURRENCY) {
    const batch = children.slice(i, i + CONCURRENCY);
    const checks = await Promise.all(batch.map((name) => isCheckout(path.join(root, name))));
    batch.forEach((name, j) => {
      if (checks[j] && !found.has(name)) found.set(name, { name, path: path.join(root, name) });
    });
  }
  const all = [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    sources: all.slice(0, limits.sources),
    entriesTruncated,
    sourcesTruncated: all.length > limits.sources,
  };
}

/** Discover the sources of a (canonical) workspace root (capped by {@link SOURCE_LIMITS}); never throws. */
export async function discoverSources(root: string, limits: SourceLimits = SOURCE_LIMITS): Promise<Source[]> {
  return (await scanSources(root, limits)).sources;
}
