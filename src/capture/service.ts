/**
 * CaptureService (issue 16 items 1–3): follows the runs of the fleet and snapshots each run's
 * working tree into its repository's object store under `refs/prospero/runs/<agentId>/` at the run's
 * first sight (START), each TurnEnd, its RunEnd, right before Prospero kills it and when it is seen
 * terminal — without touching the agent's index, working tree, branch or HEAD. Reads (files, patch,
 * overlaps) and `apply` (a branch from the captured commit) work after caliband has deleted the
 * worktree. docs/changes.md says exactly what is written into the user's repository.
 *
 * Per run one snapshot runs at a time (triggers arriving meanwhile coalesce into one more); at most
 * {@link MAX_CONCURRENT_SNAPSHOTS} snapshots run at once across the fleet. Every git call has a
 * deadline; nothing here throws into the event loop.
 */
import fs from "node:fs";
import path from "node:path";
import { Semaphore } from "async-mutex";
import type { Agent, PrismaClient } from "../generated/prisma/client.js";
import type { StoreWriter } from "../store/writer.js";
import type { EventStore } from "../store/events.js";
import type { EventBus, BusSubscription } from "../bus/bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { Logger } from "../log.js";
import { isTerminal } from "../caliband/wire.js";
import { Conflict, InvalidState, NotFound, ValidationFailed } from "../errors.js";
import type { FleetEvent, NewEvent, PayloadOf } from "../events/index.js";
import { systemClock, type Clock } from "../queue/clock.js";
import { GitError, runGit } from "./git.js";
import { NotCaptured, takeSnapshot, type Snapshot } from "./snapshot.js";
import { blobSizes, changedFiles, fileDiff, type ChangedFile } from "./diff.js";
import {
  OVERLAP_MAX_PAIR_RUNS,
  OVERLAP_MAX_PAIRS,
  OVERLAP_MAX_PATHS,
  OVERLAP_MAX_RUNS,
  OVERLAP_WINDOW_MS,
  PATCH_FILE_MAX_BYTES,
  PATCH_PAGE_MAX_BYTES,
  baseRef,
  headRef,
  type ApplyResult,
  type CaptureLimits,
  type CaptureSetting,
  type CaptureState,
  type CapturedFileRow,
  type ChangeOverlap,
  type ChangeOverlapPair,
  type FilePatch,
  type RunCaptureRow,
  type SnapshotTrigger,
} from "./types.js";

/** What {@link CaptureService} needs. */
export interface CaptureDeps {
  db: PrismaClient;
  writer: StoreWriter;
  store: EventStore;
  bus: EventBus;
  fleet: Fleet;
  log: Logger;
  limits: CaptureLimits;
  /** `--retention-days` (0 = off), for the EXPIRED reason. */
  retentionDays: number;
  clock?: Clock;
  /** Deadline of each git call of a snapshot, ms (default 60 000). */
  gitTimeoutMs?: number;
}

/** Snapshots running at once across the fleet (each is a few git processes). */
export const MAX_CONCURRENT_SNAPSHOTS = 2;
/** A blob larger than this is never diffed for `patch` (its text would be cut anyway), bytes. */
export const PATCH_BLOB_MAX_BYTES = 8 * 1024 * 1024;
/** Longest branch name `apply` accepts, characters. */
export const BRANCH_MAX_CHARS = 200;

/** Triggers taken at or after the run's end. */
const FINAL_TRIGGERS: ReadonlySet<SnapshotTrigger> = new Set(["RUN_END", "KILL", "STOPPED"]);

const WATCHED = new Set([
  "agent_spawned",
  "agent_discovered",
  "turn_completed",
  "agent_finished",
  "status_changed",
]);

/** The OFF reason of a workspace whose capture is turned off (re-checked at each trigger). */
export function turnedOffReason(workspace: string): string {
  return `change capture is turned off for workspace ${workspace}`;
}

/**
 * The OFF reason of a workspace whose caliband is on another host (issue 18 item 5): its runs'
 * working trees are there, and the gateway reads no path a remote daemon names.
 */
export const REMOTE_REASON =
  "the workspace's caliband is on another host: its runs' working trees are not readable from the gateway";

/** The OFF reason of a workspace that is not a git repository. */
export const NOT_GIT_REASON = "the workspace is not a git repository";

interface Request {
  trigger: SnapshotTrigger;
  turnIndex: number | null;
  final: boolean;
  /** Only the run's spawn asked: an isolated run's fresh worktree is its base, nothing to snapshot. */
  spawnOnly: boolean;
  done: Promise<void>;
  resolve: () => void;
}

interface Watch {
  running: Promise<void> | null;
  next: Request | null;
}

/** The row fields a snapshot (or a failure to take one) writes. */
type CapturePatch = Partial<Omit<RunCaptureRow, "agentId" | "createdAt" | "updatedAt">>;

/** Change capture of every run of the fleet. */
export class CaptureService {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly slots = new Semaphore(MAX_CONCURRENT_SNAPSHOTS);
  private readonly watches = new Map<string, Watch>();
  private sub: BusSubscription | null = null;
  private following: Promise<void> | null = null;
  private started = false;
  private stopped = false;

  constructor(private readonly deps: CaptureDeps) {
    this.clock = deps.clock ?? systemClock;
    this.log = deps.log;
  }

