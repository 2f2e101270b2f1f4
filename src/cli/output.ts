/**
 * Terminal output of the client commands: colors (only on a TTY, never with NO_COLOR), JSON on
 * stdout for `--json`, aligned tables, and a spinner on stderr (only on a TTY) for anything that
 * waits.
 */
import ora from "ora";
import pc from "picocolors";
import { safeJson, safeText, singleLine } from "./sanitize.js";

/** Color functions (identity when colors are off). */
export type Colors = ReturnType<typeof pc.createColors>;

/** Colors for `stream`: on only when it is a TTY and picocolors allows them (NO_COLOR unset, TERM not dumb). */
export function colorsFor(stream: NodeJS.WriteStream): Colors {
  return pc.createColors(pc.isColorSupported && stream.isTTY === true);
}

/** Where a command writes. */
export interface Output {
  /** Write `text` to stdout as is. */
  out(text: string): void;
  /** Write `text` plus a newline to stdout. */
  line(text?: string): void;
  /** Write `text` plus a newline to stderr. */
  note(text: string): void;
  /**
   * Print `value` as JSON (two-space indent) on stdout, with the characters a terminal acts on
   * that JSON.stringify leaves raw (C1, bidi controls) escaped (sanitize.ts `safeJson`).
   */
  json(value: unknown): void;
  /** Colors for stdout. */
  c: Colors;
  /** Colors for stderr. */
  ce: Colors;
  /**
   * Run `fn` with a spinner showing `text` on stderr (TTY only); the spinner is cleared after. The
   * spinner's texts pass through `safeText` (they may quote arguments or a gateway's error).
   */
  spin<T>(text: string, fn: (spinner: SpinnerHandle) => Promise<T>): Promise<T>;
}

/** What a running spinner lets its task do. */
export interface SpinnerHandle {
  /** Replace the text. */
  text(text: string): void;
  /** Hide while writing other output (call `resume` after). */
  pause(): void;
  /** Show again after `pause`. */
  resume(): void;
}

/** The process's output (stdout/stderr, colors and spinner decided from the streams and env). */
export function processOutput(): Output {
  const stdout = process.stdout;
  const stderr = process.stderr;
  return {
    out: (text) => void stdout.write(text),
    line: (text = "") => void stdout.write(`${text}\n`),
    note: (text) => void stderr.write(`${text}\n`),
    json: (value) => void stdout.write(`${safeJson(value, 2)}\n`),
    c: colorsFor(stdout),
    ce: colorsFor(stderr),
    async spin(text, fn) {
      // A terminal that reports no width (some pseudo-terminals) would make ora clear endlessly.
      if (stderr.isTTY !== true || !(stderr.columns > 0)) {
        return fn({ text: () => {}, pause: () => {}, resume: () => {} });
      }
      const spinner = ora({ text: safeText(text), stream: stderr, discardStdin: false });
      let paused = false;
      spinner.start();
      try {
        return await fn({
          text: (t) => {
            spinner.text = safeText(t);
          },
          pause: () => {
            if (!paused) spinner.stop();
            paused = true;
          },
          resume: () => {
            if (paused) spinner.start();
            paused = false;
          },
        });
      } finally {
        spinner.stop();
      }
    },
  };
}

/** Visible length of a string (ANSI color codes not counted). */
export function visibleLength(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, "").length;
}

/**
 * Render rows as left-aligned columns separated by two spaces (the last column is not padded).
 * `head` is the header row (already colored as wanted). Each cell is kept on one line (line breaks
 * shown as `␤`, see sanitize.ts `singleLine`), so a value cannot forge a row; cells holding data
 * from the gateway must have passed through `safeText`/`safeData` before being colored.
 */
export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [head, ...rows].map((r) => r.map(singleLine));
  const widths = head.map((_, i) => Math.max(...all.map((r) => visibleLength(r[i] ?? ""))));
  return all
    .map((r) =>
      r
        .map((cell, i) =>
          i === r.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell)),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
