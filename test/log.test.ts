// Issue 15 item 5: readable logs. `--log-format pretty` writes one line a person reads (time,
// level, message, then the fields), `json` one JSON object per line, `auto` pretty only on a
// terminal; redaction applies in both, a closed stderr still never stops the gateway, and the
// dashboard URL is in the message text (without the token when the token is not to be shown).
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { startApp } from "../src/app.js";
import { resolveConfig } from "../src/config.js";
import { serveToken, startServe, PROSPERO_BIN, type ServeProcess } from "./helpers/serve-process.js";
import { tmpDir } from "./helpers/tmp.js";
import {
  alive,
  childrenOf,
  commandLine,
  eventually,
  exitWithin,
  killStartedGroups,
  spawnGroup,
} from "./server/process-support.js";

/** A destination collecting what the logger writes; `isTTY` as a terminal would say. */
function sink(isTTY?: boolean): { lines: () => string[]; dest: { write(s: string): void; isTTY?: boolean } } {
  const chunks: string[] = [];
  const dest: { write(s: string): void; isTTY?: boolean } = { write: (s: string) => void chunks.push(s) };
  if (isTTY !== undefined) dest.isTTY = isTTY;
  return { lines: () => chunks.join("").split("\n").filter(Boolean), dest };
}

const CREDENTIALS = {
  req: { headers: { authorization: "Bearer prospero_x", cookie: "prospero_session_1=abc", host: "h" } },
  secret: "prospero_y",
  token: { name: "ci", secretHash: "deadbeef" },
};

/** `[2026-12-01 21:50:42.671] INFO: ` — pino-pretty's time (local) and level. */
const PRETTY_HEAD = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): /;

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

describe("log formats", () => {
  it("pretty: one readable line per entry — time, level, [module] message, then the fields — redaction applied", () => {
    const s = sink(false);
    const log = createLogger("info", s.dest, { format: "pretty" });
    log
      .child({ module: "gateway" })
      .info({ url: "http://127.0.0.1:7878", ...CREDENTIALS }, "gateway listening");
    const lines = s.lines();
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(isJson(line)).toBe(false);
    expect(line).toMatch(PRETTY_HEAD);
    expect(line).toMatch(/INFO: \[gateway\] gateway listening \{.*"url":"http:\/\/127\.0\.0\.1:7878"/);
    // Not a terminal: no colors.
    expect(line).not.toContain("\x1b");
    expect(line).not.toMatch(/prospero_x|prospero_y|abc|deadbeef/);
    expect(line).toContain('"authorization":"[redacted]"');
    expect(line).toContain('"secret":"[redacted]"');
    expect(line).toContain('"secretHash":"[redacted]"');
    // pid, hostname and the app name are left out of the readable line.
    expect(line).not.toMatch(/"pid"|"hostname"|"app"/);
  });

  it("pretty: logged text cannot drive the terminal or forge a line (escape sequences, newlines)", () => {
    const s = sink(false);
    const log = createLogger("info", s.dest, { format: "pretty" });
    log.warn(
      { reason: "daemon said \x1b]0;owned\x07 \x1b[2J" },
      "unreachable\n[2026-01-01 00:00:00.000] INFO: forged",
    );
    const lines = s.lines();
    expect(lines).toHaveLength(1);
    // eslint-disable-next-line no-control-regex
    expect(lines[0]).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(lines[0]).toMatch(/WARN: unreachable␤\[2026-01-01 00:00:00\.000\] INFO: forged/);
  });

  it("pretty: an error's stack follows on the next lines", () => {
    const s = sink(false);
    createLogger("info", s.dest, { format: "pretty" }).error(
      { err: new Error("boom") },
      "request handler failed",
    );
    const lines = s.lines();
    expect(lines[0]).toMatch(/ERROR: request handler failed/);
    expect(lines.slice(1).join("\n")).toMatch(/Error: boom\n\s+at /);
  });

  it("json: one JSON object per line, redaction applied", () => {
    const s = sink(true); // even on a terminal
    createLogger("info", s.dest, { format: "json" }).info(CREDENTIALS, "request");
    const lines = s.lines();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: "request",
      level: 30,
      req: { headers: { authorization: "[redacted]", cookie: "[redacted]", host: "h" } },
      secret: "[redacted]",
      token: { name: "ci", secretHash: "[redacted]" },
    });
  });

  it("auto (the default): JSON into a file or pipe, pretty on a terminal (colored unless NO_COLOR)", () => {
    const pipe = sink(false);
    createLogger("info", pipe.dest, { format: "auto" }).info("hello");
    expect(JSON.parse(pipe.lines()[0]!)).toMatchObject({ msg: "hello" });
    const noFlag = sink();
    createLogger("info", noFlag.dest).info("hello");
    expect(JSON.parse(noFlag.lines()[0]!)).toMatchObject({ msg: "hello" });

    const saved = process.env.NO_COLOR;
    try {
      delete process.env.NO_COLOR;
      const tty = sink(true);
      createLogger("info", tty.dest, { format: "auto" }).info({ ...CREDENTIALS }, "hello");
      const line = tty.lines()[0]!;
      expect(isJson(line)).toBe(false);
      expect(line).toContain("\x1b["); // colored
      expect(line).not.toMatch(/prospero_x|prospero_y|deadbeef/);
      process.env.NO_COLOR = "1";
      const plain = sink(true);
      createLogger("info", plain.dest, { format: "auto" }).info("hello");
      expect(plain.lines()[0]).toMatch(PRETTY_HEAD);
      expect(plain.lines()[0]).not.toContain("\x1b");
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = saved;
    }
  });
});

