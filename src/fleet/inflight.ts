/**
 * Commands in flight that a concurrent poll must not misread (reference #122, #123): ids whose
 * spawn reply arrived before their `agent_spawned` is recorded (never "discovered"), ids a list
 * sent before the spawn reply cannot contain (never "gone"), and ids being removed by rm/respawn
 * (their disappearance is recorded by the command, once). Shared by the lifecycle service and the
 * poller; timestamps are ms since the epoch.
 */
export class InFlight {
  /** Spawned (or respawned-into) ids → when the reply arrived. */
  readonly recentSpawns = new Map<string, number>();
  /** Removed ids → when the removal completed; a list sent before that may still show them. */
  readonly recentRemovals = new Map<string, number>();
  /** Spawn replies not yet recorded as `agent_spawned`. */
  readonly pendingSpawns = new Set<string>();
  /** Ids an rm/respawn is removing right now. */
  readonly pendingRemovals = new Set<string>();
}
