/**
 * Read commands against a real gateway (in-process, caliband double): `workspace ls`, `ls`, `show`,
 * `usage`, `status` in human and `--json` form, and the exit codes for not found (3), usage
 * errors (2) and an unreachable gateway (5).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson, closedPort } from "./run-cli.js";

let h: AppHarness;
let done: string;
let running: string;

beforeAll(async () => {
  h = await startAppHarness();
  const spawn = async (prompt: string, label: string) => {
    const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation($p: String!, $l: String!) { spawnAgent(input: { workspace: "demo", prompt: $p, label: $l }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
      { p: prompt, l: label },
    );
    return r.data!.spawnAgent.agent.agentId;
  };
  done = await spawn("read the readme", "reader");
  running = await spawn("hold on fake:hold=60000", "holder");
  await waitFor(() => h.app.fleet.state.agent(done)?.status === "done", 10_000, "done");
  await waitFor(() => h.app.fleet.state.agent(running)?.status === "running", 10_000, "running");
});
afterAll(async () => {
  await h?.close();
});

describe("read commands", () => {
  it("workspace ls: human table and --json", async () => {
    const [human, json] = await Promise.all([
      cli(h.url, ["workspace", "ls"]),
      cliJson<{ workspaces: { name: string; health: { state: string } }[] }>(h.url, ["workspace", "ls"]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^NAME\s+HEALTH\s+ROOT\s+CONFIG/m);
    expect(human.stdout).toMatch(/^demo\s+HEALTHY\s+\S+demo-repo\s+provider default · model default/m);
    expect(human.stdout).not.toContain("\u001b["); // no colors on a pipe
    expect(json.workspaces).toEqual([
      expect.objectContaining({ name: "demo", health: expect.objectContaining({ state: "HEALTHY" }) }),
    ]);
  });

  it("ls: table, filters, --json with the agents connection", async () => {
    const [human, filtered, none] = await Promise.all([
      cli(h.url, ["ls"]),
      cliJson<{ agents: { edges: { node: { agentId: string; status: string } }[] } }>(h.url, [
        "ls",
        "--status",
        "running,idle",
        "--workspace",
        "demo",
      ]),
      cli(h.url, ["ls", "--workspace", "elsewhere"]),
    ]);
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^ID\s+NAME\s+WORKSPACE\s+STATUS\s+MODEL\s+AGE\s+TURNS\s+TOKENS IN\/OUT\s+COST\s+OUTCOME$/,
    );
    expect(lines.find((l) => l.startsWith(done))).toMatch(
      /reader\s+demo\s+DONE\s+claude-sonnet-4-5\s+\S+\s+2\s+\S+\/\S+\s+\$\S+\s+EndOfTurn/,
    );
    expect(lines.find((l) => l.startsWith(running))).toMatch(/holder\s+demo\s+RUNNING/);

    expect(filtered.agents.edges.map((e) => e.node.agentId)).toEqual([running]);
    expect(none).toMatchObject({ code: 0, stdout: "no agents\n" });
  });

  it("show: details and spec, --json; an unknown agent exits 3", async () => {
    const [human, json, missing] = await Promise.all([
      cli(h.url, ["show", done]),
      cliJson<{ agent: { agentId: string; status: string; outcome: string; spec: { prompt: string } } }>(
        h.url,
        ["show", done],
      ),
      cli(h.url, ["show", "000000000000"]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^reader  ${done}$`, "m"));
    expect(human.stdout).toMatch(/status\s+DONE/);
    expect(human.stdout).toMatch(/outcome\s+EndOfTurn/);
    expect(human.stdout).toMatch(/prompt\s+read the readme/);
    expect(human.stdout).toMatch(/tokens\s+in [\d,]+ · out \d+/);
    expect(json.agent).toMatchObject({
      agentId: done,
      status: "DONE",
      outcome: "END_OF_TURN",
      outcomeName: "EndOfTurn",
      spec: { prompt: "read the readme" },
    });

    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe("prospero: agent not found: 000000000000\n");
    expect(missing.stdout).toBe("");
  });

  it("usage: table and --json; a bad --since is a usage error", async () => {
    const [human, json, bad] = await Promise.all([
      cli(h.url, ["usage", "--since", "1d"]),
      cliJson<{ usage: { workspace: string; turns: number; outcomes: { done: number } }[] }>(h.url, [
        "usage",
        "--since",
        new Date(Date.now() - 3_600_000).toISOString(),
        "--by",
        "workspace",
      ]),
      cli(h.url, ["usage", "--since", "yesterday"]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^WORKSPACE\s+TURNS\s+INPUT\s+OUTPUT\s+CACHE READ\s+CACHE WRITE\s+COST/m);
    expect(human.stdout).toMatch(/^demo\s+\d+\s+[\d,]+\s+[\d,]+\s+\d+\s+\d+\s+\$\S+\s+1\/0\/0\/0$/m);
    expect(json.usage).toEqual([
      expect.objectContaining({ workspace: "demo", outcomes: expect.objectContaining({ done: 1 }) }),
    ]);
    expect(json.usage[0]!.turns).toBeGreaterThanOrEqual(2);

    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since <when>' argument 'yesterday' is invalid/);
  });

  it("status: readiness, workspaces with counts, metrics; --json", async () => {
    const [human, json] = await Promise.all([
      cli(h.url, ["status"]),
      cliJson<{
        readiness: { ready: boolean };
        workspaces: { name: string }[];
        metrics: { eventsAppendedTotal: number };
        statusCounts: Record<string, Record<string, number>>;
      }>(h.url, ["status"]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^gateway  ${h.url.replace(/\./g, "\\.")}  v\\S+  host \\S+  ready$`, "m"),
    );
    expect(human.stdout).toMatch(/^workspaces {2}1 \(1 healthy, 0 unreachable\)$/m);
    expect(human.stdout).toMatch(/^ {2}demo\s+HEALTHY\s+running 1 · done 1\s/m);
    expect(human.stdout).toMatch(/^metrics$/m);
    expect(json.readiness.ready).toBe(true);
    expect(json.workspaces.map((w) => w.name)).toEqual(["demo"]);
    expect(json.metrics.eventsAppendedTotal).toBeGreaterThan(0);
    expect(json.statusCounts).toEqual({ demo: { RUNNING: 1, DONE: 1 } });
  });

  it("exit codes: usage errors (2), unreachable gateway (5) by --url and PROSPERO_URL", async () => {
    const port = await closedPort();
    const [unknownCommand, badStatus, missingArg, badUrl, byFlag, byEnv] = await Promise.all([
      cli(h.url, ["frobnicate"]),
      cli(h.url, ["ls", "--status", "sleeping"]),
      cli(h.url, ["show"]),
      cli(h.url, ["ls", "--url", "not a url"]),
      cli(h.url, ["ls", "--url", `http://127.0.0.1:${port}`]),
      cli(`http://127.0.0.1:${port}`, ["status", "--json"]),
    ]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toMatch(/unknown status "sleeping"/);
    expect(missingArg.code).toBe(2);
    expect(badUrl).toMatchObject({ code: 2, stderr: expect.stringMatching(/invalid gateway URL/) });

    expect(byFlag.code).toBe(5);
    expect(byFlag.stderr).toBe(
      `prospero: cannot reach the gateway at http://127.0.0.1:${port}/graphql: ECONNREFUSED\n`,
    );
    expect(byEnv.code).toBe(5);
    expect(byEnv.stdout).toBe("");
  });

  it("--help lists the commands and the exit codes", async () => {
    const help = await cli(h.url, ["--help"]);
    expect(help.code).toBe(0);
    for (const cmd of [
      "serve",
      "workspace",
      "spawn",
      "ls",
      "show",
      "follow",
      "kill",
      "respawn",
      "rm",
      "drain",
      "send",
      "end-input",
      "usage",
      "status",
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${cmd} `, "m"));
    }
    expect(help.stdout).toMatch(/^ {2}5 +unreachable/m);
  });
});
