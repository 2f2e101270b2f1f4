// One simulated `caliban __agent-worker`, run in-process: binds the per-agent endpoint, replays its
// ring buffer to every reader, streams scripted `TurnEvent` frames, reads inbound frames when
// interactive, writes stdout.ndjson and worker.log. docs/caliband-protocol.md §3, §5.4, §6.
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import type { Duplex } from "node:stream";
import type { Frame, ScriptExit, WorkerContext, WorkerScript } from "./fake-scripts.js";
import { authenticateTcp, rustTrim, type TcpAuth } from "./transport.js";
import type { Endpoint, SpawnSpecJson } from "./wire-format.js";

/** Lines of history replayed to a new reader (§3.2, caliban #116). */
export const HISTORY_CAP = 1024;
/** Inbound inbox capacity; frames beyond it are dropped (§3.5, caliban #118). */
export const INBOX_CAP = 64;
/** Time between the final frame and the worker's exit on a normal run end, ms (§3.1 step 4). */
export const LINGER_MS = 100;

/** Where the worker listens: a Unix socket path, or a TCP host/port with TLS + bearer token (§6). */
export type WorkerListen =
  { kind: "unix"; path: string } | { kind: "tcp"; host: string; port: number; auth: TcpAuth };

/** Everything the daemon hands a worker at launch (the real one gets it via argv/env/manifest, §5.4). */
export interface FakeWorkerInit {
  id: string;
  spec: SpawnSpecJson;
  sessionDir: string;
  workingDir: string;
  endpoint: Endpoint;
  listen: WorkerListen;
  /** argv logged to worker.log, as the real daemon would have launched the worker. */
  argv: string[];
  pid: number;
  script: WorkerScript;
  /** Delay before binding the endpoint, ms. */
  bindDelayMs: number;
  /** Default pause between scripted frames, ms. */
  frameDelayMs: number;
  /** Interactive idle timeout with zero open connections, ms; 0 = never. */
  idleTimeoutMs: number;
  /** Sends `report_status` to the daemon (best effort; never rejects). */
  reportStatus: (status: "idle" | "running") => Promise<void>;
  /** Called once when the worker is gone: exit code, or the signal that stopped it. */
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/** Inbound frame of an interactive agent (§3.5). */
export type InboundFrame = { type: "UserMessage"; text: string } | { type: "EndInput" };

/** Lifecycle of a fake worker. */
export type WorkerState = "starting" | "running" | "exited";

const NEWLINE = Buffer.from("\n");

/** The bytes of one outbound line: raw bytes as they are, a string as UTF-8, an object as its JSON. */
function frameBytes(frame: Frame): Buffer {
  if (Buffer.isBuffer(frame)) return frame;
  return Buffer.from(typeof frame === "string" ? frame : JSON.stringify(frame), "utf8");
}

class Aborted extends Error {
  constructor() {
    super("worker stopped");
  }
}

type StopReason = { kind: "kill" } | { kind: "finish"; code: number };

/**
 * A fake worker. Tests reach it through `FakeCaliband.agent(id)` to observe it (`linesWritten`,
 * `connectionCount`, `state`) or steer it (`dropConnections()`, `release()`, `finish()`, `publish()`).
 */
export class FakeWorker {
  readonly id: string;
  readonly endpoint: Endpoint;
  readonly pid: number;
  /** Resolves once the endpoint is bound (never resolves when the worker dies first). */
  readonly bound: Promise<void>;
  /** Resolves with the exit code (`null` when stopped by a signal) once the worker is gone. */
  readonly exited: Promise<number | null>;

  private stateValue: WorkerState = "starting";
  private exitCodeValue: number | null = null;
  private exitSignalValue: NodeJS.Signals | null = null;
  private lines = 0;
  /** Retained lines as written (bytes, without the newline). */
  private readonly history: Buffer[] = [];
  private readonly subscribers = new Set<Duplex>();
  /** TCP connections still in TLS handshake / bearer preamble. */
  private readonly preAuth = new Set<Duplex>();
  private readonly conns = new Set<Duplex>();
  /** Connections counted by the idle timeout: open, and (interactive) not yet at EOF. */
  private readonly attached = new Set<Duplex>();
  private readonly inbox: InboundFrame[] = [];
  private server: net.Server | null = null;
  private logFd: number | null = null;
  private stdoutFd: number | null = null;
  private readonly controller = new AbortController();
  private stopReason: StopReason | null = null;
  private holdRelease: (() => void) | null = null;
  private inputWaiter: ((why: "frame" | "timeout") => void) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private resolveBound: () => void = () => {};
  private resolveExited: (code: number | null) => void = () => {};

