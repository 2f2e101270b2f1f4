/**
 * The health monitor (issue 15 item 2): every `intervalMs` one round of checks over the fleet, the
 * queue, the store and the disks (the catalogue is src/attention/thresholds.ts; the judging is the
 * pure functions of src/attention/checks.ts; the real disk figures src/attention/readings.ts).
 *
 * Silent while healthy: a round that finds nothing wrong writes no log line and no inbox item.
 * A (check, subject) going from ok to failing starts an *episode*: one warning line and one
 * `inbox.raiseAlert`. While the episode lasts nothing more is raised — so an alert a person
 * acknowledged or dismissed stays closed — and when the check passes again (or its subject is
 * gone: a removed workspace, an agent no longer running) `inbox.clearAlert` closes what is still
 * open, with the reason. Episodes live in memory; at start they are seeded from the ALERT items
 * still open, so an alert raised before a restart is cleared once its condition is over.
 *
 * Figures: workspace health and agents from the fleet's served state; the time of each agent's
 * last event from the bus (at start, and for an agent first seen later: the time it was first
 * seen); ingest lag from the ingest manager; the oldest ready launch from the queue; events stored
 * in the last hour from two index seeks on the Event table; the database files' sizes, free space
 * (statfs) and — at most every {@link WALK_EVERY_ROUNDS} × interval, per workspace — the space used
 * under `.caliban/worktrees` from the {@link DiskReader}.
 *
 * Thresholds: a stored HealthThreshold row overrides a check's default; the `--health-threshold`
 * flags are stored at start, replacing what was set through the API (as `--max-concurrent` does).
 */
import path from "node:path";
import { Mutex } from "async-mutex";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { BusSubscription, EventBus } from "../bus/bus.js";
import type { EventStore } from "../store/events.js";
import type { Fleet } from "../fleet/fleet.js";
import type { Logger } from "../log.js";
import { systemClock, type Clock, type TimerHandle } from "../queue/clock.js";
import type { LaunchQueue } from "../queue/queue.js";
import { isTerminal } from "../caliband/wire.js";
import type { InboxService } from "./inbox.js";
import { HEALTH_CHECKS, healthCheck, validateThreshold } from "./thresholds.js";
import {
  alertTitle,
  checkAgentStuck,
  checkDaemonUnreachable,
  checkDatabaseSize,
  checkDiskFree,
  checkEventGrowth,
  checkIngestLag,
  checkQueueWait,
  checkWorktreesUsed,
  clearedMessage,
  unmeasured,
  type CheckResult,
} from "./checks.js";
import { fsDiskReader } from "./readings.js";

export type { CheckResult } from "./checks.js";

/** Disk figures the monitor reads (injected in tests; the real one is readings.ts `fsDiskReader`). */
export interface DiskReader {
  /** Free bytes for an unprivileged user on the filesystem holding `path` (statfs bavail × bsize). */
  freeBytes(path: string): Promise<number>;
  /** Bytes used under `dir` (st_blocks × 512, symlinks not followed); counting stops past `limit`; 0 if missing. */
  usedBytes(dir: string, limit: number): Promise<number>;
  /** Size of a file, bytes; 0 if missing. */
  fileBytes(path: string): Promise<number>;
}

/** What the monitor needs. */
export interface MonitorDeps {
  db: PrismaClient;
  fleet: Fleet;
  store: EventStore;
  bus: EventBus;
  queue: LaunchQueue;
  inbox: InboxService;
  log: Logger;
  clock?: Clock;
  /** The data dir (its filesystem's free space is checked). */
  dataDir: string;
  /** The database file and its write-ahead log, sized by `database_size`. */
  dbFiles: string[];
  /**
   * The store's size in bytes when it is not files of ours (PostgreSQL: `pg_database_size`);
   * `database_size` asks it instead of sizing {@link MonitorDeps.dbFiles}.
   */
  databaseBytes?: () => Promise<number>;
  /** How often checks run, ms. */
  intervalMs: number;
  /** Thresholds from flags, stored at start (replacing ones set through the API). */
  thresholds: Record<string, number>;
  disk?: DiskReader;
}

/** The last round of checks. */
export interface HealthReport {
  /** Every result passes (true before the first round). */
  ok: boolean;
  /** When the round ran (the monitor's clock); null before the first one. */
  checkedAt: Date | null;
  /** Every check's results, in catalogue order (per workspace / agent where the check has a subject). */
  results: CheckResult[];
}

