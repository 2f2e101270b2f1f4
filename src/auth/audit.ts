/**
 * The audit log (issue 11 item 4): one append-only row per mutation and per denied attempt —
 * time, token name and role, client address, operation, targets, arguments with secrets redacted,
 * and the result (payload type or error code). Rows go through the store's single writer; the
 * table refuses UPDATE (a trigger), and only retention deletes old rows.
 *
 * Denied attempts cannot fill the disk: after {@link REFUSALS_PER_WINDOW} rows per client address
 * (refusals before GraphQL) or per token (denied fields) in {@link REFUSAL_WINDOW_MS}, and after
 * {@link REFUSALS_PER_WINDOW_TOTAL} such rows in all, further ones are only counted, and one row
 * with the count is written when that key is next denied after the window. Every row is bounded
 * too: strings are cut at {@link MAX_AUDIT_STRING} characters, lists at {@link MAX_AUDIT_LIST}
 * items, the arguments at {@link MAX_AUDIT_ARGS_BYTES} bytes, and anything that looks like a
 * Prospero token secret is redacted wherever it appears.
 */
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  type GraphQLArgument,
  type GraphQLInputType,
} from "graphql";
import type { Prisma } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import type { StoreWriter } from "../store/writer.js";
import type { Principal } from "./roles.js";

/** Replacement of a redacted value. */
export const REDACTED = "[redacted]";

/** Longest string argument kept whole, characters (longer ones are cut, with their length noted). */
export const MAX_AUDIT_STRING = 1_000;

/** Most items of a list argument kept (the rest are counted). */
export const MAX_AUDIT_LIST = 50;

/** Largest stored arguments of one row, bytes of JSON (larger ones are replaced by a summary). */
export const MAX_AUDIT_ARGS_BYTES = 8_192;

/** Denied attempts recorded per key (client address, or token) per window before further ones are only counted. */
export const REFUSALS_PER_WINDOW = 20;

/** Denied attempts recorded per window over all keys. */
export const REFUSALS_PER_WINDOW_TOTAL = 500;

/** What a Prospero token secret looks like (redacted wherever it appears in arguments). */
const SECRET_PATTERN = /prospero_[A-Za-z0-9_-]{20,}/g;

/** Length of the refusal-recording window, ms. */
export const REFUSAL_WINDOW_MS = 60_000;

/** One audit row to write. */
export interface AuditRecord {
  /** Who asked; null when no valid credential was presented. */
  principal: Principal | null;
  remoteAddress: string | null;
  /** Root field (e.g. `spawnAgent`), or `http` / `websocket` for a refusal before GraphQL. */
  operation: string;
  operationName?: string | null;
  workspace?: string | null;
  agentId?: string | null;
  /** Arguments, already redacted. */
  args?: unknown;
  /** Payload type name or error code. */
  result: string;
  denied: boolean;
}

/** Counters of the audit writer. */
export interface AuditStats {
  /** Rows committed. */
  written: number;
  /** Rows that could not be written (logged). */
  failures: number;
  /** Refusals only counted (see the module comment). */
  suppressed: number;
}

/** Writes audit rows. */
export class AuditLog {
  readonly stats: AuditStats = { written: 0, failures: 0, suppressed: 0 };
  private readonly refusals = new Map<string, { windowStart: number; count: number; suppressed: number }>();
  private total = { windowStart: 0, count: 0 };
  private readonly log: Logger;

  constructor(
    private readonly writer: StoreWriter,
    logger: Logger = silentLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.log = logger.child({ module: "audit" });
  }

  /** Write one row; resolves once it is committed. Never rejects (a failure is logged and counted). */
  async record(r: AuditRecord): Promise<void> {
    const args = boundArgs(r.args);
    const data: Prisma.AuditEntryCreateInput = {
      ts: new Date(this.now()),
      tokenId: r.principal?.tokenId ?? null,
      tokenName: r.principal?.name ?? null,
      role: r.principal
        ? r.principal.credential === "insecure-no-auth"
          ? "insecure"
          : r.principal.role
        : null,
      remoteAddress: r.remoteAddress,
      operation: r.operation.slice(0, 200),
      operationName: r.operationName?.slice(0, 200) ?? null,
      workspace: r.workspace?.slice(0, 200) ?? null,
      agentId: r.agentId?.slice(0, 200) ?? null,
      args: args === undefined ? undefined : (args as Prisma.InputJsonValue),
      result: r.result.slice(0, 200),
      denied: r.denied,
    };
    try {
      await this.writer.submit((db) => [db.auditEntry.create({ data })]);
      this.stats.written++;
    } catch (err) {
      this.stats.failures++;
      this.log.error({ err, operation: r.operation, result: r.result }, "could not write an audit row");
    }
  }

