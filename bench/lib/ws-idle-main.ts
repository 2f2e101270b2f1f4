/**
 * A bare `ws` server that accepts graphql-transport-ws connections and sends nothing after the
 * `connection_ack`: the baseline for the memory of an idle connection without GraphQL.
 * Prints `{"port":N}` on stdout once listening; SIGTERM exits 0. Started by ./ws-idle.ts.
 */
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
wss.on("connection", (ws) => {
  ws.on("message", (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as { type?: string };
    if (msg.type === "connection_init") ws.send(JSON.stringify({ type: "connection_ack" }));
  });
});
wss.on("listening", () => {
  const addr = wss.address();
  if (addr !== null && typeof addr === "object")
    process.stdout.write(`${JSON.stringify({ port: addr.port })}\n`);
});
process.on("SIGTERM", () => wss.close(() => process.exit(0)));
