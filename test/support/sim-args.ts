// Command line of caliband-sim: caliband's own flags and env fallbacks (docs/caliband-protocol.md
// §5.1, §6) mapped onto FakeCaliband options.
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import type { FakeCalibandOptions } from "./fake-caliband.js";
import { workspaceSlug } from "./paths.js";

/** Usage text printed for `-h/--help` (stderr, exit 0). */
export const USAGE =
  "Usage: caliband --workspace-root <path> [--repo-root <path>] [--socket-path <path>]\n" +
  "                [--data-base <path>] [--listen <host:port>]\n" +
  "                [--advertise-host <host>] [--agent-port-base <port>]\n" +
  "                [--tls-cert <pem> --tls-key <pem>] [--tls-ca <pem>]\n" +
  "                [--tls-server-name <name>] [--token <bearer>]\n" +
  "(caliband-sim: the Prospero test double; each worker is a process of its own)";

/** Thrown for every command-line/config problem; the process exits 2 with the message on stderr. */
export class UsageError extends Error {}

/** Non-empty value of an env var, like caliband's `env_opt`. */
function envOpt(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const v = env[key];
  return v === undefined || v === "" ? undefined : v;
}

function readPem(flag: string, file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`${flag}: ${(e as Error).message}`);
  }
}

function nonNegativeInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name}: invalid digit found in string`);
  return Number(raw);
}

/**
 * Parses caliband's flags (flags win over `CALIBAN_DAEMON_*` env, empty env ignored) into
 * FakeCaliband options. Returns `"help"` for `-h/--help`. Throws {@link UsageError}.
 *
 * The double's own env knobs: `CALIBAN_SIM_DATA_BASE` is a directory holding one session store PER
 * WORKSPACE ROOT, `<base>/<slug of the root>/agents` (caliband's own layout under its data dir,
 * §5.6), so daemons of different roots never share agents (issue 12 item 12); `--data-base` is the
 * store itself, as for caliband. `CALIBAN_SIM_WORKERS=in-process` runs workers inside the sim
 * instead of as processes of their own (the default in Unix mode, so they outlive a killed sim);
 * `CALIBAN_SIM_FRAME_DELAY_MS`, `CALIBAN_SIM_BIND_DELAY_MS` pace the scripted runs.
 */
export function parseSimArgs(argv: string[], env: NodeJS.ProcessEnv): FakeCalibandOptions | "help" {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        "workspace-root": { type: "string" },
        "repo-root": { type: "string" },
        "socket-path": { type: "string" },
        "data-base": { type: "string" },
        listen: { type: "string" },
        "advertise-host": { type: "string" },
        "agent-port-base": { type: "string" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        "tls-ca": { type: "string" },
        "tls-server-name": { type: "string" },
        token: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (e) {
    const msg = (e as Error).message;
    const arg = /'([^']+)'/.exec(msg)?.[1];
    const code = (e as { code?: string }).code;
    if (
      arg !== undefined &&
      (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" || code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    ) {
      throw new UsageError(`unknown arg: ${arg}`);
    }
    throw new UsageError(msg.split("\n")[0] ?? msg);
  }
  if (values.help === true) return "help";
  const str = (k: string): string | undefined => {
    const v = values[k];
    return typeof v === "string" ? v : undefined;
  };
  const root = str("workspace-root") ?? str("repo-root");
  const listen = str("listen") ?? envOpt(env, "CALIBAN_DAEMON_LISTEN");
  const advertiseHost = str("advertise-host") ?? envOpt(env, "CALIBAN_DAEMON_ADVERTISE_HOST");
  const portBase =
    nonNegativeInt("--agent-port-base", str("agent-port-base")) ??
    nonNegativeInt("CALIBAN_DAEMON_AGENT_PORT_BASE", envOpt(env, "CALIBAN_DAEMON_AGENT_PORT_BASE"));
  if (portBase !== undefined && portBase > 65535)
    throw new UsageError("--agent-port-base: number too large to fit in target type");
  const certFile = str("tls-cert") ?? envOpt(env, "CALIBAN_DAEMON_TLS_CERT");
  const keyFile = str("tls-key") ?? envOpt(env, "CALIBAN_DAEMON_TLS_KEY");
  const token = str("token") ?? envOpt(env, "CALIBAN_DAEMON_TOKEN");
  if (root === undefined) throw new UsageError("--workspace-root required (or --repo-root)");

  const opts: FakeCalibandOptions = { workspaceRoot: root, env };
  const socketPath = str("socket-path");
  if (socketPath !== undefined) opts.socketPath = socketPath;
  const dataBase = str("data-base");
  const simBase = envOpt(env, "CALIBAN_SIM_DATA_BASE");
  if (dataBase !== undefined) opts.dataBase = dataBase;
  else if (simBase !== undefined) opts.dataBase = path.join(simBase, workspaceSlug(root), "agents");
  const workers = envOpt(env, "CALIBAN_SIM_WORKERS");
  if (workers !== undefined && workers !== "process" && workers !== "in-process") {
    throw new UsageError(
      `CALIBAN_SIM_WORKERS: expected process or in-process, got ${JSON.stringify(workers)}`,
    );
  }
  opts.workerProcesses = workers !== "in-process";
  const frameDelay = nonNegativeInt("CALIBAN_SIM_FRAME_DELAY_MS", envOpt(env, "CALIBAN_SIM_FRAME_DELAY_MS"));
  if (frameDelay !== undefined) opts.frameDelayMs = frameDelay;
  const bindDelay = nonNegativeInt("CALIBAN_SIM_BIND_DELAY_MS", envOpt(env, "CALIBAN_SIM_BIND_DELAY_MS"));
  if (bindDelay !== undefined) opts.bindDelayMs = bindDelay;

  if (listen !== undefined) {
    if ((certFile === undefined) !== (keyFile === undefined)) {
      throw new UsageError("--tls-cert and --tls-key must be given together");
    }
    const cert = certFile === undefined ? undefined : readPem("--tls-cert", certFile);
    const key = keyFile === undefined ? undefined : readPem("--tls-key", keyFile);
    if (token === undefined || token.trim() === "") {
      throw new UsageError(
        "--listen: a non-empty bearer token is required for network (--listen) mode; refusing to bind an unauthenticated listener",
      );
    }
    if (cert === undefined || key === undefined) {
      throw new UsageError(
        "--listen: TLS (--tls-cert/--tls-key) is required for network (--listen) mode; refusing to send the bearer token over plaintext",
      );
    }
    opts.tcp = { listen, cert, key, token };
    if (advertiseHost !== undefined) opts.tcp.advertiseHost = advertiseHost;
    if (portBase !== undefined) opts.tcp.agentPortBase = portBase;
  }
  return opts;
}
