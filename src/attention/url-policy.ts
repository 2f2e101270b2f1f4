/**
 * The rules a webhook URL must follow (issue 15 item 3, design-15 "Webhooks"): an absolute
 * `http:` or `https:` URL of at most {@link WEBHOOK_URL_MAX} characters, without credentials
 * (`user:pass@`) and without a fragment, that does not point at the gateway itself — a host that
 * is, or resolves to, a loopback address, an unspecified address (`0.0.0.0`, `::`) or an address
 * of one of this machine's interfaces, with the gateway's port (a hook must not post into the
 * gateway it runs in). Violations are a {@link ValidationFailed} at path `["input", "url"]` with
 * one sentence saying what is wrong.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import net from "node:net";
import os from "node:os";
import { ValidationFailed } from "../errors.js";
import { normalizeAddress } from "../auth/http-policy.js";

/** Longest accepted webhook URL, characters. */
export const WEBHOOK_URL_MAX = 2048;

/** How long resolving a host name for the self check may take, ms (then the URL is refused). */
export const LOOKUP_TIMEOUT_MS = 5_000;

/** Where the gateway listens: its bind hosts and port (null before it listens: no self check). */
export type SelfAddresses = { hosts: string[]; port: number } | null;

/** Resolves a host name to its addresses (node:dns `lookup` with `all: true`, injectable in tests). */
export type HostLookup = (host: string) => Promise<string[]>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address of `host`. */
export const systemLookup: HostLookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

const PATH = ["input", "url"];

function refuse(message: string): never {
  throw new ValidationFailed([{ path: PATH, message }]);
}

/** The port a URL connects to: its explicit port, else 443 for https and 80 for http. */
export function effectivePort(u: URL): number {
  if (u.port !== "") return Number(u.port);
  return u.protocol === "https:" ? 443 : 80;
}

/** Every address of this machine's network interfaces, normalized (lowercase, IPv4-mapped unwrapped). */
export function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) out.add(canonicalAddress(a.address));
  }
  return out;
}

/**
 * True when connecting to `address` (an IP literal) reaches this machine: loopback (127.0.0.0/8,
 * `::1`), unspecified (`0.0.0.0`, `::`: Linux connects those to the local host), one of `own`
 * (this machine's interface addresses) or of `binds` (the gateway's bind hosts).
 */
export function isOwnAddress(address: string, own: ReadonlySet<string>, binds: readonly string[]): boolean {
  const a = canonicalAddress(address);
  if (net.isIPv4(a) ? a.startsWith("127.") || a === "0.0.0.0" : a === "::1" || a === "::") return true;
  if (own.has(a)) return true;
  return binds.some((b) => canonicalAddress(b) === a);
}

/**
 * An address as {@link isOwnAddress} compares it: brackets and zone removed, lowercase, an
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, or `::ffff:7f00:1` as the URL parser writes it)
 * as its IPv4 address.
 */
