/**
 * The operator inbox as the dashboard knows it: the OPEN and SNOOZED items within the token's
 * scope, and how many are OPEN (the header badge). `inboxChanges` has no seed, so the page reads
 * a snapshot (`INBOX_QUERY`) at start and after every (re)subscription; live changes then add,
 * update and remove items, and each carries the gateway's `openCount`, which drives the badge.
 *
 * A live change may arrive while a snapshot is on its way and be newer than what the snapshot
 * says: {@link InboxState.replace} keeps, per item, whichever is newer (`updatedAt`), keeps an item
 * a live change opened that the snapshot does not list yet, and drops one a live change closed.
 * A mutation's own result ({@link InboxState.applyResult}) removes the item at once and moves the
 * badge by one; the live change that follows it then sets the gateway's count.
 */
import type { InboxChangeKind, InboxChanged, InboxItem, InboxSnapshot } from "../api/types.js";

/** What changed, for listeners. */
export type InboxUpdate =
  | { type: "snapshot" }
  /** An item was added or changed (`change` is null for a mutation's own result). */
  | { type: "item"; itemId: string; change: InboxChangeKind | null }
  /**
   * An item left the inbox: closed (`item` is how it closed; `live` false when it was this page's
   * own action) — a snapshot that no longer lists an item reports it as a `snapshot` update only.
   */
  | { type: "closed"; item: InboxItem; live: boolean }
  /** Only the open count moved. */
  | { type: "count" };

/** True when `a` was stored after `b` (RFC 3339 instants of the gateway's clock). */
function newer(a: { updatedAt: string }, b: { updatedAt: string }): boolean {
  return Date.parse(a.updatedAt) > Date.parse(b.updatedAt);
}

/** Inbox order: the most recently opened first (then by id, for a stable order). */
export function inboxOrder(a: InboxItem, b: InboxItem): number {
  return b.openedAt.localeCompare(a.openedAt) || b.itemId.localeCompare(a.itemId);
}

/** Snoozed order: the one that opens again first, first. */
function wakeOrder(a: InboxItem, b: InboxItem): number {
  return (a.snoozedUntil ?? "").localeCompare(b.snoozedUntil ?? "") || inboxOrder(a, b);
}

/** Items with change listeners. */
export class InboxState {
  /** OPEN and SNOOZED items by `itemId`. */
  readonly items = new Map<string, InboxItem>();
  /** OPEN items within the token's scope (as the gateway last said, or moved by this page's actions). */
  openCount = 0;
  /** How many items match in all (the snapshot's page may hold fewer), kept up to date by changes. */
  totalCount = 0;
  /** True once a snapshot was read. */
  loaded = false;
  /** Counts changes; a snapshot request remembers the count it started at. */
  private changes = 0;
  /** Per item id: the change count when a live change or an action last set or removed it. */
  private readonly touched = new Map<string, number>();
  /** Item ids closed since they were last listed (a snapshot older than the close must not bring them back). */
  private readonly closed = new Set<string>();
  /** The change count when a live change last gave the open count. */
  private countAt = -1;
  private readonly listeners = new Set<(update: InboxUpdate) => void>();

