import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  IngestTask,
  MAX_READ_BYTES,
  REPLAY_WINDOW,
  TAIL_READ_BYTES,
  abortableSleep,
} from "../../src/fleet/ingest.js";
import { newFleetMetrics } from "../../src/fleet/metrics.js";
import { DEFAULT_PRICES } from "../../src/fleet/pricing.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";
import { pacedScript } from "../helpers/paced-run.js";
import { onCleanup } from "../helpers/cleanup.js";

async function daemon(frameDelayMs = 1, pacedDelayMs = 1): Promise<DaemonFixture> {
  const d = await startDaemon({ frameDelayMs, ...pacedScript(pacedDelayMs) });
  onCleanup(() => d.close());
  return d;
}

async function fleet(
  d: DaemonFixture,
  opts: { dataDir?: string; forceSocketIngest?: boolean } = {},
): Promise<FleetHarness> {
  const h = await startFleet({ runtimeDir: d.ws.runtime, ...opts });
  onCleanup(() => h.close());
  if (!h.fleet.registry.find("demo")) await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  return h;
}

async function storedLines(h: FleetHarness, agentId: string): Promise<string[]> {
  const frames = await h.db.prisma.frame.findMany({ where: { agentId }, orderBy: { line: "asc" } });
  expect(frames.map((f) => f.line)).toEqual(frames.map((_, i) => i));
  return frames.map((f) => f.text);
}

function fileLines(d: DaemonFixture, agentId: string): string[] {
  const rec = d.daemon.record(agentId);
  const dir = rec ? rec.session_dir : path.join(d.ws.data, agentId);
  const text = fs.readFileSync(path.join(dir, "stdout.ndjson"), "utf8");
  return text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
}

async function finished(h: FleetHarness, agentId: string): Promise<void> {
  await waitFor(
    async () => (await h.db.prisma.ingestCursor.findUnique({ where: { agentId } }))?.finished,
    60_000,
    `ingest of ${agentId} finished`,
  );
}

/** A TurnStart line and `AssistantTextDelta` lines (alternating blocks, so none coalesce). */
const turnStartLine = JSON.stringify({
  type: "TurnStart",
  turn_index: 0,
  message_id: "m",
  model: "claude-sonnet-4-5",
});
const deltaLine = (i: number, text: string): string =>
  JSON.stringify({ type: "AssistantTextDelta", turn_index: 0, content_block_index: i % 2, text });

/**
 * A file-mode IngestTask on a session dir of its own whose stdout.ndjson starts as `lines`, for a
 * running agent row `agentId`, with a live worker's endpoint that accepts and stays quiet (so the
 * task keeps tailing the file). Stopped at cleanup.
 */
