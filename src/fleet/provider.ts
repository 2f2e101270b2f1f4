/**
 * Per-workspace provider configuration: validation (reference #120), the policy of what it may
 * put into a process's environment (issue 11 §7), and the daemon environment overlay it implies
 * (protocol §5.3). The provider itself reaches workers only through `SpawnSpec.provider`
 * (caliban #93); base URLs, keys and extra env reach them through the daemon's environment at
 * autostart, so changing those needs a daemon restart.
 *
 * What reaches a process is an ALLOWLIST ({@link DEFAULT_ENV_ALLOW} plus the operator's
 * `--allow-env` patterns), never a denylist: a workspace's `env` is inherited by caliband, every
 * worker and every tool command an agent runs, so a variable such as `NODE_OPTIONS`,
 * `LD_PRELOAD` or `GIT_CONFIG_COUNT/KEY_0/VALUE_0=core.fsmonitor` would run code as the gateway's
 * user without any agent involved. The policy is enforced on input (add/update) and again when
 * the daemon's environment is built ({@link daemonEnvOverlay}), so a stored config from before the
 * policy still loads but never reaches a process.
 */
import { z } from "zod";
import { ConfigError } from "../errors.js";
import { ProviderMisconfigured, ValidationFailed, type FieldIssue } from "../errors.js";

/** LLM providers caliband workers accept (§2.2 `SpawnSpec.provider`). */
export const PROVIDERS = ["anthropic", "openai", "ollama", "google"] as const;
/** A provider name. */
export type Provider = (typeof PROVIDERS)[number];

/** Env var names per provider (§5.3): base URL variable and API key variable (null = keyless). */
export const PROVIDER_ENV: Readonly<Record<Provider, { baseUrl: string; apiKey: string | null }>> = {
  anthropic: { baseUrl: "ANTHROPIC_BASE_URL", apiKey: "ANTHROPIC_API_KEY" },
  openai: { baseUrl: "OPENAI_BASE_URL", apiKey: "OPENAI_API_KEY" },
  ollama: { baseUrl: "OLLAMA_BASE_URL", apiKey: null },
  google: { baseUrl: "GEMINI_BASE_URL", apiKey: "GEMINI_API_KEY" },
};

/** A workspace's provider configuration as stored (never contains a key value). */
export interface ProviderConfig {
  provider: Provider | null;
  /** Base URL for the provider's API (http or https). */
  baseUrl: string | null;
  /** NAME of a gateway environment variable holding the API key. */
  apiKeyFromEnv: string | null;
  /**
   * Extra environment variables for the daemon and its workers. Values are write-only for API
   * clients (they may hold secrets): return names and whether a value is set, never the value.
   */
  env: Record<string, string>;
  /** Default model for spawns that do not name one. */
  model: string | null;
}

/** The empty configuration: caliban's defaults. */
export const EMPTY_PROVIDER_CONFIG: ProviderConfig = {
  provider: null,
  baseUrl: null,
  apiKeyFromEnv: null,
  env: {},
  model: null,
};

/** Environment variable names: `[A-Za-z_][A-Za-z0-9_]*` (POSIX portable names, any case). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Caps on a config's `env` (each value reaches `execve`, whose argument+env space is finite). */
export const ENV_LIMITS = {
  /** Most entries in one config's `env`. */
  entries: 256,
  /** Longest variable name, characters. */
  nameLength: 256,
  /** Longest value, characters. */
  valueLength: 32_768,
} as const;

const envName = z
  .string()
  .max(ENV_LIMITS.nameLength, `at most ${ENV_LIMITS.nameLength} characters`)
  .regex(ENV_NAME, "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");

/** zod schema of a provider configuration input (shape only; coherence and policy are checked separately). */
export const ProviderConfigInputSchema = z.object({
  provider: z.string().nullish(),
  baseUrl: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "must be an http or https URL")
    .nullish(),
  apiKeyFromEnv: envName.nullish(),
  env: z
    .record(
      envName,
      z
        .string()
        .max(ENV_LIMITS.valueLength, `at most ${ENV_LIMITS.valueLength} characters`)
        .refine((v) => !v.includes("\0"), "must not contain a NUL character"),
    )
    .refine((e) => Object.keys(e).length <= ENV_LIMITS.entries, `at most ${ENV_LIMITS.entries} variables`)
    .nullish(),
  model: z.string().min(1).nullish(),
});

