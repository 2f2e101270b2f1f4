/**
 * Calibands on other hosts (issue 18 item 5): a workspace may name a caliband started with
 * `--listen` (TCP + TLS + bearer token, protocol §6, caliban ADR 0051). What is stored is where
 * the daemon is (`host:port`) and the name its certificate must match — never a secret.
 *
 * The credentials are the OPERATOR's, bound to one endpoint: for `tcp://build1.example.net:7070`
 * they are read from `<credentials dir>/build1.example.net_7070/` ({@link credentialsKey}) —
 * `ca.pem` (the CA the daemon's certificate must chain to) and `token` (the bearer token), or the
 * token from the gateway environment variable `PROSPERO_CALIBAND_TOKEN_BUILD1_EXAMPLE_NET_7070`
 * ({@link tokenEnvName}). An API client names the endpoint only: it cannot pair one daemon's token
 * with another host (a token would then be sent to whoever holds a certificate from that CA), nor
 * have any other file or variable of the gateway sent anywhere. Credentials are read each time a
 * client is built (at the first poll and after every failed call), so a rotated token is used
 * within a poll.
 */
import fs from "node:fs/promises";
import { constants as fsConstants } from "node:fs";
import net from "node:net";
import path from "node:path";

import { Protocol, Unreachable } from "../caliband/errors.js";
import {
  parseHostPort,
  validateTransport,
  type ControlEndpoint,
  type Transport,
} from "../caliband/transport.js";
import type { Endpoint } from "../caliband/wire.js";
import { ValidationFailed } from "../errors.js";

/** A workspace's remote caliband as stored (no secret in it). */
export interface RemoteCaliband {
  /** Normalized `host:port` of the daemon's control listener (given as `tcp://host:port`). */
  addr: string;
  /** Name the daemon's certificate must match (SNI when a DNS name, and verification). */
  serverName: string;
}

/** What a client asks for (the GraphQL `RemoteCalibandInput`, the CLI's `workspace add --endpoint`). */
export interface RemoteCalibandInput {
  /** `tcp://host:port` of the daemon's `--listen` address (IPv6 hosts in brackets). */
  endpoint: string;
  /** Name the certificate must match; default the endpoint's host. */
  serverName?: string | null;
}

/** The operator's rules for remote workspaces (`--caliband-credentials-dir`). */
export interface RemotePolicy {
  /**
   * Absolute directories holding one subdirectory of credentials per remote daemon
   * ({@link credentialsKey}). Empty = no remote workspace can be added.
   */
  credentialsDirs: readonly string[];
}

/** Where a remote daemon's credentials were found. */
export interface RemoteCredentials {
  /** The endpoint's directory (realpath). */
  dir: string;
  /** Its CA file. */
  caFile: string;
  /** Its token file, or null when the token comes from {@link tokenFromEnv}. */
  tokenFile: string | null;
  /** The environment variable the token comes from when there is no token file, else null. */
  tokenFromEnv: string | null;
}

/** Largest CA file read, bytes (a bundle of a few dozen certificates). */
export const MAX_CA_FILE_BYTES = 256 * 1024;

/**
 * Longest token, bytes. caliband reads the preamble `{"bearer":"<token>"}\n` up to 4096 bytes
 * (§6); the token's characters ({@link TOKEN_CHARS}) need no JSON escape, so 4,000 always fits.
 */
export const MAX_TOKEN_BYTES = 4000;

/** Characters a token may hold: printable ASCII except `"` and `\` (never escaped in the preamble). */
export const TOKEN_CHARS = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** A DNS name (labels of letters, digits and `-`, not starting or ending with `-`). */
const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * The credentials of a remote workspace could not be read when its client was built (no directory
 * for the endpoint, a file missing or refused, the variable unset, a CA that does not parse). An
 * {@link Unreachable}: nothing can be sent to the daemon; the message says which and why.
 */
export class RemoteCredentialsUnavailable extends Unreachable {
  constructor(where: string, reason: string) {
    super(where, reason);
  }
}

