// Issue 12 item 7 ("why a run failed is visible"), fleet half: a run that ends failed or crashed
// keeps the end of its worker.log and the exit code its RunEnd implies, as a `worker_log` event
// right before its terminal status and on its row — against the caliband double on real sockets,
// real session dirs and a real SQLite file. Plus the tail reader itself on real files.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { onCleanup } from "../helpers/cleanup.js";
import { CalibandClient } from "../../src/caliband/client.js";
import type { FleetEvent } from "../../src/events/index.js";
import {
  WORKER_LOG_TAIL_BYTES,
  WORKER_LOG_TAIL_LINES,
  cleanLogText,
  exitCodeOfOutcome,
  readWorkerLogTail,
  redactSecrets,
} from "../../src/fleet/worker-log.js";
import type { WorkerScript } from "../support/fake-caliband.js";
import type { SpawnSpecJson } from "../support/wire-format.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";
import { tmpDir } from "../helpers/tmp.js";

/** Secrets a worker might print; none of them may be stored. */
const SECRETS = {
  anthropic: "sk-ant-api03-" + "Q".repeat(40) + "_AA",
  bearer: "eyJhbGciOiJIUzI1NiJ9.payload.signature123",
  envValue: "hunter2-very-secret-value",
  prospero: "prospero_" + "b".repeat(43),
};

const PREFLIGHT_LINE = "Error: preflight failed: ANTHROPIC_API_KEY is not set";

/** Scripts steered by a word in the prompt (others: the double's default, token-driven script). */
function scripts(spec: SpawnSpecJson): WorkerScript | undefined {
  const p = spec.initial_prompt;
  if (p.includes("long-log")) {
    const lines = Array.from({ length: 100 }, (_, i) => `log line ${i} ${"x".repeat(60)}`);
    return {
      preflightFailure: { exitCode: 1, log: [...lines, PREFLIGHT_LINE].join("\n") },
      run: async () => 1,
    };
  }
  if (p.includes("secret-log")) {
    const log = [
      `provider said 401 for key ${SECRETS.anthropic} (check it)`,
      `request headers: Authorization: Bearer ${SECRETS.bearer}`,
      `env: ANTHROPIC_API_KEY=${SECRETS.envValue} PATH=/usr/bin`,
      `prospero token ${SECRETS.prospero} seen`,
      PREFLIGHT_LINE,
    ].join("\n");
    return { preflightFailure: { exitCode: 1, log }, run: async () => 1 };
  }
  if (p.includes("max-turns")) {
    // One turn, then RunEnd(MaxTurnsReached): the worker exits 75 (protocol §5.4) → failed.
    return {
      run: async (ctx) => {
        ctx.emit({
          type: "TurnStart",
          turn_index: 0,
          message_id: `msg_${ctx.id}`,
          model: "claude-sonnet-4-5",
        });
        ctx.emit({
          type: "TurnEnd",
          turn_index: 0,
          assistant_message: { role: "assistant", content: [{ type: "text", text: "still going" }] },
          tool_results: [],
          stop_reason: "end_turn",
          usage: { input_tokens: 100, output_tokens: 5 },
          ttft: null,
          tbt: null,
        });
        ctx.emit({
          type: "RunEnd",
          final_messages: [],
          total_usage: { input_tokens: 100, output_tokens: 5 },
          turn_count: 1,
          stopped_for: { MaxTurnsReached: 1 },
          turns_without_edit: 1,
          no_edit_nudge_emitted: false,
        });
        ctx.log("[caliban __agent-worker] stopped: max turns reached (1)");
        return 75;
      },
    };
  }
  return undefined;
}

async function setup(): Promise<{ d: DaemonFixture; h: FleetHarness }> {
  const d = await startDaemon({ script: scripts });
  onCleanup(() => d.close());
  const h = await startFleet({ runtimeDir: d.ws.runtime });
  onCleanup(() => h.close());
  await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
  return { d, h };
}

const row = (h: FleetHarness, id: string) => h.db.prisma.agent.findUniqueOrThrow({ where: { id } });
const kinds = (events: FleetEvent[]) => events.map((e) => e.kind);

