/**
 * The inbox commands (issue 15 item 1) — inbox, answer, approve, ack, snooze, dismiss — as the real
 * `bin/prospero.js` against a real gateway (in-process, real port, real SQLite) and the caliband
 * double's interactive agent, which goes idle after its turn with "The README says hello. Done."
 * and answers each input with "You said: <text>": what a user reads, the JSON a script reads, exit
 * codes, and bad input refused with nothing changed. Plus the command-line value parsers (pure).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "commander";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli, cliJson, spawnAgent } from "./run-cli.js";
import { collectKinds, parseSnooze } from "../../src/cli/commands/inbox.js";

describe("command-line values of the inbox commands", () => {
  it("--kind: kinds, comma-separated and repeatable, any case, - for _, no repeats; nothing else", () => {
    expect(collectKinds("question, Plan")).toEqual(["QUESTION", "PLAN"]);
    expect(collectKinds("run-failed,alert", ["ALERT"])).toEqual(["ALERT", "RUN_FAILED"]);
    for (const bad of ["", ",", "questions", "unknown", "run failed", "ALERT,bogus"]) {
      expect(() => collectKinds(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => collectKinds("bogus")).toThrow(
      /^--kind must be an inbox item kind: one of question, plan, run_failed, alert .*got "bogus"$/,
    );
  });

  it("snooze: a duration from 1 minute to 30 days", () => {
    expect([parseSnooze("30m"), parseSnooze("2h"), parseSnooze("1d"), parseSnooze("30d")]).toEqual([
      1_800_000,
      7_200_000,
      86_400_000,
      30 * 86_400_000,
    ]);
    for (const bad of ["", "soon", "90", "59s", "31d", "1.5h", "-1h", "1h30m"]) {
      expect(() => parseSnooze(bad), bad).toThrow(InvalidArgumentError);
    }
    expect(() => parseSnooze("31d")).toThrow(/from 1 minute to 30 days/);
  });
});

let h: AppHarness;
beforeAll(async () => {
  h = await startAppHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

interface ItemJson {
  id: string;
  itemId: string;
  kind: string;
  state: string;
  title: string;
  body: string;
  canAnswer: boolean;
  canApprove: boolean;
  resolution: string | null;
  closedBy: string | null;
  agent: { agentId: string } | null;
  workspace: { name: string } | null;
}
interface InboxJson {
  inbox: { totalCount: number; openCount: number; edges: { node: ItemJson }[] };
}

/** The open or snoozed items of `agentId` as `inbox --json` lists them. */
async function itemsOf(agentId: string, extra: string[] = []): Promise<ItemJson[]> {
  const data = await cliJson<InboxJson>(h.url, ["inbox", ...extra]);
  return data.inbox.edges.map((e) => e.node).filter((n) => n.agent?.agentId === agentId);
}

/** Wait until `inbox` lists an open QUESTION of `agentId` other than `not`; return it. */
async function questionOf(agentId: string, not?: string): Promise<ItemJson> {
  return waitFor(
    async () =>
      (await itemsOf(agentId)).find((n) => n.kind === "QUESTION" && n.state === "OPEN" && n.itemId !== not),
    15_000,
    `a question of ${agentId}`,
    200,
  );
}

