/**
 * Clean starts and stops of real processes (issue 12 item 9): `prospero serve --demo` and
 * `npm start` interrupted at any moment of their start, signalled themselves or as a process group,
 * a closed stderr pipe at shutdown, bad --bind/--data-dir values, and SSE streams at shutdown.
 *
 * "Nothing left behind" is checked from outside: each demo runs with a TMPDIR of its own, so its
 * `prospero-demo-*` dir must be gone from there, and every process it started (simulator, workers)
 * carries that path in its environment, so none may be found in /proc afterwards.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROSPERO_BIN, serveToken, startServe, type ServeProcess } from "../helpers/serve-process.js";
import { tmpDir } from "../helpers/tmp.js";
import {
  alive,
  childrenOf,
  commandLine,
  demoDirsIn,
  eventually,
  exitWithin,
  killProcessesUsing,
  killStartedGroups,
  privateTmpDir,
  processesUsing,
  spawnGroup,
  spawnProspero,
  type GroupProcess,
} from "./process-support.js";

const privateDirs: string[] = [];
const running: ServeProcess[] = [];
afterEach(async () => {
  killStartedGroups();
  // The demo's simulator runs in a session of its own: a failed test must not leave it running.
  for (const dir of privateDirs.splice(0)) killProcessesUsing(dir);
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A private TMPDIR and XDG_RUNTIME_DIR for one demo run. */
function demoEnv(): { tmp: string; xdg: string; env: NodeJS.ProcessEnv } {
  const tmp = privateTmpDir();
  const xdg = tmpDir("xdg-");
  privateDirs.push(tmp);
  return { tmp, xdg, env: { TMPDIR: tmp, XDG_RUNTIME_DIR: xdg } };
}

/**
 * Nothing of a stopped demo is left: no demo dir in its TMPDIR, no process that descends from it,
 * no endpoint record telling local clients a gateway is there.
 */
async function expectNothingLeft(tmp: string, xdg: string, output: string): Promise<void> {
  expect(demoDirsIn(tmp), output).toEqual([]);
  // (Polled briefly only for /proc to show the exit of a process that was already told to stop.)
  await eventually(() => processesUsing(tmp).length === 0, 3_000);
  expect(
    processesUsing(tmp).map((pid) => commandLine(pid)),
    output,
  ).toEqual([]);
  const records = path.join(xdg, "prospero", "gateways");
  expect(fs.existsSync(records) ? fs.readdirSync(records) : []).toEqual([]);
}

/** The pid of the gateway under `npm`: its child, which is node itself (`exec node …`), not a shell. */
async function gatewayUnderNpm(npm: GroupProcess): Promise<number> {
  let found: number[] = [];
  await eventually(() => {
    found = childrenOf(npm.pid).filter((pid) => commandLine(pid).includes("bin/prospero.js"));
    return found.length > 0;
  }, 5_000);
  expect(found).toHaveLength(1);
  expect(commandLine(found[0]!)).toMatch(/^\S*node\S* \S*bin\/prospero\.js serve --demo/);
  return found[0]!;
}