  /**
   * Follow the bus and reconcile from the fleet's state: live runs without a capture row get one
   * (and their START snapshot); watched runs that ended while the gateway was down (a row with no
   * verdict on their end) get their STOPPED attempt; runs first seen ended get no row. Registers
   * the fleet's before-kill hook. Idempotent.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.sub = this.deps.bus.subscribe((e) => WATCHED.has(e.kind));
    this.deps.fleet.lifecycle.setBeforeKill((a) => this.beforeKill(a.id));
    await this.reconcile();
    this.following = this.follow(this.sub);
  }

  /** Stop following; waits for snapshots in progress (each bounded by git timeouts). Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped || !this.started) {
      this.stopped = true;
      return;
    }
    this.stopped = true;
    this.deps.fleet.lifecycle.setBeforeKill(null);
    this.sub?.close();
    await this.following;
    for (;;) {
      const running = [...this.watches.values()].map((w) => w.running).filter((p) => p !== null);
      if (running.length === 0) break;
      await Promise.allSettled(running);
    }
  }

  /**
   * Take a snapshot of `agentId`'s working tree now (coalesced with one in progress) and store it.
   * @returns the capture row after it, or null for a run never seen.
   */
  async snapshot(agentId: string, trigger: SnapshotTrigger): Promise<RunCaptureRow | null> {
    await this.request(agentId, trigger, null);
    return this.captureOf(agentId);
  }

  /** The KILL snapshot, taken right before Prospero kills a run (Lifecycle's hook). Never throws. */
  async beforeKill(agentId: string): Promise<void> {
    try {
      await this.request(agentId, "KILL", null);
    } catch (err) {
      this.log.warn({ err, agentId }, "capture: the kill snapshot failed");
    }
  }

  /** The latest capture row of a run, or null (never watched). */
  async captureOf(agentId: string): Promise<RunCaptureRow | null> {
    return this.deps.db.runCapture.findUnique({ where: { agentId } });
  }

  /** Files of the latest snapshot in path order, after `afterPath` (exclusive), at most `limit`. */
  async files(agentId: string, afterPath: string | null, limit: number): Promise<CapturedFileRow[]> {
    return this.deps.db.capturedFile.findMany({
      where: { agentId, ...(afterPath === null ? {} : { path: { gt: afterPath } }) },
      orderBy: { path: "asc" },
      take: limit,
    });
  }

  /**
   * Unified diff per file, base..head, in path order after `afterPath`: each file's text at most
   * PATCH_FILE_MAX_BYTES (`truncated`), the page holds at most PATCH_PAGE_MAX_BYTES of text (it stops
   * before the file that would pass it; the first file always fits); a binary or too large file
   * (either side over {@link PATCH_BLOB_MAX_BYTES}, checked before reading) has text null and
   * `omitted` says why.
   * @throws InvalidState when the run has no snapshot (the reason) or its repository is gone, NotFound.
   */
  async patch(agentId: string, afterPath: string | null, limit: number): Promise<FilePatch[]> {
    const row = await this.capturedRow(agentId);
    const files = await this.files(agentId, afterPath, limit);
    const gitDir = row.gitDir!;
    const base = row.baseCommit!;
    const head = row.headCommit!;
    const paths = files.map((f) => f.path);
    let sizes: [Map<string, number>, Map<string, number>];
    try {
      sizes = await Promise.all([blobSizes(gitDir, base, paths), blobSizes(gitDir, head, paths)]);
    } catch (err) {
      throw this.readError(err, row);
    }
    const out: FilePatch[] = [];
    let pageBytes = 0;
    for (const f of files) {
      const binary = f.additions === null || f.deletions === null;
      let d;
      try {
        d = await fileDiff(
          gitDir,
          base,
          head,
          { path: f.path, binary, sizes: [sizes[0].get(f.path), sizes[1].get(f.path)] },
          PATCH_FILE_MAX_BYTES,
          PATCH_BLOB_MAX_BYTES,
        );
      } catch (err) {
        throw this.readError(err, row);
      }
      const bytes = d.text === null ? 0 : Buffer.byteLength(d.text, "utf8");
      if (out.length > 0 && pageBytes + bytes > PATCH_PAGE_MAX_BYTES) break;
      pageBytes += bytes;
      out.push({
        path: f.path,
        status: f.status as FilePatch["status"],
        additions: f.additions,
        deletions: f.deletions,
        binary,
        ...d,
      });
    }
    return out;
  }

  /** Overlaps of this run's latest snapshot with other pending runs of its workspace (see types.ts). */
  async overlapsOf(agentId: string): Promise<ChangeOverlap[]> {
    const row = await this.deps.db.runCapture.findUnique({ where: { agentId } });
    if (!row || row.state !== "CAPTURED" || row.appliedAt !== null) return [];
    const others = (await this.pendingRuns(row.workspace)).filter((id) => id !== agentId);
    if (others.length === 0) return [];
    const mine = await this.deps.db.capturedFile.findMany({ where: { agentId }, select: { path: true } });
    const shared = new Map<string, string[]>();
    for (const chunk of chunks(
      mine.map((f) => f.path),
      500,
    )) {
      const rows = await this.deps.db.capturedFile.findMany({
        where: { agentId: { in: others }, path: { in: chunk } },
        select: { agentId: true, path: true },
      });
      for (const r of rows) (shared.get(r.agentId) ?? shared.set(r.agentId, []).get(r.agentId)!).push(r.path);
    }
    return [...shared.entries()]
      .map(([id, paths]) => {
        paths.sort();
        return { agentId: id, files: paths.slice(0, OVERLAP_MAX_PATHS), fileCount: paths.length };
      })
      .sort((a, b) => b.fileCount - a.fileCount || (a.agentId < b.agentId ? -1 : 1))
      .slice(0, OVERLAP_MAX_RUNS);
  }

