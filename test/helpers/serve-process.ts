/**
 * Runs `prospero serve` as a real child process for end-to-end tests. Each process gets its own
 * XDG_RUNTIME_DIR (unless the test gives one), so the endpoint records gateways write for local
 * clients stay out of the user's own state directory.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tmpDir } from "./tmp.js";

/** Path of the `prospero` executable. */
export const PROSPERO_BIN = path.resolve(import.meta.dirname, "../../bin/prospero.js");

/** A started gateway process. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** Base URL parsed from the "gateway listening" log line (http or https). */
  url: string;
  /** Everything written to stderr so far. */
  stderr: () => string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** The environment it runs with (its XDG_RUNTIME_DIR holds its endpoint record). */
  env: NodeJS.ProcessEnv;
}

/** The environment of a child gateway or CLI: ours, a private XDG_RUNTIME_DIR, then `env`. */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, XDG_RUNTIME_DIR: tmpDir("xdg-"), PROSPERO_ADMIN_TOKEN: undefined, ...env };
}

/** Run `prospero <args>` to completion; resolves with exit code, stdout and stderr. */
export function runProspero(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PROSPERO_BIN, ...args], { env: childEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Start `prospero serve --port 0 <args>` and wait until it logs its URL.
 * @throws (rejects) if the process exits first or nothing is logged within `timeoutMs`.
 */
export function startServe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 20_000,
): Promise<ServeProcess> {
  const fullEnv = childEnv(env);
  const child = spawn(process.execPath, [PROSPERO_BIN, "serve", "--port", "0", ...args], { env: fullEnv });
  let stderr = "";
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`prospero serve did not log its URL within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /"url":"(https?:\/\/[^"]+)"/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stderr: () => stderr, exited, env: fullEnv });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`prospero serve exited (${code}) before listening:\n${stderr}`));
    });
  });
}

/** Poll `url` until it answers `status`, or fail after `timeoutMs`. */
export async function waitForStatus(url: string, status: number, timeoutMs = 15_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === status) return res;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
}

/**
 * The admin token of a started gateway: read from the token file its "open the dashboard" log line
 * names (waiting up to `timeoutMs` for that line).
 * @throws Error when the line does not appear in time.
 */
export async function serveToken(p: ServeProcess, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const m = /"tokenFile":"([^"]+)"/.exec(p.stderr());
    if (m?.[1]) return fs.readFileSync(m[1], "utf8").trim();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the gateway never logged its token file:\n${p.stderr()}`);
}
