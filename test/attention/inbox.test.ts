/**
 * The operator inbox (issue 15 item 1) over a real fleet: a real SQLite store, the bus, the poller
 * and ingest, and the caliband test double's scripted workers on real sockets. Each kind is
 * produced by a scripted agent and closed by its answer (or by itself); snoozes and escalations run
 * on a hand-driven clock; a restart over the same data dir keeps every item once.
 */
import { describe, expect, it } from "vitest";
import { InboxService } from "../../src/attention/inbox.js";
import { Notifier } from "../../src/attention/notify.js";
import type { InboxChange, Notification } from "../../src/attention/types.js";
import type { InboxItem } from "../../src/generated/prisma/client.js";
import { silentLogger } from "../../src/log.js";
import type { Clock } from "../../src/queue/clock.js";
import { NO_RETRY, type LaunchRequest } from "../../src/queue/types.js";
import { startAppHarness } from "../helpers/app-harness.js";
import { onCleanup } from "../helpers/cleanup.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";
import { ManualClock } from "../helpers/manual-clock.js";
import { FAKE_PLAN, FAKE_PLAN_ASK, FAKE_QUESTION } from "../support/fake-scripts.js";

interface Rig {
  d: DaemonFixture;
  h: FleetHarness;
  inbox: InboxService;
  notes: Notification[];
  changes: InboxChange[];
  /** Start another inbox over the same fleet (after `inbox.stop()`). */
  restartInbox(): Promise<InboxService>;
}

async function rig(opts: { clock?: Clock; escalateAfterMs?: number } = {}): Promise<Rig> {
  const d = await startDaemon();
  onCleanup(() => d.close());
  const h = await startFleet({ runtimeDir: d.ws.runtime });
  onCleanup(() => h.close());
  await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  const notes: Notification[] = [];
  const changes: InboxChange[] = [];
  const make = async (fleet: FleetHarness): Promise<InboxService> => {
    const notifier = new Notifier(silentLogger);
    notifier.on((n) => notes.push(n));
    const inbox = new InboxService({
      db: fleet.db.prisma,
      bus: fleet.bus,
      store: fleet.store,
      fleet: fleet.fleet,
      notifier,
      log: silentLogger,
      ...(opts.clock ? { clock: opts.clock } : {}),
      escalateAfterMs: opts.escalateAfterMs ?? 0,
    });
    inbox.onChange((c) => changes.push(c));
    await inbox.start();
    onCleanup(() => inbox.stop());
    return inbox;
  };
  const r: Rig = {
    d,
    h,
    inbox: await make(h),
    notes,
    changes,
    restartInbox: async () => (r.inbox = await make(r.h)),
  };
  return r;
}

const items = (r: Rig, where: Record<string, unknown> = {}) =>
  r.h.db.prisma.inboxItem.findMany({
    where,
    orderBy: { openedAt: "asc" },
    include: { actions: { orderBy: { id: "asc" } } },
  });

/** Wait for the one item matching `where`. */
async function item(
  r: Rig,
  where: Record<string, unknown>,
  what: string,
  timeoutMs = 15_000,
): Promise<InboxItem> {
  return waitFor(
    async () => {
      const found = await r.h.db.prisma.inboxItem.findMany({ where });
      return found.length === 1 ? found[0] : null;
    },
    timeoutMs,
    what,
  );
}

const spawn = (r: Rig, prompt: string, interactive = false) =>
  r.h.fleet.lifecycle
    .spawn({ workspace: "demo", prompt, interactive, isolated: false })
    .then((s) => s.agent.id);

/** The texts of an agent's stored output events, joined. */
async function agentText(r: Rig, agentId: string): Promise<string> {
  const rows = await r.h.db.prisma.event.findMany({
    where: { agentId, kind: "output" },
    orderBy: { seq: "asc" },
  });
  return rows.map((e) => (e.payload as { text: string }).text).join("");
}

