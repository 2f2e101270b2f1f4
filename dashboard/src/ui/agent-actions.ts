/**
 * The agent view's actions: kill, drain, respawn, remove, and input (send / end) for an interactive
 * agent waiting at idle. Each asks for confirmation where it changes the run, disables the buttons
 * while its mutation runs, and reports typed errors through the view's alert.
 */
import {
  DRAIN_AGENT,
  END_INPUT,
  KILL_AGENT,
  REMOVE_AGENT,
  RESPAWN_AGENT,
  SEND_INPUT,
} from "../api/documents.js";
import { mutate } from "../api/mutations.js";
import type { Agent } from "../api/types.js";
import { agentHref } from "./agents-table.js";
import { announce } from "./announce.js";
import { confirmAction } from "./confirm.js";
import { h } from "./dom.js";

/** What the actions need from their view. */
export interface ActionHost {
  /** The agent shown now. */
  agent(): Agent | null;
  /** A mutation returned the agent as it is now (or, for remove, as it was removed). */
  accepted(agent: Agent, removed: boolean): void;
  /** Show an error, or clear it with null. */
  report(message: string | null): void;
  /** Redraw (the view calls {@link AgentActions.update} with what applies now). */
  refresh(): void;
}

function button(label: string, kind: string, onClick: () => void): HTMLButtonElement {
  return h("button", { type: "button", class: `button ${kind}`.trim(), onclick: onClick }, label);
}

function forceOption(id: string, label: string): { el: HTMLElement; input: HTMLInputElement } {
  const input = h("input", { id, type: "checkbox" });
  return { el: h("p", { class: "check" }, input, h("label", { for: id }, label)), input };
}

/** The action buttons and the input form of the agent view. */
export class AgentActions {
  private busy = false;
  private readonly kill = button("Kill", "danger", () => void this.onKill());
  private readonly drain = button("Drain", "", () => void this.onDrain());
  private readonly respawn = button("Respawn", "", () => void this.onRespawn());
  private readonly remove = button("Remove", "danger", () => void this.onRemove());
  private readonly text = h("textarea", { id: "agent-input", rows: 2, required: true });
  private readonly send = h("button", { type: "submit", class: "button primary" }, "Send input");
  private readonly end = button("End input", "", () => void this.onEndInput());
  /** The buttons. */
  readonly bar = h(
    "div",
    { class: "button-row actions", role: "group", "aria-label": "Agent actions" },
    this.kill,
    this.drain,
    this.respawn,
    this.remove,
  );
  /** The input form (shown only while the agent waits for input). */
  readonly inputForm = h(
    "form",
    { class: "input-form", hidden: true, "aria-label": "Input to the agent" },
    h("label", { for: "agent-input" }, "Message to the agent (it is waiting for input)"),
    this.text,
    h("div", { class: "button-row" }, this.send, this.end),
  );

