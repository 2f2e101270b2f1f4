/**
 * caliband wire vocabulary: zod schemas and inferred types for the control protocol (requests,
 * replies, records, specs, supervisor errors) and the per-agent stream (outbound `TurnEvent`
 * frames, inbound `UserMessage`/`EndInput`). Implements caliband-protocol.md §1.3–1.6, §2, §3.3,
 * §3.5 and the read-side tolerance rules of §7.
 *
 * Parsing is tolerant where the daemon may evolve: unknown object fields are dropped (zod's default
 * strip mode), unknown agent statuses map to `"unknown"` (raw string kept), unknown frame types,
 * `ContentBlock` types and `StopCondition` variants are reported instead of rejected, and pre-July
 * 2026 records carrying `socket_path` instead of `endpoint` are accepted.
 */
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Unsigned integer as serialised by serde (u32/u64); JSON number. */
const Uint = z.number().int().nonnegative();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * §7: daemons before 2026-07-04 sent `socket_path: string` where newer ones send `endpoint`.
 * Rewrites such an object so it carries `endpoint: {scheme:"unix", path}`; anything else unchanged.
 */
function withLegacyEndpoint(value: unknown): unknown {
  if (isRecord(value) && value.endpoint === undefined && typeof value.socket_path === "string") {
    return { ...value, endpoint: { scheme: "unix", path: value.socket_path } };
  }
  return value;
}

