// FakeCaliband: a test double of the caliband daemon that speaks the real control protocol over a
// real Unix socket (or TCP + TLS + bearer token) and runs one in-process fake worker per agent.
// Behaviour follows docs/caliband-protocol.md §1 (control), §1.7 (operations), §3 (per-agent
// streams), §5.4–5.7 (launch, worktrees, store, restart), §6 (TCP) and the §8 checklist; replies are
// byte-compatible with fixtures/caliband (see test/caliband/conformance.test.ts).
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import type { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import {
  type ControlTarget,
  freePort,
  MAX_CTL_LINE,
  sendControlLine,
  serveControlLines,
} from "./control-conn.js";
import { type CtlRequest, decodeCtlRequest } from "./ctl-request.js";
import { defaultScript, type WorkerScript } from "./fake-scripts.js";
import { FakeWorker, type WorkerListen } from "./fake-worker.js";
import { agentSocketDir, controlSocketPath, defaultFakeDataBase, rustJoin, rustParent } from "./paths.js";
import {
  createWorktree,
  loadRegistry,
  removeSessionDir,
  removeWorktree,
  resolveSource,
  sweepCrashed,
  type WorktreeRef,
  writeManifest,
} from "./registry-store.js";
import {
  authenticateTcp,
  CONTROL_PREAUTH_TIMEOUT_MS,
  rustTrimEnd,
  serverContext,
  splitHostPort,
  type TcpAuth,
} from "./transport.js";
import {
  type AgentRecordJson,
  type AgentStatus,
  type Endpoint,
  newAgentId,
  newSocketStem,
  reply,
  rfc3339Now,
  type SpawnSpecJson,
  STOPPED,
  type SupervisorErrorJson,
} from "./wire-format.js";

export type { SpawnSpecJson, AgentRecordJson, Endpoint, AgentStatus } from "./wire-format.js";
export type { WorkerScript, WorkerContext, Frame, ScriptExit } from "./fake-scripts.js";
export { FakeWorker } from "./fake-worker.js";
export { MAX_CTL_LINE } from "./control-conn.js";

/** How long a fake worker waits for the daemon's `status_reported`, ms (caliban client timeout). */
const REPORT_TIMEOUT_MS = 5_000;

/** The worker process entry point (see {@link FakeCalibandOptions.workerProcesses}). */
const WORKER_MAIN = path.join(import.meta.dirname, "fake-worker-main.ts");
/** tsx's loader in this repository (the worker is TypeScript), else the bare specifier. */
const TSX_LOADER = ((): string => {
  const local = path.resolve(import.meta.dirname, "../../node_modules/tsx/dist/loader.mjs");
  return fs.existsSync(local) ? pathToFileURL(local).href : "tsx";
})();

/**
 * A worker launched as its own process (§5.4): the daemon knows its pid and exit while the
 * generation that launched it lives; it survives the daemon's process.
 */
class WorkerProcess {
  readonly pid: number | undefined;
  /** Resolves with the exit code (`null` when a signal ended it). */
  readonly exited: Promise<number | null>;
  private done = false;

  constructor(
    private readonly child: ChildProcess,
    onExit: (code: number | null) => void,
  ) {
    this.pid = child.pid;
    this.exited = new Promise((resolve) => {
      child.once("exit", (code) => {
        this.done = true;
        onExit(code);
        resolve(code);
      });
      child.once("error", () => {
        if (this.done) return;
        this.done = true;
        onExit(127);
        resolve(127);
      });
    });
  }

  /** SIGTERM, as caliband's kill sends (§1.7). */
  kill(): void {
    if (!this.done) this.child.kill("SIGTERM");
  }
}

/** TCP mode settings (§6). PEM contents, not paths. */
export interface FakeCalibandTcpOptions {
  /** Control listener `host:port` (port 0 = any free port); echoed verbatim by `status`. */
  listen: string;
  /** Server certificate chain, PEM contents (also used by every per-agent listener). */
  cert: string;
  /** Server private key, PEM contents. */
  key: string;
  /** Bearer token for the control listener and every per-agent listener. */
  token: string;
  /** Host written into per-agent endpoints; default = host part of `listen` (§6 pitfall). */
  advertiseHost?: string;
  /** First per-agent port (agent n gets base + n); 0 = pick a free port per agent. Default 7100. */
  agentPortBase?: number;
}

/** Options of {@link FakeCaliband.start}. Durations in ms. */
export interface FakeCalibandOptions {
  /** Workspace root, used verbatim like `--workspace-root` (hash, source resolution, slug). */
  workspaceRoot: string;
  /** Control socket; default derived per §1.1 from `env`. */
  socketPath?: string;
  /** Environment for §1.1 derivation and `CALIBAN_AGENT_IDLE_TIMEOUT_SECS`; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Session store base (§5.6); default `<os tmpdir>/prospero-fake-caliband/<slug>/agents`. */
  dataBase?: string;
  /** TCP + TLS + bearer mode instead of the Unix control socket (§6). */
  tcp?: FakeCalibandTcpOptions;
  /** Delay between the `spawned` reply and the worker binding its endpoint; default 30. */
  bindDelayMs?: number;
  /** Pause between scripted frames; default 5. */
  frameDelayMs?: number;
  /** Interactive idle timeout with no open connection; 0 = never. Default from env, else 300000. */
  idleTimeoutMs?: number;
  /** Per-agent script override; `undefined` falls back to the default (token-driven) script. */
  script?: (spec: SpawnSpecJson, id: string) => WorkerScript | undefined;
  /**
   * Launch each worker as a process of its own (`fake-worker-main.ts`, like caliband's
   * `caliban __agent-worker` child, §5.4), in the daemon's process group, so it outlives the
   * daemon's process — SIGKILL included — and keeps streaming and writing its transcript (§5.7).
   * Unix mode with the default script only (a `script` override, TCP mode: in-process workers).
   * `agent(id)` is undefined for such workers. Default false.
   */
  workerProcesses?: boolean;
}

/** Options of {@link FakeCaliband.close}. */
export interface FakeCalibandCloseOptions {
  /** Leave worker processes running (orphans, as a real daemon leaves them); default false. */
  keepWorkerProcesses?: boolean;
}

/** One control line received and the reply line sent (`null` = no reply: hang, close, shutdown). */
export interface RequestLogEntry {
  line: string;
  reply: string | null;
}

type Prepared = {
  workingDir: string;
  worktree: WorktreeRef | null;
  endpoint: Endpoint;
  listen: WorkerListen;
};

/** `CALIBAN_AGENT_IDLE_TIMEOUT_SECS` parsing of the worker (§3.5): absent/garbage → 300 s, 0 → never. */
export function idleTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.CALIBAN_AGENT_IDLE_TIMEOUT_SECS;
  if (raw === undefined) return 300_000;
  const t = raw.trim();
  if (!/^\d+$/.test(t)) return 300_000;
  return Number(t) * 1000;
}