describe("an interactive agent's question in the inbox", () => {
  let agent: string;
  let first: ItemJson;

  beforeAll(async () => {
    agent = await spawnAgent(h.url, "chat", ["--interactive"]);
    await waitFor(() => h.app.fleet.state.agent(agent)?.status === "idle", 15_000, "idle");
    first = await questionOf(agent);
  }, 40_000);

  it("inbox lists the question with what the agent said and how to answer it", async () => {
    expect(first).toMatchObject({
      kind: "QUESTION",
      state: "OPEN",
      canAnswer: true,
      workspace: { name: "demo" },
      body: expect.stringContaining("The README says hello. Done."),
    });
    expect(first.itemId).toMatch(/^[0-9a-f]{12}$/);
    const r = await cli(h.url, ["inbox"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^\d+ items? needs? you/);
    expect(r.stdout).toMatch(/^ID\s+KIND\s+WORKSPACE\/AGENT\s+STATE\s+AGE\s+TITLE$/m);
    const row = new RegExp(`^${first.itemId}\\s+question\\s+demo/${agent}\\s+open\\s+\\d+[smhd]\\s+\\S`, "m");
    expect(r.stdout).toMatch(row);
    // The question itself, under its row, and the command that answers it.
    expect(r.stdout).toMatch(/^ {4}│ The README says hello\. Done\.$/m);
    expect(r.stdout).toMatch(new RegExp(`^ {4}→ .+: prospero answer ${first.itemId} "<text>"$`, "m"));
    expect(r.stdout).not.toContain('"…"');
  });

  it("--kind and --workspace filter; a kind with nothing open lists nothing", async () => {
    expect(
      (await itemsOf(agent, ["--kind", "question", "--workspace", "demo"])).map((n) => n.itemId),
    ).toContain(first.itemId);
    expect(await itemsOf(agent, ["--kind", "plan,alert"])).toEqual([]);
    const none = await cli(h.url, ["inbox", "--kind", "plan"]);
    expect(none).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^no matching items \(\d+ items? needs? you in all\)\n$/),
    });
  });

  it("approve on a question is refused (exit 4) and the question stays open", async () => {
    const r = await cli(h.url, ["approve", first.itemId]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`^prospero: approve ${first.itemId}: .+\\[INVALID_STATE\\]\\n$`));
    expect((await itemsOf(agent)).map((n) => n.itemId)).toContain(first.itemId);
  });

  it("answer sends the text to the agent; the item leaves the inbox and the agent's reply is the next question", async () => {
    const r = await cli(h.url, ["answer", first.itemId, "read CHANGES.md next"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^answered ${first.itemId} · question in demo/${agent} · sent to agent ${agent}$`, "m"),
    );
    const listed = (await itemsOf(agent)).map((n) => n.itemId);
    expect(listed).not.toContain(first.itemId);
    // The agent got it: its answer to the input is its next question.
    const next = await questionOf(agent, first.itemId);
    expect(next.body).toContain("You said: read CHANGES.md next");
    const human = await cli(h.url, ["inbox"]);
    expect(human.stdout).not.toContain(first.itemId);
    // --all shows the closed one, and who answered it.
    const all = await cli(h.url, ["inbox", "--all"]);
    expect(all.stdout).toMatch(new RegExp(`^${first.itemId}\\s+question\\s+\\S+\\s+answered by \\S+`, "m"));
    const closed = (await itemsOf(agent, ["--all"])).find((n) => n.itemId === first.itemId);
    expect(closed).toMatchObject({ state: "CLOSED", resolution: "ANSWERED" });
  });

  it("an answer starting with - goes after --; without it, it is refused as an unknown option (exit 2), nothing sent", async () => {
    const q = await questionOf(agent, first.itemId);
    const before = h.d.daemon.requests.length;
    const bare = await cli(h.url, ["answer", q.itemId, "-1 is the answer"]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toMatch(/unknown option '-1 is the answer'/);
    expect(h.d.daemon.requests.slice(before).filter((x) => JSON.stringify(x).includes("-1 is"))).toEqual([]);
    expect((await itemsOf(agent)).find((n) => n.itemId === q.itemId)?.state).toBe("OPEN");

    const r = await cli(h.url, ["answer", q.itemId, "--", "-1 is the answer"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^answered ${q.itemId} · question in demo/${agent} · sent to agent ${agent}$`, "m"),
    );
    const next = await questionOf(agent, q.itemId);
    expect(next.body).toContain("You said: -1 is the answer");
  });

  it("answering a closed item prints why and exits 4; nothing is sent", async () => {
    const before = h.d.daemon.requests.length;
    const r = await cli(h.url, ["answer", first.itemId, "again"]);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      new RegExp(`^prospero: answer ${first.itemId}: .*already closed.*\\[INVALID_STATE\\]\\n$`),
    );
    const sent = h.d.daemon.requests.slice(before).filter((q) => JSON.stringify(q).includes("again"));
    expect(sent).toEqual([]);
    // --json: the typed error result, the exit code still 4.
    const j = await cli(h.url, ["answer", first.itemId, "again", "--json"]);
    expect(j.code).toBe(4);
    expect(JSON.parse(j.stdout)).toMatchObject({ answerInboxItem: { __typename: "InvalidStateError" } });
  });

  it("an unknown item is not found (exit 3)", async () => {
    const r = await cli(h.url, ["ack", "0123456789ab"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^prospero: ack 0123456789ab: .*\[NOT_FOUND\]\n$/);
  });

  it("snooze hides it for the duration (listed as snoozed), dismiss closes it", async () => {
    const q = await questionOf(agent, first.itemId);
    const s = await cli(h.url, ["snooze", q.itemId, "2h"]);
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(
      new RegExp(`^snoozed ${q.itemId} · question in demo/${agent} · back at \\S+ \\(in 1h 59m\\)$`, "m"),
    );
    const listed = (await itemsOf(agent)).find((n) => n.itemId === q.itemId);
    expect(listed?.state).toBe("SNOOZED");
    const human = await cli(h.url, ["inbox"]);
    expect(human.stdout).toMatch(/^\d+ items? needs? you · \d+ listed: .*1 snoozed/);
    expect(human.stdout).toMatch(
      new RegExp(`^${q.itemId}\\s+question\\s+demo/${agent}\\s+snoozed \\(back in 1h 59m\\)\\s`, "m"),
    );
    const d = await cli(h.url, ["dismiss", q.itemId]);
    expect(d.code).toBe(0);
    expect(d.stdout).toBe(`dismissed ${q.itemId} · question in demo/${agent}\n`);
    expect((await itemsOf(agent)).map((n) => n.itemId)).not.toContain(q.itemId);
  });

  it("bad values are refused before anything is sent (exit 2) and change nothing", async () => {
    const before = await cliJson<InboxJson>(h.url, ["inbox", "--all"]);
    expect(before.inbox.totalCount).toBeGreaterThan(0);
    for (const args of [
      ["snooze", first.itemId, "soon"],
      ["snooze", first.itemId, "31d"],
      ["snooze", first.itemId, "90"],
      ["inbox", "--kind", "bogus"],
      ["answer", first.itemId],
    ]) {
      const r = await cli(h.url, args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout, args.join(" ")).toBe("");
    }
    const bad = await cli(h.url, ["snooze", first.itemId, "soon"]);
    expect(bad.stderr).toMatch(/the snooze must be a whole number with an optional unit/);
    expect(await cliJson<InboxJson>(h.url, ["inbox", "--all"])).toEqual(before);
  });
});

