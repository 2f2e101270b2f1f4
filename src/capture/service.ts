/**
 * CaptureService (issue 16 items 1–3): follows the runs of the fleet and snapshots each run's
 * working tree into its repository's object store under `refs/prospero/runs/<agentId>/` at the run's
 * first sight (in place: START), each TurnEnd, its RunEnd, right before Prospero kills it and when it
 * is seen terminal — without touching the agent's index, working tree, branch or HEAD. Reads
 * (files, patch, overlaps) and `apply` (a branch from the captured commit) work after caliband has
 * deleted the worktree. docs/changes.md says exactly what is written into the user's repository.
 *
 * SKELETON (lead): the engine helper fills the bodies; the signatures are final.
 */
import type { PrismaClient } from "../generated/prisma/client.js";
import type { StoreWriter } from "../store/writer.js";
import type { EventStore } from "../store/events.js";
import type { EventBus } from "../bus/bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { Logger } from "../log.js";
import { systemClock, type Clock } from "../queue/clock.js";
import type {
  ApplyResult,
  CaptureLimits,
  CaptureSetting,
  CapturedFileRow,
  ChangeOverlap,
  ChangeOverlapPair,
  FilePatch,
  RunCaptureRow,
  SnapshotTrigger,
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
}

/** Change capture of every run of the fleet. */
export class CaptureService {
  private readonly clock: Clock;

  constructor(private readonly deps: CaptureDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * Follow the bus and reconcile from the fleet's state: live runs without a capture row get one
   * (and their START / first snapshot); registers the fleet's before-kill hook. Idempotent.
   */
  async start(): Promise<void> {
    void this.deps;
    void this.clock;
  }

  /** Stop following; waits for snapshots in progress (each bounded by git timeouts). Idempotent. */
  async stop(): Promise<void> {}

  /**
   * Take a snapshot of `agentId`'s working tree now (coalesced with one in progress) and store it.
   * @returns the capture row after it, or null for a run never seen.
   */
  async snapshot(agentId: string, trigger: SnapshotTrigger): Promise<RunCaptureRow | null> {
    void agentId;
    void trigger;
    return null;
  }

  /** The KILL snapshot, taken right before Prospero kills a run (Lifecycle's hook). Never throws. */
  async beforeKill(agentId: string): Promise<void> {
    void agentId;
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
   * PATCH_FILE_MAX_BYTES (`truncated`), the page stops once PATCH_PAGE_MAX_BYTES is reached; a binary
   * or too large file has text null and `omitted` says why.
   * @throws InvalidState when the run has no snapshot (the reason), NotFound.
   */
  async patch(agentId: string, afterPath: string | null, limit: number): Promise<FilePatch[]> {
    void agentId;
    void afterPath;
    void limit;
    return [];
  }

  /** Overlaps of this run's latest snapshot with other pending runs of its workspace (see types.ts). */
  async overlapsOf(agentId: string): Promise<ChangeOverlap[]> {
    void agentId;
    return [];
  }

  /** Every overlapping pair of pending runs in a workspace. */
  async workspaceOverlaps(workspace: string): Promise<ChangeOverlapPair[]> {
    void workspace;
    return [];
  }

  /**
   * Create `refs/heads/<branch>` at the run's head commit in its repository (never checked out,
   * never moved) and record it (appliedBranch, …).
   * @throws ValidationFailed (["input", "branch"]: refused by `git check-ref-format --branch`, a
   *   leading '-', over 200 characters), Conflict (the branch exists, or is a worktree's unborn
   *   HEAD), InvalidState (not CAPTURED: the reason), NotFound (run).
   */
  async apply(agentId: string, branch: string, actor: string): Promise<ApplyResult> {
    void agentId;
    void branch;
    void actor;
    throw new Error("not implemented");
  }

  /**
   * Turn capture on or off for a workspace (stored; applies from the next trigger).
   * @throws NotFound (workspace).
   */
  async setEnabled(workspace: string, enabled: boolean): Promise<void> {
    void workspace;
    void enabled;
  }

  /** Whether capture runs for a workspace, and why not. @throws NotFound (workspace). */
  async settingOf(workspace: string): Promise<CaptureSetting> {
    void workspace;
    return { enabled: true, active: true, reason: null };
  }

  /**
   * Retention: refs of runs that finished before `cutoff` are deleted from their repositories and
   * their captures marked EXPIRED.
   * @returns how many captures expired.
   */
  async prune(cutoff: Date): Promise<number> {
    void cutoff;
    return 0;
  }
}
