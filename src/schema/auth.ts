/**
 * Types of authentication and the audit log (issue 11): `Viewer` (who is asking), `ApiToken` (a
 * token without its secret) and `AuditEntry` (one row of the append-only audit log).
 */
import type { Principal } from "../auth/roles.js";
import type { TokenRecord } from "../auth/tokens.js";
import { builder, registerNode } from "./builder.js";
import { connectionTotal } from "./connections.js";
import { RoleEnum } from "./enums.js";

/** The principal of the operation, as `Query.viewer` returns it. */
export const ViewerRef = builder.objectRef<Principal>("Viewer").implement({
  description: "Who is asking: the token the request authenticated with.",
  fields: (t) => ({
    tokenId: t.exposeString("tokenId", {
      description: "The token's public id (`insecure` without authentication).",
    }),
    name: t.exposeString("name", { description: "The token's name." }),
    role: t.field({ type: RoleEnum, description: "The token's role.", resolve: (p) => p.role }),
    workspaces: t.stringList({
      nullable: true,
      description: "Workspaces the token is limited to; null = every workspace.",
      resolve: (p) => (p.workspaces ? [...p.workspaces] : null),
    }),
    expiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the token stops working; null = never.",
      resolve: (p) => (p.expiresAtMs === null ? null : new Date(p.expiresAtMs)),
    }),
    authenticatedBy: t.string({
      description:
        "`bearer` (Authorization header or connectionParams), `cookie` (dashboard session) or `insecure-no-auth`.",
      resolve: (p) => p.credential,
    }),
  }),
});

/** An API token as listed to admins (never its secret). */
registerNode("ApiToken", /^[0-9a-f]{12}$/);

/** The ApiToken node type (admins not limited to workspaces only). */
export const ApiTokenRef = builder.node(builder.objectRef<TokenRecord>("ApiToken"), {
  description:
    "An API token. Its secret is shown once, by createToken, and never again (only a hash is stored).",
  id: { resolve: (r) => r.id },
  isTypeOf: (v) => typeof v === "object" && v !== null && "bootstrap" in v && "role" in v && "revokedAt" in v,
  loadOne: (id, ctx) => ctx.tokens.get(id) ?? null,
  authScopes: { role: "admin", allWorkspaces: true },
  fields: (t) => ({
    tokenId: t.exposeString("id", {
      description: "Public id (12 hex characters; use with revokeToken). Not a secret.",
    }),
    name: t.exposeString("name", { description: "Name, unique among active tokens." }),
    role: t.field({ type: RoleEnum, description: "What it may do.", resolve: (r) => r.role }),
    workspaces: t.stringList({
      nullable: true,
      description: "Workspaces it is limited to; null = every workspace.",
      resolve: (r) => (r.workspaces ? [...r.workspaces] : null),
    }),
    createdAt: t.field({
      type: "DateTime",
      description: "When it was created.",
      resolve: (r) => r.createdAt,
    }),
    createdBy: t.exposeString("createdBy", {
      nullable: true,
      description: "Name of the token that created it; null for the gateway's bootstrap admin token.",
    }),
    expiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it stops working; null = never.",
      resolve: (r) => r.expiresAt,
    }),
    lastUsedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "Last time it authenticated a request (to the minute); null = never used.",
      resolve: (r) => r.lastUsedAt,
    }),
    revokedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it was revoked; null while active.",
      resolve: (r) => r.revokedAt,
    }),
    active: t.boolean({
      description: "Neither revoked nor expired.",
      resolve: (r) => r.revokedAt === null && (r.expiresAt === null || r.expiresAt.getTime() > Date.now()),
    }),
    bootstrap: t.exposeBoolean("bootstrap", {
      description: "The gateway's bootstrap admin token (its secret is in the data dir's admin-token file).",
    }),
  }),
});

registerNode("AuditEntry", /^[1-9]\d{0,14}$/);

/** The AuditEntry node type. */
export const AuditEntryRef = builder.prismaNode("AuditEntry", {
  id: { field: "id" },
  nullable: true,
  description:
    "One row of the append-only audit log: a mutation call or a denied attempt. Arguments are stored with secrets redacted.",
  authScopes: { role: "admin", allWorkspaces: true },
  fields: (t) => ({
    position: t.exposeInt("id", { description: "Position in the log (increasing)." }),
    ts: t.field({ type: "DateTime", description: "When it happened.", resolve: (e) => e.ts }),
    tokenName: t.exposeString("tokenName", {
      nullable: true,
      description: "Name of the token used; null when no valid token was presented.",
    }),
    tokenId: t.exposeString("tokenId", { nullable: true, description: "Id of the token used." }),
    role: t.exposeString("role", {
      nullable: true,
      description:
        "Role of that token (`viewer`, `operator`, `admin`, or `insecure` without authentication).",
    }),
    remoteAddress: t.exposeString("remoteAddress", {
      nullable: true,
      description: "Client address (the forwarded one behind a trusted proxy).",
    }),
    operation: t.exposeString("operation", {
      description:
        "Root field, e.g. `spawnAgent`; `http` or `websocket` for a request refused before GraphQL.",
    }),
    operationName: t.exposeString("operationName", {
      nullable: true,
      description: "The client's operation name, if it gave one.",
    }),
    workspace: t.exposeString("workspace", { nullable: true, description: "Targeted workspace, if any." }),
    agentId: t.exposeString("agentId", { nullable: true, description: "Targeted agent, if any." }),
    args: t.field({
      type: "JSON",
      nullable: true,
      description: "Arguments, secrets redacted (`[redacted]`), long strings cut.",
      resolve: (e) => e.args,
    }),
    result: t.exposeString("result", {
      description:
        "Payload type (e.g. `SpawnAgentPayload`) or error code (`FORBIDDEN`, `NOT_FOUND`, `UNAUTHENTICATED`, …).",
    }),
    denied: t.exposeBoolean("denied", {
      description: "True when refused for lack of authentication or authorization.",
    }),
  }),
});

/** The connection type of audit rows (Query.auditLog). */
export const AuditEntryConnectionRef = builder.connectionObject(
  {
    type: AuditEntryRef,
    name: "AuditEntryConnection",
    description: "A page of audit rows.",
    fields: (t) => ({
      totalCount: t.int({
        description: "Rows matching the filter, on every page (counted when selected).",
        resolve: (c) => connectionTotal(c),
      }),
    }),
  },
  { name: "AuditEntryEdge", description: "An audit row and its cursor." },
);
