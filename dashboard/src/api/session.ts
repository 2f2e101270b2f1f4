/**
 * The dashboard's session with the gateway (issue 11): the page authenticates with an HttpOnly
 * session cookie it can neither read nor set itself. The gateway sets it when the page is opened
 * with `?token=` (the URL it logs), or when a token is POSTed to `/auth/session` (the sign-in
 * form); `/auth/logout` ends it.
 */
import { GRAPHQL_PATH } from "./http.js";

/** Who the page is signed in as (the `viewer` query). */
export interface Viewer {
  name: string;
  role: "VIEWER" | "OPERATOR" | "ADMIN";
  workspaces: string[] | null;
}

/** Where the session stands. */
export type SessionState =
  { kind: "signed-in"; viewer: Viewer } | { kind: "signed-out"; reason: string | null };

/** Who the page is signed in as (registered as a trusted document: scripts/trusted-documents.ts). */
export const VIEWER_QUERY = "query Viewer { viewer { name role workspaces } }";

/**
 * Ask the gateway who the page is. A 401 means no (valid) session; anything else unexpected is
 * reported as signed out with its reason.
 */
export async function currentSession(): Promise<SessionState> {
  let res: Response;
  try {
    res = await fetch(GRAPHQL_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query: VIEWER_QUERY }),
    });
  } catch (err) {
    return { kind: "signed-out", reason: `the gateway cannot be reached (${String(err)})` };
  }
  const body = (await res.json().catch(() => null)) as {
    data?: { viewer?: Viewer } | null;
    errors?: { message: string }[];
  } | null;
  const viewer = body?.data?.viewer;
  if (res.ok && viewer) return { kind: "signed-in", viewer };
  if (res.status === 401) return { kind: "signed-out", reason: null };
  return { kind: "signed-out", reason: body?.errors?.[0]?.message ?? `HTTP ${res.status}` };
}

/**
 * Exchange a token for a session cookie.
 * @returns null on success, else why it failed (shown to the operator).
 */
export async function signIn(token: string): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch("/auth/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
  } catch (err) {
    return `the gateway cannot be reached (${String(err)})`;
  }
  if (res.status === 204) return null;
  if (res.status === 401) return "That token was not accepted (unknown, expired or revoked).";
  return `The gateway refused the sign-in (HTTP ${res.status}).`;
}

/** End the session (the cookie is cleared by the gateway). */
export async function signOut(): Promise<void> {
  await fetch("/auth/logout", { method: "POST" }).catch(() => undefined);
}

/**
 * Whether the signed-in token may act as an operator in `workspace` (enqueue, cancel, schedules):
 * the OPERATOR or ADMIN role, and the workspace among the token's (null: every workspace). The
 * gateway checks the same (authScopes); the dashboard only hides what would be refused.
 */
export function mayOperate(viewer: Viewer, workspace: string): boolean {
  if (viewer.role !== "OPERATOR" && viewer.role !== "ADMIN") return false;
  return viewer.workspaces === null || viewer.workspaces.includes(workspace);
}
