// The git launcher of change capture (issue 17): a small Node process, forked once by the gateway
// (src/capture/git-launcher.ts), that starts the git calls change capture asks for. Starting a
// process from the gateway itself forks the whole gateway — hundreds of MiB of page tables, copied
// on its event loop for every git call; this process is a few tens of MiB, so its forks are cheap
// and the gateway only passes messages.
//
// Protocol (Node IPC, "advanced" serialization; one message per job, any number in flight):
//   in:  { id, argv: string[], cwd?: string, env: Record<string,string>, timeoutMs, maxBuffer,
//          input?: string | Uint8Array }
//   out: { id, stdout: Uint8Array, stderr: Uint8Array, error: null | { code, message, killed,
//          signal } }
// It runs `git` and nothing else (never a shell), with exactly the environment and deadline the job
// carries. When the gateway goes away (its IPC channel closes) it kills the gits it started and
// exits.
import { execFile } from "node:child_process";

/** The git processes running now, by job id. */
const running = new Map();

process.on("message", (job) => {
  if (job === null || typeof job !== "object" || typeof job.id !== "number" || !Array.isArray(job.argv))
    return;
  const reply = (error, stdout, stderr) => {
    running.delete(job.id);
    process.send?.({
      id: job.id,
      stdout: stdout ?? Buffer.alloc(0),
      stderr: stderr ?? Buffer.alloc(0),
      error,
    });
  };
  let child;
  try {
    child = execFile(
      "git",
      job.argv.map(String),
      {
        ...(typeof job.cwd === "string" ? { cwd: job.cwd } : {}),
        env: job.env ?? {},
        encoding: "buffer",
        timeout: Math.max(1, Math.floor(Number(job.timeoutMs) || 1)),
        killSignal: "SIGKILL",
        maxBuffer: Number(job.maxBuffer) || 1024 * 1024,
        windowsHide: true,
        shell: false,
      },
      (err, stdout, stderr) => {
        const error = err
          ? {
              code: err.code ?? null,
              message: String(err.message),
              killed: err.killed === true,
              signal: err.signal ?? null,
            }
          : null;
        reply(error, stdout, stderr);
      },
    );
  } catch (err) {
    reply({ code: err?.code ?? null, message: String(err?.message ?? err), killed: false, signal: null });
    return;
  }
  running.set(job.id, child);
  child.stdin?.on("error", () => {
    // git exited before reading all of its input: its exit status tells what happened
  });
  if (job.input !== undefined && job.input !== null) child.stdin?.end(job.input);
  else child.stdin?.end();
});

process.on("disconnect", () => {
  for (const child of running.values()) child.kill("SIGKILL");
  process.exit(0);
});
