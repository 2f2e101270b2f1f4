/**
 * Ingest throughput on PostgreSQL (issue 18 item 1): the ingest scenario (bench/scenarios/ingest.ts)
 * with the gateway on `--database-url` — a throwaway cluster of this machine's PostgreSQL
 * (test/helpers/postgres.ts: fsync off, a private Unix socket, as for the tests) — against the same
 * rows inserted with raw `pg` in 10,000-row transactions into a fresh database of the same server.
 * Target: ≥ 0.50 × the raw inserts, as for SQLite.
 */
import { startPostgres } from "../../test/helpers/postgres.js";
import type { Measurement, Scenario } from "../lib/report.js";
import { runCase } from "./ingest.js";

const TOTAL_FRAMES = 100_000;
const QUICK_FRAMES = 6_000;

/** The PostgreSQL ingest scenario. */
export const scenario: Scenario = {
  name: "ingest-pg",
  title: "TurnEvents stored/s for 1, 10, 100 agents on PostgreSQL, vs raw pg inserts",
  async run(ctx) {
    const pg = await startPostgres();
    try {
      const out: Measurement[] = [];
      for (const agents of [1, 10, 100]) {
        out.push(...(await runCase(ctx, agents, ctx.quick ? QUICK_FRAMES : TOTAL_FRAMES, pg)));
      }
      return out;
    } finally {
      await pg.stop();
    }
  },
};