  /** Every overlapping pair of pending runs in a workspace (`a` < `b` by id, pairs in id order). */
  async workspaceOverlaps(workspace: string): Promise<ChangeOverlapPair[]> {
    // Bounded: the most recently captured pending runs, and the pairs sharing most files.
    const pending = (await this.pendingRuns(workspace, OVERLAP_MAX_PAIR_RUNS)).sort();
    if (pending.length < 2) return [];
    const byPath = new Map<string, string[]>();
    for (const chunk of chunks(pending, 200)) {
      const rows = await this.deps.db.capturedFile.findMany({
        where: { agentId: { in: chunk } },
        select: { agentId: true, path: true },
      });
      for (const r of rows) (byPath.get(r.path) ?? byPath.set(r.path, []).get(r.path)!).push(r.agentId);
    }
    const pairs = new Map<string, ChangeOverlapPair>();
    for (const [p, ids] of byPath) {
      if (ids.length < 2) continue;
      ids.sort();
      for (let i = 0; i < ids.length; i++)
        for (let j = i + 1; j < ids.length; j++) {
          const key = `${ids[i]}\0${ids[j]}`;
          let pair = pairs.get(key);
          if (!pair) pairs.set(key, (pair = { a: ids[i]!, b: ids[j]!, files: [], fileCount: 0 }));
          pair.files.push(p);
          pair.fileCount++;
        }
    }
    return [...pairs.values()]
      .map((pr) => ({ ...pr, files: pr.files.sort().slice(0, OVERLAP_MAX_PATHS) }))
      .sort(
        (x, y) =>
          y.fileCount - x.fileCount || (x.a < y.a ? -1 : x.a > y.a ? 1 : x.b < y.b ? -1 : x.b > y.b ? 1 : 0),
      )
      .slice(0, OVERLAP_MAX_PAIRS);
  }

  /**
   * Create `refs/heads/<branch>` at the run's head commit in its repository (never checked out,
   * never moved: `update-ref` with the zero id as the expected old value, so an existing branch
   * fails atomically) and record it (appliedBranch, …).
   * @throws ValidationFailed (["input", "branch"]: refused by `git check-ref-format --branch`, a
   *   leading '-', `@`, a first component HEAD, refs, heads, tags or remotes, over 200 characters), Conflict (the branch exists, or is a worktree's unborn
   *   HEAD), InvalidState (not CAPTURED: the reason), NotFound (run).
   */
  async apply(agentId: string, branch: string, actor: string): Promise<ApplyResult> {
    const bad = (message: string) => new ValidationFailed([{ path: ["input", "branch"], message }]);
    if (branch === "") throw bad("must not be empty");
    if (branch.length > BRANCH_MAX_CHARS) throw bad(`must be at most ${BRANCH_MAX_CHARS} characters`);
    if (branch.startsWith("-")) throw bad("must not start with '-'");
    // Names git accepts that would mislead it or its users: `@` (HEAD to every git command), a
    // first component HEAD (a clone's refs/remotes/origin/HEAD then conflicts with it), refs (read
    // as a full ref name).
    // heads/, tags/, remotes/ would read as another ref to git (`heads/x` is refs/heads/x first).
    const first = branch.split("/")[0] ?? "";
    if (branch === "@" || ["HEAD", "refs", "heads", "tags", "remotes"].includes(first))
      throw bad(`'${branch}' is not a usable branch name`);
    const row = await this.capturedRow(agentId);
    const gitDir = row.gitDir!;
    const head = row.headCommit!;
    const opts = { gitDir, cwd: gitDir, timeoutMs: 10_000, maxOutputBytes: 64 * 1024 };
    try {
      const out = (await runGit(["check-ref-format", "--branch", branch], opts)).trim();
      // --branch expands @{-N}; anything it rewrote is not the name the person typed.
      if (out !== branch) throw bad("git refuses it as a branch name");
    } catch (err) {
      if (err instanceof GitError && err.code === "failed") throw bad("git refuses it as a branch name");
      if (err instanceof GitError) throw this.readError(err, row);
      throw err;
    }
    const ref = `refs/heads/${branch}`;
    const unbornIn = unbornHeadOf(gitDir, ref);
    if (unbornIn !== null)
      throw new Conflict(`branch ${branch} is the unborn branch checked out in ${unbornIn}`, row.workspace);
    try {
      await runGit(
        [
          "update-ref",
          "-m",
          `prospero: apply the changes of run ${agentId}`,
          ref,
          head,
          "0".repeat(head.length),
        ],
        opts,
      );
    } catch (err) {
      if (err instanceof GitError && err.code === "failed") {
        const exists = await runGit(["rev-parse", "--verify", "-q", ref], opts).then(
          () => true,
          () => false,
        );
        if (exists) throw new Conflict(`branch ${branch} already exists`, row.workspace);
        throw new Conflict(`branch ${branch} cannot be created: ${err.stderr}`, row.workspace);
      }
      throw this.readError(err, row);
    }
    const at = new Date(this.clock.now());
    await this.deps.writer.submit((db) => [
      db.runCapture.update({
        where: { agentId },
        data: { appliedBranch: branch, appliedCommit: head, appliedAt: at, appliedBy: actor, updatedAt: at },
      }),
    ]);
    this.log.info({ agentId, branch, commit: head, actor }, "capture: changes applied as a branch");
    return { agentId, branch, commit: head };
  }

