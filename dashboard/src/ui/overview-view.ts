/**
 * The overview (`#/`, issue 16 item 5): the fleet at a glance. Live runs by status (from the fleet
 * state), runs ended today by outcome, tokens and cost today and over the last 7 days, the
 * workspace cards, and three per-day charts — cost by workspace or model (a toggle), tokens (input
 * and output), outcomes — each with a legend and a text alternative.
 *
 * Live without a polling loop: the counts follow the fleet state; the usage is read again (at most
 * once per 5 s, only while the overview is shown) after the fleetChanges items that change totals
 * (`changeAffectsTotals`). While the socket is down the cards say "unknown" health and a note says
 * the figures may be out of date.
 */
import { formatCost, formatInt, formatTokens, NONE } from "../../../src/format/index.js";
import { request } from "../api/http.js";
import { OVERVIEW_QUERY, type OverviewSnapshot } from "../api/overview-documents.js";
import type { Viewer } from "../api/session.js";
import type { FleetChange } from "../api/types.js";
import type { FleetState } from "../state/fleet.js";
import {
  changeAffectsTotals,
  costSeries,
  hasActivity,
  liveCounts,
  outcomeSeries,
  overviewWindow,
  sumUsage,
  tokenSeries,
  UsageRefresher,
  type CostGrouping,
  type OverviewWindow,
  type UsageTotals,
} from "../state/overview.js";
import { BarChart } from "./charts.js";
import { h, replaceChildren } from "./dom.js";
import { renderWorkspaces } from "./workspaces.js";

/** `--series-N` colors of the outcome chart's series (done, failed, killed, crashed). */
const OUTCOME_COLORS = [3, 4, 6, 5] as const;

/** `--series-N` colors of the token chart's series (input, output). */
const TOKEN_COLORS = [1, 2] as const;

