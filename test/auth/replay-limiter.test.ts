import { describe, expect, it } from "vitest";
import { ReplayLimiter } from "../../src/bus/replay-limiter.js";

/** A read that stays in flight until released. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe("ReplayLimiter", () => {
  it("never runs more than `concurrency` reads at once", async () => {
    const lim = new ReplayLimiter(2);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        lim.run(`c${i % 3}`, async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 2));
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(lim.inFlight).toBe(0);
  });

  it("serves waiting clients round-robin: a client with 50 reads queued cannot starve one that asks once", async () => {
    const lim = new ReplayLimiter(1);
    const order: string[] = [];
    const first = gate();
    const blocker = lim.run("greedy", async () => {
      order.push("greedy-0");
      await first.promise;
    });
    const greedy = Array.from({ length: 50 }, (_, i) =>
      lim.run("greedy", async () => {
        order.push(`greedy-${i + 1}`);
      }),
    );
    const modest = lim.run("modest", async () => {
      order.push("modest");
    });
    first.open();
    await Promise.all([blocker, ...greedy, modest]);
    // The modest client's one read runs right after the greedy client's next one, not after all 50.
    expect(order.indexOf("modest")).toBeLessThanOrEqual(2);
    expect(order).toHaveLength(52);
  });

  it("a failing read releases its slot and rejects only its caller", async () => {
    const lim = new ReplayLimiter(1);
    await expect(lim.run("a", () => Promise.reject(new Error("disk")))).rejects.toThrow("disk");
    await expect(lim.run("a", () => Promise.resolve(7))).resolves.toBe(7);
    expect(lim.inFlight).toBe(0);
  });
});
