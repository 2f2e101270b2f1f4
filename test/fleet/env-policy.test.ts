/**
 * What a workspace's provider config may put into a process's environment (issue 11 §7): the
 * built-in allowlist, the operator's --allow-env patterns, the names never allowed, kept values,
 * and stored configs from before the policy (they load, and never reach a process).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { ProviderMisconfigured, ValidationFailed } from "../../src/errors.js";
import {
  DEFAULT_ENV_POLICY,
  EnvPolicy,
  daemonEnvOverlay,
  parseEnvPatterns,
  parseStoredProviderConfig,
  resolveConfigChange,
  validateProviderConfig,
  type ProviderConfigInput,
} from "../../src/fleet/provider.js";
import { CalibandClient } from "../../src/caliband/client.js";
import { controlSocketPath } from "../../src/caliband/paths.js";
import { Fleet } from "../../src/fleet/fleet.js";
import { silentLogger } from "../../src/log.js";
import { startDaemon, startFleet, waitFor, type FleetHarness } from "../helpers/fleet-harness.js";

const SIM = path.resolve(import.meta.dirname, "../support/bin/caliband-sim");

/** The error `fn` throws (fails the test when it throws nothing). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

/** Every variable the issue lists as a hijack, with a value an attacker would use. */
const HIJACKS: Record<string, string> = {
  LD_PRELOAD: "/tmp/evil.so",
  LD_LIBRARY_PATH: "/tmp/evil",
  DYLD_INSERT_LIBRARIES: "/tmp/evil.dylib",
  NODE_OPTIONS: "--import=data:text/javascript,process.exit(7)",
  PATH: "/tmp/evil:/usr/bin",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "core.fsmonitor",
  GIT_CONFIG_VALUE_0: "touch /tmp/pwned",
  GIT_DIR: "/tmp/evil.git",
  GIT_SSH_COMMAND: "touch /tmp/pwned",
  BASH_ENV: "/tmp/evil.sh",
  ENV: "/tmp/evil.sh",
  PYTHONPATH: "/tmp/evil",
  PYTHONSTARTUP: "/tmp/evil.py",
  PERL5OPT: "-Mevil",
  RUBYOPT: "-revil",
  HTTP_PROXY: "http://attacker.example:8080",
  HTTPS_PROXY: "http://attacker.example:8080",
  https_proxy: "http://attacker.example:8080",
  ALL_PROXY: "socks5://attacker.example",
  NO_PROXY: "*",
  HOME: "/tmp/evil-home",
  XDG_CONFIG_HOME: "/tmp/evil-config",
  CALIBAN_DAEMON_LISTEN: "0.0.0.0:7000",
  CALIBAN_DAEMON_TOKEN: "t",
  // Allowed names in the wrong case are other variables.
  lang: "C",
  anthropic_api_key: "x",
};

