/**
 * A TCP proxy in front of a local port whose connections can all be cut at once: a network
 * failure between a client and the gateway (both ends see their socket die), for resume tests.
 */
import net from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** `http://127.0.0.1:<proxy port>`: use it as the gateway's URL. */
  url: string;
  /** Destroy every open connection (both sides); returns how many sockets were open. */
  cut(): number;
  /** Cut everything and stop listening. */
  close(): Promise<void>;
}

/** Start a proxy to `127.0.0.1:targetPort` on a free port. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    open.add(client);
    open.add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => {
      const n = open.size;
      for (const s of open) s.destroy();
      open.clear();
      return n;
    },
    close: () => {
      for (const s of open) s.destroy();
      open.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
