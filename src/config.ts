/**
 * Gateway configuration: one zod-validated object built from command-line flags, `PROSPERO_*`
 * environment variables and defaults (flags win over env, env over defaults). A bad value is a
 * {@link ConfigError} naming the flag and env var and the accepted form.
 */
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { ConfigError } from "./errors.js";
import { LOG_LEVELS } from "./log.js";
import { isLoopbackAddress } from "./auth/http-policy.js";
import { parseEnvPatterns } from "./fleet/provider.js";
import { HEALTH_CHECKS, validateThreshold } from "./attention/thresholds.js";
import { databaseUrlSchema, redactDatabaseUrl } from "./store/database-url.js";

/** The validated gateway configuration. Durations are in ms; `port` 0 picks a free port. */
export interface Config {
  /**
   * Directory holding `prospero.db` (unless {@link Config.databaseUrl}), the admin token, the
   * data-dir lock and caliband autostart logs.
   */
  dataDir: string;
  /**
   * PostgreSQL store (`--database-url postgres://…` / `PROSPERO_DATABASE_URL`, issue 18 item 1);
   * null = the embedded SQLite file in the data dir. Never logged or echoed with its password.
   */
  databaseUrl: string | null;
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
  /**
   * Serve without authentication (`--insecure-no-auth`): every request is admin. Refused with a
   * non-loopback bind; warned about at every start.
   */
  insecureNoAuth: boolean;
  /** Exact origins (`https://host[:port]`) allowed to call the API cross-origin with a bearer token. */
  corsOrigins: string[];
  /** Host names, besides loopback names and IP literals, that the gateway answers to. */
  publicHosts: string[];
  /** PEM certificate chain file for HTTPS/WSS, or null. */
  tlsCert: string | null;
  /** PEM private key file for HTTPS/WSS, or null. */
  tlsKey: string | null;
  /** Addresses of reverse proxies whose X-Forwarded-For/-Proto are believed; only they may connect. */
  trustProxy: string[];
  /** Operator additions to the env allowlist of workspace configs (`*` wildcards). */
  allowEnv: string[];
  /** Absolute directories workspace roots must be inside (empty = anywhere allowed). */
  allowRoots: string[];
  /**
   * Absolute directories holding the operator's credentials of remote calibands, one directory
   * per endpoint (`<host>_<port>/ca.pem`, `token`, `server-name`; `--caliband-credentials-dir`,
   * repeatable; issue 18 item 5). Empty = `<dataDir>/calibands`. None may be or hold the data dir.
   */
  calibandCredentialsDirs: string[];
  /** Most WebSocket connections open at once (graphql-ws), gateway-wide. */
  maxConnections: number;
  /**
   * Run only the registered documents of the SDK, CLI and dashboard (`--trusted-documents-only`;
   * the manifest `trusted-documents.json`, src/server/trusted-documents.ts).
   */
  trustedDocumentsOnly: boolean;
  /**
   * The launch queue's GLOBAL concurrency cap when given (`--max-concurrent`; stored at start,
   * replacing one set through the API); null = the stored cap, else 5 (issue 14 item 2).
   */
  maxConcurrent: number | null;
  /**
   * Operator additions to the signatures of transient provider failures that launches retry
   * (`--transient-error <regex>`, repeatable; case-insensitive; src/queue/retry.ts has the defaults).
   */
  transientErrors: string[];
  /**
   * Serve `GET /metrics` without a token on this loopback address too (`--metrics-bind host:port`,
   * for a Prometheus scraper on this host; issue 15 item 4); null = only on the gateway's port,
   * behind a viewer token.
   */
  metricsBind: { host: string; port: number } | null;
  /**
   * Log line format (`--log-format`): `json` (one JSON object per line), `pretty` (readable lines,
   * pino-pretty), `auto` (pretty when stderr is a terminal, else JSON).
   */
  logFormat: "auto" | "json" | "pretty";
  /**
   * Health-check thresholds given on the command line (`--health-threshold check=value`,
   * repeatable; src/attention/thresholds.ts lists checks, units and ranges), stored at start.
   */
  healthThresholds: Record<string, number>;
  /** How often the health monitor runs its checks, ms (`--health-interval-ms`, default 30 000). */
  healthIntervalMs: number;
  /**
   * Notify an inbox item again when it has been open this long, then every such period, ms
   * (`--inbox-escalate-after-ms`, default 24 h; 0 = never).
   */
  inboxEscalateAfterMs: number;
  /**
   * At most this many new or changed files go into one snapshot of a run's working tree; the rest
   * are left out and the capture says so (`--capture-max-files`, default 5000; issue 16 item 1).
   */
  captureMaxFiles: number;
  /** A file larger than this is left out of a snapshot, bytes (`--capture-max-file-bytes`, default 10 MiB). */
  captureMaxFileBytes: number;
  /** At most this many bytes of new or changed files go into one snapshot (`--capture-max-bytes`, default 100 MiB). */
  captureMaxBytes: number;
}

