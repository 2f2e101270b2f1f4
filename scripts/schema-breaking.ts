/**
 * Schema change control: `npm run schema:breaking` (CI step "no unannounced breaking schema
 * change"). Compares the working `schema.graphql` with the newest release snapshot — the highest
 * version among `schema/releases/<version>.graphql` — with @graphql-inspector/core's `diff`, and
 * prints every change grouped by criticality (BREAKING, DANGEROUS, NON_BREAKING) with its path and
 * message.
 *
 * The rule (also in the README, "Schema change control"): a breaking change is allowed only when
 *   1. package.json's `version` starts a new release line relative to the snapshot — under 1.0 a
 *      minor bump (0.1.x → 0.2.0), from 1.0 a major bump (1.4.2 → 2.0.0), where semver puts
 *      incompatible changes — and
 *   2. CHANGELOG.md has a `## <that version>` section (`## 0.2.0 (unreleased)` and
 *      `## [0.2.0] - 2026-12-01` count) containing a `### Breaking changes` heading.
 * Otherwise every breaking change is listed and the script exits 1; a package version equal to
 * the snapshot's (the released schema itself) never allows one. Dangerous changes (an added enum
 * value, a changed default, …) are printed and never fatal.
 *
 * Exit codes: 0 allowed (the last line is a one-line summary); 1 an unannounced breaking change
 * (the reason on stderr); 2 bad input, with a message on stderr: no `schema/releases` directory or
 * no snapshot in it, a snapshot not named by a version, an unreadable or unparsable schema, a
 * package.json without a valid version or with one older than the newest snapshot.
 *
 * Usage: `tsx scripts/schema-breaking.ts [--root <dir>]`; the root holds package.json,
 * schema.graphql, CHANGELOG.md and schema/releases (default: this repository; tests point it at
 * temp fixtures).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CriticalityLevel, diff, type Change } from "@graphql-inspector/core";
import { buildSchema, type GraphQLSchema } from "graphql";
import semver from "semver";

/** Bad input to the check (exit 2): the message says which file and what is wrong with it. */
class SchemaCheckInputError extends Error {
  override readonly name = "SchemaCheckInputError";
}

/** Where the release snapshots live, relative to the root. */
const RELEASES_DIR = path.join("schema", "releases");

/** The newest release snapshot: its version and path. */
interface Snapshot {
  version: string;
  file: string;
}

/**
 * The snapshot with the highest version among `<root>/schema/releases/*.graphql`. Throws
 * SchemaCheckInputError when the directory is missing or holds no snapshot, or a `.graphql` file in
 * it is not named `<semantic version>.graphql`.
 */
function newestSnapshot(root: string): Snapshot {
  const dir = path.join(root, RELEASES_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    throw new SchemaCheckInputError(
      `no release snapshots: cannot read ${RELEASES_DIR}/ (${errorText(e)}). Each released version's ` +
        `schema is kept there as <version>.graphql (copy schema.graphql when a version is released).`,
    );
  }
  const snapshots: Snapshot[] = [];
  for (const name of names.filter((n) => n.endsWith(".graphql"))) {
    const version = name.slice(0, -".graphql".length);
    if (semver.valid(version) !== version) {
      throw new SchemaCheckInputError(
        `${path.join(RELEASES_DIR, name)}: a release snapshot must be named <version>.graphql ` +
          `with a semantic version such as 0.1.0`,
      );
    }
    snapshots.push({ version, file: path.join(dir, name) });
  }
  snapshots.sort((a, b) => semver.compare(b.version, a.version));
  const newest = snapshots[0];
  if (!newest) {
    throw new SchemaCheckInputError(`no release snapshots: ${RELEASES_DIR}/ has no <version>.graphql file`);
  }
  return newest;
}

/** The `version` of `<root>/package.json`; throws SchemaCheckInputError when absent or invalid. */
function packageVersion(root: string): string {
  const file = path.join(root, "package.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new SchemaCheckInputError(`package.json: cannot read it as JSON (${errorText(e)})`);
  }
  const version =
    typeof parsed === "object" && parsed !== null && "version" in parsed ? parsed.version : undefined;
  if (typeof version !== "string" || semver.valid(version) !== version) {
    throw new SchemaCheckInputError(`package.json: "version" must be a semantic version such as 0.2.0`);
  }
  return version;
}

/** Reads and builds (validating) the SDL in `file`; throws SchemaCheckInputError naming `label`. */
function loadSchema(file: string, label: string): GraphQLSchema {
  let sdl: string;
  try {
    sdl = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new SchemaCheckInputError(`${label}: cannot read it (${errorText(e)})`);
  }
  try {
    return buildSchema(sdl);
  } catch (e) {
    throw new SchemaCheckInputError(`${label}: not a valid GraphQL schema: ${errorText(e)}`);
  }
}

/**
 * Whether `next` starts a new release line after `released`: a higher major, or under 1.0 a higher
 * minor (semver: 0.x minors and ≥1 majors are where incompatible changes go).
 */
function isNewReleaseLine(released: string, next: string): boolean {
  const [rMajor, nMajor] = [semver.major(released), semver.major(next)];
  if (nMajor !== rMajor) return nMajor > rMajor;
  return rMajor === 0 && semver.minor(next) > semver.minor(released);
}

/** The first version of the release line after `released` (0.1.3 → 0.2.0, 1.4.2 → 2.0.0). */
function nextReleaseLine(released: string): string {
  const major = semver.major(released);
  return major === 0 ? `0.${semver.minor(released) + 1}.0` : `${major + 1}.0.0`;
}

