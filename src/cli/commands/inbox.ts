/**
 * The operator inbox on the command line (issue 15 item 1): `inbox` lists what needs a person — an
 * interactive agent's question, a plan waiting for approval, a failed run, a health alert — and
 * `answer`, `approve`, `ack`, `snooze` and `dismiss` act on one item. Each is one typed SDK
 * document (src/sdk/operations/inbox.graphql); typed mutation errors map to exit codes as
 * everywhere (exit.ts: an item already closed, or an agent no longer waiting, is the gateway's
 * InvalidStateError, exit 4; an unknown item NotFoundError, exit 3). Command-line values (a kind,
 * a snooze duration) are checked here first (exit 2, naming the value).
 *
 * An item is named by its 12-hex id (as `inbox` prints it) or its global id.
 */
import { InvalidArgumentError, type Command } from "commander";
import {
  AcknowledgeInboxItemDocument,
  AnswerInboxItemDocument,
  ApproveInboxItemDocument,
  DismissInboxItemDocument,
  InboxDocument,
  SnoozeInboxItemDocument,
  type InboxFilter,
  type InboxItemFieldsFragment,
  type InboxItemKind,
  type InboxItemState,
  type InboxQuery,
} from "../../sdk/index.js";
import { clientAction, clientOptions, positiveInt, type CliContext } from "../context.js";
import { present, unwrapResult } from "../exit.js";
import { age, duration, firstLine, truncate } from "../format.js";
import { table, type Colors } from "../output.js";
import { safeData, singleLine } from "../sanitize.js";
import { parseDuration } from "./queue.js";

const JSON_HELP = "print the mutation result as JSON on stdout";

/** Items per `inbox` request, and the default number of rows of `inbox`. */
export const INBOX_PAGE = 50;

/** Lines of an item's body `inbox` prints under its row (the rest: `--json`). */
export const BODY_LINES = 6;

/** Characters of one body line `inbox` prints. */
export const BODY_WIDTH = 120;

/**
 * The kinds `inbox --kind` takes, in the schema's order. The schema's InboxItemKind also has
 * UNKNOWN (a kind this gateway does not know), which as a filter matches nothing, so it is not
 * offered.
 */
export const INBOX_KINDS = ["QUESTION", "PLAN", "RUN_FAILED", "ALERT"] as const satisfies readonly Exclude<
  InboxItemKind,
  "UNKNOWN"
>[];

// Compile-time completeness: INBOX_KINDS names every InboxItemKind but UNKNOWN.
const _kindsComplete: Exclude<InboxItemKind, "UNKNOWN" | (typeof INBOX_KINDS)[number]> extends never
  ? true
  : never = true;
void _kindsComplete;

/** The states `inbox` lists: without `--all` the ones that need a person, with it every state. */
const WAITING_STATES = ["OPEN", "SNOOZED"] as const satisfies readonly InboxItemState[];
const ALL_STATES = [...WAITING_STATES, "CLOSED"] as const satisfies readonly InboxItemState[];

/** Shortest snooze, ms (a shorter one would be back before anyone noticed it went). */
export const SNOOZE_MIN_MS = 60_000;

/** Longest snooze, ms: 30 days, the inbox's own bound (ValidationError at `input.until` beyond it). */
export const SNOOZE_MAX_MS = 30 * 86_400_000;

/**
 * `--kind`: inbox item kinds, comma-separated and repeatable (`--kind question,plan --kind alert`),
 * in any case, `-` for `_` (`run-failed`); accumulated over repeats without duplicates.
 * @throws InvalidArgumentError for an empty list or a name that is not a kind, naming the accepted ones.
 */
export function collectKinds(raw: string, prev: InboxItemKind[] = []): InboxItemKind[] {
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const accepted = INBOX_KINDS.map((k) => k.toLowerCase()).join(", ");
  if (names.length === 0) {
    throw new InvalidArgumentError(`--kind needs an inbox item kind: one of ${accepted} (comma-separated)`);
  }
  const out = [...prev];
  for (const name of names) {
    const v = name.toUpperCase().replace(/-/g, "_");
    const hit = INBOX_KINDS.find((k) => k === v);
    if (hit === undefined) {
      throw new InvalidArgumentError(
        `--kind must be an inbox item kind: one of ${accepted} (comma-separated or repeated), got ${JSON.stringify(name)}`,
      );
    }
    if (!out.includes(hit)) out.push(hit);
  }
  return out;
}

