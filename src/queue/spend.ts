/**
 * Estimated spend per workspace and per provider in the current UTC day and month (issue 14 item
 * 5), from the runs' stored cost estimates (`Agent.costUsd`, src/fleet/pricing.ts: a run whose
 * model has no price counts 0). A run counts in the period it STARTED in, with its cost so far, so
 * a running run's spend grows as its turns complete.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import type { BudgetPeriod } from "./types.js";

/** Start of the UTC day or UTC month containing `nowMs`, ms since the epoch. */
export function periodStartMs(period: BudgetPeriod, nowMs: number): number {
  const d = new Date(nowMs);
  return period === "DAY"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Spend by scope key for one period, USD. */
export interface PeriodSpend {
  workspace: Map<string, number>;
  provider: Map<string, number>;
}

/** Spend of the current day and month. */
export interface Spend {
  DAY: PeriodSpend;
  MONTH: PeriodSpend;
  /** When computed, ms since the epoch. */
  atMs: number;
}

/** The provider a stored run used: its spec's, else its workspace's, else "default". */
export function providerOfSpec(spec: unknown, workspaceProvider: string | null): string {
  const p =
    spec !== null && typeof spec === "object" && "provider" in spec
      ? (spec as { provider?: unknown }).provider
      : null;
  return typeof p === "string" && p !== "" ? p : (workspaceProvider ?? "default");
}

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

/**
 * Read the spend of every run started this UTC month (one indexed query on Agent(workspace,
 * startedAt) — at most a month of runs).
 * @param workspaceProvider a workspace's configured provider (for runs whose spec names none).
 */
export async function readSpend(
  db: PrismaClient,
  nowMs: number,
  workspaceProvider: (workspace: string) => string | null,
): Promise<Spend> {
  const dayStart = periodStartMs("DAY", nowMs);
  const monthStart = periodStartMs("MONTH", nowMs);
  const rows = await db.agent.findMany({
    where: { startedAt: { gte: new Date(monthStart) }, costUsd: { gt: 0 } },
    select: { workspace: true, spec: true, costUsd: true, startedAt: true },
  });
  const spend: Spend = {
    DAY: { workspace: new Map(), provider: new Map() },
    MONTH: { workspace: new Map(), provider: new Map() },
    atMs: nowMs,
  };
  for (const r of rows) {
    const cost = r.costUsd ?? 0;
    const provider = providerOfSpec(r.spec, workspaceProvider(r.workspace));
    add(spend.MONTH.workspace, r.workspace, cost);
    add(spend.MONTH.provider, provider, cost);
    if (r.startedAt.getTime() >= dayStart) {
      add(spend.DAY.workspace, r.workspace, cost);
      add(spend.DAY.provider, provider, cost);
    }
  }
  return spend;
}