describe("the dashboard URL is in the message text", () => {
  it("with the token only where the token is to be shown", async () => {
    const run = async (showTokenInLog: boolean) => {
      const s = sink(false);
      const config = resolveConfig(
        { dataDir: tmpDir(), port: "0", autostart: false },
        { HOME: process.env.HOME },
      );
      const env = { ...process.env, XDG_RUNTIME_DIR: tmpDir("xdg-"), PROSPERO_ADMIN_TOKEN: undefined };
      const app = await startApp(config, createLogger("info", s.dest, { format: "json" }), {
        env,
        showTokenInLog,
      });
      const entries = s.lines().map((l) => JSON.parse(l) as { msg: string; dashboard?: string });
      await app.stop();
      const line = entries.find((e) => e.msg.startsWith("open the dashboard"));
      return { line: line!, app };
    };
    const shown = await run(true);
    expect(shown.line.msg).toBe(
      `open the dashboard: ${shown.app.dashboardUrl} (this URL carries the admin token; keep it private)`,
    );
    const hidden = await run(false);
    expect(hidden.line.msg).toContain(
      `open the dashboard: ${hidden.app.gateway.url}/?token=<the admin token in `,
    );
    expect(hidden.line.msg).toContain(path.join("admin-token"));
    expect(hidden.line.msg).not.toContain(hidden.app.adminToken);
    expect(JSON.stringify(hidden.line)).not.toContain(hidden.app.adminToken);
  });
});

describe("a real `prospero serve --log-format pretty`", () => {
  const running: ServeProcess[] = [];
  afterEach(async () => {
    for (const p of running.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill("SIGKILL");
        await p.exited;
      }
    }
    killStartedGroups();
  });

  it("prints readable lines, the dashboard URL as a line a person reads, never the token (stderr not a terminal)", async () => {
    const p = await startServe(["--data-dir", tmpDir(), "--log-format", "pretty"]);
    running.push(p);
    const token = await serveToken(p);
    const lines = p.stderr().split("\n").filter(Boolean);
    const dashboard = lines.find((l) => l.includes("open the dashboard"));
    expect(dashboard).toBeDefined();
    expect(dashboard).toMatch(PRETTY_HEAD);
    expect(dashboard).toMatch(
      new RegExp(
        `INFO: open the dashboard: ${p.url.replace(/[.]/g, "\\.")}/\\?token=<the admin token in [^>]*admin-token>`,
      ),
    );
    expect(lines.filter((l) => !l.startsWith(" ")).every((l) => PRETTY_HEAD.test(l) && !isJson(l))).toBe(
      true,
    );
    expect(p.stderr()).not.toContain(token);
    expect(p.stderr()).not.toContain("\x1b"); // a pipe: no colors
    p.child.kill("SIGTERM");
    expect(await p.exited, p.stderr()).toBe(0);
    expect(p.stderr()).toMatch(/INFO: stopped/);
  });

  it("by default into a pipe: JSON lines, the message still naming the URL", async () => {
    const p = await startServe(["--data-dir", tmpDir()]);
    running.push(p);
    await serveToken(p);
    const entries = p
      .stderr()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string });
    expect(entries.find((e) => e.msg.startsWith("open the dashboard"))?.msg).toContain(`${p.url}/?token=<`);
  });

  it("with stderr a pipe that closes (`2>&1 | head -3`): keeps running, SIGTERM still exits 0", async () => {
    const data = tmpDir();
    const sh = spawnGroup("bash", [
      "-c",
      `set -o pipefail; "${process.execPath}" "${PROSPERO_BIN}" serve --port 0 --data-dir "${data}" --log-format pretty 2>&1 | head -3`,
    ]);
    await sh.waitFor(/(.*\n){3}/);
    const gateway = childrenOf(sh.pid).find((pid) => commandLine(pid).includes("bin/prospero.js"));
    expect(gateway).toBeDefined();
    expect(
      await eventually(() => childrenOf(sh.pid).every((pid) => !commandLine(pid).startsWith("head"))),
    ).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // it keeps logging into the closed pipe meanwhile
    expect(alive(gateway!)).toBe(true);
    process.kill(gateway!, "SIGTERM");
    expect(await exitWithin(sh.exited, 20_000), sh.output()).toBe(0);
    expect(alive(gateway!)).toBe(false);
    expect(sh.output().split("\n")[0]).toMatch(PRETTY_HEAD);
  });
});
