/**
 * `prospero doctor` and `prospero health set` (issue 15 item 2) as the real `bin/prospero.js`
 * against a real gateway (in-process, real port, real SQLite, the caliband double's "demo"
 * workspace): exit 0 on a healthy gateway, 1 with a failing check (a threshold set through
 * `health set` that no disk can meet), failing results first, `--json`; thresholds read in the
 * check's unit; bad values refused (exit 2) with nothing changed; the usual exit codes when the
 * gateway cannot be reached (5) or the token is refused (6). Plus the value parsers (pure).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "commander";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { cli, closedPort } from "./run-cli.js";
import { CliError } from "../../src/cli/exit.js";
import {
  bytes,
  measuredText,
  parseCheck,
  parseThreshold,
  thresholdText,
} from "../../src/cli/commands/doctor.js";
import { HEALTH_CHECKS, healthCheck } from "../../src/attention/thresholds.js";

const GiB = 1024 ** 3;
const PiB = 1024 ** 5;

describe("command-line values of health set", () => {
  const disk = healthCheck("data_disk_free")!;
  const stuck = healthCheck("agent_stuck")!;
  const growth = healthCheck("event_growth")!;

  it("sizes for bytes checks, durations for ms checks, whole numbers for events/h; default", () => {
    expect(
      ["512MiB", "2GiB", "2 GiB", "1.5gib", "1PiB", "0", "4096", "default", " Default "].map((v) =>
        parseThreshold(disk, v),
      ),
    ).toEqual([512 * 1024 ** 2, 2 * GiB, 2 * GiB, 1.5 * GiB, PiB, 0, 4096, null, null]);
    expect(["2m", "1h", "90s", "1d", "600000"].map((v) => parseThreshold(stuck, v))).toEqual([
      120_000, 3_600_000, 90_000, 86_400_000, 600_000,
    ]);
    expect(parseThreshold(growth, "5000")).toBe(5000);
  });

  it("refuses another form, a unit the check does not take, or a value outside its range", () => {
    for (const [spec, bad] of [
      [disk, "2GB"],
      [disk, "lots"],
      [disk, "1.5"],
      [disk, "-1GiB"],
      [disk, "2PiB"],
      [stuck, "5GiB"],
      [stuck, "1s"],
      [stuck, "8d"],
      [growth, "1h"],
      [growth, "5k"],
      [growth, "10"],
    ] as const) {
      expect(() => parseThreshold(spec, bad), `${spec.id} ${bad}`).toThrow(CliError);
    }
    expect(() => parseThreshold(disk, "2PiB")).toThrow(
      'the threshold of data_disk_free must be from 0 B to 1 PiB, got "2PiB"',
    );
    expect(() => parseThreshold(stuck, "5GiB")).toThrow(/must be a duration \(90s, 2m, 1h, 1d/);
  });

  it("checks by id, any case, - for _; units shown as people read them", () => {
    expect(parseCheck("DATA-disk_free").id).toBe("data_disk_free");
    expect(() => parseCheck("disk")).toThrow(InvalidArgumentError);
    expect(() => parseCheck("disk")).toThrow(/one of daemon_unreachable, agent_stuck, /);
    expect([bytes(512), bytes(1536), bytes(GiB), bytes(PiB)]).toEqual(["512 B", "1.5 KiB", "1 GiB", "1 PiB"]);
    // Thresholds as health set takes them back; measured durations as elsewhere in the CLI.
    expect([60_000, 90_000, 7 * 86_400_000, 1500, 0].map((v) => thresholdText(v, "ms"))).toEqual([
      "1m",
      "90s",
      "7d",
      "1500ms",
      "0ms",
    ]);
    expect([thresholdText(1_000_000, "events/h"), measuredText(185_000, "ms")]).toEqual([
      "1,000,000/h",
      "3m 05s",
    ]);
  });
});

let h: AppHarness;
beforeAll(async () => {
  // The disk checks would depend on this machine's free space: thresholds of 0 always pass.
  h = await startAppHarness({
    config: { healthThresholds: ["data_disk_free=0", "workspace_disk_free=0"] },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

interface HealthJson {
  health: {
    ok: boolean;
    results: { check: string; ok: boolean; message: string; threshold: number }[];
    failing: { check: string; ok: boolean }[];
    thresholds: { check: string; value: number; isDefault: boolean }[];
  };
}

/** The stored threshold of `check` as the monitor has it. */
const thresholdOf = (check: string) => h.app.monitor.thresholds().find((t) => t.check === check);

