/**
 * The double's `fake:edit` run (test/support/README.md): real file changes in the agent's working
 * dir over two tool-using turns, a hold, a text-only summary — in frames of the real vocabulary
 * (every line parses as a caliband TurnEvent).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TurnEventSchema } from "../../src/caliband/wire.js";
import { isTerminal } from "../../src/caliband/wire.js";
import {
  startDaemon,
  startFleet,
  waitFor,
  type DaemonFixture,
  type FleetHarness,
} from "../helpers/fleet-harness.js";
import { fakeEditNote, fakeEditNotePath, fakeEditReadmeLine } from "../support/fake-scripts.js";
import { git } from "../support/temp-workspace.js";

let d: DaemonFixture | undefined;
let h: FleetHarness | undefined;
afterEach(async () => {
  await h?.close();
  await d?.close();
  h = d = undefined;
});

describe("fake:edit", () => {
  it("edits, adds and deletes files in its worktree across two turns, holds, then summarizes", async () => {
    d = await startDaemon();
    fs.writeFileSync(path.join(d.ws.root, "OBSOLETE.txt"), "x\n");
    git(d.ws.root, ["add", "OBSOLETE.txt"]);
    git(d.ws.root, ["commit", "-q", "-m", "obsolete"]);
    h = await startFleet({ runtimeDir: d.ws.runtime });
    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const { agent } = await h.fleet.lifecycle.spawn({
      workspace: "demo",
      prompt: "Edit. fake:edit fake:hold=60000",
    });
    const wt = agent.workingDir;
    const note = path.join(wt, fakeEditNotePath(agent.id));
    await waitFor(
      () => fs.existsSync(note) && fs.readFileSync(note, "utf8") === fakeEditNote(agent.id, 1),
      10_000,
      "turn 1's edit",
    );
    expect(fs.readFileSync(path.join(wt, "README.md"), "utf8")).toBe(
      `# scratch repo\nhello from the fake worker\n${fakeEditReadmeLine(agent.id)}\n`,
    );
    expect(fs.existsSync(path.join(wt, "OBSOLETE.txt"))).toBe(false);
    // The source checkout is not touched: the edits are in the worktree only.
    expect(git(d.ws.root, ["status", "--porcelain"]).trim()).toBe("?? .caliban/");
    // Release the hold only once the worker is in it (after TurnEnd of turn 1).
    const stdout = path.join(agent.sessionDir, "stdout.ndjson");
    await waitFor(
      () => (fs.readFileSync(stdout, "utf8").match(/"type":"TurnEnd"/g) ?? []).length === 2,
      20_000,
      "TurnEnd of turn 1",
    );
    d.daemon.agent(agent.id)!.release();
    await waitFor(() => isTerminal(h!.fleet.state.agent(agent.id)?.status ?? ""), 40_000, "the run to end");
    expect(h.fleet.state.agent(agent.id)!.status).toBe("done");
    const lines = fs.readFileSync(stdout, "utf8").trim().split("\n");
    const frames = lines.map((l) => TurnEventSchema.parse(JSON.parse(l)));
    const types = frames.map((f) => f.type);
    expect(types.filter((t) => t === "TurnStart")).toHaveLength(3);
    const tools = frames.flatMap((f) => (f.type === "ToolCallStart" ? [f.name] : []));
    expect(tools).toEqual(["Write", "Edit", "Bash", "Edit"]);
    const ends = frames.flatMap((f) => (f.type === "TurnEnd" ? [f.stop_reason] : []));
    expect(ends).toEqual(["tool_use", "tool_use", "end_turn"]);
    expect(types[types.length - 1]).toBe("RunEnd");
    expect(types.filter((t) => t === "ToolCallEnd")).toHaveLength(4);
  }, 60_000);
});
