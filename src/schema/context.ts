/**
 * The per-operation GraphQL context, identical for HTTP, SSE and graphql-ws operations.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Readiness } from "../server/readiness.js";

/** What every resolver receives. Resolvers call services; they never hold state. */
export interface GraphQLContext {
  /** Prisma client of the store (read paths only; writes go through services). */
  prisma: PrismaClient;
  /** Current readiness of the gateway. */
  readiness: () => Readiness;
}
