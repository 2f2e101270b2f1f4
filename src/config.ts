/**
 * Gateway configuration: one zod-validated object built from command-line flags, `PROSPERO_*`
 * environment variables and defaults (flags win over env, env over defaults). A bad value is a
 * {@link ConfigError} naming the flag and env var and the accepted form.
 */
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { ConfigError } from "./errors.js";
import { LOG_LEVELS } from "./log.js";

/** The validated gateway configuration. Durations are in ms; `port` 0 picks a free port. */
export interface Config {
  /** Directory holding `prospero.db` and caliband autostart logs. */
  dataDir: string;
  /** Interface the HTTP server binds, e.g. `127.0.0.1`. */
  bind: string;
  /** TCP port, 0–65535 (0 = pick a free one and log it). */
  port: number;
  /** pino log level. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** Interval between polls of every workspace's caliband, ms. */
  pollIntervalMs: number;
  /** caliband executable used for autostart (a path, or a name resolved on PATH). */
  calibandBin: string;
  /** Whether the gateway may start a caliband that does not answer. */
  autostart: boolean;
  /** Delete events older than this many days (0 = keep forever). */
  retentionDays: number;
  /** Demo mode: a temporary workspace served by the built-in caliband simulator. */
  demo: boolean;
}

/** One setting's description: its flag, env var and accepted form (used in error messages). */
interface SettingSpec {
  key: keyof Config;
  flag: string;
  env: string;
  expected: string;
  schema: z.ZodType<unknown>;
}

const boolString = z
  .union([z.boolean(), z.enum(["1", "0", "true", "false", "yes", "no", "on", "off"])])
  .transform((v) => (typeof v === "boolean" ? v : ["1", "true", "yes", "on"].includes(v)));

const intString = (min: number, max: number) =>
  z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).pipe(z.number().int().min(min).max(max));

const SETTINGS: readonly SettingSpec[] = [
  {
    key: "dataDir",
    flag: "--data-dir",
    env: "PROSPERO_DATA_DIR",
    expected: "a directory path",
    schema: z.string().min(1),
  },
  {
    key: "bind",
    flag: "--bind",
    env: "PROSPERO_BIND",
    expected: "an IP address or host name such as 127.0.0.1",
    schema: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9.:[\]-]+$/),
  },
  {
    key: "port",
    flag: "--port",
    env: "PROSPERO_PORT",
    expected: "an integer port 0–65535 (0 picks a free port)",
    schema: intString(0, 65535),
  },
  {
    key: "logLevel",
    flag: "--log-level",
    env: "PROSPERO_LOG_LEVEL",
    expected: `one of ${LOG_LEVELS.join(", ")}`,
    schema: z.enum(LOG_LEVELS),
  },
  {
    key: "pollIntervalMs",
    flag: "--poll-interval-ms",
    env: "PROSPERO_POLL_INTERVAL_MS",
    expected: "an integer number of milliseconds, 50–3600000",
    schema: intString(50, 3_600_000),
  },
  {
    key: "calibandBin",
    flag: "--caliband-bin",
    env: "PROSPERO_CALIBAND_BIN",
    expected: "a path to the caliband executable, or a command name on PATH",
    schema: z.string().min(1),
  },
  {
    key: "autostart",
    flag: "--no-autostart",
    env: "PROSPERO_AUTOSTART",
    expected: "true or false",
    schema: boolString,
  },
  {
    key: "retentionDays",
    flag: "--retention-days",
    env: "PROSPERO_RETENTION_DAYS",
    expected: "an integer number of days, 0 (keep forever) to 36500",
    schema: intString(0, 36_500),
  },
  {
    key: "demo",
    flag: "--demo",
    env: "PROSPERO_DEMO",
    expected: "true or false",
    schema: boolString,
  },
];

/**
 * Default data dir: `$XDG_DATA_HOME/prospero` when XDG_DATA_HOME is an absolute path, else
 * `~/.local/share/prospero` (XDG Base Directory spec).
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "prospero");
  return path.join(
    env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(),
    ".local",
    "share",
    "prospero",
  );
}

/** Defaults for every setting. */
export function defaultConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    dataDir: defaultDataDir(env),
    bind: "127.0.0.1",
    port: 7878,
    logLevel: "info",
    pollIntervalMs: 2000,
    calibandBin: "caliband",
    autostart: true,
    retentionDays: 0,
    demo: false,
  };
}

/**
 * Resolve the configuration. `flags` holds values given on the command line (undefined = not
 * given), keyed like {@link Config}. Empty env values are ignored.
 * @throws ConfigError naming the first invalid setting and its accepted form.
 */
export function resolveConfig(
  flags: Partial<Record<keyof Config, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const out: Record<string, unknown> = { ...defaultConfig(env) };
  for (const s of SETTINGS) {
    const fromFlag = flags[s.key];
    const fromEnv = env[s.env];
    let raw: unknown;
    let source: string;
    if (fromFlag !== undefined) {
      raw = fromFlag;
      source = s.flag;
    } else if (fromEnv !== undefined && fromEnv !== "") {
      raw = fromEnv;
      source = s.env;
    } else {
      continue;
    }
    const parsed = s.schema.safeParse(raw);
    if (!parsed.success) {
      throw new ConfigError(`${s.flag} / ${s.env}`, s.expected, `got ${JSON.stringify(raw)} from ${source}`);
    }
    out[s.key] = parsed.data;
  }
  const cfg = out as unknown as Config;
  cfg.dataDir = path.resolve(cfg.dataDir);
  return cfg;
}
