/**
 * `spawn` then `follow` to completion against a real gateway: the human timeline (text, the `Read`
 * tool call with its input and result, turn usage, the final outcome and cost), NDJSON with
 * `--json`, `--from` a cursor, resuming after the connection is cut, Ctrl-C, and the exit codes
 * of follow (0 on completion, 3 unknown agent, 2 bad cursor, 130 interrupted).
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { PROSPERO_BIN } from "../helpers/serve-process.js";
import { cli, cuttableProxy, spawnAgent } from "./run-cli.js";

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h?.close();
});

type Ev = { __typename: string; seq: number; cursor: string; [k: string]: unknown };

describe("spawn and follow", () => {
  it("spawn prints the new agent; follow shows its live timeline and exits 0 when it ends", async () => {
    const spawned = await cli(h.url, ["spawn", "demo", "look around fake:delay=3000", "--label", "looker"]);
    expect(spawned.code).toBe(0);
    const m = /^spawned ([0-9a-f]{12}) looker in demo · (SPAWNING|RUNNING)$/m.exec(spawned.stdout);
    expect(m, spawned.stdout).not.toBeNull();
    const id = m![1]!;
    expect(spawned.stdout).toContain(`prospero follow ${id}`);

    // Started while the agent is still waiting to emit its first frame: the rest arrives live.
    const f = await cli(h.url, ["follow", id]);
    expect(f.stderr).toBe("");
    expect(f.code).toBe(0);
    const out = f.stdout;
    expect(out).toMatch(new RegExp(`^looker ${id} in demo · (SPAWNING|RUNNING)`));
    expect(out).toMatch(/▶ spawned looker in demo/);
    expect(out).toMatch(/prompt: look around fake:delay=3000/);
    expect(out).toMatch(/── turn 0 · claude-sonnet-4-5 ──/);
    expect(out).toMatch(/I'll look at the README first\./);
    expect(out).toMatch(/⚙ Read started/);
    expect(out).toMatch(/✓ Read \{"file_path":"README\.md"\}/);
    expect(out).toMatch(/│ # scratch repo\n.*│ hello from the fake worker/);
    expect(out).toMatch(/↳ turn 0 tool_use · in [\d,]+ · out \d+ · \$\S+/);
    expect(out).toMatch(/■ finished: EndOfTurn · 2 turns · in [\d,]+ · out \d+ · cost \$\S+/);
    expect(out.trimEnd().split("\n").at(-1)).toMatch(/· status RUNNING → DONE$/);
    // Order: the tool result comes before the outcome.
    expect(out.indexOf("✓ Read")).toBeLessThan(out.indexOf("EndOfTurn"));
  });

  it("follow --json prints NDJSON, every seq once; --from resumes after a cursor", async () => {
    const id = await spawnAgent(h.url, "quick one");
    const all = await cli(h.url, ["follow", id, "--json"]);
    expect(all.code).toBe(0);
    const events = all.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Ev);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]?.__typename).toBe("AgentSpawnedEvent");
    expect(events.find((e) => e.__typename === "ToolFinishedEvent")).toMatchObject({
      name: "Read",
      input: { file_path: "README.md" },
      ok: true,
    });
    expect(events.find((e) => e.__typename === "AgentFinishedEvent")).toMatchObject({
      outcome: "END_OF_TURN",
      outcomeName: "EndOfTurn",
    });

    const third = events[2]!;
    const rest = await cli(h.url, ["follow", id, "--json", "--from", third.cursor]);
    expect(rest.code).toBe(0);
    const later = rest.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Ev);
    expect(later.map((e) => e.seq)).toEqual(events.slice(3).map((e) => e.seq));
  });

  it("follow: unknown agent exits 3, a bad cursor exits 2", async () => {
    const id = await spawnAgent(h.url, "another");
    const [unknown, badCursor] = await Promise.all([
      cli(h.url, ["follow", "000000000000"]),
      cli(h.url, ["follow", id, "--from", "garbage"]),
    ]);
    expect(unknown).toMatchObject({ code: 3, stderr: "prospero: agent not found: 000000000000\n" });
    expect(badCursor.code).toBe(2);
    expect(badCursor.stderr).toMatch(/invalid cursor/);
  });

  it("follow resumes after its connections are cut mid-run: every event exactly once, exit 0", async () => {
    const proxy = await cuttableProxy(h.url);
    try {
      const id = await spawnAgent(h.url, "pause midway fake:hold=60000");
      const child = spawn(process.execPath, [PROSPERO_BIN, "follow", id, "--json", "--url", proxy.url], {
        env: { ...process.env, PROSPERO_TOKEN: h.token },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      // The agent holds after starting turn 1: cut while it is live, then let it finish.
      await waitFor(() => stdout.includes('"turnIndex":1'), 15_000, "turn 1 started");
      proxy.cut();
      await waitFor(() => stderr.includes("connection lost"), 10_000, "the reconnect note");
      h.d.daemon.agent(id)?.release();
      expect(await exited).toBe(0);
      expect(stderr).toMatch(
        /^prospero: connection lost \(WebSocket closed 1006\); resuming after the last event in \d+ ms \(attempt 1\)$/m,
      );
      const events = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Ev);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.at(-1)).toMatchObject({ __typename: "StatusChangedEvent", to: "DONE" });
      const stored = await h.app.store.readStream(id, 0, 10_000);
      expect(events.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    } finally {
      await proxy.close();
    }
  });

  it("Ctrl-C stops following with exit 130 and says how to continue", async () => {
    const id = await spawnAgent(h.url, "pause fake:hold=60000");
    const child = spawn(process.execPath, [PROSPERO_BIN, "follow", id, "--url", h.url], {
      env: { ...process.env, PROSPERO_TOKEN: h.token },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await waitFor(() => stdout.includes("── turn 1"), 15_000, "turn 1 started");
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(new RegExp(`^stopped; continue with: prospero follow ${id} --from \\S+$`, "m"));
    h.d.daemon.agent(id)?.release();
  });
});