/**
 * Parse and normalize `tcp://host:port` into the `host:port` the transport dials (§2.4): the host
 * is a DNS name (lower-cased), an IPv4 address or a bracketed IPv6 address (canonical form); the
 * port 1–65535; nothing may follow the port (no path, query or user info).
 * @returns the address, or undefined when malformed.
 */
export function parseRemoteEndpoint(text: string): string | undefined {
  const m = /^tcp:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  let host = m[1]!;
  if (host.startsWith("[")) {
    const inner = host.slice(1, -1);
    if (net.isIPv6(inner) === false) return undefined;
    host = `[${new URL(`http://[${inner}]/`).hostname.slice(1, -1)}]`;
  } else if (net.isIPv4(host)) {
    // canonical already (isIPv4 accepts only dotted quads)
  } else if (DNS_NAME.test(host) && !/^[0-9.]+$/.test(host)) {
    host = host.toLowerCase();
  } else {
    return undefined;
  }
  return `${host}:${port}`;
}

/** The dialable host of a `host:port` (brackets of an IPv6 literal removed). */
function hostOf(addr: string): string {
  return parseHostPort(addr)?.host ?? addr;
}

/**
 * The name of an endpoint's credentials directory: `host_port` (an IPv6 host without brackets),
 * e.g. `build1.example.net_7070`, `10.0.0.5_7070`, `::1_7070`.
 */
export function credentialsKey(addr: string): string {
  const p = parseHostPort(addr);
  return p ? `${p.host}_${p.port}` : addr;
}

/**
 * The environment variable an endpoint's token may come from (when its directory has no `token`
 * file): `PROSPERO_CALIBAND_TOKEN_` + the {@link credentialsKey} upper-cased, every character
 * other than a letter or digit as `_` (e.g. `PROSPERO_CALIBAND_TOKEN_BUILD1_EXAMPLE_NET_7070`).
 */
export function tokenEnvName(addr: string): string {
  return `PROSPERO_CALIBAND_TOKEN_${credentialsKey(addr)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "_")}`;
}

/** `tls://host:port`: how a remote daemon is named in messages and health reasons. */
export function describeRemote(remote: RemoteCaliband): string {
  return `tls://${remote.addr}`;
}

/**
 * Check a client's remote settings — the endpoint's form (see {@link parseRemoteEndpoint}), the
 * server name — and that the operator provisioned this endpoint: its credentials are read once
 * ({@link loadRemoteTransport}), so a missing directory, a CA that does not parse or an unset
 * variable is refused now, not found by the first poll. Reads files; changes nothing.
 * @param fieldPath where the input sits, for the issues' paths (e.g. `["remote"]`).
 * @throws ValidationFailed naming the bad field.
 */
export async function validateRemote(
  input: RemoteCalibandInput,
  policy: RemotePolicy,
  env: NodeJS.ProcessEnv,
  fieldPath: readonly string[] = ["remote"],
): Promise<RemoteCaliband> {
  const addr = parseRemoteEndpoint(input.endpoint);
  if (addr === undefined) {
    throw new ValidationFailed([
      {
        path: [...fieldPath, "endpoint"],
        message:
          "expected tcp://host:port: a DNS name, an IPv4 address or a bracketed IPv6 address, a port 1–65535, nothing after it",
      },
    ]);
  }
  const reasonOf = (err: unknown) => (err instanceof Unreachable ? err.reason : String(err));
  let creds: RemoteCredentials;
  let pinned: string;
  try {
    creds = await findRemoteCredentials({ addr, serverName: "" }, policy);
    pinned = await expectedServerName(creds, addr);
  } catch (err) {
    throw new ValidationFailed([{ path: [...fieldPath, "endpoint"], message: reasonOf(err) }]);
  }
  const serverName = input.serverName ?? pinned;
  if (net.isIP(serverName) === 0 && !DNS_NAME.test(serverName)) {
    throw new ValidationFailed([
      { path: [...fieldPath, "serverName"], message: "expected a DNS name or an IP address" },
    ]);
  }
  const remote: RemoteCaliband = { addr, serverName };
  try {
    await transportFrom(creds, remote, env);
  } catch (err) {
    const reason = reasonOf(err);
    const field = reason.startsWith("the server name") ? "serverName" : "endpoint";
    throw new ValidationFailed([{ path: [...fieldPath, field], message: reason }]);
  }
  return remote;
}

