/**
 * The GraphQL documents of the agent view's changes and report tabs (issue 16, design-16 §3–§4),
 * as exported strings (`npm run documents` registers every exported document of this folder), and
 * the shapes of their results, written by hand to match them. Pure: no DOM, no imports, so the
 * trusted-documents script can import this module under Node.
 */

/** Typed errors of a mutation result (as in `documents.ts`). */
const ERROR_FIELDS = `
  ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }
`;

/** Files of a run's latest snapshot per page of `RunChanges.files` (the schema allows 1–500). */
export const CHANGED_FILES_PAGE = 500;

/** Files per page of `RunChanges.patch` (the schema allows 1–100; a page also stops at 1 MiB of text). */
export const PATCH_PAGE = 20;

/** What a run's capture says about itself (everything of `RunChanges` but its pages). */
const CHANGES_FIELDS = `
  state reason baseCommit headCommit ref trigger turnIndex snapshots final capturedAt
  fileCount additions deletions skippedFiles skippedBytes capNote
  overlaps { agent { agentId name status spec { label } } files fileCount }
  applied { branch commit at by }
`;

/** One changed file (`ChangedFile`). */
const FILE_FIELDS = `path status additions deletions binary`;

/** One file's diff (`FilePatch`). */
const PATCH_FIELDS = `path status additions deletions binary text truncated omitted`;

/**
 * The changes tab: who the page is (to offer "Create branch" only where the gateway would allow
 * it) and where the run's capture stands. Its files and patch are read after, by
 * {@link AGENT_CHANGES_PAGES_QUERY}, only when it is CAPTURED (the gateway refuses them otherwise).
 */
export const AGENT_CHANGES_QUERY = `query DashboardAgentChanges($agentId: String!) {
  viewer { name role workspaces }
  agent(agentId: $agentId) {
    agentId name terminal workspace { name } turns
    changes { ${CHANGES_FIELDS} }
  }
}`;

/** The first page of a captured run's files and of its patch. */
export const AGENT_CHANGES_PAGES_QUERY = `query DashboardAgentChangesPages($agentId: String!) {
  agent(agentId: $agentId) {
    changes {
      headCommit
      files(first: ${CHANGED_FILES_PAGE}) { edges { node { ${FILE_FIELDS} } } pageInfo { hasNextPage endCursor } }
      patch(first: ${PATCH_PAGE}) { edges { node { ${PATCH_FIELDS} } } pageInfo { hasNextPage endCursor } }
    }
  }
}`;

/** The next page of changed files ("Show more files"). */
export const AGENT_CHANGED_FILES_QUERY = `query DashboardAgentChangedFiles($agentId: String!, $after: String) {
  agent(agentId: $agentId) {
    changes {
      files(first: ${CHANGED_FILES_PAGE}, after: $after) {
        edges { node { ${FILE_FIELDS} } } pageInfo { hasNextPage endCursor }
      }
    }
  }
}`;

/** The next page of the patch ("Load more"). */
export const AGENT_PATCH_QUERY = `query DashboardAgentPatch($agentId: String!, $after: String) {
  agent(agentId: $agentId) {
    changes {
      patch(first: ${PATCH_PAGE}, after: $after) {
        edges { node { ${PATCH_FIELDS} } } pageInfo { hasNextPage endCursor }
      }
    }
  }
}`;

/** Create a branch in the run's repository at its captured head commit (operators). */
export const APPLY_CHANGES = `mutation DashboardApplyChanges($agentId: String!, $branch: String!) {
  result: applyChanges(input: { agentId: $agentId, branch: $branch }) {
    __typename
    ... on ApplyChangesPayload { branch commit agent { agentId changes { applied { branch commit at by } } } }
    ${ERROR_FIELDS}
  }
}`;

/** The report tab: the run report (so far, while the run is active). */
export const AGENT_REPORT_QUERY = `query DashboardAgentReport($agentId: String!) {
  agent(agentId: $agentId) {
    agentId
    report {
      final status outcome outcomeName outcomeDetail
      failure { exitCode logTail logTruncated reason }
      startedAt finishedAt durationMs turns estimatedCostUsd
      usage { input: inputTokens output: outputTokens cacheRead: cacheReadTokens cacheCreation: cacheCreationTokens }
      toolCalls { name calls failures } toolCallCount toolFailureCount
      changes changesReason filesChanged additions deletions
      files { ${FILE_FIELDS} }
      finalMessage markdown
    }
  }
}`;

/** `ChangeCaptureState`. */
export type ChangeCaptureState = "PENDING" | "CAPTURED" | "NOT_CAPTURED" | "OFF" | "EXPIRED" | "UNKNOWN";

/** `FileChangeStatus`. */
export type FileChangeStatus = "ADDED" | "MODIFIED" | "DELETED" | "TYPE_CHANGED" | "UNKNOWN";

/** `SnapshotTrigger`. */
export type SnapshotTrigger = "START" | "TURN_END" | "RUN_END" | "KILL" | "STOPPED" | "UNKNOWN";

/** A page's position (`PageInfo`, the fields asked for). */
export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