/** Spawn, wait for the terminal status, and return the run's stored events. */
async function runToEnd(
  h: FleetHarness,
  prompt: string,
  status: string,
): Promise<{ id: string; events: FleetEvent[] }> {
  const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt });
  await waitFor(() => h.fleet.state.agent(agent.id)?.status === status, 15_000, `${agent.id} ${status}`);
  return { id: agent.id, events: await h.store.readStream(agent.id, 0, 10_000) };
}

function workerLog(events: FleetEvent[]) {
  const e = events.find((x) => x.kind === "worker_log");
  if (!e || e.kind !== "worker_log") throw new Error(`no worker_log in ${kinds(events).join(",")}`);
  return e.payload;
}

describe("a failed run keeps why (issue 12 item 7)", () => {
  it("a preflight failure: worker.log's line right before the terminal status, on the row; exit code unknown", async () => {
    const { d, h } = await setup();
    const { id, events } = await runToEnd(h, "go fake:preflight-fail", "failed");
    const file = path.join(d.daemon.record(id)!.session_dir, "worker.log");
    const log = workerLog(events);
    expect(log.status).toBe("failed");
    expect(log.tail).toContain("API key is not set");
    expect(log.tail).toBe(fs.readFileSync(file, "utf8").trimEnd());
    expect(log).toMatchObject({
      truncated: false,
      bytes: fs.statSync(file).size,
      exitCode: null,
      reason: null,
    });
    // Just before the status that ends the run, so the stream delivers it before it completes.
    expect(kinds(events).slice(-2)).toEqual(["worker_log", "status_changed"]);
    expect(events.at(-1)?.payload).toEqual({ from: "running", to: "failed" });
    expect(await row(h, id)).toMatchObject({
      status: "failed",
      outcome: null,
      failureLogTail: log.tail,
      failureLogTruncated: false,
      exitCode: null,
      failureReason: null,
    });
  });

  it("a stream error after two turns (no RunEnd): its log line, exit code unknown", async () => {
    const { h } = await setup();
    const { id, events } = await runToEnd(h, "go fake:no-run-end", "failed");
    const log = workerLog(events);
    expect(log.tail).toMatch(/stream error: connection reset by provider/);
    expect(log.exitCode).toBeNull();
    expect(kinds(events)).not.toContain("agent_finished");
    expect((await row(h, id)).exitCode).toBeNull();
  });

  it("RunEnd(MaxTurnsReached): exit code 75 inferred from the stop condition", async () => {
    const { h } = await setup();
    const { id, events } = await runToEnd(h, "go max-turns", "failed");
    const log = workerLog(events);
    expect(log.exitCode).toBe(75);
    expect(log.tail).toContain("max turns reached");
    expect(kinds(events).indexOf("agent_finished")).toBeLessThan(kinds(events).indexOf("worker_log"));
    expect(await row(h, id)).toMatchObject({ outcome: "MaxTurnsReached", exitCode: 75 });
  });

  it("a log over the bound keeps its last lines, marked truncated", async () => {
    const { h } = await setup();
    const { id, events } = await runToEnd(h, "go long-log", "failed");
    const log = workerLog(events);
    const lines = log.tail!.split("\n");
    expect(lines).toHaveLength(WORKER_LOG_TAIL_LINES);
    expect(lines.at(-1)).toBe(PREFLIGHT_LINE);
    expect(lines[0]).toMatch(/^log line 61 x+$/);
    expect(log.truncated).toBe(true);
    expect(await row(h, id)).toMatchObject({ failureLogTail: log.tail, failureLogTruncated: true });
  });

  it("token-shaped secrets in worker.log are redacted in the event and on the row", async () => {
    const { h } = await setup();
    const { id, events } = await runToEnd(h, "go secret-log", "failed");
    const log = workerLog(events);
    const stored = JSON.stringify([log, await row(h, id)]);
    for (const secret of Object.values(SECRETS)) expect(stored).not.toContain(secret);
    expect(log.tail!.split("\n").slice(-5).join("\n")).toBe(
      [
        "provider said 401 for key [redacted] (check it)",
        "request headers: Authorization: Bearer [redacted]",
        "env: ANTHROPIC_API_KEY=[redacted] PATH=/usr/bin",
        "prospero token [redacted] seen",
        PREFLIGHT_LINE,
      ].join("\n"),
    );
  });

  it("a run that ends done records no worker_log and no failure", async () => {
    const { h } = await setup();
    const { id, events } = await runToEnd(h, "quick", "done");
    expect(kinds(events)).not.toContain("worker_log");
    expect(await row(h, id)).toMatchObject({
      exitCode: null,
      failureLogTail: null,
      failureLogTruncated: null,
      failureReason: null,
    });
  });

  it("a run removed on the daemon while running ends crashed; its deleted log is recorded as unavailable", async () => {
    const { d, h } = await setup();
    const { agent } = await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    await new CalibandClient({ scheme: "unix", path: d.daemon.socketPath }).rm(agent.id, { force: true });
    await waitFor(async () => (await row(h, agent.id)).goneAt, 10_000, "gone recorded");
    const events = await h.store.readStream(agent.id, 0, 10_000);
    expect(kinds(events).slice(-3)).toEqual(["worker_log", "status_changed", "agent_gone"]);
    const log = workerLog(events);
    expect(log).toMatchObject({ status: "crashed", tail: null, bytes: null, exitCode: null });
    expect(log.reason).toMatch(/worker\.log does not exist here/);
    expect(await row(h, agent.id)).toMatchObject({
      status: "crashed",
      failureLogTail: null,
      failureReason: log.reason,
    });
  });

  it("a run that failed before its workspace was registered gets its worker_log when discovered", async () => {
    const d = await startDaemon({ script: scripts });
    onCleanup(() => d.close());
    const { id } = await new CalibandClient({ scheme: "unix", path: d.daemon.socketPath }).spawn({
      initial_prompt: "early fake:preflight-fail",
    });
    await waitFor(() => d.daemon.record(id)?.status === "failed", 10_000, "failed on the daemon");
    const h = await startFleet({ runtimeDir: d.ws.runtime });
    onCleanup(() => h.close());
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const events = await waitFor(async () => {
      const all = await h.store.readStream(id, 0, 1000);
      return all.some((e) => e.kind === "worker_log") ? all : null;
    }, 10_000);
    expect(kinds(events)).toEqual(["agent_discovered", "worker_log"]);
    expect(workerLog(events).tail).toContain("API key is not set");
    // Once: later polls add nothing.
    await new Promise((r) => setTimeout(r, 400));
    expect((await h.store.readStream(id, 0, 1000)).length).toBe(2);
    expect((await row(h, id)).failureLogTail).toContain("API key is not set");
  });
});

