// Starts a real `prospero serve` from this checkout as a child process, the way an operator would:
// `node ../bin/prospero.js serve --port 0 --data-dir <tmp> ...`, reading its URL from the "gateway
// listening" log line and its admin token from the token file its "open the dashboard" line names,
// then waiting for /readyz to answer 200. Plain Node (run.mjs uses it before TypeScript exists);
// type-checked through JSDoc by `tsc --strict` (tsconfig.json: allowJs + checkJs).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout whose gateway is tested (the parent of consumer/). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The `prospero` executable of that checkout. */
export const PROSPERO_BIN = path.join(REPO_ROOT, "bin", "prospero.js");

/**
 * A started gateway.
 * @typedef {object} Gateway
 * @property {string} url Base URL, e.g. `http://127.0.0.1:41234` (GraphQL is at `${url}/graphql`).
 * @property {string} token The admin token (send as `Authorization: Bearer <token>`).
 * @property {number} pid Process id of the gateway.
 * @property {() => string} stderr Everything it logged so far (pino JSON lines).
 * @property {() => Promise<number | string>} stop SIGTERM, wait for the exit (SIGKILL after 20 s);
 *   resolves with the exit code or signal name. Removes the temp dirs it made.
 */

/**
 * Start `prospero serve --port 0 --data-dir <fresh tmp dir> ...args` and wait until it listens,
 * has written its admin token and answers 200 on /readyz.
 * Each gateway gets its own XDG_RUNTIME_DIR (its endpoint record stays out of the user's) and no
 * PROSPERO_* variables from our environment (they would change its settings).
 * @param {string[]} args Extra `serve` flags, e.g. `["--demo"]` or `["--trusted-documents-only"]`.
 * @param {{ timeoutMs?: number }} [opts] How long the whole start may take (default 30 s).
 * @returns {Promise<Gateway>}
 * @throws {Error} (rejects) when the process exits first or a step does not happen in time; the
 *   message carries its stderr. The process is killed then.
 */
export async function startGateway(args, opts = {}) {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-consumer-"));
  const dataDir = path.join(scratch, "data");
  const runtimeDir = path.join(scratch, "xdg");
  fs.mkdirSync(runtimeDir, { mode: 0o700 });
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("PROSPERO_")) env[k] = v;
  env["XDG_RUNTIME_DIR"] = runtimeDir;
  const child = spawn(
    process.execPath,
    [PROSPERO_BIN, "serve", "--port", "0", "--data-dir", dataDir, ...args],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (/** @type {Buffer} */ d) => (stderr += d.toString()));
  /** @type {Promise<number | string>} */
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  let exitCode = /** @type {number | string | null} */ (null);
  void exited.then((c) => (exitCode = c));

  const stop = async () => {
    if (exitCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(scratch, { recursive: true, force: true });
    return /** @type {number | string} */ (exitCode ?? (await exited));
  };

  const deadline = Date.now() + timeoutMs;
  /** @param {string} what */
  const fail = async (what) => {
    await stop();
    throw new Error(`prospero serve ${args.join(" ")}: ${what}\n--- its stderr ---\n${stderr}`);
  };
  /** @param {RegExp} re @returns {Promise<string | null>} */
  const waitForLog = async (re) => {
    while (Date.now() < deadline && exitCode === null) {
      const m = re.exec(stderr);
      if (m?.[1]) return m[1];
      await new Promise((r) => setTimeout(r, 25));
    }
    return null;
  };

  const url = await waitForLog(/"url":"(https?:\/\/[^"]+)"/);
  if (url === null) return fail(exitCode === null ? "never logged its URL" : `exited (${exitCode})`);
  const tokenFile = await waitForLog(/"tokenFile":"([^"]+)"/);
  if (tokenFile === null)
    return fail(exitCode === null ? "never logged its token file" : `exited (${exitCode})`);
  const token = fs.readFileSync(tokenFile, "utf8").trim();
  let last = "";
  while (Date.now() < deadline && exitCode === null) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) {
        return { url, token, pid: child.pid ?? -1, stderr: () => stderr, stop };
      }
      last = `HTTP ${res.status}: ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return fail(`/readyz did not answer 200 (last: ${last})`);
}
