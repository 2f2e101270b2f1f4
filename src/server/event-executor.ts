/**
 * The compiled per-event executor (issue 17 item 2, plan §2.5): executes ONE event of a
 * subscription operation — `args.rootValue` is the item the subscription field yielded, and the
 * field's `resolve` (`item => item`) hands it on — or, when asked, one query operation, with
 * graphql-jit (`compileQuery`, pinned 0.8.9), and answers exactly what graphql-tools' `execute`
 * (@graphql-tools/executor, the engine yoga runs) would answer for the same arguments. Where it
 * cannot be sure of that, graphql-tools runs instead.
 *
 * Compiled once per (schema, document, operation name), in WeakMaps keyed by the schema and the
 * `DocumentNode` (yoga's parse cache hands out one object per document text), so a document that
 * yoga forgets is forgotten here too.
 *
 * What runs on graphql-tools, decided once per document (statically):
 * - mutations (serial execution, audited: nothing to gain, everything to lose);
 * - queries, unless `queries: true` (see below);
 * - documents using `@defer` or `@stream` anywhere (incremental results: graphql-jit has none);
 * - a document graphql-jit refuses to compile, or whose operation cannot be chosen (graphql-tools
 *   then answers with its own error);
 * - a document with a response key `__proto__` (an alias or a field name): graphql-jit's result
 *   object puts that key after the others, so the bytes would differ from graphql-tools'.
 * Decided per execution:
 * - the first `compileAfter` executions of a document (default none), before it is compiled;
 * - arguments overriding resolvers (`fieldResolver`, `typeResolver`: graphql-jit uses the schema's),
 *   or an already aborted `signal` (graphql-tools throws its reason);
 * - any result of graphql-jit that carries errors — a field error, a null bubbling up, an
 *   authorization refusal, an argument or variable it could not coerce — and graphql-jit throwing
 *   or rejecting: the event is executed again by graphql-tools and ITS result is returned, so
 *   error messages, locations, paths, extensions, `originalError` (what yoga's masking and the
 *   gateway's `onNext` read) and the data beside them are graphql-tools' own. Resolvers therefore
 *   run twice for such an event. For subscription events that only repeats reads (root
 *   `authScopes` run once at subscribe, `authorizeOnSubscribe`, and refusals of nested objects are
 *   not audited, src/schema/auth-scopes.ts); for a query a refused ROOT field would be audited
 *   twice — hence `queries` is off by default.
 *
 * Why a result without errors is graphql-tools' result (what the equality test,
 * test/server/event-executor.test.ts, checks over every event kind and document):
 * - same resolvers (the Pothos wrappers — scope-auth, errors, prisma, relay — are plain
 *   resolvers), same `resolveType`/`isTypeOf`, same leaf `serialize`, same key order (graphql-jit
 *   writes the object literal in selection order and fills async fields in place);
 * - leaf serializers are wrapped to turn a `serialize` that returns null into an error, as
 *   graphql-js does (graphql-jit would keep the null silently): the event then goes to
 *   graphql-tools like every other error.
 * Known differences that do not reach clients: `data` objects have Object.prototype (graphql-tools'
 * have none; JSON and spreads are identical); resolvers' `info` lacks `signal`, the abort helpers
 * and `path.typename` (no resolver of ours reads them); `isTypeOf` is called without context and
 * info (ours read only the value; Pothos' `runScopesOnType`, which would need them, is not used).
 * Preconditions (graphql-jit 0.8.9 limits, true of this schema): a field without a resolver reads
 * the property and never calls it as graphql-js' default resolver would a function-valued one
 * (items and rows are plain data); and `resolveType`/`isTypeOf` must not throw — graphql-jit does
 * not catch them after an async resolver, and its promise would then never settle.
 */
