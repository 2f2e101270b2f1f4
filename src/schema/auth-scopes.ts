/**
 * The scope rules behind `authScopes` (issue 11 item 2, ARCHITECTURE decision 11): what the
 * request's principal may do, computed once per operation by @pothos/plugin-scope-auth, and what a
 * refusal looks like. Fields declare rules such as `{ role: "operator", agent: args.agentId }`;
 * no resolver checks tokens itself. A principal whose token was revoked or expired since the
 * connection opened has no scope at all (→ `UnauthenticatedError`).
 */
import { getArgumentValues, type GraphQLResolveInfo } from "graphql";
import { AuthScopeFailureType, type AuthFailure, type ForbiddenResult } from "@pothos/plugin-scope-auth";
import { AgentNotVisible, Forbidden, QueueItemNotVisible, Unauthenticated } from "../auth/errors.js";
import { allowsWorkspace, roleAtLeast, type Principal, type Role } from "../auth/roles.js";
import { redactArgs } from "../auth/audit.js";
import type { GraphQLContext } from "./context.js";

/** True while the principal's credentials still hold (insecure mode always). */
function stillValid(ctx: GraphQLContext): boolean {
  const p = ctx.auth;
  return p.credential === "insecure-no-auth" || ctx.tokens.isActive(p.tokenId);
}

/** The scope loaders of one operation (the plugin caches each result per operation). */
export function authScopesFor(ctx: GraphQLContext): {
  role: (need: Role) => boolean;
  allWorkspaces: boolean;
  workspace: (name: string) => boolean;
  agent: (agentId: string) => Promise<boolean>;
  launch: (launchId: string) => Promise<boolean>;
  schedule: (scheduleId: string) => Promise<boolean>;
  inboxItem: (itemId: string) => Promise<boolean>;
} {
  const p: Principal = ctx.auth;
  const valid = stillValid(ctx);
  return {
    role: (need) => valid && roleAtLeast(p.role, need),
    allWorkspaces: valid && p.workspaces === null,
    workspace: (name) => valid && allowsWorkspace(p, name),
    agent: async (agentId) => {
      if (!valid) return false;
      if (p.workspaces === null) return true;
      const row = await ctx.prisma.agent.findUnique({ where: { id: agentId }, select: { workspace: true } });
      // An unknown agent is for the resolver to report as NotFound.
      return row === null || allowsWorkspace(p, row.workspace);
    },
    // Launches and schedules (issue 14) follow the agent rule: unknown ids pass (NotFound later).
    launch: async (launchId) => {
      if (!valid) return false;
      if (p.workspaces === null) return true;
      const row = await ctx.prisma.launch.findUnique({
        where: { id: launchId },
        select: { workspace: true },
      });
      return row === null || allowsWorkspace(p, row.workspace);
    },
    schedule: async (scheduleId) => {
      if (!valid) return false;
      if (p.workspaces === null) return true;
      const row = await ctx.prisma.schedule.findUnique({
        where: { id: scheduleId },
        select: { workspace: true },
      });
      return row === null || allowsWorkspace(p, row.workspace);
    },
    // Inbox items (issue 15): a fleet-wide item (no workspace) only for a token not limited to workspaces.
    inboxItem: async (itemId) => {
      if (!valid) return false;
      if (p.workspaces === null) return true;
      const row = await ctx.prisma.inboxItem.findUnique({
        where: { id: itemId },
        select: { workspace: true },
      });
      return row === null || (row.workspace !== null && allowsWorkspace(p, row.workspace));
    },
  };
}

/** The first failed scope of a failure tree, depth first. */
function firstScopeFailure(f: AuthFailure): { scope: string; parameter: unknown } | null {
  if (f.kind === AuthScopeFailureType.AuthScope) return { scope: f.scope, parameter: f.parameter };
  if (f.kind === AuthScopeFailureType.AllAuthScopes || f.kind === AuthScopeFailureType.AnyAuthScopes) {
    for (const c of f.failures) {
      const found = firstScopeFailure(c);
      if (found) return found;
    }
  }
  return null;
}

