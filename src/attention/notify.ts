/**
 * The notifier: the one place the inbox and the monitor hand notifications to whoever delivers
 * them (webhooks, issue 15 item 3). Synchronous fan-out; a listener that throws is logged and the
 * others still get the notification, so a bad consumer never breaks the producer.
 */
import type { Logger } from "../log.js";
import type { Notification } from "./types.js";

/** A consumer of notifications; must return quickly (queue slow work, never await a network call). */
export type NotificationListener = (n: Notification) => void;

/** Fan-out of {@link Notification}s to listeners. */
export class Notifier {
  private readonly listeners = new Set<NotificationListener>();
  /** Notifications emitted so far (for tests and metrics). */
  emitted = 0;

  constructor(private readonly log: Logger) {}

  /** Add a listener; returns the function that removes it. */
  on(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hand `n` to every listener, in the order they were added. Never throws. */
  emit(n: Notification): void {
    this.emitted++;
    for (const l of [...this.listeners]) {
      try {
        l(n);
      } catch (err) {
        this.log.error({ err, notification: n.id, type: n.type }, "a notification listener failed");
      }
    }
  }
}
