/**
 * Serves the built dashboard (`dashboard/dist`, made by `npm run dashboard:build`) at `/`: the
 * page and its assets with their MIME types, long-lived caching for content-hashed assets,
 * `no-cache` for the page, and a strict Content-Security-Policy on every answer. Paths that leave
 * the directory (`..`, encoded or not, symlinks out of it) are 404; without a build, `/` answers
 * 503 with how to make one.
 */
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";

/** Where `npm run dashboard:build` writes the dashboard. */
export const DASHBOARD_DIST = fileURLToPath(new URL("../../dashboard/dist", import.meta.url));

/**
 * The dashboard's Content-Security-Policy: nothing but its own files and its own origin's
 * endpoints (`connect-src 'self'` covers the same origin's ws:/wss: in current browsers).
 */
export const DASHBOARD_CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; " +
  "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** Cache-Control of content-hashed files (their name changes with their content). */
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

/** MIME types of the files a Vite build emits; anything else is served as bytes. */
const MIME_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".wasm": "application/wasm",
};

/** Content type of a file by its extension. */
export function contentTypeOf(file: string): string {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/** Headers every dashboard answer carries. */
function securityHeaders(): Record<string, string> {
  return {
    "content-security-policy": DASHBOARD_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

function plain(res: ServerResponse, status: number, body: string, head: boolean): void {
  res.writeHead(status, {
    ...securityHeaders(),
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(body),
  });
  res.end(head ? undefined : body);
}

/** Hashed by Vite: `assets/<name>-<hash>.<ext>`. */
function isHashedAsset(rel: string): boolean {
  return /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[A-Za-z0-9]+$/.test(rel);
}

/**
 * The file under `root` that `pathname` names (`/` is `index.html`), or null when the path is
 * malformed or leaves `root`.
 */
export function resolveInside(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return null;
  const rel = path.posix.normalize(decoded === "/" ? "/index.html" : decoded).replace(/^\/+/, "");
  if (rel === "" || rel === ".." || rel.startsWith("../")) return null;
  const file = path.resolve(root, rel);
  return file.startsWith(root + path.sep) ? file : null;
}

/** A request handler for GET/HEAD of the dashboard built into `root`; it never rejects. */
export function createStaticHandler(
  root: string,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const base = path.resolve(root);
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const head = req.method === "HEAD";
    const pathname = (req.url ?? "/").split("?")[0] ?? "/";
    let realRoot: string;
    try {
      realRoot = await fs.promises.realpath(base);
      await fs.promises.access(path.join(realRoot, "index.html"));
    } catch {
      plain(
        res,
        503,
        "The dashboard is not built. Run `npm run dashboard:build` (npm start does it), then reload.\n",
        head,
      );
      return;
    }
    const candidate = resolveInside(realRoot, pathname);
    let file: string;
    let stat: fs.Stats;
    try {
      if (candidate === null) throw new Error("outside");
      // Symlinks must not lead out of the build either.
      file = await fs.promises.realpath(candidate);
      if (!file.startsWith(realRoot + path.sep)) throw new Error("outside");
      stat = await fs.promises.stat(file);
      if (!stat.isFile()) throw new Error("not a file");
    } catch {
      plain(res, 404, "Not found\n", head);
      return;
    }
    const rel = path.relative(realRoot, file).split(path.sep).join("/");
    const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const headers: Record<string, string | number> = {
      ...securityHeaders(),
      "content-type": contentTypeOf(file),
      "cache-control": isHashedAsset(rel) ? IMMUTABLE_CACHE : "no-cache",
      etag,
      "last-modified": stat.mtime.toUTCString(),
    };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, "content-length": stat.size });
    if (head) {
      res.end();
      return;
    }
    try {
      await pipeline(fs.createReadStream(file), res);
    } catch {
      // The client went away, or the file vanished mid-read (a rebuild): nothing left to answer.
      res.destroy();
    }
  };
  return async (req, res) => {
    try {
      await serve(req, res);
    } catch {
      if (res.headersSent) res.destroy();
      else plain(res, 500, "Internal error\n", req.method === "HEAD");
    }
  };
}

let defaultHandler: ReturnType<typeof createStaticHandler> | undefined;

/** Serve the dashboard from {@link DASHBOARD_DIST} (the gateway's GET/HEAD fallback). */
export function serveDashboard(req: IncomingMessage, res: ServerResponse): Promise<void> {
  defaultHandler ??= createStaticHandler(DASHBOARD_DIST);
  return defaultHandler(req, res);
}
