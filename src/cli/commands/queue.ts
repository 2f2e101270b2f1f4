/**
 * The launch queue on the command line (issue 14): `enqueue`, `queue`, `launch`, `cancel`, `caps`
 * (`caps set`) and `budget` (`budget set`). Each is one or a few typed SDK documents
 * (src/sdk/operations/queue.graphql); typed mutation errors map to exit codes as everywhere
 * (exit.ts: a server ValidationError is 4 with its field messages). Command-line values are checked
 * here first (exit 2, naming the option): durations, instants, priorities, retry counts and cap or
 * budget scopes; the gateway checks the rest (an unknown provider, a cap above its maximum, …).
 *
 * Also exports the value parsers `schedule add` shares (./schedule.ts).
 */
import { InvalidArgumentError, type Command } from "commander";
import {
  CancelLaunchDocument,
  EnqueueLaunchDocument,
  LaunchDocument,
  LaunchesDocument,
  QueueStatusDocument,
  SetBudgetDocument,
  SetCapDocument,
  type BudgetFieldsFragment,
  type BudgetPeriod,
  type BudgetScope,
  type CapFieldsFragment,
  type CapScope,
  type EnqueueLaunchInput,
  type LaunchFilter,
  type LaunchQuery,
  type LaunchState,
  type LaunchSummaryFragment,
  type LaunchesQuery,
  type Provider,
  type RetryPolicyInput,
} from "../../sdk/index.js";
import {
  PRIORITY_MAX,
  PRIORITY_MIN,
  RETRY_MAX_ATTEMPTS,
  TIMEOUT_MAX_MS,
  TIMEOUT_MIN_MS,
} from "../../queue/types.js";
import { clientAction, clientOptions, positiveInt, type CliContext } from "../context.js";
import { CliError, EXIT, present, unwrapResult } from "../exit.js";
import { age, duration, firstLine, status, usd } from "../format.js";
import { table, type Colors } from "../output.js";
import { collectNames, parseProvider } from "../parse.js";
import { safeData, singleLine } from "../sanitize.js";

/** Launches per `launches` request, and the default number of rows per section of `queue`. */
export const LAUNCHES_PAGE = 50;

/** State changes per page when `launch` reads a launch's transitions. */
export const TRANSITIONS_PAGE = 100;

/** The final launch states (`queue --all` lists them too, newest first by creation). */
export const FINAL_STATES = [
  "SUCCEEDED",
  "FAILED",
  "TIMED_OUT",
  "CANCELLED",
] as const satisfies readonly LaunchState[];

/** The states of a launch handed to a daemon (`queue` lists them after the waiting ones). */
export const ACTIVE_STATES = ["DISPATCHED", "RUNNING"] as const satisfies readonly LaunchState[];

/**
 * Every state a launch can be in, in life order: the values `queue --state` takes. The schema's
 * LaunchState also has UNKNOWN (a state the gateway does not know), which as a filter matches no
 * launch, so it is not offered.
 */
export const LAUNCH_STATES = [
  "QUEUED",
  ...ACTIVE_STATES,
  ...FINAL_STATES,
] as const satisfies readonly Exclude<LaunchState, "UNKNOWN">[];

// Compile-time completeness: LAUNCH_STATES names every LaunchState but UNKNOWN.
const _launchStatesComplete: Exclude<LaunchState, "UNKNOWN" | (typeof LAUNCH_STATES)[number]> extends never
  ? true
  : never = true;
void _launchStatesComplete;

// ----------------------------------------------------------------------------------------------
// Value parsers (commander argParsers: each throws InvalidArgumentError, reported as exit 2)
// ----------------------------------------------------------------------------------------------

/** A duration as the CLI takes it: whole number, optional unit; a bare number is milliseconds. */
const DURATION = /^(\d+)(ms|s|m|h|d)?$/;
const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_FORMS =
  "a whole number with an optional unit: ms, s, m, h, d (90s, 30m, 2h; a bare number is ms)";

/**
 * Parse a duration (`90s`, `30m`, `2h`, `1d`, `1500ms`, or a bare number of milliseconds) to
 * milliseconds. Input validation of a command-line value, not a general parser: only
 * `^(\d+)(ms|s|m|h|d)?$` is accepted (no fractions, signs, spaces between number and unit, or
 * combinations such as `1h30m`). (`ms`, the only duration package in node_modules, is there only
 * as a development dependency of eslint's, and it accepts far more: `-1s`, `1.5 hours`.)
 * @param what the option, named in the error (e.g. `--timeout`)
 * @throws InvalidArgumentError for any other form, or a value beyond Number.MAX_SAFE_INTEGER ms.
 */
export function parseDuration(what: string, raw: string): number {
  const m = DURATION.exec(raw.trim());
  if (!m) throw new InvalidArgumentError(`${what} must be ${DURATION_FORMS}, got ${JSON.stringify(raw)}`);
  const ms = Number(m[1]) * (DURATION_UNIT_MS[m[2] ?? "ms"] ?? 1);
  if (!Number.isSafeInteger(ms)) throw new InvalidArgumentError(`${what} is too large`);
  return ms;
}

/**
 * `--timeout`: a duration ({@link parseDuration}) from 1 s to 7 days, the gateway's bounds
 * (src/queue/types.ts TIMEOUT_MIN_MS, TIMEOUT_MAX_MS). Returns ms.
 * @throws InvalidArgumentError outside them (0 included: it would kill every run at once).
 */