/** The walk of a workspace's worktrees runs at most once per this many intervals. */
export const WALK_EVERY_ROUNDS = 5;

/** Who stored a threshold given by `--health-threshold` (HealthThreshold.updatedBy). */
const FLAG_ACTOR = "--health-threshold";

const HOUR_MS = 3_600_000;

/** A failing (check, subject) as the monitor remembers it. */
interface Episode {
  check: string;
  subject: string | null;
  workspace: string | null;
  since: Date;
  /** raiseAlert succeeded for this episode (or its item was already open at start). */
  raised: boolean;
  /** A failed raiseAlert/clearAlert was logged already (once per episode). */
  inboxErrorLogged: boolean;
}

/** What the monitor heard last of one agent. */
interface Activity {
  atMs: number;
  cleanTurnEnd: boolean;
}

/** A workspace's last worktrees reading. */
interface Walk {
  atMs: number;
  threshold: number;
  result: CheckResult;
}

const keyOf = (check: string, subject: string | null) => `${check}\u0000${subject ?? ""}`;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The health monitor. */
export class HealthMonitor {
  private readonly clock: Clock;
  private readonly disk: DiskReader;
  private readonly log: Logger;
  /** Stored thresholds (API or flag) by check id; checks without one use their default. */
  private readonly overrides = new Map<string, number>();
  private readonly episodes = new Map<string, Episode>();
  /** Alerts whose clearAlert failed: retried next round unless the check fails again. */
  private readonly pendingClears = new Map<
    string,
    { check: string; subject: string | null; message: string }
  >();
  /** Keys whose measurement failure was logged (until it can be measured again). */
  private readonly unmeasurable = new Set<string>();
  private readonly activity = new Map<string, Activity>();
  private readonly walks = new Map<string, Walk>();
  private readonly mutex = new Mutex();
  /** The round waiting for the mutex, which later callers join (a burst of refreshes runs once). */
  private queued: Promise<HealthReport> | null = null;
  private last: HealthReport = { ok: true, checkedAt: null, results: [] };
  private sub: BusSubscription | null = null;
  private timer: TimerHandle | null = null;
  private started = false;
  private stopped = false;

  constructor(private readonly deps: MonitorDeps) {
    this.clock = deps.clock ?? systemClock;
    this.disk = deps.disk ?? fsDiskReader;
    this.log = deps.log;
  }

  /**
   * Load the stored thresholds, store the flags' ones over them, remember the ALERT items still
   * open, follow the bus for agents' events and arm the first round (one interval from now).
   * @throws ValidationFailed for a flag threshold of an unknown check or out of range.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const [check, value] of Object.entries(this.deps.thresholds)) validateThreshold(check, value);
    for (const row of await this.deps.db.healthThreshold.findMany()) {
      const spec = healthCheck(row.check);
      // A row the catalogue no longer accepts (a check removed, a narrower range) stays stored, unused.
      if (spec && Number.isFinite(row.value) && row.value >= spec.min && row.value <= spec.max)
        this.overrides.set(row.check, row.value);
    }
    for (const [check, value] of Object.entries(this.deps.thresholds))
      await this.store(check, value, FLAG_ACTOR);
    const open = await this.deps.db.inboxItem.findMany({
      where: { kind: "ALERT", state: { in: ["OPEN", "SNOOZED"] }, check: { not: null } },
      select: { check: true, subject: true, workspace: true, openedAt: true },
    });
    for (const it of open) {
      const check = it.check!;
      this.episodes.set(keyOf(check, it.subject), {
        check,
        subject: it.subject,
        workspace: it.workspace,
        since: it.openedAt,
        raised: true,
        inboxErrorLogged: false,
      });
    }
    const now = this.clock.now();
    for (const ws of this.deps.fleet.registry.list())
      for (const a of this.deps.fleet.state.agentsOf(ws.name))
        if (!isTerminal(a.status)) this.activity.set(a.id, { atMs: now, cleanTurnEnd: false });
    this.sub = this.deps.bus.subscribe((e) => e.agentId !== "");
    void this.follow(this.sub);
    this.arm();
  }

  /** Stop the timer and the bus subscription; waits for a round in progress. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sub?.close();
    this.sub = null;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.queued?.catch(() => undefined);
    await this.mutex.waitForUnlock();
  }

  /**
   * Run one round now (what the timer does too). Rounds never overlap: a call while one runs gets
   * the next round, and calls while that one waits share it.
   * @returns the round's report (also what {@link report} returns from then on).
   */
  runChecks(): Promise<HealthReport> {
    if (this.queued) return this.queued;
    const round = this.mutex.runExclusive(async () => {
      this.queued = null;
      // Stopped meanwhile: the fleet and the store may be closing; answer the last round.
      return this.stopped ? this.last : this.round();
    });
    this.queued = round;
    return round;
  }

