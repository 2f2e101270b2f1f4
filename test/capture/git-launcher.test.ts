/**
 * Where change capture's git runs (issue 17): in the helper process, never forked from the gateway
 * itself; the helper ends with the gateway (killing the gits it runs), and one that dies mid-call
 * fails that call as a GitError and is replaced at the next.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitError, runGit } from "../../src/capture/git.js";
import { gitHelperPid } from "../../src/capture/git-launcher.js";
import { waitFor } from "../helpers/fleet-harness.js";

const tmps: string[] = [];
afterEach(() => {
  for (const d of tmps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "pgl-"));
  tmps.push(d);
  return d;
}

/** Field 4 of /proc/<pid>/stat: the parent's pid. */
function ppidOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
};

const opts = (cwd: string, timeoutMs = 20_000) => ({ cwd, timeoutMs, maxOutputBytes: 1 << 20 });

describe("capture's git launcher", () => {
  it("git is started by the helper process, not by the gateway's", async () => {
    const dir = tmp();
    // A `!` alias runs in a shell whose parent is git: it prints git's own stat line.
    const stat = await runGit(["-c", "alias.who=!cat /proc/$PPID/stat", "who"], opts(dir));
    const gitParent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const helper = gitHelperPid();
    expect(helper).not.toBeNull();
    expect(gitParent).toBe(helper);
    expect(gitParent).not.toBe(process.pid);
    expect(ppidOf(helper!)).toBe(process.pid);
    expect(fs.readFileSync(`/proc/${helper}/cmdline`, "utf8")).toContain("git-exec-helper.mjs");
    // The helper gets no environment of the gateway's beyond PATH and HOME (NODE_CHANNEL_* is
    // Node's own IPC plumbing); git gets exactly its allowlist (src/capture/git.ts gitEnv).
    const keys = (text: string, sep: string) =>
      text
        .split(sep)
        .filter(Boolean)
        .map((e) => e.slice(0, e.indexOf("=")))
        .sort();
    const present = (ks: string[]) => ks.filter((k) => process.env[k] !== undefined);
    expect(
      keys(fs.readFileSync(`/proc/${helper}/environ`, "utf8"), "\0").filter(
        (k) => !k.startsWith("NODE_CHANNEL_"),
      ),
    ).toEqual(present(["HOME", "PATH"]));
    const gitEnviron = await runGit(
      ["-c", "alias.env=!tr '\\0' '\\n' < /proc/$PPID/environ", "env"],
      opts(dir),
    );
    expect(keys(gitEnviron, "\n")).toEqual(
      [
        "GIT_LITERAL_PATHSPECS",
        "GIT_OPTIONAL_LOCKS",
        "GIT_TERMINAL_PROMPT",
        "LANG",
        "LC_ALL",
        ...present(["HOME", "PATH"]),
      ].sort(),
    );
  });

  it("a helper killed mid-call fails that call as a GitError; the next call gets a new helper", async () => {
    const dir = tmp();
    const marker = path.join(dir, "git-pid");
    const hung = runGit(["-c", `alias.hang=!echo $PPID > ${marker}; sleep 30`, "hang"], opts(dir)).then(
      () => null,
      (e: unknown) => e,
    );
    await waitFor(() => fs.existsSync(marker) && fs.readFileSync(marker, "utf8").trim() !== "", 10_000);
    const first = gitHelperPid()!;
    // The helper leads its own process group: killing the group ends the alias's shell and sleep.
    process.kill(-first, "SIGKILL");
    const err = await hung;
    expect(err).toBeInstanceOf(GitError);
    expect((err as GitError).code).toBe("failed");
    expect((err as GitError).message).toMatch(/git helper exited/);
    const top = await runGit(["rev-parse", "--is-inside-work-tree"], opts(dir)).catch((e: unknown) => e);
    expect(top).toBeInstanceOf(GitError); // not a repository: git ran and answered
    expect((top as GitError).code).toBe("not_a_repository");
    expect(gitHelperPid()).not.toBeNull();
    expect(gitHelperPid()).not.toBe(first);
  });

  it("an output of several MiB arrives whole, in order (the helper sends it in slices)", async () => {
    const dir = tmp();
    const n = 3 * 1024 * 1024 + 17;
    const out = await runGit(["-c", `alias.big=!head -c ${n} /dev/zero | tr '\\0' 'a'; printf END`, "big"], {
      cwd: dir,
      timeoutMs: 20_000,
      maxOutputBytes: 8 << 20,
    });
    expect(out.length).toBe(n + 3);
    expect(out.endsWith("aaaEND")).toBe(true);
    expect(/^a+END$/.test(out)).toBe(true);
    // The output bound still holds.
    const capped = await runGit(["-c", `alias.big=!head -c ${n} /dev/zero`, "big"], {
      cwd: dir,
      timeoutMs: 20_000,
      maxOutputBytes: 1 << 20,
    }).catch((e: unknown) => e);
    expect(capped).toBeInstanceOf(GitError);
    expect((capped as GitError).code).toBe("output_too_large");
  });

  it("a gateway killed with SIGKILL takes its helper, the helper's running git and what git started with it", async () => {
    const dir = tmp();
    const marker = path.join(dir, "git-pid");
    const shellMarker = path.join(dir, "shell-pid");
    const launcher = new URL("../../src/capture/git.js", import.meta.url).href;
    const helperOf = new URL("../../src/capture/git-launcher.js", import.meta.url).href;
    const code = `
      const { runGit } = await import(${JSON.stringify(launcher)});
      const { gitHelperPid } = await import(${JSON.stringify(helperOf)});
      void runGit(["-c", ${JSON.stringify(`alias.hang=!echo $$ > ${shellMarker}; echo $PPID > ${marker}; sleep 30`)}, "hang"],
        { cwd: ${JSON.stringify(dir)}, timeoutMs: 60000, maxOutputBytes: 1024 }).catch(() => {});
      setTimeout(() => console.log(String(gitHelperPid())), 200);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
    try {
      await waitFor(
        () => /^\d+\n/.test(out) && fs.existsSync(marker) && fs.readFileSync(marker, "utf8").trim() !== "",
        20_000,
      );
      const helper = Number(out.trim());
      const gitPid = Number(fs.readFileSync(marker, "utf8").trim());
      const shellPid = Number(fs.readFileSync(shellMarker, "utf8").trim());
      expect(ppidOf(helper)).toBe(child.pid);
      expect(ppidOf(gitPid)).toBe(helper);
      expect(ppidOf(shellPid)).toBe(gitPid);
      child.kill("SIGKILL");
      await waitFor(
        () => !alive(helper) && !alive(gitPid) && !alive(shellPid),
        10_000,
        "helper, git and the alias's shell gone",
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
