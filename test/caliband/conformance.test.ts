// Conformance of the caliband test double with transcripts recorded from the real daemon
// (fixtures/caliband, README there; protocol: docs/caliband-protocol.md). Every control transcript
// ctl-01 … ctl-40 is replayed in scenario order against ONE FakeCaliband (with a restart between 36
// and 37) and each reply is compared field by field — and in field order — with the recorded one.
// Only the volatile values the fixture README lists are masked (ids via a learned mapping, 8-hex
// socket names, started_at, pid, uptime_secs, 32-hex worktree names), and the path prefixes of our
// temp layout are mapped onto the recorded layout explicitly.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectWhenBound, LineClient, request, waitForStatus } from "../support/caliband-client.js";
import { FakeCaliband } from "../support/fake-caliband.js";
import { FIXTURES_DIR } from "../support/fixtures.js";
import { git, makeTempWorkspace, type TempWorkspace } from "../support/temp-workspace.js";
import { type Endpoint, recordJson } from "../support/wire-format.js";

const FIX = FIXTURES_DIR;
const fixture = (name: string): string => fs.readFileSync(path.join(FIX, name), "utf8");
const fixtureLines = (name: string): string[] =>
  fixture(name)
    .split("\n")
    .filter((l) => l !== "");

// The recorded layout (fixture README).
const REC_ROOT = "/home/operator/src/demo-repo";
const REC_RUNTIME = "/run/user/1000/caliban";
const REC_CONTROL = `${REC_RUNTIME}/3a9d6497a15b086a.sock`;
const REC_DATA = "/home/operator/.local/share/caliban/projects/home-operator-src-demo-repo/agents";
const RFC3339_NS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}\+00:00$/;

const CTL_FILES = fs
  .readdirSync(FIX)
  .filter((f) => /^ctl-\d\d-.*\.ndjson$/.test(f))
  .sort();

type Json = Record<string, unknown>;
const parse = (line: string): Json => JSON.parse(line) as Json;

let ws: TempWorkspace;
let fake: FakeCaliband;
let ep: Endpoint;
/** recorded id → our id, and back. */
const recToMine = new Map<string, string>();
const mineToRec = new Map<string, string>();
/** Our per-agent endpoint path per (our) id, from spawned replies / first listing. */
const endpointOf = new Map<string, string>();
/** Recorded file names replayed so far. */
const replayed: string[] = [];

const mine = (recId: string): string => {
  const id = recToMine.get(recId);
  if (id === undefined) throw new Error(`no mapping for recorded id ${recId}`);
  return id;
};

/** Our temp paths → the recorded layout, then volatile parts masked, then our ids → recorded ids. */
function normText(s: string): string {
  let out = s;
  const pairs: Array<[string, string]> = [
    [fake.socketPath, REC_CONTROL],
    [ws.runtime, REC_RUNTIME],
    [ws.data, REC_DATA],
    [ws.root, REC_ROOT],
  ];
  for (const [from, to] of pairs) out = out.replaceAll(from, to);
  out = maskVolatile(out);
  for (const [m, r] of mineToRec) out = out.replaceAll(m, r);
  return out;
}

function maskVolatile(s: string): string {
  return s
    .replace(/\/agents\/[0-9a-f]{8}-agent\.sock/g, "/agents/<sock8>-agent.sock")
    .replace(/\.caliban\/worktrees\/[0-9a-f]{32}/g, ".caliban/worktrees/<wt32>");
}

/** Masks volatile values in a parsed reply; `text` maps strings. Keeps key order. */
function normValue(v: unknown, text: (s: string) => string, key?: string): unknown {
  if (key === "started_at") {
    expect(v).toMatch(RFC3339_NS);
    return "<started_at>";
  }
  if (key === "pid" || key === "uptime_secs") {
    expect(Number.isInteger(v)).toBe(true);
    return `<${key}>`;
  }
  if (typeof v === "string") return text(v);
  if (Array.isArray(v)) return v.map((x) => normValue(x, text));
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normValue(x, text, k)]));
  }
  return v;
}

