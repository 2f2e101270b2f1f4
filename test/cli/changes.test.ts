/**
 * `prospero diff`, `prospero apply` and `prospero workspace capture` (issue 16 item 2) as a user
 * runs them: the real CLI process against a real gateway and the caliband double, on runs of the
 * double's `fake:edit` script (they really edit files in an isolated worktree that is deleted
 * when they end) — the patch applies with git to the commit the run started from, `--stat` is
 * git's own, the branch lands in the workspace's repository, a run with nothing captured says why
 * and exits 1.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEVER_WATCHED } from "../../src/schema/changes.js";
import { statLines } from "../../src/cli/commands/changes.js";
import { tmpDir } from "../helpers/tmp.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, spawnAgent } from "./run-cli.js";

/** Time for a test with `fake:edit` runs. */
const RUNS_TIMEOUT = 90_000;

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h?.close();
});

const git = (...args: string[]) => execFileSync("git", ["-C", h.d.ws.root, ...args], { encoding: "utf8" });

interface Capture {
  terminal: boolean;
  changes: { state: string; final: boolean; reason: string | null; baseCommit: string; headCommit: string };
}

/** A `fake:edit` run, ended, with its capture settled (final, or its last one with why). */
async function editedRun(): Promise<{ id: string; base: string; head: string; reason: string | null }> {
  const id = await spawnAgent(h.url, "edit things fake:edit");
  const a = await waitFor(
    async () => {
      const r = await h.gql<{ agent: Capture }>(
        `query($id: String!) { agent(agentId: $id) { terminal changes { state final reason baseCommit headCommit } } }`,
        { id },
      );
      const x = r.data?.agent;
      return x?.terminal && x.changes.state === "CAPTURED" && (x.changes.final || x.changes.reason !== null)
        ? x
        : null;
    },
    30_000,
    `${id} captured`,
  );
  return { id, base: a.changes.baseCommit, head: a.changes.headCommit, reason: a.changes.reason };
}

/** A finished run recorded in the store that capture never watched (no daemon lists it). */
async function unwatchedRun(): Promise<string> {
  const id = randomBytes(6).toString("hex");
  await h.app.store.append([], {
    onFailure: "throw",
    extra: (db) => [
      db.agent.create({
        data: {
          id,
          workspace: "demo",
          name: `old-${id}`,
          status: "done",
          spec: { prompt: "from before" },
          startedAt: new Date(Date.now() - 60_000),
          finishedAt: new Date(),
        },
      }),
    ],
  });
  return id;
}

