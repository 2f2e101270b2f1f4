/**
 * Which directories may become workspace roots (issue 11 §7). A root is where caliband runs agents
 * that read, write and execute, so it must be a project directory of the gateway's own user:
 * an absolute path of at most {@link MAX_ROOT_LENGTH} characters naming an existing directory
 * owned by the gateway's uid that is not a system directory ({@link SYSTEM_TREES},
 * {@link SYSTEM_CONTAINERS}); with an operator allowlist (`--allow-root <prefix>`) it must also
 * lie under one of its prefixes. The path as given AND its realpath are checked (`/proc/self/cwd`
 * resolves to the gateway's cwd, a symlink may point into `/etc`).
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { canonicalizeRoot } from "../caliband/paths.js";
import { ConfigError } from "../errors.js";
import { ValidationFailed } from "../errors.js";

/** Longest accepted root (as given and canonical), characters. */
export const MAX_ROOT_LENGTH = 1024;

/** Directories that may not be a root nor contain one: kernel interfaces, system config and binaries, runtime state. */
export const SYSTEM_TREES: readonly string[] = [
  "/proc",
  "/sys",
  "/dev",
  "/etc",
  "/boot",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/usr",
  "/run",
  "/var/run",
  "/snap",
  // macOS: /etc and /var/run are symlinks into /private; the OS lives in /System and /Library.
  "/private/etc",
  "/private/var/run",
  "/System",
  "/Library",
];

/**
 * Shared parent directories that may contain roots but may not be one: a root there would give
 * agents every user's or every program's files (`/tmp` itself, but `/tmp/x/repo` is fine).
 * At check time the OS temp dir and the parent of the gateway user's home are added.
 */
export const SYSTEM_CONTAINERS: readonly string[] = [
  "/tmp",
  "/var/tmp",
  "/home",
  "/Users",
  "/var",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
  "/Volumes",
  "/private",
  "/private/tmp",
  "/private/var",
  "/private/var/tmp",
];

const FOLD_CASE = process.platform === "darwin" || process.platform === "win32";

function norm(p: string): string {
  return FOLD_CASE ? p.toLowerCase() : p;
}

/** True when `p` equals `prefix` or lies under it, by whole path segments (`/a/bc` is not under `/a/b`). */
export function isWithin(p: string, prefix: string): boolean {
  const a = norm(p);
  const b = norm(prefix);
  if (b === "/") return a.startsWith("/");
  return a === b || a.startsWith(b.endsWith("/") ? b : `${b}/`);
}

/** Exact-refusal set for this process: {@link SYSTEM_CONTAINERS}, the OS temp dir, the home dir's parent. */
function containers(): string[] {
  const out = [...SYSTEM_CONTAINERS, path.resolve(os.tmpdir())];
  const home = os.homedir();
  if (home && path.isAbsolute(home)) {
    const parent = path.dirname(path.resolve(home));
    if (parent !== "/") out.push(parent);
  }
  return out;
}

/** Why `p` (absolute, normalized) is a system directory, or null when it is not. */
export function systemDirectoryReason(p: string): string | null {
  if (p === "/") return "/ is the whole file system";
  const tree = SYSTEM_TREES.find((t) => isWithin(p, t));
  if (tree) return tree === p ? `${p} is a system directory` : `it is inside the system directory ${tree}`;
  const exact = containers().find((c) => norm(c) === norm(p));
  if (exact) return `${p} is a shared parent directory (a root may be inside it, not it)`;
  return null;
}

/**
 * Validate operator root prefixes (`--allow-root <prefix>`, repeatable): absolute paths of at most
 * {@link MAX_ROOT_LENGTH} characters without NUL; normalized (`..`, `.` and trailing slashes
 * removed) and de-duplicated.
 * @param setting how they were given, for the error (e.g. `--allow-root / PROSPERO_ALLOW_ROOT`).
 * @throws ConfigError naming `setting` and the first bad prefix.
 */
