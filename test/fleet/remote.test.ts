/**
 * The pieces of remote workspaces (src/fleet/remote.ts) a user meets through their errors: the
 * endpoint's form, the credentials read at each client build (a rotated token is used at once),
 * tokens the preamble cannot carry, and a server name that is an IP address (verified against the
 * certificate's IP SAN, not sent as SNI, which may carry DNS names only).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CalibandClient } from "../../src/caliband/client.js";
import {
  RemoteCredentialsUnavailable,
  agentEndpointRefusal,
  credentialsKey,
  loadRemoteTransport,
  parseRemoteEndpoint,
  remoteControlEndpoint,
  tokenEnvName,
  type RemoteCaliband,
} from "../../src/fleet/remote.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTestTls, type TestTls } from "../support/tls.js";

let tls: TestTls;
let tmp: string;
let creds: string;
const policy = () => ({ credentialsDirs: [creds] });
const ADDR = "127.0.0.1:1";

beforeAll(() => {
  tls = makeTestTls();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-remote-unit-"));
  creds = path.join(tmp, "creds");
  fs.mkdirSync(creds);
});

afterAll(() => {
  tls.cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Provision `addr`'s credentials directory with the test CA (and `token` when given). */
function provision(addr: string, token?: string): string {
  const dir = path.join(creds, credentialsKey(addr));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "ca.pem"), tls.caPem);
  if (token !== undefined) fs.writeFileSync(path.join(dir, "token"), token, { mode: 0o600 });
  return dir;
}

