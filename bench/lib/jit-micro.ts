/**
 * Micro-benchmark of the per-event executor (issue 17, plan §2.5), not a scenario of `npm run
 * bench`: N executions of the same item by graphql-tools' `execute` (what yoga runs today, minus
 * the per-operation setup its subscription path skips) and by the compiled executor
 * (src/server/event-executor.ts), through the gateway's real schema and a context over a real
 * SQLite store (a temp data dir, migrated; its workspace, run and events written through the
 * store's own writer, with one workspace and run row created directly).
 *
 *   npx tsx bench/lib/jit-micro.ts [--n 20000] [--rounds 3]
 *
 * Prints one row per (document, item): ns per execution for each executor (the median of the
 * rounds; rounds alternate the executors), the speed-up, and how the compiled executor answered
 * (every execution must be `jit`, or the row measures graphql-tools twice). Each execution is
 * awaited when it returns a promise, for both executors alike. Run it on an idle machine; numbers
 * from a loaded one are only comparable within one run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { GraphQLObjectType, GraphQLSchema, parse, type DocumentNode } from "graphql";
import { execute, subscribe, type ExecutionArgs } from "@graphql-tools/executor";
import { buildSchema } from "../../src/schema/index.js";
import type { GraphQLContext } from "../../src/schema/context.js";
import { openDatabase } from "../../src/store/db.js";
import { StoreWriter } from "../../src/store/writer.js";
import { EventStore } from "../../src/store/events.js";
import type { FleetEvent, NewEvent } from "../../src/events/index.js";
import type { FleetChangeItem } from "../../src/resolvers/subscription.js";
import {
  createEventExecutor,
  type EventExecutor,
  type FallbackReason,
} from "../../src/server/event-executor.js";
import { REPO } from "./procs.js";

/** `--name value` of argv, as a positive integer. */
function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

const N = flag("n", 20_000);
const ROUNDS = flag("rounds", 3);
const AGENT = "0123456789ab";

/** The operation of trusted-documents.json named `name`. */
function trusted(name: string): DocumentNode {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, "trusted-documents.json"), "utf8")) as Record<
    string,
    string
  >;
  const text = Object.values(manifest).find((t) => new RegExp(`\\b(subscription|query) ${name}\\b`).test(t));
  if (!text) throw new Error(`no trusted document ${name}`);
  return parse(text);
}