describe("prospero diff", () => {
  it("a run never watched: `not captured: <why>` on stderr, exit 1, nothing on stdout (with and without --stat)", async () => {
    const id = await unwatchedRun();
    for (const args of [
      ["diff", id],
      ["diff", id, "--stat"],
    ]) {
      const r = await cli(h.url, args);
      expect(r, args.join(" ")).toEqual({
        code: 1,
        stdout: "",
        stderr: `prospero: not captured: ${NEVER_WATCHED}\n`,
      });
    }
    const unknown = await cli(h.url, ["diff", "000000000000"]);
    expect(unknown).toMatchObject({ code: 3, stderr: "prospero: agent not found: 000000000000\n" });
  });

  it(
    "after the run and its worktree are gone: the patch (every page) applies with git to the commit it started from",
    async () => {
      const { id, base, head, reason } = await editedRun();
      const r = await cli(h.url, ["diff", id]);
      expect(r.code, r.stderr).toBe(0);
      // A snapshot that is not the final one says so, on stderr (stdout is the patch alone).
      if (reason !== null) expect(r.stderr).toBe(`note: ${reason}\n`);
      expect(r.stdout).toContain("diff --git a/README.md b/README.md");
      expect(r.stdout).toContain(`+edited by fake agent ${id}`);
      expect(r.stdout).toContain(`diff --git a/notes/fake-${id}.md b/notes/fake-${id}.md`);
      // Exactly git's patch of base..head (the text as is: stdout is no terminal).
      expect(r.stdout).toBe(git("diff", "--no-renames", base, head));
      // And it applies where the run started.
      const tree = fs.mkdtempSync(`${h.d.ws.tmp}/apply-`);
      git("worktree", "add", "--detach", tree, base);
      const applied = spawnSync("git", ["-C", tree, "apply", "--index", "-"], {
        input: r.stdout,
        encoding: "utf8",
      });
      expect(applied.status, applied.stderr).toBe(0);
      expect(execFileSync("git", ["-C", tree, "write-tree"], { encoding: "utf8" }).trim()).toBe(
        git("rev-parse", `${head}^{tree}`).trim(),
      );
      git("worktree", "remove", "--force", tree);

      const json = await cli(h.url, ["diff", id, "--json"]);
      expect(json.code).toBe(0);
      const data = JSON.parse(json.stdout) as {
        agent: {
          agentId: string;
          changes: { state: string; fileCount: number; patch: { path: string }[] };
        };
      };
      expect(data.agent.changes.state).toBe("CAPTURED");
      expect(data.agent.changes.patch.map((p) => p.path)).toEqual(
        git("diff", "--no-renames", "--name-only", base, head).trim().split("\n").sort(),
      );
    },
    RUNS_TIMEOUT,
  );

  it(
    "--stat is git's diff --stat of the run's changes",
    async () => {
      const { id, base, head } = await editedRun();
      const r = await cli(h.url, ["diff", id, "--stat"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(git("diff", "--no-renames", "--stat=80", base, head));
      expect(r.stdout).toMatch(/ 2 files changed, \d+ insertions?\(\+\)/);
    },
    RUNS_TIMEOUT,
  );

  it(
    "redirected, a patch with a binary file and one cut at 256 KiB leaves them out, still applies, and exits 1 saying so",
    async () => {
      const id = await spawnAgent(h.url, "edit big things fake:edit fake:hold=60000");
      const wt = await waitFor(() => h.app.fleet.state.agent(id)?.workingDir || null, 20_000, "worktree");
      await waitFor(
        async () => ((await h.app.capture.captureOf(id))?.turnIndex === 1 ? true : null),
        30_000,
        "the turn-1 snapshot",
      );
      fs.writeFileSync(`${wt}/image.bin`, Buffer.from([0, 1, 2, 0, 255, 0, 7]));
      fs.writeFileSync(`${wt}/big.txt`, Array.from({ length: 40_000 }, (_, i) => `line ${i}\n`).join(""));
      await h.app.capture.snapshot(id, "TURN_END");
      const row = (await h.app.capture.captureOf(id))!;
      const r = await cli(h.url, ["diff", id]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("note: big.txt: left out of the patch: its patch is cut at 256 KiB\n");
      expect(r.stderr).toContain("note: image.bin: left out of the patch: a binary file\n");
      expect(r.stderr).toContain(
        `prospero: the patch is incomplete: 2 of 4 files are not in it in full; make a branch of the whole snapshot instead: prospero apply ${id} --branch <name>\n`,
      );
      expect(r.stdout).not.toContain("big.txt");
      expect(r.stdout).not.toContain("image.bin");
      // What was printed is still a patch git applies where the run started.
      const tree = fs.mkdtempSync(`${h.d.ws.tmp}/apply-`);
      git("worktree", "add", "--detach", tree, row.baseCommit!);
      const applied = spawnSync("git", ["-C", tree, "apply", "--check", "-"], {
        input: r.stdout,
        encoding: "utf8",
      });
      expect(applied.status, applied.stderr).toBe(0);
      git("worktree", "remove", "--force", tree);
      h.d.daemon.agent(id)?.release();
    },
    RUNS_TIMEOUT,
  );
});

describe("--stat's layout", () => {
  it("is git's for long names and changes too large for the width (scaled bars, names cut at a slash)", () => {
    const repo = tmpDir("stat-");
    const g = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
    g("init", "-q");
    g("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "base");
    const write = (p: string, lines: number) => {
      fs.mkdirSync(`${repo}/${p.split("/").slice(0, -1).join("/")}`, { recursive: true });
      fs.writeFileSync(`${repo}/${p}`, Array.from({ length: lines }, (_, i) => `line ${i}\n`).join(""));
    };
    write("a.txt", 3);
    write("src/very/deeply/nested/directory/with/a/long/path/to/some-module-file.ts", 240);
    write("docs/guide.md", 57);
    fs.writeFileSync(`${repo}/logo.bin`, Buffer.from([0, 1, 2, 0, 255]));
    g("add", "-A");
    g("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "changes");
    const files = g("diff", "--numstat", "--no-renames", "HEAD~1", "HEAD")
      .trim()
      .split("\n")
      .map((l) => {
        const [a, d, path] = l.split("\t") as [string, string, string];
        const binary = a === "-";
        return { path, additions: binary ? null : Number(a), deletions: binary ? null : Number(d), binary };
      });
    for (const width of [80, 60, 120]) {
      const ours = statLines(files, width).join("\n") + "\n";
      // git adds the sizes of a binary file, which a capture does not keep.
      const theirs = g("diff", "--no-renames", `--stat=${width}`, "HEAD~1", "HEAD").replace(
        / Bin \d+ -> \d+ bytes/,
        " Bin",
      );
      expect(ours, `width ${width}`).toBe(theirs);
    }
  });
});

describe("prospero apply", () => {
  it(
    "creates the branch in the workspace's repository (checkout untouched); a repeat (4), a bad name (4), an unknown run (3), not captured (4)",
    async () => {
      const { id, head } = await editedRun();
      const status = () => git("status", "--porcelain=v2", "--branch", "--untracked-files=all");
      const before = { status: status(), head: git("rev-parse", "HEAD") };
      const r = await cli(h.url, ["apply", id, "--branch", `review/${id}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`^created branch review/${id} at ${head.slice(0, 12)} from the changes of ${id}`),
      );
      expect(git("rev-parse", "--verify", `refs/heads/review/${id}`).trim()).toBe(head);
      expect({ status: status(), head: git("rev-parse", "HEAD") }).toEqual(before);

      const again = await cli(h.url, ["apply", id, "--branch", `review/${id}`]);
      expect(again.code).toBe(4);
      expect(again.stderr).toMatch(new RegExp(`^prospero: apply ${id}: .+ \\[CONFLICT\\]\\n$`));
      const bad = await cli(h.url, ["apply", id, "--branch", "bad..name"]);
      expect(bad.code).toBe(4);
      expect(bad.stderr).toMatch(/\[BAD_USER_INPUT\]\n$/);
      const unknown = await cli(h.url, ["apply", "000000000000", "--branch", "x"]);
      expect(unknown.code).toBe(3);
      const never = await cli(h.url, ["apply", await unwatchedRun(), "--branch", "never"]);
      expect(never.code).toBe(4);
      expect(never.stderr).toMatch(/\[INVALID_STATE\]\n$/);
      expect(git("for-each-ref", "--format=%(refname)", "refs/heads/never", "refs/heads/bad..name")).toBe("");

      const json = await cli(h.url, ["apply", id, "--branch", `review/${id}-2`, "--json"]);
      expect(JSON.parse(json.stdout)).toMatchObject({
        applyChanges: { __typename: "ApplyChangesPayload", branch: `review/${id}-2`, commit: head },
      });
    },
    RUNS_TIMEOUT,
  );

  it("--branch is required (usage error, 2)", async () => {
    const r = await cli(h.url, ["apply", "000000000000"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--branch/);
  });
});

describe("prospero workspace capture", () => {
  const stored = async () =>
    (await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: "demo" } })).captureChanges;

  it("off, then on; an unknown workspace (3); neither on nor off (2)", async () => {
    const off = await cli(h.url, ["workspace", "capture", "demo", "off"]);
    expect(off).toMatchObject({ code: 0, stderr: "" });
    expect(off.stdout).toMatch(/^change capture of demo off/);
    expect(await stored()).toBe(false);
    const json = await cli(h.url, ["workspace", "capture", "demo", "on", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      setChangeCapture: {
        __typename: "SetChangeCapturePayload",
        workspace: { changeCapture: { enabled: true } },
      },
    });
    expect(await stored()).toBe(true);
    const unknown = await cli(h.url, ["workspace", "capture", "nowhere", "off"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/\[NOT_FOUND\]/);
    const bad = await cli(h.url, ["workspace", "capture", "demo", "maybe"]);
    expect(bad.code).toBe(2);
  });
});
