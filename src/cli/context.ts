/**
 * What every client command shares: the `--url`/`--json` options, the SDK client for the chosen
 * gateway, output, and the action wrapper that turns any failure into a one-line message on stderr
 * and the matching exit code (see exit.ts).
 */
import { InvalidArgumentError, type Command } from "commander";
import { createProsperoClient, type ProsperoClient } from "../sdk/index.js";
import { findVerifiedLocalToken } from "../auth/local-credentials.js";
import { CliError, EXIT, describeFailure, type ExitCode } from "./exit.js";
import { processOutput, type Output } from "./output.js";
import { safeText } from "./sanitize.js";

/** Gateway URL when neither `--url` nor `PROSPERO_URL` is given. */
export const DEFAULT_URL = "http://127.0.0.1:7878";

/** Options every client command accepts. */
export interface ClientOptions {
  url?: string;
  json?: boolean;
  token?: string;
}

/** Everything a client command's action gets. */
export interface CliContext {
  /** SDK client of the gateway (disposed after the action). */
  client: ProsperoClient;
  /** The gateway URL in use. */
  url: string;
  /** `--json`: machine output on stdout. */
  json: boolean;
  out: Output;
  /** Aborted on SIGINT/SIGTERM (long-running commands stop and exit 130). */
  signal: AbortSignal;
}

/**
 * Add `--url`, `--token` and `--json` to a client command.
 * @param jsonHelp what `--json` prints for this command
 */
export function clientOptions(cmd: Command, jsonHelp = "print the result as JSON on stdout"): Command {
  return cmd
    .option("--url <url>", `gateway URL (env PROSPERO_URL; default ${DEFAULT_URL})`)
    .option(
      "--token <token>",
      "API token (env PROSPERO_TOKEN, which keeps it out of the process list; default: the local gateway's admin token)",
    )
    .option("--json", jsonHelp);
}

/** The gateway URL from `--url`, else `PROSPERO_URL`, else the default. @throws CliError (usage) when malformed. */
export function resolveUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const raw = flag ?? (env["PROSPERO_URL"] || DEFAULT_URL);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new CliError(
      EXIT.usage,
      `invalid gateway URL ${JSON.stringify(raw)} (expected e.g. ${DEFAULT_URL})`,
    );
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new CliError(EXIT.usage, `invalid gateway URL ${JSON.stringify(raw)}: use http:// or https://`);
  }
  return raw;
}

async function flush(): Promise<void> {
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
}

/** End the process with `code` once stdout and stderr are flushed. */
export async function exitWith(code: ExitCode | number): Promise<never> {
  await flush();
  process.exit(code);
}

/**
 * Wrap a client command's action: build the context from the command's options, run `fn`, dispose
 * the client and exit — 0, or the failure's exit code with `prospero: <message>` on stderr. `fn`
 * may return an exit code (e.g. 130 after an interruption).
 */
export function clientAction<A extends unknown[]>(
  fn: (ctx: CliContext, ...args: A) => Promise<ExitCode | void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const cmd = args.at(-1) as Command;
    const opts = cmd.opts<ClientOptions>();
    // A closed stdout (e.g. `prospero follow x | head`) ends the command quietly.
    process.stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") process.exit(EXIT.ok);
      throw err;
    });
    const out = processOutput();
    const ctrl = new AbortController();
    // Ctrl-C / SIGTERM: commands that wait on the signal (follow) stop cleanly; anything else
    // still running shortly after is ended with exit 130.
    const onSignal = () => {
      ctrl.abort(new CliError(EXIT.interrupted, "interrupted"));
      setTimeout(() => {
        out.note(`${out.ce.red("prospero:")} interrupted`);
        void exitWith(EXIT.interrupted);
      }, 1000).unref();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    let client: ProsperoClient | null = null;
    let code: ExitCode | number = EXIT.ok;
    try {
      const url = resolveUrl(opts.url);
      // --token, else PROSPERO_TOKEN, else the local gateway's admin token once it proved it owns it.
      const token =
        opts.token || process.env["PROSPERO_TOKEN"] || (await findVerifiedLocalToken(url)) || false;
      client = createProsperoClient({ url, token });
      const ctx: CliContext = { client, url, json: opts.json === true, out, signal: ctrl.signal };
      code = (await fn(ctx, ...(args.slice(0, -1) as A))) ?? EXIT.ok;
    } catch (err) {
      const { exitCode, message } = describeFailure(err);
      // The message may quote the gateway, a user's label or an agent's text: terminal-safe it.
      out.note(`${out.ce.red("prospero:")} ${safeText(message)}`);
      if (exitCode === EXIT.failure && process.env["PROSPERO_DEBUG"] && err instanceof Error && err.stack) {
        out.note(safeText(err.stack));
      }
      code = exitCode;
    } finally {
      await client?.dispose().catch(() => {});
    }
    await exitWith(code);
  };
}

/** A commander argument parser for a positive integer (`what` names it in the error). */
export function positiveInt(what: string, max = Number.MAX_SAFE_INTEGER): (v: string) => number {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`${what} must be an integer from 1 to ${max}`);
    }
    return n;
  };
}