  /**
   * Turn capture on or off for a workspace (stored; applies from the next trigger).
   * @throws NotFound (workspace).
   */
  async setEnabled(workspace: string, enabled: boolean): Promise<void> {
    await this.workspaceRow(workspace);
    await this.deps.writer.submit((db) => [
      db.workspace.update({ where: { name: workspace }, data: { captureChanges: enabled } }),
    ]);
  }

  /** Whether capture runs for a workspace, and why not. @throws NotFound (workspace). */
  async settingOf(workspace: string): Promise<CaptureSetting> {
    const ws = await this.workspaceRow(workspace);
    if (!ws.captureChanges) return { enabled: false, active: false, reason: turnedOffReason(workspace) };
    if (ws.endpoint !== null) return { enabled: true, active: false, reason: REMOTE_REASON };
    const git = await gitLayout(ws.root);
    if (git === "none") return { enabled: true, active: false, reason: NOT_GIT_REASON };
    if (git !== "top")
      return {
        enabled: true,
        active: true,
        reason: `runs in place are not captured: the workspace root is below the top of the git repository ${git.inside} (isolated runs are)`,
      };
    return { enabled: true, active: true, reason: null };
  }

  /**
   * Retention: refs of runs that finished before `cutoff` are deleted from their repositories
   * (`update-ref -d`), their captures marked EXPIRED and their file rows deleted. A repository that
   * is gone has nothing to delete; any other git failure leaves the run for the next sweep.
   * @returns how many captures expired.
   */
  async prune(cutoff: Date): Promise<number> {
    const rows = await this.deps.db.runCapture.findMany({
      where: { state: "CAPTURED" },
    });
    if (rows.length === 0) return 0;
    const agents = new Map<string, Agent>();
    for (const chunk of chunks(
      rows.map((r) => r.agentId),
      500,
    ))
      for (const a of await this.deps.db.agent.findMany({ where: { id: { in: chunk } } }))
        agents.set(a.id, a);
    let n = 0;
    for (const row of rows) {
      if (this.stopped) break;
      const a = agents.get(row.agentId);
      const ended = a ? (a.finishedAt ?? (isTerminal(a.status) ? a.updatedAt : null)) : row.updatedAt;
      if (ended === null || ended >= cutoff) continue;
      if (row.gitDir !== null) {
        try {
          await runGit(["update-ref", "--stdin", "-z"], {
            gitDir: row.gitDir,
            cwd: row.gitDir,
            timeoutMs: 10_000,
            maxOutputBytes: 64 * 1024,
            input: `delete ${headRef(row.agentId)}\0\0delete ${baseRef(row.agentId)}\0\0`,
          });
        } catch (err) {
          const gone =
            !fs.existsSync(row.gitDir) || (err instanceof GitError && err.code === "not_a_repository");
          if (!gone) {
            this.log.warn(
              { err, agentId: row.agentId },
              "capture: could not remove a run's refs; retrying next sweep",
            );
            continue;
          }
        }
      }
      const days = this.deps.retentionDays;
      await this.store(
        row,
        {
          state: "EXPIRED",
          reason: `removed by retention (--retention-days ${days})`,
          fileCount: 0,
          additions: 0,
          deletions: 0,
        },
        [],
      );
      n++;
    }
    return n;
  }

  // ----------------------------------------------------------------------------------------------
  // Following the fleet
  // ----------------------------------------------------------------------------------------------

  private async follow(sub: BusSubscription): Promise<void> {
    for await (const item of sub) {
      if (this.stopped) break;
      try {
        if (item.type === "overflow") {
          this.log.warn({ dropped: item.dropped }, "capture fell behind the bus: reconciling");
          await this.reconcile();
          continue;
        }
        this.handle(item.event);
      } catch (err) {
        this.log.error({ err }, "capture: handling a fleet event failed");
      }
    }
  }

  private handle(e: FleetEvent): void {
    switch (e.kind) {
      case "agent_spawned":
        this.fire(e.agentId, "START", null, true);
        break;
      case "agent_discovered":
        if (!isTerminal(e.payload.status)) this.fire(e.agentId, "START", null);
        break;
      case "turn_completed":
        this.fire(e.agentId, "TURN_END", e.payload.turnIndex);
        break;
      case "agent_finished":
        this.fire(e.agentId, "RUN_END", null);
        break;
      case "status_changed":
        if (isTerminal(e.payload.to)) this.fire(e.agentId, "STOPPED", null);
        break;
      default:
        break;
    }
  }

