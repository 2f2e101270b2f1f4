/**
 * `prospero webhook add|ls|show|rm|test|enable|disable` (issue 15 item 3): where the gateway
 * delivers notifications (an agent waiting for you, a failed or timed-out run, an alert and its
 * resolution, a skipped schedule firing), and what became of each delivery. Managing webhooks
 * needs an admin token not limited to workspaces (a webhook hears every workspace's events).
 *
 * `webhook add` prints the generated signing secret once, alone on stdout (the summary and a
 * warning go to stderr, so `prospero webhook add … > secret` captures just it); `--secret-file`
 * gives one instead (read from a file, so it stays out of the process list and shell history).
 * The URL's scheme and the event names are checked here (exit 2); the rest of the URL policy (no
 * user info, not the gateway itself, at most 2048 characters) and the secret's length are the
 * gateway's ValidationError (exit 4). Either way nothing is stored.
 */
import fs from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import {
  CreateWebhookDocument,
  DeleteWebhookDocument,
  TestWebhookDocument,
  UpdateWebhookDocument,
  WebhookDocument,
  WebhooksDocument,
  type CreateWebhookInput,
  type WebhookDeliveryFieldsFragment,
  type WebhookDeliveryState,
  type WebhookEventType,
  type WebhookFieldsFragment,
  type WebhookFormat,
  type WebhookQuery,
  type WebhooksQuery,
} from "../../sdk/index.js";
import { clientAction, clientOptions, positiveInt, type CliContext } from "../context.js";
import { CliError, EXIT, present, unwrapResult, type ExitCode } from "../exit.js";
import { age, firstLine } from "../format.js";
import { table, type Colors } from "../output.js";
import { safeData, singleLine } from "../sanitize.js";
import { durationText } from "./doctor.js";
import { parseDuration } from "./queue.js";

const JSON_HELP = "print the mutation result as JSON on stdout";

/** Webhooks per `webhooks` request (`webhook ls` reads every page). */
export const WEBHOOKS_PAGE = 50;

/** Deliveries `webhook show` lists by default (newest first). */
export const SHOW_DELIVERIES = 20;

/**
 * How long `webhook test` waits for the ping's first attempt to settle by default, ms: longer than
 * the gateway's per-attempt timeout (10 s, src/attention/webhooks.ts DEFAULT_TIMEOUT_MS), so a
 * receiver that never answers shows as a failed attempt unless another delivery holds the hook.
 */
export const TEST_WAIT_MS = 15_000;

/** Bounds of `webhook test --wait`, ms: 1 s to 5 min. */
export const TEST_WAIT_MIN_MS = 1_000;
export const TEST_WAIT_MAX_MS = 300_000;

/** Between two readings of the ping's delivery while `webhook test` waits, ms. */
const TEST_POLL_MS = 200;

/**
 * The event types a webhook may subscribe to (`--event`), as the schema names them. PING is left
 * out (every hook gets the ping of `webhook test`, and nothing else sends one), and UNKNOWN (a
 * type this gateway does not know).
 */
export const WEBHOOK_EVENTS = [
  "INBOX_OPENED",
  "INBOX_CLOSED",
  "INBOX_ESCALATED",
  "RUN_FAILED",
  "RUN_TIMED_OUT",
  "ALERT_OPENED",
  "ALERT_RESOLVED",
  "SCHEDULE_SKIPPED",
] as const satisfies readonly Exclude<WebhookEventType, "UNKNOWN" | "PING">[];

// Compile-time completeness: WEBHOOK_EVENTS names every WebhookEventType but PING and UNKNOWN.
const _eventsComplete: Exclude<
  WebhookEventType,
  "UNKNOWN" | "PING" | (typeof WEBHOOK_EVENTS)[number]
> extends never
  ? true
  : never = true;
void _eventsComplete;

/** An event type as notifications name it (`RUN_TIMED_OUT` → `run.timed_out`: the first `_` is the dot). */
export function eventName(t: WebhookEventType): string {
  return t.toLowerCase().replace("_", ".");
}

/**
 * `--event`: event types as notifications name them (`run.failed`; the schema's `RUN_FAILED` and
 * `run_failed` too), comma-separated and repeatable, without duplicates.
 * @throws InvalidArgumentError for an empty list, `ping`, or a name that is not an event type,
 *   naming the accepted ones.
 */