/** Longest `server-name` file read, bytes. */
const MAX_SERVER_NAME_BYTES = 256;

/**
 * The name the daemon at `addr` must present a certificate for, as the OPERATOR decides it: the
 * contents of `server-name` in its credentials directory when there is one, else the endpoint's
 * host. An API client may only repeat it (with a CA shared by several hosts, a name of the
 * client's choice would let any certificate of that CA receive the token).
 * @throws RemoteCredentialsUnavailable for an unreadable or malformed `server-name`.
 */
async function expectedServerName(creds: RemoteCredentials, addr: string): Promise<string> {
  const file = path.join(creds.dir, "server-name");
  if ((await fs.lstat(file).catch(() => null)) === null) return hostOf(addr);
  const where = `tls://${addr}`;
  let name: string;
  try {
    name = (await readCredential(file, MAX_SERVER_NAME_BYTES, "public")).trim();
  } catch (err) {
    throw new RemoteCredentialsUnavailable(where, `the server name cannot be read: ${messageOf(err)}`);
  }
  if (net.isIP(name) === 0 && !DNS_NAME.test(name)) {
    throw new RemoteCredentialsUnavailable(
      where,
      `the server name in ${file} is not a DNS name or an IP address`,
    );
  }
  return name;
}

/**
 * Find the credentials directory of `remote` in the operator's credentials directories (the first
 * that has one): a real directory (not a symbolic link) named {@link credentialsKey} holding
 * `ca.pem`, and `token` or else the variable {@link tokenEnvName}. Changes nothing.
 * @throws RemoteCredentialsUnavailable saying where they were looked for.
 */
export async function findRemoteCredentials(
  remote: RemoteCaliband,
  policy: RemotePolicy,
): Promise<RemoteCredentials> {
  const where = describeRemote(remote);
  const key = credentialsKey(remote.addr);
  if (policy.credentialsDirs.length === 0) {
    throw new RemoteCredentialsUnavailable(
      where,
      "no credentials directory is configured (start the gateway with --caliband-credentials-dir)",
    );
  }
  for (const base of policy.credentialsDirs) {
    const realBase = await fs.realpath(base).catch(() => null);
    if (realBase === null) continue;
    const dir = path.join(realBase, key);
    const st = await fs.lstat(dir).catch(() => null);
    if (st === null || !st.isDirectory()) continue;
    const token = path.join(dir, "token");
    const hasToken = (await fs.lstat(token).catch(() => null)) !== null;
    return {
      dir,
      caFile: path.join(dir, "ca.pem"),
      tokenFile: hasToken ? token : null,
      tokenFromEnv: hasToken ? null : tokenEnvName(remote.addr),
    };
  }
  throw new RemoteCredentialsUnavailable(
    where,
    `no credentials for this endpoint: the operator provisions them as ${path.join(policy.credentialsDirs[0]!, key)}/ca.pem and a token (its file token there, or the variable ${tokenEnvName(remote.addr)})`,
  );
}

/**
 * Read one file of an endpoint's credentials directory: a regular file (never a link, FIFO or
 * device: opened non-blocking without following links) of at most `maxBytes`; a `secret` one (the
 * token) also with one link only (a hard link could be any file of the gateway's user) and no
 * access for group or others.
 * @throws Error saying why the file is refused or unreadable (never its contents).
 */