/** Compares our reply with the recorded one field by field and in field order. */
function expectSameReply(actualLine: string, recordedLine: string): void {
  const actual = normValue(parse(actualLine), normText);
  const expected = normValue(parse(recordedLine), maskVolatile);
  expect(actual).toEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

/** Learns ids from spawned/respawned replies; checks endpoints and ordering of listed records. */
function learn(actualLine: string, recordedLine: string, requestLine: string): void {
  const a = parse(actualLine);
  const r = parse(recordedLine);
  if ((a.kind === "spawned" || a.kind === "respawned") && a.kind === r.kind) {
    const myId = a.id as string;
    expect(myId).toMatch(/^[0-9a-f]{12}$/);
    recToMine.set(r.id as string, myId);
    mineToRec.set(myId, r.id as string);
    if (a.kind === "spawned") endpointOf.set(myId, (a.endpoint as { path: string }).path);
  }
  if (a.kind === "listed") {
    const agents = a.agents as Json[];
    const stamps = agents.map((x) => x.started_at as string);
    expect([...stamps].sort()).toEqual(stamps);
    for (const rec of agents) {
      const id = rec.id as string;
      const p = (rec.endpoint as { path: string }).path;
      expect(rec.session_dir).toBe(path.join(ws.data, id));
      if (endpointOf.has(id)) expect(p).toBe(endpointOf.get(id));
      else endpointOf.set(id, p);
    }
  }
  if (a.kind === "attach_ack") {
    const id = parse(requestLine).id as string;
    expect((a.endpoint as { path: string }).path).toBe(endpointOf.get(id));
  }
}

/** Substitutes recorded ids in a recorded request line with ours. */
function mapRequest(line: string): string {
  let out = line;
  for (const [r, m] of recToMine) out = out.replaceAll(r, m);
  return out;
}

function transcriptPairs(file: string): Array<[string, string]> {
  const lines = fixtureLines(file);
  expect(lines.length % 2).toBe(0);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < lines.length; i += 2) pairs.push([lines[i]!, lines[i + 1]!]);
  return pairs;
}

/** Replays one transcript: one fresh connection per request, except ctl-34 (pipelined). */
async function replay(file: string): Promise<LineClient> {
  const pairs = transcriptPairs(file);
  const c = await LineClient.open(ep);
  if (file.startsWith("ctl-34")) {
    c.write(pairs.map(([req]) => `${mapRequest(req)}\n`).join(""));
    for (const [req, rec] of pairs) {
      const got = await c.next();
      learn(got, rec, mapRequest(req));
      expectSameReply(got, rec);
    }
  } else {
    expect(pairs).toHaveLength(1);
    const [req, rec] = pairs[0]!;
    const sent = mapRequest(req);
    c.send(sent);
    const got = await c.next();
    learn(got, rec, sent);
    expectSameReply(got, rec);
  }
  replayed.push(file);
  return c;
}

async function replayAndClose(file: string): Promise<void> {
  (await replay(file)).close();
}

/** Our stream lines with our ids mapped to the recorded ones. */
const normStream = (lines: string[]): string[] => lines.map((l) => normText(l));

function expectNotConnectable(p: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(p);
    s.once("connect", () => {
      s.destroy();
      reject(new Error(`${p} still accepts connections`));
    });
    s.once("error", (e: NodeJS.ErrnoException) => {
      expect(["ENOENT", "ECONNREFUSED"]).toContain(e.code);
      resolve();
    });
  });
}

const sessionFile = (myId: string, name: string): string =>
  fs.readFileSync(path.join(ws.data, myId, name), "utf8");

