/**
 * Per-day bar charts of the overview (issue 16 item 5) on uPlot (small and fast: one canvas per
 * chart, ~50 KB): each chart is a `<figure>` with a caption, the canvas (hidden from assistive
 * technology), a legend that lists every series with its total (the hovered day's values while the
 * pointer is over the plot), and a visually-hidden table with every number: the text alternative.
 * Colors come from the page's CSS variables (`--series-1` …, `--muted`, `--border`), read again
 * when the color scheme changes; the width follows the figure (redrawn on resize).
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { stackValues, type ChartData } from "../state/overview.js";
import { h, replaceChildren } from "./dom.js";

/** Height of a chart's canvas (plot and axes), CSS pixels. */
export const CHART_HEIGHT = 190;

/** Number of `--series-N` colors the stylesheet defines (series beyond it reuse them). */
export const PALETTE_SIZE = 8;

/** What a chart shows and how its numbers are written. */
export interface ChartSpec {
  /** The caption, e.g. "Cost per day by workspace". */
  title: string;
  data: ChartData;
  /** Per series, its `--series-N` color index (1-based); default the series' position. */
  colors?: readonly number[];
  /** A value in the chart's unit as text (shared wording: formatCost, formatTokens, formatInt). */
  format: (value: number) => string;
  /** Label of a UTC day key `YYYY-MM-DD`, long ("Mon, Dec 1") for the table and the hover line. */
  dayLabel: (day: string) => string;
  /** Short label of a day for the axis ("Mon 1"). */
  dayTick: (day: string) => string;
  /** Shown instead of the plot when every value is 0. */
  emptyText: string;
  /** True: the series are stacked (each day's bar is its total); false: drawn over each other. */
  stacked: boolean;
  /** Counts: the value axis has whole-number ticks only. */
  integers?: boolean;
}

/** Tick steps of a count axis (whole numbers). */
const INTEGER_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000];

function cssVar(el: Element, name: string, fallback: string): string {
  const v = getComputedStyle(el).getPropertyValue(name).trim();
  return v === "" ? fallback : v;
}

let chartIds = 0;

/** One chart: build it once, then `update` it with new data; `resize` after layout changes. */
export class BarChart {
  /** The `<figure>` to place in the page. */
  readonly element: HTMLElement;
  /** Under the caption: where a view puts the chart's own controls (the cost chart's toggle). */
  readonly controls: HTMLDivElement;
  private readonly caption: HTMLElement;
  private readonly total: HTMLElement;
  private readonly plot: HTMLDivElement;
  private readonly legend: HTMLUListElement;
  private readonly hover: HTMLParagraphElement;
  private readonly table: HTMLTableElement;
  private readonly empty: HTMLParagraphElement;
  private chart: uPlot | null = null;
  private spec: ChartSpec | null = null;
  private lastWidth = 0;
  private readonly observer: ResizeObserver;

  /** @param key a stable name (`data-chart`), e.g. "cost". */
  constructor(key: string) {
    const id = `chart-${key}-${++chartIds}`;
    this.caption = h("span", { class: "chart-title" });
    this.total = h("span", { class: "chart-total" });
    this.plot = h("div", { class: "chart-plot", "aria-hidden": "true" });
    this.hover = h("p", { class: "chart-hover muted", "aria-hidden": "true" });
    this.legend = h("ul", { class: "chart-legend", "aria-label": "Legend" });
    this.table = h("table", { class: "visually-hidden chart-table" });
    this.empty = h("p", { class: "chart-empty muted", hidden: true });
    this.controls = h("div", { class: "chart-controls" });
    this.element = h(
      "figure",
      { class: "chart", "data-chart": key, "aria-labelledby": id },
      h("figcaption", { id }, this.caption, " ", this.total),
      this.controls,
      this.plot,
      this.empty,
      this.hover,
      this.legend,
      this.table,
    );
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(this.plot);
  }

  /** Show `spec` (rebuilds the canvas: series may have changed). */
  update(spec: ChartSpec): void {
    this.spec = spec;
    const { data } = spec;
    this.caption.textContent = spec.title;
    const sum = data.series.reduce((a, s) => a + s.total, 0);
    this.total.textContent = `· ${spec.format(sum)} in ${data.days.length} days`;
    this.renderLegend(null);
    this.renderTable();
    const isEmpty = data.series.every((s) => s.values.every((v) => v === 0));
    this.empty.textContent = spec.emptyText;
    this.empty.hidden = !isEmpty;
    this.plot.hidden = isEmpty;
    this.hover.hidden = isEmpty;
    this.element.dataset["empty"] = String(isEmpty);
    this.destroyPlot();
    if (!isEmpty) this.build();
  }

  /** Draw again with the page's current colors (the color scheme changed). */
  retheme(): void {
    if (this.spec) this.update(this.spec);
  }

  /** Fit the canvas to the figure's width (no-op while hidden or unchanged). */
  resize(): void {
    const width = Math.floor(this.plot.clientWidth);
    if (!this.chart) {
      if (width > 0 && this.spec && !this.plot.hidden) this.build();
      return;
    }
    if (width <= 0 || width === this.lastWidth) return;
    this.lastWidth = width;
    this.chart.setSize({ width, height: CHART_HEIGHT });
  }