async function readCredential(file: string, maxBytes: number, what: "public" | "secret"): Promise<string> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT"
        ? `${file} does not exist`
        : code === "ELOOP"
          ? `${file} is a symbolic link (not followed)`
          : `${file} cannot be opened: ${(err as Error).message}`,
    );
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (what === "secret" && st.nlink !== 1) throw new Error(`${file} has more than one hard link`);
    if (what === "secret" && (st.mode & 0o077) !== 0)
      throw new Error(`${file} is readable or writable by group or others (chmod 600 it)`);
    if (st.size > maxBytes) throw new Error(`${file} is larger than ${maxBytes} bytes`);
    const buf = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buf, 0, maxBytes + 1, 0);
    if (bytesRead > maxBytes) throw new Error(`${file} is larger than ${maxBytes} bytes`);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Build the transport of a remote workspace now: find its credentials
 * ({@link findRemoteCredentials}), read the CA and the token (file or variable in `env`) and check
 * them (the CA holds a certificate; the token is non-empty, ≤ {@link MAX_TOKEN_BYTES}, of
 * {@link TOKEN_CHARS}; a token file's trailing newline is dropped). The token is only returned,
 * never logged or put in an error.
 * @throws RemoteCredentialsUnavailable saying which credential and why.
 */
export async function loadRemoteTransport(
  remote: RemoteCaliband,
  policy: RemotePolicy,
  env: NodeJS.ProcessEnv,
): Promise<Transport> {
  return transportFrom(await findRemoteCredentials(remote, policy), remote, env);
}

/** {@link loadRemoteTransport} once its credentials directory is found. */
async function transportFrom(
  creds: RemoteCredentials,
  remote: RemoteCaliband,
  env: NodeJS.ProcessEnv,
): Promise<Transport> {
  const where = describeRemote(remote);
  const expected = await expectedServerName(creds, remote.addr);
  if (remote.serverName !== expected) {
    throw new RemoteCredentialsUnavailable(
      where,
      `the server name ${remote.serverName} is not the one the operator set for this endpoint (${expected}: ${creds.dir}/server-name, else the endpoint's host)`,
    );
  }
  let caPem: string;
  try {
    caPem = await readCredential(creds.caFile, MAX_CA_FILE_BYTES, "public");
  } catch (err) {
    throw new RemoteCredentialsUnavailable(where, `the CA certificate cannot be read: ${messageOf(err)}`);
  }
  let token: string;
  let source: string;
  if (creds.tokenFile !== null) {
    source = `the token file ${creds.tokenFile}`;
    try {
      token = (await readCredential(creds.tokenFile, MAX_TOKEN_BYTES + 2, "secret")).replace(/\r?\n$/, "");
    } catch (err) {
      throw new RemoteCredentialsUnavailable(where, `the bearer token is unavailable: ${messageOf(err)}`);
    }
  } else {
    const name = tokenEnvName(remote.addr);
    source = `the environment variable ${name}`;
    token = env[name] ?? "";
    if (token === "") {
      throw new RemoteCredentialsUnavailable(
        where,
        `the bearer token is unavailable: ${creds.dir} has no token file and ${source} is unset or empty`,
      );
    }
  }
  if (token === "" || Buffer.byteLength(token) > MAX_TOKEN_BYTES || !TOKEN_CHARS.test(token)) {
    throw new RemoteCredentialsUnavailable(
      where,
      `the bearer token in ${source} is unusable: expected 1–${MAX_TOKEN_BYTES} printable ASCII characters without spaces, quotes or backslashes`,
    );
  }
  const transport: Transport = { tls: { caPem, serverName: remote.serverName }, token };
  try {
    validateTransport(transport);
  } catch (err) {
    throw new RemoteCredentialsUnavailable(
      where,
      `the CA certificate in ${creds.caFile} is unusable: ${messageOf(err)}`,
    );
  }
  return transport;
}

/**
 * Why an agent endpoint a remote daemon advertises is not followed, or null when it may be: it
 * must be TCP on the daemon's own host (normalized as {@link parseRemoteEndpoint} does), so a
 * daemon can make the gateway dial nothing else — not a Unix socket here, not another host.
 */
export function agentEndpointRefusal(remote: RemoteCaliband, endpoint: Endpoint): string | null {
  if (endpoint.scheme !== "tcp") return "it is a Unix socket (a path on the gateway's host)";
  const addr = parseRemoteEndpoint(`tcp://${endpoint.addr}`);
  if (addr === undefined) return `${JSON.stringify(endpoint.addr)} is not host:port`;
  if (hostOf(addr) !== hostOf(remote.addr))
    return `it is on ${hostOf(addr)}, not on the daemon's host ${hostOf(remote.addr)} (set caliband's --advertise-host to the endpoint's host)`;
  return null;
}

/** The control endpoint of a remote workspace with its transport (for `new CalibandClient`). */
export function remoteControlEndpoint(remote: RemoteCaliband, transport: Transport): ControlEndpoint {
  return { scheme: "tcp", addr: remote.addr, ...transport };
}

/** OpenSSL / Node codes of a server certificate the client refused. */
const CERT_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_SIGNATURE_FAILURE",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "INVALID_CA",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** The error's `code` and those of its causes. */
function codesOf(err: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = err, i = 0; e instanceof Error && i < 5; e = e.cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") out.push(code);
  }
  return out;
}

