// Focused tests of caliband behaviours the recorded transcripts don't cover (docs/caliband-protocol.md
// §8 checklist), run against the FakeCaliband double and the caliband-sim process.
import { type ChildProcess, spawn as spawnProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import * as tls from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import {
  connectRaw,
  connectWhenBound,
  type ClientTls,
  LineClient,
  request,
  requestJson,
  statusOf,
  waitFor,
  waitForStatus,
} from "../support/caliband-client.js";
import { decodeCtlRequest } from "../support/ctl-request.js";
import { FakeCaliband, type FakeCalibandOptions, MAX_CTL_LINE } from "../support/fake-caliband.js";
import type { WorkerScript } from "../support/fake-scripts.js";
import {
  agentSocketDir,
  controlSocketPath,
  runtimeDir,
  workspaceHash,
  workspaceSlug,
} from "../support/paths.js";
import { makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import { makeTestTls } from "../support/tls.js";
import { splitHostPort } from "../support/transport.js";
import type { Endpoint } from "../support/wire-format.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");

type Json = Record<string, unknown>;
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A FakeCaliband over a fresh temp workspace; torn down after the test. */
async function startFake(
  extra: Partial<FakeCalibandOptions> = {},
): Promise<{ fake: FakeCaliband; ws: TempWorkspace; ep: Endpoint }> {
  const ws = makeTempWorkspace();
  cleanups.push(() => ws.cleanup());
  const fake = await FakeCaliband.start({
    workspaceRoot: ws.root,
    env: { CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime },
    dataBase: ws.data,
    ...extra,
  });
  cleanups.push(() => fake.close());
  return { fake, ws, ep: fake.endpoint };
}

async function spawnAgent(
  ep: Endpoint,
  spec: Json,
  auth?: ClientTls,
): Promise<{ id: string; endpoint: Endpoint }> {
  const r = await requestJson(ep, { kind: "spawn", spec }, auth);
  expect(r.kind).toBe("spawned");
  return { id: r.id as string, endpoint: r.endpoint as Endpoint };
}

/** Opens a line client and registers it for cleanup. */
function track(c: LineClient): LineClient {
  cleanups.push(() => c.close());
  return c;
}

const unixPath = (ep: Endpoint): string => (ep.scheme === "unix" ? ep.path : "");

function connectError(p: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.createConnection(p);
    s.once("connect", () => {
      s.destroy();
      resolve("connected");
    });
    s.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
  });
}

