/**
 * Tabs for the agent view (issue 16): the WAI-ARIA tabs pattern (tablist / tab / tabpanel, roving
 * tabindex, Left/Right arrows with wrap-around, Home/End, automatic activation), the agent tab in
 * the URL hash (`#/agent/<id>/changes`), and {@link LivePanel}: a tab's content read on demand
 * and read again when it is stale and shown (never on a timer).
 */
import { h } from "./dom.js";

/** The agent view's tabs, in order. */
export const AGENT_TABS = ["timeline", "changes", "report"] as const;

/** One tab of the agent view. */
export type AgentTab = (typeof AGENT_TABS)[number];

/** `#/agent/<id>` for the timeline (the default tab), else `#/agent/<id>/<tab>`. */
export function agentTabHref(agentId: string, tab: AgentTab): string {
  return tab === "timeline" ? `#/agent/${agentId}` : `#/agent/${agentId}/${tab}`;
}

/** The agent tab a URL hash names (`#/agent/<id>/<tab>`); `timeline` when it names none. */
export function tabFromHash(hash: string): AgentTab {
  const m = /^#\/agent\/[0-9A-Za-z_-]+\/([a-z]+)\/?$/.exec(hash);
  const tab = m?.[1];
  return AGENT_TABS.find((t) => t === tab) ?? "timeline";
}

/** One tab: its key, its label and its panel's content. */
export interface TabSpec<K extends string> {
  key: K;
  label: string;
  content: HTMLElement;
}

/** A tablist and its panels; one panel is shown at a time. */
export class Tabs<K extends string> {
  /** The `role="tablist"` element. */
  readonly list: HTMLElement;
  /** The panels (`role="tabpanel"`), in tab order. */
  readonly panels: HTMLElement[];
  private readonly tabs: HTMLButtonElement[];
  private readonly keys: K[];
  private current: K;

  /**
   * @param prefix id prefix of the tabs and panels (`<prefix>-tab-<key>`, `<prefix>-panel-<key>`).
   * @param label the tablist's accessible name.
   * @param onSelect called after the reader chose a tab (click or keys), not after {@link select}.
   */
  constructor(
    prefix: string,
    label: string,
    specs: readonly TabSpec<K>[],
    private readonly onSelect: (key: K) => void,
  ) {
    this.keys = specs.map((s) => s.key);
    const first = this.keys[0];
    if (first === undefined) throw new Error("Tabs need at least one tab");
    this.current = first;
    this.tabs = specs.map((s) =>
      h(
        "button",
        {
          type: "button",
          role: "tab",
          id: `${prefix}-tab-${s.key}`,
          "aria-controls": `${prefix}-panel-${s.key}`,
          "data-tab": s.key,
        },
        s.label,
      ),
    );
    this.panels = specs.map((s) =>
      h(
        "div",
        {
          role: "tabpanel",
          id: `${prefix}-panel-${s.key}`,
          "aria-labelledby": `${prefix}-tab-${s.key}`,
          class: "tab-panel",
          "data-tab": s.key,
          tabindex: 0,
        },
        s.content,
      ),
    );
    this.list = h("div", { role: "tablist", "aria-label": label, class: "tabs" }, this.tabs);
    this.tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => this.choose(i, false));
      tab.addEventListener("keydown", (ev) => this.onKey(ev, i));
    });
    this.select(first);
  }

  /** The selected tab. */
  get selected(): K {
    return this.current;
  }

  /** Show `key`'s panel (without calling `onSelect`); `focus` moves keyboard focus to its tab. */
  select(key: K, focus = false): void {
    const index = Math.max(0, this.keys.indexOf(key));
    this.current = this.keys[index] ?? this.current;
    this.tabs.forEach((tab, i) => {
      const on = i === index;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      const panel = this.panels[i];
      if (panel) panel.hidden = !on;
    });
    if (focus) this.tabs[index]?.focus();
  }

  private choose(index: number, focus: boolean): void {
    const key = this.keys[index];
    if (key === undefined) return;
    const changed = key !== this.current;
    this.select(key, focus);
    if (changed) this.onSelect(key);
  }

  private onKey(ev: KeyboardEvent, index: number): void {
    const n = this.tabs.length;
    let next: number;
    switch (ev.key) {
      case "ArrowRight":
        next = (index + 1) % n;
        break;
      case "ArrowLeft":
        next = (index - 1 + n) % n;
        break;
      case "Home":
        next = 0;
        break;
      case "End":
        next = n - 1;
        break;
      default:
        return;
    }
    ev.preventDefault();
    this.choose(next, true);
  }
}

/**
 * A tab's content for one agent, read by {@link LivePanel.read} when first shown and read again
 * when marked stale ({@link invalidate}: a change arrived) while shown, or when shown later.
 * Reads that finish after the agent changed are dropped. Subclasses render into `element`.
 */
export abstract class LivePanel {
  /** The panel's content. */
  readonly element: HTMLElement;
  /** The agent shown, or null. */
  protected agentId: string | null = null;
  private stale = true;
  private visible = false;
  private generation = 0;
  private reading = false;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** @param debounceMs how long a burst of {@link invalidate} calls is gathered before one read, ms. */
  constructor(
    className: string,
    private readonly debounceMs = 250,
  ) {
    this.element = h("div", { class: className });
  }

  /** Show `agentId` (or nothing): forget what was shown; read when visible. */
  open(agentId: string | null): void {
    this.generation++;
    clearTimeout(this.timer);
    this.agentId = agentId;
    this.stale = true;
    this.reading = false;
    this.again = false;
    this.clear();
    if (this.visible && agentId !== null) void this.run();
  }

  /** The panel became visible or hidden; a stale one is read when it becomes visible. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible && this.stale && this.agentId !== null) void this.run();
  }

  /** What is shown may be out of date: read again now (debounced) if visible, else when shown. */
  invalidate(): void {
    this.stale = true;
    if (!this.visible || this.agentId === null) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.debounceMs);
  }

  /** Whether a read for `generation` still belongs to the agent shown. */
  protected current(generation: number): boolean {
    return generation === this.generation;
  }

  /** Empty the panel (a new agent). */
  protected abstract clear(): void;

  /** Read and render the agent's content; `generation` is for {@link current} after each await. */
  protected abstract read(agentId: string, generation: number): Promise<void>;

  private async run(): Promise<void> {
    const agentId = this.agentId;
    if (agentId === null) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    const generation = this.generation;
    this.reading = true;
    this.stale = false;
    try {
      await this.read(agentId, generation);
    } finally {
      if (this.current(generation)) {
        this.reading = false;
        if (this.again) {
          this.again = false;
          void this.run();
        }
      }
    }
  }
}