/**
 * A snooze duration (`30m`, `2h`, `1d`; the duration forms of queue.ts {@link parseDuration}, a
 * bare number being ms) from 1 minute ({@link SNOOZE_MIN_MS}) to 30 days ({@link SNOOZE_MAX_MS}).
 * Returns ms.
 * @throws InvalidArgumentError for another form or a duration outside those bounds.
 */
export function parseSnooze(raw: string): number {
  const ms = parseDuration("the snooze", raw);
  if (ms < SNOOZE_MIN_MS || ms > SNOOZE_MAX_MS) {
    throw new InvalidArgumentError(
      `the snooze must be from 1 minute to 30 days (30m, 2h, 1d), got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/** An item's kind as a table shows it (`question`, `run_failed`); UNKNOWN dim. */
function kindText(c: Colors, k: InboxItemKind): string {
  return k === "UNKNOWN" ? c.dim("unknown") : k.toLowerCase();
}

/** `demo/1762d9e2340d`, `demo`, or null (a fleet-wide alert). */
function where(i: InboxItemFieldsFragment): string | null {
  const parts = [i.workspace?.name ?? null, i.agent?.agentId ?? null].filter((s) => s !== null);
  return parts.length > 0 ? parts.join("/") : null;
}

/** `open`, `snoozed (back in 2h)`, `answered by alice`, `resolved: the agent resumed` (a table cell). */
function stateText(c: Colors, i: InboxItemFieldsFragment, now = Date.now()): string {
  switch (i.state) {
    case "OPEN":
      return i.escalations > 0 ? c.yellow(`open (escalated ×${i.escalations})`) : c.yellow("open");
    case "SNOOZED":
      return i.snoozedUntil !== null ? `snoozed (back in ${untilText(i.snoozedUntil, now)})` : "snoozed";
    case "CLOSED": {
      const how = i.resolution === null ? "closed" : i.resolution.toLowerCase();
      const by = i.closedBy !== null ? ` by ${i.closedBy}` : "";
      const why = i.closeReason !== null ? `: ${firstLine(i.closeReason, 50)}` : "";
      return c.dim(`${how}${by}${why}`);
    }
    default:
      return c.dim(i.state.toLowerCase());
  }
}

/** The time from `now` to the instant `iso` (`1h 59m`; `0 ms` once past). */
function untilText(iso: string, now = Date.now()): string {
  return duration(Math.max(0, Date.parse(iso) - now));
}

/**
 * What acting on an open item takes, as a command line: `…: prospero answer <id> "<text>"`, with
 * a placeholder that reads as one (a `"…"` copied as is was sent to the agent as the answer).
 */
function actionHint(i: InboxItemFieldsFragment): string {
  const cmds: string[] = [];
  if (i.canApprove) cmds.push(`prospero approve ${i.itemId}`);
  if (i.canAnswer) cmds.push(`prospero answer ${i.itemId} "<text>"`);
  if (cmds.length === 0) cmds.push(`prospero ack ${i.itemId}`);
  return `${i.answerHint}: ${cmds.join(" or ")}`;
}

/** Print the items: a row each, its body's first lines and (open ones) what acting on it takes. */
function printItems(ctx: CliContext, items: readonly InboxItemFieldsFragment[]): void {
  const { c } = ctx.out;
  const now = Date.now();
  const lines = table(
    ["ID", "KIND", "WORKSPACE/AGENT", "STATE", "AGE", "TITLE"].map((h) => c.dim(h)),
    items.map((i) => [
      i.itemId,
      kindText(c, i.kind),
      where(i) ?? c.dim("—"),
      stateText(c, i, now),
      age(i.openedAt, now),
      truncate(i.title, 80),
    ]),
  ).split("\n");
  ctx.out.line(lines[0]);
  items.forEach((i, n) => {
    ctx.out.line(lines[n + 1]);
    const body = i.body.replace(/\n+$/, "").split("\n");
    const shown = body.slice(0, BODY_LINES);
    if (i.body.trim() !== "") {
      for (const l of shown) {
        ctx.out.line(`    ${c.dim("│")}${l === "" ? "" : ` ${singleLine(truncate(l, BODY_WIDTH))}`}`);
      }
      if (body.length > shown.length) {
        ctx.out.line(`    ${c.dim(`│ (+${body.length - shown.length} lines: --json has the whole text)`)}`);
      }
    }
    if (i.state !== "CLOSED") ctx.out.line(`    ${c.dim(`→ ${singleLine(actionHint(i))}`)}`);
  });
}

/**
 * The line printed after an action on an item: `answered 94d3ec682e33 · question in demo/24007ff35754`
 * and what came of it; `i` must have passed through `safeData`.
 */
function actedLine(c: Colors, verb: string, i: InboxItemFieldsFragment, outcome?: string): string {
  const w = where(i);
  return `${verb} ${c.bold(i.itemId)} · ${kindText(c, i.kind)}${w === null ? "" : ` in ${w}`}${outcome ? ` · ${outcome}` : ""}`;
}

/** `1 item needs you` / `3 items need you`. */
function needYou(n: number): string {
  return n === 1 ? "1 item needs you" : `${n} items need you`;
}

/** `3 listed: 1 open, 1 snoozed, 1 closed` (the states of the items shown). */
function listedText(list: InboxList): string {
  const by = new Map<string, number>();
  for (const e of list.edges) by.set(e.node.state, (by.get(e.node.state) ?? 0) + 1);
  const parts = [...by].map(([state, n]) => `${n} ${state.toLowerCase()}`);
  return `${list.totalCount} listed: ${parts.join(", ")}`;
}

/** The inbox connection as `inbox --json` prints it (every page read, up to the limit). */
export interface InboxList {
  totalCount: number;
  openCount: number;
  edges: NonNullable<InboxQuery["inbox"]>["edges"];
  pageInfo: NonNullable<InboxQuery["inbox"]>["pageInfo"];
}

/** Read up to `limit` items matching `filter`, page by page (in the gateway's order). */
async function readInbox(ctx: CliContext, filter: InboxFilter, limit: number): Promise<InboxList> {
  const edges: InboxList["edges"] = [];
  let after: string | null = null;
  let totalCount = 0;
  let openCount = 0;
  let pageInfo: InboxList["pageInfo"] = { hasNextPage: false, endCursor: null };
  do {
    const page: InboxQuery = await ctx.client.request(InboxDocument, {
      filter,
      first: Math.min(INBOX_PAGE, limit - edges.length),
      after,
    });
    const inbox = present(page.inbox, "inbox");
    edges.push(...inbox.edges);
    totalCount = inbox.totalCount;
    openCount = inbox.openCount;
    pageInfo = inbox.pageInfo;
    after = pageInfo.endCursor;
  } while (pageInfo.hasNextPage && edges.length < limit && after !== null);
  return { totalCount, openCount, edges, pageInfo };
}

/** Register `inbox`, `answer`, `approve`, `ack`, `snooze` and `dismiss` on `program`. */
export function registerInboxCommands(program: Command): void {
  clientOptions(
    program
      .command("inbox")
      .description(
        "what needs you: agents' questions and plans, failed runs, health alerts (open and snoozed; --all adds closed ones)",
      )
      .option("--all", "also closed items (answered, acknowledged, dismissed, resolved by themselves)")
      .option(
        "--kind <kind>",
        `only these kinds (repeatable or comma-separated; ${INBOX_KINDS.map((k) => k.toLowerCase()).join(", ")})`,
        collectKinds,
      )
      .option("--workspace <name>", "only this workspace's items")
      .option("--limit <n>", `at most n items (default ${INBOX_PAGE})`, positiveInt("--limit", 10_000)),
    "print { inbox: { totalCount, openCount, edges, pageInfo } } as JSON on stdout",
  ).action(
    clientAction(
      async (ctx, flags: { all?: boolean; kind?: InboxItemKind[]; workspace?: string; limit?: number }) => {
        const filter: InboxFilter = {
          states: [...(flags.all ? ALL_STATES : WAITING_STATES)],
          ...(flags.kind !== undefined ? { kinds: flags.kind } : {}),
          ...(flags.workspace !== undefined ? { workspace: flags.workspace } : {}),
        };
        const list = await readInbox(ctx, filter, flags.limit ?? INBOX_PAGE);
        if (ctx.json) {
          ctx.out.json({ inbox: list });
          return;
        }
        const { c } = ctx.out;
        const filtered = flags.kind !== undefined || flags.workspace !== undefined;
        if (list.edges.length === 0) {
          ctx.out.line(
            c.dim(
              filtered
                ? `no matching items (${needYou(list.openCount)} in all)`
                : flags.all
                  ? "no inbox items"
                  : "nothing needs you: the inbox is empty",
            ),
          );
          return;
        }
        // The badge's number (OPEN items, whatever the filter), then what is listed when it differs.
        const onlyOpen = list.edges.every((e) => e.node.state === "OPEN");
        const detail = filtered || !onlyOpen || list.totalCount !== list.openCount;
        ctx.out.line(`${c.bold(needYou(list.openCount))}${detail ? c.dim(` · ${listedText(list)}`) : ""}`);
        printItems(
          ctx,
          list.edges.map((e) => safeData(e.node)),
        );
        const more = list.totalCount - list.edges.length;
        if (more > 0) ctx.out.line(c.dim(`(+${more} more: raise --limit)`));
      },
    ),
  );

  clientOptions(
    program
      .command("answer")
      .description(
        "answer an agent's question (or send changes to its plan): the text goes to the agent as its next input",
      )
      .argument("<item>", "inbox item id (12 hex, as `prospero inbox` prints it)")
      .argument(
        "<text>",
        'what to tell the agent (one starting with - goes after --: answer <item> -- "-1")',
      ),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, item: string, text: string) => {
      const data = await ctx.out.spin(`answering ${item}…`, () =>
        ctx.client.request(AnswerInboxItemDocument, { item, text }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`answer ${item}`, data.answerInboxItem));
      if (ctx.json) return;
      const agent = r.item.agent?.agentId;
      ctx.out.line(actedLine(ctx.out.c, "answered", r.item, agent ? `sent to agent ${agent}` : "sent"));
    }),
  );

  clientOptions(
    program
      .command("approve")
      .description(
        'approve an agent\'s plan: it is told to go ahead ("The plan is approved. Go ahead.", or your text)',
      )
      .argument("<item>", "inbox item id (12 hex, as `prospero inbox` prints it)")
      .argument(
        "[text]",
        "what to tell the agent instead of the default approval (after -- when it starts with -)",
      ),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, item: string, text: string | undefined) => {
      const data = await ctx.out.spin(`approving ${item}…`, () =>
        ctx.client.request(ApproveInboxItemDocument, { item, ...(text !== undefined ? { text } : {}) }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`approve ${item}`, data.approveInboxItem));
      if (ctx.json) return;
      const told = text !== undefined ? "your text was sent to the agent" : "the agent was told to go ahead";
      ctx.out.line(actedLine(ctx.out.c, "approved", r.item, told));
    }),
  );

  clientOptions(
    program
      .command("ack")
      .description("acknowledge an item (a failed run, an alert, or any other): it closes, nothing is sent")
      .argument("<item>", "inbox item id (12 hex, as `prospero inbox` prints it)"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, item: string) => {
      const data = await ctx.client.request(AcknowledgeInboxItemDocument, { item });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`ack ${item}`, data.acknowledgeInboxItem));
      if (!ctx.json) ctx.out.line(actedLine(ctx.out.c, "acknowledged", r.item));
    }),
  );

  clientOptions(
    program
      .command("snooze")
      .description("hide an item for a while: it comes back (and is notified again) when the time is up")
      .argument("<item>", "inbox item id (12 hex, as `prospero inbox` prints it)")
      .argument("<duration>", "how long: 30m, 2h, 1d (1 minute to 30 days)", parseSnooze),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, item: string, ms: number) => {
      const until = new Date(Date.now() + ms).toISOString();
      const data = await ctx.client.request(SnoozeInboxItemDocument, { item, until });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`snooze ${item}`, data.snoozeInboxItem));
      if (ctx.json) return;
      const back = r.item.snoozedUntil ?? until;
      ctx.out.line(actedLine(ctx.out.c, "snoozed", r.item, `back at ${back} (in ${untilText(back)})`));
    }),
  );

  clientOptions(
    program
      .command("dismiss")
      .description("dismiss an item: it closes without an answer (the agent keeps waiting, if it was)")
      .argument("<item>", "inbox item id (12 hex, as `prospero inbox` prints it)"),
    JSON_HELP,
  ).action(
    clientAction(async (ctx, item: string) => {
      const data = await ctx.client.request(DismissInboxItemDocument, { item });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`dismiss ${item}`, data.dismissInboxItem));
      if (!ctx.json) ctx.out.line(actedLine(ctx.out.c, "dismissed", r.item));
    }),
  );
}
