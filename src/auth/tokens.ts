/**
 * API tokens and browser sessions (issue 11). A token's secret is 32 random bytes
 * (`prospero_<43 base64url chars>`); only its SHA-256 is stored, and the secret is shown once, at
 * creation. Tokens and sessions are few, so every row is kept in memory and looked up by hash;
 * writes go through the store's single writer. Revoking a token takes effect at once: the next
 * request fails, its sessions die, and {@link TokenService.onRevoked} listeners close its open
 * WebSocket connections and SSE streams.
 *
 * The bootstrap admin token lives in `<data dir>/admin-token` (mode 0600), created at first start
 * or supplied by `PROSPERO_ADMIN_TOKEN`; local CLIs and SDKs read it from there.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { PrismaClient, Prisma } from "../generated/prisma/client.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import type { StoreWriter } from "../store/writer.js";
import { Conflict, NotFound, ValidationFailed } from "../errors.js";
import { WORKSPACE_NAME } from "../fleet/registry.js";
import { ConfigError } from "../errors.js";
import { isRole, type Principal, type Role } from "./roles.js";

import { ADMIN_TOKEN_FILE } from "./local-credentials.js";

export { ADMIN_TOKEN_FILE };

/** Name of the bootstrap admin token (reserved: no other active token may take it). */
export const BOOTSTRAP_TOKEN_NAME = "admin";

/** Prefix of every secret the gateway issues (lets secret scanners recognize leaked tokens). */
export const TOKEN_PREFIX = "prospero_";

/** Shortest secret accepted from `PROSPERO_ADMIN_TOKEN`, characters. */
export const MIN_SUPPLIED_TOKEN_CHARS = 32;

/** Longest credential string looked at, characters (anything longer is refused unread). */
export const MAX_CREDENTIAL_CHARS = 512;

/** Lifetime of a browser session, ms (30 days), capped by its token's expiry. */
export const SESSION_TTL_MS = 30 * 86_400_000;

/** `lastUsedAt` is written at most this often per token, ms. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Token names: 1–64 of letters, digits, `.`, `_`, `-`, `@`, starting with a letter or digit. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** Latest accepted expiry: 10 years from now. */
const MAX_EXPIRY_MS = 10 * 365 * 86_400_000;

/** A token as the gateway knows it (never holds the secret). */
export interface TokenRecord {
  /** Public id, 12 lowercase hex. */
  id: string;
  name: string;
  role: Role;
  /** Workspaces the token is limited to; null = all. */
  workspaces: readonly string[] | null;
  createdAt: Date;
  /** Name of the creating token; null for the bootstrap token. */
  createdBy: string | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The bootstrap admin token kept in the data dir. */
  bootstrap: boolean;
}

/** What {@link TokenService.create} takes. */
export interface NewToken {
  name: string;
  role: Role;
  /** Limit to these workspaces (null/absent = all). */
  workspaces?: readonly string[] | null;
  /** Expiry instant (absent = never). */
  expiresAt?: Date | null;
  /** Name of the token creating it. */
  createdBy: string | null;
}

/** Why a credential was refused. */
export type CredentialFailure = "unknown" | "expired" | "revoked";

/** Outcome of checking a credential. */
export type CredentialCheck = { ok: true; principal: Principal } | { ok: false; reason: CredentialFailure };

interface SessionRecord {
  id: string;
  tokenId: string;
  expiresAtMs: number;
  revoked: boolean;
}

/** Lowercase hex SHA-256 of a secret. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** A new token secret: `prospero_` + 32 random bytes in base64url. */
export function newSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

function newId(): string {
  return randomBytes(6).toString("hex");
}