describe("control connection framing (§1.2)", () => {
  it("serves many requests on one connection in order; a bad line in the middle keeps it open", async () => {
    const { ep } = await startFake();
    const c = track(await LineClient.open(ep));
    c.write('{"kind":"status"}\n{not json\n\n   \n{"kind":"list"}\r\n{"kind":"Spawn"}\n{"kind":"status"}\n');
    expect(JSON.parse(await c.next()).kind).toBe("status");
    expect(await c.next()).toBe(
      '{"kind":"error","error":{"kind":"internal","message":"bad request: key must be a string at line 1 column 2"}}',
    );
    expect(await c.next()).toBe('{"kind":"listed","agents":[]}');
    expect(JSON.parse(await c.next()).error).toEqual({
      kind: "internal",
      message:
        "bad request: unknown variant `Spawn`, expected one of `list`, `spawn`, `attach`, `kill`, `respawn`, `rm`, `status`, `shutdown`, `report_status` at line 1 column 15",
    });
    expect(JSON.parse(await c.next()).kind).toBe("status");
    // The connection is not closed after ordinary replies; a final line without `\n` still counts.
    expect(c.closed).toBe(false);
    c.write('{"kind":"list"}');
    c.socket.end();
    expect(await c.next()).toBe('{"kind":"listed","agents":[]}');
    await c.readToEnd();
  });

  it("closes without a reply when a line reaches 1 MiB without a newline", async () => {
    const { fake, ep } = await startFake();
    const c = track(await LineClient.open(ep));
    c.write(Buffer.alloc(MAX_CTL_LINE, "a"));
    const lines = await c.readToEnd();
    expect(lines).toEqual([]);
    expect(fake.requests.at(-1)?.reply).toBeNull();
  });

  it("accepts a line of 1 MiB including its newline, rejects one byte more", async () => {
    const { ep } = await startFake();
    const head = '{"kind":"status","pad":"';
    const tail = '"}';
    const fill = (total: number): string => head + "x".repeat(total - head.length - tail.length) + tail;
    const ok = track(await LineClient.open(ep));
    ok.write(`${fill(MAX_CTL_LINE - 1)}\n`);
    expect(JSON.parse(await ok.next(10_000)).kind).toBe("status");
    const tooLong = track(await LineClient.open(ep));
    tooLong.write(`${fill(MAX_CTL_LINE)}\n`);
    expect(await tooLong.readToEnd()).toEqual([]);
  });

  it("closes without a reply on invalid UTF-8", async () => {
    const { ep } = await startFake();
    const c = track(await LineClient.open(ep));
    c.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    expect(await c.readToEnd()).toEqual([]);
  });

  it("mimics serde_json error texts", () => {
    const msg = (line: string): string => {
      const r = decodeCtlRequest(line);
      return r.ok ? "ok" : r.message;
    };
    expect(msg('{"kind":"spawn","spec":{"label":"no-prompt"}}')).toBe("missing field `initial_prompt`");
    expect(msg("{}")).toBe("missing field `kind` at line 1 column 2");
    expect(msg('{"bearer":"t"}')).toBe("missing field `kind` at line 1 column 14");
    expect(msg('{"kind":"kill"}')).toBe("missing field `id`");
    expect(msg('{"kind":"kill","id":7}')).toBe("invalid type: integer `7`, expected a string");
    expect(msg('{"kind":"rm","id":"a","force":"yes"}')).toBe(
      'invalid type: string "yes", expected a boolean',
    );
    expect(msg('{"kind":"report_status","id":"a","status":"busy"}')).toBe(
      "unknown variant `busy`, expected one of `spawning`, `running`, `idle`, `killed`, `done`, `failed`, `crashed`",
    );
    expect(msg('{"kind":"list"} x')).toBe("trailing characters at line 1 column 17");
    expect(msg('{"kind":"list",}')).toBe("trailing comma at line 1 column 16");
    expect(msg('{"kind":"list","extra":[1,{"a":null}]}')).toBe("ok");
  });
});

