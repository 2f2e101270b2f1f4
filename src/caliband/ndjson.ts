/**
 * Bounded NDJSON line reading (caliband-protocol.md §1.2, §3.1): lines end at `\n`, a trailing
 * `\r` is dropped, blank lines are skipped, and a line longer than `maxLineBytes` (default 1 MiB,
 * the daemon's own bound) is an error instead of unbounded buffering. `node:readline` cannot bound
 * a line, hence this small splitter.
 */
import type { Readable } from "node:stream";

import { LineTooLong } from "./errors.js";

/** Default maximum line length in bytes, excluding the newline: 1 MiB = 1 048 576 (§1.2). */
export const DEFAULT_MAX_LINE_BYTES = 1_048_576;

const NEWLINE = 0x0a;

/** Options of the NDJSON readers. */
export interface LineReaderOptions {
  /** Maximum bytes of one line excluding `\n`; default {@link DEFAULT_MAX_LINE_BYTES}. */
  maxLineBytes?: number;
}

/**
 * Incremental splitter: feed byte chunks, get complete non-blank lines (UTF-8 decoded, trailing
 * `\r` removed). Memory is bounded by `maxLineBytes`.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES) {}

  /**
   * Consume one chunk; return the lines it completed.
   * @throws LineTooLong once the current line exceeds `maxLineBytes` bytes.
   */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      this.append(chunk.subarray(start, nl));
      this.emit(lines);
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
    return lines;
  }

  /** Signal end of input: returns the unterminated last line, if it is not blank. */
  end(): string[] {
    const lines: string[] = [];
    this.emit(lines);
    return lines;
  }

  private append(part: Buffer): void {
    if (part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      throw new LineTooLong(this.maxLineBytes);
    }
    this.pending.push(part);
  }

  private emit(into: string[]): void {
    if (this.pendingBytes === 0) return;
    const raw = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    let line = raw.toString("utf8");
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() !== "") into.push(line);
  }
}

/**
 * Iterate the non-blank lines of a byte stream (e.g. a socket) until EOF (§1.2). Errors of the
 * stream propagate; breaking out of the loop destroys the stream.
 * @throws LineTooLong when a line exceeds `maxLineBytes`.
 */
export async function* readLines(stream: Readable, options: LineReaderOptions = {}): AsyncGenerator<string> {
  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    yield* splitter.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  }
  yield* splitter.end();
}
