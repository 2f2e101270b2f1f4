/** A tiny element builder: no framework, no innerHTML (text is always text). */

/** Attribute values; functions under `on*` keys become event listeners. */
export type AttrValue = string | number | boolean | null | undefined | ((event: Event) => void);

/** What can be a child: text, a node, nothing, or a list of those. */
export type Child = string | Node | null | undefined | false | readonly Child[];

/**
 * Create `<tag>` with attributes and children. `true` sets a boolean attribute, `false`, `null`
 * and `undefined` leave it out; `class` may be given as `class`.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, AttrValue> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else if (value !== false && value !== null && value !== undefined) {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

/** Append children (flattening lists, skipping empty ones). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (typeof child === "string") parent.appendChild(document.createTextNode(child));
    else if (child instanceof Node) parent.appendChild(child);
    else append(parent, child);
  }
}

/** Replace all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The element with this id, typed; throws when the page skeleton lacks it. */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`#${id} is missing from the page`);
  return el;
}

/**
 * Fill a form's error box with `lines` (`<p>{lead}: first line</p>` and the rest as a list) and
 * show it, or hide and empty it for null. Shared by the launch and enqueue forms.
 */
export function showFormError(box: HTMLElement, lead: string, lines: string[] | null): void {
  if (!lines) {
    box.hidden = true;
    replaceChildren(box);
    return;
  }
  replaceChildren(
    box,
    h("p", {}, `${lead}: ${lines[0] ?? ""}`),
    lines.length > 1
      ? h(
          "ul",
          {},
          lines.slice(1).map((l) => h("li", {}, l)),
        )
      : null,
  );
  box.hidden = false;
}
