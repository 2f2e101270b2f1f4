// Price table and cost estimation (src/fleet/pricing.ts): prefix matching, local/unknown models,
// cache accounting per caliband-protocol.md §3.3 (cache counters are subsets of input tokens) and
// validation of user-supplied tables.
import { describe, expect, it } from "vitest";

import { ConfigError } from "../../src/errors.js";
import {
  DEFAULT_PRICES,
  estimateCostUsd,
  mergePriceTables,
  parsePriceTable,
  resolvePrice,
  type ModelPrice,
  type PriceTable,
} from "../../src/fleet/pricing.js";

const SONNET: ModelPrice = {
  inputUsdPerMTok: 3,
  outputUsdPerMTok: 15,
  cacheReadUsdPerMTok: 0.3,
  cacheWriteUsdPerMTok: 3.75,
};
const OLD_OPUS: ModelPrice = {
  inputUsdPerMTok: 15,
  outputUsdPerMTok: 75,
  cacheReadUsdPerMTok: 1.5,
  cacheWriteUsdPerMTok: 18.75,
};
const NEW_OPUS: ModelPrice = {
  inputUsdPerMTok: 5,
  outputUsdPerMTok: 25,
  cacheReadUsdPerMTok: 0.5,
  cacheWriteUsdPerMTok: 6.25,
};

const usage = (input: number, output: number, cacheRead = 0, cacheCreation = 0) => ({
  input,
  output,
  cacheRead,
  cacheCreation,
});

