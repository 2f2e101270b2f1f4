/**
 * Subscriptions over graphql-ws with reconnects the dashboard controls: when the socket drops,
 * every live subscription is started again on a fresh connection with *current* variables (so an
 * agent stream resumes `after:` its last cursor, and the fleet re-seeds). No polling anywhere.
 */
import { createClient, type Client } from "graphql-ws";
import { GRAPHQL_PATH } from "./http.js";

/** What the connection is doing, for the status line. */
export type ConnectionState = "connecting" | "live" | "reconnecting" | "signed-out";

/** graphql-ws close codes of the gateway for "no valid credentials" and "not allowed" (issue 11). */
const AUTH_CLOSE_CODES: ReadonlySet<number> = new Set([4401, 4403]);

function closeCodeOf(e: unknown): number | null {
  return typeof e === "object" && e !== null && "code" in e && typeof e.code === "number" ? e.code : null;
}

/** One subscription the connection keeps alive. */
export interface LiveSubscription<T> {
  query: string;
  /** Variables for the next (re)subscription, read each time it starts. */
  variables(): Record<string, unknown>;
  /** A result. */
  next(data: T): void;
  /** The server refused or failed the operation (not retried). */
  error(message: string): void;
  /** The server ended the stream. */
  complete?(): void;
}

interface Active {
  spec: LiveSubscription<unknown>;
  dispose?: () => void;
}

/** Longest pause between reconnect attempts, ms. */
const MAX_BACKOFF_MS = 10_000;

/** The WebSocket URL of the page's own gateway. */
export function defaultWsUrl(): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${GRAPHQL_PATH}`;
}

function errorText(e: unknown): string {
  if (Array.isArray(e)) {
    return e
      .map((x: unknown) => (x && typeof x === "object" && "message" in x ? String(x.message) : String(x)))
      .join("; ");
  }
  return e instanceof Error ? e.message : String(e);
}

/** One graphql-ws connection shared by all of the page's subscriptions. */
export class LiveConnection {
  private client: Client | null = null;
  private generation = 0;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private nextId = 0;
  private readonly active = new Map<number, Active>();

  /**
   * @param onUnauthorized called once when the gateway closes the connection for lack of valid
   *   credentials (4401: the session ended or the token was revoked; 4403); nothing reconnects.
   */
  constructor(
    private readonly url: string,
    private readonly onState: (state: ConnectionState) => void,
    private readonly onUnauthorized: (reason: string) => void = () => {},
  ) {
    onState("connecting");
  }

  /** Start `spec` now (or at the next reconnect) and keep it alive until the returned function is called. */
  subscribe<T>(spec: LiveSubscription<T>): () => void {
    const id = this.nextId++;
    const entry: Active = { spec };
    this.active.set(id, entry);
    if (this.timer === undefined) this.start(id, entry);
    return () => {
      if (!this.active.delete(id)) return;
      entry.dispose?.();
    };
  }

  /** Close everything; no reconnect. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.generation++;
    this.active.clear();
    void this.client?.dispose();
    this.client = null;
  }

  private connection(): Client {
    if (this.client) return this.client;
    const client = createClient({
      url: this.url,
      lazy: true,
      retryAttempts: 0,
      shouldRetry: () => false,
    });
    client.on("connected", () => {
      if (client !== this.client) return;
      this.attempt = 0;
      this.onState("live");
    });
    this.client = client;
    return client;
  }

  private start(id: number, entry: Active): void {
    const gen = this.generation;
    const { spec } = entry;
    entry.dispose = this.connection().subscribe<unknown>(
      { query: spec.query, variables: spec.variables() },
      {
        next: (result) => {
          if (gen !== this.generation || !this.active.has(id)) return;
          if (result.errors?.length) {
            this.active.delete(id);
            entry.dispose?.();
            spec.error(errorText(result.errors));
          } else if (result.data) {
            spec.next(result.data);
          }
        },
        error: (e: unknown) => {
          if (gen !== this.generation || !this.active.has(id)) return;
          if (Array.isArray(e)) {
            this.active.delete(id);
            spec.error(errorText(e));
          } else if (AUTH_CLOSE_CODES.has(closeCodeOf(e) ?? 0)) {
            const reason = (e as { reason?: unknown }).reason;
            this.dispose();
            this.onState("signed-out");
            this.onUnauthorized(typeof reason === "string" && reason !== "" ? reason : "the session ended");
          } else {
            this.lost(gen);
          }
        },
        complete: () => {
          if (gen !== this.generation || !this.active.has(id)) return;
          this.active.delete(id);
          spec.complete?.();
        },
      },
    );
  }

  /** The socket of generation `gen` dropped: drop that client and resubscribe everything later. */
  private lost(gen: number): void {
    if (gen !== this.generation) return;
    this.generation++;
    const old = this.client;
    this.client = null;
    void old?.dispose();
    this.onState("reconnecting");
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempt) + Math.random() * 250;
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const [id, entry] of this.active) this.start(id, entry);
    }, delay);
  }
}
