/** `prospero usage`: tokens, estimated cost, turns and outcomes over a window, grouped. */
import type { Command } from "commander";
import { UsageDocument, type UsageGroupBy, type UsageQuery } from "../../sdk/index.js";
import { clientAction, clientOptions } from "../context.js";
import { int, usd } from "../format.js";
import { present } from "../exit.js";
import { table } from "../output.js";
import { parseGroupBy, parseInstant } from "../parse.js";
import { safeData } from "../sanitize.js";

type Row = NonNullable<UsageQuery["usage"]>[number];

const GROUP_COLUMN: Record<UsageGroupBy, { head: string; get: (r: Row) => string | null }> = {
  WORKSPACE: { head: "WORKSPACE", get: (r) => r.workspace },
  MODEL: { head: "MODEL", get: (r) => r.model },
  DAY: { head: "DAY", get: (r) => r.day },
};

/** Sum of rows (the total line). */
export function totalOf(rows: readonly Row[]): Omit<Row, "workspace" | "model" | "day"> {
  const t = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    estimatedCostUsd: 0,
    unpricedTurns: 0,
    turns: 0,
    outcomes: { done: 0, failed: 0, killed: 0, crashed: 0 },
  };
  for (const r of rows) {
    t.inputTokens += r.inputTokens;
    t.outputTokens += r.outputTokens;
    t.cacheReadTokens += r.cacheReadTokens;
    t.cacheCreationTokens += r.cacheCreationTokens;
    t.estimatedCostUsd += r.estimatedCostUsd;
    t.unpricedTurns += r.unpricedTurns;
    t.turns += r.turns;
    t.outcomes.done += r.outcomes.done;
    t.outcomes.failed += r.outcomes.failed;
    t.outcomes.killed += r.outcomes.killed;
    t.outcomes.crashed += r.outcomes.crashed;
  }
  return t;
}

/** Register `usage` on `program`. */
export function registerUsageCommand(program: Command): void {
  clientOptions(
    program
      .command("usage")
      .description("token usage, estimated cost (USD), turns and outcomes in [since, until), grouped")
      .option(
        "--since <when>",
        "window start: ISO date/time or a time ago (30m, 24h, 7d, 2w); default until − 7d",
        (v) => parseInstant(v),
      )
      .option("--until <when>", "window end (exclusive), same forms; default now", (v) => parseInstant(v))
      .option(
        "--by <dims>",
        "group by workspace, model and/or day, comma-separated (default workspace)",
        parseGroupBy,
      ),
    "print the usage query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx, flags: { since?: string; until?: string; by?: UsageGroupBy[] }) => {
      const by = flags.by ?? ["WORKSPACE"];
      const data = await ctx.client.request(UsageDocument, {
        since: flags.since ?? null,
        until: flags.until ?? null,
        groupBy: by,
      });
      if (ctx.json) {
        ctx.out.json(data);
        return;
      }
      const { c } = ctx.out;
      const usage = present(data.usage, "usage");
      if (usage.length === 0) {
        ctx.out.line(c.dim("no usage in this window"));
        return;
      }
      const cols = by.map((b) => GROUP_COLUMN[b]);
      const numbers = (r: Omit<Row, "workspace" | "model" | "day">) => [
        int(r.turns),
        int(r.inputTokens),
        int(r.outputTokens),
        int(r.cacheReadTokens),
        int(r.cacheCreationTokens),
        usd(r.estimatedCostUsd) + (r.unpricedTurns ? c.yellow(` (+${r.unpricedTurns} unpriced)`) : ""),
        `${r.outcomes.done}/${r.outcomes.failed}/${r.outcomes.killed}/${r.outcomes.crashed}`,
      ];
      const rows = safeData(usage).map((r) => [
        ...cols.map((col) => col.get(r) ?? c.dim("—")),
        ...numbers(r),
      ]);
      if (usage.length > 1) {
        rows.push([...cols.map((_, i) => (i === 0 ? c.bold("total") : "")), ...numbers(totalOf(usage))]);
      }
      const head = [
        ...cols.map((col) => col.head),
        "TURNS",
        "INPUT",
        "OUTPUT",
        "CACHE READ",
        "CACHE WRITE",
        "COST",
        "DONE/FAILED/KILLED/CRASHED",
      ];
      ctx.out.line(
        table(
          head.map((h) => c.dim(h)),
          rows,
        ),
      );
    }),
  );
}
