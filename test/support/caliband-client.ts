// Minimal caliband client for tests of the double (not the production client in src/caliband):
// NDJSON over Unix sockets or TCP + TLS + bearer preamble (docs/caliband-protocol.md §1.2, §3.1, §6).
import * as net from "node:net";
import type { Duplex } from "node:stream";
import * as tls from "node:tls";
import { splitHostPort } from "./transport.js";
import type { Endpoint } from "./wire-format.js";

/** TLS + token used for TCP endpoints: CA PEM, bearer token, SNI name (default `localhost`). */
export interface ClientTls {
  ca: string;
  token: string;
  servername?: string;
}

/** Opens a raw connection; for TCP performs the TLS handshake and writes the bearer preamble (§6). */
export function connectRaw(ep: Endpoint, auth?: ClientTls): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    if (ep.scheme === "unix") {
      const s = net.createConnection(ep.path);
      s.once("error", reject);
      s.once("connect", () => {
        s.off("error", reject);
        resolve(s);
      });
      return;
    }
    if (auth === undefined) return reject(new Error("TCP endpoint needs TLS + token"));
    const { host, port } = splitHostPort(ep.addr);
    const s = tls.connect({ host, port, ca: auth.ca, servername: auth.servername ?? "localhost" });
    s.once("error", reject);
    s.once("secureConnect", () => {
      s.off("error", reject);
      s.write(`${JSON.stringify({ bearer: auth.token })}\n`);
      resolve(s);
    });
  });
}

/** A line-oriented connection: `send` lines, await `next()` lines, observe EOF via `ended`. */
export class LineClient {
  /** Every line received so far, in order. */
  readonly lines: string[] = [];
  /** Resolves when the peer closed the connection (EOF, reset or local close). */
  readonly ended: Promise<void>;
  private buf = "";
  private readIndex = 0;
  private isClosed = false;
  private waiters: Array<() => void> = [];
  private resolveEnded: () => void = () => {};

  private constructor(readonly socket: Duplex) {
    this.ended = new Promise((r) => (this.resolveEnded = r));
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buf += chunk;
      let nl: number;
      while ((nl = this.buf.indexOf("\n")) >= 0) {
        this.lines.push(this.buf.slice(0, nl));
        this.buf = this.buf.slice(nl + 1);
      }
      this.wake();
    });
    const end = (): void => {
      this.isClosed = true;
      this.resolveEnded();
      this.wake();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", () => socket.destroy());
  }

  /** Connects to `ep` (TCP needs `auth`). */
  static async open(ep: Endpoint, auth?: ClientTls): Promise<LineClient> {
    return new LineClient(await connectRaw(ep, auth));
  }

  /** Wraps an already connected socket. */
  static wrap(socket: Duplex): LineClient {
    return new LineClient(socket);
  }

  /** True once EOF/close was seen. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Writes `line` plus `\n`. */
  send(line: string): void {
    this.socket.write(`${line}\n`);
  }

  /** Writes raw bytes/text as given. */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next unread line; rejects on EOF or after `timeoutMs` (default 5000). */
  async next(timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines[this.readIndex];
      if (line !== undefined) {
        this.readIndex++;
        return line;
      }
      if (this.isClosed) throw new Error("connection closed before a line arrived");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits until a line satisfying `pred` has been received (any position); returns it. */
  async waitForLine(pred: (line: string) => boolean, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find(pred);
      if (hit !== undefined) return hit;
      if (this.isClosed) throw new Error("connection closed before the expected line");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected line not seen within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits for EOF (rejects after `timeoutMs`) and returns all lines received. */
  async readToEnd(timeoutMs = 10_000): Promise<string[]> {
    let t: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error(`no EOF within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.ended, timeout]);
    } finally {
      clearTimeout(t);
    }
    return [...this.lines];
  }

  /** Closes the connection. */
  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** One request on a fresh connection (as Prospero and the caliban CLI do); returns the reply line. */
export async function request(
  ep: Endpoint,
  line: string,
  auth?: ClientTls,
  timeoutMs = 5000,
): Promise<string> {
  const c = await LineClient.open(ep, auth);
  try {
    c.send(line);
    return await c.next(timeoutMs);
  } finally {
    c.close();
  }
}

/** `request` with a JSON object in and a parsed object out. */
export async function requestJson(
  ep: Endpoint,
  req: Record<string, unknown>,
  auth?: ClientTls,
): Promise<Record<string, unknown>> {
  return JSON.parse(await request(ep, JSON.stringify(req), auth)) as Record<string, unknown>;
}

/** Polls `fn` every `intervalMs` until it returns a value other than `undefined`/`false`/`null`. */
export async function waitFor<T>(
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Connects to a per-agent endpoint, retrying while it is not bound yet (ENOENT/ECONNREFUSED, §1.7). */
export async function connectWhenBound(
  ep: Endpoint,
  auth?: ClientTls,
  timeoutMs = 10_000,
): Promise<LineClient> {
  let last: unknown;
  const c = await waitFor(
    async () => {
      try {
        return await LineClient.open(ep, auth);
      } catch (e) {
        last = e;
        return undefined;
      }
    },
    `endpoint ${JSON.stringify(ep)} to accept connections (last error: ${String(last)})`,
    timeoutMs,
  );
  return c;
}

/** Status of agent `id` according to a fresh `list` request (undefined when not listed). */
export async function statusOf(ep: Endpoint, id: string, auth?: ClientTls): Promise<string | undefined> {
  const r = await requestJson(ep, { kind: "list" }, auth);
  const agents = r.agents as Array<Record<string, unknown>>;
  const rec = agents.find((a) => a.id === id);
  return rec === undefined ? undefined : (rec.status as string);
}

/** Polls `list` until agent `id` has `status`. */
export async function waitForStatus(
  ep: Endpoint,
  id: string,
  status: string,
  auth?: ClientTls,
  timeoutMs = 10_000,
): Promise<void> {
  await waitFor(
    async () => (await statusOf(ep, id, auth)) === status,
    `agent ${id} to be ${status}`,
    timeoutMs,
  );
}