import {
  BREAK,
  Kind,
  isLeafType,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from "graphql";
import { execute, type ExecutionArgs, type IncrementalExecutionResults } from "@graphql-tools/executor";
import { compileQuery, isCompiledQuery, type CompiledQuery, type CompilerOptions } from "graphql-jit";

/** A value, or a promise of it. */
export type PromiseOrValue<T> = T | Promise<T>;

/**
 * What one execution answers: an ExecutionResult. The incremental form (`initialResult` +
 * `subsequentResults`) comes only from a document with `@defer`/`@stream`, which always runs on
 * graphql-tools; callers that keep such documents away (shared execution does) never see it.
 */
export type EventResult = ExecutionResult | IncrementalExecutionResults;

/**
 * Execute one event of a subscription operation (`args.rootValue` = the item), or one query, as
 * graphql-tools' `execute(args)` would. Throws only where graphql-tools' `execute` throws.
 */
export type EventExecutor = (args: ExecutionArgs) => PromiseOrValue<EventResult>;

/**
 * Why an execution ran on graphql-tools rather than compiled code:
 * - `disabled`: the executor was created with `jit: false`; `warming`: the document has run
 *   fewer than `compileAfter` times;
 * - `mutation`, `query` (queries not enabled), `incremental` (`@defer`/`@stream`), `compile`
 *   (graphql-jit refused the document, or the operation cannot be chosen): static, per document;
 * - `resolvers` (`fieldResolver`/`typeResolver` given), `aborted` (signal already aborted),
 *   `errors` (graphql-jit's result had errors), `threw` (graphql-jit threw or rejected): per
 *   execution; for `errors` and `threw` graphql-jit had run first.
 */
export type FallbackReason =
  | "disabled"
  | "warming"
  | "mutation"
  | "query"
  | "incremental"
  | "compile"
  | "resolvers"
  | "aborted"
  | "errors"
  | "threw";

/** Options of {@link createEventExecutor}. */
export interface EventExecutorOptions {
  /**
   * Compile query operations too (default false). A query whose compiled result has errors is
   * executed again by graphql-tools: its resolvers run twice, and a refused root field is audited
   * twice (see the module comment). Subscription events are compiled either way.
   */
  queries?: boolean;
  /**
   * Executions of a document (per operation) that graphql-tools answers before it is compiled
   * (default 0: compile at the first). Compiling is synchronous and costs tens of ms for a large
   * selection (measured 25-100 ms for the SDK's TimelineEvent documents on a loaded 2-core machine):
   * a threshold keeps that cost to documents that are used often.
   */
  compileAfter?: number;
  /** Use graphql-jit at all (default true); false runs everything on graphql-tools. */
  jit?: boolean;
  /**
   * Told how each execution ran: `"jit"`, or why graphql-tools answered (for tests and metrics;
   * called synchronously, before the result is returned; must not throw).
   */
  onExecuted?: (how: "jit" | FallbackReason) => void;
}

/** A document's plan: its compiled query, or why it runs on graphql-tools. */
type Plan = { compiled: CompiledQuery } | { fallback: FallbackReason } | { warming: number };

/** Map key of an absent operation name (real names are never empty). */
const NO_NAME = "";

/** Leaf serializers of each schema, wrapped as graphql-js judges them (see {@link leafSerializers}). */
const serializersOf = new WeakMap<GraphQLSchema, CompilerOptions["customSerializers"]>();

/**
 * For every scalar and enum type of `schema`, its `serialize`, throwing where graphql-js would
 * refuse the value: a null result (graphql-jit keeps it as null, graphql-js reports an error).
 */
function leafSerializers(schema: GraphQLSchema): CompilerOptions["customSerializers"] {
  let out = serializersOf.get(schema);
  if (!out) {
    out = {};
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isLeafType(type)) continue;
      out[type.name] = (value: unknown): unknown => {
        const serialized: unknown = type.serialize(value);
        if (serialized === null) throw new Error(`${type.name}.serialize returned null`);
        return serialized;
      };
    }
    serializersOf.set(schema, out);
  }
  return out;
}

