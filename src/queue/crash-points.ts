/**
 * Crash points for fault tests (issue 14 item 3: "the gateway SIGKILLed at each step of a
 * dispatch → exactly one run"). When the environment variable `PROSPERO_TEST_CRASH_AT` names a
 * point, the gateway SIGKILLs itself the first time it reaches it — the only way a test process
 * can stop it exactly between two durable steps. Inert otherwise (one env lookup per dispatch).
 *
 * Points, in dispatch order:
 * - `launch-queued`: the launch row and its QUEUED event are committed; nothing dispatched;
 * - `attempt-recorded`: the attempt row and DISPATCHED are committed; the spawn not yet sent;
 * - `spawn-answered`: caliband answered the spawn (the run exists); RUNNING not yet recorded —
 *   the same durable state as a reply lost in flight;
 * - `running-recorded`: RUNNING is committed.
 */

/** The crash points; see the module comment. */
export const CRASH_POINTS = [
  "launch-queued",
  "attempt-recorded",
  "spawn-answered",
  "running-recorded",
] as const;
/** One of {@link CRASH_POINTS}. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** SIGKILL this process when `PROSPERO_TEST_CRASH_AT` is `point`. */
export function crashPoint(point: CrashPoint): void {
  if (process.env.PROSPERO_TEST_CRASH_AT === point) process.kill(process.pid, "SIGKILL");
}
