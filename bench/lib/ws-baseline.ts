/**
 * Starts the fan-out baseline server ({@link ./ws-baseline-main.ts}): a bare `ws` server that
 * generates and broadcasts the gateway's `OutputEvent` payloads without GraphQL, as its own process
 * so its CPU and RSS can be sampled like the gateway's.
 */
import path from "node:path";
import { startNode, type Child } from "./procs.js";
import type { WsBaselineConfig } from "./ws-baseline-main.js";

/** A running baseline server. */
export interface WsBaseline {
  child: Child;
  pid: number;
  /** `ws://127.0.0.1:<port>/`; subscribe with `variables.agentId` = `v0`…`v<agents-1>`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Start the baseline server generating `cfg.rate` events/s over `cfg.agents` virtual agents.
 * @throws (rejects) when it exits or does not print its port within `timeoutMs` (default 30 s).
 */
export async function startWsBaseline(cfg: WsBaselineConfig, timeoutMs = 30_000): Promise<WsBaseline> {
  let out = "";
  let onPort: (port: number) => void = () => {};
  const ready = new Promise<number>((r) => (onPort = r));
  const child = startNode(path.join(import.meta.dirname, "ws-baseline-main.ts"), [JSON.stringify(cfg)], {
    onStdout: (chunk) => {
      out += chunk;
      const m = /"port":(\d+)/.exec(out);
      if (m) onPort(Number(m[1]));
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const port = await Promise.race([
      ready,
      child.exited.then((code): never => {
        throw new Error(`ws baseline server exited (${code}) before it was ready:\n${child.stderr()}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`ws baseline server not ready after ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
    return { child, pid: child.pid, url: `ws://127.0.0.1:${port}/`, stop: () => child.stop() };
  } catch (err) {
    await child.stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
