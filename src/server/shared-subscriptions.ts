/**
 * Shared execution of subscription events (issue 17): subscribers whose operations would execute
 * an event identically share ONE execution of it, instead of one per subscriber.
 *
 * How ("capture the source"): {@link captureSubscriptionSources} wraps every Subscription root
 * field's `subscribe` so that the event stream it returns is recorded on the operation's context.
 * The envelop plugin {@link useSharedSubscriptions} then replaces the subscribe function by one
 * that first runs the original (graphql-tools) subscribe — so execution-context errors
 * (BAD_USER_INPUT, http 400), subscribe-resolver errors and located errors are exactly today's —
 * and, when that returned an event stream and a source was captured, discards graphql-tools'
 * mapped stream (nothing has been pulled from it) and returns a {@link SharedEventStream} over the
 * same source. That stream is still the executor's own result stream, so the SSE id plugin pairs
 * its ids 1:1 as before (src/server/sse-ids.ts).
 *
 * Which subscribers share (the key, per source item object): the same `DocumentNode` (yoga's
 * parse cache returns one object per document text), operation name, the values of the variables
 * per-event execution can read (those used outside the root field's arguments: the root fields
 * resolve to their item and ignore their arguments, src/resolvers/subscription.ts), and the
 * context key the gateway derives from the token (role, workspaces, token id, expiry: everything
 * type-level authScopes read, src/schema/auth-scopes.ts). Subscribers with different keys never
 * share. Documents with `@defer`/`@stream` are left to graphql-tools (incremental results).
 *
 * The memo holds results per item in a WeakMap, so it needs no eviction: a bus event is collected
 * once no subscriber buffer holds it. Replayed rows and GapItems are per subscriber objects: they
 * are executed once each, as before. A shared result must never be mutated (graphql-ws and the SSE
 * writer spread it).
 */
import { execute as toolsExecute } from "@graphql-tools/executor";
import {
  GraphQLError,
  Kind,
  visit,
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { EventExecutor, EventResult, PromiseOrValue } from "./event-executor.js";

/**
 * The default per-event executor: graphql-tools' `execute` (the engine yoga runs), with the event
 * as root value — what graphql-tools' own subscription mapping runs for every event today.
 */
export const executeEventWithGraphqlTools: EventExecutor = (args) => toolsExecute(args);

/**
 * The one result of a shared execution.
 * @throws Error for an incremental result: documents with `@defer`/`@stream` are never shared
 *   (see `planOf`), so this marks a broken executor, not bad input.
 */
function singleResult(result: EventResult): ExecutionResult {
  if ("initialResult" in result)
    throw new Error("a shared subscription execution returned incremental results");
  return result;
}

/** Source event streams recorded per operation context (see {@link captureSubscriptionSources}). */
const sources = new WeakMap<object, AsyncIterable<unknown>>();
/** Schemas whose subscribe functions are already wrapped. */
const capturing = new WeakSet<GraphQLSchema>();

function record(ctx: unknown, stream: unknown): unknown {
  if (typeof ctx === "object" && ctx !== null && isAsyncIterable(stream)) sources.set(ctx, stream);
  return stream;
}

/**
 * Wraps (in place, once per schema) every Subscription root field's `subscribe` so that the event
 * stream it returns is recorded on its context value; the wrapped function returns exactly what the
 * original returned. Returns `schema`.
 */
export function captureSubscriptionSources(schema: GraphQLSchema): GraphQLSchema {
  const type = schema.getSubscriptionType();
  if (type === null || type === undefined || capturing.has(schema)) return schema;
  capturing.add(schema);
  for (const field of Object.values(type.getFields())) {
    const subscribe = field.subscribe;
    if (subscribe === undefined) continue;
    const captured: GraphQLFieldResolver<unknown, unknown> = (root, args, ctx, info) => {
      const out: unknown = subscribe(root, args, ctx, info);
      return out instanceof Promise ? out.then((v: unknown) => record(ctx, v)) : record(ctx, out);
    };
    field.subscribe = captured;
  }
  return schema;
}

/** What is known of one operation of one document: shareable, and which variables matter. */
interface OperationPlan {
  /** A number per document object (part of the key). */
  readonly docId: number;
  /** The operation's node (for wrapping source errors as graphql-tools does). */
  readonly operation: OperationDefinitionNode;
  /**
   * Names of the variables per-event execution reads, sorted: with a single root field, those
   * referenced outside its arguments; else every variable the operation declares (undeclared
   * values are ignored by execution, so they never split or key a group).
   */
  readonly variables: readonly string[];
}

let nextDocId = 1;
const plans = new WeakMap<DocumentNode, Map<string, OperationPlan | null>>();

/** True when `node` (or anything under it) carries `@defer` or `@stream`. */
function hasIncremental(node: ASTNode): boolean {
  let found = false;
  visit(node, {
    Directive(d) {
      if (d.name.value === "defer" || d.name.value === "stream") found = true;
    },
  });
  return found;
}

/** Names of the variables referenced under `nodes`. */
function variablesUnder(nodes: readonly ASTNode[], into: Set<string>): void {
  for (const node of nodes) {
    visit(node, {
      Variable(v) {
        into.add(v.name.value);
      },
    });
  }
}

/** The plan of `operationName` in `document` (cached per document object); null: not shareable. */
function planOf(document: DocumentNode, operationName: string | null | undefined): OperationPlan | null {
  let perDoc = plans.get(document);
  if (perDoc === undefined) {
    perDoc = new Map();
    plans.set(document, perDoc);
  }
  const name = operationName ?? "";
  const cached = perDoc.get(name);
  if (cached !== undefined) return cached;
  const plan = computePlan(document, operationName);
  perDoc.set(name, plan);
  return plan;
}

function computePlan(document: DocumentNode, operationName: string | null | undefined): OperationPlan | null {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation =
    operationName === null || operationName === undefined
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((o) => o.name?.value === operationName);
  if (operation === undefined || operation.operation !== "subscription" || hasIncremental(document)) {
    return null;
  }
  const selections = operation.selectionSet.selections;
  let variables = (operation.variableDefinitions ?? []).map((d) => d.variable.name.value).sort();
  const only = selections.length === 1 ? selections[0] : undefined;
  if (only !== undefined && only.kind === Kind.FIELD) {
    // Everything per-event execution reads: the operation's and the root field's directives, the
    // root field's selection and every fragment (conservatively); not the root field's arguments.
    const used = new Set<string>();
    variablesUnder(operation.directives ?? [], used);
    variablesUnder(only.directives ?? [], used);
    if (only.selectionSet) variablesUnder([only.selectionSet], used);
    variablesUnder(
      document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION),
      used,
    );
    variables = [...used].sort();
  }
  return { docId: nextDocId++, operation, variables };
}

