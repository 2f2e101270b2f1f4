/**
 * The schema's `possibleTypes` for Apollo Client's InMemoryCache: each union and interface
 * (e.g. `Error`, `KillAgentResult`, `Node`, `FleetEvent`) with the object types it stands for.
 * Without them Apollo's default cache silently drops the fields a fragment on an abstract type
 * selects (`... on Error { code message }` of a mutation result comes back without them):
 *
 * ```ts
 * import { possibleTypes } from "prospero/sdk";
 * const cache = new InMemoryCache({ possibleTypes });
 * ```
 *
 * Generated from schema.graphql by GraphQL Code Generator's fragment matcher (`npm run codegen`).
 */
import generated from "./generated/possible-types.js";

/** Abstract type name → names of the object types that implement or belong to it. */
export const possibleTypes: Record<string, string[]> = generated.possibleTypes;