  /** Live runs without a row get their START; rows left unfinished by runs that ended get STOPPED. */
  private async reconcile(): Promise<void> {
    try {
      for (const ws of this.deps.fleet.registry.list()) {
        const live = this.deps.fleet.state.agentsOf(ws.name).filter((a) => !isTerminal(a.status));
        if (live.length === 0) continue;
        const known = new Set(
          (
            await this.deps.db.runCapture.findMany({
              where: { agentId: { in: live.map((a) => a.id) } },
              select: { agentId: true },
            })
          ).map((r) => r.agentId),
        );
        for (const a of live) if (!known.has(a.id)) this.fire(a.id, "START", null);
      }
      // Only rows without a verdict on their end: one whose final snapshot was missed carries its
      // reason and is not tried again at every start (that set only grows).
      const open = await this.deps.db.runCapture.findMany({
        where: { state: { in: ["PENDING", "CAPTURED"] }, final: false, reason: null },
        select: { agentId: true },
      });
      for (const chunk of chunks(
        open.map((r) => r.agentId),
        500,
      )) {
        const ended = await this.deps.db.agent.findMany({
          where: { id: { in: chunk }, status: { in: ["killed", "done", "failed", "crashed"] } },
          select: { id: true },
        });
        for (const a of ended) this.fire(a.id, "STOPPED", null);
      }
    } catch (err) {
      this.log.error({ err }, "capture: reconciling with the fleet failed");
    }
  }

  /** {@link request} without waiting (errors are logged inside). */
  private fire(agentId: string, trigger: SnapshotTrigger, turnIndex: number | null, spawnOnly = false): void {
    if (agentId === "") return;
    void this.request(agentId, trigger, turnIndex, spawnOnly);
  }

