/**
 * The queue view's enqueue form: workspace, prompt, priority, run timeout, retries and dedup key
 * of `enqueueLaunch` (the other spawn options take their defaults; the fleet view's launch form
 * has them for immediate runs). Typed errors are shown inline, the failing fields marked invalid.
 */
import { ENQUEUE_LAUNCH } from "../api/documents.js";
import { mutate } from "../api/mutations.js";
import { mayOperate, type Viewer } from "../api/session.js";
import type { Launch } from "../api/types.js";
import type { FleetState } from "../state/fleet.js";
import { announce } from "./announce.js";
import { h, replaceChildren, showFormError } from "./dom.js";
import { launchName } from "./launch-actions.js";

function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  if (hint) control.setAttribute("aria-describedby", `${id}-hint`);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("p", { id: `${id}-hint`, class: "hint" }, hint) : null,
  );
}

/** What the form's controls ask for, as `EnqueueLaunchInput` (numbers already checked by the browser). */
export interface EnqueueValues {
  workspace: string;
  prompt: string;
  /** 0–100. */
  priority: number;
  /** Seconds, or empty for the workspace's default. */
  timeoutSeconds: string;
  /** Extra attempts after a transient failure, 0–19. */
  retries: number;
  dedupKey: string;
}

/** The `enqueueLaunch` input of the form's values (empty optional fields left out). */
export function enqueueInput(v: EnqueueValues): Record<string, unknown> {
  const timeout = v.timeoutSeconds.trim();
  const dedup = v.dedupKey.trim();
  return {
    workspace: v.workspace,
    prompt: v.prompt,
    priority: v.priority,
    ...(timeout === "" ? {} : { timeoutMs: Math.round(Number(timeout) * 1000) }),
    ...(v.retries > 0 ? { retry: { maxAttempts: v.retries + 1 } } : {}),
    ...(dedup === "" ? {} : { dedupKey: dedup }),
  };
}

/** Which control a field error's path (from `["input", …]`) belongs to. */
const CONTROL_OF_PATH: Readonly<Record<string, string>> = {
  workspace: "enqueue-workspace",
  prompt: "enqueue-prompt",
  priority: "enqueue-priority",
  timeoutMs: "enqueue-timeout",
  retry: "enqueue-retries",
  dedupKey: "enqueue-dedup",
};

/** The form, offering the fleet's workspaces the token may operate in. */
export class EnqueueForm {
  private readonly workspace = h("select", { id: "enqueue-workspace", name: "workspace", required: true });
  private readonly prompt = h("textarea", { id: "enqueue-prompt", name: "prompt", rows: 3, required: true });
  private readonly priority = h("input", {
    id: "enqueue-priority",
    name: "priority",
    type: "number",
    min: 0,
    max: 100,
    step: 1,
    value: 50,
    required: true,
  });
  private readonly timeout = h("input", {
    id: "enqueue-timeout",
    name: "timeout",
    type: "number",
    min: 1,
    max: 604800,
    step: 1,
    inputmode: "numeric",
  });
  private readonly retries = h("input", {
    id: "enqueue-retries",
    name: "retries",
    type: "number",
    min: 0,
    max: 19,
    step: 1,
    value: 0,
    required: true,
  });
  private readonly dedup = h("input", {
    id: "enqueue-dedup",
    name: "dedupKey",
    type: "text",
    autocomplete: "off",
  });
  private readonly submit = h("button", { type: "submit", class: "button primary" }, "Enqueue");
  private readonly error = h("div", { class: "error", role: "alert", hidden: true });
  /** The form element (placed by the queue view). */
  readonly element: HTMLFormElement;

  /** @param onQueued told about the launch the gateway queued (or the one its dedup key named). */
  constructor(
    private readonly fleet: FleetState,
    private readonly viewer: Viewer,
    private readonly onQueued: (launch: Launch) => void,
  ) {
    this.element = h(
      "form",
      { class: "launch enqueue", "aria-labelledby": "queue-enqueue-heading" },
      field("enqueue-workspace", "Workspace", this.workspace),
      field("enqueue-prompt", "Prompt", this.prompt),
      h(
        "div",
        { class: "field-row" },
        field("enqueue-priority", "Priority", this.priority, "0 (lowest) – 100 (highest); default 50."),
        field("enqueue-timeout", "Timeout, seconds", this.timeout, "Empty: the workspace's launch timeout."),
        field(
          "enqueue-retries",
          "Retries",
          this.retries,
          "Extra attempts after a transient provider failure.",
        ),
      ),
      field(
        "enqueue-dedup",
        "Dedup key",
        this.dedup,
        "Optional: enqueueing the same key again while its launch is not final returns that launch.",
      ),
      this.error,
      h("div", { class: "button-row" }, this.submit),
    );
    this.element.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.enqueue();
    });
    this.syncWorkspaces();
  }

  /** Offer the workspaces the token may enqueue in, keeping the current choice. */
  syncWorkspaces(): void {
    const names = [...this.fleet.workspaces.keys()].filter((n) => mayOperate(this.viewer, n)).sort();
    const current = this.workspace.value;
    const shown = Array.from(this.workspace.options, (o) => o.value);
    if (shown.join("\n") !== names.join("\n")) {
      replaceChildren(
        this.workspace,
        names.map((n) => h("option", { value: n }, n)),
      );
      this.workspace.value = names.includes(current) ? current : (names[0] ?? "");
    }
    this.submit.disabled = names.length === 0;
  }

  private showError(lines: string[] | null, fields: string[] = []): void {
    for (const id of Object.values(CONTROL_OF_PATH))
      document.getElementById(id)?.removeAttribute("aria-invalid");
    for (const f of fields) {
      const id = CONTROL_OF_PATH[f];
      if (id) document.getElementById(id)?.setAttribute("aria-invalid", "true");
    }
    showFormError(this.error, "Enqueue failed", lines);
  }

  private async enqueue(): Promise<void> {
    if (!this.element.reportValidity()) return;
    const input = enqueueInput({
      workspace: this.workspace.value,
      prompt: this.prompt.value,
      priority: Number(this.priority.value),
      timeoutSeconds: this.timeout.value,
      retries: Number(this.retries.value),
      dedupKey: this.dedup.value,
    });
    this.submit.disabled = true;
    this.element.setAttribute("aria-busy", "true");
    this.showError(null);
    try {
      const outcome = await mutate<{ created: boolean; launch: Launch }>(ENQUEUE_LAUNCH, { input });
      if (!outcome.ok) {
        const { message, fieldErrors: fe } = outcome.failure;
        // The gateway's message may name the fields already; list only those it does not.
        const extra = fe.map((f) => `${f.path.join(".")}: ${f.message}`).filter((l) => !message.includes(l));
        this.showError(
          [message, ...extra],
          fe.map((f) => (f.path[0] === "input" ? (f.path[1] ?? "") : (f.path[0] ?? ""))),
        );
        return;
      }
      const { launch, created } = outcome.payload;
      this.prompt.value = "";
      this.dedup.value = "";
      this.onQueued(launch);
      const where =
        launch.queuePosition === null ? launch.state.toLowerCase() : `position ${launch.queuePosition}`;
      announce(
        created
          ? `Queued ${launchName(launch)} (${where}).`
          : `Already queued as ${launchName(launch)} (${where}): same dedup key.`,
      );
    } finally {
      this.syncWorkspaces();
      this.element.removeAttribute("aria-busy");
    }
  }
}
