/**
 * The health checks as pure functions (issue 15 item 2): readings in, one {@link CheckResult} out.
 * No clock, no I/O: the monitor (src/attention/monitor.ts) takes the readings and the time, these
 * judge them against a threshold of the check's unit (src/attention/thresholds.ts: `max` checks fail
 * above it, `min` checks below it) and word one clear line for `health`, `prospero doctor` and the
 * inbox alert.
 */
import { healthCheck, type HealthCheckSpec } from "./thresholds.js";

/** One check's result for one subject. */
export interface CheckResult {
  /** The check's id (thresholds.ts `HEALTH_CHECKS`), e.g. `daemon_unreachable`. */
  check: string;
  /** What it is about: a workspace name, an agent id; null for a fleet-wide check. */
  subject: string | null;
  /** The workspace concerned, or null for a fleet-wide check. */
  workspace: string | null;
  ok: boolean;
  /** The measured figure in the check's unit; null when it could not be measured (then `ok`). */
  value: number | null;
  /** The threshold it was judged against, in the check's unit. */
  threshold: number;
  /** One line: what was measured, against what, and (failing) what it means. */
  message: string;
  /** When it started failing (null when ok). */
  since: Date | null;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A duration for people: `850 ms`, `42 s`, `3 min`, `2 h 5 min`, `3 d 4 h` (rounded down to the
 * unit shown; negative durations read as 0).
 */
export function formatMs(ms: number): string {
  const v = Math.max(0, Math.floor(ms));
  if (v < SECOND) return `${v} ms`;
  if (v < MINUTE) return `${Math.floor(v / SECOND)} s`;
  if (v < HOUR) return `${Math.floor(v / MINUTE)} min`;
  if (v < DAY) {
    const m = Math.floor((v % HOUR) / MINUTE);
    return `${Math.floor(v / HOUR)} h${m ? ` ${m} min` : ""}`;
  }
  const h = Math.floor((v % DAY) / HOUR);
  return `${Math.floor(v / DAY)} d${h ? ` ${h} h` : ""}`;
}

const BYTE_UNITS = ["KiB", "MiB", "GiB", "TiB", "PiB"] as const;

/** A byte count for people: `512 B`, `1.5 KiB`, `8.0 MiB`, `1.0 GiB` (binary units, one decimal). */
export function formatBytes(bytes: number): string {
  const v = Math.max(0, bytes);
  if (v < 1024) return `${Math.floor(v)} B`;
  let n = v / 1024;
  let i = 0;
  while (n >= 1024 && i < BYTE_UNITS.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(1)} ${BYTE_UNITS[i]}`;
}

/** A figure in `unit` for people. */
export function formatValue(unit: HealthCheckSpec["unit"], v: number): string {
  if (unit === "ms") return formatMs(v);
  if (unit === "bytes") return formatBytes(v);
  return `${Math.round(v)} events/h`;
}

function spec(id: string): HealthCheckSpec {
  const s = healthCheck(id);
  if (!s) throw new Error(`unknown health check ${id}`); // a bug of this module, not input
  return s;
}

/** Whether `value` passes `threshold` for a check failing above it (`max`) or below it (`min`). */
export function passes(direction: HealthCheckSpec["direction"], value: number, threshold: number): boolean {
  return direction === "max" ? value <= threshold : value >= threshold;
}

/**
 * Build a result of `check`: judged by its direction; `since` (failing only) as given.
 * @param failing the message when it fails; `healthy` when it passes.
 */
function result(
  check: string,
  subject: string | null,
  workspace: string | null,
  value: number,
  threshold: number,
  words: { failing: string; healthy: string },
  since: Date | null = null,
): CheckResult {
  const ok = passes(spec(check).direction, value, threshold);
  return {
    check,
    subject,
    workspace,
    ok,
    value,
    threshold,
    message: ok ? words.healthy : words.failing,
    since: ok ? null : since,
  };
}

/**
 * A check that could not be measured this round (a reading threw): `ok`, no value, the reason in
 * the message. It neither raises nor clears an alert.
 */
export function unmeasured(
  check: string,
  subject: string | null,
  workspace: string | null,
  threshold: number,
  reason: string,
): CheckResult {
  const line = reason.split("\n")[0]!.slice(0, 300);
  return {
    check,
    subject,
    workspace,
    ok: true,
    value: null,
    threshold,
    message: `${check}${subject !== null ? ` (${subject})` : ""} could not be measured: ${line}`,
    since: null,
  };
}

/** A workspace's daemon as the poll loop sees it (src/fleet/state.ts `WorkspaceHealth`). */
export interface DaemonReading {
  workspace: string;
  state: "unknown" | "healthy" | "unreachable";
  reason: string | null;
  /** When it entered `state`, ms since the epoch. */
  sinceMs: number;
}

/**
 * `daemon_unreachable`: value = how long the daemon has been unreachable (0 unless unreachable);
 * fails above the threshold, failing since it crossed it. Subject: the workspace.
 */
export function checkDaemonUnreachable(d: DaemonReading, nowMs: number, threshold: number): CheckResult {
  const value = d.state === "unreachable" ? Math.max(0, nowMs - d.sinceMs) : 0;
  const who = `daemon of workspace ${d.workspace}`;
  return result(
    "daemon_unreachable",
    d.workspace,
    d.workspace,
    value,
    threshold,
    {
      failing: `${who} unreachable for ${formatMs(value)} (threshold ${formatMs(threshold)}): ${d.reason ?? "no reason given"}`,
      healthy:
        d.state === "unreachable"
          ? `${who} unreachable for ${formatMs(value)} (threshold ${formatMs(threshold)})`
          : d.state === "healthy"
            ? `${who} reachable`
            : `${who} not polled yet`,
    },
    new Date(d.sinceMs + threshold),
  );
}

/** A running agent and what the monitor heard of it last. */
export interface AgentActivity {
  agentId: string;
  workspace: string;
  /** The agent's name (its label). */
  name: string;
  interactive: boolean;
  /** When its last event arrived (or when the monitor first saw it, if none since), ms since the epoch. */
  lastEventAtMs: number;
  /** Its last event was a `turn_completed` with stop reason `end_turn` (the turn ended cleanly). */
  cleanTurnEnd: boolean;
}

/**
 * `agent_stuck` for an agent whose status is `running` (idle agents wait for input; they are not
 * checked): value = time since its last event; fails above the threshold — except an interactive
 * agent whose last event is a clean end of turn, which is about to report `idle` (value still
 * shown). Subject: the agent id.
 */
export function checkAgentStuck(a: AgentActivity, nowMs: number, threshold: number): CheckResult {
  const quiet = Math.max(0, nowMs - a.lastEventAtMs);
  const who = `agent ${a.name} (${a.agentId}) of workspace ${a.workspace}`;
  if (a.interactive && a.cleanTurnEnd) {
    return {
      check: "agent_stuck",
      subject: a.agentId,
      workspace: a.workspace,
      ok: true,
      value: quiet,
      threshold,
      message: `${who} ended its turn cleanly ${formatMs(quiet)} ago and waits to go idle`,
      since: null,
    };
  }
  return result(
    "agent_stuck",
    a.agentId,
    a.workspace,
    quiet,
    threshold,
    {
      failing: `${who} is running but produced no event for ${formatMs(quiet)} (threshold ${formatMs(threshold)}); look at its worker log, send it input or kill it`,
      healthy: `${who} running, last event ${formatMs(quiet)} ago`,
    },
    new Date(a.lastEventAtMs + threshold),
  );
}

/** `ingest_lag`: bytes of transcripts written by caliband and not yet stored; fleet-wide. */
export function checkIngestLag(lagBytes: number, threshold: number): CheckResult {
  return result("ingest_lag", null, null, lagBytes, threshold, {
    failing: `ingest lag ${formatBytes(lagBytes)} (threshold ${formatBytes(threshold)}): agents' transcripts are written faster than Prospero stores them (a slow disk or database?)`,
    healthy: `ingest lag ${formatBytes(lagBytes)}`,
  });
}

