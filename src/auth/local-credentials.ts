/**
 * How a CLI or SDK on the gateway's own machine finds a token by itself (issue 11 item 1): every
 * running gateway writes an endpoint file `<state dir>/gateways/<port>.json` (mode 0600, in a 0700
 * directory) naming its URL, pid and admin-token file; a client asking for a loopback URL with no
 * token given reads the token file of the live gateway on that port, else the `admin-token` file
 * of the default data dir (`PROSPERO_DATA_DIR` or `$XDG_DATA_HOME/prospero`). Nothing is trusted
 * unless the directory and files belong to the current user and are not writable by others.
 *
 * And the token is sent only to the gateway that owns it: whatever listens on a loopback port
 * could be another user's process waiting for tokens. Before using a found token the client asks
 * `GET /auth/local-proof?nonce=<random>` and checks the answer is
 * HMAC-SHA256(key = SHA-256 of the token, `<nonce>:<port>`): only a gateway holding that token's
 * hash can compute it, and binding the port defeats relaying the challenge to the real gateway.
 *
 * State dir: `$XDG_RUNTIME_DIR/prospero` when XDG_RUNTIME_DIR is absolute, else
 * `$XDG_STATE_HOME/prospero`, else `~/.local/state/prospero` (XDG Base Directory spec).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isLoopbackAddress } from "./http-policy.js";

/**
 * File in the data dir holding the bootstrap admin token (mode 0600). Defined here, not in
 * tokens.ts, so that clients (CLI, SDK) reading it load nothing of the gateway.
 */
export const ADMIN_TOKEN_FILE = "admin-token";

/** Where a gateway answers the local-token challenge (see the module comment). */
export const LOCAL_PROOF_PATH = "/auth/local-proof";

/**
 * The answer to a local-token challenge: lowercase hex HMAC-SHA256 keyed by the token's SHA-256
 * (lowercase hex, as stored) over `<nonce>:<port>`.
 */
export function localProof(secretHash: string, nonce: string, port: number): string {
  return createHmac("sha256", secretHash).update(`${nonce}:${port}`).digest("hex");
}

/** What a gateway records about itself for local clients. */
export interface EndpointRecord {
  /** Base URL, e.g. `http://127.0.0.1:7878`. */
  url: string;
  /** Listening port. */
  port: number;
  /** Gateway process id (a record whose process is gone is ignored). */
  pid: number;
  /** Absolute path of the admin-token file. */
  tokenFile: string;
}

/** The directory of endpoint files for `env` (see the module comment). */
export function endpointDir(env: NodeJS.ProcessEnv = process.env): string {
  const abs = (v: string | undefined) => (v && path.isAbsolute(v) ? v : null);
  const base =
    (abs(env.XDG_RUNTIME_DIR) && path.join(env.XDG_RUNTIME_DIR!, "prospero")) ??
    (abs(env.XDG_STATE_HOME) && path.join(env.XDG_STATE_HOME!, "prospero")) ??
    path.join(abs(env.HOME) ?? os.homedir(), ".local", "state", "prospero");
  return path.join(base, "gateways");
}

