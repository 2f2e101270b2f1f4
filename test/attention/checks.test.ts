// The health checks' judging (src/attention/checks.ts): readings and a threshold in, the result a
// person reads in `health` / `prospero doctor` out. Pure functions: no clock, no disk, no database.
import { describe, expect, it } from "vitest";
import {
  alertTitle,
  checkAgentStuck,
  checkDaemonUnreachable,
  checkDatabaseSize,
  checkDiskFree,
  checkEventGrowth,
  checkIngestLag,
  checkQueueWait,
  checkWorktreesUsed,
  clearedMessage,
  formatBytes,
  formatMs,
  unmeasured,
} from "../../src/attention/checks.js";
import { HEALTH_CHECKS } from "../../src/attention/thresholds.js";

const MIN = 60_000;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const T0 = Date.parse("2026-12-01T10:00:00Z");

describe("figures for people", () => {
  it("durations and byte counts read as a person would say them", () => {
    expect([850, 42_000, 3 * MIN, 125 * MIN, 3 * 24 * 60 * MIN + 4 * 60 * MIN, -5].map(formatMs)).toEqual([
      "850 ms",
      "42 s",
      "3 min",
      "2 h 5 min",
      "3 d 4 h",
      "0 ms",
    ]);
    expect([512, 1536, 8 * MiB, GiB, 1.5 * 1024 * GiB].map(formatBytes)).toEqual([
      "512 B",
      "1.5 KiB",
      "8.0 MiB",
      "1.0 GiB",
      "1.5 TiB",
    ]);
  });
});

describe("daemon_unreachable", () => {
  const down = (ms: number) =>
    checkDaemonUnreachable(
      { workspace: "demo", state: "unreachable", reason: "connect ECONNREFUSED", sinceMs: T0 },
      T0 + ms,
      MIN,
    );

  it("fails once the daemon has been unreachable longer than the threshold, failing since it crossed it", () => {
    expect(down(3 * MIN)).toEqual({
      check: "daemon_unreachable",
      subject: "demo",
      workspace: "demo",
      ok: false,
      value: 3 * MIN,
      threshold: MIN,
      message: "daemon of workspace demo unreachable for 3 min (threshold 1 min): connect ECONNREFUSED",
      since: new Date(T0 + MIN),
    });
  });

  it("passes while within the threshold (at it too), and when healthy or not polled yet", () => {
    expect(down(30_000)).toMatchObject({ ok: true, value: 30_000, since: null });
    expect(down(MIN)).toMatchObject({ ok: true, value: MIN });
    const healthy = checkDaemonUnreachable(
      { workspace: "demo", state: "healthy", reason: null, sinceMs: T0 },
      T0 + 9 * MIN,
      MIN,
    );
    expect(healthy).toMatchObject({ ok: true, value: 0, message: "daemon of workspace demo reachable" });
    const unknown = checkDaemonUnreachable(
      { workspace: "demo", state: "unknown", reason: null, sinceMs: T0 },
      T0 + 9 * MIN,
      MIN,
    );
    expect(unknown).toMatchObject({ ok: true, value: 0, message: "daemon of workspace demo not polled yet" });
  });
});

describe("agent_stuck", () => {
  const agent = { agentId: "a1b2c3d4e5f6", workspace: "demo", name: "fixer", lastEventAtMs: T0 };

  it("fails for a running agent quiet longer than the threshold", () => {
    const r = checkAgentStuck({ ...agent, interactive: false, cleanTurnEnd: false }, T0 + 11 * MIN, 10 * MIN);
    expect(r).toMatchObject({
      check: "agent_stuck",
      subject: "a1b2c3d4e5f6",
      workspace: "demo",
      ok: false,
      value: 11 * MIN,
      since: new Date(T0 + 10 * MIN),
    });
    expect(r.message).toBe(
      "agent fixer (a1b2c3d4e5f6) of workspace demo is running but produced no event for 11 min (threshold 10 min); look at its worker log, send it input or kill it",
    );
    expect(alertTitle(r)).toBe("Agent a1b2c3d4e5f6 of workspace demo looks stuck");
  });

  it("an interactive agent whose last event ended its turn cleanly is about to go idle: not stuck", () => {
    const r = checkAgentStuck({ ...agent, interactive: true, cleanTurnEnd: true }, T0 + 60 * MIN, 10 * MIN);
    expect(r).toMatchObject({ ok: true, value: 60 * MIN, since: null });
    expect(r.message).toBe(
      "agent fixer (a1b2c3d4e5f6) of workspace demo ended its turn cleanly 1 h ago and waits to go idle",
    );
  });

  it("a clean end of turn does not excuse a non-interactive agent (it should have finished)", () => {
    const r = checkAgentStuck({ ...agent, interactive: false, cleanTurnEnd: true }, T0 + 60 * MIN, 10 * MIN);
    expect(r.ok).toBe(false);
  });
});

