/**
 * GraphQL types of what a run changed in its repository (issue 16 items 2–3): `RunChanges`
 * (`Agent.changes`: the capture's state, base and head commits, its files and patch as Relay
 * connections, the overlap warning and what `applyChanges` made of it), `ChangedFile`,
 * `FilePatch`, `ChangeOverlap`, `AppliedChanges`, and on `Workspace` the capture setting
 * (`changeCapture`) and every overlapping pair (`changeOverlaps`). Everything is read through the
 * capture service (`ctx.capture`, src/capture/service.ts); the mutations are in
 * src/resolvers/changes.ts.
 *
 * Scope: these hang off `Agent` and `Workspace`, whose type-level rules already keep a token
 * limited to workspaces away from the others'; each field repeats the rule (viewer, within the
 * run's workspace), and overlaps list only runs the token may see.
 *
 * Cursors of `files` and `patch` are opaque: base64url of `changes:v1:<agentId>:<path>` — a
 * position after a path of one run (both connections are in path order, so a cursor of one is a
 * position in the other). A cursor of another run or of another shape is BAD_USER_INPUT.
 */
import { isTerminal } from "../caliband/wire.js";
import { visibleWorkspaces } from "../auth/roles.js";
import { headRef, type CapturedFileRow, type FilePatch, type RunCaptureRow } from "../capture/types.js";
import { InvalidState, ValidationFailed } from "../errors.js";
import { builder } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import {
  ChangeCaptureStateEnum,
  FileChangeStatusEnum,
  SnapshotTriggerEnum,
  captureStateValue,
  fileChangeValue,
  snapshotTriggerValue,
} from "./enums.js";
import { z } from "zod";
import { NEVER_WATCHED_REASON } from "../capture/types.js";

/** Why a finished run without a capture row has no snapshot (src/capture/types.ts). */
export const NEVER_WATCHED = NEVER_WATCHED_REASON;

/** Page bounds of `RunChanges.files`: `first` 0–500, default 100 (0 = an empty page with its pageInfo). */
export const FILES_PAGE = { default: 100, max: 500 } as const;
/** Page bounds of `RunChanges.patch`, in files: `first` 0–100, default 20 (a page also stops at 1 MiB). */
export const PATCH_PAGE = { default: 20, max: 100 } as const;

/**
 * What `RunChanges` resolves from: the run (id, workspace, whether it ended) and its capture row
 * (null: never watched).
 */
export interface RunChangesView {
  agentId: string;
  workspace: string;
  /** The run is in a terminal status (decides NOT_CAPTURED vs PENDING for a run without a row). */
  terminal: boolean;
  row: RunCaptureRow | null;
}

/** The {@link RunChangesView} of a run row (its capture row read through the capture service). */
export async function runChangesOf(
  ctx: GraphQLContext,
  agent: { id: string; workspace: string; status: string },
): Promise<RunChangesView> {
  return {
    agentId: agent.id,
    workspace: agent.workspace,
    terminal: isTerminal(agent.status),
    row: await ctx.capture.captureOf(agent.id),
  };
}

/** The state a view reads as: the row's, else NOT_CAPTURED for a run that ended, PENDING for a live one. */
export function changesState(v: RunChangesView): string {
  if (v.row) return v.row.state;
  return v.terminal ? "NOT_CAPTURED" : "PENDING";
}

/** The reason a view reads as: the row's, else {@link NEVER_WATCHED} for a run that ended. */
export function changesReason(v: RunChangesView): string | null {
  if (v.row) return v.row.reason;
  return v.terminal ? NEVER_WATCHED : null;
}

// Cursors -----------------------------------------------------------------------------------------

const CURSOR = /^changes:v1:([0-9a-f]{12}):([\s\S]+)$/;

/** The opaque cursor of `path` in run `agentId`'s files or patch. */
export function changesCursor(agentId: string, path: string): string {
  return Buffer.from(`changes:v1:${agentId}:${path}`, "utf8").toString("base64url");
}

