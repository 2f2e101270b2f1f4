// CalibandClient, per-agent streams and inbound frames against the FakeCaliband test double, over
// a Unix socket and over TCP + TLS + bearer token (caliband-protocol.md §1, §3, §6).
import { readFixture } from "../support/fixtures.js";

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { CalibandClient } from "../../src/caliband/client.js";
import { AgentNotFound, InvalidState, Protocol, Unreachable } from "../../src/caliband/errors.js";
import { openAgentStream, sendInbound, type StreamLine } from "../../src/caliband/stream.js";
import type { Transport } from "../../src/caliband/transport.js";
import type { AgentRecord, Endpoint, TurnEvent } from "../../src/caliband/wire.js";
import { ConfigError } from "../../src/errors.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import { makeTestTls, type TestTls } from "../support/tls.js";

const TOKEN = "test-token-0123456789";
const RECORDED_RUN_TYPES = readFixture("agent-basic.out.ndjson")
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => (JSON.parse(l) as { type: string }).type);

let tlsMaterial: TestTls;
beforeAll(() => {
  tlsMaterial = makeTestTls();
});
afterAll(() => {
  tlsMaterial.cleanup();
});

let fakes: FakeCaliband[] = [];
let workspaces: TempWorkspace[] = [];
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  for (const w of workspaces) w.cleanup();
  fakes = [];
  workspaces = [];
});

type Mode = "unix" | "tcp";

interface Harness {
  fake: FakeCaliband;
  client: CalibandClient;
  transport: Transport;
}

