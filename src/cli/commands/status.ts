/** `prospero status`: gateway readiness, workspaces with health and agent status counts, metrics. */
import type { Command } from "commander";
import {
  AgentStatusesDocument,
  StatusDocument,
  type AgentStatus,
  type AgentStatusesQuery,
  type StatusQuery,
} from "../../sdk/index.js";
import { clientAction, clientOptions, type CliContext } from "../context.js";
import { health, int, status } from "../format.js";
import { present } from "../exit.js";
import { table } from "../output.js";
import { AGENT_STATUSES } from "../parse.js";
import { safeData, safeText } from "../sanitize.js";

/** Agents per status-count request (cost-limit safe). */
const STATUS_PAGE = 250;
/** Stop counting after this many agents (the counts then say "at least"). */
const STATUS_MAX_AGENTS = 10_000;

/** Current agents per workspace and status. */
export type StatusCounts = Record<string, Partial<Record<AgentStatus, number>>>;

/** Count the current (still listed) agents per workspace and status, a page at a time. */
export async function countStatuses(ctx: CliContext): Promise<{ counts: StatusCounts; complete: boolean }> {
  const counts: StatusCounts = {};
  let after: string | null = null;
  let seen = 0;
  for (;;) {
    const page: AgentStatusesQuery = await ctx.client.request(AgentStatusesDocument, {
      first: STATUS_PAGE,
      after,
    });
    const agents = present(page.agents, "agents");
    for (const { node } of agents.edges) {
      const ws = (counts[node.workspace.name] ??= {});
      ws[node.status] = (ws[node.status] ?? 0) + 1;
    }
    seen += agents.edges.length;
    after = agents.pageInfo.endCursor;
    if (!agents.pageInfo.hasNextPage || after === null) return { counts, complete: true };
    if (seen >= STATUS_MAX_AGENTS) return { counts, complete: false };
  }
}

/** Print the status; `data` and `counts` must have passed through `safeData`. */
function printStatus(ctx: CliContext, data: StatusQuery, counts: StatusCounts, complete: boolean): void {
  const { c } = ctx.out;
  const r = data.readiness;
  const ready = r.ready ? c.green("ready") : c.red("not ready");
  ctx.out.line(
    `${c.bold("gateway")}  ${safeText(ctx.url)}  v${data.version}  host ${data.fleet.host}  ${ready}`,
  );
  ctx.out.line(
    `  store: migrations ${r.migrationsApplied ? "applied" : c.red("not applied")}, ${r.storeWritable ? "writable" : c.red("not writable")}`,
  );
  ctx.out.line(
    `${c.bold("workspaces")}  ${r.workspacesTotal} (${r.workspacesHealthy} healthy, ${r.workspacesUnreachable} unreachable)`,
  );
  if (data.workspaces.length) {
    const rows = data.workspaces.map((w) => {
      const ws = counts[w.name] ?? {};
      const parts = AGENT_STATUSES.filter((s) => (ws[s] ?? 0) > 0).map(
        (s) => `${status(c, s).toLowerCase()} ${ws[s]}`,
      );
      return [
        "  " + c.bold(w.name),
        health(c, w.health.state) + (w.health.reason ? c.dim(` (${w.health.reason})`) : ""),
        parts.length ? parts.join(" · ") + (complete ? "" : "+") : c.dim("no agents"),
        c.dim(w.remote ? `${w.root} on ${w.remote.endpoint}` : w.root),
      ];
    });
    ctx.out.line(table(["", "", "", ""], rows).split("\n").slice(1).join("\n"));
  }
  const m = present(data.metrics, "metrics");
  ctx.out.line(c.bold("metrics"));
  ctx.out.line(
    `  events appended ${int(m.eventsAppendedTotal)} · append failures ${int(m.appendFailuresTotal)} · frames ingested ${int(m.framesIngestedTotal)}`,
  );
  ctx.out.line(
    `  polls ${int(m.pollsTotal)} (${int(m.pollFailuresTotal)} failed) · ingest gaps ${int(m.ingestGapsTotal)} · ingest lag ${int(m.ingestLagBytes)} B · commit retries ${int(m.ingestCommitFailuresTotal)}`,
  );
  ctx.out.line(
    `  attaches ${int(m.activeAttaches)} · subscribers ${int(m.busSubscribers)} · dropped ${int(m.busDroppedTotal)} · unknown frames ${int(m.unknownFramesTotal)} · invalid lines ${int(m.invalidLinesTotal)}`,
  );
}

/** Register `status` on `program`. */
export function registerStatusCommand(program: Command): void {
  clientOptions(
    program
      .command("status")
      .description("gateway health and readiness, workspaces with health and agent counts, metrics"),
    "print the status query's data plus `statusCounts` (current agents per workspace and status) as JSON",
  ).action(
    clientAction(async (ctx) => {
      const [data, { counts, complete }] = await Promise.all([
        ctx.client.request(StatusDocument),
        countStatuses(ctx),
      ]);
      if (ctx.json) ctx.out.json({ ...data, statusCounts: counts, statusCountsComplete: complete });
      else printStatus(ctx, safeData(data), safeData(counts), complete);
    }),
  );
}
