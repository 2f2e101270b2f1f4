/**
 * What a run changed, through the API (issue 16 items 2–3): `Agent.changes` (state, files and
 * patch paged with opaque cursors, overlaps on both runs), `applyChanges` (a branch in the
 * workspace's repository, the user's checkout untouched; typed errors for a repeat, a bad name, a
 * viewer), `setChangeCapture` (admin only, audited), `Workspace.changeCapture`, the
 * `ChangesCaptured` item of fleetChanges over a real graphql-ws client, and a token limited to one
 * workspace seeing nothing of another's changes — a real gateway on a real port with the caliband
 * double.
 *
 * Two kinds of runs: runs recorded in the store with their capture rows (as the capture service
 * writes them: through the store's writer, with their `changes_captured` event), which test what
 * the API makes of stored captures; and runs of the double's `fake:edit` script, captured by the
 * real engine (those tests run once the double has `fake:edit` and the engine is filled in).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../../src/events/index.js";
import { NEVER_WATCHED } from "../../src/schema/changes.js";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { addWorkspaceWithDaemon, auditAfter, lastAuditId, type OtherWorkspace } from "../security/support.js";

let h: AppHarness;
let other: OtherWorkspace;
let viewer = "";
let operator = "";
/** An admin token limited to workspace "other". */
let limited = "";

