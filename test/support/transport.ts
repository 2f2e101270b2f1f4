// Server-side transport pieces shared by the fake daemon and its fake workers: the TCP+TLS+bearer
// preamble handshake (docs/caliband-protocol.md §6) and Rust-compatible line trimming (§1.2).
import { timingSafeEqual } from "node:crypto";
import type * as net from "node:net";
import * as tls from "node:tls";

/** Longest bearer preamble line accepted, in bytes before the `\n` (§6 step 3). */
export const MAX_PREAMBLE_BYTES = 4096;

/** Control-plane bound on TLS handshake + preamble, in ms (§6 step 5). */
export const CONTROL_PREAUTH_TIMEOUT_MS = 10_000;

/** TLS + token material of a TCP listener (PEM strings, the bearer token). */
export interface TcpAuth {
  secureContext: tls.SecureContext;
  token: string;
}

/** Builds the TLS server context from PEM cert chain and key contents. */
export function serverContext(certPem: string, keyPem: string): tls.SecureContext {
  return tls.createSecureContext({ cert: certPem, key: keyPem });
}

/** Length-then-content constant-time comparison of the presented and expected token (§6, #401). */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, "utf8");
  const b = Buffer.from(expected, "utf8");
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Parses a preamble line `{"bearer":"<token>"}` (extra fields ignored); `null` when malformed. */
export function parsePreamble(line: Buffer): string | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(line);
  } catch {
    return null;
  }
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      const bearer = (v as Record<string, unknown>).bearer;
      if (typeof bearer === "string") return bearer;
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * Runs the server side of §6 on a freshly accepted TCP socket: TLS handshake, then the bearer
 * preamble. On success calls `onReady` with the (paused) TLS socket and any bytes read past the
 * preamble's newline; on any failure closes silently. `timeoutMs` bounds the whole pre-auth phase
 * (control listener: 10 s; per-agent listeners: none).
 */
export function authenticateTcp(
  raw: net.Socket,
  auth: TcpAuth,
  timeoutMs: number | null,
  onReady: (conn: tls.TLSSocket, leftover: Buffer) => void,
  track?: (s: net.Socket) => void,
): void {
  const sock = new tls.TLSSocket(raw, { isServer: true, secureContext: auth.secureContext });
  track?.(sock);
  const fail = (): void => {
    sock.destroy();
    raw.destroy();
  };
  const timer = timeoutMs === null ? null : setTimeout(fail, timeoutMs);
  const clear = (): void => {
    if (timer !== null) clearTimeout(timer);
  };
  sock.on("error", () => {
    clear();
    fail();
  });
  sock.on("close", clear);
  let buffered = Buffer.alloc(0);
  let settled = false;
  const settle = (): void => {
    settled = true;
    sock.off("data", onData);
    clear();
  };
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const nl = buffered.indexOf(10);
    if (nl < 0) {
      if (buffered.length > MAX_PREAMBLE_BYTES) {
        settle();
        fail();
      }
      return;
    }
    settle();
    if (nl > MAX_PREAMBLE_BYTES) return fail();
    const bearer = parsePreamble(buffered.subarray(0, nl));
    if (bearer === null || !tokenMatches(bearer, auth.token)) return fail();
    sock.pause();
    onReady(sock, buffered.subarray(nl + 1));
  };
  sock.on("data", onData);
  sock.on("end", () => {
    if (!settled) {
      settle();
      fail();
    }
  });
}

// Rust `char::is_whitespace` (White_Space property), used by `str::trim_end`.
const RUST_WS = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Rust `str::trim_end`: strips trailing Unicode White_Space (so `\r\n` endings are tolerated, §1.2). */
export function rustTrimEnd(s: string): string {
  let end = s.length;
  while (end > 0 && RUST_WS.has(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

/** Rust `str::trim` (both ends), used to skip blank inbound lines. */
export function rustTrim(s: string): string {
  let start = 0;
  while (start < s.length && RUST_WS.has(s.charCodeAt(start))) start++;
  return rustTrimEnd(s.slice(start));
}

/** Splits `host:port` at the last `:` like caliband's `host_of` (§6); strips IPv6 brackets. */
export function splitHostPort(addr: string): { host: string; port: number } {
  const idx = addr.lastIndexOf(":");
  if (idx < 0) throw new Error(`not a host:port address: ${addr}`);
  let host = addr.slice(0, idx);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  const port = Number(addr.slice(idx + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port in ${addr}`);
  return { host, port };
}
