/**
 * The connection class of the gateway's graphql-ws server (ws's `WebSocket` server option):
 * messages sent during one turn of the event loop leave in one TCP write, and a send is
 * acknowledged at once while little is queued.
 *
 * Why: graphql-ws sends every subscription event as its own message and waits for each send's
 * callback before pulling the next event. With ws's defaults that is one `writev` system call
 * and one event-loop turn per event per subscriber — 42 % of the gateway's CPU while replaying a
 * long history (bench `replay`, V8 profile), and the reason fan-out to many subscribers could not
 * keep up.
 *
 * Back-pressure is kept: once {@link EARLY_ACK_BYTES} or more are queued on the connection, a
 * send's callback waits for its write as before, so graphql-ws stops pulling and a subscriber
 * that stops reading holds at most about that much here (its bus buffer then overflows into a
 * Gap, as the schema describes). A write error still closes the socket, which graphql-ws sees.
 *
 * A text message carrying a shared result's marker gets that result's JSON spliced in before it is
 * framed (serialize once for many subscribers: src/server/shared-payload.ts).
 */
import type { Socket } from "node:net";
import WebSocket from "ws";
import { spliceSharedPayload } from "./shared-payload.js";

/** Bytes queued on a connection below which a send is acknowledged without waiting: 256 KiB. */
export const EARLY_ACK_BYTES = 256 * 1024;

/** Options of ws's `send` (mask, binary, compress, fin). */
type SendOptions = Exclude<Parameters<WebSocket["send"]>[1], ((err?: Error) => void) | undefined>;
type SendCallback = (err?: Error) => void;
type SendData = Parameters<WebSocket["send"]>[0];

/** A server-side WebSocket whose sends are corked per event-loop turn (see the module comment). */
export class CoalescingWebSocket extends WebSocket {
  private corked = false;

  override send(data: SendData, cb?: SendCallback): void;
  override send(data: SendData, options: SendOptions, cb?: SendCallback): void;
  override send(message: SendData, optionsOrCb?: SendOptions | SendCallback, maybeCb?: SendCallback): void {
    const data = typeof message === "string" ? spliceSharedPayload(message) : message;
    const options = typeof optionsOrCb === "function" ? {} : (optionsOrCb ?? {});
    const cb = typeof optionsOrCb === "function" ? optionsOrCb : maybeCb;
    if (this.readyState !== WebSocket.OPEN) {
      super.send(data, options, cb); // ws reports the closed state through `cb`
      return;
    }
    this.corkForThisTurn();
    if (cb === undefined || this.bufferedAmount >= EARLY_ACK_BYTES) {
      super.send(data, options, cb);
      return;
    }
    super.send(data, options);
    // A microtask, not a tick: the sender's next message joins this turn's write.
    queueMicrotask(() => cb());
  }

  /**
   * Cork the TCP socket until the current turn's microtasks and ticks ran. `_socket` is ws's
   * (undocumented but long-standing) handle on the connection's `net.Socket`.
   */
  private corkForThisTurn(): void {
    if (this.corked) return;
    const raw = (this as unknown as { _socket?: Socket | null })._socket;
    if (!raw || raw.destroyed) return;
    this.corked = true;
    raw.cork();
    process.nextTick(() => {
      this.corked = false;
      raw.uncork();
    });
  }
}