export function collectEvents(raw: string, prev: WebhookEventType[] = []): WebhookEventType[] {
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const accepted = WEBHOOK_EVENTS.map(eventName).join(", ");
  if (names.length === 0) throw new InvalidArgumentError(`--event needs an event type: one of ${accepted}`);
  const out = [...prev];
  for (const name of names) {
    const v = name.toUpperCase().replace(/[.-]/g, "_");
    if (v === "PING") {
      throw new InvalidArgumentError(
        "--event ping: every webhook gets the ping of `prospero webhook test`, and nothing else sends one",
      );
    }
    const hit = WEBHOOK_EVENTS.find((e) => e === v);
    if (hit === undefined) {
      throw new InvalidArgumentError(
        `unknown event type ${JSON.stringify(name)} (one of ${accepted}; comma-separated or repeated)`,
      );
    }
    if (!out.includes(hit)) out.push(hit);
  }
  return out;
}

/** `json` or `slack` (any case) → the WebhookFormat value. */
export function parseFormat(raw: string): WebhookFormat {
  const v = raw.trim().toUpperCase();
  if (v === "JSON" || v === "SLACK") return v;
  throw new InvalidArgumentError(
    `unknown webhook format ${JSON.stringify(raw)} (json: Prospero's JSON body, see docs/webhooks.md; slack: a Slack incoming-webhook message)`,
  );
}

/**
 * A webhook URL as `webhook add` takes it: an absolute `http://` or `https://` URL, returned as
 * given. The rest of the policy (no user info or fragment, not the gateway itself, length) is the
 * gateway's to check.
 * @throws InvalidArgumentError for anything that is not an http(s) URL.
 */
export function parseHookUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new InvalidArgumentError(
      `not a URL: ${JSON.stringify(raw)} (expected e.g. https://hooks.example.com/prospero)`,
    );
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new InvalidArgumentError(
      `the webhook URL must be http:// or https://, got ${JSON.stringify(u.protocol.replace(/:$/, ""))} (${JSON.stringify(raw)})`,
    );
  }
  return raw;
}

/**
 * The secret in `file` (its content without the trailing line break).
 * @throws CliError (usage) when it cannot be read or is empty.
 */
export function readSecretFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new CliError(EXIT.usage, `cannot read --secret-file ${file}: ${code}`);
  }
  const secret = text.replace(/\r?\n$/, "");
  if (secret === "") throw new CliError(EXIT.usage, `--secret-file ${file} is empty`);
  return secret;
}

/** A delivery's state, colored by meaning; UNKNOWN dim. */
function deliveryState(c: Colors, s: WebhookDeliveryState): string {
  switch (s) {
    case "DELIVERED":
      return c.green(s);
    case "FAILED":
      return c.red(s);
    case "PENDING":
      return c.yellow(s);
    default:
      return c.dim(s);
  }
}

/** `DELIVERED 3m ago (HTTP 200)` or `—`. */
function lastDeliveryText(c: Colors, d: WebhookDeliveryFieldsFragment | null, now = Date.now()): string {
  if (d === null) return c.dim("—");
  const at = d.lastAttemptAt ?? d.createdAt;
  return `${deliveryState(c, d.state)} ${age(at, now)} ago${d.lastStatus !== null ? ` (HTTP ${d.lastStatus})` : ""}`;
}

/** `run.failed, alert.opened`. */
function eventsText(events: readonly WebhookEventType[]): string {
  return events.map(eventName).join(", ");
}

/** The one-line summary of a webhook; `w` must have passed through `safeData`. */
function hookLine(c: Colors, verb: string, w: WebhookFieldsFragment): string {
  return `${verb} ${c.bold(w.webhookId)} ${w.name} → ${w.url} · ${eventsText(w.events)} · ${w.format.toLowerCase()}${w.enabled ? "" : ` · ${c.yellow("disabled")}`}`;
}

function hookRows(
  c: Colors,
  hooks: readonly (WebhookFieldsFragment & { lastDelivery: WebhookDeliveryFieldsFragment | null })[],
): string {
  const now = Date.now();
  return table(
    ["ID", "NAME", "URL", "FORMAT", "EVENTS", "STATE", "LAST DELIVERY"].map((h) => c.dim(h)),
    hooks.map((w) => [
      w.webhookId,
      firstLine(w.name, 28),
      firstLine(w.url, 60),
      w.format.toLowerCase(),
      eventsText(w.events),
      w.enabled ? "enabled" : c.yellow("disabled"),
      lastDeliveryText(c, w.lastDelivery, now),
    ]),
  );
}