describe("a failed run in the inbox", () => {
  it("lists it as run_failed; ack closes it", async () => {
    const agent = await spawnAgent(h.url, "go fake:preflight-fail");
    const item = await waitFor(
      async () => (await itemsOf(agent, ["--kind", "run_failed"]))[0],
      15_000,
      "a run_failed item",
      200,
    );
    expect(item).toMatchObject({ kind: "RUN_FAILED", state: "OPEN", canAnswer: false });
    const r = await cli(h.url, ["inbox", "--kind", "run_failed"]);
    expect(r.stdout).toMatch(new RegExp(`^${item.itemId}\\s+run_failed\\s+demo/${agent}\\s+open`, "m"));
    expect(r.stdout).toContain(`prospero ack ${item.itemId}`);
    const ack = await cli(h.url, ["ack", item.itemId]);
    expect(ack.code).toBe(0);
    expect(ack.stdout).toMatch(
      new RegExp(`^acknowledged ${item.itemId} · run_failed in demo/${agent}$`, "m"),
    );
    expect(await itemsOf(agent)).toEqual([]);
  });
});

describe("a plan in the inbox", () => {
  it("lists the plan with approve and answer; approve tells the agent to go ahead", async () => {
    const agent = await spawnAgent(h.url, "plan it fake:plan", ["--interactive"]);
    const plan = await waitFor(
      async () => (await itemsOf(agent, ["--kind", "plan"])).find((n) => n.state === "OPEN"),
      15_000,
      "a plan item",
      200,
    );
    expect(plan).toMatchObject({ kind: "PLAN", canApprove: true, canAnswer: true });
    const r = await cli(h.url, ["inbox", "--kind", "plan"]);
    expect(r.stdout).toMatch(new RegExp(`^${plan.itemId}\\s+plan\\s+demo/${agent}\\s+open\\s`, "m"));
    expect(r.stdout).toMatch(/^ {4}│ ## Plan$/m);
    expect(r.stdout).toMatch(/^ {4}│ 1\. Read README\.md$/m);
    expect(r.stdout).toContain(`prospero approve ${plan.itemId} or prospero answer ${plan.itemId} "<text>"`);
    const ok = await cli(h.url, ["approve", plan.itemId]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe(
      `approved ${plan.itemId} · plan in demo/${agent} · the agent was told to go ahead\n`,
    );
    expect((await itemsOf(agent, ["--kind", "plan"])).map((n) => n.itemId)).not.toContain(plan.itemId);
    // The approval reached the agent: its reply to it is its next question.
    const next = await questionOf(agent);
    expect(next.body).toContain("You said: The plan is approved. Go ahead.");
  });
});
