/**
 * Fleet counters and gauges (process-local; ingest lag is computed on demand by
 * `IngestManager.lagBytes`). Served by the GraphQL `metrics` field; names follow
 * Prometheus conventions (`_total` counters) so a `/metrics` exporter can map them one to one.
 */

/** Counters (monotonic) and gauges of the fleet layer. */
export interface FleetMetrics {
  /** Polls of a workspace's caliband attempted. */
  polls_total: number;
  /** Polls that failed (daemon unreachable, protocol error, deadline). */
  poll_failures_total: number;
  /** TurnEvent lines stored (exactly once each). */
  frames_ingested_total: number;
  /** Frames whose `type` this gateway does not know (skipped, stored raw). */
  unknown_frames_total: number;
  /** Lines that are not valid frames (not JSON, wrong shape). */
  invalid_lines_total: number;
  /**
   * `ingest_gap` events stored: times an agent's output could not be read to its end (lines
   * evicted from a socket-only replay, a stream not read to EOF, bytes left unread at a finish
   * deadline, the file removed with bytes unread, ingest ended while the worker still ran).
   */
  ingest_gaps_total: number;
  /** Ingest commits that failed and were retried. */
  ingest_commit_failures_total: number;
  /** Per-agent stream connections open now (gauge). */
  active_attaches: number;
  /**
   * (workspace, agent id) pairs where a workspace's daemon listed an id already recorded for
   * another workspace (left with that workspace, issue 12 item 12); each pair counts once.
   */
  agent_workspace_conflicts_total: number;
  /**
   * Wall time of the last completed poll round, ms (gauge; 0 until one completed): from the start
   * of the round (the poller's tick, or `pollAll`) until every workspace poll it covers settled —
   * the polls it started and any still in flight from an earlier round, which it waits for too.
   */
  poll_round_duration_ms: number;
}

/** Fresh zeroed metrics. */
export function newFleetMetrics(): FleetMetrics {
  return {
    polls_total: 0,
    poll_failures_total: 0,
    frames_ingested_total: 0,
    unknown_frames_total: 0,
    invalid_lines_total: 0,
    ingest_gaps_total: 0,
    ingest_commit_failures_total: 0,
    active_attaches: 0,
    agent_workspace_conflicts_total: 0,
    poll_round_duration_ms: 0,
  };
}
