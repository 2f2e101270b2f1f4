/**
 * The inbox view (`#/inbox`, `#/inbox/<itemId>`): what needs a person — an interactive agent's
 * question, a plan waiting for approval, a failed run, a health alert — with the answer for each
 * kind (QUESTION: a text and Send; PLAN: Approve or Send changes; RUN_FAILED and ALERT:
 * Acknowledge; every kind: Snooze and Dismiss), and the snoozed items below. Also the header's
 * count badge ({@link InboxBadge}). Everything follows the {@link InboxState} (live from
 * `inboxChanges`); a card is kept across redraws so a draft and the keyboard focus survive.
 *
 * Titles and bodies come from agents and daemons: they are only ever set as text, never as markup.
 * Viewers (and operators outside the item's workspace) see the items but no action.
 */
import { inboxAction, type InboxAction } from "../api/mutations.js";
import type { Viewer } from "../api/session.js";
import type { InboxItem, InboxItemKind, InboxResolution } from "../api/types.js";
import type { InboxState, InboxUpdate } from "../state/inbox.js";
import { inboxOrder } from "../state/inbox.js";
import { agentHref } from "./agents-table.js";
import { announce } from "./announce.js";
import { h, replaceChildren, showFormError } from "./dom.js";
import { formatAge, formatDateTime, formatRelative } from "./format.js";
import { launchHref } from "./launch-actions.js";

/** The route of an inbox item. */
export function inboxHref(itemId: string): string {
  return `#/inbox/${itemId}`;
}

/** "1 item needs you", "3 items need you" (the badge's accessible name). */
export function needYouText(n: number): string {
  return n === 1 ? "1 item needs you" : `${n} items need you`;
}

const KIND_LABEL: Readonly<Record<InboxItemKind, string>> = {
  QUESTION: "Question",
  PLAN: "Plan",
  RUN_FAILED: "Run failed",
  ALERT: "Alert",
  UNKNOWN: "Item",
};

/** The kind as a badge says it: "Question", "Run failed". */
export function kindLabel(kind: InboxItemKind): string {
  return KIND_LABEL[kind] ?? KIND_LABEL.UNKNOWN;
}

/** What an item is about, for button names and announcements: "question from reviewer". */
export function itemLabel(item: InboxItem): string {
  const agent = item.agent?.name ?? item.agent?.agentId ?? null;
  switch (item.kind) {
    case "QUESTION":
      return agent ? `question from ${agent}` : `question: ${item.title}`;
    case "PLAN":
      return agent ? `plan of ${agent}` : `plan: ${item.title}`;
    case "RUN_FAILED":
      return agent ? `failure of ${agent}` : `failure: ${item.title}`;
    case "ALERT":
      return `alert: ${item.title}`;
    default:
      return item.title;
  }
}

const RESOLUTION_TEXT: Readonly<Record<InboxResolution, string>> = {
  ANSWERED: "answered",
  APPROVED: "approved",
  ACKNOWLEDGED: "acknowledged",
  DISMISSED: "dismissed",
  RESOLVED: "resolved by itself",
  UNKNOWN: "closed",
};

/** How a closed item closed, in words: "answered by alice", "resolved by itself (the agent resumed)". */
export function closedText(item: InboxItem): string {
  const how = item.resolution ? (RESOLUTION_TEXT[item.resolution] ?? "closed") : "closed";
  const who = item.closedBy ? ` by ${item.closedBy}` : "";
  return `${how}${who}${item.closeReason ? ` (${item.closeReason})` : ""}`;
}

/** Lines of a body shown before "Show more". */
export const BODY_LINES = 4;
/** Characters of a body shown before "Show more" (a long single line wraps to several). */
export const BODY_CHARS = 360;

/** Whether a body is collapsed past a few lines (then a "Show more" button expands it). */
export function isLongBody(body: string): boolean {
  return body.split("\n").length > BODY_LINES || body.length > BODY_CHARS;
}

