/** Starts {@link ./ws-idle-main.ts} as its own process and opens idle connections to it. */
import path from "node:path";
import { INSPECT_FLAG } from "./inspector.js";
import { startNode, type Child } from "./procs.js";
import { subscribe, subscribeMany, type Subscriber } from "./ws-client.js";

/** The running idle server. */
export interface IdleWsServer {
  /** The process (started with the inspector on: see ./inspector.ts). */
  child: Child;
  pid: number;
  /** Open `n` acknowledged connections (each sends one subscribe the server ignores). */
  connect(n: number): Promise<Subscriber[]>;
  stop(): Promise<void>;
}

/**
 * Start the idle bare-ws server process.
 * @throws (rejects) if it exits or does not report its port within 30 s.
 */
export async function startIdleWsServer(): Promise<IdleWsServer> {
  let out = "";
  let resolvePort!: (p: number) => void;
  const port = new Promise<number>((r) => (resolvePort = r));
  const child = startNode(path.join(import.meta.dirname, "ws-idle-main.ts"), [], {
    nodeArgs: [INSPECT_FLAG],
    onStdout: (chunk) => {
      out += chunk;
      const m = /"port":(\d+)/.exec(out);
      if (m?.[1]) resolvePort(Number(m[1]));
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const p = await Promise.race([
    port,
    child.exited.then((code): never => {
      throw new Error(`idle ws server exited (${code}):\n${child.stderr()}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("idle ws server did not start within 30 s")), 30_000);
    }),
  ]).finally(() => clearTimeout(timer));
  const url = `ws://127.0.0.1:${p}/`;
  return {
    child,
    pid: child.pid,
    connect: (n) => subscribeMany(n, () => subscribe(url, "subscription { idle }", {}, () => undefined)),
    stop: () => child.stop(),
  };
}