/**
 * The path an `after` cursor of run `agentId` stands for (null when none was given).
 * @throws ValidationFailed (["after"]) for a cursor of another run or of another shape.
 */
export function pathOfCursor(agentId: string, cursor: string | null | undefined): string | null {
  if (cursor == null) return null;
  const m = CURSOR.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m || m[1] !== agentId || changesCursor(agentId, m[2]!) !== cursor) {
    throw new ValidationFailed([{ path: ["after"], message: "not a cursor of this run's changes" }]);
  }
  return m[2]!;
}

/** zod rule of a page's arguments: `first` a whole number in 0..max. */
const pageArgs = (max: number) =>
  z.looseObject({
    first: z.number().int().min(0, "must be 0 or more").max(max, `must be at most ${max}`).nullish(),
  });

// Types -------------------------------------------------------------------------------------------

/** GraphQL `ChangedFile`: one file of a run's latest snapshot (base..head). */
export const ChangedFileRef = builder.objectRef<CapturedFileRow>("ChangedFile").implement({
  description: "One file a run changed: its latest snapshot against the commit the run started from.",
  fields: (t) => ({
    path: t.exposeString("path", { description: "Path relative to the repository root." }),
    status: t.field({
      type: FileChangeStatusEnum,
      description: "How it changed.",
      resolve: (f) => fileChangeValue(f.status),
    }),
    additions: t.exposeInt("additions", {
      nullable: true,
      description: "Lines added; null for a binary file.",
    }),
    deletions: t.exposeInt("deletions", {
      nullable: true,
      description: "Lines deleted; null for a binary file.",
    }),
    binary: t.boolean({
      description: "git sees a binary file (no line counts, no text patch).",
      resolve: (f) => f.additions === null && f.deletions === null,
    }),
  }),
});

/** GraphQL `FilePatch`: one file's unified diff. */
export const FilePatchRef = builder.objectRef<FilePatch>("FilePatch").implement({
  description:
    "One file's unified diff (`git diff` of the run's base and head, headers included), bounded: at most 256 KiB of text per file.",
  fields: (t) => ({
    path: t.exposeString("path", { description: "Path relative to the repository root." }),
    status: t.field({
      type: FileChangeStatusEnum,
      description: "How it changed.",
      resolve: (p) => fileChangeValue(p.status),
    }),
    additions: t.exposeInt("additions", {
      nullable: true,
      description: "Lines added; null for a binary file.",
    }),
    deletions: t.exposeInt("deletions", {
      nullable: true,
      description: "Lines deleted; null for a binary file.",
    }),
    binary: t.exposeBoolean("binary", { description: "git sees a binary file (text is null)." }),
    text: t.exposeString("text", {
      nullable: true,
      description:
        "The diff text (file headers and hunks), as git wrote it: clients escape what they show. Null for a binary or too large file (see omitted).",
    }),
    truncated: t.exposeBoolean("truncated", {
      description: "`text` was cut at 256 KiB: apply the changes as a branch to get all of it.",
    }),
    omitted: t.exposeString("omitted", {
      nullable: true,
      description: 'Why text is null ("binary file", "2.0 GiB: too large to show"); null when text is given.',
    }),
  }),
});

/** One edge of a changes connection. */
interface ChangesEdge<T> {
  cursor: string;
  node: T;
}