/**
 * Whether the token may act on `item`: the OPERATOR or ADMIN role, and the item's workspace among
 * the token's (a fleet-wide item: a token limited to no workspace). The gateway checks the same
 * (authScopes); the dashboard only hides what would be refused.
 */
export function mayAct(viewer: Viewer, item: InboxItem): boolean {
  if (viewer.role !== "OPERATOR" && viewer.role !== "ADMIN") return false;
  if (viewer.workspaces === null) return true;
  return item.workspace !== null && viewer.workspaces.includes(item.workspace.name);
}

/** A check id as people say it: DAEMON_UNREACHABLE → "daemon unreachable". */
function checkText(check: string): string {
  return check.toLowerCase().replace(/_/g, " ");
}

const HOUR_MS = 3_600_000;

/** The snooze buttons: visible label, and how long. */
const SNOOZES: readonly { label: string; ms: number }[] = [
  { label: "Snooze 1 hour", ms: HOUR_MS },
  { label: "Snooze 1 day", ms: 24 * HOUR_MS },
];

/** What the view does for a card. */
interface CardHost {
  act(card: ItemCard, action: InboxAction, what: string): void;
  /** Remove a card kept after its item closed meanwhile. */
  discard(card: ItemCard): void;
}

/** One item's card: facts, body, error box and (for those who may act) the controls. */
class ItemCard {
  readonly element: HTMLLIElement;
  readonly heading: HTMLHeadingElement;
  /** A mutation of this card is on its way (its buttons are aria-disabled). */
  busy = false;
  /** The item closed while this card held a draft: kept, read-only, until discarded. */
  closedMeanwhile = false;
  /** This page's own action closed or snoozed the item (its card goes without being kept). */
  settled = false;
  private shown: string | null = null;
  private expanded = false;
  private readonly kind: HTMLSpanElement;
  private readonly meta = h("p", { class: "inbox-meta" });
  private readonly age = h("time", { class: "age" });
  /** "snoozed until …" of a SNOOZED item (redrawn by {@link tick}). */
  private readonly wake = h("span", { class: "snoozed" });
  private readonly body: HTMLDivElement;
  private readonly more: HTMLButtonElement;
  private readonly error: HTMLDivElement;
  private readonly note = h("p", { class: "inbox-closed", hidden: true });
  private readonly controls = h("div", { class: "inbox-controls" });
  private readonly buttons: HTMLButtonElement[] = [];
  private readonly texts: HTMLTextAreaElement[] = [];

  constructor(
    public item: InboxItem,
    private readonly host: CardHost,
    /** Whether the token may act on the item (else no control is built). */
    acts: boolean,
  ) {
    const id = item.itemId;
    this.kind = h("span", { class: "badge inbox-kind" });
    this.heading = h("h3", { id: `inbox-${id}-title`, tabindex: -1 });
    this.body = h("div", { class: "inbox-body", id: `inbox-${id}-body` });
    this.more = h("button", {
      type: "button",
      class: "link-button more",
      "aria-controls": this.body.id,
      "aria-expanded": "false",
      onclick: () => {
        this.expanded = !this.expanded;
        this.drawBody();
      },
    });
    this.error = h("div", { class: "error", role: "alert", id: `inbox-${id}-error`, hidden: true });
    this.element = h(
      "li",
      { class: "inbox-item", "data-item-id": id },
      h(
        "article",
        { "aria-labelledby": this.heading.id },
        h("div", { class: "inbox-head" }, this.kind, this.heading),
        this.meta,
        this.body,
        this.more,
        this.error,
        this.note,
        this.controls,
      ),
    );
    if (acts) this.buildControls();
    this.update(item);
  }