describe("Ctrl-C while `prospero serve --demo` starts", () => {
  // From the first moment to fully started: the log line each waits for, or a delay.
  const moments: { at: string; when: (p: GroupProcess) => Promise<unknown> }[] = [
    { at: "while its sources load (250 ms)", when: () => sleep(250) },
    {
      at: "right after the demo dir is made",
      when: (p) => p.waitFor(/"msg":"demo mode: temporary workspace/),
    },
    { at: "right after it listens", when: (p) => p.waitFor(/"msg":"gateway listening"/) },
    { at: "right after the store opened", when: (p) => p.waitFor(/"msg":"store open"/) },
    { at: "while the simulator starts", when: (p) => p.waitFor(/"msg":"caliband not running; starting it"/) },
    { at: "right after the simulator started", when: (p) => p.waitFor(/"msg":"autostarted caliband"/) },
    { at: "once it runs", when: (p) => p.waitFor(/"msg":"open the dashboard/) },
  ];

  it.each(moments)("$at: exits 0 and leaves nothing behind", async ({ when }) => {
    const { tmp, xdg, env } = demoEnv();
    const p = spawnProspero(["serve", "--demo", "--port", "0"], env);
    await when(p);
    // What it runs can be seen (so "nothing left" can fail): the gateway, and the simulator once started.
    expect(processesUsing(tmp)).toContain(p.pid);
    if (/autostarted caliband/.test(p.output())) expect(processesUsing(tmp).length).toBeGreaterThan(1);
    if (/open the dashboard/.test(p.output())) {
      expect(fs.readdirSync(path.join(xdg, "prospero", "gateways"))).toHaveLength(1); // its endpoint record
    }
    p.signalGroup("SIGINT");
    // Pressed twice, as impatient people (and `npm start`, which forwards it) do: still a clean stop.
    await sleep(50);
    p.signalGroup("SIGINT");
    expect(await p.exited, p.output()).toBe(0);
    await expectNothingLeft(tmp, xdg, p.output());
  });
});

describe("`npm start` (demo mode) stops the gateway and the simulator however it is signalled", () => {
  // `npm run --ignore-scripts start` is `npm start` without its prestart (the dashboard build).
  const cases: { how: string; signal: NodeJS.Signals; group: boolean; at: RegExp }[] = [
    { how: "SIGTERM to the npm process", signal: "SIGTERM", group: false, at: /open the dashboard/ },
    { how: "SIGINT to the npm process", signal: "SIGINT", group: false, at: /open the dashboard/ },
    {
      how: "SIGTERM to its process group (a process manager)",
      signal: "SIGTERM",
      group: true,
      at: /open the dashboard/,
    },
    {
      how: "Ctrl-C while it starts (SIGINT to the group)",
      signal: "SIGINT",
      group: true,
      at: /"msg":"gateway listening"/,
    },
  ];

  it.each(cases)(
    "$how: exits 0, no gateway, no simulator, no demo dir left",
    async ({ signal, group, at }) => {
      const { tmp, xdg, env } = demoEnv();
      const npm = spawnGroup("npm", ["run", "--ignore-scripts", "start", "--", "--port", "0"], { env });
      await npm.waitFor(at);
      const gateway = await gatewayUnderNpm(npm);
      expect(processesUsing(tmp)).toContain(gateway);
      if (group) npm.signalGroup(signal);
      else process.kill(npm.pid, signal);
      expect(await npm.exited, npm.output()).toBe(0);
      expect(alive(gateway)).toBe(false);
      await expectNothingLeft(tmp, xdg, npm.output());
    },
  );
});

describe("shutdown with stderr a closed pipe (`prospero serve 2>&1 | head -3`)", () => {
  it("SIGTERM still finishes the shutdown: exit 0, the data dir free for the next gateway", async () => {
    const data = tmpDir();
    const xdg = tmpDir("xdg-");
    const sh = spawnGroup(
      "bash",
      [
        "-c",
        `set -o pipefail; "${process.execPath}" "${PROSPERO_BIN}" serve --port 0 --data-dir "${data}" 2>&1 | head -3`,
      ],
      { env: { XDG_RUNTIME_DIR: xdg } },
    );
    await sh.waitFor(/(.*\n){3}/);
    const gateway = childrenOf(sh.pid).find((pid) => commandLine(pid).includes("bin/prospero.js"));
    expect(gateway).toBeDefined();
    // head has exited: every line the gateway writes from now on fails (EPIPE).
    expect(
      await eventually(() => childrenOf(sh.pid).every((pid) => !commandLine(pid).startsWith("head"))),
    ).toBe(true);
    await sleep(300); // it keeps logging into the closed pipe meanwhile
    expect(alive(gateway!)).toBe(true);
    process.kill(gateway!, "SIGTERM");
    // pipefail: the pipeline's status is the gateway's (head's is 0).
    expect(await exitWithin(sh.exited, 20_000), sh.output()).toBe(0);
    expect(alive(gateway!)).toBe(false);
    // It stopped properly: its lock is released and its endpoint record removed.
    const next = await startServe(["--data-dir", data]);
    running.push(next);
    expect(fs.readdirSync(path.join(xdg, "prospero", "gateways"))).toEqual([]);
  });
});

describe("bad settings are refused before anything is created", () => {
  async function refused(args: string[]): Promise<{ code: number | string; out: string }> {
    const p = spawnProspero(["serve", "--port", "0", ...args]);
    const code = await exitWithin(p.exited, 15_000);
    return { code, out: p.output() };
  }

  it("--data-dir /proc/nope: exit 2 with one line naming the setting, without ever listening", async () => {
    const { code, out } = await refused(["--data-dir", "/proc/nope"]);
    expect(code).toBe(2);
    expect(out).toMatch(/^prospero: invalid --data-dir \/ PROSPERO_DATA_DIR: .*\/proc\/nope.*\n$/);
    expect(out).not.toContain("gateway listening");
  });

  it("--bind 999.1.1.1 (behind a trusted proxy, so not refused as exposed): exit 2, one line: not an IP address", async () => {
    const data = path.join(tmpDir(), "d");
    const { code, out } = await refused([
      "--bind",
      "999.1.1.1",
      "--trust-proxy",
      "127.0.0.1",
      "--data-dir",
      data,
    ]);
    expect(code).toBe(2);
    expect(out).toMatch(
      /^prospero: invalid --bind \/ PROSPERO_BIND: got "999\.1\.1\.1" .*expected an IP address.*\n$/,
    );
    expect(fs.existsSync(data)).toBe(false);
  });

  it("--bind of an address that is not this machine's: exit 2, one line, no data dir; the stack only at debug", async () => {
    const data = path.join(tmpDir(), "d");
    // 192.0.2.1 (TEST-NET-1) behind a trusted proxy: a valid setting, but nothing can listen there.
    const args = ["--bind", "192.0.2.1", "--trust-proxy", "127.0.0.1", "--data-dir", data];
    const { code, out } = await refused(args);
    expect(code).toBe(2);
    expect(out).toMatch(
      /^prospero: invalid --bind \/ PROSPERO_BIND: cannot listen on 192\.0\.2\.1 .*EADDRNOTAVAIL.*\n$/,
    );
    expect(fs.existsSync(data)).toBe(false);

    const debug = await refused([...args, "--log-level", "debug"]);
    expect(debug.code).toBe(2);
    const lines = debug.out.trim().split("\n");
    const failed = lines.map((l) => (l.startsWith("{") ? (JSON.parse(l) as Record<string, unknown>) : null));
    expect(failed.find((l) => l?.msg === "start-up failed")).toMatchObject({
      err: { type: "ConfigError", stack: expect.stringContaining("ConfigError") },
    });
    expect(lines.at(-1)).toMatch(/^prospero: invalid --bind/);
  });
});

/** How long the gateway's shutdown waits for open connections before cutting them (Gateway.close), ms. */
const HTTP_DRAIN_GRACE_MS = 5_000;

describe("shutdown with an open SSE subscription", () => {
  it("ends the stream at once with a SHUTTING_DOWN event and `complete`, and exits 0", async () => {
    const p = await startServe(["--data-dir", tmpDir()]);
    running.push(p);
    const token = await serveToken(p);
    const res = await fetch(`${p.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ query: "subscription { fleetChanges { __typename } }" }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (re: RegExp) => {
      while (!re.test(text)) {
        const r = await reader.read();
        if (r.done) return;
        text += r.value;
      }
    };
    await readUntil(/FleetSeedComplete/); // the subscription is live
    const signalled = Date.now();
    p.child.kill("SIGTERM");
    let cut: unknown = null;
    try {
      await readUntil(/(?!)/); // to the end of the stream
    } catch (err) {
      cut = err; // the connection was destroyed (what the grace's end does), not ended
    }
    expect(cut).toBeNull();
    const events = text.split("\n\n").filter((e) => e.trim() !== "");
    expect(events.at(-2)).toMatch(/^event: next\ndata: .*"code":"SHUTTING_DOWN"/);
    expect(events.at(-1)).toMatch(/^event: complete\b/);
    expect(await p.exited, p.stderr()).toBe(0);
    // Ended, not left open until the gateway's drain grace runs out and cuts it.
    expect(Date.now() - signalled).toBeLessThan(HTTP_DRAIN_GRACE_MS);
  });
});