/**
 * The part of the key made of the variable values `plan` says execution reads, or null when a
 * value cannot be written as JSON (e.g. nested too deep for `JSON.stringify`): that operation is
 * then not shared, and runs as it would without sharing.
 */
function variablesKey(plan: OperationPlan, values: ExecutionArgs["variableValues"]): string | null {
  let key = "";
  try {
    for (const name of plan.variables) key += `${name}=${JSON.stringify(values?.[name]) ?? "~"};`;
  } catch {
    return null;
  }
  return key;
}

/** Results per source item, per key. */
const memo = new WeakMap<object, Map<string, PromiseOrValue<ExecutionResult>>>();
/** Results produced by shared execution (read by the gateway's serialize-once path). */
const sharedResults = new WeakSet<object>();

/** True when `result` came from shared execution (the same object may go to many subscribers). */
export function isSharedResult(result: unknown): boolean {
  return typeof result === "object" && result !== null && sharedResults.has(result);
}

function markShared(result: ExecutionResult): ExecutionResult {
  sharedResults.add(result);
  return result;
}

/** The error of a failing source, wrapped as graphql-tools wraps it (execute.js `wrapError`). */
function wrapSourceError(error: unknown, operation: OperationDefinitionNode): Error {
  const wrap = (e: unknown) => {
    const err = e instanceof Error ? e : new Error(String(e));
    return new GraphQLError(err.message, { originalError: err, nodes: [operation] });
  };
  return error instanceof AggregateError
    ? new AggregateError(error.errors.map(wrap), error.message)
    : wrap(error);
}

/**
 * One subscriber's result stream: pulls its source and answers each item with the memoized
 * execution for its key (executing it, with this subscriber's arguments, when it is the first to
 * ask). Prototype methods only: no closure per subscriber (the idle-subscription footprint).
 */
export class SharedEventStream implements AsyncIterableIterator<ExecutionResult> {
  private readonly iterator: AsyncIterator<unknown>;

