/**
 * Source discovery exactly as caliband does it (protocol §2.6, caliband `sources.rs`): a source
 * is a directory with a `.git` entry; sources are the workspace root itself (named by its
 * basename) when it is a checkout, plus every immediate child directory that is a checkout,
 * sorted by name and de-duplicated by name.
 */
import fs from "node:fs";
import path from "node:path";

/** A checkout an agent can be spawned in (`SpawnSpec.source`). */
export interface Source {
  /** Name to pass as `SpawnSpec.source`. */
  name: string;
  /** Absolute path of the checkout. */
  path: string;
}

function isCheckout(dir: string): boolean {
  return fs.existsSync(path.join(dir, ".git"));
}

/** Discover the sources of a (canonical) workspace root. Unreadable directories yield none. */
export function discoverSources(root: string): Source[] {
  const found = new Map<string, Source>();
  if (isCheckout(root)) found.set(path.basename(root), { name: path.basename(root), path: root });
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    entries = [];
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const dir = path.join(root, e.name);
    if (isCheckout(dir) && !found.has(e.name)) found.set(e.name, { name: e.name, path: dir });
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
