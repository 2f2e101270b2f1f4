/**
 * `prospero follow <id>`: an agent's events from the start (or after `--from`), then live, as a
 * human-readable timeline (or NDJSON with `--json`), until the agent's stream completes. A dropped
 * connection is resumed after the last event shown.
 */
import type { Command } from "commander";
import { AgentDocument } from "../../sdk/index.js";
import { clientAction, clientOptions } from "../context.js";
import { CliError, EXIT } from "../exit.js";
import { duration, status } from "../format.js";
import { safeData, safeJson, safeText } from "../sanitize.js";
import { TimelineRenderer } from "../timeline.js";

/** Register `follow` on `program`. */
export function registerFollowCommand(program: Command): void {
  clientOptions(
    program
      .command("follow")
      .description(
        "show an agent's timeline (text, tool calls with input and result, turn usage, outcome) and follow it live until it ends",
      )
      .argument("<id>", "agent id")
      .option(
        "--from <cursor>",
        "start after this event cursor (from a previous --json run) instead of the beginning",
      ),
    "print each event as one JSON object per line (NDJSON) on stdout",
  ).action(
    clientAction(async (ctx, id: string, flags: { from?: string }) => {
      const { out } = ctx;
      const head = await ctx.client.request(AgentDocument, { agentId: id });
      if (!head.agent) throw new CliError(EXIT.notFound, `agent not found: ${id}`);
      const a = safeData(head.agent);
      const timeline = new TimelineRenderer(out.out, out.c);
      if (!ctx.json) {
        out.line(
          `${out.c.bold(a.name)} ${out.c.dim(a.agentId)} in ${a.workspace.name} · ${status(out.c, a.status)}${a.terminal ? "" : out.c.dim(" · Ctrl-C stops following (the agent keeps running)")}`,
        );
      }
      const result = await out.spin(`following ${id}…`, (spinner) =>
        ctx.client.agentEvents(id, {
          ...(flags.from !== undefined ? { after: flags.from } : {}),
          signal: ctx.signal,
          onEvent: (e) => {
            // The spinner shows only while waiting to (re)connect: it must not share a line with a
            // paragraph being streamed.
            spinner.pause();
            if (ctx.json) out.line(safeJson(e));
            else timeline.event(e);
          },
          onGap: (g) => {
            spinner.pause();
            if (ctx.json) out.line(safeJson(g));
            else timeline.gap(g);
          },
          onReconnect: ({ attempt, delayMs, error, lastCursor }) => {
            const msg = `connection lost (${safeText(error.reason)}); resuming ${lastCursor ? "after the last event" : "from the start"} in ${duration(delayMs)} (attempt ${attempt})`;
            if (!ctx.json) timeline.end();
            spinner.text(msg);
            spinner.resume();
            if (process.stderr.isTTY !== true) out.note(`prospero: ${msg}`);
          },
        }),
      );
      if (!ctx.json) timeline.end();
      if (!result.completed) {
        if (!ctx.json && result.lastCursor)
          out.note(
            out.ce.dim(`stopped; continue with: prospero follow ${id} --from ${safeText(result.lastCursor)}`),
          );
        return EXIT.interrupted;
      }
      return EXIT.ok;
    }),
  );
}
