/**
 * Cost estimation for fleet events (ARCHITECTURE.md decision 4). caliband's stream carries token
 * counts but **no cost in USD** (caliband-protocol.md §3.3 `Usage`), so Prospero estimates cost from
 * a per-model price table that operators can override. An estimate is `null` — never a fake `0` —
 * when the model is unknown, local (ollama and friends) or absent from the table.
 *
 * Units: prices are USD per million tokens (MTok); token counts are tokens; results are USD.
 */
import { z } from "zod";

import { ConfigError } from "../errors.js";
import type { Usage } from "../events/index.js";

/**
 * List prices of one model, USD per million tokens (MTok):
 * - `inputUsdPerMTok`: uncached input (prompt) tokens;
 * - `outputUsdPerMTok`: output tokens (including thinking tokens, which providers bill as output);
 * - `cacheReadUsdPerMTok`: input tokens served from the prompt cache (cache hits);
 * - `cacheWriteUsdPerMTok`: input tokens written to the prompt cache (Anthropic's 5-minute cache
 *   write rate; providers that do not bill cache writes use their input rate).
 */
export interface ModelPrice {
  inputUsdPerMTok: number;
  outputUsdPerMTok: number;
  cacheReadUsdPerMTok: number;
  cacheWriteUsdPerMTok: number;
}

/**
 * Price table: model name (or model-name prefix, see {@link resolvePrice}) → {@link ModelPrice}
 * in USD per million tokens. Keys are matched case-insensitively.
 */
export type PriceTable = Record<string, ModelPrice>;

function price(input: number, output: number, cacheRead: number, cacheWrite: number): ModelPrice {
  return {
    inputUsdPerMTok: input,
    outputUsdPerMTok: output,
    cacheReadUsdPerMTok: cacheRead,
    cacheWriteUsdPerMTok: cacheWrite,
  };
}

/**
 * Built-in prices, USD per million tokens: the providers' public **list prices as of 2025-12-01**
 * (standard tier, no batch discount, prompts ≤ 200k tokens where a long-context surcharge exists,
 * 5-minute cache writes for Anthropic). They are estimates only and will drift: operators override
 * or extend them with a user-supplied table ({@link parsePriceTable} + {@link mergePriceTables}).
 *
 * Keys double as prefixes ({@link resolvePrice}): `claude-sonnet-4-5` prices
 * `claude-sonnet-4-5-20250929`; the family keys `claude-opus-4`, `claude-sonnet-4` and
 * `claude-haiku-4` price later point releases (e.g. `claude-sonnet-4-6`) at the family's current
 * rate, while the older Opus 4.0/4.1 keep their own, higher rate. OpenAI and Google do not bill
 * cache writes, so their `cacheWriteUsdPerMTok` equals the input rate.
 */
export const DEFAULT_PRICES: PriceTable = {
  // Anthropic — https://docs.anthropic.com/en/docs/about-claude/pricing
  "claude-opus-4": price(5, 25, 0.5, 6.25), // Opus 4.5 and later 4.x
  "claude-opus-4-5": price(5, 25, 0.5, 6.25),
  "claude-opus-4-1": price(15, 75, 1.5, 18.75),
  "claude-opus-4-0": price(15, 75, 1.5, 18.75),
  "claude-opus-4-20250514": price(15, 75, 1.5, 18.75),
  "claude-sonnet-4": price(3, 15, 0.3, 3.75), // Sonnet 4.0 and later 4.x
  "claude-sonnet-4-5": price(3, 15, 0.3, 3.75),
  "claude-haiku-4": price(1, 5, 0.1, 1.25), // Haiku 4.5 and later 4.x
  "claude-haiku-4-5": price(1, 5, 0.1, 1.25),
  "claude-3-7-sonnet": price(3, 15, 0.3, 3.75),
  "claude-3-5-sonnet": price(3, 15, 0.3, 3.75),
  "claude-3-5-haiku": price(0.8, 4, 0.08, 1),
  "claude-3-haiku": price(0.25, 1.25, 0.03, 0.3),
  // OpenAI — https://platform.openai.com/docs/pricing
  "gpt-4o": price(2.5, 10, 1.25, 2.5),
  "gpt-4o-mini": price(0.15, 0.6, 0.075, 0.15),
  "gpt-4.1": price(2, 8, 0.5, 2),
  "gpt-4.1-mini": price(0.4, 1.6, 0.1, 0.4),
  "gpt-4.1-nano": price(0.1, 0.4, 0.025, 0.1),
  o3: price(2, 8, 0.5, 2),
  "o3-mini": price(1.1, 4.4, 0.55, 1.1),
  "o3-pro": price(20, 80, 20, 20),
  "o4-mini": price(1.1, 4.4, 0.275, 1.1),
  // Google — https://ai.google.dev/gemini-api/docs/pricing (cache storage per hour not included)
  "gemini-2.5-pro": price(1.25, 10, 0.125, 1.25),
  "gemini-2.5-flash": price(0.3, 2.5, 0.03, 0.3),
  "gemini-2.5-flash-lite": price(0.1, 0.4, 0.01, 0.1),
};

