/** Runs the real `bin/prospero.js` as a child process (asynchronously: the gateway may live in this process). */
import { spawn } from "node:child_process";
import net from "node:net";
import { PROSPERO_BIN } from "../helpers/serve-process.js";
import { HARNESS_TOKENS } from "../helpers/app-harness.js";

/** What a CLI run produced. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `prospero <args>` with PROSPERO_URL=`url` (unless `env` overrides it), NO_COLOR unset and
 * pipes for stdout/stderr (so no TTY: no colors, no spinner). For a gateway started by
 * `startAppHarness` in this process, PROSPERO_TOKEN is its admin token (unless `env` sets it).
 * @throws (rejects) when it does not exit within `timeoutMs` (the process is killed).
 */
export function cli(
  url: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 20_000,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROSPERO_BIN, ...args], {
      env: {
        ...process.env,
        PROSPERO_URL: url,
        FORCE_COLOR: undefined,
        ...harnessToken(url),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`prospero ${args.join(" ")} did not exit within ${timeoutMs} ms\n${stdout}\n${stderr}`),
      );
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** PROSPERO_TOKEN for `url`: its harness's admin token, else the only harness's (a proxy in front of it). */
function harnessToken(url: string): { PROSPERO_TOKEN?: string } {
  const token =
    HARNESS_TOKENS.get(url) ?? (HARNESS_TOKENS.size === 1 ? [...HARNESS_TOKENS.values()][0] : undefined);
  return token ? { PROSPERO_TOKEN: token } : {};
}

/** Run with `--json` and parse stdout. @throws when the exit code is not 0 or stdout is not JSON. */
export async function cliJson<T>(url: string, args: string[]): Promise<T> {
  const r = await cli(url, [...args, "--json"]);
  if (r.code !== 0) throw new Error(`prospero ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** A TCP port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `spawn <workspace> <prompt> --json` and return the new agent's id. */
export async function spawnAgent(url: string, prompt: string, extra: string[] = []): Promise<string> {
  const data = await cliJson<{ spawnAgent: { __typename: string; agent?: { agentId: string } } }>(url, [
    "spawn",
    "demo",
    prompt,
    ...extra,
  ]);
  if (!data.spawnAgent.agent) throw new Error(`spawn failed: ${JSON.stringify(data)}`);
  return data.spawnAgent.agent.agentId;
}

/** A TCP proxy in front of the gateway whose connections a test can cut (the listener stays). */
export interface CuttableProxy {
  /** `http://127.0.0.1:<port>` of the proxy. */
  url: string;
  /** Destroy every open connection (both sides). */
  cut(): void;
  close(): Promise<void>;
}

/** Start a {@link CuttableProxy} to `target` (an `http://host:port` URL). */
export async function cuttableProxy(target: string): Promise<CuttableProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on("close", () => open.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      for (const s of open) s.destroy();
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
