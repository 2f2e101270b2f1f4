/**
 * Agent.searchText (issue 16 item 5): the migration that adds it backfills runs stored before it
 * with the same rule `upsertAgentOp` writes (`agentSearchText`), so an old run is found by
 * `agents(filter: {search})` exactly like a new one.
 */
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openDatabase, DB_FILE } from "../../src/store/db.js";
import { MIGRATIONS_DIR } from "../../src/store/migrate.js";
import { agentSearchText, SEARCH_PROMPT_CHARS } from "../../src/store/agents.js";
import { tmpDir } from "../helpers/tmp.js";

/** The migration that adds and backfills `Agent.searchText`. */
const CHANGES = "20261202004911_changes";

describe("Agent.searchText", () => {
  it("agentSearchText: name, label and the first 4096 characters of the prompt, lower-cased", () => {
    const prompt = `Fix THE ${"é".repeat(SEARCH_PROMPT_CHARS)}TAIL`;
    const text = agentSearchText("Run-A", { label: "Login Bug", initial_prompt: prompt });
    expect(text.split("\n").slice(0, 2)).toEqual(["run-a", "login bug"]);
    expect(text).toBe(`run-a\nlogin bug\n${prompt.slice(0, SEARCH_PROMPT_CHARS).toLowerCase()}`);
    expect(text).not.toContain("tail");
    expect(agentSearchText("agent-1", { label: null, initial_prompt: 7 })).toBe("agent-1\n\n");
  });

  it("the migration backfills a run stored before it with the rule new rows get", async () => {
    const dir = tmpDir("search-text-");
    const before = path.join(tmpDir("mig-"), "migrations");
    fs.cpSync(MIGRATIONS_DIR, before, { recursive: true });
    // The migrations up to (not including) the one adding searchText.
    for (const name of fs.readdirSync(before))
      if (/^\d{14}_/.test(name) && name >= CHANGES) {
        fs.rmSync(path.join(before, name), { recursive: true });
      }
    const old = await openDatabase(dir, before);
    await old.close();
    const spec = { label: "Fix-Login-Bug", initial_prompt: `Refactor The Parser ${"x".repeat(5000)}` };
    const db = new BetterSqlite3(path.join(dir, DB_FILE));
    expect((db.pragma(`table_info("Agent")`) as { name: string }[]).map((c) => c.name)).not.toContain(
      "searchText",
    );
    db.prepare(
      `INSERT INTO "Workspace" ("name", "root", "env", "updatedAt") VALUES ('demo', '/r', '{}', 0)`,
    ).run();
    db.prepare(
      `INSERT INTO "Agent" ("id", "workspace", "name", "status", "spec", "startedAt", "updatedAt")
       VALUES ('a1b2c3d4e5f6', 'demo', 'Old Run', 'done', ?, 0, 0)`,
    ).run(JSON.stringify(spec));
    db.close();

    const now = await openDatabase(dir);
    expect(now.migrations.applied).toContain(CHANGES);
    const row = await now.prisma.agent.findUniqueOrThrow({ where: { id: "a1b2c3d4e5f6" } });
    await now.close();
    expect(row.searchText).toBe(agentSearchText("Old Run", spec));
    expect(row.searchText.length).toBe("old run\nfix-login-bug\n".length + 4096);
  });
});
