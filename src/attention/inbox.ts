/**
 * The operator inbox (issue 15 item 1): one list of what needs a person — an interactive agent
 * waiting for input after a turn (QUESTION), an agent that shared a plan and waits for approval
 * (PLAN), a run that failed, crashed or timed out (RUN_FAILED), a failing health check (ALERT).
 *
 * The service follows the bus (committed fleet events, in commit order, one at a time) and opens
 * and closes items by the rules of design-15 (the pure parts are in ./detect.ts); at start, and
 * after falling behind the bus, it reconciles from the fleet's state and the store instead
 * (what happened while it was not looking). People answer, approve, acknowledge, snooze and dismiss
 * items; the health monitor raises and clears alerts.
 *
 * Storage (prisma/schema.prisma InboxItem / InboxAction): every change of an item and the
 * InboxAction row recording it are one write through the store's single writer; `activeKey` keeps
 * one item not CLOSED per thing (unique, NULL once closed), so a restart never duplicates one.
 * This service is the only writer of those rows; its writes and its event handling are serialised
 * by one lock, except the input an answer sends to the agent, which happens outside it.
 * After each commit, `onChange` listeners are told and notifications go to the notifier
 * (ids `<type>:<itemId>:<actionId>`, stable: webhook delivery dedups on them). One timer (the
 * injected clock) wakes the service for the earliest snooze end or escalation.
 */
import { randomBytes } from "node:crypto";
import { Mutex } from "async-mutex";
import type { PrismaClient, InboxItem } from "../generated/prisma/client.js";
import type { BusSubscription, EventBus } from "../bus/bus.js";
import type { EventStore } from "../store/events.js";
import type { PendingOp } from "../store/writer.js";
import type { Fleet } from "../fleet/fleet.js";
import type { Logger } from "../log.js";
import { systemClock, type Clock, type TimerHandle } from "../queue/clock.js";
import { parsePayload, type EventKind, type FleetEvent, type PayloadOf } from "../events/index.js";
import { InvalidState, NotFound, ValidationFailed } from "../errors.js";
import { AgentNotFound } from "../caliband/errors.js";
import type { Notifier } from "./notify.js";
import type { AlertInput, InboxChange, InboxChangeKind, InboxKind, NotificationValue } from "./types.js";
import {
  DEFAULT_APPROVAL,
  DETAIL_MAX_CHARS,
  TITLE_MAX_CHARS,
  alertKey,
  answerTextProblem,
  boundChars,
  failureBody,
  failureTitle,
  isBoundaryStop,
  isEndedStatus,
  isFailedStatus,
  isFailureOutcome,
  isPlanTool,
  notificationsFor,
  oneLine,
  plainBody,
  planKey,
  planText,
  planTitle,
  questionBody,
  questionKey,
  questionTitle,
  runKey,
  sanitize,
  scheduleSkipped,
  snoozeProblem,
  turnText,
  waitEndReason,
  type RunFailure,
  type Subject,
} from "./detect.js";

/** What the inbox needs. */
export interface InboxDeps {
  db: PrismaClient;
  bus: EventBus;
  store: EventStore;
  fleet: Fleet;
  notifier: Notifier;
  log: Logger;
  clock?: Clock;
  /** Re-notify an item open longer than this, ms (then every such period); 0 = never. */
  escalateAfterMs: number;
}

/**
 * How far back, ms, the start-up reconcile looks for runs that failed or timed out while no inbox
 * was watching (the gateway was down, or its fleet recorded them before the inbox subscribed):
 * 24 h. Older failures are history, not news; a run gets at most one RUN_FAILED item ever, so
 * looking again after a restart never opens a second one.
 */
export const RECONCILE_WINDOW_MS = 24 * 3600 * 1000;

/** Most `output` events read to rebuild one turn's text (of a turn streamed in more, its last ones). */
const MAX_TURN_OUTPUTS = 5_000;
/** Most `tool_finished` events since the last input searched for a plan. */
const MAX_TOOL_EVENTS = 500;

/** Event kinds the inbox follows. */
const WATCHED: ReadonlySet<EventKind> = new Set<EventKind>([
  "status_changed",
  "agent_gone",
  "tool_finished",
  "turn_started",
  "turn_completed",
  "launch_changed",
  "schedule_changed",
]);

/** An agent as titles and rules need it. */
interface AgentInfo extends Subject {
  id: string;
  interactive: boolean;
  status: string;
}

/** What an idle interactive agent waits with: a plan shared since its last input, else its question. */
interface WaitingContext {
  /**
   * It waits after a turn: its last stored turn completed without calling tools (a turn that did
   * is followed by another: the store lags what the poll saw), started after its last input (if
   * any: an input not answered yet is still being worked on), and its run has no RunEnd (a
   * restarted daemon may list a finished interactive worker as idle).
   */
  waiting: boolean;
  /** Index of its last turn, null when it had none. */
  lastTurn: number | null;
  /** The text of its last turn (may be ""). */
  question: string;
  /** Seq of its last `input_sent` (0 when none). */
  inputSeq: number;
  plan: { text: string; toolUseId: string; turnIndex: number } | null;
}

/** How an item closes. */
interface Closing {
  resolution: "ANSWERED" | "APPROVED" | "ACKNOWLEDGED" | "DISMISSED" | "RESOLVED";
  actor: string | null;
  /** The InboxAction's detail: the text sent, or why it closed. */
  detail: string | null;
  /** InboxItem.closeReason (why it closed, in words), null for a person's plain close. */
  reason: string | null;
  /** Notification facts (`cleared`: an alert the monitor cleared). */
  extra?: Record<string, NotificationValue>;
}

const newId = (): string => randomBytes(6).toString("hex");