  /** Redraw from `item` (the same item, as stored now). */
  update(item: InboxItem, now = Date.now()): void {
    this.item = item;
    this.element.dataset["kind"] = item.kind;
    this.element.dataset["state"] = item.state;
    const key = `${item.updatedAt}|${item.state}|${item.title}|${item.body}`;
    if (key !== this.shown) {
      this.shown = key;
      this.kind.textContent = kindLabel(item.kind);
      this.kind.className = `badge inbox-kind kind-${item.kind.toLowerCase().replace(/_/g, "-")}`;
      this.heading.textContent = item.title;
      this.drawMeta();
      this.drawBody();
      this.label();
    }
    this.tick(now);
  }

  /** Redraw the age (a timer; no request). */
  tick(now = Date.now()): void {
    this.age.textContent = `${formatAge(now - Date.parse(this.item.openedAt))} ago`;
    const until = this.item.snoozedUntil;
    if (this.item.state === "SNOOZED" && until)
      this.wake.textContent = `snoozed until ${formatDateTime(until)} (${formatRelative(Date.parse(until), now)})`;
  }

  /** Whether a text field holds something typed (lost if the card went away). */
  hasDraft(): boolean {
    return this.texts.some((t) => t.value.trim() !== "");
  }

  /** Whether the keyboard focus is inside the card. */
  hasFocus(): boolean {
    return this.element.contains(document.activeElement);
  }

  /** The typed texts, to carry over to a new card of the same item. */
  drafts(): string[] {
    return this.texts.map((t) => t.value);
  }

  /** Put `drafts` (from {@link drafts}) back. */
  restore(drafts: string[]): void {
    this.texts.forEach((t, i) => (t.value = drafts[i] ?? t.value));
  }

  /** Mark a mutation as running (buttons aria-disabled: a disabled button would lose the focus). */
  setBusy(busy: boolean): void {
    this.busy = busy;
    for (const b of this.buttons) b.setAttribute("aria-disabled", String(busy));
    if (busy) this.controls.setAttribute("aria-busy", "true");
    else this.controls.removeAttribute("aria-busy");
  }

  /** Show why an action failed (a lead and lines, the failing text fields marked), or clear it. */
  showError(lead: string, lines: string[] | null, invalidText = false): void {
    showFormError(this.error, lead, lines);
    for (const t of this.texts) {
      if (lines && invalidText) {
        t.setAttribute("aria-invalid", "true");
        t.setAttribute("aria-errormessage", this.error.id);
      } else {
        t.removeAttribute("aria-invalid");
        t.removeAttribute("aria-errormessage");
      }
    }
  }

  /** Empty the text fields (after their text was sent). */
  clearDrafts(): void {
    for (const t of this.texts) t.value = "";
  }

  /**
   * The item closed (or left the inbox) while this card held a draft: keep the card with the draft
   * readable, say what happened, and offer only to remove the card.
   */
  markClosed(closed: InboxItem | null): void {
    this.closedMeanwhile = true;
    this.element.dataset["state"] = "CLOSED";
    this.note.textContent = closed
      ? `Closed meanwhile: ${closedText(closed)}. Your text was not sent.`
      : "No longer in the inbox (it was closed meanwhile). Your text was not sent.";
    this.note.hidden = false;
    for (const t of this.texts) t.readOnly = true;
    const remove = h(
      "button",
      { type: "button", class: "button small", onclick: () => this.host.discard(this) },
      "Remove",
    );
    remove.setAttribute("aria-label", `Remove the closed ${itemLabel(this.item)}`);
    // Only the texts stay (to copy from); the buttons go.
    for (const b of this.buttons) b.remove();
    this.buttons.length = 0;
    this.controls.append(h("div", { class: "button-row" }, remove));
  }