async function heldTail(
  h: FleetHarness,
  agentId: string,
  lines: string[],
  tailIntervalMs: number,
  /** Put a FIFO at stdout.ndjson instead of a file holding `lines`. */
  fifo = false,
  /** The store the task commits to (default the harness's). */
  store: FleetHarness["store"] = h.store,
): Promise<{ task: IngestTask; file: string; conns: Set<net.Socket> }> {
  await h.db.prisma.agent.create({
    data: {
      id: agentId,
      workspace: "demo",
      name: "tail",
      status: "running",
      spec: {},
      startedAt: new Date(),
    },
  });
  const sessionDir = tmpDir();
  const file = path.join(sessionDir, "stdout.ndjson");
  const sock = path.join(sessionDir, "worker.sock");
  const conns = new Set<net.Socket>();
  const server = net.createServer((c) => {
    conns.add(c);
    c.on("close", () => conns.delete(c));
  });
  await new Promise<void>((r) => server.listen(sock, r));
  onCleanup(async () => {
    for (const c of conns) c.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  if (fifo) execFileSync("mkfifo", [file]);
  else fs.writeFileSync(file, `${lines.join("\n")}\n`);
  const task = await IngestTask.start(
    {
      agentId,
      workspace: "demo",
      sessionDir,
      endpoint: { scheme: "unix", path: sock },
      transport: {},
      specModel: null,
    },
    {
      db: h.db.prisma,
      store,
      prices: DEFAULT_PRICES,
      metrics: newFleetMetrics(),
      log: silentLogger,
      tailIntervalMs,
    },
  );
  onCleanup(() => task.stop());
  return { task, file, conns };
}

/** Wait until every one of `lines` is stored for `agentId`. */
const allStored = (h: FleetHarness, agentId: string, lines: string[], what: string): Promise<unknown> =>
  waitFor(async () => (await storedLines(h, agentId)).length === lines.length, 10_000, what, 10);

describe("abortableSleep", () => {
  it("leaves no abort listener behind, however many times a long-lived signal is used", async () => {
    const { EventEmitter } = await import("node:events");
    const ctrl = new AbortController();
    for (let i = 0; i < 50; i++) await abortableSleep(0, ctrl.signal);
    expect(EventEmitter.getEventListeners(ctrl.signal, "abort")).toHaveLength(0);
    const pending = abortableSleep(60_000, ctrl.signal);
    ctrl.abort();
    await pending; // resolves at once on abort
  });
});

describe("alignReplay (socket-only overlap detection, protocol §3.2)", () => {
  const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `L${from + i}`);
  it("full replay of a short run: everything already stored", () => {
    expect(IngestTask.alignReplay(lines(0, 10), 10, lines(0, 12))).toBe(10);
  });
  it("replay starting mid-stream after > 1024 lines: only the stored overlap is skipped", () => {
    const stored = lines(500, 1500); // last 1000 of 1500 stored
    // The worker has written 1600 lines; the replay holds 576..1599.
    expect(IngestTask.alignReplay(stored, 1500, lines(576, 1600))).toBe(1500 - 576);
  });
  it("no overlap at all (lines evicted while disconnected): -1", () => {
    expect(IngestTask.alignReplay(lines(0, 2000).slice(-REPLAY_WINDOW), 2000, lines(3100, 4124))).toBe(-1);
  });
  it("nothing stored yet: all incoming lines are new", () => {
    expect(IngestTask.alignReplay([], 0, lines(0, 5))).toBe(0);
  });
});

describe("exactly-once ingest", () => {
  it("file mode: a 5,000-frame run with three socket drops is stored line-for-line", async () => {
    const d = await daemon(1);
    const h = await fleet(d);
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "big fake:frames=5000" });
    for (const at of [1000, 2200, 3400]) {
      await waitFor(() => (d.daemon.agent(agent.id)?.linesWritten ?? 0) >= at, 60_000, `${at} lines written`);
      d.daemon.agent(agent.id)!.dropConnections();
    }
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 60_000, "done");
    await finished(h, agent.id);
    const stored = await storedLines(h, agent.id);
    expect(stored.length).toBeGreaterThan(5000);
    expect(stored).toEqual(fileLines(d, agent.id));
    expect(h.fleet.metrics.ingest_gaps_total).toBe(0);
    // A finished agent's ingest task is released (memory scales with live agents only).
    await waitFor(() => h.fleet.ingest.taskCount === 0, 10_000, "finished ingest task released");
  }, 90_000);

  it("socket mode: drops mid-run are bridged by content alignment — no loss, no duplicate", async () => {
    const d = await daemon(1, 1);
    const h = await fleet(d, { forceSocketIngest: true });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "big paced=3000" });
    for (const at of [800, 1600, 2400]) {
      await waitFor(() => (d.daemon.agent(agent.id)?.linesWritten ?? 0) >= at, 60_000, `${at} lines written`);
      d.daemon.agent(agent.id)!.dropConnections();
    }
    await waitFor(() => h.fleet.state.agent(agent.id)?.status === "done", 60_000, "done");
    await finished(h, agent.id);
    const cursor = await h.db.prisma.ingestCursor.findUnique({ where: { agentId: agent.id } });
    expect(cursor?.mode).toBe("socket");
    expect(await storedLines(h, agent.id)).toEqual(fileLines(d, agent.id));
    const kinds = (await h.store.readStream(agent.id, 0, 100_000)).map((e) => e.kind);
    expect(kinds).not.toContain("ingest_gap");
    expect(kinds.filter((k) => k === "agent_finished")).toHaveLength(1);
  }, 90_000);

  it("socket mode: lines evicted while we were away are reported as an ingest_gap", async () => {
    const d = await daemon(1);
    const h = await fleet(d, { forceSocketIngest: true });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "big paced=6000" });
    await waitFor(
      async () => (await h.db.prisma.frame.count({ where: { agentId: agent.id } })) >= 300,
      30_000,
      "300 stored",
    );
    await h.stopFleet(); // gateway away while the worker writes > 1024 more lines
    const away = d.daemon.agent(agent.id)!.linesWritten;
    await waitFor(
      () => (d.daemon.agent(agent.id)?.linesWritten ?? 0) >= away + 1500,
      60_000,
      "1500 more lines",
    );
    const h2 = await fleet(d, { dataDir: h.dataDir, forceSocketIngest: true });
    await waitFor(() => h2.fleet.state.agent(agent.id)?.status === "done", 60_000, "done");
    await finished(h2, agent.id);
    const events = await h2.store.readStream(agent.id, 0, 100_000);
    expect(events.filter((e) => e.kind === "ingest_gap")).toHaveLength(1);
    expect(h2.fleet.metrics.ingest_gaps_total).toBe(1);
    // What was stored is the true prefix and the true suffix of the file, nothing duplicated.
    const stored = await storedLines(h2, agent.id);
    const file = fileLines(d, agent.id);
    expect(stored.length).toBeLessThan(file.length);
    expect(new Set(stored).size).toBe(stored.length); // every line of this run is distinct: no duplicate
    expect(stored.slice(0, 300)).toEqual(file.slice(0, 300));
    expect(file.slice(-500)).toEqual(stored.slice(-500));
  }, 90_000);

  it("a gateway restart mid-run resumes from the stored offset: no loss, no duplicate, no repeated lifecycle events", async () => {
    const d = await daemon(1);
    const h = await fleet(d);
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "big fake:frames=4000" });
    await waitFor(
      async () => (await h.db.prisma.frame.count({ where: { agentId: agent.id } })) >= 1000,
      60_000,
      "1000 stored",
    );
    await h.stopFleet();
    const h2 = await fleet(d, { dataDir: h.dataDir });
    await waitFor(() => h2.fleet.state.agent(agent.id)?.status === "done", 60_000, "done");
    await finished(h2, agent.id);
    expect(await storedLines(h2, agent.id)).toEqual(fileLines(d, agent.id));
    const kinds = (await h2.store.readStream(agent.id, 0, 100_000)).map((e) => e.kind);
    expect(kinds.filter((k) => k === "agent_spawned")).toHaveLength(1);
    expect(kinds).not.toContain("agent_discovered");
    expect(kinds.filter((k) => k === "status_changed")).toHaveLength(1);
    expect(kinds.filter((k) => k === "turn_started")).toHaveLength(2);
    expect(kinds.filter((k) => k === "agent_finished")).toHaveLength(1);
  }, 90_000);

  it("a backlog far larger than one read is stored in bounded slices and in full, even with a short finish deadline", async () => {
    const d = await daemon(1);
    const h = await fleet(d);
    const agentId = "abcdefabcdef";
    await h.db.prisma.agent.create({
      data: {
        id: agentId,
        workspace: "demo",
        name: "backlog",
        status: "done",
        spec: {},
        startedAt: new Date(),
      },
    });
    // ~6 MiB of frames written before ingest starts, with one 2.5 MiB line (longer than a slice).
    const sessionDir = tmpDir();
    const delta = (i: number, text: string) =>
      JSON.stringify({ type: "AssistantTextDelta", turn_index: 0, content_block_index: i % 2, text });
    const lines = [
      JSON.stringify({ type: "TurnStart", turn_index: 0, message_id: "m", model: "claude-sonnet-4-5" }),
    ];
    for (let i = 0; i < 40_000; i++) lines.push(delta(i, `backlog line ${i} `.padEnd(60, ".")));
    const big = {
      type: "AssistantTextDelta",
      turn_index: 0,
      content_block_index: 2,
      text: "x".repeat(2.5 * 1024 * 1024),
    };
    lines.splice(20_000, 0, JSON.stringify(big)); // block 2: never coalesced with its neighbours
    fs.writeFileSync(path.join(sessionDir, "stdout.ndjson"), `${lines.join("\n")}\n`);
    expect(fs.statSync(path.join(sessionDir, "stdout.ndjson")).size).toBeGreaterThan(5 * MAX_READ_BYTES);

    // Record how many lines each commit stored.
    const metrics = newFleetMetrics();
    const perCommit: number[] = [];
    let total = 0;
    Object.defineProperty(metrics, "frames_ingested_total", {
      get: () => total,
      set: (v: number) => {
        perCommit.push(v - total);
        total = v;
      },
    });
    const task = await IngestTask.start(
      {
        agentId,
        workspace: "demo",
        sessionDir,
        endpoint: { scheme: "unix", path: path.join(sessionDir, "gone.sock") },
        transport: {},
        specModel: null,
      },
      {
        db: h.db.prisma,
        store: h.store,
        prices: DEFAULT_PRICES,
        metrics,
        log: silentLogger,
        tailIntervalMs: 20,
      },
    );
    await task.finish(200); // far less than the whole backlog takes: progress must keep it going
    expect(task.isFinished).toBe(true);
    expect(await storedLines(h, agentId)).toEqual(lines);
    expect(perCommit.length).toBeGreaterThan(5);
    // A slice holds at most MAX_READ_BYTES of ~80-byte lines (the 2.5 MiB line is read whole).
    expect(Math.max(...perCommit)).toBeLessThanOrEqual(Math.ceil(MAX_READ_BYTES / 80));
    const outputs = (await h.store.readStream(agentId, 0, 100_000)).filter((e) => e.kind === "output");
    expect(outputs).toHaveLength(40_001);
  }, 90_000);

  it("the tail loop holds stdout.ndjson open between reads, follows a file replaced at its path, and keeps no descriptor after the run", async () => {
    const h = await fleet(await daemon(1));
    const agentId = "fedcbafedcba";
    const lines = [turnStartLine];
    for (let i = 0; i < 3; i++) lines.push(deltaLine(i, `t${i} `));
    const { task, file } = await heldTail(h, agentId, lines, 20);
    /** Descriptors of this process open on `file` (Linux: /proc/self/fd). */
    const fdsOnFile = (): number =>
      fs.readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(file);
        } catch {
          return false;
        }
      }).length;
    await allStored(h, agentId, lines, "first lines stored");
    // Appends to the held file are read through it; one descriptor, however many wake-ups.
    for (let i = 3; i < 6; i++) {
      lines.push(deltaLine(i, `t${i} `));
      fs.appendFileSync(file, `${lines[lines.length - 1]}\n`);
      await allStored(h, agentId, lines, `line ${i} stored`);
      if (process.platform === "linux") expect(fdsOnFile()).toBe(1);
    }
    // The path now names another file (a new inode) with the same prefix and more lines: the task
    // must read the new file, not wait on the held one forever.
    for (let i = 6; i < 9; i++) lines.push(deltaLine(i, `t${i} `));
    fs.writeFileSync(`${file}.new`, `${lines.join("\n")}\n`);
    fs.renameSync(`${file}.new`, file);
    await allStored(h, agentId, lines, "replaced file read");
    expect(await storedLines(h, agentId)).toEqual(lines);
    lines.push(
      JSON.stringify({
        type: "TurnEnd",
        turn_index: 0,
        stop_reason: "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
    fs.appendFileSync(file, `${lines[lines.length - 1]}\n`);
    await allStored(h, agentId, lines, "appended to the new file");
    await task.finish(500);
    expect(await storedLines(h, agentId)).toEqual(lines);
    if (process.platform === "linux") expect(fdsOnFile()).toBe(0);
  }, 60_000);

  it("a backlog left in a held transcript that was removed is read through the handle, in full", async () => {
    const h = await fleet(await daemon(1));
    const agentId = "fedcba012345";
    const lines = [turnStartLine];
    const { task, file } = await heldTail(h, agentId, lines, 1_500);
    await allStored(h, agentId, lines, "first line stored");
    // Before the next wake-up: far more than one tail read (TAIL_READ_BYTES) appended, then the
    // file removed. The held handle still reaches every byte.
    const more: string[] = [];
    for (let i = 0; i < 1_000; i++) more.push(deltaLine(i, `r${i} `.padEnd(60, ".")));
    fs.appendFileSync(file, `${more.join("\n")}\n`);
    expect(more.join("\n").length).toBeGreaterThan(2 * TAIL_READ_BYTES);
    fs.unlinkSync(file);
    lines.push(...more);
    await allStored(h, agentId, lines, "the backlog stored");
    await task.finish(500);
    expect(await storedLines(h, agentId)).toEqual(lines);
  }, 60_000);

  it("a FIFO in place of stdout.ndjson is never opened for a blocking read: other runs go on, finish ends", async () => {
    const h = await fleet(await daemon(1));
    const fifo = await heldTail(h, "f1f0f1f0f1f0", [], 20, true);
    // Another run, ingested meanwhile: nothing waits on the FIFO (neither the event loop nor the
    // thread pool's file operations).
    const lines = [turnStartLine, deltaLine(0, "ok ")];
    const other = await heldTail(h, "0123456789ab", lines.slice(0, 1), 20);
    await allStored(h, "0123456789ab", lines.slice(0, 1), "the other run's first line");
    // A writer attached to the FIFO with a line in it: nothing is stored from it (a positional read
    // of a FIFO fails anyway; the regular-file check keeps devices out too).
    const w = fs.openSync(fifo.file, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    onCleanup(() => fs.closeSync(w));
    fs.writeSync(w, `${turnStartLine}\n`);
    await new Promise((r) => setTimeout(r, 200)); // the FIFO's task wakes up about ten times
    fs.appendFileSync(other.file, `${lines[1]}\n`);
    await allStored(h, "0123456789ab", lines, "the other run's appended line");
    const started = Date.now();
    await fifo.task.finish(500);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(fifo.task.isFinished).toBe(true);
    expect(await storedLines(h, "f1f0f1f0f1f0")).toEqual([]);
  }, 60_000);

  it("a doorbell that rings while a read is being committed is answered at once, not at the tail interval", async () => {
    const h = await fleet(await daemon(1));
    const agentId = "d00rbe11d00r";
    const lines = [turnStartLine];
    // The store's first commit of line 1 waits while the worker appends line 2 and rings: the
    // doorbell arrives while the tail loop is not waiting for one.
    let during: (() => Promise<void>) | null = null;
    const store = Object.create(h.store) as typeof h.store;
    store.append = async (...args: Parameters<typeof h.store.append>) => {
      const f = during;
      during = null;
      if (f) await f();
      return h.store.append(...args);
    };
    const tail = await heldTail(h, agentId, lines, 60_000, false, store);
    await allStored(h, agentId, lines, "first line stored");
    await waitFor(() => tail.conns.size > 0, 10_000, "the task holds the stream socket");
    const ring = (): void => {
      for (const c of tail.conns) c.write(`${deltaLine(99, "bell")}\n`);
    };
    lines.push(deltaLine(0, "a "));
    during = async () => {
      lines.push(deltaLine(1, "b "));
      fs.appendFileSync(tail.file, `${lines[2]}\n`);
      ring();
      await new Promise((r) => setTimeout(r, 100)); // the doorbell is taken meanwhile
    };
    fs.appendFileSync(tail.file, `${lines[1]}\n`);
    ring();
    // Within allStored's 10 s, far inside the 60 s tail interval that would otherwise read it.
    await allStored(h, agentId, lines, "line 2, rung for during the commit of line 1");
    expect(await storedLines(h, agentId)).toEqual(lines);
  }, 60_000);

  it("frames arriving every millisecond wake the reader without piling listeners on its abort signal", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(`${w.name}: ${w.message}`);
    };
    process.on("warning", onWarning);
    onCleanup(() => {
      process.off("warning", onWarning);
    });
    const d = await startDaemon({ frameDelayMs: 1, ...pacedScript(1) });
    onCleanup(() => d.close());
    // A long tail interval: each wake-up's sleep would otherwise keep its listener for 5 s.
    const h = await startFleet({ runtimeDir: d.ws.runtime, tailIntervalMs: 5_000 });
    onCleanup(() => h.close());
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "paced=1500" });
    await waitFor(
      async () => (await h.db.prisma.frame.count({ where: { agentId: agent.id } })) >= 1503,
      60_000,
      "every frame stored",
    );
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  }, 90_000);

  it("live frames are stored as they arrive on the socket, not at the next tail interval", async () => {
    const d = await startDaemon({ frameDelayMs: 1, ...pacedScript(400) });
    onCleanup(() => d.close());
    const h = await startFleet({ runtimeDir: d.ws.runtime, tailIntervalMs: 30_000 });
    onCleanup(() => h.close());
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "paced=6" });
    const frames = () => h.db.prisma.frame.count({ where: { agentId: agent.id } });
    // Once attached, each frame the worker writes is stored well within its 400 ms pacing.
    for (const n of [3, 4, 5, 6]) {
      await waitFor(() => (d.daemon.agent(agent.id)?.linesWritten ?? 0) >= n, 10_000, `${n} written`);
      const t0 = Date.now();
      await waitFor(async () => (await frames()) >= n, 10_000, `${n} stored`);
      expect(Date.now() - t0).toBeLessThan(1_000); // the tail interval is 30 s
    }
  }, 60_000);
});
