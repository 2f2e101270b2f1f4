/**
 * Why a run failed, as far as the gateway can see it (issue 12 item 7): the end of the worker's
 * `<session_dir>/worker.log` and the exit code its RunEnd implies.
 *
 * caliband appends the worker's stdout and stderr to `worker.log` (protocol §5.4, §5.6): that is
 * where a preflight failure ("… API key is not set", "unknown provider") or a fatal stream error
 * shows up, while the transcript has no frame at all. caliband does not report exit codes in its
 * records (a non-zero exit is just `failed`, §1.7), so the exit code here is inferred from the run's
 * RunEnd stop condition by the worker's own mapping (§5.4) and is null when no RunEnd was read;
 * it is never guessed from log text.
 *
 * The file is read from the local filesystem: a daemon reached over TCP keeps it on another
 * machine, and `rm`/`respawn` delete it with the session dir; then the tail is null with a reason.
 */
import fs from "node:fs";
import path from "node:path";
import ansiRegex from "ansi-regex";
import { REDACTED, redactTokenSecrets } from "../auth/audit.js";

/** Most lines of worker.log kept for a failed run (the last ones). */
export const WORKER_LOG_TAIL_LINES = 40;

/** Most bytes (UTF-8) of worker.log kept for a failed run: the kept tail is at most this long. */
export const WORKER_LOG_TAIL_BYTES = 8_192;

/**
 * Bytes read before the kept window, so a secret that starts just before it is still recognised
 * whole (redaction runs before the tail is cut to {@link WORKER_LOG_TAIL_BYTES}).
 */
const REDACTION_MARGIN_BYTES = 1_024;

/** The statuses whose runs get their worker.log tail recorded (caliband's words for a run that went wrong). */
export const FAILURE_STATUSES: ReadonlySet<string> = new Set(["failed", "crashed"]);

/** What was read of a worker.log. */
export interface WorkerLogTail {
  /**
   * The last lines (≤ {@link WORKER_LOG_TAIL_LINES}, ≤ {@link WORKER_LOG_TAIL_BYTES} bytes, no final
   * newline) as a human reads them: escape sequences and control characters but LF and TAB removed
   * ({@link cleanLogText}), secrets redacted ({@link redactSecrets}); null when unread.
   */
  tail: string | null;
  /** Earlier lines, or the start of an over-long line, were left out. */
  truncated: boolean;
  /** Size of the file when read, bytes; null when unread. */
  bytes: number | null;
  /** Why `tail` is null; null when it was read. */
  reason: string | null;
}

/**
 * Worker exit code per RunEnd stop condition (protocol §5.4): 0 for EndOfTurn, 75 when the turn
 * limit was reached, 124 when cancelled, 1 for every failure-type stop condition. Stop conditions
 * not listed (a newer worker's) have no known code.
 */
const EXIT_CODE_OF_OUTCOME: Readonly<Record<string, number>> = {
  EndOfTurn: 0,
  MaxTurnsReached: 75,
  Cancelled: 124,
  ProviderError: 1,
  HookDenied: 1,
  CompactionFailed: 1,
  MaxTokensExhausted: 1,
  Refusal: 1,
  ContentFilter: 1,
  StreamIdle: 1,
  ThinkingBudgetExhausted: 1,
};

/**
 * The exit code the worker ends with after a RunEnd whose stop condition is `outcome` (its
 * variant name as stored in `agent_finished.outcome`), by the mapping of protocol §5.4; null when
 * `outcome` is null (no RunEnd was read: a preflight failure, a fatal stream error, a kill — the
 * code is then not known) or not a stop condition that mapping names.
 */
export function exitCodeOfOutcome(outcome: string | null): number | null {
  if (outcome === null || !Object.hasOwn(EXIT_CODE_OF_OUTCOME, outcome)) return null;
  return EXIT_CODE_OF_OUTCOME[outcome] ?? null;
}

