/**
 * Reads what a run report needs from the store (src/report/build.ts builds it): the run's
 * `tool_finished` events counted by tool name and success, its `agent_finished` event (detail and
 * final assistant message), its RunCapture row and the first {@link REPORT_MAX_FILES} CapturedFile
 * rows. Read-only.
 *
 * Tool calls are counted by the database (`GROUP BY` over a JSON path of the payloads, as
 * src/store/usage.ts sums turns), not by loading the events: a long run has thousands of tool calls
 * with up to 8 KiB of result text each, and the report needs two numbers per name.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import { PayloadSchemas } from "../events/index.js";
import { dialectOf } from "../store/dialect.js";
import { REPORT_MAX_FILES, REPORT_MAX_TOOLS, type ReportInputs, type ToolCallSummary } from "./build.js";

/** What {@link loadReportInputs} reads (the rest of {@link ReportInputs} is the caller's). */
export type LoadedReportInputs = Pick<
  ReportInputs,
  "toolCalls" | "toolCallCount" | "toolFailureCount" | "finished" | "capture" | "files"
>;

/** One row of the per-name count (integers come back as number or bigint). */
interface ToolRow {
  name: string | null;
  calls: number | bigint;
  failures: number | bigint | null;
}

/**
 * The run's finished tool calls: per name (at most {@link REPORT_MAX_TOOLS}, most calls first,
 * then by name) and in all (exact). A payload without a string name counts under `""`; a call
 * failed when its `ok` is false.
 */
export async function loadToolCalls(
  db: PrismaClient,
  agentId: string,
): Promise<Pick<LoadedReportInputs, "toolCalls" | "toolCallCount" | "toolFailureCount">> {
  const sql = dialectOf(db);
  const failed = `CASE WHEN ${sql.jsonIsFalse('"payload"', ["ok"])} THEN 1 ELSE 0 END`;
  const name = `COALESCE(${sql.jsonText('"payload"', ["name"])}, '')`;
  const rows = await db.$queryRawUnsafe<ToolRow[]>(
    sql.text(`SELECT ${name} AS "name", COUNT(*) AS "calls", SUM(${failed}) AS "failures"
       FROM "Event" WHERE "agentId" = ? AND "kind" = 'tool_finished'
      GROUP BY 1 ORDER BY "calls" DESC, "name" ASC LIMIT ?`),
    agentId,
    REPORT_MAX_TOOLS,
  );
  const totals = await db.$queryRawUnsafe<{ calls: number | bigint; failures: number | bigint | null }[]>(
    sql.text(`SELECT COUNT(*) AS "calls", SUM(${failed}) AS "failures"
       FROM "Event" WHERE "agentId" = ? AND "kind" = 'tool_finished'`),
    agentId,
  );
  const toolCalls: ToolCallSummary[] = rows.map((r) => ({
    name: r.name ?? "",
    calls: Number(r.calls),
    failures: Number(r.failures ?? 0),
  }));
  return {
    toolCalls,
    toolCallCount: Number(totals[0]?.calls ?? 0),
    toolFailureCount: Number(totals[0]?.failures ?? 0),
  };
}

/**
 * Everything of the store a report of run `agentId` needs besides its Agent row (see the module
 * comment). The `agent_finished` event is the run's last; one whose payload does not parse (a
 * corrupt row) reads as none.
 */
export async function loadReportInputs(db: PrismaClient, agentId: string): Promise<LoadedReportInputs> {
  const [tools, finishedRow, capture, files] = await Promise.all([
    loadToolCalls(db, agentId),
    db.event.findFirst({
      where: { agentId, kind: "agent_finished" },
      orderBy: { seq: "desc" },
      select: { payload: true },
    }),
    db.runCapture.findUnique({ where: { agentId } }),
    db.capturedFile.findMany({ where: { agentId }, orderBy: { path: "asc" }, take: REPORT_MAX_FILES }),
  ]);
  const parsed = finishedRow ? PayloadSchemas.agent_finished.safeParse(finishedRow.payload) : null;
  return {
    ...tools,
    finished: parsed?.success ? { detail: parsed.data.detail, finalMessage: parsed.data.finalMessage } : null,
    capture,
    files,
  };
}