/** The operator inbox. */
export class InboxService {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly lock = new Mutex();
  private readonly listeners = new Set<(c: InboxChange) => void>();
  /** activeKey → id of every item not CLOSED (this service is the only writer of items). */
  private readonly active = new Map<string, string>();
  // Whether an agent waiting with a QUESTION or PLAN went on is read from its own stream, not
  // from the polled status alone: a poll may record `idle` before the turn's end is ingested, or
  // record `running` late, after a short turn already ended.
  /** agent id → index of its last turn when its QUESTION opened (a later turn = it resumed). */
  private readonly questionTurn = new Map<string, number>();
  /** agent id → turn of the plan tool call of its open PLAN. */
  private readonly planTurn = new Map<string, number>();
  /** agent id → the turn at whose end the agent with an open PLAN waited (a later turn = it resumed). */
  private readonly planBoundary = new Map<string, number>();
  /** item id → seq of its agent's last `input_sent` when it opened (newer input + running = resumed). */
  private readonly inputSeqAtOpen = new Map<string, number>();
  /** Items whose answer is being sent (their agent's events do not close them meanwhile). */
  private readonly answering = new Set<string>();
  private sub: BusSubscription | null = null;
  private following: Promise<void> | null = null;
  private timer: TimerHandle | null = null;
  /** Items changed since the timer was last armed (re-arm after the locked section). */
  private dirty = true;
  private started = false;
  private stopped = false;

  constructor(private readonly deps: InboxDeps) {
    this.clock = deps.clock ?? systemClock;
    this.log = deps.log;
  }

  /**
   * Follow the bus and reconcile from the fleet's state and the store: items of agents that moved
   * on are closed, idle interactive agents get their QUESTION (or PLAN), runs that failed or timed
   * out in the last {@link RECONCILE_WINDOW_MS} without an item get one. Arms the snooze /
   * escalation timer. Idempotent.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Subscribe before reconciling: nothing committed meanwhile is missed (handled after it).
    this.sub = this.deps.bus.subscribe(
      (e) => WATCHED.has(e.kind) && (e.kind !== "tool_finished" || isPlanTool(e.payload.name)),
    );
    await this.exclusive(() => this.reconcile());
    this.following = this.follow(this.sub);
  }

  /** Stop following the bus and the timer; waits for the change in progress. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.sub?.close();
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.following;
    await this.lock.waitForUnlock();
  }

  /**
   * Answer a QUESTION (or send changes to a PLAN): `text` goes to the agent through the fleet's
   * input path (idle or running agents accept it), then the item closes ANSWERED.
   * @param actor the token name of the person answering.
   * @throws ValidationFailed (`["text"]`: empty, over 100 000 characters), NotFound ("inbox item"),
   *   InvalidState (closed; a kind that takes no answer; the agent no longer waits; an answer
   *   already on its way), and the input path's errors (Unreachable, InvalidState, …): then the
   *   item stays as it was.
   */
  async answer(id: string, text: string, actor: string): Promise<InboxItem> {
    const problem = answerTextProblem(text);
    if (problem) throw new ValidationFailed([{ path: ["text"], message: problem }]);
    return this.sendAndClose(id, text, actor, "ANSWERED");
  }

  /**
   * Approve a PLAN: `text` (default "The plan is approved. Go ahead.") goes to the agent, then the
   * item closes APPROVED.
   * @throws as {@link answer}; InvalidState for an item that is not a PLAN.
   */
  async approve(id: string, actor: string, text?: string | null): Promise<InboxItem> {
    const sent = text ?? DEFAULT_APPROVAL;
    const problem = answerTextProblem(sent);
    if (problem) throw new ValidationFailed([{ path: ["text"], message: problem }]);
    return this.sendAndClose(id, sent, actor, "APPROVED");
  }

  /**
   * Close any item as ACKNOWLEDGED (seen, dealt with).
   * @throws NotFound, InvalidState (already closed; an answer on its way).
   */
  acknowledge(id: string, actor: string): Promise<InboxItem> {
    return this.closeByPerson(id, { resolution: "ACKNOWLEDGED", actor, detail: null, reason: null });
  }

  /**
   * Close any item as DISMISSED (not needed).
   * @throws NotFound, InvalidState (already closed; an answer on its way).
   */
  dismiss(id: string, actor: string): Promise<InboxItem> {
    return this.closeByPerson(id, { resolution: "DISMISSED", actor, detail: null, reason: null });
  }

  /**
   * Hide an item until `untilMs` (ms since the epoch): SNOOZED, then OPEN again (notified again
   * as `inbox.opened`, `data.reopened` true). Snoozing a snoozed item moves its end.
   * @throws ValidationFailed (`["until"]`: not in the future, more than 30 days ahead), NotFound,
   *   InvalidState (closed; an answer on its way).
   */
  async snooze(id: string, untilMs: number, actor: string): Promise<InboxItem> {
    const problem = snoozeProblem(untilMs, this.clock.now());
    if (problem) throw new ValidationFailed([{ path: ["until"], message: problem }]);
    return this.exclusive(async () => {
      const item = await this.openItem(id);
      const at = new Date(this.clock.now());
      const until = new Date(untilMs);
      return this.commit(
        item,
        (db) => [
          db.inboxItem.update({
            where: { id },
            data: {
              state: "SNOOZED",
              snoozedUntil: until,
              updatedAt: at,
              actions: { create: { action: "SNOOZED", actor, detail: until.toISOString(), at } },
            },
          }),
        ],
        "SNOOZED",
      );
    });
  }

