/**
 * Schema change control (scripts/schema-breaking.ts, CI's "no unannounced breaking schema change"):
 * the script run as a process against temp roots holding package.json, schema.graphql,
 * CHANGELOG.md and schema/releases/<version>.graphql, as CI runs it against the repository.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tmpDir } from "../helpers/tmp.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const SCRIPT = path.join(REPO, "scripts/schema-breaking.ts");

/** What a run of the script showed: exit code and both streams. */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script with `--root <root>` (cwd the repository, as npm runs it) and waits for it. */
function runCheck(root: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", SCRIPT, "--root", root],
      { cwd: REPO, timeout: 60_000, env: { ...process.env, NO_COLOR: "1" } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const RELEASED = `
type Query {
  agent(agentId: String!): Agent
  version: String!
}

type Agent {
  agentId: String!
  name: String!
}
`;
const NAME_REMOVED = RELEASED.replace("  name: String!\n", "");
const FIELD_ADDED = RELEASED.replace("  name: String!\n", "  name: String!\n  model: String\n");

const ANNOUNCED = `# Changelog

## 0.2.0 (unreleased)

### Breaking changes

- \`Agent.name\` is removed.

## 0.1.0

First release.
`;

/** A temp root: the given files (relative path → content), directories created as needed. */
function fixture(files: Record<string, string>): string {
  const root = tmpDir("schema-breaking-");
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
}

/** A root whose released 0.1.0 schema is RELEASED and whose package.json has `version`. */
function project(version: string, schema: string, changelog?: string): string {
  return fixture({
    "package.json": JSON.stringify({ name: "p", version }),
    "schema.graphql": schema,
    "schema/releases/0.1.0.graphql": RELEASED,
    ...(changelog === undefined ? {} : { "CHANGELOG.md": changelog }),
  });
}

describe("schema:breaking", () => {
  it("refuses a removed field while the version is still the released one, naming the field", async () => {
    const r = await runCheck(project("0.1.0", NAME_REMOVED, ANNOUNCED));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /BREAKING \(1\)\n {2}Agent\.name: Field 'name' was removed from object type 'Agent'/,
    );
    expect(r.stderr).toContain("package.json's version 0.1.0 is the released one");
    expect(r.stderr).toContain("0.2.0");
  });

  it("allows it in a new minor (0.x) release announced in CHANGELOG.md, still listing it", async () => {
    const r = await runCheck(project("0.2.0", NAME_REMOVED, ANNOUNCED));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/BREAKING \(1\)\n {2}Agent\.name: Field 'name' was removed/);
    const last = r.stdout.trimEnd().split("\n").at(-1);
    expect(last).toMatch(
      /^schema:breaking: ok: 1 breaking change, 0 dangerous, 0 non-breaking against released 0\.1\.0;/,
    );
  });

  it("refuses the new minor when CHANGELOG.md does not announce the breaking changes", async () => {
    const cases: [string | undefined, RegExp][] = [
      [undefined, /CHANGELOG\.md cannot be read/],
      ["# Changelog\n\n## 0.1.0\n\nFirst release.\n", /CHANGELOG\.md has no "## 0\.2\.0" section/],
      [
        "## 0.2.0\n\n### Added\n\n```markdown\n### Breaking changes\n```\n\n## 0.1.0\n\n### Breaking changes\n",
        /CHANGELOG\.md's "## 0\.2\.0" section has no "### Breaking changes" heading/,
      ],
    ];
    for (const [changelog, message] of cases) {
      const r = await runCheck(project("0.2.0", NAME_REMOVED, changelog));
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("Agent.name");
      expect(r.stderr).toMatch(message);
    }
  });

  it("refuses a patch bump, which is not a new release line", async () => {
    const changelog = ANNOUNCED.replace("## 0.2.0 (unreleased)", "## 0.1.1");
    const r = await runCheck(project("0.1.1", NAME_REMOVED, changelog));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("0.1.1 is not a new release line after 0.1.0");
  });

  it("passes an added field at the released version, listing it as non-breaking", async () => {
    const r = await runCheck(project("0.1.0", FIELD_ADDED));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /NON_BREAKING \(1\)\n {2}Agent\.model: Field 'model' was added to object type 'Agent'/,
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      "schema:breaking: ok: 0 breaking changes, 0 dangerous, 1 non-breaking against released 0.1.0",
    );
  });

  it("prints a dangerous change (an added enum value) and passes", async () => {
    const withEnum = `${RELEASED}\nenum Role {\n  ADMIN\n}\n`;
    const root = fixture({
      "package.json": JSON.stringify({ version: "0.1.0" }),
      "schema.graphql": withEnum.replace("  ADMIN\n", "  ADMIN\n  VIEWER\n"),
      "schema/releases/0.1.0.graphql": withEnum,
    });
    const r = await runCheck(root);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /DANGEROUS \(1\)\n {2}Role\.VIEWER: Enum value 'VIEWER' was added to enum 'Role'/,
    );
    expect(r.stdout).toContain("0 breaking changes, 1 dangerous, 0 non-breaking");
  });

  it("compares with the highest version among the snapshots (0.10.0 above 0.9.0)", async () => {
    const root = fixture({
      "package.json": JSON.stringify({ version: "0.10.0" }),
      "schema.graphql": NAME_REMOVED,
      "schema/releases/0.9.0.graphql": RELEASED,
      "schema/releases/0.10.0.graphql": NAME_REMOVED,
      "schema/releases/README.md": "not a snapshot",
    });
    const r = await runCheck(root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("schema/releases/0.10.0.graphql");
    expect(r.stdout).toContain("BREAKING (0)");
  });

  it("exits 2 with a message on bad input", async () => {
    const noReleases = fixture({ "package.json": '{"version":"0.1.0"}', "schema.graphql": RELEASED });
    const cases: [string, RegExp][] = [
      [noReleases, /^schema:breaking: no release snapshots: cannot read schema\/releases\//],
      [
        project("0.1.0", "type Query { broken(: String }"),
        /^schema:breaking: schema\.graphql: not a valid GraphQL schema: Syntax Error/,
      ],
      [
        project("0.1.0", "type Query { a: Missing }"),
        /^schema:breaking: schema\.graphql: not a valid GraphQL schema: Unknown type "Missing"/,
      ],
      [project("0.0.9", RELEASED), /^schema:breaking: package\.json's version 0\.0\.9 is older than/],
      [project("next", RELEASED), /^schema:breaking: package\.json: "version" must be a semantic version/],
    ];
    for (const [root, message] of cases) {
      const r = await runCheck(root);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