describe("QUESTION: an interactive agent waiting after a turn", () => {
  it("opens with its last assistant message; the answer reaches the agent, it resumes, and the item is ANSWERED", async () => {
    const r = await rig();
    const id = await spawn(r, "Look at the README, then ask me. fake:ask", true);
    const q = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the question");
    expect(q.body).toBe(FAKE_QUESTION);
    expect(q.title).toBe(
      `agent-${id} in demo waits for input: Should I also add a section on running the tests?`,
    );
    expect(q).toMatchObject({
      workspace: "demo",
      activeKey: `question:${id}`,
      escalations: 0,
      launchId: null,
    });
    const opened = await r.h.db.prisma.inboxAction.findFirstOrThrow({ where: { itemId: q.id } });
    await waitFor(() => r.notes.some((n) => n.type === "inbox.opened"), 5_000, "inbox.opened");
    expect(r.notes.find((n) => n.type === "inbox.opened")).toMatchObject({
      id: `inbox.opened:${q.id}:${opened.id}`,
      workspace: "demo",
      agentId: id,
      inboxItemId: q.id,
      title: q.title,
      message: FAKE_QUESTION,
      data: { kind: "QUESTION", reopened: false },
    });

    const answered = await r.inbox.answer(q.id, "Yes, add it", "alice");
    expect(answered).toMatchObject({
      state: "CLOSED",
      resolution: "ANSWERED",
      closedBy: "alice",
      activeKey: null,
    });
    await waitFor(
      async () => (await agentText(r, id)).includes("You said: Yes, add it"),
      10_000,
      "the agent's answer",
    );
    const sent = await r.h.db.prisma.event.findMany({ where: { agentId: id, kind: "input_sent" } });
    expect(sent.map((e) => (e.payload as { text: string }).text)).toEqual(["Yes, add it"]);
    const rows = await items(r, { id: q.id });
    expect(rows[0]!.actions.map((a) => [a.action, a.actor, a.detail])).toEqual([
      ["OPENED", null, "idle after turn 1"],
      ["ANSWERED", "alice", "Yes, add it"],
    ]);
    // It answered and waits again: a new question, its body the new last message.
    const next = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the next question");
    expect(next.id).not.toBe(q.id);
    expect(next.body).toBe("You said: Yes, add it");
    const closedNote = r.notes.find((n) => n.type === "inbox.closed" && n.inboxItemId === q.id);
    expect(closedNote).toMatchObject({
      title: `Answered: ${q.title}`,
      data: { resolution: "ANSWERED", closedBy: "alice" },
    });
    expect(r.changes.filter((c) => c.item.id === q.id).map((c) => c.change)).toEqual(["OPENED", "CLOSED"]);
  }, 40_000);

  it("answering a closed item is InvalidState and changes nothing; bad input is ValidationFailed", async () => {
    const r = await rig();
    const id = await spawn(r, "hello fake:ask", true);
    const q = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the question");
    await expect(r.inbox.answer(q.id, "   ", "alice")).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: ["text"], message: "must not be empty" }],
    });
    await expect(r.inbox.answer(q.id, "x".repeat(100_001), "alice")).rejects.toMatchObject({
      issues: [{ path: ["text"] }],
    });
    await expect(r.inbox.snooze(q.id, Date.now() - 1, "alice")).rejects.toMatchObject({
      issues: [{ path: ["until"], message: "must be in the future" }],
    });
    await expect(r.inbox.approve(q.id, "alice")).rejects.toMatchObject({
      code: "INVALID_STATE",
      message: expect.stringMatching(/only a PLAN can be approved/),
    });
    expect((await items(r, { id: q.id }))[0]!.actions).toHaveLength(1);
    await r.inbox.dismiss(q.id, "bob");
    const before = await items(r, { id: q.id });
    await expect(r.inbox.answer(q.id, "too late", "alice")).rejects.toMatchObject({
      code: "INVALID_STATE",
      message: `inbox item ${q.id} is already closed (DISMISSED by bob)`,
    });
    await expect(r.inbox.acknowledge(q.id, "alice")).rejects.toMatchObject({ code: "INVALID_STATE" });
    await expect(r.inbox.snooze(q.id, Date.now() + 60_000, "alice")).rejects.toMatchObject({
      code: "INVALID_STATE",
    });
    await expect(r.inbox.answer("0123456789ab", "hi", "alice")).rejects.toMatchObject({
      code: "NOT_FOUND",
      entity: "inbox item",
    });
    expect(await items(r, { id: q.id })).toEqual(before);
    expect(await r.h.db.prisma.event.count({ where: { agentId: id, kind: "input_sent" } })).toBe(0);
  }, 30_000);

  it("an answer its daemon cannot take is the input path's error, and the item stays open", async () => {
    const r = await rig();
    const id = await spawn(r, "hello fake:ask", true);
    const q = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the question");
    await r.d.daemon.shutdown(); // the control socket is gone; the worker keeps waiting
    await expect(r.inbox.answer(q.id, "are you there?", "alice")).rejects.toMatchObject({
      code: "UNREACHABLE",
    });
    const after = await items(r, { id: q.id });
    expect(after[0]).toMatchObject({ state: "OPEN", resolution: null, activeKey: `question:${id}` });
    expect(after[0]!.actions.map((a) => a.action)).toEqual(["OPENED"]);
    // Not stuck "being answered": acting on it works.
    expect(await r.inbox.dismiss(q.id, "alice")).toMatchObject({ resolution: "DISMISSED" });
  }, 30_000);

  it("closes by itself when the agent resumes on input sent elsewhere, and when its run ends", async () => {
    const r = await rig();
    const id = await spawn(r, "hello fake:ask", true);
    const q = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the question");
    await r.h.fleet.lifecycle.sendInput(id, "from the CLI");
    const resumed = await item(r, { id: q.id, state: "CLOSED" }, "the question closed");
    expect(resumed).toMatchObject({
      resolution: "RESOLVED",
      closedBy: null,
      closeReason: "the agent resumed",
    });
    const next = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the next question");
    expect(next.body).toBe("You said: from the CLI");
    await r.h.fleet.lifecycle.endInput(id);
    const ended = await item(r, { id: next.id, state: "CLOSED" }, "closed at the run's end");
    expect(ended).toMatchObject({ resolution: "RESOLVED", closeReason: "the run ended (done)" });
    // A clean end opens nothing else.
    expect(await r.h.db.prisma.inboxItem.count({ where: { agentId: id, state: { not: "CLOSED" } } })).toBe(0);
    expect(await r.inbox.openCount(null)).toBe(0);
  }, 40_000);
});