describe("readWorkerLogTail on real files", () => {
  const dirWith = (content: string | Buffer) => {
    const dir = tmpDir("wlog-");
    fs.writeFileSync(path.join(dir, "worker.log"), content);
    return dir;
  };

  it("keeps the last 40 lines", async () => {
    const lines = Array.from({ length: 41 }, (_, i) => `l${i}`);
    const t = await readWorkerLogTail(dirWith(lines.join("\n") + "\n"));
    expect(t.tail).toBe(lines.slice(1).join("\n"));
    expect(t.truncated).toBe(true);
    const whole = await readWorkerLogTail(dirWith(lines.slice(1).join("\n") + "\n"));
    expect(whole).toMatchObject({ tail: lines.slice(1).join("\n"), truncated: false });
  });

  it("keeps at most 8 KiB, whole lines from the end; a single over-long line keeps its end", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `${String(i).padStart(3, "0")}${"é".repeat(200)}`);
    const t = await readWorkerLogTail(dirWith(lines.join("\n")));
    expect(Buffer.byteLength(t.tail!, "utf8")).toBeLessThanOrEqual(WORKER_LOG_TAIL_BYTES);
    const kept = t.tail!.split("\n");
    expect(kept).toEqual(lines.slice(lines.length - kept.length));
    expect(kept.length).toBe(Math.floor((WORKER_LOG_TAIL_BYTES + 1) / (403 + 1)));
    expect(t.truncated).toBe(true);

    const one = "start" + "ü".repeat(10_000) + "the end";
    const long = await readWorkerLogTail(dirWith(one));
    expect(long.tail!.endsWith("üthe end")).toBe(true);
    expect(long.tail).not.toContain("\ufffd"); // cut at a character boundary
    expect(Buffer.byteLength(long.tail!, "utf8")).toBeLessThanOrEqual(WORKER_LOG_TAIL_BYTES);
    expect(long).toMatchObject({ truncated: true, bytes: Buffer.byteLength(one) });
  });

  it("a secret that straddles the start of the kept window is still redacted whole", async () => {
    const secret = "sk-ant-api03-" + "Z".repeat(60);
    // The secret starts a little before the last 8 KiB of the file.
    const after = "y".repeat(WORKER_LOG_TAIL_BYTES - 20);
    const t = await readWorkerLogTail(dirWith(`${"a".repeat(2_000)}\n${secret} ${after}`));
    expect(t.tail).toBe(`[redacted] ${after}`);
    expect(t.truncated).toBe(true);
  });

  it("invalid UTF-8 becomes U+FFFD; an empty log is an empty tail", async () => {
    const t = await readWorkerLogTail(dirWith(Buffer.from([0x6f, 0x6b, 0xff, 0x0a])));
    expect(t.tail).toBe("ok\ufffd");
    expect(await readWorkerLogTail(dirWith(""))).toEqual({
      tail: "",
      truncated: false,
      bytes: 0,
      reason: null,
    });
  });

  it("a missing file, no session dir, a symlink, a FIFO: no tail, a reason, never a throw or a hang", async () => {
    const missing = await readWorkerLogTail(path.join(tmpDir("wlog-"), "gone"));
    expect(missing).toMatchObject({ tail: null, bytes: null });
    expect(missing.reason).toMatch(/does not exist here/);
    expect((await readWorkerLogTail("")).reason).toMatch(/no session dir/);

    const secretFile = path.join(tmpDir("wlog-"), "secret.txt");
    fs.writeFileSync(secretFile, "private\n");
    const linked = tmpDir("wlog-");
    fs.symlinkSync(secretFile, path.join(linked, "worker.log"));
    const viaLink = await readWorkerLogTail(linked);
    expect(viaLink.tail).toBeNull();
    expect(viaLink.reason).toMatch(/symbolic link/);

    const fifoDir = tmpDir("wlog-");
    execFileSync("mkfifo", [path.join(fifoDir, "worker.log")]);
    const fifo = await readWorkerLogTail(fifoDir);
    expect(fifo.tail).toBeNull();
    expect(fifo.reason).toMatch(/not a regular file/);
  });
});