/**
 * The caliband test double. Start with {@link FakeCaliband.start}; always `close()` in teardown.
 * The control plane runs in this process; each agent is a {@link FakeWorker} in this process.
 */
export class FakeCaliband {
  /** Unix control socket path (§1.1). In TCP mode nothing is bound there (caliband binds only TCP). */
  readonly socketPath: string;
  /** Every control line received, in order, with the reply sent. */
  readonly requests: RequestLogEntry[] = [];
  /** Workspace root as given. */
  readonly workspaceRoot: string;
  /** Session store base (§5.6). */
  readonly dataBase: string;
  /** Directory of per-agent Unix sockets: `<dirname(socketPath)>/agents` (§1.1). */
  readonly agentSocketDir: string;

  private readonly opts: FakeCalibandOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly tcpAuth: TcpAuth | null;
  private registry = new Map<string, AgentRecordJson>();
  /** Live worker per agent id, tracked by the current daemon generation only (pids, §5.7). */
  private pids = new Map<string, { kill(): void }>();
  /** Every in-process worker ever launched (for `agent(id)` and teardown). */
  private readonly workers = new Map<string, FakeWorker>();
  /** Every worker process ever launched (see {@link FakeCalibandOptions.workerProcesses}). */
  private readonly processes = new Map<string, WorkerProcess>();
  private readonly worktrees = new Map<string, WorktreeRef>();
  private readonly pendingCleanups = new Set<Promise<void>>();
  private readonly controlSockets = new Set<net.Socket>();
  private readonly reportSockets = new Set<net.Socket>();
  private server: net.Server | null = null;
  private generation = 0;
  private startedMs = Date.now();
  private nextAgentPort = 0;
  private nextWorkerPid = 40_000;
  private boundTcp: { host: string; port: number } | null = null;
  private hanging = false;
  /** Set while paused: resolves (and is cleared) on resume. */
  private pausedGate: { promise: Promise<void>; release: () => void } | null = null;
  /** Set by {@link pauseAtNext}: the request kind that pauses the daemon as it is read. */
  private pauseAtKind: CtlRequest["kind"] | null = null;
  private closed = false;
  private shutdownWaiters: Array<() => void> = [];