/** A resolved page of `files` or `patch`. */
export interface ChangesPage<T> {
  edges: ChangesEdge<T>[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

const pageInfoOf = <T>(p: ChangesPage<T>) => ({
  hasNextPage: p.hasNextPage,
  hasPreviousPage: p.hasPreviousPage,
  startCursor: p.edges[0]?.cursor ?? null,
  endCursor: p.edges.at(-1)?.cursor ?? null,
});

const ChangedFileEdgeRef = builder.objectRef<ChangesEdge<CapturedFileRow>>("ChangedFileEdge").implement({
  description: "A changed file and its cursor.",
  fields: (t) => ({
    cursor: t.exposeString("cursor", { description: "Opaque cursor of this edge; pass as after." }),
    node: t.field({ type: ChangedFileRef, description: "The file.", resolve: (e) => e.node }),
  }),
});

const ChangedFileConnectionRef = builder
  .objectRef<ChangesPage<CapturedFileRow>>("ChangedFileConnection")
  .implement({
    description: "A page of the files a run changed, in path order.",
    fields: (t) => ({
      edges: t.field({
        type: [ChangedFileEdgeRef],
        description: "Files with their cursors.",
        resolve: (p) => p.edges,
      }),
      nodes: t.field({
        type: [ChangedFileRef],
        description: "The files.",
        resolve: (p) => p.edges.map((e) => e.node),
      }),
      pageInfo: t.field({
        type: builder.pageInfoRef(),
        description: "Pagination state.",
        resolve: (p) => pageInfoOf(p),
      }),
      totalCount: t.exposeInt("totalCount", { description: "Files of the latest snapshot, on every page." }),
    }),
  });

const FilePatchEdgeRef = builder.objectRef<ChangesEdge<FilePatch>>("FilePatchEdge").implement({
  description: "A file's patch and its cursor.",
  fields: (t) => ({
    cursor: t.exposeString("cursor", { description: "Opaque cursor of this edge; pass as after." }),
    node: t.field({ type: FilePatchRef, description: "The file's patch.", resolve: (e) => e.node }),
  }),
});

const FilePatchConnectionRef = builder.objectRef<ChangesPage<FilePatch>>("FilePatchConnection").implement({
  description: "A page of a run's patch, one file per edge, in path order.",
  fields: (t) => ({
    edges: t.field({
      type: [FilePatchEdgeRef],
      description: "Patches with their cursors.",
      resolve: (p) => p.edges,
    }),
    nodes: t.field({
      type: [FilePatchRef],
      description: "The patches.",
      resolve: (p) => p.edges.map((e) => e.node),
    }),
    pageInfo: t.field({
      type: builder.pageInfoRef(),
      description: "Pagination state.",
      resolve: (p) => pageInfoOf(p),
    }),
    totalCount: t.exposeInt("totalCount", { description: "Files of the latest snapshot, on every page." }),
  }),
});

/** What `ChangeOverlap` resolves from (the other run already checked visible). */
interface OverlapView {
  agentId: string;
  files: string[];
  fileCount: number;
}

const ChangeOverlapRef = builder.objectRef<OverlapView>("ChangeOverlap").implement({
  description:
    "Another run of the same workspace — active or captured, not applied, finished within the last 7 days — whose latest snapshot changed some of the same files: merging both needs care.",
  fields: (t) => ({
    agent: t.prismaField({
      type: "Agent",
      description: "The other run.",
      resolve: (query, o, _a, ctx) =>
        ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: o.agentId } }),
    }),
    files: t.exposeStringList("files", { description: "The files both changed, path order, at most 50." }),
    fileCount: t.exposeInt("fileCount", { description: "How many files both changed (exact)." }),
  }),
});

/** What `ChangeOverlapPair` resolves from. */
interface OverlapPairView {
  a: string;
  b: string;
  files: string[];
  fileCount: number;
}

const ChangeOverlapPairRef = builder.objectRef<OverlapPairView>("ChangeOverlapPair").implement({
  description:
    "Two runs of a workspace whose latest snapshots changed the same files (both active or captured and not applied, each finished within the last 7 days).",
  fields: (t) => ({
    a: t.prismaField({
      type: "Agent",
      description: "One run of the pair.",
      resolve: (query, p, _a, ctx) => ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: p.a } }),
    }),
    b: t.prismaField({
      type: "Agent",
      description: "The other run.",
      resolve: (query, p, _a, ctx) => ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: p.b } }),
    }),
    files: t.exposeStringList("files", { description: "The files both changed, path order, at most 50." }),
    fileCount: t.exposeInt("fileCount", { description: "How many files both changed (exact)." }),
  }),
});