  /**
   * Ask for a snapshot of `agentId`: runs now, or — when one is running — merges into the one that
   * runs after it (the latest trigger wins, a final trigger makes it final). Resolves once a snapshot
   * that started after this call has finished (stored or not possible). Never rejects.
   */
  private request(
    agentId: string,
    trigger: SnapshotTrigger,
    turnIndex: number | null,
    spawnOnly = false,
  ): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let w = this.watches.get(agentId);
    if (!w) this.watches.set(agentId, (w = { running: null, next: null }));
    const final = FINAL_TRIGGERS.has(trigger);
    if (w.next) {
      w.next.trigger = trigger;
      if (turnIndex !== null) w.next.turnIndex = turnIndex;
      w.next.final ||= final;
      w.next.spawnOnly &&= spawnOnly;
      return w.next.done;
    }
    let resolve: () => void = () => {};
    const done = new Promise<void>((r) => (resolve = r));
    w.next = { trigger, turnIndex, final, spawnOnly, done, resolve };
    if (!w.running) w.running = this.drain(agentId, w);
    return done;
  }

  private async drain(agentId: string, w: Watch): Promise<void> {
    try {
      while (w.next) {
        const r = w.next;
        w.next = null;
        try {
          if (!this.stopped) await this.capture(agentId, r);
        } catch (err) {
          this.log.error({ err, agentId, trigger: r.trigger }, "capture: a snapshot failed");
        } finally {
          r.resolve();
        }
      }
    } finally {
      w.running = null;
      if (this.watches.get(agentId) === w && !w.next) this.watches.delete(agentId);
    }
  }

  // ----------------------------------------------------------------------------------------------
  // One snapshot
  // ----------------------------------------------------------------------------------------------

  private async capture(agentId: string, r: Request): Promise<void> {
    const { db } = this.deps;
    const agent = await db.agent.findUnique({ where: { id: agentId } });
    if (!agent) return;
    let row = await db.runCapture.findUnique({ where: { agentId } });
    const terminal = isTerminal(agent.status);
    if (!row) {
      // First seen already ended: nothing to watch (the API says "ended before Prospero watched
      // it"). A run caliband reported no working directory for has nothing to snapshot either.
      if (terminal || agent.workingDir === "") return;
      row = await this.createRow(agent);
    }
    // A freshly spawned isolated run: its worktree is its base; the first TurnEnd takes the first
    // snapshot (a snapshot now would only race the agent's first tool calls).
    if (r.spawnOnly && agent.isolated && row.state === "PENDING") return;
    if (row.state === "NOT_CAPTURED" || row.state === "EXPIRED") return;
    if (row.state === "OFF" && row.reason !== turnedOffReason(row.workspace)) return;
    if (row.final && terminal) return;
    const ws = await db.workspace.findUnique({ where: { name: agent.workspace } });
    if (!ws) return;
    if (!ws.captureChanges) {
      if (row.headCommit === null) await this.store(row, { state: "OFF", reason: turnedOffReason(ws.name) });
      return;
    }
    if (ws.endpoint !== null) {
      if (row.headCommit === null) await this.store(row, { state: "OFF", reason: REMOTE_REASON });
      return;
    }
    if (agent.workingDir === "") {
      await this.store(row, { state: "OFF", reason: "caliband reported no working directory for the run" });
      return;
    }
    const dir = agent.workingDir;
    let real: string | null = null;
    try {
      real = fs.realpathSync(dir);
    } catch {
      real = null;
    }
    if (real !== null && !inside(real, realOr(ws.root))) {
      await this.store(row, {
        state: "OFF",
        reason: `the working directory ${dir} is outside the workspace root ${ws.root}`,
        workingDir: dir,
      });
      return;
    }
    const final = r.final;
    let snap: Snapshot;
    let base: string;
    try {
      const [, release] = await this.slots.acquire();
      try {
        if (this.stopped) return;
        snap = await takeSnapshot(real ?? dir, {
          ...this.deps.limits,
          message: `prospero: snapshot of run ${agentId} (${describeTrigger(r.trigger, r.turnIndex)})`,
          now: new Date(this.clock.now()),
          previousHead: row.headCommit,
          ...(this.deps.gitTimeoutMs !== undefined ? { gitTimeoutMs: this.deps.gitTimeoutMs } : {}),
        });
        base =
          row.baseCommit ??
          (agent.isolated ? ((await branchCreation(snap, real ?? dir)) ?? snap.agentHead) : snap.headCommit);
        await runGit(["update-ref", "--stdin", "-z"], {
          gitDir: snap.gitDir,
          cwd: snap.gitDir,
          timeoutMs: 10_000,
          maxOutputBytes: 64 * 1024,
          input: `update ${headRef(agentId)}\0${snap.headCommit}\0\0update ${baseRef(agentId)}\0${base}\0\0`,
        });
      } finally {
        release();
      }
    } catch (err) {
      await this.failed(row, agent, r, err);
      return;
    }
    let files: ChangedFile[];
    try {
      files = await changedFiles(snap.gitDir, base, snap.headCommit);
    } catch (err) {
      await this.failed(row, agent, r, err);
      return;
    }
    const changed = snap.headCommit !== row.headCommit || base !== row.baseCommit;
    const at = new Date(this.clock.now());
    if (!changed && row.state === "CAPTURED") {
      // The same working tree as the latest snapshot: it now also stands for this trigger (and may
      // have become the final word); no new snapshot is counted.
      await this.store(row, {
        trigger: r.trigger,
        turnIndex: r.trigger === "TURN_END" ? (r.turnIndex ?? row.turnIndex) : null,
        final,
        capturedAt: at,
        ...(final ? { reason: null } : {}),
      });
      return;
    }
    await this.store(
      row,
      {
        state: "CAPTURED",
        reason: null,
        gitDir: snap.gitDir,
        workingDir: dir,
        baseCommit: base,
        headCommit: snap.headCommit,
        agentHead: snap.agentHead,
        trigger: r.trigger,
        turnIndex: r.trigger === "TURN_END" ? (r.turnIndex ?? row.turnIndex) : null,
        snapshots: row.snapshots + 1,
        final,
        capturedAt: at,
        fileCount: files.length,
        additions: files.reduce((s, f) => s + (f.additions ?? 0), 0),
        deletions: files.reduce((s, f) => s + (f.deletions ?? 0), 0),
        skippedFiles: snap.skippedFiles,
        skippedBytes: snap.skippedBytes,
        capNote: snap.capNote,
      },
      files,
    );
  }

  /** A snapshot that could not be taken: what it means depends on whether an earlier one exists. */
  private async failed(row: RunCaptureRow, agent: Agent, r: Request, e: unknown): Promise<void> {
    // A git call that failed because the working tree went away under it (caliband removes an
    // isolated worktree when its worker exits: "Unable to read current working directory") is
    // the tree vanishing, not a git failure worth a warning.
    const err =
      e instanceof GitError && agent.workingDir !== "" && !fs.existsSync(path.join(agent.workingDir, ".git"))
        ? new NotCaptured(
            "vanished",
            `the working directory ${agent.workingDir} was removed during the snapshot`,
          )
        : e;
    const hasSnapshot = row.headCommit !== null && row.state === "CAPTURED";
    const where = agent.isolated ? "the worktree" : "the working directory";
    if (err instanceof NotCaptured) {
      // An isolated run's worktree that is no longer the top of its own repository has lost its
      // `.git` (caliband is removing it): gone, like a vanished one.
      const gone =
        err.why === "vanished" ||
        (agent.isolated && err.why === "not_toplevel") ||
        (hasSnapshot && err.why === "not_a_repository");
      if (gone) {
        if (!hasSnapshot) {
          await this.store(row, {
            state: "NOT_CAPTURED",
            reason: `${where} was removed before the first snapshot`,
          });
        } else if (!row.final) {
          // Files change only through tools, and a turn's tools have all finished by its TurnEnd
          // (protocol §3.3): when no tool ran after the turn the latest snapshot was taken at, it is
          // what the run left (the usual ending — a last turn of text while caliband removes the
          // worktree on exit), so it is final.
          if (r.final && (await this.noToolAfter(row))) await this.store(row, { final: true, reason: null });
          else
            await this.store(row, {
              reason: `${where} was removed before the final snapshot; these are the changes ${atWords(row)}`,
            });
        }
        return;
      }
      if (hasSnapshot) {
        this.log.warn(
          { agentId: row.agentId, why: err.message },
          "capture: a later snapshot was not possible",
        );
        return;
      }
      if (err.why === "not_a_repository") await this.store(row, { state: "OFF", reason: NOT_GIT_REASON });
      else if (err.why === "dubious_ownership" || err.why === "not_toplevel")
        await this.store(row, { state: "OFF", reason: err.message });
      else await this.store(row, { state: "NOT_CAPTURED", reason: err.message });
      return;
    }
    const what = err instanceof GitError ? err.message : String((err as Error)?.message ?? err);
    this.log.warn({ err, agentId: row.agentId, trigger: r.trigger }, "capture: snapshot failed");
    if (!r.final) return;
    if (!hasSnapshot)
      await this.store(row, { state: "NOT_CAPTURED", reason: `the snapshot failed: ${what}` });
    else if (!row.final)
      await this.store(row, {
        reason: `the final snapshot failed (${what}); these are the changes ${atWords(row)}`,
      });
  }

  /**
   * Whether no tool started or finished after the turn the latest (TURN_END) snapshot of `row` was
   * taken at: the agent's stored tool events all belong to that turn or earlier ones. False when
   * the snapshot was not a TurnEnd's (nothing to compare with).
   */
  private async noToolAfter(row: RunCaptureRow): Promise<boolean> {
    if (row.trigger !== "TURN_END" || row.turnIndex === null) return false;
    const last = await this.deps.db.event.findFirst({
      where: { agentId: row.agentId, kind: { in: ["tool_started", "tool_finished"] } },
      orderBy: { seq: "desc" },
      select: { payload: true },
    });
    if (!last) return true;
    const turn = (last.payload as { turnIndex?: unknown } | null)?.turnIndex;
    return typeof turn === "number" && turn <= row.turnIndex;
  }

  private async createRow(agent: Agent): Promise<RunCaptureRow> {
    const at = new Date(this.clock.now());
    await this.deps.writer.submit((db) => [
      db.runCapture.upsert({
        where: { agentId: agent.id },
        create: {
          agentId: agent.id,
          workspace: agent.workspace,
          state: "PENDING",
          workingDir: agent.workingDir === "" ? null : agent.workingDir,
          createdAt: at,
          updatedAt: at,
        },
        update: {},
      }),
    ]);
    return (await this.deps.db.runCapture.findUnique({ where: { agentId: agent.id } }))!;
  }

  /**
   * Write `patch` onto `row` (and, when `files` is given, replace its file rows), with a
   * `changes_captured` event in the workspace stream when what a reader sees changed (state,
   * reason, head, final) — all in one transaction.
   */
  private async store(
    row: RunCaptureRow,
    patch: CapturePatch,
    files?: readonly ChangedFile[],
  ): Promise<void> {
    const next: RunCaptureRow = { ...row, ...patch };
    const visible =
      next.state !== row.state ||
      next.reason !== row.reason ||
      next.headCommit !== row.headCommit ||
      next.final !== row.final ||
      files !== undefined;
    const at = new Date(this.clock.now());
    const events: NewEvent[] =
      visible && next.state !== "PENDING"
        ? [
            {
              kind: "changes_captured",
              workspace: row.workspace,
              agentId: row.agentId,
              tsMs: at.getTime(),
              payload: payloadOf(next),
            },
          ]
        : [];
    await this.deps.store.append(events, {
      onFailure: "throw",
      extra: (db) => [
        db.runCapture.update({ where: { agentId: row.agentId }, data: { ...patch, updatedAt: at } }),
        ...(files !== undefined
          ? [
              db.capturedFile.deleteMany({ where: { agentId: row.agentId } }),
              ...(files.length > 0
                ? [
                    db.capturedFile.createMany({
                      data: files.map((f) => ({
                        agentId: row.agentId,
                        workspace: row.workspace,
                        path: f.path,
                        status: f.status,
                        additions: f.additions,
                        deletions: f.deletions,
                      })),
                    }),
                  ]
                : []),
            ]
          : []),
      ],
    });
  }

  // ----------------------------------------------------------------------------------------------
  // Helpers
  // ----------------------------------------------------------------------------------------------

  /** The row of a run with a snapshot. @throws NotFound, InvalidState (no snapshot: the reason). */
  private async capturedRow(agentId: string): Promise<RunCaptureRow> {
    const row = await this.deps.db.runCapture.findUnique({ where: { agentId } });
    if (!row) {
      const agent = await this.deps.db.agent.findUnique({
        where: { id: agentId },
        select: { id: true, status: true },
      });
      if (!agent) throw new NotFound("agent", agentId);
      throw new InvalidState(
        isTerminal(agent.status)
          ? "not captured: the run ended before Prospero watched it"
          : "not captured yet: no snapshot of this run has been taken",
        agent.status,
      );
    }
    if (
      row.state !== "CAPTURED" ||
      row.gitDir === null ||
      row.headCommit === null ||
      row.baseCommit === null
    ) {
      const why =
        row.state === "PENDING"
          ? "no snapshot of this run has been taken yet"
          : (row.reason ?? row.state.toLowerCase());
      throw new InvalidState(`not captured: ${why}`);
    }
    return row;
  }

  private readError(err: unknown, row: RunCaptureRow): unknown {
    if (err instanceof GitError && (err.code === "not_a_repository" || !fs.existsSync(row.gitDir ?? "")))
      return new InvalidState(
        `the repository of this run (${row.gitDir}) is gone or unreadable: ${err.stderr}`,
      );
    if (err instanceof GitError && err.code === "failed")
      return new InvalidState(`the captured commits cannot be read from ${row.gitDir}: ${err.stderr}`);
    return err;
  }

  /** Ids of a workspace's pending runs: CAPTURED, not applied, live or finished in the last 7 days. */
  /** Pending runs of a workspace (see overlapsOf), at most `limit` — the most recently captured. */
  private async pendingRuns(workspace: string, limit?: number): Promise<string[]> {
    const rows = await this.deps.db.runCapture.findMany({
      where: { workspace, state: "CAPTURED", appliedAt: null, fileCount: { gt: 0 } },
      select: { agentId: true },
      orderBy: [{ capturedAt: "desc" }, { agentId: "asc" }],
      ...(limit !== undefined ? { take: limit } : {}),
    });
    if (rows.length === 0) return [];
    const since = new Date(this.clock.now() - OVERLAP_WINDOW_MS);
    const out: string[] = [];
    for (const chunk of chunks(
      rows.map((r) => r.agentId),
      500,
    )) {
      const agents = await this.deps.db.agent.findMany({
        where: { id: { in: chunk } },
        select: { id: true, status: true, finishedAt: true, updatedAt: true },
      });
      for (const a of agents) {
        const ended = a.finishedAt ?? (isTerminal(a.status) ? a.updatedAt : null);
        if (ended === null || ended >= since) out.push(a.id);
      }
    }
    return out.sort();
  }

  private async workspaceRow(name: string) {
    const ws = await this.deps.db.workspace.findUnique({ where: { name } });
    if (!ws || ws.removedAt !== null) throw new NotFound("workspace", name);
    return ws;
  }
}