/** The oldest launch ready to run (src/queue/queue.ts `oldestReadyLaunch`), or null. */
export interface QueueReading {
  launchId: string;
  workspace: string;
  /** When it became ready to run, ms since the epoch. */
  readyAtMs: number;
  /** Why it waits, in words (the queue's wait reason), or null. */
  reason: string | null;
}

/**
 * `queue_wait`: value = how long the oldest ready launch has waited (0 when none waits); fails
 * above the threshold, failing since it crossed it; fleet-wide (one queue, one GLOBAL cap).
 */
export function checkQueueWait(q: QueueReading | null, nowMs: number, threshold: number): CheckResult {
  if (!q) {
    return result("queue_wait", null, null, 0, threshold, {
      failing: "",
      healthy: "no launch waits to run",
    });
  }
  const waited = Math.max(0, nowMs - q.readyAtMs);
  const what = `launch ${q.launchId} of workspace ${q.workspace}`;
  const why = q.reason ? `: ${q.reason}` : "";
  return result(
    "queue_wait",
    null,
    null,
    waited,
    threshold,
    {
      failing: `${what} has waited ${formatMs(waited)} to run (threshold ${formatMs(threshold)})${why}; raise the cap or cancel launches`,
      healthy: `oldest ready launch ${q.launchId} waited ${formatMs(waited)}${why}`,
    },
    new Date(q.readyAtMs + threshold),
  );
}

