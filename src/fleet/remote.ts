/**
 * Calibands on other hosts (issue 18 item 5): a workspace may name a caliband started with
 * `--listen` (TCP + TLS + bearer token, protocol §6, caliban ADR 0051). What is stored is where
 * the daemon is and where its credentials are — never a secret: the CA certificate and the token
 * are read from a file inside an operator-allowed credentials directory, or the token from a
 * gateway environment variable named `PROSPERO_CALIBAND_TOKEN…` ({@link TOKEN_ENV_NAME}), each
 * time a client is built (so a rotated file or variable is picked up after the next failure).
 *
 * Both allowlists exist because a remote workspace sends its token to the endpoint an admin names:
 * without them an admin could have the gateway send any variable of its environment, or any file it
 * can read, as a bearer token to a host of their choice.
 */
import fs from "node:fs/promises";
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
import { ValidationFailed, type FieldIssue } from "../errors.js";
import { isWithin } from "./roots.js";

/** A workspace's remote caliband as stored (no secret in it). */
export interface RemoteCaliband {
  /** `host:port` of the daemon's control listener (given as `tcp://host:port`). */
  addr: string;
  /** Absolute path of the PEM CA file, inside an allowed credentials directory. */
  caFile: string;
  /** Name the daemon's certificate must match. */
  serverName: string;
  /** NAME of the gateway environment variable holding the token, or null (then {@link tokenFile}). */
  tokenFromEnv: string | null;
  /** Absolute path of the token file, inside an allowed credentials directory, or null. */
  tokenFile: string | null;
}

/** What a client asks for (the GraphQL `RemoteCalibandInput`, the CLI's `workspace add --endpoint`). */
export interface RemoteCalibandInput {
  /** `tcp://host:port` of the daemon's `--listen` address (IPv6 hosts in brackets). */
  endpoint: string;
  /** Path of the PEM CA file on the gateway's machine. */
  caFile: string;
  /** Name the certificate must match; default the endpoint's host. */
  serverName?: string | null;
  /** NAME of the environment variable holding the token (exactly one of this and tokenFile). */
  tokenFromEnv?: string | null;
  /** Path of the file holding the token (exactly one of this and tokenFromEnv). */
  tokenFile?: string | null;
}

/** The operator's rules for remote workspaces (`--caliband-credentials-dir`). */
export interface RemotePolicy {
  /**
   * Absolute directories a CA or token file must lie in (by realpath: a symbolic link out of them
   * is refused). Empty = no file is allowed.
   */
  credentialsDirs: readonly string[];
}

/**
 * Names a token variable may have: `PROSPERO_CALIBAND_TOKEN` or `PROSPERO_CALIBAND_TOKEN_<SUFFIX>`
 * (upper-case letters, digits, `_`). An allowlist by prefix: only variables the operator set
 * for this purpose can be sent to a remote host, never an API key or another secret.
 */
export const TOKEN_ENV_NAME = /^PROSPERO_CALIBAND_TOKEN(?:_[A-Z0-9_]{1,64})?$/;

/** Largest CA file read, bytes (a bundle of a few dozen certificates). */
export const MAX_CA_FILE_BYTES = 256 * 1024;

/**
 * Longest token, bytes. caliband reads the preamble `{"bearer":"<token>"}\n` up to 4096 bytes
 * (§6); the token's characters ({@link TOKEN_CHARS}) need no JSON escape, so 4,000 always fits.
 */
export const MAX_TOKEN_BYTES = 4000;

/** Characters a token may hold: printable ASCII except `"` and `\` (never escaped in the preamble). */
export const TOKEN_CHARS = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** A DNS name (labels of letters, digits and `-`) for {@link RemoteCaliband.serverName}. */
const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * The credentials of a remote workspace could not be read when its client was built (a file gone
 * or refused, a variable unset, a CA that does not parse). An {@link Unreachable}: nothing can be
 * sent to the daemon; the message says which setting and why.
 */
export class RemoteCredentialsUnavailable extends Unreachable {
  constructor(where: string, reason: string) {
    super(where, reason);
  }
}

/**
 * Parse `tcp://host:port` into the bare `host:port` the transport dials (§2.4). Nothing may follow
 * the port (no path, query or user info).
 * @returns the address, or undefined when malformed.
 */
