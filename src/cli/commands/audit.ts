/**
 * `prospero audit`: the audit log, newest first (issue 11 item 4; admin role, not limited to
 * workspaces): every mutation call and every denied attempt, with who, from where, what and the
 * result. Arguments are shown as the gateway stored them (secrets redacted).
 */
import type { Command } from "commander";
import { AuditLogDocument, type AuditLogQuery } from "../../sdk/index.js";
import { clientAction, clientOptions, positiveInt } from "../context.js";
import { present } from "../exit.js";
import { table } from "../output.js";
import { parseInstant } from "../parse.js";
import { safeData } from "../sanitize.js";

/** Rows per request when paging. */
const PAGE = 200;

type Entry = NonNullable<AuditLogQuery["auditLog"]>["edges"][number]["node"];

interface AuditFlags {
  limit: number;
  operation?: string;
  tokenName?: string;
  workspace?: string;
  agent?: string;
  denied?: boolean;
  since?: string;
  until?: string;
}

/** Register `audit` on `program`. */
export function registerAuditCommand(program: Command): void {
  clientOptions(
    program
      .command("audit")
      .description("show the audit log, newest first (admin)")
      .option("--limit <n>", "at most this many rows (default 50)", positiveInt("--limit", 100_000), 50)
      .option("--operation <field>", "only this operation, e.g. spawnAgent")
      .option("--token-name <name>", "only requests made with this token")
      .option("--workspace <name>", "only operations on this workspace")
      .option("--agent <id>", "only operations on this agent")
      .option("--denied", "only denied attempts")
      .option("--since <when>", "at or after (ISO date/time, or 30m, 24h, 7d ago)", (v) => parseInstant(v))
      .option("--until <when>", "before (ISO date/time, or a time ago)", (v) => parseInstant(v)),
    "print the rows as a JSON array on stdout",
  ).action(
    clientAction(async (ctx, flags: AuditFlags) => {
      const filter = {
        ...(flags.operation ? { operation: flags.operation } : {}),
        ...(flags.tokenName ? { tokenName: flags.tokenName } : {}),
        ...(flags.workspace ? { workspace: flags.workspace } : {}),
        ...(flags.agent ? { agentId: flags.agent } : {}),
        ...(flags.denied ? { deniedOnly: true } : {}),
        ...(flags.since ? { since: flags.since } : {}),
        ...(flags.until ? { until: flags.until } : {}),
      };
      const rows: Entry[] = [];
      let after: string | null = null;
      while (rows.length < flags.limit) {
        const page: AuditLogQuery = await ctx.client.request(AuditLogDocument, {
          filter,
          first: Math.min(PAGE, flags.limit - rows.length),
          after,
        });
        const log = present(page.auditLog, "auditLog");
        rows.push(...log.edges.map((e) => e.node));
        after = log.pageInfo.endCursor ?? null;
        if (!log.pageInfo.hasNextPage || after === null) break;
      }
      if (ctx.json) {
        ctx.out.json(rows);
        return;
      }
      const { c } = ctx.out;
      if (rows.length === 0) {
        ctx.out.line(c.dim("no audit rows match"));
        return;
      }
      const view = safeData(rows);
      ctx.out.line(
        table(
          ["TIME", "TOKEN", "ROLE", "FROM", "OPERATION", "TARGET", "RESULT"].map((h) => c.dim(h)),
          view.map((e) => [
            `${e.ts.slice(0, 19).replace("T", " ")}Z`,
            e.tokenName ?? c.dim("—"),
            e.role ?? c.dim("—"),
            e.remoteAddress ?? c.dim("—"),
            e.operation,
            [e.workspace, e.agentId].filter(Boolean).join(" ") || c.dim("—"),
            e.denied ? c.red(e.result) : e.result,
          ]),
        ),
      );
    }),
  );
}
