/** A modal confirmation in the page's `<dialog>` (focus is trapped and restored by the browser). */
import { byId, h, replaceChildren, type Child } from "./dom.js";

/** What to ask. */
export interface ConfirmOptions {
  title: string;
  body: string;
  /** Text of the confirming button, e.g. "Kill agent". */
  confirmLabel: string;
  /** Style the confirming button as destructive. */
  danger?: boolean;
  /** Extra controls (an option checkbox, a timeout field) read by the caller after confirmation. */
  extra?: Child;
}

/** Ask; resolves true only when the confirming button was used (Escape and Cancel are false). */
export function confirmAction(opts: ConfirmOptions): Promise<boolean> {
  const dialog = byId("confirm", HTMLDialogElement);
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const cancel = h("button", { type: "submit", value: "cancel", class: "button" }, "Cancel");
  replaceChildren(
    dialog,
    h(
      "form",
      { method: "dialog", class: "confirm-form" },
      h("h2", { id: "confirm-title" }, opts.title),
      h("p", {}, opts.body),
      opts.extra,
      h(
        "div",
        { class: "button-row" },
        cancel,
        h(
          "button",
          { type: "submit", value: "confirm", class: opts.danger ? "button danger" : "button primary" },
          opts.confirmLabel,
        ),
      ),
    ),
  );
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        resolve(dialog.returnValue === "confirm");
        if (opener?.isConnected) opener.focus();
      },
      { once: true },
    );
    dialog.showModal();
    cancel.focus();
  });
}