/** Input accepted by {@link validateProviderConfig}: every env entry has its value. */
export type ProviderConfigInput = z.input<typeof ProviderConfigInputSchema>;

// ─── Env policy ──────────────────────────────────────────────────────────────────────────────

/** One built-in allowlist entry: a name pattern, why agents need it, and an optional value rule. */
export interface EnvAllowRule {
  /** Name pattern (`*` matches any run of name characters). */
  pattern: string;
  /** Why the variable may reach caliband, its workers and agents. */
  why: string;
  /** Values must match `test` (described by `expected`); absent = any value. */
  value?: { test: RegExp; expected: string };
}

/**
 * Locale values: names such as `en_US.UTF-8`, `C.UTF-8`, `de_DE@euro`, `en_US:en` (LANGUAGE).
 * No `/`: a locale name with a slash makes the C library load locale data from that path.
 */
const LOCALE_VALUE = {
  test: /^[A-Za-z0-9_.@:+-]*$/,
  expected: "a locale name (letters, digits and . _ @ : + -; no '/', not a path)",
};

/**
 * The variables a workspace's `env` may set without operator action, and why. Anything else is
 * refused unless an operator `--allow-env` pattern matches it. Deliberately absent: every loader,
 * interpreter and tool hook (`LD_*`, `DYLD_*`, `NODE_*`, `PYTHON*`, `PERL*`, `RUBY*`, `BASH_ENV`,
 * `ENV`, `GIT_*`, `PATH`, …), proxies (`HTTP_PROXY`, `https_proxy`, …), `HOME` and `XDG_*`
 * (settings paths: caliban reads hooks from there, §5.3), and the daemon's own `CALIBAN_*`
 * transport settings (listen address, TLS, token). Names are case-sensitive.
 */
export const DEFAULT_ENV_ALLOW: readonly EnvAllowRule[] = [
  { pattern: "ANTHROPIC_*", why: "anthropic provider settings (base URL, key, ANTHROPIC_VERSION; §5.3)" },
  {
    pattern: "OPENAI_*",
    why: "openai provider settings (base URL, key, OPENAI_ORG_ID, OPENAI_PROJECT; §5.3)",
  },
  { pattern: "GEMINI_*", why: "google provider settings (GEMINI_BASE_URL, GEMINI_API_KEY; §5.3)" },
  { pattern: "OLLAMA_*", why: "ollama provider settings (OLLAMA_BASE_URL; §5.3)" },
  {
    pattern: "CALIBAN_AGENT_IDLE_TIMEOUT_SECS",
    why: "the worker's idle timeout (§5.3); other CALIBAN_* variables configure the daemon's transport",
  },
  { pattern: "LANG", why: "locale of agents' tools", value: LOCALE_VALUE },
  { pattern: "LANGUAGE", why: "message language of agents' tools", value: LOCALE_VALUE },
  { pattern: "LC_*", why: "locale categories of agents' tools", value: LOCALE_VALUE },
  {
    pattern: "TZ",
    why: "time zone of agents' tools",
    value: {
      test: /^(?!:?\/)(?!.*\.\.)[A-Za-z0-9_+\-:,./<>]*$/,
      expected: "a time zone name or POSIX TZ rule (e.g. Europe/Berlin, UTC, EST5EDT), not a file path",
    },
  },
  { pattern: "NO_COLOR", why: "asks tools for uncolored output" },
];

/** Patterns `apiKeyFromEnv` may name without operator action (the gateway variable holding a key). */
export const DEFAULT_API_KEY_SOURCES: readonly string[] = ["*_API_KEY"];

/**
 * Variables `env` may never set, whatever the operator allows: they move the daemon's control
 * socket away from where Prospero looks for it (protocol §1.1, §9 env divergence).
 */
