/**
 * Assembles the GraphQL schema: imports every type and root-field module (each registers on the
 * builder), then builds it — and refuses a schema with a root field that declares no rule of who
 * may use it (issue 11: "every GraphQL field declares who may use it").
 */
import { lexicographicSortSchema, type GraphQLSchema } from "graphql";
import { builder } from "./builder.js";
import "./scalars.js";
import "./enums.js";
import "./errors.js";
import "./usage.js";
import "./workspace.js";
import "./events.js";
import "./agent.js";
import "./changes.js";
import "./report.js";
import "./launch.js";
import "./auth.js";
import "../resolvers/health.js";
import "../resolvers/query.js";
import "../resolvers/queue-query.js";
import "../resolvers/mutation.js";
import "../resolvers/queue-mutations.js";
import "../resolvers/health-monitor.js";
import "../resolvers/subscription.js";
import "../resolvers/admin.js";
import "../resolvers/webhooks.js";
import "../resolvers/inbox.js";
import "../resolvers/changes.js";
import "../resolvers/node.js";

let schema: GraphQLSchema | undefined;

/**
 * Root fields (`Type.field`) that declare no `authScopes`. A schema with any cannot be built, so
 * a new field without a rule fails every test and the gateway refuses to start.
 */
export function fieldsWithoutAuthRule(s: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const root of [s.getQueryType(), s.getMutationType(), s.getSubscriptionType()]) {
    if (!root) continue;
    for (const f of Object.values(root.getFields())) {
      const opts = (f.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions;
      if (opts?.authScopes === undefined) missing.push(`${root.name}.${f.name}`);
    }
  }
  return missing;
}

/**
 * The gateway's executable schema (built once).
 * @throws Error naming every root field without an auth rule.
 */
export function buildSchema(): GraphQLSchema {
  if (!schema) {
    const built = builder.toSchema({ sortSchema: false });
    const missing = fieldsWithoutAuthRule(built);
    if (missing.length) throw new Error(`root fields without an authScopes rule: ${missing.join(", ")}`);
    schema = built;
  }
  return schema;
}

/** The schema sorted lexicographically, as printed to `schema.graphql`. */
export function buildSortedSchema(): GraphQLSchema {
  return lexicographicSortSchema(buildSchema());
}
