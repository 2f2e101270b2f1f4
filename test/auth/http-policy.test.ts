import { describe, expect, it } from "vitest";
import { AccessPolicy, hostnameOf, isLoopbackAddress, normalizeAddress } from "../../src/auth/http-policy.js";

const policy = (over: Partial<ConstructorParameters<typeof AccessPolicy>[0]> = {}) =>
  new AccessPolicy({
    bind: "127.0.0.1",
    tls: false,
    publicHosts: [],
    corsOrigins: [],
    trustProxy: [],
    ...over,
  });

const req = (headers: Record<string, string>, remoteAddress = "127.0.0.1") => ({ headers, remoteAddress });

describe("Host", () => {
  it("parses authorities and refuses malformed ones", () => {
    expect(hostnameOf("example.com:7878")).toBe("example.com");
    expect(hostnameOf("[::1]:80")).toBe("::1");
    expect(hostnameOf("LOCALHOST")).toBe("localhost");
    for (const bad of ["", "a b", "user@host", "host/path", "host?x", "a\\b"])
      expect(hostnameOf(bad)).toBeNull();
  });

  it("answers loopback names, IP literals, the bind address and --public-host names only", () => {
    const p = policy({ bind: "gateway.lan", publicHosts: ["prospero.example.com"] });
    for (const ok of [
      "127.0.0.1:7878",
      "localhost:7878",
      "app.localhost",
      "[::1]:7878",
      "10.1.2.3",
      "gateway.lan:7878",
      "prospero.example.com",
      "PROSPERO.EXAMPLE.COM:443",
    ]) {
      expect(p.hostAllowed(ok), ok).toBe(true);
    }
    for (const bad of [
      undefined,
      "evil.example",
      "evil.example:7878",
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "prospero.example.com.evil",
    ]) {
      expect(p.hostAllowed(bad), String(bad)).toBe(false);
    }
  });
});

describe("Origin", () => {
  it("is same-origin only when scheme, host and port all match the request's Host", () => {
    const p = policy();
    expect(p.origin(req({ host: "127.0.0.1:7878" }))).toBe("absent");
    expect(p.origin(req({ host: "127.0.0.1:7878", origin: "http://127.0.0.1:7878" }))).toBe("same-origin");
    expect(p.origin(req({ host: "127.0.0.1:7878", origin: "http://127.0.0.1:8080" }))).toBe("forbidden");
    expect(p.origin(req({ host: "127.0.0.1:7878", origin: "https://127.0.0.1:7878" }))).toBe("forbidden");
    expect(p.origin(req({ host: "127.0.0.1:7878", origin: "http://localhost:7878" }))).toBe("forbidden");
    expect(p.origin(req({ host: "127.0.0.1:7878", origin: "null" }))).toBe("forbidden");
    expect(p.origin(req({ host: "127.0.0.1:7878", origin: "not a url" }))).toBe("forbidden");
    // A forged Host that the gateway would not answer makes no origin "own".
    expect(p.origin(req({ host: "evil.example", origin: "http://evil.example" }))).toBe("forbidden");
  });

  it("allowlisted cross origins are exact (no prefix or suffix tricks)", () => {
    const p = policy({ corsOrigins: ["https://ops.example.com"] });
    const at = (origin: string) => p.origin(req({ host: "127.0.0.1:7878", origin }));
    expect(at("https://ops.example.com")).toBe("allowed-cross-origin");
    expect(at("https://ops.example.com:443")).toBe("allowed-cross-origin");
    expect(at("http://ops.example.com")).toBe("forbidden");
    expect(at("https://ops.example.com.evil.example")).toBe("forbidden");
    expect(at("https://evil-ops.example.com")).toBe("forbidden");
    expect(p.corsAllowed("https://ops.example.com")).toBe(true);
    expect(p.corsAllowed("https://other.example.com")).toBe(false);
  });

  it("behind a trusted proxy the scheme comes from X-Forwarded-Proto, and only from the proxy", () => {
    const p = policy({ trustProxy: ["10.0.0.5"], publicHosts: ["prospero.example.com"] });
    const viaProxy = req(
      { host: "prospero.example.com", origin: "https://prospero.example.com", "x-forwarded-proto": "https" },
      "10.0.0.5",
    );
    expect(p.origin(viaProxy)).toBe("same-origin");
    const direct = req(
      { host: "prospero.example.com", origin: "https://prospero.example.com", "x-forwarded-proto": "https" },
      "10.0.0.9",
    );
    expect(p.origin(direct)).toBe("forbidden");
  });
});

describe("client address", () => {
  it("believes the last X-Forwarded-For hop only from a trusted proxy", () => {
    const p = policy({ trustProxy: ["127.0.0.2"] });
    expect(p.clientAddress(req({ "x-forwarded-for": "198.51.100.1, 203.0.113.7" }, "127.0.0.2"))).toBe(
      "203.0.113.7",
    );
    expect(p.clientAddress(req({ "x-forwarded-for": "203.0.113.7" }, "127.0.0.1"))).toBe("127.0.0.1");
    expect(p.clientAddress(req({ "x-forwarded-for": "not-an-ip" }, "::ffff:127.0.0.2"))).toBe("127.0.0.2");
    expect(p.fromTrustedProxy(req({}, "::ffff:127.0.0.2"))).toBe(true);
    expect(p.behindProxy).toBe(true);
    expect(policy().behindProxy).toBe(false);
  });

  it("knows loopback binds", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "example.com"])
      expect(isLoopbackAddress(a), a).toBe(false);
    expect(normalizeAddress("::FFFF:10.0.0.1")).toBe("10.0.0.1");
  });
});
