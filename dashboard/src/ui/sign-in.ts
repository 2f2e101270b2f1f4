/**
 * The sign-in panel shown when the page has no session: one password field for an API token. The
 * admin token is in the gateway's data dir (`admin-token`), and the gateway logs a ready-to-open
 * URL carrying it; other people get their own token from an admin (`prospero token create`).
 */
import { signIn } from "../api/session.js";
import { h, replaceChildren } from "./dom.js";

/**
 * Render the panel into `root`. `reason` says why (e.g. the session ended); `onSignedIn` runs once
 * the gateway accepted the token.
 */
export function renderSignIn(root: HTMLElement, reason: string | null, onSignedIn: () => void): void {
  const input = h("input", {
    id: "sign-in-token",
    name: "token",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    "aria-describedby": "sign-in-hint",
  });
  const error = h("p", { id: "sign-in-error", class: "error", role: "alert", hidden: reason === null });
  if (reason !== null) error.textContent = reason;
  const button = h("button", { type: "submit", class: "button primary" }, "Sign in");
  const form = h(
    "form",
    {
      class: "sign-in",
      "aria-labelledby": "sign-in-heading",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const token = input.value.trim();
        if (token === "") return;
        button.disabled = true;
        void signIn(token).then((failure) => {
          button.disabled = false;
          if (failure === null) {
            input.value = "";
            onSignedIn();
            return;
          }
          error.textContent = failure;
          error.hidden = false;
          input.focus();
        });
      },
    },
    h("h2", { id: "sign-in-heading" }, "Sign in"),
    h(
      "p",
      { id: "sign-in-hint", class: "hint" },
      "Paste an API token. The admin token is in the gateway's data directory (file admin-token), and the gateway's log prints a dashboard URL that signs you in; ask an admin for a token of your own (prospero token create).",
    ),
    h("div", { class: "field" }, h("label", { for: "sign-in-token" }, "Token"), input),
    error,
    button,
  );
  replaceChildren(root, form);
  input.focus();
}
