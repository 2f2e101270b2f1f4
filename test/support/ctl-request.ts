// Decoding of control request lines with serde's semantics and error texts
// (docs/caliband-protocol.md §1.3, §1.4, §2.2; proto.rs `CtlRequest`, `SpawnSpec`).
import { type Content, SerdeError, SerdeReader, unexpected } from "./serde-json.js";
import { AGENT_STATUSES, type AgentStatus, type SpawnSpecJson } from "./wire-format.js";

/** A decoded control request (§1.4). */
export type CtlRequest =
  | { kind: "list" }
  | { kind: "status" }
  | { kind: "shutdown" }
  | { kind: "spawn"; spec: SpawnSpecJson }
  | { kind: "attach" | "kill" | "respawn"; id: string }
  | { kind: "rm"; id: string; force: boolean }
  | { kind: "report_status"; id: string; status: AgentStatus };

/** Result of decoding one request line: the request, or serde's error text (without `bad request: `). */
export type DecodeResult = { ok: true; request: CtlRequest } | { ok: false; message: string };

const VARIANTS = [
  "list",
  "spawn",
  "attach",
  "kill",
  "respawn",
  "rm",
  "status",
  "shutdown",
  "report_status",
] as const;
type Variant = (typeof VARIANTS)[number];

const oneOf = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(", ");

/** A serde error without a position (errors raised while decoding buffered content). */
const plain = (msg: string): SerdeError => new SerdeError(msg, 0, 0);
const invalidType = (c: Content, expected: string): SerdeError =>
  plain(`invalid type: ${unexpected(c)}, expected ${expected}`);

interface FieldDef {
  name: string;
  decode: (c: Content) => unknown;
  /** Present for `#[serde(default)]` fields. */
  fallback?: () => unknown;
}

/** Decodes a struct from buffered content like serde derive (map by name, seq by position). */
function decodeStruct(c: Content, expecting: string, fields: readonly FieldDef[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.t === "map") {
    const seen = new Set<string>();
    for (const [key, value] of c.v) {
      const field = fields.find((f) => f.name === key);
      if (field === undefined) continue; // unknown fields are ignored (§1.3)
      if (seen.has(key)) throw plain(`duplicate field \`${key}\``);
      seen.add(key);
      out[key] = field.decode(value);
    }
    for (const field of fields) {
      if (seen.has(field.name)) continue;
      if (field.fallback === undefined) throw plain(`missing field \`${field.name}\``);
      out[field.name] = field.fallback();
    }
    return out;
  }
  if (c.t === "seq") {
    fields.forEach((field, i) => {
      const item = c.v[i];
      if (item !== undefined) out[field.name] = field.decode(item);
      else if (field.fallback !== undefined) out[field.name] = field.fallback();
      else throw plain(`invalid length ${i}, expected ${expecting} with ${fields.length} elements`);
    });
    if (c.v.length > fields.length) {
      throw plain(`invalid length ${c.v.length}, expected fewer elements in sequence`);
    }
    return out;
  }
  throw invalidType(c, expecting);
}

const str = (c: Content): string => {
  if (c.t !== "str") throw invalidType(c, "a string");
  return c.v;
};
const optStr = (c: Content): string | null => (c.t === "null" ? null : str(c));
const optPath = (c: Content): string | null => {
  if (c.t === "null") return null;
  if (c.t !== "str") throw invalidType(c, "path string");
  return c.v;
};
const bool = (c: Content): boolean => {
  if (c.t !== "bool") throw invalidType(c, "a boolean");
  return c.v;
};
const optStrVec = (c: Content): string[] | null => {
  if (c.t === "null") return null;
  if (c.t !== "seq") throw invalidType(c, "a sequence");
  return c.v.map(str);
};
const status = (c: Content): AgentStatus => {
  let name: string;
  if (c.t === "str") {
    name = c.v;
  } else if (c.t === "map") {
    const entry = c.v[0];
    if (c.v.length !== 1 || entry === undefined) {
      throw plain("invalid value: map, expected map with a single key");
    }
    name = entry[0];
    if (entry[1].t !== "null") throw invalidType(entry[1], "unit");
  } else {
    throw invalidType(c, "string or map");
  }
  const found = AGENT_STATUSES.find((s) => s === name);
  if (found === undefined) {
    throw plain(`unknown variant \`${name}\`, expected one of ${oneOf(AGENT_STATUSES)}`);
  }
  return found;
};

const SPEC_FIELDS: readonly FieldDef[] = [
  { name: "label", decode: optStr, fallback: () => null },
  { name: "frontmatter_path", decode: optPath, fallback: () => null },
  { name: "initial_prompt", decode: str },
  { name: "model", decode: optStr, fallback: () => null },
  { name: "provider", decode: optStr, fallback: () => null },
  { name: "tool_allowlist", decode: optStrVec, fallback: () => null },
  { name: "isolation_worktree", decode: bool, fallback: () => false },
  { name: "inherit_hooks", decode: bool, fallback: () => true },
  { name: "interactive", decode: bool, fallback: () => false },
  { name: "inherited_hooks_config", decode: optStr, fallback: () => null },
  { name: "source", decode: optStr, fallback: () => null },
];