/** A UTC day key as the table and the hover line write it: "Mon, Dec 1". */
function dayLabel(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  return d.toLocaleDateString(undefined, {
    weekday: "short",
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

/** A UTC day key on the chart's axis: "Mon 1". */
function dayTick(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  const weekday = d.toLocaleDateString(undefined, { weekday: "short", timeZone: "UTC" });
  return `${weekday} ${d.getUTCDate()}`;
}

/** A stat tile: a big value, its label, and an optional line under it. */
function tile(key: string, value: string, label: string, sub: string | null = null): HTMLElement {
  return h(
    "li",
    { class: "stat", "data-stat": key },
    h("span", { class: "stat-value" }, value),
    h("span", { class: "stat-label" }, label),
    sub === null ? null : h("span", { class: "stat-sub muted" }, sub),
  );
}

function tokenTotal(t: UsageTotals): number {
  return t.input + t.output;
}

/** The overview page, mounted by the shell in `<div id="overview">`. */
export class OverviewView {
  private active = false;
  private connected = true;
  private snapshot: OverviewSnapshot | null = null;
  private window: OverviewWindow | null = null;
  private error: string | null = null;
  private grouping: CostGrouping = "workspace";
  /** The charts need drawing again (new data or grouping) once the overview is shown. */
  private chartsDirty = true;
  private readonly refresher: UsageRefresher;
  private readonly offline: HTMLParagraphElement;
  private readonly errorBox: HTMLParagraphElement;
  private readonly now: HTMLUListElement;
  private readonly ended: HTMLUListElement;
  private readonly usage: HTMLUListElement;
  private readonly cards: HTMLDivElement;
  private readonly chartsBox: HTMLDivElement;
  private readonly chartsEmpty: HTMLParagraphElement;
  private readonly chartsLoading: HTMLParagraphElement;
  private readonly toggle: HTMLFieldSetElement;
  private readonly cost = new BarChart("cost");
  private readonly tokens = new BarChart("tokens");
  private readonly outcomes = new BarChart("outcomes");

  constructor(
    root: HTMLElement,
    private readonly fleet: FleetState,
    viewer: Viewer,
  ) {
    this.offline = h(
      "p",
      { class: "overview-offline", role: "status", hidden: true },
      "Not connected to the gateway: workspace health is unknown and these figures may be out of date until the connection is back.",
    );
    this.errorBox = h("p", { class: "error", role: "alert", hidden: true });
    this.now = h("ul", { class: "stats", "aria-labelledby": "overview-now" });
    this.ended = h("ul", { class: "stats", "aria-labelledby": "overview-ended" });
    this.usage = h("ul", { class: "stats", "aria-labelledby": "overview-usage" });
    this.cards = h("div", { class: "cards" }, h("p", { class: "muted" }, "Loading the fleet…"));
    this.chartsLoading = h("p", { class: "muted" }, "Reading the last 7 days…");
    this.chartsEmpty = h("p", { class: "overview-empty muted", hidden: true }, "No runs in the last 7 days.");
    const radio = (value: CostGrouping, label: string) =>
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "radio",
          name: "overview-cost-by",
          value,
          checked: value === this.grouping,
          onchange: () => this.setGrouping(value),
        }),
        label,
      );
    this.toggle = h(
      "fieldset",
      { class: "chart-toggle" },
      h("legend", {}, "Cost by"),
      radio("workspace", "Workspace"),
      radio("model", "Model"),
    );
    this.cost.controls.append(this.toggle);
    this.chartsBox = h(
      "div",
      { class: "charts", hidden: true },
      this.cost.element,
      this.tokens.element,
      this.outcomes.element,
    );
    const scope =
      viewer.workspaces === null
        ? null
        : h(
            "p",
            { class: "hint" },
            `Usage of your token's workspaces only: ${viewer.workspaces.join(", ") || NONE}.`,
          );
    replaceChildren(
      root,
      h(
        "section",
        { class: "overview", "aria-labelledby": "overview-heading" },
        h("h2", { id: "overview-heading" }, "Overview"),
        this.offline,
        this.errorBox,
        scope,
        h(
          "div",
          { class: "stat-groups" },
          h("section", { class: "stat-group" }, h("h3", { id: "overview-now" }, "Live now"), this.now),
          h("section", { class: "stat-group" }, h("h3", { id: "overview-ended" }, "Ended today"), this.ended),
          h(
            "section",
            { class: "stat-group usage" },
            h("h3", { id: "overview-usage" }, "Tokens and cost"),
            this.usage,
          ),
        ),
        h(
          "section",
          { class: "overview-section", "aria-labelledby": "overview-workspaces" },
          h("h3", { id: "overview-workspaces" }, "Workspaces"),
          this.cards,
        ),
        h(
          "section",
          { class: "overview-section", "aria-labelledby": "overview-charts" },
          h("h3", { id: "overview-charts" }, "Last 7 days"),
          this.chartsLoading,
          this.chartsEmpty,
          this.chartsBox,
        ),
      ),
    );
    this.refresher = new UsageRefresher(() => this.read());
    fleet.onChange(() => this.renderLive());
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => this.retheme());
    this.renderLive();
    this.renderUsage();
  }

  /** One fleetChanges item (after or before FleetState applied it): re-read totals it changes. */
  onFleetChange(change: FleetChange): void {
    if (changeAffectsTotals(change)) this.refresher.request();
  }

  /** The overview is shown (reads the usage if due, draws the charts) or hidden (reads nothing). */
  setActive(active: boolean): void {
    this.active = active;
    this.refresher.setActive(active);
    if (active) this.drawCharts();
  }

  /** The live connection is up or down (down: health "unknown", figures may be stale). */
  setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    this.offline.hidden = connected;
    this.renderLive();
  }

  private async read(): Promise<boolean> {
    const w = overviewWindow(new Date());
    try {
      this.snapshot = await request<OverviewSnapshot>(OVERVIEW_QUERY, { today: w.today, since: w.since });
      this.window = w;
      this.error = null;
      this.chartsDirty = true;
      return true;
    } catch (err) {
      this.error = `The usage could not be read: ${err instanceof Error ? err.message : String(err)}`;
      return false;
    } finally {
      this.renderUsage();
    }
  }

  private setGrouping(by: CostGrouping): void {
    this.grouping = by;
    this.chartsDirty = true;
    this.drawCharts();
  }

  private retheme(): void {
    this.chartsDirty = true;
    this.drawCharts();
  }

  /** Live counts and the workspace cards, from the fleet state. */
  private renderLive(): void {
    const seeded = this.fleet.seeded;
    const c = liveCounts(this.fleet.agents.values());
    const v = (n: number) => (seeded ? formatInt(n) : NONE);
    this.now.setAttribute("aria-busy", String(!seeded));
    replaceChildren(
      this.now,
      tile("running", v(c.running), "running"),
      tile("idle", v(c.idle), "idle"),
      tile("spawning", v(c.spawning), "spawning"),
    );
    renderWorkspaces(this.cards, this.fleet, this.connected);
  }

  /** Ended-today counts, tokens and cost, and the charts, from the last usage read. */
  private renderUsage(): void {
    this.errorBox.textContent = this.error ?? "";
    this.errorBox.hidden = this.error === null;
    const snap = this.snapshot;
    const loaded = snap !== null;
    const today = sumUsage(snap?.today ?? []);
    const week = sumUsage(snap?.byWorkspace ?? []);
    const v = (s: string) => (loaded ? s : NONE);
    this.ended.setAttribute("aria-busy", String(!loaded));
    this.usage.setAttribute("aria-busy", String(!loaded));
    replaceChildren(
      this.ended,
      (["done", "failed", "killed", "crashed"] as const).map((k) =>
        tile(k, v(formatInt(today.outcomes[k])), k),
      ),
    );
    const unpriced = (t: UsageTotals) =>
      t.unpricedTurns > 0
        ? `not counted: ${formatInt(t.unpricedTurns)} turn${t.unpricedTurns === 1 ? "" : "s"} of models without a known price`
        : null;
    const tokens = (t: UsageTotals) => `${formatTokens(t.input)} in · ${formatTokens(t.output)} out`;
    replaceChildren(
      this.usage,
      tile("tokens-today", v(formatTokens(tokenTotal(today))), "tokens today", loaded ? tokens(today) : null),
      tile("cost-today", v(formatCost(today.costUsd)), "cost today", loaded ? unpriced(today) : null),
      tile("tokens-week", v(formatTokens(tokenTotal(week))), "tokens, 7 days", loaded ? tokens(week) : null),
      tile("cost-week", v(formatCost(week.costUsd)), "cost, 7 days", loaded ? unpriced(week) : null),
    );
    this.chartsLoading.hidden = loaded || this.error !== null;
    const active = loaded && hasActivity([...(snap.byWorkspace ?? []), ...(snap.today ?? [])]);
    this.chartsEmpty.hidden = !loaded || active;
    this.chartsBox.hidden = !active;
    this.drawCharts();
  }

  /** Draw the charts if they changed and can be seen (a hidden figure has no width). */
  private drawCharts(): void {
    const snap = this.snapshot;
    const w = this.window;
    if (!this.active || !this.chartsDirty || !snap || !w || this.chartsBox.hidden) return;
    this.chartsDirty = false;
    const days = w.days;
    const by = this.grouping;
    const rows = (by === "workspace" ? snap.byWorkspace : snap.byModel) ?? [];
    const byDay = snap.byWorkspace ?? [];
    this.cost.update({
      title: `Cost per day by ${by}`,
      data: costSeries(rows, days, by),
      format: formatCost,
      dayLabel,
      dayTick,
      emptyText: "No priced usage in the last 7 days.",
      stacked: true,
    });
    this.tokens.update({
      title: "Tokens per day",
      data: tokenSeries(byDay, days),
      colors: TOKEN_COLORS,
      format: formatTokens,
      dayLabel,
      dayTick,
      emptyText: "No tokens in the last 7 days.",
      stacked: true,
    });
    this.outcomes.update({
      title: "Runs ended per day",
      data: outcomeSeries(byDay, days),
      colors: OUTCOME_COLORS,
      format: formatInt,
      dayLabel,
      dayTick,
      emptyText: "No run ended in the last 7 days.",
      stacked: true,
      integers: true,
    });
  }
}