describe("PLAN: an agent that shared a plan", () => {
  it("opens with the plan (no QUESTION beside it); approve sends the approval, it resumes, and the item is APPROVED", async () => {
    const r = await rig();
    const id = await spawn(r, "Improve the docs. fake:plan", true);
    const p = await item(r, { kind: "PLAN", agentId: id }, "the plan");
    expect(p).toMatchObject({
      state: "OPEN",
      body: FAKE_PLAN,
      title: `agent-${id} in demo shared a plan and waits for approval`,
      activeKey: `plan:${id}`,
    });
    await waitFor(() => r.h.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
    // It waits with the plan: the turn asking "Shall I go ahead?" is not a second item.
    await waitFor(async () => (await agentText(r, id)).includes(FAKE_PLAN_ASK), 5_000, "its ask");
    await spawnAndSettle(r);
    expect(await r.h.db.prisma.inboxItem.count({ where: { agentId: id } })).toBe(1);

    const approved = await r.inbox.approve(p.id, "alice");
    expect(approved).toMatchObject({ state: "CLOSED", resolution: "APPROVED", closedBy: "alice" });
    await waitFor(
      async () => (await agentText(r, id)).includes("You said: The plan is approved. Go ahead."),
      10_000,
      "the agent went ahead",
    );
    const next = await item(r, { kind: "QUESTION", agentId: id, state: "OPEN" }, "the question after");
    expect(next.body).toBe("You said: The plan is approved. Go ahead.");
    expect((await items(r, { id: p.id }))[0]!.actions.map((a) => [a.action, a.detail])).toEqual([
      ["OPENED", expect.stringMatching(/^plan shared by tool call toolu_fake_/)],
      ["APPROVED", "The plan is approved. Go ahead."],
    ]);
  }, 40_000);

  it("answer sends changes (ANSWERED); a non-interactive agent's plan opens nothing; a failure takes no answer", async () => {
    const r = await rig();
    const id = await spawn(r, "Plan it. fake:plan", true);
    const p = await item(r, { kind: "PLAN", agentId: id }, "the plan");
    const changed = await r.inbox.answer(p.id, "Skip step 3", "carol");
    expect(changed).toMatchObject({ resolution: "ANSWERED", closedBy: "carol" });
    await waitFor(async () => (await agentText(r, id)).includes("You said: Skip step 3"), 10_000, "changes");

    const batch = await spawn(r, "Plan it headless. fake:plan");
    await waitFor(() => r.h.fleet.state.agent(batch)?.status === "done", 10_000, "done");
    const failed = await spawn(r, "bad key fake:provider-error=401");
    const f = await item(r, { kind: "RUN_FAILED", agentId: failed }, "the failure");
    expect(await r.h.db.prisma.inboxItem.count({ where: { agentId: batch } })).toBe(0);
    await expect(r.inbox.answer(f.id, "retry", "carol")).rejects.toMatchObject({
      code: "INVALID_STATE",
      message: `inbox item ${f.id} is a RUN_FAILED item: it takes no answer (acknowledge or dismiss it)`,
    });
  }, 40_000);
});

/** Spawn a failing run and wait for its item: every event committed before it has been handled. */
async function spawnAndSettle(r: Rig): Promise<void> {
  const id = await spawn(r, `sync point ${Math.random()} fake:exit=3`);
  await item(r, { kind: "RUN_FAILED", agentId: id }, "the sync point's failure");
}

describe("RUN_FAILED: a run that failed, crashed or timed out", () => {
  it("opens with the failure reason and sends run.failed; acknowledge closes it", async () => {
    const r = await rig();
    const id = await spawn(r, "bad key fake:provider-error=401");
    const f = await item(r, { kind: "RUN_FAILED", agentId: id }, "the failure");
    expect(f.title).toBe(
      `Run agent-${id} in demo failed: 401 Unauthorized: authentication_error: invalid x-api-key`,
    );
    expect(f.body).toMatch(
      /^The run ended failed \(ProviderError: 401 Unauthorized: authentication_error: invalid x-api-key\), exit code 1\./,
    );
    expect(f.body).toContain("run ended: provider error: 401 Unauthorized");
    await waitFor(() => r.notes.some((n) => n.type === "run.failed"), 5_000, "run.failed");
    const opened = await r.h.db.prisma.inboxAction.findFirstOrThrow({ where: { itemId: f.id } });
    expect(r.notes.find((n) => n.type === "run.failed")).toMatchObject({
      id: `run.failed:${f.id}:${opened.id}`,
      agentId: id,
      data: { kind: "RUN_FAILED", status: "failed", outcome: "ProviderError", exitCode: 1 },
    });
    const acked = await r.inbox.acknowledge(f.id, "alice");
    expect(acked).toMatchObject({ state: "CLOSED", resolution: "ACKNOWLEDGED", closedBy: "alice" });
    expect(r.notes.filter((n) => n.inboxItemId === f.id).map((n) => n.type)).toEqual([
      "inbox.opened",
      "run.failed",
      "inbox.closed",
    ]);

    const exited = await spawn(r, "no luck fake:exit=3");
    const e = await item(r, { kind: "RUN_FAILED", agentId: exited }, "the exit failure");
    expect(e.title).toBe(`Run agent-${exited} in demo failed`);
    expect(e.body).toMatch(/^The run ended failed\.\n\nLast lines of worker\.log:\n/);
  }, 30_000);

  it("a run killed by an operator opens nothing", async () => {
    const r = await rig();
    const id = await spawn(r, "long fake:hold=60000");
    await waitFor(() => r.h.fleet.state.agent(id)?.status === "running", 10_000, "running");
    await r.h.fleet.lifecycle.kill(id);
    await spawnAndSettle(r);
    expect(await r.h.db.prisma.inboxItem.count({ where: { agentId: id } })).toBe(0);
  }, 30_000);

  it("a launch that timed out (app.queue) is a RUN_FAILED titled timed out, with run.timed_out", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    const notes: Notification[] = [];
    h.app.notifier.on((n) => notes.push(n));
    const { launch } = await h.app.queue.enqueue(request("slow fake:hold=60000", { timeoutMs: 1_000 }));
    const f = await waitFor(
      () => h.app.db.prisma.inboxItem.findFirst({ where: { kind: "RUN_FAILED", launchId: launch.id } }),
      20_000,
      "the timeout's item",
    );
    const l = await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: launch.id } });
    expect(l.state).toBe("TIMED_OUT");
    expect(f).toMatchObject({
      agentId: l.agentId,
      state: "OPEN",
      title: `Run agent-${l.agentId} in demo timed out`,
    });
    expect(f.body).toBe(`The launch timed out after 1000 ms: run ${l.agentId} was killed.`);
    await waitFor(() => notes.some((n) => n.type === "run.timed_out"), 5_000, "run.timed_out");
    expect(notes.filter((n) => n.inboxItemId === f.id).map((n) => n.type)).toEqual([
      "inbox.opened",
      "run.timed_out",
    ]);
    expect(await h.app.db.prisma.inboxItem.count({ where: { agentId: l.agentId } })).toBe(1);
  }, 40_000);

  it("a failed attempt that the queue retries opens nothing and notifies nobody; a launch that fails for good does", async () => {
    const h = await startAppHarness();
    onCleanup(() => h.close());
    const notes: Notification[] = [];
    h.app.notifier.on((n) => notes.push(n));
    const { launch } = await h.app.queue.enqueue(
      request(`flaky ${Math.random()} fake:provider-error=429 fake:fail-first=1`, {
        retry: { maxAttempts: 2, backoffMs: 200, maxBackoffMs: 1_000 },
      }),
    );
    const done = await waitFor(async () => {
      const l = await h.app.db.prisma.launch.findUniqueOrThrow({
        where: { id: launch.id },
        include: { attempts: true },
      });
      return l.state === "SUCCEEDED" ? l : null;
    }, 20_000);
    const first = done.attempts.find((a) => a.n === 1)!.agentId!;
    // The last launch's (below) item shows the inbox has seen everything before it.
    const { launch: bad } = await h.app.queue.enqueue(
      request(`broken ${Math.random()} fake:provider-error=401`, {
        retry: { maxAttempts: 3, backoffMs: 200, maxBackoffMs: 1_000 },
      }),
    );
    const f = await waitFor(
      () => h.app.db.prisma.inboxItem.findFirst({ where: { kind: "RUN_FAILED", launchId: bad.id } }),
      20_000,
      "the failed launch's item",
    );
    const failed = await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: bad.id } });
    expect(failed.state).toBe("FAILED");
    expect(f).toMatchObject({ state: "OPEN", agentId: failed.agentId });
    expect(f.body).toContain("401");
    await waitFor(() => notes.some((n) => n.type === "run.failed" && n.inboxItemId === f.id), 5_000);
    // The retried attempt: no item, no notification, at any time.
    expect(await h.app.db.prisma.inboxItem.count({ where: { agentId: first } })).toBe(0);
    expect(notes.filter((n) => n.agentId === first)).toEqual([]);
    expect(await h.app.inbox.openCount(null)).toBe(1);
  }, 40_000);
});