/** True when `p` exists, belongs to this user and is not writable by group or others. */
function ownedAndPrivate(p: string, kind: "dir" | "file"): boolean {
  try {
    const st = fs.lstatSync(p);
    if (kind === "dir" ? !st.isDirectory() : !st.isFile()) return false;
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return false;
    return (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Record this gateway for local clients. Failures are returned, not thrown (local discovery is a
 * convenience; `--token` / `PROSPERO_TOKEN` always work).
 * @returns a function removing the record (only if it is still ours), and the file or the error.
 */
export function writeEndpointRecord(
  rec: EndpointRecord,
  env: NodeJS.ProcessEnv = process.env,
): { remove: () => void; file: string | null; error: string | null } {
  const dir = endpointDir(env);
  const file = path.join(dir, `${rec.port}.json`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownedAndPrivate(dir, "dir")) {
      return { remove: () => {}, file: null, error: `${dir} is not a private directory of this user` };
    }
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, file);
    pruneDeadRecords(dir);
  } catch (err) {
    return { remove: () => {}, file: null, error: (err as Error).message };
  }
  return {
    file,
    error: null,
    remove: () => {
      try {
        const current = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<EndpointRecord>;
        if (current.pid === rec.pid) fs.rmSync(file, { force: true });
      } catch {
        // already gone or replaced
      }
    },
  };
}

/** Remove records of gateways whose process is gone (a gateway killed with SIGKILL leaves one). */
function pruneDeadRecords(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    const file = path.join(dir, name);
    try {
      const rec = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<EndpointRecord>;
      if (typeof rec.pid === "number" && !alive(rec.pid)) fs.rmSync(file, { force: true });
    } catch {
      // unreadable or half-written: leave it
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readToken(file: string): string | null {
  if (!ownedAndPrivate(file, "file")) return null;
  try {
    const t = fs.readFileSync(file, "utf8").trim();
    return t === "" ? null : t;
  } catch {
    return null;
  }
}

function defaultTokenFile(env: NodeJS.ProcessEnv): string {
  const abs = (v: string | undefined) => (v && path.isAbsolute(v) ? v : null);
  const dataDir =
    abs(env.PROSPERO_DATA_DIR) ??
    (abs(env.XDG_DATA_HOME) && path.join(env.XDG_DATA_HOME!, "prospero")) ??
    path.join(abs(env.HOME) ?? os.homedir(), ".local", "share", "prospero");
  return path.join(dataDir, ADMIN_TOKEN_FILE);
}

/**
 * A token for the gateway at `url` found on this machine, or null: only for loopback URLs; the
 * endpoint record of a live gateway on that port first, then the default data dir's admin-token.
 * It is not checked here that the listener owns it: use {@link findVerifiedLocalToken} before
 * sending it anywhere.
 */
export function findLocalToken(url: string, env: NodeJS.ProcessEnv = process.env): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!isLoopbackAddress(u.hostname)) return null;
  const port = portOf(u);
  const dir = endpointDir(env);
  const file = path.join(dir, `${port}.json`);
  if (ownedAndPrivate(dir, "dir") && ownedAndPrivate(file, "file")) {
    try {
      const rec = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<EndpointRecord>;
      if (typeof rec.pid === "number" && typeof rec.tokenFile === "string" && alive(rec.pid)) {
        const t = readToken(rec.tokenFile);
        if (t) return t;
      }
    } catch {
      // unreadable record: fall through
    }
  }
  return readToken(defaultTokenFile(env));
}

function portOf(u: URL): number {
  return Number(u.port || (u.protocol === "https:" ? 443 : 80));
}

/**
 * {@link findLocalToken}, but only when the gateway listening at `url` proves it owns that token
 * (the challenge of the module comment); null otherwise — no gateway there, another program, or
 * a stale token file. Never throws.
 * @param fetchImpl the `fetch` to use (the SDK's); deadline 3 s.
 */
export async function findVerifiedLocalToken(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  fetchImpl: (input: string, init: RequestInit) => Promise<Response> = (i, n) => fetch(i, n),
): Promise<string | null> {
  const token = findLocalToken(url, env);
  if (token === null) return null;
  try {
    const u = new URL(url);
    const nonce = randomBytes(16).toString("hex");
    const res = await fetchImpl(`${u.origin}${LOCAL_PROOF_PATH}?nonce=${nonce}`, {
      method: "GET",
      signal: AbortSignal.timeout(3_000),
    });
    if (res.status !== 200) return null;
    const body = (await res.json()) as { proof?: unknown };
    if (typeof body.proof !== "string" || !/^[0-9a-f]{64}$/.test(body.proof)) return null;
    const hash = createHash("sha256").update(token, "utf8").digest("hex");
    const expected = Buffer.from(localProof(hash, nonce, portOf(u)), "hex");
    return timingSafeEqual(expected, Buffer.from(body.proof, "hex")) ? token : null;
  } catch {
    return null;
  }
}