beforeAll(async () => {
  h = await startAppHarness();
  other = await addWorkspaceWithDaemon(h);
  viewer = await h.createToken({ name: "ch-viewer", role: "VIEWER" });
  operator = await h.createToken({ name: "ch-operator", role: "OPERATOR" });
  limited = await h.createToken({ name: "ch-limited", role: "ADMIN", workspaces: ["other"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await other?.close();
});

interface SeedFile {
  path: string;
  status: string;
  additions: number | null;
  deletions: number | null;
}

/** A finished (or live) run recorded in the store, as the fleet records one (no daemon lists it). */
async function seedRun(workspace: string, status = "done"): Promise<string> {
  const id = randomBytes(6).toString("hex");
  await h.app.store.append([], {
    onFailure: "throw",
    extra: (db) => [
      db.agent.create({
        data: {
          id,
          workspace,
          name: `seeded-${id}`,
          status,
          spec: { prompt: "seeded" },
          startedAt: new Date(Date.now() - 60_000),
          finishedAt: status === "done" ? new Date() : null,
        },
      }),
    ],
  });
  return id;
}

/** Store a CAPTURED capture of `files` for run `id`, with its `changes_captured` event (as the service does). */
async function seedCapture(id: string, workspace: string, files: SeedFile[]): Promise<void> {
  const additions = files.reduce((n, f) => n + (f.additions ?? 0), 0);
  const deletions = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
  const event: NewEvent = {
    kind: "changes_captured",
    workspace,
    agentId: id,
    tsMs: Date.now(),
    payload: {
      state: "CAPTURED",
      reason: null,
      baseCommit: "a".repeat(40),
      headCommit: "b".repeat(40),
      trigger: "RUN_END",
      turnIndex: null,
      files: files.length,
      additions,
      deletions,
      skippedFiles: 0,
      final: true,
    },
  };
  await h.app.store.append([event], {
    onFailure: "throw",
    extra: (db) => [
      db.runCapture.create({
        data: {
          agentId: id,
          workspace,
          state: "CAPTURED",
          gitDir: "/nonexistent/.git",
          baseCommit: "a".repeat(40),
          headCommit: "b".repeat(40),
          trigger: "RUN_END",
          snapshots: 2,
          final: true,
          capturedAt: new Date(),
          fileCount: files.length,
          additions,
          deletions,
          files: { create: files.map((f) => ({ ...f, workspace })) },
        },
      }),
    ],
  });
}

const FILES = `files(first: $first, after: $after) {
  totalCount
  edges { cursor node { path status additions deletions binary } }
  pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
}`;

interface FilesPage {
  totalCount: number;
  edges: { cursor: string; node: { path: string; status: string; binary: boolean } }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

interface ChangesData {
  agent: {
    agentId: string;
    changes: {
      state: string;
      reason: string | null;
      baseCommit: string | null;
      headCommit: string | null;
      ref: string | null;
      trigger: string | null;
      snapshots: number;
      final: boolean;
      fileCount: number;
      additions: number;
      deletions: number;
      files: FilesPage | null;
    };
  } | null;
}

const CHANGES = `query($id: String!, $first: Int, $after: String) { agent(agentId: $id) { agentId changes {
  state reason baseCommit headCommit ref trigger snapshots final fileCount additions deletions ${FILES}
} } }`;

describe("Agent.changes of stored captures", () => {
  it("a captured run: its state, commits and ref; files page in path order with opaque cursors", async () => {
    const id = await seedRun("demo");
    const files: SeedFile[] = [
      { path: "src/b.ts", status: "MODIFIED", additions: 3, deletions: 1 },
      { path: "README.md", status: "MODIFIED", additions: 1, deletions: 0 },
      { path: "img/logo.png", status: "ADDED", additions: null, deletions: null },
      { path: "OBSOLETE.txt", status: "DELETED", additions: 0, deletions: 2 },
      { path: "src/a.ts", status: "ADDED", additions: 10, deletions: 0 },
    ];
    await seedCapture(id, "demo", files);
    const first = await h.gql<ChangesData>(CHANGES, { id, first: 2 });
    expect(first.errors).toBeUndefined();
    const c = first.data!.agent!.changes;
    expect(c).toMatchObject({
      state: "CAPTURED",
      reason: null,
      baseCommit: "a".repeat(40),
      headCommit: "b".repeat(40),
      ref: `refs/prospero/runs/${id}/head`,
      trigger: "RUN_END",
      snapshots: 2,
      final: true,
      fileCount: 5,
      additions: 14,
      deletions: 3,
    });
    const sorted = files.map((f) => f.path).sort();
    expect(c.files!.totalCount).toBe(5);
    expect(c.files!.edges.map((e) => e.node.path)).toEqual(sorted.slice(0, 2));
    expect(c.files!.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    // Opaque: the cursor does not show the path.
    expect(c.files!.pageInfo.endCursor).not.toContain(sorted[1]);

    const paths: string[] = c.files!.edges.map((e) => e.node.path);
    let page = c.files!;
    while (page.pageInfo.hasNextPage) {
      const r = await h.gql<ChangesData>(CHANGES, { id, first: 2, after: page.pageInfo.endCursor });
      expect(r.errors).toBeUndefined();
      page = r.data!.agent!.changes.files!;
      expect(page.pageInfo.hasPreviousPage).toBe(true);
      paths.push(...page.edges.map((e) => e.node.path));
    }
    expect(paths).toEqual(sorted);
    const logo = await h.gql<ChangesData>(CHANGES, { id, first: 500 });
    expect(logo.data!.agent!.changes.files!.edges.find((e) => e.node.path === "img/logo.png")!.node).toEqual({
      path: "img/logo.png",
      status: "ADDED",
      additions: null,
      deletions: null,
      binary: true,
    });
    // first: 0 is an empty page that still says more exist.
    const empty = await h.gql<ChangesData>(CHANGES, { id, first: 0 });
    expect(empty.data!.agent!.changes.files).toMatchObject({
      edges: [],
      totalCount: 5,
      pageInfo: { hasNextPage: true, endCursor: null },
    });
  });

  it("a bad page argument or another run's cursor nulls only `files` (BAD_USER_INPUT); the run still answers", async () => {
    const a = await seedRun("demo");
    const b = await seedRun("demo");
    await seedCapture(a, "demo", [{ path: "x.txt", status: "ADDED", additions: 1, deletions: 0 }]);
    await seedCapture(b, "demo", [
      { path: "x.txt", status: "ADDED", additions: 1, deletions: 0 },
      { path: "y.txt", status: "ADDED", additions: 1, deletions: 0 },
    ]);
    const ofB = await h.gql<ChangesData>(CHANGES, { id: b, first: 1 });
    const cursorOfB = ofB.data!.agent!.changes.files!.pageInfo.endCursor!;
    for (const vars of [
      { id: a, first: 501 },
      { id: a, first: -1 },
      { id: a, first: 1, after: cursorOfB },
      { id: a, first: 1, after: "bm90LWEtY3Vyc29y" },
    ]) {
      const r = await h.gql<ChangesData>(CHANGES, vars);
      expect(r.errors, JSON.stringify(vars)).toHaveLength(1);
      expect(r.errors![0]).toMatchObject({
        path: ["agent", "changes", "files"],
        extensions: { code: "BAD_USER_INPUT" },
      });
      expect(r.data!.agent!.changes).toMatchObject({ state: "CAPTURED", files: null });
    }
  });

  it("a run never watched: NOT_CAPTURED with why once it ended, PENDING while live; its patch is an INVALID_STATE error on the field", async () => {
    const ended = await seedRun("demo", "done");
    const live = await seedRun("demo", "running");
    const q = `query($id: String!) { agent(agentId: $id) { agentId changes {
      state reason ref fileCount final files(first: 5) { totalCount edges { cursor } }
    } } }`;
    const e = await h.gql<ChangesData>(q, { id: ended });
    expect(e.errors).toBeUndefined();
    expect(e.data!.agent!.changes).toEqual({
      state: "NOT_CAPTURED",
      reason: NEVER_WATCHED,
      ref: null,
      fileCount: 0,
      final: false,
      files: { totalCount: 0, edges: [] },
    });
    const l = await h.gql<ChangesData>(q, { id: live });
    expect(l.data!.agent!.changes).toMatchObject({ state: "PENDING", reason: null, fileCount: 0 });

    const patch = await h.gql<{ agent: { agentId: string; changes: { state: string; patch: unknown } } }>(
      `query($id: String!) { agent(agentId: $id) { agentId changes { state patch(first: 5) { edges { node { path } } } } } }`,
      { id: ended },
    );
    expect(patch.errors).toHaveLength(1);
    expect(patch.errors![0]).toMatchObject({
      path: ["agent", "changes", "patch"],
      extensions: { code: "INVALID_STATE" },
    });
    expect(patch.errors![0]!.message).toContain(NEVER_WATCHED);
    expect(patch.data).toEqual({
      agent: { agentId: ended, changes: { state: "NOT_CAPTURED", patch: null } },
    });
  });
});

describe("the mutations' rules", () => {
  it("applyChanges: an unknown run is a NotFoundError, a viewer is refused, an empty or over-long name is a ValidationError; all audited", async () => {
    const since = await lastAuditId(h);
    const apply = (agentId: string, branch: string, token = h.token) =>
      h.gql<{ applyChanges: Record<string, unknown> }>(
        `mutation A($input: ApplyChangesInput!) { applyChanges(input: $input) { __typename
          ... on Error { code message } ... on NotFoundError { entity key }
          ... on ForbiddenError { requiredRole } ... on ValidationError { fieldErrors { path message } } } }`,
        { input: { agentId, branch } },
        token,
      );
    const run = await seedRun("demo");
    await seedCapture(run, "demo", [{ path: "x.txt", status: "ADDED", additions: 1, deletions: 0 }]);

    const unknown = await apply("000000000000", "review/x");
    expect(unknown.data!.applyChanges).toMatchObject({
      __typename: "NotFoundError",
      entity: "AGENT",
      key: "000000000000",
    });
    const byViewer = await apply(run, "review/by-viewer", viewer);
    expect(byViewer.data!.applyChanges).toMatchObject({
      __typename: "ForbiddenError",
      requiredRole: "OPERATOR",
    });
    for (const bad of ["", "x".repeat(201)]) {
      const r = await apply(run, bad, operator);
      expect(r.data!.applyChanges).toMatchObject({
        __typename: "ValidationError",
        fieldErrors: [{ path: ["input", "branch"] }],
      });
    }
    const rows = (await auditAfter(h, since)).filter((r) => r.operation === "applyChanges");
    expect(rows.map((r) => [r.tokenName, r.result, r.denied])).toEqual([
      ["admin", "NOT_FOUND", false],
      ["ch-viewer", "FORBIDDEN", true],
      ["ch-operator", "BAD_USER_INPUT", false],
      ["ch-operator", "BAD_USER_INPUT", false],
    ]);
    expect(rows[1]!.agentId).toBe(run);
  });

  it("setChangeCapture: admin only (an operator is refused, nothing changes), an unknown workspace is a NotFoundError; audited", async () => {
    const since = await lastAuditId(h);
    const set = (workspace: string, enabled: boolean, token = h.token) =>
      h.gql<{ setChangeCapture: Record<string, unknown> }>(
        `mutation S($input: SetChangeCaptureInput!) { setChangeCapture(input: $input) { __typename
          ... on Error { code } ... on ForbiddenError { requiredRole }
          ... on SetChangeCapturePayload { workspace { name changeCapture { enabled active reason } } } } }`,
        { input: { workspace, enabled } },
        token,
      );
    const before = await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: "demo" } });
    const refused = await set("demo", false, operator);
    expect(refused.data!.setChangeCapture).toMatchObject({
      __typename: "ForbiddenError",
      requiredRole: "ADMIN",
    });
    expect(
      (await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: "demo" } })).captureChanges,
    ).toBe(before.captureChanges);
    const unknown = await set("nowhere", false);
    expect(unknown.data!.setChangeCapture).toMatchObject({ __typename: "NotFoundError", code: "NOT_FOUND" });
    const ok = await set("demo", true);
    expect(ok.data!.setChangeCapture).toMatchObject({
      __typename: "SetChangeCapturePayload",
      workspace: { name: "demo", changeCapture: { enabled: true } },
    });
    const rows = (await auditAfter(h, since)).filter((r) => r.operation === "setChangeCapture");
    expect(rows.map((r) => [r.tokenName, r.workspace, r.result, r.denied])).toEqual([
      ["ch-operator", "demo", "FORBIDDEN", true],
      ["admin", "nowhere", "NOT_FOUND", false],
      ["admin", "demo", "SetChangeCapturePayload", false],
    ]);
  });

  it("setChangeCapture off is stored and read back (changeCapture: enabled false, not active, why); on again", async () => {
    const q = `{ workspace(name: "demo") { changeCapture { enabled active reason } } }`;
    const off = await h.gql<{ setChangeCapture: { __typename: string } }>(
      `mutation { setChangeCapture(input: { workspace: "demo", enabled: false }) { __typename } }`,
    );
    expect(off.data!.setChangeCapture.__typename).toBe("SetChangeCapturePayload");
    expect(
      (await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: "demo" } })).captureChanges,
    ).toBe(false);
    const r = await h.gql<{
      workspace: { changeCapture: { enabled: boolean; active: boolean; reason: string } };
    }>(q);
    expect(r.data!.workspace.changeCapture).toMatchObject({ enabled: false, active: false });
    expect(r.data!.workspace.changeCapture.reason).toMatch(/turned off/);
    await h.gql(`mutation { setChangeCapture(input: { workspace: "demo", enabled: true }) { __typename } }`);
    const back = await h.gql<{ workspace: { changeCapture: { enabled: boolean; active: boolean } } }>(q);
    expect(back.data!.workspace.changeCapture).toEqual({ enabled: true, active: true, reason: null });
  });
});

