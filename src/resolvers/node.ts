/**
 * `node(id:)` and `nodes(ids:)` (Relay global object identification): any global id this
 * gateway issued reads its object again; an id that is malformed, names a type that is not a
 * Node, or names nothing (or something outside the token's workspaces) answers null — never an
 * error. Events are read from the store by their stream position; the other Node types through
 * their Pothos loaders.
 */
import { brandWithType } from "@pothos/core";
import { decodeGlobalID, resolveNodes } from "@pothos/plugin-relay";
import type { GraphQLResolveInfo } from "graphql";
import { z } from "zod";
import { allowsWorkspace, type Role } from "../auth/roles.js";
import { authScopesFor } from "../schema/auth-scopes.js";
import { MAX_NODE_IDS, NODE_TYPES, builder } from "../schema/builder.js";
import type { GraphQLContext } from "../schema/context.js";
import { kindOfTypeName, parseEventKey } from "../schema/events.js";

/** Most characters of a global id this gateway issues (longer ones name nothing). */
const MAX_GLOBAL_ID = 200;

/** A decoded global id, or null when it is not one this gateway could have issued. */
function parse(id: string): { typename: string; id: string } | null {
  if (id.length > MAX_GLOBAL_ID) return null;
  try {
    const g = decodeGlobalID(id);
    if (!g.typename || !g.id) return null;
    const rule = NODE_TYPES.get(g.typename);
    if (rule && !rule.test(g.id)) return null;
    return g;
  } catch {
    return null;
  }
}

/**
 * Whether the principal passes the type-level `authScopes` rule of `typename` for `obj` (the
 * rules of Workspace, Agent, ApiToken and AuditEntry in src/schema). node() answers null for an
 * object that fails it, exactly as for an id that names nothing: left to the scope plugin, the
 * refusal of its fields would be an error telling the token that the object exists. A rule this
 * cannot read (anything but a flat map of the scopes of src/schema/auth-scopes.ts) counts as failed.
 */
async function visible(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  typename: string,
  obj: unknown,
): Promise<boolean> {
  const type = info.schema.getType(typename);
  const rule = (type?.extensions as { pothosOptions?: { authScopes?: unknown } } | undefined)?.pothosOptions
    ?.authScopes;
  if (rule === undefined) return true;
  const scopes: unknown =
    typeof rule === "function" ? await (rule as (o: unknown, c: GraphQLContext) => unknown)(obj, ctx) : rule;
  if (scopes === true) return true;
  if (typeof scopes !== "object" || scopes === null) return false;
  const s = authScopesFor(ctx);
  for (const [scope, param] of Object.entries(scopes)) {
    if (scope === "role" && s.role(param as Role)) continue;
    if (scope === "allWorkspaces" && s.allWorkspaces) continue;
    if (scope === "workspace" && s.workspace(String(param))) continue;
    if (scope === "agent" && (await s.agent(String(param)))) continue;
    return false;
  }
  return true;
}

/** Resolve global ids to objects (null for each one that names nothing the token may see). */
async function load(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  ids: readonly string[],
): Promise<unknown[]> {
  const parsed = ids.map(parse);
  const out: unknown[] = ids.map(() => null);
  const eventSlots: { index: number; typename: string; key: { seq: number; streamKey: string } }[] = [];
  const other: { index: number; g: { typename: string; id: string } }[] = [];
  parsed.forEach((g, index) => {
    if (!g) return;
    if (kindOfTypeName(g.typename) !== null) {
      const key = parseEventKey(g.id);
      if (key) eventSlots.push({ index, typename: g.typename, key });
    } else if (NODE_TYPES.has(g.typename)) other.push({ index, g });
  });
  if (eventSlots.length > 0) {
    const events = await ctx.store.readByKeys(eventSlots.map((s) => s.key));
    eventSlots.forEach((slot, i) => {
      const e = events[i];
      if (!e || kindOfTypeName(slot.typename) !== e.kind) return;
      // Fleet-level events (no workspace) are visible to every token; others within its scope.
      if (e.workspace !== "" && !allowsWorkspace(ctx.auth, e.workspace)) return;
      // Branded so the Node interface resolves the event's object type.
      brandWithType(e, slot.typename as never);
      out[slot.index] = e;
    });
  }
  if (other.length > 0) {
    const loaded = await resolveNodes(
      builder,
      ctx,
      info,
      other.map((o) => o.g),
    );
    for (const [i, o] of other.entries()) {
      const obj = loaded[i] ?? null;
      out[o.index] = obj !== null && (await visible(ctx, info, o.g.typename, obj)) ? obj : null;
    }
  }
  return out;
}

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description:
      "Fetch any object by its global id (`id` of a Node), or null when the id is unknown, malformed or outside the token's workspaces. Viewer role.",
    authScopes: { role: "viewer" },
    args: { id: t.arg.id({ required: true, description: "A global id." }) },
    resolve: async (_r, args, ctx, info) => (await load(ctx, info, [String(args.id)]))[0] as never,
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description: `Fetch objects by their global ids, in order: null for each unknown, malformed or invisible one. At most ${MAX_NODE_IDS} ids. Viewer role.`,
    authScopes: { role: "viewer" },
    args: { ids: t.arg.idList({ required: true, description: "Global ids." }) },
    validate: z.looseObject({
      ids: z.array(z.unknown()).max(MAX_NODE_IDS, `at most ${MAX_NODE_IDS} ids per request`),
    }),
    resolve: async (_r, args, ctx, info) => (await load(ctx, info, args.ids.map(String))) as never,
  }),
}));
