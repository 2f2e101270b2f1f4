/**
 * Connection establishment to caliband endpoints (caliband-protocol.md §1.2, §2.4, §6): a Unix
 * socket connect, or TCP → TLS verified against a configured CA and server name → bearer preamble
 * `{"bearer":"<token>"}\n`. The same TLS settings and token serve the control endpoint and every
 * per-agent TCP endpoint (§6 "One token for everything"). A token is never sent without TLS (#107).
 */
import { X509Certificate } from "node:crypto";
import * as net from "node:net";
import * as tls from "node:tls";

import { ConfigError } from "../errors.js";
import { Unreachable, errnoOf } from "./errors.js";
import { checkSocketFile } from "./trust.js";
import type { Endpoint } from "./wire.js";

/** TLS settings for TCP endpoints (§6): PEM text of the trusted CA(s) and the expected server name (SNI + verification). */
export interface TlsSettings {
  /** PEM text holding at least one CA certificate (not a path). */
  caPem: string;
  /** Name the server certificate must match, e.g. `localhost` or `caliband` (§6). */
  serverName: string;
}

/**
 * Security applied to TCP endpoints (§6). Unix endpoints ignore it (never authenticated, no
 * preamble). `token` requires `tls` ({@link validateTransport}).
 */
export interface Transport {
  tls?: TlsSettings;
  /** Bearer token sent as the first line inside TLS. */
  token?: string;
}

/**
 * Where the control plane lives: a Unix socket path, or a TCP `host:port` plus its transport
 * security (§1.2, §6).
 */
export type ControlEndpoint =
  { scheme: "unix"; path: string } | { scheme: "tcp"; addr: string; tls?: TlsSettings; token?: string };

/** Options of {@link openConnection}. */
export interface ConnectOptions {
  /** Bound on connect + TLS handshake + preamble write, in ms. */
  deadlineMs: number;
  /** Aborting destroys the half-open connection and rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Check transport settings at configuration time (§6, prospero #107): a token demands TLS, a token
 * must not be blank, and the CA PEM must contain a certificate.
 * @throws ConfigError describing the offending setting.
 */
export function validateTransport(transport: Transport): void {
  if (transport.token !== undefined) {
    if (transport.token.trim() === "") {
      throw new ConfigError("caliband token", "a non-empty bearer token", "the token is blank");
    }
    if (transport.tls === undefined) {
      throw new ConfigError(
        "caliband token",
        "TLS settings (CA + server name) whenever a bearer token is configured",
        "refusing to send the bearer token over plaintext TCP",
      );
    }
  }
  if (transport.tls !== undefined) {
    if (transport.tls.serverName.trim() === "") {
      throw new ConfigError("caliband TLS server name", "a non-empty DNS name", "it is blank");
    }
    try {
      new X509Certificate(transport.tls.caPem);
    } catch (err) {
      throw new ConfigError(
        "caliband TLS CA",
        "PEM text containing at least one certificate",
        err instanceof Error ? err.message : String(err),
      );
    }
  }
}

/**
 * Split a {@link ControlEndpoint} into the wire {@link Endpoint} and its {@link Transport},
 * validating both (TCP `addr` must be `host:port`).
 * @throws ConfigError on invalid settings.
 */
export function splitControlEndpoint(control: ControlEndpoint): { endpoint: Endpoint; transport: Transport } {
  if (control.scheme === "unix") {
    if (control.path === "") throw new ConfigError("caliband socket path", "a non-empty path");
    return { endpoint: { scheme: "unix", path: control.path }, transport: {} };
  }
  if (parseHostPort(control.addr) === undefined) {
    throw new ConfigError("caliband address", "host:port", `got ${JSON.stringify(control.addr)}`);
  }
  const transport: Transport = {
    ...(control.tls !== undefined ? { tls: control.tls } : {}),
    ...(control.token !== undefined ? { token: control.token } : {}),
  };
  validateTransport(transport);
  return { endpoint: { scheme: "tcp", addr: control.addr }, transport };
}

/**
 * Parse a bare `host:port` (§2.4; IPv6 hosts in brackets, `[::1]:7100`). Port must be 1–65535.
 * @returns `undefined` when malformed.
 */
export function parseHostPort(addr: string): { host: string; port: number } | undefined {
  const colon = addr.lastIndexOf(":");
  if (colon <= 0) return undefined;
  let host = addr.slice(0, colon);
  const portText = addr.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "" || (host.includes(":") && net.isIPv6(host) === false)) return undefined;
  return { host, port };
}

/** Human-readable endpoint for messages: the socket path, or `tcp://host:port` / `tls://host:port`. */
export function describeEndpoint(endpoint: Endpoint, transport: Transport = {}): string {
  if (endpoint.scheme === "unix") return endpoint.path;
  return `${transport.tls ? "tls" : "tcp"}://${endpoint.addr}`;
}