/**
 * A readable health reason for a failed call to a remote daemon (issue 18 item 5: a wrong
 * certificate, a wrong token and an unreachable host each say so). caliband answers a refused
 * token by closing the connection after the TLS handshake without a byte (§6 step 4), which the
 * client sees as EOF or a reset after setup; a certificate the CA does not sign, or one for
 * another name, fails the handshake; nothing listening refuses the TCP connect; a peer that is no
 * TLS server (or drops the connection before the handshake) fails during setup.
 */
export function remoteFailureReason(err: unknown, remote: RemoteCaliband): string {
  const where = describeRemote(remote);
  if (err instanceof RemoteCredentialsUnavailable) return err.reason;
  const codes = codesOf(err);
  const errno = err instanceof Unreachable ? err.errno : undefined;
  const setup = err instanceof Unreachable && err.duringSetup;
  // One line: OpenSSL's messages can hold newlines.
  const detail = (err instanceof Unreachable ? err.reason : messageOf(err)).replace(/\s+/g, " ").trim();
  const tokenHint = `check its token: ${credentialsKey(remote.addr)}/token or ${tokenEnvName(remote.addr)}`;
  if (codes.includes("ERR_TLS_CERT_ALTNAME_INVALID")) {
    return `TLS: the daemon's certificate at ${where} is not for the server name ${remote.serverName} (${detail}); check serverName`;
  }
  if (codes.includes("CERT_HAS_EXPIRED") || codes.includes("CERT_NOT_YET_VALID")) {
    return `TLS: the daemon's certificate at ${where} is outside its validity period (${detail})`;
  }
  if (codes.some((c) => CERT_CODES.has(c))) {
    return `TLS: the daemon's certificate at ${where} is not trusted by the CA in ${credentialsKey(remote.addr)}/ca.pem (${detail}); check the CA`;
  }
  if (errno === "ECONNREFUSED")
    return `connection refused at ${where}: nothing listens there (is caliband running with --listen?)`;
  if (errno === "ENOTFOUND" || errno === "EAI_AGAIN")
    return `host not found: ${hostOf(remote.addr)} does not resolve`;
  if (errno === "ETIMEDOUT") return `no answer from ${where}: ${detail}`;
  if (errno === "EHOSTUNREACH" || errno === "ENETUNREACH") return `host unreachable: ${where} (${detail})`;
  if (setup) {
    return `the connection to ${where} failed before TLS was established (${detail}): is it a caliband with --listen and TLS?`;
  }
  if (err instanceof Protocol && /connection closed before a reply/.test(err.message)) {
    return `the daemon at ${where} closed the connection after the TLS handshake without replying: it refused the bearer token (${tokenHint})`;
  }
  if (err instanceof Unreachable && (errno === "ECONNRESET" || errno === "EPIPE")) {
    return `the daemon at ${where} reset the connection after the TLS handshake: it refused the bearer token (${tokenHint})`;
  }
  return err instanceof Error ? err.message : String(err);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