describe("resolvePrice", () => {
  it("matches an exact key first", () => {
    expect(resolvePrice("claude-sonnet-4-5", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("gpt-4o", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(2.5);
    expect(resolvePrice("o3", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(2);
  });

  it("falls back to the longest key that is a prefix of the model", () => {
    const table: PriceTable = {
      "claude-sonnet-4": { ...SONNET, inputUsdPerMTok: 1 },
      "claude-sonnet-4-5": { ...SONNET, inputUsdPerMTok: 2 },
    };
    expect(resolvePrice("claude-sonnet-4-5-20250929", table)?.inputUsdPerMTok).toBe(2);
    expect(resolvePrice("claude-sonnet-4-20250514", table)?.inputUsdPerMTok).toBe(1);
    expect(resolvePrice("claude-sonnet-4-6", table)?.inputUsdPerMTok).toBe(1);
  });

  it("resolves dated and point-release ids in the default table to the right family rate", () => {
    expect(resolvePrice("claude-sonnet-4-5-20250929", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("claude-sonnet-4-6", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("claude-opus-4-20250514", DEFAULT_PRICES)).toEqual(OLD_OPUS);
    expect(resolvePrice("claude-opus-4-1-20250805", DEFAULT_PRICES)).toEqual(OLD_OPUS);
    expect(resolvePrice("claude-opus-4-5-20251101", DEFAULT_PRICES)).toEqual(NEW_OPUS);
    expect(resolvePrice("claude-opus-4-6", DEFAULT_PRICES)).toEqual(NEW_OPUS);
    expect(resolvePrice("claude-haiku-4-5-20251001", DEFAULT_PRICES)?.outputUsdPerMTok).toBe(5);
    expect(resolvePrice("claude-3-5-haiku-20241022", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(0.8);
    expect(resolvePrice("claude-3-5-sonnet-latest", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("gpt-4o-mini-2024-07-18", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(0.15);
    expect(resolvePrice("gpt-4o-2024-08-06", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(2.5);
    expect(resolvePrice("gpt-4.1-mini-2025-04-14", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(0.4);
    expect(resolvePrice("gpt-4.1-2025-04-14", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(2);
    expect(resolvePrice("o3-mini-2025-01-31", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(1.1);
    expect(resolvePrice("o3-2025-04-16", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(2);
    expect(resolvePrice("o4-mini-2025-04-16", DEFAULT_PRICES)?.cacheReadUsdPerMTok).toBe(0.275);
    expect(resolvePrice("gemini-2.5-pro-preview-06-05", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(1.25);
    expect(resolvePrice("gemini-2.5-flash", DEFAULT_PRICES)?.outputUsdPerMTok).toBe(2.5);
    expect(resolvePrice("gemini-2.5-flash-lite", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(0.1);
  });

  it("covers every family the gateway promises a default for", () => {
    for (const model of [
      "claude-opus-4-1",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "claude-3-5-sonnet-20241022",
      "claude-3-5-haiku-latest",
      "gpt-4o",
      "gpt-4o-mini",
      "gpt-4.1",
      "gpt-4.1-nano",
      "o3",
      "o4-mini",
      "gemini-2.5-pro",
      "gemini-2.5-flash",
    ]) {
      const p = resolvePrice(model, DEFAULT_PRICES);
      expect(p, model).not.toBeNull();
      expect(p?.inputUsdPerMTok, model).toBeGreaterThan(0);
      expect(p?.outputUsdPerMTok, model).toBeGreaterThan(p?.inputUsdPerMTok ?? Infinity);
    }
  });

  it("only matches a prefix that ends at a name boundary", () => {
    const table: PriceTable = { "gpt-4": SONNET, o3: SONNET };
    expect(resolvePrice("gpt-4o", table)).toBeNull();
    expect(resolvePrice("gpt-4-turbo", table)).toEqual(SONNET);
    expect(resolvePrice("o3x", table)).toBeNull();
    expect(resolvePrice("o3:latest", table)).toEqual(SONNET);
  });

  it("is case-insensitive and sees through routing prefixes and dotted versions", () => {
    expect(resolvePrice("Claude-Sonnet-4-5", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("anthropic/claude-sonnet-4.5", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("anthropic/claude-opus-4.1", DEFAULT_PRICES)).toEqual(OLD_OPUS);
    expect(resolvePrice("us.anthropic.claude-opus-4-1-20250805-v1:0", DEFAULT_PRICES)).toEqual(OLD_OPUS);
    expect(resolvePrice("claude-sonnet-4-5@20250929", DEFAULT_PRICES)).toEqual(SONNET);
    expect(resolvePrice("openai/gpt-4o-mini", DEFAULT_PRICES)?.inputUsdPerMTok).toBe(0.15);
  });

  it("returns null for local, unknown, empty and missing models", () => {
    for (const model of [
      "ollama/llama3.1",
      "ollama:qwen2.5-coder",
      "ollama/claude-sonnet-4-5",
      "local/gpt-4o",
      "llama3.1:8b",
      "qwen2.5-coder:32b",
      "mistral-large-latest",
      "",
      "   ",
      "constructor",
      "__proto__",
      "toString",
    ]) {
      expect(resolvePrice(model, DEFAULT_PRICES), model).toBeNull();
    }
    expect(resolvePrice(null, DEFAULT_PRICES)).toBeNull();
    expect(resolvePrice(undefined, DEFAULT_PRICES)).toBeNull();
  });

  it("honours an exact key for a local model an operator chose to price", () => {
    const table = mergePriceTables(DEFAULT_PRICES, {
      "ollama/llama3.1": { ...SONNET, inputUsdPerMTok: 0.01 },
    });
    expect(resolvePrice("ollama/llama3.1", table)?.inputUsdPerMTok).toBe(0.01);
    expect(resolvePrice("ollama/llama3.1:70b", table)).toBeNull();
  });
});

describe("estimateCostUsd", () => {
  it("bills input and output at their rates", () => {
    // 1200 × $3 + 48 × $15 per MTok
    expect(estimateCostUsd("claude-sonnet-4-5", usage(1200, 48), DEFAULT_PRICES)).toBeCloseTo(0.00432, 12);
    // gpt-4o: 10k in × $2.50 + 1k out × $10
    expect(estimateCostUsd("gpt-4o", usage(10_000, 1_000), DEFAULT_PRICES)).toBeCloseTo(0.035, 12);
  });

  it("treats cache reads and writes as subsets of input (§3.3)", () => {
    // protocol example: 4210 input of which 3900 cache reads, 96 output, claude-sonnet-4-6
    const expected = (310 * 3 + 3900 * 0.3 + 96 * 15) / 1e6;
    expect(estimateCostUsd("claude-sonnet-4-6", usage(4210, 96, 3900), DEFAULT_PRICES)).toBeCloseTo(
      expected,
      12,
    );
    expect(expected).toBeCloseTo(0.00354, 12);
    // with a cache write too: 10k input = 2k uncached + 5k read + 3k written
    const withWrite = (2000 * 3 + 5000 * 0.3 + 3000 * 3.75 + 500 * 15) / 1e6;
    expect(estimateCostUsd("claude-sonnet-4-5", usage(10_000, 500, 5000, 3000), DEFAULT_PRICES)).toBeCloseTo(
      withWrite,
      12,
    );
  });

  it("never bills negative uncached input when cache counters exceed input", () => {
    const cost = estimateCostUsd("claude-sonnet-4-5", usage(100, 0, 300, 0), DEFAULT_PRICES);
    expect(cost).toBeCloseTo((300 * 0.3) / 1e6, 12);
  });

  it("returns null — not 0 — for null, unknown and local models", () => {
    expect(estimateCostUsd(null, usage(1000, 1000), DEFAULT_PRICES)).toBeNull();
    expect(estimateCostUsd("mystery-model-9", usage(1000, 1000), DEFAULT_PRICES)).toBeNull();
    expect(estimateCostUsd("ollama/llama3.1", usage(1000, 1000), DEFAULT_PRICES)).toBeNull();
    expect(estimateCostUsd("claude-sonnet-4-5", usage(1000, 1000), {})).toBeNull();
  });

  it("returns a real 0 for a priced model that used no tokens", () => {
    expect(estimateCostUsd("gpt-4o", usage(0, 0), DEFAULT_PRICES)).toBe(0);
  });
});

describe("DEFAULT_PRICES", () => {
  it("is itself a valid user table (round-trips through parsePriceTable)", () => {
    expect(parsePriceTable(JSON.parse(JSON.stringify(DEFAULT_PRICES)))).toEqual(DEFAULT_PRICES);
  });

  it("keeps cache reads cheaper than input and outputs dearer than input", () => {
    for (const [model, p] of Object.entries(DEFAULT_PRICES)) {
      expect(p.cacheReadUsdPerMTok, model).toBeLessThanOrEqual(p.inputUsdPerMTok);
      expect(p.outputUsdPerMTok, model).toBeGreaterThan(p.inputUsdPerMTok);
      expect(p.cacheWriteUsdPerMTok, model).toBeGreaterThanOrEqual(p.inputUsdPerMTok);
    }
  });
});

describe("parsePriceTable", () => {
  it("accepts a valid table and fills omitted cache rates with the input rate", () => {
    const table = parsePriceTable({
      "my-model": {
        inputUsdPerMTok: 1,
        outputUsdPerMTok: 2,
        cacheReadUsdPerMTok: 0.1,
        cacheWriteUsdPerMTok: 1.2,
      },
      "other-model": { inputUsdPerMTok: 0.5, outputUsdPerMTok: 1 },
      free: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
    });
    expect(table).toEqual({
      "my-model": {
        inputUsdPerMTok: 1,
        outputUsdPerMTok: 2,
        cacheReadUsdPerMTok: 0.1,
        cacheWriteUsdPerMTok: 1.2,
      },
      "other-model": {
        inputUsdPerMTok: 0.5,
        outputUsdPerMTok: 1,
        cacheReadUsdPerMTok: 0.5,
        cacheWriteUsdPerMTok: 0.5,
      },
      free: { inputUsdPerMTok: 0, outputUsdPerMTok: 0, cacheReadUsdPerMTok: 0, cacheWriteUsdPerMTok: 0 },
    });
    expect(parsePriceTable({})).toEqual({});
  });

  it("rejects a table that is not an object", () => {
    for (const bad of [null, undefined, 42, "gpt-4o", [], [{ inputUsdPerMTok: 1 }]]) {
      expect(() => parsePriceTable(bad)).toThrow(ConfigError);
      expect(() => parsePriceTable(bad)).toThrow(/price table/);
    }
  });

  it("names the bad model key and field", () => {
    const cases: [unknown, RegExp][] = [
      [
        { "gpt-4o": { inputUsdPerMTok: 2.5, outputUsdPerMTok: "ten" } },
        /model "gpt-4o": outputUsdPerMTok .*"ten"/,
      ],
      [{ "gpt-4o": { inputUsdPerMTok: -1, outputUsdPerMTok: 10 } }, /model "gpt-4o": inputUsdPerMTok .*-1/],
      [{ "gpt-4o": { outputUsdPerMTok: 10 } }, /model "gpt-4o": inputUsdPerMTok .*nothing/],
      [
        {
          ok: { inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
          "bad-one": { inputUsdPerMTok: 1, outputUsdPerMTok: null },
        },
        /model "bad-one": outputUsdPerMTok/,
      ],
      [
        { "gpt-4o": { inputUsdPerMTok: 1, outputUsdPerMTok: 1, cacheReadUsdPerMTok: "0.1" } },
        /model "gpt-4o": cacheReadUsdPerMTok/,
      ],
      [
        { "gpt-4o": { inputUsdPerMtok: 1, outputUsdPerMTok: 1 } },
        /model "gpt-4o": unknown field "inputUsdPerMtok"/,
      ],
      [
        { "gpt-4o": { inputUsdPerMTok: 1, outputUsdPerMTok: 1, currency: "EUR" } },
        /model "gpt-4o": unknown field "currency"/,
      ],
      [{ "gpt-4o": 2.5 }, /model "gpt-4o": must be an object/],
      [{ "gpt-4o": null }, /model "gpt-4o": must be an object/],
      [{ "": { inputUsdPerMTok: 1, outputUsdPerMTok: 1 } }, /empty model name/],
    ];
    for (const [input, message] of cases) {
      let caught: unknown;
      try {
        parsePriceTable(input);
      } catch (err) {
        caught = err;
      }
      expect(caught, JSON.stringify(input)).toBeInstanceOf(ConfigError);
      expect((caught as Error).message, JSON.stringify(input)).toMatch(message);
    }
  });

  it("rejects infinite rates (parsed from a JS object, JSON cannot express them)", () => {
    expect(() => parsePriceTable({ x: { inputUsdPerMTok: Infinity, outputUsdPerMTok: 1 } })).toThrow(
      /model "x": inputUsdPerMTok/,
    );
  });

  it("keeps a __proto__ key as an ordinary model name", () => {
    const table = parsePriceTable(JSON.parse('{"__proto__":{"inputUsdPerMTok":1,"outputUsdPerMTok":2}}'));
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype);
    expect(Object.keys(table)).toEqual(["__proto__"]);
  });
});

describe("mergePriceTables", () => {
  it("overrides whole entries (ignoring key case), adds new ones and keeps the rest", () => {
    const custom: ModelPrice = { ...SONNET, inputUsdPerMTok: 2 };
    const local: ModelPrice = {
      inputUsdPerMTok: 0,
      outputUsdPerMTok: 0,
      cacheReadUsdPerMTok: 0,
      cacheWriteUsdPerMTok: 0,
    };
    const before = JSON.stringify(DEFAULT_PRICES);
    const merged = mergePriceTables(DEFAULT_PRICES, { "GPT-4o": custom, "my-local": local });
    expect(JSON.stringify(DEFAULT_PRICES)).toBe(before);
    expect(Object.keys(merged)).not.toContain("gpt-4o");
    expect(merged["GPT-4o"]).toEqual(custom);
    expect(resolvePrice("gpt-4o-2024-08-06", merged)).toEqual(custom);
    expect(resolvePrice("gpt-4o-mini", merged)?.inputUsdPerMTok).toBe(0.15);
    expect(resolvePrice("my-local", merged)).toEqual(local);
    expect(estimateCostUsd("my-local", usage(100, 100), merged)).toBe(0);
    expect(Object.keys(merged).length).toBe(Object.keys(DEFAULT_PRICES).length + 1);
  });

  it("works with a table parsed from user JSON", () => {
    const overrides = parsePriceTable({
      "claude-sonnet-4-5": { inputUsdPerMTok: 6, outputUsdPerMTok: 22.5 },
    });
    const merged = mergePriceTables(DEFAULT_PRICES, overrides);
    expect(estimateCostUsd("claude-sonnet-4-5-20250929", usage(1000, 1000), merged)).toBeCloseTo(
      (1000 * 6 + 1000 * 22.5) / 1e6,
      12,
    );
    // the family key still prices other Sonnet 4.x releases at the default rate
    expect(resolvePrice("claude-sonnet-4-6", merged)).toEqual(SONNET);
  });
});