describe("a token limited to one workspace", () => {
  it("sees no other workspace's runs, changes, capture setting or overlaps, and cannot apply them", async () => {
    const demoRun = await seedRun("demo");
    await seedCapture(demoRun, "demo", [{ path: "a.txt", status: "ADDED", additions: 1, deletions: 0 }]);
    const otherRun = await seedRun("other");
    await seedCapture(otherRun, "other", [{ path: "a.txt", status: "ADDED", additions: 1, deletions: 0 }]);
    const gid = (
      await h.gql<{ agent: { id: string } }>(`query($id: String!) { agent(agentId: $id) { id } }`, {
        id: demoRun,
      })
    ).data!.agent.id;
    const q = `query($id: String!, $gid: ID!, $mine: String!) {
      agent(agentId: $id) { changes { state } }
      node(id: $gid) { ... on Agent { changes { state fileCount } } }
      mine: agent(agentId: $mine) { changes { state fileCount } }
      workspace(name: "demo") { changeCapture { enabled } changeOverlaps { fileCount } }
    }`;
    const r = await h.gql<Record<string, unknown>>(q, { id: demoRun, gid, mine: otherRun }, limited);
    expect(r.data).toMatchObject({
      agent: null,
      node: null,
      mine: { changes: { state: "CAPTURED", fileCount: 1 } },
      workspace: null,
    });
    const apply = await h.gql<{ applyChanges: Record<string, unknown> }>(
      `mutation($input: ApplyChangesInput!) { applyChanges(input: $input) { __typename ... on NotFoundError { entity key } } }`,
      { input: { agentId: demoRun, branch: "stolen" } },
      limited,
    );
    expect(apply.data!.applyChanges).toEqual({ __typename: "NotFoundError", entity: "AGENT", key: demoRun });
  });
});

