/**
 * The caliband control-plane client (caliband-protocol.md §1.2–1.8): one request per connection
 * (connect, write one line, read exactly one reply line, close — never wait for EOF) and a
 * deadline on every request, so a hung daemon fails the call instead of stalling its caller.
 * Supervisor errors map to typed errors (§1.6): `not_found` → {@link AgentNotFound},
 * `invalid_state` → {@link InvalidState}, `internal` → {@link Protocol} with the daemon's message.
 */
import type { Socket } from "node:net";

import { silentLogger, type Logger } from "../log.js";
import { AgentNotFound, InvalidState, LineTooLong, Protocol, Unreachable, errnoOf } from "./errors.js";
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from "./ndjson.js";
import {
  describeEndpoint,
  openConnection,
  splitControlEndpoint,
  type ControlEndpoint,
  type Transport,
} from "./transport.js";
import {
  encodeRequest,
  parseReply,
  type AgentRecord,
  type CtlReply,
  type CtlRequestInput,
  type CtlRequestKind,
  type DaemonStatus,
  type Endpoint,
  type SpawnSpecInput,
  type SupervisorError,
} from "./wire.js";

/** Per-request deadlines in ms, keyed by request `kind` (§1.4). */
export type RequestDeadlines = Readonly<Record<CtlRequestKind, number>>;

/**
 * Default deadlines (ms): 5000 for list/status/attach/kill/rm/shutdown/report_status; 60000 for
 * spawn/respawn, which may create a git worktree (§1.2 suggests ≥ 30 s).
 */
export const DEFAULT_DEADLINES: RequestDeadlines = {
  list: 5_000,
  status: 5_000,
  attach: 5_000,
  kill: 5_000,
  rm: 5_000,
  shutdown: 5_000,
  report_status: 5_000,
  spawn: 60_000,
  respawn: 60_000,
};

/** Construction options of {@link CalibandClient}. */
export interface CalibandClientOptions {
  /** Overrides of {@link DEFAULT_DEADLINES} (ms). */
  deadlines?: Partial<Record<CtlRequestKind, number>>;
  /** Bound on a reply line in bytes; default 1 MiB (§1.2). */
  maxLineBytes?: number;
  logger?: Logger;
}

/** Per-call options. */
export interface CallOptions {
  /** Deadline for this call in ms (connect + request + reply); default per request kind. */
  deadlineMs?: number;
  /** Aborting cancels the call; it rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** Result of a successful `spawn` (§1.5): daemon-assigned 12-hex `id` and the per-agent `endpoint`. */
export interface SpawnResult {
  id: string;
  endpoint: Endpoint;
}

/** Map a supervisor error reply to the typed error the client throws (§1.6). */
export function supervisorErrorToException(error: SupervisorError, where: string): Error {
  switch (error.kind) {
    case "not_found":
      return new AgentNotFound(error.id);
    case "invalid_state":
      return new InvalidState(error.op, error.id, error.status);
    case "internal":
      return new Protocol(`internal supervisor error: ${error.message}`, {
        endpoint: where,
        daemonMessage: error.message,
      });
  }
}

/**
 * Client of one caliband control endpoint (Unix path, or TCP+TLS+token, §6). Safe to use
 * concurrently (each call is its own connection, §1.2); the only state kept between calls is the
 * last `listed` reply, so an unchanged fleet is not parsed again on every poll.
 */
export class CalibandClient {
  /** The control endpoint (§2.4). */
  readonly endpoint: Endpoint;
  /** TLS + token settings; reuse them for per-agent TCP endpoints (§6). */
  readonly transport: Transport;
  /** Effective per-kind deadlines in ms. */
  readonly deadlines: RequestDeadlines;
  private readonly maxLineBytes: number;
  private readonly logger: Logger;
  private readonly where: string;
  /**
   * The last `listed` reply line and its records (deep-frozen). A quiet daemon answers every poll
   * with the same line; parsing and validating it again was most of the cost of a poll cycle.
   */
  private lastList: { line: string; agents: readonly AgentRecord[] } | null = null;

  /** @throws ConfigError when `control` is invalid (e.g. a token without TLS, #107). */
  constructor(control: ControlEndpoint, options: CalibandClientOptions = {}) {
    const { endpoint, transport } = splitControlEndpoint(control);
    this.endpoint = endpoint;
    this.transport = transport;
    this.deadlines = { ...DEFAULT_DEADLINES, ...options.deadlines };
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.logger = (options.logger ?? silentLogger).child({ module: "caliband-client" });
    this.where = describeEndpoint(endpoint, transport);
  }

