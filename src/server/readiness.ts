/**
 * Readiness of the gateway, served at `/readyz` and as `Query.readiness`.
 */

/** Readiness snapshot. `ready` is true only when migrations are applied and the store is writable. */
export interface Readiness {
  ready: boolean;
  /** All committed migrations have been applied at start. */
  migrationsApplied: boolean;
  /** The store accepted a write-lock probe just now. */
  storeWritable: boolean;
  /** Registered workspaces. */
  workspacesTotal: number;
  /** Workspaces whose last poll succeeded. */
  workspacesHealthy: number;
  /** Workspaces whose last poll failed. */
  workspacesUnreachable: number;
}
