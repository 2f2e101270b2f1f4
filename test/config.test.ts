import { describe, expect, it } from "vitest";
import { resolveConfig, defaultDataDir } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

describe("config", () => {
  it("defaults: 127.0.0.1:7878, data dir under XDG_DATA_HOME or ~/.local/share", () => {
    const cfg = resolveConfig({}, { HOME: "/home/op" });
    expect(cfg).toMatchObject({
      bind: "127.0.0.1",
      port: 7878,
      pollIntervalMs: 2000,
      autostart: true,
      retentionDays: 0,
    });
    expect(cfg.dataDir).toBe("/home/op/.local/share/prospero");
    expect(defaultDataDir({ HOME: "/home/op", XDG_DATA_HOME: "/xdg" })).toBe("/xdg/prospero");
    // A relative XDG_DATA_HOME is invalid per the XDG spec and ignored.
    expect(defaultDataDir({ HOME: "/home/op", XDG_DATA_HOME: "rel" })).toBe("/home/op/.local/share/prospero");
  });

  it("flags win over PROSPERO_* env, env over defaults; empty env values are ignored", () => {
    const env = { HOME: "/h", PROSPERO_PORT: "9000", PROSPERO_BIND: "", PROSPERO_DATA_DIR: "/env/data" };
    expect(resolveConfig({}, env)).toMatchObject({ port: 9000, bind: "127.0.0.1", dataDir: "/env/data" });
    expect(resolveConfig({ port: "0", dataDir: "/flag/data" }, env)).toMatchObject({
      port: 0,
      dataDir: "/flag/data",
    });
    expect(resolveConfig({ autostart: false }, { HOME: "/h" }).autostart).toBe(false);
    expect(resolveConfig({}, { HOME: "/h", PROSPERO_AUTOSTART: "false" }).autostart).toBe(false);
  });

  it.each([
    [{ port: "70000" }, {}, /--port \/ PROSPERO_PORT.*integer port 0–65535/],
    [{}, { PROSPERO_PORT: "http" }, /--port \/ PROSPERO_PORT.*"http" from PROSPERO_PORT/],
    [{ logLevel: "loud" }, {}, /--log-level \/ PROSPERO_LOG_LEVEL.*one of trace, debug/],
    [{}, { PROSPERO_POLL_INTERVAL_MS: "5" }, /PROSPERO_POLL_INTERVAL_MS.*50–3600000/],
    [{}, { PROSPERO_AUTOSTART: "maybe" }, /PROSPERO_AUTOSTART.*true or false/],
    [{ retentionDays: "-1" }, {}, /--retention-days/],
  ])("a bad value names the setting and the accepted form (%j %j)", (flags, env, message) => {
    expect(() => resolveConfig(flags, { HOME: "/h", ...env })).toThrow(ConfigError);
    expect(() => resolveConfig(flags, { HOME: "/h", ...env })).toThrow(message);
  });

  it("--caliband-credentials-dir: absolute dirs (':'-separated in the env); one that is or holds the data dir is refused", () => {
    expect(resolveConfig({}, { HOME: "/h" }).calibandCredentialsDirs).toEqual([]);
    expect(
      resolveConfig(
        {},
        { HOME: "/h", PROSPERO_CALIBAND_CREDENTIALS_DIRS: "/etc/prospero/calibands:/srv/creds/" },
      ).calibandCredentialsDirs,
    ).toEqual(["/etc/prospero/calibands", "/srv/creds"]);
    // Inside the data dir is fine (the default is <data dir>/calibands).
    expect(
      resolveConfig({ dataDir: "/d/data", calibandCredentialsDirs: ["/d/data/calibands"] }, { HOME: "/h" })
        .calibandCredentialsDirs,
    ).toEqual(["/d/data/calibands"]);
    for (const dir of ["/d/data", "/d", "/"])
      expect(() =>
        resolveConfig({ dataDir: "/d/data", calibandCredentialsDirs: [dir] }, { HOME: "/h" }),
      ).toThrow(/--caliband-credentials-dir .*holds the data dir \/d\/data/);
    expect(() => resolveConfig({ calibandCredentialsDirs: ["relative"] }, { HOME: "/h" })).toThrow(
      ConfigError,
    );
  });

  it("--metrics-bind: a loopback host:port (IPv4, [::1], localhost), from the flag or PROSPERO_METRICS_BIND", () => {
    expect(resolveConfig({}, { HOME: "/h" }).metricsBind).toBeNull();
    expect(resolveConfig({ metricsBind: "127.0.0.1:9464" }, { HOME: "/h" }).metricsBind).toEqual({
      host: "127.0.0.1",
      port: 9464,
    });
    expect(resolveConfig({ metricsBind: "[::1]:9464" }, { HOME: "/h" }).metricsBind).toEqual({
      host: "::1",
      port: 9464,
    });
    expect(resolveConfig({}, { HOME: "/h", PROSPERO_METRICS_BIND: "localhost:9100" }).metricsBind).toEqual({
      host: "localhost",
      port: 9100,
    });
  });

  it.each([
    [{ metricsBind: "0.0.0.0:9464" }, {}],
    [{ metricsBind: "192.168.1.10:9464" }, {}],
    [{ metricsBind: "[::]:9464" }, {}],
    [{ metricsBind: "metrics.example.com:9464" }, {}],
    [{}, { PROSPERO_METRICS_BIND: "10.0.0.1:9464" }],
    [{ metricsBind: "127.0.0.1:0" }, {}],
    [{ metricsBind: "127.0.0.1" }, {}],
  ])(
    "--metrics-bind that is not a loopback host:port is a ConfigError naming the setting (%j %j)",
    (flags, env) => {
      expect(() => resolveConfig(flags, { HOME: "/h", ...env })).toThrow(ConfigError);
      expect(() => resolveConfig(flags, { HOME: "/h", ...env })).toThrow(
        /--metrics-bind \/ PROSPERO_METRICS_BIND.*loopback/,
      );
    },
  );

  it("--log-format: auto by default; json or pretty; anything else is a ConfigError", () => {
    expect(resolveConfig({}, { HOME: "/h" }).logFormat).toBe("auto");
    expect(resolveConfig({ logFormat: "pretty" }, { HOME: "/h" }).logFormat).toBe("pretty");
    expect(resolveConfig({}, { HOME: "/h", PROSPERO_LOG_FORMAT: "json" }).logFormat).toBe("json");
    expect(() => resolveConfig({ logFormat: "xml" }, { HOME: "/h" })).toThrow(
      /--log-format.*auto, json or pretty/,
    );
  });
});