  /**
   * `list` → every registered record, any status, sorted by `started_at` (§1.5, §1.7). The
   * records are frozen (they may be shared with the previous call's result when the daemon's
   * reply line is unchanged); the array is the caller's own.
   * @throws Unreachable, Protocol (see {@link CalibandClient.request})
   */
  async list(options?: CallOptions): Promise<AgentRecord[]> {
    const line = await this.exchange({ kind: "list" }, options);
    const last = this.lastList;
    if (last !== null && last.line === line) return [...last.agents];
    const reply = expect(this.parse(line, "list"), "listed", this.where);
    for (const agent of reply.agents) deepFreeze(agent);
    this.lastList = { line, agents: reply.agents };
    return [...reply.agents];
  }

  /**
   * `spawn` → daemon-assigned id and per-agent endpoint (§1.5, §1.7). The worker may not have
   * bound the endpoint yet; stream readers retry (§1.7). Default deadline 60000 ms.
   * @throws Protocol for `internal` errors (bad source, worktree failure, port exhaustion).
   */
  async spawn(spec: SpawnSpecInput, options?: CallOptions): Promise<SpawnResult> {
    const reply = expect(await this.request({ kind: "spawn", spec }, options), "spawned", this.where);
    return { id: reply.id, endpoint: reply.endpoint };
  }

  /** `attach` → the agent's per-agent endpoint, for any status (§1.7). @throws AgentNotFound */
  async attach(id: string, options?: CallOptions): Promise<Endpoint> {
    return expect(await this.request({ kind: "attach", id }, options), "attach_ack", this.where).endpoint;
  }

  /**
   * `kill` → SIGTERM a live worker and set `killed` unconditionally, even over `done` (§1.7).
   * @throws AgentNotFound
   */
  async kill(id: string, options?: CallOptions): Promise<void> {
    expect(await this.request({ kind: "kill", id }, options), "killed", this.where);
  }

  /**
   * `respawn` → the NEW agent id; the old record is gone and its old worker NOT stopped (§1.7).
   * Default deadline 60000 ms. @throws AgentNotFound, Protocol
   */
  async respawn(id: string, options?: CallOptions): Promise<string> {
    return expect(await this.request({ kind: "respawn", id }, options), "respawned", this.where).id;
  }

  /**
   * `rm` → remove a terminal agent, or any agent with `force` (§1.7).
   * @throws InvalidState (non-terminal without force), AgentNotFound
   */
  async rm(id: string, flags: { force?: boolean } = {}, options?: CallOptions): Promise<void> {
    expect(
      await this.request({ kind: "rm", id, force: flags.force ?? false }, options),
      "removed",
      this.where,
    );
  }

  /** `status` → daemon health `{pid, agents, uptime_secs, endpoint}` (§2.5). */
  async status(options?: CallOptions): Promise<DaemonStatus> {
    const reply = expect(await this.request({ kind: "status" }, options), "status", this.where);
    return { pid: reply.pid, agents: reply.agents, uptime_secs: reply.uptime_secs, endpoint: reply.endpoint };
  }

  /** `shutdown` → the daemon acks, unlinks its socket and exits; workers keep running (§1.7). */
  async shutdown(options?: CallOptions): Promise<void> {
    expect(await this.request({ kind: "shutdown" }, options), "shutdown_ack", this.where);
  }

  /**
   * `report_status` (worker→daemon channel, §1.7): only `running↔idle` is applied; always acked.
   * Control clients normally never send it.
   */
  async reportStatus(id: string, status: "running" | "idle", options?: CallOptions): Promise<void> {
    expect(await this.request({ kind: "report_status", id, status }, options), "status_reported", this.where);
  }

  /**
   * One raw exchange (§1.2): connect, write the request line, read exactly one reply line, close.
   * Error replies are returned, not thrown.
   * @throws Unreachable (connect failure, reset, `"timeout after N ms"`), Protocol (EOF before a
   *   line, unparsable or unknown reply, over-long line), `signal.reason` when aborted.
   */
  async request(request: CtlRequestInput, options: CallOptions = {}): Promise<CtlReply> {
    return this.parse(await this.exchange(request, options), request.kind);
  }