  private constructor(opts: FakeCalibandOptions) {
    this.opts = opts;
    this.env = opts.env ?? process.env;
    this.workspaceRoot = opts.workspaceRoot;
    this.socketPath = opts.socketPath ?? controlSocketPath(opts.workspaceRoot, this.env);
    this.agentSocketDir = agentSocketDir(this.socketPath, this.env);
    this.dataBase = opts.dataBase ?? defaultFakeDataBase(opts.workspaceRoot);
    this.tcpAuth =
      opts.tcp === undefined
        ? null
        : { secureContext: serverContext(opts.tcp.cert, opts.tcp.key), token: opts.tcp.token };
  }

  /** Loads the store (sweeping `running|spawning` → `crashed`), binds the control endpoint, serves. */
  static async start(opts: FakeCalibandOptions): Promise<FakeCaliband> {
    if (opts.tcp !== undefined && opts.tcp.token.trim() === "") {
      throw new Error("--listen: a non-empty bearer token is required for network (--listen) mode");
    }
    const fake = new FakeCaliband(opts);
    await fake.boot();
    return fake;
  }

  /** Daemon pid reported by `status` (this process). */
  get pid(): number {
    return process.pid;
  }

  /**
   * Where a client connects: the Unix socket, or in TCP mode `host:port` with the actually bound
   * port (`status` echoes the configured `listen` string instead, §1.7).
   */
  get endpoint(): Endpoint {
    if (this.opts.tcp === undefined) return { scheme: "unix", path: this.socketPath };
    const b = this.boundTcp ?? splitHostPort(this.opts.tcp.listen);
    const host = b.host.includes(":") ? `[${b.host}]` : b.host;
    return { scheme: "tcp", addr: `${host}:${b.port}` };
  }

  /** True while the control endpoint accepts connections. */
  get listening(): boolean {
    return this.server !== null;
  }

  /** Resolves when the control endpoint stops listening (shutdown request, `shutdown()`, `close()`). */
  whenShutdown(): Promise<void> {
    if (this.server === null) return Promise.resolve();
    return new Promise((resolve) => this.shutdownWaiters.push(resolve));
  }

  /** Resolves once every launched worker (orphans included; in-process ones only if asked) has exited on its own. */
  async drainWorkers(options: { inProcessOnly?: boolean } = {}): Promise<void> {
    const all =
      options.inProcessOnly === true
        ? [...this.workers.values()]
        : [...this.workers.values(), ...this.processes.values()];
    await Promise.all(all.map((w) => w.exited));
  }