describe("env allowlist (built-in)", () => {
  it.each(Object.entries(HIJACKS))("refuses %s by default, naming it and --allow-env", (name, attack) => {
    const value = `${attack}#v4lue-marker`;
    const err = thrown(() => validateProviderConfig({ env: { [name]: value } }));
    expect(err).toBeInstanceOf(ProviderMisconfigured);
    expect(err).toMatchObject({ field: "env" });
    const msg = (err as Error).message;
    expect(msg).toContain(name);
    expect(msg).toContain(`--allow-env ${name}`);
    expect(msg).not.toContain("v4lue-marker"); // values may be secrets: never echoed
  });

  it("accepts provider namespaces, the worker idle timeout, and locale/display variables", () => {
    const env = {
      ANTHROPIC_BASE_URL: "https://proxy.example/v1",
      ANTHROPIC_VERSION: "2023-06-01",
      OPENAI_ORG_ID: "org-1",
      OPENAI_PROJECT: "p",
      GEMINI_API_KEY: "g",
      OLLAMA_BASE_URL: "http://127.0.0.1:11434",
      CALIBAN_AGENT_IDLE_TIMEOUT_SECS: "600",
      LANG: "en_US.UTF-8",
      LANGUAGE: "en_US:en",
      LC_ALL: "C.UTF-8",
      LC_MESSAGES: "de_DE@euro",
      TZ: "Europe/Berlin",
      NO_COLOR: "1",
    };
    expect(validateProviderConfig({ env }).env).toEqual(env);
    expect(validateProviderConfig({ env: { TZ: "EST5EDT,M3.2.0,M11.1.0" } }).env.TZ).toBe(
      "EST5EDT,M3.2.0,M11.1.0",
    );
  });

  it("locale and TZ values may not be paths", () => {
    for (const [name, value] of [
      ["LC_ALL", "/tmp/evil-locale"],
      ["LANG", "../../tmp/x"],
      ["TZ", "/tmp/evil-tz"],
      ["TZ", ":/tmp/evil-tz"],
      ["TZ", "../../../tmp/x"],
    ] as const) {
      const err = thrown(() => validateProviderConfig({ env: { [name]: value } }));
      expect(err, `${name}=${value}`).toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "env" });
      expect((err as Error).message).not.toContain(value);
    }
  });

  it("CALIBAN_DAEMON_RUNTIME_DIR, XDG_RUNTIME_DIR and TMPDIR are refused even when an operator pattern matches", () => {
    const policy = new EnvPolicy(["X*", "CALIBAN_*", "TMPDIR"]);
    for (const name of ["CALIBAN_DAEMON_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR"]) {
      const err = thrown(() => validateProviderConfig({ env: { [name]: "/elsewhere" } }, policy));
      expect(err).toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "env" });
      expect((err as Error).message).toContain(name);
      expect((err as Error).message).toContain("socket");
    }
  });

  it("bad shapes are ValidationFailed: a NUL in a value, an over-long value, a malformed name", () => {
    expect(thrown(() => validateProviderConfig({ env: { NO_COLOR: "a\0b" } }))).toBeInstanceOf(
      ValidationFailed,
    );
    expect(thrown(() => validateProviderConfig({ env: { NO_COLOR: "x".repeat(40_000) } }))).toBeInstanceOf(
      ValidationFailed,
    );
    expect(thrown(() => validateProviderConfig({ env: { "A=B": "1" } }))).toBeInstanceOf(ValidationFailed);
  });
});

describe("operator additions (--allow-env)", () => {
  it("a name or * pattern allows matching variables with any value, and only those", () => {
    const policy = new EnvPolicy(["MYCO_*", "*_TOKEN", "GIT_AUTHOR_NAME", "LC_ALL"]);
    const env = {
      MYCO_REGION: "eu",
      MYCO_: "empty suffix matches too",
      GITHUB_TOKEN: "ghp_x",
      GIT_AUTHOR_NAME: "Bot",
      LC_ALL: "/opt/locales/x", // operator-allowed as is: the built-in value rule no longer applies
    };
    expect(validateProviderConfig({ env }, policy).env).toEqual(env);
    for (const name of ["MYCOX", "XMYCO_A", "GIT_AUTHOR_EMAIL", "TOKEN", "NODE_OPTIONS"]) {
      expect(
        thrown(() => validateProviderConfig({ env: { [name]: "1" } }, policy)),
        name,
      ).toMatchObject({
        field: "env",
      });
    }
  });

  it("malformed patterns are a ConfigError naming the setting", () => {
    for (const bad of ["", "A-B", "1ABC", "A B", "A?", "A[B]", "A.B", "$X", "*", "**"]) {
      const err = thrown(() => parseEnvPatterns([bad], "--allow-env / PROSPERO_ALLOW_ENV"));
      expect(err, JSON.stringify(bad)).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).setting).toBe("--allow-env / PROSPERO_ALLOW_ENV");
    }
    expect(parseEnvPatterns(["A_*", "*_X", "_X", "A_*"])).toEqual(["A_*", "*_X", "_X"]);
    expect(() => new EnvPolicy(["BAD-PATTERN"])).toThrow(ConfigError);
  });

  it("reports the process-hijacking variables an operator's patterns open up (the gateway warns at start)", () => {
    expect(new EnvPolicy([]).hijackableAllowed()).toEqual([]);
    expect(new EnvPolicy(["MY_TOOL_*"]).hijackableAllowed()).toEqual([]);
    expect(new EnvPolicy(["LD_*", "NODE_OPTIONS"]).hijackableAllowed()).toEqual([
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "LD_AUDIT",
      "NODE_OPTIONS",
    ]);
    expect(new EnvPolicy(["*_PROXY"]).hijackableAllowed()).toEqual([
      "HTTP_PROXY",
      "HTTPS_PROXY",
      "ALL_PROXY",
    ]);
  });

  it("the Fleet refuses a malformed --allow-env pattern or --allow-root prefix at construction", () => {
    const base = {
      db: {} as never,
      store: {} as never,
      writer: {} as never,
      logger: silentLogger,
      pollIntervalMs: 1000,
      dataDir: "/nonexistent",
      calibandBin: "caliband",
      autostart: false,
    };
    expect(() => new Fleet({ ...base, allowEnv: ["NODE-OPTIONS"] })).toThrow(ConfigError);
    expect(() => new Fleet({ ...base, allowRoots: ["relative/dir"] })).toThrow(ConfigError);
  });
});

