/** Types of ./git-exec.mjs (plain JavaScript, shared with the helper process). */

/** One git call. */
export interface GitJob {
  /** git's arguments (after `git`). */
  argv: readonly string[];
  /** Directory git runs in. */
  cwd?: string;
  /** git's whole environment (nothing else is added). */
  env: Readonly<Record<string, string>>;
  /** Deadline, ms: past it git is killed with SIGKILL. */
  timeoutMs: number;
  /** Most bytes git may print on stdout (and on stderr), bytes. */
  maxBuffer: number;
  /** Written to git's stdin, then stdin is closed (default: closed at once). */
  input?: string | Uint8Array;
}

/** Why a git call did not succeed, as `execFile` reports it. */
export interface GitJobError {
  /** Exit code (number), or an errno / Node error code (`ENOENT`, `ERR_CHILD_PROCESS_STDIO_MAXBUFFER`); null when unknown. */
  code: string | number | null;
  /** execFile's message (the command line and the first of git's complaint). */
  message: string;
  /** True when it was killed (its deadline, or its output bound). */
  killed: boolean;
  /** The signal that ended git, if one did. */
  signal: NodeJS.Signals | null;
}

/** What a git call gave: its output and, when it did not exit 0, why. */
export interface GitJobResult {
  stdout: Buffer;
  stderr: Buffer;
  error: GitJobError | null;
}

/** Run one git job (`execFile`, no shell, SIGKILL at the deadline); never rejects. */
export function execGit(job: GitJob): Promise<GitJobResult>;
