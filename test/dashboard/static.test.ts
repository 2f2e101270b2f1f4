/**
 * The gateway's static dashboard handler: MIME types, caching, CSP, path traversal, and the 503
 * that tells how to build the dashboard when it is missing.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createStaticHandler,
  DASHBOARD_CSP,
  IMMUTABLE_CACHE,
  resolveInside,
} from "../../src/server/static.js";
import { tmpDir } from "../helpers/tmp.js";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request: the path is sent exactly as given (no client-side normalization). */
function get(
  port: number,
  rawPath: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: rawPath, method: opts.method ?? "GET", headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function serve(root: string): Promise<{ port: number; close: () => Promise<void> }> {
  const handler = createStaticHandler(root);
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("static dashboard handler", () => {
  let root: string;
  let srv: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    const base = tmpDir("pt-static-");
    root = path.join(base, "dist");
    fs.mkdirSync(path.join(root, "assets"), { recursive: true });
    fs.writeFileSync(path.join(root, "index.html"), "<!doctype html><title>t</title>");
    fs.writeFileSync(path.join(root, "assets", "index-AbCd1234.js"), "console.log(1)");
    fs.writeFileSync(path.join(root, "assets", "index-Zz_9-xYw.css"), "body{}");
    fs.writeFileSync(path.join(root, "favicon.svg"), "<svg/>");
    fs.writeFileSync(path.join(root, "data.bin"), "xx");
    fs.writeFileSync(path.join(base, "secret.txt"), "secret");
    fs.symlinkSync(path.join(base, "secret.txt"), path.join(root, "link.txt"));
    srv = await serve(root);
  });
  afterAll(async () => {
    await srv.close();
  });

  it("serves index.html at / with no-cache, the CSP and nosniff", async () => {
    const r = await get(srv.port, "/");
    expect(r.status).toBe(200);
    expect(r.body).toBe("<!doctype html><title>t</title>");
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.headers["cache-control"]).toBe("no-cache");
    expect(r.headers["content-security-policy"]).toBe(DASHBOARD_CSP);
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect((await get(srv.port, "/index.html?x=1")).body).toBe(r.body);
  });

  it("serves hashed assets with their MIME type and a long immutable cache", async () => {
    const js = await get(srv.port, "/assets/index-AbCd1234.js");
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
    const css = await get(srv.port, "/assets/index-Zz_9-xYw.css");
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
    const svg = await get(srv.port, "/favicon.svg");
    expect(svg.headers["content-type"]).toBe("image/svg+xml");
    expect(svg.headers["cache-control"]).toBe("no-cache");
    expect((await get(srv.port, "/data.bin")).headers["content-type"]).toBe("application/octet-stream");
  });

  it("answers HEAD without a body and a matching ETag with 304", async () => {
    const head = await get(srv.port, "/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(Number(head.headers["content-length"])).toBeGreaterThan(0);
    const etag = String(head.headers.etag);
    const again = await get(srv.port, "/", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
  });

  it.each([
    "/../secret.txt",
    "/assets/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/..%5csecret.txt",
    "/link.txt",
    "/%E0%A4%A",
    "/nul%00.html",
    "/assets",
    "/missing.js",
  ])("%s is 404", async (p) => {
    const r = await get(srv.port, p);
    expect(r.status).toBe(404);
    expect(r.body).not.toContain("secret");
    expect(r.headers["content-security-policy"]).toBe(DASHBOARD_CSP);
  });

  it("resolveInside keeps every path under the root", () => {
    expect(resolveInside("/r", "/")).toBe("/r/index.html");
    expect(resolveInside("/r", "/a/../b.js")).toBe("/r/b.js");
    expect(resolveInside("/r", "/../../etc/passwd")).toBe("/r/etc/passwd");
    expect(resolveInside("/r", "/%2e%2e")).toBe(null);
    expect(resolveInside("/r", "/%")).toBe(null);
  });

  it("without a build, answers 503 telling how to build it", async () => {
    const missing = await serve(path.join(tmpDir("pt-static-"), "dist"));
    try {
      const r = await get(missing.port, "/");
      expect(r.status).toBe(503);
      expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(r.body).toMatch(/npm run dashboard:build/);
    } finally {
      await missing.close();
    }
  });
});
