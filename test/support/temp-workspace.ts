// Throwaway workspace layouts for tests of the caliband double: a short temp dir (Unix socket paths
// must stay under 108 bytes) holding a git checkout, a runtime dir and a session store.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** Paths of one temp layout; `cleanup()` removes all of it. */
export interface TempWorkspace {
  /** The mkdtemp directory (`<os tmpdir>/cb-XXXXXX`). */
  tmp: string;
  /** Workspace root: `<tmp>/src/<name>`, a git checkout with one commit (README.md). */
  root: string;
  /** Value for `CALIBAN_DAEMON_RUNTIME_DIR`: `<tmp>/run`. */
  runtime: string;
  /** Session store base: `<tmp>/data/agents`. */
  data: string;
  cleanup(): void;
}

/** Runs git non-interactively in `cwd` with a fixed identity and no signing/hooks. */
export function git(cwd: string, args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.email=fake@example.invalid", "-c", "user.name=fake", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8", env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } },
  );
}

/** Makes `dir` a git checkout with one commit containing README.md. */
export function initGitRepo(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ["-c", "init.defaultBranch=main", "init", "-q"]);
  fs.writeFileSync(path.join(dir, "README.md"), "# scratch repo\nhello from the fake worker\n");
  git(dir, ["add", "README.md"]);
  git(dir, ["commit", "-q", "-m", "init"]);
}

/** Creates a fresh layout; `name` is the root's basename (its source name, §2.6). */
export function makeTempWorkspace(name = "demo-repo", withGit = true): TempWorkspace {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cb-"));
  const root = path.join(tmp, "src", name);
  fs.mkdirSync(root, { recursive: true });
  if (withGit) initGitRepo(root);
  return {
    tmp,
    root,
    runtime: path.join(tmp, "run"),
    data: path.join(tmp, "data", "agents"),
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
}
