/**
 * One ingest task per agent: started when an agent is first seen non-terminal (idle included,
 * #51), finished before its terminal status is recorded and before `rm`/`respawn` delete its
 * session dir, stopped (resumable) at shutdown, and forgotten once finished.
 */
import type { IngestDeps, IngestTarget } from "./ingest.js";
import { IngestTask } from "./ingest.js";

/** Owns the ingest tasks of the gateway. */
export class IngestManager {
  private readonly tasks = new Map<string, Promise<IngestTask>>();
  private closed = false;

  constructor(private readonly deps: IngestDeps) {}

  /** Start ingesting `target` unless a task exists or its ingest already finished. */
  ensure(target: IngestTarget): void {
    if (this.closed || this.tasks.has(target.agentId)) return;
    const p = IngestTask.start(target, this.deps);
    p.catch((err: unknown) => {
      this.deps.log.error({ err, agent: target.agentId }, "ingest task failed to start");
      this.tasks.delete(target.agentId);
    });
    this.tasks.set(target.agentId, p);
  }

  /**
   * Ingest everything `target` wrote and end its task (starting one first if none ran, e.g. an
   * agent that ran while the gateway was down). Never throws; failures are logged.
   */
  async finish(target: IngestTarget, timeoutMs = 5_000): Promise<void> {
    if (this.closed) return;
    if (!this.tasks.has(target.agentId)) this.ensure(target);
    const pending = this.tasks.get(target.agentId);
    try {
      const task = await pending;
      await task?.finish(timeoutMs);
      // A finished task holds nothing we need again (its cursor says finished, so a later ensure
      // or finish starts a task that ends at once): drop it, so memory and `lagBytes` scale with
      // the live agents, not every agent this gateway ever ingested.
      if (task?.isFinished && this.tasks.get(target.agentId) === pending) this.tasks.delete(target.agentId);
    } catch (err) {
      this.deps.log.error({ err, agent: target.agentId }, "finishing ingest failed");
    }
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