/**
 * `data_disk_free` (subject null, the data dir) or `workspace_disk_free` (subject: the workspace,
 * its root): free bytes on the filesystem holding `path`; fails below the threshold.
 */
export function checkDiskFree(
  check: "data_disk_free" | "workspace_disk_free",
  workspace: string | null,
  path: string,
  freeBytes: number,
  threshold: number,
): CheckResult {
  const where = workspace === null ? `the data dir ${path}` : `workspace ${workspace} (${path})`;
  return result(check, workspace, workspace, freeBytes, threshold, {
    failing: `${formatBytes(freeBytes)} free on the filesystem of ${where} (threshold ${formatBytes(threshold)}); free some space`,
    healthy: `${formatBytes(freeBytes)} free on the filesystem of ${where}`,
  });
}

/**
 * `worktrees_disk_used`: bytes used under a workspace's `.caliban/worktrees` directories;
 * `capped` when counting stopped past the limit (the value is then a lower bound). Fails above
 * the threshold. Subject: the workspace.
 */
export function checkWorktreesUsed(
  workspace: string,
  usedBytes: number,
  capped: boolean,
  threshold: number,
): CheckResult {
  const amount = `${capped ? "more than " : ""}${formatBytes(usedBytes)}`;
  return result("worktrees_disk_used", workspace, workspace, usedBytes, threshold, {
    failing: `isolated worktrees of workspace ${workspace} (.caliban/worktrees) use ${amount} (threshold ${formatBytes(threshold)}); remove finished agents' worktrees or old agents`,
    healthy: `isolated worktrees of workspace ${workspace} use ${amount}`,
  });
}

/** `database_size`: bytes of the database file and its write-ahead log; fleet-wide. */
export function checkDatabaseSize(bytes: number, threshold: number): CheckResult {
  return result("database_size", null, null, bytes, threshold, {
    failing: `database is ${formatBytes(bytes)} with its write-ahead log (threshold ${formatBytes(threshold)}); lower --retention-days or move the data dir`,
    healthy: `database is ${formatBytes(bytes)} with its write-ahead log`,
  });
}

/** `event_growth`: events stored over the last hour; fleet-wide. */
export function checkEventGrowth(perHour: number, threshold: number): CheckResult {
  return result("event_growth", null, null, perHour, threshold, {
    failing: `${Math.round(perHour)} ${Math.round(perHour) === 1 ? "event" : "events"} stored in the last hour (threshold ${Math.round(threshold)}); a run flooding output?`,
    healthy: `${Math.round(perHour)} ${Math.round(perHour) === 1 ? "event" : "events"} stored in the last hour`,
  });
}

/** The inbox alert's title (one line) for a failing result. */
export function alertTitle(r: CheckResult): string {
  switch (r.check) {
    case "daemon_unreachable":
      return `caliband of workspace ${r.workspace} is unreachable`;
    case "agent_stuck":
      return `Agent ${r.subject} of workspace ${r.workspace} looks stuck`;
    case "ingest_lag":
      return "Ingest is falling behind";
    case "queue_wait":
      return "Launches wait too long to run";
    case "data_disk_free":
      return "Low disk space for the data dir";
    case "workspace_disk_free":
      return `Low disk space for workspace ${r.workspace}`;
    case "worktrees_disk_used":
      return `Worktrees of workspace ${r.workspace} use much disk`;
    case "database_size":
      return "The database is large";
    case "event_growth":
      return "Events grow fast";
    default:
      return `Health check ${r.check} failing`;
  }
}

/** What `clearAlert` records as the reason an alert closed: `<check> cleared: <the ok message>`. */
export function clearedMessage(r: CheckResult): string {
  return `${r.check} cleared: ${r.message}`;
}
