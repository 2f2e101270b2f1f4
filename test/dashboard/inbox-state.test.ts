/** The dashboard's inbox state (pure logic, no browser): snapshots merged with live changes and actions. */
import { describe, expect, it } from "vitest";
import type {
  InboxChangeKind,
  InboxItem,
  InboxItemState,
  InboxSnapshot,
} from "../../dashboard/src/api/types.js";
import { InboxRefresher, InboxState, type InboxUpdate } from "../../dashboard/src/state/inbox.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function item(id: string, state: InboxItemState, updated: number, extra: Partial<InboxItem> = {}): InboxItem {
  return {
    id: `I${id}`,
    itemId: id,
    kind: "QUESTION",
    state,
    workspace: { name: "demo" },
    agent: { agentId: `a${id}`, name: `agent-${id}`, status: "IDLE" },
    launch: null,
    title: `question ${id}`,
    body: "Shall I?",
    answerHint: "Send input to the agent",
    canAnswer: state !== "CLOSED",
    canApprove: false,
    check: null,
    subject: null,
    openedAt: at(Number.parseInt(id, 16) % 60),
    updatedAt: at(updated),
    snoozedUntil: state === "SNOOZED" ? at(updated + 3600) : null,
    closedAt: state === "CLOSED" ? at(updated) : null,
    resolution: state === "CLOSED" ? "ANSWERED" : null,
    closedBy: state === "CLOSED" ? "alice" : null,
    closeReason: null,
    escalations: 0,
    ...extra,
  };
}

function snapshot(items: InboxItem[], openCount: number, totalCount = items.length): InboxSnapshot {
  return { inbox: { totalCount, openCount, edges: items.map((node) => ({ node })) } };
}

const change = (c: InboxChangeKind, i: InboxItem, openCount: number) => ({ change: c, item: i, openCount });

/** The state with its updates recorded. */
function recorded(): { state: InboxState; updates: InboxUpdate[] } {
  const state = new InboxState();
  const updates: InboxUpdate[] = [];
  state.onChange((u) => updates.push(u));
  return { state, updates };
}

const ids = (items: InboxItem[]) => items.map((i) => i.itemId);