  /**
   * Raise the monitor's alert for `(check, subject)`: opens an ALERT item (notified as
   * `inbox.opened` and `alert.opened`), or updates the title and body of the one not yet closed
   * (UPDATED, no notification). Idempotent: the same alert again changes nothing.
   * @throws ValidationFailed (empty check or title).
   */
  async raiseAlert(a: AlertInput): Promise<InboxItem> {
    const issues = [
      ...(a.check.trim() === "" ? [{ path: ["check"], message: "must not be empty" }] : []),
      ...(a.title.trim() === "" ? [{ path: ["title"], message: "must not be empty" }] : []),
    ];
    if (issues.length) throw new ValidationFailed(issues);
    const key = alertKey(a.check, a.subject);
    const title = oneLine(a.title, TITLE_MAX_CHARS);
    const body = plainBody(a.message);
    return this.exclusive(async () => {
      const existing = await this.activeItem(key);
      if (existing) {
        if (existing.title === title && existing.body === body) return existing;
        const at = new Date(this.clock.now());
        return this.commit(
          existing,
          (db) => [
            db.inboxItem.update({
              where: { id: existing.id },
              data: {
                title,
                body,
                updatedAt: at,
                actions: { create: { action: "UPDATED", actor: null, at } },
              },
            }),
          ],
          "UPDATED",
        );
      }
      return this.open({
        kind: "ALERT",
        key,
        workspace: a.workspace,
        agentId: a.agentId,
        launchId: null,
        check: a.check,
        subject: a.subject,
        title,
        body,
        detail: `check ${a.check} failing`,
      });
    });
  }

  /**
   * Clear the monitor's alert for `(check, subject)`: its item (if one is not closed) closes
   * RESOLVED with `message` as the reason, notified as `inbox.closed` and `alert.resolved`.
   * @returns the closed item, or null when no such alert was open.
   */
  async clearAlert(check: string, subject: string | null, message: string): Promise<InboxItem | null> {
    const reason = oneLine(message, DETAIL_MAX_CHARS) || `check ${check} cleared`;
    return this.exclusive(async () => {
      const item = await this.activeItem(alertKey(check, subject));
      if (!item) return null;
      return this.close(item, {
        resolution: "RESOLVED",
        actor: null,
        detail: reason,
        reason,
        extra: { cleared: true },
      });
    });
  }

  /**
   * OPEN items (not SNOOZED) in `workspaces` (null = every item, fleet-wide alerts included; a
   * list never counts fleet-wide items).
   */
  openCount(workspaces: readonly string[] | null): Promise<number> {
    return this.deps.db.inboxItem.count({
      where: { state: "OPEN", ...(workspaces === null ? {} : { workspace: { in: [...workspaces] } }) },
    });
  }

  /** Items per kind and state, every item stored (for /metrics `prospero_inbox_items`). */
  async countsByKindState(): Promise<{ kind: string; state: string; count: number }[]> {
    const groups = await this.deps.db.inboxItem.groupBy({ by: ["kind", "state"], _count: { _all: true } });
    return groups.map((g) => ({ kind: g.kind, state: g.state, count: g._count._all }));
  }

