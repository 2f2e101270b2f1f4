// The launch queue's mutations (issue 14) through a real gateway (in-process, real port, real
// SQLite, the caliband double's "demo" workspace): bad input is a typed ValidationError naming the
// field and stores nothing; one dedupKey under 100 parallel requests makes one launch; who may do
// what (viewer, limited admin, a token of another workspace); every call leaves an audit row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";

let h: AppHarness;
/** Tokens: a viewer; an admin limited to "demo"; an operator and an admin limited to "elsewhere". */
let viewer: string;
let demoAdmin: string;
let outsiderOperator: string;
let outsiderAdmin: string;

beforeAll(async () => {
  h = await startAppHarness();
  viewer = await h.createToken({ name: "q-viewer", role: "VIEWER" });
  demoAdmin = await h.createToken({ name: "q-demo-admin", role: "ADMIN", workspaces: ["demo"] });
  outsiderOperator = await h.createToken({
    name: "q-outsider-op",
    role: "OPERATOR",
    workspaces: ["elsewhere"],
  });
  outsiderAdmin = await h.createToken({ name: "q-outsider-admin", role: "ADMIN", workspaces: ["elsewhere"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** What a test reads from every result: its type, and the fields of the errors it may hold. */
const RESULT = `__typename ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }`;
const NOT_FOUND = `... on NotFoundError { entity key }`;
const FORBIDDEN = `... on ForbiddenError { requiredRole workspaceName }`;

type Result = {
  __typename: string;
  code?: string;
  message?: string;
  fieldErrors?: { path: string[]; message: string }[];
  [k: string]: unknown;
};

/** Run one mutation `field(input: $input) { selection }` and return its result. */
async function call(
  field: string,
  input: Record<string, unknown>,
  selection = "",
  token?: string,
): Promise<Result> {
  const Name = field.charAt(0).toUpperCase() + field.slice(1);
  const r = await h.gql<Record<string, Result>>(
    `mutation($input: ${Name}Input!) { ${field}(input: $input) { ${RESULT} ${selection} } }`,
    { input },
    token,
  );
  expect(r.errors, JSON.stringify(r)).toBeUndefined();
  return r.data![field]!;
}

/** Everything a queue mutation could store. */
async function stored() {
  const p = h.app.db.prisma;
  const launches = await h.gql<{ launches: { totalCount: number } }>(`{ launches { totalCount } }`);
  expect(launches.errors).toBeUndefined();
  return {
    launchesTotal: launches.data!.launches.totalCount,
    launches: await p.launch.count(),
    attempts: await p.launchAttempt.count(),
    schedules: await p.schedule.count(),
    caps: await p.cap.findMany({ orderBy: [{ scope: "asc" }, { key: "asc" }] }),
    budgets: await p.budget.findMany({ orderBy: [{ scope: "asc" }, { key: "asc" }] }),
    timeouts: (await p.workspace.findMany({ orderBy: { name: "asc" } })).map((w) => [
      w.name,
      w.launchTimeoutMs,
    ]),
    agents: await p.agent.count(),
  };
}

/** Audit rows of `operation` so far. */
const auditRows = (operation: string) =>
  h.app.db.prisma.auditEntry.findMany({ where: { operation }, orderBy: { id: "asc" } });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const later = () => new Date(Date.now() + HOUR).toISOString();
const TEMPLATE = { prompt: "quick", retry: { maxAttempts: 2 } };

describe("bad input: a ValidationError naming the field, nothing stored", () => {
  const cases: [string, string, Record<string, unknown>, string[]][] = [
    [
      "cron that is not one",
      "createSchedule",
      { name: "n", workspace: "demo", cron: "not a cron", template: TEMPLATE },
      ["input", "cron"],
    ],
    [
      "unknown time zone",
      "createSchedule",
      { name: "n", workspace: "demo", cron: "*/5 * * * *", timeZone: "Mars/Olympus", template: TEMPLATE },
      ["input", "timeZone"],
    ],
    [
      "template timeout 0",
      "createSchedule",
      { name: "n", workspace: "demo", cron: "*/5 * * * *", template: { prompt: "x", timeoutMs: 0 } },
      ["input", "template", "timeoutMs"],
    ],
    ["cap below 0", "setCap", { scope: "WORKSPACE", key: "demo", max: -1 }, ["input", "max"]],
    ["cap above 10000", "setCap", { scope: "GLOBAL", max: 10_001 }, ["input", "max"]],
    // Omitting max, limitUsd or timeoutMs is not taken as "remove" (null says that).
    ["cap without max", "setCap", { scope: "WORKSPACE", key: "demo" }, ["input", "max"]],
    [
      "budget without limitUsd",
      "setBudget",
      { scope: "WORKSPACE", key: "demo", period: "DAY" },
      ["input", "limitUsd"],
    ],
    [
      "workspace timeout not given",
      "setWorkspaceLaunchTimeout",
      { workspace: "demo" },
      ["input", "timeoutMs"],
    ],
    ["workspace cap without key", "setCap", { scope: "WORKSPACE", max: 1 }, ["input", "key"]],
    ["global cap with a key", "setCap", { scope: "GLOBAL", key: "demo", max: 1 }, ["input", "key"]],
    ["unknown provider", "setCap", { scope: "PROVIDER", key: "acme", max: 1 }, ["input", "key"]],
    [
      "budget of 0",
      "setBudget",
      { scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: 0 },
      ["input", "limitUsd"],
    ],
    [
      "budget over 1e6",
      "setBudget",
      { scope: "PROVIDER", key: "anthropic", period: "MONTH", limitUsd: 2e6 },
      ["input", "limitUsd"],
    ],
    [
      "workspace timeout 0",
      "setWorkspaceLaunchTimeout",
      { workspace: "demo", timeoutMs: 0 },
      ["input", "timeoutMs"],
    ],
    [
      "launch timeout 0",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", timeoutMs: 0 },
      ["input", "timeoutMs"],
    ],
    [
      "launch timeout 8 days",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", timeoutMs: 8 * DAY },
      ["input", "timeoutMs"],
    ],
    [
      "priority 101",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", priority: 101 },
      ["input", "priority"],
    ],
    ["priority -1", "enqueueLaunch", { workspace: "demo", prompt: "x", priority: -1 }, ["input", "priority"]],
    [
      "retry of 0 attempts",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", retry: { maxAttempts: 0 } },
      ["input", "retry", "maxAttempts"],
    ],
    [
      "retry ceiling under its first delay",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", retry: { maxAttempts: 3, backoffMs: 60_000, maxBackoffMs: 1000 } },
      ["input", "retry", "maxBackoffMs"],
    ],
    [
      "notBefore an hour ago",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", notBefore: new Date(Date.now() - HOUR).toISOString() },
      ["input", "notBefore"],
    ],
    [
      "empty dedupKey",
      "enqueueLaunch",
      { workspace: "demo", prompt: "x", dedupKey: "" },
      ["input", "dedupKey"],
    ],
    ["empty prompt", "enqueueLaunch", { workspace: "demo", prompt: "  " }, ["input", "prompt"]],
    ["bad launch id", "cancelLaunch", { launchId: "not-an-id" }, ["input", "launchId"]],
    ["bad schedule id", "runSchedule", { scheduleId: "XYZ" }, ["input", "scheduleId"]],
  ];

  it.each(cases)("%s (%s)", async (_what, field, input, path) => {
    const before = await stored();
    const audited = (await auditRows(field)).length;
    const r = await call(field, input);
    expect(r.__typename, JSON.stringify(r)).toBe("ValidationError");
    expect(r.code).toBe("BAD_USER_INPUT");
    expect(r.fieldErrors!.map((e) => e.path)).toContainEqual(path);
    expect(await stored()).toEqual(before);
    const rows = await auditRows(field);
    expect(rows.length).toBe(audited + 1);
    expect(rows.at(-1)).toMatchObject({ result: "BAD_USER_INPUT", denied: false, tokenName: "admin" });
  });

  it("a retry policy without maxAttempts is a ValidationError naming it, nothing stored", async () => {
    const before = await stored();
    const r = await call("enqueueLaunch", { workspace: "demo", prompt: "x", retry: { backoffMs: 1000 } });
    expect(r.__typename).toBe("ValidationError");
    expect(r.fieldErrors!.map((e) => e.path)).toContainEqual(["input", "retry", "maxAttempts"]);
    expect(await stored()).toEqual(before);
  });

  it("removing the GLOBAL cap is refused; a workspace, launch or schedule that does not exist is a NotFoundError", async () => {
    const before = await stored();
    const global = await call("setCap", { scope: "GLOBAL", max: null });
    expect(global).toMatchObject({
      __typename: "ValidationError",
      fieldErrors: [{ path: ["input", "max"] }],
    });
    // An unknown workspace is a NotFoundError naming it, as for spawnAgent (design-14: NotFound("workspace")).
    const enqueue = await call("enqueueLaunch", { workspace: "nope", prompt: "x" }, NOT_FOUND);
    expect(enqueue).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE", key: "nope" });
    const cap = await call("setCap", { scope: "WORKSPACE", key: "nope", max: 1 }, NOT_FOUND);
    expect(cap).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE", key: "nope" });
    const budget = await call(
      "setBudget",
      { scope: "WORKSPACE", key: "nope", period: "MONTH", limitUsd: 1 },
      NOT_FOUND,
    );
    expect(budget).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE", key: "nope" });
    const unknownWs = await call(
      "setWorkspaceLaunchTimeout",
      { workspace: "nope", timeoutMs: 60_000 },
      NOT_FOUND,
    );
    expect(unknownWs).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE", key: "nope" });
    const scheduleWs = await call(
      "createSchedule",
      { name: "n", workspace: "nope", cron: "*/5 * * * *", template: TEMPLATE },
      NOT_FOUND,
    );
    expect(scheduleWs).toMatchObject({ __typename: "NotFoundError", entity: "WORKSPACE" });
    for (const field of ["pauseSchedule", "resumeSchedule", "deleteSchedule", "runSchedule"]) {
      const r = await call(field, { scheduleId: "000000000000" }, NOT_FOUND);
      expect(r, field).toMatchObject({
        __typename: "NotFoundError",
        entity: "SCHEDULE",
        key: "000000000000",
      });
    }
    const cancel = await call("cancelLaunch", { launchId: "000000000000" }, NOT_FOUND);
    expect(cancel).toMatchObject({ __typename: "NotFoundError", entity: "LAUNCH", key: "000000000000" });
    expect(await stored()).toEqual(before);
  });
});

const LAUNCH = `... on EnqueueLaunchPayload { created launch { launchId state priority dedupKey createdBy } }`;
type Enqueued = Result & {
  created: boolean;
  launch: {
    launchId: string;
    state: string;
    priority: number;
    dedupKey: string | null;
    createdBy: string | null;
  };
};

describe("dedupKey", () => {
  it("100 parallel enqueueLaunch with one dedupKey make exactly one launch, and every answer names it", async () => {
    const before = await h.app.db.prisma.launch.count();
    // Held back by notBefore: the launch stays unfinished (so the key stays taken) during the burst.
    const input = {
      workspace: "demo",
      prompt: "quick",
      dedupKey: "burst-1",
      notBefore: later(),
      priority: 70,
    };
    const answers = (await Promise.all(
      Array.from({ length: 100 }, () => call("enqueueLaunch", input, LAUNCH)),
    )) as Enqueued[];
    expect(answers.map((a) => a.__typename)).toEqual(Array(100).fill("EnqueueLaunchPayload"));
    expect(new Set(answers.map((a) => a.launch.launchId)).size).toBe(1);
    expect(answers.filter((a) => a.created).length).toBe(1);
    expect(await h.app.db.prisma.launch.count()).toBe(before + 1);
    const rows = await h.app.db.prisma.launch.findMany({ where: { dedupKey: "burst-1" } });
    expect(rows.map((r) => [r.id, r.state, r.priority, r.createdBy])).toEqual([
      [answers[0]!.launch.launchId, "QUEUED", 70, "admin"],
    ]);
    expect(answers[0]!.launch).toMatchObject({
      state: "QUEUED",
      priority: 70,
      dedupKey: "burst-1",
      createdBy: "admin",
    });
    // Every call was audited (the 99 repeats too: they are requests like any other).
    const audited = (await auditRows("enqueueLaunch")).filter(
      (r) => (r.args as { input?: { dedupKey?: string } } | null)?.input?.dedupKey === "burst-1",
    );
    expect(audited.length).toBe(100);
    expect(new Set(audited.map((r) => r.result))).toEqual(new Set(["EnqueueLaunchPayload"]));
  });

  it("the same dedupKey with another spec is a ConflictError and stores nothing", async () => {
    const first = (await call(
      "enqueueLaunch",
      { workspace: "demo", prompt: "quick", dedupKey: "conflict-1", notBefore: later() },
      LAUNCH,
    )) as Enqueued;
    expect(first).toMatchObject({ __typename: "EnqueueLaunchPayload", created: true });
    const before = await stored();
    const other = await call("enqueueLaunch", {
      workspace: "demo",
      prompt: "something else",
      dedupKey: "conflict-1",
    });
    expect(other).toMatchObject({ __typename: "ConflictError", code: "CONFLICT" });
    expect(await stored()).toEqual(before);
    expect((await auditRows("enqueueLaunch")).at(-1)).toMatchObject({ result: "CONFLICT" });
  });
});

describe("who may do what", () => {
  it("a viewer cannot enqueue (ForbiddenError naming the role), and the refusal is audited as denied", async () => {
    const before = await stored();
    const r = await call("enqueueLaunch", { workspace: "demo", prompt: "x" }, FORBIDDEN, viewer);
    expect(r).toMatchObject({ __typename: "ForbiddenError", code: "FORBIDDEN", requiredRole: "OPERATOR" });
    expect(await stored()).toEqual(before);
    expect((await auditRows("enqueueLaunch")).at(-1)).toMatchObject({
      tokenName: "q-viewer",
      result: "FORBIDDEN",
      denied: true,
    });
  });

  it("an admin limited to workspaces cannot set a GLOBAL, PROVIDER or MODEL cap or a PROVIDER budget, but can its own workspace's", async () => {
    const before = await stored();
    for (const input of [
      { scope: "GLOBAL", max: 50 },
      { scope: "PROVIDER", key: "anthropic", max: 1 },
      { scope: "MODEL", key: "some-model", max: 1 },
    ]) {
      const r = await call("setCap", input, FORBIDDEN, demoAdmin);
      expect(r, JSON.stringify(input)).toMatchObject({ __typename: "ForbiddenError", requiredRole: "ADMIN" });
    }
    const budget = await call(
      "setBudget",
      { scope: "PROVIDER", key: "anthropic", period: "DAY", limitUsd: 5 },
      FORBIDDEN,
      demoAdmin,
    );
    expect(budget).toMatchObject({ __typename: "ForbiddenError" });
    // Another workspace's cap: refused naming it (the token named it itself).
    const other = await call("setCap", { scope: "WORKSPACE", key: "demo", max: 1 }, FORBIDDEN, outsiderAdmin);
    expect(other).toMatchObject({ __typename: "ForbiddenError", workspaceName: "demo" });
    const timeout = await call(
      "setWorkspaceLaunchTimeout",
      { workspace: "demo", timeoutMs: 60_000 },
      FORBIDDEN,
      outsiderAdmin,
    );
    expect(timeout).toMatchObject({ __typename: "ForbiddenError", workspaceName: "demo" });
    expect(await stored()).toEqual(before);
    const denied = (await auditRows("setCap")).filter((r) => r.denied);
    expect(denied.map((r) => [r.tokenName, r.result])).toEqual([
      ["q-demo-admin", "FORBIDDEN"],
      ["q-demo-admin", "FORBIDDEN"],
      ["q-demo-admin", "FORBIDDEN"],
      ["q-outsider-admin", "FORBIDDEN"],
    ]);

    const own = await call(
      "setCap",
      { scope: "WORKSPACE", key: "demo", max: 2 },
      `... on SetCapPayload { cap { scope key max inUse } caps { scope key max } }`,
      demoAdmin,
    );
    expect(own).toMatchObject({
      __typename: "SetCapPayload",
      cap: { scope: "WORKSPACE", key: "demo", max: 2, inUse: 0 },
    });
    expect(own["caps"]).toContainEqual({ scope: "WORKSPACE", key: "demo", max: 2 });
    expect((own["caps"] as { scope: string }[])[0]).toMatchObject({ scope: "GLOBAL" });
    const removed = await call(
      "setCap",
      { scope: "WORKSPACE", key: "demo", max: null },
      `... on SetCapPayload { cap { max } caps { scope key } }`,
      demoAdmin,
    );
    expect(removed).toMatchObject({ __typename: "SetCapPayload", cap: null });
    expect(removed["caps"]).not.toContainEqual({ scope: "WORKSPACE", key: "demo" });
    expect(await h.app.db.prisma.cap.findMany({ where: { scope: "WORKSPACE" } })).toEqual([]);
  });

  it("a launch or schedule of another workspace is a NotFoundError to its token (audited as denied); its own operator cancels it", async () => {
    const q = (await call(
      "enqueueLaunch",
      { workspace: "demo", prompt: "quick", notBefore: later() },
      LAUNCH,
    )) as Enqueued;
    const launchId = q.launch.launchId;
    const s = await call(
      "createSchedule",
      { name: "hidden", workspace: "demo", cron: "0 3 * * *", paused: true, template: TEMPLATE },
      `... on CreateSchedulePayload { schedule { scheduleId } }`,
    );
    const scheduleId = (s["schedule"] as { scheduleId: string }).scheduleId;
    const before = await stored();

    const cancel = await call("cancelLaunch", { launchId }, NOT_FOUND, outsiderOperator);
    expect(cancel).toMatchObject({ __typename: "NotFoundError", entity: "LAUNCH", key: launchId });
    for (const field of ["pauseSchedule", "resumeSchedule", "deleteSchedule", "runSchedule"]) {
      const r = await call(field, { scheduleId }, NOT_FOUND, outsiderOperator);
      expect(r, field).toMatchObject({ __typename: "NotFoundError", entity: "SCHEDULE", key: scheduleId });
      expect((await auditRows(field)).at(-1), field).toMatchObject({
        tokenName: "q-outsider-op",
        result: "NOT_FOUND",
        denied: true,
      });
    }
    // A launch or schedule it cannot see answers exactly as one that does not exist.
    const none = await call("cancelLaunch", { launchId: "000000000000" }, NOT_FOUND, outsiderOperator);
    expect(Object.keys(none).sort()).toEqual(Object.keys(cancel).sort());
    expect(none.message?.replace("000000000000", launchId)).toBe(cancel.message);
    // Creating in a workspace the token may not use names it (the token named it itself).
    const create = await call(
      "createSchedule",
      { name: "x", workspace: "demo", cron: "0 3 * * *", template: TEMPLATE },
      FORBIDDEN,
      outsiderOperator,
    );
    expect(create).toMatchObject({ __typename: "ForbiddenError", workspaceName: "demo" });
    const viewerCancel = await call("cancelLaunch", { launchId }, FORBIDDEN, viewer);
    expect(viewerCancel).toMatchObject({ __typename: "ForbiddenError", requiredRole: "OPERATOR" });
    expect(await stored()).toEqual(before);
    expect((await auditRows("cancelLaunch")).at(-1)).toMatchObject({ result: "FORBIDDEN", denied: true });

    const ok = await call(
      "cancelLaunch",
      { launchId },
      `... on CancelLaunchPayload { launch { launchId state } }`,
    );
    expect(ok).toMatchObject({ __typename: "CancelLaunchPayload", launch: { launchId, state: "CANCELLED" } });
    const again = await call("cancelLaunch", { launchId });
    expect(again).toMatchObject({ __typename: "InvalidStateError", code: "INVALID_STATE" });
    await call("deleteSchedule", { scheduleId });
  });
});

describe("the happy paths, each audited", () => {
  it("enqueue → running → cancel kills the run; caps, budgets and the workspace timeout set and cleared", async () => {
    const q = (await call(
      "enqueueLaunch",
      {
        workspace: "demo",
        prompt: "long fake:hold=60000",
        label: "held",
        timeoutMs: HOUR,
        retry: { maxAttempts: 3, backoffMs: 500 },
      },
      LAUNCH,
      // An operator of demo: createdBy is the token's name.
      await h.createToken({ name: "q-demo-op", role: "OPERATOR", workspaces: ["demo"] }),
    )) as Enqueued;
    expect(q).toMatchObject({
      __typename: "EnqueueLaunchPayload",
      created: true,
      launch: { createdBy: "q-demo-op" },
    });
    const launchId = q.launch.launchId;
    const row = await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: launchId } });
    expect(row).toMatchObject({
      timeoutMs: HOUR,
      retryMaxAttempts: 3,
      retryBackoffMs: 500,
      retryMaxBackoffMs: 300_000,
      priority: 50,
    });
    const running = await waitFor(
      async () => {
        const l = await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: launchId } });
        return l.state === "RUNNING" && l.agentId ? l.agentId : null;
      },
      15_000,
      "launch running",
    );
    const cancel = await call(
      "cancelLaunch",
      { launchId },
      `... on CancelLaunchPayload { launch { state } }`,
    );
    expect(cancel).toMatchObject({ __typename: "CancelLaunchPayload", launch: { state: "CANCELLED" } });
    await waitFor(() => h.app.fleet.state.agent(running)?.status === "killed", 10_000, "run killed");

    const cap = await call(
      "setCap",
      { scope: "GLOBAL", max: 7 },
      `... on SetCapPayload { cap { scope key max } caps { scope key max } }`,
    );
    expect(cap).toMatchObject({ __typename: "SetCapPayload", cap: { scope: "GLOBAL", key: "", max: 7 } });
    expect(
      await h.app.db.prisma.cap.findUnique({ where: { scope_key: { scope: "GLOBAL", key: "" } } }),
    ).toMatchObject({
      max: 7,
      updatedBy: "admin",
    });
    const budget = await call(
      "setBudget",
      { scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: 12.5 },
      `... on SetBudgetPayload { budget { scope key period limitUsd spentUsd exhausted } budgets { key } }`,
    );
    expect(budget).toMatchObject({
      __typename: "SetBudgetPayload",
      budget: { scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: 12.5, exhausted: false },
      budgets: [{ key: "demo" }],
    });
    const noBudget = await call(
      "setBudget",
      { scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: null },
      `... on SetBudgetPayload { budget { key } budgets { key } }`,
    );
    expect(noBudget).toMatchObject({ __typename: "SetBudgetPayload", budget: null, budgets: [] });
    const timeout = await call(
      "setWorkspaceLaunchTimeout",
      { workspace: "demo", timeoutMs: 90_000 },
      `... on SetWorkspaceLaunchTimeoutPayload { workspace { name launchTimeoutMs } }`,
    );
    expect(timeout).toMatchObject({
      __typename: "SetWorkspaceLaunchTimeoutPayload",
      workspace: { name: "demo", launchTimeoutMs: 90_000 },
    });
    expect(
      (await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: "demo" } })).launchTimeoutMs,
    ).toBe(90_000);
    // A launch naming no timeout takes the workspace's.
    const def = (await call(
      "enqueueLaunch",
      { workspace: "demo", prompt: "quick", notBefore: later() },
      LAUNCH,
    )) as Enqueued;
    expect(
      (await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: def.launch.launchId } })).timeoutMs,
    ).toBe(90_000);
    await call("cancelLaunch", { launchId: def.launch.launchId });
    const cleared = await call(
      "setWorkspaceLaunchTimeout",
      { workspace: "demo", timeoutMs: null },
      `... on SetWorkspaceLaunchTimeoutPayload { workspace { launchTimeoutMs } }`,
    );
    expect(cleared).toMatchObject({ workspace: { launchTimeoutMs: null } });
    expect(
      (await h.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: "demo" } })).launchTimeoutMs,
    ).toBeNull();

    for (const [operation, result] of [
      ["enqueueLaunch", "EnqueueLaunchPayload"],
      ["cancelLaunch", "CancelLaunchPayload"],
      ["setCap", "SetCapPayload"],
      ["setBudget", "SetBudgetPayload"],
      ["setWorkspaceLaunchTimeout", "SetWorkspaceLaunchTimeoutPayload"],
    ] as const) {
      expect((await auditRows(operation)).at(-1), operation).toMatchObject({ result, denied: false });
    }
    // Each row names the workspace: a cancel names only the launch's id, a cap or budget its key.
    for (const operation of ["enqueueLaunch", "cancelLaunch", "setWorkspaceLaunchTimeout"]) {
      expect((await auditRows(operation)).at(-1), operation).toMatchObject({ workspace: "demo" });
    }
  });

  it("createSchedule → pause → resume → run now → delete", async () => {
    const SCHEDULE = `schedule { scheduleId name cron timeZone paused nextFireAt }`;
    const created = await call(
      "createSchedule",
      {
        name: "nightly",
        workspace: "demo",
        cron: "0 3 * * *",
        timeZone: "Europe/Paris",
        overlap: "QUEUE",
        template: { prompt: "quick", priority: 80, timeoutMs: 60_000, retry: { maxAttempts: 2 } },
      },
      `... on CreateSchedulePayload { ${SCHEDULE} }`,
    );
    expect(created).toMatchObject({
      __typename: "CreateSchedulePayload",
      schedule: { name: "nightly", cron: "0 3 * * *", timeZone: "Europe/Paris", paused: false },
    });
    const schedule = created["schedule"] as { scheduleId: string; nextFireAt: string | null };
    expect(schedule.nextFireAt).not.toBeNull();
    const scheduleId = schedule.scheduleId;
    const row = await h.app.db.prisma.schedule.findUniqueOrThrow({ where: { id: scheduleId } });
    expect(row).toMatchObject({ workspace: "demo", overlap: "QUEUE", missed: "SKIP", createdBy: "admin" });

    const paused = await call("pauseSchedule", { scheduleId }, `... on PauseSchedulePayload { ${SCHEDULE} }`);
    expect(paused).toMatchObject({ __typename: "PauseSchedulePayload", schedule: { paused: true } });
    const resumed = await call(
      "resumeSchedule",
      { scheduleId },
      `... on ResumeSchedulePayload { ${SCHEDULE} }`,
    );
    expect(resumed).toMatchObject({ __typename: "ResumeSchedulePayload", schedule: { paused: false } });
    const ran = await call(
      "runSchedule",
      { scheduleId },
      `... on RunSchedulePayload { schedule { scheduleId } launch { launchId priority } }`,
    );
    expect(ran).toMatchObject({
      __typename: "RunSchedulePayload",
      schedule: { scheduleId },
      launch: { priority: 80 },
    });
    const launchId = (ran["launch"] as { launchId: string }).launchId;
    expect(await h.app.db.prisma.launch.findUniqueOrThrow({ where: { id: launchId } })).toMatchObject({
      scheduleId,
      timeoutMs: 60_000,
      retryMaxAttempts: 2,
    });
    const deleted = await call(
      "deleteSchedule",
      { scheduleId },
      `... on DeleteSchedulePayload { schedule { scheduleId } }`,
    );
    expect(deleted).toMatchObject({ __typename: "DeleteSchedulePayload", schedule: { scheduleId } });
    expect(
      (await h.app.db.prisma.schedule.findUniqueOrThrow({ where: { id: scheduleId } })).deletedAt,
    ).not.toBeNull();

    for (const [operation, result] of [
      ["createSchedule", "CreateSchedulePayload"],
      ["pauseSchedule", "PauseSchedulePayload"],
      ["resumeSchedule", "ResumeSchedulePayload"],
      ["runSchedule", "RunSchedulePayload"],
      ["deleteSchedule", "DeleteSchedulePayload"],
    ] as const) {
      // Each row names the schedule's workspace, also when the input named only the schedule's id.
      expect((await auditRows(operation)).at(-1), operation).toMatchObject({
        result,
        denied: false,
        tokenName: "admin",
        workspace: "demo",
      });
    }
  });
});