function toRecord(r: Prisma.ApiTokenModel): TokenRecord {
  const ws = Array.isArray(r.workspaces) ? r.workspaces.map(String) : null;
  return {
    id: r.id,
    name: r.name,
    role: isRole(r.role) ? r.role : "viewer",
    workspaces: ws ? Object.freeze(ws) : null,
    createdAt: r.createdAt,
    createdBy: r.createdBy,
    expiresAt: r.expiresAt,
    lastUsedAt: r.lastUsedAt,
    revokedAt: r.revokedAt,
    bootstrap: r.bootstrap,
  };
}

/**
 * Check a secret supplied by `PROSPERO_ADMIN_TOKEN`.
 * @throws ConfigError when it is shorter than {@link MIN_SUPPLIED_TOKEN_CHARS}, longer than
 *   {@link MAX_CREDENTIAL_CHARS}, or not printable ASCII without spaces.
 */
export function validateSuppliedToken(secret: string): void {
  if (
    secret.length < MIN_SUPPLIED_TOKEN_CHARS ||
    secret.length > MAX_CREDENTIAL_CHARS ||
    !/^[\x21-\x7e]+$/.test(secret)
  ) {
    throw new ConfigError(
      "PROSPERO_ADMIN_TOKEN",
      `${MIN_SUPPLIED_TOKEN_CHARS}–${MAX_CREDENTIAL_CHARS} printable ASCII characters without spaces (e.g. \`openssl rand -base64 32\`)`,
      `got ${secret.length} characters`,
    );
  }
}

/** Tokens and sessions of one gateway. */
export class TokenService {
  private readonly byHash = new Map<string, TokenRecord>();
  private readonly byId = new Map<string, TokenRecord>();
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly lastWritten = new Map<string, number>();
  private readonly revokedListeners = new Set<(tokenId: string) => void>();
  private readonly log: Logger;

  constructor(
    private readonly db: PrismaClient,
    private readonly writer: StoreWriter,
    logger: Logger = silentLogger,
  ) {
    this.log = logger.child({ module: "tokens" });
  }

  /** Load every token and every live session (call once at start). */
  async load(): Promise<void> {
    this.byHash.clear();
    this.byId.clear();
    for (const row of await this.db.apiToken.findMany()) {
      const rec = toRecord(row);
      this.byHash.set(row.secretHash, rec);
      this.byId.set(rec.id, rec);
    }
    this.sessions.clear();
    const now = new Date();
    for (const s of await this.db.session.findMany({ where: { revokedAt: null, expiresAt: { gt: now } } })) {
      this.sessions.set(s.secretHash, {
        id: s.id,
        tokenId: s.tokenId,
        expiresAtMs: s.expiresAt.getTime(),
        revoked: false,
      });
    }
  }

  /** Call `fn` with the token id whenever a token is revoked. @returns a function removing it. */
  onRevoked(fn: (tokenId: string) => void): () => void {
    this.revokedListeners.add(fn);
    return () => this.revokedListeners.delete(fn);
  }