async function start(
  mode: Mode,
  extra: { bindDelayMs?: number; deadlines?: Record<string, number> } = {},
): Promise<Harness> {
  const ws = makeTempWorkspace();
  workspaces.push(ws);
  const fake = await FakeCaliband.start({
    workspaceRoot: ws.root,
    env: { CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime },
    dataBase: ws.data,
    ...(extra.bindDelayMs !== undefined ? { bindDelayMs: extra.bindDelayMs } : {}),
    ...(mode === "tcp"
      ? {
          tcp: {
            listen: "127.0.0.1:0",
            cert: tlsMaterial.certPem,
            key: tlsMaterial.keyPem,
            token: TOKEN,
            // like caliband's 7100+: outside the kernel's ephemeral range (32768+), so a retrying
            // connect can never pick the not-yet-bound agent port as its own source port
            agentPortBase: 20_000 + Math.floor(Math.random() * 10_000),
          },
        }
      : {}),
  });
  fakes.push(fake);
  const endpoint = fake.endpoint;
  const client =
    endpoint.scheme === "unix"
      ? new CalibandClient(endpoint, { deadlines: extra.deadlines ?? {} })
      : new CalibandClient(
          { ...endpoint, tls: { caPem: tlsMaterial.caPem, serverName: "localhost" }, token: TOKEN },
          { deadlines: extra.deadlines ?? {} },
        );
  return { fake, client, transport: client.transport };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function recordOf(client: CalibandClient, id: string): Promise<AgentRecord | undefined> {
  return (await client.list()).find((a) => a.id === id);
}

async function statusBecomes(client: CalibandClient, id: string, status: string): Promise<void> {
  await waitFor(`${id} → ${status}`, async () =>
    (await recordOf(client, id))?.status === status ? true : undefined,
  );
}

async function collect(endpoint: Endpoint, transport: Transport): Promise<StreamLine[]> {
  const out: StreamLine[] = [];
  for await (const l of openAgentStream(endpoint, transport, { connectDeadlineMs: 5000 })) out.push(l);
  return out;
}

function frames(lines: StreamLine[]): TurnEvent[] {
  return lines.flatMap((l) => (l.parsed.ok ? [l.parsed.frame] : []));
}

describe.each<Mode>(["unix", "tcp"])("over %s", (mode) => {
  it("status answers with the daemon's pid and control endpoint", async () => {
    const { fake, client } = await start(mode);
    const status = await client.status();
    expect(status.pid).toBe(fake.pid);
    expect(status.agents).toBe(0);
    if (mode === "unix") expect(status.endpoint).toEqual({ scheme: "unix", path: fake.socketPath });
    else expect(status.endpoint).toEqual({ scheme: "tcp", addr: "127.0.0.1:0" }); // as configured (§1.7)
  });

  it("spawns, lists, attaches and streams a full run to EOF", async () => {
    const { client, transport } = await start(mode);
    const spawned = await client.spawn({
      label: "basic",
      initial_prompt: "Read README.md and summarize it.",
    });
    expect(spawned.id).toMatch(/^[0-9a-f]{12}$/);
    expect(spawned.endpoint.scheme).toBe(mode);
    const listed = await recordOf(client, spawned.id);
    expect(listed).toMatchObject({
      name: "basic",
      endpoint: spawned.endpoint,
      spec: { label: "basic", inherit_hooks: true },
    });
    expect(await client.attach(spawned.id)).toEqual(spawned.endpoint);

    const lines = await collect(spawned.endpoint, transport);
    expect(lines.map((l) => l.index)).toEqual([...lines.keys()]);
    expect(frames(lines).map((f) => f.type)).toEqual(RECORDED_RUN_TYPES);
    const end = frames(lines).at(-1);
    expect(end?.type === "RunEnd" && end.stopped_for).toEqual({ variant: "EndOfTurn" });
    await statusBecomes(client, spawned.id, "done");
    // attach still answers after exit (§1.7)
    expect(await client.attach(spawned.id)).toEqual(spawned.endpoint);
  });

  it("stream reader retries until the late worker binds", async () => {
    const { client, transport } = await start(mode, { bindDelayMs: 400 });
    const started = Date.now();
    // fake:delay keeps the bound worker alive longer than one backoff step before it streams
    const { endpoint } = await client.spawn({ initial_prompt: "hi fake:delay=400" });
    const lines = await collect(endpoint, transport);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(frames(lines).map((f) => f.type)).toEqual(RECORDED_RUN_TYPES);
  });

  it("kill, kill again, kill unknown", async () => {
    const { client, transport } = await start(mode);
    const { id, endpoint } = await client.spawn({ initial_prompt: "long job fake:hold=60000" });
    const seen: StreamLine[] = [];
    const reading = (async () => {
      for await (const l of openAgentStream(endpoint, transport)) seen.push(l);
    })();
    await waitFor("turn 1", async () => (seen.length >= 9 ? true : undefined));
    await client.kill(id);
    await reading; // the stream ends without RunEnd
    expect(frames(seen).some((f) => f.type === "RunEnd")).toBe(false);
    expect((await recordOf(client, id))?.status).toBe("killed");
    await client.kill(id);
    expect((await recordOf(client, id))?.status).toBe("killed");
    const err = await client.kill("nosuchagent0").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentNotFound);
    expect(err).toMatchObject({ id: "nosuchagent0" });
  });

  it("respawn returns a new id and retires the old one", async () => {
    const { client } = await start(mode);
    const { id } = await client.spawn({ initial_prompt: "x fake:hold=60000" });
    await client.kill(id);
    const newId = await client.respawn(id);
    expect(newId).toMatch(/^[0-9a-f]{12}$/);
    expect(newId).not.toBe(id);
    const ids = (await client.list()).map((a) => a.id);
    expect(ids).toContain(newId);
    expect(ids).not.toContain(id);
    await expect(client.respawn(id)).rejects.toBeInstanceOf(AgentNotFound);
    await client.rm(newId, { force: true });
  });

  it("rm: refused while running, forced, unknown", async () => {
    const { client } = await start(mode);
    const { id } = await client.spawn({ initial_prompt: "x fake:hold=60000" });
    const err = await client.rm(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidState);
    expect(err).toMatchObject({ op: "rm", id, status: "running" });
    await client.rm(id, { force: true });
    expect(await client.list()).toEqual([]);
    await expect(client.rm(id)).rejects.toBeInstanceOf(AgentNotFound);
    await expect(client.attach("nosuchagent0")).rejects.toBeInstanceOf(AgentNotFound);
  });

  it("maps internal errors to Protocol with the daemon's message", async () => {
    const { client } = await start(mode);
    const err = await client.spawn({ initial_prompt: "x", source: "nope" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Protocol);
    expect((err as Protocol).daemonMessage).toBe("source resolve: no such source: nope");
  });

  it("a hung daemon fails calls at their deadline", async () => {
    const { fake, client } = await start(mode, { deadlines: { list: 300, status: 300, kill: 300 } });
    fake.hang(true);
    for (const call of [() => client.list(), () => client.status(), () => client.kill("x")]) {
      const started = Date.now();
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Unreachable);
      expect((err as Unreachable).reason).toBe("timeout after 300 ms");
      expect(Date.now() - started).toBeLessThan(300 + 700);
    }
    fake.hang(false);
    expect((await client.status()).agents).toBe(0);
  });

  it("sendInbound drives an interactive agent: idle → running → idle → done", async () => {
    const { fake, client, transport } = await start(mode);
    const { id, endpoint } = await client.spawn({
      label: "chatty",
      initial_prompt: "Say hi, then wait.",
      interactive: true,
    });
    const seen: StreamLine[] = [];
    const reading = (async () => {
      for await (const l of openAgentStream(endpoint, transport)) seen.push(l);
    })();
    await statusBecomes(client, id, "idle");
    const turnStarts = (): number => frames(seen).filter((f) => f.type === "TurnStart").length;
    // the reader may trail the daemon's status by a few frames
    await waitFor("two turns streamed", async () =>
      frames(seen).filter((f) => f.type === "TurnEnd").length === 2 ? true : undefined,
    );
    expect(turnStarts()).toBe(2);

    const statuses = new Set<string>();
    const watching = (async () => {
      while (!statuses.has("done")) {
        const s = (await recordOf(client, id))?.status;
        if (s) statuses.add(s);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await sendInbound(endpoint, transport, { type: "UserMessage", text: "ping from the operator" });
    await waitFor("reply turn", async () => (turnStarts() === 3 ? true : undefined));
    await statusBecomes(client, id, "idle");
    expect(
      frames(seen).some(
        (f) => f.type === "AssistantTextDelta" && f.text === "You said: ping from the operator",
      ),
    ).toBe(true);

    await sendInbound(endpoint, transport, { type: "EndInput" });
    await reading;
    await watching;
    const end = frames(seen).at(-1);
    expect(end?.type).toBe("RunEnd");
    if (end?.type === "RunEnd") {
      expect(end.stopped_for).toEqual({ variant: "EndOfTurn" });
      expect(
        end.final_messages.some(
          (m) => m.role === "user" && JSON.stringify(m.content).includes("ping from the operator"),
        ),
      ).toBe(true);
    }
    expect(statuses.has("done")).toBe(true);
    expect((await recordOf(client, id))?.status).toBe("done");
    // the worker's own reports to the daemon: idle at each boundary, running on the UserMessage
    const reports = fake.requests
      .map((r) => JSON.parse(r.line) as { kind: string; id?: string; status?: string })
      .filter((r) => r.kind === "report_status" && r.id === id)
      .map((r) => r.status);
    expect(reports).toEqual(["idle", "running", "idle"]);
  });

  it("shutdown acks, then the endpoint is unreachable", async () => {
    const { fake, client } = await start(mode);
    await client.shutdown();
    await fake.whenShutdown();
    const err = await client.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Unreachable);
    expect((err as Unreachable).errno).toBe(mode === "unix" ? "ENOENT" : "ECONNREFUSED");
  });
});

describe("TCP transport security", () => {
  it("refuses a token without TLS at configuration time (#107)", async () => {
    const { fake } = await start("tcp");
    const endpoint = fake.endpoint;
    if (endpoint.scheme !== "tcp") throw new Error("expected tcp");
    expect(() => new CalibandClient({ scheme: "tcp", addr: endpoint.addr, token: TOKEN })).toThrow(
      ConfigError,
    );
    await expect(
      sendInbound({ scheme: "tcp", addr: endpoint.addr }, { token: TOKEN }, { type: "EndInput" }),
    ).rejects.toBeInstanceOf(ConfigError);
    expect(fake.requests).toEqual([]);
  });

  it("a server certificate from another CA is Unreachable", async () => {
    const { fake } = await start("tcp");
    const other = makeTestTls();
    try {
      const endpoint = fake.endpoint;
      if (endpoint.scheme !== "tcp") throw new Error("expected tcp");
      const client = new CalibandClient({
        scheme: "tcp",
        addr: endpoint.addr,
        tls: { caPem: other.caPem, serverName: "localhost" },
        token: TOKEN,
      });
      const err = await client.status().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Unreachable);
      expect((err as Unreachable).endpoint).toBe(`tls://${endpoint.addr}`);
      expect(fake.requests).toEqual([]);
    } finally {
      other.cleanup();
    }
  });

  it("a wrong server name is Unreachable", async () => {
    const { fake } = await start("tcp");
    const endpoint = fake.endpoint;
    if (endpoint.scheme !== "tcp") throw new Error("expected tcp");
    const client = new CalibandClient({
      scheme: "tcp",
      addr: endpoint.addr,
      tls: { caPem: tlsMaterial.caPem, serverName: "caliband.example" },
      token: TOKEN,
    });
    await expect(client.status()).rejects.toMatchObject({ errno: "ERR_TLS_CERT_ALTNAME_INVALID" });
  });

  it("a wrong token gets no answer (the daemon closes silently)", async () => {
    const { fake } = await start("tcp");
    const endpoint = fake.endpoint;
    if (endpoint.scheme !== "tcp") throw new Error("expected tcp");
    const client = new CalibandClient({
      scheme: "tcp",
      addr: endpoint.addr,
      tls: { caPem: tlsMaterial.caPem, serverName: "localhost" },
      token: "wrong-token",
    });
    const err = await client.status().catch((e: unknown) => e);
    expect(err instanceof Protocol || err instanceof Unreachable).toBe(true);
    expect(fake.requests).toEqual([]);
  });

  it("per-agent endpoints use the same CA and token", async () => {
    const { client, transport } = await start("tcp");
    const { endpoint } = await client.spawn({ initial_prompt: "hi fake:delay=200" });
    expect(endpoint.scheme).toBe("tcp");
    expect(frames(await collect(endpoint, transport)).at(-1)?.type).toBe("RunEnd");
  });
});
