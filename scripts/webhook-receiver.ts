/**
 * A webhook receiver for trying Prospero's webhooks on one machine (README "Operator attention",
 * docs/webhooks.md): listens on loopback, checks each request's `X-Prospero-Signature` with the
 * hook's secret (src/attention/payload.ts `verifySignature`) and prints one line per notification:
 * whether the signature holds, the type, the title. Answers 204 to a signed request, 401 to one
 * whose signature does not verify (Prospero then retries it and shows the 401 in the delivery log).
 *
 *   npx tsx scripts/webhook-receiver.ts --secret-file hook-secret [--port 9000] [--json]
 *
 * Exits 2 for bad arguments or an unreadable/empty secret file; stops on Ctrl-C.
 */
import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";
import { verifySignature } from "../src/attention/payload.js";

/** Largest request body read, bytes (a notification is a few KiB). */
const MAX_BODY_BYTES = 1024 * 1024;

function fail(message: string): never {
  process.stderr.write(`webhook-receiver: ${message}\n`);
  process.exit(2);
}

let args: { "secret-file"?: string; port?: string; json?: boolean };
try {
  args = parseArgs({
    options: {
      "secret-file": { type: "string" },
      port: { type: "string", default: "9000" },
      json: { type: "boolean", default: false },
    },
  }).values;
} catch (err) {
  fail((err as Error).message);
}
if (!args["secret-file"])
  fail("--secret-file <file> is required (the secret `prospero webhook add` printed)");
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0–65535, got ${args.port}`);
let secret: string;
try {
  secret = fs.readFileSync(args["secret-file"], "utf8").trim();
} catch (err) {
  fail(`cannot read the secret file: ${(err as Error).message}`);
}
if (secret === "") fail("the secret file is empty");

const header = (req: http.IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (c: Buffer) => {
    size += c.length;
    if (size > MAX_BODY_BYTES) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on("end", () => {
    if (res.writableEnded) return;
    const body = Buffer.concat(chunks).toString("utf8");
    const ok = verifySignature(secret, {
      body,
      timestamp: header(req, "x-prospero-timestamp"),
      signature: header(req, "x-prospero-signature"),
    });
    let parsed: { type?: unknown; title?: unknown; text?: unknown } = {};
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      // printed as unreadable below
    }
    const type = header(req, "x-prospero-event") ?? String(parsed.type ?? "?");
    const title = String(parsed.title ?? parsed.text ?? "(no title)").replace(/[\p{Cc}]/gu, " ");
    if (args.json) {
      process.stdout.write(
        `${JSON.stringify({ signatureOk: ok, type, delivery: header(req, "x-prospero-delivery") ?? null, body: parsed })}\n`,
      );
    } else {
      process.stdout.write(`${ok ? "signature ok " : "BAD SIGNATURE"}  ${type}  ${title}\n`);
    }
    res.writeHead(ok ? 204 : 401).end();
  });
});
server.listen(port, "127.0.0.1", () => {
  const a = server.address();
  const bound = typeof a === "object" && a ? a.port : port;
  process.stderr.write(`webhook-receiver: listening on http://127.0.0.1:${bound}/ (Ctrl-C stops)\n`);
});
for (const s of ["SIGINT", "SIGTERM"] as const) process.on(s, () => server.close(() => process.exit(0)));
