/**
 * `prospero report <agent> [--json | --markdown]` (issue 16 item 4) against a real gateway
 * (in-process, caliband double): the terminal block, the query's data as JSON, and the report's
 * markdown exactly as the gateway has it; a failed run's reason; not found (3) and usage (2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatCost, formatDuration, formatTokens } from "../../src/format/index.js";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson } from "./run-cli.js";

let h: AppHarness;
let done: string;
let failed: string;

interface Gql {
  agent: {
    report: {
      markdown: string;
      durationMs: number;
      estimatedCostUsd: number | null;
      usage: { inputTokens: number; outputTokens: number };
    };
  };
}
const MARKDOWN = `query($id: String!) { agent(agentId: $id) { report {
  markdown durationMs estimatedCostUsd usage { inputTokens outputTokens } } } }`;

beforeAll(async () => {
  h = await startAppHarness();
  const spawn = async (prompt: string, label: string) => {
    const r = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
      `mutation($p: String!, $l: String!) { spawnAgent(input: { workspace: "demo", prompt: $p, label: $l }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
      { p: prompt, l: label },
    );
    return r.data!.spawnAgent.agent.agentId;
  };
  done = await spawn("Read README.md and summarize it.", "summarize");
  failed = await spawn("go fake:provider-error=401", "no-key");
  // Ended, and their RunEnd ingested (the outcome is stored with it).
  for (const [id, status] of [
    [done, "done"],
    [failed, "failed"],
  ] as const) {
    await waitFor(
      async () => {
        const row = await h.app.db.prisma.agent.findUnique({ where: { id } });
        return row?.status === status && row.outcome !== null;
      },
      15_000,
      `${id} ${status}`,
    );
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("prospero report", () => {
  it("default: a terminal block with every part of the report", async () => {
    const r = await cli(h.url, ["report", done]);
    expect(r.code, r.stderr).toBe(0);
    const g = (await h.gql<Gql>(MARKDOWN, { id: done })).data!.agent.report;
    const out = r.stdout;
    expect(out).not.toContain("\u001b["); // no colors on a pipe
    expect(out.split("\n")[0]).toBe(`summarize  ${done}`);
    expect(out).toMatch(/^ {2}workspace {5}demo$/m);
    expect(out).toMatch(/^ {2}status {8}DONE$/m);
    expect(out).toMatch(/^ {2}outcome {7}end of turn$/m);
    expect(out).toContain(`  duration      ${formatDuration(g.durationMs)}\n`);
    expect(out).toMatch(/^ {2}turns {9}2$/m);
    expect(out).toContain(
      `  tokens        in ${formatTokens(g.usage.inputTokens)} · out ${formatTokens(g.usage.outputTokens)} ·`,
    );
    expect(out).toContain(`  cost          ${formatCost(g.estimatedCostUsd)}\n`);
    expect(out).toMatch(/^ {2}tool calls {4}1$/m);
    expect(out).toMatch(/^ {4}Read {2} {4}1$/m);
    expect(out).toMatch(/^ {2}changes {7}\S/m);
    expect(out).toContain("  final message\n    │ The README says hello. Done.\n");
  });

  it("a failed run: its outcome with the provider's reason, the exit code and the worker's log", async () => {
    const r = await cli(h.url, ["report", failed]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}status {8}FAILED$/m);
    expect(r.stdout).toContain(
      "  outcome       provider error: 401 Unauthorized: authentication_error: invalid x-api-key\n",
    );
    expect(r.stdout).toContain("  exit code     1 (inferred)\n");
    expect(r.stdout).toMatch(/^ {4}│ .*provider error/m);
    expect(r.stdout).toMatch(/^ {2}tool calls {4}none$/m);
    expect(r.stdout).toMatch(/^ {2}final message —$/m);
  });

  it("--json: the report query's data", async () => {
    const data = await cliJson<{
      agent: { agentId: string; report: { toolCalls: unknown[]; finalMessage: string; markdown: string } };
    }>(h.url, ["report", done]);
    const g = (await h.gql<Gql>(MARKDOWN, { id: done })).data!.agent.report;
    expect(data.agent.agentId).toBe(done);
    expect(data.agent.report.toolCalls).toEqual([{ name: "Read", calls: 1, failures: 0 }]);
    expect(data.agent.report.finalMessage).toBe("The README says hello. Done.");
    expect(data.agent.report.markdown).toBe(g.markdown);
  });

  it("--markdown: the report's markdown, exactly", async () => {
    const r = await cli(h.url, ["report", done, "--markdown"]);
    expect(r.code, r.stderr).toBe(0);
    const g = (await h.gql<Gql>(MARKDOWN, { id: done })).data!.agent.report;
    expect(r.stdout).toBe(g.markdown);
    expect(r.stdout.startsWith(`## Run report: summarize (\`${done}\`)\n`)).toBe(true);
    expect(r.stdout).toContain("| `Read` | 1 | 0 |");
  });

  it("an unknown agent is not found (3); --json with --markdown is a usage error (2)", async () => {
    const missing = await cli(h.url, ["report", "0000000000ff"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("agent not found: 0000000000ff");
    const both = await cli(h.url, ["report", done, "--json", "--markdown"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--json or --markdown");
    expect(both.stdout).toBe("");
  });
});