function summarize(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "<root>"}: ${i.message}`)
    .join("; ");
}

function parseJson(line: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(line) as unknown };
  } catch {
    return { ok: false };
  }
}

// ---------------------------------------------------------------------------------------------
// Endpoint (§2.4)
// ---------------------------------------------------------------------------------------------

/** Unix-socket endpoint `{scheme:"unix", path}` (§2.4). `path` is an absolute socket path. */
export const UnixEndpointSchema = z.object({ scheme: z.literal("unix"), path: z.string() });
/** TCP endpoint `{scheme:"tcp", addr}` (§2.4). `addr` is a bare `host:port`, never a URL. */
export const TcpEndpointSchema = z.object({ scheme: z.literal("tcp"), addr: z.string() });
/** Control or per-agent endpoint, internally tagged by `scheme` (§1.3, §2.4). */
export const EndpointSchema = z.discriminatedUnion("scheme", [UnixEndpointSchema, TcpEndpointSchema]);
/** `{scheme:"unix", path}` | `{scheme:"tcp", addr:"host:port"}` (§2.4). */
export type Endpoint = z.infer<typeof EndpointSchema>;

// ---------------------------------------------------------------------------------------------
// AgentStatus (§2.1)
// ---------------------------------------------------------------------------------------------

/** Every status string caliband emits today, snake_case (§2.1). */
/** caliband's agent ids: 12 lowercase hex characters (the first 48 bits of a UUID v4). */
export const AGENT_ID = /^[0-9a-f]{12}$/;

/** caliband's agent statuses as it writes them (protocol §2.1). */
export const AGENT_STATUSES = ["spawning", "running", "idle", "killed", "done", "failed", "crashed"] as const;
/** Agent status as serialised by caliband (§2.1). */
export type AgentStatus = (typeof AGENT_STATUSES)[number];
/** Schema of a known status string (strict; used for requests such as `report_status`). */
export const AgentStatusSchema = z.enum(AGENT_STATUSES);

/** Terminal statuses: no further work happens (§2.1; also caliband's set for which `rm` is allowed). */
export const TERMINAL_STATUSES: ReadonlySet<AgentStatus> = new Set<AgentStatus>([
  "killed",
  "done",
  "failed",
  "crashed",
]);

/**
 * True when `status` is terminal (`killed|done|failed|crashed`, §2.1). `"unknown"` (a status string
 * this client does not know, §7) and any other string are treated as non-terminal, so callers keep
 * observing the agent.
 */
export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as ReadonlySet<string>).has(status);
}

/** Map a wire status string to a known {@link AgentStatus}, or `"unknown"` for a future value (§7). */
export function toAgentStatus(raw: string): AgentStatus | "unknown" {
  return (AGENT_STATUSES as readonly string[]).includes(raw) ? (raw as AgentStatus) : "unknown";
}

// ---------------------------------------------------------------------------------------------
// SpawnSpec (§2.2)
// ---------------------------------------------------------------------------------------------

/**
 * `SpawnSpec` as the daemon reads it (§2.2): only `initial_prompt` is required; absent optionals
 * default to `null`, `isolation_worktree`/`interactive` to `false`, `inherit_hooks` to `true`.
 * `inherited_hooks_config` (opaque JSON-in-a-string) stays absent when unset.
 */
export const SpawnSpecSchema = z.object({
  label: z.string().nullable().default(null),
  frontmatter_path: z.string().nullable().default(null),
  initial_prompt: z.string(),
  model: z.string().nullable().default(null),
  provider: z.string().nullable().default(null),
  tool_allowlist: z.array(z.string()).nullable().default(null),
  isolation_worktree: z.boolean().default(false),
  inherit_hooks: z.boolean().default(true),
  interactive: z.boolean().default(false),
  inherited_hooks_config: z.string().nullish(),
  source: z.string().nullable().default(null),
});
/** A spawn spec with every default applied (as echoed back in records, §2.2/§2.3). */
export type SpawnSpec = z.output<typeof SpawnSpecSchema>;
/** What a caller must provide to spawn: `initial_prompt` plus any optional field (§2.2). */
export type SpawnSpecInput = z.input<typeof SpawnSpecSchema>;

/**
 * The exact wire object for a spec (§2.2): fields in caliband's declaration order (`label`,
 * `frontmatter_path`, `initial_prompt`, `model`, `provider`, `tool_allowlist`,
 * `isolation_worktree`, `inherit_hooks`, `interactive`, [`inherited_hooks_config`], `source`),
 * `null` for unset nullable fields, `inherited_hooks_config` omitted when unset.
 */
export interface WireSpawnSpec {
  label: string | null;
  frontmatter_path: string | null;
  initial_prompt: string;
  model: string | null;
  provider: string | null;
  tool_allowlist: string[] | null;
  isolation_worktree: boolean;
  inherit_hooks: boolean;
  interactive: boolean;
  inherited_hooks_config?: string;
  source: string | null;
}

/**
 * Encode a spec exactly as caliband serialises it (§2.2; fixture ctl-03): defaults applied,
 * declaration order, `null` for unset optionals, `inherited_hooks_config` only when set.
 * @throws z.ZodError when `spec` is not a valid spec (e.g. `initial_prompt` missing).
 */
export function encodeSpawnSpec(spec: SpawnSpecInput): WireSpawnSpec {
  const s = SpawnSpecSchema.parse(spec);
  return {
    label: s.label,
    frontmatter_path: s.frontmatter_path,
    initial_prompt: s.initial_prompt,
    model: s.model,
    provider: s.provider,
    tool_allowlist: s.tool_allowlist,
    isolation_worktree: s.isolation_worktree,
    inherit_hooks: s.inherit_hooks,
    interactive: s.interactive,
    ...(s.inherited_hooks_config != null ? { inherited_hooks_config: s.inherited_hooks_config } : {}),
    source: s.source,
  };
}

// ---------------------------------------------------------------------------------------------
// AgentRecord (§2.3) and DaemonStatus (§2.5)
// ---------------------------------------------------------------------------------------------

const AgentRecordObject = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  started_at: z.string(),
  session_dir: z.string(),
  endpoint: EndpointSchema,
  working_dir: z.string().default(""),
  spec: SpawnSpecSchema,
});

/**
 * One registered agent (§2.3), as found in `listed` replies and `manifest.json`. `status` is a
 * known {@link AgentStatus} or `"unknown"`; `rawStatus` always holds the wire string (§7).
 * `working_dir` defaults to `""` (legacy records). Legacy `socket_path` maps to a Unix endpoint.
 */
export const AgentRecordSchema = z.preprocess(
  withLegacyEndpoint,
  AgentRecordObject.transform((r) => ({ ...r, status: toAgentStatus(r.status), rawStatus: r.status })),
);
/** Parsed agent record (§2.3); see {@link AgentRecordSchema}. */
export type AgentRecord = z.output<typeof AgentRecordSchema>;

/** Daemon health (§2.5): `pid`, `agents` (all records), `uptime_secs` (seconds), control `endpoint` as configured. */
export const DaemonStatusSchema = z.object({
  pid: Uint,
  agents: Uint,
  uptime_secs: Uint,
  endpoint: EndpointSchema,
});
/** `{pid, agents, uptime_secs, endpoint}` (§2.5). */
export type DaemonStatus = z.output<typeof DaemonStatusSchema>;

// ---------------------------------------------------------------------------------------------
// Supervisor errors (§1.6)
// ---------------------------------------------------------------------------------------------

/** Supervisor error nested under an `error` reply, tagged by `kind` (§1.6). */
export const SupervisorErrorSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("not_found"), id: z.string() }),
  // `status` is kept as the raw wire string so a future status never hides the refusal.
  z.object({ kind: z.literal("invalid_state"), op: z.string(), id: z.string(), status: z.string() }),
  z.object({ kind: z.literal("internal"), message: z.string() }),
]);
/** `not_found {id}` | `invalid_state {op, id, status}` | `internal {message}` (§1.6). */
export type SupervisorError = z.output<typeof SupervisorErrorSchema>;

// ---------------------------------------------------------------------------------------------
// Control requests (§1.4)
// ---------------------------------------------------------------------------------------------

const IdRequest = <K extends string>(kind: K) => z.object({ kind: z.literal(kind), id: z.string() });

/** Every control request, tagged by snake_case `kind` (§1.4). */
export const CtlRequestSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("list") }),
  z.object({ kind: z.literal("spawn"), spec: SpawnSpecSchema }),
  IdRequest("attach"),
  IdRequest("kill"),
  IdRequest("respawn"),
  z.object({ kind: z.literal("rm"), id: z.string(), force: z.boolean().default(false) }),
  z.object({ kind: z.literal("status") }),
  z.object({ kind: z.literal("shutdown") }),
  z.object({ kind: z.literal("report_status"), id: z.string(), status: AgentStatusSchema }),
]);
/** A control request as parsed (defaults applied) (§1.4). */
export type CtlRequest = z.output<typeof CtlRequestSchema>;
/** A control request as a caller may build it (spec/force defaults optional) (§1.4). */
export type CtlRequestInput = z.input<typeof CtlRequestSchema>;
/** The `kind` tags of control requests (§1.3). */
export type CtlRequestKind = CtlRequest["kind"];

/**
 * Encode one control request as its wire line text, without the trailing `\n` (§1.2, §1.4).
 * `spawn` specs go through {@link encodeSpawnSpec}; `rm` always carries `force`.
 */
export function encodeRequest(request: CtlRequestInput): string {
  switch (request.kind) {
    case "spawn":
      return JSON.stringify({ kind: "spawn", spec: encodeSpawnSpec(request.spec) });
    case "rm":
      return JSON.stringify({ kind: "rm", id: request.id, force: request.force ?? false });
    default:
      return JSON.stringify(CtlRequestSchema.parse(request));
  }
}

// ---------------------------------------------------------------------------------------------
// Control replies (§1.5)
// ---------------------------------------------------------------------------------------------

/** Every reply `kind` caliband sends (§1.3). */
export const CTL_REPLY_KINDS = [
  "listed",
  "spawned",
  "attach_ack",
  "killed",
  "respawned",
  "removed",
  "status",
  "shutdown_ack",
  "status_reported",
  "error",
] as const;
/** A control reply `kind` tag (§1.3). */
export type CtlReplyKind = (typeof CTL_REPLY_KINDS)[number];

const CtlReplyUnion = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("listed"), agents: z.array(AgentRecordSchema) }),
  z.object({ kind: z.literal("spawned"), id: z.string(), endpoint: EndpointSchema }),
  z.object({ kind: z.literal("attach_ack"), endpoint: EndpointSchema }),
  z.object({ kind: z.literal("killed") }),
  z.object({ kind: z.literal("respawned"), id: z.string() }),
  z.object({ kind: z.literal("removed") }),
  // newtype variant: DaemonStatus fields flattened next to the tag (§1.3)
  DaemonStatusSchema.extend({ kind: z.literal("status") }),
  z.object({ kind: z.literal("shutdown_ack") }),
  z.object({ kind: z.literal("status_reported") }),
  z.object({ kind: z.literal("error"), error: SupervisorErrorSchema }),
]);

/** Every control reply, tagged by snake_case `kind`; legacy `socket_path` accepted (§1.5, §7). */
export const CtlReplySchema = z.preprocess(withLegacyEndpoint, CtlReplyUnion);
/** A parsed control reply (§1.5). */
export type CtlReply = z.output<typeof CtlReplySchema>;

/** Result of {@link parseReply}: the reply, or why the line is not one. */
export type ParseReplyResult =
  | { ok: true; reply: CtlReply }
  | { ok: false; reason: "not_json" | "unknown_kind" | "invalid"; kind?: string; detail?: string };

/**
 * Parse one control reply line (§1.2, §1.5). Unknown `kind` → `unknown_kind` (a protocol error for
 * that request, §7); a known kind with a wrong shape → `invalid` with a short `detail`.
 */
export function parseReply(line: string): ParseReplyResult {
  const json = parseJson(line);
  if (!json.ok) return { ok: false, reason: "not_json" };
  const value = json.value;
  if (!isRecord(value) || typeof value.kind !== "string") {
    return { ok: false, reason: "invalid", detail: "not an object with a string `kind`" };
  }
  const kind = value.kind;
  if (!(CTL_REPLY_KINDS as readonly string[]).includes(kind))
    return { ok: false, reason: "unknown_kind", kind };
  const parsed = CtlReplySchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: "invalid", kind, detail: summarize(parsed.error) };
  return { ok: true, reply: parsed.data };
}

// ---------------------------------------------------------------------------------------------
// Per-agent stream: nested types (§3.3)
// ---------------------------------------------------------------------------------------------

/** `{secs, nanos}` — a Rust `Duration` (seconds + nanoseconds) (§3.3). */
export const DurationSchema = z.object({ secs: Uint, nanos: Uint });
/** `{secs, nanos}` (§3.3). Milliseconds = `secs * 1000 + nanos / 1e6`. */
export type Duration = z.output<typeof DurationSchema>;

/** Convert a {@link Duration} to milliseconds (float). */
export function durationMs(d: Duration): number {
  return d.secs * 1000 + d.nanos / 1_000_000;
}

/** Token usage (§3.3): `input_tokens`, `output_tokens`, optional cache counters (subsets of input). */
export const UsageSchema = z.object({
  input_tokens: Uint,
  output_tokens: Uint,
  cache_creation_input_tokens: Uint.optional(),
  cache_read_input_tokens: Uint.optional(),
});
/** Token usage counts (§3.3). */
export type Usage = z.output<typeof UsageSchema>;

/** Image source (§3.3): `base64` | `url` | `blob_ref`, or `unknown` for a future source type. */
export type ImageSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "blob_ref"; sha256: string; media_type: string }
  | { type: "unknown"; rawType: string };

const KNOWN_IMAGE_SOURCES = new Set(["base64", "url", "blob_ref"]);

const ImageSourceSchema: z.ZodType<ImageSource, unknown> = z.union([
  z.object({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
  z.object({ type: z.literal("url"), url: z.string() }),
  z.object({ type: z.literal("blob_ref"), sha256: z.string(), media_type: z.string() }),
  z
    .object({ type: z.string().refine((t) => !KNOWN_IMAGE_SOURCES.has(t)) })
    .transform((s) => ({ type: "unknown" as const, rawType: s.type })),
]);

/**
 * One content block inside a {@link Message} (§3.3), tagged by snake_case `type`. A block type
 * this client does not know becomes `{type:"unknown", rawType}` instead of failing the frame (§7).
 */
export type ContentBlock =
  | { type: "text"; text: string; cache_control?: { type: string } }
  | { type: "image"; source: ImageSource; sha256?: string; dims?: [number, number] }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: ContentBlock[]; is_error: boolean }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "unknown"; rawType: string };

const KNOWN_BLOCK_TYPES = new Set(["text", "image", "tool_use", "tool_result", "thinking"]);

/** Schema of {@link ContentBlock} (recursive through `tool_result.content`). */
export const ContentBlockSchema: z.ZodType<ContentBlock, unknown> = z.lazy(() =>
  z.union([
    z.object({
      type: z.literal("text"),
      text: z.string(),
      cache_control: z.object({ type: z.string() }).optional(),
    }),
    z.object({
      type: z.literal("image"),
      source: ImageSourceSchema,
      sha256: z.string().optional(),
      dims: z.tuple([Uint, Uint]).optional(),
    }),
    z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
    z.object({
      type: z.literal("tool_result"),
      tool_use_id: z.string(),
      content: z.array(ContentBlockSchema).default([]),
      is_error: z.boolean().default(false),
    }),
    z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() }),
    z
      .object({ type: z.string().refine((t) => !KNOWN_BLOCK_TYPES.has(t)) })
      .transform((b) => ({ type: "unknown" as const, rawType: b.type })),
  ]),
);

/** A conversation message `{role, content}` (§3.3). `role` is `user|assistant|system` today; kept open. */
export const MessageSchema = z.object({ role: z.string(), content: z.array(ContentBlockSchema) });
/** A conversation message (§3.3). */
export type Message = z.output<typeof MessageSchema>;

/** `StopCondition` unit variants: bare strings on the wire (§3.3). */
export const STOP_UNIT_VARIANTS = [
  "EndOfTurn",
  "Cancelled",
  "MaxTokensExhausted",
  "ThinkingBudgetExhausted",
] as const;
/** `StopCondition` variants whose payload is a message string: `{"<Variant>":"msg"}` (§3.3). */
export const STOP_MESSAGE_VARIANTS = [
  "ProviderError",
  "HookDenied",
  "CompactionFailed",
  "Refusal",
  "ContentFilter",
] as const;

/**
 * Why a run ended (§3.3), decoded from caliband's externally tagged enum: a bare string for unit
 * variants, a single-key object `{"<Variant>": payload}` otherwise. Open-ended: any other string
 * or single-key object becomes `{variant:"unknown", name, value}` (§7).
 */
export type StopCondition =
  | { variant: (typeof STOP_UNIT_VARIANTS)[number] }
  | { variant: "MaxTurnsReached"; value: number }
  | { variant: (typeof STOP_MESSAGE_VARIANTS)[number]; value: string }
  | { variant: "StreamIdle"; value: Duration }
  | { variant: "unknown"; name: string; value?: unknown };

/** Name of a stop condition as on the wire (`"EndOfTurn"`, `"ProviderError"`, or the unknown tag). */
export function stopConditionName(sc: StopCondition): string {
  return sc.variant === "unknown" ? sc.name : sc.variant;
}

function includes<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

/** Schema of {@link StopCondition} (§3.3). */
export const StopConditionSchema: z.ZodType<StopCondition, unknown> = z.unknown().transform((raw, ctx) => {
  if (typeof raw === "string") {
    return includes(STOP_UNIT_VARIANTS, raw) ? { variant: raw } : { variant: "unknown" as const, name: raw };
  }
  const entries = isRecord(raw) ? Object.entries(raw) : [];
  const entry = entries[0];
  if (entries.length !== 1 || entry === undefined) {
    ctx.addIssue({ code: "custom", message: "StopCondition must be a string or a single-key object" });
    return z.NEVER;
  }
  const [name, value] = entry;
  const bad = (): typeof z.NEVER => {
    ctx.addIssue({ code: "custom", message: `bad payload for StopCondition ${name}` });
    return z.NEVER;
  };
  if (name === "MaxTurnsReached") {
    const p = Uint.safeParse(value);
    return p.success ? { variant: name, value: p.data } : bad();
  }
  if (name === "StreamIdle") {
    const p = DurationSchema.safeParse(value);
    return p.success ? { variant: name, value: p.data } : bad();
  }
  if (includes(STOP_MESSAGE_VARIANTS, name)) {
    return typeof value === "string" ? { variant: name, value } : bad();
  }
  if (includes(STOP_UNIT_VARIANTS, name)) return { variant: name };
  return { variant: "unknown" as const, name, value };
});

// ---------------------------------------------------------------------------------------------
// Per-agent stream: TurnEvent frames (§3.3)
// ---------------------------------------------------------------------------------------------

/** The eight outbound frame types, PascalCase `type` tags (§3.3). */
export const TURN_EVENT_TYPES = [
  "TurnStart",
  "AssistantTextDelta",
  "AssistantThinkingDelta",
  "ToolCallStart",
  "ToolCallInputDelta",
  "ToolCallEnd",
  "TurnEnd",
  "RunEnd",
] as const;
/** A known `TurnEvent` `type` tag (§3.3). */
export type TurnEventType = (typeof TURN_EVENT_TYPES)[number];

/** `TurnStart {turn_index, message_id, model}` (§3.3). */
export const TurnStartSchema = z.object({
  type: z.literal("TurnStart"),
  turn_index: Uint,
  message_id: z.string(),
  model: z.string(),
});
/** `AssistantTextDelta {turn_index, content_block_index, text}` (§3.3). */
export const AssistantTextDeltaSchema = z.object({
  type: z.literal("AssistantTextDelta"),
  turn_index: Uint,
  content_block_index: Uint,
  text: z.string(),
});
/** `AssistantThinkingDelta {turn_index, content_block_index, text}` (§3.3). */
export const AssistantThinkingDeltaSchema = z.object({
  type: z.literal("AssistantThinkingDelta"),
  turn_index: Uint,
  content_block_index: Uint,
  text: z.string(),
});
/** `ToolCallStart {turn_index, tool_use_id, name}` (§3.3). */
export const ToolCallStartSchema = z.object({
  type: z.literal("ToolCallStart"),
  turn_index: Uint,
  tool_use_id: z.string(),
  name: z.string(),
});
/** `ToolCallInputDelta {turn_index, tool_use_id, partial_json}` — a fragment of the input JSON (§3.3). */
export const ToolCallInputDeltaSchema = z.object({
  type: z.literal("ToolCallInputDelta"),
  turn_index: Uint,
  tool_use_id: z.string(),
  partial_json: z.string(),
});
/**
 * `ToolCallEnd` (§3.3): no tool name (pair by `tool_use_id`, §9 #106); `result_text` (≤ 8192
 * chars) and `truncated` are optional (added 2026-07-06, §7).
 */
export const ToolCallEndSchema = z.object({
  type: z.literal("ToolCallEnd"),
  turn_index: Uint,
  tool_use_id: z.string(),
  is_error: z.boolean().default(false),
  content: z.array(ContentBlockSchema).default([]),
  result_text: z.string().optional(),
  truncated: z.boolean().optional(),
});
/** `TurnEnd` (§3.3): `ttft`/`tbt` are nullable {@link Duration}s (missing → `null`). */
export const TurnEndSchema = z.object({
  type: z.literal("TurnEnd"),
  turn_index: Uint,
  assistant_message: MessageSchema,
  tool_results: z.array(MessageSchema).default([]),
  stop_reason: z.string(),
  usage: UsageSchema,
  ttft: DurationSchema.nullable().default(null),
  tbt: DurationSchema.nullable().default(null),
});
/** `RunEnd` (§3.3): `turns_without_edit` defaults to 0, `no_edit_nudge_emitted` to false (§7). */
export const RunEndSchema = z.object({
  type: z.literal("RunEnd"),
  final_messages: z.array(MessageSchema),
  total_usage: UsageSchema,
  turn_count: Uint,
  stopped_for: StopConditionSchema,
  turns_without_edit: Uint.default(0),
  no_edit_nudge_emitted: z.boolean().default(false),
});

/** Any known outbound frame, tagged by PascalCase `type` (§3.3). */
export const TurnEventSchema = z.discriminatedUnion("type", [
  TurnStartSchema,
  AssistantTextDeltaSchema,
  AssistantThinkingDeltaSchema,
  ToolCallStartSchema,
  ToolCallInputDeltaSchema,
  ToolCallEndSchema,
  TurnEndSchema,
  RunEndSchema,
]);
/** A parsed outbound frame (§3.3). */
export type TurnEvent = z.output<typeof TurnEventSchema>;

/**
 * Result of {@link parseFrame}. Failures say why: `not_json` (skip the line), `unknown_type` (a
 * frame type this client does not know — skip and count, §7; `type` holds it), `invalid` (a
 * known type with a wrong shape, or no string `type`; `detail` explains).
 */
export type ParseFrameResult =
  | { ok: true; frame: TurnEvent }
  | { ok: false; reason: "not_json" | "unknown_type" | "invalid"; type?: string; detail?: string };

/** Parse one per-agent stream line into a {@link TurnEvent} (§3.3, §7). Never throws. */
export function parseFrame(line: string): ParseFrameResult {
  const json = parseJson(line);
  if (!json.ok) return { ok: false, reason: "not_json" };
  const value = json.value;
  if (!isRecord(value) || typeof value.type !== "string") {
    return { ok: false, reason: "invalid", detail: "not an object with a string `type`" };
  }
  const type = value.type;
  if (!includes(TURN_EVENT_TYPES, type)) return { ok: false, reason: "unknown_type", type };
  const parsed = TurnEventSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: "invalid", type, detail: summarize(parsed.error) };
  return { ok: true, frame: parsed.data };
}

// ---------------------------------------------------------------------------------------------
// Per-agent stream: inbound frames (§3.5)
// ---------------------------------------------------------------------------------------------

/** `{"type":"UserMessage","text":…}` — an operator message for an interactive agent (§3.5). */
export const UserMessageSchema = z.object({ type: z.literal("UserMessage"), text: z.string() });
/** `{"type":"EndInput"}` — finish the interactive run after the current turn (§3.5). */
export const EndInputSchema = z.object({ type: z.literal("EndInput") });
/** Inbound frame, PascalCase `type` (§3.5). */
export const InboundFrameSchema = z.discriminatedUnion("type", [UserMessageSchema, EndInputSchema]);
/** `UserMessage {text}` | `EndInput` (§3.5). */
export type InboundFrame = z.output<typeof InboundFrameSchema>;
/** `{type:"UserMessage", text}` (§3.5). */
export type UserMessage = z.output<typeof UserMessageSchema>;
/** `{type:"EndInput"}` (§3.5). */
export type EndInput = z.output<typeof EndInputSchema>;

/** Encode an inbound frame as its wire line text, without the trailing `\n` (§3.5). */
export function encodeInbound(frame: InboundFrame): string {
  return frame.type === "UserMessage"
    ? JSON.stringify({ type: "UserMessage", text: frame.text })
    : JSON.stringify({ type: "EndInput" });
}

/** Parse one inbound line (§3.5); `undefined` for anything the worker would skip silently. */
export function parseInbound(line: string): InboundFrame | undefined {
  const json = parseJson(line);
  if (!json.ok) return undefined;
  const parsed = InboundFrameSchema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}