function deliveryRows(c: Colors, deliveries: readonly WebhookDeliveryFieldsFragment[]): string {
  const now = Date.now();
  return table(
    ["DELIVERY", "EVENT", "STATE", "ATTEMPTS", "LAST STATUS", "CREATED", "NEXT ATTEMPT", "LAST ERROR"].map(
      (h) => c.dim(h),
    ),
    deliveries.map((d) => [
      d.deliveryId,
      eventName(d.eventType),
      deliveryState(c, d.state),
      String(d.attempts),
      d.lastStatus !== null ? String(d.lastStatus) : c.dim("—"),
      `${age(d.createdAt, now)} ago`,
      d.state === "PENDING" && d.nextAttemptAt !== null ? d.nextAttemptAt : c.dim("—"),
      d.lastError !== null ? firstLine(d.lastError, 80) : c.dim("—"),
    ]),
  );
}

/** Print one webhook and its deliveries; `w` must have passed through `safeData`. */
function printHook(ctx: CliContext, w: NonNullable<WebhookQuery["webhook"]>): void {
  const { c } = ctx.out;
  const row = (k: string, v: string) => ctx.out.line(`  ${c.dim(k.padEnd(10))}${singleLine(v)}`);
  ctx.out.line(`${c.bold(w.name)}  ${c.dim(w.webhookId)}`);
  row("url", w.url);
  row("format", w.format.toLowerCase());
  row("events", `${eventsText(w.events)} ${c.dim("(and the ping of webhook test)")}`);
  row("state", w.enabled ? "enabled" : c.yellow("disabled: nothing is delivered"));
  row("created", `${w.createdAt}${w.createdBy !== null ? ` by ${w.createdBy}` : ""}`);
  const d = w.deliveries;
  ctx.out.line(`  ${c.dim(`deliveries (${d.totalCount}; the latest ${d.edges.length}, newest first)`)}`);
  if (d.edges.length === 0) {
    ctx.out.line(`    ${c.dim("none")}`);
    return;
  }
  for (const line of deliveryRows(
    c,
    d.edges.map((e) => e.node),
  ).split("\n"))
    ctx.out.line(`    ${line}`);
}

/**
 * `webhook test --wait`: a duration (queue.ts {@link parseDuration}: `5s`, `1m`; a bare number is
 * ms) from {@link TEST_WAIT_MIN_MS} to {@link TEST_WAIT_MAX_MS}. Returns ms.
 * @throws InvalidArgumentError for another form or a duration outside those bounds.
 */