  private drawMeta(): void {
    const item = this.item;
    const parts: (string | Node)[] = [];
    parts.push(item.workspace ? `workspace ${item.workspace.name}` : "fleet-wide");
    if (item.agent) {
      parts.push(
        h(
          "span",
          {},
          "agent ",
          h("a", { href: agentHref(item.agent.agentId), title: item.agent.agentId }, item.agent.name),
        ),
      );
    }
    if (item.launch) {
      parts.push(
        h("span", {}, "launch ", h("a", { href: launchHref(item.launch.launchId) }, item.launch.launchId)),
      );
    }
    if (item.check) {
      const subject = item.subject && item.subject !== item.workspace?.name ? ` · ${item.subject}` : "";
      parts.push(`check ${checkText(item.check)}${subject}`);
    }
    this.age.setAttribute("datetime", item.openedAt);
    this.age.title = formatDateTime(item.openedAt);
    parts.push(h("span", {}, "opened ", this.age));
    if (item.state === "SNOOZED" && item.snoozedUntil) parts.push(this.wake);
    if (item.escalations > 0) parts.push(`reminded ${item.escalations}×`);
    replaceChildren(
      this.meta,
      parts.flatMap((p, i) => (i === 0 ? [p] : [" · ", p])),
    );
  }

  private drawBody(): void {
    const text = this.item.body;
    this.body.textContent = text;
    this.body.hidden = text === "";
    const long = isLongBody(text);
    this.more.hidden = !long;
    this.body.dataset["collapsed"] = String(long && !this.expanded);
    this.more.textContent = this.expanded ? "Show less" : "Show more";
    this.more.setAttribute("aria-expanded", String(this.expanded));
  }

  /** Name each control after the item (one page holds many "Send" buttons). */
  private label(): void {
    const what = itemLabel(this.item);
    const agent = this.item.agent?.name ?? "the agent";
    for (const b of this.buttons) {
      const verb = b.dataset["verb"] ?? "";
      const name =
        verb === "Send"
          ? `Send answer to ${agent}`
          : verb === "Approve"
            ? `Approve the plan of ${agent}`
            : verb === "Send changes"
              ? `Send changes to the plan of ${agent}`
              : verb.startsWith("Snooze")
                ? `${verb}: ${what}`
                : `${verb} ${what}`;
      b.setAttribute("aria-label", name);
    }
    for (const f of this.controls.querySelectorAll("form")) f.setAttribute("aria-label", `Reply: ${what}`);
    this.controls.querySelector(".inbox-actions")?.setAttribute("aria-label", `Actions: ${what}`);
  }

  private button(verb: string, cls: string, action: () => InboxAction | null, what: string) {
    const b = h(
      "button",
      {
        type: "button",
        class: `button ${cls}`.trim(),
        "data-verb": verb,
        onclick: () => {
          const a = action();
          if (a) this.host.act(this, a, what);
        },
      },
      verb,
    );
    this.buttons.push(b);
    return b;
  }

  /** A labelled text field with its submit button (Send / Send changes). */
  private textForm(label: string, verb: string, hint: string, name: string): HTMLFormElement {
    const id = `inbox-${this.item.itemId}-${name}`;
    const text = h("textarea", { id, rows: 3, required: true, "aria-describedby": `${id}-hint` });
    this.texts.push(text);
    const submit = h("button", { type: "submit", class: "button primary", "data-verb": verb }, verb);
    this.buttons.push(submit);
    const form = h(
      "form",
      { class: "inbox-answer" },
      h("label", { for: id }, label),
      h("p", { class: "hint", id: `${id}-hint` }, hint),
      text,
      h("div", { class: "button-row" }, submit),
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (!form.reportValidity()) return;
      this.host.act(this, { kind: "answer", text: text.value }, verb === "Send" ? "answer" : "changes");
    });
    return form;
  }

  private buildControls(): void {
    const item = this.item;
    const parts: HTMLElement[] = [];
    // What the gateway says applies (canAnswer: a QUESTION or PLAN; canApprove: a PLAN).
    if (item.kind === "PLAN") {
      if (item.canApprove)
        parts.push(
          h(
            "div",
            { class: "button-row" },
            this.button("Approve", "primary", () => ({ kind: "approve" }), "approve"),
          ),
        );
      if (item.canAnswer)
        parts.push(
          this.textForm(
            "Changes to the plan",
            "Send changes",
            "Or tell the agent what to change.",
            "changes",
          ),
        );
    } else if (item.canAnswer) {
      parts.push(this.textForm("Your answer", "Send", item.answerHint, "answer"));
    }
    const row = h("div", { class: "button-row" });
    if (!item.canAnswer && !item.canApprove) {
      row.append(this.button("Acknowledge", "primary", () => ({ kind: "acknowledge" }), "acknowledge"));
    }
    for (const s of SNOOZES) {
      row.append(
        this.button(s.label, "", () => ({ kind: "snooze", until: new Date(Date.now() + s.ms) }), "snooze"),
      );
    }
    row.append(this.button("Dismiss", "", () => ({ kind: "dismiss" }), "dismiss"));
    parts.push(row);
    replaceChildren(
      this.controls,
      h("div", { role: "group", "aria-label": "Actions", class: "inbox-actions" }, parts),
    );
  }
}

