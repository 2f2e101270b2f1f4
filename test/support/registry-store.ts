// The double's on-disk agent store and workspace-source/worktree handling: manifests written
// atomically (tmp + rename), loaded all-or-nothing on (re)start, git worktrees created and removed
// with the git CLI. docs/caliband-protocol.md §1.7, §2.6, §5.5–5.7.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import { promisify } from "node:util";
import { decodeSpec } from "./ctl-request.js";
import { rustJoin } from "./paths.js";
import type { Content } from "./serde-json.js";
import {
  AGENT_STATUSES,
  type AgentRecordJson,
  type AgentStatus,
  type Endpoint,
  manifestText,
  newWorktreeName,
} from "./wire-format.js";

const execFileP = promisify(execFile);

/** Writes `<base>/<id>/manifest.json` via `manifest.json.tmp` + rename; best effort like caliband (§5.6). */
export function writeManifest(base: string, rec: AgentRecordJson): void {
  try {
    const dir = rustJoin(base, rec.id);
    fs.mkdirSync(dir, { recursive: true });
    const tmp = rustJoin(dir, "manifest.json.tmp");
    fs.writeFileSync(tmp, manifestText(rec));
    fs.renameSync(tmp, rustJoin(dir, "manifest.json"));
  } catch {
    // caliband only logs a warning when a manifest write fails
  }
}

/** Deletes `<base>/<id>` recursively (rm / respawn, §1.7). */
export function removeSessionDir(base: string, id: string): void {
  try {
    fs.rmSync(rustJoin(base, id), { recursive: true, force: true });
  } catch {
    // best effort
  }
}