describe("ChangesCaptured (fleetChanges)", () => {
  const SUB = `subscription { fleetChanges { __typename
    ... on ChangesCaptured { agentId agent { agentId } workspace { name } cursor changes { state fileCount headCommit files(first: 10) { edges { node { path } } } } }
  } }`;
  type Item = {
    fleetChanges: {
      __typename: string;
      agentId?: string;
      workspace?: { name: string };
      cursor?: string;
      changes?: {
        state: string;
        fileCount: number;
        headCommit: string;
        files: { edges: { node: { path: string } }[] };
      };
    };
  };

  it("a captured run's changes arrive live over graphql-ws, as stored now, with a cursor; a limited token gets only its workspace's", async () => {
    const all = collect<Item>(h.ws(), SUB, {}, (items) =>
      items.some((i) => i.fleetChanges.__typename === "ChangesCaptured"),
    );
    const mine = collect<Item>(h.ws(limited), SUB, {}, (items) =>
      items.some((i) => i.fleetChanges.__typename === "ChangesCaptured"),
    );
    // Both seeds delivered: what follows is live.
    await waitFor(() =>
      [all, mine].every((s) => s.items.some((i) => i.fleetChanges.__typename === "FleetSeedComplete")),
    );
    const demoRun = await seedRun("demo");
    await seedCapture(demoRun, "demo", [{ path: "live.txt", status: "ADDED", additions: 2, deletions: 0 }]);
    await all.done;
    const item = all.items.find((i) => i.fleetChanges.__typename === "ChangesCaptured")!.fleetChanges;
    expect(item).toMatchObject({
      agentId: demoRun,
      agent: { agentId: demoRun },
      workspace: { name: "demo" },
      cursor: expect.any(String),
      changes: {
        state: "CAPTURED",
        fileCount: 1,
        headCommit: "b".repeat(40),
        files: { edges: [{ node: { path: "live.txt" } }] },
      },
    });
    // The limited token saw nothing of demo; its own workspace's capture comes through.
    const otherRun = await seedRun("other");
    await seedCapture(otherRun, "other", [{ path: "o.txt", status: "ADDED", additions: 1, deletions: 0 }]);
    await mine.done;
    const seen = mine.items.filter((i) => i.fleetChanges.__typename === "ChangesCaptured");
    expect(seen.map((i) => i.fleetChanges.agentId)).toEqual([otherRun]);
  });
});

