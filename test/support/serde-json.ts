// A small JSON reader that fails the way serde_json does, so the double's `bad request: …` texts
// match the daemon's (docs/caliband-protocol.md §1.2, §1.5; fixture ctl-21/ctl-22). Positions are
// byte columns like serde_json's `position()` (bytes consumed) and `peek_position()` (one more).

/** A parsed JSON value, mirroring serde's buffered `Content` (numbers keep their class). */
export type Content =
  | { t: "null" }
  | { t: "bool"; v: boolean }
  | { t: "u64"; raw: string }
  | { t: "i64"; raw: string }
  | { t: "f64"; v: number }
  | { t: "str"; v: string }
  | { t: "seq"; v: Content[] }
  | { t: "map"; v: Array<[string, Content]> };

/** A serde_json error: message code plus 1-based line and byte column; `line: 0` = no position. */
export class SerdeError extends Error {
  constructor(
    readonly code: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(line === 0 ? code : `${code} at line ${line} column ${column}`);
  }
}

const MAX_DEPTH = 128;

/**
 * Byte-level cursor over one request line with serde_json's error positions. `onTopLevelKey` lets a
 * caller intercept values of the top-level object while they are read (how serde's internally
 * tagged enums validate `kind` mid-stream).
 */
export class SerdeReader {
  index = 0;
  private depth = MAX_DEPTH;

  constructor(readonly bytes: Buffer) {}

  /** Error at the current index (serde_json `error`). */
  error(code: string): SerdeError {
    return this.at(this.index, code);
  }

  /** Error at index + 1, capped at the input length (serde_json `peek_error`). */
  peekError(code: string): SerdeError {
    return this.at(Math.min(this.bytes.length, this.index + 1), code);
  }

  /** Position `i` rendered like serde_json `position_of_index`. */
  at(i: number, code: string): SerdeError {
    const before = this.bytes.subarray(0, i);
    const lastNl = before.lastIndexOf(10);
    const startOfLine = lastNl < 0 ? 0 : lastNl + 1;
    let line = 1;
    for (let k = 0; k < startOfLine; k++) if (this.bytes[k] === 10) line++;
    return new SerdeError(code, line, i - startOfLine);
  }

  /** Skips JSON whitespace and returns the next byte without consuming it (`undefined` at EOF). */
  peekNonWs(): number | undefined {
    while (this.index < this.bytes.length) {
      const b = this.bytes[this.index]!;
      if (b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d) this.index++;
      else return b;
    }
    return undefined;
  }

  /** Parses any value (serde_json `deserialize_any` into `Content`). */
  parseValue(): Content {
    const b = this.peekNonWs();
    if (b === undefined) throw this.peekError("EOF while parsing a value");
    switch (b) {
      case 0x6e: // n
        this.index++;
        this.parseIdent("ull");
        return { t: "null" };
      case 0x74: // t
        this.index++;
        this.parseIdent("rue");
        return { t: "bool", v: true };
      case 0x66: // f
        this.index++;
        this.parseIdent("alse");
        return { t: "bool", v: false };
      case 0x2d: // -
        this.index++;
        return this.parseNumber(false);
      case 0x22: // "
        this.index++;
        return { t: "str", v: this.parseStringBody() };
      case 0x5b: // [
        return this.parseSeq();
      case 0x7b: // {
        return this.parseMap((_key, reader) => reader.parseValue());
      default:
        if (b >= 0x30 && b <= 0x39) return this.parseNumber(true);
        throw this.peekError("expected value");
    }
  }

  /**
   * Parses an object, handing each value to `valueOf` (which must consume exactly one value).
   * Returns the entries in input order, duplicates included (like serde's `Content::Map`).
   */
  parseMap(valueOf: (key: string, reader: SerdeReader) => Content): Content & { t: "map" } {
    this.enter();
    this.index++; // {
    const entries: Array<[string, Content]> = [];
    let first = true;
    for (;;) {
      let b = this.peekNonWs();
      if (b === 0x7d) break;
      if (b === undefined) throw this.peekError("EOF while parsing an object");
      if (b === 0x2c && !first) {
        this.index++;
        b = this.peekNonWs();
        if (b === 0x7d) throw this.peekError("trailing comma");
        if (b === undefined) throw this.peekError("EOF while parsing a value");
      } else if (!first) {
        throw this.peekError("expected `,` or `}`");
      }
      first = false;
      if (b !== 0x22) throw this.peekError("key must be a string");
      this.index++;
      const key = this.parseStringBody();
      const colon = this.peekNonWs();
      if (colon === undefined) throw this.peekError("EOF while parsing an object");
      if (colon !== 0x3a) throw this.peekError("expected `:`");
      this.index++;
      entries.push([key, valueOf(key, this)]);
    }
    this.index++; // }
    this.depth++;
    return { t: "map", v: entries };
  }

  private parseSeq(): Content {
    this.enter();
    this.index++; // [
    const items: Content[] = [];
    let first = true;
    for (;;) {
      let b = this.peekNonWs();
      if (b === 0x5d) break;
      if (b === undefined) throw this.peekError("EOF while parsing a list");
      if (b === 0x2c && !first) {
        this.index++;
        b = this.peekNonWs();
        if (b === 0x5d) throw this.peekError("trailing comma");
        if (b === undefined) throw this.peekError("EOF while parsing a value");
      } else if (!first) {
        throw this.peekError("expected `,` or `]`");
      }
      first = false;
      items.push(this.parseValue());
    }
    this.index++; // ]
    this.depth++;
    return { t: "seq", v: items };
  }

  private enter(): void {
    this.depth--;
    if (this.depth === 0) throw this.error("recursion limit exceeded");
  }

