/**
 * A Pothos plugin that checks a `Mutation` field's scope rule BEFORE its arguments are validated
 * (issue 11: who may use a field is decided first). @pothos/plugin-validation maps arguments
 * before any plugin's resolver wrapper runs, so without this a viewer calling `createToken` with
 * a malformed name got a `ValidationError` instead of a `ForbiddenError` — and its arguments
 * reached the audit log as an allowed call. It sits inside the errors plugin (its `Forbidden`
 * becomes the typed result) and outside argument validation; scope-auth's own check still runs
 * at resolve time (cached per operation, so the rule is evaluated once).
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { AuthScopeMap, FieldAuthScopes } from "@pothos/plugin-scope-auth";
import type { GraphQLFieldResolver } from "graphql";
import { Forbidden } from "../auth/errors.js";
import type { GraphQLContext } from "./context.js";
import { unauthorizedError } from "./auth-scopes.js";

const pluginName = "prosperoAuthFirst";

/** The plugin (registered on the builder as `prosperoAuthFirst`). */
export class PothosAuthFirstPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapArgMappers(
    resolver: GraphQLFieldResolver<unknown, Types["Context"], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types["Context"], object> {
    if (fieldConfig.parentType !== "Mutation") return resolver;
    const rule = (fieldConfig.pothosOptions as { authScopes?: FieldAuthScopes<Types, unknown, object> })
      .authScopes;
    if (rule === undefined) return resolver;
    return async (parent, args, context, info) => {
      const scopes = typeof rule === "function" ? await rule(parent, args, context, info) : rule;
      if (scopes === false) throw new Forbidden("not allowed");
      if (scopes !== true) {
        await this.builder.runAuthScopes(context, scopes as AuthScopeMap<Types>, (result) =>
          unauthorizedError(parent, context as unknown as GraphQLContext, info, result),
        );
      }
      return resolver(parent, args, context, info);
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, PothosAuthFirstPlugin);

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      prosperoAuthFirst: PothosAuthFirstPlugin<Types>;
    }
  }
}

export default pluginName;