/** What `applyChanges` made of a run's changes. */
interface AppliedView {
  branch: string;
  commit: string;
  at: Date;
  by: string;
}

const AppliedChangesRef = builder.objectRef<AppliedView>("AppliedChanges").implement({
  description: "The branch `applyChanges` created from the run's captured commit.",
  fields: (t) => ({
    branch: t.exposeString("branch", { description: "The branch name (without refs/heads/)." }),
    commit: t.exposeString("commit", { description: "The commit it was created at (40 hex)." }),
    at: t.field({ type: "DateTime", description: "When.", resolve: (a) => a.at }),
    by: t.exposeString("by", { description: "Name of the token that applied it." }),
  }),
});

/** The ids among `ids` of runs the token may see (the overlap rule is one workspace, checked anyway). */
async function visibleAgents(ctx: GraphQLContext, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const only = visibleWorkspaces(ctx.auth);
  const rows = await ctx.prisma.agent.findMany({
    where: { id: { in: [...new Set(ids)] }, ...(only === null ? {} : { workspace: { in: [...only] } }) },
    select: { id: true },
  });
  return new Set(rows.map((r) => r.id));
}

/** GraphQL `RunChanges`. */
export const RunChangesRef = builder.objectRef<RunChangesView>("RunChanges").implement({
  description:
    "What a run changed in its repository: its latest snapshot (taken at each end of turn, at its end, and right before a kill, into the repository's object store under refs/prospero/runs/<agentId>/, so it outlives the run's worktree) against the commit it started from. `state` says whether there is one, `reason` why not. docs/changes.md says exactly what is written into the repository.",
  fields: (t) => ({
    state: t.field({
      type: ChangeCaptureStateEnum,
      description:
        "Whether the changes are captured. A run Prospero never watched reads NOT_CAPTURED when it has ended (reason: the run ended before Prospero watched it) and PENDING while it is live.",
      resolve: (v) => captureStateValue(changesState(v)),
    }),
    reason: t.string({
      nullable: true,
      description:
        "Why not captured (NOT_CAPTURED, OFF, EXPIRED), or a note on a captured one (e.g. the worktree was removed before the final snapshot); null when none.",
      resolve: (v) => changesReason(v),
    }),
    baseCommit: t.string({
      nullable: true,
      description: "The commit the run started from (40 hex); null when unknown.",
      resolve: (v) => v.row?.baseCommit ?? null,
    }),
    headCommit: t.string({
      nullable: true,
      description:
        "The latest snapshot's commit (40 hex; the agent's own commits are its history); null when none was taken.",
      resolve: (v) => v.row?.headCommit ?? null,
    }),
    ref: t.string({
      nullable: true,
      description:
        "The ref holding the latest snapshot in the run's repository (refs/prospero/runs/<agentId>/head), e.g. for `git diff <baseCommit> <ref>`; null when there is none (no snapshot, or removed by retention).",
      resolve: (v) =>
        v.row?.headCommit && v.row.state !== "EXPIRED" && v.row.state !== "NOT_CAPTURED"
          ? headRef(v.agentId)
          : null,
    }),
    trigger: t.field({
      type: SnapshotTriggerEnum,
      nullable: true,
      description: "What took the latest snapshot; null when none was taken.",
      resolve: (v) => (v.row?.trigger ? snapshotTriggerValue(v.row.trigger) : null),
    }),
    turnIndex: t.int({
      nullable: true,
      description: "The turn (TurnEnd index) of the latest snapshot when a TurnEnd took it; null otherwise.",
      resolve: (v) => v.row?.turnIndex ?? null,
    }),
    snapshots: t.int({
      description: "Snapshots taken so far (one per change of the working tree's state).",
      resolve: (v) => v.row?.snapshots ?? 0,
    }),
    final: t.boolean({
      description: "The latest snapshot was taken at or after the run's end (these are all its changes).",
      resolve: (v) => v.row?.final ?? false,
    }),
    capturedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the latest snapshot was taken; null when none was.",
      resolve: (v) => v.row?.capturedAt ?? null,
    }),
    fileCount: t.int({ description: "Files changed, base..head.", resolve: (v) => v.row?.fileCount ?? 0 }),
    additions: t.int({ description: "Lines added, base..head.", resolve: (v) => v.row?.additions ?? 0 }),
    deletions: t.int({ description: "Lines deleted, base..head.", resolve: (v) => v.row?.deletions ?? 0 }),
    skippedFiles: t.int({
      description:
        "Files of the working tree the size caps left out of the latest snapshot (0 = none; see capNote).",
      resolve: (v) => v.row?.skippedFiles ?? 0,
    }),
    skippedBytes: t.float({
      description: "Their size, bytes.",
      resolve: (v) => v.row?.skippedBytes ?? 0,
    }),
    capNote: t.string({
      nullable: true,
      description:
        'What the caps left out, in words ("big.bin (2.0 GiB) not captured: over 10 MiB (--capture-max-file-bytes)"); null when nothing was.',
      resolve: (v) => v.row?.capNote ?? null,
    }),
    files: t.field({
      type: ChangedFileConnectionRef,
      nullable: true,
      description: `The files of the latest snapshot in path order, ${FILES_PAGE.default} a page by default (first: 0–${FILES_PAGE.max}); empty when nothing is captured. Null (with an error) for a bad argument.`,
      args: {
        first: t.arg.int({
          required: false,
          description: `At most this many files (0–${FILES_PAGE.max}, default ${FILES_PAGE.default}).`,
        }),
        after: t.arg.string({ required: false, description: "Return files after this cursor." }),
      },
      validate: pageArgs(FILES_PAGE.max),
      resolve: async (v, args, ctx) => {
        const after = pathOfCursor(v.agentId, args.after);
        const limit = args.first ?? FILES_PAGE.default;
        const rows = limit === 0 ? [] : await ctx.capture.files(v.agentId, after, limit + 1);
        const more =
          limit === 0 ? (await ctx.capture.files(v.agentId, after, 1)).length > 0 : rows.length > limit;
        const page = rows.slice(0, limit);
        return {
          edges: page.map((f) => ({ cursor: changesCursor(v.agentId, f.path), node: f })),
          hasNextPage: more,
          hasPreviousPage: after !== null,
          totalCount: v.row?.fileCount ?? 0,
        };
      },
    }),
    patch: t.field({
      type: FilePatchConnectionRef,
      nullable: true,
      description: `The unified diff, one file per edge in path order: ${PATCH_PAGE.default} files a page by default (first: 0–${PATCH_PAGE.max}); a page also ends once its text reaches 1 MiB, and each file's text is cut at 256 KiB (truncated). Page on with after until hasNextPage is false. Null with an INVALID_STATE error when the run has no snapshot (the error says why), or with BAD_USER_INPUT for a bad argument.`,
      args: {
        first: t.arg.int({
          required: false,
          description: `At most this many files (0–${PATCH_PAGE.max}, default ${PATCH_PAGE.default}).`,
        }),
        after: t.arg.string({ required: false, description: "Return files after this cursor." }),
      },
      validate: pageArgs(PATCH_PAGE.max),
      resolve: async (v, args, ctx) => {
        const after = pathOfCursor(v.agentId, args.after);
        const state = changesState(v);
        if (!v.row || state !== "CAPTURED") {
          const why = changesReason(v);
          throw new InvalidState(
            `the changes of run ${v.agentId} are not captured (${state.toLowerCase().replace("_", " ")})${why ? `: ${why}` : ""}`,
          );
        }
        const limit = args.first ?? PATCH_PAGE.default;
        const patches = limit === 0 ? [] : await ctx.capture.patch(v.agentId, after, limit);
        // The page may end early (its byte bound): is there a file after its last one?
        const last = patches.at(-1)?.path ?? after;
        const more = (await ctx.capture.files(v.agentId, last, 1)).length > 0;
        return {
          edges: patches.map((p) => ({ cursor: changesCursor(v.agentId, p.path), node: p })),
          hasNextPage: more,
          hasPreviousPage: after !== null,
          totalCount: v.row.fileCount,
        };
      },
    }),
    overlaps: t.field({
      type: [ChangeOverlapRef],
      description:
        "Other runs of the same workspace (active or captured, not applied, finished within the last 7 days) whose latest snapshots changed some of the same files — shown on both runs, before anyone merges: at most 20 runs, those sharing most files first. Empty when none, or when this run's changes are applied or not captured.",
      resolve: async (v, _a, ctx) => {
        const list = await ctx.capture.overlapsOf(v.agentId);
        const seen = await visibleAgents(
          ctx,
          list.map((o) => o.agentId),
        );
        return list.filter((o) => seen.has(o.agentId));
      },
    }),
    applied: t.field({
      type: AppliedChangesRef,
      nullable: true,
      description: "The branch applyChanges created from these changes; null while none was.",
      resolve: (v) =>
        v.row?.appliedBranch && v.row.appliedCommit && v.row.appliedAt
          ? {
              branch: v.row.appliedBranch,
              commit: v.row.appliedCommit,
              at: v.row.appliedAt,
              by: v.row.appliedBy ?? "",
            }
          : null,
    }),
  }),
});

