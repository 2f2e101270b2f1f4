// Throwaway TLS material for TCP-mode tests of caliband (docs/caliband-protocol.md §6): a test CA
// and a server certificate for `localhost` (+ IP SAN 127.0.0.1), made with the openssl CLI.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** PEM contents and the files they were written to; `cleanup()` removes the directory. */
export interface TestTls {
  /** CA certificate (what clients trust). */
  caPem: string;
  /** Server certificate (CN/SAN `localhost`, SAN IP 127.0.0.1), signed by the CA. */
  certPem: string;
  /** Server private key (PKCS#8, P-256). */
  keyPem: string;
  dir: string;
  caPath: string;
  certPath: string;
  keyPath: string;
  cleanup(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

/**
 * Generates a CA and a `localhost` server certificate valid for 2 days in a fresh temp dir. Uses
 * EC P-256 keys (fast). Requires the `openssl` CLI (OpenSSL ≥ 1.1.1 for `-addext`).
 */
export function makeTestTls(): TestTls {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-tls-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(dir, [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=prospero test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  openssl(dir, ["req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
  fs.writeFileSync(
    path.join(dir, "server.ext"),
    [
      "basicConstraints=CA:FALSE",
      "keyUsage=critical,digitalSignature,keyEncipherment",
      "extendedKeyUsage=serverAuth",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "",
    ].join("\n"),
  );
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "2",
    "-extfile",
    "server.ext",
  ]);
  const read = (f: string): string => fs.readFileSync(path.join(dir, f), "utf8");
  return {
    caPem: read("ca.pem"),
    certPem: read("server.pem"),
    keyPem: read("server.key"),
    dir,
    caPath: path.join(dir, "ca.pem"),
    certPath: path.join(dir, "server.pem"),
    keyPath: path.join(dir, "server.key"),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