describe("control operations (§1.7)", () => {
  it("replies spawned before the worker binds; connecting early fails, later works (bind delay)", async () => {
    const { ep } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "slow bind fake:bind-delay=800" });
    expect(["ENOENT", "ECONNREFUSED"]).toContain(await connectError(unixPath(a.endpoint)));
    expect(await statusOf(ep, a.id)).toBe("running");
    const c = track(await connectWhenBound(a.endpoint));
    const lines = await c.readToEnd();
    expect(lines.at(-1)).toContain('"type":"RunEnd"');
    await waitForStatus(ep, a.id, "done");
    expect(["ENOENT", "ECONNREFUSED"]).toContain(await connectError(unixPath(a.endpoint)));
  });

  it("kill turns even a done agent into killed; respawn keeps the old worker running", async () => {
    const { fake, ep } = await startFake();
    const done = await spawnAgent(ep, { initial_prompt: "quick" });
    await waitForStatus(ep, done.id, "done");
    expect((await requestJson(ep, { kind: "kill", id: done.id })).kind).toBe("killed");
    expect(await statusOf(ep, done.id)).toBe("killed");

    const live = await spawnAgent(ep, { label: "live", initial_prompt: "long fake:hold=60000" });
    const reader = track(await connectWhenBound(live.endpoint));
    await reader.waitForLine((l) => l.includes('"turn_index":1'));
    const r = await requestJson(ep, { kind: "respawn", id: live.id });
    expect(Object.keys(r)).toEqual(["kind", "id"]);
    const newId = r.id as string;
    expect(newId).not.toBe(live.id);
    expect(await statusOf(ep, live.id)).toBeUndefined();
    const list = (await requestJson(ep, { kind: "list" })).agents as Json[];
    const fresh = list.find((x) => x.id === newId)!;
    expect(fresh.name).toBe("live");
    expect((fresh.endpoint as { path: string }).path).not.toBe(unixPath(live.endpoint));
    // The old worker was not signalled: still streaming, its socket still there.
    expect(fake.agent(live.id)?.state).toBe("running");
    expect(await connectError(unixPath(live.endpoint))).toBe("connected");
    fake.agent(live.id)!.release();
    expect((await reader.readToEnd()).at(-1)).toContain('"type":"RunEnd"');
  });

  it("rm refuses non-terminal agents without force and stops the worker with force", async () => {
    const { fake, ep, ws } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "long fake:hold=60000" });
    expect(await request(ep, JSON.stringify({ kind: "rm", id: a.id }))).toBe(
      `{"kind":"error","error":{"kind":"invalid_state","op":"rm","id":"${a.id}","status":"running"}}`,
    );
    expect(fs.existsSync(path.join(ws.data, a.id, "manifest.json"))).toBe(true);
    expect(await request(ep, JSON.stringify({ kind: "rm", id: a.id, force: true }))).toBe(
      '{"kind":"removed"}',
    );
    expect(fake.agent(a.id)?.exitSignal).toBe("SIGTERM");
    expect(fs.existsSync(path.join(ws.data, a.id))).toBe(false);
  });

  it("report_status applies only running↔idle and always acknowledges", async () => {
    const { ep } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "long fake:hold=60000" });
    const report = (id: string, status: string): Promise<string> =>
      request(ep, JSON.stringify({ kind: "report_status", id, status }));
    expect(await report(a.id, "idle")).toBe('{"kind":"status_reported"}');
    expect(await statusOf(ep, a.id)).toBe("idle");
    expect(await report(a.id, "done")).toBe('{"kind":"status_reported"}');
    expect(await statusOf(ep, a.id)).toBe("idle");
    expect(await report("000000000000", "running")).toBe('{"kind":"status_reported"}');
    await requestJson(ep, { kind: "kill", id: a.id });
    await report(a.id, "running");
    expect(await statusOf(ep, a.id)).toBe("killed");
  });

  it("resolves sources and isolation like caliband (§2.6, §5.5)", async () => {
    const { ep, ws } = await startFake();
    const err = async (spec: Json): Promise<unknown> =>
      (await requestJson(ep, { kind: "spawn", spec })).error;
    expect(await err({ initial_prompt: "x", source: "../etc" })).toEqual({
      kind: "internal",
      message: "source resolve: invalid source name: ../etc",
    });
    expect(await err({ initial_prompt: "x", source: "" })).toEqual({
      kind: "internal",
      message: "source resolve: invalid source name: ",
    });
    fs.mkdirSync(path.join(ws.root, "plain-dir"));
    expect(await err({ initial_prompt: "x", source: "plain-dir", isolation_worktree: true })).toEqual({
      kind: "internal",
      message: `worktree create: not a git repository: ${path.join(ws.root, "plain-dir")}`,
    });
    const a = await spawnAgent(ep, { initial_prompt: "x fake:hold=60000", source: "plain-dir" });
    const rec = ((await requestJson(ep, { kind: "list" })).agents as Json[]).find((x) => x.id === a.id)!;
    expect(rec.working_dir).toBe(path.join(ws.root, "plain-dir"));
    expect((rec.spec as Json).source).toBe("plain-dir");
  });

  it("echoes inherited_hooks_config only when set, before source", async () => {
    const { ep } = await startFake();
    const a = await spawnAgent(ep, {
      initial_prompt: "x fake:hold=60000",
      inherited_hooks_config: '{"rules":[]}',
      tool_allowlist: ["Read"],
      extra_field: "dropped",
    });
    const line = await request(ep, '{"kind":"list"}');
    expect(line).toContain(
      `"spec":{"label":null,"frontmatter_path":null,"initial_prompt":"x fake:hold=60000","model":null,"provider":null,"tool_allowlist":["Read"],"isolation_worktree":false,"inherit_hooks":true,"interactive":false,"inherited_hooks_config":"{\\"rules\\":[]}","source":null}`,
    );
    expect(line).toContain(`"name":"agent-${a.id}"`);
  });

  it("simulates launch failure, preflight failure, exit codes, stream errors and unknown frames", async () => {
    const { fake, ep, ws } = await startFake();
    const launch = await spawnAgent(ep, { initial_prompt: "fake:launch-fail" });
    expect(await statusOf(ep, launch.id)).toBe("failed");

    const pre = await spawnAgent(ep, { initial_prompt: "fake:preflight-fail" });
    await waitForStatus(ep, pre.id, "failed");
    expect(fake.agent(pre.id)?.exitCode).toBe(1);
    expect(fs.readFileSync(path.join(ws.data, pre.id, "worker.log"), "utf8")).toContain("preflight-fail");
    await new Promise((r) => setTimeout(r, 80));
    expect(await connectError(unixPath(pre.endpoint))).toBe("ENOENT");

    const badProvider = await spawnAgent(ep, { initial_prompt: "x", provider: "bedrock" });
    await waitForStatus(ep, badProvider.id, "failed");
    expect(fake.agent(badProvider.id)?.exitCode).toBe(64);

    const exit = await spawnAgent(ep, { initial_prompt: "fake:exit=3" });
    await waitForStatus(ep, exit.id, "failed");
    expect(fake.agent(exit.id)?.exitCode).toBe(3);

    const noEnd = await spawnAgent(ep, { initial_prompt: "fake:no-run-end fake:unknown-frame" });
    const lines = await track(await connectWhenBound(noEnd.endpoint)).readToEnd();
    await waitForStatus(ep, noEnd.id, "failed");
    expect(lines.map((l) => (JSON.parse(l) as Json).type)).toEqual([
      "TurnStart",
      "FakeUnknownFrame",
      "AssistantTextDelta",
      "AssistantTextDelta",
      "ToolCallStart",
      "ToolCallInputDelta",
      "ToolCallInputDelta",
      "ToolCallEnd",
      "TurnEnd",
      "TurnStart",
      "AssistantTextDelta",
      "TurnEnd",
    ]);
    expect(fs.readFileSync(path.join(ws.data, noEnd.id, "worker.log"), "utf8")).toContain("stream error");
  });

  it("runs a programmatic WorkerScript from the script option", async () => {
    const script: WorkerScript = {
      run: async (ctx) => {
        ctx.emit({ type: "TurnStart", turn_index: 0, message_id: "m", model: "x" });
        ctx.emit('{"type":"RunEnd","raw":true}');
        return 5;
      },
    };
    const { fake, ep } = await startFake({
      script: (spec) => (spec.label === "custom" ? script : undefined),
    });
    const a = await spawnAgent(ep, { label: "custom", initial_prompt: "anything" });
    const lines = await track(await connectWhenBound(a.endpoint)).readToEnd();
    expect(lines).toEqual([
      '{"type":"TurnStart","turn_index":0,"message_id":"m","model":"x"}',
      '{"type":"RunEnd","raw":true}',
    ]);
    await waitForStatus(ep, a.id, "failed");
    expect(fake.agent(a.id)?.exitCode).toBe(5);
  });
});

