/**
 * The launch drawer (issue 16 item 5): the header's "Launch" button opens the launch form in a
 * modal `<dialog>` on every view; Escape, the Close button or a click beside the panel closes it,
 * and the focus goes back to where it was. Viewers (who may not spawn) get no button.
 */
import type { Viewer } from "../api/session.js";
import { h, replaceChildren } from "./dom.js";

/** The drawer around the launch form; `body` is where the form goes. */
export class LaunchDrawer {
  /** The form's container. */
  readonly body = h("div", { class: "drawer-body" });
  private returnFocus: HTMLElement | null = null;

  constructor(
    private readonly dialog: HTMLDialogElement,
    private readonly opener: HTMLButtonElement,
    viewer: Viewer,
  ) {
    const close = h("button", { type: "button", class: "button drawer-close" }, "Close");
    close.addEventListener("click", () => this.close());
    replaceChildren(
      dialog,
      h(
        "div",
        { class: "drawer-panel" },
        h("header", { class: "drawer-head" }, h("h2", { id: "launch-heading" }, "Launch an agent"), close),
        this.body,
      ),
    );
    // A click on the backdrop (the dialog element itself, outside its panel) closes it.
    dialog.addEventListener("click", (ev) => {
      if (ev.target === dialog) this.close();
    });
    // Escape (the dialog's own cancel) closes it too; then the focus goes back.
    dialog.addEventListener("close", () => this.restoreFocus());
    opener.hidden = viewer.role === "VIEWER";
    opener.setAttribute("aria-haspopup", "dialog");
    opener.addEventListener("click", () => this.open());
  }

  /** Open the drawer with the focus on its first field. */
  open(): void {
    if (this.dialog.open) return;
    this.returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : this.opener;
    this.dialog.showModal();
    this.opener.setAttribute("aria-expanded", "true");
    this.body.querySelector<HTMLElement>("select, input, textarea")?.focus();
  }

  /** Close it (nothing happens when it is closed). */
  close(): void {
    if (this.dialog.open) this.dialog.close();
  }

  /** Whether it is open. */
  get isOpen(): boolean {
    return this.dialog.open;
  }

  private restoreFocus(): void {
    this.opener.setAttribute("aria-expanded", "false");
    const back = this.returnFocus;
    this.returnFocus = null;
    // After a launch the route moved the focus already (to the new agent's view): leave it there.
    if (
      back &&
      back.isConnected &&
      !back.hidden &&
      (document.activeElement === document.body || document.activeElement === null)
    )
      back.focus();
  }
}
