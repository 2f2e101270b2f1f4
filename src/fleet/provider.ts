/**
 * Per-workspace provider configuration: validation (reference #120) and the daemon environment
 * overlay it implies (protocol §5.3). The provider itself reaches workers only through
 * `SpawnSpec.provider` (caliban #93); base URLs, keys and extra env reach them through the
 * daemon's environment at autostart, so changing those needs a daemon restart.
 */
import { z } from "zod";
import { ProviderMisconfigured, ValidationFailed } from "./errors.js";

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

/** A workspace's provider configuration as stored and returned (never contains a key value). */
export interface ProviderConfig {
  provider: Provider | null;
  /** Base URL for the provider's API (http or https). */
  baseUrl: string | null;
  /** NAME of a gateway environment variable holding the API key. */
  apiKeyFromEnv: string | null;
  /** Extra environment variables for the daemon and its workers. */
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

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** zod schema of a provider configuration input (shape only; coherence is checked separately). */
export const ProviderConfigInputSchema = z.object({
  provider: z.string().nullish(),
  baseUrl: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "must be an http or https URL")
    .nullish(),
  apiKeyFromEnv: z.string().regex(ENV_NAME, "must be an environment variable name").nullish(),
  env: z.record(z.string().regex(ENV_NAME, "must be an environment variable name"), z.string()).nullish(),
  model: z.string().min(1).nullish(),
});

/** Input accepted by {@link validateProviderConfig}. */
export type ProviderConfigInput = z.input<typeof ProviderConfigInputSchema>;

/** Variables a workspace's `env` must not set: they would move the daemon's socket (§9 env divergence). */
const RESERVED_ENV = new Set(["CALIBAN_DAEMON_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR"]);

/**
 * Validate and normalize a provider configuration.
 * @throws ValidationFailed for malformed fields (with field paths).
 * @throws ProviderMisconfigured for an unknown provider, a key on a keyless provider (ollama),
 *   a key without a provider, or an env entry that would move the daemon's socket.
 */
export function validateProviderConfig(input: ProviderConfigInput): ProviderConfig {
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
  const env = v.env ?? {};
  for (const k of Object.keys(env)) {
    if (RESERVED_ENV.has(k)) {
      throw new ProviderMisconfigured(
        `env may not set ${k}: it would move the daemon's socket away from where Prospero looks (protocol §1.1)`,
        "env",
      );
    }
  }
  return {
    provider,
    baseUrl: v.baseUrl ?? null,
    apiKeyFromEnv: v.apiKeyFromEnv ?? null,
    env: { ...env },
    model: v.model ?? null,
  };
}

/**
 * The environment overlay for a workspace's daemon (lowest → highest: curated provider
 * variables, then the workspace's raw `env`), with the API key read from the gateway's own
 * environment by name (§5.3).
 * @throws ProviderMisconfigured when `apiKeyFromEnv` names a variable that is unset or empty.
 */
export function daemonEnvOverlay(
  cfg: ProviderConfig,
  gatewayEnv: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
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
