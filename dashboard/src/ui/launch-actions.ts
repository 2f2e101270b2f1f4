/**
 * Actions on launches and schedules shared by the queue tables and the launch panel: cancel a
 * launch (after confirmation), pause, resume or run a schedule now. Each reports a typed error
 * through the caller's `report` and hands what the gateway returned to `accepted`.
 */
import { CANCEL_LAUNCH, PAUSE_SCHEDULE, RESUME_SCHEDULE, RUN_SCHEDULE } from "../api/documents.js";
import { mutate } from "../api/mutations.js";
import type { Launch, Schedule } from "../api/types.js";
import { announce } from "./announce.js";
import { confirmAction } from "./confirm.js";

/** The route of a launch's panel. */
export function launchHref(launchId: string): string {
  return `#/queue/${launchId}`;
}

/** How a launch is named for people: its label, else its id. */
export function launchName(launch: { launchId: string; spec: { label: string | null } }): string {
  return launch.spec.label ?? launch.launchId;
}

/** Where results go. */
export interface ActionSink {
  /** A launch as the gateway returned it. */
  launch(launch: Launch): void;
  /** A schedule as the gateway returned it. */
  schedule(schedule: Schedule): void;
  /** Show why an action failed, or clear the message with null. */
  report(message: string | null): void;
}

function failureText(
  action: string,
  failure: { message: string; fieldErrors: { path: string[]; message: string }[] },
) {
  const fields = failure.fieldErrors.map((f) => `${f.path.join(".")}: ${f.message}`);
  return `${action} failed: ${[failure.message, ...fields].join("; ")}`;
}

/** Ask, then cancel `launch`; resolves once done (or refused). */
export async function cancelLaunch(launch: Launch, sink: ActionSink): Promise<void> {
  const name = launchName(launch);
  const running = launch.state === "RUNNING" || launch.state === "DISPATCHED";
  const ok = await confirmAction({
    title: `Cancel launch ${name}?`,
    body: running
      ? "Its run is killed now and it is not retried. Its history stays."
      : "It leaves the queue and is never dispatched. Its history stays.",
    confirmLabel: "Cancel launch",
    danger: true,
  });
  if (!ok) return;
  sink.report(null);
  const outcome = await mutate<{ launch: Launch }>(CANCEL_LAUNCH, { launchId: launch.launchId });
  if (!outcome.ok) {
    sink.report(failureText(`Cancel of ${name}`, outcome.failure));
    return;
  }
  sink.launch(outcome.payload.launch);
  announce(`Launch ${name} cancelled.`);
}

/** What a schedule button does. */
export type ScheduleAction = "pause" | "resume" | "run";

const SCHEDULE_DOCUMENTS: Record<ScheduleAction, string> = {
  pause: PAUSE_SCHEDULE,
  resume: RESUME_SCHEDULE,
  run: RUN_SCHEDULE,
};

const SCHEDULE_DONE: Record<ScheduleAction, string> = {
  pause: "paused",
  resume: "resumed",
  run: "fired now",
};

/** Pause, resume or run `schedule` now (no confirmation: each is undone as easily). */
export async function scheduleAction(
  action: ScheduleAction,
  schedule: Schedule,
  sink: ActionSink,
): Promise<void> {
  sink.report(null);
  const outcome = await mutate<{ schedule: Schedule; launch?: Launch }>(SCHEDULE_DOCUMENTS[action], {
    scheduleId: schedule.scheduleId,
  });
  if (!outcome.ok) {
    sink.report(
      failureText(`${action[0]?.toUpperCase()}${action.slice(1)} of ${schedule.name}`, outcome.failure),
    );
    return;
  }
  sink.schedule(outcome.payload.schedule);
  if (outcome.payload.launch) sink.launch(outcome.payload.launch);
  announce(`Schedule ${schedule.name} ${SCHEDULE_DONE[action]}.`);
}
