// CalibandClient against hand-written misbehaving servers: deadlines, EOF, garbage, over-long
// replies, missing/stale sockets (caliband-protocol.md §1.2, §1.5, §7). The faithful daemon is
// covered in client.test.ts.
import fs from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { CalibandClient, DEFAULT_DEADLINES } from "../../src/caliband/client.js";
import { AgentNotFound, InvalidState, Protocol, Unreachable } from "../../src/caliband/errors.js";
import { ConfigError } from "../../src/errors.js";
import { makeDeadSocket } from "./dead-socket.js";
import { FIXTURES_DIR } from "../support/fixtures.js";

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

/** A Unix server calling `onLine` for every request line; returns its socket path. */
async function serve(
  onLine: (line: string, sock: net.Socket) => void,
  onConnect?: (sock: net.Socket) => void,
): Promise<string> {
  const socketPath = path.join(dir, "ctl.sock");
  const server = net.createServer((sock) => {
    sockets.push(sock);
    sock.on("error", () => {});
    onConnect?.(sock);
    let buf = "";
    sock.on("data", (d) => {
      buf += d.toString("utf8");
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        onLine(line, sock);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return socketPath;
}

function client(
  socketPath: string,
  deadlines?: ConstructorParameters<typeof CalibandClient>[1],
): CalibandClient {
  return new CalibandClient({ scheme: "unix", path: socketPath }, deadlines);
}

describe("deadlines", () => {
  it("has the documented defaults", () => {
    expect(DEFAULT_DEADLINES).toEqual({
      list: 5000,
      status: 5000,
      attach: 5000,
      kill: 5000,
      rm: 5000,
      shutdown: 5000,
      report_status: 5000,
      spawn: 60000,
      respawn: 60000,
    });
    expect(client("/x").deadlines.spawn).toBe(60000);
    expect(client("/x", { deadlines: { list: 100 } }).deadlines).toMatchObject({ list: 100, status: 5000 });
  });

  it("fails a call to a daemon that accepts and never answers at its deadline", async () => {
    const seen: string[] = [];
    const socketPath = await serve((line) => seen.push(line));
    const c = client(socketPath, { deadlines: { list: 300, spawn: 500 } });
    for (const [call, deadline] of [
      [() => c.list(), 300],
      [() => c.spawn({ initial_prompt: "hi" }), 500],
      [() => c.status({ deadlineMs: 200 }), 200],
    ] as const) {
      const started = Date.now();
      const err = await call().catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(err).toBeInstanceOf(Unreachable);
      expect((err as Unreachable).reason).toBe(`timeout after ${deadline} ms`);
      expect(elapsed).toBeGreaterThanOrEqual(deadline - 5);
      expect(elapsed).toBeLessThan(deadline + 500);
    }
    expect(seen).toEqual(['{"kind":"list"}', expect.stringContaining('"kind":"spawn"'), '{"kind":"status"}']);
  });

  it("honours a caller's AbortSignal", async () => {
    const socketPath = await serve(() => {});
    const ac = new AbortController();
    const p = client(socketPath).list({ signal: ac.signal });
    setTimeout(() => ac.abort(new Error("stop")), 50);
    await expect(p).rejects.toThrow("stop");
  });
});

describe("one request per connection", () => {
  it("returns after one reply line without waiting for EOF (the daemon keeps connections open)", async () => {
    let connections = 0;
    const socketPath = await serve(
      (_line, sock) =>
        sock.write(
          '{"kind":"status","pid":7,"agents":0,"uptime_secs":1,"endpoint":{"scheme":"unix","path":"/x"}}\n',
        ),
      () => connections++,
    );
    const c = client(socketPath, { deadlines: { status: 2000 } });
    const started = Date.now();
    expect(await c.status()).toEqual({
      pid: 7,
      agents: 0,
      uptime_secs: 1,
      endpoint: { scheme: "unix", path: "/x" },
    });
    expect(await c.status()).toMatchObject({ pid: 7 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(connections).toBe(2);
  });

  it("reads a reply split over several writes and tolerates \\r\\n and blank lines", async () => {
    const socketPath = await serve((_line, sock) => {
      sock.write("\n\r\n");
      sock.write('{"kind":"lis');
      setTimeout(() => sock.write('ted","agents":[]}\r\n'), 20);
    });
    expect(await client(socketPath).list()).toEqual([]);
  });
});

describe("list replies", () => {
  const fixture = (status: string) =>
    fs
      .readFileSync(path.join(FIXTURES_DIR, "ctl-06-list-done.ndjson"), "utf8")
      .trim()
      .split("\n")
      .at(-1)!
      .replace('"status":"done"', `"status":"${status}"`);

  it("an unchanged reply gives the same frozen records again; a changed one is parsed anew; a bad one is still refused", async () => {
    let reply = fixture("running");
    const socketPath = await serve((_line, sock) => sock.write(`${reply}\n`));
    const c = client(socketPath);
    const first = await c.list();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ name: "fixture-basic", rawStatus: "running" });
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(Object.isFrozen(first[0]!.spec)).toBe(true);
    expect(() => {
      (first[0] as { name: string }).name = "changed";
    }).toThrow(TypeError);
    const record = first[0];
    first.pop(); // the array is the caller's own
    const again = await c.list();
    expect(again).toHaveLength(1);
    expect(again[0]).toBe(record); // not parsed again
    reply = fixture("done");
    const changed = await c.list();
    expect(changed[0]).toMatchObject({ rawStatus: "done" });
    expect(changed[0]).not.toBe(again[0]);
    reply = reply.replace('"agents":[', '"agents":[42,');
    await expect(c.list()).rejects.toBeInstanceOf(Protocol);
  });
});

describe("reply errors", () => {
  async function replyWith(text: string): Promise<CalibandClient> {
    return client(await serve((_line, sock) => sock.write(text)));
  }

  it("maps not_found, invalid_state and internal", async () => {
    const nf = await replyWith('{"kind":"error","error":{"kind":"not_found","id":"deadbeef0000"}}\n');
    const e1 = await nf.kill("deadbeef0000").catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(AgentNotFound);
    expect(e1).toMatchObject({ id: "deadbeef0000", code: "NOT_FOUND" });
  });

  it("maps invalid_state", async () => {
    const c = await replyWith(
      '{"kind":"error","error":{"kind":"invalid_state","op":"rm","id":"a1","status":"running"}}\n',
    );
    const e = await c.rm("a1").catch((err: unknown) => err);
    expect(e).toBeInstanceOf(InvalidState);
    expect(e).toMatchObject({ op: "rm", id: "a1", status: "running", code: "INVALID_STATE" });
  });

  it("maps internal to Protocol keeping the daemon's message", async () => {
    const c = await replyWith(
      '{"kind":"error","error":{"kind":"internal","message":"source resolve: no such source: nope"}}\n',
    );
    const e = await c.spawn({ initial_prompt: "x", source: "nope" }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(Protocol);
    expect(e).toMatchObject({ daemonMessage: "source resolve: no such source: nope", code: "PROTOCOL" });
    expect((e as Error).message).toContain("source resolve: no such source: nope");
  });

  it("treats an unexpected reply kind as Protocol", async () => {
    const c = await replyWith('{"kind":"killed"}\n');
    await expect(c.list()).rejects.toThrow(/unexpected reply kind "killed", expected "listed"/);
  });

  it("treats an unknown reply kind as Protocol", async () => {
    const c = await replyWith('{"kind":"listed_v2","agents":[]}\n');
    await expect(c.list()).rejects.toBeInstanceOf(Protocol);
  });

  it("treats garbage and a wrongly shaped reply as Protocol", async () => {
    await expect((await replyWith("hello\n")).list()).rejects.toThrow(/unparsable reply \(not_json\)/);
    await rm(path.join(dir, "ctl.sock"), { force: true });
    await expect(
      (await replyWith('{"kind":"spawned","id":5}\n')).spawn({ initial_prompt: "x" }),
    ).rejects.toThrow(/unparsable reply \(invalid/);
  });

  it("treats EOF before a reply line as Protocol", async () => {
    const socketPath = await serve((_line, sock) => sock.end());
    await expect(client(socketPath).list()).rejects.toThrow(/connection closed before a reply to list/);
  });

  it("treats an over-long reply line as Protocol", async () => {
    const socketPath = await serve((_line, sock) => sock.write(`{"kind":"listed","x":"${"a".repeat(5000)}`));
    await expect(client(socketPath, { maxLineBytes: 1024 }).list()).rejects.toThrow(/exceeds 1024 bytes/);
  });
});

describe("unreachable", () => {
  it("reports a missing socket as Unreachable ENOENT", async () => {
    const e = await client(path.join(dir, "none.sock"))
      .status()
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(Unreachable);
    expect(e).toMatchObject({ errno: "ENOENT", code: "UNREACHABLE", endpoint: path.join(dir, "none.sock") });
  });

  it("reports a stale regular file as Unreachable ECONNREFUSED", async () => {
    const stale = path.join(dir, "stale.sock");
    await writeFile(stale, "");
    await expect(client(stale).status()).rejects.toMatchObject({ errno: "ECONNREFUSED" });
  });

  it("reports a dead socket file as Unreachable ECONNREFUSED", async () => {
    const socketPath = path.join(dir, "dead.sock");
    await makeDeadSocket(socketPath);
    await expect(client(socketPath).list()).rejects.toMatchObject({ errno: "ECONNREFUSED" });
  });

  it("refuses a bearer token without TLS at configuration time (#107)", () => {
    expect(() => new CalibandClient({ scheme: "tcp", addr: "127.0.0.1:7070", token: "s3cret" })).toThrow(
      ConfigError,
    );
    expect(() => new CalibandClient({ scheme: "tcp", addr: "127.0.0.1:7070", token: "s3cret" })).toThrow(
      /plaintext/,
    );
    expect(() => new CalibandClient({ scheme: "tcp", addr: "no-port" })).toThrow(ConfigError);
    expect(
      () =>
        new CalibandClient({
          scheme: "tcp",
          addr: "localhost:1",
          tls: { caPem: "not a pem", serverName: "localhost" },
        }),
    ).toThrow(/TLS CA/);
  });
});
