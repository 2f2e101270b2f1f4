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
