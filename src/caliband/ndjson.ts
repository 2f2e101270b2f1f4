/**
 * Bounded NDJSON line reading (caliband-protocol.md §1.2, §3.1): lines end at `\n`, a trailing
 * `\r` is dropped, blank lines are skipped, and a line longer than `maxLineBytes` (default 1 MiB,
 * the daemon's own bound) is an error instead of unbounded buffering. `node:readline` cannot bound
 * a line, hence this small splitter.
 */
import { isUtf8 } from "node:buffer";
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
 * One line with the bytes it came from: `line` is the UTF-8 decoding (invalid sequences become
 * U+FFFD), `bytes` the exact bytes (trailing `\r` removed, like `line`) when they are NOT valid
 * UTF-8, else null (then `line` is exact), so a consumer can store the line byte for byte.
 */
export interface LineEntry {
  line: string;
  bytes: Buffer | null;
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
    return this.pushEntries(chunk).map((e) => e.line);
  }

  /**
   * Like {@link push}, with each line's exact bytes when they are not valid UTF-8.
   * @throws LineTooLong once the current line exceeds `maxLineBytes` bytes.
   */
  pushEntries(chunk: Buffer): LineEntry[] {
    const lines: LineEntry[] = [];
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
    return this.endEntries().map((e) => e.line);
  }

  /** Like {@link end}, with the line's exact bytes when they are not valid UTF-8. */
  endEntries(): LineEntry[] {
    const lines: LineEntry[] = [];
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

  private emit(into: LineEntry[]): void {
    if (this.pendingBytes === 0) return;
    let raw = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, raw.length - 1);
    const line = raw.toString("utf8");
    if (line.trim() !== "") into.push({ line, bytes: isUtf8(raw) ? null : raw });
  }
}

/**
 * Iterate the non-blank lines of a byte stream (e.g. a socket) until EOF (§1.2). Errors of the
 * stream propagate; breaking out of the loop destroys the stream.
 * @throws LineTooLong when a line exceeds `maxLineBytes`.
 */
export async function* readLines(stream: Readable, options: LineReaderOptions = {}): AsyncGenerator<string> {
  for await (const e of readLineEntries(stream, options)) yield e.line;
}

/**
 * Like {@link readLines}, yielding each line with its exact bytes when they are not valid UTF-8
 * ({@link LineEntry}), for lossless storage.
 * @throws LineTooLong when a line exceeds `maxLineBytes`.
 */
export async function* readLineEntries(
  stream: Readable,
  options: LineReaderOptions = {},
): AsyncGenerator<LineEntry> {
  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    yield* splitter.pushEntries(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  }
  yield* splitter.endEntries();
}
