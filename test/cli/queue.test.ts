/**
 * The launch-queue commands (issue 14) — enqueue, queue, launch, cancel, caps, budget, schedule —
 * as the real `bin/prospero.js` against a real gateway (in-process, real port, real SQLite, the
 * caliband double's "demo" workspace and its scripted workers): what a user reads, the JSON a
 * script reads, exit codes, and bad input refused with nothing stored. Plus the command-line value
 * parsers (pure).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "commander";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson, closedPort } from "./run-cli.js";
import {
  collectStates,
  parseBudgetPeriod,
  parseBudgetTarget,
  parseCapMax,
  parseCapTarget,
  parseDuration,
  parseNotBefore,
  parsePriority,
  parseRetries,
  parseTimeout,
  parseUsd,
} from "../../src/cli/commands/queue.js";
import { parseMissed, parseOverlap } from "../../src/cli/commands/schedule.js";

describe("command-line values of the queue commands", () => {
  it("durations: a whole number and an optional unit, a bare number is ms; nothing else", () => {
    expect(["90s", "30m", "2h", "1d", "1500ms", "250", " 5s "].map((v) => parseDuration("--x", v))).toEqual([
      90_000, 1_800_000, 7_200_000, 86_400_000, 1500, 250, 5000,
    ]);
    for (const bad of ["", "1.5h", "-1s", "1h30m", "5 s", "5x", "s", "1e3", "99999999999999999d"]) {
      expect(() => parseDuration("--x", bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => parseDuration("--backoff", "soon")).toThrow(/--backoff must be a whole number/);
  });

  it("--timeout 1s … 7d, --priority 0 … 100, --retries 0 … 19", () => {
    expect(parseTimeout("1s")).toBe(1000);
    expect(parseTimeout("7d")).toBe(7 * 86_400_000);
    for (const bad of ["0", "999", "500ms", "8d"]) expect(() => parseTimeout(bad), bad).toThrow(/--timeout/);
    expect([parsePriority("0"), parsePriority("100")]).toEqual([0, 100]);
    for (const bad of ["500", "-1", "1.5", "high", "101"])
      expect(() => parsePriority(bad), bad).toThrow(/--priority/);
    expect([parseRetries("0"), parseRetries("19")]).toEqual([0, 19]);
    for (const bad of ["20", "-1", "two"]) expect(() => parseRetries(bad), bad).toThrow(/--retries/);
  });

  it("--not-before: +duration from now, or an ISO date/time on the calendar", () => {
    const now = () => Date.parse("2026-12-01T10:00:00Z");
    expect(parseNotBefore("+5m", now)).toBe("2026-12-01T10:05:00.000Z");
    expect(parseNotBefore("2026-12-24T18:30:00+01:00", now)).toBe("2026-12-24T17:30:00.000Z");
    expect(parseNotBefore("2027-01-01", now)).toBe("2027-01-01T00:00:00.000Z");
    for (const bad of ["tomorrow", "2026-02-30T00:00:00Z", "+", "+5 minutes", "12/24/2026", "2026-13-01"]) {
      expect(() => parseNotBefore(bad, now), bad).toThrow(/--not-before/);
    }
  });

  it("cap and budget scopes, maxima, periods, amounts; schedule policies", () => {
    expect(parseCapTarget("global")).toEqual({ scope: "GLOBAL", key: null });
    expect(parseCapTarget("GLOBAL")).toEqual({ scope: "GLOBAL", key: null });
    expect(parseCapTarget("workspace:demo")).toEqual({ scope: "WORKSPACE", key: "demo" });
    expect(parseCapTarget("provider:Anthropic")).toEqual({ scope: "PROVIDER", key: "anthropic" });
    expect(parseCapTarget("model:ollama:llama3:8b")).toEqual({ scope: "MODEL", key: "ollama:llama3:8b" });
    for (const bad of ["galaxy:x", "workspace", "workspace:", "global:x", ""]) {
      expect(() => parseCapTarget(bad), bad).toThrow(InvalidArgumentError);
    }
    expect([parseCapMax("0"), parseCapMax("12"), parseCapMax("none")]).toEqual([0, 12, null]);
    for (const bad of ["-1", "2.5", "many"])
      expect(() => parseCapMax(bad), bad).toThrow(InvalidArgumentError);
    expect(parseBudgetTarget("provider:OpenAI")).toEqual({ scope: "PROVIDER", key: "openai" });
    for (const bad of ["model:x", "workspace:", "team:a"])
      expect(() => parseBudgetTarget(bad), bad).toThrow(InvalidArgumentError);
    expect([parseBudgetPeriod("day"), parseBudgetPeriod("Month")]).toEqual(["DAY", "MONTH"]);
    expect(() => parseBudgetPeriod("week")).toThrow(InvalidArgumentError);
    expect([parseUsd("10"), parseUsd("$2.50"), parseUsd("none")]).toEqual([10, 2.5, null]);
    for (const bad of ["-3", "ten", "1,5"]) expect(() => parseUsd(bad), bad).toThrow(InvalidArgumentError);
    expect([parseOverlap("skip"), parseOverlap("QUEUE"), parseOverlap("allow")]).toEqual([
      "SKIP",
      "QUEUE",
      "ALLOW",
    ]);
    expect([parseMissed("skip"), parseMissed("run-once"), parseMissed("RUN_ONCE")]).toEqual([
      "SKIP",
      "RUN_ONCE",
      "RUN_ONCE",
    ]);
    expect(() => parseOverlap("sometimes")).toThrow(InvalidArgumentError);
    expect(() => parseMissed("later")).toThrow(InvalidArgumentError);
  });

  it("--state: launch states, comma-separated and repeatable, any case, no repeats; nothing else", () => {
    expect(collectStates("timed_out, Failed")).toEqual(["TIMED_OUT", "FAILED"]);
    expect(collectStates("timed-out,queued", ["FAILED", "TIMED_OUT"])).toEqual([
      "FAILED",
      "TIMED_OUT",
      "QUEUED",
    ]);
    for (const bad of ["", ",", "done", "unknown", "timed out", "RUNNING,bogus"]) {
      expect(() => collectStates(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => collectStates("done")).toThrow(
      /^--state must be a launch state: one of queued, dispatched, running, succeeded, failed, timed_out, cancelled .*got "done"$/,
    );
  });
});

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** A launch's state as stored. */
const stateOf = async (id: string) =>
  (await h.app.db.prisma.launch.findUnique({ where: { id }, select: { state: true } }))?.state;

