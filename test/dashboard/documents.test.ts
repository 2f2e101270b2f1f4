/** The dashboard's GraphQL documents are valid against the committed schema.graphql. */
import fs from "node:fs";
import path from "node:path";
import { buildSchema, parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import * as documents from "../../dashboard/src/api/documents.js";
import { REPO } from "./support.js";

const schema = buildSchema(fs.readFileSync(path.join(REPO, "schema.graphql"), "utf8"));

describe("dashboard documents", () => {
  const entries = Object.entries(documents);

  it("exports the operations the dashboard uses", () => {
    expect(entries.map(([name]) => name).sort()).toEqual([
      "ACKNOWLEDGE_INBOX_ITEM",
      "AGENT_EVENTS",
      "AGENT_QUERY",
      "ANSWER_INBOX_ITEM",
      "APPROVE_INBOX_ITEM",
      "CANCEL_LAUNCH",
      "DISMISS_INBOX_ITEM",
      "DRAIN_AGENT",
      "END_INPUT",
      "ENQUEUE_LAUNCH",
      "FLEET_CHANGES",
      "INBOX_CHANGES",
      "INBOX_QUERY",
      "KILL_AGENT",
      "LAUNCH_QUERY",
      "PAUSE_SCHEDULE",
      "QUEUE_QUERY",
      "REMOVE_AGENT",
      "RESPAWN_AGENT",
      "RESUME_SCHEDULE",
      "RUN_SCHEDULE",
      "SEND_INPUT",
      "SNOOZE_INBOX_ITEM",
      "SPAWN_AGENT",
      "WORKSPACE_QUERY",
    ]);
  });

  it.each(entries)("%s validates against schema.graphql", (_name, source) => {
    const errors = validate(schema, parse(source)).map((e) => e.message);
    expect(errors).toEqual([]);
  });

  it("every mutation aliases its field to `result` and asks for typed errors", () => {
    for (const [name, source] of entries) {
      if (!source.startsWith("mutation")) continue;
      expect(source, name).toMatch(/result: \w+\(/);
      expect(source, name).toContain("... on Error { code message }");
      expect(source, name).toContain("__typename");
    }
  });
});