describe("per-agent stream (§3)", () => {
  it("replays only the last 1024 lines to a late reader while stdout.ndjson keeps everything", async () => {
    const { fake, ep, ws } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "long fake:frames=2000 fake:hold=60000" });
    const worker = fake.agent(a.id)!;
    // TurnStart + 2000 deltas + ToolCallStart + 2 input deltas + ToolCallEnd + TurnEnd + TurnStart(1)
    await waitFor(() => worker.linesWritten === 2007, "2007 lines before the hold");
    const late = track(await connectWhenBound(a.endpoint));
    await waitFor(() => late.lines.length === 1024, "the replayed history");
    const transcript = (): string[] =>
      fs
        .readFileSync(path.join(ws.data, a.id, "stdout.ndjson"), "utf8")
        .split("\n")
        .filter((l) => l !== "");
    expect(transcript()).toHaveLength(2007);
    expect(late.lines).toEqual(transcript().slice(2007 - 1024));
    worker.release();
    const all = await late.readToEnd();
    expect(all).toHaveLength(1024 + 3);
    expect(transcript()).toHaveLength(2010);
    expect(all).toEqual(transcript().slice(2010 - 1027));
    expect(JSON.parse(all.at(-1)!).type).toBe("RunEnd");
  });

  it("gives concurrent readers the full history and live lines; drops mid-stream and replays", async () => {
    const { fake, ep, ws } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "watch fake:hold=60000" });
    const r1 = track(await connectWhenBound(a.endpoint));
    await r1.waitForLine((l) => l.includes('"turn_index":1'));
    const r2 = track(await connectWhenBound(a.endpoint));
    await waitFor(() => r2.lines.length === r1.lines.length, "second reader to catch up");
    const worker = fake.agent(a.id)!;
    expect(worker.connectionCount).toBe(2);

    const dropped = track(await connectWhenBound(a.endpoint));
    await waitFor(() => dropped.lines.length === 9, "replay on the third connection");
    worker.dropConnections();
    const cut = await dropped.readToEnd();
    expect(cut.some((l) => l.includes("RunEnd"))).toBe(false);
    await r1.ended;
    await r2.ended;

    const again = track(await connectWhenBound(a.endpoint));
    await waitFor(() => again.lines.length === 9, "replay after the drop");
    worker.release();
    const full = await again.readToEnd();
    const transcript = fs.readFileSync(path.join(ws.data, a.id, "stdout.ndjson"), "utf8");
    expect(`${full.join("\n")}\n`).toBe(transcript);
    expect(full).toHaveLength(12);
  });

  it("interactive agents: idle/running via list, queued inbound frames, malformed lines ignored", async () => {
    let busyRelease: (() => void) | undefined;
    const script: WorkerScript = {
      run: async (ctx) => {
        let turn = 0;
        const turnStart = (): void =>
          ctx.emit({ type: "TurnStart", turn_index: turn, message_id: `m${turn}`, model: "x" });
        turnStart();
        for (;;) {
          const text = await ctx.nextInput();
          if (text === null) break;
          turn++;
          turnStart();
          await new Promise<void>((resolve) => (busyRelease = resolve));
          ctx.emit({
            type: "AssistantTextDelta",
            turn_index: turn,
            content_block_index: 0,
            text: `echo ${text}`,
          });
        }
        ctx.emit({ type: "RunEnd", turn_count: turn + 1 });
        return 0;
      },
    };
    const { ep } = await startFake({ script: () => script });
    const a = await spawnAgent(ep, { initial_prompt: "chat", interactive: true });
    await waitForStatus(ep, a.id, "idle");
    const reader = track(await connectWhenBound(a.endpoint));
    // prospero style: a fresh connection per inbound frame.
    const sendOnce = async (line: string): Promise<void> => {
      const s = await connectRaw(a.endpoint);
      s.end(`${line}\n`);
    };
    await sendOnce("this is not json");
    await sendOnce('{"type":"user_message","text":"snake case is ignored"}');
    await sendOnce('{"type":"UserMessage","text":"one"}');
    await waitForStatus(ep, a.id, "running");
    reader.send('{"type":"UserMessage","text":"two"}'); // queued while busy
    reader.send('{"type":"EndInput"}');
    await waitFor(() => busyRelease, "turn 1 to start");
    const release = (): void => {
      const r = busyRelease;
      busyRelease = undefined;
      r?.();
    };
    release();
    await waitFor(() => busyRelease, "turn 2 (the queued message) to start");
    release();
    const lines = await reader.readToEnd();
    expect(
      lines.filter((l) => l.includes("AssistantTextDelta")).map((l) => (JSON.parse(l) as Json).text),
    ).toEqual(["echo one", "echo two"]);
    expect(lines.at(-1)).toBe('{"type":"RunEnd","turn_count":3}');
    await waitForStatus(ep, a.id, "done");
  });

  it("idle timeout only runs while no connection is open", async () => {
    const { ep } = await startFake({ idleTimeoutMs: 250 });
    const a = await spawnAgent(ep, { initial_prompt: "hi", interactive: true });
    const watcher = track(await connectWhenBound(a.endpoint));
    await waitForStatus(ep, a.id, "idle");
    await new Promise((r) => setTimeout(r, 600));
    expect(await statusOf(ep, a.id)).toBe("idle");
    watcher.close();
    await waitForStatus(ep, a.id, "done", undefined, 3000);

    const b = await spawnAgent(ep, { initial_prompt: "nobody watches", interactive: true });
    await waitForStatus(ep, b.id, "done", undefined, 3000);
  });

  it("non-interactive workers never read inbound bytes", async () => {
    const { fake, ep } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "x fake:hold=60000" });
    const c = track(await connectWhenBound(a.endpoint));
    c.send('{"type":"EndInput"}');
    await c.waitForLine((l) => l.includes('"turn_index":1'));
    expect(fake.agent(a.id)?.pendingInbound()).toEqual([]);
    expect(await statusOf(ep, a.id)).toBe("running");
  });
});