/** The `changes_captured` payload of a row. */
function payloadOf(r: RunCaptureRow): PayloadOf<"changes_captured"> {
  return {
    state: r.state as Exclude<CaptureState, "PENDING">,
    reason: r.reason,
    baseCommit: r.baseCommit,
    headCommit: r.headCommit,
    trigger: r.trigger as SnapshotTrigger | null,
    turnIndex: r.turnIndex,
    files: r.fileCount,
    additions: r.additions,
    deletions: r.deletions,
    skippedFiles: r.skippedFiles,
    final: r.final,
  };
}

/** "at the end of turn 3" / "of its start" / … for the latest snapshot of `row`. */
function atWords(row: RunCaptureRow): string {
  if (row.trigger === "TURN_END" && row.turnIndex !== null) return `at the end of turn ${row.turnIndex}`;
  if (row.trigger === "START") return "at its start";
  if (row.trigger === "KILL") return "right before it was killed";
  return "of the latest snapshot";
}

function describeTrigger(t: SnapshotTrigger, turnIndex: number | null): string {
  if (t === "TURN_END") return turnIndex === null ? "end of a turn" : `end of turn ${turnIndex}`;
  return { START: "start", RUN_END: "end of the run", KILL: "before kill", STOPPED: "run stopped" }[t];
}

