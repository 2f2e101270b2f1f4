/**
 * Root fields of authentication and its administration (issue 11 items 3 and 4): `viewer` (who am
 * I), and for admins whose token is not limited to workspaces: `tokens`, `auditLog`,
 * `createToken`, `revokeToken`. A new token's secret is returned once, by createToken; the store
 * keeps only its hash. Revoking closes the token's open WebSocket connections and SSE streams at
 * once.
 */
import { z } from "zod";
import { builder } from "../schema/builder.js";
import { domain, mutationErrors } from "../schema/errors.js";
import { RoleEnum } from "../schema/enums.js";
import { ApiTokenRef, AuditEntryConnectionRef, ViewerRef } from "../schema/auth.js";
import type { TokenRecord } from "../auth/tokens.js";
import { TOKEN_NAME, TOKEN_PREFIX } from "../auth/tokens.js";
import { Conflict, NotFound } from "../errors.js";
import { prismaCursorArgs } from "../schema/connections.js";

/** Rule of every token and audit field: admin, not limited to workspaces. */
const FLEET_ADMIN = { role: "admin", allWorkspaces: true } as const;

const AuditFilter = builder.inputType("AuditFilter", {
  description: "Which audit rows to list (all conditions must hold).",
  fields: (t) => ({
    operation: t.string({ required: false, description: "Only this root field, e.g. `spawnAgent`." }),
    tokenName: t.string({ required: false, description: "Only requests made with this token." }),
    workspace: t.string({ required: false, description: "Only operations on this workspace." }),
    agentId: t.string({ required: false, description: "Only operations on this agent." }),
    deniedOnly: t.boolean({ required: false, description: "Only denied attempts." }),
    since: t.field({ type: "DateTime", required: false, description: "At or after this instant." }),
    until: t.field({ type: "DateTime", required: false, description: "Before this instant." }),
  }),
});

/** Values of {@link AuditFilter}. */
interface AuditFilterArg {
  operation?: string | null;
  tokenName?: string | null;
  workspace?: string | null;
  agentId?: string | null;
  deniedOnly?: boolean | null;
  since?: Date | null;
  until?: Date | null;
}

/** The Prisma `where` of an audit filter. */
function auditWhere(f: AuditFilterArg | null | undefined) {
  return {
    ...(f?.operation ? { operation: f.operation } : {}),
    ...(f?.tokenName ? { tokenName: f.tokenName } : {}),
    ...(f?.workspace ? { workspace: f.workspace } : {}),
    ...(f?.agentId ? { agentId: f.agentId } : {}),
    ...(f?.deniedOnly ? { denied: true } : {}),
    ...(f?.since || f?.until
      ? { ts: { ...(f.since ? { gte: f.since } : {}), ...(f.until ? { lt: f.until } : {}) } }
      : {}),
  };
}

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    description: "Who is asking: the token this request authenticated with. Viewer role.",
    authScopes: { role: "viewer" },
    resolve: (_r, _a, ctx) => ctx.auth,
  }),
  tokens: t.field({
    type: [ApiTokenRef],
    nullable: true,
    description: "API tokens, oldest first (never their secrets). Admin role, not limited to workspaces.",
    authScopes: FLEET_ADMIN,
    args: {
      includeRevoked: t.arg.boolean({
        required: false,
        description: "Also list revoked tokens. Default false.",
      }),
    },
    resolve: (_r, args, ctx) => ctx.tokens.list({ includeRevoked: args.includeRevoked ?? false }),
  }),
  auditLog: t.prismaConnection(
    {
      type: "AuditEntry",
      cursor: "id",
      nullable: true,
      validate: prismaCursorArgs("int"),
      totalCount: (_r, args, ctx) => ctx.prisma.auditEntry.count({ where: auditWhere(args.filter) }),
      description:
        "The audit log, newest first: every mutation call and every denied attempt. Admin role, not limited to workspaces.",
      authScopes: FLEET_ADMIN,
      args: { filter: t.arg({ type: AuditFilter, required: false, description: "Filter." }) },
      resolve: (query, _r, args, ctx) => {
        return ctx.prisma.auditEntry.findMany({
          ...query,
          where: auditWhere(args.filter),
          orderBy: { id: "desc" },
        });
      },
    },
    AuditEntryConnectionRef,
  ),
}));

