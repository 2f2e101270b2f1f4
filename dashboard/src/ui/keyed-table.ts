/**
 * A table whose rows are keyed (a launch id, a schedule id) and updated in place: a cell is
 * redrawn only when what it shows changed, and a row moves only when its place changed, so a
 * focused link or button keeps its focus while the data changes around it.
 */
import { h, replaceChildren, type Child } from "./dom.js";

/**
 * What a cell shows: text, or content with a key saying when it changed (the cell is redrawn
 * only when the key differs from the last one drawn).
 */
export type CellContent = string | { key: string; content: Child };

/** One column: its header and how a row's cell is drawn. */
export interface Column<T> {
  header: string;
  /** Class of the header and the cells, e.g. `num`. */
  cls?: string;
  /** The row's header cell (`<th scope="row">`); one column should be. */
  rowHeader?: boolean;
  /** The cell's content for `item` at `now` (ms since the epoch, for ages). */
  cell(item: T, now: number): CellContent;
}

interface Row<T> {
  tr: HTMLTableRowElement;
  cells: HTMLTableCellElement[];
  keys: string[];
  item: T;
}

/** Table options. */
export interface KeyedTableOptions<T> {
  /** Accessible name of the table (its caption; visually hidden when `hideCaption`). */
  caption: string;
  hideCaption?: boolean;
  /** Class of the table. */
  cls: string;
  columns: Column<T>[];
  /** The row key of an item. */
  key(item: T): string;
  /** Attributes set on each row (e.g. `data-state`), redrawn with the row. */
  rowData?(item: T): Record<string, string>;
  /** What the table says when there is no row. */
  empty: string;
}

/** A keyed table; `element` is the `<table>`. */
export class KeyedTable<T> {
  readonly element: HTMLTableElement;
  /** The column header cells, in column order (e.g. for sort buttons and `aria-sort`). */
  readonly headers: HTMLTableCellElement[];
  private readonly tbody = h("tbody");
  private readonly rows = new Map<string, Row<T>>();
  private readonly emptyRow: HTMLTableRowElement;
  private readonly note = h("td", {});
  private readonly noteRow: HTMLTableRowElement;

  constructor(private readonly opts: KeyedTableOptions<T>) {
    const n = opts.columns.length;
    this.emptyRow = h("tr", { class: "empty" }, h("td", { colspan: n }, opts.empty));
    this.note.colSpan = n;
    this.noteRow = h("tr", { class: "empty more" }, this.note);
    this.headers = opts.columns.map((c) => h("th", { scope: "col", class: c.cls }, c.header));
    this.element = h(
      "table",
      { class: `data ${opts.cls}` },
      h("caption", { class: opts.hideCaption ? "visually-hidden" : undefined }, opts.caption),
      h("thead", {}, h("tr", {}, this.headers)),
      this.tbody,
    );
    this.tbody.append(this.emptyRow);
  }

  /**
   * Show exactly `items`, in this order; `more` is a note after the last row (e.g. "and 12
   * more"), or null.
   */
  sync(items: readonly T[], now: number, more: string | null = null): void {
    const wanted = new Set(items.map((i) => this.opts.key(i)));
    for (const [key, row] of this.rows) {
      if (!wanted.has(key)) {
        row.tr.remove();
        this.rows.delete(key);
      }
    }
    let previous: HTMLTableRowElement | null = null;
    for (const item of items) {
      const key = this.opts.key(item);
      let row = this.rows.get(key);
      if (!row) {
        row = this.createRow(item);
        this.rows.set(key, row);
      }
      this.fill(row, item, now);
      const expected: ChildNode | null = previous ? previous.nextSibling : this.tbody.firstChild;
      // Move only a row out of place (moving a row would take the focus from its controls).
      if (expected !== row.tr) this.tbody.insertBefore(row.tr, expected);
      previous = row.tr;
    }
    if (this.rows.size > 0) this.emptyRow.remove();
    else this.tbody.prepend(this.emptyRow);
    if (more === null) this.noteRow.remove();
    else {
      this.note.textContent = more;
      this.tbody.append(this.noteRow);
    }
  }

  /** What the table says when there is no row (e.g. "Loading…", then "No runs yet"). */
  setEmpty(text: string): void {
    const cell = this.emptyRow.firstElementChild;
    if (cell && cell.textContent !== text) cell.textContent = text;
  }

  /** Redraw every cell at `now` (ages; changed cells only). */
  tick(now: number): void {
    for (const row of this.rows.values()) this.fill(row, row.item, now);
  }

  private createRow(item: T): Row<T> {
    // `data-label`: the column's name, shown next to the value where rows are stacked (narrow screens).
    const cells = this.opts.columns.map((c) =>
      c.rowHeader
        ? h("th", { scope: "row", class: c.cls, "data-label": c.header })
        : h("td", { class: c.cls, "data-label": c.header }),
    );
    const tr = h("tr", { "data-key": this.opts.key(item) }, cells);
    return { tr, cells, keys: cells.map(() => "\u0000"), item };
  }

  private fill(row: Row<T>, item: T, now: number): void {
    row.item = item;
    for (const [name, value] of Object.entries(this.opts.rowData?.(item) ?? {})) row.tr.dataset[name] = value;
    this.opts.columns.forEach((col, i) => {
      const c = col.cell(item, now);
      const key = typeof c === "string" ? `t:${c}` : `k:${c.key}`;
      const cell = row.cells[i];
      if (!cell || row.keys[i] === key) return;
      row.keys[i] = key;
      if (typeof c === "string") cell.textContent = c;
      else replaceChildren(cell, c.content);
    });
  }
}
