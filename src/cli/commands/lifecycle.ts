/**
 * Lifecycle commands on one agent: `kill`, `respawn`, `rm`, `drain`, `send`, `end-input`. Each is
 * one mutation whose typed error maps to an exit code (exit.ts).
 */
import type { Command } from "commander";
import {
  DrainAgentDocument,
  EndAgentInputDocument,
  KillAgentDocument,
  RemoveAgentDocument,
  RespawnAgentDocument,
  SendAgentInputDocument,
} from "../../sdk/index.js";
import { clientAction, clientOptions, positiveInt } from "../context.js";
import { unwrapResult } from "../exit.js";
import { duration, status } from "../format.js";
import { safeData } from "../sanitize.js";

const JSON_HELP = "print the mutation result as JSON on stdout";

/** Largest `--timeout` the gateway accepts for a drain, ms. */
export const MAX_DRAIN_TIMEOUT_MS = 600_000;

/** Register the lifecycle commands on `program`. */
export function registerLifecycleCommands(program: Command): void {
  clientOptions(
    program.command("kill").description("kill a live agent").argument("<id>", "agent id"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.out.spin(`killing ${id}…`, () =>
        ctx.client.request(KillAgentDocument, { agentId: id }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`kill ${id}`, data.killAgent));
      if (!ctx.json) ctx.out.line(`killed ${ctx.out.c.bold(id)} · ${status(ctx.out.c, r.agent.status)}`);
    }),
  );

  clientOptions(
    program
      .command("respawn")
      .description("run an agent's spec again as a new run (new id, linked to the old one)")
      .argument("<id>", "agent id")
      .option("--force", "kill the agent first if it is still live"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string, flags: { force?: boolean }) => {
      const data = await ctx.out.spin(`respawning ${id}…`, () =>
        ctx.client.request(RespawnAgentDocument, { agentId: id, force: flags.force ?? false }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`respawn ${id}`, data.respawnAgent));
      if (ctx.json) return;
      ctx.out.line(
        `respawned ${id} as ${ctx.out.c.bold(r.agent.agentId)} · ${status(ctx.out.c, r.agent.status)}`,
      );
      ctx.out.line(ctx.out.c.dim(`follow it: prospero follow ${r.agent.agentId}`));
    }),
  );

  clientOptions(
    program
      .command("rm")
      .description("remove an agent from caliband after ingesting all its output (its history stays)")
      .argument("<id>", "agent id")
      .option("--force", "remove even a live agent (it is stopped)"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string, flags: { force?: boolean }) => {
      const data = await ctx.out.spin(`removing ${id}…`, () =>
        ctx.client.request(RemoveAgentDocument, { agentId: id, force: flags.force ?? false }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`rm ${id}`, data.removeAgent));
      if (!ctx.json)
        ctx.out.line(`removed ${ctx.out.c.bold(id)} · ${status(ctx.out.c, r.agent.status)} (history kept)`);
    }),
  );

  clientOptions(
    program
      .command("drain")
      .description("stop an agent gracefully: end its input if interactive, wait, kill only if still running")
      .argument("<id>", "agent id")
      .option(
        "--timeout <ms>",
        `how long to wait before killing, ms (default 30000, at most ${MAX_DRAIN_TIMEOUT_MS})`,
        positiveInt("--timeout", MAX_DRAIN_TIMEOUT_MS),
      ),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string, flags: { timeout?: number }) => {
      const wait = flags.timeout !== undefined ? ` (up to ${duration(flags.timeout)})` : "";
      const data = await ctx.out.spin(`draining ${id}${wait}…`, () =>
        ctx.client.request(DrainAgentDocument, { agentId: id, timeoutMs: flags.timeout ?? null }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`drain ${id}`, data.drainAgent));
      if (ctx.json) return;
      const how = r.killed ? ctx.out.c.yellow("killed at the deadline") : "ended on its own";
      ctx.out.line(`drained ${ctx.out.c.bold(id)}: ${how} · ${status(ctx.out.c, r.agent.status)}`);
    }),
  );

  clientOptions(
    program
      .command("send")
      .description("send a message to an interactive agent (consumed at its next end of turn)")
      .argument("<id>", "agent id")
      .argument("<text>", "the message"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string, text: string) => {
      const data = await ctx.out.spin(`sending to ${id}…`, () =>
        ctx.client.request(SendAgentInputDocument, { agentId: id, text }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`send ${id}`, data.sendAgentInput));
      if (!ctx.json) ctx.out.line(`sent to ${ctx.out.c.bold(id)} · ${status(ctx.out.c, r.agent.status)}`);
    }),
  );

  clientOptions(
    program
      .command("end-input")
      .description("tell an interactive agent no more input will come (it finishes its run)")
      .argument("<id>", "agent id"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.out.spin(`ending input of ${id}…`, () =>
        ctx.client.request(EndAgentInputDocument, { agentId: id }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`end-input ${id}`, data.endAgentInput));
      if (!ctx.json)
        ctx.out.line(`ended input of ${ctx.out.c.bold(id)} · ${status(ctx.out.c, r.agent.status)}`);
    }),
  );
}
