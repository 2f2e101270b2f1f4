/**
 * Assembles the GraphQL schema: imports every type and root-field module (each registers on the
 * builder), then builds it.
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
import "../resolvers/health.js";
import "../resolvers/query.js";
import "../resolvers/mutation.js";
import "../resolvers/subscription.js";

let schema: GraphQLSchema | undefined;

/** The gateway's executable schema (built once). */
export function buildSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}

/** The schema sorted lexicographically, as printed to `schema.graphql`. */
export function buildSortedSchema(): GraphQLSchema {
  return lexicographicSortSchema(buildSchema());
}
