/** `prospero spawn`, `prospero ls` and `prospero show`: start agents and read their state. */
import type { Command } from "commander";
import {
  AgentDocument,
  AgentsDocument,
  SpawnAgentDocument,
  type AgentFilter,
  type AgentQuery,
  type AgentStatus,
  type AgentSummaryFragment,
  type AgentsQuery,
  type Provider,
  type SpawnAgentInput,
} from "../../sdk/index.js";
import { clientAction, clientOptions, positiveInt, type CliContext } from "../context.js";
import { CliError, EXIT, present, unwrapResult } from "../exit.js";
import { age, firstLine, int, status, tokens, usd } from "../format.js";
import { table } from "../output.js";
import { safeData, singleLine } from "../sanitize.js";
import { collectNames, parseProvider, parseStatuses } from "../parse.js";

/** Agents per `agents` request (the gateway's query cost limit allows about 500 with this selection). */
export const AGENTS_PAGE = 50;

interface SpawnFlags {
  label?: string;
  model?: string;
  provider?: Provider;
  source?: string;
  sharedTree?: boolean;
  interactive?: boolean;
  tool?: string[];
  requestId?: string;
  frontmatter?: string;
}

/** The spawn input for `workspace`, `prompt` and the flags. */
export function spawnInput(workspace: string, prompt: string, f: SpawnFlags): SpawnAgentInput {
  return {
    workspace,
    prompt,
    ...(f.label !== undefined ? { label: f.label } : {}),
    ...(f.model !== undefined ? { model: f.model } : {}),
    ...(f.provider !== undefined ? { provider: f.provider } : {}),
    ...(f.source !== undefined ? { source: f.source } : {}),
    ...(f.sharedTree ? { isolated: false } : {}),
    ...(f.interactive ? { interactive: true } : {}),
    ...(f.tool !== undefined ? { toolAllowlist: f.tool } : {}),
    ...(f.requestId !== undefined ? { clientRequestId: f.requestId } : {}),
    ...(f.frontmatter !== undefined ? { frontmatterPath: f.frontmatter } : {}),
  };
}

function agentRows(ctx: CliContext, agents: readonly AgentSummaryFragment[]): string {
  const { c } = ctx.out;
  const now = Date.now();
  const rows = agents.map((a) => [
    a.agentId,
    firstLine(a.name, 28),
    a.workspace.name,
    status(c, a.status) + (a.goneAt ? c.dim(" (gone)") : ""),
    a.model ?? c.dim("—"),
    age(a.startedAt, now),
    String(a.turns),
    `${tokens(a.usage.inputTokens)}/${tokens(a.usage.outputTokens)}`,
    usd(a.estimatedCostUsd),
    a.outcomeName ?? c.dim("—"),
  ]);
  const head = [
    "ID",
    "NAME",
    "WORKSPACE",
    "STATUS",
    "MODEL",
    "AGE",
    "TURNS",
    "TOKENS IN/OUT",
    "COST",
    "OUTCOME",
  ];
  return table(
    head.map((h) => c.dim(h)),
    rows,
  );
}

/** Print one agent; `a` must have passed through `safeData` (each value is kept on its line). */
function printAgent(ctx: CliContext, a: NonNullable<AgentQuery["agent"]>): void {
  const { c } = ctx.out;
  const row = (k: string, v: string) => ctx.out.line(`  ${c.dim(k.padEnd(14))}${singleLine(v)}`);
  const s = a.spec;
  ctx.out.line(`${c.bold(singleLine(a.name))}  ${c.dim(a.agentId)}`);
  row("workspace", a.workspace.name);
  row("status", status(c, a.status) + (a.goneAt ? c.dim(` (gone since ${a.goneAt})`) : ""));
  row("model", a.model ?? "—");
  row("started", `${a.startedAt} (${age(a.startedAt)} ago)`);
  if (a.finishedAt) row("finished", a.finishedAt);
  row("turns", String(a.turns));
  row(
    "tokens",
    `in ${int(a.usage.inputTokens)} · out ${int(a.usage.outputTokens)} · cache read ${int(a.usage.cacheReadTokens)} · cache write ${int(a.usage.cacheCreationTokens)}`,
  );
  row("cost", usd(a.estimatedCostUsd));
  row("outcome", a.outcomeName ?? "—");
  if (a.failure) printFailure(ctx, a.failure);
  if (a.respawnedFrom) row("respawn of", a.respawnedFrom.agentId);
  ctx.out.line(`  ${c.dim("spec")}`);
  const prompt = s.prompt.split("\n");
  row("  prompt", (prompt[0] ?? "") + (prompt.length > 1 ? c.dim(` (+${prompt.length - 1} lines)`) : ""));
  row("  provider", s.provider?.toLowerCase() ?? "default");
  row("  model", s.model ?? "default");
  row("  label", s.label ?? "—");
  row("  source", s.source ?? "workspace root");
  row("  worktree", s.isolated ? "isolated" : "shared tree");
  row("  interactive", s.interactive ? "yes" : "no");
  row("  tools", s.toolAllowlist ? s.toolAllowlist.join(", ") : "default");
  if (s.frontmatterPath) row("  frontmatter", s.frontmatterPath);
}

/**
 * Why a failed or crashed run failed (issue 12 item 7): the inferred exit code, then the end of its
 * worker.log, one indented line per log line (or why it could not be read). `f` must have passed
 * through `safeData`: each log line is then free of control characters but TAB.
 */