/** GraphQL `ChangeCaptureSetting`. */
const ChangeCaptureSettingRef = builder
  .objectRef<{ enabled: boolean; active: boolean; reason: string | null }>("ChangeCaptureSetting")
  .implement({
    description:
      "Whether the changes of a workspace's runs are captured (setChangeCapture turns it on or off).",
    fields: (t) => ({
      enabled: t.exposeBoolean("enabled", { description: "The workspace's setting (on by default)." }),
      active: t.exposeBoolean("active", {
        description:
          "Enabled and possible here (the workspace is a git repository on the gateway's machine).",
      }),
      reason: t.exposeString("reason", {
        nullable: true,
        description: "Why capture does not run (turned off; not a git repository); null while it does.",
      }),
    }),
  });

builder.prismaObjectFields("Agent", (t) => ({
  changes: t.field({
    type: RunChangesRef,
    description:
      "What the run changed in its repository (snapshots under refs/prospero/runs/<agentId>/): state, commits, files, patch, overlaps with other runs, and the branch made of it. Viewer role, within the run's workspace.",
    authScopes: (a) => ({ role: "viewer", workspace: a.workspace }),
    resolve: (a, _args, ctx) => runChangesOf(ctx, a),
  }),
}));

builder.prismaObjectFields("Workspace", (t) => ({
  changeCapture: t.field({
    type: ChangeCaptureSettingRef,
    description:
      "Whether its runs' changes are captured, and why not. Viewer role, within the workspace (setChangeCapture: admin).",
    authScopes: (w) => ({ role: "viewer", workspace: w.name }),
    resolve: (w, _a, ctx) => ctx.capture.settingOf(w.name),
  }),
  changeOverlaps: t.field({
    type: [ChangeOverlapPairRef],
    description:
      "Every pair of its runs (active or captured, not applied, finished within the last 7 days) whose latest snapshots changed the same files: what a merge of both must reconcile. At most 100 pairs (those sharing most files first), among the 200 most recently captured such runs. Viewer role, within the workspace.",
    authScopes: (w) => ({ role: "viewer", workspace: w.name }),
    resolve: async (w, _a, ctx) => {
      const pairs = await ctx.capture.workspaceOverlaps(w.name);
      const seen = await visibleAgents(
        ctx,
        pairs.flatMap((p) => [p.a, p.b]),
      );
      return pairs.filter((p) => seen.has(p.a) && seen.has(p.b));
    },
  }),
}));