function request(prompt: string, over: Partial<LaunchRequest> = {}): LaunchRequest {
  return {
    spec: { workspace: "demo", prompt, isolated: false },
    dedupKey: null,
    priority: 50,
    notBeforeMs: null,
    timeoutMs: null,
    retry: NO_RETRY,
    scheduleId: null,
    createdBy: "test",
    ...over,
  };
}

describe("ALERT: raised and cleared by the monitor", () => {
  const alert = {
    check: "daemon_unreachable",
    subject: "demo",
    workspace: "demo",
    agentId: null,
    title: "Daemon of workspace demo unreachable",
    message: "daemon of workspace demo unreachable for 3 min (threshold 1 min): connect ECONNREFUSED",
  };

  it("raise opens once (idempotent), a new message updates it, clear resolves it", async () => {
    const r = await rig();
    const a = await r.inbox.raiseAlert(alert);
    expect(a).toMatchObject({
      kind: "ALERT",
      state: "OPEN",
      check: "daemon_unreachable",
      subject: "demo",
      activeKey: "alert:daemon_unreachable:demo",
      body: alert.message,
    });
    expect(await r.inbox.raiseAlert(alert)).toEqual(a);
    const updated = await r.inbox.raiseAlert({ ...alert, message: "unreachable for 5 min" });
    expect(updated).toMatchObject({ id: a.id, body: "unreachable for 5 min" });
    expect(r.notes.map((n) => n.type)).toEqual(["inbox.opened", "alert.opened"]);
    const fleetWide = await r.inbox.raiseAlert({
      ...alert,
      check: "data_disk_free",
      subject: null,
      workspace: null,
      title: "Data disk low",
    });
    expect(fleetWide).toMatchObject({ workspace: null, activeKey: "alert:data_disk_free:*" });
    expect(await r.inbox.openCount(null)).toBe(2);
    expect(await r.inbox.openCount(["demo"])).toBe(1);
    expect(await r.inbox.openCount(["other"])).toBe(0);

    const cleared = await r.inbox.clearAlert(
      "daemon_unreachable",
      "demo",
      "daemon of workspace demo reachable again",
    );
    expect(cleared).toMatchObject({
      id: a.id,
      state: "CLOSED",
      resolution: "RESOLVED",
      closeReason: "daemon of workspace demo reachable again",
      closedBy: null,
    });
    const resolved = r.notes.filter((n) => n.inboxItemId === a.id).map((n) => n.type);
    expect(resolved).toEqual(["inbox.opened", "alert.opened", "inbox.closed", "alert.resolved"]);
    const actions = (await items(r, { id: a.id }))[0]!.actions.map((x) => x.action);
    expect(actions).toEqual(["OPENED", "UPDATED", "RESOLVED"]);
    expect(r.changes.filter((c) => c.item.id === a.id).map((c) => c.change)).toEqual([
      "OPENED",
      "UPDATED",
      "CLOSED",
    ]);
    expect(await r.inbox.clearAlert("daemon_unreachable", "demo", "again")).toBeNull();
    // Raised again later: a new item (the old one stays history).
    const again = await r.inbox.raiseAlert(alert);
    expect(again.id).not.toBe(a.id);
    expect(await r.inbox.countsByKindState()).toEqual(
      expect.arrayContaining([
        { kind: "ALERT", state: "OPEN", count: 2 },
        { kind: "ALERT", state: "CLOSED", count: 1 },
      ]),
    );
    await expect(r.inbox.raiseAlert({ ...alert, check: " " })).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
    });
  }, 20_000);

  it("raised many times at once, still one open item per check and subject", async () => {
    const r = await rig();
    const raised = await Promise.all(
      Array.from({ length: 20 }, (_, i) => r.inbox.raiseAlert({ ...alert, message: `try ${i % 2}` })),
    );
    expect(new Set(raised.map((a) => a.id)).size).toBe(1);
    expect(await r.h.db.prisma.inboxItem.count({ where: { kind: "ALERT" } })).toBe(1);
    expect(r.notes.filter((n) => n.type === "alert.opened")).toHaveLength(1);
  }, 20_000);
});

