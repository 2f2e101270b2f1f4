/**
 * Browser sessions of the dashboard and GraphiQL (issue 11 item 1): a token is exchanged for an
 * `HttpOnly; SameSite=Strict` session cookie, either by opening a page with `?token=<secret>`
 * (the ready-to-open URL the gateway logs; answered with a redirect that drops the token from the
 * address bar) or by POSTing `{"token": "<secret>"}` to {@link SESSION_PATH} (the dashboard's
 * token prompt). {@link LOGOUT_PATH} ends the session.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { stringifySetCookie } from "cookie";
import { z } from "zod";
import type { OriginVerdict } from "../auth/http-policy.js";
import { sessionCookieOf } from "../auth/authenticate.js";
import type { TokenService } from "../auth/tokens.js";
import type { Principal } from "../auth/roles.js";

/** POST `{"token": "..."}` here to open a session (answers 204 with `Set-Cookie`). */
export const SESSION_PATH = "/auth/session";
/** POST here to end the session (answers 204 and clears the cookie). */
export const LOGOUT_PATH = "/auth/logout";

/** Largest body accepted by the session endpoints, bytes. */
const MAX_SESSION_BODY = 4096;

/** What the session endpoints need. */
export interface SessionDeps {
  tokens: TokenService;
  cookieName: string;
  /** Cookies get `Secure` (and the `__Host-` name) over TLS. */
  secure: boolean;
  /** Record that a token was refused (audit). */
  refused: (reason: string) => void;
  /** Record an opened session (audit). */
  opened: (principal: Principal) => void;
}

/** Answer with a short plain-text body and no caching. */
export function plainText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...headers,
    })
    .end(`${body}\n`);
}

/** Answer with a GraphQL-shaped error body (`{"errors":[{message, extensions:{code}}]}`). */
export function graphqlError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    })
    .end(JSON.stringify({ errors: [{ message, extensions: { code } }] }));
}

function setCookie(deps: SessionDeps, value: string, maxAgeSeconds: number): string {
  return stringifySetCookie({
    name: deps.cookieName,
    value,
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: deps.secure,
    maxAge: maxAgeSeconds,
  });
}

/**
 * Exchange a token for a session cookie (`Set-Cookie` value), or null when the token is refused.
 * A browser that already holds a live session of the same token keeps it (no new row per visit).
 */
async function openSession(
  deps: SessionDeps,
  secret: string,
  cookieHeader?: string,
): Promise<string | "kept" | null> {
  const check = deps.tokens.verify(secret);
  if (!check.ok) {
    deps.refused(`token refused: ${check.reason}`);
    return null;
  }
  const current = sessionCookieOf(cookieHeader, deps.cookieName);
  if (current !== null) {
    const held = deps.tokens.verifySession(current);
    if (held.ok && held.principal.tokenId === check.principal.tokenId) return "kept";
  }
  const { secret: cookie, expiresAt } = await deps.tokens.createSession(check.principal.tokenId);
  deps.opened(check.principal);
  return setCookie(deps, cookie, Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)));
}

/**
 * For a GET of a page with `?token=`: open a session and redirect (303) to the same URL without
 * the token. A refused token redirects with `login=failed` instead, and no cookie; a URL followed
 * from another site (`Sec-Fetch-Site` other than `none`/`same-origin`) with `login=cross-site`.
 * @returns true when it answered the request.
 */
export async function exchangeTokenInUrl(
  req: IncomingMessage,
  res: ServerResponse,
  deps: SessionDeps,
): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://gateway");
  const token = url.searchParams.get("token");
  if (token === null) return false;
  url.searchParams.delete("token");
  // Only a URL the operator opened themselves (typed, pasted, from a terminal: Sec-Fetch-Site
  // `none`) or one of our own pages may sign the browser in: a foreign page (a link, a hidden
  // iframe) must not swap the operator's session for one of its own (login CSRF).
  const site = req.headers["sec-fetch-site"];
  const direct = site === undefined || site === "none" || site === "same-origin";
  const opened = direct ? await openSession(deps, token, req.headers.cookie) : null;
  const cookie = opened === "kept" ? null : opened;
  if (!direct) deps.refused(`sign-in URL opened from another site (Sec-Fetch-Site: ${String(site)})`);
  if (opened === null) url.searchParams.set("login", direct ? "failed" : "cross-site");
  const location = `${url.pathname}${url.search}`;
  res
    .writeHead(303, {
      location,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      ...(cookie ? { "set-cookie": cookie } : {}),
    })
    .end();
  return true;
}

async function readSmallBody(req: IncomingMessage): Promise<string | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_SESSION_BODY) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const SessionBody = z.object({ token: z.string().min(1).max(512) });

/**
 * Serve {@link SESSION_PATH} and {@link LOGOUT_PATH}: POST only, JSON only, and only from this
 * gateway's own pages or from non-browser clients (a foreign page may not log a browser into a
 * session of its choosing).
 * @returns true when `pathname` was one of them (the request is answered).
 */
export async function serveSessionEndpoints(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  origin: OriginVerdict,
  deps: SessionDeps,
): Promise<boolean> {
  if (pathname !== SESSION_PATH && pathname !== LOGOUT_PATH) return false;
  if (req.method !== "POST") {
    plainText(res, 405, "use POST", { allow: "POST" });
    return true;
  }
  if (origin !== "same-origin" && origin !== "absent") {
    plainText(res, 403, "sessions are opened and ended only from this gateway's own pages");
    return true;
  }
  if (pathname === LOGOUT_PATH) {
    const current = sessionCookieOf(req.headers.cookie, deps.cookieName);
    if (current) await deps.tokens.endSession(current);
    res.writeHead(204, { "set-cookie": setCookie(deps, "", 0), "cache-control": "no-store" }).end();
    return true;
  }
  if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
    plainText(res, 415, 'send {"token": "<token>"} as application/json');
    return true;
  }
  const text = await readSmallBody(req);
  let parsed: z.ZodSafeParseResult<{ token: string }> | null = null;
  try {
    parsed = text === null ? null : SessionBody.safeParse(JSON.parse(text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) {
    plainText(res, 400, 'expected {"token": "<token>"} (at most 4 KiB)');
    return true;
  }
  const opened = await openSession(deps, parsed.data.token, req.headers.cookie);
  if (opened === "kept") {
    res.writeHead(204, { "cache-control": "no-store" }).end();
    return true;
  }
  const cookie = opened;
  if (!cookie) {
    graphqlError(res, 401, "UNAUTHENTICATED", "that token is not valid (unknown, expired or revoked)");
    return true;
  }
  res.writeHead(204, { "set-cookie": cookie, "cache-control": "no-store" }).end();
  return true;
}
