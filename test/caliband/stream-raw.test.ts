// Per-agent stream reader and inbound writer against hand-written worker endpoints
// (caliband-protocol.md §1.7, §3.1–3.5, §9 #77). The faithful double is covered in client.test.ts.
import { readFixture } from "../support/fixtures.js";
import { mkdtemp, rm } from "node:fs/promises";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { Unreachable } from "../../src/caliband/errors.js";
import {
  connectWithRetry,
  openAgentStream,
  sendInbound,
  type StreamLine,
} from "../../src/caliband/stream.js";
import type { Endpoint } from "../../src/caliband/wire.js";

const RUN = readFixture("agent-basic.out.ndjson")
  .split("\n")
  .filter((l) => l !== "");

let dir: string;
let servers: net.Server[] = [];
let sockets: net.Socket[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cc-"));
});

afterEach(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
  sockets = [];
  await rm(dir, { recursive: true, force: true });
});

async function listen(socketPath: string, onConnection: (sock: net.Socket) => void): Promise<net.Server> {
  const server = net.createServer((sock) => {
    sockets.push(sock);
    sock.on("error", () => {});
    onConnection(sock);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}

async function collect(iter: AsyncIterable<StreamLine>): Promise<StreamLine[]> {
  const out: StreamLine[] = [];
  for await (const l of iter) out.push(l);
  return out;
}

describe("openAgentStream", () => {
  it("retries until a late-binding worker listens, then yields every frame until EOF", async () => {
    const socketPath = path.join(dir, "a.sock");
    const endpoint: Endpoint = { scheme: "unix", path: socketPath };
    setTimeout(() => {
      void listen(socketPath, (sock) => {
        sock.write("\n"); // blank lines are skipped and not counted
        for (const l of RUN) sock.write(`${l}\n`);
        sock.write("not json\n");
        sock.write('{"type":"FutureFrame"}\n');
        sock.end();
      });
    }, 300);
    const started = Date.now();
    const got = await collect(openAgentStream(endpoint, {}, { connectDeadlineMs: 5000 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(got.map((g) => g.index)).toEqual([...Array(RUN.length + 2).keys()]);
    expect(got.slice(0, RUN.length).map((g) => g.line)).toEqual(RUN);
    expect(got.slice(0, RUN.length).every((g) => g.parsed.ok)).toBe(true);
    expect(got.at(-1)!.parsed).toEqual({ ok: false, reason: "unknown_type", type: "FutureFrame" });
    expect(got.at(-2)!.parsed).toEqual({ ok: false, reason: "not_json" });
  });

  it("gives up after the connect deadline with Unreachable", async () => {
    const endpoint: Endpoint = { scheme: "unix", path: path.join(dir, "never.sock") };
    const started = Date.now();
    const err = await collect(openAgentStream(endpoint, {}, { connectDeadlineMs: 400 })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Unreachable);
    expect((err as Unreachable).reason).toMatch(/not accepting connections after 400 ms/);
    expect((err as Unreachable).errno).toBe("ENOENT");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("counts attempts and backs off", async () => {
    const socketPath = path.join(dir, "b.sock");
    setTimeout(() => void listen(socketPath, (s) => s.end()), 200);
    const { socket, attempts } = await connectWithRetry(
      { scheme: "unix", path: socketPath },
      {},
      { connectDeadlineMs: 3000 },
    );
    socket.destroy();
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThan(20); // exponential, not a busy loop
  });

  it("is cancelled by an AbortSignal while the worker stays silent", async () => {
    const socketPath = path.join(dir, "c.sock");
    let closed = false;
    await listen(socketPath, (sock) => {
      sock.write(`${RUN[0]}\n`);
      sock.on("close", () => (closed = true));
    });
    const ac = new AbortController();
    const seen: StreamLine[] = [];
    const p = (async () => {
      for await (const l of openAgentStream(
        { scheme: "unix", path: socketPath },
        {},
        { signal: ac.signal },
      )) {
        seen.push(l);
        setTimeout(() => ac.abort(new Error("cancelled")), 50);
      }
    })();
    await expect(p).rejects.toThrow("cancelled");
    expect(seen).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
  });

  it("releases the socket when the consumer breaks out", async () => {
    const socketPath = path.join(dir, "d.sock");
    let closed = false;
    await listen(socketPath, (sock) => {
      for (const l of RUN) sock.write(`${l}\n`);
      sock.on("close", () => (closed = true));
    });
    for await (const l of openAgentStream({ scheme: "unix", path: socketPath }, {})) {
      if (l.index === 2) break;
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
  });
});

describe("sendInbound", () => {
  it("writes exactly one line to the per-agent endpoint while draining the replayed history", async () => {
    const socketPath = path.join(dir, "e.sock");
    const received: string[] = [];
    let sawEnd = false;
    await listen(socketPath, (sock) => {
      // the worker replays history on every connection (§3.5)
      const big = `${RUN.join("\n")}\n`.repeat(200);
      sock.write(big);
      let buf = "";
      sock.on("data", (d) => {
        buf += d.toString();
      });
      sock.on("end", () => {
        sawEnd = true;
        received.push(...buf.split("\n").filter((l) => l !== ""));
      });
    });
    await sendInbound(
      { scheme: "unix", path: socketPath },
      {},
      { type: "UserMessage", text: "ping from the operator" },
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(sawEnd).toBe(true);
    expect(received).toEqual(['{"type":"UserMessage","text":"ping from the operator"}']);
  });

  it("fails with Unreachable when nothing listens", async () => {
    await expect(
      sendInbound(
        { scheme: "unix", path: path.join(dir, "none.sock") },
        {},
        { type: "EndInput" },
        { deadlineMs: 300 },
      ),
    ).rejects.toBeInstanceOf(Unreachable);
  });
});
