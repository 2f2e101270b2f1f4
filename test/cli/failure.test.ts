/**
 * Why a run failed, in the real `prospero` binary against a real gateway (in-process, caliband
 * double), issue 12 item 7: `show` prints the exit code and the end of worker.log of an agent that
 * failed at preflight, `follow` prints its WorkerLogEvent before the terminal status, `--json`
 * carries both; what the worker printed reaches the terminal without its escapes; a run that
 * ended done shows no failure.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson } from "./run-cli.js";

/** What a terminal would act on: C0 but TAB/LF, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let h: AppHarness;
let preflight: string;
let escaped: string;
let done: string;

async function spawn(prompt: string): Promise<string> {
  const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation($p: String!) { spawnAgent(input: { workspace: "demo", prompt: $p }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: prompt },
  );
  return r.data!.spawnAgent.agent.agentId;
}

beforeAll(async () => {
  h = await startAppHarness();
  [preflight, escaped, done] = await Promise.all([
    spawn("go fake:preflight-fail"),
    // Binds, waits, then exits 1 without a frame; meanwhile it prints escapes to its log.
    spawn("go fake:delay=4000 fake:exit=1"),
    spawn("quick"),
  ]);
  // The worker's stdout is its worker.log (protocol §5.4): what it prints lands there.
  const log = path.join(h.d.daemon.record(escaped)!.session_dir, "worker.log");
  fs.appendFileSync(log, "\u001b[2J\u001b]0;pwned\u0007cleared \u202eevil\u009b2J done\n");
  for (const [id, status] of [
    [preflight, "failed"],
    [escaped, "failed"],
    [done, "done"],
  ] as const) {
    await waitFor(() => h.app.fleet.state.agent(id)?.status === status, 15_000, `${id} ${status}`);
  }
}, 40_000);
afterAll(async () => {
  await h?.close();
});

describe("why a run failed, in the CLI", () => {
  it("show: exit code and the end of worker.log, indented; --json has the failure", async () => {
    const [human, json] = await Promise.all([
      cli(h.url, ["show", preflight]),
      cliJson<{ agent: { status: string; failure: { logTail: string; exitCode: number | null } | null } }>(
        h.url,
        ["show", preflight],
      ),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ {2}status\s+FAILED$/m);
    expect(human.stdout).toMatch(/^ {2}exit code\s+unknown \(no RunEnd was read/m);
    expect(human.stdout).toMatch(/^ {2}worker\.log\s+whole log:$/m);
    expect(human.stdout).toMatch(/^ {4}│ \[caliban __agent-worker\] provider: API key is not set/m);
    expect(json.agent.status).toBe("FAILED");
    expect(json.agent.failure?.exitCode).toBeNull();
    expect(json.agent.failure?.logTail).toMatch(/API key is not set/);
  });

  it("follow: the worker log right before the terminal status; --json has the WorkerLogEvent", async () => {
    const [human, json] = await Promise.all([
      cli(h.url, ["follow", preflight]),
      cli(h.url, ["follow", preflight, "--json"]),
    ]);
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/· status RUNNING → FAILED$/);
    const at = lines.findIndex((l) => /! failed: worker\.log \(exit code unknown\)$/.test(l));
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, -1).every((l) => l.startsWith("         │ "))).toBe(true);
    expect(lines.slice(at + 1, -1).join("\n")).toMatch(
      /│ \[caliban __agent-worker\] provider: API key is not set/,
    );

    expect(json.code).toBe(0);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { __typename: string; [k: string]: unknown });
    expect(events.slice(-2).map((e) => e.__typename)).toEqual(["WorkerLogEvent", "StatusChangedEvent"]);
    expect(events.at(-2)).toMatchObject({
      endStatus: "FAILED",
      exitCode: null,
      logTruncated: false,
      logReason: null,
      logTail: expect.stringContaining("API key is not set"),
    });
  });

  it("what the worker printed is shown without its escapes", async () => {
    const [show, follow] = await Promise.all([
      cli(h.url, ["show", escaped]),
      cli(h.url, ["follow", escaped]),
    ]);
    for (const run of [show, follow]) {
      expect(run.code).toBe(0);
      expect(ACTIVE.exec(run.stdout)).toBeNull();
      expect(run.stdout).not.toContain("pwned");
      expect(run.stdout).toMatch(/│ cleared evil done$/m); // the 8-bit CSI is dropped whole
    }
    const json = await cliJson<{ agent: { failure: { logTail: string } } }>(h.url, ["show", escaped]);
    // Stored as a human reads it: escapes and control characters are removed before redaction.
    expect(json.agent.failure.logTail).toContain("cleared evil done");
    expect(ACTIVE.exec(json.agent.failure.logTail)).toBeNull();
  });

  it("a run that ended done shows no failure", async () => {
    const [human, json] = await Promise.all([
      cli(h.url, ["show", done]),
      cliJson<{ agent: { failure: unknown } }>(h.url, ["show", done]),
    ]);
    expect(human.stdout).not.toMatch(/exit code|worker\.log/);
    expect(json.agent.failure).toBeNull();
  });
});
