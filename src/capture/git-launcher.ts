/**
 * Where change capture's git processes are started (issue 17): in a small helper process
 * (`git-exec-helper.mjs`), forked once per gateway and kept, not in the gateway itself. Node starts
 * a child by forking the calling process: from a gateway of a few hundred MiB that copies its page
 * tables on the event loop, several ms per git call and a snapshot makes about eight — the largest
 * cost of a fleet whose runs start and end turns (bench/README.md, "Fourth run"). The helper's forks
 * are cheap and the gateway only exchanges one message per call.
 *
 * The helper runs `git` only, never a shell, with exactly the environment and deadline each call
 * carries ({@link launchGit}); it gets no environment of the gateway beyond `PATH` and `HOME`. It is
 * started on the first call, does not keep the gateway alive while idle, and exits (killing the
 * gits it runs) when the gateway does. A helper that exits fails the calls in flight (as a failed
 * git call) and is started again at the next; one that cannot run here at all (it cannot be forked,
 * or exits before its first answer) leaves git to this process, as before.
 */
import { execFile, fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** One git call: what {@link launchGit} runs. */
export interface GitLaunch {
  /** Directory git runs in. */
  cwd?: string;
  /** git's whole environment (nothing else is added). */
  env: Readonly<Record<string, string>>;
  /** Deadline, ms: past it git is killed with SIGKILL. */
  timeoutMs: number;
  /** Most bytes git may print on stdout (and on stderr), bytes. */
  maxBuffer: number;
  /** Written to git's stdin, then stdin is closed (default: closed at once). */
  input?: string | Buffer;
}

/** Why a launched git call did not succeed, as `execFile` reports it. */
export interface GitLaunchError {
  /** Exit code (number), or an errno / Node error code (`ENOENT`, `ERR_CHILD_PROCESS_STDIO_MAXBUFFER`). */
  code: string | number | null;
  message: string;
  /** True when it was killed (its deadline, or its output bound). */
  killed: boolean;
  signal: NodeJS.Signals | null;
}

/** What a git call gave: its output and, when it did not exit 0, why. */
export interface GitLaunchResult {
  stdout: Buffer;
  stderr: Buffer;
  error: GitLaunchError | null;
}

/** How long past a call's own deadline the helper may take to answer before it is replaced, ms. */
export const HELPER_GRACE_MS = 10_000;

interface Pending {
  resolve: (r: GitLaunchResult) => void;
  timer: NodeJS.Timeout;
}

interface HelperReply {
  id: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  error: GitLaunchError | null;
}

const HELPER = fileURLToPath(new URL("./git-exec-helper.mjs", import.meta.url));

const asBuffer = (u: Uint8Array | undefined): Buffer =>
  u === undefined
    ? Buffer.alloc(0)
    : Buffer.isBuffer(u)
      ? u
      : Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The helper process and its calls in flight. */
class Helper {
  private readonly pending = new Map<number, Pending>();
  /** The calls in flight as asked, until the helper has answered once (see {@link exited}). */
  private readonly jobs = new Map<number, { argv: readonly string[]; opts: GitLaunch }>();
  private nextId = 1;
  private gone = false;
  private answeredAny = false;

  private constructor(private readonly child: ChildProcess) {
    child.on("message", (m: HelperReply) => this.answered(m));
    child.on("exit", (code, signal) => this.exited(`exited (${signal ?? `code ${code}`})`));
    child.on("error", (err) => this.exited(`failed: ${err.message}`));
    this.idle();
  }

  /** Fork the helper; null when it cannot be started. */
  static start(): Helper | null {
    const env: Record<string, string> = {};
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    if (process.env.HOME !== undefined) env.HOME = process.env.HOME;
    try {
      const child = fork(HELPER, [], {
        execArgv: [],
        env,
        serialization: "advanced",
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      });
      return new Helper(child);
    } catch {
      return null;
    }
  }

  get alive(): boolean {
    return !this.gone;
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  run(argv: readonly string[], opts: GitLaunch): Promise<GitLaunchResult> {
    const id = this.nextId++;
    return new Promise<GitLaunchResult>((resolve) => {
      const timer = setTimeout(() => {
        // The helper did not answer in time (stopped, or overwhelmed): the call fails as timed out
        // and the helper is replaced, failing its other calls.
        this.settle(id, {
          stdout: Buffer.alloc(0),
          stderr: Buffer.alloc(0),
          error: { code: null, message: "the git helper did not answer", killed: true, signal: "SIGKILL" },
        });
        this.kill();
      }, opts.timeoutMs + HELPER_GRACE_MS);
      this.pending.set(id, { resolve, timer });
      if (!this.answeredAny) this.jobs.set(id, { argv, opts });
      this.busy();
      try {
        this.child.send({
          id,
          argv: [...argv],
          ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
          env: { ...opts.env },
          timeoutMs: opts.timeoutMs,
          maxBuffer: opts.maxBuffer,
          ...(opts.input !== undefined ? { input: opts.input } : {}),
        });
      } catch (err) {
        this.settle(id, failedResult(`the git helper cannot be reached: ${(err as Error).message}`));
        this.kill();
      }
    });
  }

  private answered(m: HelperReply): void {
    if (m === null || typeof m !== "object" || typeof m.id !== "number") return;
    if (!this.answeredAny) {
      this.answeredAny = true;
      this.jobs.clear();
    }
    this.settle(m.id, { stdout: asBuffer(m.stdout), stderr: asBuffer(m.stderr), error: m.error ?? null });
  }

  private settle(id: number, r: GitLaunchResult): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve(r);
    if (this.pending.size === 0) this.idle();
  }

  private exited(why: string): void {
    if (this.gone) return;
    this.gone = true;
    if (current === this) current = null;
    if (!this.answeredAny) {
      // It never answered (it cannot run here: no such file, a node that refuses it): git runs in
      // this process from now on, beginning with the calls it was given.
      broken = true;
      for (const [id, p] of [...this.pending]) {
        this.pending.delete(id);
        clearTimeout(p.timer);
        const job = this.jobs.get(id);
        this.jobs.delete(id);
        if (job) void launchInProcess(job.argv, job.opts).then(p.resolve);
        else p.resolve(failedResult(`the git helper ${why}`));
      }
      return;
    }
    for (const id of [...this.pending.keys()]) this.settle(id, failedResult(`the git helper ${why}`));
  }

  private kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    this.exited("was stopped (it did not answer)");
  }

  /** Calls in flight: the helper keeps the gateway's event loop alive, as a running git would. */
  private busy(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  /** Nothing in flight: an idle helper never keeps the gateway from exiting. */
  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
  }
}