  /** The last round's report (`checkedAt` null before the first round: call {@link runChecks}). */
  report(): HealthReport {
    return this.last;
  }

  /** Every check's threshold in force, in catalogue order; `isDefault` when none is stored. */
  thresholds(): { check: string; value: number; isDefault: boolean }[] {
    return HEALTH_CHECKS.map((c) => {
      const v = this.overrides.get(c.id);
      return { check: c.id, value: v ?? c.defaultValue, isDefault: v === undefined };
    });
  }

  /**
   * Store a check's threshold (in force from the next round); null returns it to its default.
   * @param actor who set it (token name), stored as `updatedBy`.
   * @throws ValidationFailed at `["check"]` for an unknown check, at `["value"]` for a value out of
   *   the check's range (thresholds.ts); nothing changes then.
   */
  async setThreshold(check: string, value: number | null, actor: string): Promise<void> {
    const spec = validateThreshold(check, value ?? healthCheck(check)?.defaultValue ?? Number.NaN, ["value"]);
    if (value === null) {
      await this.deps.store.append([], {
        onFailure: "throw",
        extra: (db) => [db.healthThreshold.deleteMany({ where: { check: spec.id } })],
      });
      this.overrides.delete(spec.id);
      return;
    }
    await this.store(spec.id, value, actor);
  }

  private async store(check: string, value: number, actor: string): Promise<void> {
    const updatedAt = new Date(this.clock.now());
    await this.deps.store.append([], {
      onFailure: "throw",
      extra: (db) => [
        db.healthThreshold.upsert({
          where: { check },
          create: { check, value, updatedAt, updatedBy: actor },
          update: { value, updatedAt, updatedBy: actor },
        }),
      ],
    });
    this.overrides.set(check, value);
  }

