/**
 * Unit tests of the resume logic under `agentEvents` (a scripted subscribe primitive, no server):
 * re-subscribing asks for events after the last delivered cursor, repeats are dropped by seq, a
 * GapEvent goes to onGap only; and of the failure classification of subscriptions.
 */
import { describe, expect, it } from "vitest";
import { followAgentEvents, type AgentStreamItem, type SubscribeFn } from "../../src/sdk/agent-events.js";
import { GraphQLRequestError, NetworkError } from "../../src/sdk/errors.js";
import { backoffMs, classifySubscriptionFailure, DEFAULT_RETRY } from "../../src/sdk/subscriptions.js";

const out = (seq: number): AgentStreamItem => ({
  __typename: "OutputEvent",
  id: `ev${seq}`,
  seq,
  cursor: `c${seq}`,
  ts: "2026-11-29T00:00:00.000Z",
  streamKey: "a",
  workspace: "demo",
  agentId: "a",
  turnIndex: 0,
  blockIndex: 0,
  stream: "TEXT",
  text: `t${seq}`,
});

describe("followAgentEvents", () => {
  it("re-subscribes after the last delivered cursor and drops repeated seqs", async () => {
    const asked: (string | null)[] = [];
    let round = 0;
    const subscribe: SubscribeFn = (variables, handlers) => {
      const go = () => {
        asked.push(variables().after);
        round++;
        if (round === 1) {
          for (const s of [1, 2, 3]) handlers.onNext({ agentEvents: out(s) });
          handlers.onReconnect?.({
            attempt: 1,
            delayMs: 0,
            error: new NetworkError("ws://x", "closed 1006"),
          });
          setTimeout(go, 0);
        } else {
          // A transport that replays too much: 2 and 3 again, then new ones, a GapEvent, and the end.
          for (const s of [2, 3, 4]) handlers.onNext({ agentEvents: out(s) });
          handlers.onNext({
            agentEvents: {
              __typename: "GapEvent",
              id: "gap4",
              seq: 4,
              cursor: "c4",
              ts: "2026-11-29T00:00:00.000Z",
              streamKey: "a",
              workspace: "demo",
              agentId: "a",
              gapReason: "slow",
            },
          });
          handlers.onNext({ agentEvents: out(5) });
          handlers.onComplete?.();
        }
      };
      setTimeout(go, 0);
      return () => {};
    };
    const seqs: number[] = [];
    const gaps: string[] = [];
    const reconnects: (string | null)[] = [];
    const r = await followAgentEvents(subscribe, "a", {
      after: "c0",
      onEvent: (e) => seqs.push(e.seq),
      onGap: (g) => gaps.push(g.gapReason),
      onReconnect: (i) => reconnects.push(i.lastCursor),
    });
    expect(asked).toEqual(["c0", "c3"]);
    expect(reconnects).toEqual(["c3"]);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(gaps).toEqual(["slow"]);
    expect(r).toEqual({ completed: true, lastCursor: "c5", lastSeq: 5, delivered: 5 });
  });

  it("rejects with the subscription's error and with what onEvent throws (then unsubscribes)", async () => {
    let stopped = 0;
    const failing: SubscribeFn = (_v, handlers) => {
      setTimeout(() => handlers.onError?.(new GraphQLRequestError([{ message: "agent not found: a" }])), 0);
      return () => stopped++;
    };
    await expect(followAgentEvents(failing, "a", { onEvent: () => {} })).rejects.toThrow(
      "agent not found: a",
    );
    const emitting: SubscribeFn = (_v, handlers) => {
      setTimeout(() => handlers.onNext({ agentEvents: out(1) }), 0);
      return () => stopped++;
    };
    await expect(
      followAgentEvents(emitting, "a", {
        onEvent: () => {
          throw new Error("consumer failed");
        },
      }),
    ).rejects.toThrow("consumer failed");
    expect(stopped).toBe(2);
  });

  it("an already aborted signal resolves at once without subscribing", async () => {
    let subscribed = false;
    const r = await followAgentEvents(
      () => {
        subscribed = true;
        return () => {};
      },
      "a",
      { onEvent: () => {}, signal: AbortSignal.abort() },
    );
    expect(subscribed).toBe(false);
    expect(r.completed).toBe(false);
  });
});

describe("classifySubscriptionFailure", () => {
  const ep = "ws://127.0.0.1:1/graphql";
  it("GraphQL errors are final GraphQLRequestErrors", () => {
    const c = classifySubscriptionFailure(ep, [
      { message: "agent not found: x", extensions: { code: "NOT_FOUND" } },
    ]);
    expect(c.retryable).toBe(false);
    expect(c.error).toBeInstanceOf(GraphQLRequestError);
    expect((c.error as GraphQLRequestError).codes).toEqual(["NOT_FOUND"]);
  });
  it("dropped connections are retried; protocol refusals are not", () => {
    for (const code of [1000, 1001, 1006, 4499]) {
      expect(classifySubscriptionFailure(ep, { code, reason: "" }).retryable).toBe(true);
    }
    for (const code of [4400, 4401, 4403, 4500]) {
      const c = classifySubscriptionFailure(ep, { code, reason: "nope" });
      expect(c.retryable).toBe(false);
      expect(c.error).toMatchObject({
        name: "NetworkError",
        closeCode: code,
        reason: `WebSocket closed ${code}: nope`,
      });
    }
    const refused = classifySubscriptionFailure(ep, {
      type: "error",
      error: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
    });
    expect(refused).toMatchObject({ retryable: true, error: { reason: "ECONNREFUSED", endpoint: ep } });
  });
  it("backoff doubles from minDelayMs up to maxDelayMs, with ±25 % jitter", () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const base = Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.minDelayMs * 2 ** (attempt - 1));
      const d = backoffMs(attempt, DEFAULT_RETRY);
      expect(d).toBeGreaterThanOrEqual(Math.floor(base * 0.75));
      expect(d).toBeLessThanOrEqual(Math.ceil(base * 1.25));
    }
  });
});
