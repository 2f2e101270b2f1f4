// Bounded NDJSON splitting (caliband-protocol.md §1.2).
import { Readable } from "node:stream";

import { describe, expect, it } from "vitest";

import { LineTooLong } from "../../src/caliband/errors.js";
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, readLines } from "../../src/caliband/ndjson.js";

async function collect(chunks: (string | Buffer)[], maxLineBytes?: number): Promise<string[]> {
  const out: string[] = [];
  const stream = Readable.from(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c)));
  for await (const line of readLines(stream, maxLineBytes === undefined ? {} : { maxLineBytes }))
    out.push(line);
  return out;
}

describe("readLines", () => {
  it("splits across chunks, strips \\r, skips blank lines, yields an unterminated last line", async () => {
    expect(await collect(['{"a":1}\r\n\n  \n{"b"', ':2}\n{"c":3}'])).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
  });

  it("keeps multi-byte UTF-8 characters split across chunks intact", async () => {
    const bytes = Buffer.from('{"t":"héllo ✓"}\n');
    expect(await collect([bytes.subarray(0, 9), bytes.subarray(9, 14), bytes.subarray(14)])).toEqual([
      '{"t":"héllo ✓"}',
    ]);
  });

  it("defaults to a 1 MiB bound", () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(1_048_576);
    expect(new LineSplitter().maxLineBytes).toBe(1_048_576);
  });

  it("accepts a line of exactly the bound and rejects one byte more, even without a newline", async () => {
    expect(await collect(["x".repeat(16) + "\n"], 16)).toEqual(["x".repeat(16)]);
    await expect(collect(["x".repeat(10), "x".repeat(7)], 16)).rejects.toBeInstanceOf(LineTooLong);
    await expect(collect(["x".repeat(17) + "\n"], 16)).rejects.toThrow(/exceeds 16 bytes/);
  });

  it("rejects an over-long line at the default bound without buffering the whole stream", () => {
    const s = new LineSplitter();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    expect(() => {
      for (let i = 0; i < 17; i++) s.push(chunk);
    }).toThrow(LineTooLong);
  });
});