/**
 * Model-name prefixes of local / self-hosted runtimes: no list price, so never priced by prefix
 * (an exact table key still wins, for operators who want a notional rate).
 */
const LOCAL_PREFIXES = ["ollama/", "ollama:", "local/", "lmstudio/", "llamacpp/", "llama.cpp/"];

/** Characters that may follow a key for a prefix match: anything but a letter or digit. */
function isBoundary(ch: string | undefined): boolean {
  return ch === undefined || !/[a-z0-9]/.test(ch);
}

/**
 * Spellings of a model name worth trying: the name itself, without a routing prefix
 * (`anthropic/claude-…`, Bedrock's `us.anthropic.claude-…`), and with dotted versions dashed
 * (`claude-opus-4.1` → `claude-opus-4-1`, as OpenRouter spells Anthropic ids).
 */
function candidates(model: string): string[] {
  const out = new Set<string>([model]);
  const slash = model.lastIndexOf("/");
  if (slash >= 0) out.add(model.slice(slash + 1));
  const bedrock = /^(?:[a-z]{2,4}\.)?anthropic\.(.+)$/.exec(model);
  if (bedrock?.[1] !== undefined) out.add(bedrock[1]);
  for (const c of [...out]) out.add(c.replace(/(\d)\.(\d)/g, "$1-$2"));
  return [...out];
}

/**
 * Find the price of `model` in `table` (USD per MTok). Matching, case-insensitive:
 * 1. an exact key;
 * 2. otherwise `null` for local runtimes (`ollama/…`, `ollama:…`, `local/…`, `lmstudio/…`, …);
 * 3. otherwise the **longest** key that is a prefix of the model name and ends at a name boundary
 *    (the next character is not a letter or digit), so `claude-sonnet-4-5-20250929` →
 *    `claude-sonnet-4-5` and `gpt-4o-mini-2024-07-18` → `gpt-4o-mini`, but `gpt-4o` never prices
 *    `gpt-4o1`. Routing prefixes (`anthropic/`, Bedrock's `anthropic.`) and dotted versions are
 *    also tried.
 * Returns `null` for `null`/empty/unknown models (e.g. `llama3.1:8b`).
 */
export function resolvePrice(model: string | null | undefined, table: PriceTable): ModelPrice | null {
  if (model === null || model === undefined) return null;
  const name = model.trim().toLowerCase();
  if (name === "") return null;
  const entries = Object.entries(table).map(([k, v]) => [k.toLowerCase(), v] as const);
  for (const [key, value] of entries) if (key === name) return value;
  if (LOCAL_PREFIXES.some((p) => name.startsWith(p))) return null;
  let best: { len: number; value: ModelPrice } | null = null;
  for (const candidate of candidates(name)) {
    for (const [key, value] of entries) {
      if (key === "" || !candidate.startsWith(key) || !isBoundary(candidate[key.length])) continue;
      if (best === null || key.length > best.len) best = { len: key.length, value };
    }
  }
  return best?.value ?? null;
}

/**
 * Estimated cost in USD of `usage` (tokens) at `model`'s price in `table`, or `null` when the model
 * is `null` or unpriced ({@link resolvePrice}) — never a fake `0`.
 *
 * Per protocol §3.3, `cacheRead` and `cacheCreation` are **subsets** of `input`, so the bill is
 * `(input − cacheRead − cacheCreation) × input rate + cacheRead × cache-read rate +
 * cacheCreation × cache-write rate + output × output rate`, all ÷ 1e6. If the cache counters exceed
 * `input` (inconsistent data) the uncached part counts as 0.
 */