  private parseIdent(rest: string): void {
    for (const ch of rest) {
      const b = this.bytes[this.index];
      if (b === undefined) throw this.error("EOF while parsing a value");
      this.index++;
      if (b !== ch.charCodeAt(0)) throw this.error("expected ident");
    }
  }

  private isDigit(b: number | undefined): boolean {
    return b !== undefined && b >= 0x30 && b <= 0x39;
  }

  private parseNumber(positive: boolean): Content {
    const start = positive ? this.index : this.index - 1;
    const first = this.bytes[this.index];
    if (first === undefined) throw this.error("EOF while parsing a value");
    this.index++;
    if (first === 0x30) {
      if (this.isDigit(this.bytes[this.index])) throw this.peekError("invalid number");
    } else if (!(first >= 0x31 && first <= 0x39)) {
      throw this.error("invalid number");
    }
    while (this.isDigit(this.bytes[this.index])) this.index++;
    let isFloat = false;
    if (this.bytes[this.index] === 0x2e) {
      isFloat = true;
      this.index++;
      if (!this.isDigit(this.bytes[this.index])) {
        if (this.index < this.bytes.length) throw this.peekError("invalid number");
        throw this.peekError("EOF while parsing a value");
      }
      while (this.isDigit(this.bytes[this.index])) this.index++;
    }
    const e = this.bytes[this.index];
    if (e === 0x65 || e === 0x45) {
      isFloat = true;
      this.index++;
      const sign = this.bytes[this.index];
      if (sign === 0x2b || sign === 0x2d) this.index++;
      const d = this.bytes[this.index];
      if (d === undefined) throw this.error("EOF while parsing a value");
      this.index++;
      if (!this.isDigit(d)) throw this.error("invalid number");
      while (this.isDigit(this.bytes[this.index])) this.index++;
    }
    const raw = this.bytes.subarray(start, this.index).toString("latin1");
    if (!isFloat) {
      const n = BigInt(raw);
      if (n >= 0n && n <= 18446744073709551615n && !raw.startsWith("-")) return { t: "u64", raw };
      if (n < 0n && n >= -9223372036854775808n) return { t: "i64", raw };
      if (n === 0n) return { t: "f64", v: -0 };
    }
    return { t: "f64", v: Number(raw) };
  }

  private hex4(): number {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const b = this.bytes[this.index];
      if (b === undefined) throw this.error("EOF while parsing a string");
      this.index++;
      const c = String.fromCharCode(b);
      if (!/^[0-9a-fA-F]$/.test(c)) throw this.error("invalid escape");
      n = n * 16 + parseInt(c, 16);
    }
    return n;
  }

  /** Parses string contents after the opening quote, through the closing quote. */
  parseStringBody(): string {
    const parts: string[] = [];
    let runStart = this.index;
    for (;;) {
      const b = this.bytes[this.index];
      if (b === undefined) throw this.error("EOF while parsing a string");
      if (b === 0x22) {
        parts.push(this.bytes.subarray(runStart, this.index).toString("utf8"));
        this.index++;
        return parts.join("");
      }
      if (b < 0x20) {
        this.index++;
        throw this.error("control character (\\u0000-\\u001F) found while parsing a string");
      }
      if (b !== 0x5c) {
        this.index++;
        continue;
      }
      parts.push(this.bytes.subarray(runStart, this.index).toString("utf8"));
      this.index++;
      const esc = this.bytes[this.index];
      if (esc === undefined) throw this.error("EOF while parsing a string");
      this.index++;
      const simple: Record<number, string> = {
        0x22: '"',
        0x5c: "\\",
        0x2f: "/",
        0x62: "\b",
        0x66: "\f",
        0x6e: "\n",
        0x72: "\r",
        0x74: "\t",
      };
      const s = simple[esc];
      if (s !== undefined) {
        parts.push(s);
      } else if (esc === 0x75) {
        const n1 = this.hex4();
        if (n1 >= 0xdc00 && n1 <= 0xdfff) throw this.error("lone leading surrogate in hex escape");
        if (n1 >= 0xd800 && n1 <= 0xdbff) {
          if (this.bytes[this.index] !== 0x5c) throw this.error("unexpected end of hex escape");
          this.index++;
          if (this.bytes[this.index] !== 0x75) throw this.error("unexpected end of hex escape");
          this.index++;
          const n2 = this.hex4();
          if (n2 < 0xdc00 || n2 > 0xdfff) throw this.error("lone leading surrogate in hex escape");
          parts.push(String.fromCharCode(n1, n2));
        } else {
          parts.push(String.fromCharCode(n1));
        }
      } else {
        throw this.error("invalid escape");
      }
      runStart = this.index;
    }
  }

  /** After the top-level value: only whitespace may follow (serde_json `Deserializer::end`). */
  end(): void {
    if (this.peekNonWs() !== undefined) throw this.peekError("trailing characters");
  }
}

/** serde's `Unexpected` rendering of a value (for `invalid type: …` messages). */
export function unexpected(c: Content): string {
  switch (c.t) {
    case "null":
      return "unit value";
    case "bool":
      return `boolean \`${String(c.v)}\``;
    case "u64":
    case "i64":
      return `integer \`${c.raw}\``;
    case "f64": {
      let s = Object.is(c.v, -0) ? "-0" : String(c.v);
      if (/^-?\d+$/.test(s)) s += ".0";
      return `floating point \`${s}\``;
    }
    case "str":
      return `string ${JSON.stringify(c.v)}`;
    case "seq":
      return "sequence";
    case "map":
      return "map";
  }
}