/** What an action did, for the announcement. */
function doneText(what: string, item: InboxItem): string {
  const label = itemLabel(item);
  const agent = item.agent?.name ?? "the agent";
  switch (what) {
    case "answer":
      return `Answer sent to ${agent}; the ${label} is closed.`;
    case "changes":
      return `Changes sent to ${agent}; the ${label} is closed.`;
    case "approve":
      return `The ${label} is approved.`;
    case "acknowledge":
      return `The ${label} is acknowledged.`;
    case "snooze":
      return `The ${label} is snoozed until ${item.snoozedUntil ? formatDateTime(item.snoozedUntil) : "later"}.`;
    default:
      return `The ${label} is dismissed.`;
  }
}

/** The lead of an action's error box. */
const FAILED_LEAD: Readonly<Record<string, string>> = {
  answer: "Send failed",
  changes: "Send changes failed",
  approve: "Approve failed",
  acknowledge: "Acknowledge failed",
  snooze: "Snooze failed",
  dismiss: "Dismiss failed",
};

/** The inbox view's column. */
export class InboxView {
  /** The view's first heading (focused when the view is opened). */
  readonly heading = h("h2", { id: "inbox-heading", tabindex: -1 }, "Inbox");
  private readonly summary = h("p", { class: "inbox-summary" });
  private readonly loading = h("p", { class: "muted" }, "Loading the inbox…");
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly missing = h("p", { class: "muted", hidden: true });
  private readonly openList = h("ul", { class: "inbox-list", "aria-labelledby": "inbox-heading" });
  private readonly empty = h("p", { class: "muted", hidden: true }, "Nothing needs you.");
  private readonly snoozedList = h("ul", {
    class: "inbox-list",
    "aria-labelledby": "inbox-snoozed-heading",
  });
  private readonly snoozedSection: HTMLElement;
  private readonly cards = new Map<string, ItemCard>();
  /** The item the route names (`#/inbox/<itemId>`), focused once it is listed. */
  private selected: string | null = null;
  private pendingFocus = false;
  /** How items closed, from the live changes that closed them (for a card kept with a draft). */
  private readonly closedItems = new Map<string, InboxItem>();

  constructor(
    container: HTMLElement,
    private readonly state: InboxState,
    private readonly viewer: Viewer,
  ) {
    this.snoozedSection = h(
      "section",
      { "aria-labelledby": "inbox-snoozed-heading", class: "inbox-section", hidden: true },
      h("h2", { id: "inbox-snoozed-heading" }, "Snoozed"),
      this.snoozedList,
    );
    replaceChildren(
      container,
      h(
        "section",
        { "aria-labelledby": "inbox-heading", class: "inbox-section" },
        this.heading,
        this.summary,
        this.loading,
        this.error,
        this.missing,
        this.openList,
        this.empty,
      ),
      this.snoozedSection,
    );
    state.onChange((u) => this.onUpdate(u));
  }

  /** Show why the inbox could not be read or followed (or clear it). */
  report(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = message === null;
  }

