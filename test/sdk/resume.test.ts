/**
 * The SDK's followed streams — `agentEvents`, `workspaceEvents`, `fleetEvents` — against a real
 * gateway behind a TCP proxy that cuts every connection mid-stream (both ends see the socket die,
 * as with a network failure or a gateway-side close): each resumes after the last cursor it
 * delivered, and delivers every stored event of its scope exactly once, in order, none missing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { createProsperoClient, type ProsperoClient } from "../../src/sdk/index.js";
import type { FleetEvent, NewEvent } from "../../src/events/index.js";

let h: AppHarness;
let proxy: TcpProxy;
const clients: ProsperoClient[] = [];
beforeAll(async () => {
  h = await startAppHarness();
  proxy = await startTcpProxy(h.app.gateway.port);
});
afterAll(async () => {
  for (const c of clients) await c.dispose();
  await proxy?.close();
  await h?.close();
});

function client(): ProsperoClient {
  const c = createProsperoClient({
    url: proxy.url,
    token: h.token,
    retry: { minDelayMs: 20, maxDelayMs: 100 },
    keepAliveMs: 0,
  });
  clients.push(c);
  return c;
}

async function agent(id: string): Promise<void> {
  await h.app.db.prisma.agent.create({
    data: { id, workspace: "demo", name: id, status: "running", spec: {}, startedAt: new Date() },
  });
}

function outputs(id: string, prefix: string, n: number): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: "output" as const,
    payload: { stream: "text" as const, text: `${prefix}${i}`, turnIndex: 0, blockIndex: 0 },
    workspace: "demo",
    agentId: id,
    tsMs: Date.now(),
  }));
}

/** Stored events of the global order after `after` that `keep` admits (what a fleet-wide stream owes). */
async function storedAfter(after: number, keep: (e: FleetEvent) => boolean): Promise<number[]> {
  return (await h.app.store.readGlobal(after, 100_000, keep)).map((e) => e.globalId!);
}

/** The globalId of a gateway cursor (this test knows the format; the SDK treats it as opaque). */
function globalIdOf(cursor: string): number {
  return Number(Buffer.from(cursor, "base64url").toString("utf8").split(":")[1]);
}

describe("followed streams resume after a cut connection with no duplicate and no hole", () => {
  it("agentEvents", async () => {
    const id = "f1f1f1f1f1f1";
    await agent(id);
    await h.app.store.append(outputs(id, "a", 200));
    const seqs: number[] = [];
    const reconnects: (string | null)[] = [];
    let cut = false;
    const result = await client().agentEvents(id, {
      onEvent: (e) => {
        seqs.push(e.seq);
        if (!cut && seqs.length === 50) {
          cut = true;
          expect(proxy.cut()).toBeGreaterThan(0);
          void (async () => {
            await h.app.store.append(outputs(id, "b", 100));
            await h.app.store.append([
              {
                kind: "status_changed",
                payload: { from: "running", to: "done" },
                workspace: "demo",
                agentId: id,
                tsMs: Date.now(),
              },
            ]);
          })();
        }
      },
      onReconnect: (info) => reconnects.push(info.lastCursor),
    });
    expect(result.completed).toBe(true);
    expect(reconnects.length).toBeGreaterThanOrEqual(1);
    expect(seqs).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
  });

  it("workspaceEvents and fleetEvents", async () => {
    const a = "f2f2f2f2f2f2";
    const b = "f3f3f3f3f3f3";
    await agent(a);
    await agent(b);
    const start = (await h.app.store.readGlobal(0, 1_000_000)).at(-1)?.globalId ?? 0;
    for (let i = 0; i < 4; i++) {
      await h.app.store.append(outputs(a, `a${i}-`, 30));
      await h.app.store.append(outputs(b, `b${i}-`, 30));
    }
    const c = client();
    const cursorOfStart = Buffer.from(`v1:${start}:0:fleet`, "utf8").toString("base64url");
    const follow = async (
      name: string,
      run: (opts: Parameters<ProsperoClient["workspaceEvents"]>[1]) => Promise<unknown>,
      keep: (e: FleetEvent) => boolean,
    ) => {
      const got: number[] = [];
      const ctrl = new AbortController();
      let cut = false;
      let reconnects = 0;
      let fed: Promise<void> | null = null;
      const finished = run({
        after: cursorOfStart,
        signal: ctrl.signal,
        onReconnect: () => void reconnects++,
        onEvent: (e) => {
          got.push(globalIdOf(e.cursor));
          if (!cut && got.length === 100) {
            cut = true;
            expect(proxy.cut()).toBeGreaterThan(0);
            fed = (async () => {
              await h.app.store.append(outputs(a, `${name}-late-a`, 40));
              await h.app.store.append(outputs(b, `${name}-late-b`, 40));
            })();
          }
        },
      });
      await waitFor(() => cut, 10_000, `${name}: the cut`);
      await fed;
      const expected = await storedAfter(start, keep);
      await waitFor(() => got.length >= expected.length, 20_000, `${name}: every event`);
      ctrl.abort();
      await finished;
      expect(reconnects).toBeGreaterThanOrEqual(1);
      expect(got).toEqual(expected);
    };
    await follow(
      "ws",
      (opts) => c.workspaceEvents("demo", opts),
      (e) => e.workspace === "demo",
    );
    await follow(
      "fleet",
      (opts) => c.fleetEvents({ ...opts, filter: { agentId: b } }),
      (e) => e.agentId === b,
    );
  });
});
