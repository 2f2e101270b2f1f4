/**
 * A Pothos plugin that writes one audit row for every call of every `Mutation` field (issue 11
 * item 4), whatever its outcome: the payload type on success, the error code of a typed error
 * result (including `FORBIDDEN` from the scope rules and `BAD_USER_INPUT` from input validation), or
 * the code of an unexpected error. It wraps the field outermost (argument validation included),
 * so no mutation can run without its row; the row is committed before the result is returned.
 * Denied queries and subscriptions are recorded by the scope rules' `unauthorizedError` hook
 * (src/schema/builder.ts) instead.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import { errorTypeMap } from "@pothos/plugin-errors";
import { isUnionType, type GraphQLFieldResolver, type GraphQLResolveInfo } from "graphql";
import { redactArgs } from "../auth/audit.js";
import { ProsperoError } from "../errors.js";
import type { GraphQLContext } from "./context.js";

const pluginName = "prosperoAudit";

/** Codes that mean "refused for lack of authentication or authorization". */
const DENIED_CODES: ReadonlySet<string> = new Set(["FORBIDDEN", "UNAUTHENTICATED"]);

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/**
 * The workspace and agent a mutation's arguments (and payload) name: `workspace` / `agentId` in
 * the arguments or the input; addWorkspace's `name`; a WORKSPACE-scoped cap or budget's `key`; else
 * a payload's own `workspace` (a launch or schedule named by id, once it was found).
 */
export function auditTargets(
  args: Record<string, unknown>,
  result: unknown,
): { workspace: string | null; agentId: string | null } {
  const input = (args["input"] ?? {}) as Record<string, unknown>;
  const payload = (result ?? {}) as Record<string, unknown>;
  return {
    // addWorkspace's input names the new workspace `name` (beside its `root`).
    workspace:
      str(args["workspace"]) ??
      str(input["workspace"]) ??
      ("root" in input ? str(input["name"]) : null) ??
      str(args["name"]) ??
      (input["scope"] === "WORKSPACE" ? str(input["key"]) : null) ??
      str(payload["workspace"]),
    agentId: str(args["agentId"]) ?? str(input["agentId"]) ?? str(payload["agentId"]),
  };
}

/** The payload type of a mutation field's result union (the member that is not an Error). */
function payloadTypeName(info: GraphQLResolveInfo): string {
  let t = info.returnType;
  while ("ofType" in t) t = t.ofType;
  if (isUnionType(t)) {
    const payload = t.getTypes().find((m) => !m.getInterfaces().some((i) => i.name === "Error"));
    return payload?.name ?? t.name;
  }
  return t.name;
}

function outcomeOf(result: unknown, info: GraphQLResolveInfo): string {
  // The errors plugin returns typed errors wrapped in a proxy it records in `errorTypeMap`.
  if (typeof result === "object" && result !== null && errorTypeMap.has(result)) {
    const code = (result as { code?: unknown }).code;
    return typeof code === "string" ? code : "ERROR";
  }
  if (result instanceof ProsperoError) return result.code;
  if (result instanceof Error) return "ERROR";
  return payloadTypeName(info);
}

/** The audit plugin (registered on the builder as `prosperoAudit`). */
export class PothosAuditPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapArgMappers(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    if (fieldConfig.parentType !== "Mutation") return resolver;
    return async (parent, args, context, info) => {
      const ctx = context as unknown as GraphQLContext;
      const write = (result: string, value: unknown) => {
        const rawArgs = args as Record<string, unknown>;
        const def = info.parentType.getFields()[info.fieldName];
        const row = {
          principal: ctx.auth,
          remoteAddress: ctx.remoteAddress,
          operation: info.fieldName,
          operationName: info.operation.name?.value ?? null,
          ...auditTargets(rawArgs, value),
          args: redactArgs(rawArgs, def?.args ?? []),
          result,
          // An agent outside the token's workspaces is answered as NOT_FOUND, but it was a refusal.
          denied:
            DENIED_CODES.has(result) ||
            (value as { scopeDenied?: unknown } | undefined)?.scopeDenied === true,
        };
        // Denied calls are bounded per token, so a token cannot fill the disk with refusals.
        return row.denied ? ctx.audit.recordDenied(row, `token:${ctx.auth.tokenId}`) : ctx.audit.record(row);
      };
      let result: unknown;
      try {
        result = await resolver(parent, args, context, info);
      } catch (err) {
        await write(err instanceof ProsperoError ? err.code : "ERROR", err);
        throw err;
      }
      await write(outcomeOf(result, info), result);
      return result;
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, PothosAuditPlugin);

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      prosperoAudit: PothosAuditPlugin<Types>;
    }
  }
}

export default pluginName;
