/**
 * Local trust of caliband Unix sockets (issue 11 item 8; caliband-protocol.md §1.1 "Permissions").
 * Unix connections to caliband are never authenticated, and caliband applies no modes of its own:
 * with `XDG_RUNTIME_DIR` unset its runtime dir is `$TMPDIR/caliban-daemon`, a name any local user
 * can create first. Whoever owns the socket we connect to receives our prompts and drives our
 * agents. So before a control socket is used its runtime dir must be ours and closed to others,
 * and before any Unix endpoint (control or per-agent) is connected the socket file must be ours.
 *
 * Checked against the effective uid (the owner our own files get). On platforms without uids
 * (Windows) nothing is checked. Ancestors of the runtime dir are not checked: a world-writable
 * parent such as `/tmp` is sticky, so nobody else can rename or remove a dir we own inside it.
 */
import { lstat, stat } from "node:fs/promises";
import type { Stats } from "node:fs";

import { UntrustedSocket, errnoOf } from "./errors.js";

/** Mode bits that let group or others write (or create entries in) a directory: `0o022`. */
const GROUP_OR_OTHER_WRITE = 0o022;

/** Our effective uid, or `undefined` where the platform has none (then nothing is checked). */
function ourUid(): number | undefined {
  return typeof process.geteuid === "function" ? process.geteuid() : undefined;
}

/** `0755`-style octal text of the permission bits (incl. setuid/setgid/sticky) of `st`. */
function modeText(st: Stats): string {
  return `0${(st.mode & 0o7777).toString(8).padStart(3, "0")}`;
}

/** Human text of a file's type for messages. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isSocket()) return "a socket";
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isFile()) return "a regular file";
  if (st.isFIFO()) return "a FIFO";
  return "a device or special file";
}

/**
 * Check caliband's runtime dir `dir` (the directory of the control socket, `runtimeDir(env)` of
 * §1.1) before anything is sent to a socket in it or a daemon is started there: it must be a
 * directory owned by our uid that group and others cannot write (no `0o022` bits; the private
 * default is 0700). A symbolic link at `dir` itself must be ours too (its target is then checked),
 * so nobody else can re-point it later.
 * @param endpoint the socket path, for the error's `endpoint`.
 * @returns `false` when `dir` does not exist (nothing to trust or distrust yet), `true` when trusted.
 * @throws UntrustedSocket naming `dir`, the owner and mode found and what is expected; errors of
 *   `stat` other than ENOENT are rethrown as they are.
 */
export async function checkRuntimeDir(dir: string, endpoint: string): Promise<boolean> {
  const uid = ourUid();
  if (uid === undefined) return true;
  let link: Stats;
  try {
    link = await lstat(dir);
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return false;
    throw err;
  }
  const expected =
    `a directory owned by uid ${uid} (this user) that group and others cannot write ` +
    `(e.g. \`chmod 700 ${dir}\`)`;
  if (link.isSymbolicLink() && link.uid !== uid) {
    throw new UntrustedSocket(
      endpoint,
      dir,
      `runtime dir ${dir} is a symbolic link owned by uid ${link.uid}`,
      `${expected}, or a symbolic link owned by this user`,
    );
  }
  let st = link;
  if (link.isSymbolicLink()) {
    try {
      st = await stat(dir);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return false; // dangling link of ours
      throw err;
    }
  }
  if (!st.isDirectory()) {
    throw new UntrustedSocket(endpoint, dir, `runtime dir ${dir} is ${kindOf(st)}`, expected);
  }
  if (st.uid !== uid || (st.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    const writable = [st.mode & 0o020 ? "group" : "", st.mode & 0o002 ? "others" : ""]
      .filter((who) => who !== "")
      .join(" and ");
    throw new UntrustedSocket(
      endpoint,
      dir,
      `runtime dir ${dir} has owner uid ${st.uid} and mode ${modeText(st)}` +
        (writable ? ` (writable by ${writable})` : ""),
      expected,
    );
  }
  return true;
}

/**
 * Check the file at a Unix endpoint's `socketPath` right before connecting to it: when it exists
 * it must be owned by our uid and be a socket — or a regular file, a stale leftover that connecting
 * refuses (ECONNREFUSED) and caliband replaces on bind. A symbolic link is refused (connect would
 * follow it anywhere). A missing path passes (connect then fails with ENOENT, as before). The
 * check does not follow the last component, so what is checked is what connect would open unless
 * the directory changes in between — which only its owner (us, see {@link checkRuntimeDir}) can do.
 * @param endpoint describes the endpoint for the error's `endpoint`.
 * @throws UntrustedSocket naming the path, its owner/type and what is expected.
 */
export async function checkSocketFile(socketPath: string, endpoint: string): Promise<void> {
  const uid = ourUid();
  if (uid === undefined) return;
  let st: Stats;
  try {
    st = await lstat(socketPath);
  } catch {
    return; // missing or unreadable: connect reports it (ENOENT, EACCES, ENOTDIR)
  }
  const expected = `a socket owned by uid ${uid} (this user)`;
  if (!st.isSocket() && !st.isFile()) {
    throw new UntrustedSocket(
      endpoint,
      socketPath,
      `${socketPath} is ${kindOf(st)} owned by uid ${st.uid}`,
      expected,
    );
  }
  if (st.uid !== uid) {
    throw new UntrustedSocket(
      endpoint,
      socketPath,
      `${socketPath} is ${kindOf(st)} owned by uid ${st.uid} (mode ${modeText(st)})`,
      expected,
    );
  }
}