describe("prospero doctor", () => {
  it("a healthy gateway: exit 0, every result ok, the thresholds", async () => {
    const r = await cli(h.url, ["doctor"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // Counted by the catalogue (nine checks), not by result rows: agent_stuck has none without a
    // running agent, and passes.
    expect(HEALTH_CHECKS).toHaveLength(9);
    expect(r.stdout).toMatch(/^healthy: all 9 checks pass \(\d+ results\) · checked \S+ \(\d+s ago\)$/m);
    expect(r.stdout).toMatch(
      /^ok\s+agent_stuck\s+none\s+—\s+10m\s+—\s+no running agents: nothing to check$/m,
    );
    expect(r.stdout).not.toMatch(/FAIL/);
    expect(r.stdout).toMatch(/^thresholds$/m);
    expect(r.stdout).toMatch(/^CHECK\s+THRESHOLD\s+DEFAULT\s+RANGE\s+WHAT IT WATCHES$/m);
    expect(r.stdout).toMatch(/^daemon_unreachable\s+1m\s+\(default\)\s+1s … 7d\s+A workspace's caliband/m);
    expect(r.stdout).toMatch(/^data_disk_free\s+0 B\s+1 GiB\s+0 B … 1 PiB\s+Free space/m);
    const j = await cli(h.url, ["doctor", "--json"]);
    expect(j.code).toBe(0);
    const data = JSON.parse(j.stdout) as HealthJson;
    expect(data.health.ok).toBe(true);
    expect(data.health.failing).toEqual([]);
    expect(data.health.thresholds.map((t) => t.check)).toContain("DATA_DISK_FREE");
  });

  it("health set data_disk_free to its maximum: doctor exits 1 with it failing, listed first", async () => {
    const set = await cli(h.url, ["health", "set", "data_disk_free", "1PiB"]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^threshold data_disk_free set to 1 PiB \(default 1 GiB; fails below it\)$/m);
    expect(thresholdOf("data_disk_free")).toMatchObject({ value: PiB, isDefault: false });

    const r = await cli(h.url, ["doctor"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^1 of 9 checks failing \(1 of \d+ results\) · checked /);
    const rows = r.stdout.split("\n");
    const head = rows.findIndex((l) => /^\s+CHECK\s+SUBJECT\s+VALUE\s+THRESHOLD\s+SINCE\s+MESSAGE$/.test(l));
    expect(head).toBeGreaterThanOrEqual(0);
    expect(rows[head + 1]).toMatch(/^FAIL\s+data_disk_free\s+\S+\s+\S+ \S+\s+1 PiB\s+\S+/);
    expect(rows.slice(head + 2).filter((l) => /^FAIL\s/.test(l))).toEqual([]);
    expect(rows.slice(head + 2).some((l) => /^ok\s+daemon_unreachable\s/.test(l))).toBe(true);
    expect(r.stdout).toMatch(/^data_disk_free\s+1 PiB\s+1 GiB\s/m);

    const j = await cli(h.url, ["doctor", "--json"]);
    expect(j.code).toBe(1);
    const data = JSON.parse(j.stdout) as HealthJson;
    expect(data.health.ok).toBe(false);
    expect(data.health.failing.map((f) => f.check)).toEqual(["DATA_DISK_FREE"]);
  });

  it("health set <check> default puts the default back", async () => {
    const r = await cli(h.url, ["health", "set", "data-disk-free", "default"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^threshold data_disk_free is its default, 1 GiB \(fails below it\)$/m);
    expect(thresholdOf("data_disk_free")).toMatchObject({ value: GiB, isDefault: true });
    const back = await cli(h.url, ["health", "set", "data_disk_free", "0", "--json"]);
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({
      setHealthThreshold: {
        __typename: "SetHealthThresholdPayload",
        threshold: { value: 0, isDefault: false },
      },
    });
    expect((await cli(h.url, ["doctor"])).code).toBe(0);
  });

  it("bad values are refused before anything is sent (exit 2); nothing changes", async () => {
    const before = h.app.monitor.thresholds();
    for (const [args, message] of [
      [["health", "set", "data_disk_free", "2PiB"], /must be from 0 B to 1 PiB, got "2PiB"/],
      [["health", "set", "agent_stuck", "5GiB"], /the threshold of agent_stuck must be a duration/],
      [["health", "set", "disk", "1GiB"], /unknown health check "disk" \(one of daemon_unreachable/],
      [["health", "set", "queue_wait"], /missing required argument/],
    ] as const) {
      const r = await cli(h.url, [...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(message);
      expect(r.stdout).toBe("");
    }
    expect(h.app.monitor.thresholds()).toEqual(before);
  });

  it("a token limited to workspaces: the checks it sees are counted, the fleet-wide ones named as not shown", async () => {
    const demo = await h.createToken({ name: "doctor-viewer-demo", role: "VIEWER", workspaces: ["demo"] });
    const r = await cli(h.url, ["doctor"], { PROSPERO_TOKEN: demo });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^healthy: all 4 checks visible to this token pass \(3 results\) · checked /);
    expect(r.stdout).toMatch(
      /^ok\s+agent_stuck\s+none\s+.*no running agents in its workspaces: nothing to check$/m,
    );
    expect(r.stdout).toMatch(
      /^not shown: the fleet-wide checks \(ingest_lag, queue_wait, data_disk_free, database_size, event_growth\) need a token not limited to workspaces; this one is limited to workspace demo$/m,
    );
    expect(r.stdout).not.toMatch(/^ok\s+data_disk_free\s/m);
  });

  it("a token limited to a workspace that does not exist sees no check, and is told so (not 'all 0 checks pass')", async () => {
    const ghost = await h.createToken({ name: "doctor-viewer-ghost", role: "VIEWER", workspaces: ["ghost"] });
    const r = await cli(h.url, ["doctor"], { PROSPERO_TOKEN: ghost });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^no checks visible to this token: it is limited to workspace ghost, which is not registered · checked /,
    );
    expect(r.stdout).not.toMatch(/all 0 checks|healthy/);
    expect(r.stdout).not.toMatch(/^\s+CHECK\s+SUBJECT/m);
  });

  it("a viewer may run doctor but not set a threshold (exit 6)", async () => {
    const viewer = await h.createToken({ name: "doctor-viewer", role: "VIEWER" });
    const d = await cli(h.url, ["doctor"], { PROSPERO_TOKEN: viewer });
    expect(d.code).toBe(0);
    const before = h.app.monitor.thresholds();
    const s = await cli(h.url, ["health", "set", "queue_wait", "1h"], { PROSPERO_TOKEN: viewer });
    expect(s.code).toBe(6);
    expect(h.app.monitor.thresholds()).toEqual(before);
  });

  it("an admin limited to a workspace may not set a threshold (exit 6), told that thresholds need an unlimited admin", async () => {
    const limited = await h.createToken({ name: "doctor-admin-demo", role: "ADMIN", workspaces: ["demo"] });
    const before = h.app.monitor.thresholds();
    const s = await cli(h.url, ["health", "set", "queue_wait", "1h"], { PROSPERO_TOKEN: limited });
    expect(s.code).toBe(6);
    expect(s.stdout).toBe("");
    expect(s.stderr).toMatch(
      /needs an admin token not limited to workspaces \(.*\bhealth thresholds\b.*\); token doctor-admin-demo is limited/,
    );
    expect(h.app.monitor.thresholds()).toEqual(before);
  });

  it("an unreachable gateway exits 5, a refused token 6", async () => {
    const port = await closedPort();
    const down = await cli(`http://127.0.0.1:${port}`, ["doctor"], { PROSPERO_TOKEN: h.token });
    expect(down.code).toBe(5);
    expect(down.stdout).toBe("");
    expect(down.stderr).toMatch(/^prospero: .*127\.0\.0\.1:\d+/);
    const refused = await cli(h.url, ["doctor"], { PROSPERO_TOKEN: "prospero_not-a-real-token" });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/give a token with --token or PROSPERO_TOKEN/);
  });
});
