// The gateway's WebSocket connection class: messages of one event-loop turn leave in one TCP
// write, sends are acknowledged early only while little is queued (back-pressure kept).
import type { AddressInfo, Socket } from "node:net";
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { CoalescingWebSocket, EARLY_ACK_BYTES } from "../../src/server/coalescing-websocket.js";
import { waitFor } from "../helpers/fleet-harness.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server using CoalescingWebSocket and one connected client; resolves both ends. */
async function pair(): Promise<{ server: CoalescingWebSocket; client: WebSocket }> {
  const http0 = http.createServer();
  const wss = new WebSocketServer({ server: http0, WebSocket: CoalescingWebSocket });
  await new Promise<void>((resolve) => http0.listen(0, "127.0.0.1", resolve));
  const port = (http0.address() as AddressInfo).port;
  const accepted = new Promise<CoalescingWebSocket>((resolve) =>
    wss.once("connection", (ws) => resolve(ws as CoalescingWebSocket)),
  );
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  client.on("error", () => {});
  await new Promise((resolve) => client.once("open", resolve));
  const server = await accepted;
  cleanups.push(async () => {
    client.terminate();
    for (const c of wss.clients) c.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => http0.close(resolve));
  });
  return { server, client };
}

/** Send like graphql-ws does: one message at a time, each awaiting its callback. */
function sendAwaited(ws: WebSocket, data: string): Promise<void> {
  return new Promise((resolve, reject) => ws.send(data, (err) => (err ? reject(err) : resolve())));
}

describe("CoalescingWebSocket", () => {
  it("messages sent one after another in one turn leave in few writes, complete and in order", async () => {
    const { server, client } = await pair();
    const received: string[] = [];
    client.on("message", (d: Buffer) => received.push(d.toString()));
    const raw = (server as unknown as { _socket: Socket & { _writev: (...a: unknown[]) => void } })._socket;
    let writes = 0;
    const writev = raw._writev.bind(raw);
    raw._writev = (...args: unknown[]) => {
      writes++;
      writev(...args);
    };
    const write = raw._write.bind(raw);
    raw._write = (...args: Parameters<typeof raw._write>) => {
      writes++;
      write(...args);
    };
    const n = 2000;
    for (let i = 0; i < n; i++) await sendAwaited(server, `{"seq":${i}}`);
    await waitFor(() => received.length === n, 10_000, "every message");
    expect(received).toEqual(Array.from({ length: n }, (_, i) => `{"seq":${i}}`));
    // ws's default: one write per message (2,000). Corked per turn: a handful.
    expect(writes).toBeLessThan(n / 20);
  });

  it("a client that stops reading: sends are acknowledged only while little is queued, then wait", async () => {
    const { server, client } = await pair();
    (client as unknown as { _socket: Socket })._socket.pause();
    const msg = "x".repeat(16 * 1024);
    let acked = 0;
    const pump = (async () => {
      for (;;) {
        await sendAwaited(server, msg);
        acked++;
      }
    })();
    pump.catch(() => {}); // ends with the socket in cleanup
    // Acks stop once the kernel buffers are full and EARLY_ACK_BYTES are queued here.
    let last = -1;
    await waitFor(
      async () => {
        const now = acked;
        const still = now === last;
        last = now;
        await new Promise((r) => setTimeout(r, 200));
        return still && now > 0;
      },
      10_000,
      "acks to stop",
    );
    expect(server.bufferedAmount).toBeGreaterThanOrEqual(EARLY_ACK_BYTES);
    expect(server.bufferedAmount).toBeLessThan(EARLY_ACK_BYTES + 2 * msg.length);
    // Reading again lets the sender go on.
    const stalledAt = acked;
    (client as unknown as { _socket: Socket })._socket.resume();
    await waitFor(() => acked > stalledAt + 100, 10_000, "acks to resume");
  });

  it("a send after close reports the error through its callback, as ws does", async () => {
    const { server } = await pair();
    server.close();
    await new Promise((resolve) => server.once("close", resolve));
    await expect(sendAwaited(server, "late")).rejects.toThrow(/CLOSED|not open/i);
  });
});