/** A connection page as asked for: nodes and where the next page starts. */
export interface Page<T> {
  edges: { node: T }[];
  pageInfo: PageInfo;
}

/** `ChangedFile`: one file of a run's latest snapshot (base..head). */
export interface ChangedFile {
  path: string;
  status: FileChangeStatus;
  /** Lines added / deleted; null for a binary file. */
  additions: number | null;
  deletions: number | null;
  binary: boolean;
}

/** `FilePatch`: one file's unified diff, or why it is not shown. */
export interface FilePatch extends ChangedFile {
  /** The `git diff` text of the file (headers included); null when binary or too large (`omitted`). */
  text: string | null;
  /** `text` was cut (at 256 KiB per file). */
  truncated: boolean;
  /** Why `text` is null ("binary file", "2.0 GiB: too large to show"). */
  omitted: string | null;
}

/** `ChangeOverlap`: another run of the workspace that changed some of the same files. */
export interface ChangeOverlap {
  agent: { agentId: string; name: string; status: string; spec: { label: string | null } };
  /** The shared paths (at most 50). */
  files: string[];
  /** How many paths are shared (exact). */
  fileCount: number;
}

/** `AppliedChanges`: the branch made from the run's snapshot. */
export interface AppliedChanges {
  branch: string;
  commit: string;
  at: string;
  by: string;
}

/** `RunChanges` as asked for by {@link AGENT_CHANGES_QUERY} (its pages apart). */
export interface RunChanges {
  state: ChangeCaptureState;
  /** Why NOT_CAPTURED / OFF / EXPIRED, or a note on a CAPTURED one. */
  reason: string | null;
  baseCommit: string | null;
  headCommit: string | null;
  ref: string | null;
  trigger: SnapshotTrigger | null;
  turnIndex: number | null;
  snapshots: number;
  /** The latest snapshot was taken at or after the run's end. */
  final: boolean;
  capturedAt: string | null;
  fileCount: number;
  additions: number;
  deletions: number;
  skippedFiles: number;
  /** Bytes the caps left out. */
  skippedBytes: number;
  /** The cap note in words, or null. */
  capNote: string | null;
  overlaps: ChangeOverlap[];
  applied: AppliedChanges | null;
}

/** The result of {@link AGENT_CHANGES_QUERY}. */
export interface AgentChangesResult {
  viewer: { name: string; role: "VIEWER" | "OPERATOR" | "ADMIN"; workspaces: string[] | null } | null;
  agent: {
    agentId: string;
    name: string;
    terminal: boolean;
    workspace: { name: string };
    turns: number;
    changes: RunChanges;
  } | null;
}

/** The result of {@link AGENT_CHANGES_PAGES_QUERY}. */
export interface AgentChangesPagesResult {
  agent: {
    changes: { headCommit: string | null; files: Page<ChangedFile> | null; patch: Page<FilePatch> | null };
  } | null;
}

/** The result of {@link AGENT_CHANGED_FILES_QUERY}. */
export interface AgentChangedFilesResult {
  agent: { changes: { files: Page<ChangedFile> | null } } | null;
}

/** The result of {@link AGENT_PATCH_QUERY}. */
export interface AgentPatchResult {
  agent: { changes: { patch: Page<FilePatch> | null } } | null;
}

/** The payload of {@link APPLY_CHANGES}. */
export interface ApplyChangesPayload {
  branch: string;
  commit: string;
  agent: { agentId: string; changes: { applied: AppliedChanges | null } };
}

/** `ToolCallSummary`: calls of one tool in a run. */
export interface ToolCallSummary {
  name: string;
  calls: number;
  failures: number;
}

/** `RunReport` as asked for by {@link AGENT_REPORT_QUERY}. */
export interface RunReport {
  /** The run has ended (the numbers are its last). */
  final: boolean;
  status: string;
  outcome: string | null;
  outcomeName: string | null;
  /** The worker's detail on how the run ended, if any. */
  outcomeDetail: string | null;
  failure: {
    exitCode: number | null;
    logTail: string | null;
    logTruncated: boolean;
    reason: string | null;
  } | null;
  startedAt: string;
  finishedAt: string | null;
  /** Milliseconds; while active, until now. */
  durationMs: number | null;
  turns: number;
  estimatedCostUsd: number | null;
  usage: { input: number; output: number; cacheRead: number; cacheCreation: number };
  /** Most calls first. */
  toolCalls: ToolCallSummary[];
  toolCallCount: number;
  toolFailureCount: number;
  changes: ChangeCaptureState;
  changesReason: string | null;
  filesChanged: number | null;
  additions: number | null;
  deletions: number | null;
  /** The first 50 changed files. */
  files: ChangedFile[];
  finalMessage: string | null;
  /** The paste-into-a-PR summary. */
  markdown: string;
}

/** The result of {@link AGENT_REPORT_QUERY}. */
export interface AgentReportResult {
  agent: { agentId: string; report: RunReport } | null;
}

/**
 * A `ChangesCaptured` item of `fleetChanges` as far as the agent view reads it: the run whose
 * capture changed (it reads the rest itself).
 */
export interface ChangesCapturedItem {
  __typename: "ChangesCaptured";
  agentId: string;
}