/** A unique word for prompts (fake:fail-first counts runs per exact prompt). */
const uniq = () => Math.random().toString(36).slice(2, 10);

interface LaunchNode {
  launchId: string;
  state: string;
  priority: number;
  queuePosition: number | null;
  waitingFor: {
    kind: string;
    message: string;
    scope: string | null;
    inUse: number | null;
    max: number | null;
  } | null;
}
interface QueueJson {
  queued: { totalCount: number; edges: { node: LaunchNode }[] };
  active: { totalCount: number; edges: { node: LaunchNode }[] };
  final?: { totalCount: number; edges: { node: LaunchNode }[] };
  queue: { depth: number; caps: { scope: string; key: string; max: number; inUse: number }[] };
}
interface LaunchJson {
  launch: {
    launchId: string;
    state: string;
    reason: string | null;
    retry: { maxAttempts: number; backoffMs: number };
    timeoutMs: number | null;
    schedule: { scheduleId: string } | null;
    attempts: {
      n: number;
      agentId: string | null;
      outcome: string | null;
      error: string | null;
      transient: boolean | null;
    }[];
    transitions: { totalCount: number; edges: { node: { from: string | null; to: string } }[] };
  } | null;
}

/** `enqueue … --json` and return the launch id. */
async function enqueue(args: string[]): Promise<string> {
  const data = await cliJson<{ enqueueLaunch: { __typename: string; launch?: { launchId: string } } }>(
    h.url,
    ["enqueue", ...args],
  );
  if (!data.enqueueLaunch.launch) throw new Error(`enqueue failed: ${JSON.stringify(data)}`);
  return data.enqueueLaunch.launch.launchId;
}