describe("what the tail keeps: the text a human reads, secrets redacted", () => {
  const dirWith = (content: string) => {
    const dir = tmpDir("wlog-");
    fs.writeFileSync(path.join(dir, "worker.log"), content);
    return dir;
  };
  const key = "sk-ant-api03-" + "A".repeat(40);

  it("a secret wrapped in colour codes is redacted; escapes and control characters are not stored", async () => {
    const t = await readWorkerLogTail(
      dirWith(
        `invalid x-api \u001b[1m${key}\u001b[0m\r\n` +
          "\u001b]0;title\u0007bell\u0007 nul\u0000 c1\u009b2J del\u007f tab\tok\n" +
          `split sk-ant-\u200bapi03-${"B".repeat(30)} \u202eevil\n`,
      ),
    );
    expect(t.tail).toBe(
      ["invalid x-api [redacted]", "bell nul c1 del tab\tok", "split [redacted] evil"].join("\n"),
    );
    expect(cleanLogText("a\u001b[38;5;196mb\u001b[0m\r\nc\u009b31md")).toBe("ab\nc" + "d");
  });

  it("provider, GitHub, Slack and AWS tokens, bearer credentials, URL passwords, NAME=value and --flag value", () => {
    const gh = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const cases: [string, string][] = [
      [`key ${key} bad`, "key [redacted] bad"],
      [`google AIza${"x".repeat(35)}`, "google [redacted]"],
      ...["ghp", "gho", "ghu", "ghs", "ghr"].map((p): [string, string] => [`t=${p}_${gh};`, "t=[redacted];"]),
      [`pat github_pat_11ABCDEFG0_${"z".repeat(59)} end`, "pat [redacted] end"],
      ...["xoxb", "xoxp", "xoxa", "xoxo", "xoxs", "xoxr"].map((p): [string, string] => [
        `slack ${p}-1234567890-abcdefABCDEF end`,
        "slack [redacted] end",
      ]),
      ["aws AKIAIOSFODNN7EXAMPLE and ASIAY34FZKBOKMUTVV7A.", "aws [redacted] and [redacted]."],
      ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.p.s", "Authorization: Bearer [redacted]"],
      [
        "clone https://alice:s3cr:et@pw@git.example.com/r.git",
        "clone https://alice:[redacted]@git.example.com/r.git",
      ],
      ["redis://:hunter2@cache:6379/0", "redis://:[redacted]@cache:6379/0"],
      [
        "env ANTHROPIC_API_KEY=hunter2-very-secret PATH=/usr/bin",
        "env ANTHROPIC_API_KEY=[redacted] PATH=/usr/bin",
      ],
      [`{"client_secret": "abcdefgh12345"}`, `{"client_secret": "[redacted]"}`],
      ["argv: caliban --api-key hunter2 --model x", "argv: caliban --api-key [redacted] --model x"],
      [
        "--token  abc --password=p4ss --secret-key 'q w'",
        "--token  [redacted] --password=p4ss --secret-key '[redacted] w'",
      ],
      ["--verbose --auth-token t0k --password pw", "--verbose --auth-token [redacted] --password [redacted]"],
      ["--api-key=" + "v".repeat(2_000), "--api-key=[redacted]"],
      [`prospero_${"b".repeat(43)} seen`, "[redacted] seen"],
    ];
    for (const [input, want] of cases) expect(redactSecrets(input), input).toBe(want);
  });

  it("leaves what only looks like a secret", () => {
    for (const text of [
      "--max-tokens 4096 --keyboard us --token-count=12",
      "see https://docs.example.com/a:b@c and git@github.com:org/repo.git",
      "AKIA1234 is short; ghp_short; xoxb-1; sk-too-short",
      "max_tokens: 4096, key: value",
      "line one key\n=value-that-is-long",
    ]) {
      expect(redactSecrets(text), text).toBe(text);
    }
  });

  // The previous NAME=value pattern backtracked cubically: a 9,000-character line of "key-" took
  // about 20 s (the list below: minutes), blocking the event loop. Linear patterns take
  // milliseconds, so the 10 s limit only trips on a catastrophic pattern (no speed is asserted).
  it(
    "adversarial 9 KiB lines are redacted without catastrophic backtracking",
    { timeout: 10_000 },
    async ({ signal }) => {
      const units = [
        "key-",
        "-key",
        "key.",
        "xkey_",
        "pass-word",
        "--a-key",
        "a",
        "token",
        "=:",
        " ",
        "\t \t",
      ];
      for (const unit of [...units, "http://a:", "bearer ", "\u001b["]) {
        // The whole line is in the reader's window (9 KiB) and is redacted before its end is kept.
        const line = unit.repeat(Math.ceil(9_000 / unit.length)).slice(0, 9_000);
        const t = await readWorkerLogTail(dirWith(line));
        // Timed out: stop, or a catastrophic pattern keeps this worker busy for minutes more.
        if (signal.aborted) return;
        expect(t.tail, JSON.stringify(unit)).toBe(cleanLogText(line).slice(-WORKER_LOG_TAIL_BYTES));
        // With a '=' in the middle: what is left of it either ends as the line did or is redacted.
        const out = redactSecrets(`${line.slice(0, 4_500)}=${line.slice(-4_500)}`);
        expect(out.endsWith(line.slice(-50)) || out.endsWith("=[redacted]")).toBe(true);
      }
    },
  );
});

describe("exitCodeOfOutcome (protocol §5.4)", () => {
  it("maps stop conditions to the worker's exit codes; no RunEnd or an unknown one is null", () => {
    expect(exitCodeOfOutcome("EndOfTurn")).toBe(0);
    expect(exitCodeOfOutcome("MaxTurnsReached")).toBe(75);
    expect(exitCodeOfOutcome("Cancelled")).toBe(124);
    for (const o of ["ProviderError", "HookDenied", "Refusal", "StreamIdle", "ThinkingBudgetExhausted"]) {
      expect(exitCodeOfOutcome(o)).toBe(1);
    }
    expect(exitCodeOfOutcome(null)).toBeNull();
    expect(exitCodeOfOutcome("SomeFutureStop")).toBeNull();
    expect(exitCodeOfOutcome("toString")).toBeNull();
  });
});