  /** Listen to every change after its commit; returns the function that stops listening. */
  onChange(listener: (c: InboxChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Retention: delete CLOSED items closed before `cutoff`, with their actions.
   * @returns how many items were deleted.
   */
  prune(cutoff: Date): Promise<number> {
    return this.exclusive(async () => {
      const where = { state: "CLOSED", closedAt: { lt: cutoff } };
      // Counted under the lock: only this service writes items, so the count is what is deleted.
      const n = await this.deps.db.inboxItem.count({ where });
      if (n === 0) return 0;
      await this.write((db) => [
        db.inboxAction.deleteMany({ where: { item: where } }),
        db.inboxItem.deleteMany({ where }),
      ]);
      return n;
    });
  }

  // ----------------------------------------------------------------------------------------------
  // Following the fleet
  // ----------------------------------------------------------------------------------------------

  private async follow(sub: BusSubscription): Promise<void> {
    for await (const item of sub) {
      if (this.stopped) break;
      try {
        if (item.type === "overflow") {
          this.log.warn({ dropped: item.dropped }, "inbox fell behind the bus: reconciling");
          await this.exclusive(() => this.reconcile());
          continue;
        }
        const e = item.event;
        if (e.kind === "schedule_changed") {
          const n = scheduleSkipped(e);
          if (n) this.deps.notifier.emit(n);
          continue;
        }
        await this.exclusive(() => this.handle(e));
      } catch (err) {
        this.log.error({ err }, "inbox: handling a fleet event failed");
      }
    }
  }

  private async handle(e: FleetEvent): Promise<void> {
    if (this.stopped) return;
    switch (e.kind) {
      case "status_changed": {
        const end = waitEndReason(e);
        if (end) await this.closeWaits(e.agentId, end);
        if (e.payload.to === "idle") await this.onIdle(e.agentId);
        if (
          (isFailedStatus(e.payload.to) ||
            (isEndedStatus(e.payload.to) && (await this.endedFailing(e.agentId)))) &&
          (await this.queueVerdict(e.agentId)) === "open"
        )
          await this.openRunFailed(e.agentId, null);
        return;
      }
      case "agent_gone": {
        const end = waitEndReason(e);
        if (end) await this.closeWaits(e.agentId, end);
        return;
      }
      case "tool_finished":
        return this.onPlanShared(e.agentId, e.payload);
      case "turn_started": {
        const q = this.active.get(questionKey(e.agentId));
        const asked = this.questionTurn.get(e.agentId);
        if (q && asked !== undefined && e.payload.turnIndex > asked)
          await this.closeWait(q, "the agent resumed");
        const p = this.active.get(planKey(e.agentId));
        const waited = this.planBoundary.get(e.agentId);
        if (p && waited !== undefined && e.payload.turnIndex > waited)
          await this.closeWait(p, "the agent resumed");
        return;
      }
      case "turn_completed": {
        if (!isBoundaryStop(e.payload.stopReason)) return;
        if (
          this.active.has(planKey(e.agentId)) &&
          !this.planBoundary.has(e.agentId) &&
          e.payload.turnIndex >= (this.planTurn.get(e.agentId) ?? -1)
        )
          this.planBoundary.set(e.agentId, e.payload.turnIndex);
        // The poll may have recorded `idle` before this turn was ingested, or not seen the agent
        // leave `idle` at all (a turn shorter than a poll interval): the turn's end is the moment.
        if (this.deps.fleet.state.agent(e.agentId)?.status === "idle") await this.onIdle(e.agentId);
        return;
      }
      case "launch_changed":
        return this.onLaunch(e.payload);
      default:
        return;
    }
  }

  /**
   * The agent's QUESTION and PLAN end on a status change: its run ended, or it runs again on
   * input newer than the item (a `running` alone may be a late poll of the turn the item is about;
   * its next turn's start closes the item then).
   */
  private async closeWaits(agentId: string, end: { reason: string; resumed: boolean }): Promise<void> {
    const ids = [questionKey(agentId), planKey(agentId)].flatMap((k) => this.active.get(k) ?? []);
    if (ids.length === 0) return;
    const newer = end.resumed ? await this.lastInputSeq(agentId) : 0;
    for (const id of ids) {
      if (!end.resumed || newer > (this.inputSeqAtOpen.get(id) ?? Infinity))
        await this.closeWait(id, end.reason);
    }
  }

  /** Seq of the agent's last `input_sent` (0 when none). */
  private async lastInputSeq(agentId: string): Promise<number> {
    const e = await this.deps.db.event.findFirst({
      where: { agentId, kind: "input_sent" },
      orderBy: { seq: "desc" },
      select: { seq: true },
    });
    return e?.seq ?? 0;
  }

  /** Close a QUESTION or PLAN by itself (RESOLVED), unless a person's answer to it is on its way. */
  private async closeWait(itemId: string, reason: string): Promise<void> {
    if (this.answering.has(itemId)) return;
    const item = await this.deps.db.inboxItem.findUnique({ where: { id: itemId } });
    if (!item || item.state === "CLOSED") return;
    await this.close(item, { resolution: "RESOLVED", actor: null, detail: reason, reason });
  }

  /**
   * An agent is idle: an interactive one that waits after a turn (see {@link WaitingContext}) gets
   * its QUESTION — or its PLAN, when it shared one since its last input and no item was opened
   * for that plan yet.
   */
  private async onIdle(agentId: string): Promise<void> {
    const a = await this.agentInfo(agentId);
    if (!a?.interactive) return;
    if (this.active.has(planKey(agentId)) || this.active.has(questionKey(agentId))) return;
    const w = await this.waitingContext(agentId);
    if (!w.waiting) return;
    if (w.plan) {
      // Already an item for this plan: it is waited on (open) or a person closed it (dismissed).
      if (await this.planItemFor(agentId, w.plan.toolUseId)) return;
      const id = await this.openPlan(a, w.plan, w.inputSeq);
      if (w.lastTurn !== null && this.active.get(planKey(agentId)) === id)
        this.planBoundary.set(agentId, w.lastTurn);
      return;
    }
    const body = questionBody(w.question);
    const q = await this.open({
      kind: "QUESTION",
      key: questionKey(agentId),
      workspace: a.workspace,
      agentId,
      launchId: await this.launchOf(agentId),
      check: null,
      subject: null,
      title: questionTitle(a, w.question),
      body,
      detail: w.lastTurn === null ? "idle" : `idle after turn ${w.lastTurn}`,
    });
    if (w.lastTurn !== null) this.questionTurn.set(agentId, w.lastTurn);
    this.inputSeqAtOpen.set(q.id, w.inputSeq);
  }

  /** A plan tool call finished: an interactive agent waits for its approval (a new plan updates the item). */
  private async onPlanShared(agentId: string, p: PayloadOf<"tool_finished">): Promise<void> {
    if (!isPlanTool(p.name)) return;
    const a = await this.agentInfo(agentId);
    if (!a?.interactive || isEndedStatus(a.status)) return;
    const plan = { text: planText(p.input, p.inputRaw), toolUseId: p.toolUseId, turnIndex: p.turnIndex };
    const existing = await this.activeItem(planKey(agentId));
    if (existing) {
      const at = new Date(this.clock.now());
      const body = plainBody(plan.text);
      this.planTurn.set(agentId, plan.turnIndex);
      this.planBoundary.delete(agentId);
      if (body === existing.body) return;
      await this.commit(
        existing,
        (db) => [
          db.inboxItem.update({
            where: { id: existing.id },
            data: {
              body,
              updatedAt: at,
              actions: { create: { action: "UPDATED", actor: null, detail: planDetail(plan), at } },
            },
          }),
        ],
        "UPDATED",
      );
      return;
    }
    // The question it waited with (if any) is superseded by the plan.
    const q = this.active.get(questionKey(agentId));
    if (q) await this.closeWait(q, "the agent shared a plan");
    await this.openPlan(a, plan, await this.lastInputSeq(agentId));
  }

  /** Open the PLAN of `a` (`inputSeq`: seq of its last input then); returns the item's id. */
  private async openPlan(
    a: AgentInfo,
    plan: NonNullable<WaitingContext["plan"]>,
    inputSeq: number,
  ): Promise<string> {
    const item = await this.open({
      kind: "PLAN",
      key: planKey(a.id),
      workspace: a.workspace,
      agentId: a.id,
      launchId: await this.launchOf(a.id),
      check: null,
      subject: null,
      title: planTitle(a),
      body: plainBody(plan.text),
      detail: planDetail(plan),
    });
    this.planTurn.set(a.id, plan.turnIndex);
    this.planBoundary.delete(a.id);
    this.inputSeqAtOpen.set(item.id, inputSeq);
    return item.id;
  }

  /** A PLAN item (any state) opened for the plan tool call `toolUseId` of `agentId`. */
  private async planItemFor(agentId: string, toolUseId: string): Promise<boolean> {
    const hit = await this.deps.db.inboxAction.findFirst({
      where: { action: "OPENED", detail: { contains: toolUseId }, item: { agentId, kind: "PLAN" } },
      select: { id: true },
    });
    return hit !== null;
  }

  private async onLaunch(p: PayloadOf<"launch_changed">): Promise<void> {
    if (p.agentId === null) return;
    if (p.to === "TIMED_OUT") {
      await this.openRunFailed(p.agentId, { launchId: p.launchId, reason: p.reason ?? "timed out" });
      return;
    }
    if (p.to === "FAILED") {
      // The queue gave up on the launch (a permanent failure, or its last attempt): now it is news.
      await this.openRunFailed(p.agentId, null);
      return;
    }
    if (p.to === "QUEUED" && p.from === "RUNNING" && p.attempt !== null) {
      const id = this.active.get(runKey(p.agentId));
      if (!id) return;
      const item = await this.deps.db.inboxItem.findUnique({ where: { id } });
      if (!item || item.state === "CLOSED") return;
      const reason = `retried as attempt ${p.attempt + 1}`;
      await this.close(item, { resolution: "RESOLVED", actor: null, detail: p.reason ?? reason, reason });
    }
  }

  /**
   * A run failed (status failed/crashed) or its launch timed out (`timeout`): one RUN_FAILED item
   * per run, ever (an acknowledged failure is not reopened). A timeout of a run whose failure is
   * open already turns that item into the timeout's.
   */
  private async openRunFailed(
    agentId: string,
    timeout: { launchId: string; reason: string } | null,
  ): Promise<void> {
    const key = runKey(agentId);
    const existing = await this.activeItem(key);
    const row = await this.deps.db.agent.findUnique({ where: { id: agentId } });
    if (!row) return;
    const finished = await this.deps.db.event.findFirst({
      where: { agentId, kind: "agent_finished" },
      orderBy: { seq: "desc" },
      select: { payload: true },
    });
    const fin = finished ? safePayload("agent_finished", finished.payload) : null;
    const failure: RunFailure = {
      status: row.status,
      outcome: fin?.outcome ?? row.outcome,
      detail: fin?.detail ?? null,
      exitCode: row.exitCode,
      logTail: row.failureLogTail,
      logUnreadable: row.failureReason,
      launchReason: timeout?.reason ?? null,
    };
    const subject: Subject = { name: row.name, workspace: row.workspace };
    if (existing) {
      if (!timeout) return;
      const at = new Date(this.clock.now());
      const title = failureTitle(subject, failure, true);
      const body = failureBody(failure);
      await this.commit(
        existing,
        (db) => [
          db.inboxItem.update({
            where: { id: existing.id },
            data: {
              title,
              body,
              launchId: timeout.launchId,
              updatedAt: at,
              actions: { create: { action: "UPDATED", actor: null, detail: "the launch timed out", at } },
            },
          }),
        ],
        "UPDATED",
      );
      return;
    }
    const before = await this.deps.db.inboxItem.findFirst({
      where: { kind: "RUN_FAILED", agentId },
      select: { id: true },
    });
    if (before) return;
    await this.open(
      {
        kind: "RUN_FAILED",
        key,
        workspace: row.workspace,
        agentId,
        launchId: timeout?.launchId ?? (await this.launchOf(agentId)),
        check: null,
        subject: null,
        title: failureTitle(subject, failure, timeout !== null),
        body: failureBody(failure),
        detail: timeout ? "the launch timed out" : `the run ended ${row.status}`,
      },
      {
        timedOut: timeout !== null,
        status: row.status,
        outcome: failure.outcome,
        exitCode: failure.exitCode,
      },
    );
  }

  /** What an idle agent waits with, read from its stream (see {@link WaitingContext}). */
  private async waitingContext(agentId: string): Promise<WaitingContext> {
    const { db, store } = this.deps;
    const lastInput = await db.event.findFirst({
      where: { agentId, kind: "input_sent" },
      orderBy: { seq: "desc" },
      select: { seq: true },
    });
    const tools = await db.event.findMany({
      where: { agentId, kind: "tool_finished", seq: { gt: lastInput?.seq ?? 0 } },
      orderBy: { seq: "desc" },
      take: MAX_TOOL_EVENTS,
      select: { payload: true },
    });
    let plan: WaitingContext["plan"] = null;
    for (const t of tools) {
      const p = safePayload("tool_finished", t.payload);
      if (p && isPlanTool(p.name)) {
        plan = { text: planText(p.input, p.inputRaw), toolUseId: p.toolUseId, turnIndex: p.turnIndex };
        break;
      }
    }
    const lastTurn = await db.event.findFirst({
      where: { agentId, kind: "turn_started" },
      orderBy: { seq: "desc" },
      select: { seq: true, payload: true },
    });
    const started = lastTurn ? safePayload("turn_started", lastTurn.payload) : null;
    const inputSeq = lastInput?.seq ?? 0;
    if (!lastTurn || !started) return { waiting: false, lastTurn: null, question: "", inputSeq, plan };
    const [completed, finished] = await Promise.all([
      db.event.findFirst({
        where: { agentId, kind: "turn_completed", seq: { gt: lastTurn.seq } },
        select: { payload: true },
      }),
      db.event.findFirst({ where: { agentId, kind: "agent_finished" }, select: { seq: true } }),
    ]);
    // A turn that called tools is followed by another (what is stored may lag what the poll saw).
    const stop = completed ? safePayload("turn_completed", completed.payload)?.stopReason : undefined;
    const waiting =
      stop !== undefined &&
      stop !== "tool_use" &&
      finished === null &&
      (lastInput === null || lastTurn.seq > lastInput.seq);
    // The turn's last outputs (the end of a long message is where its question is).
    const { events } = await store.readPage({
      scope: { streamKey: agentId },
      kinds: ["output"],
      after: lastTurn.seq,
      limit: MAX_TURN_OUTPUTS,
      backward: true,
    });
    const outputs = events.flatMap((e) => (e.kind === "output" ? [e.payload] : []));
    return {
      waiting,
      lastTurn: started.turnIndex,
      question: turnText(outputs, started.turnIndex),
      inputSeq,
      plan,
    };
  }

  /**
   * Whether the run's RunEnd names a failure (design-15: an `agent_finished` outcome other than
   * EndOfTurn, MaxTurnsReached, Cancelled), for a run whose status does not say so (`done`, or
   * `killed` after it had ended).
   */
  private async endedFailing(agentId: string): Promise<boolean> {
    const finished = await this.deps.db.event.findFirst({
      where: { agentId, kind: "agent_finished" },
      orderBy: { seq: "desc" },
      select: { payload: true },
    });
    const p = finished ? safePayload("agent_finished", finished.payload) : null;
    return p !== null && isFailureOutcome(p.outcome);
  }

  /** The launch whose attempt started `agentId`, or null for a run spawned directly. */
  private async launchOf(agentId: string): Promise<string | null> {
    const a = await this.deps.db.launchAttempt.findUnique({ where: { agentId }, select: { launchId: true } });
    return a?.launchId ?? null;
  }

  /**
   * Whether a failed run is news yet (issue 15: a person is told, and otherwise left alone): a run
   * outside the queue, or whose launch FAILED (the queue gave up), is — `open`; a run whose launch
   * has not settled yet (RUNNING/DISPATCHED with this run: the queue may still retry it) waits for
   * the launch's FAILED transition — `defer`; a run the queue retried (QUEUED, or a later attempt),
   * or whose launch was cancelled, is not — `skip`. (A timeout opens through the TIMED_OUT path.)
   */
  private async queueVerdict(agentId: string): Promise<"open" | "defer" | "skip"> {
    const { db } = this.deps;
    const attempt = await db.launchAttempt.findUnique({ where: { agentId } });
    if (!attempt) return "open";
    if (await this.retried(agentId)) return "skip";
    const launch = await db.launch.findUnique({ where: { id: attempt.launchId }, select: { state: true } });
    if (!launch) return "open";
    if (launch.state === "FAILED") return "open";
    if (launch.state === "RUNNING" || launch.state === "DISPATCHED") return "defer";
    return "skip";
  }

  /**
   * Why the failed run `agentId` needs no item: its launch retried it (a later attempt exists, or
   * the retry waits for its backoff), in words; null when it was not retried.
   */
  private async retried(agentId: string): Promise<string | null> {
    const { db } = this.deps;
    const attempt = await db.launchAttempt.findUnique({ where: { agentId } });
    if (!attempt) return null;
    const later = await db.launchAttempt.findFirst({
      where: { launchId: attempt.launchId, n: { gt: attempt.n } },
      orderBy: { n: "asc" },
      select: { n: true },
    });
    if (later) return `retried as attempt ${later.n}`;
    const launch = await db.launch.findUnique({
      where: { id: attempt.launchId },
      select: { state: true, agentId: true },
    });
    if (launch?.state === "QUEUED" && launch.agentId === agentId)
      return `retried as attempt ${attempt.n + 1}`;
    return null;
  }

  private async agentInfo(agentId: string): Promise<AgentInfo | null> {
    const v = this.deps.fleet.state.agent(agentId);
    if (v) {
      return { id: v.id, name: v.name, workspace: v.workspace, interactive: v.interactive, status: v.status };
    }
    const r = await this.deps.db.agent.findUnique({ where: { id: agentId } });
    return r
      ? { id: r.id, name: r.name, workspace: r.workspace, interactive: r.interactive, status: r.status }
      : null;
  }

  /**
   * Catch up with what happened while nobody watched (at start, after falling behind the bus):
   * QUESTION/PLAN items of agents that moved on close; idle interactive agents get their item;
   * runs that failed or timed out within {@link RECONCILE_WINDOW_MS} get theirs (at most one per
   * run, ever); failures whose launch was retried meanwhile close. Call holding the lock.
   */
  private async reconcile(): Promise<void> {
    const { db, fleet } = this.deps;
    this.active.clear();
    const items = await db.inboxItem.findMany({ where: { state: { in: ["OPEN", "SNOOZED"] } } });
    for (const i of items) if (i.activeKey) this.active.set(i.activeKey, i.id);
    for (const i of items) {
      if ((i.kind !== "QUESTION" && i.kind !== "PLAN") || i.agentId === null) continue;
      const a = fleet.state.agent(i.agentId);
      const resolved = (reason: string) =>
        this.close(i, { resolution: "RESOLVED", actor: null, detail: reason, reason });
      if (!a || isEndedStatus(a.status)) {
        await resolved(`the run ended (${a?.status ?? "gone"})`);
        continue;
      }
      // Its stream says whether it still waits with what the item shows.
      const w = await this.waitingContext(i.agentId);
      if (i.kind === "QUESTION") {
        if (!w.waiting || w.plan !== null || questionBody(w.question) !== i.body) {
          await resolved("the agent resumed");
          continue;
        }
        if (w.lastTurn !== null) this.questionTurn.set(i.agentId, w.lastTurn);
        this.inputSeqAtOpen.set(i.id, w.inputSeq);
        continue;
      }
      if (w.plan === null) {
        // Input went to it since its plan.
        await resolved("the agent resumed");
        continue;
      }
      this.planTurn.set(i.agentId, w.plan.turnIndex);
      this.inputSeqAtOpen.set(i.id, w.inputSeq);
      if (w.waiting && w.lastTurn !== null) this.planBoundary.set(i.agentId, w.lastTurn);
    }
    for (const ws of fleet.registry.list()) {
      for (const a of fleet.state.agentsOf(ws.name)) {
        if (a.interactive && a.status === "idle") await this.onIdle(a.id);
      }
    }
    const since = new Date(this.clock.now() - RECONCILE_WINDOW_MS);
    const failed = await db.agent.findMany({
      where: {
        status: { in: ["failed", "crashed"] },
        // When it ended (a crash seen without its stream's end has no finishedAt: its last change).
        OR: [{ finishedAt: { gte: since } }, { finishedAt: null, updatedAt: { gte: since } }],
      },
      select: { id: true },
    });
    for (const a of failed) {
      if (this.active.has(runKey(a.id))) continue;
      // A launch not settled yet opens its item through its FAILED transition (the queue's recovery).
      if ((await this.queueVerdict(a.id)) !== "open") continue;
      await this.openRunFailed(a.id, null);
    }
    const timedOut = await db.launch.findMany({
      where: { state: "TIMED_OUT", finishedAt: { gte: since }, agentId: { not: null } },
      select: { id: true, agentId: true, reason: true },
    });
    for (const l of timedOut) {
      const item = await db.inboxItem.findFirst({
        where: { kind: "RUN_FAILED", agentId: l.agentId! },
        select: { id: true },
      });
      if (!item) await this.openRunFailed(l.agentId!, { launchId: l.id, reason: l.reason ?? "timed out" });
    }
    for (const i of items) {
      if (i.kind !== "RUN_FAILED" || i.agentId === null || !this.active.has(runKey(i.agentId))) continue;
      const why = await this.retried(i.agentId);
      if (why) await this.close(i, { resolution: "RESOLVED", actor: null, detail: why, reason: why });
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Actions of people
  // ----------------------------------------------------------------------------------------------

  /** Send `text` to the agent of a QUESTION or PLAN item, then close it `resolution`. */
  private async sendAndClose(
    id: string,
    text: string,
    actor: string,
    resolution: "ANSWERED" | "APPROVED",
  ): Promise<InboxItem> {
    const item = await this.exclusive(async () => {
      const it = await this.openItem(id);
      if (resolution === "APPROVED" && it.kind !== "PLAN")
        throw new InvalidState(
          `inbox item ${id} is a ${it.kind} item: only a PLAN can be approved${it.kind === "QUESTION" ? " (answer it instead)" : ""}`,
        );
      if (it.kind !== "QUESTION" && it.kind !== "PLAN")
        throw new InvalidState(
          `inbox item ${id} is a ${it.kind} item: it takes no answer (acknowledge or dismiss it)`,
        );
      const a = it.agentId === null ? undefined : this.deps.fleet.state.agent(it.agentId);
      if (!a || isEndedStatus(a.status))
        throw new InvalidState(
          `the agent of inbox item ${id} no longer waits for input (${a ? `its run ended ${a.status}` : "its run is gone"})`,
          a?.status ?? null,
        );
      this.answering.add(id);
      return it;
    });
    try {
      try {
        await this.deps.fleet.lifecycle.sendInput(item.agentId!, text);
      } catch (err) {
        // The run went away between our look and the send: not an unknown item, a stale one.
        if (err instanceof NotFound || err instanceof AgentNotFound)
          throw new InvalidState(`the agent of inbox item ${id} no longer waits for input (its run is gone)`);
        throw err;
      }
      return await this.exclusive(async () => {
        const cur = await this.deps.db.inboxItem.findUnique({ where: { id } });
        // Closed meanwhile (only a retention prune could): the input went out all the same.
        if (!cur || cur.state === "CLOSED") return cur ?? item;
        const closed = await this.close(cur, {
          resolution,
          actor,
          detail: boundChars(sanitize(text), DETAIL_MAX_CHARS),
          reason: null,
        });
        // Its answer to the input may be complete already (its events were not acted on meanwhile).
        if (this.deps.fleet.state.agent(item.agentId!)?.status === "idle") await this.onIdle(item.agentId!);
        return closed;
      });
    } finally {
      this.answering.delete(id);
    }
  }

  private closeByPerson(id: string, how: Closing): Promise<InboxItem> {
    return this.exclusive(async () => this.close(await this.openItem(id), how));
  }

  /**
   * The item `id`, which must not be closed and have no answer on its way.
   * @throws NotFound, InvalidState.
   */
  private async openItem(id: string): Promise<InboxItem> {
    const item = await this.deps.db.inboxItem.findUnique({ where: { id } });
    if (!item) throw new NotFound("inbox item", id);
    if (item.state === "CLOSED")
      throw new InvalidState(
        `inbox item ${id} is already closed (${item.resolution ?? "CLOSED"}${item.closedBy ? ` by ${item.closedBy}` : ""})`,
      );
    if (this.answering.has(id))
      throw new InvalidState(`an answer to inbox item ${id} is being sent to its agent`);
    return item;
  }

  // ----------------------------------------------------------------------------------------------
  // Timer: snooze ends and escalations
  // ----------------------------------------------------------------------------------------------

  /** Arm the one timer for the earliest snooze end or escalation. Call holding the lock. */
  private async rearm(): Promise<void> {
    if (this.stopped) return;
    const { db } = this.deps;
    const snoozed = await db.inboxItem.findFirst({
      where: { state: "SNOOZED" },
      orderBy: { snoozedUntil: "asc" },
      select: { snoozedUntil: true },
    });
    const after = this.deps.escalateAfterMs;
    const oldest =
      after > 0
        ? await db.inboxItem.findFirst({
            where: { state: "OPEN" },
            orderBy: { lastNotifiedAt: "asc" },
            select: { lastNotifiedAt: true },
          })
        : null;
    const due = Math.min(
      snoozed?.snoozedUntil?.getTime() ?? Infinity,
      oldest ? oldest.lastNotifiedAt.getTime() + after : Infinity,
    );
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    if (due === Infinity) return;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        void this.exclusive(() => this.runDue()).catch((err: unknown) =>
          this.log.error({ err }, "inbox: reopening or escalating items failed"),
        );
      },
      Math.max(0, due - this.clock.now()),
    );
  }

  /** Reopen items whose snooze ended; escalate items open longer than the escalation time. */
  private async runDue(): Promise<void> {
    if (this.stopped) return;
    this.dirty = true; // the timer fired: arm the next one

    const { db } = this.deps;
    const now = new Date(this.clock.now());
    for (const i of await db.inboxItem.findMany({
      where: { state: "SNOOZED", snoozedUntil: { lte: now } },
    })) {
      await this.commit(
        i,
        (d) => [
          d.inboxItem.update({
            where: { id: i.id },
            data: {
              state: "OPEN",
              snoozedUntil: null,
              updatedAt: now,
              lastNotifiedAt: now,
              actions: { create: { action: "REOPENED", actor: null, detail: "the snooze ended", at: now } },
            },
          }),
        ],
        "REOPENED",
      );
    }
    const after = this.deps.escalateAfterMs;
    if (after <= 0) return;
    const stale = await db.inboxItem.findMany({
      where: { state: "OPEN", lastNotifiedAt: { lte: new Date(now.getTime() - after) } },
    });
    for (const i of stale) {
      await this.commit(
        i,
        (d) => [
          d.inboxItem.update({
            where: { id: i.id },
            data: {
              escalations: { increment: 1 },
              lastNotifiedAt: now,
              updatedAt: now,
              actions: {
                create: {
                  action: "ESCALATED",
                  actor: null,
                  detail: `open since ${i.openedAt.toISOString()}`,
                  at: now,
                },
              },
            },
          }),
        ],
        "ESCALATED",
      );
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Writes
  // ----------------------------------------------------------------------------------------------

  /** Run `fn` holding the lock, then re-arm the timer when items changed. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.runExclusive(async () => {
      try {
        return await fn();
      } finally {
        if (this.dirty) {
          this.dirty = false;
          await this.rearm().catch((err: unknown) =>
            this.log.error({ err }, "inbox: arming the timer failed"),
          );
        }
      }
    });
  }

  /** The item not CLOSED under `key`, or null. */
  private async activeItem(key: string): Promise<InboxItem | null> {
    const id = this.active.get(key);
    if (!id) return null;
    const item = await this.deps.db.inboxItem.findUnique({ where: { id } });
    if (item && item.state !== "CLOSED") return item;
    this.active.delete(key);
    return null;
  }

  /** Commit `ops` through the store's single writer (ARCHITECTURE decision 7). */
  private async write(ops: (db: PrismaClient) => PendingOp[]): Promise<void> {
    this.dirty = true;
    await this.deps.store.append([], { onFailure: "throw", extra: ops });
  }

  /** Open a new item (OPENED action) under `key`; notified as inbox.opened (+ kind-specific). */
  private async open(
    o: {
      kind: InboxKind;
      key: string;
      workspace: string | null;
      agentId: string | null;
      launchId: string | null;
      check: string | null;
      subject: string | null;
      title: string;
      body: string;
      /** What opened it (the OPENED action's detail). */
      detail: string;
    },
    extra: Record<string, NotificationValue> = {},
  ): Promise<InboxItem> {
    const id = newId();
    const at = new Date(this.clock.now());
    const data = {
      id,
      kind: o.kind,
      state: "OPEN",
      workspace: o.workspace,
      agentId: o.agentId,
      launchId: o.launchId,
      check: o.check,
      subject: o.subject,
      title: o.title,
      body: o.body,
      activeKey: o.key,
      openedAt: at,
      updatedAt: at,
      lastNotifiedAt: at,
      actions: { create: { action: "OPENED", actor: null, detail: o.detail, at } },
    };
    await this.write((db) => [db.inboxItem.create({ data })]);
    this.active.set(o.key, id);
    return this.committed(id, "OPENED", extra);
  }

  /** Close `item` (state CLOSED, activeKey NULL) with its closing action; notified as inbox.closed. */
  private close(item: InboxItem, how: Closing): Promise<InboxItem> {
    const at = new Date(this.clock.now());
    return this.commit(
      item,
      (db) => [
        db.inboxItem.update({
          where: { id: item.id },
          data: {
            state: "CLOSED",
            activeKey: null,
            snoozedUntil: null,
            closedAt: at,
            resolution: how.resolution,
            closedBy: how.actor,
            closeReason: how.reason,
            updatedAt: at,
            actions: { create: { action: how.resolution, actor: how.actor, detail: how.detail, at } },
          },
        }),
      ],
      "CLOSED",
      how.extra,
    );
  }

  /** Commit a change of `item`, then keep `active` in step and tell listeners and the notifier. */
  private async commit(
    item: InboxItem,
    ops: (db: PrismaClient) => PendingOp[],
    change: InboxChangeKind,
    extra: Record<string, NotificationValue> = {},
  ): Promise<InboxItem> {
    await this.write(ops);
    if (change === "CLOSED" && item.activeKey) {
      this.active.delete(item.activeKey);
      this.inputSeqAtOpen.delete(item.id);
      if (item.agentId !== null) {
        if (item.kind === "QUESTION") this.questionTurn.delete(item.agentId);
        if (item.kind === "PLAN") {
          this.planTurn.delete(item.agentId);
          this.planBoundary.delete(item.agentId);
        }
      }
    }
    return this.committed(item.id, change, extra);
  }

  /** After a commit: read the item and its last action back, tell listeners, send notifications. */
  private async committed(
    id: string,
    change: InboxChangeKind,
    extra: Record<string, NotificationValue>,
  ): Promise<InboxItem> {
    const { db } = this.deps;
    const item = await db.inboxItem.findUniqueOrThrow({ where: { id } });
    // Writes of items are serialised by the lock: the newest action is the one just written.
    const action = await db.inboxAction.findFirst({ where: { itemId: id }, orderBy: { id: "desc" } });
    for (const l of [...this.listeners]) {
      try {
        l({ change, item });
      } catch (err) {
        this.log.error({ err, item: id }, "an inbox change listener failed");
      }
    }
    if (action) for (const n of notificationsFor(item, action, extra)) this.deps.notifier.emit(n);
    return item;
  }
}

/** The OPENED detail of a PLAN: names the tool call, so a plan is never opened twice. */
function planDetail(plan: { toolUseId: string; turnIndex: number }): string {
  return `plan shared by tool call ${plan.toolUseId} (turn ${plan.turnIndex})`;
}

/** A stored payload of `kind`, or null when it does not parse (an old or corrupt row). */
function safePayload<K extends EventKind>(kind: K, payload: unknown): PayloadOf<K> | null {
  try {
    return parsePayload(kind, payload);
  } catch {
    return null;
  }
}