describe("schedule.skipped", () => {
  it("a skipped firing (a stored schedule_changed event) is notified with a stable id; other changes are not", async () => {
    const r = await rig();
    const change = (c: "skipped" | "fired", fireAtMs: number) =>
      r.h.store.append([
        {
          kind: "schedule_changed",
          workspace: "demo",
          agentId: "",
          tsMs: Date.now(),
          payload: {
            scheduleId: "5c5c5c5c5c5c",
            change: c,
            launchId: c === "fired" ? "0123456789ab" : null,
            fireAtMs,
            reason: c === "skipped" ? "overlap SKIP: the previous launch is still active" : null,
          },
        },
      ]);
    await change("fired", 1_700_000_000_000);
    await change("skipped", 1_700_000_060_000);
    await waitFor(() => r.notes.some((n) => n.type === "schedule.skipped"), 5_000, "schedule.skipped");
    expect(r.notes).toMatchObject([
      {
        id: "schedule.skipped:5c5c5c5c5c5c:1700000060000",
        type: "schedule.skipped",
        workspace: "demo",
        inboxItemId: null,
        message: "overlap SKIP: the previous launch is still active",
      },
    ]);
    expect(await r.h.db.prisma.inboxItem.count()).toBe(0);
  }, 20_000);
});

describe("retention", () => {
  it("prune deletes closed items closed before the cutoff, with their actions, and nothing open", async () => {
    const r = await rig();
    const open = await r.inbox.raiseAlert({
      check: "ingest_lag",
      subject: null,
      workspace: null,
      agentId: null,
      title: "a",
      message: "a",
    });
    const closed = await r.inbox.raiseAlert({
      check: "queue_wait",
      subject: null,
      workspace: null,
      agentId: null,
      title: "b",
      message: "b",
    });
    await r.inbox.acknowledge(closed.id, "alice");
    expect(await r.inbox.prune(new Date(Date.now() - 60_000))).toBe(0);
    expect(await r.inbox.prune(new Date(Date.now() + 60_000))).toBe(1);
    expect((await items(r)).map((i) => i.id)).toEqual([open.id]);
    expect(await r.h.db.prisma.inboxAction.count({ where: { itemId: closed.id } })).toBe(0);
    expect(await r.h.db.prisma.inboxAction.count({ where: { itemId: open.id } })).toBe(1);
  }, 20_000);
});

