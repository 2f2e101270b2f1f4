import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { endpointDir, findLocalToken, writeEndpointRecord } from "../../src/auth/local-credentials.js";
import { tmpDir } from "../helpers/tmp.js";

const isRoot = process.getuid?.() === 0;

function setup() {
  const base = tmpDir("lc-");
  const runtime = path.join(base, "run");
  fs.mkdirSync(runtime, { mode: 0o700 });
  const dataDir = path.join(base, "data");
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const tokenFile = path.join(dataDir, "admin-token");
  fs.writeFileSync(tokenFile, "prospero_live\n", { mode: 0o600 });
  const env = { HOME: base, XDG_RUNTIME_DIR: runtime, PROSPERO_DATA_DIR: path.join(base, "default-data") };
  return { base, runtime, dataDir, tokenFile, env };
}

describe("local token discovery", () => {
  it("a live gateway's endpoint record leads a loopback client to its token (record 0600 in a 0700 dir)", () => {
    const s = setup();
    const rec = writeEndpointRecord(
      { url: "http://127.0.0.1:7999", port: 7999, pid: process.pid, tokenFile: s.tokenFile },
      s.env,
    );
    expect(rec.error).toBeNull();
    expect(fs.statSync(endpointDir(s.env)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(rec.file!).mode & 0o777).toBe(0o600);
    expect(findLocalToken("http://127.0.0.1:7999", s.env)).toBe("prospero_live");
    expect(findLocalToken("http://localhost:7999/graphql", s.env)).toBe("prospero_live");
    // Never for a remote URL, or another port.
    expect(findLocalToken("http://10.0.0.1:7999", s.env)).toBeNull();
    expect(findLocalToken("http://127.0.0.1:7998", s.env)).toBeNull();
    rec.remove();
    expect(fs.existsSync(rec.file!)).toBe(false);
  });

  it("a dead gateway's record is ignored; the default data dir's admin-token is the fallback", () => {
    const s = setup();
    writeEndpointRecord(
      { url: "http://127.0.0.1:7997", port: 7997, pid: 2 ** 22 + 12345, tokenFile: s.tokenFile },
      s.env,
    );
    expect(findLocalToken("http://127.0.0.1:7997", s.env)).toBeNull();
    fs.mkdirSync(s.env.PROSPERO_DATA_DIR, { mode: 0o700 });
    fs.writeFileSync(path.join(s.env.PROSPERO_DATA_DIR, "admin-token"), "prospero_default\n", {
      mode: 0o600,
    });
    expect(findLocalToken("http://127.0.0.1:7997", s.env)).toBe("prospero_default");
  });

  it("files others could have written are not trusted", () => {
    const s = setup();
    writeEndpointRecord(
      { url: "http://127.0.0.1:7996", port: 7996, pid: process.pid, tokenFile: s.tokenFile },
      s.env,
    );
    fs.chmodSync(endpointDir(s.env), 0o777);
    expect(findLocalToken("http://127.0.0.1:7996", s.env)).toBeNull();
    fs.chmodSync(endpointDir(s.env), 0o700);
    fs.chmodSync(s.tokenFile, 0o666);
    expect(findLocalToken("http://127.0.0.1:7996", s.env)).toBeNull();
    fs.chmodSync(s.tokenFile, 0o600);
    expect(findLocalToken("http://127.0.0.1:7996", s.env)).toBe("prospero_live");
    // A record written into a directory that is not private is refused outright.
    const open = { ...s.env, XDG_RUNTIME_DIR: path.join(s.base, "open") };
    fs.mkdirSync(path.join(open.XDG_RUNTIME_DIR, "prospero", "gateways"), { recursive: true, mode: 0o777 });
    fs.chmodSync(path.join(open.XDG_RUNTIME_DIR, "prospero", "gateways"), 0o777);
    expect(
      writeEndpointRecord(
        { url: "http://127.0.0.1:1", port: 1, pid: process.pid, tokenFile: s.tokenFile },
        open,
      ).error,
    ).toMatch(/not a private directory/);
  });

  it.skipIf(!isRoot)("a token file owned by another user is not read", () => {
    const s = setup();
    writeEndpointRecord(
      { url: "http://127.0.0.1:7995", port: 7995, pid: process.pid, tokenFile: s.tokenFile },
      s.env,
    );
    fs.chownSync(s.tokenFile, 65534, 65534);
    expect(findLocalToken("http://127.0.0.1:7995", s.env)).toBeNull();
  });
});
