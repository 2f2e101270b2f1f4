/**
 * The Pothos schema builder (builder only; types live one file per domain in src/schema and
 * root fields in src/resolvers). Plugins, outermost first: audit (a row for every mutation call,
 * src/schema/audit-plugin.ts), errors (typed mutation results), auth-first (a mutation's scope
 * rule is checked before its arguments are validated), scope-auth (every root field
 * declares who may use it: roles and workspace scopes, issue 11), prisma (models straight from
 * the store, no N+1 on relations), relay (Node, connections, cursors), validation (zod on inputs;
 * failures become `ValidationError` results with field paths).
 */
import SchemaBuilder from "@pothos/core";
import ErrorsPlugin from "@pothos/plugin-errors";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import ValidationPlugin from "@pothos/plugin-validation";
import type PrismaTypes from "../generated/pothos-prisma-types.js";
import { getDatamodel } from "../generated/pothos-prisma-types.js";
import { ValidationFailed } from "../errors.js";
import type { Role } from "../auth/roles.js";
import AuditPlugin from "./audit-plugin.js";
import AuthFirstPlugin from "./auth-first-plugin.js";
import { authScopesFor, unauthorizedError } from "./auth-scopes.js";
import type { GraphQLContext } from "./context.js";

/** Most ids one `nodes(ids:)` call may ask for (a bound on the work of one request). */
export const MAX_NODE_IDS = 100;

/**
 * The object types that implement `Node` and can be loaded by `node(id:)`, each with the exact
 * form of the raw id inside its global ids (as the type issues them); each definition registers
 * itself with {@link registerNode}. A global id naming another type, or a raw id of another form
 * (a lenient `8abc`, an integer too big for the database), names nothing: null, never an error.
 */
export const NODE_TYPES = new Map<string, RegExp>();

/** Record that object type `name` implements `Node`, has a loader, and issues raw ids matching `rawId`. */
export function registerNode(name: string, rawId: RegExp): void {
  NODE_TYPES.set(name, rawId);
}

/** Connection page bounds, the same for every connection: `first`/`last` in 0..max, default size. */
export const PAGE = { default: 50, max: 500 } as const;

/** The one builder every schema module registers its types on. */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  /** Every scope of a rule must pass (not just one of them). */
  DefaultAuthStrategy: "all";
  /** Scope rules (src/schema/auth-scopes.ts). */
  AuthScopes: {
    /** The principal's role includes this one. */
    role: Role;
    /** The principal's token is not limited to a list of workspaces. */
    allWorkspaces: boolean;
    /** The principal may use this workspace (by name). */
    workspace: string;
    /** The principal may use this agent's workspace (by agent id; unknown ids pass, to be NotFound). */
    agent: string;
    /** The principal may use this launch's workspace (by launch id; unknown ids pass, to be NotFound). */
    launch: string;
    /** The principal may use this schedule's workspace (by schedule id; unknown ids pass, to be NotFound). */
    schedule: string;
    /**
     * The principal may use this inbox item's workspace (by item id; unknown ids pass, to be
     * NotFound); a fleet-wide item only when the token is not limited to workspaces (issue 15).
     */
    inboxItem: string;
  };
}>({
  plugins: [
    AuditPlugin,
    ErrorsPlugin,
    AuthFirstPlugin,
    ScopeAuthPlugin,
    PrismaPlugin,
    RelayPlugin,
    ValidationPlugin,
  ],
  scopeAuth: {
    // Subscriptions are authorized once, when they start (not per event).
    authorizeOnSubscribe: true,
    defaultStrategy: "all",
    authScopes: authScopesFor,
    unauthorizedError,
  },
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
    maxConnectionSize: PAGE.max,
    defaultConnectionSize: PAGE.default,
  },
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    idFieldOptions: { description: "Globally unique, opaque Relay id (use with node(id:))." },
    nodeTypeOptions: { description: "An object with a globally unique id (Relay)." },
    pageInfoTypeOptions: { description: "Pagination state of a connection (Relay)." },
    // node/nodes are defined in src/resolvers/node.ts: an unknown or malformed id answers null.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    cursorFieldOptions: { description: "Opaque cursor of this edge; pass as after/before." },
    nodeFieldOptions: { description: "The item." },
    edgesFieldOptions: { description: "Items with their cursors." },
    pageInfoFieldOptions: { description: "Pagination state." },
    hasNextPageFieldOptions: { description: "More items exist after endCursor." },
    hasPreviousPageFieldOptions: { description: "More items exist before startCursor." },
    startCursorFieldOptions: { description: "Cursor of the first item of the page." },
    endCursorFieldOptions: { description: "Cursor of the last item of the page." },
    beforeArgOptions: { description: "Return items before this cursor." },
    afterArgOptions: { description: "Return items after this cursor." },
    firstArgOptions: {
      description: "Return at most this many items from the start (0–500; not with `last`).",
    },
    lastArgOptions: { description: "Return at most this many items from the end (0–500; not with `first`)." },
  },
  errors: { defaultTypes: [], unsafelyHandleInputErrors: true },
  validation: {
    validationError: (result) =>
      new ValidationFailed(
        result.issues.map((i) => ({
          path: (i.path ?? []).map((p) =>
            String(typeof p === "object" && p !== null && "key" in p ? p.key : p),
          ),
          message: i.message,
        })),
      ),
  },
});
