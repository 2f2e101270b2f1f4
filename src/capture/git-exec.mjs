// One git call, the way change capture runs every one (issue 16 item 1, issue 17): `execFile` of
// `git` — never a shell — with exactly the environment, working directory, deadline (SIGKILL) and
// output bound the job carries, its stdin written and closed. Shared by the helper process
// (git-exec-helper.mjs) and the gateway's in-process fallback (git-launcher.ts), so the two can
// never differ. Plain JavaScript: the helper runs without tsx. Types: git-exec.d.mts.
import { execFile } from "node:child_process";

/**
 * Run one git job; resolves (never rejects) with `{ stdout, stderr, error }`, `error` null when git
 * exited 0, else `{ code, message, killed, signal }` as `execFile` reports it.
 */
export function execGit(job) {
  return new Promise((resolve) => {
    let child;
    try {
      child = execFile(
        "git",
        job.argv.map(String),
        {
          ...(typeof job.cwd === "string" ? { cwd: job.cwd } : {}),
          env: { ...(job.env ?? {}) },
          encoding: "buffer",
          timeout: Math.max(1, Math.floor(Number(job.timeoutMs) || 1)),
          killSignal: "SIGKILL",
          maxBuffer: Number(job.maxBuffer) || 1024 * 1024,
          windowsHide: true,
          shell: false,
        },
        (err, stdout, stderr) => {
          resolve({
            stdout,
            stderr,
            error: err
              ? {
                  code: err.code ?? null,
                  message: String(err.message),
                  killed: err.killed === true,
                  signal: err.signal ?? null,
                }
              : null,
          });
        },
      );
    } catch (err) {
      resolve({
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        error: { code: err?.code ?? null, message: String(err?.message ?? err), killed: false, signal: null },
      });
      return;
    }
    child.stdin?.on("error", () => {
      // git exited before reading all of its input: its exit status tells what happened
    });
    if (job.input !== undefined && job.input !== null) child.stdin?.end(job.input);
    else child.stdin?.end();
  });
}