describe("daemon lifecycle", () => {
  it("restart sweeps running → crashed, leaves idle alone, forgets pids", async () => {
    const { fake, ep, ws } = await startFake();
    const busy = await spawnAgent(ep, { label: "busy", initial_prompt: "x fake:hold=60000" });
    const chat = await spawnAgent(ep, { label: "chat", initial_prompt: "hi", interactive: true });
    const done = await spawnAgent(ep, { label: "done", initial_prompt: "quick" });
    await waitForStatus(ep, chat.id, "idle");
    await waitForStatus(ep, done.id, "done");
    await fake.restart();
    const after = Object.fromEntries(
      ((await requestJson(ep, { kind: "list" })).agents as Json[]).map((x) => [x.name, x.status]),
    );
    expect(after).toEqual({ busy: "crashed", chat: "idle", done: "done" });
    expect(JSON.parse(fs.readFileSync(path.join(ws.data, busy.id, "manifest.json"), "utf8")).status).toBe(
      "crashed",
    );
    expect((await requestJson(ep, { kind: "status" })).uptime_secs).toBe(0);

    // kill after a restart only changes the registry: the orphan keeps running.
    expect((await requestJson(ep, { kind: "kill", id: busy.id })).kind).toBe("killed");
    expect(fake.agent(busy.id)?.state).toBe("running");

    // The surviving interactive worker still reports to the new daemon, but its exit is not observed.
    const c = track(await connectWhenBound(chat.endpoint));
    c.send('{"type":"UserMessage","text":"still there?"}');
    await c.waitForLine((l) => l.includes("You said: still there?"));
    await waitForStatus(ep, chat.id, "idle");
    c.send('{"type":"EndInput"}');
    await c.readToEnd();
    await fake.agent(chat.id)!.exited;
    expect(await statusOf(ep, chat.id)).toBe("idle");
  });

  it("one corrupt manifest empties the registry after a restart (files stay)", async () => {
    const { fake, ep, ws } = await startFake();
    const a = await spawnAgent(ep, { initial_prompt: "quick" });
    await waitForStatus(ep, a.id, "done");
    fs.mkdirSync(path.join(ws.data, "broken"));
    fs.writeFileSync(path.join(ws.data, "broken", "manifest.json"), "{");
    await fake.restart();
    expect(await request(ep, '{"kind":"list"}')).toBe('{"kind":"listed","agents":[]}');
    expect(fs.existsSync(path.join(ws.data, a.id, "manifest.json"))).toBe(true);
  });

  it("hang() accepts and reads requests but never answers", async () => {
    const { fake, ep } = await startFake();
    fake.hang(true);
    const c = track(await LineClient.open(ep));
    c.send('{"kind":"status"}');
    await expect(c.next(300)).rejects.toThrow(/no line/);
    expect(fake.requests.at(-1)).toEqual({ line: '{"kind":"status"}', reply: null });
    fake.hang(false);
    expect(JSON.parse(await request(ep, '{"kind":"status"}')).kind).toBe("status");
  });

  it("steals a stale socket path and removes its socket on shutdown", async () => {
    const ws = makeTempWorkspace();
    cleanups.push(() => ws.cleanup());
    const socketPath = path.join(ws.tmp, "ctl.sock");
    fs.writeFileSync(socketPath, "stale");
    const fake = await FakeCaliband.start({ workspaceRoot: ws.root, socketPath, dataBase: ws.data });
    cleanups.push(() => fake.close());
    expect(fake.agentSocketDir).toBe(path.join(ws.tmp, "agents"));
    expect(JSON.parse(await request(fake.endpoint, '{"kind":"status"}')).endpoint).toEqual({
      scheme: "unix",
      path: socketPath,
    });
    const c = track(await LineClient.open(fake.endpoint));
    c.send('{"kind":"shutdown"}');
    expect(await c.next()).toBe('{"kind":"shutdown_ack"}');
    await c.readToEnd();
    await expect.poll(() => fs.existsSync(socketPath)).toBe(false);
    expect(fake.listening).toBe(false);
  });

  it("derives socket paths and store slugs like caliband (§1.1, §5.6)", () => {
    expect(workspaceHash("/some/repo/root")).toBe("ae89cb2b620ea8fc");
    expect(workspaceHash("/home/alice/src/myrepo")).toBe("60d6754cf1ca0990");
    expect(workspaceHash("/private/tmp/ws")).toBe("627a62660da8cef5");
    expect(controlSocketPath("/home/alice/src/myrepo", { XDG_RUNTIME_DIR: "/run/user/1000" })).toBe(
      "/run/user/1000/caliban/60d6754cf1ca0990.sock",
    );
    expect(runtimeDir({ CALIBAN_DAEMON_RUNTIME_DIR: "", XDG_RUNTIME_DIR: "relative" })).toBe(
      "/tmp/caliban-daemon",
    );
    expect(runtimeDir({ CALIBAN_DAEMON_RUNTIME_DIR: "rel/dir", XDG_RUNTIME_DIR: "/run/u" })).toBe("rel/dir");
    expect(runtimeDir({ TMPDIR: "/var/tmp/" })).toBe("/var/tmp/caliban-daemon");
    expect(agentSocketDir("/run/user/1000/caliban/x.sock", {})).toBe("/run/user/1000/caliban/agents");
    expect(agentSocketDir("x.sock", {})).toBe("/tmp/caliban-agents");
    expect(workspaceSlug("/nonexistent/home/alice/src/my repo")).toBe("nonexistent-home-alice-src-my_repo");
  });
});

