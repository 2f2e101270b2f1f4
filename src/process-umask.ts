/**
 * The gateway's process umask (issue 11 item 8, "`umask 077` for everything the gateway creates").
 * The gateway calls {@link applyGatewayUmask} once at start: from then on every file and directory
 * it creates (database, WAL, tokens, logs, runtime dir, sockets) is private to its user, whatever
 * the operator's shell umask was. The caliband daemons it autostarts must NOT inherit that umask:
 * their agents create and edit files in the user's repositories, which should keep the modes the
 * operator's umask gives them (a 0600 source file or a 0700 directory in a shared checkout would
 * break builds and colleagues). So process spawns that start such daemons run inside
 * {@link withOperatorUmask}, which restores the original umask around a synchronous `spawn`.
 *
 * The umask is per process, not per thread, and Node only lets the main thread set it
 * (`process.umask(mask)` throws ERR_WORKER_UNSUPPORTED_OPERATION in worker threads).
 */

/** The umask the gateway runs with after {@link applyGatewayUmask}: 0o077 (files 0600, dirs 0700). */
export const GATEWAY_UMASK = 0o077;

/** The umask the process had before {@link applyGatewayUmask}, or undefined when not applied. */
let operatorMask: number | undefined;

/**
 * Set the process umask to {@link GATEWAY_UMASK} and remember the previous one (the operator's).
 * Idempotent: a second call keeps the umask remembered by the first.
 * @returns the operator's original umask (e.g. 0o022).
 * @throws Error from Node when called in a worker thread.
 */
export function applyGatewayUmask(): number {
  const previous = process.umask(GATEWAY_UMASK);
  operatorMask ??= previous;
  return operatorMask;
}

/**
 * Undo {@link applyGatewayUmask}: set the operator's umask back and forget it (gateway stopped in
 * a process that lives on, e.g. tests). No-op when the gateway umask is not applied.
 */
export function restoreOperatorUmask(): void {
  if (operatorMask === undefined) return;
  process.umask(operatorMask);
  operatorMask = undefined;
}

/**
 * The operator's umask remembered by {@link applyGatewayUmask}, or undefined when it was not
 * applied (then the process umask is the operator's own).
 */
export function operatorUmask(): number | undefined {
  return operatorMask;
}

/**
 * Run the SYNCHRONOUS `fn` (e.g. one `child_process.spawn` call — the child takes the umask at
 * fork time) with the operator's umask, then set the gateway's back, also when `fn` throws. No
 * other JavaScript runs in between, so nothing else the gateway creates meanwhile gets the looser
 * umask; do not pass an async function. Without {@link applyGatewayUmask} it just calls `fn`.
 */
export function withOperatorUmask<T>(fn: () => T): T {
  if (operatorMask === undefined) return fn();
  const gateway = process.umask(operatorMask);
  try {
    return fn();
  } finally {
    process.umask(gateway);
  }
}