const remote = (over: Partial<RemoteCaliband> = {}): RemoteCaliband => ({
  addr: ADDR,
  serverName: "127.0.0.1",
  ...over,
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error("resolved"),
    (e: unknown) => e as Error,
  );

describe("remote endpoints and credentials", () => {
  it("accepts tcp://host:port only, normalized", () => {
    expect(parseRemoteEndpoint("tcp://Build1.Example.NET:7070")).toBe("build1.example.net:7070");
    expect(parseRemoteEndpoint("tcp://10.0.0.5:7070")).toBe("10.0.0.5:7070");
    expect(parseRemoteEndpoint("tcp://[::1]:7070")).toBe("[::1]:7070");
    expect(parseRemoteEndpoint("tcp://[0:0:0::1]:7070")).toBe("[::1]:7070");
    for (const bad of [
      "build1:7070",
      "tls://build1:7070",
      "tcp://build1",
      "tcp://build1:0",
      "tcp://build1:70000",
      "tcp://user@build1:7070",
      "tcp://build1:7070/",
      "tcp://build1:7070?x=1",
      "tcp://:7070",
      "tcp://bu ild:7070",
      "tcp://127.0.0.1\u0000:7070",
      "tcp://ho\u001bst:7070",
      "tcp://-build1:7070",
      "tcp://::1:7070",
      "tcp://[fe80::1%eth0]:7070",
      "tcp://1.2.3:7070",
      "tcp://bücher.example:7070",
    ])
      expect(parseRemoteEndpoint(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it("names an endpoint's directory and token variable after the endpoint", () => {
    expect(credentialsKey("build1.example.net:7070")).toBe("build1.example.net_7070");
    expect(credentialsKey("[::1]:7070")).toBe("::1_7070");
    expect(tokenEnvName("build1.example.net:7070")).toBe("PROSPERO_CALIBAND_TOKEN_BUILD1_EXAMPLE_NET_7070");
  });

  it("an endpoint the operator did not provision has no credentials, whatever else exists", async () => {
    provision("127.0.0.1:2", "tok-of-2");
    const err = await failure(
      loadRemoteTransport(remote(), policy(), { [tokenEnvName("127.0.0.1:2")]: "x" }),
    );
    expect(err).toBeInstanceOf(RemoteCredentialsUnavailable);
    expect(err.message).toMatch(/no credentials for this endpoint: .*127\.0\.0\.1_1\/ca\.pem/);
    const none = await failure(loadRemoteTransport(remote(), { credentialsDirs: [] }, {}));
    expect(none.message).toMatch(/no credentials directory is configured/);
  });

  it("reads the token at every client build, so a rotated token is used at once; else the endpoint's variable", async () => {
    const dir = provision(ADDR, "first-token\n");
    expect((await loadRemoteTransport(remote(), policy(), {})).token).toBe("first-token");
    fs.writeFileSync(path.join(dir, "token"), "second-token");
    expect((await loadRemoteTransport(remote(), policy(), {})).token).toBe("second-token");
    fs.rmSync(path.join(dir, "token"));
    const env = { [tokenEnvName(ADDR)]: "from-env" };
    expect((await loadRemoteTransport(remote(), policy(), env)).token).toBe("from-env");
    const unset = await failure(loadRemoteTransport(remote(), policy(), {}));
    expect(unset.message).toMatch(/PROSPERO_CALIBAND_TOKEN_127_0_0_1_1 is unset or empty/);
  });

  it("refuses tokens the preamble cannot carry, naming where they came from and never the token", async () => {
    const dir = provision(ADDR);
    const file = path.join(dir, "token");
    for (const bad of ["two words", 'quo"te', "back\\slash", "", "x".repeat(4001), "a\nb"]) {
      fs.writeFileSync(file, bad, { mode: 0o600 });
      const err = await failure(loadRemoteTransport(remote(), policy(), {}));
      expect(err, JSON.stringify(bad.slice(0, 20))).toBeInstanceOf(RemoteCredentialsUnavailable);
      expect(err.message).toMatch(/token/);
      if (bad.length > 3) expect(err.message).not.toContain(bad);
      fs.rmSync(file);
    }
  });

  it("a token file that is a link, a hard link, a FIFO, a directory or readable by others is refused", async () => {
    const dir = provision(ADDR);
    const file = path.join(dir, "token");
    const outside = path.join(tmp, "outside.token");
    fs.writeFileSync(outside, "outside-token", { mode: 0o600 });
    const cases: [string, () => void, RegExp][] = [
      ["symlink", () => fs.symlinkSync(outside, file), /symbolic link/],
      ["hard link", () => fs.linkSync(outside, file), /more than one hard link/],
      ["fifo", () => execFileSync("mkfifo", [file]), /not a regular file/],
      ["directory", () => fs.mkdirSync(file), /not a regular file/],
      ["mode 0644", () => fs.writeFileSync(file, "tok", { mode: 0o644 }), /group or others/],
    ];
    for (const [what, make, reason] of cases) {
      make();
      const t0 = Date.now();
      const err = await failure(loadRemoteTransport(remote(), policy(), {}));
      expect(err.message, what).toMatch(reason);
      expect(Date.now() - t0, `${what}: refused at once`).toBeLessThan(5_000);
      fs.rmSync(file, { recursive: true, force: true });
    }
    // A credentials directory that is a link elsewhere is not the endpoint's directory.
    fs.rmSync(dir, { recursive: true });
    fs.symlinkSync(tmp, dir);
    expect((await failure(loadRemoteTransport(remote(), policy(), {}))).message).toMatch(
      /no credentials for this endpoint/,
    );
    fs.rmSync(dir);
  });

  it("follows agent endpoints on the daemon's own host only", () => {
    const r = remote({ addr: "build1.example.net:7070" });
    expect(agentEndpointRefusal(r, { scheme: "tcp", addr: "BUILD1.example.net:7101" })).toBeNull();
    expect(agentEndpointRefusal(r, { scheme: "unix", path: "/run/x.sock" })).toMatch(/Unix socket/);
    expect(agentEndpointRefusal(r, { scheme: "tcp", addr: "127.0.0.1:22" })).toMatch(
      /not on the daemon's host/,
    );
    expect(agentEndpointRefusal(r, { scheme: "tcp", addr: "0.0.0.0:7101" })).toMatch(/--advertise-host/);
    expect(agentEndpointRefusal(r, { scheme: "tcp", addr: "nonsense" })).toMatch(/not host:port/);
  });

  it("the server name is the operator's: a server-name file, else the endpoint's host", async () => {
    const dir = provision(ADDR, "tok");
    expect(
      (await loadRemoteTransport(remote({ serverName: "127.0.0.1" }), policy(), {})).tls?.serverName,
    ).toBe("127.0.0.1");
    const err = await failure(loadRemoteTransport(remote({ serverName: "localhost" }), policy(), {}));
    expect(err.message).toMatch(
      /the server name localhost is not the one the operator set for this endpoint \(127\.0\.0\.1/,
    );
    fs.writeFileSync(path.join(dir, "server-name"), "localhost\n");
    expect(
      (await loadRemoteTransport(remote({ serverName: "localhost" }), policy(), {})).tls?.serverName,
    ).toBe("localhost");
  });

  it("verifies an IP server name against the certificate's IP SAN without sending it as SNI", async () => {
    const daemon = await FakeCaliband.start({
      workspaceRoot: path.join(tmp, "root"),
      dataBase: path.join(tmp, "agents"),
      tcp: { listen: "127.0.0.1:0", cert: tls.certPem, key: tls.keyPem, token: "ip-token", agentPortBase: 0 },
    });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const ep = daemon.endpoint;
      const addr = ep.scheme === "tcp" ? ep.addr : "";
      provision(addr, "ip-token");
      const r = remote({ addr, serverName: "127.0.0.1" });
      const client = new CalibandClient(remoteControlEndpoint(r, await loadRemoteTransport(r, policy(), {})));
      expect((await client.status()).pid).toBeGreaterThan(0);
      // A name the certificate does not hold is still refused.
      fs.writeFileSync(path.join(creds, credentialsKey(addr), "server-name"), "10.0.0.1");
      const wrong = remote({ addr, serverName: "10.0.0.1" });
      const other = new CalibandClient(
        remoteControlEndpoint(wrong, await loadRemoteTransport(wrong, policy(), {})),
      );
      await expect(other.status()).rejects.toThrow(/IP: 10\.0\.0\.1 is not in the cert's list/);
      await new Promise((res) => setImmediate(res));
      expect(warnings.filter((w) => /ServerName to an IP address/.test(w))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await daemon.close();
    }
  });
});
