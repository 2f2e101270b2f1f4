/**
 * The real `prospero` binary against a real gateway (in-process, caliband double) prints what users
 * and agents wrote without their terminal escapes (issue 11, item 8): an interactive agent whose
 * label, prompt and operator input carry a screen clear, an OSC title, an OSC 52 clipboard write,
 * NUL and 8-bit CSI; its answer (`You said: <input>`, streamed by the double) carries them too.
 * `ls`, `show`, `follow` and a gateway error show the visible text and no ESC, C1 or NUL byte;
 * `--json` keeps the exact values with C1 escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppHarness, type AppHarness } from "../helpers/app-harness.js";
import { waitFor } from "../helpers/fleet-harness.js";
import { cli } from "./run-cli.js";
import { TEST_STORE } from "../helpers/store.js";

/** A screen clear, a window title, a clipboard write, NUL and an 8-bit CSI screen clear. */
const ATTACK = "\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;ZXZpbA==\u0007\u0000\u009b2J";
const LABEL = `evil${ATTACK}label`;
const PROMPT = `chat${ATTACK}prompt`;
const INPUT = `hi${ATTACK}there`;
/**
 * How the store gives a text back: SQLite exactly; PostgreSQL, which refuses NUL in text, with
 * U+FFFD in its place (src/store/pg.ts, docs/deploy.md).
 */
const stored = (s: string): string => (TEST_STORE === "postgresql" ? s.replaceAll("\u0000", "\uFFFD") : s);
/** How the CLI shows the stored NUL: as ␀ (SQLite), or the U+FFFD that replaced it (PostgreSQL). */
const NUL = TEST_STORE === "postgresql" ? "\uFFFD" : "␀";

/** What a terminal would act on: C0 but TAB/LF, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let h: AppHarness;
let id: string;

beforeAll(async () => {
  h = await startAppHarness();
  const spawned = await h.gql<{ spawnAgent: { agent: { agentId: string } } }>(
    `mutation($p: String!, $l: String!) { spawnAgent(input: { workspace: "demo", prompt: $p, label: $l, interactive: true }) { ... on SpawnAgentPayload { agent { agentId } } } }`,
    { p: PROMPT, l: LABEL },
  );
  id = spawned.data!.spawnAgent.agent.agentId;
  await waitFor(() => h.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle");
  await h.gql(
    `mutation($id: String!, $t: String!) { sendAgentInput(input: { agentId: $id, text: $t }) { __typename } }`,
    {
      id,
      t: INPUT,
    },
  );
  await waitFor(() => h.app.fleet.state.agent(id)?.status === "idle", 10_000, "idle after the answer");
  await h.gql(`mutation($id: String!) { endAgentInput(input: { agentId: $id }) { __typename } }`, { id });
  await waitFor(() => h.app.fleet.state.agent(id)?.status === "done", 10_000, "done");
}, 40_000);
afterAll(async () => {
  await h?.close();
});

/** No character of `text` can act on a terminal. */
function expectNoControls(text: string): void {
  const hit = ACTIVE.exec(text);
  expect(hit, hit ? `U+${hit[0].charCodeAt(0).toString(16)} in ${JSON.stringify(text)}` : "").toBeNull();
}

/** stdout and stderr of a human-output run: no control characters and no hidden payload. */
function expectInert(run: { stdout: string; stderr: string }): void {
  for (const text of [run.stdout, run.stderr]) {
    expectNoControls(text);
    expect(text).not.toContain("pwned");
    expect(text).not.toContain("ZXZpbA==");
  }
}

describe("the CLI prints what users and agents wrote without their escapes", () => {
  it("ls, show and follow: the visible text remains, no ESC, C1 or NUL reaches the terminal", async () => {
    const [ls, show, follow] = await Promise.all([
      cli(h.url, ["ls"]),
      cli(h.url, ["show", id]),
      cli(h.url, ["follow", id]),
    ]);
    for (const r of [ls, show, follow]) {
      expect(r.code, r.stderr).toBe(0);
      expectInert(r);
    }
    expect(ls.stdout).toMatch(new RegExp(`^${id}\\s+evil${NUL}label\\s+demo\\s+DONE`, "m"));
    expect(show.stdout).toMatch(new RegExp(`^evil${NUL}label  ${id}$`, "m"));
    expect(show.stdout).toMatch(new RegExp(`^ {4}prompt\\s+chat${NUL}prompt$`, "m"));
    expect(show.stdout).toMatch(new RegExp(`^ {4}label\\s+evil${NUL}label$`, "m"));
    expect(follow.stdout).toMatch(new RegExp(`^evil${NUL}label ${id} in demo · DONE`));
    expect(follow.stdout).toContain(`▶ spawned evil${NUL}label in demo`);
    expect(follow.stdout).toContain(`prompt: chat${NUL}prompt`);
    expect(follow.stdout).toContain(`» you: hi${NUL}there`);
    expect(follow.stdout).toContain(`You said: hi${NUL}there`);
    expect(follow.stdout).toMatch(/■ finished: EndOfTurn/);
  });

  it("a gateway error quoting a user's text is printed without its escapes", async () => {
    // The gateway's validation message quotes the root it could not use.
    const r = await cli(h.url, [
      "workspace",
      "add",
      "evil",
      `/nonexistent/ro\u001b]0;pwned\u0007\u001b[2Jot`,
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^prospero: workspace add evil: .*\/nonexistent\/root/);
    expectInert(r);
  });

  it("--json keeps the exact values, escapes C1 controls, and stays valid JSON", async () => {
    const [show, follow] = await Promise.all([
      cli(h.url, ["show", id, "--json"]),
      cli(h.url, ["follow", id, "--json"]),
    ]);
    for (const r of [show, follow]) {
      expect(r.code, r.stderr).toBe(0);
      expectNoControls(r.stdout.replace(/\n/g, ""));
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("\\u009b2J");
    }
    const agent = (JSON.parse(show.stdout) as { agent: { name: string; spec: { prompt: string } } }).agent;
    expect(agent.name).toBe(stored(LABEL));
    expect(agent.spec.prompt).toBe(stored(PROMPT));
    const events = follow.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { __typename: string; text?: string });
    expect(events.filter((e) => e.__typename === "InputSentEvent").map((e) => e.text)).toEqual([
      stored(INPUT),
    ]);
    const said = events
      .filter((e) => e.__typename === "OutputEvent")
      .map((e) => e.text)
      .join("");
    expect(said).toContain(`You said: ${stored(INPUT)}`);
  });
});
