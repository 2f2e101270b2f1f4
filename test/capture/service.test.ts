/**
 * CaptureService with a real fleet, the caliband double and real git (issue 16 items 1–3): a
 * scripted agent edits, adds and deletes files in its isolated worktree over two turns; after the
 * worker exited and caliband removed the worktree and its branch, the captured changes are still
 * there (files, patch), `apply` turns them into a branch without touching the user's checkout; a
 * killed run keeps its last snapshot; an in-place run is captured against its start; capture off;
 * overlaps; retention.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CaptureService } from "../../src/capture/service.js";
import { silentLogger } from "../../src/log.js";
import { Conflict, InvalidState, ValidationFailed } from "../../src/errors.js";
import { isTerminal } from "../../src/caliband/wire.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";
import { git, makeTempWorkspace } from "../support/temp-workspace.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { fakeEditNote, fakeEditNotePath, fakeEditReadmeLine } from "../support/fake-scripts.js";
import type { RunCaptureRow } from "../../src/capture/types.js";

const LIMITS = { maxFiles: 5000, maxFileBytes: 10 * 1024 * 1024, maxBytes: 100 * 1024 * 1024 };

let d: DaemonFixture | undefined;
let h: FleetHarness | undefined;
let capture: CaptureService | undefined;
afterEach(async () => {
  await capture?.stop();
  await h?.close();
  await d?.close();
  capture = h = d = undefined;
});

/** A daemon + fleet + started capture for workspace "demo", whose first commit also holds OBSOLETE.txt. */
async function setup(
  opts: { start?: boolean } = {},
): Promise<{ root: string; capture: CaptureService; h: FleetHarness; d: DaemonFixture }> {
  d = await startDaemon();
  const root = d.ws.root;
  fs.writeFileSync(path.join(root, "OBSOLETE.txt"), "no longer needed\n");
  git(root, ["add", "OBSOLETE.txt"]);
  git(root, ["commit", "-q", "-m", "obsolete"]);
  h = await startFleet({ runtimeDir: d.ws.runtime });
  await h.fleet.addWorkspace({ name: "demo", root });
  capture = new CaptureService({
    db: h.db.prisma,
    writer: h.writer,
    store: h.store,
    bus: h.bus,
    fleet: h.fleet,
    log: silentLogger,
    limits: LIMITS,
    retentionDays: 30,
  });
  if (opts.start !== false) await capture.start();
  return { root, capture, h, d };
}

/** What the user sees of their checkout: status, index bytes, HEAD, branches. */
function checkout(root: string): { status: string; index: string; head: string; branches: string[] } {
  return {
    status: git(root, ["status", "--porcelain=v2", "--untracked-files=all", "--branch"]),
    index: fs.readFileSync(path.join(root, ".git", "index")).toString("base64"),
    head: git(root, ["rev-parse", "HEAD"]).trim() + " " + git(root, ["symbolic-ref", "HEAD"]).trim(),
    branches: branches(root),
  };
}

function branches(root: string): string[] {
  return git(root, ["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"])
    .trim()
    .split("\n")
    .filter(Boolean);
}

async function rowWhere(
  c: CaptureService,
  id: string,
  ok: (r: RunCaptureRow) => boolean,
  what: string,
): Promise<RunCaptureRow> {
  return waitFor(
    async () => {
      const r = await c.captureOf(id);
      return r && ok(r) ? r : null;
    },
    20_000,
    what,
  );
}

async function ended(h: FleetHarness, id: string): Promise<void> {
  await waitFor(
    () => {
      const a = h.fleet.state.agent(id);
      return a !== undefined && isTerminal(a.status);
    },
    20_000,
    `run ${id} to end`,
  );
}

function expectedFiles(id: string) {
  return [
    { path: "OBSOLETE.txt", status: "DELETED", additions: 0, deletions: 1 },
    { path: "README.md", status: "MODIFIED", additions: 1, deletions: 0 },
    { path: fakeEditNotePath(id), status: "ADDED", additions: 2, deletions: 0 },
  ];
}

