/**
 * `send` and `end-input` on an interactive agent against a real gateway (refused with exit 4 once it
 * finished).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, spawnAgent } from "./run-cli.js";

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
});
afterAll(async () => {
  await h?.close();
});

describe("interactive agents", () => {
  it("send and end-input drive an interactive agent; send to a finished one is refused", async () => {
    const id = await spawnAgent(h.url, "chat", ["--interactive"]);
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
    const send = await cli(h.url, ["send", id, "ping from the CLI"]);
    expect(send).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^sent to ${id} · `)) });
    await waitFor(() => h.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle again");
    const end = await cli(h.url, ["end-input", id]);
    expect(end).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^ended input of ${id} · `)),
    });
    const f = await cli(h.url, ["follow", id]);
    expect(f.code).toBe(0);
    expect(f.stdout).toMatch(/» you: ping from the CLI/);
    expect(f.stdout).toMatch(/You said: ping from the CLI/);
    expect(f.stdout).toMatch(/» input ended/);
    const late = await cli(h.url, ["send", id, "too late"]);
    expect(late.code).toBe(4);
  });
});
