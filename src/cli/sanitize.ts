/**
 * Terminal safety for text the CLI prints that came from users or agents (labels, prompts,
 * workspace roots, health reasons, agent output, tool inputs and results, gateway error messages).
 * Issue 11, item 8: "the CLI strips C0/C1 control characters and escape sequences from everything
 * it prints that came from users or agents". Written into a terminal as is, such text could clear
 * the screen (`ESC [ 2 J`), set the window title (OSC 0), write the clipboard (OSC 52), send
 * device-control strings, move the cursor to overwrite earlier lines (CR, BS, CSI), or reorder
 * what is shown with bidirectional overrides ("Trojan Source", CVE-2021-42574).
 *
 * The rule, in this order:
 * 1. CRLF becomes LF.
 * 2. Complete ECMA-48 escape sequences are removed, in their 7-bit and 8-bit forms: CSI
 *    (`ESC [` / U+009B, parameters, final byte: colors, cursor moves, erase), OSC (`ESC ]` /
 *    U+009D … BEL or ST: titles, clipboard, hyperlinks), DCS / SOS / PM / APC strings (`ESC P`,
 *    `ESC X`, `ESC ^`, `ESC _` / U+0090, U+0098, U+009E, U+009F … ST) and two-byte escapes
 *    (`ESC c` reset, `ESC 7`, `ESC ( 0`, …). Recognising them is ansi-regex's job (chalk's
 *    well-kept pattern, used through its regex because strip-ansi's fast path skips strings whose
 *    only introducer is an 8-bit OSC or DCS). They are dropped silently: colors and cursor control
 *    in a tool's output are formatting, and showing them would bury the text.
 * 3. Every control character still left is replaced by a visible placeholder, so nothing that
 *    could act on the terminal reaches it and an attempt stays noticeable: C0 controls other than
 *    LF and TAB (a lone CR, BS, BEL, NUL, and ESC of an unterminated or unknown sequence, whose
 *    parameters then show as text) by their Unicode control pictures (U+2400–U+241F: `␍`, `␈`,
 *    `␇`, `␀`, `␛`), DEL by `␡` (U+2421), C1 controls (U+0080–U+009F) and the bidirectional
 *    embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069) by `�` (U+FFFD).
 *    The implicit marks LRM, RLM and ALM (U+200E, U+200F, U+061C) stay: right-to-left text needs
 *    them and they cannot reorder text beyond their neighbours.
 *
 * Only step 3 carries the guarantee (the output holds no C0 but LF and TAB, no DEL, no C1, no bidi
 * control), so text split anywhere, e.g. a sequence spread over two streamed deltas, is still safe;
 * its halves then show as placeholders and text. Everything else (emoji, CJK, combining marks) is
 * untouched.
 */
import ansiRegex from "ansi-regex";

/** ECMA-48 sequences, 7-bit and 8-bit (see the module doc, step 2). */
const SEQUENCE = ansiRegex();

/** Characters replaced in step 3: C0 but TAB and LF, DEL, C1, bidi embedding/override/isolate. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Characters that make a string need any work (UNSAFE, which includes CR and ESC). */
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Characters JSON.stringify leaves raw that a terminal acts on: DEL, C1, bidi controls. */
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The visible stand-in of one character matched by UNSAFE. */
function placeholder(ch: string): string {
  const cp = ch.charCodeAt(0);
  if (cp < 0x20) return String.fromCharCode(0x2400 + cp);
  if (cp === 0x7f) return "\u2421";
  return "\ufffd";
}

/**
 * `text` made safe to write to a terminal: escape sequences removed, other control characters
 * replaced by visible placeholders, LF and TAB kept, CRLF as LF (the rule is the module doc's).
 * Pure; a string without control characters is returned as is.
 */
export function safeText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(SEQUENCE, "").replace(UNSAFE, placeholder);
}

/**
 * `text` shown on one line: each LF (CRLF) as `␤` (U+2424) and each TAB as a space, so a value
 * cannot start a line of its own (a forged table row or key/value line). Touches nothing else, so it
 * may be applied to text already colored by our own code; it does not make text safe by itself
 * (use {@link safeText} on the data first).
 */
export function singleLine(text: string): string {
  return text.replace(/\r?\n/g, "\u2424").replace(/\t/g, " ");
}

/**
 * A copy of `value` (the JSON-shaped data of a GraphQL result or event: objects, arrays, strings,
 * numbers, booleans, null) with every string, object keys included, passed through
 * {@link safeText}. Values that are neither strings, arrays nor plain objects (prototype
 * `Object.prototype` or null) are kept as they are. The shape is unchanged, so the result has `value`'s type (strings of enum types contain no
 * control characters and come back equal).
 */
export function safeData<T>(value: T): T {
  return deep(value) as T;
}

function isPlain(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function deep(v: unknown): unknown {
  if (typeof v === "string") return safeText(v);
  if (Array.isArray(v)) return v.map(deep);
  if (v !== null && typeof v === "object" && isPlain(v)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [safeText(k), deep(x)]));
  }
  return v;
}

/**
 * `value` as JSON text (JSON.stringify with `indent` spaces, 0 = one line) in which the characters
 * JSON.stringify leaves raw but a terminal acts on (DEL, C1 controls U+0080–U+009F, bidi controls
 * U+202A–U+202E and U+2066–U+2069) are written as `\uXXXX` escapes; C0 controls are escaped by
 * JSON.stringify itself. It parses to the same value as JSON.stringify's text: those characters
 * can only occur inside JSON strings, where the escape means the same character.
 * @throws TypeError when `value` has no JSON form (undefined, a function, a symbol).
 */
export function safeJson(value: unknown, indent = 0): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  if (text === undefined) throw new TypeError(`no JSON form for a value of type ${typeof value}`);
  return text.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
