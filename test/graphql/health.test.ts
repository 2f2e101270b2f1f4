// The health monitor through the API (issue 15 item 2), on a real gateway (in-process, real port,
// real SQLite, the caliband double's "demo" workspace, the real disk): `health` answers the last
// round (running one first when asked or when none ran), each token sees only what its scope
// allows; `setHealthThreshold` is for admins not limited to workspaces, refuses out-of-range values
// as a ValidationError that changes nothing, and every call is audited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { HEALTH_CHECKS } from "../../src/attention/thresholds.js";

let h: AppHarness;
let viewer: string;
let demoViewer: string;
let outsiderViewer: string;
let operator: string;
let demoAdmin: string;

beforeAll(async () => {
  // The gateway's own rounds every hour: the first `health` question runs the first round.
  h = await startAppHarness({ config: { healthIntervalMs: "3600000" } });
  viewer = await h.createToken({ name: "h-viewer", role: "VIEWER" });
  demoViewer = await h.createToken({ name: "h-demo-viewer", role: "VIEWER", workspaces: ["demo"] });
  outsiderViewer = await h.createToken({ name: "h-outsider", role: "VIEWER", workspaces: ["elsewhere"] });
  operator = await h.createToken({ name: "h-operator", role: "OPERATOR" });
  demoAdmin = await h.createToken({ name: "h-demo-admin", role: "ADMIN", workspaces: ["demo"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const RESULT_FIELDS = `check subject workspace { name } ok value threshold unit message since`;
const HEALTH = `query($refresh: Boolean) { health(refresh: $refresh) {
  ok checkedAt
  results { ${RESULT_FIELDS} }
  failing { ${RESULT_FIELDS} }
  thresholds { check value defaultValue min max unit isDefault description }
} }`;

interface Result {
  check: string;
  subject: string | null;
  workspace: { name: string } | null;
  ok: boolean;
  value: number | null;
  threshold: number;
  unit: string;
  message: string;
  since: string | null;
}
interface Threshold {
  check: string;
  value: number;
  defaultValue: number;
  min: number;
  max: number;
  unit: string;
  isDefault: boolean;
  description: string;
}
interface Health {
  ok: boolean;
  checkedAt: string | null;
  results: Result[];
  failing: Result[];
  thresholds: Threshold[];
}

async function health(token?: string, refresh?: boolean): Promise<Health> {
  const r = await h.gql<{ health: Health }>(HEALTH, refresh === undefined ? {} : { refresh }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!.health;
}

const SET = `mutation($input: SetHealthThresholdInput!) { setHealthThreshold(input: $input) {
  __typename
  ... on SetHealthThresholdPayload { threshold { check value defaultValue isDefault unit } }
  ... on Error { code message }
  ... on ValidationError { fieldErrors { path message } }
  ... on ForbiddenError { requiredRole }
} }`;

type SetResult = {
  __typename: string;
  threshold?: Partial<Threshold>;
  code?: string;
  message?: string;
  fieldErrors?: { path: string[]; message: string }[];
  requiredRole?: string;
};

async function setThreshold(input: Record<string, unknown>, token?: string): Promise<SetResult> {
  const r = await h.gql<{ setHealthThreshold: SetResult }>(SET, { input }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data!.setHealthThreshold;
}

const lastAudit = async () =>
  h.app.db.prisma.auditEntry.findFirstOrThrow({
    where: { operation: "setHealthThreshold" },
    orderBy: { id: "desc" },
  });

describe("health", () => {
  it("answers every check's result and every threshold; the first question runs a round", async () => {
    expect(h.app.monitor.report().checkedAt).toBeNull();
    const hl = await health();
    expect(hl.checkedAt).not.toBeNull();
    expect(new Set(hl.results.map((r) => r.check))).toEqual(
      new Set(HEALTH_CHECKS.filter((c) => c.id !== "agent_stuck").map((c) => c.id.toUpperCase())),
    );
    const daemon = hl.results.find((r) => r.check === "DAEMON_UNREACHABLE")!;
    expect(daemon).toMatchObject({
      check: "DAEMON_UNREACHABLE",
      subject: "demo",
      workspace: { name: "demo" },
      ok: true,
      threshold: 60_000,
      unit: "ms",
      since: null,
    });
    // Reachable (or, on a loaded machine, a poll that just missed its deadline: not for long).
    expect(daemon.message).toMatch(
      /^daemon of workspace demo (reachable$|unreachable for .+ \(threshold 1 min\)$)/,
    );
    const data = hl.results.find((r) => r.check === "DATA_DISK_FREE")!;
    expect(data).toMatchObject({ subject: null, workspace: null, unit: "bytes", threshold: 1024 ** 3 });
    // Measured on this machine's disk.
    expect(data.value).toBeGreaterThan(0);
    expect(hl.results.find((r) => r.check === "DATABASE_SIZE")!.value).toBeGreaterThan(0);
    expect(hl.failing).toEqual(hl.results.filter((r) => !r.ok));
    expect(hl.ok).toBe(hl.failing.length === 0);
    expect(hl.thresholds).toEqual(
      HEALTH_CHECKS.map((c) => ({
        check: c.id.toUpperCase(),
        value: c.defaultValue,
        defaultValue: c.defaultValue,
        min: c.min,
        max: c.max,
        unit: c.unit,
        isDefault: true,
        description: c.description,
      })),
    );
    // Without refresh, the same round again; with it, a new one.
    expect((await health()).checkedAt).toBe(hl.checkedAt);
    await new Promise((r) => setTimeout(r, 5));
    const fresh = await health(undefined, true);
    expect(Date.parse(fresh.checkedAt!)).toBeGreaterThan(Date.parse(hl.checkedAt!));
  });

  it("a token limited to workspaces sees its workspaces' results only, not fleet-wide ones", async () => {
    const all = await health(viewer);
    expect(all.results.some((r) => r.workspace === null)).toBe(true);
    const demo = await health(demoViewer);
    expect(demo.results.length).toBeGreaterThan(0);
    expect(demo.results.every((r) => r.workspace?.name === "demo")).toBe(true);
    expect(demo.results).toEqual(all.results.filter((r) => r.workspace?.name === "demo"));
    const outsider = await health(outsiderViewer);
    expect(outsider.results).toEqual([]);
    expect(outsider.ok).toBe(true);
    // Thresholds are the same for everyone.
    expect(outsider.thresholds).toEqual(all.thresholds);
  });
});

describe("setHealthThreshold", () => {
  it("an admin sets a threshold (in force at the next round) and returns it to the default; both audited", async () => {
    const r = await setThreshold({ check: "AGENT_STUCK", value: 1_200_000 });
    expect(r).toEqual({
      __typename: "SetHealthThresholdPayload",
      threshold: {
        check: "AGENT_STUCK",
        value: 1_200_000,
        defaultValue: 600_000,
        isDefault: false,
        unit: "ms",
      },
    });
    expect(await lastAudit()).toMatchObject({
      result: "SetHealthThresholdPayload",
      denied: false,
      tokenName: "admin",
    });
    expect((await health()).thresholds.find((t) => t.check === "AGENT_STUCK")).toMatchObject({
      value: 1_200_000,
      isDefault: false,
    });
    await setThreshold({ check: "DAEMON_UNREACHABLE", value: 120_000 });
    const next = await health(undefined, true);
    expect(next.results.find((x) => x.check === "DAEMON_UNREACHABLE")?.threshold).toBe(120_000);

    const back = await setThreshold({ check: "AGENT_STUCK", value: null });
    expect(back.threshold).toMatchObject({ value: 600_000, isDefault: true });
    expect(await h.app.db.prisma.healthThreshold.findUnique({ where: { check: "agent_stuck" } })).toBeNull();
    await setThreshold({ check: "DAEMON_UNREACHABLE" });
    expect(h.app.monitor.thresholds().every((t) => t.isDefault)).toBe(true);
  });

  it("a value out of range or an unknown check is a ValidationError naming the field; nothing changes", async () => {
    await setThreshold({ check: "QUEUE_WAIT", value: 3_600_000 });
    const before = await h.app.db.prisma.healthThreshold.findMany();
    const low = await setThreshold({ check: "QUEUE_WAIT", value: 5 });
    expect(low).toMatchObject({ __typename: "ValidationError", code: "BAD_USER_INPUT" });
    expect(low.fieldErrors).toEqual([
      {
        path: ["input", "value"],
        message: "must be a whole number from 1000 to 2592000000 (ms) for queue_wait",
      },
    ]);
    expect(await lastAudit()).toMatchObject({ result: "BAD_USER_INPUT", denied: false });
    // Whole numbers only: 100.5 events/h would be shown as one value and compared as another.
    const fractional = await setThreshold({ check: "EVENT_GROWTH", value: 100.5 });
    expect(fractional).toMatchObject({ __typename: "ValidationError", code: "BAD_USER_INPUT" });
    expect(fractional.fieldErrors?.map((f) => f.path)).toEqual([["input", "value"]]);
    const unknown = await setThreshold({ check: "UNKNOWN", value: 5 });
    expect(unknown).toMatchObject({ __typename: "ValidationError", code: "BAD_USER_INPUT" });
    expect(unknown.fieldErrors?.map((f) => f.path)).toEqual([["input", "check"]]);
    expect(await h.app.db.prisma.healthThreshold.findMany()).toEqual(before);
    expect(h.app.monitor.thresholds().find((t) => t.check === "queue_wait")?.value).toBe(3_600_000);
    await setThreshold({ check: "QUEUE_WAIT", value: null });
  });

  it("an operator, and an admin limited to workspaces, are refused (FORBIDDEN, audited as denied)", async () => {
    const before = await h.app.db.prisma.healthThreshold.findMany();
    const op = await setThreshold({ check: "EVENT_GROWTH", value: 500 }, operator);
    expect(op).toMatchObject({ __typename: "ForbiddenError", code: "FORBIDDEN", requiredRole: "ADMIN" });
    expect(await lastAudit()).toMatchObject({ result: "FORBIDDEN", denied: true, tokenName: "h-operator" });
    const limited = await setThreshold({ check: "EVENT_GROWTH", value: 500 }, demoAdmin);
    expect(limited).toMatchObject({ __typename: "ForbiddenError", code: "FORBIDDEN" });
    expect(limited.message).toMatch(/not limited to workspaces/);
    expect(await lastAudit()).toMatchObject({ result: "FORBIDDEN", denied: true, tokenName: "h-demo-admin" });
    expect(await h.app.db.prisma.healthThreshold.findMany()).toEqual(before);
  });
});