function toContent(v: unknown): Content {
  if (v === null) return { t: "null" };
  if (typeof v === "boolean") return { t: "bool", v };
  if (typeof v === "number") {
    if (Number.isInteger(v)) return v >= 0 ? { t: "u64", raw: String(v) } : { t: "i64", raw: String(v) };
    return { t: "f64", v };
  }
  if (typeof v === "string") return { t: "str", v };
  if (Array.isArray(v)) return { t: "seq", v: v.map(toContent) };
  if (typeof v === "object") return { t: "map", v: Object.entries(v).map(([k, x]) => [k, toContent(x)]) };
  throw new Error("unsupported JSON value");
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses one manifest like `serde_json::from_slice::<AgentRecord>`; throws on any mismatch. */
export function parseManifest(body: string): AgentRecordJson {
  const v: unknown = JSON.parse(body);
  if (!isObj(v)) throw new Error("manifest is not an object");
  const str = (k: string): string => {
    const x = v[k];
    if (typeof x !== "string") throw new Error(`manifest field ${k} is not a string`);
    return x;
  };
  const status = AGENT_STATUSES.find((s) => s === v.status);
  if (status === undefined) throw new Error("manifest status is not an AgentStatus");
  const ep = v.endpoint;
  let endpoint: Endpoint;
  if (isObj(ep) && ep.scheme === "unix" && typeof ep.path === "string")
    endpoint = { scheme: "unix", path: ep.path };
  else if (isObj(ep) && ep.scheme === "tcp" && typeof ep.addr === "string")
    endpoint = { scheme: "tcp", addr: ep.addr };
  else throw new Error("manifest endpoint is malformed");
  const wd = v.working_dir === undefined ? "" : str("working_dir");
  return {
    id: str("id"),
    name: str("name"),
    status,
    started_at: str("started_at"),
    session_dir: str("session_dir"),
    endpoint,
    working_dir: wd,
    spec: decodeSpec(toContent(v.spec === undefined ? null : v.spec)),
  };
}

/**
 * Loads every `<base>/*\/manifest.json`. One unreadable/unparseable manifest discards the whole load
 * and yields an empty registry, as caliband does (§5.7).
 */
export function loadRegistry(base: string): Map<string, AgentRecordJson> {
  const out = new Map<string, AgentRecordJson>();
  try {
    if (!fs.existsSync(base)) return out;
    for (const entry of fs.readdirSync(base, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const file = rustJoin(rustJoin(base, entry.name), "manifest.json");
      if (!fs.existsSync(file)) continue;
      const rec = parseManifest(fs.readFileSync(file, "utf8"));
      out.set(rec.id, rec);
    }
  } catch {
    return new Map();
  }
  return out;
}

/** Startup sweep (§5.7): `running`/`spawning` → `crashed` (persisted); `idle` and terminal untouched. */
export function sweepCrashed(base: string, registry: Map<string, AgentRecordJson>): string[] {
  const swept: string[] = [];
  for (const rec of registry.values()) {
    if (rec.status === "running" || rec.status === "spawning") {
      rec.status = "crashed" satisfies AgentStatus;
      writeManifest(base, rec);
      swept.push(rec.id);
    }
  }
  return swept;
}

const lastComponent = (p: string): string | null => {
  const parts = p.split("/").filter((x) => x !== "" && x !== ".");
  const last = parts[parts.length - 1];
  return last === undefined || last === ".." ? null : last;
};

const isCheckout = (dir: string): boolean => fs.existsSync(rustJoin(dir, ".git"));

/**
 * Resolves `SpawnSpec.source` against the workspace root (§2.6): `null` → the root; names with `/`,
 * `\`, `..` or empty are invalid; discovered checkouts (root by basename + child checkouts) first,
 * then any existing `<root>/<name>`. Returns the directory or caliband's error text.
 */
export function resolveSource(root: string, name: string | null): { dir: string } | { error: string } {
  if (name === null) return { dir: root };
  if (name === "" || name.includes("/") || name.includes("\\") || name.includes("..")) {
    return { error: `source resolve: invalid source name: ${name}` };
  }
  const sources: Array<{ name: string; dir: string }> = [];
  const rootName = lastComponent(root);
  if (isCheckout(root) && rootName !== null) sources.push({ name: rootName, dir: root });
  try {
    for (const e of fs.readdirSync(root, { withFileTypes: true })) {
      const dir = rustJoin(root, e.name);
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) isDir = fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
      if (isDir && isCheckout(dir)) sources.push({ name: e.name, dir });
    }
  } catch {
    // unreadable root: no child sources
  }
  sources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found = sources.find((s) => s.name === name);
  if (found !== undefined) return { dir: found.dir };
  const candidate = rustJoin(root, name);
  if (fs.existsSync(candidate)) return { dir: candidate };
  return { error: `source resolve: no such source: ${name}` };
}

/** A worktree the double created: `<source>/.caliban/worktrees/<name>` on branch `caliban/<name>` (§5.5). */
export interface WorktreeRef {
  sourceDir: string;
  name: string;
  path: string;
}

/** Creates an isolated worktree off the source's HEAD, or returns caliband's `worktree create: …` text. */
export async function createWorktree(sourceDir: string): Promise<WorktreeRef | { error: string }> {
  if (!isCheckout(sourceDir)) return { error: `worktree create: not a git repository: ${sourceDir}` };
  const name = newWorktreeName();
  const root = rustJoin(sourceDir, ".caliban/worktrees");
  const wtPath = rustJoin(root, name);
  try {
    fs.mkdirSync(root, { recursive: true });
    await execFileP(
      "git",
      ["-C", sourceDir, "worktree", "add", "-q", "-b", `caliban/${name}`, wtPath, "HEAD"],
      {
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      },
    );
  } catch (e) {
    const stderr = (e as { stderr?: unknown }).stderr;
    const detail = typeof stderr === "string" && stderr.trim() !== "" ? stderr.trim() : (e as Error).message;
    return { error: `worktree create: git error: ${detail.split("\n")[0] ?? detail}` };
  }
  return { sourceDir, name, path: wtPath };
}

/** Force-removes a worktree and its `caliban/<name>` branch (best effort, §5.5). */
export async function removeWorktree(wt: WorktreeRef): Promise<void> {
  const git = (args: string[]): Promise<unknown> =>
    execFileP("git", ["-C", wt.sourceDir, ...args]).catch(() => undefined);
  await git(["worktree", "remove", "--force", wt.path]);
  if (fs.existsSync(wt.path)) {
    fs.rmSync(wt.path, { recursive: true, force: true });
    await git(["worktree", "prune"]);
  }
  await git(["branch", "-D", `caliban/${wt.name}`]);
}