export const RESERVED_ENV: readonly string[] = ["CALIBAN_DAEMON_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR"];

/** `apiKeyFromEnv` never names these, whatever the operator allows: the gateway's own settings and secrets. */
export const GATEWAY_SECRET_PATTERN = "PROSPERO_*";

/** Accepted form of an `--allow-env` pattern (for messages). */
export const ENV_PATTERN_EXPECTED =
  "an environment variable name, optionally with * wildcards (e.g. MY_VAR, MYCO_*, *_TOKEN); characters A-Z a-z 0-9 _ *, not starting with a digit";

const ENV_PATTERN = /^[A-Za-z_*][A-Za-z0-9_*]*$/;

function compilePattern(pattern: string): RegExp {
  // Only name characters and `*` pass ENV_PATTERN, so nothing else needs escaping.
  return new RegExp(`^${pattern.replace(/\*+/g, "[A-Za-z0-9_]*")}$`);
}

function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => p.test(name));
}

/**
 * Validate operator env patterns (`--allow-env <pattern>`, repeatable): each is a name of
 * `[A-Za-z0-9_*]`, not starting with a digit, where `*` matches any run of name characters.
 * Duplicates are dropped; order is kept.
 * @param setting how the patterns were given, for the error (e.g. `--allow-env / PROSPERO_ALLOW_ENV`).
 * @throws ConfigError naming `setting`, the first bad pattern and the accepted form.
 */
