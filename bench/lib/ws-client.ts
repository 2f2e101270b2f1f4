/**
 * A lean GraphQL-over-WebSocket subscriber (graphql-transport-ws protocol, the one graphql-ws
 * speaks) on a bare `ws` socket, so a benchmark can hold a thousand of them in one process and can
 * pause reading at the TCP level. Each subscriber carries one subscription.
 */
import type { Socket } from "node:net";
import WebSocket from "ws";

/** One open subscription. */
export interface Subscriber {
  ws: WebSocket;
  /** Resolves once the server acknowledged the connection and the subscription was sent. */
  ready: Promise<void>;
  /** Resolves when the server completes the subscription (or the socket closes). */
  done: Promise<void>;
  /** `next` payloads received. */
  received: number;
  /** Close code and reason once the socket closed (e.g. 1006 after a keep-alive terminate). */
  closed: { code: number; reason: string } | null;
  /** Stop reading from the socket (the server's sends back up into its buffers). */
  pause(): void;
  resume(): void;
  close(): void;
}

/**
 * Open a socket and subscribe. `onData` gets each `next` payload's `data`; errors from the server
 * reject `done`. `token` goes in the upgrade request's `Authorization: Bearer <token>` header, as
 * the CLI and the SDK send it: the gateway admits at most 8 upgrades per client address whose token
 * is still to come in `connection_init` (`MAX_PENDING_PER_ADDRESS`, a 503 beyond), and the bench
 * opens 50 at a time.
 */
export function subscribe(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  onData: (data: Record<string, unknown>) => void,
  token?: string,
): Subscriber {
  const ws = new WebSocket(url, "graphql-transport-ws", {
    perMessageDeflate: false,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  let resolveReady!: () => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  let resolveDone!: () => void;
  let rejectDone!: (e: Error) => void;
  const done = new Promise<void>((res, rej) => {
    resolveDone = res;
    rejectDone = rej;
  });
  done.catch(() => undefined);
  ready.catch(() => undefined);
  const sub: Subscriber = {
    ws,
    ready,
    done,
    received: 0,
    closed: null,
    pause: () => (ws as unknown as { _socket: Socket })._socket.pause(),
    resume: () => (ws as unknown as { _socket: Socket })._socket.resume(),
    close: () => ws.close(),
  };
  ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init" })));
  ws.on("message", (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as { type: string; payload?: unknown };
    if (msg.type === "connection_ack") {
      ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query, variables } }));
      resolveReady();
    } else if (msg.type === "next") {
      const p = msg.payload as { data?: Record<string, unknown>; errors?: unknown };
      if (p.errors) {
        rejectDone(new Error(`subscription error: ${JSON.stringify(p.errors)}`));
        return;
      }
      sub.received++;
      if (p.data) onData(p.data);
    } else if (msg.type === "error") {
      rejectDone(new Error(`subscription error: ${JSON.stringify(msg.payload)}`));
    } else if (msg.type === "complete") {
      resolveDone();
    } else if (msg.type === "ping") {
      ws.send(JSON.stringify({ type: "pong" }));
    }
  });
  ws.on("error", (e) => {
    rejectReady(e);
    rejectDone(e);
  });
  ws.on("close", (code: number, reason: Buffer) => {
    sub.closed = { code, reason: reason.toString() };
    rejectReady(new Error(`socket closed (${code}) before the subscription started`));
    resolveDone();
  });
  return sub;
}

/** Open `n` subscribers, at most `concurrency` handshakes at a time; resolves when all are ready. */
export async function subscribeMany(
  n: number,
  make: (i: number) => Subscriber,
  concurrency = 50,
): Promise<Subscriber[]> {
  const subs: Subscriber[] = [];
  for (let i = 0; i < n; i += concurrency) {
    const batch: Subscriber[] = [];
    for (let j = i; j < Math.min(n, i + concurrency); j++) batch.push(make(j));
    await Promise.all(batch.map((s) => s.ready));
    subs.push(...batch);
  }
  return subs;
}
