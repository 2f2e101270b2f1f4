/**
 * The fan-out baseline server process: the same payloads the gateway sends for an `OutputEvent`,
 * broadcast over a bare `ws` server with no GraphQL execution, store or bus. It generates the
 * events itself: {@link WsBaselineConfig.agents} virtual agents `v0`…`v<A-1>`, each emitting
 * `rate / agents` events/s on a fixed schedule (phases spread evenly over one period), whose text
 * is `@<wall ms with 3 decimals>` stamped right before the sends, as the simulator's paced script
 * stamps its frames.
 *
 * Clients speak just enough graphql-transport-ws for bench/lib/ws-client.ts to work unchanged:
 * `connection_init` → `connection_ack`; `subscribe` with `payload.variables.agentId` (a virtual
 * agent id) registers the socket for that agent, and every later event of that agent is sent as
 * `{"id":<subscribe id>,"type":"next","payload":{"data":{"agentEvents":{"__typename":"OutputEvent","text":"@…"}}}}`;
 * `ping` → `pong`. Unknown agent ids are ignored (the socket then receives nothing).
 *
 * Usage: node --import tsx bench/lib/ws-baseline-main.ts '<WsBaselineConfig JSON>'. Prints one line
 * `{"ready":true,"port":N}` on stdout once listening on 127.0.0.1; SIGTERM closes the server and
 * exits 0. Started by {@link startWsBaseline} in ./ws-baseline.ts.
 */
import { WebSocketServer, type WebSocket } from "ws";
import { wallMs } from "./bench-scripts.js";

/** What the baseline server generates (JSON given as the only argument). */
export interface WsBaselineConfig {
  /** Virtual agents (ids `v0`…`v<agents-1>`), integer ≥ 1. */
  agents: number;
  /** Total events/s over all agents (each agent emits `rate / agents` per second). */
  rate: number;
}

interface Sub {
  ws: WebSocket;
  /** The `{"id":…,"type":"next",…"text":"` prefix of every message to this subscription. */
  prefix: string;
}

function main(): void {
  const arg = process.argv[2];
  if (arg === undefined) {
    process.stderr.write("usage: ws-baseline-main '<config json>'\n");
    process.exit(2);
  }
  const cfg = JSON.parse(arg) as WsBaselineConfig;
  const subsByAgent = new Map<string, Sub[]>();
  for (let i = 0; i < cfg.agents; i++) subsByAgent.set(`v${i}`, []);

  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has("graphql-transport-ws") ? "graphql-transport-ws" : false),
  });
  wss.on("connection", (ws) => {
    let mine: { list: Sub[]; sub: Sub } | null = null;
    ws.on("message", (raw: Buffer) => {
      let msg: { type?: string; id?: string; payload?: { variables?: { agentId?: unknown } } };
      try {
        msg = JSON.parse(raw.toString()) as typeof msg;
      } catch {
        ws.close(4400, "bad message");
        return;
      }
      if (msg.type === "connection_init") {
        ws.send('{"type":"connection_ack"}');
      } else if (msg.type === "ping") {
        ws.send('{"type":"pong"}');
      } else if (msg.type === "subscribe" && mine === null) {
        const agentId = msg.payload?.variables?.agentId;
        const list = typeof agentId === "string" ? subsByAgent.get(agentId) : undefined;
        if (list === undefined) return;
        const sub: Sub = {
          ws,
          prefix: `{"id":${JSON.stringify(msg.id ?? "1")},"type":"next","payload":{"data":{"agentEvents":{"__typename":"OutputEvent","text":"`,
        };
        list.push(sub);
        mine = { list, sub };
      }
    });
    ws.on("close", () => {
      if (mine === null) return;
      const i = mine.list.indexOf(mine.sub);
      if (i >= 0) mine.list.splice(i, 1);
    });
  });

  // Fixed schedule per agent; a 1 ms timer emits every event that is due (catching up if late).
  const perAgent = cfg.rate / cfg.agents;
  const periodMs = 1000 / perAgent;
  const t0 = performance.now();
  const agents = [...subsByAgent.values()].map((list, i) => ({
    list,
    next: t0 + (i * periodMs) / cfg.agents,
  }));
  const tick = (): void => {
    const now = performance.now();
    for (const a of agents) {
      while (a.next <= now) {
        a.next += periodMs;
        const suffix = `@${wallMs().toFixed(3)}"}}}}`;
        for (const s of a.list) s.ws.send(s.prefix + suffix);
      }
    }
    timer = setTimeout(tick, 1);
  };
  let timer = setTimeout(tick, 1);

  const stop = (): void => {
    clearTimeout(timer);
    for (const ws of wss.clients) ws.terminate();
    wss.close(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  wss.on("listening", () => {
    const addr = wss.address();
    const port = typeof addr === "object" && addr !== null ? addr.port : 0;
    process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
  });
}

main();
