/**
 * Memory of a child process measured after a full garbage collection, through the V8 inspector
 * (the child runs with `--inspect=127.0.0.1:0`): RSS alone moves with GC timing by more than the
 * per-item figures a footprint benchmark looks for, so every reading forces a GC first.
 */
import { waitFor } from "../../test/helpers/fleet-harness.js";
import WebSocket from "ws";
import { sampleProc, sleep, type Child } from "./procs.js";

/** Node flag a child needs for {@link connectInspector}. */
export const INSPECT_FLAG = "--inspect=127.0.0.1:0";

/** Memory after a full GC. */
export interface SettledMemory {
  /** Resident set, bytes. */
  rssBytes: number;
  /** V8 heap in use, bytes (`Runtime.getHeapUsage().usedSize`). */
  heapBytes: number;
}

/** An inspector session on a child. */
export interface Inspector {
  /** Force a full GC, let the allocator settle, then read RSS and heap (median of `rounds`). */
  settled(rounds?: number): Promise<SettledMemory>;
  close(): void;
}

/**
 * Connect to the inspector of `child` (its URL is read from the "Debugger listening on" line
 * on its stderr).
 * @throws (rejects) when no inspector URL appears within 15 s or the connection fails.
 */
export async function connectInspector(child: Child): Promise<Inspector> {
  const url = await waitFor(
    () => /Debugger listening on (ws:\/\/\S+)/.exec(child.stderr())?.[1],
    15_000,
    `the inspector URL of pid ${child.pid}`,
    20,
  );
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.on("message", (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as { id?: number; result?: unknown; error?: { message: string } };
    if (msg.id === undefined) return;
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w?.reject(new Error(msg.error.message));
    else w?.resolve(msg.result);
  });
  const call = <T>(method: string, params: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async settled(rounds = 3) {
      const rss: number[] = [];
      const heap: number[] = [];
      for (let i = 0; i < rounds; i++) {
        await call("HeapProfiler.collectGarbage");
        await sleep(300);
        rss.push((await sampleProc(child.pid)).rssBytes);
        heap.push((await call<{ usedSize: number }>("Runtime.getHeapUsage")).usedSize);
      }
      const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
      return { rssBytes: mid(rss), heapBytes: mid(heap) };
    },
    close: () => ws.close(),
  };
}