export function parseEnvPatterns(patterns: readonly string[], setting = "--allow-env"): string[] {
  const out: string[] = [];
  for (const p of patterns) {
    if (typeof p !== "string" || !ENV_PATTERN.test(p)) {
      throw new ConfigError(setting, ENV_PATTERN_EXPECTED, `got ${JSON.stringify(p)}`);
    }
    if (/^\*+$/.test(p)) {
      throw new ConfigError(
        setting,
        "names or patterns with a fixed part (e.g. MY_TOOL_*): a pattern of only * would let configs set any variable (LD_PRELOAD, NODE_OPTIONS, PATH, …)",
        `got ${JSON.stringify(p)}`,
      );
    }
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * Variables known to make a process run other code (loader, interpreter, shell and git hooks,
 * proxies). Refused by the built-in allowlist; an operator's `--allow-env` may still allow them,
 * which {@link EnvPolicy.hijackableAllowed} reports so the gateway can warn at start.
 */
export const KNOWN_HIJACK_VARIABLES: readonly string[] = [
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PATH",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_GLOBAL",
  "GIT_DIR",
  "GIT_EXEC_PATH",
  "GIT_SSH_COMMAND",
  "BASH_ENV",
  "ENV",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
];

/**
 * What a provider configuration may put into a process's environment: the built-in allowlist
 * ({@link DEFAULT_ENV_ALLOW}, {@link DEFAULT_API_KEY_SOURCES}) plus the operator's patterns, minus
 * what is never allowed ({@link RESERVED_ENV} for `env`, {@link GATEWAY_SECRET_PATTERN} for
 * `apiKeyFromEnv`). Immutable; build one at start and share it.
 */
export class EnvPolicy {
  /** The operator's patterns, validated and de-duplicated. */
  readonly operatorPatterns: readonly string[];
  private readonly operator: readonly RegExp[];
  private readonly builtIn: readonly { re: RegExp; rule: EnvAllowRule }[];
  private readonly keySources: readonly RegExp[];
  private readonly gatewaySecrets = compilePattern(GATEWAY_SECRET_PATTERN);

  /**
   * @param operatorPatterns `--allow-env` patterns (see {@link parseEnvPatterns}).
   * @param setting how they were given, for a ConfigError.
   * @throws ConfigError for a malformed pattern.
   */
  constructor(operatorPatterns: readonly string[] = [], setting = "--allow-env") {
    this.operatorPatterns = parseEnvPatterns(operatorPatterns, setting);
    this.operator = this.operatorPatterns.map(compilePattern);
    this.builtIn = DEFAULT_ENV_ALLOW.map((rule) => ({ re: compilePattern(rule.pattern), rule }));
    this.keySources = DEFAULT_API_KEY_SOURCES.map(compilePattern);
  }

  /**
   * Why `env` may not set `name` to `value`, or null when it may. Never mentions the value.
   * An operator pattern allows any value; a built-in entry may restrict values (locale, TZ).
   */
  envRefusal(name: string, value: string): string | null {
    if (RESERVED_ENV.includes(name)) {
      return `env may not set ${name}: it would move the daemon's socket away from where Prospero looks (protocol §1.1); no --allow-env pattern can allow it`;
    }
    if (matchesAny(name, this.operator)) return null;
    const hit = this.builtIn.find((b) => b.re.test(name));
    if (!hit) {
      return (
        `env may not set ${name}: by default only provider settings (ANTHROPIC_*, OPENAI_*, GEMINI_*, OLLAMA_*), ` +
        `CALIBAN_AGENT_IDLE_TIMEOUT_SECS and locale/display variables (LANG, LANGUAGE, LC_*, TZ, NO_COLOR) reach the ` +
        `daemon, its workers and their tools; an operator can allow ${name} by starting the gateway with --allow-env ${name}`
      );
    }
    if (hit.rule.value && !hit.rule.value.test.test(value)) {
      return `env ${name} must be ${hit.rule.value.expected} (or allowed as is with --allow-env ${name})`;
    }
    return null;
  }

  /**
   * The {@link KNOWN_HIJACK_VARIABLES} the operator's patterns allow configs to set (the gateway
   * warns about each at start: an admin could then run code as the gateway's user).
   */
  hijackableAllowed(): string[] {
    return KNOWN_HIJACK_VARIABLES.filter((v) => matchesAny(v, this.operator));
  }

  /** Why `apiKeyFromEnv` may not name `name`, or null when it may. */
  keySourceRefusal(name: string): string | null {
    if (this.gatewaySecrets.test(name)) {
      return `apiKeyFromEnv may not name ${name}: ${GATEWAY_SECRET_PATTERN} variables hold the gateway's own settings and secrets`;
    }
    if (matchesAny(name, this.keySources) || matchesAny(name, this.operator)) return null;
    return (
      `apiKeyFromEnv may not name ${name}: by default only variables matching ${DEFAULT_API_KEY_SOURCES.join(", ")} ` +
      `may be read from the gateway's environment; an operator can allow it by starting the gateway with --allow-env ${name}`
    );
  }

  /**
   * Check a configuration's `env` names/values and `apiKeyFromEnv` against the policy.
   * @throws ProviderMisconfigured (field `env` or `apiKeyFromEnv`) naming the first refused variable.
   */
  check(cfg: Pick<ProviderConfig, "env" | "apiKeyFromEnv">): void {
    for (const [name, value] of Object.entries(cfg.env)) {
      const why = this.envRefusal(name, value);
      if (why) throw new ProviderMisconfigured(why, "env");
    }
    if (cfg.apiKeyFromEnv != null) {
      const why = this.keySourceRefusal(cfg.apiKeyFromEnv);
      if (why) throw new ProviderMisconfigured(why, "apiKeyFromEnv");
    }
  }
}

/** The built-in policy with no operator additions. */
export const DEFAULT_ENV_POLICY = new EnvPolicy();

// ─── Validation ──────────────────────────────────────────────────────────────────────────────

/**
 * Parse a provider configuration and check its coherence, WITHOUT the env policy: for configs
 * read back from the store, which must load even when an older gateway accepted what the policy
 * now refuses ({@link daemonEnvOverlay} refuses them before they reach a process).
 * @throws ValidationFailed for malformed fields (with field paths).
 * @throws ProviderMisconfigured for an unknown provider, a key on a keyless provider (ollama),
 *   a key or base URL without a provider.
 */
export function parseStoredProviderConfig(input: ProviderConfigInput): ProviderConfig {
  const parsed = ProviderConfigInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationFailed(
      parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    );
  }
  const v = parsed.data;
  let provider: Provider | null = null;
  if (v.provider != null) {
    const p = v.provider.toLowerCase();
    if (!(PROVIDERS as readonly string[]).includes(p)) {
      throw new ProviderMisconfigured(
        `unknown provider "${v.provider}"; caliband workers accept ${PROVIDERS.join(", ")}`,
        "provider",
      );
    }
    provider = p as Provider;
  }
  if (v.apiKeyFromEnv != null) {
    if (provider === null) {
      throw new ProviderMisconfigured(
        "apiKeyFromEnv needs a provider to know which key variable to set",
        "apiKeyFromEnv",
      );
    }
    if (PROVIDER_ENV[provider].apiKey === null) {
      throw new ProviderMisconfigured(
        `provider ${provider} takes no API key; remove apiKeyFromEnv`,
        "apiKeyFromEnv",
      );
    }
  }
  if (v.baseUrl != null && provider === null) {
    throw new ProviderMisconfigured("baseUrl needs a provider to know which variable to set", "baseUrl");
  }
  return {
    provider,
    baseUrl: v.baseUrl ?? null,
    apiKeyFromEnv: v.apiKeyFromEnv ?? null,
    env: { ...(v.env ?? {}) },
    model: v.model ?? null,
  };
}

/**
 * Validate and normalize a provider configuration given by a client: shape, coherence, then the
 * env policy (which variables `env` may set, which `apiKeyFromEnv` may name). Nothing is changed
 * when it throws.
 * @param policy the gateway's policy (built-in allowlist plus `--allow-env`); default built-in only.
 * @throws ValidationFailed for malformed fields (with field paths).
 * @throws ProviderMisconfigured as {@link parseStoredProviderConfig}, and (fields `env` /
 *   `apiKeyFromEnv`) for a variable the policy refuses, naming it and how to allow it.
 */
export function validateProviderConfig(
  input: ProviderConfigInput,
  policy: EnvPolicy = DEFAULT_ENV_POLICY,
): ProviderConfig {
  const cfg = parseStoredProviderConfig(input);
  const secretInUrl = cfg.baseUrl === null ? null : baseUrlSecretReason(cfg.baseUrl);
  if (secretInUrl !== null) {
    throw new ValidationFailed([{ path: ["baseUrl"], message: secretInUrl }]);
  }
  policy.check(cfg);
  return cfg;
}

/**
 * Why a base URL may carry a secret (user info, a query string or a fragment), or null — also
 * null for a string that is not a URL at all (the shape check reports that). A base URL is
 * readable by every viewer and written to the audit log; keys belong in `apiKeyFromEnv`.
 */
export function baseUrlSecretReason(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.username !== "" || u.password !== "") {
    return "must not contain a user name or password (base URLs are shown to viewers; put keys in apiKeyFromEnv)";
  }
  if (u.search !== "" || u.hash !== "") {
    return "must not contain a query string or fragment (base URLs are shown to viewers; put keys in apiKeyFromEnv)";
  }
  return null;
}

