// Test helper: leave a real, dead Unix socket file at a path (a listener that was SIGKILLed, so
// nothing unlinked it) — what a crashed caliband leaves behind (caliband-protocol.md §1.1, §9).
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";

/** Bind `socketPath` in a child process, SIGKILL it, and resolve once the orphaned socket file remains. */
export async function makeDeadSocket(socketPath: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      "require('node:net').createServer().listen(process.argv[1], () => process.stdout.write('up\\n'))",
      socketPath,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`listener exited early (${code})`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  const info = await stat(socketPath);
  if (!info.isSocket()) throw new Error(`${socketPath} is not a socket`);
}
