/**
 * Browser-origin and network policy of the gateway (issue 11 items 5 and 6): which `Host` names
 * are served (DNS rebinding), which `Origin`s may call the API (same origin, or an operator's
 * `--cors-origin` allowlist), which client address a request really comes from (a trusted proxy's
 * `X-Forwarded-For`), and whether a bind address is loopback. Pure functions of the request's
 * headers and socket address; src/server applies them.
 */
import net from "node:net";

/** What the policy needs from the configuration. */
export interface AccessPolicyOptions {
  /** The listen address (`--bind`). */
  bind: string;
  /** Served over TLS (`--tls-cert` / `--tls-key`). */
  tls: boolean;
  /** Extra host names the gateway answers to (`--public-host`), lowercase, without port. */
  publicHosts: readonly string[];
  /** Exact origins allowed to call the API cross-origin (`--cors-origin`), e.g. `https://ops.example.com`. */
  corsOrigins: readonly string[];
  /** Addresses of reverse proxies whose `X-Forwarded-*` headers are believed (`--trust-proxy`). */
  trustProxy: readonly string[];
}

/** Where a request's `Origin` header puts it. */
export type OriginVerdict =
  /** No `Origin` header (non-browser clients, same-origin navigations). */
  | "absent"
  /** The gateway's own origin. */
  | "same-origin"
  /** A cross origin on the `--cors-origin` allowlist. */
  | "allowed-cross-origin"
  /** Any other origin, including `null`. */
  | "forbidden";

/** The parts of a request the policy reads. */
export interface RequestFacts {
  headers: Record<string, string | string[] | undefined>;
  /** `req.socket.remoteAddress`. */
  remoteAddress: string | undefined;
}

/** `::ffff:127.0.0.1` → `127.0.0.1`; other addresses unchanged. */
export function normalizeAddress(addr: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  return m ? m[1]! : addr.toLowerCase();
}

/** True for `localhost`, 127.0.0.0/8 and `::1`: a bind that only this machine can reach. */
export function isLoopbackAddress(addr: string): boolean {
  const a = normalizeAddress(addr.replace(/^\[|\]$/g, ""));
  if (a === "localhost" || a.endsWith(".localhost")) return true;
  if (net.isIPv4(a)) return a.startsWith("127.");
  return a === "::1";
}

function header(h: RequestFacts["headers"], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The host name of a `Host` header value (`example.com:7878` → `example.com`, `[::1]:80` → `::1`),
 * lowercase, or null when it is not a valid authority.
 */
export function hostnameOf(hostHeader: string): string | null {
  if (hostHeader === "" || /[\s/?#@\\]/.test(hostHeader)) return null;
  try {
    const u = new URL(`http://${hostHeader}`);
    if (u.username || u.password || u.pathname !== "/") return null;
    return u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return null;
  }
}

/** The gateway's access policy. */
export class AccessPolicy {
  private readonly publicHosts: ReadonlySet<string>;
  private readonly corsOrigins: ReadonlySet<string>;
  private readonly trusted: ReadonlySet<string>;

  constructor(private readonly opts: AccessPolicyOptions) {
    this.publicHosts = new Set(opts.publicHosts.map((h) => h.toLowerCase()));
    this.corsOrigins = new Set(opts.corsOrigins.map((o) => new URL(o).origin));
    this.trusted = new Set(opts.trustProxy.map(normalizeAddress));
  }

  /**
   * True when `Host` names this gateway: an IP literal (a DNS-rebinding page cannot make the
   * browser send one for its own origin), `localhost` / `*.localhost`, the bind address, or a
   * `--public-host`. A missing or malformed `Host` is refused.
   */
  hostAllowed(hostHeader: string | undefined): boolean {
    if (hostHeader === undefined) return false;
    const name = hostnameOf(hostHeader);
    if (name === null) return false;
    if (net.isIP(name) !== 0) return true;
    if (name === "localhost" || name.endsWith(".localhost")) return true;
    if (name === this.opts.bind.toLowerCase()) return true;
    return this.publicHosts.has(name);
  }

  /** True when the TCP peer is one of the `--trust-proxy` addresses. */
  fromTrustedProxy(req: RequestFacts): boolean {
    return req.remoteAddress !== undefined && this.trusted.has(normalizeAddress(req.remoteAddress));
  }

  /** True when `--trust-proxy` is configured (then only the proxy may connect). */
  get behindProxy(): boolean {
    return this.trusted.size > 0;
  }

  /**
   * The client's address: the last `X-Forwarded-For` entry when the peer is a trusted proxy (one
   * proxy hop), else the socket's peer address.
   */
  clientAddress(req: RequestFacts): string | null {
    if (this.fromTrustedProxy(req)) {
      const xff = header(req.headers, "x-forwarded-for");
      const last = xff
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .at(-1);
      if (last && net.isIP(normalizeAddress(last)) !== 0) return normalizeAddress(last);
    }
    return req.remoteAddress ? normalizeAddress(req.remoteAddress) : null;
  }

  /** `https` when served over TLS or a trusted proxy says `X-Forwarded-Proto: https`. */
  scheme(req: RequestFacts): "http" | "https" {
    if (this.opts.tls) return "https";
    if (this.fromTrustedProxy(req) && header(req.headers, "x-forwarded-proto")?.trim() === "https")
      return "https";
    return "http";
  }

  /** Classify the request's `Origin` (see {@link OriginVerdict}). */
  origin(req: RequestFacts): OriginVerdict {
    const origin = header(req.headers, "origin");
    if (origin === undefined) return "absent";
    let parsed: string;
    try {
      parsed = new URL(origin).origin;
    } catch {
      return "forbidden";
    }
    if (parsed === "null") return "forbidden";
    const host = header(req.headers, "host");
    if (host !== undefined && this.hostAllowed(host)) {
      let own: string | null = null;
      try {
        own = new URL(`${this.scheme(req)}://${host}`).origin;
      } catch {
        own = null;
      }
      if (own === parsed) return "same-origin";
    }
    return this.corsOrigins.has(parsed) ? "allowed-cross-origin" : "forbidden";
  }

  /** True when `origin` (an `Origin` header value) is on the `--cors-origin` allowlist. */
  corsAllowed(origin: string): boolean {
    try {
      return this.corsOrigins.has(new URL(origin).origin);
    } catch {
      return false;
    }
  }
}