/** worker.log of ours vs the recorded one: paths/ids mapped, argv[0] and pid masked explicitly. */
function normWorkerLog(text: string, recorded: boolean): string {
  const t = recorded ? maskVolatile(text) : normText(text);
  return t.replace(/argv=\["[^"]*",/g, 'argv=["<caliban>",').replace(/ pid=\d+/g, " pid=<pid>");
}

describe("FakeCaliband conformance with the recorded caliband transcripts", () => {
  const state: { basic?: LineClient; killed?: LineClient; chatty?: LineClient } = {};

  beforeAll(async () => {
    ws = makeTempWorkspace("demo-repo");
    fake = await FakeCaliband.start({
      workspaceRoot: ws.root,
      env: { CALIBAN_DAEMON_RUNTIME_DIR: ws.runtime },
      dataBase: ws.data,
      // Slow enough that `list` sees the basic agent running (ctl-05), as in the recording.
      frameDelayMs: 50,
    });
    ep = fake.endpoint;
  });

  afterAll(async () => {
    for (const c of Object.values(state)) c?.close();
    await fake?.close();
    ws?.cleanup();
  });

  it("has the 40 recorded control transcripts", () => {
    expect(CTL_FILES).toHaveLength(40);
  });

  it("derives the control socket like caliband (§1.1)", () => {
    const hash = createHash("sha256").update(ws.root).digest("hex").slice(0, 16);
    expect(fake.socketPath).toBe(`${ws.runtime}/${hash}.sock`);
    expect(fs.statSync(fake.socketPath).isSocket()).toBe(true);
    expect(createHash("sha256").update(REC_ROOT).digest("hex").slice(0, 16)).toBe("3a9d6497a15b086a");
  });

  it("ctl-01-status", () => replayAndClose("ctl-01-status.ndjson"));
  it("ctl-02-list-empty", () => replayAndClose("ctl-02-list-empty.ndjson"));
  it("ctl-03-spawn", () => replayAndClose("ctl-03-spawn.ndjson"));
  it("ctl-04-attach", async () => {
    await replayAndClose("ctl-04-attach.ndjson");
    state.basic = await connectWhenBound({ scheme: "unix", path: endpointOf.get(mine("852e69bc230a"))! });
  });
  it("ctl-05-list-running", () => replayAndClose("ctl-05-list-running.ndjson"));

  it("basic agent: stream and stdout.ndjson equal agent-basic.out.ndjson", async () => {
    const lines = await state.basic!.readToEnd();
    const expected = fixtureLines("agent-basic.out.ndjson");
    expect(normStream(lines)).toEqual(expected);
    const id = mine("852e69bc230a");
    await waitForStatus(ep, id, "done");
    expect(
      normStream(
        sessionFile(id, "stdout.ndjson")
          .split("\n")
          .filter((l) => l !== ""),
      ),
    ).toEqual(expected);
    expect(sessionFile(id, "stdout.ndjson").endsWith("\n")).toBe(true);
    const manifest = sessionFile(id, "manifest.json");
    expect(manifest).toBe(JSON.stringify(JSON.parse(manifest), null, 2));
    expect(manifest).toBe(JSON.stringify(recordJson(fake.record(id)!), null, 2));
  });

  it("ctl-06-list-done", () => replayAndClose("ctl-06-list-done.ndjson"));
  it("ctl-07-attach-after-exit (the socket is gone)", async () => {
    await replayAndClose("ctl-07-attach-after-exit.ndjson");
    await expectNotConnectable(endpointOf.get(mine("852e69bc230a"))!);
  });
  it("ctl-08-spawn-minimal-spec", async () => {
    await replayAndClose("ctl-08-spawn-minimal-spec.ndjson");
    const id = mine("82b6d8e98745");
    state.killed = await connectWhenBound({ scheme: "unix", path: endpointOf.get(id)! });
    await state.killed.waitForLine((l) => l.includes('"type":"TurnStart"') && l.includes('"turn_index":1'));
  });
  it("ctl-09-kill", () => replayAndClose("ctl-09-kill.ndjson"));

  it("killed agent: stream ends at TurnStart(1) without RunEnd, like agent-killed.out.ndjson", async () => {
    const lines = await state.killed!.readToEnd();
    expect(normStream(lines)).toEqual(fixtureLines("agent-killed.out.ndjson"));
    expect(fake.agent(mine("82b6d8e98745"))?.exitSignal).toBe("SIGTERM");
  });

  it("ctl-10-list-killed", () => replayAndClose("ctl-10-list-killed.ndjson"));
  it("ctl-11-kill-again", () => replayAndClose("ctl-11-kill-again.ndjson"));
  it("ctl-12-kill-unknown", () => replayAndClose("ctl-12-kill-unknown.ndjson"));
  it("ctl-13-respawn (old record and session dir gone)", async () => {
    const oldId = mine("82b6d8e98745");
    expect(fs.existsSync(path.join(ws.data, oldId))).toBe(true);
    await replayAndClose("ctl-13-respawn.ndjson");
    expect(fs.existsSync(path.join(ws.data, oldId))).toBe(false);
    expect(fake.record(oldId)).toBeUndefined();
  });
  it("ctl-14-list-after-respawn", () => replayAndClose("ctl-14-list-after-respawn.ndjson"));
  it("ctl-15-respawn-unknown", () => replayAndClose("ctl-15-respawn-unknown.ndjson"));
  it("ctl-16-rm-running-refused", () => replayAndClose("ctl-16-rm-running-refused.ndjson"));
  it("ctl-17-rm-force-running (worker stopped, session dir gone)", async () => {
    const id = mine("ee13a812ce54");
    await waitForStatus(ep, id, "running");
    await replayAndClose("ctl-17-rm-force-running.ndjson");
    expect(fake.agent(id)?.state).toBe("exited");
    expect(fs.existsSync(path.join(ws.data, id))).toBe(false);
  });
  it("ctl-18-rm-done", () => replayAndClose("ctl-18-rm-done.ndjson"));
  it("ctl-19-rm-unknown", () => replayAndClose("ctl-19-rm-unknown.ndjson"));
  it("ctl-20-list-after-rm", () => replayAndClose("ctl-20-list-after-rm.ndjson"));
  it("ctl-21-bad-json (connection stays open)", async () => {
    const c = await replay("ctl-21-bad-json.ndjson");
    c.send('{"kind":"status"}');
    expect(parse(await c.next()).kind).toBe("status");
    c.close();
  });
  it("ctl-22-unknown-kind", () => replayAndClose("ctl-22-unknown-kind.ndjson"));
  it("ctl-23-attach-unknown", () => replayAndClose("ctl-23-attach-unknown.ndjson"));
  it("ctl-24-spawn-bad-source", () => replayAndClose("ctl-24-spawn-bad-source.ndjson"));
  it("ctl-25-spawn-missing-prompt", () => replayAndClose("ctl-25-spawn-missing-prompt.ndjson"));
  it("ctl-26-spawn-failing", () => replayAndClose("ctl-26-spawn-failing.ndjson"));
  it("ctl-27-list-failed", async () => {
    await waitForStatus(ep, mine("b413a7cd6489"), "failed");
    await replayAndClose("ctl-27-list-failed.ndjson");
  });

  it("failing agent: worker.log like session-failing.worker.log", () => {
    const got = sessionFile(mine("b413a7cd6489"), "worker.log");
    expect(normWorkerLog(got, false)).toBe(normWorkerLog(fixture("session-failing.worker.log"), true));
  });

  it("ctl-28-spawn-worktree", () => replayAndClose("ctl-28-spawn-worktree.ndjson"));
  it("ctl-29-list-worktree (a real git worktree on branch caliban/<name>)", async () => {
    await replayAndClose("ctl-29-list-worktree.ndjson");
    const wd = fake.record(mine("08ece9424bf5"))!.working_dir;
    const name = path.basename(wd);
    expect(wd).toBe(path.join(ws.root, ".caliban/worktrees", name));
    expect(git(ws.root, ["worktree", "list", "--porcelain"])).toContain(`worktree ${wd}`);
    expect(git(ws.root, ["branch", "--list", `caliban/${name}`])).toContain(`caliban/${name}`);
  });
  it("ctl-30-spawn-interactive", () => replayAndClose("ctl-30-spawn-interactive.ndjson"));
  it("ctl-31-list-idle (worktree removed after its worker exited)", async () => {
    const wtId = mine("08ece9424bf5");
    const wd = fake.record(wtId)!.working_dir;
    await waitForStatus(ep, wtId, "done");
    await waitForStatus(ep, mine("8ee85da78998"), "idle");
    await replayAndClose("ctl-31-list-idle.ndjson");
    await expect.poll(() => fs.existsSync(wd)).toBe(false);
    await expect
      .poll(() => git(ws.root, ["branch", "--list", `caliban/${path.basename(wd)}`]).trim())
      .toBe("");
  });

  it("interactive agent: UserMessage/EndInput drive agent-interactive.out.ndjson; session files match", async () => {
    const id = mine("8ee85da78998");
    const [userMessage, endInput] = fixtureLines("agent-interactive.in.ndjson");
    const c = await connectWhenBound({ scheme: "unix", path: endpointOf.get(id)! });
    state.chatty = c;
    c.send(userMessage!);
    await c.waitForLine((l) => l.includes('"type":"TurnEnd"') && l.includes('"turn_index":2'));
    await waitForStatus(ep, id, "idle");
    c.send(endInput!);
    const lines = await c.readToEnd();
    const expected = fixtureLines("agent-interactive.out.ndjson");
    expect(normStream(lines)).toEqual(expected);
    await waitForStatus(ep, id, "done");

    expect(normText(sessionFile(id, "stdout.ndjson"))).toBe(fixture("session-interactive.stdout.ndjson"));
    const manifest = sessionFile(id, "manifest.json");
    const recManifest = fixture("session-interactive.manifest.json");
    expect(manifest).toBe(JSON.stringify(JSON.parse(manifest), null, 2));
    expect(recManifest).toBe(JSON.stringify(JSON.parse(recManifest), null, 2));
    const normManifest = (text: string, f: (s: string) => string): string =>
      JSON.stringify(normValue(JSON.parse(text), f), null, 2);
    expect(normManifest(manifest, normText)).toBe(normManifest(recManifest, maskVolatile));
    expect(normWorkerLog(sessionFile(id, "worker.log"), false)).toBe(
      normWorkerLog(fixture("session-interactive.worker.log"), true),
    );

    // The worker's own report_status requests (worker → daemon) are the recorded ones.
    const reports = fake.requests.filter(
      (r) => r.line.includes('"kind":"report_status"') && r.line.includes(id),
    );
    const recorded = fixtureLines("worker-control-report-status.ndjson");
    expect(reports.flatMap((r) => [normText(r.line), r.reply])).toEqual(recorded);
  });

  it("ctl-32-list-interactive-done", () => replayAndClose("ctl-32-list-interactive-done.ndjson"));
  it("ctl-33-report-status-terminal-ignored", async () => {
    await replayAndClose("ctl-33-report-status-terminal-ignored.ndjson");
    expect(fake.record(mine("8ee85da78998"))?.status).toBe("done");
  });
  it("worker-control-report-status.ndjson lines get status_reported", async () => {
    const lines = fixtureLines("worker-control-report-status.ndjson");
    for (let i = 0; i < lines.length; i += 2) {
      const got = await request(ep, mapRequest(lines[i]!));
      expect(got).toBe(lines[i + 1]);
    }
  });
  it("ctl-34-one-conn-pipelined", () => replayAndClose("ctl-34-one-conn-pipelined.ndjson"));
  it("ctl-35-spawn-before-shutdown", () => replayAndClose("ctl-35-spawn-before-shutdown.ndjson"));
  it("ctl-36-shutdown (connection closed, socket unlinked, worker survives)", async () => {
    const c = await replay("ctl-36-shutdown.ndjson");
    await c.readToEnd();
    await expect.poll(() => fs.existsSync(fake.socketPath)).toBe(false);
    const orphan = fake.agent(mine("c427e926a136"))!;
    await orphan.bound;
    expect(orphan.state).toBe("running");
  });
  it("daemon restart: the surviving worker keeps streaming", async () => {
    await fake.restart();
    ep = fake.endpoint;
    const id = mine("c427e926a136");
    const c = await connectWhenBound({ scheme: "unix", path: endpointOf.get(id)! });
    await c.waitForLine((l) => l.includes('"type":"TurnStart"'));
    c.close();
    expect(fake.agent(id)?.state).toBe("running");
  });
  it("ctl-37-list-after-restart-crashed", () => replayAndClose("ctl-37-list-after-restart-crashed.ndjson"));
  it("ctl-38-status-after-restart", () => replayAndClose("ctl-38-status-after-restart.ndjson"));
  it("ctl-39-rm-crashed (no pid tracked: the orphan is not signalled)", async () => {
    await replayAndClose("ctl-39-rm-crashed.ndjson");
    expect(fake.agent(mine("c427e926a136"))?.state).toBe("running");
  });
  it("ctl-40-shutdown", async () => {
    const c = await replay("ctl-40-shutdown.ndjson");
    await c.readToEnd();
  });

  it("replayed every control transcript exactly once, in order", () => {
    expect(replayed).toEqual(CTL_FILES);
  });
});
