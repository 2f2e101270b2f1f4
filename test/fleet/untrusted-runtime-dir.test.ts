// A workspace whose caliband runtime dir anyone can write is unreachable with the trust reason,
// and its daemon receives nothing (issue 11 item 8): another local user could have planted the
// socket and would read our prompts. Once the operator fixes the mode, the next poll recovers.
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startDaemon, startFleet, waitFor } from "../helpers/fleet-harness.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("untrusted caliband runtime dir", () => {
  it("marks the workspace unreachable with the owner/mode reason and sends the daemon nothing", async () => {
    const d = await startDaemon();
    cleanups.push(() => d.close());
    fs.chmodSync(d.ws.runtime, 0o777);
    const h = await startFleet({ runtimeDir: d.ws.runtime, pollIntervalMs: 50 });
    cleanups.push(() => h.close());

    await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
    const health = h.fleet.state.healthOf("demo");
    expect(health.state).toBe("unreachable");
    expect(health.reason).toContain(`caliband unreachable at ${d.daemon.socketPath}: untrusted: runtime dir`);
    expect(health.reason).toContain(`${d.ws.runtime} has owner uid ${process.geteuid?.()} and mode 0777`);
    expect(health.reason).toContain("(writable by group and others)");
    expect(health.reason).toContain("nothing was sent");
    // several polls later: still nothing reached the double
    const polls = h.fleet.metrics.polls_total;
    await waitFor(() => h.fleet.metrics.polls_total >= polls + 5, 5_000, "more polls");
    expect(h.fleet.state.healthOf("demo").state).toBe("unreachable");
    expect(d.daemon.requests).toEqual([]);
    const events = (await h.store.readStream("workspace:demo", 0, 100)).map((e) => e.payload);
    // (addWorkspace's own poll can race the poll loop's first round; each may record the transition)
    expect(events.length).toBeGreaterThanOrEqual(1);
    for (const e of events) expect(e).toEqual({ state: "unreachable", reason: health.reason });

    // the operator makes the dir private: the workspace recovers on its own
    fs.chmodSync(d.ws.runtime, 0o700);
    await waitFor(() => h.fleet.state.healthOf("demo").state === "healthy", 5_000, "healthy");
    expect(d.daemon.requests.some((r) => r.line.includes('"list"'))).toBe(true);
  });

  it.skipIf(process.geteuid?.() !== 0)(
    "a runtime dir owned by another user (chown, root only) makes the workspace unreachable",
    async () => {
      const d = await startDaemon();
      cleanups.push(() => d.close());
      fs.chmodSync(d.ws.runtime, 0o700);
      fs.chownSync(d.ws.runtime, 65534, 65534);
      const h = await startFleet({ runtimeDir: d.ws.runtime, pollIntervalMs: 50 });
      cleanups.push(() => h.close());
      await h.fleet.addWorkspace({ name: "demo", root: d.ws.root });
      expect(h.fleet.state.healthOf("demo")).toMatchObject({ state: "unreachable" });
      expect(h.fleet.state.healthOf("demo").reason).toContain(
        `${d.ws.runtime} has owner uid 65534 and mode 0700; expected a directory owned by uid 0 (this user)`,
      );
      expect(d.daemon.requests).toEqual([]);
    },
  );
});