  /** Mark the item the route names (null: none). */
  select(itemId: string | null): void {
    this.selected = itemId;
    for (const [id, card] of this.cards) {
      if (id === itemId) card.element.setAttribute("aria-current", "true");
      else card.element.removeAttribute("aria-current");
    }
    this.drawMissing();
  }

  /** Move keyboard focus to the selected item's heading (once it is listed), else the view's heading. */
  focus(): void {
    const card = this.selected === null ? undefined : this.cards.get(this.selected);
    if (card) {
      card.heading.focus();
      card.element.scrollIntoView({ block: "nearest" });
      this.pendingFocus = false;
      return;
    }
    this.heading.focus();
    this.pendingFocus = this.selected !== null && !this.state.loaded;
  }

  /** Redraw the ages (a timer; no request). */
  tick(now = Date.now()): void {
    for (const card of this.cards.values()) card.tick(now);
  }

  /** Redraw from the state. */
  render(now = Date.now()): void {
    const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focusedCard = [...this.cards.values()].find((c) => c.hasFocus()) ?? null;
    let focusTarget: HTMLElement | null = null;

    // Cards of items no longer listed: kept (read-only) when they hold a draft, else removed.
    for (const [id, card] of this.cards) {
      if (this.state.items.has(id) || card.closedMeanwhile) continue;
      if (card.hasDraft() && !card.busy && !card.settled) {
        card.markClosed(this.closedItems.get(id) ?? null);
        announce(`The ${itemLabel(card.item)} was closed meanwhile; your text is kept in its card.`);
        continue;
      }
      if (card === focusedCard) focusTarget = this.neighbour(card)?.heading ?? this.heading;
      card.element.remove();
      this.cards.delete(id);
    }
    this.closedItems.clear();

    const open: ItemCard[] = [];
    const snoozed: ItemCard[] = [];
    for (const item of this.state.items.values()) {
      let card = this.cards.get(item.itemId);
      if (card?.closedMeanwhile) {
        // Listed again (a snapshot older than the close): a fresh card, the draft carried over.
        const drafts = card.drafts();
        card.element.remove();
        card = undefined;
        this.cards.delete(item.itemId);
        const fresh = this.card(item);
        fresh.restore(drafts);
        card = fresh;
      }
      card ??= this.card(item);
      card.update(item, now);
      (item.state === "SNOOZED" ? snoozed : open).push(card);
    }
    // Kept closed cards stay where they were among the open ones.
    for (const card of this.cards.values()) if (card.closedMeanwhile) open.push(card);
    open.sort((a, b) => inboxOrder(a.item, b.item));
    snoozed.sort(
      (a, b) =>
        (a.item.snoozedUntil ?? "").localeCompare(b.item.snoozedUntil ?? "") || inboxOrder(a.item, b.item),
    );
    sync(this.openList, open);
    sync(this.snoozedList, snoozed);

    this.loading.hidden = this.state.loaded;
    const openCount = open.filter((c) => !c.closedMeanwhile).length;
    this.empty.hidden = !this.state.loaded || open.length > 0;
    this.snoozedSection.hidden = snoozed.length === 0;
    const more = this.state.totalCount - this.state.items.size;
    this.summary.textContent = this.state.loaded
      ? [
          openCount === 1 ? "1 needs you" : `${openCount} need you`,
          snoozed.length > 0 ? `${snoozed.length} snoozed` : null,
          more > 0 ? `${more} more not shown (prospero inbox lists all)` : null,
        ]
          .filter((x) => x !== null)
          .join(" · ")
      : "";
    this.select(this.selected);

    // The focus: back where it was if a move lost it, to a neighbour if its card went away.
    if (focusTarget) focusTarget.focus();
    else if (active?.isConnected && document.activeElement !== active) active.focus();
    if (this.pendingFocus && this.state.loaded) this.focus();
  }

