/**
 * Long-lived authenticated connections (graphql-ws sockets and SSE streams), so that revoking a
 * token closes them at once and an expired token's connections end within one sweep
 * ({@link SWEEP_INTERVAL_MS}) of its expiry (issue 11 item 3).
 */
import type { Principal } from "./roles.js";

/** How often open connections are checked for expired tokens, ms. */
export const SWEEP_INTERVAL_MS = 5_000;

/** graphql-ws close code for "the credentials are no longer valid" (revoked or expired token). */
export const CLOSE_UNAUTHORIZED = 4401;
/** graphql-ws close code for "these credentials may not do this". */
export const CLOSE_FORBIDDEN = 4403;

interface Entry {
  principal: Principal;
  close: (code: number, reason: string) => void;
}

/** Registry of open connections by token. */
export class LiveConnections {
  private readonly entries = new Set<Entry>();
  private timer: ReturnType<typeof setInterval> | null = null;

  /**
   * @param isActive tells whether a token id is still active (not revoked, not expired) now.
   */
  constructor(private readonly isActive: (tokenId: string, nowMs: number) => boolean) {}

  /** Start the expiry sweep (idempotent). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(Date.now()), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stop the sweep. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Track a connection. `close` is called once when its token is revoked or expires.
   * @returns a function that stops tracking it (call it when the connection closes).
   */
  add(principal: Principal, close: (code: number, reason: string) => void): () => void {
    const entry: Entry = { principal, close };
    this.entries.add(entry);
    return () => this.entries.delete(entry);
  }

  /** Open connections tracked now. */
  get size(): number {
    return this.entries.size;
  }

  /** Close every connection of `tokenId` with 4401 ("token revoked"). */
  closeToken(tokenId: string, reason = "token revoked"): void {
    for (const e of [...this.entries]) {
      if (e.principal.tokenId !== tokenId) continue;
      this.entries.delete(e);
      e.close(CLOSE_UNAUTHORIZED, reason);
    }
  }

  /** Close connections whose token expired or is no longer active at `nowMs`. */
  sweep(nowMs: number): void {
    for (const e of [...this.entries]) {
      const p = e.principal;
      if (p.credential === "insecure-no-auth") continue;
      const expired = p.expiresAtMs !== null && p.expiresAtMs <= nowMs;
      if (!expired && this.isActive(p.tokenId, nowMs)) continue;
      this.entries.delete(e);
      e.close(CLOSE_UNAUTHORIZED, expired ? "token expired" : "token no longer valid");
    }
  }
}