  /** Call `fn` after every change; returns the unsubscribe function. */
  onChange(fn: (update: InboxUpdate) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A mark to pass to {@link replace}: take it right before sending the snapshot request. */
  mark(): number {
    return this.changes;
  }

  /**
   * Replace everything with a snapshot requested at `mark`. An item a live change or an action set
   * after the mark stays when the snapshot lacks it or holds an older version of it; one closed
   * after the mark stays out. The open count is the snapshot's unless a live change gave one after
   * the mark (that one may be the later of the two; the next change sets it again anyway).
   */
  replace(snapshot: InboxSnapshot, mark: number): void {
    const page = snapshot.inbox;
    const items = new Map<string, InboxItem>();
    for (const { node } of page?.edges ?? []) {
      const since = (this.touched.get(node.itemId) ?? -1) > mark;
      if (since && this.closed.has(node.itemId)) continue;
      items.set(node.itemId, node);
    }
    for (const [id, mine] of this.items) {
      const theirs = items.get(id);
      const since = (this.touched.get(id) ?? -1) > mark;
      if ((theirs === undefined && since) || (theirs !== undefined && newer(mine, theirs)))
        items.set(id, mine);
    }
    this.items.clear();
    for (const [id, item] of items) if (listed(item)) this.items.set(id, item);
    this.totalCount = Math.max(page?.totalCount ?? 0, this.items.size);
    if (this.countAt <= mark) this.openCount = page?.openCount ?? 0;
    this.touched.clear();
    this.closed.clear();
    this.countAt = -1;
    this.loaded = true;
    this.emit({ type: "snapshot" });
  }

  /** One `inboxChanges` item: the item as stored after the change, and the gateway's open count. */
  applyChange(c: InboxChanged): void {
    this.changes++;
    this.openCount = c.openCount;
    this.countAt = this.changes;
    if (!this.set(c.item, c.change === "CLOSED")) {
      this.emit({ type: "count" });
      return;
    }
    if (listed(c.item)) this.emit({ type: "item", itemId: c.item.itemId, change: c.change });
    else this.emit({ type: "closed", item: c.item, live: true });
  }

  /**
   * The item a mutation returned (closed, or snoozed): applied unless a live change already
   * brought a newer version; the open count moves by one when the item stops (or starts) being OPEN.
   */
  applyResult(item: InboxItem): void {
    const held = this.items.get(item.itemId);
    this.changes++;
    const was = held?.state === "OPEN";
    if (!this.set(item, false)) return;
    const is = item.state === "OPEN";
    if (was && !is) this.openCount = Math.max(0, this.openCount - 1);
    if (!was && is) this.openCount++;
    if (listed(item)) this.emit({ type: "item", itemId: item.itemId, change: null });
    else this.emit({ type: "closed", item, live: false });
  }

  /** OPEN items (and any of a state this page does not know), most recently opened first. */
  open(): InboxItem[] {
    return [...this.items.values()].filter((i) => i.state !== "SNOOZED").sort(inboxOrder);
  }

  /** SNOOZED items, the one that opens again first, first. */
  snoozed(): InboxItem[] {
    return [...this.items.values()].filter((i) => i.state === "SNOOZED").sort(wakeOrder);
  }

  /**
   * Hold `item` (or drop it when it is no longer listed), unless the held version is newer. A CLOSED
   * change is never ignored for being older: a close is final. Returns whether anything changed.
   */
  private set(item: InboxItem, final: boolean): boolean {
    const id = item.itemId;
    const held = this.items.get(id);
    if (held && newer(held, item) && !final) return false;
    this.touched.set(id, this.changes);
    if (listed(item)) {
      if (!held) this.totalCount++;
      this.closed.delete(id);
      this.items.set(id, item);
      return true;
    }
    this.closed.add(id);
    if (!held) return false;
    this.items.delete(id);
    this.totalCount = Math.max(this.items.size, this.totalCount - 1);
    return true;
  }

  private emit(update: InboxUpdate): void {
    for (const fn of this.listeners) fn(update);
  }
}

/** Whether the inbox lists an item in this state (everything not CLOSED). */
function listed(item: InboxItem): boolean {
  return item.state !== "CLOSED";
}

/**
 * Reads snapshots for an {@link InboxState} when asked: at most one request at a time; requests
 * coming in while one runs (or within `debounceMs`) are folded into one more. Always active: the
 * header badge is visible from every view.
 */
export class InboxRefresher {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private again = false;

  /**
   * @param load reads a snapshot (`INBOX_QUERY`); rejects when the gateway cannot answer.
   * @param onError told why a snapshot failed (null once one succeeded again).
   */
  constructor(
    private readonly state: InboxState,
    private readonly load: () => Promise<InboxSnapshot>,
    private readonly onError: (message: string | null) => void,
    private readonly debounceMs = 150,
  ) {}

  /** Ask for a fresh snapshot soon. */
  request(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.debounceMs);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    this.again = false;
    const mark = this.state.mark();
    try {
      const snapshot = await this.load();
      this.state.replace(snapshot, mark);
      this.onError(null);
    } catch (err) {
      this.onError(err instanceof Error ? err.message : String(err));
    } finally {
      this.running = false;
      if (this.again) this.request();
    }
  }
}
