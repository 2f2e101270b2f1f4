/**
 * Control-socket path derivation, byte-for-byte as caliband computes it (caliband-protocol.md
 * §1.1). Follow the daemon, not prospero's mirror: an empty `CALIBAN_DAEMON_RUNTIME_DIR` and a
 * relative or empty `XDG_RUNTIME_DIR` are ignored. The hash covers the exact root string, so a
 * client canonicalises once and uses that string everywhere (§9 #45).
 */
import { createHash } from "node:crypto";
import { realpath, stat } from "node:fs/promises";

import { WorkspaceRootNotFound, errnoOf } from "./errors.js";

/** Environment variables that decide the runtime dir (§1.1). */
export type RuntimeEnv = Readonly<Record<string, string | undefined>>;

/**
 * `hash16` of §1.1: lowercase hex of the first 8 bytes of SHA-256 over the UTF-8 bytes of
 * `rootExact` (no canonicalisation, no trailing-slash stripping).
 * @example workspaceHash("/some/repo/root") === "ae89cb2b620ea8fc"
 */
export function workspaceHash(rootExact: string): string {
  return createHash("sha256").update(rootExact, "utf8").digest("hex").slice(0, 16);
}

/**
 * caliband's runtime dir (§1.1), first match wins:
 * 1. `CALIBAN_DAEMON_RUNTIME_DIR` when set and non-empty, verbatim (even if relative);
 * 2. `XDG_RUNTIME_DIR + "/caliban"` when `XDG_RUNTIME_DIR` is an absolute path (starts with `/`);
 * 3. `(TMPDIR if non-empty, else "/tmp") + "/caliban-daemon"` (Rust's temp dir reads only TMPDIR).
 */
export function runtimeDir(env: RuntimeEnv = process.env): string {
  const explicit = env.CALIBAN_DAEMON_RUNTIME_DIR;
  if (explicit !== undefined && explicit !== "") return explicit;
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && xdg.startsWith("/")) return rustJoin(xdg, "caliban");
  const tmp = env.TMPDIR;
  return rustJoin(tmp !== undefined && tmp !== "" ? tmp : "/tmp", "caliban-daemon");
}

/**
 * The control socket caliband binds for `canonicalRoot` when started without `--socket-path`
 * (§1.1): `<runtimeDir(env)>/<workspaceHash(canonicalRoot)>.sock`. Pass the string returned by
 * {@link canonicalizeRoot}; it is hashed as given.
 */
export function controlSocketPath(canonicalRoot: string, env: RuntimeEnv = process.env): string {
  return rustJoin(runtimeDir(env), `${workspaceHash(canonicalRoot)}.sock`);
}

/**
 * Join like Rust's `PathBuf::join`, which caliband uses (§1.1): no normalisation, so a relative
 * `./rt` stays `./rt/<hash>.sock`; exactly one `/` is inserted unless `base` already ends with one.
 * (`child` is never absolute here.)
 */
export function rustJoin(base: string, child: string): string {
  if (base === "") return child;
  return base.endsWith("/") ? `${base}${child}` : `${base}/${child}`;
}

/**
 * Canonicalise a workspace root once (realpath: absolute, symlinks and `..` resolved, no trailing
 * slash) so the same string serves for hashing and for `--workspace-root` (§1.1, §9 #45).
 * @throws WorkspaceRootNotFound when the path does not exist or is not a directory.
 */
export async function canonicalizeRoot(root: string): Promise<string> {
  let canonical: string;
  try {
    canonical = await realpath(root);
  } catch (err) {
    throw new WorkspaceRootNotFound(root, errnoOf(err) === "ENOENT" ? "does not exist" : String(err), {
      cause: err,
    });
  }
  const info = await stat(canonical);
  if (!info.isDirectory()) throw new WorkspaceRootNotFound(root, "is not a directory");
  return canonical;
}
