/**
 * The benchmark harness itself (bench/): directive parsing of the simulator's scripts, ratio and
 * target bookkeeping, the command line, and one real quick run end to end. Figures are not
 * asserted (benchmarks print them; CI does not gate on them) — only that a run produces them.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { benchScript, gatePath, parseBenchDirectives, wallMs } from "../../bench/lib/bench-scripts.js";
import type { WorkerContext } from "../support/fake-scripts.js";
import type { SpawnSpecJson } from "../support/wire-format.js";
import { renderTable, withTarget, type RunReport } from "../../bench/lib/report.js";
import { subscribe } from "../../bench/lib/ws-client.js";
import { tmpDir } from "../helpers/tmp.js";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../..");
const bench = (args: string[]) =>
  run(process.execPath, ["--import", "tsx", "bench/run.ts", ...args], { cwd: REPO, timeout: 180_000 });

describe("bench harness", () => {
  it("reads bench: directives from a prompt and ignores other text", () => {
    expect(parseBenchDirectives("plain prompt fake:frames=3")).toBeNull();
    expect(parseBenchDirectives("go bench:burst=500 bench:distinct")).toEqual({
      burst: 500,
      distinct: true,
      idle: false,
    });
    expect(parseBenchDirectives("bench:rate=50 bench:count=200")).toEqual({
      rate: 50,
      count: 200,
      distinct: false,
      idle: false,
    });
    expect(parseBenchDirectives("bench:rate=10 bench:count=3 bench:gate=7 bench:phase=25000")).toEqual({
      rate: 10,
      count: 3,
      gate: 7,
      phase: 25000,
      distinct: false,
      idle: false,
    });
  });

  /** Run a gated `bench:rate=10 bench:count=2` script; resolves with its deltas' write instants (wall ms). */
  async function gatedRun(
    gateContent: string,
    phaseUs: number,
  ): Promise<{ written: number[]; log: string[] }> {
    const gateN = 900_000_000 + Math.floor(Math.random() * 1e8);
    const file = gatePath(gateN);
    fs.writeFileSync(file, gateContent);
    try {
      const script = benchScript({
        initial_prompt: `x bench:rate=10 bench:count=2 bench:gate=${gateN} bench:phase=${phaseUs}`,
      } as SpawnSpecJson);
      const written: number[] = [];
      const log: string[] = [];
      const ctx = {
        id: "a".repeat(12),
        emit: (f: { type: string }) => {
          if (f.type === "AssistantTextDelta") written.push(wallMs());
        },
        sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
        log: (line: string) => log.push(line),
      } as unknown as WorkerContext;
      await script!.run(ctx);
      return { written, log };
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  it("starts a gated paced run at the gate file's instant plus its phase, one period apart", async () => {
    const startAt = wallMs() + 150;
    const { written, log } = await gatedRun(startAt.toFixed(3), 40_000);
    expect(log).toEqual([]);
    expect(written).toHaveLength(2);
    // Due at start + 40 ms and + 140 ms (10/s): never before; a loaded machine's timers may be late,
    // but not by the 100 ms that would put the first frame in the second's slot.
    expect(written[0]! - startAt).toBeGreaterThanOrEqual(40);
    expect(written[0]! - startAt).toBeLessThan(130);
    expect(written[1]! - startAt).toBeGreaterThanOrEqual(140);
    expect(written[1]! - written[0]!).toBeGreaterThan(50);
  });

  it("starts a paced run that sees its gate late at its next slot, not with the overdue ones at once", async () => {
    const startAt = wallMs() - 250;
    const { written, log } = await gatedRun(startAt.toFixed(3), 0);
    expect(log).toEqual([]);
    expect(written).toHaveLength(2);
    // Slots at +0, +100, +200 ms are past when it starts: the first frame goes at the +300 ms slot.
    expect(written[0]! - startAt).toBeGreaterThanOrEqual(300);
    expect(written[1]! - written[0]!).toBeGreaterThan(50);
  });

  it("starts a paced run whose gate holds no usable instant when it sees the gate, and says so", async () => {
    for (const content of ["", "garbage", "1", (wallMs() - 3_600_000).toFixed(3)]) {
      const seen = wallMs();
      const { written, log } = await gatedRun(content, 30_000);
      expect(log, content).toEqual([
        "bench: the gate file holds no usable start instant; the schedule starts now",
      ]);
      expect(written, content).toHaveLength(2);
      // Not the whole schedule at once (a stale instant made every slot overdue): a period apart.
      expect(written[1]! - written[0]!, content).toBeGreaterThan(50);
      expect(written[0]! - seen, content).toBeGreaterThanOrEqual(29);
    }
  });

  it("computes ratios against the baseline and judges targets", () => {
    const m = withTarget(
      {
        scenario: "s",
        case: "c",
        metric: "m",
        value: 40,
        unit: "x/s",
        baseline: { name: "raw", value: 100 },
      },
      { text: "≥ 0.50 × raw", ok: (_v, r) => (r ?? 0) >= 0.5 },
    );
    expect(m.ratio).toBeCloseTo(0.4);
    expect(m.meets).toBe(false);
    const table = renderTable([m]);
    expect(table).toContain("≥ 0.50 × raw");
    expect(table).toContain("NO");
    expect(table).toContain("100 (raw)");
  });

  it("rejects an unknown scenario with exit 2 and lists the known ones", async () => {
    const err = await bench(["no-such-scenario"]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toContain('unknown scenario "no-such-scenario"');
    const list = await bench(["--list"]);
    const names = list.stdout
      .trim()
      .split("\n")
      .map((l) => l.split(" ")[0]);
    expect(names[0]).toBe("realistic"); // the headline scenario runs first
    for (const name of [
      "realistic",
      "ingest",
      "fanout",
      "replay",
      "slow-consumer",
      "poll-scale",
      "footprint",
      "queue-scale",
    ]) {
      expect(list.stdout).toContain(name);
    }
  });

  it("refuses a report path it cannot write before measuring anything (exit 2)", async () => {
    const file = path.join(tmpDir(), "not-a-dir");
    fs.writeFileSync(file, "");
    const t0 = Date.now();
    const err = await bench(["ingest", "--json", path.join(file, "out.json")]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toContain("cannot write the report");
    expect(err?.stderr).not.toContain("[ingest"); // no scenario started
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it("a quick ingest run prints a table and writes a JSON report with baselines", async () => {
    const file = path.join(tmpDir(), "report.json");
    const { stdout } = await bench(["ingest", "--quick", "--json", file]);
    expect(stdout).toContain("TurnEvents stored/s");
    const report = JSON.parse(fs.readFileSync(file, "utf8")) as RunReport;
    expect(report.failures).toEqual([]);
    expect(report.machine.cores).toBeGreaterThan(0);
    const rates = report.measurements.filter((m) => m.metric === "TurnEvents stored/s");
    expect(rates.map((m) => m.case)).toEqual(["1 agent", "10 agents", "100 agents"]);
    for (const m of rates) {
      expect(m.value).toBeGreaterThan(0);
      expect(m.baseline?.value).toBeGreaterThan(0);
      expect(m.ratio).toBeGreaterThan(0);
      expect(typeof m.meets).toBe("boolean");
    }
    const rss = report.measurements.filter((m) => m.metric === "gateway RSS max");
    expect(rss.map((m) => [m.case, m.target])).toEqual([
      ["1 agent", "≤ 400 MiB"],
      ["10 agents", "≤ 400 MiB"],
      ["100 agents", "≤ 400 MiB"],
    ]);
    for (const m of rss) expect(typeof m.meets).toBe("boolean");
  }, 180_000);

  it("sends a subscriber's token with the WebSocket upgrade, not only in connection_init", async () => {
    // The gateway admits at most 8 token-less upgrades per address at once; the bench opens 50.
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    const seen: (string | undefined)[] = [];
    wss.on("connection", (ws, req) => {
      seen.push(req.headers.authorization);
      ws.on("message", () => ws.send(JSON.stringify({ type: "connection_ack" })));
    });
    try {
      await new Promise<void>((r) => wss.once("listening", () => r()));
      const { port } = wss.address() as AddressInfo;
      const sub = subscribe(`ws://127.0.0.1:${port}/`, "subscription { x }", {}, () => undefined, "tok_1");
      await sub.ready;
      sub.close();
      const anon = subscribe(`ws://127.0.0.1:${port}/`, "subscription { x }", {}, () => undefined);
      await anon.ready;
      anon.close();
      expect(seen).toEqual(["Bearer tok_1", undefined]);
    } finally {
      await new Promise((r) => wss.close(r));
    }
  });

  it("a quick realistic run reports gateway CPU and p99 beside bare ws, with the issue's targets", async () => {
    const file = path.join(tmpDir(), "report.json");
    const { stdout } = await bench(["realistic", "--quick", "--json", file]);
    expect(stdout).toContain("realistic");
    const report = JSON.parse(fs.readFileSync(file, "utf8")) as RunReport;
    expect(report.failures).toEqual([]);
    const rows = new Map(report.measurements.map((m) => [m.metric, m]));
    const p99 = rows.get("latency p99");
    const cpu = rows.get("server CPU");
    expect(p99?.case).toBe("10 agents × 10 ev/s, 20 subs");
    expect(p99?.target).toBe("p99 ≤ 10 ms");
    expect(cpu?.target).toBe("≤ 2 × bare ws");
    for (const m of [p99, cpu]) {
      expect(m?.baseline?.name).toBe("bare ws");
      expect(typeof m?.meets).toBe("boolean");
    }
    expect(cpu?.ratio).toBeGreaterThan(0);
    expect(rows.get("delivered (of expected)")?.value).toBeGreaterThan(0);
  }, 180_000);
});