/**
 * Provider credentials and other token-shaped secrets a worker may print (besides Prospero's own
 * tokens, which {@link redactTokenSecrets} handles), each with what replaces its match:
 * - API keys of the providers caliban talks to: `sk-…` (Anthropic, OpenAI), `AIza…` (Google);
 * - GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), Slack tokens
 *   (`xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxs-`, `xoxr-`), AWS access key ids (`AKIA`/`ASIA` and 16
 *   upper-case letters or digits);
 * - bearer credentials (`Bearer …`, the word kept);
 * - the password of a URL (`scheme://user:password@host`: scheme, user and host kept);
 * - the value of any `NAME=value` / `name: value` (8 characters or more) whose name contains key,
 *   token, secret or password, and of a command-line flag so named followed by its value after a
 *   space (`--api-key VALUE`, `--token VALUE`, `--password VALUE`; the `--flag=VALUE` form is the
 *   previous rule's). The name is kept.
 *
 * Every pattern runs in time linear in the line it is applied to (issue 12 review: the previous
 * `NAME=value` rule backtracked cubically and a 9 KiB line froze the event loop for 24 s): no
 * quantifier is nested, adjacent quantified parts match disjoint character sets (so a failed
 * attempt has one way to give characters back), and every quantifier that is followed by more of
 * its pattern is bounded, so each attempt looks at most a few hundred characters past where it
 * starts. The quantifier that ends a pattern (the secret itself) is left unbounded on purpose: it
 * never gives characters back to anything after it, and a bound would leave the end of a longer
 * secret in clear.
 */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\bsk-[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/\bAIza[A-Za-z0-9_-]{30,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, REDACTED],
  [/\b(bearer\s{1,8})[A-Za-z0-9._~+/-]{16,}={0,3}/gi, `$1${REDACTED}`],
  // scheme://user:password@ — the password may hold ':' and '@' (the last '@' ends it).
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/?#@]{0,256}:)[^\s/?#]{1,1024}@/gi, `$1${REDACTED}@`],
  // NAME=value, name: value, "name": "value". Matching starts at the word (the name's start is
  // kept as it is), so no two quantifiers compete for the same characters.
  [
    /((?:key|token|secret|passw(?:or)?d)[A-Za-z0-9_.-]{0,64}["']?\s{0,4}[=:]\s{0,4}["']?)[^\s"',;]{8,}/gi,
    `$1${REDACTED}`,
  ],
  // --api-key VALUE: the word must sit in a `--flag` name and end it or a part of it (not
  // `--max-tokens 4096`); a value starting with '-' is the next flag, not this one's value.
  [
    /(?<=--[A-Za-z0-9_-]{0,64})((?:key|token|secret|passw(?:or)?d)(?:[_-][A-Za-z0-9_-]{0,32})?\s{1,4}["']?)[^\s"'-][^\s"']*/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * C0 control characters but TAB and LF (CR included), DEL, C1 controls, and the invisible
 * format characters a terminal does not show (zero-width space/joiners, bidi marks, embeddings,
 * overrides and isolates, word joiner, BOM): what {@link cleanLogText} removes after the escape
 * sequences.
 */
const CONTROL_CHARS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** ECMA-48 escape sequences, 7- and 8-bit (ansi-regex's pattern; it is linear, see its comments). */
const ESCAPE_SEQUENCES = ansiRegex();

/**
 * `text` as a human reads it on a terminal: ECMA-48 escape sequences (colours, cursor moves, OSC
 * titles and links; ansi-regex's pattern, 7- and 8-bit) removed, then the characters of
 * {@link CONTROL_CHARS} removed; LF and TAB kept. Pure. Runs before {@link redactSecrets} so a
 * secret wrapped in colour codes (`\e[1msk-ant-…\e[0m`) or split by an invisible character is
 * still recognised.
 */
export function cleanLogText(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, "").replace(CONTROL_CHARS, "");
}

/**
 * `text` with token-shaped secrets replaced by `[redacted]`: Prospero token secrets (the audit
 * log's rule) and {@link SECRET_PATTERNS}, applied line by line (split on LF; no pattern crosses
 * a line). Pure; time linear in `text.length`. Errs on the side of redacting. Escape sequences
 * and control characters are not looked through: clean the text first ({@link cleanLogText}).
 */
export function redactSecrets(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      let out = redactTokenSecrets(line);
      for (const [re, by] of SECRET_PATTERNS) out = out.replace(re, by);
      return out;
    })
    .join("\n");
}

/** The text of `buf` (UTF-8, invalid bytes as U+FFFD), skipping a split character at its start when `cut`. */
function decode(buf: Buffer, cut: boolean): string {
  let start = 0;
  // A window that starts inside a multi-byte character: skip its continuation bytes.
  if (cut) while (start < buf.length && start < 3 && (buf[start]! & 0xc0) === 0x80) start++;
  return new TextDecoder("utf-8").decode(buf.subarray(start));
}

/** The last `max` bytes of `line` (UTF-8), starting at a character boundary. */
function lastBytes(line: string, max: number): string {
  const b = Buffer.from(line, "utf8");
  return b.length <= max ? line : decode(b.subarray(b.length - max), true);
}

/** A tail that could not be read, with why. */
export function unread(reason: string): WorkerLogTail {
  return { tail: null, truncated: false, bytes: null, reason };
}

/** Why opening or reading `file` failed, for {@link WorkerLogTail.reason}. */
function describe(err: unknown, file: string): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOENT" || code === "ENOTDIR")
    return `${file} does not exist here (a daemon on another machine, or removed with the session dir)`;
  if (code === "ELOOP") return `${file} is a symbolic link (not followed)`;
  return `${file} could not be read: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * Read the end of `<sessionDir>/worker.log`: the last {@link WORKER_LOG_TAIL_LINES} lines, at most
 * {@link WORKER_LOG_TAIL_BYTES} bytes of them (a line that alone is longer keeps its end), decoded
 * as UTF-8 (invalid bytes as U+FFFD). The tail is for humans, so what is kept is the text as a
 * terminal would show it: escape sequences and control characters (CR included) are removed
 * before secrets are redacted ({@link cleanLogText}, {@link redactSecrets}), so colour codes
 * cannot hide a secret from redaction; clients still sanitize what they show. A symbolic link is not followed and
 * only a regular file is read (opened non-blocking, so a FIFO cannot hang the caller). The file
 * may still be growing (a crashed run's worker may still write): what it holds at this moment is
 * read. Never throws: a missing or unreadable file gives `tail: null` and the reason.
 * @param sessionDir the agent's `session_dir` from its daemon record ("" when unknown).
 */
export async function readWorkerLogTail(sessionDir: string): Promise<WorkerLogTail> {
  if (sessionDir === "") return unread("the daemon's record names no session dir");
  const file = path.join(sessionDir, "worker.log");
  let fh: fs.promises.FileHandle;
  try {
    const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
    fh = await fs.promises.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    return unread(describe(err, file));
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return unread(`${file} is not a regular file`);
    const size = st.size;
    const want = Math.min(size, WORKER_LOG_TAIL_BYTES + REDACTION_MARGIN_BYTES);
    const buf = Buffer.alloc(want);
    const { bytesRead } = await fh.read(buf, 0, want, size - want);
    const cut = size > want;
    const lines = redactSecrets(cleanLogText(decode(buf.subarray(0, bytesRead), cut))).split("\n");
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop(); // the final newline
    let truncated = cut;
    // The window's first line is the end of a line that started before it.
    if (cut && lines.length > 1) lines.shift();
    const kept: string[] = [];
    let keptBytes = 0;
    for (let i = lines.length - 1; i >= 0 && kept.length < WORKER_LOG_TAIL_LINES; i--) {
      const line = lines[i]!;
      const cost = Buffer.byteLength(line, "utf8") + (kept.length > 0 ? 1 : 0);
      if (keptBytes + cost > WORKER_LOG_TAIL_BYTES) {
        if (kept.length === 0) kept.push(lastBytes(line, WORKER_LOG_TAIL_BYTES));
        break;
      }
      kept.unshift(line);
      keptBytes += cost;
    }
    if (kept.length < lines.length || (kept.length === 1 && kept[0] !== lines[lines.length - 1])) {
      truncated = true;
    }
    return { tail: kept.join("\n"), truncated, bytes: size, reason: null };
  } catch (err) {
    return unread(describe(err, file));
  } finally {
    await fh.close().catch(() => {});
  }
}