  /** Every token (revoked ones only when `includeRevoked`), oldest first. */
  list(opts: { includeRevoked?: boolean } = {}): TokenRecord[] {
    return [...this.byId.values()]
      .filter((t) => opts.includeRevoked === true || t.revokedAt === null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }

  /**
   * The stored hash of the active bootstrap admin token (what the local-token challenge is keyed
   * by, src/auth/local-credentials.ts), or null when there is none.
   */
  activeBootstrapHash(nowMs = Date.now()): string | null {
    for (const [hash, rec] of this.byHash) {
      if (rec.bootstrap && this.isActive(rec.id, nowMs)) return hash;
    }
    return null;
  }

  /** One token by id, or undefined. */
  get(id: string): TokenRecord | undefined {
    return this.byId.get(id);
  }

  /** True when the token with this id exists, is not revoked and not expired at `nowMs`. */
  isActive(id: string, nowMs = Date.now()): boolean {
    const t = this.byId.get(id);
    return t !== undefined && t.revokedAt === null && (t.expiresAt === null || t.expiresAt.getTime() > nowMs);
  }

  /**
   * Check a bearer secret. A valid one also records its use (`lastUsedAt`, at most once a minute).
   * Never throws; an over-long or malformed secret is `unknown`.
   */
  verify(secret: string, nowMs = Date.now()): CredentialCheck {
    if (secret.length === 0 || secret.length > MAX_CREDENTIAL_CHARS) return { ok: false, reason: "unknown" };
    const rec = this.byHash.get(hashSecret(secret));
    if (!rec) return { ok: false, reason: "unknown" };
    return this.check(rec, "bearer", nowMs);
  }

  /** Check a session cookie's secret (its token must still be active). */
  verifySession(secret: string, nowMs = Date.now()): CredentialCheck {
    if (secret.length === 0 || secret.length > MAX_CREDENTIAL_CHARS) return { ok: false, reason: "unknown" };
    const s = this.sessions.get(hashSecret(secret));
    if (!s) return { ok: false, reason: "unknown" };
    if (s.revoked) return { ok: false, reason: "revoked" };
    if (s.expiresAtMs <= nowMs) return { ok: false, reason: "expired" };
    const rec = this.byId.get(s.tokenId);
    if (!rec) return { ok: false, reason: "unknown" };
    return this.check(rec, "cookie", nowMs);
  }

  private check(rec: TokenRecord, credential: "bearer" | "cookie", nowMs: number): CredentialCheck {
    if (rec.revokedAt !== null) return { ok: false, reason: "revoked" };
    if (rec.expiresAt !== null && rec.expiresAt.getTime() <= nowMs) return { ok: false, reason: "expired" };
    this.touch(rec, nowMs);
    return {
      ok: true,
      principal: {
        tokenId: rec.id,
        name: rec.name,
        role: rec.role,
        workspaces: rec.workspaces,
        expiresAtMs: rec.expiresAt?.getTime() ?? null,
        credential,
      },
    };
  }

  private touch(rec: TokenRecord, nowMs: number): void {
    rec.lastUsedAt = new Date(nowMs);
    const last = this.lastWritten.get(rec.id) ?? 0;
    if (nowMs - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(rec.id, nowMs);
    const at = new Date(nowMs);
    this.writer
      .submit((db) => [db.apiToken.update({ where: { id: rec.id }, data: { lastUsedAt: at } })])
      .catch((err: unknown) => this.log.warn({ err, token: rec.name }, "could not record token use"));
  }

  /**
   * Create a token. @returns its record and its secret (shown once; only its hash is kept).
   * @throws ValidationFailed (bad name, workspace name or expiry), Conflict (an active token has
   *   this name, or the name is the reserved bootstrap name).
   */
  async create(input: NewToken, nowMs = Date.now()): Promise<{ token: TokenRecord; secret: string }> {
    return this.insert(input, newSecret(), false, nowMs);
  }

  private async insert(
    input: NewToken,
    secret: string,
    bootstrap: boolean,
    nowMs: number,
  ): Promise<{ token: TokenRecord; secret: string }> {
    const issues: { path: string[]; message: string }[] = [];
    if (!TOKEN_NAME.test(input.name)) {
      issues.push({
        path: ["name"],
        message: "1–64 letters, digits, '.', '_', '-' or '@', starting with a letter or digit",
      });
    } else if (/^[0-9a-f]{12}$/.test(input.name)) {
      // `token revoke <x>` takes a name or an id: a name shaped like an id would be ambiguous.
      issues.push({ path: ["name"], message: "must not look like a token id (12 hex characters)" });
    } else if (input.name.startsWith(TOKEN_PREFIX)) {
      issues.push({ path: ["name"], message: `must not start with ${TOKEN_PREFIX} (the prefix of secrets)` });
    }
    if (!isRole(input.role)) issues.push({ path: ["role"], message: "viewer, operator or admin" });
    const workspaces = input.workspaces ? [...new Set(input.workspaces)] : null;
    workspaces?.forEach((w, i) => {
      if (!WORKSPACE_NAME.test(w))
        issues.push({ path: ["workspaces", String(i)], message: "not a workspace name" });
    });
    if (workspaces !== null && workspaces.length === 0) {
      issues.push({ path: ["workspaces"], message: "give at least one workspace, or none for all" });
    }
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null) {
      const t = expiresAt.getTime();
      if (!Number.isFinite(t) || t <= nowMs)
        issues.push({ path: ["expiresAt"], message: "must be in the future" });
      else if (t > nowMs + MAX_EXPIRY_MS)
        issues.push({ path: ["expiresAt"], message: "at most 10 years ahead" });
    }
    if (issues.length) throw new ValidationFailed(issues);
    if (!bootstrap && input.name === BOOTSTRAP_TOKEN_NAME) {
      throw new Conflict(`the name "${BOOTSTRAP_TOKEN_NAME}" is reserved for the gateway's bootstrap token`);
    }
    if (this.list().some((t) => t.name === input.name)) {
      throw new Conflict(
        `an active token is already named ${input.name}; revoke it first or choose another name`,
      );
    }
    const row: Prisma.ApiTokenModel = {
      id: newId(),
      name: input.name,
      role: input.role,
      workspaces: workspaces,
      secretHash: hashSecret(secret),
      createdAt: new Date(nowMs),
      createdBy: input.createdBy,
      expiresAt,
      lastUsedAt: null,
      revokedAt: null,
      bootstrap,
    };
    await this.writer.submit((db) => [
      db.apiToken.create({
        data: { ...row, workspaces: workspaces === null ? undefined : (workspaces as Prisma.InputJsonValue) },
      }),
    ]);
    const rec = toRecord(row);
    this.byHash.set(row.secretHash, rec);
    this.byId.set(rec.id, rec);
    return { token: rec, secret };
  }

  /**
   * Revoke the active token with this id or name, and its sessions; open connections of it are
   * closed by the revocation listeners.
   * @throws NotFound when no active token has that id or name.
   */
  async revoke(idOrName: string, nowMs = Date.now()): Promise<TokenRecord> {
    const rec = this.list().find((t) => t.id === idOrName || t.name === idOrName);
    if (!rec) throw new NotFound("token", idOrName);
    const at = new Date(nowMs);
    await this.writer.submit((db) => [
      db.apiToken.update({ where: { id: rec.id }, data: { revokedAt: at } }),
      db.session.updateMany({ where: { tokenId: rec.id, revokedAt: null }, data: { revokedAt: at } }),
    ]);
    rec.revokedAt = at;
    for (const s of this.sessions.values()) if (s.tokenId === rec.id) s.revoked = true;
    for (const fn of this.revokedListeners) {
      try {
        fn(rec.id);
      } catch (err) {
        this.log.error({ err }, "a token revocation listener failed");
      }
    }
    return rec;
  }

  /**
   * Open a browser session for an active token. @returns the cookie secret and its expiry.
   * @throws NotFound when the token is not active.
   */
  async createSession(tokenId: string, nowMs = Date.now()): Promise<{ secret: string; expiresAt: Date }> {
    const rec = this.byId.get(tokenId);
    if (!rec || !this.isActive(tokenId, nowMs)) throw new NotFound("token", tokenId);
    const secret = randomBytes(32).toString("base64url");
    const expiresAtMs = Math.min(nowMs + SESSION_TTL_MS, rec.expiresAt?.getTime() ?? Infinity);
    const id = newId();
    const secretHash = hashSecret(secret);
    await this.writer.submit((db) => [
      db.session.create({
        data: { id, tokenId, secretHash, createdAt: new Date(nowMs), expiresAt: new Date(expiresAtMs) },
      }),
    ]);
    this.sessions.set(secretHash, { id, tokenId, expiresAtMs, revoked: false });
    return { secret, expiresAt: new Date(expiresAtMs) };
  }

  /** End the session with this cookie secret (logout). Unknown secrets are ignored. */
  async endSession(secret: string, nowMs = Date.now()): Promise<void> {
    if (secret.length === 0 || secret.length > MAX_CREDENTIAL_CHARS) return;
    const s = this.sessions.get(hashSecret(secret));
    if (!s || s.revoked) return;
    s.revoked = true;
    const at = new Date(nowMs);
    await this.writer.submit((db) => [db.session.update({ where: { id: s.id }, data: { revokedAt: at } })]);
  }

  /**
   * Delete sessions that ended (expired or logged out) before `cutoff` (retention).
   * @returns how many were deleted.
   */
  async pruneSessions(cutoff: Date): Promise<number> {
    const [res] = (await this.writer.submit((db) => [
      db.session.deleteMany({
        where: { OR: [{ expiresAt: { lt: cutoff } }, { revokedAt: { lt: cutoff } }] },
      }),
    ])) as [{ count: number }];
    for (const [hash, s] of this.sessions) {
      if (s.expiresAtMs < cutoff.getTime() || s.revoked) this.sessions.delete(hash);
    }
    return res.count;
  }

  /**
   * Make sure the bootstrap admin token exists and its secret is in `<dataDir>/admin-token`
   * (mode 0600, written atomically). With `supplied` (PROSPERO_ADMIN_TOKEN) that secret is the
   * admin token; otherwise the file's secret is kept while it matches the active bootstrap token,
   * and a new one is issued when the file is missing or stale (the old bootstrap token is revoked).
   * @returns the secret, the file, and whether a new token was issued.
   * @throws ConfigError for a bad supplied secret; the OS error when the file cannot be written.
   */
  async ensureBootstrapAdmin(
    dataDir: string,
    supplied?: string,
    nowMs = Date.now(),
  ): Promise<{ secret: string; file: string; issued: boolean }> {
    const file = path.join(dataDir, ADMIN_TOKEN_FILE);
    if (supplied !== undefined) validateSuppliedToken(supplied);
    let candidate = supplied;
    if (candidate === undefined) {
      try {
        candidate = fs.readFileSync(file, "utf8").trim();
      } catch {
        candidate = undefined;
      }
    }
    const activeBootstrap = this.list().filter((t) => t.bootstrap);
    if (candidate) {
      const rec = this.byHash.get(hashSecret(candidate));
      if (rec && rec.bootstrap && this.isActive(rec.id, nowMs)) {
        for (const t of activeBootstrap) if (t.id !== rec.id) await this.revoke(t.id, nowMs);
        writeSecretFile(file, candidate);
        return { secret: candidate, file, issued: false };
      }
    }
    for (const t of activeBootstrap) await this.revoke(t.id, nowMs);
    const secret = supplied ?? newSecret();
    const known = this.byHash.get(hashSecret(secret));
    if (known?.bootstrap) {
      throw new ConfigError(
        "PROSPERO_ADMIN_TOKEN",
        "a new secret: this one was the bootstrap admin token and has been revoked or has expired",
        "a revoked token stays revoked",
      );
    }
    if (known) {
      throw new ConfigError(
        "PROSPERO_ADMIN_TOKEN",
        "a secret not used by another token",
        "it equals the secret of a token that is not the bootstrap token",
      );
    }
    await this.insert(
      { name: BOOTSTRAP_TOKEN_NAME, role: "admin", workspaces: null, createdBy: null },
      secret,
      true,
      nowMs,
    );
    writeSecretFile(file, secret);
    return { secret, file, issued: true };
  }
}

/** Write `secret` + newline to `file` with mode 0600, replacing it atomically. */
function writeSecretFile(file: string, secret: string): void {
  try {
    if (fs.readFileSync(file, "utf8") === `${secret}\n`) {
      fs.chmodSync(file, 0o600);
      return;
    }
  } catch {
    // missing or unreadable: (re)write it
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${secret}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