export function parseTestWait(raw: string): number {
  const ms = parseDuration("--wait", raw);
  if (ms < TEST_WAIT_MIN_MS || ms > TEST_WAIT_MAX_MS) {
    throw new InvalidArgumentError(
      `--wait must be from 1 s to 5 min (e.g. 5s, 30s, 2m), got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/**
 * Pause `ms`; an abort through `signal` resolves it at once. Its abort listener is removed when the
 * pause ends either way: `webhook test` pauses every {@link TEST_POLL_MS} on one signal, and a
 * listener left behind per pause made Node warn (MaxListenersExceededWarning) after 11 of them.
 */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The test delivery once its first attempt settled (state not PENDING, or an attempt made): read
 * from the webhook's latest deliveries every {@link TEST_POLL_MS}, for at most `waitMs`; the last
 * reading is returned either way.
 */
async function settled(
  ctx: CliContext,
  webhook: string,
  d: WebhookDeliveryFieldsFragment,
  waitMs: number,
): Promise<WebhookDeliveryFieldsFragment> {
  let current = d;
  const deadline = Date.now() + waitMs;
  while (current.state === "PENDING" && current.attempts === 0 && Date.now() < deadline) {
    await pause(Math.min(TEST_POLL_MS, Math.max(0, deadline - Date.now())), ctx.signal);
    if (ctx.signal.aborted) break;
    const data = await ctx.client.request(WebhookDocument, { id: webhook, deliveriesFirst: 10 });
    const hit = data.webhook?.deliveries.edges.find((e) => e.node.deliveryId === d.deliveryId);
    if (!hit) break;
    current = hit.node;
  }
  return current;
}

/** Register `webhook` and its subcommands on `program`. */
export function registerWebhookCommands(program: Command): void {
  const webhook = program
    .command("webhook")
    .description(
      "webhooks (admin): where notifications go (agent waiting, run failed, alerts, …), and their deliveries",
    );

  clientOptions(
    webhook
      .command("add")
      .description(
        "create a webhook: each notification of its event types is POSTed to <url>, signed with its secret (printed once)",
      )
      .argument("<url>", "http:// or https:// URL the notifications are POSTed to", parseHookUrl)
      .requiredOption(
        "--event <type>",
        `notify these event types (repeatable or comma-separated): ${WEBHOOK_EVENTS.map(eventName).join(", ")}`,
        collectEvents,
      )
      .option("--name <name>", "name for people (default: the URL's host)")
      .option(
        "--format <format>",
        "json (Prospero's JSON body, default) or slack (a Slack incoming-webhook message)",
        parseFormat,
      )
      .option(
        "--secret-file <file>",
        "sign with the secret in this file (16 to 256 characters; default: a generated one, printed once)",
      ),
    "print the mutation result as JSON on stdout (the secret included)",
  ).action(
    clientAction(
      async (
        ctx,
        url: string,
        flags: { event: WebhookEventType[]; name?: string; format?: WebhookFormat; secretFile?: string },
      ) => {
        const secret = flags.secretFile !== undefined ? readSecretFile(flags.secretFile) : undefined;
        const input: CreateWebhookInput = {
          name: flags.name ?? new URL(url).host,
          url,
          events: flags.event,
          ...(flags.format !== undefined ? { format: flags.format } : {}),
          ...(secret !== undefined ? { secret } : {}),
        };
        const data = await ctx.client.request(CreateWebhookDocument, { input });
        if (ctx.json) ctx.out.json(data);
        const r = unwrapResult(`webhook add ${input.name}`, data.createWebhook);
        if (ctx.json) return;
        const { c, ce } = ctx.out;
        const w = safeData(r.webhook);
        if (secret !== undefined) {
          ctx.out.line(hookLine(c, "created webhook", w));
          ctx.out.line(
            c.dim(
              `it signs with the secret of ${flags.secretFile} · try it: prospero webhook test ${w.webhookId}`,
            ),
          );
          return;
        }
        ctx.out.note(hookLine(ce, "created webhook", w));
        ctx.out.note(
          ce.yellow(
            "its signing secret follows on stdout; it is not shown again: store it now (receivers check X-Prospero-Signature with it)",
          ),
        );
        ctx.out.note(ce.dim(`try it: prospero webhook test ${w.webhookId}`));
        // The secret alone on stdout, so `prospero webhook add … > file` captures just it.
        ctx.out.line(r.secret);
      },
    ),
  );

  clientOptions(
    webhook.command("ls").description("webhooks: URL, format, event types, enabled, last delivery"),
    "print the webhooks query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx) => {
      type Conn = NonNullable<WebhooksQuery["webhooks"]>;
      const edges: Conn["edges"] = [];
      let after: string | null = null;
      let totalCount = 0;
      let pageInfo: Conn["pageInfo"] = { hasNextPage: false, endCursor: null };
      do {
        const page: WebhooksQuery = await ctx.client.request(WebhooksDocument, {
          first: WEBHOOKS_PAGE,
          after,
        });
        const conn = present(page.webhooks, "webhooks");
        edges.push(...conn.edges);
        totalCount = conn.totalCount;
        pageInfo = conn.pageInfo;
        after = pageInfo.endCursor;
      } while (pageInfo.hasNextPage && after !== null);
      if (ctx.json) {
        ctx.out.json({ webhooks: { totalCount, edges, pageInfo } });
        return;
      }
      const { c } = ctx.out;
      if (edges.length === 0) {
        ctx.out.line(
          c.dim(
            "no webhooks (add one: prospero webhook add https://… --event run.failed --event alert.opened)",
          ),
        );
        return;
      }
      ctx.out.line(
        hookRows(
          c,
          edges.map((e) => safeData(e.node)),
        ),
      );
    }),
  );

  clientOptions(
    webhook
      .command("show")
      .description("one webhook and its latest deliveries: state, attempts, last HTTP status, last error")
      .argument("<id>", "webhook id (12 hex)")
      .option(
        "--limit <n>",
        `at most n deliveries, newest first (default ${SHOW_DELIVERIES})`,
        positiveInt("--limit", 100),
      ),
    "print the webhook query's data as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string, flags: { limit?: number }) => {
      const data = await ctx.client.request(WebhookDocument, {
        id,
        deliveriesFirst: flags.limit ?? SHOW_DELIVERIES,
      });
      if (ctx.json) ctx.out.json(data);
      if (!data.webhook) throw new CliError(EXIT.notFound, `webhook not found: ${id}`);
      if (!ctx.json) printHook(ctx, safeData(data.webhook));
    }),
  );

  clientOptions(
    webhook
      .command("rm")
      .description("delete a webhook (its pending deliveries are given up; past ones stay in its history)")
      .argument("<id>", "webhook id (12 hex)"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, id: string) => {
      const data = await ctx.client.request(DeleteWebhookDocument, { webhook: id });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`webhook rm ${id}`, data.deleteWebhook));
      if (!ctx.json) ctx.out.line(hookLine(ctx.out.c, "deleted webhook", r.webhook));
    }),
  );

  clientOptions(
    webhook
      .command("test")
      .description(
        "send a ping to a webhook and wait for its first attempt: exit 0 when delivered, 1 when it failed or was not delivered within the wait; --json prints the delivery at once",
      )
      .argument("<id>", "webhook id (12 hex)")
      .option(
        "--wait <duration>",
        `how long to wait for the first attempt (1s to 5m; default ${TEST_WAIT_MS / 1000}s)`,
        parseTestWait,
      ),
    "print the mutation result as JSON on stdout at once (the delivery usually still PENDING)",
  ).action(
    clientAction(async (ctx, id: string, flags: { wait?: number }): Promise<ExitCode> => {
      const waitMs = flags.wait ?? TEST_WAIT_MS;
      const data = await ctx.client.request(TestWebhookDocument, { webhook: id });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`webhook test ${id}`, data.testWebhook));
      if (ctx.json) return EXIT.ok;
      const { c } = ctx.out;
      const d = safeData(
        await ctx.out.spin(`pinging webhook ${id}…`, () => settled(ctx, id, r.delivery, waitMs)),
      );
      const status = d.lastStatus !== null ? ` (HTTP ${d.lastStatus})` : "";
      const see = c.dim(`its deliveries: prospero webhook show ${id}`);
      if (d.state === "DELIVERED") {
        ctx.out.line(`ping delivered${status} · delivery ${c.bold(d.deliveryId)}`);
        ctx.out.line(see);
        return EXIT.ok;
      }
      if (d.attempts === 0 && d.state === "PENDING") {
        // Not delivered: the attempt is still in flight (a receiver slow to answer) or has not
        // started (one attempt per webhook at a time). Exit 1, as docs/cli.md says: only a
        // delivered ping is 0.
        ctx.out.line(
          `ping ${c.red("not delivered")} within ${durationText(waitMs)}: delivery ${c.bold(d.deliveryId)} is still ${deliveryState(c, d.state)} with no attempt finished (the receiver has not answered yet, or another delivery to this webhook is in flight); its attempts go on`,
        );
        ctx.out.line(see);
        return EXIT.failure;
      }
      const next =
        d.state === "PENDING" && d.nextAttemptAt !== null ? ` · next attempt ${d.nextAttemptAt}` : "";
      ctx.out.line(
        `ping ${c.red("failed")}${status}: ${d.lastError ?? "no error recorded"} · delivery ${c.bold(d.deliveryId)} · ${deliveryState(c, d.state)} after ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}${next}`,
      );
      ctx.out.line(see);
      return EXIT.failure;
    }),
  );

  const toggle = (enabled: boolean) =>
    clientOptions(
      webhook
        .command(enabled ? "enable" : "disable")
        .description(
          enabled
            ? "enable a webhook: its paused deliveries resume and new notifications reach it again (those that came while it was disabled do not)"
            : "disable a webhook: nothing is delivered to it until it is enabled (its pending deliveries wait)",
        )
        .argument("<id>", "webhook id (12 hex)"),
      JSON_HELP,
    ).action(
      clientAction(async (ctx, id: string) => {
        const data = await ctx.client.request(UpdateWebhookDocument, { input: { webhook: id, enabled } });
        if (ctx.json) ctx.out.json(data);
        const verb = enabled ? "enable" : "disable";
        const r = safeData(unwrapResult(`webhook ${verb} ${id}`, data.updateWebhook));
        if (!ctx.json) ctx.out.line(hookLine(ctx.out.c, `${verb}d webhook`, r.webhook));
      }),
    );
  toggle(true);
  toggle(false);
}
