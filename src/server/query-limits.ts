/**
 * The gateway's query limits (graphql-armor; issue 11, issue 12 item 10): lexical tokens, directives,
 * depth, aliases and estimated cost of a document, each refused with a message naming the limit and
 * a stable `extensions.code` ({@link QUERY_LIMIT_CODES}) — over HTTP, SSE and graphql-ws alike (the
 * gateway runs every operation through yoga's envelop). Over HTTP a refusal is a request error per
 * the GraphQL-over-HTTP spec: status 400 under `Accept: application/graphql-response+json`, 200
 * under `application/json`, as yoga answers its own validation errors.
 *
 * The cost model ({@link COST_MODEL}) estimates what an answer holds: every selected field costs 1
 * (an object as much as a scalar, a fragment's fields as if written in place), and a list field
 * with a page size multiplies what it selects by that size. graphql-armor reads only page sizes
 * written into the document (`first: 1000`); {@link pageCostPlugin} checks the same cost again at
 * execution with the page sizes the operation really asks for: `first`/`last` given as variables
 * (their values, or the variable's default), and connections that give none
 * ({@link DEFAULT_PAGE_FOR_COST}). So `events(first: 1000)` with a plain selection (a dozen fields a
 * node) costs about 13,000 and passes a 20,000 limit, while the same page of a full timeline
 * selection, or pages nested in pages (`agents(first: 100) { … events(first: 1000) … }`), are
 * refused however their sizes are given. `nodes(ids:)` costs like a page of as many items as it
 * has ids.
 */
import {
  GraphQLError,
  Kind,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type ExecutionArgs,
  type FieldNode,
  type ValueNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { costLimitPlugin, costLimitRule, type CostLimitOptions } from "@escape.tech/graphql-armor-cost-limit";
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxTokensPlugin } from "@escape.tech/graphql-armor-max-tokens";
import { maxDirectivesPlugin } from "@escape.tech/graphql-armor-max-directives";
import type { GraphQLArmorRejectCallback } from "@escape.tech/graphql-armor-types";
import { MAX_NODE_IDS, PAGE } from "../schema/builder.js";

/**
 * The limits: nesting depth (levels of selection), estimated cost ({@link COST_MODEL}), aliases,
 * lexical tokens of a document, directives per document.
 */
export interface QueryLimits {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
}

/** `extensions.code` of a refusal, per limit (stable; clients may switch on them). */
export const QUERY_LIMIT_CODES = {
  maxCost: "QUERY_TOO_COSTLY",
  maxDepth: "QUERY_TOO_DEEP",
  maxAliases: "TOO_MANY_ALIASES",
  maxTokens: "TOO_MANY_TOKENS",
  maxDirectives: "TOO_MANY_DIRECTIVES",
} as const satisfies Record<keyof QueryLimits, string>;

/**
 * graphql-armor's cost options: 1 per field, object or scalar, with no extra factor per level of
 * depth (depth has a limit of its own) and fragments counted as their fields; a field's page size
 * (`first`/`last`) multiplies the cost of the field and all it selects.
 */
export const COST_MODEL = {
  objectCost: 1,
  scalarCost: 1,
  depthCostFactor: 1,
  flattenFragments: true,
  ignoreIntrospection: true,
} as const satisfies CostLimitOptions;

/**
 * Page size the cost model assumes for a connection whose `first`/`last` is not given (or given by
 * a variable without value or default): every connection's default page, {@link PAGE}.default.
 */
export const DEFAULT_PAGE_FOR_COST = PAGE.default;

/** What a refusal adds after graphql-armor's own "<X> limit of N exceeded, found M." text. */
const HINTS: Record<keyof QueryLimits, string> = {
  maxCost:
    "Every selected field costs 1 per item, and a list multiplies what it selects by its page size " +
    `(first/last; ${DEFAULT_PAGE_FOR_COST} when not given): select fewer fields, or ask for smaller pages and page on with after.`,
  maxDepth: "Select less deeply nested fields.",
  maxAliases: "Use fewer aliases in one document (split it into several requests).",
  maxTokens: "Send a shorter document (split it into several requests).",
  maxDirectives: "Use fewer directives in one document.",
};

/**
 * The `onReject` callback of the armor plugin for `limit`: throws, in place of armor's own
 * "Syntax Error: …", a GraphQLError whose message names the limit (armor's text without the
 * "Syntax Error" label, plus a hint) with `extensions` `{ code, limit, found? }` and yoga's
 * `http: { spec: true, status: 400 }` (removed from the response; src/server/error-codes.ts).
 */
function refuse(limit: keyof QueryLimits, value: number): GraphQLArmorRejectCallback {
  return (_ctx, err) => {
    const text = err.message.replace(/^Syntax Error:\s*/, "");
    const found = /found (\d+(?:\.\d+)?)/.exec(text);
    throw new GraphQLError(`${text} ${HINTS[limit]}`, {
      extensions: {
        code: QUERY_LIMIT_CODES[limit],
        limit: value,
        ...(found ? { found: Math.ceil(Number(found[1])) } : {}),
        // A request error, answered as yoga answers its own validation errors: 400 under
        // `application/graphql-response+json`, 200 under `application/json` (GraphQL-over-HTTP).
        http: { spec: true, status: 400 },
      },
    });
  };
}

/** Armor options shared by every limit: the limit in the message, our refusal thrown instead of armor's. */
function armor(limit: keyof QueryLimits, limits: QueryLimits) {
  return { exposeLimits: true, onReject: [refuse(limit, limits[limit])], propagateOnRejection: true };
}

/**
 * The yoga plugins enforcing `limits`, in the order they apply: tokens (while parsing), directives,
 * depth, cost (as written), aliases (validation), then {@link pageCostPlugin} (at execution).
 */