/**
 * The error a scope failure stands for: Forbidden naming the missing role, or the workspace the
 * request named itself (`named`: false for rules on objects reached through data, whose
 * workspace the token must not learn); an agent, launch or schedule outside the token's workspaces
 * is "not found".
 */
export function forbiddenFrom(failure: AuthFailure, principal: Principal, named = true): Error {
  const f = firstScopeFailure(failure);
  switch (f?.scope) {
    case "role": {
      const need = f.parameter as Role;
      return new Forbidden(
        `this needs the ${need} role; token ${principal.name} has ${principal.role}`,
        need,
      );
    }
    case "workspace":
      return named
        ? new Forbidden(
            `token ${principal.name} is not allowed to use workspace ${String(f.parameter)}`,
            null,
            String(f.parameter),
          )
        : new Forbidden(
            `token ${principal.name} is not allowed to see this: it is outside the token's workspaces`,
          );
    case "agent":
      return new AgentNotVisible(String(f.parameter));
    case "launch":
    case "schedule":
      return new QueueItemNotVisible(f.scope, String(f.parameter));
    case "inboxItem":
      return new QueueItemNotVisible("inbox item", String(f.parameter));
    case "allWorkspaces":
      return new Forbidden(
        `this needs an admin token not limited to workspaces (tokens, the audit log, caps and budgets beyond one workspace, webhooks, health thresholds, and where API keys are read from or sent: apiKeyFromEnv, baseUrl); token ${principal.name} is limited`,
        "admin",
      );
    default:
      return new Forbidden("not allowed");
  }
}

const ROOT_TYPES: ReadonlySet<string> = new Set(["Query", "Subscription"]);

/**
 * The plugin's `unauthorizedError` hook: the typed error of a refusal. Refused root query and
 * subscription fields are audited here (mutations by the audit plugin, which sees their result);
 * refusals on nested objects (type-level rules, a safety net behind the filtered lists) are not.
 */
export function unauthorizedError(
  _parent: unknown,
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  result: ForbiddenResult,
): Error {
  const atRoot = ROOT_TYPES.has(info.parentType.name) || info.parentType.name === "Mutation";
  const err = stillValid(ctx)
    ? forbiddenFrom(result.failure, ctx.auth, atRoot && info.path.prev === undefined)
    : new Unauthenticated("the token is no longer valid (revoked or expired); authenticate again");
  if (ROOT_TYPES.has(info.parentType.name) && info.path.prev === undefined) {
    const def = info.parentType.getFields()[info.fieldName];
    const args = argumentValues(info);
    void ctx.audit.recordDenied(
      {
        principal: ctx.auth,
        remoteAddress: ctx.remoteAddress,
        operation: info.fieldName,
        operationName: info.operation.name?.value ?? null,
        workspace:
          typeof args["workspace"] === "string"
            ? args["workspace"]
            : typeof args["name"] === "string"
              ? args["name"]
              : null,
        agentId: typeof args["agentId"] === "string" ? args["agentId"] : null,
        args: redactArgs(args, def?.args ?? []),
        result:
          err instanceof Forbidden
            ? err.code
            : err instanceof AgentNotVisible || err instanceof QueueItemNotVisible
              ? "NOT_FOUND"
              : "UNAUTHENTICATED",
        denied: true,
      },
      `token:${ctx.auth.tokenId}`,
    );
  }
  return err;
}

/** The field's argument values, read back from the operation (the hook does not receive them). */
function argumentValues(info: GraphQLResolveInfo): Record<string, unknown> {
  const def = info.parentType.getFields()[info.fieldName];
  const node = info.fieldNodes[0];
  if (!def || !node) return {};
  try {
    return getArgumentValues(def, node, info.variableValues);
  } catch {
    return {};
  }
}
