/** The launch form: every spawn option of `SpawnAgentInput`, with typed errors shown inline. */
import { SPAWN_AGENT, WORKSPACE_QUERY } from "../api/documents.js";
import { request } from "../api/http.js";
import { mutate } from "../api/mutations.js";
import { PROVIDERS, type Agent, type Provider } from "../api/types.js";
import type { FleetState } from "../state/fleet.js";
import { agentHref } from "./agents-table.js";
import { announce } from "./announce.js";
import { h, replaceChildren, showFormError } from "./dom.js";

interface WorkspaceInfo {
  workspace: {
    name: string;
    sources: { name: string; path: string }[];
    config: { provider: Provider | null; model: string | null };
  } | null;
}

/** Split a tool list typed as "Read, Edit Bash" into names; empty means caliban's default set. */
export function parseTools(text: string): string[] | null {
  const tools = text
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  return tools.length ? tools : null;
}

/** A random idempotency key, so a double submit spawns once. */
function requestId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

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

/** The form, bound to the fleet's workspaces. */
export class LaunchForm {
  private readonly workspace = h("select", { id: "launch-workspace", name: "workspace", required: true });
  private readonly prompt = h("textarea", { id: "launch-prompt", name: "prompt", rows: 3, required: true });
  private readonly label = h("input", {
    id: "launch-label",
    name: "label",
    type: "text",
    autocomplete: "off",
  });
  private readonly model = h("input", {
    id: "launch-model",
    name: "model",
    type: "text",
    autocomplete: "off",
  });
  private readonly provider = h(
    "select",
    { id: "launch-provider", name: "provider" },
    h("option", { value: "" }, "Workspace default"),
    PROVIDERS.map((p) => h("option", { value: p }, p.toLowerCase())),
  );
  private readonly sources = h("datalist", { id: "launch-sources" });
  private readonly source = h("input", {
    id: "launch-source",
    name: "source",
    type: "text",
    list: "launch-sources",
    autocomplete: "off",
  });
  private readonly isolated = h("input", {
    id: "launch-isolated",
    name: "tree",
    type: "radio",
    value: "isolated",
    checked: true,
  });
  private readonly shared = h("input", { id: "launch-shared", name: "tree", type: "radio", value: "shared" });
  private readonly interactive = h("input", {
    id: "launch-interactive",
    name: "interactive",
    type: "checkbox",
  });
  private readonly tools = h("input", {
    id: "launch-tools",
    name: "tools",
    type: "text",
    autocomplete: "off",
  });
  private readonly submit = h("button", { type: "submit", class: "button primary" }, "Launch");
  private readonly error = h("div", { class: "error", role: "alert", hidden: true });
  private readonly form: HTMLFormElement;
  private pendingId: string | null = null;

  constructor(
    container: HTMLElement,
    private readonly fleet: FleetState,
  ) {
    this.form = h(
      "form",
      { class: "launch", "aria-labelledby": "launch-heading" },
      field("launch-workspace", "Workspace", this.workspace),
      field("launch-prompt", "Prompt", this.prompt),
      h(
        "div",
        { class: "field-row" },
        field("launch-label", "Label", this.label, "Becomes the agent's name; default agent-<id>."),
        field("launch-model", "Model", this.model, "Empty: the workspace's default."),
        field("launch-provider", "Provider", this.provider),
      ),
      field("launch-source", "Source checkout", this.source, "Empty: the workspace root."),
      this.sources,
      h(
        "fieldset",
        { class: "tree" },
        h("legend", {}, "Working tree"),
        h(
          "p",
          { class: "check" },
          this.isolated,
          h("label", { for: "launch-isolated" }, "Own git worktree (isolated)"),
        ),
        h("p", { class: "check" }, this.shared, h("label", { for: "launch-shared" }, "Shared working tree")),
      ),
      h(
        "p",
        { class: "check" },
        this.interactive,
        h("label", { for: "launch-interactive" }, "Interactive (waits for input at each end of turn)"),
      ),
      field(
        "launch-tools",
        "Tool allowlist",
        this.tools,
        "Names separated by commas or spaces; empty: caliban's default set.",
      ),
      this.error,
      h("div", { class: "button-row" }, this.submit),
    );
    replaceChildren(container, this.form);
    this.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.launch();
    });
    this.workspace.addEventListener("change", () => void this.loadWorkspace());
    this.form.addEventListener("input", () => {
      this.pendingId = null;
    });
  }

  /** Offer the fleet's workspaces, keeping the current choice. */
  syncWorkspaces(): void {
    const names = [...this.fleet.workspaces.keys()].sort();
    const current = this.workspace.value;
    const shown = Array.from(this.workspace.options, (o) => o.value);
    if (shown.join("\n") === names.join("\n")) return;
    replaceChildren(
      this.workspace,
      names.map((n) => h("option", { value: n }, n)),
    );
    this.workspace.value = names.includes(current) ? current : (names[0] ?? "");
    this.submit.disabled = names.length === 0;
    if (this.workspace.value !== current) void this.loadWorkspace();
  }

  /** Sources and defaults of the chosen workspace (a one-off query when the choice changes). */
  private async loadWorkspace(): Promise<void> {
    const name = this.workspace.value;
    if (!name) return;
    try {
      const data = await request<WorkspaceInfo>(WORKSPACE_QUERY, { name });
      if (this.workspace.value !== name || !data.workspace) return;
      replaceChildren(
        this.sources,
        data.workspace.sources.map((s) => h("option", { value: s.name }, s.path)),
      );
      const { provider, model } = data.workspace.config;
      this.model.placeholder = model ? `default: ${model}` : "provider default";
      const first = this.provider.options[0];
      if (first)
        first.textContent = provider ? `Workspace default (${provider.toLowerCase()})` : "Workspace default";
    } catch {
      // Only hints: the form works without them.
    }
  }

  private showError(lines: string[] | null): void {
    showFormError(this.error, "Launch failed", lines);
  }

  private async launch(): Promise<void> {
    if (!this.form.reportValidity()) return;
    this.pendingId ??= requestId();
    const optional = (v: string) => (v.trim() === "" ? null : v.trim());
    const input = {
      workspace: this.workspace.value,
      prompt: this.prompt.value,
      label: optional(this.label.value),
      model: optional(this.model.value),
      provider: optional(this.provider.value),
      source: optional(this.source.value),
      isolated: this.isolated.checked,
      interactive: this.interactive.checked,
      toolAllowlist: parseTools(this.tools.value),
      clientRequestId: this.pendingId,
    };
    this.submit.disabled = true;
    this.form.setAttribute("aria-busy", "true");
    this.showError(null);
    try {
      const outcome = await mutate<{ created: boolean; agent: Agent }>(SPAWN_AGENT, { input });
      if (!outcome.ok) {
        this.showError([
          outcome.failure.message,
          ...outcome.failure.fieldErrors.map((f) => `${f.path.join(".")}: ${f.message}`),
        ]);
        return;
      }
      const agent = outcome.payload.agent;
      this.pendingId = null;
      this.prompt.value = "";
      this.label.value = "";
      this.fleet.upsertAgent(agent);
      announce(`Launched ${agent.name}.`);
      location.hash = agentHref(agent.agentId);
    } finally {
      this.submit.disabled = this.fleet.workspaces.size === 0;
      this.form.removeAttribute("aria-busy");
    }
  }
}
