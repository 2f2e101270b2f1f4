/**
 * The pieces of remote workspaces (src/fleet/remote.ts) a user meets through their errors: the
 * endpoint's form, the credentials read at each client build (a rotated token is used at once),
 * tokens the preamble cannot carry, and a server name that is an IP address (verified against the
 * certificate's IP SAN, not sent as SNI, which may carry DNS names only).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CalibandClient } from "../../src/caliband/client.js";
import {
  RemoteCredentialsUnavailable,
  loadRemoteTransport,
  parseRemoteEndpoint,
  remoteControlEndpoint,
  type RemoteCaliband,
} from "../../src/fleet/remote.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTestTls, type TestTls } from "../support/tls.js";

let tls: TestTls;
let tmp: string;
let creds: string;
const policy = () => ({ credentialsDirs: [creds] });

beforeAll(() => {
  tls = makeTestTls();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-remote-unit-"));
  creds = path.join(tmp, "creds");
  fs.mkdirSync(creds);
  fs.writeFileSync(path.join(creds, "ca.pem"), tls.caPem);
});

afterAll(() => {
  tls.cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function remote(over: Partial<RemoteCaliband> = {}): RemoteCaliband {
  return {
    addr: "127.0.0.1:1",
    caFile: path.join(creds, "ca.pem"),
    serverName: "localhost",
    tokenFromEnv: null,
    tokenFile: path.join(creds, "t.token"),
    ...over,
  };
}

describe("remote endpoints and credentials", () => {
  it("accepts tcp://host:port only", () => {
    expect(parseRemoteEndpoint("tcp://build1.example.net:7070")).toBe("build1.example.net:7070");
    expect(parseRemoteEndpoint("tcp://[::1]:7070")).toBe("[::1]:7070");
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
    ])
      expect(parseRemoteEndpoint(bad), bad).toBeUndefined();
  });

  it("reads the token file at every client build, so a rotated token is used at once", async () => {
    const file = path.join(creds, "t.token");
    fs.writeFileSync(file, "first-token\n");
    expect((await loadRemoteTransport(remote(), policy(), {})).token).toBe("first-token");
    fs.writeFileSync(file, "second-token");
    expect((await loadRemoteTransport(remote(), policy(), {})).token).toBe("second-token");
  });

  it("refuses tokens the preamble cannot carry, naming where they came from and never the token", async () => {
    const file = path.join(creds, "t.token");
    for (const bad of ["two words", 'quo"te', "back\\slash", "", "x".repeat(4001), "a\nb"]) {
      fs.writeFileSync(file, bad);
      const err = await loadRemoteTransport(remote(), policy(), {}).catch((e: unknown) => e);
      expect(err, JSON.stringify(bad.slice(0, 20))).toBeInstanceOf(RemoteCredentialsUnavailable);
      const msg = (err as Error).message;
      expect(msg).toMatch(/token/);
      if (bad.length > 3) expect(msg).not.toContain(bad);
    }
    const unset = await loadRemoteTransport(
      remote({ tokenFile: null, tokenFromEnv: "PROSPERO_CALIBAND_TOKEN_NOPE" }),
      policy(),
      {},
    ).catch((e: unknown) => e);
    expect((unset as Error).message).toMatch(/PROSPERO_CALIBAND_TOKEN_NOPE is unset or empty/);
  });

  it("a token file moved out of the credentials directory (a link now) is refused at the next build", async () => {
    const outside = path.join(tmp, "outside.token");
    fs.writeFileSync(outside, "outside-token");
    const file = path.join(creds, "t.token");
    fs.rmSync(file);
    fs.symlinkSync(outside, file);
    const err = await loadRemoteTransport(remote(), policy(), {}).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/not inside a credentials directory/);
    fs.rmSync(file);
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
      fs.writeFileSync(path.join(creds, "t.token"), "ip-token");
      const r = remote({ addr, serverName: "127.0.0.1" });
      const client = new CalibandClient(remoteControlEndpoint(r, await loadRemoteTransport(r, policy(), {})));
      expect((await client.status()).pid).toBeGreaterThan(0);
      // A name the certificate does not hold is still refused.
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