/** ns per execution of `exec` over `n` executions of `args` (each awaited if it is a promise). */
async function time(exec: EventExecutor | typeof execute, args: ExecutionArgs, n: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const r = exec(args);
    if (r instanceof Promise) await r;
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

/** An endless source repeating `item` (what a subscription field's `subscribe` returns). */
function repeat(item: unknown): AsyncIterableIterator<unknown> {
  const it: AsyncIterableIterator<unknown> = {
    next: () => Promise.resolve({ done: false, value: item }),
    return: () => Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}

/** `schema` with Subscription.`field` subscribing to {@link repeat}(item) (its resolver unchanged). */
function withSource(schema: GraphQLSchema, field: string, item: unknown): GraphQLSchema {
  const config = schema.toConfig();
  const sub = schema.getSubscriptionType()!.toConfig();
  const patched = new GraphQLObjectType({
    ...sub,
    fields: { ...sub.fields, [field]: { ...sub.fields[field]!, subscribe: () => repeat(item) } },
  });
  return new GraphQLSchema({
    ...config,
    subscription: patched,
    types: config.types.filter((t) => t.name !== sub.name),
  });
}

/**
 * ns per event of graphql-tools' own subscription path (`subscribe`: per event `executeImpl` and
 * the async generator that wraps each result) over an endless source, `n` events.
 */
async function timeSubscription(args: ExecutionArgs, n: number): Promise<number> {
  const stream = await subscribe(args);
  if (!(Symbol.asyncIterator in stream)) throw new Error(`subscribe failed: ${JSON.stringify(stream)}`);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await stream.next();
  const ns = Number(process.hrtime.bigint() - t0) / n;
  await stream.return?.();
  return ns;
}

/** ns per event of pulling the source and executing each item with `exec` (a shared executor's loop). */
async function timePull(exec: EventExecutor, args: ExecutionArgs, item: unknown, n: number): Promise<number> {
  const source = repeat(item);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const { value } = await source.next();
    const r = exec({ ...args, rootValue: value });
    if (r instanceof Promise) await r;
  }
  return Number(process.hrtime.bigint() - t0) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jit-micro-"));
  const db = await openDatabase(dir);
  try {
    const writer = new StoreWriter(db.prisma);
    const store = new EventStore(db.prisma, writer, { publish: () => {} });
    await db.prisma.workspace.create({ data: { name: "demo", root: "/srv/demo", env: {} } });
    await db.prisma.agent.create({
      data: {
        id: AGENT,
        workspace: "demo",
        name: "bench",
        status: "running",
        spec: { initial_prompt: "bench", model: "m" },
        startedAt: new Date(),
      },
    });
    const news: NewEvent[] = Array.from({ length: 200 }, (_, i) => ({
      kind: "output",
      payload: { stream: "text", text: `line ${i} of the output`, turnIndex: 0, blockIndex: 0 },
      workspace: "demo",
      agentId: AGENT,
      tsMs: Date.now(),
    }));
    const stored = await store.append(news);
    const output: FleetEvent = stored[0]!;
    const turnCompleted: FleetEvent = {
      ...output,
      kind: "turn_completed",
      payload: {
        turnIndex: 0,
        stopReason: "end_turn",
        usage: { input: 100, output: 20, cacheRead: 50, cacheCreation: 5 },
        ttftMs: 120,
        tbtMs: 3.5,
        model: "m",
        estimatedCostUsd: 0.01,
      },
    };
    const appeared: FleetChangeItem = { type: "agent", change: "spawned", agentId: AGENT, cursor: 1 };
    // Only what these documents read: the store, Prisma, an admin principal whose token is active.
    const ctx = {
      prisma: db.prisma,
      store,
      tokens: { isActive: () => true },
      auth: {
        tokenId: "bench",
        name: "bench",
        role: "admin",
        workspaces: null,
        expiresAtMs: null,
        credential: "bearer",
      },
      remoteAddress: null,
      clientKey: "bench",
    } as unknown as GraphQLContext;

    /** `root`: the subscription field (null for a query: no subscription path to compare). */
    const cases: {
      label: string;
      root: string | null;
      document: DocumentNode;
      rootValue: unknown;
      vars: Record<string, unknown>;
    }[] = [
      {
        label: "bench fanout: agentEvents { __typename …OutputEvent { text } } × output",
        document: parse(
          "subscription($agentId: String!) { agentEvents(agentId: $agentId) { __typename ... on OutputEvent { text } } }",
        ),
        root: "agentEvents",
        rootValue: output,
        vars: { agentId: AGENT },
      },
      {
        label: "bench footprint: agentEvents { __typename seq } × output",
        document: parse("subscription($id: String!) { agentEvents(agentId: $id) { __typename seq } }"),
        root: "agentEvents",
        rootValue: output,
        vars: { id: AGENT },
      },
      {
        label: "SDK AgentEvents (TimelineEvent) × output",
        document: trusted("AgentEvents"),
        root: "agentEvents",
        rootValue: output,
        vars: { agentId: AGENT },
      },
      {
        label: "SDK AgentEvents (TimelineEvent) × turn_completed",
        document: trusted("AgentEvents"),
        root: "agentEvents",
        rootValue: turnCompleted,
        vars: { agentId: AGENT },
      },
      {
        label: "SDK FleetEvents (TimelineEvent, filter) × output",
        document: trusted("FleetEvents"),
        root: "fleetEvents",
        rootValue: output,
        vars: { filter: { agentId: AGENT } },
      },
      {
        label: "dashboard DashboardAgentEvents × output",
        document: trusted("DashboardAgentEvents"),
        root: "agentEvents",
        rootValue: output,
        vars: { agentId: AGENT },
      },
      {
        label: "dashboard DashboardFleetChanges × AgentAppeared (1 Prisma read)",
        document: trusted("DashboardFleetChanges"),
        root: "fleetChanges",
        rootValue: appeared,
        vars: {},
      },
      {
        label: "SDK AgentEventsPage query, first: 100 (Prisma page)",
        document: trusted("AgentEventsPage"),
        root: null,
        rootValue: undefined,
        vars: { agentId: AGENT, first: 100 },
      },
    ];

    const schema = buildSchema();
    const how = new Map<string, number>();
    const jit = createEventExecutor({
      queries: true,
      onExecuted: (x: "jit" | FallbackReason) => how.set(x, (how.get(x) ?? 0) + 1),
    });
    console.log(
      `per-event executor, ${N} executions per round, ${ROUNDS} rounds (median), node ${process.version}`,
    );
    console.log(
      [
        "case",
        "graphql-tools execute ns/op",
        "jit ns/op",
        "speed-up",
        "graphql-tools subscription ns/event",
        "jit pull+execute ns/event",
        "speed-up",
        "compiled answered",
      ].join(" | "),
    );
    for (const c of cases) {
      const args: ExecutionArgs = {
        schema,
        document: c.document,
        variableValues: c.vars,
        rootValue: c.rootValue,
        contextValue: ctx,
      };
      // Heavier cases (a Prisma read per execution) get fewer executions.
      const n = c.label.includes("Prisma") ? Math.max(1, Math.floor(N / 20)) : N;
      // Same bytes, or the comparison is meaningless.
      const a = JSON.stringify(await execute(args));
      const b = JSON.stringify(await jit(args));
      if (a !== b) throw new Error(`${c.label}: results differ\n${a}\n${b}`);
      if (a.includes('"errors"')) throw new Error(`${c.label}: errors\n${a.slice(0, 600)}`);
      await time(execute, args, Math.min(n, 2000));
      await time(jit, args, Math.min(n, 2000));
      how.clear();
      const tools: number[] = [];
      const compiled: number[] = [];
      const toolsSub: number[] = [];
      const jitPull: number[] = [];
      const root = c.root;
      const subArgs = root === null ? null : { ...args, schema: withSource(schema, root, c.rootValue) };
      for (let r = 0; r < ROUNDS; r++) {
        tools.push(await time(execute, args, n));
        compiled.push(await time(jit, args, n));
        if (subArgs) {
          toolsSub.push(await timeSubscription(subArgs, n));
          jitPull.push(await timePull(jit, args, c.rootValue, n));
        }
      }
      const t = median(tools);
      const j = median(compiled);
      const ts = toolsSub.length ? median(toolsSub) : NaN;
      const jp = jitPull.length ? median(jitPull) : NaN;
      const answered = [...how].map(([k, v]) => `${k} ${v}`).join(", ");
      const cell = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(0));
      const ratio = (a: number, b: number) => (Number.isNaN(a) ? "–" : `${(a / b).toFixed(2)}×`);
      console.log(
        [c.label, cell(t), cell(j), ratio(t, j), cell(ts), cell(jp), ratio(ts, jp), answered].join(" | "),
      );
    }
    await writer.close();
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
