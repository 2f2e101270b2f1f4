import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { runProspero, startServe, waitForStatus, type ServeProcess } from "../helpers/serve-process.js";
import { waitFor } from "../helpers/fleet-harness.js";

let p: ServeProcess | undefined;
afterEach(async () => {
  // Stop gracefully so the gateway stops the simulators it started (SIGKILL would orphan them).
  if (p && p.child.exitCode === null && p.child.signalCode === null) {
    p.child.kill("SIGTERM");
    const timer = setTimeout(() => p?.child.kill("SIGKILL"), 10_000);
    await p.exited;
    clearTimeout(timer);
  }
  p = undefined;
});

/** The admin token from the demo's "open the dashboard" log line (demo mode prints the URL with it). */
function demoToken(p: ServeProcess): string {
  const m = /"dashboard":"(http:[^"]+)"/.exec(p.stderr());
  const token = m?.[1] ? new URL(m[1]).searchParams.get("token") : null;
  if (!token) throw new Error(`no dashboard URL with a token in the log:\n${p.stderr()}`);
  return token;
}

async function gql<T>(url: string, query: string, token: string): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return ((await res.json()) as { data: T }).data;
}

describe("prospero serve --demo", () => {
  it("runs a living fleet on the caliband simulator and cleans up after itself", async () => {
    p = await startServe(["--demo"]);
    await waitForStatus(`${p.url}/readyz`, 200);
    const dir = /"dir":"([^"]+)"/.exec(p.stderr())?.[1];
    expect(dir && fs.existsSync(dir)).toBeTruthy();
    await waitFor(() => /"dashboard":"http/.test(p!.stderr()), 10_000, "the dashboard URL in the log");
    const token = demoToken(p);
    // The CLI on the same machine finds the demo's token by itself: `prospero status` with no flags.
    const status = await runProspero(["status", "--url", p.url], {
      XDG_RUNTIME_DIR: p.env.XDG_RUNTIME_DIR,
      PROSPERO_TOKEN: undefined,
    });
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/gateway\s+http:\/\/127\.0\.0\.1:\d+.*ready/);
    type Agents = {
      workspaces: {
        name: string;
        health: { state: string };
        agents: { edges: { node: { name: string; status: string } }[] };
      }[];
    };
    const data = await waitFor(
      async () => {
        const d = await gql<Agents>(
          p!.url,
          `{ workspaces { name health { state } agents { edges { node { name status } } } } }`,
          token,
        );
        const names = d.workspaces[0]?.agents.edges.map((e) => e.node.name) ?? [];
        return names.length >= 3 ? d : undefined;
      },
      20_000,
      "demo agents",
    );
    expect(data.workspaces[0]).toMatchObject({ name: "demo", health: { state: "HEALTHY" } });
    expect(data.workspaces[0]!.agents.edges.map((e) => e.node.name).sort()).toEqual(
      expect.arrayContaining(["flaky-hunter", "pair-programmer", "summarize-readme"]),
    );
    // A second workspace added during the demo gets its own simulator; stopping the demo stops it too.
    const extra = path.join(dir!, "extra");
    fs.mkdirSync(extra);
    const added = await gql<{ addWorkspace: { __typename: string } }>(
      p.url,
      `mutation { addWorkspace(input: { name: "extra", root: "${extra}" }) { __typename } }`,
      token,
    );
    expect(added.addWorkspace.__typename).toBe("AddWorkspacePayload");
    p.child.kill("SIGTERM");
    expect(await p.exited, p.stderr()).toBe(0);
    expect(fs.existsSync(dir!)).toBe(false);
    // Nothing of this demo is left in the simulator's default session store either.
    const simBase = path.join(os.tmpdir(), "prospero-fake-caliband");
    const stray = fs.existsSync(simBase)
      ? fs.readdirSync(simBase).filter((e) => e.includes(path.basename(dir!)))
      : [];
    expect(stray).toEqual([]);
    const leftover = spawnSync("pgrep", ["-f", dir!], { encoding: "utf8" }).stdout.trim();
    expect(leftover).toBe("");
  });

  it("a demo that cannot start (port taken) says how to fix it and leaves no temp directory", async () => {
    p = await startServe(["--demo"]);
    const port = new URL(p.url).port;
    const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith("prospero-demo-")).length;
    const res = await runProspero(["serve", "--demo", "--port", port]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/EADDRINUSE.*--port/);
    const after = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith("prospero-demo-")).length;
    expect(after).toBe(before);
  });
});