  constructor(private readonly host: ActionHost) {
    this.inputForm.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.onSend();
    });
  }

  /** Show what applies to `agent`; `listed` is false once caliband forgot it (no action left). */
  update(agent: Agent | null, listed: boolean): void {
    this.bar.hidden = !agent || !listed;
    this.inputForm.hidden = !agent || !listed || !agent.interactive || agent.status !== "IDLE";
    if (!agent) return;
    this.kill.hidden = agent.terminal;
    this.drain.hidden = agent.terminal;
    for (const b of [this.kill, this.drain, this.respawn, this.remove, this.send, this.end])
      b.disabled = this.busy;
  }

  /** Run one mutation with the buttons disabled; returns its payload, or null after reporting why not. */
  private async run<P>(action: string, query: string, variables: Record<string, unknown>): Promise<P | null> {
    this.busy = true;
    this.host.report(null);
    this.bar.setAttribute("aria-busy", "true");
    this.host.refresh();
    try {
      const outcome = await mutate<P>(query, variables);
      if (outcome.ok) return outcome.payload;
      const fields = outcome.failure.fieldErrors.map((f) => `${f.path.join(".")}: ${f.message}`);
      this.host.report(`${action} failed: ${[outcome.failure.message, ...fields].join("; ")}`);
      return null;
    } finally {
      this.busy = false;
      this.bar.removeAttribute("aria-busy");
      this.host.refresh();
    }
  }

  private async onKill(): Promise<void> {
    const agent = this.host.agent();
    if (!agent) return;
    const ok = await confirmAction({
      title: `Kill ${agent.name}?`,
      body: "Its worker is stopped now, mid-turn if need be. Its history stays.",
      confirmLabel: "Kill agent",
      danger: true,
    });
    if (!ok) return;
    const payload = await this.run<{ agent: Agent }>("Kill", KILL_AGENT, { agentId: agent.agentId });
    if (!payload) return;
    this.host.accepted(payload.agent, false);
    announce(`Kill sent to ${agent.name}.`);
  }

  private async onDrain(): Promise<void> {
    const agent = this.host.agent();
    if (!agent) return;
    const timeout = h("input", {
      id: "drain-timeout",
      type: "number",
      min: 1,
      max: 600,
      value: 30,
      required: true,
    });
    const ok = await confirmAction({
      title: `Drain ${agent.name}?`,
      body: "Its input is ended (if interactive) and it may finish its turn; it is killed only if still running at the deadline.",
      confirmLabel: "Drain agent",
      extra: h("p", {}, h("label", { for: "drain-timeout" }, "Deadline, seconds "), timeout),
    });
    if (!ok) return;
    const seconds = Math.min(600, Math.max(1, Math.round(Number(timeout.value) || 30)));
    announce(`Draining ${agent.name} (up to ${seconds} s)…`);
    const payload = await this.run<{ agent: Agent; killed: boolean }>("Drain", DRAIN_AGENT, {
      agentId: agent.agentId,
      timeoutMs: seconds * 1000,
    });
    if (!payload) return;
    this.host.accepted(payload.agent, false);
    announce(
      payload.killed
        ? `${agent.name} was still running at the deadline and was killed.`
        : `${agent.name} drained.`,
    );
  }

  private async onRespawn(): Promise<void> {
    const agent = this.host.agent();
    if (!agent) return;
    const force = agent.terminal ? null : forceOption("respawn-force", "Kill it first (it is still live)");
    const ok = await confirmAction({
      title: `Respawn ${agent.name}?`,
      body: "Its spec runs again as a new agent (new id); this run stays in history.",
      confirmLabel: "Respawn",
      extra: force?.el,
    });
    if (!ok) return;
    const payload = await this.run<{ agent: Agent }>("Respawn", RESPAWN_AGENT, {
      agentId: agent.agentId,
      force: force ? force.input.checked : null,
    });
    if (!payload) return;
    this.host.accepted(payload.agent, false);
    announce(`Respawned ${agent.name} as ${payload.agent.agentId}.`);
    location.hash = agentHref(payload.agent.agentId);
  }

  private async onRemove(): Promise<void> {
    const agent = this.host.agent();
    if (!agent) return;
    const force = agent.terminal ? null : forceOption("remove-force", "Stop it first (it is still live)");
    const ok = await confirmAction({
      title: `Remove ${agent.name}?`,
      body: "caliband forgets it after its output is ingested; its history stays queryable here.",
      confirmLabel: "Remove agent",
      danger: true,
      extra: force?.el,
    });
    if (!ok) return;
    const payload = await this.run<{ agent: Agent }>("Remove", REMOVE_AGENT, {
      agentId: agent.agentId,
      force: force ? force.input.checked : null,
    });
    if (!payload) return;
    this.host.accepted(payload.agent, true);
    announce(`Removed ${agent.name}; its history stays.`);
  }

  private async onSend(): Promise<void> {
    const agent = this.host.agent();
    const text = this.text.value.trim();
    if (!agent || !text) return;
    const payload = await this.run<{ agent: Agent }>("Send input", SEND_INPUT, {
      agentId: agent.agentId,
      text,
    });
    if (!payload) return;
    this.text.value = "";
    this.host.accepted(payload.agent, false);
    announce(`Input sent to ${agent.name}.`);
  }

  private async onEndInput(): Promise<void> {
    const agent = this.host.agent();
    if (!agent) return;
    const ok = await confirmAction({
      title: `End input of ${agent.name}?`,
      body: "No more input will come; the agent finishes its run.",
      confirmLabel: "End input",
    });
    if (!ok) return;
    const payload = await this.run<{ agent: Agent }>("End input", END_INPUT, { agentId: agent.agentId });
    if (!payload) return;
    this.host.accepted(payload.agent, false);
    announce(`Input of ${agent.name} ended.`);
  }
}
