/**
 * A TCP relay in front of the gateway, to cut a client's connection the way a network does: the
 * client talks to `url`, every byte is copied both ways to the gateway, and `cut()` destroys every
 * relayed connection at once (both sockets, no close frame, no final SSE event) while the gateway
 * keeps running. New connections after a cut are relayed again, so a client can reconnect.
 */
import net from "node:net";

/** A running relay. */
export interface CutProxy {
  /** Base URL to give the client instead of the gateway's (same scheme, the relay's port). */
  url: string;
  /** Connections relayed so far (counts reconnects). */
  readonly accepted: number;
  /** Destroy every open relayed connection now; resolves once they are all closed. */
  cut(): Promise<void>;
  /** Stop accepting and destroy everything. */
  close(): Promise<void>;
}

/** Start a relay on 127.0.0.1 (a free port) to the gateway at `target` (an http:// base URL). */
export async function startCutProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on("close", () => open.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as net.AddressInfo;
  const destroyAll = async () => {
    const closing = [...open].map(
      (s) => new Promise<void>((r) => (s.destroyed ? r() : s.once("close", () => r()))),
    );
    for (const s of open) s.destroy();
    await Promise.all(closing);
  };
  return {
    url: `http://127.0.0.1:${address.port}`,
    get accepted() {
      return accepted;
    },
    cut: destroyAll,
    async close() {
      await destroyAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