/** One setting's description: its flag, env var and accepted form (used in error messages). */
interface SettingSpec {
  key: keyof Config;
  flag: string;
  env: string;
  expected: string;
  schema: z.ZodType<unknown>;
  /** The value may hold a secret: an error shows it redacted (`redact`), never as given. */
  redact?: (raw: unknown) => string;
  /**
   * A list setting: the flag is repeatable (its value is an array) and the env var holds the
   * items separated by this string; `schema` checks one item.
   */
  separator?: string;
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
    key: "databaseUrl",
    flag: "--database-url",
    env: "PROSPERO_DATABASE_URL",
    expected: "a PostgreSQL URL, postgres://user[:password]@host[:port]/database (or ?host=/socket/dir)",
    schema: databaseUrlSchema,
    redact: (raw) => (typeof raw === "string" ? redactDatabaseUrl(raw) : "(not a string)"),
  },
  {
    key: "bind",
    flag: "--bind",
    env: "PROSPERO_BIND",
    expected:
      "an IP address (such as 127.0.0.1, ::1 or 0.0.0.0) or a host name of this machine (such as localhost)",
    schema: z.string().refine(isBindAddressForm),
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
  {
    key: "insecureNoAuth",
    flag: "--insecure-no-auth",
    env: "PROSPERO_INSECURE_NO_AUTH",
    expected: "true or false",
    schema: boolString,
  },
  {
    key: "corsOrigins",
    flag: "--cors-origin",
    env: "PROSPERO_CORS_ORIGINS",
    expected:
      "origins such as https://ops.example.com (scheme, host, optional port; no path), comma-separated in the env var",
    separator: ",",
    schema: z
      .string()
      .refine((o) => {
        try {
          const u = new URL(o);
          return (u.protocol === "http:" || u.protocol === "https:") && u.origin === o.replace(/\/$/, "");
        } catch {
          return false;
        }
      })
      .transform((o) => new URL(o).origin),
  },
  {
    key: "publicHosts",
    flag: "--public-host",
    env: "PROSPERO_PUBLIC_HOSTS",
    expected: "DNS names such as prospero.example.com (no port), comma-separated in the env var",
    separator: ",",
    schema: z
      .string()
      .regex(/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*$/)
      .transform((h) => h.toLowerCase()),
  },
  {
    key: "tlsCert",
    flag: "--tls-cert",
    env: "PROSPERO_TLS_CERT",
    expected: "the path of a PEM certificate (chain) file",
    schema: z.string().min(1),
  },
  {
    key: "tlsKey",
    flag: "--tls-key",
    env: "PROSPERO_TLS_KEY",
    expected: "the path of a PEM private key file",
    schema: z.string().min(1),
  },
  {
    key: "trustProxy",
    flag: "--trust-proxy",
    env: "PROSPERO_TRUST_PROXY",
    expected: "IP addresses of reverse proxies, comma-separated in the env var",
    separator: ",",
    schema: z.string().refine((a) => net.isIP(a) !== 0),
  },
  {
    key: "allowEnv",
    flag: "--allow-env",
    env: "PROSPERO_ALLOW_ENV",
    expected:
      "environment variable names or patterns with * (e.g. MY_TOOL_*), comma-separated in the env var",
    separator: ",",
    schema: z.string().regex(/^[A-Za-z_*][A-Za-z0-9_*]*$/),
  },
  {
    key: "allowRoots",
    flag: "--allow-root",
    env: "PROSPERO_ALLOW_ROOTS",
    expected: "absolute directory paths, separated by ':' in the env var",
    separator: ":",
    schema: z
      .string()
      .refine((p) => path.isAbsolute(p))
      .transform((p) => path.resolve(p)),
  },
  {
    key: "calibandCredentialsDirs",
    flag: "--caliband-credentials-dir",
    env: "PROSPERO_CALIBAND_CREDENTIALS_DIRS",
    expected: "absolute directory paths, separated by ':' in the env var",
    separator: ":",
    schema: z
      .string()
      .refine((p) => path.isAbsolute(p) && !p.includes("\0"))
      .transform((p) => path.resolve(p)),
  },
  {
    key: "maxConnections",
    flag: "--max-connections",
    env: "PROSPERO_MAX_CONNECTIONS",
    expected: "an integer number of WebSocket connections, 1–100000",
    schema: intString(1, 100_000),
  },
  {
    key: "maxConcurrent",
    flag: "--max-concurrent",
    env: "PROSPERO_MAX_CONCURRENT",
    expected: "an integer number of concurrent runs for the launch queue, 0–10000",
    schema: intString(0, 10_000),
  },
  {
    key: "transientErrors",
    flag: "--transient-error",
    env: "PROSPERO_TRANSIENT_ERRORS",
    expected: "regular expressions matching transient provider errors, separated by '|||' in the env var",
    separator: "|||",
    schema: z.string().refine((p) => {
      try {
        new RegExp(p, "i");
        return p.length > 0 && p.length <= 500;
      } catch {
        return false;
      }
    }),
  },
  {
    key: "metricsBind",
    flag: "--metrics-bind",
    env: "PROSPERO_METRICS_BIND",
    expected: "a loopback address and port, such as 127.0.0.1:9464 or [::1]:9464 (port 1–65535)",
    schema: z.string().transform((v, ctx) => {
      const m = /^(?:\[([0-9a-fA-F:]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(v);
      const host = m ? (m[1] ?? m[2] ?? "") : "";
      const port = m ? Number(m[3]) : 0;
      if (!m || port < 1 || port > 65535 || !isLoopbackAddress(host)) {
        ctx.addIssue({ code: "custom", message: "not a loopback host:port" });
        return z.NEVER;
      }
      return { host, port };
    }),
  },
  {
    key: "logFormat",
    flag: "--log-format",
    env: "PROSPERO_LOG_FORMAT",
    expected: "auto, json or pretty",
    schema: z.enum(["auto", "json", "pretty"]),
  },
  {
    key: "healthThresholds",
    flag: "--health-threshold",
    env: "PROSPERO_HEALTH_THRESHOLDS",
    expected: `check=value items with a whole number in the check's unit (no suffixes such as 2m or 1GiB), separated by ',' in the env var; checks: ${HEALTH_CHECKS.map((c) => `${c.id} (${c.unit}, ${c.min}–${c.max})`).join(", ")}`,
    separator: ",",
    schema: z.string().transform((v, ctx) => {
      const m = /^([a-z_]+)=([0-9]+)$/.exec(v.trim());
      if (!m) {
        ctx.addIssue({ code: "custom", message: "not check=value" });
        return z.NEVER;
      }
      try {
        validateThreshold(m[1]!, Number(m[2]));
      } catch {
        ctx.addIssue({ code: "custom", message: "unknown check or value out of range" });
        return z.NEVER;
      }
      return [m[1]!, Number(m[2])] as const;
    }),
  },
  {
    key: "healthIntervalMs",
    flag: "--health-interval-ms",
    env: "PROSPERO_HEALTH_INTERVAL_MS",
    expected: "an integer number of milliseconds, 1000–3600000",
    schema: intString(1_000, 3_600_000),
  },
  {
    key: "inboxEscalateAfterMs",
    flag: "--inbox-escalate-after-ms",
    env: "PROSPERO_INBOX_ESCALATE_AFTER_MS",
    expected: "an integer number of milliseconds, 0 (never) or 60000–2592000000 (30 days)",
    schema: intString(0, 2_592_000_000).refine((n) => n === 0 || n >= 60_000),
  },
  {
    key: "captureMaxFiles",
    flag: "--capture-max-files",
    env: "PROSPERO_CAPTURE_MAX_FILES",
    expected: "an integer number of files, 1–1000000",
    schema: intString(1, 1_000_000),
  },
  {
    key: "captureMaxFileBytes",
    flag: "--capture-max-file-bytes",
    env: "PROSPERO_CAPTURE_MAX_FILE_BYTES",
    expected: "an integer number of bytes, 1–1073741824 (1 GiB)",
    schema: intString(1, 1_073_741_824),
  },
  {
    key: "captureMaxBytes",
    flag: "--capture-max-bytes",
    env: "PROSPERO_CAPTURE_MAX_BYTES",
    expected: "an integer number of bytes, 1–10737418240 (10 GiB)",
    schema: intString(1, 10_737_418_240),
  },
  {
    key: "trustedDocumentsOnly",
    flag: "--trusted-documents-only",
    env: "PROSPERO_TRUSTED_DOCUMENTS_ONLY",
    expected: "true or false",
    schema: boolString,
  },
];

/**
 * A DNS host name (RFC 1123 labels of letters, digits and inner hyphens, at most 63 characters
 * each and 253 in all) whose last label is not all digits (RFC 3696 §2: so `999.1.1.1`, which is
 * neither an IPv4 address nor a name, is refused instead of being looked up).
 */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*(?=[A-Za-z0-9-]*[A-Za-z-])[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/;

/**
 * The accepted form of `--bind`: an IP literal (IPv4, or IPv6 without brackets, as `listen`
 * takes it) or a host name (see {@link HOST_NAME}). Whether a name resolves to an address of
 * this machine is checked at start, before anything is created (src/app.ts).
 */
export function isBindAddressForm(value: string): boolean {
  return net.isIP(value) !== 0 || HOST_NAME.test(value);
}

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
    databaseUrl: null,
    bind: "127.0.0.1",
    port: 7878,
    logLevel: "info",
    pollIntervalMs: 2000,
    calibandBin: "caliband",
    autostart: true,
    retentionDays: 0,
    demo: false,
    insecureNoAuth: false,
    corsOrigins: [],
    publicHosts: [],
    tlsCert: null,
    tlsKey: null,
    trustProxy: [],
    allowEnv: [],
    allowRoots: [],
    calibandCredentialsDirs: [],
    maxConnections: 256,
    trustedDocumentsOnly: false,
    maxConcurrent: null,
    transientErrors: [],
    metricsBind: null,
    logFormat: "auto",
    healthThresholds: {},
    healthIntervalMs: 30_000,
    inboxEscalateAfterMs: 86_400_000,
    captureMaxFiles: 5_000,
    captureMaxFileBytes: 10 * 1024 * 1024,
    captureMaxBytes: 100 * 1024 * 1024,
  };
}

/**
 * Resolve the configuration. `flags` holds values given on the command line (undefined = not
 * given; arrays for list settings), keyed like {@link Config}. Empty env values are ignored.
 * Cross-setting rules (issue 11): TLS needs both files; a bind other than loopback needs TLS or
 * `--trust-proxy`; `--insecure-no-auth` is refused with a bind other than loopback.
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
    if (s.separator !== undefined) {
      const items = Array.isArray(raw)
        ? (raw as unknown[])
        : String(raw)
            .split(s.separator)
            .map((x) => x.trim())
            .filter((x) => x !== "");
      const values: unknown[] = [];
      for (const item of items) {
        const parsed = s.schema.safeParse(item);
        if (!parsed.success) {
          throw new ConfigError(
            `${s.flag} / ${s.env}`,
            s.expected,
            `got ${JSON.stringify(item)} from ${source}`,
          );
        }
        values.push(parsed.data);
      }
      out[s.key] = [...new Set(values)];
      continue;
    }
    const parsed = s.schema.safeParse(raw);
    if (!parsed.success) {
      const shown = s.redact ? s.redact(raw) : JSON.stringify(raw);
      throw new ConfigError(`${s.flag} / ${s.env}`, s.expected, `got ${shown} from ${source}`);
    }
    out[s.key] = parsed.data;
  }
  // `--health-threshold` items arrive as [check, value] pairs: the last one of a check wins.
  const pairs = out.healthThresholds;
  if (Array.isArray(pairs)) out.healthThresholds = Object.fromEntries(pairs as [string, number][]);
  const cfg = out as unknown as Config;
  cfg.dataDir = path.resolve(cfg.dataDir);
  for (const dir of cfg.calibandCredentialsDirs) {
    const rel = path.relative(dir, cfg.dataDir);
    // A credentials directory holding the data dir would offer its admin token as a caliband token.
    if (rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))) {
      throw new ConfigError(
        "--caliband-credentials-dir / PROSPERO_CALIBAND_CREDENTIALS_DIRS",
        "directories that neither are nor contain the data dir",
        `${dir} holds the data dir ${cfg.dataDir}`,
      );
    }
  }
  parseEnvPatterns(cfg.allowEnv, "--allow-env / PROSPERO_ALLOW_ENV");
  checkExposure(cfg);
  return cfg;
}

/** The cross-setting rules of {@link resolveConfig}. @throws ConfigError */
function checkExposure(cfg: Config): void {
  if ((cfg.tlsCert === null) !== (cfg.tlsKey === null)) {
    throw new ConfigError(
      "--tls-cert / --tls-key",
      "both a certificate and its key, or neither",
      "only one was given",
    );
  }
  const loopback = isLoopbackAddress(cfg.bind);
  if (cfg.insecureNoAuth && !loopback) {
    throw new ConfigError(
      "--insecure-no-auth",
      "a loopback --bind (127.0.0.1, ::1 or localhost) when authentication is off",
      `refusing to serve without authentication on ${cfg.bind}`,
    );
  }
  if (cfg.insecureNoAuth && cfg.trustProxy.length > 0) {
    throw new ConfigError(
      "--insecure-no-auth",
      "no --trust-proxy when authentication is off",
      "behind a proxy everyone who can reach the proxy would be admin",
    );
  }
  if (!loopback && cfg.tlsCert === null && cfg.trustProxy.length === 0) {
    throw new ConfigError(
      "--bind / PROSPERO_BIND",
      "a loopback address, or TLS (--tls-cert and --tls-key) or a trusted reverse proxy (--trust-proxy <its address>) for any other",
      `${cfg.bind} would expose the API, the dashboard and their tokens in clear text to the network`,
    );
  }
}
