// The git launcher of change capture (issue 17): a small Node process, forked once by the gateway
// (src/capture/git-launcher.ts), that starts the git calls change capture asks for. Starting a
// process from the gateway itself forks the whole gateway — hundreds of MiB of page tables, copied
// on its event loop for every git call; this process is a few tens of MiB, so its forks are cheap
// and the gateway only passes messages.
//
// Protocol (Node IPC, "advanced" serialization; any number of jobs in flight):
//   out, first: { ready: true } — sent before any job is taken, so a helper that dies before
//     saying it never started one;
//   in:  { id, argv: string[], cwd?: string, env: Record<string,string>, timeoutMs, maxBuffer,
//          input?: string | Uint8Array }
//   out: zero or more { id, part: Uint8Array } (stdout in slices of at most PART_BYTES, so a large
//          output never becomes one message the gateway must decode in one go), then
//          { id, stdout: Uint8Array (the rest), stderr: Uint8Array, error: null | { code, message,
//          killed, signal } }
// It runs `git` and nothing else (never a shell), with exactly the environment and deadline the job
// carries (./git-exec.mjs, the same code as the gateway's in-process fallback). It is the leader of its own process group (forked detached): when the gateway goes away
// (its IPC channel closes) it kills the whole group — itself, the gits it started and whatever they
// started — and the gateway kills the group the same way when it gives up on the helper.
import { execGit } from "./git-exec.mjs";

/** Largest slice of a job's stdout sent as one message, bytes. */
const PART_BYTES = 1024 * 1024;

process.on("message", (job) => {
  if (job === null || typeof job !== "object" || typeof job.id !== "number" || !Array.isArray(job.argv))
    return;
  void execGit(job).then(({ stdout, stderr, error }) => {
    let out = stdout ?? Buffer.alloc(0);
    while (out.length > PART_BYTES) {
      process.send?.({ id: job.id, part: out.subarray(0, PART_BYTES) });
      out = out.subarray(PART_BYTES);
    }
    process.send?.({ id: job.id, stdout: out, stderr: stderr ?? Buffer.alloc(0), error });
  });
});

process.on("disconnect", () => {
  try {
    process.kill(-process.pid, "SIGKILL"); // the group: this process, its gits and theirs
  } catch {
    process.exit(0);
  }
});

process.send?.({ ready: true });