describe("health monitor and inbox settings (issue 15)", () => {
  it("--health-threshold takes check=whole number items (the last of a check wins); anything else is a ConfigError", () => {
    const cfg = resolveConfig(
      { healthThresholds: ["daemon_unreachable=120000", "event_growth=500", "daemon_unreachable=90000"] },
      { HOME: "/h" },
    );
    expect(cfg.healthThresholds).toEqual({ daemon_unreachable: 90_000, event_growth: 500 });
    expect(
      resolveConfig({}, { HOME: "/h", PROSPERO_HEALTH_THRESHOLDS: "queue_wait=60000" }).healthThresholds,
    ).toEqual({ queue_wait: 60_000 });
    for (const bad of [
      "event_growth=100.5",
      "daemon_unreachable=2m",
      "nope=5",
      "queue_wait=5",
      "queue_wait",
    ]) {
      expect(() => resolveConfig({ healthThresholds: [bad] }, { HOME: "/h" }), bad).toThrow(ConfigError);
    }
    expect(() => resolveConfig({ healthThresholds: ["data_disk_free=2GiB"] }, { HOME: "/h" })).toThrow(
      /--health-threshold \/ PROSPERO_HEALTH_THRESHOLDS.*whole number in the check's unit \(no suffixes/,
    );
  });

  it("--health-interval-ms and --inbox-escalate-after-ms are bounded; escalation 0 means never", () => {
    expect(resolveConfig({}, { HOME: "/h" })).toMatchObject({
      healthIntervalMs: 30_000,
      inboxEscalateAfterMs: 86_400_000,
    });
    expect(resolveConfig({ inboxEscalateAfterMs: "0" }, { HOME: "/h" }).inboxEscalateAfterMs).toBe(0);
    for (const bad of [
      { healthIntervalMs: "999" },
      { inboxEscalateAfterMs: "59999" },
      { healthIntervalMs: "x" },
    ]) {
      expect(() => resolveConfig(bad, { HOME: "/h" }), JSON.stringify(bad)).toThrow(ConfigError);
    }
  });
});
