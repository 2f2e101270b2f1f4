/**
 * Roles and principals (issue 11, ARCHITECTURE decision 11). Three roles, each including the one
 * before it: `viewer` (queries, subscriptions), `operator` (+ spawn, kill, respawn, remove,
 * drain, input), `admin` (+ workspaces, provider configuration, tokens, audit). A token may be
 * limited to a list of workspaces. Who is asking is a {@link Principal}, built once per request
 * or WebSocket connection by src/auth/authenticate.ts and read by the schema's scope rules.
 */

/** The roles, weakest first. */
export const ROLES = ["viewer", "operator", "admin"] as const;

/** A role. */
export type Role = (typeof ROLES)[number];

/** True when `s` names a role. */
export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

/** True when `have` includes everything `need` may do (admin ⊇ operator ⊇ viewer). */
export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** How a principal proved who it is. */
export type Credential = "bearer" | "cookie" | "insecure-no-auth";

/** Who is asking: a token's identity, role and workspace scope. */
export interface Principal {
  /** Token id (12 hex), or `insecure` when authentication is off. */
  tokenId: string;
  /** Token name (shown in the audit log). */
  name: string;
  role: Role;
  /** Workspaces the token is limited to; null = every workspace. */
  workspaces: readonly string[] | null;
  /** When the token stops working (epoch ms), or null. */
  expiresAtMs: number | null;
  /** How the request authenticated. */
  credential: Credential;
}

/** The principal of every request when the gateway runs with `--insecure-no-auth`. */
export const INSECURE_PRINCIPAL: Principal = Object.freeze({
  tokenId: "insecure",
  name: "insecure-no-auth",
  role: "admin",
  workspaces: null,
  expiresAtMs: null,
  credential: "insecure-no-auth",
});

/** True when `p` may see and act on workspace `name` (its role still decides what it may do). */
export function allowsWorkspace(p: Principal, name: string): boolean {
  return p.workspaces === null || p.workspaces.includes(name);
}

/**
 * The workspaces `p` may see, for filtering lists and streams: null = all (no filter), else the
 * list (possibly empty).
 */
export function visibleWorkspaces(p: Principal): readonly string[] | null {
  return p.workspaces;
}