/**
 * Open one connection to `endpoint` and return it ready for NDJSON (§1.2, §6): Unix → the file
 * at the path checked ({@link checkSocketFile}: when present, ours and a socket or stale regular
 * file, never a symbolic link), then connected; TCP → connected, TLS handshake verified against
 * `transport.tls` (CA + server name), then the bearer preamble written when a token is configured.
 * The returned socket has a no-op `error` listener so a late error can never crash the process;
 * callers observe errors through reads.
 * @throws UntrustedSocket (an Unreachable) when the Unix socket file is not ours — nothing is
 *   connected or sent; Unreachable on ENOENT/ECONNREFUSED/TLS failure/close during setup, or
 *   `"timeout after N ms"` when `deadlineMs` passes; `signal.reason` when aborted;
 *   ConfigError when `transport` is invalid (token without TLS).
 */
export async function openConnection(
  endpoint: Endpoint,
  transport: Transport,
  options: ConnectOptions,
): Promise<net.Socket> {
  if (endpoint.scheme === "unix") {
    options.signal?.throwIfAborted();
    await checkSocketFile(endpoint.path, endpoint.path);
  }
  return connect(endpoint, transport, options);
}

/** {@link openConnection} after the Unix trust check. */
function connect(endpoint: Endpoint, transport: Transport, options: ConnectOptions): Promise<net.Socket> {
  const { deadlineMs, signal } = options;
  const where = describeEndpoint(endpoint, transport);
  return new Promise<net.Socket>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    if (endpoint.scheme === "tcp") {
      try {
        validateTransport(transport);
      } catch (err) {
        reject(err);
        return;
      }
    }
    let dialed: { socket: net.Socket; readyEvent: "connect" | "secureConnect" };
    try {
      dialed = dial(endpoint, transport, where);
    } catch (err) {
      reject(err);
      return;
    }
    const { socket, readyEvent } = dialed;
    socket.on("error", () => {
      /* see doc comment: errors surface through reads/writes of the caller */
    });

    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      socket.off("error", onError);
      socket.off("close", onClose);
      socket.off(readyEvent, onReady);
      socket.off("connect", onTcpConnect);
      return true;
    };
    const fail = (err: unknown): void => {
      if (!settle()) return;
      socket.destroy();
      reject(err);
    };
    const onAbort = (): void => fail(signal?.reason);
    const onError = (err: Error): void =>
      fail(new Unreachable(where, err.message, { errno: errnoOf(err), cause: err, duringSetup: true }));
    const onClose = (): void =>
      fail(new Unreachable(where, "connection closed during setup", { duringSetup: true }));
    const onReady = (): void => {
      if (!settle()) return;
      if (endpoint.scheme === "tcp" && transport.token !== undefined) {
        socket.write(`${JSON.stringify({ bearer: transport.token })}\n`);
      }
      resolve(socket);
    };
    // TCP self-connect: with nothing listening on a port from the ephemeral range, the kernel can
    // pick that same port as our source port and "connect" us to ourselves. Treat it as refused.
    const onTcpConnect = (): void => {
      if (socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress) {
        fail(
          new Unreachable(where, "connected to itself (nothing listening)", {
            errno: "ECONNREFUSED",
            duringSetup: true,
          }),
        );
      }
    };
    if (endpoint.scheme === "tcp") socket.once("connect", onTcpConnect);
    const timer = setTimeout(
      () =>
        fail(
          new Unreachable(where, `timeout after ${deadlineMs} ms`, { errno: "ETIMEDOUT", duringSetup: true }),
        ),
      deadlineMs,
    );
    signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("error", onError);
    socket.once("close", onClose);
    socket.once(readyEvent, onReady);
  });
}

/** Start connecting; the caller waits for `readyEvent`. @throws Unreachable for a malformed TCP addr. */
function dial(
  endpoint: Endpoint,
  transport: Transport,
  where: string,
): { socket: net.Socket; readyEvent: "connect" | "secureConnect" } {
  if (endpoint.scheme === "unix")
    return { socket: net.createConnection({ path: endpoint.path }), readyEvent: "connect" };
  const target = parseHostPort(endpoint.addr);
  if (target === undefined) {
    throw new Unreachable(where, `invalid address ${JSON.stringify(endpoint.addr)}; expected host:port`);
  }
  if (transport.tls === undefined) return { socket: net.createConnection(target), readyEvent: "connect" };
  const serverName = transport.tls.serverName;
  // SNI carries DNS names only (RFC 6066 §3): an IP server name is verified, not sent.
  const socket = tls.connect({
    host: target.host,
    port: target.port,
    ca: transport.tls.caPem,
    ...(net.isIP(serverName) === 0 ? { servername: serverName } : {}),
    checkServerIdentity: (_host, cert) => tls.checkServerIdentity(serverName, cert),
    rejectUnauthorized: true,
  });
  return { socket, readyEvent: "secureConnect" };
}