const CreateTokenInput = builder.inputType("CreateTokenInput", {
  description: "A new API token.",
  fields: (t) => ({
    name: t.string({
      required: true,
      description: "Name, unique among active tokens (1–64 letters, digits, '.', '_', '-', '@').",
      validate: z
        .string()
        .regex(TOKEN_NAME, "1–64 letters, digits, '.', '_', '-' or '@', starting with a letter or digit"),
    }),
    role: t.field({ type: RoleEnum, required: true, description: "What it may do." }),
    workspaces: t.stringList({
      required: false,
      description: "Limit it to these workspaces (names); omit for every workspace.",
      validate: z.array(z.string()).min(1).max(1000),
    }),
    expiresAt: t.field({
      type: "DateTime",
      required: false,
      description: "When it stops working (at most 10 years ahead); omit for never.",
    }),
  }),
});

interface CreatedToken {
  token: TokenRecord;
  secret: string;
}

const CreateTokenPayload = builder.objectRef<CreatedToken>("CreateTokenPayload").implement({
  description: "A new token and its secret. The secret is shown this once: store it now.",
  fields: (t) => ({
    token: t.field({ type: ApiTokenRef, description: "The token.", resolve: (p) => p.token }),
    secret: t.exposeString("secret", {
      description: "The secret to send as `Authorization: Bearer <secret>`. Never shown again.",
    }),
  }),
});

const RevokeTokenPayload = builder.objectRef<TokenRecord>("RevokeTokenPayload").implement({
  description: "A revoked token; its requests fail and its open connections were closed.",
  fields: (t) => ({
    token: t.field({ type: ApiTokenRef, description: "The token, now revoked.", resolve: (r) => r }),
  }),
});

const RevokeTokenInput = builder.inputType("RevokeTokenInput", {
  description: "The token to revoke.",
  fields: (t) => ({
    token: t.string({
      required: true,
      description: "The token's name or tokenId (never its secret).",
      validate: z
        .string()
        .min(1)
        .max(64)
        .refine(
          (v) => !v.startsWith(TOKEN_PREFIX),
          "that is a token's secret, not its name or id (the secret was not stored; treat it as exposed and revoke the token by its name)",
        ),
    }),
  }),
});

builder.mutationFields((t) => ({
  createToken: t.field({
    type: CreateTokenPayload,
    description: "Create an API token; its secret is returned once. Admin role, not limited to workspaces.",
    errors: mutationErrors("CreateToken", [Conflict]),
    authScopes: FLEET_ADMIN,
    args: { input: t.arg({ type: CreateTokenInput, required: true, description: "The token." }) },
    resolve: (_r, { input }, ctx) =>
      domain(() =>
        ctx.tokens.create({
          name: input.name,
          role: input.role,
          workspaces: input.workspaces ?? null,
          expiresAt: input.expiresAt ?? null,
          createdBy: ctx.auth.name,
        }),
      ),
  }),
  revokeToken: t.field({
    type: RevokeTokenPayload,
    description:
      "Revoke an active token by name or id, at once: its requests fail and its open WebSocket connections and SSE streams are closed. Admin role, not limited to workspaces.",
    errors: mutationErrors("RevokeToken", [NotFound]),
    authScopes: FLEET_ADMIN,
    args: { input: t.arg({ type: RevokeTokenInput, required: true, description: "The token." }) },
    resolve: (_r, { input }, ctx) => domain(() => ctx.tokens.revoke(input.token)),
  }),
}));