  /** Pids of the worker processes launched so far (orphans included), by agent id. */
  workerPids(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [id, w] of this.processes) if (w.pid !== undefined) out.set(id, w.pid);
    return out;
  }

  /** Copy of the registry record of `id` (any generation's view = the current one). */
  record(id: string): AgentRecordJson | undefined {
    const r = this.registry.get(id);
    return r === undefined ? undefined : structuredClone(r);
  }

  /** Copies of all records, sorted like `list`. */
  records(): AgentRecordJson[] {
    return this.sortedRecords().map((r) => structuredClone(r));
  }

  /** The fake worker launched for `id` (also after it exited, was respawned away, or orphaned). */
  agent(id: string): FakeWorker | undefined {
    return this.workers.get(id);
  }

  /** When on, connections are accepted and lines read and logged, but never answered or applied. */
  hang(on: boolean): void {
    this.hanging = on;
  }

  /**
   * Like SIGSTOP on the daemon process: connections are accepted and lines read, but nothing is
   * applied or answered until {@link resume}; then every line read meanwhile is applied in order
   * (replies to connections the client gave up on are lost). Workers keep running.
   */
  pause(): void {
    if (this.pausedGate) return;
    let release!: () => void;
    const promise = new Promise<void>((r) => (release = r));
    this.pausedGate = { promise, release };
  }

  /**
   * Like a SIGSTOP that lands as the daemon reads its next request of `kind` (e.g. `"spawn"`):
   * that request is read (it is in {@link requests}) and then it and everything after it waits for
   * {@link resume}, as with {@link pause}. Everything before it was answered normally.
   */
  pauseAtNext(kind: CtlRequest["kind"]): void {
    this.pauseAtKind = kind;
  }

  /** Like SIGCONT after {@link pause}; also cancels a {@link pauseAtNext} that has not fired. */
  resume(): void {
    this.pauseAtKind = null;
    const gate = this.pausedGate;
    this.pausedGate = null;
    gate?.release();
  }

  /**
   * Like the `shutdown` request without a reply: stop accepting, drop open control connections,
   * unlink the control socket. Workers keep running; their exits are no longer observed.
   */
  async shutdown(): Promise<void> {
    this.generation++;
    const server = this.server;
    this.server = null;
    for (const s of this.controlSockets) s.destroy();
    this.controlSockets.clear();
    if (server === null) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.opts.tcp === undefined) fs.rmSync(this.socketPath, { force: true });
    const waiters = this.shutdownWaiters;
    this.shutdownWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Simulates a daemon restart over the same store: (shutdown if needed) reload every manifest, sweep
   * `running|spawning` → `crashed` (idle untouched), forget all pids, reset the port counter and
   * uptime, listen again. Surviving workers keep streaming and may still report `idle`/`running`.
   */
  async restart(): Promise<void> {
    if (this.server !== null) await this.shutdown();
    else this.generation++;
    await this.boot();
  }

  /**
   * Tears everything down: control endpoint, every worker (orphans too — worker processes unless
   * `keepWorkerProcesses`), worktrees, sockets, timers.
   */
  async close(options: FakeCalibandCloseOptions = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.shutdown();
    const exits: Array<Promise<unknown>> = [];
    for (const w of this.workers.values()) {
      w.kill();
      w.destroyConnections();
      exits.push(w.exited);
    }
    if (options.keepWorkerProcesses !== true) {
      for (const w of this.processes.values()) {
        w.kill();
        exits.push(w.exited);
      }
    }
    await Promise.all(exits);
    for (const s of this.reportSockets) s.destroy();
    this.reportSockets.clear();
    await Promise.all([...this.pendingCleanups]);
    await Promise.all([...this.worktrees.values()].map((wt) => removeWorktree(wt)));
    this.worktrees.clear();
  }

  private async boot(): Promise<void> {
    this.registry = loadRegistry(this.dataBase);
    sweepCrashed(this.dataBase, this.registry);
    this.pids = new Map();
    this.nextAgentPort = 0;
    this.startedMs = Date.now();
    if (this.opts.tcp === undefined) fs.mkdirSync(this.agentSocketDir, { recursive: true });
    await this.listen();
  }

  private listen(): Promise<void> {
    const gen = this.generation;
    const tcp = this.opts.tcp;
    const auth = this.tcpAuth;
    const track = (s: net.Socket): void => {
      this.controlSockets.add(s);
      s.on("close", () => this.controlSockets.delete(s));
    };
    const server = net.createServer({ allowHalfOpen: true }, (raw) => {
      if (tcp === undefined || auth === null) {
        track(raw);
        this.serveControl(raw, Buffer.alloc(0), gen);
      } else {
        // The TLS socket owns the raw socket's handle; tracking it is enough for teardown.
        authenticateTcp(
          raw,
          auth,
          CONTROL_PREAUTH_TIMEOUT_MS,
          (c, rest) => this.serveControl(c, rest, gen),
          track,
        );
      }
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      const onListening = (): void => {
        server.off("error", reject);
        server.on("error", () => {});
        this.server = server;
        const addr = server.address();
        if (tcp !== undefined && typeof addr === "object" && addr !== null) {
          this.boundTcp = { host: splitHostPort(tcp.listen).host, port: addr.port };
        }
        resolve();
      };
      if (tcp === undefined) {
        const parent = rustParent(this.socketPath);
        if (parent !== null && parent !== "") fs.mkdirSync(parent, { recursive: true });
        fs.rmSync(this.socketPath, { force: true }); // a second daemon steals the name (§1.1)
        server.listen(this.socketPath, onListening);
      } else {
        const { host, port } = splitHostPort(tcp.listen);
        server.listen(port, host, onListening);
      }
    });
  }

  /** Serves one control connection: many requests, one reply each, strictly in order (§1.2). */
  private serveControl(conn: Duplex, leftover: Buffer, gen: number): void {
    serveControlLines(conn, leftover, {
      onLine: (bytes, stop) => this.handleLine(conn, bytes, gen, stop),
      onTooLong: (head) =>
        this.requests.push({
          line: `${head.toString("utf8")}… (≥ ${MAX_CTL_LINE} bytes without newline)`,
          reply: null,
        }),
    });
  }

  private async handleLine(conn: Duplex, bytes: Buffer, gen: number, stop: () => void): Promise<void> {
    if (conn.destroyed || gen !== this.generation) return;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // tokio's read_line rejects invalid UTF-8; the daemon drops the connection.
      this.requests.push({ line: bytes.toString("utf8"), reply: null });
      stop();
      conn.destroy();
      return;
    }
    const line = rustTrimEnd(text);
    if (line === "") return;
    const entry: RequestLogEntry = { line, reply: null };
    this.requests.push(entry);
    if (this.hanging) return;
    if (this.pauseAtKind !== null) {
      const decoded = decodeCtlRequest(line);
      if (decoded.ok && decoded.request.kind === this.pauseAtKind) {
        this.pauseAtKind = null;
        this.pause();
      }
    }
    if (this.pausedGate) await this.pausedGate.promise;
    const out = await this.dispatch(line, gen);
    if (out === null || gen !== this.generation || conn.destroyed) {
      conn.destroy();
      return;
    }
    entry.reply = out;
    conn.write(`${out}\n`);
    if (out === reply.shutdownAck()) {
      stop();
      if (conn instanceof net.Socket) this.controlSockets.delete(conn);
      conn.end();
      await this.shutdown();
    }
  }

  /** Answers one request line; `null` when the daemon went away meanwhile (no reply is written). */
  private async dispatch(line: string, gen: number): Promise<string | null> {
    const decoded = decodeCtlRequest(line);
    if (!decoded.ok) return reply.error({ kind: "internal", message: `bad request: ${decoded.message}` });
    const req: CtlRequest = decoded.request;
    switch (req.kind) {
      case "list":
        return reply.listed(this.sortedRecords());
      case "spawn":
        return this.spawn(req.spec, gen);
      case "attach": {
        const rec = this.registry.get(req.id);
        return rec === undefined ? this.notFound(req.id) : reply.attachAck(rec.endpoint);
      }
      case "kill": {
        this.pids.get(req.id)?.kill();
        const rec = this.registry.get(req.id);
        if (rec === undefined) return this.notFound(req.id);
        this.setStatus(rec, "killed");
        return reply.killed();
      }
      case "respawn":
        return this.respawn(req.id, gen);
      case "rm": {
        if (req.force) this.pids.get(req.id)?.kill();
        const err = this.remove(req.id, req.force);
        return err === null ? reply.removed() : reply.error(err);
      }
      case "status":
        return reply.status(
          this.pid,
          this.registry.size,
          Math.floor((Date.now() - this.startedMs) / 1000),
          this.opts.tcp === undefined
            ? { scheme: "unix", path: this.socketPath }
            : { scheme: "tcp", addr: this.opts.tcp.listen },
        );
      case "shutdown":
        return reply.shutdownAck();
      case "report_status": {
        const rec = this.registry.get(req.id);
        const movable = (s: AgentStatus): boolean => s === "running" || s === "idle";
        if (rec !== undefined && movable(rec.status) && movable(req.status)) this.setStatus(rec, req.status);
        return reply.statusReported();
      }
    }
  }

  private notFound(id: string): string {
    return reply.error({ kind: "not_found", id });
  }

  private sortedRecords(): AgentRecordJson[] {
    return [...this.registry.values()].sort((a, b) =>
      a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0,
    );
  }

  private setStatus(rec: AgentRecordJson, status: AgentStatus): void {
    rec.status = status;
    writeManifest(this.dataBase, rec);
  }

  /** Removal (§1.7 `rm`): refuses non-stopped agents without force; deletes record, pid, session dir. */
  private remove(id: string, force: boolean): SupervisorErrorJson | null {
    const rec = this.registry.get(id);
    if (rec === undefined) return { kind: "not_found", id };
    if (!STOPPED.has(rec.status) && !force)
      return { kind: "invalid_state", op: "rm", id, status: rec.status };
    this.registry.delete(id);
    this.pids.delete(id);
    removeSessionDir(this.dataBase, id);
    return null;
  }

  private async spawn(spec: SpawnSpecJson, gen: number): Promise<string | null> {
    const prepared = await this.prepare(spec);
    if ("error" in prepared) return prepared.error;
    if (gen !== this.generation) {
      this.cleanupWorktree(prepared.worktree);
      return null;
    }
    const rec = this.register(spec, prepared);
    this.launch(rec, prepared);
    return reply.spawned(rec.id, rec.endpoint);
  }

  private async respawn(id: string, gen: number): Promise<string | null> {
    const old = this.registry.get(id);
    if (old === undefined) return this.notFound(id);
    const spec = old.spec;
    const prepared = await this.prepare(spec);
    if ("error" in prepared) return prepared.error;
    if (gen !== this.generation) {
      this.cleanupWorktree(prepared.worktree);
      return null;
    }
    // Remove the old record (and its session dir) and register the new one in one step; the old
    // worker is NOT signalled (§1.7 `respawn`).
    const err = this.remove(id, true);
    if (err !== null) {
      this.cleanupWorktree(prepared.worktree);
      return reply.error(err);
    }
    const rec = this.register(spec, prepared);
    this.launch(rec, prepared);
    return reply.respawned(rec.id);
  }

  /** Source → worktree → endpoint, in caliband's order; errors are complete reply lines. */
  private async prepare(spec: SpawnSpecJson): Promise<Prepared | { error: string }> {
    const internal = (message: string): { error: string } => ({
      error: reply.error({ kind: "internal", message }),
    });
    const src = resolveSource(this.workspaceRoot, spec.source);
    if ("error" in src) return internal(src.error);
    let worktree: WorktreeRef | null = null;
    let workingDir = src.dir;
    if (spec.isolation_worktree) {
      const wt = await createWorktree(src.dir);
      if ("error" in wt) return internal(wt.error);
      worktree = wt;
      workingDir = wt.path;
      this.worktrees.set(wt.path, wt);
    }
    const tcp = this.opts.tcp;
    if (tcp === undefined || this.tcpAuth === null) {
      const p = rustJoin(this.agentSocketDir, `${newSocketStem()}-agent.sock`);
      return {
        workingDir,
        worktree,
        endpoint: { scheme: "unix", path: p },
        listen: { kind: "unix", path: p },
      };
    }
    const n = this.nextAgentPort++;
    const base = tcp.agentPortBase ?? 7100;
    const bindHost = splitHostPort(tcp.listen).host;
    let port: number;
    if (base === 0) {
      port = await freePort(bindHost);
    } else {
      port = base + n;
      if (port > 65535) {
        this.cleanupWorktree(worktree);
        return internal("agent port range exhausted");
      }
    }
    const advertise = tcp.advertiseHost ?? splitHostPort(tcp.listen).host;
    return {
      workingDir,
      worktree,
      endpoint: { scheme: "tcp", addr: `${advertise}:${port}` },
      listen: { kind: "tcp", host: bindHost, port, auth: this.tcpAuth },
    };
  }

  private register(spec: SpawnSpecJson, p: Prepared): AgentRecordJson {
    let id = newAgentId();
    while (this.registry.has(id) || this.workers.has(id) || this.processes.has(id)) id = newAgentId();
    const rec: AgentRecordJson = {
      id,
      name: spec.label ?? `agent-${id}`,
      status: "spawning",
      started_at: rfc3339Now(),
      session_dir: rustJoin(this.dataBase, id),
      endpoint: p.endpoint,
      working_dir: p.workingDir,
      spec,
    };
    writeManifest(this.dataBase, rec);
    this.registry.set(id, rec);
    return rec;
  }

  private launch(rec: AgentRecordJson, p: Prepared): void {
    const gen = this.generation;
    const script = this.opts.script?.(rec.spec, rec.id) ?? defaultScript(rec.spec, rec.id);
    if (script.launchFailure === true) {
      this.setStatus(rec, "failed");
      this.cleanupWorktree(p.worktree);
      return;
    }
    const manifest = rustJoin(rec.session_dir, "manifest.json");
    const argv =
      p.listen.kind === "unix"
        ? [
            "caliban",
            "__agent-worker",
            "--manifest",
            manifest,
            "--socket",
            p.listen.path,
            "--control-socket",
            this.socketPath,
          ]
        : ["caliban", "__agent-worker", "--manifest", manifest, "--listen", `0.0.0.0:${p.listen.port}`];
    if (this.opts.workerProcesses === true && this.opts.script === undefined && p.listen.kind === "unix") {
      this.launchProcess(rec, p, argv, gen);
      return;
    }
    const worker = new FakeWorker({
      id: rec.id,
      spec: rec.spec,
      sessionDir: rec.session_dir,
      workingDir: rec.working_dir,
      endpoint: rec.endpoint,
      listen: p.listen,
      argv,
      pid: this.nextWorkerPid++,
      script,
      bindDelayMs: this.opts.bindDelayMs ?? 30,
      frameDelayMs: this.opts.frameDelayMs ?? 5,
      idleTimeoutMs: this.opts.idleTimeoutMs ?? idleTimeoutFromEnv(this.env),
      reportStatus: (status) => this.sendWorkerReport(rec.id, status),
      onExit: (code) => this.onWorkerExit(gen, rec.id, code, p),
    });
    this.workers.set(rec.id, worker);
    this.pids.set(rec.id, worker);
    const current = this.registry.get(rec.id);
    if (current !== undefined && ["running", "spawning", "idle"].includes(current.status)) {
      this.setStatus(current, "running");
    }
  }

  /**
   * §5.4 launch as a process: `<node> --import tsx fake-worker-main.ts __agent-worker …`, cwd the
   * working dir, stdin /dev/null, stdout+stderr appended to `<session_dir>/worker.log`, the daemon's
   * environment plus the double's pacing knobs. The pid is tracked by this generation only.
   */
  private launchProcess(rec: AgentRecordJson, p: Prepared, argv: string[], gen: number): void {
    let logFd: number | "ignore" = "ignore";
    try {
      logFd = fs.openSync(path.join(rec.session_dir, "worker.log"), "a");
    } catch {
      // output discarded, like a daemon that cannot open the log (§5.4)
    }
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, ["--import", TSX_LOADER, WORKER_MAIN, ...argv.slice(1)], {
        cwd: rec.working_dir === "" ? undefined : rec.working_dir,
        env: {
          ...this.env,
          CALIBAN_SIM_FRAME_DELAY_MS: String(this.opts.frameDelayMs ?? 5),
          CALIBAN_SIM_BIND_DELAY_MS: String(this.opts.bindDelayMs ?? 30),
          CALIBAN_SIM_IDLE_TIMEOUT_MS: String(this.opts.idleTimeoutMs ?? idleTimeoutFromEnv(this.env)),
        },
        stdio: ["ignore", logFd, logFd],
      });
    } finally {
      if (typeof logFd === "number") fs.closeSync(logFd);
    }
    const worker = new WorkerProcess(child, (code) => {
      if (this.pids.get(rec.id) === worker) this.pids.delete(rec.id);
      this.onWorkerExit(gen, rec.id, code, p);
    });
    this.processes.set(rec.id, worker);
    this.pids.set(rec.id, worker);
    const current = this.registry.get(rec.id);
    if (current !== undefined && ["running", "spawning", "idle"].includes(current.status)) {
      this.setStatus(current, "running");
    }
  }

  /** Background monitor (§1.7 "Worker exit"): only while the launching daemon generation lives. */
  private onWorkerExit(gen: number, id: string, code: number | null, p: Prepared): void {
    if (gen !== this.generation) return; // the daemon that launched it is gone (orphan, §5.7)
    const rec = this.registry.get(id);
    if (rec !== undefined && ["running", "spawning", "idle"].includes(rec.status)) {
      this.setStatus(rec, code === 0 ? "done" : "failed");
    }
    this.pids.delete(id);
    if (p.listen.kind === "unix") fs.rmSync(p.listen.path, { force: true });
    this.cleanupWorktree(p.worktree);
  }

  private cleanupWorktree(wt: WorktreeRef | null): void {
    if (wt === null || !this.worktrees.has(wt.path)) return;
    this.worktrees.delete(wt.path);
    const job = removeWorktree(wt).finally(() => this.pendingCleanups.delete(job));
    this.pendingCleanups.add(job);
  }

  /** A worker's `report_status` over the real control endpoint (best effort, 5 s reply timeout). */
  private async sendWorkerReport(id: string, status: "idle" | "running"): Promise<void> {
    if (this.closed) return;
    const tcp = this.opts.tcp;
    const ep = tcp === undefined ? null : (this.boundTcp ?? splitHostPort(tcp.listen));
    const target: ControlTarget =
      tcp === undefined || ep === null
        ? { kind: "unix", path: this.socketPath }
        : { kind: "tcp", host: ep.host, port: ep.port, token: tcp.token };
    await sendControlLine(
      target,
      JSON.stringify({ kind: "report_status", id, status }),
      REPORT_TIMEOUT_MS,
      (s, done) => {
        this.reportSockets.add(s);
        s.on("close", () => {
          this.reportSockets.delete(s);
          done();
        });
      },
    );
  }
}