describe("queue_wait", () => {
  it("fails when the oldest ready launch waited longer than the threshold, saying why it waits", () => {
    const q = {
      launchId: "0123456789ab",
      workspace: "demo",
      readyAtMs: T0,
      reason: "cap global: 0 of 0 runs in use",
    };
    const r = checkQueueWait(q, T0 + 16 * MIN, 15 * MIN);
    expect(r).toMatchObject({
      ok: false,
      subject: null,
      workspace: null,
      value: 16 * MIN,
      since: new Date(T0 + 15 * MIN),
    });
    expect(r.message).toBe(
      "launch 0123456789ab of workspace demo has waited 16 min to run (threshold 15 min): cap global: 0 of 0 runs in use; raise the cap or cancel launches",
    );
    expect(checkQueueWait(q, T0 + 14 * MIN, 15 * MIN).ok).toBe(true);
  });

  it("passes with nothing waiting", () => {
    expect(checkQueueWait(null, T0, 1_000)).toMatchObject({
      ok: true,
      value: 0,
      message: "no launch waits to run",
    });
  });
});

describe("disk, database, ingest and growth checks", () => {
  it("free space fails below the threshold (at it passes)", () => {
    const low = checkDiskFree("data_disk_free", null, "/var/lib/prospero", 512 * MiB, GiB);
    expect(low).toMatchObject({
      check: "data_disk_free",
      subject: null,
      workspace: null,
      ok: false,
      value: 512 * MiB,
    });
    expect(low.message).toBe(
      "512.0 MiB free on the filesystem of the data dir /var/lib/prospero (threshold 1.0 GiB); free some space",
    );
    expect(checkDiskFree("data_disk_free", null, "/d", GiB, GiB).ok).toBe(true);
    const ws = checkDiskFree("workspace_disk_free", "demo", "/src/demo", 10 * MiB, GiB);
    expect(ws).toMatchObject({ subject: "demo", workspace: "demo", ok: false });
    expect(ws.message).toContain("workspace demo (/src/demo)");
  });

  it("worktrees fail above the threshold; a count stopped at the limit reads as a lower bound", () => {
    const r = checkWorktreesUsed("demo", 10 * GiB + 1, true, 10 * GiB);
    expect(r).toMatchObject({ ok: false, subject: "demo", workspace: "demo" });
    expect(r.message).toMatch(/use more than 10\.0 GiB \(threshold 10\.0 GiB\)/);
    expect(checkWorktreesUsed("demo", 3 * GiB, false, 10 * GiB)).toMatchObject({
      ok: true,
      message: "isolated worktrees of workspace demo use 3.0 GiB",
    });
  });

  it("database size, ingest lag and event growth fail above the threshold only", () => {
    expect(checkDatabaseSize(5 * GiB, 4 * GiB)).toMatchObject({ ok: false, value: 5 * GiB });
    expect(checkDatabaseSize(4 * GiB, 4 * GiB).ok).toBe(true);
    expect(checkIngestLag(9 * MiB, 8 * MiB)).toMatchObject({ ok: false, subject: null });
    expect(checkIngestLag(0, 8 * MiB)).toMatchObject({ ok: true, message: "ingest lag 0 B" });
    expect(checkEventGrowth(1_000_001, 1_000_000).ok).toBe(false);
    expect(checkEventGrowth(1_000_000, 1_000_000)).toMatchObject({
      ok: true,
      message: "1000000 events stored in the last hour",
    });
  });
});

describe("unmeasured and cleared", () => {
  it("a reading that failed passes without a value and says why, on one line", () => {
    const r = unmeasured("workspace_disk_free", "demo", "demo", GiB, "ENOENT: no such file\n    at statfs");
    expect(r).toEqual({
      check: "workspace_disk_free",
      subject: "demo",
      workspace: "demo",
      ok: true,
      value: null,
      threshold: GiB,
      message: "workspace_disk_free (demo) could not be measured: ENOENT: no such file",
      since: null,
    });
  });

  it("every check has a title, and the clearing reason names the check and what is true now", () => {
    for (const c of HEALTH_CHECKS) {
      const title = alertTitle({ ...unmeasured(c.id, "demo", "demo", 1, "x") });
      expect(title, c.id).not.toMatch(/^Health check/);
    }
    const ok = checkDaemonUnreachable(
      { workspace: "demo", state: "healthy", reason: null, sinceMs: T0 },
      T0,
      MIN,
    );
    expect(clearedMessage(ok)).toBe("daemon_unreachable cleared: daemon of workspace demo reachable");
  });
});
