/**
 * Change capture's vocabulary (issue 16): what a snapshot of a run's working tree records, the
 * caps on what one snapshot may add, and the shapes the API reads (files, patches, overlaps).
 * Stored in RunCapture / CapturedFile (prisma/schema.prisma); refs under
 * `refs/prospero/runs/<agentId>/` of the run's repository (docs/changes.md).
 */
import type { CapturedFile, RunCapture } from "../generated/prisma/client.js";

/** RunCapture.state values. */
export const CAPTURE_STATES = ["PENDING", "CAPTURED", "NOT_CAPTURED", "OFF", "EXPIRED"] as const;
/** One capture state (see the RunCapture model). */
export type CaptureState = (typeof CAPTURE_STATES)[number];

/** What took a snapshot (RunCapture.trigger). */
export const SNAPSHOT_TRIGGERS = ["START", "TURN_END", "RUN_END", "KILL", "STOPPED"] as const;
/** One snapshot trigger. */
export type SnapshotTrigger = (typeof SNAPSHOT_TRIGGERS)[number];

/** CapturedFile.status values (git name-status without renames: A, M, D, T). */
export const FILE_CHANGE_STATUSES = ["ADDED", "MODIFIED", "DELETED", "TYPE_CHANGED"] as const;
/** How one file changed base..head. */
export type FileChangeStatus = (typeof FILE_CHANGE_STATUSES)[number];

/** Caps on what one snapshot may add (config `captureMax*`). */
export interface CaptureLimits {
  /** New or changed files per snapshot; the rest are left out (said in `capNote`). */
  maxFiles: number;
  /** A file larger than this is left out, bytes. */
  maxFileBytes: number;
  /** Bytes of new or changed files per snapshot, bytes. */
  maxBytes: number;
}

/** The ref holding a run's latest snapshot commit. */
export function headRef(agentId: string): string {
  return `refs/prospero/runs/${agentId}/head`;
}

/** The ref holding the commit a run started from (kept so it is never garbage-collected). */
export function baseRef(agentId: string): string {
  return `refs/prospero/runs/${agentId}/base`;
}

/** A stored RunCapture row. */
export type RunCaptureRow = RunCapture;
/** A stored CapturedFile row. */
export type CapturedFileRow = CapturedFile;

/** Per-file text of a patch page is cut at this many bytes (`truncated` true). */
export const PATCH_FILE_MAX_BYTES = 256 * 1024;
/** A patch page stops adding files once its text reaches this many bytes. */
export const PATCH_PAGE_MAX_BYTES = 1024 * 1024;
/** Runs finished longer ago than this take no part in overlap warnings, ms (7 days). */
export const OVERLAP_WINDOW_MS = 7 * 86_400_000;
/** At most this many shared paths are listed per overlap (the count is exact). */
export const OVERLAP_MAX_PATHS = 50;
/** A run's overlaps list at most this many other runs (those sharing most files). */
export const OVERLAP_MAX_RUNS = 20;
/** A workspace's overlapping pairs are computed among at most this many pending runs (the most recently captured). */
export const OVERLAP_MAX_PAIR_RUNS = 200;
/** A workspace lists at most this many overlapping pairs (those sharing most files). */
export const OVERLAP_MAX_PAIRS = 100;

/** One file's unified diff, base..head. */
export interface FilePatch {
  path: string;
  status: FileChangeStatus;
  /** Lines added / deleted; null for a binary file. */
  additions: number | null;
  deletions: number | null;
  binary: boolean;
  /** The `git diff` text of this file (headers included), or null (binary, too large: see omitted). */
  text: string | null;
  /** `text` was cut at {@link PATCH_FILE_MAX_BYTES}. */
  truncated: boolean;
  /** Why `text` is null ("binary file", "2.0 GiB: too large to show"), else null. */
  omitted: string | null;
}

/** Another run of the same workspace whose latest snapshot changed some of the same paths. */
export interface ChangeOverlap {
  agentId: string;
  /** The shared paths, path order, at most {@link OVERLAP_MAX_PATHS}. */
  files: string[];
  /** How many paths are shared (exact). */
  fileCount: number;
}

/** Two runs of a workspace whose snapshots changed the same paths. */
export interface ChangeOverlapPair {
  a: string;
  b: string;
  files: string[];
  fileCount: number;
}

/** What `apply` created. */
export interface ApplyResult {
  agentId: string;
  /** The branch name (without `refs/heads/`). */
  branch: string;
  /** The commit it points at (the run's head commit). */
  commit: string;
}

/** Whether capture runs for a workspace. */
export interface CaptureSetting {
  /** The workspace's setting (default on). */
  enabled: boolean;
  /** Enabled and possible (a git repository on this host). */
  active: boolean;
  /** Why not active (turned off; not a git repository), else null. */
  reason: string | null;
}

/**
 * Why a finished run without a capture row has no snapshot: it ended before change capture
 * followed it (`RunChanges.reason` and `RunReport.changesReason`).
 */
export const NEVER_WATCHED_REASON = "the run ended before Prospero watched it";
