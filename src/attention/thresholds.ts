/**
 * The health monitor's checks and their thresholds (issue 15 item 2): one catalogue shared by the
 * `--health-threshold` flag (src/config.ts), the `setHealthThreshold` mutation and the monitor.
 * A threshold is one number in the check's unit; `direction` says whether the check fails above
 * it (`max`: too much) or below it (`min`: too little).
 */
import { ValidationFailed } from "../errors.js";

/** Units of threshold values: milliseconds, bytes, or events per hour. */
export type ThresholdUnit = "ms" | "bytes" | "events/h";

/** One health check. */
export interface HealthCheckSpec {
  /** Stable id (flag and API key, `prospero_health_check_failing{check}` label). */
  id: string;
  /** What it watches, for `health` and `prospero doctor`. */
  description: string;
  unit: ThresholdUnit;
  /** `max`: fails when the value is above the threshold; `min`: when below it. */
  direction: "max" | "min";
  defaultValue: number;
  /** Smallest accepted threshold. */
  min: number;
  /** Largest accepted threshold. */
  max: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Every check, in the order `health` lists them. */
export const HEALTH_CHECKS: readonly HealthCheckSpec[] = [
  {
    id: "daemon_unreachable",
    description: "A workspace's caliband has been unreachable for longer than the threshold.",
    unit: "ms",
    direction: "max",
    defaultValue: MINUTE,
    min: 1_000,
    max: 7 * DAY,
  },
  {
    id: "agent_stuck",
    description:
      "A running agent (not an interactive agent idle between turns) has produced no event for longer than the threshold.",
    unit: "ms",
    direction: "max",
    defaultValue: 10 * MINUTE,
    min: 10_000,
    max: 7 * DAY,
  },
  {
    id: "ingest_lag",
    description: "Bytes of agents' transcripts written by caliband but not yet stored by Prospero.",
    unit: "bytes",
    direction: "max",
    defaultValue: 8 * MiB,
    min: 1024,
    max: 1024 * GiB,
  },
  {
    id: "queue_wait",
    description:
      "The oldest launch ready to run (not held by notBefore or a retry backoff) has waited longer than the threshold.",
    unit: "ms",
    direction: "max",
    defaultValue: 15 * MINUTE,
    min: 1_000,
    max: 30 * DAY,
  },
  {
    id: "data_disk_free",
    description: "Free space on the filesystem of the data dir is below the threshold.",
    unit: "bytes",
    direction: "min",
    defaultValue: GiB,
    min: 0,
    max: 1024 * 1024 * GiB,
  },
  {
    id: "workspace_disk_free",
    description: "Free space on the filesystem of a workspace's root is below the threshold.",
    unit: "bytes",
    direction: "min",
    defaultValue: GiB,
    min: 0,
    max: 1024 * 1024 * GiB,
  },
  {
    id: "worktrees_disk_used",
    description:
      "Disk used by a workspace's `.caliban/worktrees` (isolated agents' worktrees) is above the threshold.",
    unit: "bytes",
    direction: "max",
    defaultValue: 10 * GiB,
    min: MiB,
    max: 1024 * 1024 * GiB,
  },
  {
    id: "database_size",
    description: "The database (file and write-ahead log) is larger than the threshold.",
    unit: "bytes",
    direction: "max",
    defaultValue: 4 * GiB,
    min: MiB,
    max: 1024 * 1024 * GiB,
  },
  {
    id: "event_growth",
    description: "Events stored per hour (over the last hour) are above the threshold.",
    unit: "events/h",
    direction: "max",
    defaultValue: 1_000_000,
    min: 100,
    max: 1_000_000_000,
  },
];

/** The check with this id, or undefined. */
export function healthCheck(id: string): HealthCheckSpec | undefined {
  return HEALTH_CHECKS.find((c) => c.id === id);
}

/**
 * Check a threshold for `check`: a known check id and a whole number within its min–max.
 * @param path where the value came from, for the error (`["input", "value"]`).
 * @throws ValidationFailed naming the check's accepted range and unit.
 */
export function validateThreshold(check: string, value: number, path: string[] = ["value"]): HealthCheckSpec {
  const spec = healthCheck(check);
  if (!spec) {
    throw new ValidationFailed([
      {
        path: path.slice(0, -1).concat("check"),
        message: `unknown health check ${JSON.stringify(check)}; one of ${HEALTH_CHECKS.map((c) => c.id).join(", ")}`,
      },
    ]);
  }
  // Every unit is counted in whole numbers (ms, bytes, events per hour): 100.5 would be shown as
  // one value and compared as another.
  if (!Number.isInteger(value) || value < spec.min || value > spec.max) {
    throw new ValidationFailed([
      {
        path,
        message: `must be a whole number from ${spec.min} to ${spec.max} (${spec.unit}) for ${check}`,
      },
    ]);
  }
  return spec;
}