export function queryLimitPlugins(limits: QueryLimits): Plugin[] {
  return [
    maxTokensPlugin({ n: limits.maxTokens, ...armor("maxTokens", limits) }),
    maxDirectivesPlugin({ n: limits.maxDirectives, ...armor("maxDirectives", limits) }),
    maxDepthPlugin({
      n: limits.maxDepth,
      ignoreIntrospection: true,
      flattenFragments: true,
      ...armor("maxDepth", limits),
    }),
    costLimitPlugin({ maxCost: limits.maxCost, ...COST_MODEL, ...armor("maxCost", limits) }),
    maxAliasesPlugin({ n: limits.maxAliases, ...armor("maxAliases", limits) }),
    pageCostPlugin(limits),
  ];
}

const PAGE_ARGS = new Set(["first", "last"]);

/**
 * `document` with the page sizes execution will use written in: every `first`/`last` given by a
 * variable replaced by the variable's value in `variables` (else its default in the operation,
 * else {@link DEFAULT_PAGE_FOR_COST}), and `first: DEFAULT_PAGE_FOR_COST` added to every field
 * that takes a `first` argument and was given neither. Null when nothing had to change (the
 * document's cost is then the one validation already checked). Needs a document valid against
 * `args.schema` (execution runs only after validation).
 */
export function withEffectivePages(args: ExecutionArgs): DocumentNode | null {
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  const defaults = new Map<string, ValueNode>();
  for (const def of args.document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    if (args.operationName != null && def.name?.value !== args.operationName) continue;
    for (const v of def.variableDefinitions ?? []) {
      if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
    }
  }
  const intValue = (n: number): ValueNode => ({ kind: Kind.INT, value: String(n) });
  const pageOf = (name: string): ValueNode => {
    const given = variables[name];
    if (typeof given === "number" && Number.isInteger(given) && given >= 0) return intValue(given);
    // A variable sent as null runs as null (the connection's own default page), not as the
    // variable's default: only a variable left out takes its default.
    const fallback = Object.hasOwn(variables, name) ? undefined : defaults.get(name);
    return fallback?.kind === Kind.INT ? fallback : intValue(DEFAULT_PAGE_FOR_COST);
  };
  /**
   * Items of a list argument: a literal's, a variable's value's, else the most allowed (and never
   * more than allowed: a longer list is refused by its own validation, with its own message).
   */
  const listLength = (v: ValueNode): number => Math.min(MAX_NODE_IDS, givenLength(v));
  const givenLength = (v: ValueNode): number => {
    if (v.kind === Kind.LIST) return v.values.length;
    if (v.kind === Kind.VARIABLE) {
      const given = variables[v.name.value];
      if (Array.isArray(given)) return given.length;
      const fallback = defaults.get(v.name.value);
      if (fallback?.kind === Kind.LIST) return fallback.values.length;
    }
    return v.kind === Kind.VARIABLE ? MAX_NODE_IDS : 1;
  };
  let changed = false;
  const typeInfo = new TypeInfo(args.schema);
  const doc = visit(
    args.document,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node: FieldNode): FieldNode | undefined {
          const def = typeInfo.getFieldDef();
          // `nodes(ids:)` answers one object per id: it costs like a page of that many.
          const ids = def?.name === "nodes" ? node.arguments?.find((a) => a.name.value === "ids") : undefined;
          if (ids) {
            changed = true;
            const first: ArgumentNode = {
              kind: Kind.ARGUMENT,
              name: { kind: Kind.NAME, value: "first" },
              value: intValue(listLength(ids.value)),
            };
            return { ...node, arguments: [...(node.arguments ?? []), first] };
          }
          if (!def?.args.some((a) => a.name === "first")) return undefined;
          const nodeArgs = node.arguments ?? [];
          if (nodeArgs.some((a) => PAGE_ARGS.has(a.name.value))) {
            if (!nodeArgs.some((a) => PAGE_ARGS.has(a.name.value) && a.value.kind === Kind.VARIABLE))
              return undefined;
            changed = true;
            const replaced: ArgumentNode[] = nodeArgs.map((a) =>
              PAGE_ARGS.has(a.name.value) && a.value.kind === Kind.VARIABLE
                ? { ...a, value: pageOf(a.value.name.value) }
                : a,
            );
            return { ...node, arguments: replaced };
          }
          changed = true;
          const first: ArgumentNode = {
            kind: Kind.ARGUMENT,
            name: { kind: Kind.NAME, value: "first" },
            value: intValue(DEFAULT_PAGE_FOR_COST),
          };
          return { ...node, arguments: [...nodeArgs, first] };
        },
      },
    }),
  );
  return changed ? doc : null;
}

/**
 * The cost limit again at execution, with the page sizes the operation really asks for (see
 * {@link withEffectivePages}): an operation over the limit gets a result with one
 * QUERY_TOO_COSTLY error and no data, and nothing runs. Subscriptions included.
 */
export function pageCostPlugin(limits: QueryLimits): Plugin {
  const rule = costLimitRule({ maxCost: limits.maxCost, ...COST_MODEL, ...armor("maxCost", limits) });
  const check = (args: ExecutionArgs): GraphQLError | null => {
    const doc = withEffectivePages(args);
    if (doc === null) return null;
    try {
      const errors = validate(args.schema, doc, [rule]);
      return errors[0] ?? null;
    } catch (err) {
      if (err instanceof GraphQLError) return err;
      throw err;
    }
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const err = check(args);
      if (err) setResultAndStopExecution({ errors: [err] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const err = check(args);
      if (err) setResultAndStopExecution({ errors: [err] });
    },
  };
}