describe("snooze and escalation on an injected clock", () => {
  it("a snoozed item opens again when its snooze ends, notified again", async () => {
    const clock = new ManualClock(Date.now());
    const r = await rig({ clock });
    const a = await r.inbox.raiseAlert({
      check: "database_size",
      subject: null,
      workspace: null,
      agentId: null,
      title: "Database large",
      message: "12 GiB",
    });
    const until = clock.now() + 3_600_000;
    const s = await r.inbox.snooze(a.id, until, "alice");
    expect(s).toMatchObject({ state: "SNOOZED", snoozedUntil: new Date(until) });
    expect(await r.inbox.openCount(null)).toBe(0);
    expect(clock.pending()).toContain(until);
    clock.set(until - 1);
    clock.runDue();
    expect((await items(r, { id: a.id }))[0]!.state).toBe("SNOOZED");
    clock.set(until);
    clock.runDue();
    const reopened = await item(r, { id: a.id, state: "OPEN" }, "reopened");
    expect(reopened).toMatchObject({ snoozedUntil: null, lastNotifiedAt: new Date(until) });
    const actions = (await items(r, { id: a.id }))[0]!.actions;
    expect(actions.map((x) => [x.action, x.actor])).toEqual([
      ["OPENED", null],
      ["SNOOZED", "alice"],
      ["REOPENED", null],
    ]);
    expect(actions[1]!.detail).toBe(new Date(until).toISOString());
    const again = r.notes.filter((n) => n.type === "inbox.opened" && n.inboxItemId === a.id);
    expect(again.map((n) => [n.id, n.data["reopened"]])).toEqual([
      [`inbox.opened:${a.id}:${actions[0]!.id}`, false],
      [`inbox.opened:${a.id}:${actions[2]!.id}`, true],
    ]);
    expect(r.changes.map((c) => c.change)).toEqual(["OPENED", "SNOOZED", "REOPENED"]);
    await expect(r.inbox.snooze(a.id, clock.now() + 31 * 86_400_000, "alice")).rejects.toMatchObject({
      issues: [{ path: ["until"], message: "must be at most 30 days ahead" }],
    });
  }, 20_000);

  it("an item open longer than the escalation time is escalated and notified, once per period", async () => {
    const clock = new ManualClock(Date.now());
    const r = await rig({ clock, escalateAfterMs: 60_000 });
    const t0 = clock.now();
    const a = await r.inbox.raiseAlert({
      check: "queue_wait",
      subject: null,
      workspace: null,
      agentId: null,
      title: "Queue stuck",
      message: "oldest launch waits 20 min",
    });
    expect(clock.pending()).toEqual([t0 + 60_000]);
    clock.set(t0 + 59_999);
    clock.runDue();
    clock.set(t0 + 60_000);
    clock.runDue();
    const e1 = await item(r, { id: a.id, escalations: 1 }, "escalated once");
    expect(e1.lastNotifiedAt).toEqual(new Date(t0 + 60_000));
    const esc = r.notes.filter((n) => n.type === "inbox.escalated");
    const escAction = (await items(r, { id: a.id }))[0]!.actions.find((x) => x.action === "ESCALATED")!;
    expect(esc).toHaveLength(1);
    expect(esc[0]).toMatchObject({
      id: `inbox.escalated:${a.id}:${escAction.id}`,
      title: "Still open after 1 min: Queue stuck",
      data: { escalations: 1 },
    });
    await waitFor(() => clock.pending().includes(t0 + 120_000), 5_000, "the next period armed");
    clock.set(t0 + 120_000);
    clock.runDue();
    await item(r, { id: a.id, escalations: 2 }, "escalated twice");
    expect(r.notes.filter((n) => n.type === "inbox.escalated")).toHaveLength(2);
    // A closed item is not escalated.
    await r.inbox.acknowledge(a.id, "alice");
    expect(clock.pending().filter((t) => t > t0 + 120_000)).toEqual([]);
  }, 20_000);
});