  /** Stop observing and free the canvas. */
  destroy(): void {
    this.observer.disconnect();
    this.destroyPlot();
  }

  private destroyPlot(): void {
    this.chart?.destroy();
    this.chart = null;
    this.lastWidth = 0;
    replaceChildren(this.plot);
  }

  private colorIndex(k: number): number {
    const c = this.spec?.colors?.[k] ?? k + 1;
    return ((c - 1) % PALETTE_SIZE) + 1;
  }

  private build(): void {
    const spec = this.spec;
    const width = Math.floor(this.plot.clientWidth);
    if (!spec || width <= 0) return;
    const { data } = spec;
    const muted = cssVar(this.element, "--muted", "#666");
    const grid = cssVar(this.element, "--border", "#ccc");
    const font = `12px ${getComputedStyle(this.element).fontFamily}`;
    const x = data.days.map((_, i) => i);
    const drawn = spec.stacked ? stackValues(data.series) : data.series.map((s) => s.values);
    // Stacked: the running sums drawn last-first, so each series' bar covers the ones above it.
    const order = data.series.map((_, k) => k).reverse();
    const bars = uPlot.paths.bars?.({ size: [0.7, 56], align: 0 });
    const days = data.days;
    const opts: uPlot.Options = {
      width,
      height: CHART_HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false }, y: false },
      scales: {
        x: { time: false, range: () => [-0.5, Math.max(0, days.length - 0.5)] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.12 : 1] },
      },
      axes: [
        {
          stroke: muted,
          font,
          size: 30,
          grid: { show: false },
          ticks: { show: false },
          splits: () => x,
          values: (u, splits) => {
            // Narrow: every other label, so they never overlap.
            const step = u.bbox.width / devicePixelRatio / Math.max(1, days.length) < 54 ? 2 : 1;
            return splits.map((i) =>
              (days.length - 1 - i) % step === 0 ? spec.dayTick(days[i] ?? "") : null,
            );
          },
        },
        {
          stroke: muted,
          font,
          size: 64,
          grid: { stroke: grid, width: 1 },
          ticks: { show: false },
          ...(spec.integers ? { incrs: INTEGER_INCRS } : {}),
          values: (_u, splits) => splits.map((v) => spec.format(v)),
        },
      ],
      series: [
        {},
        ...order.map((k) => {
          const color = cssVar(this.element, `--series-${this.colorIndex(k)}`, muted);
          const s: uPlot.Series = {
            label: data.series[k]?.name ?? "",
            stroke: color,
            fill: color,
            width: 0,
            points: { show: false },
          };
          if (bars) s.paths = bars;
          return s;
        }),
      ],
      hooks: {
        setCursor: [
          (u) => {
            const idx = u.cursor.idx;
            this.renderLegend(idx === null || idx === undefined ? null : idx);
          },
        ],
      },
    };
    const aligned: uPlot.AlignedData = [x, ...order.map((k) => drawn[k] ?? [])];
    this.chart = new uPlot(opts, aligned, this.plot);
    this.lastWidth = width;
  }

  /** The legend: every series with its total, or with day `idx`'s value while hovering. */
  private renderLegend(idx: number | null): void {
    const spec = this.spec;
    if (!spec) return;
    const day = idx === null ? null : (spec.data.days[idx] ?? null);
    this.hover.textContent = day === null ? "Totals" : spec.dayLabel(day);
    replaceChildren(
      this.legend,
      spec.data.series.map((s, k) =>
        h(
          "li",
          { "data-series": s.name },
          h("span", { class: `swatch series-${this.colorIndex(k)}`, "aria-hidden": "true" }),
          h("span", { class: "legend-name" }, s.name),
          " ",
          h("span", { class: "legend-value" }, spec.format(idx === null ? s.total : (s.values[idx] ?? 0))),
        ),
      ),
    );
  }

  /** The text alternative: one row per day, one column per series, and the totals. */
  private renderTable(): void {
    const spec = this.spec;
    if (!spec) return;
    const { days, series } = spec.data;
    replaceChildren(
      this.table,
      h("caption", {}, `${spec.title}, last ${days.length} days (UTC)`),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Day"),
          series.map((s) => h("th", { scope: "col" }, s.name)),
          spec.stacked ? h("th", { scope: "col" }, "All") : null,
        ),
      ),
      h(
        "tbody",
        {},
        days.map((d, i) =>
          h(
            "tr",
            { "data-day": d },
            h("th", { scope: "row" }, spec.dayLabel(d)),
            series.map((s) => h("td", {}, spec.format(s.values[i] ?? 0))),
            spec.stacked
              ? h("td", {}, spec.format(series.reduce((a, s) => a + (s.values[i] ?? 0), 0)))
              : null,
          ),
        ),
      ),
      h(
        "tfoot",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "row" }, "Total"),
          series.map((s) => h("td", {}, spec.format(s.total))),
          spec.stacked ? h("td", {}, spec.format(series.reduce((a, s) => a + s.total, 0))) : null,
        ),
      ),
    );
  }
}
