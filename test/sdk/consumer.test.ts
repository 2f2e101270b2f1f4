/**
 * The SDK used from outside the package, as another team's TypeScript tool would: a temp project
 * with its own strict NodeNext tsconfig and the package linked into its node_modules (what
 * `npm install file:<repo>` does). Its program type-checks with `tsc --noEmit` against the
 * generated types (a wrongly typed call must fail to compile), then runs with tsx against a real
 * gateway: spawn, follow to completion, read the typed events.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { tmpDir } from "../helpers/tmp.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const TSC = path.join(REPO, "node_modules/typescript/bin/tsc");
const TSX_LOADER = path.join(REPO, "node_modules/tsx/dist/esm/index.mjs");

const CONSUMER = `
import {
  createProsperoClient,
  isMutationError,
  SpawnAgentDocument,
  WorkspacesDocument,
  type AgentEvent,
} from "prospero/src/sdk/index.js";

const url = process.argv[2];
if (!url) throw new Error("usage: consumer <gateway url>");
const prospero = createProsperoClient({ url });
const { workspaces } = await prospero.request(WorkspacesDocument);
const health: Record<string, string> = Object.fromEntries(workspaces.map((w) => [w.name, w.health.state]));

const spawned = await prospero.request(SpawnAgentDocument, {
  input: { workspace: "demo", prompt: "from another package", label: "outsider" },
});
if (isMutationError(spawned.spawnAgent)) throw new Error(spawned.spawnAgent.message);
if (spawned.spawnAgent.__typename !== "SpawnAgentPayload") throw new Error("unexpected result");
const agentId: string = spawned.spawnAgent.agent.agentId;

const kinds: string[] = [];
let tool: { name: string; input: unknown } | null = null;
let outcome: { outcome: string; outcomeName: string } | null = null;
const onEvent = (e: AgentEvent): void => {
  kinds.push(e.__typename);
  if (e.__typename === "ToolFinishedEvent") tool = { name: e.name, input: e.input };
  if (e.__typename === "AgentFinishedEvent") outcome = { outcome: e.outcome, outcomeName: e.outcomeName };
};
const end = await prospero.agentEvents(agentId, { onEvent });

// @ts-expect-error the generated variables type wants a string agentId
void prospero.request(SpawnAgentDocument, { input: { workspace: 1, prompt: "x" } }).catch(() => null);

await prospero.dispose();
console.log(JSON.stringify({ health, agentId, completed: end.completed, lastSeq: end.lastSeq, kinds, tool, outcome }));
`;

const WRONG = `
import { createProsperoClient, AgentDocument } from "prospero/src/sdk/index.js";
const prospero = createProsperoClient({ url: "http://127.0.0.1:7878" });
const { agent } = await prospero.request(AgentDocument, { agentId: "abc" });
console.log(agent.costInDollars);
`;

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, NODE_OPTIONS: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function tsconfig(file: string): string {
  return JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
      typeRoots: [path.join(REPO, "node_modules/@types")],
    },
    files: [file],
  });
}

let h: AppHarness;
let dir: string;
beforeAll(async () => {
  h = await startAppHarness();
  dir = tmpDir("sdk-consumer-");
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(REPO, path.join(dir, "node_modules/prospero"), "dir");
  fs.writeFileSync(path.join(dir, "consumer.ts"), CONSUMER);
  fs.writeFileSync(path.join(dir, "wrong.ts"), WRONG);
  fs.writeFileSync(path.join(dir, "tsconfig.json"), tsconfig("consumer.ts"));
  fs.writeFileSync(path.join(dir, "tsconfig.wrong.json"), tsconfig("wrong.ts"));
});
afterAll(async () => {
  await h?.close();
});

describe("the SDK from outside the package", () => {
  it("type-checks against the generated types and rejects a wrongly typed program", async () => {
    const [ok, wrong] = await Promise.all([
      run(process.execPath, [TSC, "-p", "tsconfig.json"], dir),
      run(process.execPath, [TSC, "-p", "tsconfig.wrong.json"], dir),
    ]);
    expect(ok.stdout + ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts.*error TS18047: 'agent' is possibly 'null'/);
    expect(wrong.stdout).toMatch(/error TS2339: Property 'costInDollars' does not exist/);
  });

  it("runs against a real gateway: spawn, follow to completion, typed events", async () => {
    // No token is given: on the gateway's machine the SDK finds the local gateway's admin token
    // by itself (the gateway's endpoint record under XDG_RUNTIME_DIR, then its admin-token file).
    const env = { ...h.env, PROSPERO_TOKEN: undefined, PROSPERO_DATA_DIR: undefined };
    const r = await run(process.execPath, ["--import", TSX_LOADER, "consumer.ts", h.url], dir, env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as {
      health: Record<string, string>;
      completed: boolean;
      lastSeq: number;
      kinds: string[];
      tool: { name: string; input: unknown };
      outcome: { outcome: string; outcomeName: string };
    };
    expect(result.health).toEqual({ demo: "HEALTHY" });
    expect(result.completed).toBe(true);
    expect(result.kinds[0]).toBe("AgentSpawnedEvent");
    expect(result.kinds.at(-1)).toBe("StatusChangedEvent");
    expect(result.kinds.length).toBe(result.lastSeq);
    expect(result.tool).toEqual({ name: "Read", input: { file_path: "README.md" } });
    expect(result.outcome).toEqual({ outcome: "END_OF_TURN", outcomeName: "EndOfTurn" });
  });
});
