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
 * git call; none is run twice) and is started again at the next; one that cannot run here at all (it
 * cannot be forked, or exits before it says it is ready) leaves git to this process, as before. A
 * large output comes in 1 MiB messages, so decoding it never stalls the gateway in one piece.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { execGit, type GitJob, type GitJobError, type GitJobResult } from "./git-exec.mjs";

/** One git call: what {@link launchGit} runs (./git-exec.d.mts: cwd, env, timeoutMs, maxBuffer, input). */
export type GitLaunch = Omit<GitJob, "argv">;

/** Why a launched git call did not succeed, as `execFile` reports it (./git-exec.d.mts). */
export type GitLaunchError = GitJobError;

/** What a git call gave: its output and, when it did not exit 0, why (./git-exec.d.mts). */
export type GitLaunchResult = GitJobResult;

/** How long past a call's own deadline the helper may take to answer before it is replaced, ms. */
export const HELPER_GRACE_MS = 10_000;

/** Longest delay a Node timer takes (2^31 − 1 ms); a call's deadline plus grace is capped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Pending {
  resolve: (r: GitLaunchResult) => void;
  timer: NodeJS.Timeout;
  /** stdout slices received so far (the helper sends a large output in parts). */
  parts: Buffer[];
  argv: readonly string[];
  opts: GitLaunch;
}

/** What the helper sends: its ready signal, a slice of a job's stdout, or a job's end. */
type HelperMessage =
  | { ready: true }
  | { id: number; part: Uint8Array }
  | { id: number; stdout: Uint8Array; stderr: Uint8Array; error: GitLaunchError | null };

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
  private nextId = 1;
  private gone = false;
  /** The helper said it is ready: from then on a job it was given may have started. */
  private ready = false;

  private constructor(private readonly child: ChildProcess) {
    child.on("message", (m: HelperMessage) => this.received(m));
    child.on("exit", (code, signal) => this.exited(`exited (${signal ?? `code ${code}`})`));
    child.on("error", (err) => this.exited(`failed: ${err.message}`));
    this.idle();
  }

  /**
   * Fork the helper (detached: the leader of its own process group, so the group — the helper, its
   * gits and what they start — can be killed as one); null when it cannot be started.
   */
  static start(): Helper | null {
    const env: Record<string, string> = {};
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    if (process.env.HOME !== undefined) env.HOME = process.env.HOME;
    try {
      const child = fork(HELPER, [], {
        execArgv: [],
        env,
        cwd: "/",
        detached: true,
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
      const timer = setTimeout(
        () => {
          // The helper did not answer in time (stopped, or overwhelmed): the call fails as timed
          // out and the helper's group is killed, failing its other calls; the next starts anew.
          this.settle(id, {
            stdout: Buffer.alloc(0),
            stderr: Buffer.alloc(0),
            error: { code: null, message: "the git helper did not answer", killed: true, signal: "SIGKILL" },
          });
          this.kill();
        },
        Math.min(MAX_TIMER_MS, opts.timeoutMs + HELPER_GRACE_MS),
      );
      this.pending.set(id, { resolve, timer, parts: [], argv, opts });
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

  private received(m: HelperMessage): void {
    if (m === null || typeof m !== "object") return;
    if ("ready" in m) {
      this.ready = true;
      return;
    }
    if (typeof m.id !== "number") return;
    if ("part" in m) {
      this.pending.get(m.id)?.parts.push(asBuffer(m.part));
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    const rest = asBuffer(m.stdout);
    const stdout = p.parts.length === 0 ? rest : Buffer.concat([...p.parts, rest]);
    this.settle(m.id, { stdout, stderr: asBuffer(m.stderr), error: m.error ?? null });
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
    if (!this.ready) {
      // It exited before saying it was ready (it cannot run here: no such file, a node that
      // refuses it), so it started none of its jobs: git runs in this process from now on,
      // beginning with those.
      broken = true;
      process.emitWarning(
        `change capture's git helper ${why} before it was ready; git now runs in the gateway process`,
        { code: "PROSPERO_GIT_HELPER" },
      );
      for (const [id, p] of [...this.pending]) {
        this.pending.delete(id);
        clearTimeout(p.timer);
        void launchInProcess(p.argv, p.opts).then(p.resolve);
      }
      return;
    }
    // A job it was given may have run (or be running): each fails, none is run again.
    for (const id of [...this.pending.keys()]) this.settle(id, failedResult(`the git helper ${why}`));
  }

  /** Kill the helper's process group (the helper, its gits and their children), then forget it. */
  private kill(): void {
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        this.child.kill("SIGKILL");
      }
    }
    this.ready = true; // what it was given may have run: fail it, do not run it again
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
/** The helper cannot run here (it exited before it was ready): git runs in this process. */
let broken = false;

/** The helper's pid while it runs (null before the first call, after it exited, or when git runs in this process). */
export function gitHelperPid(): number | null {
  return current?.alive ? current.pid : null;
}

/**
 * Run `git <argv>` through the helper process (see the module comment); in this process when the
 * helper cannot run. Never rejects: a failure is in the result's `error`, as `execFile` reports it
 * (plus a helper that exits mid-call: a failed call; one that does not answer within
 * {@link HELPER_GRACE_MS} past the deadline: a killed call, and its process group is killed).
 */
export function launchGit(argv: readonly string[], opts: GitLaunch): Promise<GitLaunchResult> {
  if (broken) return launchInProcess(argv, opts);
  if (current === null || !current.alive) current = Helper.start();
  if (current === null) return launchInProcess(argv, opts);
  return current.run(argv, opts);
}

/** git in this process (./git-exec.mjs, the helper's own code): the path taken when the helper cannot run. */
function launchInProcess(argv: readonly string[], opts: GitLaunch): Promise<GitLaunchResult> {
  return execGit({ argv, ...opts });
}