describe("CaptureService", () => {
  it("keeps an isolated run's edits after its worktree and branch are gone; apply makes a branch of them and nothing else", async () => {
    const { root, capture, h, d } = await setup();
    const userBefore = checkout(root);
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Tidy up. fake:edit fake:hold=60000",
      label: "tidy",
    });
    const wt = agent.workingDir;
    expect(wt).toContain(".caliban/worktrees/");
    // The snapshot of turn 1 (taken while the agent writes its summary).
    const t1 = await rowWhere(
      capture,
      agent.id,
      (r) => r.trigger === "TURN_END" && r.turnIndex === 1,
      "the turn-1 snapshot",
    );
    expect(t1).toMatchObject({ state: "CAPTURED", final: false, fileCount: 3, additions: 3, deletions: 1 });
    expect(t1.snapshots).toBeGreaterThanOrEqual(1);
    // The isolated run's base is the commit its branch was created from: the user's HEAD.
    expect(t1.baseCommit).toBe(userBefore.head.split(" ")[0]);
    // A snapshot never changes the agent's checkout.
    const agentView = () => ({
      status: git(wt, ["status", "--porcelain=v2", "--untracked-files=all", "--branch"]),
      index: fs
        .readFileSync(
          git(wt, ["rev-parse", "--git-path", "index"])
            .trim()
            .replace(/^(?!\/)/, `${wt}/`),
        )
        .toString("base64"),
    });
    const inWt = agentView();
    expect(inWt.status).toContain(fakeEditNotePath(agent.id));
    fs.writeFileSync(path.join(wt, "scratch.txt"), "written during the summary\n");
    const again = agentView();
    await capture.snapshot(agent.id, "TURN_END");
    expect(agentView()).toEqual(again);
    fs.rmSync(path.join(wt, "scratch.txt"));
    await capture.snapshot(agent.id, "TURN_END");

    d.daemon.agent(agent.id)!.release();
    await ended(h, agent.id);
    await waitFor(() => !fs.existsSync(wt), 10_000, "the worktree to be removed");
    await waitFor(
      () => !branches(root).some((b) => b.startsWith("refs/heads/caliban/")),
      10_000,
      "the caliban branch to be removed",
    );
    const row = await rowWhere(
      capture,
      agent.id,
      (r) => r.final || r.reason !== null,
      "the end of the run to be captured",
    );
    // The run's last turn ran no tool (text only), so the turn-1 snapshot is what it left, whether
    // or not the RunEnd snapshot won the race with the worktree's removal: final, no "not final" note.
    expect(row).toMatchObject({ state: "CAPTURED", final: true, reason: null });

    // files() and patch() after the worktree is gone: exactly the run's changes.
    const files = await capture.files(agent.id, null, 100);
    expect(
      files.map((f) => ({ path: f.path, status: f.status, additions: f.additions, deletions: f.deletions })),
    ).toEqual(expectedFiles(agent.id));
    const patch = await capture.patch(agent.id, null, 100);
    expect(patch.map((p) => p.path)).toEqual(expectedFiles(agent.id).map((f) => f.path));
    expect(patch.every((p) => !p.binary && !p.truncated && p.omitted === null)).toBe(true);
    expect(patch[0]!.text).toContain("-no longer needed");
    expect(patch[1]!.text).toContain(`+${fakeEditReadmeLine(agent.id)}`);
    expect(patch[2]!.text).toContain(`+second pass by ${agent.id}`);
    expect(patch[2]!.text).toMatch(/^diff --git a\/notes\/fake-[0-9a-f]+\.md b\/notes\//);
    // Paging: after the first path.
    expect((await capture.patch(agent.id, "OBSOLETE.txt", 1)).map((p) => p.path)).toEqual(["README.md"]);

    // apply: a branch at the snapshot, whose tree is the worktree's last state.
    const res = await capture.apply(agent.id, "feature/tidy", "alice");
    expect(res).toEqual({ agentId: agent.id, branch: "feature/tidy", commit: row.headCommit });
    expect(git(root, ["rev-parse", "refs/heads/feature/tidy"]).trim()).toBe(row.headCommit);
    expect(git(root, ["ls-tree", "-r", "feature/tidy"])).toBe(git(root, ["ls-tree", "-r", row.headCommit!]));
    expect(git(root, ["ls-tree", "-r", "--name-only", "feature/tidy"]).trim().split("\n")).toEqual([
      "README.md",
      fakeEditNotePath(agent.id),
    ]);
    expect(git(root, ["show", `feature/tidy:${fakeEditNotePath(agent.id)}`])).toBe(fakeEditNote(agent.id, 1));
    expect(await capture.captureOf(agent.id)).toMatchObject({
      appliedBranch: "feature/tidy",
      appliedCommit: row.headCommit,
      appliedBy: "alice",
    });
    // The user's checkout: same status, index, HEAD; the branches are the old ones plus the new one.
    const userAfter = checkout(root);
    expect({ ...userAfter, branches: undefined }).toEqual({ ...userBefore, branches: undefined });
    expect(userAfter.branches).toEqual(
      [...userBefore.branches, `refs/heads/feature/tidy ${row.headCommit}`].sort(),
    );

    // An existing branch is a Conflict (atomically: it is not moved).
    await expect(capture.apply(agent.id, "feature/tidy", "alice")).rejects.toBeInstanceOf(Conflict);
    await expect(capture.apply(agent.id, "main", "alice")).rejects.toThrow(/branch main already exists/);
    expect(checkout(root)).toEqual(userAfter);
    // Names git refuses, a leading '-', too long: ValidationFailed on input.branch.
    for (const bad of [
      "-f",
      "a..b",
      "bad name",
      "x".repeat(201),
      "@{-1}",
      "ends.lock",
      "",
      "HEAD",
      // Valid for git but harmful: `@` is HEAD to git's own commands, HEAD/x breaks a clone's
      // origin/HEAD, refs/… reads as a full ref name.
      "@",
      "HEAD/x",
      "refs",
      "refs/x",
      "heads/x",
      "tags/v1",
      "remotes/origin/x",
    ]) {
      const e = await capture.apply(agent.id, bad, "alice").catch((err: unknown) => err);
      expect(e, bad).toBeInstanceOf(ValidationFailed);
      expect((e as ValidationFailed).issues[0]!.path, bad).toEqual(["input", "branch"]);
    }
    expect(checkout(root)).toEqual(userAfter);
    // The snapshot's refs are ours, under refs/prospero/runs/<id>/.
    expect(
      git(root, ["for-each-ref", "--format=%(refname)", `refs/prospero/runs/${agent.id}`])
        .trim()
        .split("\n"),
    ).toEqual([`refs/prospero/runs/${agent.id}/base`, `refs/prospero/runs/${agent.id}/head`]);
    // Each new head was announced in the workspace stream.
    const events = h.published.filter((e) => e.kind === "changes_captured" && e.agentId === agent.id);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.every((e) => e.streamKey === "workspace:demo")).toBe(true);
  }, 60_000);

  it("a killed run keeps its last snapshot, taken right before the kill", async () => {
    const { capture, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Work. fake:edit fake:hold=60000",
    });
    await rowWhere(capture, agent.id, (r) => r.turnIndex === 1, "the turn-1 snapshot");
    // Written after the last TurnEnd: only a snapshot right before the kill sees it.
    fs.writeFileSync(path.join(agent.workingDir, "late.txt"), "just before the kill\n");
    await h.fleet.lifecycle.kill(agent.id);
    await ended(h, agent.id);
    await waitFor(() => !fs.existsSync(agent.workingDir), 10_000, "the worktree to be removed");
    await capture.snapshot(agent.id, "STOPPED");
    const row = (await capture.captureOf(agent.id))!;
    expect(row).toMatchObject({
      state: "CAPTURED",
      trigger: "KILL",
      final: true,
      reason: null,
      fileCount: 4,
    });
    expect((await capture.files(agent.id, null, 10)).map((f) => f.path)).toEqual([
      "OBSOLETE.txt",
      "README.md",
      "late.txt",
      fakeEditNotePath(agent.id),
    ]);
  }, 60_000);

  it("an in-place run is captured against its start, not the person's earlier edits", async () => {
    const { root, capture, h, d } = await setup();
    // The person's uncommitted work, from before the run.
    fs.writeFileSync(path.join(root, "person.txt"), "mine\n");
    fs.appendFileSync(path.join(root, "README.md"), "a line of the person\n");
    const indexBefore = fs.readFileSync(path.join(root, ".git", "index"));
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "In place. fake:edit fake:delay=1500 fake:hold=60000",
      isolated: false,
    });
    const start = await rowWhere(capture, agent.id, (r) => r.trigger === "START", "the START snapshot");
    expect(start).toMatchObject({ state: "CAPTURED", fileCount: 0 });
    expect(start.baseCommit).toBe(start.headCommit);
    expect(start.baseCommit).not.toBe(git(root, ["rev-parse", "HEAD"]).trim());
    await rowWhere(capture, agent.id, (r) => r.turnIndex === 1, "the turn-1 snapshot");
    d.daemon.agent(agent.id)!.release();
    await ended(h, agent.id);
    const row = await rowWhere(capture, agent.id, (r) => r.final, "the final snapshot");
    expect(row.trigger === "RUN_END" || row.trigger === "STOPPED").toBe(true);
    expect(
      (await capture.files(agent.id, null, 10)).map((f) => [f.path, f.status, f.additions, f.deletions]),
    ).toEqual([
      ["OBSOLETE.txt", "DELETED", 0, 1],
      ["README.md", "MODIFIED", 1, 0],
      [fakeEditNotePath(agent.id), "ADDED", 2, 0],
    ]);
    // Capture never wrote the index of the checkout the agent worked in.
    expect(fs.readFileSync(path.join(root, ".git", "index")).equals(indexBefore)).toBe(true);
    // After the final snapshot nothing more is taken (the person's later edits are not the run's).
    fs.writeFileSync(path.join(root, "later.txt"), "after the run\n");
    await capture.snapshot(agent.id, "STOPPED");
    expect((await capture.captureOf(agent.id))!.headCommit).toBe(row.headCommit);
  }, 60_000);

  it("capture turned off: OFF, said plainly; a run whose worktree vanished before the first snapshot: NOT_CAPTURED", async () => {
    const { capture: first, h } = await setup();
    const c = first;
    expect(await c.settingOf("demo")).toEqual({ enabled: true, active: true, reason: null });
    await c.setEnabled("demo", false);
    expect(await c.settingOf("demo")).toEqual({
      enabled: false,
      active: false,
      reason: "change capture is turned off for workspace demo",
    });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "Off. fake:edit" });
    await ended(h, agent.id);
    const off = await rowWhere(c, agent.id, (r) => r.state === "OFF", "OFF");
    expect(off).toMatchObject({
      reason: "change capture is turned off for workspace demo",
      headCommit: null,
    });
    expect(git(h.fleet.registry.get("demo").root, ["for-each-ref", "refs/prospero"]).trim()).toBe("");
    await expect(c.patch(agent.id, null, 10)).rejects.toThrow(/not captured: change capture is turned off/);
    await expect(c.apply(agent.id, "x", "alice")).rejects.toBeInstanceOf(InvalidState);
    await expect(c.setEnabled("nope", true)).rejects.toThrow(/workspace not found: nope/);

    // A run watched from its spawn whose worktree is gone before its first snapshot.
    await c.setEnabled("demo", true);
    const { agent: slow } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Slow start. fake:delay=60000",
    });
    await rowWhere(c, slow.id, () => true, "the run's capture row");
    git(d!.ws.root, ["worktree", "remove", "--force", slow.workingDir]);
    const row = await c.snapshot(slow.id, "RUN_END");
    expect(row).toMatchObject({
      state: "NOT_CAPTURED",
      reason: "the worktree was removed before the first snapshot",
      headCommit: null,
    });

    // A run nobody watched until it had ended: no capture row (the API says it ended before
    // Prospero watched it), nothing written.
    await c.stop();
    const { agent: late } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "Quick." });
    await ended(h, late.id);
    const fresh = new CaptureService({
      db: h.db.prisma,
      writer: h.writer,
      store: h.store,
      bus: h.bus,
      fleet: h.fleet,
      log: silentLogger,
      limits: LIMITS,
      retentionDays: 30,
    });
    capture = fresh;
    expect(await fresh.snapshot(late.id, "STOPPED")).toBeNull();
    expect(await fresh.captureOf(late.id)).toBeNull();
  }, 60_000);

  it("a workspace that is not a git repository: OFF, said plainly", async () => {
    const { h } = await setup();
    const plain = makeTempWorkspace("plain", false);
    const root = fs.realpathSync(plain.root);
    const env = { ...process.env, CALIBAN_DAEMON_RUNTIME_DIR: d!.ws.runtime };
    const daemon = await FakeCaliband.start({
      workspaceRoot: root,
      socketPath: controlSocketPath(root, env),
      dataBase: plain.data,
      env,
    });
    try {
      await h.fleet.addWorkspace({ name: "plain", root });
      expect(await capture!.settingOf("plain")).toEqual({
        enabled: true,
        active: false,
        reason: "the workspace is not a git repository",
      });
      const { agent } = await h.fleet.lifecycle.spawn({
        workspace: "plain",
        prompt: "fake:edit",
        isolated: false,
      });
      const row = await rowWhere(capture!, agent.id, (r) => r.state !== "PENDING", "a capture state");
      expect(row).toMatchObject({
        state: "OFF",
        reason: "the workspace is not a git repository",
        headCommit: null,
      });
      await ended(h, agent.id);
      expect((await capture!.captureOf(agent.id))!.state).toBe("OFF");
    } finally {
      await daemon.close();
      plain.cleanup();
    }
  }, 60_000);

  it("a worktree removed after a snapshot but before the final one keeps that snapshot, with the reason", async () => {
    const { root, capture, h, d } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Work. fake:edit fake:hold=60000",
    });
    const t1 = await rowWhere(capture, agent.id, (r) => r.turnIndex === 1, "the turn-1 snapshot");
    git(root, ["worktree", "remove", "--force", agent.workingDir]);
    // A tool ran after the turn-1 snapshot (turn 2), so the files may have changed since.
    await h.store.append([
      {
        kind: "tool_started",
        payload: { toolUseId: "toolu_late", name: "Edit", turnIndex: 2 },
        workspace: "demo",
        agentId: agent.id,
        tsMs: Date.now(),
      },
    ]);
    const row = await capture.snapshot(agent.id, "RUN_END");
    expect(row).toMatchObject({
      state: "CAPTURED",
      final: false,
      headCommit: t1.headCommit,
      reason:
        "the worktree was removed before the final snapshot; these are the changes at the end of turn 1",
    });
    expect(await capture.files(agent.id, null, 10)).toHaveLength(3);
    d.daemon.agent(agent.id)!.release();
    await ended(h, agent.id);
  }, 60_000);

  it("a worktree removed before the final snapshot, with no tool run since the last one: that one is final", async () => {
    const { root, capture, h, d } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Work. fake:edit fake:hold=60000",
    });
    const t1 = await rowWhere(capture, agent.id, (r) => r.turnIndex === 1, "the turn-1 snapshot");
    git(root, ["worktree", "remove", "--force", agent.workingDir]);
    const row = await capture.snapshot(agent.id, "RUN_END");
    expect(row).toMatchObject({ state: "CAPTURED", final: true, reason: null, headCommit: t1.headCommit });
    d.daemon.agent(agent.id)!.release();
    await ended(h, agent.id);
  }, 60_000);

  it("two runs changing the same files show the overlap on both; applying one ends it; retention removes the refs", async () => {
    const { root, capture, h, d } = await setup();
    const a = (await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "A. fake:edit fake:hold=60000" }))
      .agent;
    const b = (await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "B. fake:edit fake:hold=60000" }))
      .agent;
    await rowWhere(capture, a.id, (r) => r.turnIndex === 1, "a's turn-1 snapshot");
    await rowWhere(capture, b.id, (r) => r.turnIndex === 1, "b's turn-1 snapshot");
    expect(await capture.overlapsOf(a.id)).toEqual([
      { agentId: b.id, files: ["OBSOLETE.txt", "README.md"], fileCount: 2 },
    ]);
    expect(await capture.overlapsOf(b.id)).toEqual([
      { agentId: a.id, files: ["OBSOLETE.txt", "README.md"], fileCount: 2 },
    ]);
    const [x, y] = [a.id, b.id].sort();
    expect(await capture.workspaceOverlaps("demo")).toEqual([
      { a: x, b: y, files: ["OBSOLETE.txt", "README.md"], fileCount: 2 },
    ]);
    for (const id of [a.id, b.id]) d.daemon.agent(id)!.release();
    await ended(h, a.id);
    await ended(h, b.id);
    await capture.apply(a.id, "take-a", "alice");
    expect(await capture.overlapsOf(b.id)).toEqual([]);
    // The applied run itself shows none either (its changes are merged away from the pending set).
    expect(await capture.overlapsOf(a.id)).toEqual([]);
    // A name that is some worktree's unborn HEAD is refused: creating it would change that checkout.
    const other = path.join(d.ws.tmp, "other-wt");
    git(root, ["worktree", "add", "-q", "--detach", other, "HEAD"]);
    git(other, ["symbolic-ref", "HEAD", "refs/heads/fresh"]);
    await expect(capture.apply(b.id, "fresh", "alice")).rejects.toThrow(
      /branch fresh is the unborn branch checked out in worktree other-wt/,
    );
    expect(branches(root).some((l) => l.startsWith("refs/heads/fresh "))).toBe(false);
    expect(await capture.workspaceOverlaps("demo")).toEqual([]);

    // Retention: nothing finished before a cutoff in the past; both runs with a cutoff after their end.
    expect(await capture.prune(new Date(Date.now() - 3_600_000))).toBe(0);
    expect(await capture.prune(new Date(Date.now() + 1000))).toBe(2);
    expect(git(root, ["for-each-ref", "refs/prospero"]).trim()).toBe("");
    expect(await capture.captureOf(b.id)).toMatchObject({
      state: "EXPIRED",
      reason: "removed by retention (--retention-days 30)",
      fileCount: 0,
    });
    expect(await capture.files(b.id, null, 10)).toEqual([]);
    await expect(capture.patch(b.id, null, 10)).rejects.toThrow(/not captured: removed by retention/);
    // The applied branch is the user's now: retention leaves it.
    expect(branches(root).some((l) => l.startsWith("refs/heads/take-a "))).toBe(true);
    const expired = h.published.filter((e) => e.kind === "changes_captured" && e.payload.state === "EXPIRED");
    expect(expired.map((e) => e.agentId).sort()).toEqual([a.id, b.id].sort());
  }, 60_000);
});