function printFailure(ctx: CliContext, f: NonNullable<NonNullable<AgentQuery["agent"]>["failure"]>): void {
  const { c } = ctx.out;
  const row = (k: string, v: string) => ctx.out.line(`  ${c.dim(k.padEnd(14))}${singleLine(v)}`);
  row(
    "exit code",
    f.exitCode === null
      ? "unknown (no RunEnd was read; caliband does not report exit codes)"
      : `${f.exitCode} (inferred from the RunEnd's stop condition)`,
  );
  if (f.logTail === null) {
    row("worker.log", c.dim(`not available: ${f.reason ?? "unknown reason"}`));
    return;
  }
  row(
    "worker.log",
    f.logTail === "" ? c.dim("(empty)") : c.dim(f.logTruncated ? "last lines:" : "whole log:"),
  );
  if (f.logTail === "") return;
  for (const line of f.logTail.split("\n")) ctx.out.line(`    ${c.dim("│")} ${line}`);
}

/** Register `spawn`, `ls` and `show` on `program`. */
export function registerAgentCommands(program: Command): void {
  clientOptions(
    program
      .command("spawn")
      .description("spawn an agent in a workspace")
      .argument("<workspace>", "workspace name")
      .argument("<prompt>", "initial prompt")
      .option("--label <label>", "label (becomes the agent's name)")
      .option("--model <model>", "model (default: the workspace's)")
      .option(
        "--provider <provider>",
        "anthropic|openai|ollama|google (default: the workspace's)",
        parseProvider,
      )
      .option("--source <name>", "source checkout to run in (default: the workspace root)")
      .option("--shared-tree", "run in the checkout itself instead of its own git worktree")
      .option("--interactive", "wait for operator input (prospero send / end-input) at each end of turn")
      .option(
        "--tool <name>",
        "allow this tool (repeatable or comma-separated; default: caliban's set)",
        collectNames,
      )
      .option("--request-id <key>", "idempotency key: repeating it returns the first agent")
      .option("--frontmatter <path>", "agent template path"),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(async (ctx, workspace: string, prompt: string, flags: SpawnFlags) => {
      const input = spawnInput(workspace, prompt, flags);
      const data = await ctx.out.spin(`spawning in ${workspace}…`, () =>
        ctx.client.request(SpawnAgentDocument, { input }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = unwrapResult(`spawn in ${workspace}`, data.spawnAgent);
      if (ctx.json) return;
      const { c } = ctx.out;
      const a = safeData(r.agent);
      ctx.out.line(
        `${r.created ? "spawned" : "already spawned (same request id):"} ${c.bold(a.agentId)} ${a.name} in ${a.workspace.name} · ${status(c, a.status)}`,
      );
      ctx.out.line(c.dim(`follow it: prospero follow ${a.agentId}`));
    }),
  );

  clientOptions(
    program
      .command("ls")
      .description("list agent runs, newest first (history included)")
      .option("--workspace <name>", "only this workspace")
      .option(
        "--status <statuses>",
        "only these statuses, comma-separated (e.g. running,idle)",
        parseStatuses,
      )
      .option("--live", "only runs caliband still lists")
      .option("--limit <n>", `at most n runs (default ${AGENTS_PAGE})`, positiveInt("--limit", 10_000)),
    "print the agents query's data as JSON on stdout",
  ).action(
    clientAction(
      async (ctx, flags: { workspace?: string; status?: AgentStatus[]; live?: boolean; limit?: number }) => {
        const filter: AgentFilter = {
          ...(flags.workspace !== undefined ? { workspace: flags.workspace } : {}),
          ...(flags.status !== undefined ? { status: flags.status } : {}),
          ...(flags.live ? { includeGone: false } : {}),
        };
        const limit = flags.limit ?? AGENTS_PAGE;
        const edges: NonNullable<AgentsQuery["agents"]>["edges"][number][] = [];
        let after: string | null = null;
        let pageInfo: NonNullable<AgentsQuery["agents"]>["pageInfo"] = {
          hasNextPage: false,
          endCursor: null,
        };
        do {
          const page: AgentsQuery = await ctx.client.request(AgentsDocument, {
            filter,
            first: Math.min(AGENTS_PAGE, limit - edges.length),
            after,
          });
          const agents = present(page.agents, "agents");
          edges.push(...agents.edges);
          pageInfo = agents.pageInfo;
          after = pageInfo.endCursor;
        } while (pageInfo.hasNextPage && edges.length < limit && after !== null);
        if (ctx.json) {
          ctx.out.json({ agents: { edges, pageInfo } });
          return;
        }
        if (edges.length === 0) {
          ctx.out.line(ctx.out.c.dim("no agents"));
          return;
        }
        ctx.out.line(
          agentRows(
            ctx,
            edges.map((e) => safeData(e.node)),
          ),
        );
        if (pageInfo.hasNextPage) ctx.out.line(ctx.out.c.dim(`(more: raise --limit)`));
      },
    ),
  );

  clientOptions(
    program
      .command("show")
      .description("show one agent run: status, usage, outcome, why it failed, and its spawn spec")
      .argument("<id>", "agent id (12 hex)"),
    "print the agent query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(AgentDocument, { agentId: id });
      if (!data.agent) {
        if (ctx.json) ctx.out.json(data);
        throw new CliError(EXIT.notFound, `agent not found: ${id}`);
      }
      if (ctx.json) ctx.out.json(data);
      else printAgent(ctx, safeData(data.agent));
    }),
  );
}