// With the capture engine and the double's fake:edit -------------------------------------------

/**
 * Spawn a `fake:edit` run in demo and wait until it ended and its capture settled: its final
 * snapshot, or (its worktree removed first) its last one with the reason saying so.
 */
async function editedRun(): Promise<string> {
  const r = await h.gql<{ spawnAgent: { __typename: string; agent?: { agentId: string } } }>(
    `mutation { spawnAgent(input: { workspace: "demo", prompt: "edit things fake:edit" }) {
      __typename ... on SpawnAgentPayload { agent { agentId } } } }`,
  );
  const id = r.data?.spawnAgent.agent?.agentId;
  if (!id) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  await waitFor(
    async () => {
      const c = await h.gql<{
        agent: { terminal: boolean; changes: { state: string; final: boolean; reason: string | null } };
      }>(`query($id: String!) { agent(agentId: $id) { terminal changes { state final reason } } }`, { id });
      const a = c.data?.agent;
      return (
        a?.terminal === true &&
        a.changes.state === "CAPTURED" &&
        (a.changes.final || a.changes.reason !== null)
      );
    },
    30_000,
    `${id} captured`,
  );
  return id;
}

/** Time for a test with `fake:edit` runs (each takes a few seconds on a loaded machine). */
const RUNS_TIMEOUT = 90_000;

