// Path derivation of the caliband test double: control socket name, runtime dir, session store.
// Follows docs/caliband-protocol.md §1.1 (socket path) and §5.6 (store layout) — the daemon's
// rules, not prospero's mirror of them.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import * as os from "node:os";

/**
 * Joins like Rust's `PathBuf::join`: an absolute `child` replaces `base`; otherwise exactly one `/`
 * separates them. No normalisation (caliband never canonicalises these strings, §1.1).
 */
export function rustJoin(base: string, child: string): string {
  if (child.startsWith("/")) return child;
  if (base === "") return child;
  return base.endsWith("/") ? base + child : `${base}/${child}`;
}

/** Parent directory like Rust's `Path::parent` for a socket path; `null` when there is none (§1.1). */
export function rustParent(p: string): string | null {
  const trimmed = p.replace(/\/+$/, "");
  const idx = trimmed.lastIndexOf("/");
  if (idx < 0) return trimmed === "" ? null : "";
  if (idx === 0) return "/";
  return trimmed.slice(0, idx);
}

/**
 * `hash16` of §1.1: lowercase hex of the first 8 bytes of SHA-256 over the exact UTF-8 bytes of the
 * workspace-root string (no canonicalisation). `/some/repo/root` → `ae89cb2b620ea8fc`.
 */
export function workspaceHash(rootExact: string): string {
  return createHash("sha256").update(rootExact, "utf8").digest("hex").slice(0, 16);
}

/**
 * Runtime dir of §1.1: `CALIBAN_DAEMON_RUNTIME_DIR` when non-empty (verbatim, even relative), else
 * `XDG_RUNTIME_DIR/caliban` when that is absolute, else `($TMPDIR || /tmp)/caliban-daemon`.
 */
export function runtimeDir(env: NodeJS.ProcessEnv): string {
  const explicit = env.CALIBAN_DAEMON_RUNTIME_DIR;
  if (explicit !== undefined && explicit !== "") return explicit;
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && xdg.startsWith("/")) return rustJoin(xdg, "caliban");
  const tmp = env.TMPDIR !== undefined && env.TMPDIR !== "" ? env.TMPDIR : "/tmp";
  return rustJoin(tmp, "caliban-daemon");
}

/** Control socket path of §1.1: `<runtimeDir(env)>/<workspaceHash(root)>.sock`. */
export function controlSocketPath(rootExact: string, env: NodeJS.ProcessEnv): string {
  return rustJoin(runtimeDir(env), `${workspaceHash(rootExact)}.sock`);
}

/**
 * Directory for per-agent Unix sockets (§1.1): `<dirname(control socket)>/agents`, or
 * `$TMPDIR/caliban-agents` when the control socket path has no parent.
 */
export function agentSocketDir(controlSocket: string, env: NodeJS.ProcessEnv): string {
  const parent = rustParent(controlSocket);
  if (parent === null || parent === "") {
    const tmp = env.TMPDIR !== undefined && env.TMPDIR !== "" ? env.TMPDIR : "/tmp";
    return rustJoin(tmp, "caliban-agents");
  }
  return rustJoin(parent, "agents");
}

/**
 * Store slug of §5.6: the canonicalised root with every leading `/` removed, `/` → `-`, and every
 * character outside `[A-Za-z0-9._-]` → `_` (`/home/alice/src/myrepo` → `home-alice-src-myrepo`).
 */
export function workspaceSlug(root: string): string {
  let canonical = root;
  try {
    canonical = realpathSync(root);
  } catch {
    // caliband falls back to the string as given
  }
  let out = "";
  for (const ch of canonical.replace(/^\/+/, "")) {
    if (ch === "/") out += "-";
    else if (/^[A-Za-z0-9._-]$/.test(ch)) out += ch;
    else out += "_";
  }
  return out;
}

/**
 * Default session store base of the double (not caliband's `~/.local/share/...`, so a real daemon's
 * data is never touched): `<os tmpdir>/prospero-fake-caliband/<slug>/agents` (§5.6 layout below it).
 */
export function defaultFakeDataBase(root: string): string {
  return rustJoin(rustJoin(os.tmpdir(), "prospero-fake-caliband"), `${workspaceSlug(root)}/agents`);
}