/**
 * The commit an isolated run's `caliban/<uuid32>` branch was created from (caliband creates it off
 * the source's HEAD, protocol §5.5): the new value of the branch's oldest reflog entry. Null when the
 * working tree is not on such a branch or it has no reflog.
 */
async function branchCreation(snap: Snapshot, dir: string): Promise<string | null> {
  const opts = { cwd: dir, timeoutMs: 10_000, maxOutputBytes: 8 * 1024 * 1024 };
  try {
    const ref = (await runGit(["symbolic-ref", "-q", "HEAD"], opts)).trim();
    if (!/^refs\/heads\/caliban\/[0-9a-f]{32}$/.test(ref)) return null;
    const log = path.join(snap.gitDir, "logs", ref);
    const first = fs.readFileSync(log, "utf8").split("\n", 1)[0] ?? "";
    const m = /^[0-9a-f]+ ([0-9a-f]{40,64}) /.exec(first);
    if (!m) return null;
    await runGit(["cat-file", "-e", `${m[1]}^{commit}`], opts);
    return m[1]!;
  } catch {
    return null;
  }
}

/**
 * The worktree (or main checkout) whose HEAD is `ref` while `ref` does not exist (an unborn branch),
 * or null. Reads `<gitDir>/HEAD` and `<gitDir>/worktrees/<name>/HEAD`.
 */
function unbornHeadOf(gitDir: string, ref: string): string | null {
  const heads: [string, string][] = [[path.join(gitDir, "HEAD"), "the main checkout"]];
  try {
    for (const name of fs.readdirSync(path.join(gitDir, "worktrees")))
      heads.push([path.join(gitDir, "worktrees", name, "HEAD"), `worktree ${name}`]);
  } catch {
    // no linked worktrees
  }
  for (const [file, where] of heads) {
    let content: string;
    try {
      content = fs.readFileSync(file, "utf8").trim();
    } catch {
      continue;
    }
    if (content === `ref: ${ref}` && !refExists(gitDir, ref)) return where;
  }
  return null;
}

function refExists(gitDir: string, ref: string): boolean {
  if (fs.existsSync(path.join(gitDir, ref))) return true;
  try {
    return fs
      .readFileSync(path.join(gitDir, "packed-refs"), "utf8")
      .split("\n")
      .some((l) => l.endsWith(` ${ref}`));
  } catch {
    return false;
  }
}

/** Whether `root` is in a git repository or holds checkouts (sources, protocol §2.6). */
/**
 * How a workspace root holds git: `top` (the root is the top of a repository, or a directory of
 * checkouts — caliband's sources, §2.6), `{inside}` (a directory below the top of a bigger
 * repository: runs in place there are refused by takeSnapshot), or `none`.
 */
async function gitLayout(root: string): Promise<"top" | "none" | { inside: string }> {
  try {
    const top = (
      await runGit(["rev-parse", "--show-toplevel"], {
        cwd: root,
        timeoutMs: 10_000,
        maxOutputBytes: 64 * 1024,
      })
    ).trim();
    return realOr(top) === realOr(root) ? "top" : { inside: top };
  } catch {
    try {
      const sources = fs
        .readdirSync(root, { withFileTypes: true })
        .some((e) => e.isDirectory() && fs.existsSync(path.join(root, e.name, ".git")));
      return sources ? "top" : "none";
    } catch {
      return "none";
    }
  }
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function inside(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}