  constructor(
    source: AsyncIterable<unknown>,
    private readonly args: ExecutionArgs,
    private readonly key: string,
    private readonly operation: OperationDefinitionNode,
    private readonly executeEvent: EventExecutor,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.iterator.next().then(
      (r) => this.onItem(r),
      (err: unknown) => {
        throw wrapSourceError(err, this.operation);
      },
    );
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    const done: IteratorResult<ExecutionResult> = { done: true, value: undefined };
    return this.iterator.return ? this.iterator.return().then(() => done) : Promise.resolve(done);
  }

  throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    const done: IteratorResult<ExecutionResult> = { done: true, value: undefined };
    if (this.iterator.throw) return this.iterator.throw(error).then(() => done);
    return this.return().then(() =>
      Promise.reject(error instanceof Error ? error : new Error(String(error))),
    );
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private async onItem(r: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> {
    if (r.done === true) return { done: true, value: undefined };
    try {
      return { done: false, value: await this.resultOf(r.value) };
    } catch (err) {
      // As graphql-tools' mapping does (abrupt close): the source is released, then the error.
      await this.iterator.return?.();
      throw err;
    }
  }

  private resultOf(item: unknown): PromiseOrValue<ExecutionResult> {
    if (typeof item !== "object" || item === null) return this.execute(item);
    let perItem = memo.get(item);
    if (perItem === undefined) {
      perItem = new Map();
      memo.set(item, perItem);
    }
    const known = perItem.get(this.key);
    if (known !== undefined) return known;
    const result = this.execute(item);
    const shared = result instanceof Promise ? result.then(markShared) : markShared(result);
    perItem.set(this.key, shared);
    // A failed execution is not kept: the next subscriber executes (and fails) on its own.
    if (shared instanceof Promise) shared.catch(() => perItem.delete(this.key));
    return shared;
  }

  private execute(item: unknown): PromiseOrValue<ExecutionResult> {
    const result = this.executeEvent({ ...this.args, rootValue: item });
    return result instanceof Promise ? result.then(singleResult) : singleResult(result);
  }
}

/** Options of {@link useSharedSubscriptions}. */
export interface SharedSubscriptionOptions {
  /**
   * The per-event executor (default {@link executeEventWithGraphqlTools}); it must give the same
   * result graphql-tools gives for the same arguments.
   */
  executeEvent?: EventExecutor;
  /**
   * The part of the key that depends on the operation's context: equal only for contexts under
   * which every resolver answers the same (the token's role, workspaces, identity and expiry);
   * null: this operation is not shared.
   */
  contextKey: (contextValue: unknown) => string | null;
}

/**
 * The envelop plugin sharing subscription event executions (see the module comment). The schema
 * must have passed through {@link captureSubscriptionSources}; without a captured source an
 * operation keeps graphql-tools' stream.
 */
export function useSharedSubscriptions(options: SharedSubscriptionOptions): Plugin {
  const executeEvent = options.executeEvent ?? executeEventWithGraphqlTools;
  return {
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const plan = planOf(args.document, args.operationName);
      if (plan === null) return;
      setSubscribeFn((a: ExecutionArgs) => {
        const started = subscribeFn(a);
        return started instanceof Promise
          ? started.then((result: unknown) => share(result, a, plan, options, executeEvent))
          : share(started, a, plan, options, executeEvent);
      });
    },
  };
}

function share(
  result: unknown,
  args: ExecutionArgs,
  plan: OperationPlan,
  options: SharedSubscriptionOptions,
  executeEvent: EventExecutor,
): unknown {
  const ctx = args.contextValue;
  if (!isAsyncIterable(result) || typeof ctx !== "object" || ctx === null) return result;
  const source = sources.get(ctx);
  sources.delete(ctx);
  if (source === undefined) return result;
  // Until a shared stream owns the source, graphql-tools' mapped stream (nothing pulled from it
  // yet) is returned: it owns the source, so no failure here can leave a bus subscription behind.
  let context: string | null;
  let variables: string | null;
  try {
    context = options.contextKey(ctx);
    variables = context === null ? null : variablesKey(plan, args.variableValues);
  } catch {
    return result;
  }
  if (context === null || variables === null) return result;
  // graphql-tools' mapped stream is dropped unread; the source it wraps is ours from here on.
  const key = `${plan.docId}|${args.operationName ?? ""}|${variables}|${context}`;
  // Without the subscriber's abort signal (yoga passes the request's): a result may serve others
  // after this subscriber went away.
  const { signal: _signal, ...perEvent } = args as ExecutionArgs & { signal?: unknown };
  return new SharedEventStream(source, perEvent, key, plan.operation, executeEvent);
}