export function estimateCostUsd(model: string | null, usage: Usage, table: PriceTable): number | null {
  const p = resolvePrice(model, table);
  if (p === null) return null;
  const uncached = Math.max(0, usage.input - usage.cacheRead - usage.cacheCreation);
  const microUsd =
    uncached * p.inputUsdPerMTok +
    usage.cacheRead * p.cacheReadUsdPerMTok +
    usage.cacheCreation * p.cacheWriteUsdPerMTok +
    usage.output * p.outputUsdPerMTok;
  return microUsd / 1_000_000;
}

const Rate = z.number().finite().nonnegative();

/**
 * One user-supplied price entry: all four rates in USD per MTok, finite and ≥ 0. The cache rates
 * may be omitted and then default to the input rate. Unknown fields are rejected (typo guard).
 */
const ModelPriceInputSchema = z
  .object({
    inputUsdPerMTok: Rate,
    outputUsdPerMTok: Rate,
    cacheReadUsdPerMTok: Rate.optional(),
    cacheWriteUsdPerMTok: Rate.optional(),
  })
  .strict();

const PRICE_TABLE_EXPECTED =
  "a JSON object mapping model names to {inputUsdPerMTok, outputUsdPerMTok, cacheReadUsdPerMTok?, " +
  "cacheWriteUsdPerMTok?} (finite numbers ≥ 0, USD per million tokens)";

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  try {
    const text = JSON.stringify(value);
    return text.length > 40 ? `${text.slice(0, 40)}…` : text;
  } catch {
    return typeof value;
  }
}

/**
 * Validate a user-supplied price table (parsed JSON) and return it as a {@link PriceTable}
 * (USD per MTok; omitted cache rates filled with the input rate).
 * @throws ConfigError (setting `price table`) naming the first bad model key and field, e.g.
 *   `model "gpt-4o": outputUsdPerMTok must be a finite number ≥ 0 (got "ten")`.
 */
export function parsePriceTable(json: unknown): PriceTable {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ConfigError("price table", PRICE_TABLE_EXPECTED, `got ${describe(json)}`);
  }
  const table: PriceTable = {};
  for (const [model, entry] of Object.entries(json)) {
    if (model.trim() === "") {
      throw new ConfigError("price table", PRICE_TABLE_EXPECTED, "empty model name");
    }
    const parsed = ModelPriceInputSchema.safeParse(entry);
    if (!parsed.success) {
      const issues = parsed.error.issues;
      const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0];
      let detail = `model "${model}": must be an object of rates`;
      if (issue !== undefined) {
        if (issue.code === "unrecognized_keys") {
          detail = `model "${model}": unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
        } else if (issue.path.length > 0) {
          const field = String(issue.path[0]);
          const got = typeof entry === "object" && entry !== null ? describe(Reflect.get(entry, field)) : "";
          detail = `model "${model}": ${field} must be a finite number ≥ 0 (got ${got})`;
        } else {
          detail = `model "${model}": must be an object of rates (got ${describe(entry)})`;
        }
      }
      throw new ConfigError("price table", PRICE_TABLE_EXPECTED, detail);
    }
    const p = parsed.data;
    Object.defineProperty(table, model, {
      value: price(
        p.inputUsdPerMTok,
        p.outputUsdPerMTok,
        p.cacheReadUsdPerMTok ?? p.inputUsdPerMTok,
        p.cacheWriteUsdPerMTok ?? p.inputUsdPerMTok,
      ),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return table;
}

/**
 * Overlay `overrides` on `defaults` (both USD per MTok): an override entry replaces the default
 * entry whose key is equal ignoring case, whole; every other default is kept. Pure (new object).
 */
export function mergePriceTables(defaults: PriceTable, overrides: PriceTable): PriceTable {
  const overridden = new Set(Object.keys(overrides).map((k) => k.toLowerCase()));
  const out: PriceTable = {};
  const put = (key: string, value: ModelPrice): void => {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const [key, value] of Object.entries(defaults))
    if (!overridden.has(key.toLowerCase())) put(key, value);
  for (const [key, value] of Object.entries(overrides)) put(key, value);
  return out;
}