export function parseTimeout(raw: string): number {
  const ms = parseDuration("--timeout", raw);
  if (ms < TIMEOUT_MIN_MS || ms > TIMEOUT_MAX_MS) {
    throw new InvalidArgumentError(
      `--timeout must be from ${duration(TIMEOUT_MIN_MS)} to 7 days (e.g. 90s, 30m, 2h), got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** `--backoff`: a duration ({@link parseDuration}), ms; its bounds are the gateway's to check. */
export function parseBackoff(raw: string): number {
  return parseDuration("--backoff", raw);
}

/**
 * `--priority`: an integer from 0 (lowest) to 100 (highest), the gateway's bounds
 * (src/queue/types.ts PRIORITY_MIN, PRIORITY_MAX).
 * @throws InvalidArgumentError for anything else.
 */
export function parsePriority(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < PRIORITY_MIN || n > PRIORITY_MAX) {
    throw new InvalidArgumentError(
      `--priority must be an integer from ${PRIORITY_MIN} (lowest) to ${PRIORITY_MAX} (highest), got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/**
 * `--retries N`: how many times a transient failure is retried, 0 … 19 (the policy's maxAttempts
 * is N + 1, at most src/queue/types.ts RETRY_MAX_ATTEMPTS).
 * @throws InvalidArgumentError for anything else.
 */
export function parseRetries(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > RETRY_MAX_ATTEMPTS - 1) {
    throw new InvalidArgumentError(
      `--retries must be an integer from 0 to ${RETRY_MAX_ATTEMPTS - 1} (attempts in all: retries + 1), got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** An ISO 8601 date or date-time: `2026-12-01`, `2026-12-01T09:30`, `…:00Z`, `…+01:00`. */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * `--not-before`: an ISO 8601 date or date-time (a date-time without offset is local time, a date
 * alone UTC midnight, as JavaScript reads them) or a time from now, `+` and a duration
 * ({@link parseDuration}): `+5m`, `+2h`. Returns RFC 3339 in UTC. Whether it is too far in the
 * past is the gateway's to say (ValidationError at `input.notBefore`).
 * @throws InvalidArgumentError for any other form, or a date that is not on the calendar.
 */
export function parseNotBefore(raw: string, now: () => number = Date.now): string {
  const v = raw.trim();
  if (v.startsWith("+")) return new Date(now() + parseDuration("--not-before", v.slice(1))).toISOString();
  const m = ISO_INSTANT.exec(v);
  const t = Date.parse(v);
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (
    !m ||
    Number.isNaN(t) ||
    day.getUTCFullYear() !== y ||
    day.getUTCMonth() !== mo - 1 ||
    day.getUTCDate() !== d
  ) {
    throw new InvalidArgumentError(
      `--not-before must be an ISO date/time (2026-12-01T09:30:00Z) or a time from now (+5m, +2h), got ${JSON.stringify(raw)}`,
    );
  }
  return new Date(t).toISOString();
}

/**
 * `--state`: launch states, comma-separated and repeatable (`--state timed_out,failed --state
 * cancelled`), in any case, `-` for `_` (`timed-out`); accumulated over repeats without duplicates.
 * Returns the schema's LaunchState names ({@link LAUNCH_STATES}), for the `launches(filter: {states})`
 * filter.
 * @throws InvalidArgumentError for an empty list or a name that is not a launch state (UNKNOWN
 *   included: it matches no launch), naming the accepted ones.
 */
export function collectStates(raw: string, prev: LaunchState[] = []): LaunchState[] {
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const accepted = LAUNCH_STATES.map((s) => s.toLowerCase()).join(", ");
  if (names.length === 0) {
    throw new InvalidArgumentError(`--state needs a launch state: one of ${accepted} (comma-separated)`);
  }
  const out = [...prev];
  for (const name of names) {
    const v = name.toUpperCase().replace(/-/g, "_");
    const hit = LAUNCH_STATES.find((st) => st === v);
    if (hit === undefined) {
      throw new InvalidArgumentError(
        `--state must be a launch state: one of ${accepted} (comma-separated or repeated), got ${JSON.stringify(name)}`,
      );
    }
    if (!out.includes(hit)) out.push(hit);
  }
  return out;
}

/** A cap's scope as `caps set` names it. */
export interface CapTarget {
  scope: CapScope;
  /** The workspace, provider or model; null for GLOBAL. */
  key: string | null;
}

/**
 * `global`, `workspace:W`, `provider:P` or `model:M` (scope in any case; the key is everything
 * after the first `:`, so model names may hold colons; a provider in lower case, as caliband
 * spells it).
 * @throws InvalidArgumentError for another scope, a missing key, or a key on `global`.
 */
export function parseCapTarget(raw: string): CapTarget {
  const i = raw.indexOf(":");
  const kind = (i < 0 ? raw : raw.slice(0, i)).trim().toLowerCase();
  const key = i < 0 ? null : raw.slice(i + 1);
  const forms = "global, workspace:<name>, provider:<name> or model:<name>";
  if (kind === "global") {
    if (key !== null) throw new InvalidArgumentError(`the global cap takes no key (use ${forms})`);
    return { scope: "GLOBAL", key: null };
  }
  const scope = ({ workspace: "WORKSPACE", provider: "PROVIDER", model: "MODEL" } as const)[kind];
  if (scope === undefined) {
    throw new InvalidArgumentError(`unknown cap scope ${JSON.stringify(raw)} (one of ${forms})`);
  }
  if (key === null || key.trim() === "") {
    throw new InvalidArgumentError(`${kind} caps need a name: ${kind}:<name>`);
  }
  return { scope, key: scope === "PROVIDER" ? key.trim().toLowerCase() : key.trim() };
}

/**
 * A cap's maximum: a whole number of runs (0 pauses dispatch in the scope), or `none` (null:
 * remove the cap). The upper bound is the gateway's to check.
 * @throws InvalidArgumentError for anything else.
 */
export function parseCapMax(raw: string): number | null {
  const v = raw.trim().toLowerCase();
  if (v === "none") return null;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new InvalidArgumentError(
      `the maximum must be a whole number of runs (0 pauses dispatch) or none (removes the cap), got ${JSON.stringify(raw)}`,
    );
  }
  return Number(v);
}

/** A budget's scope as `budget set` names it. */
export interface BudgetTarget {
  scope: BudgetScope;
  key: string;
}

/**
 * `workspace:W` or `provider:P` (scope in any case; a provider in lower case, as caliband spells it).
 * @throws InvalidArgumentError for another scope or a missing name.
 */
export function parseBudgetTarget(raw: string): BudgetTarget {
  const i = raw.indexOf(":");
  const kind = (i < 0 ? raw : raw.slice(0, i)).trim().toLowerCase();
  const key = i < 0 ? "" : raw.slice(i + 1).trim();
  const scope = ({ workspace: "WORKSPACE", provider: "PROVIDER" } as const)[kind];
  if (scope === undefined) {
    throw new InvalidArgumentError(
      `unknown budget scope ${JSON.stringify(raw)} (workspace:<name> or provider:<name>)`,
    );
  }
  if (key === "") throw new InvalidArgumentError(`${kind} budgets need a name: ${kind}:<name>`);
  return { scope, key: scope === "PROVIDER" ? key.toLowerCase() : key };
}

/** `day` or `month` (any case). @throws InvalidArgumentError for anything else. */
export function parseBudgetPeriod(raw: string): BudgetPeriod {
  const v = raw.trim().toUpperCase();
  if (v === "DAY" || v === "MONTH") return v;
  throw new InvalidArgumentError(`unknown budget period ${JSON.stringify(raw)} (day or month)`);
}

/**
 * A budget's limit in USD (`10`, `2.50`, `$10`), or `none` (null: remove the budget). Its bounds
 * (more than 0, at most the gateway's maximum) are the gateway's to check.
 * @throws InvalidArgumentError for anything else.
 */
export function parseUsd(raw: string): number | null {
  const v = raw.trim().toLowerCase();
  if (v === "none") return null;
  const m = /^\$?(\d+(?:\.\d+)?)$/.exec(v);
  if (!m) {
    throw new InvalidArgumentError(
      `the limit must be an amount in USD (10, 2.50) or none (removes the budget), got ${JSON.stringify(raw)}`,
    );
  }
  return Number(m[1]);
}

// ----------------------------------------------------------------------------------------------
// Shared by enqueue and schedule add
// ----------------------------------------------------------------------------------------------

/** The spawn flags `enqueue` and `schedule add` share with `spawn` (commander's names). */
export interface LaunchSpawnFlags {
  label?: string;
  model?: string;
  provider?: Provider;
  source?: string;
  /** False with `--no-isolated`. */
  isolated?: boolean;
  interactive?: boolean;
  tool?: string[];
}

/** The queue flags `enqueue` and `schedule add` share. */
export interface LaunchQueueFlags {
  priority?: number;
  timeout?: number;
  retries?: number;
  backoff?: number;
}

/** Add the spawn options of a launch (as `spawn` has them, but `--no-isolated`) to `cmd`. */
export function launchSpawnOptions(cmd: Command): Command {
  return cmd
    .option("--label <label>", "label (becomes the agent's name)")
    .option("--model <model>", "model (default: the workspace's when the run starts)")
    .option(
      "--provider <provider>",
      "anthropic|openai|ollama|google (default: the workspace's when the run starts)",
      parseProvider,
    )
    .option("--source <name>", "source checkout to run in (default: the workspace root)")
    .option("--no-isolated", "run in the checkout itself instead of its own git worktree")
    .option("--interactive", "wait for operator input (prospero send / end-input) at each end of turn")
    .option(
      "--tool <name>",
      "allow this tool (repeatable or comma-separated; default: caliban's set)",
      collectNames,
    );
}

/** Add `--priority`, `--timeout`, `--retries` and `--backoff` to `cmd`. */
export function launchQueueOptions(cmd: Command): Command {
  return cmd
    .option(
      "--priority <n>",
      `${PRIORITY_MIN} (lowest) … ${PRIORITY_MAX} (highest); higher dispatches first (default 50)`,
      parsePriority,
    )
    .option(
      "--timeout <duration>",
      "run timeout: 90s, 30m, 2h, or ms (1s … 7d; default the workspace's): the run is killed and the launch ends TIMED_OUT",
      parseTimeout,
    )
    .option(
      "--retries <n>",
      `retry transient provider failures (429, 529, overloaded, …) up to n times (0 … ${RETRY_MAX_ATTEMPTS - 1}; default 0)`,
      parseRetries,
    )
    .option(
      "--backoff <duration>",
      "nominal delay before the first retry, doubled per further retry; each real delay is 50–100 % of it (jitter): 10s, 2m, or ms (default 10s)",
      parseBackoff,
    );
}

/** The spawn fields of a launch from the flags (only those given). */
export function launchSpawnFields(f: LaunchSpawnFlags): {
  label?: string;
  model?: string;
  provider?: Provider;
  source?: string;
  isolated?: boolean;
  interactive?: boolean;
  toolAllowlist?: string[];
} {
  return {
    ...(f.label !== undefined ? { label: f.label } : {}),
    ...(f.model !== undefined ? { model: f.model } : {}),
    ...(f.provider !== undefined ? { provider: f.provider } : {}),
    ...(f.source !== undefined ? { source: f.source } : {}),
    ...(f.isolated === false ? { isolated: false } : {}),
    ...(f.interactive ? { interactive: true } : {}),
    ...(f.tool !== undefined ? { toolAllowlist: f.tool } : {}),
  };
}

/**
 * The queue fields of a launch from the flags (only those given): `--retries N` is a retry
 * policy of N + 1 attempts.
 * @throws CliError (usage) for `--backoff` without `--retries` (there would be nothing to back off).
 */
export function launchQueueFields(f: LaunchQueueFlags): {
  priority?: number;
  timeoutMs?: number;
  retry?: RetryPolicyInput;
} {
  if (f.backoff !== undefined && f.retries === undefined) {
    throw new CliError(EXIT.usage, "--backoff needs --retries (the delay is between attempts)");
  }
  return {
    ...(f.priority !== undefined ? { priority: f.priority } : {}),
    ...(f.timeout !== undefined ? { timeoutMs: f.timeout } : {}),
    ...(f.retries !== undefined
      ? {
          retry: {
            maxAttempts: f.retries + 1,
            ...(f.backoff !== undefined ? { backoffMs: f.backoff } : {}),
          },
        }
      : {}),
  };
}

/** A launch state, colored by meaning; `name` is shown for UNKNOWN (a state this CLI does not know). */
export function launchState(c: Colors, s: LaunchState, name: string = s): string {
  switch (s) {
    case "QUEUED":
      return c.yellow(s);
    case "DISPATCHED":
    case "RUNNING":
      return c.cyan(s);
    case "SUCCEEDED":
      return c.green(s);
    case "FAILED":
    case "TIMED_OUT":
      return c.red(s);
    case "CANCELLED":
      return c.magenta(s);
    default:
      return c.dim(name);
  }
}

/** What a launch is called in a table: its label, else the first line of its prompt. */
function launchName(l: Pick<LaunchSummaryFragment, "spec">, max = 30): string {
  return firstLine(l.spec.label ?? l.spec.prompt, max);
}

/** Where a queued launch stands: `position 3 · waits: cap global: 3 of 3 runs in use`. */
function placement(c: Colors, l: LaunchSummaryFragment): string {
  if (l.state !== "QUEUED") return "";
  const pos = l.queuePosition !== null ? `position ${l.queuePosition}` : "position pending";
  const why = l.waitingFor ? `waits: ${l.waitingFor.message}` : c.dim("not placed by the dispatcher yet");
  return `${pos} · ${why}`;
}

/** `global 3/3, workspace demo 1/2` (a full cap in yellow). */
export function capsLine(c: Colors, caps: readonly CapFieldsFragment[]): string {
  if (caps.length === 0) return c.dim("none");
  return caps
    .map((cap) => {
      const text = `${capName(cap)} ${cap.inUse}/${cap.max}`;
      return cap.inUse >= cap.max ? c.yellow(text) : text;
    })
    .join(", ");
}

/** `global`, `workspace demo`, `provider anthropic`, `model claude-…`. */
function capName(cap: Pick<CapFieldsFragment, "scope" | "key">): string {
  return cap.scope === "GLOBAL" ? "global" : `${cap.scope.toLowerCase()} ${cap.key}`;
}

/** `workspace demo day $1.20/$10.00` (an exhausted one in yellow, marked). */
export function budgetsLine(c: Colors, budgets: readonly BudgetFieldsFragment[]): string {
  if (budgets.length === 0) return c.dim("none");
  return budgets
    .map((b) => {
      const text = `${b.scope.toLowerCase()} ${b.key} ${b.period.toLowerCase()} ${usd(b.spentUsd)}/${usd(b.limitUsd)}`;
      return b.exhausted ? c.yellow(`${text} (exhausted)`) : text;
    })
    .join(", ");
}

/** A page set of launches, as `queue --json` prints each section. */
export interface LaunchList {
  totalCount: number;
  edges: NonNullable<LaunchesQuery["launches"]>["edges"];
  pageInfo: NonNullable<LaunchesQuery["launches"]>["pageInfo"];
}

/** Read up to `limit` launches matching `filter`, page by page (in the gateway's order). */
async function readLaunches(ctx: CliContext, filter: LaunchFilter, limit: number): Promise<LaunchList> {
  const edges: LaunchList["edges"] = [];
  let after: string | null = null;
  let totalCount = 0;
  let pageInfo: LaunchList["pageInfo"] = { hasNextPage: false, endCursor: null };
  do {
    const page: LaunchesQuery = await ctx.client.request(LaunchesDocument, {
      filter,
      first: Math.min(LAUNCHES_PAGE, limit - edges.length),
      after,
    });
    const launches = present(page.launches, "launches");
    edges.push(...launches.edges);
    totalCount = launches.totalCount;
    pageInfo = launches.pageInfo;
    after = pageInfo.endCursor;
  } while (pageInfo.hasNextPage && edges.length < limit && after !== null);
  return { totalCount, edges, pageInfo };
}

/** Pause `ms` (aborted through `signal`: resolves at once). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

/** How long `enqueue` waits at most for the dispatcher to place a new launch, ms. */
export const PLACEMENT_WAIT_MS = 1000;

/**
 * The launch as the dispatcher placed it: the enqueue answer is written before the dispatcher's
 * next pass, so a QUEUED launch may come back without position and wait reason. Read it again a
 * few times (every 100 ms, at most {@link PLACEMENT_WAIT_MS}) until it has them or moved on; the
 * last reading is returned either way.
 */
async function placed(ctx: CliContext, l: LaunchSummaryFragment): Promise<LaunchSummaryFragment> {
  let current = l;
  const deadline = Date.now() + PLACEMENT_WAIT_MS;
  while (current.state === "QUEUED" && current.waitingFor === null && Date.now() < deadline) {
    await pause(100, ctx.signal);
    if (ctx.signal.aborted) break;
    const data = await ctx.client.request(LaunchDocument, { launchId: l.launchId, transitionsFirst: 1 });
    if (!data.launch) break;
    current = data.launch;
  }
  return current;
}

/**
 * Copy the client options a parent command consumed onto its subcommand: commander gives an
 * option the parent knows (`caps --json`, `--url`, `--token`) to the parent wherever it stands on
 * the line, also after the subcommand, so `caps set global 3 --url …` would otherwise lose it.
 */
export function withParentOptions<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return (...args: A) => {
    const cmd = args.at(-1) as Command;
    for (const [k, v] of Object.entries(cmd.parent?.opts() ?? {})) {
      if (v !== undefined && cmd.getOptionValue(k) === undefined) cmd.setOptionValue(k, v);
    }
    return action(...args);
  };
}

// ----------------------------------------------------------------------------------------------
// Printing
// ----------------------------------------------------------------------------------------------

function waitingRows(ctx: CliContext, list: readonly LaunchSummaryFragment[]): string {
  const { c } = ctx.out;
  const now = Date.now();
  return table(
    ["POS", "ID", "WORKSPACE", "PRIORITY", "AGE", "NAME", "WHY IT WAITS"].map((h) => c.dim(h)),
    list.map((l) => [
      l.queuePosition !== null ? String(l.queuePosition) : c.dim("?"),
      l.launchId,
      l.workspace.name,
      String(l.priority),
      age(l.createdAt, now),
      launchName(l),
      l.waitingFor?.message ?? c.dim("not placed by the dispatcher yet"),
    ]),
  );
}

function activeRows(ctx: CliContext, list: readonly LaunchSummaryFragment[]): string {
  const { c } = ctx.out;
  const now = Date.now();
  return table(
    ["ID", "WORKSPACE", "STATE", "AGENT", "SINCE", "ATTEMPT", "NAME"].map((h) => c.dim(h)),
    list.map((l) => [
      l.launchId,
      l.workspace.name,
      launchState(c, l.state, l.stateName),
      l.agent ? `${l.agent.agentId} ${status(c, l.agent.status)}` : c.dim("—"),
      age(l.startedAt ?? l.dispatchedAt ?? l.updatedAt, now),
      `${l.attemptCount}/${l.retry.maxAttempts}`,
      launchName(l),
    ]),
  );
}

function finalRows(ctx: CliContext, list: readonly LaunchSummaryFragment[]): string {
  const { c } = ctx.out;
  const now = Date.now();
  return table(
    ["ID", "WORKSPACE", "STATE", "ATTEMPT", "ENDED", "NAME", "REASON"].map((h) => c.dim(h)),
    list.map((l) => [
      l.launchId,
      l.workspace.name,
      launchState(c, l.state, l.stateName),
      `${l.attemptCount}/${l.retry.maxAttempts}`,
      `${age(l.finishedAt ?? l.updatedAt, now)} ago`,
      launchName(l),
      l.reason !== null ? firstLine(l.reason, 60) : c.dim("—"),
    ]),
  );
}

/** The states each section of `queue` lists; an empty list is a section not shown (nor read). */
export interface QueueSections {
  /** `["QUEUED"]` or none. */
  queued: LaunchState[];
  /** Of {@link ACTIVE_STATES}. */
  active: LaunchState[];
  /** Of {@link FINAL_STATES}. */
  final: LaunchState[];
}

/**
 * Which states `queue` lists in which section: without `--state` the waiting and the active ones,
 * and with `--all` the final ones too; with `--state` (`states`) only those, each in its section,
 * the final ones whether `--all` is given or not.
 */
export function queueSections(states: readonly LaunchState[] | undefined, all: boolean): QueueSections {
  if (states === undefined) {
    return { queued: ["QUEUED"], active: [...ACTIVE_STATES], final: all ? [...FINAL_STATES] : [] };
  }
  const pick = (of: readonly LaunchState[]) => of.filter((s) => states.includes(s));
  return { queued: pick(["QUEUED"]), active: pick(ACTIVE_STATES), final: pick(FINAL_STATES) };
}

/** One section of `queue`: its heading with the count, the rows, and a hint when rows were left off. */
function section(
  ctx: CliContext,
  heading: string,
  list: LaunchList,
  rows: (ctx: CliContext, l: readonly LaunchSummaryFragment[]) => string,
): void {
  const { c } = ctx.out;
  ctx.out.line(`${c.bold(heading)} ${c.dim(`(${list.totalCount})`)}`);
  if (list.edges.length === 0) {
    ctx.out.line(c.dim("  none"));
    return;
  }
  ctx.out.line(
    rows(
      ctx,
      list.edges.map((e) => e.node),
    ),
  );
  const more = list.totalCount - list.edges.length;
  if (more > 0) ctx.out.line(c.dim(`(+${more} more: raise --limit)`));
}

/** An attempt's error, cut to 60 characters, marked `(transient)` when it was retried as one. */
function attemptError(c: Colors, error: string, transient: boolean): string {
  const shown = firstLine(error, 60);
  return transient && !/transient/i.test(shown) ? `${shown}${c.dim(" (transient)")}` : shown;
}

/** Print one launch; `l` must have passed through `safeData`. */
function printLaunch(ctx: CliContext, l: NonNullable<LaunchQuery["launch"]>): void {
  const { c } = ctx.out;
  const row = (k: string, v: string) => ctx.out.line(`  ${c.dim(k.padEnd(14))}${singleLine(v)}`);
  const when = (iso: string | null) => (iso === null ? c.dim("—") : `${iso} (${age(iso)} ago)`);
  ctx.out.line(
    `${c.bold(`launch ${l.launchId}`)} in ${l.workspace.name} · ${launchState(c, l.state, l.stateName)}`,
  );
  row("name", launchName(l, 60));
  if (l.state === "QUEUED") row("queue", placement(c, l));
  if (l.retryAt !== null) row("next attempt", l.retryAt);
  if (l.reason !== null) row("reason", l.reason);
  row("agent", l.agent ? `${l.agent.agentId} · ${status(c, l.agent.status)}` : "—");
  row("priority", String(l.priority));
  row("dedup key", l.dedupKey ?? "—");
  row("not before", l.notBefore ?? "—");
  row("timeout", l.timeoutMs !== null ? duration(l.timeoutMs) : "none");
  row(
    "retries",
    l.retry.maxAttempts <= 1
      ? "none (1 attempt)"
      : `up to ${l.retry.maxAttempts} attempts · backoff ${duration(l.retry.backoffMs)} (at most ${duration(l.retry.maxBackoffMs)})`,
  );
  if (l.schedule) row("schedule", `${l.schedule.name} (${l.schedule.scheduleId})`);
  row("created", `${when(l.createdAt)}${l.createdBy !== null ? ` by ${l.createdBy}` : ""}`);
  row("dispatched", when(l.dispatchedAt));
  row("started", when(l.startedAt));
  row("finished", when(l.finishedAt));
  const s = l.spec;
  ctx.out.line(`  ${c.dim("spec")}`);
  const prompt = s.prompt.split("\n");
  row("  prompt", (prompt[0] ?? "") + (prompt.length > 1 ? c.dim(` (+${prompt.length - 1} lines)`) : ""));
  row("  provider", s.provider?.toLowerCase() ?? "default");
  row("  model", s.model ?? "default");
  row("  label", s.label ?? "—");
  row("  source", s.source ?? "workspace root");
  row("  worktree", s.isolated ? "isolated" : "shared tree");
  row("  interactive", s.interactive ? "yes" : "no");
  row("  tools", s.toolAllowlist ? s.toolAllowlist.join(", ") : "default");
  ctx.out.line(`  ${c.dim(`attempts (${l.attempts.length} of at most ${l.retry.maxAttempts})`)}`);
  if (l.attempts.length > 0) {
    const t = table(
      ["#", "AGENT", "KIND", "REQUESTED", "ENDED", "OUTCOME", "ERROR"].map((h) => c.dim(h)),
      l.attempts.map((a) => [
        String(a.n),
        a.agentId ?? c.dim("—"),
        a.kind,
        a.requestedAt,
        a.endedAt ?? c.dim("—"),
        (a.outcome === "UNKNOWN" ? a.outcomeName : a.outcome) ?? c.dim("—"),
        a.error !== null ? attemptError(c, a.error, a.transient === true) : c.dim("—"),
      ]),
    );
    for (const line of t.split("\n")) ctx.out.line(`    ${line}`);
  }
  ctx.out.line(`  ${c.dim(`transitions (${l.transitions.totalCount})`)}`);
  if (l.transitions.edges.length > 0) {
    const t = table(
      ["AT", "CHANGE", "ATTEMPT", "REASON"].map((h) => c.dim(h)),
      l.transitions.edges.map(({ node: tr }) => [
        tr.at,
        `${tr.from ?? "·"} → ${tr.to}`,
        tr.attempt !== null ? String(tr.attempt) : c.dim("—"),
        tr.reason ?? c.dim("—"),
      ]),
    );
    for (const line of t.split("\n")) ctx.out.line(`    ${line}`);
  }
}

function capsTable(c: Colors, caps: readonly CapFieldsFragment[]): string {
  return table(
    ["SCOPE", "KEY", "IN USE", "MAX"].map((h) => c.dim(h)),
    caps.map((cap) => [
      cap.scope.toLowerCase(),
      cap.scope === "GLOBAL" ? c.dim("—") : cap.key,
      cap.inUse >= cap.max ? c.yellow(String(cap.inUse)) : String(cap.inUse),
      String(cap.max),
    ]),
  );
}

function budgetsTable(c: Colors, budgets: readonly BudgetFieldsFragment[]): string {
  return table(
    ["SCOPE", "KEY", "PERIOD", "SPENT", "LIMIT", "SINCE", "STATE"].map((h) => c.dim(h)),
    budgets.map((b) => [
      b.scope.toLowerCase(),
      b.key,
      b.period.toLowerCase(),
      usd(b.spentUsd),
      usd(b.limitUsd),
      b.periodStart,
      b.exhausted ? c.yellow("exhausted: dispatch waits") : "ok",
    ]),
  );
}

// ----------------------------------------------------------------------------------------------
// Commands
// ----------------------------------------------------------------------------------------------

interface EnqueueFlags extends LaunchSpawnFlags, LaunchQueueFlags {
  dedupKey?: string;
  notBefore?: string;
  frontmatter?: string;
}

/** The EnqueueLaunchInput for `workspace`, `prompt` and the flags (only the fields given). */
export function enqueueInput(workspace: string, prompt: string, f: EnqueueFlags): EnqueueLaunchInput {
  return {
    workspace,
    prompt,
    ...launchSpawnFields(f),
    ...(f.frontmatter !== undefined ? { frontmatterPath: f.frontmatter } : {}),
    ...(f.dedupKey !== undefined ? { dedupKey: f.dedupKey } : {}),
    ...(f.notBefore !== undefined ? { notBefore: f.notBefore } : {}),
    ...launchQueueFields(f),
  };
}

/** Register `enqueue`, `queue`, `launch`, `cancel`, `caps` and `budget` on `program`. */
export function registerQueueCommands(program: Command): void {
  clientOptions(
    launchQueueOptions(
      launchSpawnOptions(
        program
          .command("enqueue")
          .description(
            "queue a launch: it runs when the caps, budgets and --not-before allow (see prospero queue)",
          )
          .argument("<workspace>", "workspace name")
          .argument("<prompt>", "initial prompt"),
      ),
    )
      .option(
        "--dedup-key <key>",
        "unique among unfinished launches: enqueueing it again returns that launch (a different spec is refused)",
      )
      .option(
        "--not-before <when>",
        "not dispatched before: an ISO date/time (2026-12-01T09:30:00Z) or a time from now (+5m, +2h)",
        (v: string) => parseNotBefore(v),
      )
      .option("--frontmatter <path>", "agent template path"),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(async (ctx, workspace: string, prompt: string, flags: EnqueueFlags) => {
      const input = enqueueInput(workspace, prompt, flags);
      const data = await ctx.out.spin(`enqueueing in ${workspace}…`, () =>
        ctx.client.request(EnqueueLaunchDocument, { input }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = unwrapResult(`enqueue in ${workspace}`, data.enqueueLaunch);
      if (ctx.json) return;
      const { c } = ctx.out;
      const l = safeData(await placed(ctx, r.launch));
      const where = placement(c, l) || (l.agent ? `agent ${l.agent.agentId}` : "");
      ctx.out.line(
        `${r.created ? "queued" : "already queued (same dedup key):"} ${c.bold(l.launchId)} in ${l.workspace.name} · ${launchState(c, l.state, l.stateName)}${where ? ` · ${where}` : ""}`,
      );
      ctx.out.line(c.dim(`see it: prospero launch ${l.launchId} · the queue: prospero queue`));
    }),
  );

  clientOptions(
    program
      .command("queue")
      .description(
        "the launch queue: waiting launches in dispatch order and why each waits, the running ones, caps in use and budgets",
      )
      .option("--workspace <name>", "only this workspace's launches")
      .option(
        "--all",
        "also the finished launches (succeeded, failed, timed out, cancelled), newest first by creation",
      )
      .option(
        "--state <state>",
        `only launches in these states (repeatable or comma-separated; ${LAUNCH_STATES.map((s) => s.toLowerCase()).join(", ")}); a finished state needs no --all`,
        collectStates,
      )
      .option(
        "--limit <n>",
        `at most n rows per section (default ${LAUNCHES_PAGE})`,
        positiveInt("--limit", 10_000),
      ),
    "print { queued, active, final, queue } as JSON on stdout (final only with --all; with --state only the sections it selects)",
  ).action(
    clientAction(
      async (ctx, flags: { workspace?: string; all?: boolean; state?: LaunchState[]; limit?: number }) => {
        const limit = flags.limit ?? LAUNCHES_PAGE;
        const ws = flags.workspace !== undefined ? { workspace: flags.workspace } : {};
        const sel = queueSections(flags.state, flags.all === true);
        const read = (states: LaunchState[]) =>
          states.length > 0 ? readLaunches(ctx, { ...ws, states }, limit) : Promise.resolve(null);
        const [queued, active, final, status] = await Promise.all([
          read(sel.queued),
          read(sel.active),
          read(sel.final),
          ctx.client.request(QueueStatusDocument),
        ]);
        const queue = present(status.queue, "queue");
        if (ctx.json) {
          ctx.out.json({
            ...(queued ? { queued } : {}),
            ...(active ? { active } : {}),
            ...(final ? { final } : {}),
            queue,
          });
          return;
        }
        const { c } = ctx.out;
        const only = (states: LaunchState[], of: readonly LaunchState[]) =>
          states.length < of.length ? ` · only ${states.join(", ")}` : "";
        let first = true;
        const gap = () => {
          if (!first) ctx.out.line();
          first = false;
        };
        if (queued) {
          gap();
          section(ctx, "waiting, in dispatch order", safeData(queued), waitingRows);
        }
        if (active) {
          gap();
          section(
            ctx,
            `dispatched and running${only(sel.active, ACTIVE_STATES)}`,
            safeData(active),
            activeRows,
          );
        }
        if (final) {
          gap();
          section(
            ctx,
            `finished, newest first by creation${only(sel.final, FINAL_STATES)}`,
            safeData(final),
            finalRows,
          );
        }
        const q = safeData(queue);
        gap();
        ctx.out.line(`${c.dim("caps in use:")} ${capsLine(c, q.caps)}`);
        ctx.out.line(`${c.dim("budgets:    ")} ${budgetsLine(c, q.budgets)}`);
        if (q.oldestQueuedAt !== null) {
          ctx.out.line(
            c.dim(
              `fleet: ${q.depth} waiting (oldest ${age(q.oldestQueuedAt)}) · ${q.dispatched} dispatched · ${q.running} running`,
            ),
          );
        }
      },
    ),
  );

  clientOptions(
    program
      .command("launch")
      .description("show one launch: state, why it waits or ended, its attempts and state changes")
      .argument("<id>", "launch id (12 hex)"),
    "print the launch query's data as JSON on stdout (every transition)",
  ).action(
    clientAction(async (ctx, id: string) => {
      let data: LaunchQuery = await ctx.client.request(LaunchDocument, {
        launchId: id,
        transitionsFirst: TRANSITIONS_PAGE,
      });
      if (!data.launch) {
        if (ctx.json) ctx.out.json(data);
        throw new CliError(EXIT.notFound, `launch not found: ${id}`);
      }
      // Every state change (a launch retried 20 times has about 80).
      const launch = data.launch;
      const edges = [...launch.transitions.edges];
      let pageInfo = launch.transitions.pageInfo;
      while (pageInfo.hasNextPage && pageInfo.endCursor !== null) {
        const next: LaunchQuery = await ctx.client.request(LaunchDocument, {
          launchId: id,
          transitionsFirst: TRANSITIONS_PAGE,
          transitionsAfter: pageInfo.endCursor,
        });
        if (!next.launch) break;
        edges.push(...next.launch.transitions.edges);
        pageInfo = next.launch.transitions.pageInfo;
      }
      data = { launch: { ...launch, transitions: { ...launch.transitions, edges, pageInfo } } };
      if (ctx.json) ctx.out.json(data);
      else printLaunch(ctx, safeData(data.launch!));
    }),
  );

  clientOptions(
    program
      .command("cancel")
      .description("cancel a launch that is not finished (its run, if it has one, is killed)")
      .argument("<launchId>", "launch id (12 hex)"),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.out.spin(`cancelling ${id}…`, () =>
        ctx.client.request(CancelLaunchDocument, { launchId: id }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`cancel ${id}`, data.cancelLaunch));
      if (ctx.json) return;
      const { c } = ctx.out;
      const run = r.launch.agent
        ? ` · run ${r.launch.agent.agentId} ${status(c, r.launch.agent.status)}`
        : "";
      ctx.out.line(
        `cancelled ${c.bold(r.launch.launchId)} · ${launchState(c, r.launch.state, r.launch.stateName)}${run}`,
      );
    }),
  );

  const caps = clientOptions(
    program
      .command("caps")
      .description("concurrency caps and the runs counted against each (set them with `caps set`)"),
    "print the queue's caps as JSON on stdout",
  ).action(
    clientAction(async (ctx) => {
      const data = await ctx.client.request(QueueStatusDocument);
      const queue = present(data.queue, "queue");
      if (ctx.json) {
        ctx.out.json({ caps: queue.caps });
        return;
      }
      ctx.out.line(capsTable(ctx.out.c, safeData(queue.caps)));
    }),
  );
  clientOptions(
    caps
      .command("set")
      .description(
        "set a concurrency cap (admin): at most <max> live runs in the scope, 0 pauses dispatch there, none removes it (the global cap cannot be removed)",
      )
      .argument("<scope>", "global, workspace:<name>, provider:<name> or model:<name>", parseCapTarget)
      .argument("<max>", "most live runs, or none", parseCapMax),
    "print the mutation result as JSON on stdout",
  ).action(
    withParentOptions(
      clientAction(async (ctx, target: CapTarget, max: number | null) => {
        const input = { scope: target.scope, ...(target.key !== null ? { key: target.key } : {}), max };
        const name = capName({ scope: target.scope, key: target.key ?? "" });
        const data = await ctx.client.request(SetCapDocument, { input });
        if (ctx.json) ctx.out.json(data);
        const r = safeData(unwrapResult(`caps set ${name}`, data.setCap));
        if (ctx.json) return;
        const { c } = ctx.out;
        ctx.out.line(
          r.cap
            ? `cap ${capName(r.cap)} set to ${r.cap.max} (${r.cap.inUse} in use)`
            : `cap ${safeData(name)} removed`,
        );
        ctx.out.line(`${c.dim("caps in use:")} ${capsLine(c, r.caps)}`);
      }),
    ),
  );

  const budget = clientOptions(
    program
      .command("budget")
      .description(
        "spend budgets (USD, from the cost estimate) and the spend so far in their period (set them with `budget set`)",
      ),
    "print the queue's budgets as JSON on stdout",
  ).action(
    clientAction(async (ctx) => {
      const data = await ctx.client.request(QueueStatusDocument);
      const queue = present(data.queue, "queue");
      if (ctx.json) {
        ctx.out.json({ budgets: queue.budgets });
        return;
      }
      if (queue.budgets.length === 0) {
        ctx.out.line(ctx.out.c.dim("no budgets (set one: prospero budget set workspace:<name> day 10)"));
        return;
      }
      ctx.out.line(budgetsTable(ctx.out.c, safeData(queue.budgets)));
    }),
  );
  clientOptions(
    budget
      .command("set")
      .description(
        "set a spend budget (admin): at the limit new dispatch in the scope waits while running work finishes; none removes it",
      )
      .argument("<scope>", "workspace:<name> or provider:<name>", parseBudgetTarget)
      .argument("<period>", "day or month (UTC)", parseBudgetPeriod)
      .argument("<usd>", "limit in USD (10, 2.50), or none", parseUsd),
    "print the mutation result as JSON on stdout",
  ).action(
    withParentOptions(
      clientAction(async (ctx, target: BudgetTarget, period: BudgetPeriod, limitUsd: number | null) => {
        const input = { scope: target.scope, key: target.key, period, limitUsd };
        const name = `${target.scope.toLowerCase()} ${target.key} ${period.toLowerCase()}`;
        const data = await ctx.client.request(SetBudgetDocument, { input });
        if (ctx.json) ctx.out.json(data);
        const r = safeData(unwrapResult(`budget set ${name}`, data.setBudget));
        if (ctx.json) return;
        const { c } = ctx.out;
        const b = r.budget;
        ctx.out.line(
          b
            ? `budget ${b.scope.toLowerCase()} ${b.key} ${b.period.toLowerCase()} set to ${usd(b.limitUsd)} (${usd(b.spentUsd)} spent since ${b.periodStart})`
            : `budget ${safeData(name)} removed`,
        );
        ctx.out.line(`${c.dim("budgets:")} ${budgetsLine(c, r.budgets)}`);
      }),
    ),
  );
}