describe("apiKeyFromEnv", () => {
  const withKey = (apiKeyFromEnv: string, policy?: EnvPolicy) =>
    validateProviderConfig({ provider: "anthropic", apiKeyFromEnv }, policy);

  it("may name *_API_KEY variables by default and nothing else", () => {
    expect(withKey("ANTHROPIC_API_KEY").apiKeyFromEnv).toBe("ANTHROPIC_API_KEY");
    expect(withKey("TEAM_A_API_KEY").apiKeyFromEnv).toBe("TEAM_A_API_KEY");
    for (const name of ["HOME", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "API_KEY", "OPENAI_API_KEYS"]) {
      const err = thrown(() => withKey(name));
      expect(err, name).toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "apiKeyFromEnv" });
      expect((err as Error).message).toContain(name);
      expect((err as Error).message).toContain("--allow-env");
    }
  });

  it("an operator pattern allows more; PROSPERO_* never, whatever the patterns", () => {
    const policy = new EnvPolicy(["*_TOKEN", "PROSPERO_*", "P*"]);
    expect(withKey("GITHUB_TOKEN", policy).apiKeyFromEnv).toBe("GITHUB_TOKEN");
    for (const name of ["PROSPERO_ADMIN_TOKEN", "PROSPERO_TOKEN", "PROSPERO_API_KEY"]) {
      for (const p of [DEFAULT_ENV_POLICY, policy]) {
        const err = thrown(() => withKey(name, p));
        expect(err, name).toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "apiKeyFromEnv" });
        expect((err as Error).message).toContain("gateway's own");
      }
    }
  });
});

describe("keeping stored values (env values are write-only)", () => {
  const applied = { OPENAI_ORG_ID: "org-applied", NO_COLOR: "1" };
  const pending = { OPENAI_ORG_ID: "org-pending" };

  it("an entry without a value keeps the stored one: pending config first, then the applied one", () => {
    const full = resolveConfigChange(
      {
        provider: "openai",
        env: [{ name: "OPENAI_ORG_ID", value: null }, { name: "NO_COLOR" }, { name: "TZ", value: "UTC" }],
      },
      [pending, applied],
    );
    expect(full).toEqual({
      provider: "openai",
      env: { OPENAI_ORG_ID: "org-pending", NO_COLOR: "1", TZ: "UTC" },
    });
    // The map form: null = keep.
    expect(resolveConfigChange({ env: { NO_COLOR: null, LANG: "C" } }, [null, applied]).env).toEqual({
      NO_COLOR: "1",
      LANG: "C",
    });
    // Omitted names are dropped (the config is replaced as a whole).
    expect(resolveConfigChange({ env: [] }, [applied]).env).toEqual({});
  });

  it("a kept name with no stored value, or a name given twice, is ValidationFailed with its path", () => {
    const err = thrown(() =>
      resolveConfigChange(
        {
          env: [
            { name: "NO_COLOR", value: "1" },
            { name: "OPENAI_PROJECT", value: null },
            { name: "NO_COLOR", value: "2" },
          ],
        },
        [applied],
      ),
    );
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).issues).toEqual([
      { path: ["config", "env", "1", "value"], message: expect.stringContaining("OPENAI_PROJECT") },
      { path: ["config", "env", "2", "name"], message: expect.stringContaining("twice") },
    ]);
  });
});

describe("stored configs and the daemon's environment", () => {
  const legacy: ProviderConfigInput = {
    provider: "anthropic",
    apiKeyFromEnv: "HOME",
    env: { NODE_OPTIONS: "--import=data:text/javascript,1" },
  };

  it("a stored config the policy refuses still parses; the overlay refuses it", () => {
    const cfg = parseStoredProviderConfig(legacy);
    expect(cfg.env).toEqual({ NODE_OPTIONS: "--import=data:text/javascript,1" });
    expect(thrown(() => daemonEnvOverlay(cfg, { HOME: "/root" }))).toMatchObject({
      code: "PROVIDER_MISCONFIGURED",
      field: "env",
      message: expect.stringContaining("NODE_OPTIONS"),
    });
    expect(thrown(() => daemonEnvOverlay({ ...cfg, env: {} }, { HOME: "/root" }))).toMatchObject({
      field: "apiKeyFromEnv",
      message: expect.stringContaining("HOME"),
    });
    // With the operator's patterns the same overlay is built.
    const policy = new EnvPolicy(["NODE_OPTIONS", "HOME"]);
    expect(daemonEnvOverlay(cfg, { HOME: "/root" }, policy)).toEqual({
      ANTHROPIC_API_KEY: "/root",
      NODE_OPTIONS: "--import=data:text/javascript,1",
    });
  });
});

