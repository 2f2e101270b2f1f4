/**
 * One ingest task per agent: started when an agent is first seen non-terminal (idle included,
 * #51), finished before its terminal status is recorded and before `rm`/`respawn` delete its
 * session dir, stopped (resumable) at shutdown, and forgotten once finished.
 *
 * A task also ends by itself when its run ends (RunEnd ingested, or its worker gone — even when the
 * daemon that launched it is dead, issue 12 item 1); it is then kept until someone `finish`es it, so
 * the reconciler can read how the run ended ({@link IngestManager.progress}). Listeners hear of
 * every such end and of every closed stream connection, so the poller reconciles at once (item 6).
 */
import type { IngestDeps, IngestProgress, IngestTarget, RunEndInfo } from "./ingest.js";
import { IngestTask, probeWorker } from "./ingest.js";

/** What the manager tells its listener (the poller). Listeners must not throw. */
export interface IngestListener {
  /** `target`'s run ended and its output is completely ingested (the task ended by itself). */
  onEnded(target: IngestTarget): void;
  /** A stream connection to `target`'s worker closed (it may have exited). */
  onSocketClosed(target: IngestTarget): void;
}

/**
 * Completes a target before its task starts or its worker is probed: the Fleet gives a remote
 * workspace's agents the TLS settings and token of their daemon and takes their session dir
 * away (it is on another host, so ingest follows the socket only). Rejects when the target
 * cannot be followed (its workspace is unknown, its credentials are unreadable, or a remote daemon
 * advertised an endpoint off its own host).
 */
export type TargetResolver = (target: IngestTarget) => Promise<IngestTarget>;

/** Owns the ingest tasks of the gateway. */
export class IngestManager {
  private readonly tasks = new Map<string, Promise<IngestTask>>();
  private closed = false;
  private listener: IngestListener | null = null;
  private readonly deps: IngestDeps;
  private readonly resolve: TargetResolver;
  /** Per agent, the reason its task last failed to start (logged once per reason). */
  private readonly startFailures = new Map<string, string>();

  /** @param resolve completes each target (default: as given). */
  constructor(deps: IngestDeps, resolve: TargetResolver = (t) => Promise.resolve(t)) {
    this.resolve = resolve;
    this.deps = {
      ...deps,
      onEnded: (task) => {
        deps.onEnded?.(task);
        this.listener?.onEnded(task.target);
      },
      onSocketClosed: (target) => {
        deps.onSocketClosed?.(target);
        this.listener?.onSocketClosed(target);
      },
    };
  }

  /** Set the one listener of run ends and closed streams (replaces any earlier one). */
  listen(listener: IngestListener): void {
    this.listener = listener;
  }

  /** Start ingesting `target` unless a task exists or its ingest already finished. */
  ensure(target: IngestTarget): void {
    if (this.closed || this.tasks.has(target.agentId)) return;
    const p = this.resolve(target).then((t) => IngestTask.start(t, this.deps));
    p.then(
      () => this.startFailures.delete(target.agentId),
      (err: unknown) => {
        this.tasks.delete(target.agentId);
        // Every poll retries: say it once per agent and reason, not once per poll.
        const reason = err instanceof Error ? err.message : String(err);
        if (this.startFailures.get(target.agentId) === reason) return;
        this.startFailures.set(target.agentId, reason);
        this.deps.log.error(
          { err, agent: target.agentId },
          "ingest task failed to start (retried every poll)",
        );
      },
    );
    this.tasks.set(target.agentId, p);
  }

  /**
   * Ingest everything `target` wrote and end its task (starting one first if none ran, e.g. an
   * agent that ran while the gateway was down). Never throws; failures are logged.
   * @returns how the run ended as its output shows (see {@link RunEndInfo}); null when no task
   *   could be started or the manager is closed.
   */
  async finish(target: IngestTarget, timeoutMs = 5_000): Promise<RunEndInfo | null> {
    if (this.closed) return null;
    if (!this.tasks.has(target.agentId)) this.ensure(target);
    const pending = this.tasks.get(target.agentId);
    try {
      const task = await pending;
      if (!task) return null;
      await task.finish(timeoutMs);
      // A finished task holds nothing we need again (its cursor says finished, so a later ensure
      // or finish starts a task that ends at once): drop it, so memory and `lagBytes` scale with
      // the live agents, not every agent this gateway ever ingested.
      if (task.isFinished && this.tasks.get(target.agentId) === pending) this.tasks.delete(target.agentId);
      return task.runEndInfo;
    } catch (err) {
      this.deps.log.error({ err, agent: target.agentId }, "finishing ingest failed");
      return null;
    }
  }

  /** What the task of `agentId` knows now (null when there is none, or it failed to start). */
  async progress(agentId: string): Promise<IngestProgress | null> {
    const t = await this.tasks.get(agentId)?.catch(() => null);
    return t ? t.progress() : null;
  }

  /**
   * Whether `target`'s worker is alive now: its task holds an open stream connection, or (no
   * connection held) the endpoint accepts one right now ({@link probeWorker}). A worker whose daemon
   * was lost keeps running (§5.7), so a daemon's terminal word does not prove the worker ended.
   * A target that cannot be completed (see {@link TargetResolver}) counts as alive: nothing
   * proves it gone.
   */
  async workerAlive(target: IngestTarget): Promise<boolean> {
    const p = await this.progress(target.agentId);
    if (p?.connected) return true;
    if (p?.workerGoneAtMs !== null && p?.workerGoneAtMs !== undefined) return false;
    let t: IngestTarget;
    try {
      t = await this.resolve(target);
    } catch {
      return true;
    }
    return probeWorker(t.endpoint, t.transport, 500);
  }

  /** Ingest tasks held now: running, or started and not yet finished. */
  get taskCount(): number {
    return this.tasks.size;
  }

  /** Bytes workers wrote to stdout.ndjson that are not ingested yet, summed over running tasks. */
  async lagBytes(): Promise<number> {
    let total = 0;
    for (const p of this.tasks.values()) {
      const t = await p.catch(() => null);
      if (t && !t.isFinished) total += t.lagBytes;
    }
    return total;
  }

  /** Stop every task without finishing (shutdown; cursors resume next start). */
  async stopAll(): Promise<void> {
    this.closed = true;
    const all = [...this.tasks.values()];
    this.tasks.clear();
    await Promise.all(all.map(async (p) => (await p.catch(() => null))?.stop()));
  }
}
