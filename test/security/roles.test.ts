/**
 * Roles and workspace scopes (issue 11 item 2) as a client sees them: a role × mutation matrix
 * derived from the schema (a mutation the table does not classify fails the suite), every
 * mutation call audited, every query and subscription open to viewers, and a token limited to
 * one workspace seeing and touching nothing of the others — over the real port, real tokens,
 * real caliband doubles.
 */
import { GraphQLObjectType, GraphQLSchema, GraphQLString, GraphQLUnionType, getNamedType } from "graphql";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSchema, fieldsWithoutAuthRule } from "../../src/schema/index.js";
import { NO_RETRY } from "../../src/queue/types.js";
import { REFUSALS_PER_WINDOW } from "../../src/auth/audit.js";
import { collect, startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { tmpDir } from "../helpers/tmp.js";
import {
  addWorkspaceWithDaemon,
  auditAfter,
  lastAuditId,
  spawnVia,
  type AuditRow,
  type OtherWorkspace,
} from "./support.js";

type Role = "viewer" | "operator" | "admin";
const ROLES: readonly Role[] = ["viewer", "operator", "admin"];
const rank = (r: Role) => ROLES.indexOf(r);

/** Held agents stay running for the whole file (well past its end). */
const HOLD = "wait fake:hold=600000";
/** An env value that must never be stored in clear. */
const ENV_SECRET = "sk-ant-do-not-store-4f1c9e";

const RESULT = `__typename ... on Error { code message } ... on ForbiddenError { requiredRole workspaceName }`;

/** The selection of mutation `field`'s result: RESULT, plus what a NotFoundError names when it can be one. */
function resultOf(field: string): string {
  const type = getNamedType(buildSchema().getMutationType()!.getFields()[field]!.type);
  const members = type instanceof GraphQLUnionType ? type.getTypes().map((t) => t.name) : [];
  return members.includes("NotFoundError") ? `${RESULT} ... on NotFoundError { entity key }` : RESULT;
}

interface MutationResult {
  __typename: string;
  code?: string;
  message?: string;
  requiredRole?: string | null;
  workspaceName?: string | null;
  entity?: string;
  key?: string;
  [k: string]: unknown;
}

/** What a mutation needs and how to call it with minimal valid variables. */
interface MutationCase {
  /** The weakest role that may call it (issue 11 item 2). */
  need: Role;
  /** `workspace`: within the token's workspaces; `fleet`: only tokens not limited to workspaces. */
  scope: "workspace" | "fleet";
  /** Variable declarations and arguments of the call. */
  decl: string;
  args: string;
  /** Prepare targets in workspace `ws` (as admin) and return the variables. */
  vars(ws: string): Promise<Record<string, unknown>>;
  /** Variables for the role matrix when `vars("demo")` would break the workspace for later cases. */
  matrixVars?(): Promise<Record<string, unknown>>;
  /** The workspace and agent its audit row must name, from the variables. */
  targets(v: Record<string, unknown>): { workspace?: string | null; agentId?: string | null };
  /**
   * For a call naming its target by id (no workspace in its arguments) that is not an agent: what a
   * token of another workspace is told is not found (default: the agent of `targets`).
   */
  hidden?: { entity: "LAUNCH" | "SCHEDULE" | "INBOX_ITEM"; key(v: Record<string, unknown>): string };
}

let h: AppHarness;
let other: OtherWorkspace;
let seq = 0;

const roots: Record<string, string> = {};
const held = (ws: string) => spawnVia(h, ws, HOLD);
const interactive = (ws: string) =>
  spawnVia(h, ws, "chat with me", { interactive: true, until: (s) => s === "idle" });
const agentTarget = (v: Record<string, unknown>) => ({ agentId: v["agentId"] as string });
const inputWorkspace = (v: Record<string, unknown>) => ({
  workspace: (v["input"] as { workspace: string }).workspace,
});
const noTarget = () => ({ workspace: null, agentId: null });
/**
 * A launch or schedule named by id: the audit row names its workspace once it was found (the
 * payload says), and none when the call was refused before — not checked per row here
 * (test/graphql/queue-mutations.test.ts checks it for allowed calls).
 */
const byIdTarget = () => ({ agentId: null });
/** Far enough ahead that a launch stays queued (nothing spawned) for the whole file. */
const later = () => new Date(Date.now() + 3_600_000).toISOString();

/** A queued launch in `ws` (held back by notBefore), enqueued as the bootstrap admin. */
async function queuedLaunch(ws: string): Promise<string> {
  const r = await h.gql<{ enqueueLaunch: { __typename: string; launch?: { launchId: string } } }>(
    `mutation($input: EnqueueLaunchInput!) { enqueueLaunch(input: $input) { __typename ... on EnqueueLaunchPayload { launch { launchId } } } }`,
    { input: { workspace: ws, prompt: "later", notBefore: later() } },
  );
  expect(r.data?.enqueueLaunch.__typename, JSON.stringify(r)).toBe("EnqueueLaunchPayload");
  return r.data!.enqueueLaunch.launch!.launchId;
}

/** A paused schedule in `ws` whose firings end at once ("quick"), created as the bootstrap admin. */
async function pausedSchedule(ws: string): Promise<string> {
  const r = await h.gql<{ createSchedule: { __typename: string; schedule?: { scheduleId: string } } }>(
    `mutation($input: CreateScheduleInput!) { createSchedule(input: $input) { __typename ... on CreateSchedulePayload { schedule { scheduleId } } } }`,
    {
      input: {
        name: `matrix-${++seq}`,
        workspace: ws,
        cron: "0 3 * * *",
        paused: true,
        template: { prompt: "quick" },
      },
    },
  );
  expect(r.data?.createSchedule.__typename, JSON.stringify(r)).toBe("CreateSchedulePayload");
  return r.data!.createSchedule.schedule!.scheduleId;
}

/** An open inbox item (issue 15) of `ws`: an alert raised as the monitor does. */
async function inboxItem(ws: string): Promise<string> {
  const a = await h.app.inbox.raiseAlert({
    check: "daemon_unreachable",
    subject: `matrix-${++seq}`,
    workspace: ws,
    agentId: null,
    title: "matrix alert",
    message: "raised for the matrix",
  });
  return a.id;
}

/**
 * Where the matrix's webhooks post: the discard port of this machine, where nothing listens (a
 * delivery just fails and is retried); not the gateway's port, so src/attention/url-policy.ts lets it be.
 */
const HOOK_URL = "http://127.0.0.1:9/hook";

/** A registered webhook (issue 15), created through the service as an admin would. */
async function registeredWebhook(): Promise<string> {
  const { webhook } = await h.app.webhooks.create(
    { name: `matrix-${++seq}`, url: HOOK_URL, events: ["run.failed"], format: "JSON" },
    "test",
  );
  return webhook.id;
}

/**
 * A webhook action's case: admin not limited to workspaces (a hook receives every workspace's
 * notifications). A hook of its own per call of `vars`, so deleteWebhook removes nobody else's.
 */
const webhookCase = (input: string, extra: Record<string, unknown> = {}): MutationCase => ({
  need: "admin",
  scope: "fleet",
  decl: `($input: ${input}!)`,
  args: "input: $input",
  vars: async () => ({ input: { webhook: await registeredWebhook(), ...extra } }),
  targets: noTarget,
});

/** An inbox action's case: operator role, within the item's workspace (named by id: NotFound outside). */
const inboxCase = (input: string, extra: Record<string, unknown> = {}): MutationCase => ({
  need: "operator",
  scope: "workspace",
  decl: `($input: ${input}!)`,
  args: "input: $input",
  vars: async (ws) => ({ input: { item: await inboxItem(ws), ...extra } }),
  targets: byIdTarget,
  hidden: { entity: "INBOX_ITEM", key: (v) => (v["input"] as { item: string }).item },
});

/** A schedule action's case: operator role, within the schedule's workspace. */
const scheduleCase = (input: string): MutationCase => ({
  need: "operator",
  scope: "workspace",
  decl: `($input: ${input}!)`,
  args: "input: $input",
  vars: async (ws) => ({ input: { scheduleId: await pausedSchedule(ws) } }),
  targets: byIdTarget,
  hidden: { entity: "SCHEDULE", key: (v) => (v["input"] as { scheduleId: string }).scheduleId },
});

/**
 * Every mutation of the schema, classified. A new mutation field must be added here (the first
 * test fails until it is), which forces a decision about who may call it.
 */
const CASES: Record<string, MutationCase> = {
  spawnAgent: {
    need: "operator",
    scope: "workspace",
    decl: "($input: SpawnAgentInput!)",
    args: "input: $input",
    vars: async (ws) => ({ input: { workspace: ws, prompt: HOLD } }),
    targets: (v) => ({ workspace: (v["input"] as { workspace: string }).workspace }),
  },
  killAgent: {
    need: "operator",
    scope: "workspace",
    decl: "($agentId: String!)",
    args: "input: { agentId: $agentId }",
    vars: async (ws) => ({ agentId: await held(ws) }),
    targets: agentTarget,
  },
  respawnAgent: {
    need: "operator",
    scope: "workspace",
    decl: "($agentId: String!)",
    args: "input: { agentId: $agentId, force: true }",
    vars: async (ws) => ({ agentId: await held(ws) }),
    targets: agentTarget,
  },
  removeAgent: {
    need: "operator",
    scope: "workspace",
    decl: "($agentId: String!)",
    args: "input: { agentId: $agentId, force: true }",
    vars: async (ws) => ({ agentId: await held(ws) }),
    targets: agentTarget,
  },
  drainAgent: {
    need: "operator",
    scope: "workspace",
    decl: "($agentId: String!)",
    args: "input: { agentId: $agentId, timeoutMs: 0 }",
    vars: async (ws) => ({ agentId: await held(ws) }),
    targets: agentTarget,
  },
  sendAgentInput: {
    need: "operator",
    scope: "workspace",
    decl: "($agentId: String!)",
    args: `input: { agentId: $agentId, text: "hello from the matrix" }`,
    vars: async (ws) => ({ agentId: await interactive(ws) }),
    targets: agentTarget,
  },
  endAgentInput: {
    need: "operator",
    scope: "workspace",
    decl: "($agentId: String!)",
    args: "input: { agentId: $agentId }",
    vars: async (ws) => ({ agentId: await interactive(ws) }),
    targets: agentTarget,
  },
  addWorkspace: {
    need: "admin",
    scope: "workspace",
    decl: "($name: String!, $root: String!)",
    args: "input: { name: $name, root: $root }",
    // Registering again with the same root: created false, nothing changes.
    vars: async (ws) => ({ name: ws, root: roots[ws] }),
    targets: (v) => ({ workspace: v["name"] as string }),
  },
  updateWorkspaceConfig: {
    need: "admin",
    scope: "workspace",
    decl: "($name: String!, $config: ProviderConfigInput!)",
    args: "input: { workspace: $name, config: $config }",
    // Held agents are live, so the daemon-env change waits (no restart).
    vars: async (ws) => ({
      name: ws,
      config: { provider: "ANTHROPIC", env: [{ name: "ANTHROPIC_API_KEY", value: ENV_SECRET }] },
    }),
    targets: (v) => ({ workspace: v["name"] as string }),
  },
  restartWorkspaceDaemon: {
    need: "admin",
    scope: "workspace",
    decl: "($name: String!)",
    args: "input: { workspace: $name }",
    // Refused while agents are live (no force): a typed InvalidStateError, nothing restarted.
    vars: async (ws) => ({ name: ws }),
    targets: (v) => ({ workspace: v["name"] as string }),
  },
  removeWorkspace: {
    need: "admin",
    scope: "workspace",
    decl: "($name: String!)",
    args: "input: { workspace: $name }",
    vars: async (ws) => ({ name: ws }),
    // The matrix removes a throwaway workspace, not "demo".
    matrixVars: async () => {
      const name = `scratch-${++seq}`;
      const root = tmpDir("scr-");
      const r = await h.gql<{ addWorkspace: { __typename: string } }>(
        `mutation($input: AddWorkspaceInput!) { addWorkspace(input: $input) { __typename } }`,
        { input: { name, root } },
      );
      expect(r.data?.addWorkspace.__typename).toBe("AddWorkspacePayload");
      return { name };
    },
    targets: (v) => ({ workspace: v["name"] as string }),
  },
  createToken: {
    need: "admin",
    scope: "fleet",
    decl: "($input: CreateTokenInput!)",
    args: "input: $input",
    vars: async () => ({ input: { name: `made-${++seq}`, role: "VIEWER" } }),
    targets: () => ({ workspace: null, agentId: null }),
  },
  revokeToken: {
    need: "admin",
    scope: "fleet",
    decl: "($token: String!)",
    args: "input: { token: $token }",
    vars: async () => {
      const name = `victim-${++seq}`;
      await h.createToken({ name, role: "VIEWER" });
      return { token: name };
    },
    targets: () => ({ workspace: null, agentId: null }),
  },
  // The launch queue (issue 14).
  enqueueLaunch: {
    need: "operator",
    scope: "workspace",
    decl: "($input: EnqueueLaunchInput!)",
    args: "input: $input",
    vars: async (ws) => ({ input: { workspace: ws, prompt: "later", notBefore: later() } }),
    targets: inputWorkspace,
  },
  cancelLaunch: {
    need: "operator",
    scope: "workspace",
    decl: "($input: CancelLaunchInput!)",
    args: "input: $input",
    vars: async (ws) => ({ input: { launchId: await queuedLaunch(ws) } }),
    targets: byIdTarget,
    hidden: { entity: "LAUNCH", key: (v) => (v["input"] as { launchId: string }).launchId },
  },
  // GLOBAL, PROVIDER and MODEL caps and PROVIDER budgets govern every workspace (a WORKSPACE cap
  // or budget is an admin's within it: test/graphql/queue-mutations.test.ts).
  setCap: {
    need: "admin",
    scope: "fleet",
    decl: "($input: SetCapInput!)",
    args: "input: $input",
    vars: async () => ({ input: { scope: "GLOBAL", max: 5 } }),
    targets: noTarget,
  },
  setBudget: {
    need: "admin",
    scope: "fleet",
    decl: "($input: SetBudgetInput!)",
    args: "input: $input",
    vars: async () => ({ input: { scope: "PROVIDER", key: "anthropic", period: "DAY", limitUsd: 100 } }),
    targets: noTarget,
  },
  setWorkspaceLaunchTimeout: {
    need: "admin",
    scope: "workspace",
    decl: "($input: SetWorkspaceLaunchTimeoutInput!)",
    args: "input: $input",
    vars: async (ws) => ({ input: { workspace: ws, timeoutMs: 3_600_000 } }),
    targets: inputWorkspace,
  },
  createSchedule: {
    need: "operator",
    scope: "workspace",
    decl: "($input: CreateScheduleInput!)",
    args: "input: $input",
    vars: async (ws) => ({
      input: {
        name: `made-${++seq}`,
        workspace: ws,
        cron: "0 3 * * *",
        paused: true,
        template: { prompt: "later" },
      },
    }),
    targets: inputWorkspace,
  },
  pauseSchedule: scheduleCase("PauseScheduleInput"),
  resumeSchedule: scheduleCase("ResumeScheduleInput"),
  deleteSchedule: scheduleCase("DeleteScheduleInput"),
  runSchedule: scheduleCase("RunScheduleInput"),
  // The operator inbox (issue 15): answering an alert is an InvalidStateError, still past the rules.
  answerInboxItem: inboxCase("AnswerInboxItemInput", { text: "from the matrix" }),
  approveInboxItem: inboxCase("ApproveInboxItemInput"),
  acknowledgeInboxItem: inboxCase("AcknowledgeInboxItemInput"),
  snoozeInboxItem: inboxCase("SnoozeInboxItemInput", { until: later() }),
  dismissInboxItem: inboxCase("DismissInboxItemInput"),
  // The health monitor (issue 15): a threshold governs every workspace.
  setHealthThreshold: {
    need: "admin",
    scope: "fleet",
    decl: "($input: SetHealthThresholdInput!)",
    args: "input: $input",
    // Not the default (15 min), so an allowed call changes the stored thresholds.
    vars: async () => ({ input: { check: "QUEUE_WAIT", value: 60_000 } }),
    targets: noTarget,
  },
  // Webhooks (issue 15).
  createWebhook: {
    need: "admin",
    scope: "fleet",
    decl: "($input: CreateWebhookInput!)",
    args: "input: $input",
    vars: async () => ({
      input: { name: `made-${++seq}`, url: HOOK_URL, events: ["RUN_FAILED"], format: "JSON" },
    }),
    targets: noTarget,
  },
  updateWebhook: webhookCase("UpdateWebhookInput", { name: "renamed by the matrix" }),
  deleteWebhook: webhookCase("DeleteWebhookInput"),
  testWebhook: webhookCase("TestWebhookInput"),
  // What runs changed (issue 16): a branch of a held run's capture (a repeat is a ConflictError).
  applyChanges: {
    need: "operator",
    scope: "workspace",
    decl: "($input: ApplyChangesInput!)",
    args: "input: $input",
    vars: async (ws) => ({ input: { agentId: await held(ws), branch: `matrix-${++seq}` } }),
    targets: (v) => ({ agentId: (v["input"] as { agentId: string }).agentId }),
  },
  // Turning capture on where it is on changes nothing, and still passes the rules.
  setChangeCapture: {
    need: "admin",
    scope: "workspace",
    decl: "($input: SetChangeCaptureInput!)",
    args: "input: $input",
    vars: async (ws) => ({ input: { workspace: ws, enabled: true } }),
    targets: inputWorkspace,
  },
};

/** Call mutation `field` as `token`; the GraphQL response must carry no errors. */
async function call(field: string, v: Record<string, unknown>, token: string): Promise<MutationResult> {
  const c = CASES[field]!;
  const res = await h.gql<{ r: MutationResult }>(
    `mutation Matrix${c.decl} { r: ${field}(${c.args}) { ${resultOf(field)} } }`,
    v,
    token,
  );
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  return res.data!.r;
}

/** Everything a mutation could change (audit rows and token use times aside). */
async function snapshot() {
  const p = h.app.db.prisma;
  const writes = (reqs: { line: string }[]) =>
    reqs.filter((r) => /"(spawn|kill|respawn|rm|shutdown)"/.test(r.line)).length;
  return {
    workspaces: await p.workspace.findMany({
      orderBy: { name: "asc" },
      select: {
        name: true,
        root: true,
        provider: true,
        apiKeyFromEnv: true,
        env: true,
        model: true,
        pendingConfig: true,
        removedAt: true,
        captureChanges: true,
      },
    }),
    // Issue 16: branches made of runs' changes.
    applied: await p.runCapture.findMany({
      orderBy: { agentId: "asc" },
      select: { agentId: true, appliedBranch: true, appliedCommit: true },
    }),
    agents: await p.agent.findMany({
      orderBy: { id: "asc" },
      select: { id: true, workspace: true, status: true, goneAt: true, respawnedFrom: true },
    }),
    tokens: await p.apiToken.findMany({
      orderBy: { id: "asc" },
      select: { id: true, name: true, role: true, revokedAt: true },
    }),
    inputEvents: await p.event.count({
      where: { kind: { in: ["input_sent", "input_ended", "agent_spawned"] } },
    }),
    daemonWrites: [writes(h.d.daemon.requests), writes(other.daemon.requests)],
    // Issue 15: thresholds, webhooks and their deliveries (counted: attempts go on in the background).
    thresholds: await p.healthThreshold.findMany({
      orderBy: { check: "asc" },
      select: { check: true, value: true },
    }),
    webhooks: await p.webhook.findMany({
      orderBy: { id: "asc" },
      select: { id: true, name: true, url: true, format: true, events: true, enabled: true, deletedAt: true },
    }),
    webhookDeliveries: await p.webhookDelivery.count(),
  };
}

/** Wait until nothing changes for a few polls (earlier allowed calls may still be settling). */
async function settled(): Promise<Awaited<ReturnType<typeof snapshot>>> {
  let prev = JSON.stringify(await snapshot());
  let stable = 0;
  const deadline = Date.now() + 10_000;
  while (stable < 2) {
    if (Date.now() > deadline) throw new Error("the fleet never settled");
    await new Promise((r) => setTimeout(r, 120));
    const now = JSON.stringify(await snapshot());
    stable = now === prev ? stable + 1 : 0;
    prev = now;
  }
  return snapshot();
}

/** The one audit row a call wrote, checked against who called and what came back. */
async function expectAuditRow(
  since: number,
  field: string,
  v: Record<string, unknown>,
  who: { name: string; role: Role },
  result: MutationResult,
  /** The row must say denied (default: exactly for FORBIDDEN/UNAUTHENTICATED results). */
  denied?: boolean,
): Promise<AuditRow> {
  const rows = (await auditAfter(h, since)).filter((r) => r.operation === field);
  expect(rows, `${field} as ${who.name}: exactly one audit row`).toHaveLength(1);
  const row = rows[0]!;
  const isError = result.__typename.endsWith("Error");
  const outcome = isError ? result.code : result.__typename;
  expect(row).toMatchObject({
    operation: field,
    operationName: "Matrix",
    tokenName: who.name,
    role: who.role,
    remoteAddress: "127.0.0.1",
    result: outcome,
    denied: denied ?? (outcome === "FORBIDDEN" || outcome === "UNAUTHENTICATED"),
  });
  const t = CASES[field]!.targets(v);
  if (t.workspace !== undefined) expect(row.workspace).toBe(t.workspace);
  if (t.agentId !== undefined) expect(row.agentId).toBe(t.agentId);
  expect(JSON.stringify(row.args)).not.toContain(ENV_SECRET);
  return row;
}

const tokens: Record<Role, string> = { viewer: "", operator: "", admin: "" };
const TOKEN_NAME: Record<Role, string> = { viewer: "m-viewer", operator: "m-operator", admin: "m-admin" };

/** The launch queue's mutations (issue 14). */
const QUEUE_MUTATIONS: ReadonlySet<string> = new Set([
  "enqueueLaunch",
  "cancelLaunch",
  "setCap",
  "setBudget",
  "setWorkspaceLaunchTimeout",
  "createSchedule",
  "pauseSchedule",
  "resumeSchedule",
  "deleteSchedule",
  "runSchedule",
]);

/** The operator inbox's mutations (issue 15). */
const INBOX_MUTATIONS: ReadonlySet<string> = new Set([
  "answerInboxItem",
  "approveInboxItem",
  "acknowledgeInboxItem",
  "snoozeInboxItem",
  "dismissInboxItem",
]);

/** The health monitor's and the webhooks' mutations (issue 15). */
const ATTENTION_MUTATIONS: ReadonlySet<string> = new Set([
  "setHealthThreshold",
  "createWebhook",
  "updateWebhook",
  "deleteWebhook",
  "testWebhook",
]);

/** The mutations on what runs changed (issue 16). */
const CHANGES_MUTATIONS: ReadonlySet<string> = new Set(["applyChanges", "setChangeCapture"]);

/**
 * The mutations in groups, each run on a gateway of its own: the audit log records at most
 * REFUSALS_PER_WINDOW refusals of one token a minute (src/auth/audit.ts), and the viewer (refused
 * every mutation) and the limited admin (refused on demo) would pass it over all of them at once.
 */
const MATRIX_GROUPS: [string, string[]][] = [
  [
    "fleet, agents and tokens",
    Object.keys(CASES).filter(
      (f) =>
        !QUEUE_MUTATIONS.has(f) &&
        !INBOX_MUTATIONS.has(f) &&
        !ATTENTION_MUTATIONS.has(f) &&
        !CHANGES_MUTATIONS.has(f),
    ),
  ],
  ["launch queue", Object.keys(CASES).filter((f) => QUEUE_MUTATIONS.has(f))],
  ["inbox", Object.keys(CASES).filter((f) => INBOX_MUTATIONS.has(f))],
  ["health monitor and webhooks", Object.keys(CASES).filter((f) => ATTENTION_MUTATIONS.has(f))],
  ["changes", Object.keys(CASES).filter((f) => CHANGES_MUTATIONS.has(f))],
];

describe.each(MATRIX_GROUPS)("role × mutation matrix (derived from the schema): %s", (_group, fields) => {
  beforeAll(async () => {
    h = await startAppHarness();
    other = await addWorkspaceWithDaemon(h);
    roots["demo"] = h.d.ws.root;
    roots["other"] = other.root;
    for (const r of ROLES) {
      tokens[r] = await h.createToken({
        name: TOKEN_NAME[r],
        role: r.toUpperCase() as "VIEWER" | "OPERATOR" | "ADMIN",
      });
    }
    // A live agent in each workspace keeps config changes pending and restarts refused.
    await held("demo");
    await held("other");
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await other?.close();
  });

  it("the table classifies every mutation field of the schema, and no more", () => {
    const all = Object.keys(buildSchema().getMutationType()!.getFields()).sort();
    expect(Object.keys(CASES).sort()).toEqual(all);
    // Every refusal of the group's tokens must reach the audit log (see MATRIX_GROUPS).
    expect(fields.length).toBeLessThan(REFUSALS_PER_WINDOW);
  });

  it.each(fields)(
    "%s: refused below its role with nothing changed, allowed at or above it, audited every time",
    async (field) => {
      const c = CASES[field]!;
      const v = await (c.matrixVars ?? (() => c.vars("demo")))();
      for (const role of ROLES) {
        const before = await settled();
        const since = await lastAuditId(h);
        const r = await call(field, v, tokens[role]);
        if (rank(role) < rank(c.need)) {
          expect(r, `${field} as ${role}`).toMatchObject({
            __typename: "ForbiddenError",
            code: "FORBIDDEN",
            requiredRole: c.need.toUpperCase(),
          });
          expect(r.message).toMatch(new RegExp(`needs the ${c.need} role`));
          expect(await snapshot(), `${field} as ${role} changed something`).toEqual(before);
        } else {
          expect(r.__typename, `${field} as ${role}: ${JSON.stringify(r)}`).not.toBe("ForbiddenError");
          expect(r.__typename).not.toBe("UnauthenticatedError");
        }
        await expectAuditRow(since, field, v, { name: TOKEN_NAME[role], role }, r);
      }
    },
  );

  // Registered only in the group that holds the mutation (a runIf would count as skipped elsewhere).
  if (fields.includes("spawnAgent"))
    it("the operator role really drives agents, and an env value is stored redacted in the audit log", async () => {
      // Positive controls for the matrix: what "allowed" did.
      const spawned = await h.app.db.prisma.auditEntry.findMany({
        where: { operation: "spawnAgent", tokenName: TOKEN_NAME.operator },
      });
      expect(spawned.map((r) => r.result)).toEqual(["SpawnAgentPayload"]);
      expect(spawned[0]!.agentId).toMatch(/^[0-9a-f]{12}$/);
      const killed = await h.app.db.prisma.auditEntry.findFirst({
        where: { operation: "killAgent", tokenName: TOKEN_NAME.operator },
      });
      expect(killed?.result).toBe("KillAgentPayload");
      const cfg = await h.app.db.prisma.auditEntry.findMany({
        where: { operation: "updateWorkspaceConfig" },
      });
      expect(cfg).toHaveLength(3);
      for (const row of cfg) {
        expect(row.args).toEqual({
          input: {
            workspace: "demo",
            config: { provider: "anthropic", env: [{ name: "ANTHROPIC_API_KEY", value: "[redacted]" }] },
          },
        });
      }
      // No row anywhere in the log holds the value.
      const all = await h.app.db.prisma.auditEntry.findMany();
      expect(JSON.stringify(all)).not.toContain(ENV_SECRET);
    });

  if (fields.includes("createWebhook"))
    it("the admin's threshold and webhook calls really took effect, and a hook URL is stored redacted in the audit log", async () => {
      // Positive controls for the matrix: what "allowed" did (issue 15).
      const p = h.app.db.prisma;
      const byAdmin = await p.auditEntry.findMany({
        where: { operation: { in: [...ATTENTION_MUTATIONS] }, tokenName: TOKEN_NAME.admin },
      });
      expect(Object.fromEntries(byAdmin.map((r) => [r.operation, r.result]))).toEqual({
        setHealthThreshold: "SetHealthThresholdPayload",
        createWebhook: "CreateWebhookPayload",
        updateWebhook: "UpdateWebhookPayload",
        deleteWebhook: "DeleteWebhookPayload",
        testWebhook: "TestWebhookPayload",
      });
      expect(await p.healthThreshold.findUnique({ where: { check: "queue_wait" } })).toMatchObject({
        value: 60_000,
        updatedBy: TOKEN_NAME.admin,
      });
      const made = await p.webhook.findMany({ where: { createdBy: TOKEN_NAME.admin } });
      expect(made.map((w) => [w.url, w.events, w.deletedAt])).toEqual([[HOOK_URL, ["run.failed"], null]]);
      expect(await p.webhook.count({ where: { name: "renamed by the matrix" } })).toBe(1);
      expect(await p.webhook.count({ where: { deletedAt: { not: null } } })).toBe(1);
      expect(await p.webhookDelivery.count({ where: { eventType: "ping" } })).toBe(1);
      // Every createWebhook row (refused or not) holds the URL redacted, never the URL itself.
      const created = await p.auditEntry.findMany({ where: { operation: "createWebhook" } });
      expect(created).toHaveLength(3);
      for (const row of created) {
        expect((row.args as { input: { url: string } }).input.url).toBe("[redacted]");
      }
      expect(JSON.stringify(await p.auditEntry.findMany())).not.toContain(HOOK_URL);
    });
});

describe("a token that expired while its WebSocket stays open", () => {
  beforeAll(async () => {
    h = await startAppHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it("a mutation over it is an UnauthenticatedError, audited as denied with the client's address", async () => {
    const live = await held("demo");
    const res = await h.gql<{ createToken: { secret: string } }>(
      `mutation($input: CreateTokenInput!) { createToken(input: $input) { ... on CreateTokenPayload { secret } } }`,
      { input: { name: "fading", role: "OPERATOR", expiresAt: new Date(Date.now() + 1_000).toISOString() } },
    );
    // Hold off the expiry sweep (which would close the connection) to reach the schema's own check.
    h.app.gateway.live.stop();
    try {
      const { client, closes } = wsAs(res.data!.createToken.secret);
      // An open subscription keeps the (lazy) connection up.
      const keep = collect(client, `subscription($id: String!) { agentEvents(agentId: $id) { seq } }`, {
        id: live,
      });
      const before = await firstResult(client, "{ viewer { name } }");
      expect(before.data).toEqual({ viewer: { name: "fading" } });
      await new Promise((r) => setTimeout(r, 1_200));
      const since = await lastAuditId(h);
      const kill = await firstResult(
        client,
        `mutation Late($id: String!) { killAgent(input: { agentId: $id }) { ${resultOf("killAgent")} } }`,
        { id: live },
      );
      expect(kill.data, JSON.stringify(kill)).toMatchObject({
        killAgent: { __typename: "UnauthenticatedError", code: "UNAUTHENTICATED" },
      });
      expect(h.app.fleet.state.agent(live)?.status).toBe("running");
      const rows = (await auditAfter(h, since)).filter((r) => r.operation === "killAgent");
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        operationName: "Late",
        tokenName: "fading",
        role: "operator",
        remoteAddress: "127.0.0.1",
        agentId: live,
        result: "UNAUTHENTICATED",
        denied: true,
      });
      const q = await firstResult(client, "{ agents { edges { node { agentId } } } }");
      expect(q.errors?.[0]?.extensions).toMatchObject({ code: "UNAUTHENTICATED" });
      expect(closes).toEqual([]);
      keep.stop();
      await client.dispose();
    } finally {
      h.app.gateway.live.start();
    }
  });
});

describe.each(MATRIX_GROUPS)("a token limited to one workspace: %s", (_group, fields) => {
  let scoped = "";
  const SCOPED = "scoped-admin";
  beforeAll(async () => {
    h = await startAppHarness();
    other = await addWorkspaceWithDaemon(h);
    roots["demo"] = h.d.ws.root;
    roots["other"] = other.root;
    scoped = await h.createToken({ name: SCOPED, role: "ADMIN", workspaces: ["other"] });
    await held("demo");
    await held("other");
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await other?.close();
  });

  // removeWorkspace last: allowed on "other", it unregisters it.
  const order = [
    ...fields.filter((f) => f !== "removeWorkspace"),
    ...fields.filter((f) => f === "removeWorkspace"),
  ];

  it.each(order)(
    "%s: refused on demo and its agents, allowed on other (even for an admin)",
    async (field) => {
      const c = CASES[field]!;
      const onDemo = await c.vars("demo");
      const before = await settled();
      const since = await lastAuditId(h);
      const r = await call(field, onDemo, scoped);
      const byAgent = c.scope !== "fleet" && !c.targets(onDemo).workspace;
      if (byAgent) {
        // An agent (launch, schedule) outside the token's workspaces reads as unknown: ids cannot be probed.
        expect(r, `${field} on demo`).toMatchObject({
          __typename: "NotFoundError",
          code: "NOT_FOUND",
          entity: c.hidden?.entity ?? "AGENT",
          key: c.hidden ? c.hidden.key(onDemo) : c.targets(onDemo).agentId,
        });
      } else {
        expect(r, `${field} on demo`).toMatchObject({ __typename: "ForbiddenError", code: "FORBIDDEN" });
      }
      if (c.scope === "fleet") {
        expect(r.requiredRole).toBe("ADMIN");
        expect(r.message).toMatch(/not limited to workspaces/);
      } else if (!byAgent) {
        expect(r.workspaceName).toBe("demo");
      }
      expect(await snapshot(), `${field} on demo changed something`).toEqual(before);
      // A demo agent answered as NOT_FOUND is still recorded as the refusal it was.
      const row = await expectAuditRow(since, field, onDemo, { name: SCOPED, role: "admin" }, r, true);
      expect(row.denied).toBe(true);

      const onOther = await c.vars("other");
      const since2 = await lastAuditId(h);
      const r2 = await call(field, onOther, scoped);
      if (c.scope === "fleet") {
        expect(r2.__typename).toBe("ForbiddenError");
      } else {
        expect(r2.__typename, `${field} on other: ${JSON.stringify(r2)}`).not.toBe("ForbiddenError");
        expect(r2.__typename).not.toBe("UnauthenticatedError");
      }
      await expectAuditRow(since2, field, onOther, { name: SCOPED, role: "admin" }, r2);
    },
  );
});

describe("queries and subscriptions", () => {
  let viewer = "";
  let operator = "";
  let doneId = "";
  let doneGid = "";
  /** A launch held back by its notBefore, and a paused schedule (issue 14 read fields). */
  let launchId = "";
  let scheduleId = "";
  /** A registered webhook (issue 15: Query.webhook of an unknown id is null for everyone). */
  let webhookId = "";
  beforeAll(async () => {
    h = await startAppHarness();
    viewer = await h.createToken({ name: "q-viewer", role: "VIEWER" });
    operator = await h.createToken({ name: "q-operator", role: "OPERATOR" });
    doneId = await spawnVia(h, "demo", "say hi", { until: (s) => s === "done" });
    const g = await h.gql<{ agent: { id: string } }>(`query($id: String!) { agent(agentId: $id) { id } }`, {
      id: doneId,
    });
    doneGid = g.data!.agent.id;
    const spec = { workspace: "demo", prompt: "later" };
    launchId = (
      await h.app.queue.enqueue({
        spec,
        dedupKey: null,
        priority: 50,
        notBeforeMs: Date.now() + 3_600_000,
        timeoutMs: null,
        retry: NO_RETRY,
        scheduleId: null,
        createdBy: null,
      })
    ).launch.id;
    scheduleId = (
      await h.app.schedules.create(
        {
          name: "roles",
          workspace: "demo",
          cron: "0 3 * * *",
          overlap: "SKIP",
          missed: "SKIP",
          paused: true,
          template: { spec: { prompt: "later" }, priority: 50, timeoutMs: null, retry: NO_RETRY },
        },
        null,
      )
    ).id;
    webhookId = await registeredWebhook();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("every root field declares a rule, and the detector does report a field without one", () => {
    expect(fieldsWithoutAuthRule(buildSchema())).toEqual([]);
    const guarded = {
      type: GraphQLString,
      extensions: { pothosOptions: { authScopes: { role: "viewer" } } },
    };
    const bare = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: "Query",
        fields: { guarded, open: { type: GraphQLString } },
      }),
      mutation: new GraphQLObjectType({
        name: "Mutation",
        fields: { guarded, doIt: { type: GraphQLString } },
      }),
      subscription: new GraphQLObjectType({
        name: "Subscription",
        fields: { guarded, watch: { type: GraphQLString } },
      }),
    });
    expect(fieldsWithoutAuthRule(bare)).toEqual(["Query.open", "Mutation.doIt", "Subscription.watch"]);
  });

  /** A minimal document per Query field and the weakest role that may read it. */
  const QUERIES: Record<string, { need: Role; doc: string }> = {
    node: { need: "viewer", doc: "node(id: $gid) { id ... on Agent { agentId } }" },
    nodes: { need: "viewer", doc: "nodes(ids: [$gid]) { id }" },
    version: { need: "viewer", doc: "version" },
    readiness: { need: "viewer", doc: "readiness { ready }" },
    fleet: { need: "viewer", doc: "fleet { host }" },
    workspaces: { need: "viewer", doc: "workspaces { name config { env { name valueSet } } }" },
    workspace: { need: "viewer", doc: `workspace(name: "demo") { name }` },
    agents: { need: "viewer", doc: "agents(first: 5) { edges { node { agentId } } }" },
    // Agent.report (issue 16): a viewer reads the run report, markdown included.
    agent: { need: "viewer", doc: "agent(agentId: $id) { agentId status report { final turns markdown } }" },
    events: { need: "viewer", doc: "events(of: { agentId: $id }, first: 2) { nodes { seq } }" },
    usage: { need: "viewer", doc: "usage { turns }" },
    metrics: { need: "viewer", doc: "metrics { pollsTotal }" },
    launches: { need: "viewer", doc: "launches(first: 1) { totalCount }" },
    launch: { need: "viewer", doc: "launch(launchId: $lid) { launchId }" },
    schedules: { need: "viewer", doc: "schedules { totalCount }" },
    schedule: { need: "viewer", doc: "schedule(scheduleId: $sid) { scheduleId }" },
    queue: { need: "viewer", doc: "queue { depth caps { scope max inUse } }" },
    viewer: { need: "viewer", doc: "viewer { name role }" },
    tokens: { need: "admin", doc: "tokens { name }" },
    auditLog: { need: "admin", doc: "auditLog(first: 1) { edges { node { id } } }" },
    inbox: { need: "viewer", doc: "inbox(first: 1) { totalCount openCount }" },
    health: { need: "viewer", doc: "health { ok checkedAt }" },
    webhooks: { need: "admin", doc: "webhooks(first: 1) { totalCount }" },
    webhook: { need: "admin", doc: "webhook(id: $wid) { webhookId }" },
  };

  it("the query table classifies every Query field of the schema", () => {
    expect(Object.keys(QUERIES).sort()).toEqual(
      Object.keys(buildSchema().getQueryType()!.getFields()).sort(),
    );
  });

  it.each(Object.keys(QUERIES))(
    "Query.%s: readable from its role up, refused (and audited) below",
    async (field) => {
      const q = QUERIES[field]!;
      const as: Record<Role, string> = { viewer, operator, admin: h.token };
      for (const role of ROLES) {
        const since = await lastAuditId(h);
        const decl = [
          ...(q.doc.includes("$id") ? ["$id: String!"] : []),
          ...(q.doc.includes("$gid") ? ["$gid: ID!"] : []),
          ...(q.doc.includes("$lid") ? ["$lid: String!"] : []),
          ...(q.doc.includes("$sid") ? ["$sid: String!"] : []),
          ...(q.doc.includes("$wid") ? ["$wid: ID!"] : []),
        ];
        const res = await h.gql<Record<string, unknown>>(
          `query Q${decl.length ? `(${decl.join(", ")})` : ""} { ${q.doc} __typename }`,
          {
            ...(q.doc.includes("$id") ? { id: doneId } : {}),
            ...(q.doc.includes("$gid") ? { gid: doneGid } : {}),
            ...(q.doc.includes("$lid") ? { lid: launchId } : {}),
            ...(q.doc.includes("$sid") ? { sid: scheduleId } : {}),
            ...(q.doc.includes("$wid") ? { wid: webhookId } : {}),
          },
          as[role],
        );
        if (rank(role) < rank(q.need)) {
          expect(res.errors?.[0]?.extensions).toMatchObject({ code: "FORBIDDEN", requiredRole: "ADMIN" });
          expect(res.data?.[field] ?? null).toBeNull();
          const rows = await waitFor(async () => {
            const r = (await auditAfter(h, since)).filter((e) => e.operation === field);
            return r.length ? r : null;
          });
          expect(rows[0]).toMatchObject({
            tokenName: role === "viewer" ? "q-viewer" : "q-operator",
            role,
            remoteAddress: "127.0.0.1",
            result: "FORBIDDEN",
            denied: true,
          });
        } else {
          expect(res.errors, `${field} as ${role}: ${JSON.stringify(res.errors)}`).toBeUndefined();
          expect(res.data?.[field] ?? null, `${field} as ${role}`).not.toBeNull();
        }
      }
    },
  );

  const SUBSCRIPTIONS: Record<string, string> = {
    agentEvents: "agentEvents(agentId: $id) { __typename seq }",
    workspaceEvents: `workspaceEvents(workspace: "demo") { __typename seq }`,
    fleetEvents: "fleetEvents { __typename seq }",
    fleetChanges: "fleetChanges { __typename }",
    inboxChanges: "inboxChanges { change openCount }",
  };

  it("the subscription table classifies every Subscription field of the schema", () => {
    expect(Object.keys(SUBSCRIPTIONS).sort()).toEqual(
      Object.keys(buildSchema().getSubscriptionType()!.getFields()).sort(),
    );
  });

  it.each(Object.keys(SUBSCRIPTIONS))("Subscription.%s: a viewer token gets items", async (field) => {
    const client = h.ws(viewer);
    const sub = collect<Record<string, unknown>>(
      client,
      `subscription S${field === "agentEvents" ? "($id: String!)" : ""} { ${SUBSCRIPTIONS[field]} }`,
      field === "agentEvents" ? { id: doneId } : {},
      (items) => items.length >= 1,
    );
    // inboxChanges is live only: make changes until one arrives.
    if (field === "inboxChanges") {
      await waitFor(async () => {
        const a = await h.app.inbox.raiseAlert({
          check: "queue_wait",
          subject: `probe-${++seq}`,
          workspace: "demo",
          agentId: null,
          title: "probe",
          message: "probe",
        });
        await h.app.inbox.dismiss(a.id, "test");
        return sub.items.length > 0;
      });
    }
    await sub.done;
    expect(sub.items[0]).toHaveProperty(field);
  });
});