/**
 * Why CHANGELOG.md does not announce breaking changes for `version`, or null when it does: it has
 * a level-2 heading `## <version>` (optionally in brackets, followed by anything after a space)
 * whose section — up to the next level-2 heading — contains a `### Breaking changes` heading.
 * Lines inside fenced code blocks are not headings.
 */
function changelogProblem(root: string, version: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, "CHANGELOG.md"), "utf8");
  } catch (e) {
    return `CHANGELOG.md cannot be read (${errorText(e)})`;
  }
  let fence: string | null = null;
  let inSection = false;
  let sectionFound = false;
  for (const line of text.split(/\r?\n/)) {
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark !== undefined) {
      if (fence === null) fence = fenceMark;
      else if (fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h2 = /^ {0,3}##[ \t]+(.*)$/.exec(line)?.[1];
    if (h2 !== undefined) {
      const heading = /^\[?v?([^\s\]]+)\]?(?:\s|$)/.exec(h2)?.[1];
      inSection = heading === version;
      sectionFound ||= inSection;
      continue;
    }
    if (inSection && /^ {0,3}###[ \t]+breaking changes[ \t]*#*[ \t]*$/i.test(line)) return null;
  }
  return sectionFound
    ? `CHANGELOG.md's "## ${version}" section has no "### Breaking changes" heading`
    : `CHANGELOG.md has no "## ${version}" section`;
}

/** The message of a thrown value. */
function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `n` and the noun, pluralized with "s" when n ≠ 1. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Prints the changes grouped by criticality, most severe first, in inspector's order within. */
function printChanges(changes: Change[]): void {
  for (const level of [CriticalityLevel.Breaking, CriticalityLevel.Dangerous, CriticalityLevel.NonBreaking]) {
    const group = changes.filter((c) => c.criticality.level === level);
    console.log(`\n${level} (${group.length})`);
    for (const c of group) console.log(`  ${c.path ?? "(schema)"}: ${c.message}`);
  }
  console.log("");
}

/** Runs the check against `root`; returns the exit code (bad input throws SchemaCheckInputError). */
async function check(root: string): Promise<0 | 1> {
  const snapshot = newestSnapshot(root);
  const version = packageVersion(root);
  if (semver.compare(version, snapshot.version) < 0) {
    throw new SchemaCheckInputError(
      `package.json's version ${version} is older than the newest release snapshot ` +
        `${path.join(RELEASES_DIR, `${snapshot.version}.graphql`)}`,
    );
  }
  const snapshotLabel = path.join(RELEASES_DIR, `${snapshot.version}.graphql`);
  const released = loadSchema(snapshot.file, snapshotLabel);
  const working = loadSchema(path.join(root, "schema.graphql"), "schema.graphql");

  const changes = await diff(released, working);
  const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking);
  const dangerous = changes.filter((c) => c.criticality.level === CriticalityLevel.Dangerous).length;
  const safe = changes.length - breaking.length - dangerous;
  console.log(`schema.graphql against ${snapshotLabel} (package.json version ${version}):`);
  printChanges(changes);
  const tally = `${count(breaking.length, "breaking change")}, ${dangerous} dangerous, ${safe} non-breaking`;

  if (breaking.length === 0) {
    console.log(`schema:breaking: ok: ${tally} against released ${snapshot.version}`);
    return 0;
  }
  const refuse = (why: string): 1 => {
    console.error(
      `schema:breaking: ${count(breaking.length, "breaking change")} against released ${snapshot.version} ` +
        `(listed under BREAKING above) not allowed: ${why}`,
    );
    return 1;
  };
  const next = nextReleaseLine(snapshot.version);
  if (version === snapshot.version) {
    return refuse(
      `package.json's version ${version} is the released one, whose schema clients rely on. Make the ` +
        `change backwards compatible (add, deprecate, then remove in a later release line), or bump the ` +
        `version to ${next} and list the changes under "### Breaking changes" in CHANGELOG.md's "## ${next}".`,
    );
  }
  if (!isNewReleaseLine(snapshot.version, version)) {
    return refuse(
      `${version} is not a new release line after ${snapshot.version} (under 1.0 a minor bump, from 1.0 ` +
        `a major bump): breaking changes need ${next} or later, announced under "### Breaking changes" ` +
        `in CHANGELOG.md's "## <version>" section.`,
    );
  }
  const problem = changelogProblem(root, version);
  if (problem !== null) {
    return refuse(
      `${problem}. A new release line may break clients only when CHANGELOG.md tells them how: add ` +
        `"### Breaking changes" under "## ${version}" listing these changes.`,
    );
  }
  console.log(
    `schema:breaking: ok: ${tally} against released ${snapshot.version}; the breaking ones are ` +
      `allowed (${version} is a new release line and CHANGELOG.md's "## ${version}" has "### Breaking changes")`,
  );
  return 0;
}

try {
  let rootOption: string | undefined;
  try {
    rootOption = parseArgs({ options: { root: { type: "string" } }, allowPositionals: false }).values.root;
  } catch (e) {
    throw new SchemaCheckInputError(`${errorText(e)} (usage: schema-breaking [--root <dir>])`);
  }
  const root = path.resolve(rootOption ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  process.exitCode = await check(root);
} catch (e) {
  if (!(e instanceof SchemaCheckInputError)) throw e;
  console.error(`schema:breaking: ${e.message}`);
  process.exitCode = 2;
}