const failedResult = (message: string): GitLaunchResult => ({
  stdout: Buffer.alloc(0),
  stderr: Buffer.alloc(0),
  error: { code: null, message, killed: false, signal: null },
});

let current: Helper | null = null;
/** The helper cannot run here (it exited before answering anything): git runs in this process. */
let broken = false;

/** The helper's pid while it runs (null before the first call, after it exited, or when git runs in this process). */
export function gitHelperPid(): number | null {
  return current?.alive ? current.pid : null;
}

/**
 * Run `git <argv>` through the helper process (see the module comment); in this process when the
 * helper cannot be started. Never rejects: a failure is in the result's `error`, as `execFile`
 * reports it (plus a helper that exits or does not answer within {@link HELPER_GRACE_MS} past the
 * deadline: a failed, respectively killed, call).
 */
export function launchGit(argv: readonly string[], opts: GitLaunch): Promise<GitLaunchResult> {
  if (broken) return launchInProcess(argv, opts);
  if (current === null || !current.alive) current = Helper.start();
  if (current === null) return launchInProcess(argv, opts);
  return current.run(argv, opts);
}

/** `execFile` in this process: the path taken when the helper cannot be started. */
function launchInProcess(argv: readonly string[], opts: GitLaunch): Promise<GitLaunchResult> {
  return new Promise<GitLaunchResult>((resolve) => {
    let child: ChildProcess;
    try {
      child = execFile(
        "git",
        [...argv],
        {
          ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
          env: { ...opts.env },
          encoding: "buffer",
          timeout: Math.max(1, Math.floor(opts.timeoutMs)),
          killSignal: "SIGKILL",
          maxBuffer: opts.maxBuffer,
          windowsHide: true,
          shell: false,
        },
        (err, stdout, stderr) => {
          const e = err as
            | (Error & { code?: string | number | null; killed?: boolean; signal?: NodeJS.Signals | null })
            | null;
          resolve({
            stdout,
            stderr,
            error: e
              ? {
                  code: e.code ?? null,
                  message: e.message,
                  killed: e.killed === true,
                  signal: e.signal ?? null,
                }
              : null,
          });
        },
      );
    } catch (err) {
      resolve(failedResult((err as Error).message));
      return;
    }
    child.stdin?.on("error", () => {
      // git exited before reading all of its input: its exit status tells what happened
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}