/** True when `document` uses `@defer` or `@stream` anywhere (operations and fragments). */
function usesIncrementalDelivery(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value === "defer" || node.name.value === "stream") {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * The operation graphql-tools would execute: the one named `operationName`, or the only one;
 * undefined when there is none (or several and no name), which graphql-tools reports itself.
 */
function operationOf(document: DocumentNode, operationName: string | null | undefined) {
  let found;
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName == null) {
      if (found !== undefined) return undefined;
      found = def;
    } else if (def.name?.value === operationName) {
      found = def;
    }
  }
  return found;
}

/** How `document`'s operation `operationName` runs under `opts` (compiled when it can be). */
function planOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  opts: EventExecutorOptions,
): Plan {
  const operation = operationOf(document, operationName);
  if (!operation) return { fallback: "compile" };
  if (operation.operation === "mutation") return { fallback: "mutation" };
  if (operation.operation === "query" && opts.queries !== true) return { fallback: "query" };
  if (usesIncrementalDelivery(document)) return { fallback: "incremental" };
  if (hasProtoResponseKey(document)) return { fallback: "compile" };
  const compiled = compileQuery(schema, document, operationName ?? undefined, {
    customSerializers: leafSerializers(schema),
    // Errors never leave this module from graphql-jit (graphql-tools answers instead): no stacks.
    disablingCapturingStackErrors: true,
  });
  return isCompiledQuery(compiled) ? { compiled } : { fallback: "compile" };
}

function isPromise<T>(v: PromiseOrValue<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === "function";
}

/** True when a field of `document` answers under the key `__proto__` (its alias or its name). */
function hasProtoResponseKey(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if ((node.alias ?? node.name).value === "__proto__") {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * A new {@link EventExecutor} with its own cache of compiled documents (see the module comment
 * for what runs compiled and why its results equal graphql-tools').
 */
export function createEventExecutor(opts: EventExecutorOptions = {}): EventExecutor {
  const plans = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Plan>>>();
  const told = opts.onExecuted;

  const planFor = (args: ExecutionArgs): Plan => {
    let byDoc = plans.get(args.schema);
    if (!byDoc) plans.set(args.schema, (byDoc = new WeakMap()));
    let byName = byDoc.get(args.document);
    if (!byName) byDoc.set(args.document, (byName = new Map()));
    const name = args.operationName ?? NO_NAME;
    const compileAfter = opts.compileAfter ?? 0;
    let plan = byName.get(name);
    if (!plan) {
      plan = compileAfter > 0 ? { warming: 0 } : planOf(args.schema, args.document, args.operationName, opts);
      byName.set(name, plan);
    }
    if ("warming" in plan) {
      if (plan.warming < compileAfter) {
        plan.warming++;
        return plan;
      }
      plan = planOf(args.schema, args.document, args.operationName, opts);
      byName.set(name, plan);
    }
    return plan;
  };

  const reference = (args: ExecutionArgs, why: FallbackReason): PromiseOrValue<EventResult> => {
    const out = execute(args);
    told?.(why);
    return out;
  };

  const settle = (args: ExecutionArgs, result: ExecutionResult): PromiseOrValue<EventResult> => {
    if (result.errors !== undefined && result.errors.length > 0) return reference(args, "errors");
    told?.("jit");
    return result;
  };

  return (args) => {
    if (opts.jit === false) return reference(args, "disabled");
    if (args.fieldResolver != null || args.typeResolver != null) return reference(args, "resolvers");
    if (args.signal?.aborted === true) return reference(args, "aborted");
    const plan = planFor(args);
    if ("warming" in plan) return reference(args, "warming");
    if ("fallback" in plan) return reference(args, plan.fallback);
    let out: PromiseOrValue<ExecutionResult>;
    try {
      out = plan.compiled.query(args.rootValue, args.contextValue, args.variableValues);
    } catch {
      return reference(args, "threw");
    }
    if (isPromise(out)) {
      return out.then(
        (result) => settle(args, result),
        () => reference(args, "threw"),
      );
    }
    return settle(args, out);
  };
}