  private card(item: InboxItem): ItemCard {
    const card = new ItemCard(
      item,
      {
        act: (c, action, what) => void this.act(c, action, what),
        discard: (c) => {
          const next = this.neighbour(c);
          c.element.remove();
          this.cards.delete(c.item.itemId);
          this.render();
          (next?.heading ?? this.heading).focus();
        },
      },
      mayAct(this.viewer, item),
    );
    this.cards.set(item.itemId, card);
    return card;
  }

  /** The card after `card` in its list, else the one before, else null. */
  private neighbour(card: ItemCard): ItemCard | null {
    const el = card.element;
    const near = el.nextElementSibling ?? el.previousElementSibling;
    if (!(near instanceof HTMLLIElement)) return null;
    const id = near.dataset["itemId"];
    return id === undefined ? null : (this.cards.get(id) ?? null);
  }

  /** Run one action of a card; on success the item leaves (or moves to Snoozed) and the focus goes on. */
  private async act(card: ItemCard, action: InboxAction, what: string): Promise<void> {
    if (card.busy || card.closedMeanwhile) return;
    const lead = FAILED_LEAD[what] ?? "Failed";
    card.setBusy(true);
    card.showError(lead, null);
    let outcome: Awaited<ReturnType<typeof inboxAction>>;
    try {
      outcome = await inboxAction(card.item.itemId, action);
    } finally {
      card.setBusy(false);
    }
    if (!outcome.ok) {
      const { message, fieldErrors } = outcome.failure;
      // The gateway's message may name the fields already; list only those it does not.
      const extra = fieldErrors
        .map((f) => `${f.path.join(".")}: ${f.message}`)
        .filter((l) => !message.includes(l));
      card.showError(
        lead,
        [message, ...extra],
        fieldErrors.some((f) => f.path[f.path.length - 1] === "text"),
      );
      return;
    }
    const next = this.neighbour(card);
    const item = outcome.payload.item;
    if (what === "answer" || what === "changes") card.clearDrafts();
    card.settled = item.state !== "OPEN";
    this.state.applyResult(item);
    card.settled = false;
    // The focus goes on to the next item unless a redraw moved it there already.
    const at = document.activeElement;
    if (at === null || at === document.body || card.element.contains(at))
      (next?.heading ?? this.heading).focus();
    announce(doneText(what, item));
  }

  private onUpdate(u: InboxUpdate): void {
    if (u.type === "closed" && u.live) this.closedItems.set(u.item.itemId, u.item);
    this.render();
    if (u.type === "item" && (u.change === "OPENED" || u.change === "REOPENED")) {
      const item = this.state.items.get(u.itemId);
      if (item)
        announce(`${u.change === "OPENED" ? "New in the inbox" : "Back from a snooze"}: ${item.title}`);
    }
  }

  private drawMissing(): void {
    const id = this.selected;
    const gone = id !== null && this.state.loaded && !this.cards.has(id);
    this.missing.hidden = !gone;
    this.missing.textContent = gone
      ? `Inbox item ${id} is not open: it was closed, or it is not in your workspaces.`
      : "";
  }
}

/** Put `cards` into `list` in this order, moving only those out of place (a moved node loses the focus). */
function sync(list: HTMLUListElement, cards: readonly ItemCard[]): void {
  cards.forEach((card, i) => {
    const at = list.children[i];
    if (at !== card.element) list.insertBefore(card.element, at ?? null);
  });
  while (list.children.length > cards.length) list.lastElementChild?.remove();
}

/**
 * The header's inbox count: the OPEN items within the token's scope, hidden at 0, named for
 * assistive technology ("3 items need you").
 */
export class InboxBadge {
  constructor(
    private readonly badge: HTMLElement,
    private readonly state: InboxState,
  ) {
    state.onChange(() => this.render());
    this.render();
  }

  /** Redraw from the state's open count. */
  render(): void {
    const n = this.state.openCount;
    this.badge.textContent = String(n);
    this.badge.setAttribute("aria-label", needYouText(n));
    this.badge.hidden = n === 0;
    this.badge.dataset["count"] = String(n);
  }
}