describe("InboxState", () => {
  it("a snapshot lists open items newest first and snoozed ones by wake time; the badge is its openCount", () => {
    const { state, updates } = recorded();
    expect(state.loaded).toBe(false);
    state.replace(
      snapshot(
        [
          item("000000000001", "OPEN", 1),
          item("000000000003", "OPEN", 3),
          item("000000000002", "SNOOZED", 20),
          item("000000000004", "SNOOZED", 10),
        ],
        2,
      ),
      state.mark(),
    );
    expect(state.loaded).toBe(true);
    expect(ids(state.open())).toEqual(["000000000003", "000000000001"]);
    expect(ids(state.snoozed())).toEqual(["000000000004", "000000000002"]);
    expect(state.openCount).toBe(2);
    expect(state.totalCount).toBe(4);
    expect(updates).toEqual([{ type: "snapshot" }]);
  });

  it("live changes add, update and remove items; each one's openCount drives the badge", () => {
    const { state, updates } = recorded();
    state.replace(snapshot([], 0), state.mark());
    const a = item("00000000000a", "OPEN", 1);
    state.applyChange(change("OPENED", a, 1));
    expect(ids(state.open())).toEqual(["00000000000a"]);
    expect(state.openCount).toBe(1);
    state.applyChange(change("UPDATED", { ...a, body: "new body", updatedAt: at(2) }, 1));
    expect(state.items.get(a.itemId)?.body).toBe("new body");
    state.applyChange(change("SNOOZED", item("00000000000a", "SNOOZED", 3), 0));
    expect(ids(state.open())).toEqual([]);
    expect(ids(state.snoozed())).toEqual(["00000000000a"]);
    expect(state.openCount).toBe(0);
    state.applyChange(change("REOPENED", item("00000000000a", "OPEN", 4), 1));
    const closed = item("00000000000a", "CLOSED", 5);
    state.applyChange(change("CLOSED", closed, 0));
    expect(state.items.size).toBe(0);
    expect(state.openCount).toBe(0);
    expect(state.totalCount).toBe(0);
    expect(updates.slice(1)).toEqual([
      { type: "item", itemId: a.itemId, change: "OPENED" },
      { type: "item", itemId: a.itemId, change: "UPDATED" },
      { type: "item", itemId: a.itemId, change: "SNOOZED" },
      { type: "item", itemId: a.itemId, change: "REOPENED" },
      { type: "closed", item: closed, live: true },
    ]);
  });

  it("an older live version of an item is ignored (the count still moves); a close is final", () => {
    const { state } = recorded();
    state.replace(snapshot([item("00000000000b", "OPEN", 10, { body: "newest" })], 1), state.mark());
    state.applyChange(change("UPDATED", item("00000000000b", "OPEN", 5, { body: "older" }), 3));
    expect(state.items.get("00000000000b")?.body).toBe("newest");
    expect(state.openCount).toBe(3);
    state.applyChange(change("CLOSED", item("00000000000b", "CLOSED", 5), 2));
    expect(state.items.size).toBe(0);
  });

  it("an action's closed item leaves at once and the badge drops by one; the live close after it sets the gateway's count", () => {
    const { state, updates } = recorded();
    state.replace(
      snapshot([item("00000000000c", "OPEN", 1), item("00000000000d", "OPEN", 1)], 2),
      state.mark(),
    );
    const mark = state.mark();
    const answered = item("00000000000c", "CLOSED", 2);
    state.applyResult(answered);
    expect(ids(state.open())).toEqual(["00000000000d"]);
    expect(state.openCount).toBe(1);
    expect(updates.at(-1)).toEqual({ type: "closed", item: answered, live: false });
    // The live change of the same close: no second drop.
    state.applyChange(change("CLOSED", answered, 1));
    expect(state.openCount).toBe(1);
    expect(ids(state.open())).toEqual(["00000000000d"]);
    // A snapshot requested before the action, still listing the item, does not bring it back.
    state.replace(snapshot([item("00000000000c", "OPEN", 1), item("00000000000d", "OPEN", 1)], 2), mark);
    expect(ids(state.open())).toEqual(["00000000000d"]);
  });

  it("a snapshot requested before an action that closed the item does not bring it back", () => {
    const { state } = recorded();
    state.replace(snapshot([item("000000000020", "OPEN", 1)], 1), state.mark());
    const mark = state.mark();
    state.applyResult(item("000000000020", "CLOSED", 2));
    state.replace(snapshot([item("000000000020", "OPEN", 1)], 1), mark);
    expect(state.items.size).toBe(0);
  });

  it("an action's result after the live change that closed the item changes nothing", () => {
    const { state } = recorded();
    state.replace(snapshot([item("00000000000e", "OPEN", 1)], 1), state.mark());
    const closed = item("00000000000e", "CLOSED", 2);
    state.applyChange(change("CLOSED", closed, 0));
    const before = state.openCount;
    state.applyResult(closed);
    expect(state.openCount).toBe(before);
    expect(state.openCount).toBe(0);
    expect(state.items.size).toBe(0);
  });

  it("a snoozed result moves the item to the snoozed list and drops the badge", () => {
    const { state } = recorded();
    state.replace(snapshot([item("00000000000f", "OPEN", 1)], 1), state.mark());
    state.applyResult(item("00000000000f", "SNOOZED", 2));
    expect(ids(state.open())).toEqual([]);
    expect(ids(state.snoozed())).toEqual(["00000000000f"]);
    expect(state.openCount).toBe(0);
  });

  it("a snapshot requested before live changes keeps what they opened, drops what they closed, keeps newer versions", () => {
    const { state } = recorded();
    state.replace(
      snapshot([item("000000000010", "OPEN", 1), item("000000000011", "OPEN", 1, { body: "v1" })], 2),
      state.mark(),
    );
    const mark = state.mark();
    // While the request is on its way: one opened, one closed, one updated.
    state.applyChange(change("OPENED", item("000000000012", "OPEN", 5), 3));
    state.applyChange(change("CLOSED", item("000000000010", "CLOSED", 6), 2));
    state.applyChange(change("UPDATED", item("000000000011", "OPEN", 7, { body: "v2" }), 2));
    // The snapshot was read before all three (its count is stale too).
    state.replace(
      snapshot([item("000000000010", "OPEN", 1), item("000000000011", "OPEN", 1, { body: "v1" })], 5),
      mark,
    );
    expect(ids(state.open()).sort()).toEqual(["000000000011", "000000000012"]);
    expect(state.items.get("000000000011")?.body).toBe("v2");
    // The live count came after the mark: it stays.
    expect(state.openCount).toBe(2);

    // A later snapshot (no change since its mark) is taken as it is, count included.
    state.replace(snapshot([item("000000000013", "OPEN", 9)], 1), state.mark());
    expect(ids(state.open())).toEqual(["000000000013"]);
    expect(state.openCount).toBe(1);
  });

  it("an item closed before the mark but listed by the snapshot is listed (the snapshot is newer)", () => {
    const { state } = recorded();
    state.replace(snapshot([], 0), state.mark());
    state.applyChange(change("CLOSED", item("000000000014", "CLOSED", 2), 0));
    const mark = state.mark();
    state.replace(snapshot([item("000000000014", "OPEN", 3)], 1), mark);
    expect(ids(state.open())).toEqual(["000000000014"]);
    expect(state.openCount).toBe(1);
  });

  it("totalCount counts items beyond the snapshot's page, moved by changes", () => {
    const { state } = recorded();
    state.replace(snapshot([item("000000000015", "OPEN", 1)], 150, 150), state.mark());
    expect(state.totalCount).toBe(150);
    state.applyChange(change("OPENED", item("000000000016", "OPEN", 2), 151));
    expect(state.totalCount).toBe(151);
    state.applyChange(change("CLOSED", item("000000000015", "CLOSED", 3), 150));
    expect(state.totalCount).toBe(150);
  });
});

describe("InboxRefresher", () => {
  it("folds requests made while a read runs into one more read, and reports failures", async () => {
    const state = new InboxState();
    const reads: (() => void)[] = [];
    let fail = false;
    const errors: (string | null)[] = [];
    const refresher = new InboxRefresher(
      state,
      () =>
        new Promise<InboxSnapshot>((resolve, reject) =>
          reads.push(() => (fail ? reject(new Error("gateway down")) : resolve(snapshot([], 0)))),
        ),
      (m) => errors.push(m),
      0,
    );
    const settle = () => new Promise((r) => setTimeout(r, 10));
    refresher.request();
    refresher.request();
    await settle();
    expect(reads).toHaveLength(1);
    refresher.request();
    refresher.request();
    reads[0]!();
    await settle();
    expect(reads).toHaveLength(2);
    expect(state.loaded).toBe(true);
    fail = true;
    reads[1]!();
    await settle();
    expect(reads).toHaveLength(2);
    expect(errors).toEqual([null, "gateway down"]);
  });
});