  constructor(private readonly init: FakeWorkerInit) {
    this.id = init.id;
    this.endpoint = init.endpoint;
    this.pid = init.pid;
    this.bound = new Promise((r) => (this.resolveBound = r));
    this.exited = new Promise((r) => (this.resolveExited = r));
    // The daemon opens worker.log for the child's stdout/stderr before launching it (§5.4).
    try {
      this.logFd = fs.openSync(path.join(init.sessionDir, "worker.log"), "a");
    } catch {
      this.logFd = null;
    }
    this.log(
      `[fake caliban __agent-worker] argv=${JSON.stringify(init.argv)} cwd=${init.workingDir} pid=${init.pid}`,
    );
    setImmediate(() => void this.main());
  }

  /** `starting` until bound, `running` while serving, `exited` afterwards. */
  get state(): WorkerState {
    return this.stateValue;
  }

  /** Exit code once exited (`null` while running or when killed by a signal). */
  get exitCode(): number | null {
    return this.exitCodeValue;
  }

  /** Signal that stopped the worker (`SIGTERM` after `kill`), else `null`. */
  get exitSignal(): NodeJS.Signals | null {
    return this.exitSignalValue;
  }

  /** Total lines published so far (= lines in stdout.ndjson). */
  get linesWritten(): number {
    return this.lines;
  }

  /** Open per-agent connections right now (what the idle timeout watches, §3.5). */
  get connectionCount(): number {
    return this.conns.size;
  }

  /** Snapshot of the ring buffer (at most {@link HISTORY_CAP} lines, oldest first). */
  retained(): string[] {
    return this.history.map((b) => b.toString("utf8"));
  }

  /** Frames queued by interactive readers and not consumed yet. */
  pendingInbound(): InboundFrame[] {
    return [...this.inbox];
  }

  /** Closes every open stream connection now, without `RunEnd` (a mid-stream drop, §8). */
  dropConnections(): void {
    for (const c of [...this.conns]) c.destroy();
  }

  /** Ends a pending `fake:hold` / `ctx.hold()` early. */
  release(): void {
    this.holdRelease?.();
  }

  /** Publishes one extra frame now, exactly like a scripted one. */
  publish(frame: Frame): void {
    if (this.stateValue === "exited") throw new Error(`worker ${this.id} has exited`);
    this.emitLine(frameBytes(frame));
  }

  /** Queues an inbound frame as if a client had written it (interactive agents only). */
  inject(frame: InboundFrame): void {
    this.enqueue(frame);
  }

  /** Stops the script where it is and exits with `code` after the usual linger (no further frames). */
  finish(code = 0): void {
    this.stop({ kind: "finish", code });
  }

  /** SIGTERM: stops at once; connections close without `RunEnd` (§1.7 `kill`). */
  kill(): void {
    this.stop({ kind: "kill" });
  }

  private stop(reason: StopReason): void {
    if (this.stateValue === "exited" || this.stopReason !== null) {
      if (reason.kind === "kill" && this.stateValue !== "exited") this.terminate(null, "SIGTERM", false);
      return;
    }
    this.stopReason = reason;
    this.controller.abort();
    if (reason.kind === "kill") this.terminate(null, "SIGTERM", false);
  }

  /** Appends a line to worker.log. */
  log(line: string): void {
    if (this.logFd === null) return;
    try {
      fs.writeSync(this.logFd, `${line}\n`);
    } catch {
      // best effort, like a child whose log could not be opened
    }
  }

  private async main(): Promise<void> {
    const { script } = this.init;
    try {
      if (script.preflightFailure !== undefined) {
        this.log(script.preflightFailure.log);
        return this.terminate(script.preflightFailure.exitCode, null, false);
      }
      await this.sleep(script.bindDelayMs ?? this.init.bindDelayMs);
      let server: net.Server;
      try {
        server = await this.bind();
      } catch (e) {
        this.log(`[caliban __agent-worker] bind ${this.describeListen()} failed: ${(e as Error).message}`);
        return this.terminate(74, null, false);
      }
      if (this.stateValue === "exited") {
        server.close(); // killed while binding
        return;
      }
      if (this.stopReason !== null) throw new Aborted();
      this.stateValue = "running";
      this.log(`[fake caliban __agent-worker] listening on ${this.describeListen()}`);
      this.resolveBound();
      fs.mkdirSync(this.init.sessionDir, { recursive: true });
      this.stdoutFd = fs.openSync(path.join(this.init.sessionDir, "stdout.ndjson"), "a");
      const result: number | ScriptExit = await script.run(this.context());
      const exit = typeof result === "number" ? { exitCode: result, linger: true } : result;
      if (exit.linger) await this.lingerThen(() => this.terminate(exit.exitCode, null, true));
      else this.terminate(exit.exitCode, null, true);
    } catch (e) {
      if (this.stateValue === "exited") return;
      const reason = this.stopReason;
      if (reason?.kind === "finish") {
        await this.lingerThen(() => this.terminate(reason.code, null, true));
      } else if (reason?.kind !== "kill") {
        this.log(`[fake caliban __agent-worker] script error: ${String(e)}`);
        this.terminate(1, null, false);
      }
    }
  }