/** A base URL fit to show: user info, query and fragment of a (legacy) stored URL removed. */
export function displayBaseUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString();
  } catch {
    return null;
  }
}

// ─── Keeping stored values ───────────────────────────────────────────────────────────────────

/** One env entry of a config change: `value` null or absent = keep the value stored for `name`. */
export interface EnvEntryInput {
  name: string;
  value?: string | null;
}

/**
 * A provider configuration as the fleet takes it from clients (replaces the whole config). Env
 * values are write-only in the API, so an entry may omit its value to keep the stored one: either
 * a list of {@link EnvEntryInput} (GraphQL's shape) or a map whose null/undefined values mean keep.
 * A {@link ProviderConfigInput} is one (every value given).
 */
export interface ProviderConfigChange {
  provider?: string | null;
  baseUrl?: string | null;
  apiKeyFromEnv?: string | null;
  env?: readonly EnvEntryInput[] | Readonly<Record<string, string | null | undefined>> | null;
  model?: string | null;
}

/**
 * Resolve a config change into a full input: every env entry without a value takes the value
 * stored for its name, looked up in `stored` in order (the fleet passes the pending config's env,
 * then the applied one's: the most recent write first).
 * @param pathPrefix field path of the config in the client's request, for issues (default `["config"]`).
 * @throws ValidationFailed at `[...pathPrefix, "env", i, "value"]` (list index, or the name for a
 *   map) when no value is stored for a kept name, and at `[..., "env", i, "name"]` for a name given twice.
 */