describe("the launch queue on the command line", () => {
  it("under `caps set global 0` an enqueued launch waits, and `queue` says where and why; cancel", async () => {
    const set = await cli(h.url, ["caps", "set", "global", "0"]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^cap global set to 0 \(0 in use\)\ncaps in use: global 0\/0\n$/);
    const caps = await cliJson<{ caps: { scope: string; max: number }[] }>(h.url, ["caps"]);
    expect(caps.caps[0]).toMatchObject({ scope: "GLOBAL", max: 0 });

    const low = await cli(h.url, ["enqueue", "demo", "low one", "--priority", "10", "--label", "low"]);
    expect(low.stderr).toBe("");
    expect(low.code).toBe(0);
    const m =
      /^queued ([0-9a-f]{12}) in demo · QUEUED · position 1 · waits: cap global: 0 of 0 runs in use\n/.exec(
        low.stdout,
      );
    expect(m, low.stdout).not.toBeNull();
    const lowId = m![1]!;
    const highId = await enqueue(["demo", "high one", "--priority", "90", "--dedup-key", "cli-k1"]);
    // The same dedup key again: the same launch, said so.
    const again = await cli(h.url, [
      "enqueue",
      "demo",
      "high one",
      "--priority",
      "90",
      "--dedup-key",
      "cli-k1",
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`^already queued \\(same dedup key\\): ${highId} in demo · QUEUED`),
    );
    // Another spec under the same key is refused (4), naming the conflict.
    const conflict = await cli(h.url, ["enqueue", "demo", "other text", "--dedup-key", "cli-k1"]);
    expect(conflict.code).toBe(4);
    expect(conflict.stderr).toMatch(/^prospero: enqueue in demo: .+ \[CONFLICT\]\n$/);

    // Dispatch order: the higher priority first, each waiting for the full global cap.
    const q = await waitFor(
      async () => {
        const j = await cliJson<QueueJson>(h.url, ["queue"]);
        return j.queued.edges.every((e) => e.node.waitingFor !== null) ? j : null;
      },
      10_000,
      "both placed",
    );
    expect(q.queued.edges.map((e) => [e.node.launchId, e.node.queuePosition])).toEqual([
      [highId, 1],
      [lowId, 2],
    ]);
    for (const e of q.queued.edges) {
      expect(e.node.waitingFor).toMatchObject({
        kind: "CAP",
        scope: "GLOBAL",
        inUse: 0,
        max: 0,
        message: "cap global: 0 of 0 runs in use",
      });
    }
    expect(q.active.totalCount).toBe(0);
    expect(q.final).toBeUndefined();
    expect(q.queue.caps.find((c) => c.scope === "GLOBAL")).toMatchObject({ max: 0, inUse: 0 });

    const human = await cli(h.url, ["queue"]);
    expect(human.code).toBe(0);
    const lines = human.stdout.split("\n");
    expect(lines[0]).toBe("waiting, in dispatch order (2)");
    expect(lines[1]).toMatch(/^POS +ID +WORKSPACE +PRIORITY +AGE +NAME +WHY IT WAITS$/);
    expect(lines[2]).toMatch(
      new RegExp(`^1 +${highId} +demo +90 +\\d+s +high one +cap global: 0 of 0 runs in use$`),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^2 +${lowId} +demo +10 +\\d+s +low +cap global: 0 of 0 runs in use$`),
    );
    expect(human.stdout).toContain("dispatched and running (0)\n  none\n");
    expect(human.stdout).toContain("caps in use: global 0/0\n");
    expect(human.stdout).toContain("budgets:     none\n");

    // Cancel: the launch ends CANCELLED; again is refused (4); an unknown launch is not found (3).
    const cancel = await cli(h.url, ["cancel", lowId]);
    expect(cancel.stderr).toBe("");
    expect(cancel).toMatchObject({ code: 0, stdout: `cancelled ${lowId} · CANCELLED\n` });
    expect(await stateOf(lowId)).toBe("CANCELLED");
    const [twice, unknown] = await Promise.all([
      cli(h.url, ["cancel", lowId]),
      cli(h.url, ["cancel", "000000000000"]),
    ]);
    expect(twice.code).toBe(4);
    expect(twice.stderr).toMatch(new RegExp(`^prospero: cancel ${lowId}: .+ \\[INVALID_STATE\\]\\n$`));
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/\[NOT_FOUND\]\n$/);
    const shown = await cliJson<LaunchJson>(h.url, ["launch", lowId]);
    expect(shown.launch).toMatchObject({ state: "CANCELLED", attempts: [] });
    expect(shown.launch!.transitions.edges.map((e) => [e.node.from, e.node.to])).toEqual([
      [null, "QUEUED"],
      ["QUEUED", "CANCELLED"],
    ]);
    expect((await cli(h.url, ["launch", "000000000000"])).code).toBe(3);

    const all = await cliJson<QueueJson>(h.url, ["queue", "--all"]);
    expect(all.queued.edges.map((e) => e.node.launchId)).toEqual([highId]);
    expect(all.final!.edges.map((e) => [e.node.launchId, e.node.state])).toContainEqual([lowId, "CANCELLED"]);
    const allHuman = await cli(h.url, ["queue", "--all", "--workspace", "demo"]);
    expect(allHuman.stdout).toMatch(
      new RegExp(`finished, newest first by creation \\(\\d+\\)\\n.*\\n${lowId} +demo +CANCELLED`),
    );

    expect((await cli(h.url, ["cancel", highId])).code).toBe(0);
    expect((await cli(h.url, ["caps", "set", "global", "5"])).code).toBe(0);
  }, 60_000);

  it("launch <id>: a run's attempt and transitions; --retries retries a 429; --timeout ends TIMED_OUT", async () => {
    const ok = await enqueue(["demo", `quick ${uniq()}`]);
    const retried = await enqueue([
      "demo",
      `fake:provider-error=429 fake:fail-first=2 retried ${uniq()}`,
      "--retries",
      "3",
      "--backoff",
      "100ms",
    ]);
    const slow = await enqueue(["demo", `fake:hold=60000 slow ${uniq()}`, "--timeout", "1s"]);
    await waitFor(async () => (await stateOf(ok)) === "SUCCEEDED", 20_000, "quick launch succeeded");

    const one = await cliJson<LaunchJson>(h.url, ["launch", ok]);
    expect(one.launch).toMatchObject({ state: "SUCCEEDED", retry: { maxAttempts: 1 } });
    expect(one.launch!.attempts).toHaveLength(1);
    expect(one.launch!.attempts[0]).toMatchObject({
      n: 1,
      outcome: "SUCCEEDED",
      agentId: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(one.launch!.transitions.edges.map((e) => e.node.to)).toEqual([
      "QUEUED",
      "DISPATCHED",
      "RUNNING",
      "SUCCEEDED",
    ]);
    const text = await cli(h.url, ["launch", ok]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^launch ${ok} in demo · SUCCEEDED\\n`));
    expect(text.stdout).toContain("attempts (1 of at most 1)");
    expect(text.stdout).toMatch(
      new RegExp(`\\n    1 +${one.launch!.attempts[0]!.agentId} +\\S+ +\\S+ +\\S+ +SUCCEEDED +—\\n`),
    );
    expect(text.stdout).toContain("transitions (4)");
    expect(text.stdout).toMatch(/ RUNNING → SUCCEEDED /);

    await waitFor(async () => (await stateOf(retried)) === "SUCCEEDED", 30_000, "retried launch succeeded");
    const r = await cliJson<LaunchJson>(h.url, ["launch", retried]);
    expect(r.launch!.retry).toMatchObject({ maxAttempts: 4, backoffMs: 100 });
    expect(r.launch!.attempts.map((a) => a.n)).toEqual([1, 2, 3]);
    for (const a of r.launch!.attempts.slice(0, 2)) {
      expect(a.transient).toBe(true);
      expect(a.error).toMatch(/429/);
    }
    expect(r.launch!.attempts[2]!.outcome).toBe("SUCCEEDED");

    await waitFor(async () => (await stateOf(slow)) === "TIMED_OUT", 20_000, "slow launch timed out");
    const t = await cliJson<LaunchJson>(h.url, ["launch", slow]);
    expect(t.launch).toMatchObject({ state: "TIMED_OUT", timeoutMs: 1000 });
    expect(t.launch!.attempts[0]!.outcome).toBe("TIMED_OUT");
    const tText = await cli(h.url, ["launch", slow]);
    expect(tText.stdout).toMatch(new RegExp(`^launch ${slow} in demo · TIMED_OUT\\n`));
    expect(tText.stdout).toContain("timeout       1.0 s");
  }, 90_000);

  it("queue --state lists only launches in those states, each in its section; a bad state is exit 2", async () => {
    const timed = await enqueue(["demo", `fake:hold=60000 state-timed ${uniq()}`, "--timeout", "1s"]);
    const ok = await enqueue(["demo", `state-ok ${uniq()}`, "--label", "state-ok"]);
    await waitFor(
      async () => (await stateOf(timed)) === "TIMED_OUT" && (await stateOf(ok)) === "SUCCEEDED",
      30_000,
      "one launch timed out, one succeeded",
    );

    // A final state alone: only the finished section (no --all needed), only that state.
    const j = await cliJson<QueueJson>(h.url, ["queue", "--state", "timed_out"]);
    expect(Object.keys(j).sort()).toEqual(["final", "queue"]);
    const ids = j.final!.edges.map((e) => e.node.launchId);
    expect(ids).toContain(timed);
    expect(ids).not.toContain(ok);
    expect(new Set(j.final!.edges.map((e) => e.node.state))).toEqual(new Set(["TIMED_OUT"]));
    expect(j.final!.totalCount).toBe(await h.app.db.prisma.launch.count({ where: { state: "TIMED_OUT" } }));

    // Repeated and comma-separated, with --all: one finished section, newest first by creation.
    const text = await cli(h.url, [
      "queue",
      "--all",
      "--state",
      "TIMED_OUT",
      "--state",
      "succeeded,timed-out",
      "--workspace",
      "demo",
      "--limit",
      "10000",
    ]);
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(/waiting, in dispatch order|dispatched and running/);
    expect(text.stdout).toMatch(
      /^finished, newest first by creation · only SUCCEEDED, TIMED_OUT \(\d+\)\nID +WORKSPACE +STATE +ATTEMPT +ENDED +NAME +REASON\n/,
    );
    const rows = text.stdout.split("\n");
    const okRow = rows.findIndex((l) => new RegExp(`^${ok} +demo +SUCCEEDED +1/1 `).test(l));
    const timedRow = rows.findIndex((l) => new RegExp(`^${timed} +demo +TIMED_OUT +1/1 `).test(l));
    expect(okRow, text.stdout).toBeGreaterThan(0);
    expect(timedRow, text.stdout).toBeGreaterThan(okRow); // enqueued first, so listed later
    for (const l of rows.slice(2)) {
      if (/^[0-9a-f]{12} /.test(l)) expect(l).toMatch(/^\S+ +demo +(SUCCEEDED|TIMED_OUT) /);
    }

    // Non-final states: their sections only, no finished one even with --all.
    const live = await cliJson<QueueJson>(h.url, ["queue", "--all", "--state", "queued,running"]);
    expect(Object.keys(live).sort()).toEqual(["active", "queue", "queued"]);
    const liveText = await cli(h.url, ["queue", "--state", "running"]);
    expect(liveText.stdout).toMatch(/^dispatched and running · only RUNNING \(\d+\)\n/);

    // Bad states: usage (2), naming the option and the accepted states; nothing sent.
    for (const bad of ["bogus", "unknown", "timed_out,done", ","]) {
      const r = await cli(h.url, ["queue", "--state", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stdout, bad).toBe("");
      expect(r.stderr, bad).toMatch(
        /--state (must be|needs) a launch state: one of queued, dispatched, running, succeeded, failed, timed_out, cancelled/,
      );
    }
  }, 60_000);

  it("schedule add, ls, show, pause, resume, run, rm", async () => {
    const add = await cli(h.url, [
      "schedule",
      "add",
      "new-year",
      "demo",
      "0 9 1 1 *",
      `happy new year ${uniq()}`,
      "--tz",
      "Europe/Paris",
      "--overlap",
      "queue",
      "--missed",
      "run-once",
      "--priority",
      "20",
      "--timeout",
      "30m",
      "--retries",
      "2",
    ]);
    expect(add.stderr).toBe("");
    expect(add.code).toBe(0);
    const m =
      /^created schedule ([0-9a-f]{12}) new-year in demo · 0 9 1 1 \* \(Europe\/Paris\) · next fire (\S+) \(in \d+[smhd]\)\n/.exec(
        add.stdout,
      );
    expect(m, add.stdout).not.toBeNull();
    const id = m![1]!;
    // 09:00 in Paris on January 1st is 08:00 UTC.
    expect(m![2]).toMatch(/^\d{4}-01-01T08:00:00\.000Z$/);

    type Ls = {
      schedules: {
        totalCount: number;
        edges: {
          node: {
            scheduleId: string;
            paused: boolean;
            timeZone: string;
            overlap: string;
            missed: string;
            nextFireAt: string | null;
            deletedAt: string | null;
            template: { priority: number; timeoutMs: number | null; retry: { maxAttempts: number } };
          };
        }[];
      };
    };
    const mine = async (args: string[] = []) =>
      (await cliJson<Ls>(h.url, ["schedule", "ls", ...args])).schedules.edges.find(
        (e) => e.node.scheduleId === id,
      )?.node;
    expect(await mine()).toMatchObject({
      paused: false,
      timeZone: "Europe/Paris",
      overlap: "QUEUE",
      missed: "RUN_ONCE",
      nextFireAt: m![2],
      template: { priority: 20, timeoutMs: 1_800_000, retry: { maxAttempts: 3 } },
    });
    const ls = await cli(h.url, ["schedule", "ls"]);
    expect(ls.stdout).toMatch(/^ID +NAME +WORKSPACE +CRON +TZ +NEXT FIRE +LAST FIRE +PAUSED\n/);
    expect(ls.stdout).toMatch(
      new RegExp(`\\n${id} +new-year +demo +0 9 1 1 \\* +Europe/Paris +${m![2]} \\(in \\S+\\) +— +no\\n`),
    );

    const pause = await cli(h.url, ["schedule", "pause", id]);
    expect(pause).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^paused schedule ${id} new-year .* · paused\\n$`)),
    });
    expect(await mine()).toMatchObject({ paused: true });
    const resume = await cli(h.url, ["schedule", "resume", id]);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toMatch(new RegExp(`^resumed schedule ${id} .* · next fire `));
    expect(await mine()).toMatchObject({ paused: false });

    const run = await cli(h.url, ["schedule", "run", id]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const fired = new RegExp(`^fired ${id} new-year: launch ([0-9a-f]{12}) · [A-Z_]+\\n`).exec(run.stdout);
    expect(fired, run.stdout).not.toBeNull();
    const launched = await cliJson<LaunchJson>(h.url, ["launch", fired![1]!]);
    expect(launched.launch).toMatchObject({
      schedule: { scheduleId: id },
      timeoutMs: 1_800_000,
      retry: { maxAttempts: 3 },
    });
    const show = await cli(h.url, ["schedule", "show", id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/\n {2}upcoming\n {4}\d{4}-01-01T08:00:00\.000Z\n/);
    expect(show.stdout).toMatch(
      new RegExp(`\\n  firings \\(1; the latest 1\\)\\n.*\\n    \\S+ +manual +${fired![1]} `),
    );

    const rm = await cli(h.url, ["schedule", "rm", id]);
    expect(rm).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^deleted schedule ${id} .* · deleted\\n$`)),
    });
    expect(await mine()).toBeUndefined();
    expect(await mine(["--all"])).toMatchObject({ deletedAt: expect.any(String) });
    const pauseDeleted = await cli(h.url, ["schedule", "pause", id]);
    expect(pauseDeleted.code).toBe(4);
    expect(pauseDeleted.stderr).toMatch(/\[INVALID_STATE\]\n$/);
    expect((await cli(h.url, ["schedule", "show", "000000000000"])).code).toBe(3);
    expect((await cli(h.url, ["schedule", "run", "000000000000"])).code).toBe(3);
  }, 60_000);

  it("caps and budgets: set, list, remove; client options after the subcommand count", async () => {
    const set = await cli(h.url, ["caps", "set", "workspace:demo", "2"]);
    expect(set.stderr).toBe("");
    expect(set.stdout).toMatch(
      /^cap workspace demo set to 2 \(\d+ in use\)\ncaps in use: global \d+\/5, workspace demo \d+\/2\n$/,
    );
    const table = await cli(h.url, ["caps"]);
    expect(table.stdout).toMatch(/^SCOPE +KEY +IN USE +MAX\nglobal +— +\d+ +5\nworkspace +demo +\d+ +2\n$/);
    const removed = await cli(h.url, ["caps", "set", "workspace:demo", "none"]);
    expect(removed.stdout).toMatch(/^cap workspace demo removed\ncaps in use: global \d+\/5\n$/);
    expect((await cliJson<{ caps: { scope: string }[] }>(h.url, ["caps"])).caps.map((c) => c.scope)).toEqual([
      "GLOBAL",
    ]);

    // --url after the subcommand reaches it (PROSPERO_URL points at a closed port).
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const viaFlag = await cli(closed, ["caps", "set", "global", "4", "--url", h.url, "--json"]);
    expect(viaFlag.stderr).toBe("");
    expect(JSON.parse(viaFlag.stdout)).toMatchObject({
      setCap: { __typename: "SetCapPayload", cap: { max: 4 } },
    });
    expect((await cli(h.url, ["caps", "set", "global", "5"])).code).toBe(0);

    const none = await cli(h.url, ["budget"]);
    expect(none.stdout).toMatch(/^no budgets/);
    const b = await cli(h.url, ["budget", "set", "workspace:demo", "day", "10"]);
    expect(b.stderr).toBe("");
    expect(b.stdout).toMatch(
      /^budget workspace demo day set to \$10\.00 \(\$\S+ spent since \S+\)\nbudgets: workspace demo day \$\S+\/\$10\.00\n$/,
    );
    const bt = await cli(h.url, ["budget"]);
    expect(bt.stdout).toMatch(
      /^SCOPE +KEY +PERIOD +SPENT +LIMIT +SINCE +STATE\nworkspace +demo +day +\$\S+ +\$10\.00 +\S+ +ok\n$/,
    );
    const bj = await cliJson<{ budgets: { scope: string; key: string; period: string; limitUsd: number }[] }>(
      h.url,
      ["budget"],
    );
    expect(bj.budgets).toEqual([
      expect.objectContaining({ scope: "WORKSPACE", key: "demo", period: "DAY", limitUsd: 10 }),
    ]);
    const br = await cli(h.url, ["budget", "set", "workspace:demo", "day", "none"]);
    expect(br.stdout).toMatch(/^budget workspace demo day removed\nbudgets: none\n$/);
  }, 60_000);

  it("bad input: exit 2 naming the option, or the gateway's ValidationError naming the field; nothing stored", async () => {
    const p = h.app.db.prisma;
    const snapshot = async () => ({
      launches: await p.launch.count(),
      schedules: await p.schedule.count(),
      caps: await p.cap.findMany({ orderBy: [{ scope: "asc" }, { key: "asc" }] }),
      budgets: await p.budget.findMany({ orderBy: [{ scope: "asc" }, { key: "asc" }] }),
    });
    const before = await snapshot();

    // Each parser's whole range is covered above; these show the way to the exit code.
    const usage: [string[], RegExp][] = [
      [["enqueue", "demo", "x", "--priority", "500"], /--priority must be an integer from 0/],
      [["enqueue", "demo", "x", "--timeout", "0"], /--timeout must be from 1\.0 s to 7 days/],
      [["enqueue", "demo", "x", "--backoff", "2s"], /--backoff needs --retries/],
      [
        ["schedule", "add", "n", "demo", "* * * * *", "x", "--overlap", "sometimes"],
        /unknown overlap policy/,
      ],
      [["caps", "set", "galaxy:x", "1"], /unknown cap scope "galaxy:x"/],
      [["budget", "set", "workspace:demo", "week", "10"], /unknown budget period "week"/],
    ];
    const refused: [string[], RegExp][] = [
      [["enqueue", "demo", "x", "--not-before", "2020-01-01T00:00:00Z"], /notBefore.*\[BAD_USER_INPUT\]/],
      [
        ["enqueue", "demo", "x", "--retries", "2", "--backoff", "10ms"],
        /retry\.backoffMs.*\[BAD_USER_INPUT\]/,
      ],
      [["schedule", "add", "n", "demo", "not a cron", "x"], /input\.cron.*\[BAD_USER_INPUT\]/],
      [
        ["schedule", "add", "n", "demo", "* * * * *", "x", "--tz", "Mars/Olympus"],
        /input\.timeZone.*\[BAD_USER_INPUT\]/,
      ],
      [["caps", "set", "provider:acme", "1"], /input\.key.*\[BAD_USER_INPUT\]/],
      [["caps", "set", "global", "20000"], /input\.max.*\[BAD_USER_INPUT\]/],
      [["caps", "set", "global", "none"], /\[BAD_USER_INPUT\]/],
      [["budget", "set", "workspace:demo", "day", "0"], /input\.limitUsd.*\[BAD_USER_INPUT\]/],
    ];
    // A few at a time: each is a Node process on a shared machine.
    const cases = [...usage, ...refused];
    const runs: Awaited<ReturnType<typeof cli>>[] = [];
    for (let i = 0; i < cases.length; i += 3) {
      runs.push(...(await Promise.all(cases.slice(i, i + 3).map(([args]) => cli(h.url, args)))));
    }
    runs.forEach((r, i) => {
      const [args, message] = cases[i]!;
      const what = `prospero ${args.join(" ")}: ${r.stderr}`;
      expect(r.code, what).toBe(i < usage.length ? 2 : 4);
      expect(r.stderr, what).toMatch(message);
      expect(r.stdout, what).toBe("");
    });
    // Unknown names: not found (3).
    const [ws, sched] = await Promise.all([
      cli(h.url, ["enqueue", "nowhere", "x"]),
      cli(h.url, ["schedule", "add", "n", "nowhere", "* * * * *", "x"]),
    ]);
    expect(ws.code).toBe(3);
    expect(sched.code).toBe(3);
    expect(await snapshot()).toEqual(before);
  }, 180_000);
});