describe("TCP + TLS + bearer token (§6)", () => {
  async function startTcp(
    extra: Partial<NonNullable<FakeCalibandOptions["tcp"]>> = {},
  ): Promise<{ fake: FakeCaliband; auth: ClientTls }> {
    const m = makeTestTls();
    cleanups.push(() => m.cleanup());
    const { fake } = await startFake({
      tcp: {
        listen: "127.0.0.1:0",
        cert: m.certPem,
        key: m.keyPem,
        token: "s3cret",
        agentPortBase: 0,
        ...extra,
      },
    });
    return { fake, auth: { ca: m.caPem, token: "s3cret" } };
  }

  it("serves control and per-agent streams only with the right token; wrong token → silent close", async () => {
    const { fake, auth } = await startTcp();
    const ep = fake.endpoint;
    expect(ep.scheme).toBe("tcp");
    const status = await requestJson(ep, { kind: "status" }, auth);
    expect(status.endpoint).toEqual({ scheme: "tcp", addr: "127.0.0.1:0" });

    const wrong = track(await LineClient.open(ep, { ...auth, token: "nope" }));
    wrong.send('{"kind":"status"}');
    expect(await wrong.readToEnd()).toEqual([]);

    const a = await spawnAgent(ep, { initial_prompt: "over tcp" }, auth);
    expect(a.endpoint.scheme).toBe("tcp");
    const badReader = await waitFor(async () => {
      try {
        return await LineClient.open(a.endpoint, { ...auth, token: "nope" });
      } catch {
        return undefined;
      }
    }, "per-agent listener");
    track(badReader);
    expect(await badReader.readToEnd()).toEqual([]);
    const lines = await track(await connectWhenBound(a.endpoint, auth)).readToEnd();
    expect(lines).toHaveLength(12);
    expect(lines.at(-1)).toContain('"type":"RunEnd"');
    await waitForStatus(ep, a.id, "done", auth);
  });

  it("closes a control connection that sends a request instead of the preamble", async () => {
    const { fake, auth } = await startTcp();
    const { host, port } = splitHostPort((fake.endpoint as { addr: string }).addr);
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ host, port, ca: auth.ca, servername: "localhost" }, () => resolve(s));
      s.once("error", reject);
    });
    const raw = track(LineClient.wrap(socket));
    raw.send('{"kind":"status"}');
    expect(await raw.readToEnd()).toEqual([]);
  });

  it("numbers per-agent ports base+n and advertises the configured host", async () => {
    // The workers never bind here (bind delay of a minute), so the fixed ports can't collide.
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    const { fake, auth } = await startTcp({ agentPortBase: base, advertiseHost: "caliband.ws-a.svc" });
    const ep = fake.endpoint;
    const spec = { initial_prompt: "x fake:bind-delay=60000" };
    const a = await spawnAgent(ep, spec, auth);
    const b = await spawnAgent(ep, spec, auth);
    expect(a.endpoint).toEqual({ scheme: "tcp", addr: `caliband.ws-a.svc:${base}` });
    expect(b.endpoint).toEqual({ scheme: "tcp", addr: `caliband.ws-a.svc:${base + 1}` });
    // A failed spawn (before endpoint allocation) burns no port.
    await expect(
      request(ep, '{"kind":"spawn","spec":{"initial_prompt":"x","source":"nope"}}', auth),
    ).resolves.toContain("no such source");
    const c = await spawnAgent(ep, spec, auth);
    expect(c.endpoint).toEqual({ scheme: "tcp", addr: `caliband.ws-a.svc:${base + 2}` });
    expect(fake.agent(c.id)?.state).toBe("starting");
  });

  it("interactive workers report idle/running over the TLS control listener", async () => {
    const { fake, auth } = await startTcp();
    const ep = fake.endpoint;
    const chat = await spawnAgent(ep, { initial_prompt: "hi", interactive: true }, auth);
    await waitForStatus(ep, chat.id, "idle", auth);
    const c = track(await connectWhenBound(chat.endpoint, auth));
    c.send('{"type":"UserMessage","text":"over tls"}');
    await c.waitForLine((l) => l.includes("You said: over tls"));
    await waitForStatus(ep, chat.id, "idle", auth);
    c.send('{"type":"EndInput"}');
    expect((await c.readToEnd()).at(-1)).toContain('"type":"RunEnd"');
    await waitForStatus(ep, chat.id, "done", auth);
    const reports = fake.requests.filter((r) => r.line.includes('"kind":"report_status"')).map((r) => r.line);
    expect(reports.map((l) => (JSON.parse(l) as Json).status)).toEqual(["idle", "running", "idle"]);
  });
});

