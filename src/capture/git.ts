/**
 * The one way change capture runs git (issue 16 item 1): `execFile`, never a shell, in the
 * capture's helper process (./git-launcher.ts, issue 17), with a deadline (SIGKILL when it passes), a bound on what it may print, an environment
 * built from an allowlist (nothing else of the gateway's environment reaches git: no tokens, no
 * GIT_DIR/GIT_WORK_TREE of whoever started the gateway) and configuration that keeps a user's
 * repository from running anything of its own (`core.fsmonitor=false`, `core.hooksPath=/dev/null`).
 * Why not simple-git: docs/design-notes.md ("Change capture").
 */
import fs from "node:fs";
import { launchGit } from "./git-launcher.js";

/**
 * Why a git call failed:
 * - `timeout`: it ran past its deadline and was killed (SIGKILL);
 * - `output_too_large`: it printed more than `maxOutputBytes` on stdout or stderr and was killed;
 * - `not_a_repository`: git says the directory is not (inside) a git repository, or the directory
 *   it should run in does not exist;
 * - `dubious_ownership`: git refuses a repository owned by another user (`safe.directory`);
 * - `failed`: any other non-zero exit, or git could not be started.
 */
export type GitErrorCode =
  "timeout" | "output_too_large" | "not_a_repository" | "dubious_ownership" | "failed";

/** A git call that did not succeed; `stderr` is git's first line of complaint (≤ 300 chars). */
export class GitError extends Error {
  constructor(
    readonly code: GitErrorCode,
    /** First non-empty line of git's stderr (or the spawn error), at most 300 characters. */
    readonly stderr: string,
    /** The git subcommand and its arguments (for logs). */
    readonly args: readonly string[],
    /** Git's exit code, when it exited. */
    readonly exitCode: number | null = null,
  ) {
    super(`git ${args[0] ?? ""}: ${code}${stderr ? `: ${stderr}` : ""}`);
    this.name = "GitError";
  }
}

/** Options of one git call. */
export interface GitOptions {
  /** Directory git runs in (a working tree). */
  cwd?: string;
  /** `--git-dir=<gitDir>`: run against a repository's (common) git dir, no working tree needed. */
  gitDir?: string;
  /** `GIT_INDEX_FILE`: the index to use instead of the repository's own. */
  indexFile?: string;
  /** Deadline, ms: past it git is killed with SIGKILL and the call fails with `timeout`. */
  timeoutMs: number;
  /** Most bytes git may print on stdout (and on stderr), bytes; beyond it: `output_too_large`. */
  maxOutputBytes: number;
  /**
   * Extra environment; only `GIT_AUTHOR_{NAME,EMAIL,DATE}` and `GIT_COMMITTER_{NAME,EMAIL,DATE}`
   * are passed on, anything else is ignored.
   */
  env?: Readonly<Record<string, string>>;
  /** Written to git's stdin, then stdin is closed (default: stdin closed at once). */
  input?: string | Buffer;
}

/** Configuration every call carries (`-c` before the subcommand). */
const FIXED_CONFIG = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
];

const PASSED_ENV = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/;

/**
 * The environment a git call gets: PATH and HOME of the gateway (so git is found and a user's
 * `~/.gitconfig`, e.g. `safe.directory`, applies), the C locale, no prompts, no optional locks,
 * literal pathspecs; plus the index file and the identity variables when given.
 */
export function gitEnv(opts: Pick<GitOptions, "indexFile" | "env">): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    LANG: "C",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_LITERAL_PATHSPECS: "1",
  };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  if (process.env.HOME !== undefined) env.HOME = process.env.HOME;
  if (opts.indexFile !== undefined) env.GIT_INDEX_FILE = opts.indexFile;
  for (const [k, v] of Object.entries(opts.env ?? {})) if (PASSED_ENV.test(k)) env[k] = v;
  return env;
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.trim().slice(0, 300);
}

interface ExecFailure extends Error {
  code?: string | number | null;
  killed?: boolean;
  signal?: NodeJS.Signals | null;
  stderr?: Buffer | string;
}

function classify(err: ExecFailure, args: readonly string[], timedOut: boolean): GitError {
  const stderrText = Buffer.isBuffer(err.stderr) ? err.stderr.toString("utf8") : (err.stderr ?? "");
  const line = firstLine(stderrText);
  if (err.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") return new GitError("output_too_large", line, args);
  if (timedOut || (err.killed === true && err.signal === "SIGKILL"))
    return new GitError("timeout", line, args);
  if (err.code === "ENOENT" && typeof err.message === "string" && /spawn git ENOENT/.test(err.message))
    return new GitError("failed", "git is not installed (not found on PATH)", args);
  const exitCode = typeof err.code === "number" ? err.code : null;
  if (/detected dubious ownership/i.test(stderrText))
    return new GitError("dubious_ownership", line, args, exitCode);
  if (/not a git repository/i.test(stderrText)) return new GitError("not_a_repository", line, args, exitCode);
  return new GitError("failed", line || firstLine(err.message), args, exitCode);
}

/**
 * Run `git <fixed -c options> [--git-dir=…] <args>` (in the helper process, ./git-launcher.ts) and
 * resolve with its stdout bytes.
 * @throws GitError (see {@link GitErrorCode}); never throws anything else. git is killed at
 *   `timeoutMs` (+ the time the OS takes to reap it); a helper that does not answer fails the call
 *   as `timeout` at `timeoutMs` + `HELPER_GRACE_MS` (git-launcher.ts), killing its process group. A process git
 *   itself started (a clean filter that hangs) is not killed with git at its deadline: it ends on
 *   its own, and its output no longer reaches us (the pipes are closed at the deadline); it is
 *   killed with the helper's group when the gateway exits.
 */
export async function runGitRaw(args: readonly string[], opts: GitOptions): Promise<Buffer> {
  const argv = [...FIXED_CONFIG, ...(opts.gitDir !== undefined ? [`--git-dir=${opts.gitDir}`] : []), ...args];
  const started = Date.now();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(gitEnv(opts))) if (v !== undefined) env[k] = v;
  const r = await launchGit(argv, {
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    env,
    timeoutMs: Math.max(1, Math.floor(opts.timeoutMs)),
    maxBuffer: opts.maxOutputBytes,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  if (r.error === null) return r.stdout;
  const e: ExecFailure = Object.assign(new Error(r.error.message), {
    code: r.error.code,
    killed: r.error.killed,
    signal: r.error.signal,
    stderr: r.stderr,
  });
  // A cwd that does not exist makes spawn fail with ENOENT (as if git were missing).
  if (e.code === "ENOENT" && opts.cwd !== undefined && /spawn/.test(e.message)) {
    throw fs.existsSync(opts.cwd)
      ? classify(e, args, false)
      : new GitError("not_a_repository", `no such directory: ${opts.cwd}`, args);
  }
  throw classify(e, args, e.killed === true && Date.now() - started >= opts.timeoutMs);
}

/**
 * {@link runGitRaw} with stdout decoded as UTF-8 (invalid bytes replaced).
 * @throws GitError
 */
export async function runGit(args: readonly string[], opts: GitOptions): Promise<string> {
  return (await runGitRaw(args, opts)).toString("utf8");
}

/** Split NUL-terminated git output (`-z`) into its fields (the empty tail dropped). */
export function splitNul(out: string): string[] {
  const parts = out.split("\0");
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}