/** Decodes a `SpawnSpec` from buffered content with serde defaults (§2.2). */
export function decodeSpec(c: Content): SpawnSpecJson {
  const f = decodeStruct(c, "struct SpawnSpec", SPEC_FIELDS);
  return {
    label: f.label as string | null,
    frontmatter_path: f.frontmatter_path as string | null,
    initial_prompt: f.initial_prompt as string,
    model: f.model as string | null,
    provider: f.provider as string | null,
    tool_allowlist: f.tool_allowlist as string[] | null,
    isolation_worktree: f.isolation_worktree as boolean,
    inherit_hooks: f.inherit_hooks as boolean,
    interactive: f.interactive as boolean,
    inherited_hooks_config: f.inherited_hooks_config as string | null,
    source: f.source as string | null,
  };
}

/** Reads the `kind` value (a variant identifier) from the stream, failing at serde's position. */
function readVariant(r: SerdeReader): Variant {
  const b = r.peekNonWs();
  if (b === undefined) throw r.peekError("EOF while parsing a value");
  if (b === 0x22) {
    r.index++;
    const s = r.parseStringBody();
    const v = VARIANTS.find((x) => x === s);
    if (v === undefined) throw r.error(`unknown variant \`${s}\`, expected one of ${oneOf(VARIANTS)}`);
    return v;
  }
  if (b === 0x5b) throw r.error("invalid type: sequence, expected variant identifier");
  if (b === 0x7b) throw r.error("invalid type: map, expected variant identifier");
  const value = r.parseValue();
  throw r.error(`invalid type: ${unexpected(value)}, expected variant identifier`);
}

function decodeVariant(kind: Variant, content: Content): CtlRequest {
  const idField: FieldDef = { name: "id", decode: str };
  const exp = (v: string): string => `struct variant CtlRequest::${v}`;
  switch (kind) {
    case "list":
    case "status":
    case "shutdown":
      return { kind };
    case "spawn": {
      const f = decodeStruct(content, exp("Spawn"), [{ name: "spec", decode: decodeSpec }]);
      return { kind, spec: f.spec as SpawnSpecJson };
    }
    case "attach":
    case "kill":
    case "respawn": {
      const name = kind.charAt(0).toUpperCase() + kind.slice(1);
      const f = decodeStruct(content, exp(name), [idField]);
      return { kind, id: f.id as string };
    }
    case "rm": {
      const f = decodeStruct(content, exp("Rm"), [
        idField,
        { name: "force", decode: bool, fallback: () => false },
      ]);
      return { kind, id: f.id as string, force: f.force as boolean };
    }
    case "report_status": {
      const f = decodeStruct(content, exp("ReportStatus"), [idField, { name: "status", decode: status }]);
      return { kind, id: f.id as string, status: f.status as AgentStatus };
    }
  }
}

/**
 * Decodes one trimmed, non-blank control line as caliband's `serde_json::from_str::<CtlRequest>` does:
 * `kind` is checked while the object streams by (so its errors carry a position), the other fields
 * after the whole object was read (errors without a position), trailing characters last.
 */
export function decodeCtlRequest(line: string): DecodeResult {
  const r = new SerdeReader(Buffer.from(line, "utf8"));
  try {
    const first = r.peekNonWs();
    let kind: Variant | undefined;
    let content: Content;
    if (first === 0x7b) {
      let tagSeen = false;
      const map = r.parseMap((key, reader) => {
        if (key !== "kind") return reader.parseValue();
        if (tagSeen) throw reader.error("duplicate field `kind`");
        tagSeen = true;
        kind = readVariant(reader);
        return { t: "null" };
      });
      content = { t: "map", v: map.v.filter(([k]) => k !== "kind") };
      if (kind === undefined) throw r.error("missing field `kind`");
    } else if (first === 0x5b) {
      r.index++;
      const items: Content[] = [];
      if (r.peekNonWs() === 0x5d) {
        r.index++;
        throw r.error("missing field `kind`");
      }
      kind = readVariant(r);
      for (;;) {
        const b = r.peekNonWs();
        if (b === 0x5d) break;
        if (b === undefined) throw r.peekError("EOF while parsing a list");
        if (b !== 0x2c) throw r.peekError("expected `,` or `]`");
        r.index++;
        const next = r.peekNonWs();
        if (next === 0x5d) throw r.peekError("trailing comma");
        items.push(r.parseValue());
      }
      r.index++;
      content = { t: "seq", v: items };
    } else {
      const value = r.parseValue();
      throw r.error(`invalid type: ${unexpected(value)}, expected internally tagged enum CtlRequest`);
    }
    const request = decodeVariant(kind, content);
    r.end();
    return { ok: true, request };
  } catch (e) {
    if (e instanceof SerdeError) return { ok: false, message: e.message };
    throw e;
  }
}