describe("caliband-sim process (§5.1)", () => {
  function runSim(
    args: string[],
    env: NodeJS.ProcessEnv = {},
  ): { child: ChildProcess; exit: Promise<number | null>; stderr: () => string } {
    const child = spawnProcess(SIM, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await exit;
      }
    });
    return { child, exit, stderr: () => err };
  }

  it("starts with caliband's flags, answers status, exits 0 on shutdown", async () => {
    const ws = makeTempWorkspace();
    cleanups.push(() => ws.cleanup());
    const sim = runSim(["--repo-root", ws.root, "--data-base", ws.data], {
      CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime,
    });
    const socketPath = controlSocketPath(ws.root, { CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime });
    const ep: Endpoint = { scheme: "unix", path: socketPath };
    const status = await waitFor(
      async () => {
        try {
          return await requestJson(ep, { kind: "status" });
        } catch {
          return undefined;
        }
      },
      "caliband-sim to answer",
      20_000,
    );
    expect(status.pid).toBe(sim.child.pid);
    expect(status.endpoint).toEqual(ep);
    const a = await spawnAgent(ep, { initial_prompt: "quick" });
    await waitForStatus(ep, a.id, "done");
    expect(fs.existsSync(path.join(ws.data, a.id, "stdout.ndjson"))).toBe(true);
    expect(await request(ep, '{"kind":"shutdown"}')).toBe('{"kind":"shutdown_ack"}');
    expect(await sim.exit).toBe(0);
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it("exits 0 on SIGTERM", async () => {
    const ws = makeTempWorkspace();
    cleanups.push(() => ws.cleanup());
    const socketPath = path.join(ws.tmp, "c.sock");
    const sim = runSim(["--workspace-root", ws.root, "--socket-path", socketPath, "--data-base", ws.data]);
    await waitFor(() => fs.existsSync(socketPath), "socket", 20_000);
    sim.child.kill("SIGTERM");
    expect(await sim.exit).toBe(0);
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it("exits 2 on an unknown flag or a missing root", async () => {
    const bad = runSim(["--workspace-root", "/tmp", "--frobnicate"]);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain("caliband: unknown arg: --frobnicate");
    const missing = runSim(["--socket-path", "/tmp/x.sock"]);
    expect(await missing.exit).toBe(2);
    expect(missing.stderr()).toContain("--workspace-root required");
  });
});