export function resolveConfigChange(
  change: ProviderConfigChange,
  stored: readonly (Readonly<Record<string, string>> | null | undefined)[] = [],
  pathPrefix: readonly string[] = ["config"],
): ProviderConfigInput {
  const { env: envChange, ...rest } = change;
  if (envChange == null) return { ...rest, env: envChange };
  const entries: { key: string; name: string; value: string | null | undefined }[] = isEntryList(envChange)
    ? envChange.map((e, i) => ({ key: String(i), name: e.name, value: e.value }))
    : Object.entries(envChange).map(([name, value]) => ({ key: name, name, value }));
  const issues: FieldIssue[] = [];
  const env: Record<string, string> = {};
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) {
      issues.push({ path: [...pathPrefix, "env", e.key, "name"], message: `${e.name} is given twice` });
      continue;
    }
    seen.add(e.name);
    if (e.value != null) {
      env[e.name] = e.value;
      continue;
    }
    const kept = stored.find((s) => s != null && Object.hasOwn(s, e.name))?.[e.name];
    if (kept === undefined) {
      issues.push({
        path: [...pathPrefix, "env", e.key, "value"],
        message: `no value is stored for ${e.name} to keep; give its value`,
      });
    } else {
      env[e.name] = kept;
    }
  }
  if (issues.length > 0) throw new ValidationFailed(issues);
  return { ...rest, env };
}

function isEntryList(
  env: readonly EnvEntryInput[] | Readonly<Record<string, string | null | undefined>>,
): env is readonly EnvEntryInput[] {
  return Array.isArray(env);
}

// ─── Daemon environment ──────────────────────────────────────────────────────────────────────

/**
 * The environment overlay for a workspace's daemon (lowest → highest: curated provider
 * variables, then the workspace's raw `env`), with the API key read from the gateway's own
 * environment by name (§5.3). The config is checked against `policy` first, so a stored config
 * the policy refuses (accepted by an older gateway) never reaches a process: the daemon is not
 * started and the workspace shows the refusal as its health reason.
 * @param policy the gateway's env policy; default built-in only (refuses operator additions).
 * @throws ProviderMisconfigured (field `env` / `apiKeyFromEnv`) for a variable the policy refuses,
 *   or when `apiKeyFromEnv` names a variable that is unset or empty.
 */
export function daemonEnvOverlay(
  cfg: ProviderConfig,
  gatewayEnv: NodeJS.ProcessEnv = process.env,
  policy: EnvPolicy = DEFAULT_ENV_POLICY,
): Record<string, string> {
  policy.check(cfg);
  const out: Record<string, string> = {};
  if (cfg.provider) {
    const vars = PROVIDER_ENV[cfg.provider];
    if (cfg.baseUrl) out[vars.baseUrl] = cfg.baseUrl;
    if (cfg.apiKeyFromEnv && vars.apiKey) {
      const value = gatewayEnv[cfg.apiKeyFromEnv];
      if (!value) {
        throw new ProviderMisconfigured(
          `apiKeyFromEnv names ${cfg.apiKeyFromEnv}, which is not set in the gateway's environment`,
          "apiKeyFromEnv",
        );
      }
      out[vars.apiKey] = value;
    }
  }
  return { ...out, ...cfg.env };
}

/** True when going from `a` to `b` changes the daemon's environment (needs a daemon restart). */
export function needsDaemonRestart(a: ProviderConfig, b: ProviderConfig): boolean {
  const envKey = (c: ProviderConfig) =>
    JSON.stringify([c.provider, c.baseUrl, c.apiKeyFromEnv, Object.entries(c.env).sort()]);
  return envKey(a) !== envKey(b);
}