describe("across a restart of the gateway", () => {
  it("keeps every item once, reconciles what happened while it was down, and reopens nothing acknowledged", async () => {
    const r = await rig();
    const waiting = await spawn(r, "hello fake:ask", true);
    const q = await item(r, { kind: "QUESTION", agentId: waiting, state: "OPEN" }, "the question");
    const failed = await spawn(r, "bad key fake:provider-error=401");
    const f = await item(r, { kind: "RUN_FAILED", agentId: failed }, "the failure");
    await r.inbox.acknowledge(f.id, "alice");
    const a = await r.inbox.raiseAlert({
      check: "ingest_lag",
      subject: null,
      workspace: null,
      agentId: null,
      title: "Ingest behind",
      message: "9 MiB",
    });
    const before = await items(r);

    // The inbox is down while a run fails and the waiting agent ends.
    await r.inbox.stop();
    const unseen = await spawn(r, "bad key 2 fake:provider-error=401");
    await waitFor(() => r.h.fleet.state.agent(unseen)?.status === "failed", 10_000, "failed unseen");
    await r.h.fleet.lifecycle.endInput(waiting);
    await waitFor(() => r.h.fleet.state.agent(waiting)?.status === "done", 10_000, "done unseen");
    await r.restartInbox();
    const after = await items(r);
    expect(after.find((i) => i.id === q.id)).toMatchObject({
      state: "CLOSED",
      closeReason: "the run ended (done)",
    });
    expect(after.find((i) => i.id === f.id)).toMatchObject({ state: "CLOSED", resolution: "ACKNOWLEDGED" });
    expect(after.find((i) => i.id === a.id)).toEqual(before.find((i) => i.id === a.id));
    expect(after.filter((i) => i.agentId === unseen)).toMatchObject([{ kind: "RUN_FAILED", state: "OPEN" }]);
    expect(after).toHaveLength(before.length + 1);

    // The whole gateway again (a new fleet over the same data dir): nothing duplicated.
    const idle = await spawn(r, "still here fake:ask", true);
    await item(r, { kind: "QUESTION", agentId: idle, state: "OPEN" }, "the second question");
    const snapshot = await items(r);
    await r.inbox.stop();
    await r.h.stopFleet();
    const h2 = await startFleet({ runtimeDir: r.d.ws.runtime, dataDir: r.h.dataDir });
    onCleanup(() => h2.close());
    r.h = h2;
    await r.restartInbox();
    await waitFor(() => h2.fleet.state.agent(idle)?.status === "idle", 10_000, "idle after restart");
    const again = await items(r);
    expect(again.map((i) => [i.id, i.state, i.activeKey])).toEqual(
      snapshot.map((i) => [i.id, i.state, i.activeKey]),
    );
    const keys = again.filter((i) => i.activeKey !== null).map((i) => i.activeKey);
    expect(new Set(keys).size).toBe(keys.length);
  }, 60_000);
});