describe("stored configs in a real fleet", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** A fleet whose store already holds workspace "legacy" with an env the policy now refuses. */
  async function legacyFleet(opts: { autostart?: boolean; calibandBin?: string; allowEnv?: string[] }) {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    const first = await startFleet({ runtimeDir: d.ws.runtime, pollIntervalMs: 3_600_000 });
    await first.db.prisma.workspace.create({
      data: {
        name: "legacy",
        root: d.ws.root,
        env: { NODE_OPTIONS: "--import=data:text/javascript,process.exit(7)" },
        pendingConfig: {
          provider: null,
          baseUrl: null,
          apiKeyFromEnv: null,
          env: { LD_PRELOAD: "/x.so" },
          model: null,
        },
      },
    });
    await first.stopFleet();
    const h: FleetHarness = await startFleet({
      runtimeDir: d.ws.runtime,
      dataDir: first.dataDir,
      pollIntervalMs: 50,
      ...opts,
    });
    cleanups.push(() => h.close());
    return { d, h };
  }

  it("loads (no crash at start), shows the refusal as the workspace's health reason, and sends the daemon nothing", async () => {
    const { d, h } = await legacyFleet({ autostart: true, calibandBin: SIM });
    const ws = h.fleet.registry.get("legacy");
    expect(Object.keys(ws.config.env)).toEqual(["NODE_OPTIONS"]);
    expect(Object.keys(ws.pendingConfig?.env ?? {})).toEqual(["LD_PRELOAD"]);
    const health = await waitFor(
      () => {
        const s = h.fleet.state.healthOf("legacy");
        return s.state === "unreachable" && s.reason ? s : null;
      },
      5_000,
      "unhealthy with a reason",
    );
    expect(health.reason).toContain("NODE_OPTIONS");
    expect(health.reason).toContain("--allow-env");
    expect(health.reason).not.toContain("process.exit");
    // The daemon is listening, yet nothing was sent to it.
    expect(d.daemon.listening).toBe(true);
    expect(d.daemon.requests).toHaveLength(0);
    await expect(h.fleet.lifecycle.spawn({ workspace: "legacy", prompt: "hi" })).rejects.toMatchObject({
      code: "PROVIDER_MISCONFIGURED",
      field: "env",
    });
    expect(d.daemon.requests).toHaveLength(0);

    // Fixing the config (NODE_OPTIONS dropped) restarts the daemon with the clean env (the
    // simulator is autostarted in place of the double) and the workspace is healthy again.
    const res = await h.fleet.updateWorkspaceConfig("legacy", { env: [] });
    expect(res).toMatchObject({ applied: true, orphaned: [] });
    const sim = new CalibandClient({ scheme: "unix", path: d.daemon.socketPath });
    cleanups.push(async () => {
      await sim.shutdown().catch(() => {});
    });
    expect(d.daemon.listening).toBe(false);
    expect((await sim.status()).pid).not.toBe(process.pid);
    expect(h.fleet.registry.get("legacy")).toMatchObject({ config: { env: {} }, pendingConfig: null });
    await waitFor(() => h.fleet.state.healthOf("legacy").state === "healthy", 5_000, "healthy after the fix");
  });

  it("with autostart, a refused stored env never starts a process", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envp-"));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const marker = path.join(dir, "started");
    const bin = path.join(dir, "caliband");
    fs.writeFileSync(bin, `#!/bin/sh\necho "$NODE_OPTIONS" > '${marker}'\nsleep 5\n`, { mode: 0o755 });
    const { d, h } = await legacyFleet({ autostart: true, calibandBin: bin });
    await d.daemon.close(); // nothing listens: the gateway would autostart
    expect(fs.existsSync(controlSocketPath(d.ws.root, h.env))).toBe(false);
    await waitFor(
      () => (h.fleet.state.healthOf("legacy").reason ?? "").includes("NODE_OPTIONS"),
      5_000,
      "refusal recorded",
    );
    await new Promise((r) => setTimeout(r, 500)); // several polls
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readdirSync(h.dataDir).filter((f) => f.startsWith("caliband-"))).toEqual([]); // no daemon log either
  });

  it("an operator --allow-env pattern lets the same stored config reach the daemon", async () => {
    const { d, h } = await legacyFleet({ allowEnv: ["NODE_OPTIONS"] });
    await waitFor(() => h.fleet.state.healthOf("legacy").state === "healthy", 5_000, "healthy");
    expect(d.daemon.requests.length).toBeGreaterThan(0);
    // The stored pending change (LD_PRELOAD) is still refused when the agents are quiescent: the
    // daemon is never shut down for it and the change stays pending.
    await new Promise((r) => setTimeout(r, 300));
    expect(d.daemon.listening).toBe(true);
    expect(d.daemon.requests.filter((r) => r.line.includes('"shutdown"'))).toHaveLength(0);
    expect(h.fleet.registry.get("legacy").pendingConfig?.env).toEqual({ LD_PRELOAD: "/x.so" });
  });

  it("updateWorkspaceConfig keeps stored values by name (pending first) and refuses what the policy refuses, changing nothing", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    const h = await startFleet({ runtimeDir: d.ws.runtime, allowEnv: ["MYCO_*"] });
    cleanups.push(() => h.close());
    await h.fleet.addWorkspace({
      name: "demo",
      root: d.ws.root,
      config: { env: [{ name: "MYCO_SECRET", value: "s3cret" }] },
    });
    // Kept value, same env: no daemon restart, applied at once.
    const kept = await h.fleet.updateWorkspaceConfig("demo", {
      model: "m2",
      env: [{ name: "MYCO_SECRET", value: null }],
    });
    expect(kept).toMatchObject({
      applied: true,
      workspace: { config: { model: "m2", env: { MYCO_SECRET: "s3cret" } } },
    });
    expect((await h.db.prisma.workspace.findUnique({ where: { name: "demo" } }))?.env).toEqual({
      MYCO_SECRET: "s3cret",
    });
    // With a live agent an env change is pending; keeping then reads the pending value first.
    await h.fleet.lifecycle.spawn({ workspace: "demo", prompt: "long fake:hold=60000" });
    const rotated = await h.fleet.updateWorkspaceConfig("demo", {
      env: [{ name: "MYCO_SECRET", value: "rotated" }],
    });
    expect(rotated.applied).toBe(false);
    const again = await h.fleet.updateWorkspaceConfig("demo", {
      env: [
        { name: "MYCO_SECRET", value: null },
        { name: "NO_COLOR", value: "1" },
      ],
    });
    expect(again.workspace.pendingConfig?.env).toEqual({ MYCO_SECRET: "rotated", NO_COLOR: "1" });
    expect(again.workspace.config.env).toEqual({ MYCO_SECRET: "s3cret" });

    const before = await h.db.prisma.workspace.findUnique({ where: { name: "demo" } });
    await expect(
      h.fleet.updateWorkspaceConfig("demo", { env: [{ name: "MYCO_OTHER", value: null }] }),
    ).rejects.toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: ["config", "env", "0", "value"] }] });
    await expect(
      h.fleet.updateWorkspaceConfig("demo", { env: { NODE_OPTIONS: "--require=/x.js" } }),
    ).rejects.toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "env" });
    await expect(
      h.fleet.updateWorkspaceConfig("demo", { provider: "openai", apiKeyFromEnv: "PROSPERO_ADMIN_TOKEN" }),
    ).rejects.toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "apiKeyFromEnv" });
    expect(await h.db.prisma.workspace.findUnique({ where: { name: "demo" } })).toEqual(before);
    expect(h.fleet.registry.get("demo").pendingConfig?.env).toEqual({
      MYCO_SECRET: "rotated",
      NO_COLOR: "1",
    });
  });

  it("addWorkspace: an env entry without a value has nothing to keep; a refused name stores nothing", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    const h = await startFleet({ runtimeDir: d.ws.runtime });
    cleanups.push(() => h.close());
    await expect(
      h.fleet.addWorkspace({ name: "demo", root: d.ws.root, config: { env: [{ name: "NO_COLOR" }] } }),
    ).rejects.toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: ["config", "env", "0", "value"] }] });
    await expect(
      h.fleet.addWorkspace({
        name: "demo",
        root: d.ws.root,
        config: { env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.fsmonitor" } },
      }),
    ).rejects.toMatchObject({ code: "PROVIDER_MISCONFIGURED", field: "env" });
    expect(await h.db.prisma.workspace.count()).toBe(0);
    expect(h.fleet.registry.list()).toEqual([]);
    expect(d.daemon.requests).toHaveLength(0);
  });
});