  private describeListen(): string {
    const l = this.init.listen;
    return l.kind === "unix" ? l.path : `${l.host}:${l.port}`;
  }

  private lingerThen(fn: () => void): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        fn();
        resolve();
      }, LINGER_MS);
      this.timers.add(t);
    });
  }

  private bind(): Promise<net.Server> {
    const l = this.init.listen;
    // Unix readers are accepted paused: a non-interactive worker never reads inbound bytes (§3.5).
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: l.kind === "unix" }, (raw) => {
      if (l.kind === "unix") this.serve(raw, Buffer.alloc(0));
      else {
        const ready = (conn: Duplex, leftover: Buffer): void => {
          this.preAuth.delete(conn);
          this.serve(conn, leftover);
        };
        authenticateTcp(raw, l.auth, null, ready, (s) => {
          this.preAuth.add(s);
          s.on("close", () => this.preAuth.delete(s));
        });
      }
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      const onListening = (): void => {
        server.off("error", reject);
        server.on("error", () => {});
        resolve(server);
      };
      if (l.kind === "unix") {
        fs.mkdirSync(path.dirname(l.path), { recursive: true });
        fs.rmSync(l.path, { force: true });
        server.listen(l.path, onListening);
      } else {
        server.listen(l.port, l.host, onListening);
      }
    });
  }

  /** Serves one reader: history snapshot + live subscription in one step, inbound if interactive. */
  private serve(conn: Duplex, leftover: Buffer): void {
    if (this.stateValue === "exited") {
      conn.destroy();
      return;
    }
    this.conns.add(conn);
    this.attached.add(conn);
    this.onConnectionsChanged();
    conn.on("error", () => conn.destroy());
    conn.on("close", () => {
      this.conns.delete(conn);
      this.attached.delete(conn);
      this.subscribers.delete(conn);
      this.onConnectionsChanged();
    });
    if (this.init.spec.interactive) this.readInbound(conn, leftover);
    // Non-interactive workers never read what a client writes (§3.5).
    if (this.history.length > 0) {
      conn.write(Buffer.concat(this.history.flatMap((b) => [b, NEWLINE])));
    }
    this.subscribers.add(conn);
  }

  private readInbound(conn: Duplex, leftover: Buffer): void {
    let buf = leftover;
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const drain = (): void => {
      for (;;) {
        const nl = buf.indexOf(10);
        if (nl < 0) return;
        const lineBytes = buf.subarray(0, nl);
        buf = buf.subarray(nl + 1);
        let line: string;
        try {
          line = decoder.decode(lineBytes);
        } catch {
          // tokio's `lines()` fails on invalid UTF-8 and the reader task ends.
          conn.off("data", onData);
          conn.pause();
          return;
        }
        if (line.endsWith("\r")) line = line.slice(0, -1);
        this.acceptInbound(line);
      }
    };
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      drain();
    };
    drain();
    conn.on("data", onData);
    conn.on("end", () => {
      if (buf.length > 0) {
        const rest = buf.toString("utf8");
        buf = Buffer.alloc(0);
        this.acceptInbound(rest);
      }
      // A reader that finished writing no longer holds the idle timeout open (see README).
      this.attached.delete(conn);
      this.onConnectionsChanged();
    });
    conn.resume();
  }

  private acceptInbound(line: string): void {
    if (rustTrim(line) === "") return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return; // malformed lines are silently skipped (§3.5)
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) return;
    const o = v as Record<string, unknown>;
    if (o.type === "UserMessage" && typeof o.text === "string")
      this.enqueue({ type: "UserMessage", text: o.text });
    else if (o.type === "EndInput") this.enqueue({ type: "EndInput" });
  }

  private enqueue(frame: InboundFrame): void {
    if (this.inbox.length >= INBOX_CAP) return; // dropped, as when the real inbox is full
    this.inbox.push(frame);
    const w = this.inputWaiter;
    this.inputWaiter = null;
    w?.("frame");
  }

  private onConnectionsChanged(): void {
    if (this.attached.size > 0) this.clearIdleTimer();
    else if (this.inputWaiter !== null) this.armIdleTimer();
  }

  private armIdleTimer(): void {
    this.clearIdleTimer();
    if (this.init.idleTimeoutMs <= 0 || this.attached.size > 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const w = this.inputWaiter;
      this.inputWaiter = null;
      w?.("timeout");
    }, this.init.idleTimeoutMs);
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private emitLine(line: Buffer): void {
    if (this.history.length === HISTORY_CAP) this.history.shift();
    this.history.push(line);
    this.lines++;
    const out = Buffer.concat([line, NEWLINE]);
    if (this.stdoutFd !== null) fs.writeSync(this.stdoutFd, out);
    for (const c of this.subscribers) {
      if (!c.destroyed) c.write(out);
    }
  }

  private throwIfStopped(): void {
    if (this.controller.signal.aborted || this.stateValue === "exited") throw new Aborted();
  }

  private sleep(ms: number, releasable = false): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.controller.signal.aborted) return reject(new Aborted());
      const signal = this.controller.signal;
      const done = (): void => {
        clearTimeout(t);
        this.timers.delete(t);
        signal.removeEventListener("abort", onAbort);
        if (releasable) this.holdRelease = null;
      };
      const onAbort = (): void => {
        done();
        reject(new Aborted());
      };
      const t = setTimeout(
        () => {
          done();
          resolve();
        },
        Math.max(0, ms),
      );
      this.timers.add(t);
      signal.addEventListener("abort", onAbort, { once: true });
      if (releasable) {
        this.holdRelease = () => {
          done();
          resolve();
        };
      }
    });
  }

  private async nextInput(): Promise<string | null> {
    this.throwIfStopped();
    await this.init.reportStatus("idle");
    for (;;) {
      this.throwIfStopped();
      const frame = this.inbox.shift();
      if (frame !== undefined) {
        if (frame.type === "EndInput") return null;
        await this.init.reportStatus("running");
        return frame.text;
      }
      const why = await new Promise<"frame" | "timeout">((resolve, reject) => {
        const signal = this.controller.signal;
        const onAbort = (): void => {
          this.inputWaiter = null;
          this.clearIdleTimer();
          reject(new Aborted());
        };
        signal.addEventListener("abort", onAbort, { once: true });
        this.inputWaiter = (w) => {
          signal.removeEventListener("abort", onAbort);
          this.clearIdleTimer();
          resolve(w);
        };
        this.armIdleTimer();
      });
      if (why === "timeout") {
        this.log("[fake caliban __agent-worker] interactive agent idle timeout with no clients — ending");
        return null;
      }
    }
  }

  private context(): WorkerContext {
    return {
      id: this.id,
      spec: this.init.spec,
      frameDelayMs: this.init.frameDelayMs,
      sessionDir: this.init.sessionDir,
      workingDir: this.init.workingDir,
      emit: (frame) => {
        this.throwIfStopped();
        this.emitLine(frameBytes(frame));
      },
      sleep: (ms) => (ms <= 0 ? this.yieldOnce() : this.sleep(ms)),
      hold: (ms) => this.sleep(ms, true),
      nextInput: () => this.nextInput(),
      log: (line) => this.log(line),
    };
  }

  private yieldOnce(): Promise<void> {
    this.throwIfStopped();
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Process exit: listener gone (socket file unlinked), connections closed, transcript closed. */
  private terminate(code: number | null, signal: NodeJS.Signals | null, graceful: boolean): void {
    if (this.stateValue === "exited") return;
    this.stateValue = "exited";
    this.exitCodeValue = code;
    this.exitSignalValue = signal;
    if (!this.controller.signal.aborted) this.controller.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.clearIdleTimer();
    this.inputWaiter = null;
    this.holdRelease = null;
    this.server?.close();
    this.server = null;
    for (const c of this.conns) {
      if (graceful && c instanceof net.Socket) c.destroySoon();
      else c.destroy();
    }
    this.subscribers.clear();
    for (const c of this.preAuth) c.destroy();
    this.preAuth.clear();
    for (const fd of [this.stdoutFd, this.logFd]) {
      if (fd !== null) {
        try {
          fs.closeSync(fd);
        } catch {
          // already closed
        }
      }
    }
    this.stdoutFd = null;
    this.logFd = null;
    this.resolveExited(code);
    this.init.onExit(code, signal);
  }

  /** Destroys every connection that is still open (test teardown after exit). */
  destroyConnections(): void {
    for (const c of [...this.conns]) c.destroy();
  }
}