/** A graphql-ws client as `token` that records how its socket closed. */
function wsAs(token: string): { client: Client; closes: number[] } {
  const closes: number[] = [];
  const client = createClient({
    url: `${h.url.replace("http", "ws")}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: { authorization: `Bearer ${token}` },
    on: { closed: (e) => closes.push((e as { code: number }).code) },
  });
  return { client, closes };
}

/**
 * The first result (or error) of an operation whose server completes it (queries, mutations,
 * refused subscriptions). It does not unsubscribe from inside `next`: the graphql-ws client then
 * releases the operation twice when the server's `complete` follows, and its lazy connection
 * closes under the other subscriptions.
 */
function firstResult(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{
  data?: unknown;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}> {
  return new Promise((resolve) => {
    client.subscribe(
      { query, variables },
      {
        next: (v) => resolve(v as never),
        error: (e) =>
          resolve({
            errors: Array.isArray(e)
              ? (e as never)
              : [
                  {
                    message:
                      typeof e === "object" && e !== null && "code" in e
                        ? `closed ${String(e.code)}`
                        : String(e),
                  },
                ],
          }),
        complete: () => resolve({}),
      },
    );
  });
}

describe("what a token limited to workspace other can see", () => {
  let scoped = "";
  let demoDone: string[] = [];
  let otherDone = "";
  let demoLive = "";
  beforeAll(async () => {
    h = await startAppHarness();
    other = await addWorkspaceWithDaemon(h);
    scoped = await h.createToken({ name: "only-other", role: "VIEWER", workspaces: ["other"] });
    const done = (s: string | undefined) => s === "done";
    demoDone = [
      await spawnVia(h, "demo", "say hi", { until: done }),
      await spawnVia(h, "demo", "say hi again", { until: done }),
    ];
    otherDone = await spawnVia(h, "other", "say hi", { until: done });
    demoLive = await held("demo");
    // Usage is counted from ingested turns.
    await waitFor(
      async () =>
        (await h.app.db.prisma.agent.count({
          where: { id: { in: [...demoDone, otherDone] }, turns: { gt: 0 } },
        })) === 3,
      10_000,
      "turns ingested",
    );
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await other?.close();
  });

  it("lists: workspaces, agents (also filtered on demo)", async () => {
    const res = await h.gql<{
      workspaces: { name: string }[];
      all: { edges: { node: { agentId: string; workspace: { name: string } } }[] };
      demo: { edges: unknown[] };
    }>(
      `{ workspaces { name }
         all: agents { edges { node { agentId workspace { name } } } }
         demo: agents(filter: { workspace: "demo" }) { edges { node { agentId } } } }`,
      {},
      scoped,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.workspaces).toEqual([{ name: "other" }]);
    expect(res.data!.all.edges.map((e) => e.node)).toEqual([
      { agentId: otherDone, workspace: { name: "other" } },
    ]);
    expect(res.data!.demo.edges).toEqual([]);
    // The admin sees both (so the lists above really were filtered).
    const admin = await h.gql<{ workspaces: { name: string }[]; agents: { edges: unknown[] } }>(
      `{ workspaces { name } agents { edges { node { agentId } } } }`,
    );
    expect(admin.data!.workspaces.map((w) => w.name)).toEqual(["demo", "other"]);
    expect(admin.data!.agents.edges).toHaveLength(4);
  });

  it("usage(groupBy: [MODEL]) counts only other's turns", async () => {
    type U = { turns: number; inputTokens: number; outputTokens: number; workspace?: string | null };
    const sum = (rows: U[]) =>
      rows.reduce(
        (a, r) => ({
          turns: a.turns + r.turns,
          inputTokens: a.inputTokens + r.inputTokens,
          outputTokens: a.outputTokens + r.outputTokens,
        }),
        { turns: 0, inputTokens: 0, outputTokens: 0 },
      );
    const q = `{ byModel: usage(groupBy: [MODEL]) { turns inputTokens outputTokens }
                 byWs: usage(groupBy: [WORKSPACE]) { workspace turns inputTokens outputTokens } }`;
    const mine = await h.gql<{ byModel: U[]; byWs: U[] }>(q, {}, scoped);
    const all = await h.gql<{ byModel: U[]; byWs: U[] }>(q);
    expect(mine.errors).toBeUndefined();
    const otherRow = all.data!.byWs.find((r) => r.workspace === "other")!;
    const { workspace: _w, ...otherTotals } = otherRow;
    expect(otherTotals.turns).toBeGreaterThan(0);
    expect(sum(mine.data!.byModel)).toEqual(otherTotals);
    expect(sum(all.data!.byModel).turns).toBeGreaterThan(otherTotals.turns);
    expect(mine.data!.byWs.map((r) => r.workspace)).toEqual(["other"]);
  });

  it("naming demo or its agents: workspace and events refused, a demo agent reads as unknown", async () => {
    for (const [field, doc, code] of [
      ["workspace", `{ workspace(name: "demo") { name } }`, "FORBIDDEN"],
      ["events", `{ events(of: { workspace: "demo" }) { nodes { seq } } }`, "FORBIDDEN"],
      // An agent outside the token's workspaces reads as unknown (its id cannot be probed).
      ["events", `{ events(of: { agentId: "${demoDone[0]}" }) { nodes { seq } } }`, "NOT_FOUND"],
    ] as const) {
      const res = await h.gql(doc, {}, scoped);
      expect(res.errors, doc).toHaveLength(1);
      // Refused by the field's resolver (it ran and was nulled), not by document validation.
      expect(res.errors?.[0], doc).toMatchObject({ path: [field], extensions: { code } });
      expect(res.data, doc).toEqual({ [field]: null });
    }
    // events() of a demo agent answers exactly as for an agent id that does not exist.
    const probe = async (agentId: string) => {
      const r = await h.gql(`{ events(of: { agentId: "${agentId}" }) { nodes { seq } } }`, {}, scoped);
      return JSON.stringify(r).replaceAll(agentId, "<id>");
    };
    expect(await probe(demoDone[0]!)).toBe(await probe("0000000000ff"));
    // agent(agentId:) of a demo run answers exactly as for an id that does not exist: null.
    const seen = await h.gql<{ agent: unknown }>(
      `{ agent(agentId: "${demoDone[0]}") { agentId } }`,
      {},
      scoped,
    );
    const unknown = await h.gql<{ agent: unknown }>(
      `{ agent(agentId: "0000000000ff") { agentId } }`,
      {},
      scoped,
    );
    expect(seen).toEqual(unknown);
    expect(seen).toEqual({ data: { agent: null } });
  });

  it("node() and nodes() of demo's workspace, agents and events, of tokens and audit rows: null, as an unknown id", async () => {
    type Ids = { nodes: { id: string; __typename: string }[] };
    const ids = await h.gql<{
      dw: { id: string };
      ow: { id: string };
      d: { id: string };
      o: { id: string };
      de: Ids;
      dws: Ids;
      oe: Ids;
      tokens: { id: string; name: string }[];
      auditLog: { edges: { node: { id: string } }[] };
    }>(
      `query($d: String!, $o: String!) {
         dw: workspace(name: "demo") { id } ow: workspace(name: "other") { id }
         d: agent(agentId: $d) { id } o: agent(agentId: $o) { id }
         de: events(of: { agentId: $d }, first: 500) { nodes { id __typename } }
         dws: events(of: { workspace: "demo" }, first: 500) { nodes { id __typename } }
         oe: events(of: { agentId: $o }, first: 500) { nodes { id __typename } }
         tokens { id name }
         auditLog(first: 3) { edges { node { id } } } }`,
      { d: demoDone[0], o: otherDone },
    );
    expect(ids.errors, JSON.stringify(ids.errors)).toBeUndefined();
    const d = ids.data!;
    const demoEvents = [...d.de.nodes, ...d.dws.nodes].map((n) => n.id);
    // demo's own (not an agent's) events are among them, e.g. its health.
    expect(d.dws.nodes.map((n) => n.__typename)).toContain("WorkspaceHealthEvent");
    expect(d.de.nodes.length).toBeGreaterThan(3);
    expect(d.oe.nodes.length).toBeGreaterThan(3);
    const tokenIds = d.tokens.map((t) => t.id);
    const auditIds = d.auditLog.edges.map((e) => e.node.id);
    expect(tokenIds.length).toBeGreaterThan(1);
    expect(auditIds).toHaveLength(3);
    const hidden = [d.dw.id, d.d.id, ...demoEvents];
    const adminOnly = [...tokenIds, ...auditIds];

    const NODE_DOC = `query($id: ID!) { node(id: $id) { __typename id ... on Agent { agentId name } } }`;
    const NODES_DOC = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`;
    // An id of the right shape for nothing, and a malformed one: the answers to compare with.
    const nothing = await h.gql(NODE_DOC, { id: "QWdlbnQ6MDAwMDAwMDAwMGZm" }, scoped);
    expect(nothing).toEqual({ data: { node: null } });
    expect(await h.gql(NODE_DOC, { id: "not a global id" }, scoped)).toEqual(nothing);

    // The token limited to other: nothing of demo, and no token or audit row (it is a viewer).
    const one = (id: string, token: string) => h.gql(NODE_DOC, { id }, token);
    const each = async (list: string[], token: string) => {
      const out: Record<string, unknown> = {};
      for (const id of list) out[id] = await one(id, token);
      return out;
    };
    const asNothing = (list: string[]) => Object.fromEntries(list.map((id) => [id, nothing]));
    expect(await each([...hidden, ...adminOnly], scoped)).toEqual(asNothing([...hidden, ...adminOnly]));
    const mixed = await h.gql<{ nodes: ({ __typename: string; id: string } | null)[] }>(
      NODES_DOC,
      { ids: [...hidden, d.ow.id, d.o.id, ...d.oe.nodes.map((n) => n.id), ...adminOnly] },
      scoped,
    );
    expect(mixed.errors, JSON.stringify(mixed.errors)).toBeUndefined();
    expect(mixed.data!.nodes).toEqual([
      ...hidden.map(() => null),
      // Its own workspace, agent and events it does read (so null above is the scope, not the id).
      { __typename: "Workspace", id: d.ow.id },
      { __typename: "Agent", id: d.o.id },
      ...d.oe.nodes,
      ...adminOnly.map(() => null),
    ]);
    expect(JSON.stringify(mixed)).not.toContain(demoDone[0]!);

    // Tokens and audit rows are for admins not limited to workspaces: a viewer, an operator and
    // an admin limited to workspaces get null; the admin reads them (the ids are real).
    const viewer = await h.createToken({ name: "n-viewer", role: "VIEWER" });
    const operator = await h.createToken({ name: "n-operator", role: "OPERATOR" });
    const limitedAdmin = await h.createToken({ name: "n-admin-other", role: "ADMIN", workspaces: ["other"] });
    for (const token of [viewer, operator, limitedAdmin]) {
      expect(await each(adminOnly, token)).toEqual(asNothing(adminOnly));
      const many = await h.gql(NODES_DOC, { ids: adminOnly }, token);
      expect(many).toEqual({ data: { nodes: adminOnly.map(() => null) } });
    }
    // An unlimited viewer does read demo's workspace, agent and events (the control for `hidden`).
    const all = await h.gql<{ nodes: ({ id: string } | null)[] }>(NODES_DOC, { ids: hidden }, viewer);
    expect(all.data!.nodes.map((n) => n?.id)).toEqual(hidden);
    const asAdmin = await h.gql<{ nodes: ({ __typename: string; id: string } | null)[] }>(NODES_DOC, {
      ids: adminOnly,
    });
    expect(asAdmin.data!.nodes).toEqual([
      ...tokenIds.map((id) => ({ __typename: "ApiToken", id })),
      ...auditIds.map((id) => ({ __typename: "AuditEntry", id })),
    ]);
  });

  it("an error answering a limited token names no workspace outside its list", async () => {
    // A token limited to other and a (not yet registered) third workspace tries to register
    // demo's root under the name third: refused, but without telling it demo exists.
    const limited = await h.createToken({
      name: "other-third",
      role: "ADMIN",
      workspaces: ["other", "third"],
    });
    const res = await h.gql<{ addWorkspace: MutationResult }>(
      `mutation($root: String!) { addWorkspace(input: { name: "third", root: $root }) { ${resultOf("addWorkspace")} } }`,
      { root: h.d.ws.root },
      limited,
    );
    expect(res.data?.addWorkspace.__typename).toBe("ConflictError");
    expect(res.data?.addWorkspace.message).not.toMatch(/workspace demo\b/);
  });

  it("agentEvents and workspaceEvents of demo are refused (FORBIDDEN; a demo agent reads as NOT_FOUND), and audited", async () => {
    const { client } = wsAs(scoped);
    for (const [query, v] of [
      ["subscription($id: String!) { agentEvents(agentId: $id) { seq } }", { id: demoLive }],
      [`subscription { workspaceEvents(workspace: "demo") { seq } }`, {}],
      [`subscription { fleetEvents(filter: { workspace: "demo" }) { seq } }`, {}],
      ["subscription($id: String!) { fleetEvents(filter: { agentId: $id }) { seq } }", { id: demoLive }],
    ] as const) {
      const since = await lastAuditId(h);
      const r = await firstResult(client, query, v);
      // Naming a demo agent reads as an unknown agent; naming the workspace is a refusal.
      const expected = "id" in v ? "NOT_FOUND" : "FORBIDDEN";
      expect(r.errors?.[0]?.extensions, query).toMatchObject({ code: expected });
      expect(r.data ?? null).toBeNull();
      // The refusal is audited.
      const field = /\{ (\w+)\(/.exec(query)![1]!;
      const rows = await waitFor(async () => {
        const found = (await auditAfter(h, since)).filter((e) => e.operation === field);
        return found.length ? found : null;
      });
      expect(rows[0]).toMatchObject({
        tokenName: "only-other",
        result: expected,
        denied: true,
        remoteAddress: "127.0.0.1",
      });
    }
    await client.dispose();
  });

  it("fleetChanges seed and fleetEvents (history and live) carry nothing of demo", async () => {
    const { client } = wsAs(scoped);
    type Change = {
      fleetChanges: {
        __typename: string;
        agent?: { agentId: string; workspace: { name: string } };
        workspace?: { name: string } | string;
        agentId?: string;
      };
    };
    const changes = collect<Change>(
      client,
      `subscription { fleetChanges { __typename
         ... on AgentAppeared { agent { agentId workspace { name } } }
         ... on AgentStatusChanged { agent { agentId workspace { name } } }
         ... on AgentGone { agentId workspace { name } }
         ... on WorkspaceHealthChanged { workspace { name } } } }`,
      {},
    );
    const events = collect<{
      fleetEvents: { __typename: string; workspace: string; agentId: string | null };
    }>(client, `subscription { fleetEvents { __typename workspace agentId } }`, {});
    await waitFor(
      () => changes.items.some((i) => i.fleetChanges.__typename === "FleetSeedComplete"),
      10_000,
      "seed",
    );
    const seed = changes.items.map((i) => i.fleetChanges);
    expect(seed.filter((i) => i.__typename === "WorkspaceHealthChanged")).toEqual([
      { __typename: "WorkspaceHealthChanged", workspace: { name: "other" } },
    ]);
    for (const i of seed) if (i.agent) expect(i.agent.workspace.name).toBe("other");
    // History replayed: other's events only (demo has more of them).
    await waitFor(() => events.items.some((e) => e.fleetEvents.agentId === otherDone), 10_000, "history");

    // Live: a spawn in demo, then one in other; only the second may arrive.
    const demoNew = await held("demo");
    const otherNew = await held("other");
    await waitFor(
      () => changes.items.some((i) => i.fleetChanges.agent?.agentId === otherNew),
      10_000,
      "other's spawn on fleetChanges",
    );
    await waitFor(
      () => events.items.some((e) => e.fleetEvents.agentId === otherNew),
      10_000,
      "other's events",
    );
    // Give demo's events the same time to (wrongly) arrive.
    await new Promise((r) => setTimeout(r, 300));
    changes.stop();
    events.stop();
    const text = JSON.stringify([changes.items, events.items]);
    expect(text).not.toContain(demoNew);
    expect(text).not.toContain(demoLive);
    for (const id of demoDone) expect(text).not.toContain(id);
    expect(events.items.every((e) => e.fleetEvents.workspace === "other")).toBe(true);
    await client.dispose();
    // The admin's view of the same period does include demo's spawn (the filter is what hid it).
    const admin = await h.gql<{ events: { nodes: { agentId: string | null }[] } }>(
      `{ events(of: { workspace: "demo" }, first: 500) { nodes { agentId } } }`,
    );
    expect(admin.data!.events.nodes.some((n) => n.agentId === demoNew)).toBe(true);
  });
});