export function parseAllowRoots(prefixes: readonly string[], setting = "--allow-root"): string[] {
  const expected = `absolute directory paths of at most ${MAX_ROOT_LENGTH} characters`;
  const out: string[] = [];
  for (const p of prefixes) {
    if (typeof p !== "string" || !p.startsWith("/") || p.length > MAX_ROOT_LENGTH || p.includes("\0")) {
      throw new ConfigError(setting, expected, `got ${JSON.stringify(p)}`);
    }
    const n = path.resolve(p);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** What {@link checkWorkspaceRoot} enforces beyond the built-in rules. */
export interface RootPolicy {
  /** Operator prefixes (from {@link parseAllowRoots}); empty or absent = any non-system directory. */
  allowRoots?: readonly string[];
  /**
   * The gateway's own directories (its data dir, holding the database and the admin token): a
   * root may not be one, contain one, or lie inside one (compared as given and as realpaths).
   */
  protectedDirs?: readonly string[];
}

function refuse(message: string): ValidationFailed {
  return new ValidationFailed([{ path: ["root"], message }]);
}

/**
 * Check a workspace root given by a client and return its canonical form (realpath: the exact
 * string hashed for the control socket and passed as `--workspace-root`, protocol §1.1).
 * Rules, in order: absolute; at most {@link MAX_ROOT_LENGTH} characters; not a system directory
 * as given (after removing `..`); exists and is a directory; its realpath at most
 * {@link MAX_ROOT_LENGTH} characters and not a system directory; owned by the gateway's uid
 * (where the platform has uids); not the gateway's data dir, inside it or above it
 * (`policy.protectedDirs`); under an allowed prefix when `policy.allowRoots` is non-empty
 * (a prefix is compared as given and as its realpath when it exists). Reads the file system only.
 * @throws ValidationFailed with path `["root"]` and a message saying which rule failed.
 */
export async function checkWorkspaceRoot(given: string, policy: RootPolicy = {}): Promise<string> {
  if (typeof given !== "string" || !given.startsWith("/")) throw refuse("must be an absolute path");
  if (given.length > MAX_ROOT_LENGTH) throw refuse(`must be at most ${MAX_ROOT_LENGTH} characters`);
  if (given.includes("\0")) throw refuse("must not contain a NUL character");
  const lexical = path.resolve(given);
  const asGiven = systemDirectoryReason(lexical);
  if (asGiven) throw refuse(`${given} may not be a workspace root: ${asGiven}`);
  let canonical: string;
  try {
    canonical = await canonicalizeRoot(given);
  } catch (err) {
    throw refuse((err as Error).message);
  }
  if (canonical.length > MAX_ROOT_LENGTH) {
    throw refuse(`resolves to a path longer than ${MAX_ROOT_LENGTH} characters`);
  }
  const resolved = systemDirectoryReason(canonical);
  if (resolved)
    throw refuse(`${given} resolves to ${canonical}, which may not be a workspace root: ${resolved}`);
  const uid = process.getuid?.();
  if (uid !== undefined) {
    const owner = (await fs.stat(canonical)).uid;
    if (owner !== uid) {
      throw refuse(`${canonical} is owned by uid ${owner}, not by the gateway's user (uid ${uid})`);
    }
  }
  for (const dir of policy.protectedDirs ?? []) {
    const real = await fs.realpath(dir).catch(() => path.resolve(dir));
    for (const d of new Set([path.resolve(dir), real])) {
      if (isWithin(canonical, d) || isWithin(d, canonical)) {
        throw refuse(
          `${canonical} may not be a workspace root: it ${isWithin(canonical, d) ? "is inside" : "contains"} the gateway's data dir ${d} (its database and admin token)`,
        );
      }
    }
  }
  const allow = policy.allowRoots ?? [];
  if (allow.length > 0) {
    const prefixes = await Promise.all(
      allow.map(async (p) => [p, await fs.realpath(p).catch(() => p)] as const),
    );
    if (!prefixes.some(([p, real]) => isWithin(canonical, p) || isWithin(canonical, real))) {
      throw refuse(`${canonical} is not under an allowed root (--allow-root ${allow.join(", ")})`);
    }
  }
  return canonical;
}
