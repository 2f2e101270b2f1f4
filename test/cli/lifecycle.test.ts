/**
 * Agent lifecycle commands against a real gateway: kill (then KILLED), respawn, rm, drain, with
 * typed mutation errors mapped to exit codes 3 (not found) and 4 (refused).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson, spawnAgent } from "./run-cli.js";

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h?.close();
});

const statusOf = async (id: string) =>
  (await cliJson<{ agent: { status: string } | null }>(h.url, ["show", id])).agent?.status;

describe("agent lifecycle commands", () => {
  it("kill: a live agent ends KILLED; killing it again is refused (4); unknown (3); malformed id (4)", async () => {
    const id = await spawnAgent(h.url, "long fake:hold=60000");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "running", 10_000, "running");
    const kill = await cli(h.url, ["kill", id]);
    expect(kill.stderr).toBe("");
    expect(kill).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^killed ${id} · `)) });
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "killed", 10_000, "killed");
    expect(await statusOf(id)).toBe("KILLED");

    const [again, unknown, malformed] = await Promise.all([
      cli(h.url, ["kill", id]),
      cli(h.url, ["kill", "000000000000"]),
      cli(h.url, ["kill", "nope"]),
    ]);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(new RegExp(`^prospero: kill ${id}: .+ \\[INVALID_STATE\\]\\n$`));
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^prospero: kill 000000000000: .*not found.* \[NOT_FOUND\]\n$/);
    expect(malformed.code).toBe(4);
    expect(malformed.stderr).toMatch(/\[BAD_USER_INPUT\]/);
  });

  it("kill --json prints the typed result, also for an error (with its exit code)", async () => {
    const id = await spawnAgent(h.url, "done soon");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "done", 10_000, "done");
    const r = await cli(h.url, ["kill", id, "--json"]);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({
      killAgent: { __typename: "InvalidStateError", code: "INVALID_STATE" },
    });
  });

  it("respawn, then rm the old run; drain kills at the deadline", async () => {
    const id = await spawnAgent(h.url, "first run");
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "done", 10_000, "done");
    const respawn = await cli(h.url, ["respawn", id]);
    expect(respawn.code).toBe(0);
    const m = new RegExp(`^respawned ${id} as ([0-9a-f]{12}) · `).exec(respawn.stdout);
    expect(m, respawn.stdout + respawn.stderr).not.toBeNull();
    const next = m![1]!;
    await waitFor(() => h.app.fleet.state.agent(next)?.status === "done", 10_000, "respawned run done");
    const rm = await cli(h.url, ["rm", next]);
    expect(rm).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^removed ${next} · DONE \\(history kept\\)`)),
    });

    const holder = await spawnAgent(h.url, "stuck fake:hold=60000");
    await waitFor(() => h.app.fleet.state.agent(holder)?.status === "running", 10_000, "running");
    const drain = await cli(h.url, ["drain", holder, "--timeout", "300"]);
    expect(drain.stderr).toBe("");
    expect(drain.code).toBe(0);
    expect(drain.stdout).toMatch(new RegExp(`^drained ${holder}: killed at the deadline · KILLED`));
    const badTimeout = await cli(h.url, ["drain", holder, "--timeout", "soon"]);
    expect(badTimeout.code).toBe(2);
  });
});
