/**
 * Request authentication (issue 11 item 1): a bearer token in `Authorization` (HTTP, SSE and the
 * WebSocket upgrade), a token in graphql-ws `connectionParams`, or the dashboard's session cookie.
 * The cookie counts only on a request whose `Origin` is the gateway's own: a request without
 * `Origin` must carry a bearer token (local agent UIs have been exploited through exactly that
 * gap). With `--insecure-no-auth` every request is the admin {@link INSECURE_PRINCIPAL}.
 */
import { parseCookie } from "cookie";
import { INSECURE_PRINCIPAL, type Principal } from "./roles.js";
import type { CredentialFailure, TokenService } from "./tokens.js";
import type { OriginVerdict } from "./http-policy.js";

/** Why a request was refused before GraphQL, with the HTTP status that says so. */
export interface AuthRefusal {
  ok: false;
  /** 401: no valid credentials; 403: credentials not acceptable here (cookie without own Origin). */
  status: 401 | 403;
  code: "UNAUTHENTICATED" | "FORBIDDEN";
  message: string;
}

/** Outcome of {@link authenticate}. */
export type AuthOutcome = { ok: true; principal: Principal } | AuthRefusal;

/** What authentication needs from the gateway. */
export interface AuthDeps {
  tokens: TokenService;
  /** Name of the session cookie (per port: browsers share cookies across ports). */
  cookieName: string;
  /** `--insecure-no-auth`. */
  insecure: boolean;
}

/** The session cookie's name for a gateway on `port` (`__Host-` prefixed over TLS). */
export function sessionCookieName(port: number, tls: boolean): string {
  return `${tls ? "__Host-" : ""}prospero_session_${port}`;
}

const FAILURE_TEXT: Record<CredentialFailure, string> = {
  unknown: "unknown token",
  expired: "the token has expired",
  revoked: "the token was revoked",
};

/** The value of a session cookie in a `Cookie` header, or null. */
export function sessionCookieOf(cookieHeader: string | undefined, cookieName: string): string | null {
  if (!cookieHeader) return null;
  try {
    return parseCookie(cookieHeader)[cookieName] ?? null;
  } catch {
    return null;
  }
}

/** The secret of `Authorization: Bearer <secret>`; null when absent; `malformed` otherwise. */
export function bearerOf(authorization: string | undefined): string | null | "malformed" {
  if (authorization === undefined) return null;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
  return m ? m[1]! : "malformed";
}

/** Check a bearer secret given in some other way (graphql-ws `connectionParams`). */
export function authenticateSecret(secret: string, deps: AuthDeps): AuthOutcome {
  if (deps.insecure) return { ok: true, principal: INSECURE_PRINCIPAL };
  const check = deps.tokens.verify(secret);
  if (check.ok) return check;
  return { ok: false, status: 401, code: "UNAUTHENTICATED", message: FAILURE_TEXT[check.reason] };
}

/**
 * Authenticate a request from its `Authorization` and `Cookie` headers and its Origin verdict.
 * A present `Authorization` header decides alone (a bad one is never rescued by a cookie).
 * @param allowMissing true for WebSocket upgrades, whose token may still come in `connectionParams`:
 *   then a request with no credentials at all is `{ ok: true, principal: null }`.
 */
export function authenticate(
  req: { authorization: string | undefined; cookie: string | undefined; origin: OriginVerdict },
  deps: AuthDeps,
  allowMissing = false,
): AuthOutcome | { ok: true; principal: null } {
  if (deps.insecure) return { ok: true, principal: INSECURE_PRINCIPAL };
  const bearer = bearerOf(req.authorization);
  if (bearer === "malformed") {
    return {
      ok: false,
      status: 401,
      code: "UNAUTHENTICATED",
      message: "malformed Authorization header: expected `Bearer <token>`",
    };
  }
  if (bearer !== null) return authenticateSecret(bearer, deps);
  const session = sessionCookieOf(req.cookie, deps.cookieName);
  if (session !== null) {
    if (req.origin !== "same-origin") {
      return {
        ok: false,
        status: 403,
        code: "FORBIDDEN",
        message:
          "the session cookie is accepted only from this gateway's own pages (Origin header); other clients send Authorization: Bearer <token>",
      };
    }
    const check = deps.tokens.verifySession(session);
    if (check.ok) return check;
    return {
      ok: false,
      status: 401,
      code: "UNAUTHENTICATED",
      message: `the session has ended (${FAILURE_TEXT[check.reason]}); open the dashboard URL with ?token= again`,
    };
  }
  if (allowMissing) return { ok: true, principal: null };
  return {
    ok: false,
    status: 401,
    code: "UNAUTHENTICATED",
    message:
      "authentication required: send Authorization: Bearer <token> (the admin token is in the gateway's data dir, file admin-token)",
  };
}
