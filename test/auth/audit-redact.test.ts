import type { GraphQLInputObjectType, GraphQLObjectType } from "graphql";
import { describe, expect, it } from "vitest";
import { MAX_AUDIT_STRING, REDACTED, redactArgs } from "../../src/auth/audit.js";
import { buildSchema } from "../../src/schema/index.js";

const argsOf = (mutation: string) => buildSchema().getMutationType()!.getFields()[mutation]!.args;

describe("audit argument redaction", () => {
  it("redacts every input field marked sensitive in the schema (env values), keeps names, cuts long strings", () => {
    const out = redactArgs(
      {
        input: {
          workspace: "demo",
          config: {
            provider: "anthropic",
            apiKeyFromEnv: "ANTHROPIC_API_KEY",
            env: [
              { name: "ANTHROPIC_LOG", value: "hunter2-secret" },
              { name: "LANG", value: null },
            ],
            notInSchema: "dropped",
          },
          force: true,
        },
      },
      argsOf("updateWorkspaceConfig"),
    );
    expect(out).toEqual({
      input: {
        workspace: "demo",
        config: {
          provider: "anthropic",
          apiKeyFromEnv: "ANTHROPIC_API_KEY",
          env: [
            { name: "ANTHROPIC_LOG", value: REDACTED },
            { name: "LANG", value: REDACTED },
          ],
        },
        force: true,
      },
    });
    expect(JSON.stringify(out)).not.toContain("hunter2");
    const long = redactArgs(
      { input: { workspace: "demo", prompt: "p".repeat(10_000) } },
      argsOf("spawnAgent"),
    ) as {
      input: { prompt: string };
    };
    expect(long.input.prompt.length).toBeLessThan(MAX_AUDIT_STRING + 40);
    expect(long.input.prompt).toMatch(/… \(10000 characters\)$/);
  });

  it("every input field that can carry a secret is marked sensitive", () => {
    const schema = buildSchema();
    const env = schema.getType("EnvVarInput") as GraphQLInputObjectType;
    expect(env.getFields()["value"]?.extensions?.["sensitive"]).toBe(true);
    // No output type exposes an env value.
    const envVar = schema.getType("EnvVar") as GraphQLObjectType;
    expect(Object.keys(envVar.getFields()).sort()).toEqual(["name", "valueSet"]);
  });
});
