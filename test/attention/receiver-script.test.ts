/**
 * The README's webhook walk-through as processes (issue 15 "Done when"): the example receiver
 * (scripts/webhook-receiver.ts) listens on loopback, `prospero webhook add` registers it (the
 * secret printed once, on stdout, into a file), a scripted agent fails, and the receiver prints a
 * verified, signed `run.failed` notification. With another secret the same delivery is refused.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, spawnAgent } from "../cli/run-cli.js";

const SCRIPT = path.resolve(import.meta.dirname, "../../scripts/webhook-receiver.ts");

/** A running receiver process: its port and what it printed so far. */
interface Receiver {
  child: ChildProcessWithoutNullStreams;
  port: number;
  out: () => string;
}

async function startReceiver(secretFile: string): Promise<Receiver> {
  const child = spawn(process.execPath, [
    "--import",
    "tsx",
    SCRIPT,
    "--secret-file",
    secretFile,
    "--port",
    "0",
  ]);
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(err), 20_000);
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(err)![1]);
  return { child, port, out: () => out };
}

let h: AppHarness;
let dir: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  h = await startAppHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "prospero-receiver-"));
});

afterAll(async () => {
  for (const r of receivers) r.child.kill("SIGTERM");
  await h?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the example webhook receiver", () => {
  it("prints a signed run.failed notification it verified with the hook's secret", async () => {
    // The secret must exist before the receiver starts: register against a placeholder first.
    const secretFile = path.join(dir, "hook-secret");
    fs.writeFileSync(secretFile, "placeholder-secret-0123456789");
    const r = await startReceiver(secretFile);
    receivers.push(r);
    const add = await cli(h.url, [
      "webhook",
      "add",
      `http://127.0.0.1:${r.port}/hook`,
      "--event",
      "run.failed",
      "--secret-file",
      secretFile,
    ]);
    expect(add.code, add.stderr).toBe(0);

    const agentId = await spawnAgent(h.url, "fake:exit=1 a run that fails");
    await waitFor(() => r.out().includes("run.failed"), 30_000);
    expect(r.out()).toMatch(/^signature ok +run\.failed +\S/m);
    expect(r.out()).not.toContain("BAD SIGNATURE");
    const hooks = await h.app.db.prisma.webhookDelivery.findMany({ where: { eventType: "run.failed" } });
    expect(hooks.map((d) => [d.state, d.lastStatus])).toEqual([["DELIVERED", 204]]);
    expect(agentId).toMatch(/^[0-9a-f]{12}$/);
  });

  it("refuses (401) a delivery signed with another secret, so Prospero retries and logs it", async () => {
    const wrong = path.join(dir, "wrong-secret");
    fs.writeFileSync(wrong, "not-the-hooks-secret-0123456789");
    const r = await startReceiver(wrong);
    receivers.push(r);
    const add = await cli(h.url, [
      "webhook",
      "add",
      `http://127.0.0.1:${r.port}/other`,
      "--event",
      "run.failed",
    ]);
    expect(add.code, add.stderr).toBe(0);
    const id = (await h.app.db.prisma.webhook.findFirst({
      where: { url: `http://127.0.0.1:${r.port}/other` },
    }))!.id;
    const test = await cli(h.url, ["webhook", "test", id]);
    expect(test.code).toBe(1);
    await waitFor(() => r.out().includes("BAD SIGNATURE"), 20_000);
    const d = await h.app.db.prisma.webhookDelivery.findFirst({ where: { webhookId: id } });
    expect(d?.lastStatus).toBe(401);
  });
});
