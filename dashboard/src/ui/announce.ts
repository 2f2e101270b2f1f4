/** Status messages for assistive technology, and the connection line. */
import type { ConnectionState } from "../api/live.js";
import { byId } from "./dom.js";

/** Say `message` politely through the page's live region. */
export function announce(message: string): void {
  const region = byId("announcer", HTMLDivElement);
  // Clear first so repeating the same message is announced again.
  region.textContent = "";
  window.setTimeout(() => {
    region.textContent = message;
  }, 50);
}

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Connection lost, reconnecting…",
  "signed-out": "Signed out",
};

/** Show the subscription connection's state (the element is a `role=status` live region). */
export function showConnection(state: ConnectionState): void {
  const el = byId("connection", HTMLParagraphElement);
  el.dataset["state"] = state;
  el.textContent = CONNECTION_TEXT[state];
}