  /**
   * Record a request refused before GraphQL (401/403/421/…), bounded per client address (see the
   * module comment). Does not wait for the write.
   */
  recordRefusal(r: Omit<AuditRecord, "denied">): void {
    void this.recordDenied({ ...r, denied: true }, `address:${r.remoteAddress ?? "unknown"}`);
  }

  /**
   * Record a denied attempt, bounded per `key` and in all (see the module comment). Resolves
   * once the row is committed, or at once when it is only counted. Never rejects.
   */
  async recordDenied(r: AuditRecord, key: string): Promise<void> {
    const now = this.now();
    let w = this.refusals.get(key);
    if (!w || now - w.windowStart >= REFUSAL_WINDOW_MS) {
      if (w && w.suppressed > 0) {
        void this.record({
          ...r,
          args: { suppressedRefusals: w.suppressed, windowMs: REFUSAL_WINDOW_MS },
          denied: true,
        });
      }
      w = { windowStart: now, count: 0, suppressed: 0 };
      this.refusals.set(key, w);
      if (this.refusals.size > 10_000) this.pruneWindows(now);
    }
    if (now - this.total.windowStart >= REFUSAL_WINDOW_MS) this.total = { windowStart: now, count: 0 };
    if (w.count >= REFUSALS_PER_WINDOW || this.total.count >= REFUSALS_PER_WINDOW_TOTAL) {
      w.suppressed++;
      this.stats.suppressed++;
      return;
    }
    w.count++;
    this.total.count++;
    await this.record({ ...r, denied: true });
  }

  /**
   * Delete audit rows older than `cutoff` (retention, the only deletion the log allows).
   * @returns how many rows were deleted.
   */
  async prune(cutoff: Date): Promise<number> {
    const [res] = (await this.writer.submit((db) => [
      db.auditEntry.deleteMany({ where: { ts: { lt: cutoff } } }),
    ])) as [{ count: number }];
    return res.count;
  }

  private pruneWindows(now: number): void {
    for (const [k, w] of this.refusals) {
      if (now - w.windowStart >= REFUSAL_WINDOW_MS && w.suppressed === 0) this.refusals.delete(k);
    }
  }
}

/** `args` as stored: undefined for none, a summary when its JSON exceeds {@link MAX_AUDIT_ARGS_BYTES}. */
function boundArgs(args: unknown): unknown {
  if (args === undefined || args === null) return undefined;
  const json = JSON.stringify(args);
  const size = Buffer.byteLength(json, "utf8");
  if (size <= MAX_AUDIT_ARGS_BYTES) return args;
  return {
    truncated: true,
    bytes: size,
    keys: typeof args === "object" ? Object.keys(args as object).slice(0, 20) : [],
  };
}

/**
 * `text` with everything that looks like a Prospero token secret (`prospero_` and 20 or more
 * base64url characters) replaced by {@link REDACTED}. Pure. Also used for other text the gateway
 * keeps from outside (a failed worker's log tail, src/fleet/worker-log.ts).
 */
export function redactTokenSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, REDACTED);
}

/** A string fit for the audit log: token secrets redacted, cut at {@link MAX_AUDIT_STRING}. */
function boundString(value: string): string {
  const clean = redactTokenSecrets(value);
  return clean.length > MAX_AUDIT_STRING
    ? `${clean.slice(0, MAX_AUDIT_STRING)}… (${value.length} characters)`
    : clean;
}

/**
 * A copy of a field's arguments fit for the audit log: values of input fields marked
 * `extensions: { sensitive: true }` in the schema become {@link REDACTED}, so does anything that
 * looks like a token secret; strings longer than {@link MAX_AUDIT_STRING} are cut, lists after
 * {@link MAX_AUDIT_LIST} items, and unknown keys are dropped.
 */
export function redactArgs(
  args: Record<string, unknown>,
  defs: readonly GraphQLArgument[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    if (!(def.name in args)) continue;
    out[def.name] = def.extensions?.["sensitive"] ? REDACTED : redactValue(args[def.name], def.type);
  }
  return out;
}

function redactValue(value: unknown, type: GraphQLInputType): unknown {
  if (value === null || value === undefined) return value ?? null;
  const t = getNullableType(type);
  if (isListType(t)) {
    if (!Array.isArray(value)) return null;
    const kept = value.slice(0, MAX_AUDIT_LIST).map((v) => redactValue(v, t.ofType as GraphQLInputType));
    return value.length > MAX_AUDIT_LIST ? [...kept, `… (${value.length} items)`] : kept;
  }
  const named = getNamedType(t);
  if (isInputObjectType(named)) {
    if (typeof value !== "object") return null;
    const fields = named.getFields();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const f = fields[k];
      if (!f) continue;
      out[k] = f.extensions?.["sensitive"] ? REDACTED : redactValue(v, f.type);
    }
    return out;
  }
  if (typeof value === "string") return boundString(value);
  if (value instanceof Date) return value.toISOString();
  return value;
}
