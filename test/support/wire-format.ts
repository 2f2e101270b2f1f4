// JSON shapes the caliband test double writes, built field by field in serde's declaration order so
// the bytes match the recorded fixtures (docs/caliband-protocol.md §1.3–1.5, §2.2–2.5, §5.6).
import { randomBytes, randomUUID } from "node:crypto";

/** Agent lifecycle status strings (§2.1). */
export type AgentStatus = "spawning" | "running" | "idle" | "killed" | "done" | "failed" | "crashed";

/** Every `AgentStatus` in serde declaration order (used in `unknown variant` messages, §2.1). */
export const AGENT_STATUSES: readonly AgentStatus[] = [
  "spawning",
  "running",
  "idle",
  "killed",
  "done",
  "failed",
  "crashed",
];

/** Statuses `rm` accepts without `force` (§1.7 `rm`). */
export const STOPPED: ReadonlySet<AgentStatus> = new Set(["killed", "done", "failed", "crashed"]);

/** Endpoint object (§2.4): `{"scheme":"unix","path"}` or `{"scheme":"tcp","addr":"host:port"}`. */
export type Endpoint = { scheme: "unix"; path: string } | { scheme: "tcp"; addr: string };

/**
 * A `SpawnSpec` after serde defaults (§2.2). `inherited_hooks_config: null` means unset (the field is
 * then omitted on output).
 */
export interface SpawnSpecJson {
  label: string | null;
  frontmatter_path: string | null;
  initial_prompt: string;
  model: string | null;
  provider: string | null;
  tool_allowlist: string[] | null;
  isolation_worktree: boolean;
  inherit_hooks: boolean;
  interactive: boolean;
  inherited_hooks_config: string | null;
  source: string | null;
}

/** An `AgentRecord` (§2.3); `working_dir` is `""` for legacy records. */
export interface AgentRecordJson {
  id: string;
  name: string;
  status: AgentStatus;
  started_at: string;
  session_dir: string;
  endpoint: Endpoint;
  working_dir: string;
  spec: SpawnSpecJson;
}

/** Supervisor error objects nested under `error` (§1.6). */
export type SupervisorErrorJson =
  | { kind: "not_found"; id: string }
  | { kind: "invalid_state"; op: string; id: string; status: AgentStatus }
  | { kind: "internal"; message: string };

/** Endpoint in field order `scheme` then `path`/`addr` (§2.4). */
export function endpointJson(ep: Endpoint): Endpoint {
  return ep.scheme === "unix" ? { scheme: "unix", path: ep.path } : { scheme: "tcp", addr: ep.addr };
}

/** Spec in declaration order; `inherited_hooks_config` present only when set (§2.2). */
export function specJson(spec: SpawnSpecJson): Record<string, unknown> {
  const out: Record<string, unknown> = {
    label: spec.label,
    frontmatter_path: spec.frontmatter_path,
    initial_prompt: spec.initial_prompt,
    model: spec.model,
    provider: spec.provider,
    tool_allowlist: spec.tool_allowlist === null ? null : [...spec.tool_allowlist],
    isolation_worktree: spec.isolation_worktree,
    inherit_hooks: spec.inherit_hooks,
    interactive: spec.interactive,
  };
  if (spec.inherited_hooks_config !== null) out.inherited_hooks_config = spec.inherited_hooks_config;
  out.source = spec.source;
  return out;
}

/** Record in declaration order `id,name,status,started_at,session_dir,endpoint,working_dir,spec` (§2.3). */
export function recordJson(rec: AgentRecordJson): Record<string, unknown> {
  return {
    id: rec.id,
    name: rec.name,
    status: rec.status,
    started_at: rec.started_at,
    session_dir: rec.session_dir,
    endpoint: endpointJson(rec.endpoint),
    working_dir: rec.working_dir,
    spec: specJson(rec.spec),
  };
}

/** `manifest.json` body: the record pretty-printed like `serde_json::to_vec_pretty`, no trailing newline (§5.6). */
export function manifestText(rec: AgentRecordJson): string {
  return JSON.stringify(recordJson(rec), null, 2);
}

/** Reply constructors (§1.5); each returns the compact line without its `\n`. */
export const reply = {
  listed: (agents: AgentRecordJson[]): string =>
    JSON.stringify({ kind: "listed", agents: agents.map(recordJson) }),
  spawned: (id: string, endpoint: Endpoint): string =>
    JSON.stringify({ kind: "spawned", id, endpoint: endpointJson(endpoint) }),
  attachAck: (endpoint: Endpoint): string =>
    JSON.stringify({ kind: "attach_ack", endpoint: endpointJson(endpoint) }),
  killed: (): string => JSON.stringify({ kind: "killed" }),
  respawned: (id: string): string => JSON.stringify({ kind: "respawned", id }),
  removed: (): string => JSON.stringify({ kind: "removed" }),
  /** Flattened `DaemonStatus` (§2.5): pid, agents (count), uptime_secs (whole seconds), endpoint. */
  status: (pid: number, agents: number, uptimeSecs: number, endpoint: Endpoint): string =>
    JSON.stringify({
      kind: "status",
      pid,
      agents,
      uptime_secs: uptimeSecs,
      endpoint: endpointJson(endpoint),
    }),
  shutdownAck: (): string => JSON.stringify({ kind: "shutdown_ack" }),
  statusReported: (): string => JSON.stringify({ kind: "status_reported" }),
  error: (error: SupervisorErrorJson): string => {
    const e =
      error.kind === "not_found"
        ? { kind: error.kind, id: error.id }
        : error.kind === "invalid_state"
          ? { kind: error.kind, op: error.op, id: error.id, status: error.status }
          : { kind: error.kind, message: error.message };
    return JSON.stringify({ kind: "error", error: e });
  },
};

/** New agent id: 12 lowercase hex chars (§2.3). */
export function newAgentId(): string {
  return randomBytes(6).toString("hex");
}

/** 8 lowercase hex chars for a per-agent socket name `<8hex>-agent.sock` (§1.1). */
export function newSocketStem(): string {
  return randomBytes(4).toString("hex");
}

/** 32 lowercase hex chars (a UUID in "simple" form) naming a worktree and its branch (§5.5). */
export function newWorktreeName(): string {
  return randomUUID().replace(/-/g, "");
}

const anchorEpochNs = BigInt(Date.now()) * 1_000_000n;
const anchorHr = process.hrtime.bigint();
let lastNs = 0n;

/**
 * `started_at` in chrono's `to_rfc3339()` form (§2.3): UTC, `+00:00`, nanosecond fraction. Values are
 * strictly increasing within a process and never a multiple of 1 µs, so chrono's AutoSi rendering
 * would always print 9 digits, as here.
 */
export function rfc3339Now(): string {
  let ns = anchorEpochNs + (process.hrtime.bigint() - anchorHr);
  if (ns <= lastNs) ns = lastNs + 1n;
  if (ns % 1000n === 0n) ns += 1n;
  lastNs = ns;
  const secs = ns / 1_000_000_000n;
  const frac = (ns % 1_000_000_000n).toString().padStart(9, "0");
  const whole = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  return `${whole}.${frac}+00:00`;
}