export function canonicalAddress(address: string): string {
  const a = normalizeAddress(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (!hex) return a;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * Check `raw` against the webhook URL rules (module comment) and return it parsed. `self` is where
 * the gateway listens; a host name is resolved (with `lookup`, bounded by
 * {@link LOOKUP_TIMEOUT_MS}) only when the URL's port is the gateway's, and a name that cannot be
 * resolved then is refused too (it cannot be told apart from the gateway).
 * @throws ValidationFailed at `["input", "url"]`.
 */
export async function checkWebhookUrl(
  raw: string,
  self: SelfAddresses,
  lookup: HostLookup = systemLookup,
): Promise<URL> {
  if (raw.length > WEBHOOK_URL_MAX) refuse(`must be at most ${WEBHOOK_URL_MAX} characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return refuse("not an absolute URL (e.g. https://hooks.example.com/prospero)");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    refuse(`must be an http or https URL, not ${u.protocol.replace(/:$/, "")}`);
  }
  if (u.username !== "" || u.password !== "") {
    refuse("must not contain credentials (user:password@): put a token in the path or a query parameter");
  }
  if (raw.includes("#")) refuse("must not contain a fragment (#…): it is never sent");
  if (u.hostname === "") refuse("must name a host");
  if (self === null) return u;
  let hit: { host: string; address: string } | null;
  try {
    hit = await gatewayAddressOf(u, self, lookup);
  } catch (err) {
    return refuse(
      `cannot resolve ${u.hostname.replace(/^\[|\]$/g, "")} to check that it is not this gateway (port ${self.port}): ${(err as Error).message}`,
    );
  }
  if (hit !== null) {
    const { host, address } = hit;
    refuse(
      `points at this gateway (${host === address ? host : `${host} is ${address}`}, port ${self.port}): a webhook must post to another service`,
    );
  }
  return u;
}

/**
 * The "not the gateway itself" rule of {@link checkWebhookUrl} on its own, for the check before
 * every delivery attempt (src/attention/webhooks.ts: a name may resolve elsewhere later — DNS
 * rebinding): when `u`'s port is `self.port`, its host (an IP literal, else every address `lookup`
 * gives, bounded by {@link LOOKUP_TIMEOUT_MS}) is compared with this machine's addresses
 * ({@link isOwnAddress}). Returns the host (brackets removed) and the first own address it is or
 * resolves to; null when it is not the gateway, when the port differs or when `self` is null.
 * @throws Error (the resolver's, or "no answer within … ms") when the name cannot be resolved.
 */
export async function gatewayAddressOf(
  u: URL,
  self: SelfAddresses,
  lookup: HostLookup = systemLookup,
): Promise<{ host: string; address: string } | null> {
  if (self === null || effectivePort(u) !== self.port) return null;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const addresses = net.isIP(host) !== 0 ? [host] : await withTimeout(lookup(host), LOOKUP_TIMEOUT_MS);
  const own = ownAddresses();
  const address = addresses.find((a) => isOwnAddress(a, own, self.hosts));
  return address === undefined ? null : { host, address };
}

/** `p`, or a rejection after `ms` (the timer never keeps the process alive). */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    t.unref();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * Whether a URL path segment looks like a token: 16 or more of `A–Z a–z 0–9 _ - .` with letters
 * and digits both present (Slack's and Discord's hook URLs carry their secret that way).
 */
function isTokenLike(seg: string): boolean {
  return /^[A-Za-z0-9_.-]{16,}$/.test(seg) && /[A-Za-z]/.test(seg) && /\d/.test(seg);
}

/**
 * A webhook URL as the API shows it: origin and path, with every path segment that looks like a
 * token (16 or more of `A–Z a–z 0–9 _ - .`, letters and digits both present — Slack's and
 * Discord's hook URLs carry their secret that way) and every query value replaced by `…`. The
 * stored URL is the one POSTed to; this is only what reads return (webhook URLs can be
 * credentials: "no secret value is ever returned").
 */
export function displayUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "…";
  }
  const path = u.pathname
    .split("/")
    .map((seg) => (isTokenLike(seg) ? "…" : seg))
    .join("/");
  const query = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=…`).join("&");
  return `${u.origin}${path}${query ? `?${query}` : ""}`;
}

/**
 * The parts of a webhook URL that may be a credential, for redaction in quoted text (a receiver's
 * error page often echoes the request path — Express's `Cannot POST /services/…`): the path with
 * its query, the query alone, each token-like path segment ({@link displayUrl}'s rule) and each
 * query value. Parts shorter than 4 characters are left out (they would redact ordinary words).
 */
export function urlSecretParts(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const parts = new Set<string>();
  const pathQuery = `${u.pathname}${u.search}`;
  if (pathQuery !== "/") parts.add(pathQuery);
  if (u.search) parts.add(u.search);
  for (const seg of u.pathname.split("/")) if (isTokenLike(seg)) parts.add(seg);
  for (const v of u.searchParams.values()) parts.add(v);
  // Longest first, so a whole path is replaced before a segment inside it.
  return [...parts].filter((p) => p.length >= 4).sort((a, b) => b.length - a.length);
}