  /**
   * Connect, write the request line, read exactly one reply line, close (§1.2).
   * @returns the reply line, unparsed.
   * @throws as {@link CalibandClient.request}, except for reply parsing.
   */
  private async exchange(request: CtlRequestInput, options: CallOptions = {}): Promise<string> {
    const deadlineMs = options.deadlineMs ?? this.deadlines[request.kind];
    const line = `${encodeRequest(request)}\n`;
    const started = Date.now();
    const timeout = new AbortController();
    const timer = setTimeout(
      () =>
        timeout.abort(new Unreachable(this.where, `timeout after ${deadlineMs} ms`, { errno: "ETIMEDOUT" })),
      deadlineMs,
    );
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    let socket: Socket | undefined;
    try {
      socket = await openConnection(this.endpoint, this.transport, { deadlineMs, signal });
      socket.write(line);
      const replyLine = await readOneLine(socket, this.maxLineBytes, signal, this.where);
      if (replyLine === undefined) {
        throw new Protocol(`connection closed before a reply to ${request.kind}`, { endpoint: this.where });
      }
      this.logger.debug({ kind: request.kind, ms: Date.now() - started }, "caliband call");
      return replyLine;
    } catch (err) {
      this.logger.debug({ kind: request.kind, err, ms: Date.now() - started }, "caliband call failed");
      // a deadline hit anywhere (connect or read) surfaces as the timeout Unreachable
      if (timeout.signal.aborted && !options.signal?.aborted) throw timeout.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      socket?.destroy();
    }
  }

  /**
   * Parse a reply line to a request of kind `to` (§1.5).
   * @throws Protocol for an unparsable or unknown reply.
   */
  private parse(replyLine: string, to: CtlRequestInput["kind"]): CtlReply {
    const parsed = parseReply(replyLine);
    if (!parsed.ok) {
      const what =
        parsed.reason === "unknown_kind"
          ? `unknown reply kind ${JSON.stringify(parsed.kind)}`
          : `unparsable reply (${parsed.reason}${parsed.detail ? `: ${parsed.detail}` : ""})`;
      throw new Protocol(`${what} to ${to}`, { endpoint: this.where });
    }
    return parsed.reply;
  }
}

/** Freeze `value` and every object or array inside it (JSON-shaped data). */
function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/** Narrow a reply to the expected kind, or throw the mapped supervisor / protocol error. */
function expect<K extends CtlReply["kind"]>(
  reply: CtlReply,
  kind: K,
  where: string,
): Extract<CtlReply, { kind: K }> {
  if (reply.kind === kind) return reply as Extract<CtlReply, { kind: K }>;
  if (reply.kind === "error") throw supervisorErrorToException(reply.error, where);
  throw new Protocol(
    `unexpected reply kind ${JSON.stringify(reply.kind)}, expected ${JSON.stringify(kind)}`,
    {
      endpoint: where,
    },
  );
}

/**
 * Read the first non-blank line from `socket`, never waiting for EOF once a line arrived (§1.2:
 * one reply line per request; the daemon does not close after it). Reads `data` events directly:
 * leaving a stream's async iterator early makes Node build an AbortError (with a stack trace) per
 * call, a measurable share of a poll cycle at hundreds of lists per second.
 * @returns the line, or `undefined` on EOF before any line.
 * @throws signal.reason when aborted; Protocol for a line over `maxLineBytes`; Unreachable for a
 *   socket error.
 */
function readOneLine(
  socket: Socket,
  maxLineBytes: number,
  signal: AbortSignal,
  where: string,
): Promise<string | undefined> {
  return new Promise<string | undefined>((resolve, reject) => {
    const splitter = new LineSplitter(maxLineBytes);
    let settled = false;
    // Socket listeners stay attached (the caller destroys the socket right after); `settled`
    // makes the events that follow a no-op. Few named closures: tsx's keepNames costs each one.
    const settle = (err: unknown, line?: string): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (err === undefined) {
        resolve(line);
      } else {
        socket.destroy();
        reject(err);
      }
    };
    const onAbort = (): void => settle(signal.reason);
    if (signal.aborted) {
      settle(signal.reason);
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("data", (chunk: Buffer) => {
      if (settled) return;
      let lines: string[];
      try {
        lines = splitter.push(chunk);
      } catch (err) {
        settle(err instanceof LineTooLong ? new Protocol(err.message, { endpoint: where, cause: err }) : err);
        return;
      }
      if (lines.length > 0) settle(undefined, lines[0]);
    });
    socket.once("end", () => settle(undefined, settled ? undefined : splitter.end()[0]));
    // Closed without an orderly end and without an error event (e.g. destroyed): EOF.
    socket.once("close", () => settle(undefined, undefined));
    socket.once("error", (err: Error) =>
      settle(new Unreachable(where, err.message, { errno: errnoOf(err), cause: err })),
    );
  });
}