export function parseRemoteEndpoint(text: string): string | undefined {
  if (!text.startsWith("tcp://")) return undefined;
  const addr = text.slice("tcp://".length);
  if (/[/?#@\s]/.test(addr)) return undefined;
  return parseHostPort(addr) === undefined ? undefined : addr;
}

/** The dialable host of a `host:port` (brackets of an IPv6 literal removed). */
function hostOf(addr: string): string {
  return parseHostPort(addr)?.host ?? addr;
}

/** `tls://host:port`: how a remote daemon is named in messages and health reasons. */
export function describeRemote(remote: RemoteCaliband): string {
  return `tls://${remote.addr}`;
}

/** The control endpoint a remote workspace's client dials (TLS settings and token added by the caller). */
export function remoteEndpoint(remote: RemoteCaliband): Endpoint {
  return { scheme: "tcp", addr: remote.addr };
}

/**
 * Check a client's remote settings: the endpoint's form, exactly one token source, the variable's
 * name ({@link TOKEN_ENV_NAME}), both files inside a credentials directory; then read them once
 * ({@link loadRemoteTransport}) so a CA that does not parse or an unset variable is refused now,
 * not found by the first poll. Reads files; changes nothing.
 * @param fieldPath where the input sits, for the issues' paths (e.g. `["remote"]`).
 * @throws ValidationFailed naming every bad field.
 */
export async function validateRemote(
  input: RemoteCalibandInput,
  policy: RemotePolicy,
  env: NodeJS.ProcessEnv,
  fieldPath: readonly string[] = ["remote"],
): Promise<RemoteCaliband> {
  const issues: FieldIssue[] = [];
  const issue = (field: string, message: string): void => {
    issues.push({ path: [...fieldPath, field], message });
  };
  const addr = parseRemoteEndpoint(input.endpoint);
  if (addr === undefined)
    issue("endpoint", "expected tcp://host:port (IPv6 hosts in brackets), nothing after the port");
  const serverName = input.serverName ?? (addr === undefined ? "" : hostOf(addr));
  if (serverName === "" || (net.isIP(serverName) === 0 && !DNS_NAME.test(serverName))) {
    issue("serverName", "expected a DNS name or an IP address");
  }
  const tokenFromEnv = input.tokenFromEnv ?? null;
  const tokenFile = input.tokenFile ?? null;
  if ((tokenFromEnv === null) === (tokenFile === null)) {
    issue("tokenFromEnv", "give exactly one of tokenFromEnv and tokenFile (caliband --listen needs a token)");
  }
  if (tokenFromEnv !== null && !TOKEN_ENV_NAME.test(tokenFromEnv)) {
    issue(
      "tokenFromEnv",
      "a token variable must be named PROSPERO_CALIBAND_TOKEN or PROSPERO_CALIBAND_TOKEN_<SUFFIX> (upper-case letters, digits, _)",
    );
  }
  const caFile = await allowedFile(input.caFile, policy, (m) => issue("caFile", m));
  const file = tokenFile === null ? null : await allowedFile(tokenFile, policy, (m) => issue("tokenFile", m));
  if (issues.length > 0 || addr === undefined || caFile === null) throw new ValidationFailed(issues);
  const remote: RemoteCaliband = { addr, caFile, serverName, tokenFromEnv, tokenFile: file };
  try {
    await loadRemoteTransport(remote, policy, env);
  } catch (err) {
    const reason = err instanceof Unreachable ? err.reason : String(err);
    const field = /CA certificate/.test(reason)
      ? "caFile"
      : tokenFromEnv !== null
        ? "tokenFromEnv"
        : "tokenFile";
    throw new ValidationFailed([{ path: [...fieldPath, field], message: reason }]);
  }
  return remote;
}

/**
 * The absolute path of `file` when it is a regular file whose realpath lies inside one of the
 * credentials directories (themselves by realpath), else null after telling `bad` why.
 */
async function allowedFile(
  file: string,
  policy: RemotePolicy,
  bad: (m: string) => void,
): Promise<string | null> {
  if (!path.isAbsolute(file) || file.includes("\0") || file.length > 1024) {
    bad("expected an absolute path of at most 1024 characters");
    return null;
  }
  const why = await refusedFile(file, policy);
  if (why !== null) {
    bad(why);
    return null;
  }
  return path.resolve(file);
}

/** Why `file` may not be read as a credential (null when it may): see {@link allowedFile}. */
async function refusedFile(file: string, policy: RemotePolicy): Promise<string | null> {
  if (policy.credentialsDirs.length === 0) {
    return "no credentials directory is configured (start the gateway with --caliband-credentials-dir)";
  }
  let real: string;
  try {
    real = await fs.realpath(file);
  } catch {
    return `${file} does not exist`;
  }
  const dirs = await Promise.all(policy.credentialsDirs.map((d) => fs.realpath(d).catch(() => null)));
  if (!dirs.some((d) => d !== null && isWithin(real, d) && real !== d)) {
    return `${file} is not inside a credentials directory (--caliband-credentials-dir: ${policy.credentialsDirs.join(", ")})`;
  }
  const st = await fs.stat(real).catch(() => null);
  if (st === null || !st.isFile()) return `${file} is not a regular file`;
  return null;
}

/** Read a credential file, re-checking it is allowed (it may have been swapped for a link since). */
async function readCredential(
  file: string,
  policy: RemotePolicy,
  maxBytes: number,
  what: string,
): Promise<string> {
  const why = await refusedFile(file, policy);
  if (why !== null) throw new Error(`the ${what} file is refused: ${why}`);
  const handle = await fs.open(file, "r");
  try {
    const st = await handle.stat();
    if (st.size > maxBytes) throw new Error(`the ${what} file ${file} is larger than ${maxBytes} bytes`);
    const buf = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buf, 0, maxBytes + 1, 0);
    if (bytesRead > maxBytes) throw new Error(`the ${what} file ${file} is larger than ${maxBytes} bytes`);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Build the transport of a remote workspace now: read its CA file and its token (from the file,
 * or the variable in `env`), check them (the CA holds a certificate; the token is non-empty,
 * ≤ {@link MAX_TOKEN_BYTES}, of {@link TOKEN_CHARS}; a token file's trailing newline is dropped).
 * The token is only returned, never logged or put in an error.
 * @throws RemoteCredentialsUnavailable saying which credential and why.
 */
export async function loadRemoteTransport(
  remote: RemoteCaliband,
  policy: RemotePolicy,
  env: NodeJS.ProcessEnv,
): Promise<Transport> {
  const where = describeRemote(remote);
  let caPem: string;
  try {
    caPem = await readCredential(remote.caFile, policy, MAX_CA_FILE_BYTES, "CA");
  } catch (err) {
    throw new RemoteCredentialsUnavailable(where, `the CA certificate cannot be read: ${messageOf(err)}`);
  }
  let token: string;
  let source: string;
  if (remote.tokenFromEnv !== null) {
    source = `the environment variable ${remote.tokenFromEnv}`;
    if (!TOKEN_ENV_NAME.test(remote.tokenFromEnv)) {
      throw new RemoteCredentialsUnavailable(
        where,
        `the bearer token is unavailable: ${source} is not a token variable`,
      );
    }
    token = env[remote.tokenFromEnv] ?? "";
    if (token === "") {
      throw new RemoteCredentialsUnavailable(
        where,
        `the bearer token is unavailable: ${source} is unset or empty`,
      );
    }
  } else if (remote.tokenFile !== null) {
    source = `the token file ${remote.tokenFile}`;
    try {
      token = (await readCredential(remote.tokenFile, policy, MAX_TOKEN_BYTES + 2, "token")).replace(
        /\r?\n$/,
        "",
      );
    } catch (err) {
      throw new RemoteCredentialsUnavailable(where, `the bearer token is unavailable: ${messageOf(err)}`);
    }
  } else {
    throw new RemoteCredentialsUnavailable(where, "no bearer token is configured");
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
      `the CA certificate in ${remote.caFile} is unusable: ${messageOf(err)}`,
    );
  }
  return transport;
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
 * client sees as EOF or a reset before the reply; a certificate the CA does not sign, or one for
 * another name, fails the handshake; nothing listening refuses the TCP connect.
 */
export function remoteFailureReason(err: unknown, remote: RemoteCaliband): string {
  const where = describeRemote(remote);
  if (err instanceof RemoteCredentialsUnavailable) return err.reason;
  const codes = codesOf(err);
  const errno = err instanceof Unreachable ? err.errno : undefined;
  const detail = err instanceof Unreachable ? err.reason : messageOf(err);
  if (codes.includes("ERR_TLS_CERT_ALTNAME_INVALID")) {
    return `TLS: the daemon's certificate at ${where} is not for the server name ${remote.serverName} (${detail}); check serverName`;
  }
  if (codes.some((c) => CERT_CODES.has(c))) {
    return `TLS: the daemon's certificate at ${where} is not trusted by the CA in ${remote.caFile} (${detail}); check caFile`;
  }
  if (err instanceof Protocol && /connection closed before a reply/.test(err.message)) {
    return `the daemon at ${where} closed the connection after the TLS handshake without replying: it refused the bearer token (check ${tokenSource(remote)})`;
  }
  if (
    err instanceof Unreachable &&
    (errno === "ECONNRESET" || errno === "EPIPE") &&
    !/during setup/.test(err.reason)
  ) {
    return `the daemon at ${where} reset the connection after the TLS handshake: it refused the bearer token (check ${tokenSource(remote)})`;
  }
  if (errno === "ECONNREFUSED")
    return `connection refused at ${where}: nothing listens there (is caliband running with --listen?)`;
  if (errno === "ENOTFOUND" || errno === "EAI_AGAIN")
    return `host not found: ${hostOf(remote.addr)} does not resolve`;
  if (errno === "ETIMEDOUT") return `no answer from ${where}: ${detail}`;
  if (errno === "EHOSTUNREACH" || errno === "ENETUNREACH") return `host unreachable: ${where} (${detail})`;
  if (err instanceof Unreachable && /during setup/.test(err.reason)) {
    return `the connection to ${where} closed during the TLS handshake (${detail}): is it a caliband with --listen and TLS?`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Where the token comes from, for messages. */
function tokenSource(remote: RemoteCaliband): string {
  return remote.tokenFromEnv !== null
    ? `the variable ${remote.tokenFromEnv}`
    : `the token file ${remote.tokenFile}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