  private threshold(check: string): number {
    return this.overrides.get(check) ?? healthCheck(check)!.defaultValue;
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.runChecks()
        .catch((err: unknown) => this.log.error({ err }, "a health check round failed"))
        .finally(() => this.arm());
    }, this.deps.intervalMs);
  }

  /** Remember when each agent's last event arrived, and whether it was a clean end of turn. */
  private async follow(sub: BusSubscription): Promise<void> {
    try {
      for await (const item of sub) {
        const now = this.clock.now();
        if (item.type === "overflow") {
          // Some events were dropped: whose is unknown, so count every agent as just heard from.
          for (const a of this.activity.values()) {
            a.atMs = now;
            a.cleanTurnEnd = false;
          }
          continue;
        }
        const e = item.event;
        this.activity.set(e.agentId, {
          atMs: now,
          cleanTurnEnd: e.kind === "turn_completed" && e.payload.stopReason === "end_turn",
        });
      }
    } catch (err) {
      this.log.error({ err }, "the health monitor stopped following agents' events");
    }
  }

  /**
   * One reading that may fail: its result, or an unmeasured one (logged once until it can be
   * measured again).
   */
  private async measure(
    check: string,
    subject: string | null,
    workspace: string | null,
    fn: () => Promise<CheckResult>,
  ): Promise<CheckResult> {
    const key = keyOf(check, subject);
    try {
      const r = await fn();
      this.unmeasurable.delete(key);
      return r;
    } catch (err) {
      if (!this.unmeasurable.has(key)) {
        this.unmeasurable.add(key);
        this.log.warn({ err, check, subject }, `health check ${check} could not be measured`);
      }
      return unmeasured(check, subject, workspace, this.threshold(check), errorText(err));
    }
  }

  /** Events stored since the first one stamped within the last hour (ids count inserts; never reused). */
  private async eventsLastHour(nowMs: number): Promise<number> {
    const first = await this.deps.db.event.findFirst({
      where: { ts: { gte: new Date(nowMs - HOUR_MS) } },
      orderBy: { ts: "asc" },
      select: { id: true },
    });
    if (!first) return 0;
    const last = await this.deps.db.event.findFirst({ orderBy: { id: "desc" }, select: { id: true } });
    return last ? Math.max(0, last.id - first.id + 1) : 0;
  }

  /** Bytes used under the `.caliban/worktrees` of the workspace's root and its checkouts, up to past `limit`. */
  private async worktreesUsed(name: string, root: string, limit: number): Promise<number> {
    const dirs = new Set([root]);
    for (const s of await this.deps.fleet.registry.sources(name).catch(() => [])) dirs.add(s.path);
    let total = 0;
    for (const d of dirs) {
      total += await this.disk.usedBytes(path.join(d, ".caliban", "worktrees"), limit - total);
      if (total > limit) break;
    }
    return total;
  }

  private async round(): Promise<HealthReport> {
    const now = this.clock.now();
    const { fleet, queue } = this.deps;
    const th = (check: string) => this.threshold(check);
    const workspaces = fleet.registry.list();
    const results: CheckResult[] = [];

    for (const ws of workspaces) {
      const h = fleet.state.healthOf(ws.name);
      results.push(
        checkDaemonUnreachable(
          { workspace: ws.name, state: h.state, reason: h.reason, sinceMs: h.since.getTime() },
          now,
          th("daemon_unreachable"),
        ),
      );
    }

    const live = new Set<string>();
    for (const ws of workspaces) {
      for (const a of fleet.state.agentsOf(ws.name)) {
        if (isTerminal(a.status)) continue;
        live.add(a.id);
        let act = this.activity.get(a.id);
        if (!act) {
          act = { atMs: now, cleanTurnEnd: false };
          this.activity.set(a.id, act);
        }
        if (a.status !== "running") continue;
        results.push(
          checkAgentStuck(
            {
              agentId: a.id,
              workspace: ws.name,
              name: a.name,
              interactive: a.interactive,
              lastEventAtMs: act.atMs,
              cleanTurnEnd: act.cleanTurnEnd,
            },
            now,
            th("agent_stuck"),
          ),
        );
      }
    }
    for (const id of this.activity.keys()) if (!live.has(id)) this.activity.delete(id);

    results.push(
      await this.measure("ingest_lag", null, null, async () =>
        checkIngestLag(await fleet.ingest.lagBytes(), th("ingest_lag")),
      ),
    );

    results.push(
      await this.measure("queue_wait", null, null, async () => {
        const oldest = queue.oldestReadyLaunch(now);
        const reason = oldest ? (queue.waitingFor(oldest.launchId)?.message ?? null) : null;
        return checkQueueWait(oldest ? { ...oldest, reason } : null, now, th("queue_wait"));
      }),
    );

    results.push(
      await this.measure("data_disk_free", null, null, async () =>
        checkDiskFree(
          "data_disk_free",
          null,
          this.deps.dataDir,
          await this.disk.freeBytes(this.deps.dataDir),
          th("data_disk_free"),
        ),
      ),
    );
    // A remote workspace's root is a path on its daemon's host: its disk is not measurable here.
    const local = workspaces.filter((w) => w.remote === null);
    for (const ws of local) {
      results.push(
        await this.measure("workspace_disk_free", ws.name, ws.name, async () =>
          checkDiskFree(
            "workspace_disk_free",
            ws.name,
            ws.root,
            await this.disk.freeBytes(ws.root),
            th("workspace_disk_free"),
          ),
        ),
      );
    }

    const registered = new Set(workspaces.map((w) => w.name));
    for (const name of this.walks.keys()) if (!registered.has(name)) this.walks.delete(name);
    const walkLimit = th("worktrees_disk_used");
    for (const ws of local) {
      const prev = this.walks.get(ws.name);
      if (
        prev &&
        prev.threshold === walkLimit &&
        now - prev.atMs < WALK_EVERY_ROUNDS * this.deps.intervalMs &&
        now >= prev.atMs
      ) {
        results.push(prev.result);
        continue;
      }
      const r = await this.measure("worktrees_disk_used", ws.name, ws.name, async () => {
        const used = await this.worktreesUsed(ws.name, ws.root, walkLimit);
        return checkWorktreesUsed(ws.name, used, used > walkLimit, walkLimit);
      });
      this.walks.set(ws.name, { atMs: now, threshold: walkLimit, result: r });
      results.push(r);
    }

    results.push(
      await this.measure("database_size", null, null, async () => {
        let bytes = 0;
        if (this.deps.databaseBytes) bytes = await this.deps.databaseBytes();
        else for (const f of this.deps.dbFiles) bytes += await this.disk.fileBytes(f);
        return checkDatabaseSize(bytes, th("database_size"));
      }),
    );

    results.push(
      await this.measure("event_growth", null, null, async () =>
        checkEventGrowth(await this.eventsLastHour(now), th("event_growth")),
      ),
    );

    await this.transitions(results, now, registered);
    this.last = { ok: results.every((r) => r.ok), checkedAt: new Date(now), results };
    return this.last;
  }

  /** Raise alerts for new failures, clear the ones that passed again or whose subject is gone. */
  private async transitions(
    results: CheckResult[],
    now: number,
    registered: ReadonlySet<string>,
  ): Promise<void> {
    const present = new Set<string>();
    for (const r of results) {
      const key = keyOf(r.check, r.subject);
      present.add(key);
      if (r.value === null) continue; // unmeasured: the episode (if any) goes on as it was
      let ep = this.episodes.get(key);
      if (!r.ok) {
        this.pendingClears.delete(key);
        if (!ep) {
          ep = {
            check: r.check,
            subject: r.subject,
            workspace: r.workspace,
            since: r.since ?? new Date(now),
            raised: false,
            inboxErrorLogged: false,
          };
          this.episodes.set(key, ep);
          this.log.warn(
            {
              check: r.check,
              subject: r.subject,
              workspace: r.workspace,
              value: r.value,
              threshold: r.threshold,
            },
            r.message,
          );
        }
        r.since = r.since ?? ep.since;
        if (!ep.raised) await this.raise(ep, r);
      } else if (ep) {
        this.episodes.delete(key);
        this.log.info({ check: r.check, subject: r.subject, workspace: r.workspace }, clearedMessage(r));
        await this.clear(key, r.check, r.subject, clearedMessage(r));
      }
    }
    for (const [key, ep] of [...this.episodes]) {
      if (present.has(key)) continue;
      this.episodes.delete(key);
      const message = `${ep.check} cleared: ${this.goneReason(ep, registered)}`;
      this.log.info({ check: ep.check, subject: ep.subject, workspace: ep.workspace }, message);
      await this.clear(key, ep.check, ep.subject, message);
    }
    for (const [key, c] of [...this.pendingClears]) {
      if (!this.episodes.has(key)) await this.clear(key, c.check, c.subject, c.message);
    }
    for (const key of [...this.unmeasurable]) if (!present.has(key)) this.unmeasurable.delete(key);
  }

  /** Why an episode's subject is no longer checked. */
  private goneReason(ep: Episode, registered: ReadonlySet<string>): string {
    if (ep.workspace !== null && !registered.has(ep.workspace))
      return `workspace ${ep.workspace} is no longer registered`;
    if (ep.check === "agent_stuck" && ep.subject !== null) {
      const a = this.deps.fleet.state.agent(ep.subject);
      return `agent ${ep.subject} is no longer running${a ? ` (${a.status})` : ""}`;
    }
    return `${ep.subject ?? "it"} is no longer checked`;
  }

  private async raise(ep: Episode, r: CheckResult): Promise<void> {
    try {
      await this.deps.inbox.raiseAlert({
        check: r.check,
        subject: r.subject,
        workspace: r.workspace,
        agentId: r.check === "agent_stuck" ? r.subject : null,
        title: alertTitle(r),
        message: r.message,
      });
      ep.raised = true;
    } catch (err) {
      // Tried again next round while the episode lasts.
      if (!ep.inboxErrorLogged)
        this.log.error({ err, check: r.check, subject: r.subject }, "raising an alert failed");
      ep.inboxErrorLogged = true;
    }
  }

  private async clear(key: string, check: string, subject: string | null, message: string): Promise<void> {
    try {
      await this.deps.inbox.clearAlert(check, subject, message);
      this.pendingClears.delete(key);
    } catch (err) {
      if (!this.pendingClears.has(key)) this.log.error({ err, check, subject }, "clearing an alert failed");
      this.pendingClears.set(key, { check, subject, message });
    }
  }
}