const git = (...args: string[]) => execFileSync("git", ["-C", h.d.ws.root, ...args], { encoding: "utf8" });

/** The user's checkout as git sees it: HEAD, its branch, and every status entry. */
const checkout = () => ({
  head: git("rev-parse", "HEAD").trim(),
  branch: git("symbolic-ref", "-q", "HEAD").trim(),
  status: git("status", "--porcelain=v2", "--branch", "--untracked-files=all"),
});

interface PatchData {
  agent: {
    changes: {
      patch: {
        totalCount: number;
        edges: {
          cursor: string;
          node: { path: string; status: string; text: string | null; truncated: boolean };
        }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      } | null;
    };
  };
}

describe("runs of the fake:edit script, captured by the engine", () => {
  it(
    "the patch pages to its end, one file per edge, matching the files; the run's edits are in it",
    async () => {
      const id = await editedRun();
      const files = (await h.gql<ChangesData>(CHANGES, { id, first: 500 })).data!.agent!.changes.files!;
      const paths = files.edges.map((e) => e.node.path);
      expect(paths).toContain(`notes/fake-${id}.md`);
      expect(paths).toContain("README.md");
      const patched: { path: string; text: string | null }[] = [];
      let after: string | null = null;
      for (;;) {
        const r: { data?: PatchData; errors?: unknown[] } = await h.gql<PatchData>(
          `query($id: String!, $after: String) { agent(agentId: $id) { changes { patch(first: 1, after: $after) {
            totalCount edges { cursor node { path status text truncated } } pageInfo { hasNextPage endCursor } } } } }`,
          { id, after },
        );
        expect(r.errors).toBeUndefined();
        const page = r.data!.agent.changes.patch!;
        expect(page.edges.length).toBeLessThanOrEqual(1);
        expect(page.totalCount).toBe(paths.length);
        patched.push(...page.edges.map((e) => e.node));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(patched.map((p) => p.path)).toEqual(paths);
      const note = patched.find((p) => p.path === `notes/fake-${id}.md`)!;
      expect(note.text).toMatch(/^diff --git /);
      expect(note.text).toMatch(/\n\+/);
    },
    RUNS_TIMEOUT,
  );

  it(
    "applyChanges creates a branch at the captured commit in the workspace's repository; the checkout is untouched; a repeat is a ConflictError",
    async () => {
      const id = await editedRun();
      const before = checkout();
      const apply = (branch: string) =>
        h.gql<{ applyChanges: Record<string, unknown> }>(
          `mutation($input: ApplyChangesInput!) { applyChanges(input: $input) { __typename
            ... on ApplyChangesPayload { branch commit agent { agentId changes { applied { branch commit by } } } }
            ... on Error { code message } } }`,
          { input: { agentId: id, branch } },
          operator,
        );
      const branch = `review/${id}`;
      const r = await apply(branch);
      expect(r.data!.applyChanges).toMatchObject({ __typename: "ApplyChangesPayload", branch });
      const commit = r.data!.applyChanges["commit"] as string;
      const head = (await h.gql<ChangesData>(CHANGES, { id, first: 1 })).data!.agent!.changes.headCommit;
      expect(commit).toBe(head);
      expect(git("rev-parse", "--verify", `refs/heads/${branch}`).trim()).toBe(commit);
      expect(git("ls-tree", "-r", "--name-only", branch)).toContain(`notes/fake-${id}.md`);
      expect(r.data!.applyChanges).toMatchObject({
        agent: { changes: { applied: { branch, commit, by: "ch-operator" } } },
      });
      expect(checkout()).toEqual(before);

      const again = await apply(branch);
      expect(again.data!.applyChanges).toMatchObject({ __typename: "ConflictError", code: "CONFLICT" });
      expect(git("rev-parse", "--verify", `refs/heads/${branch}`).trim()).toBe(commit);
      expect(checkout()).toEqual(before);
    },
    RUNS_TIMEOUT,
  );

  it(
    "applyChanges with a name git refuses is a ValidationError on input.branch, and creates nothing",
    async () => {
      const id = await editedRun();
      const refs = git("for-each-ref", "refs/heads");
      for (const bad of ["bad..name", "-leading-dash", "ends.lock", "with space"]) {
        const r = await h.gql<{ applyChanges: Record<string, unknown> }>(
          `mutation($input: ApplyChangesInput!) { applyChanges(input: $input) { __typename
            ... on ValidationError { fieldErrors { path } } } }`,
          { input: { agentId: id, branch: bad } },
        );
        expect(r.data!.applyChanges, bad).toEqual({
          __typename: "ValidationError",
          fieldErrors: [{ path: ["input", "branch"] }],
        });
      }
      expect(git("for-each-ref", "refs/heads")).toBe(refs);
    },
    RUNS_TIMEOUT,
  );

  it(
    "two runs that changed the same file see each other as overlaps (both of them), and the workspace lists the pair",
    async () => {
      const a = await editedRun();
      const b = await editedRun();
      const q = `query($id: String!) { agent(agentId: $id) { changes { overlaps { agent { agentId } files fileCount } } } }`;
      type O = {
        agent: {
          changes: { overlaps: { agent: { agentId: string }; files: string[]; fileCount: number }[] };
        };
      };
      const ofA = (await h.gql<O>(q, { id: a })).data!.agent.changes.overlaps;
      const ofB = (await h.gql<O>(q, { id: b })).data!.agent.changes.overlaps;
      expect(ofA.find((o) => o.agent.agentId === b)?.files).toContain("README.md");
      expect(ofB.find((o) => o.agent.agentId === a)?.files).toContain("README.md");
      const pairs = (
        await h.gql<{
          workspace: {
            changeOverlaps: { a: { agentId: string }; b: { agentId: string }; files: string[] }[];
          };
        }>(`{ workspace(name: "demo") { changeOverlaps { a { agentId } b { agentId } files } } }`)
      ).data!.workspace.changeOverlaps;
      expect(
        pairs.some(
          (p) =>
            new Set([p.a.agentId, p.b.agentId]).size === 2 &&
            [p.a.agentId, p.b.agentId].includes(a) &&
            [p.a.agentId, p.b.agentId].includes(b),
        ),
      ).toBe(true);
      // A token of another workspace sees none of it.
      const hidden = await h.gql<{ agent: unknown }>(q, { id: a }, limited);
      expect(hidden.data!.agent).toBeNull();
    },
    RUNS_TIMEOUT,
  );

  it(
    "a ChangesCaptured item arrives over graphql-ws when the engine captures a run",
    async () => {
      const sub = collect<{
        fleetChanges: { __typename: string; agentId?: string; changes?: { state: string } };
      }>(
        h.ws(),
        `subscription { fleetChanges { __typename ... on ChangesCaptured { agentId changes { state } } } }`,
        {},
        (items) =>
          items.some(
            (i) =>
              i.fleetChanges.__typename === "ChangesCaptured" && i.fleetChanges.changes?.state === "CAPTURED",
          ),
      );
      await waitFor(() => sub.items.some((i) => i.fleetChanges.__typename === "FleetSeedComplete"));
      const id = await editedRun();
      await sub.done;
      expect(
        sub.items
          .filter((i) => i.fleetChanges.__typename === "ChangesCaptured")
          .map((i) => i.fleetChanges.agentId),
      ).toContain(id);
    },
    RUNS_TIMEOUT,
  );
});
