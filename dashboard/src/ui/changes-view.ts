/**
 * The agent view's changes tab (issue 16 items 2–3): what the run changed in its repository, from
 * `Agent.changes` — the capture's state and why (not captured, capture off, expired, cap notes,
 * "not final" while the run goes on), the overlap warning (other runs of the workspace that
 * changed the same files), the file list with lines added and deleted, the diff rendered by
 * diff2html page by page ("Load more"), and for operators "Create branch" (`applyChanges`) with
 * its typed errors, then the branch made.
 *
 * diff2html escapes every file name and line of the diff it renders (checked in its templates),
 * so its HTML is parsed into the panel as is; everything else is built as text.
 */
import { html } from "diff2html";
import { ColorSchemeType } from "diff2html/lib-esm/types";
import "diff2html/bundles/css/diff2html.min.css";
import { formatBytes, formatInt, NONE } from "../../../src/format/index.js";
import {
  AGENT_CHANGED_FILES_QUERY,
  AGENT_CHANGES_PAGES_QUERY,
  AGENT_CHANGES_QUERY,
  AGENT_PATCH_QUERY,
  APPLY_CHANGES,
  type AgentChangedFilesResult,
  type AgentChangesPagesResult,
  type AgentChangesResult,
  type AgentPatchResult,
  type ApplyChangesPayload,
  type ChangedFile,
  type FilePatch,
  type PageInfo,
  type RunChanges,
} from "../api/agent-documents.js";
import { request } from "../api/http.js";
import { mutate } from "../api/mutations.js";
import { mayOperate } from "../api/session.js";
import { announce } from "./announce.js";
import { h, replaceChildren, type Child } from "./dom.js";
import { formatDateTime } from "./format.js";
import { agentTabHref, LivePanel } from "./tabs.js";

/** Below this width of the panel the diff is one column (line by line), px. */
export const SIDE_BY_SIDE_MIN_PX = 900;

/** Overlapping files named per other run before "and N more". */
const OVERLAP_NAMES = 5;

/** The file status in words (`ADDED` → "added"). */
export function fileStatusLabel(status: string): string {
  return status.toLowerCase().replace(/_/g, " ");
}

/** `+12` / `−3` (a real minus sign), or "binary" for a file without line counts. */
function lineCounts(f: ChangedFile): Child[] {
  if (f.binary || f.additions === null || f.deletions === null)
    return [h("td", { class: "num muted", colspan: 2 }, "binary")];
  return [
    h("td", { class: "num added" }, `+${formatInt(f.additions)}`),
    h("td", { class: "num deleted" }, `\u2212${formatInt(f.deletions)}`),
  ];
}

/** A commit id shortened for reading (the full id is in the title). */
function shortCommit(commit: string | null): Child {
  if (commit === null) return NONE;
  return h("code", { title: commit }, commit.slice(0, 10));
}

/** What took the snapshot, in words. */
function snapshotWhen(c: RunChanges): string {
  switch (c.trigger) {
    case "START":
      return "at the start of the run";
    case "TURN_END":
      return c.turnIndex === null ? "at the end of a turn" : `at the end of turn ${c.turnIndex}`;
    case "RUN_END":
      return "at the end of the run";
    case "KILL":
      return "when the run was killed";
    case "STOPPED":
      return "after the run stopped";
    default:
      return "";
  }
}

/** The line that says where the capture stands. */
export function changesHeadline(c: RunChanges, terminal: boolean): string {
  switch (c.state) {
    case "CAPTURED": {
      const files = c.fileCount === 1 ? "1 file changed" : `${formatInt(c.fileCount)} files changed`;
      if (c.fileCount === 0) return "No changes: the run's working tree matches the commit it started from.";
      return `${files}, +${formatInt(c.additions)} \u2212${formatInt(c.deletions)}`;
    }
    case "PENDING":
      return terminal
        ? "No snapshot yet: the run's changes are being captured."
        : "No snapshot yet: Prospero takes one at the end of each turn and when the run ends.";
    case "NOT_CAPTURED":
      return `Not captured: ${c.reason ?? "no reason recorded"}`;
    case "OFF":
      return `Change capture is off: ${c.reason ?? "no reason recorded"}`;
    case "EXPIRED":
      return `No longer kept: ${c.reason ?? "removed by retention"}`;
    default:
      return `Capture state unknown to this dashboard${c.reason ? `: ${c.reason}` : ""}`;
  }
}

/** The notes under the headline: not final, the capture's note, the cap note. */
function notes(c: RunChanges, terminal: boolean): Child[] {
  if (c.state !== "CAPTURED") return [];
  const out: Child[] = [];
  const when = snapshotWhen(c);
  if (!c.final) {
    out.push(
      h(
        "p",
        { class: "note not-final" },
        terminal
          ? `Not final: ${c.reason ?? `these are the changes ${when}.`}`
          : `Not final: the run is still going; these are its changes ${when || "so far"}.`,
      ),
    );
  } else if (c.reason) {
    out.push(h("p", { class: "note" }, c.reason));
  }
  if (c.capNote) {
    out.push(
      h(
        "p",
        { class: "note cap-note" },
        `${c.capNote}${c.skippedBytes > 0 ? ` (${formatBytes(c.skippedBytes)} left out)` : ""}`,
      ),
    );
  }
  return out;
}

/** The snapshot's facts: when, base and head commits, the ref. */
function snapshotFacts(c: RunChanges): Child {
  if (c.state !== "CAPTURED") return null;
  const row = (label: string, value: Child) => [h("dt", {}, label), h("dd", {}, value)];
  return h(
    "dl",
    { class: "facts compact snapshot-facts" },
    row("Snapshot", [
      snapshotWhen(c) || NONE,
      c.capturedAt ? ` · ${formatDateTime(c.capturedAt)}` : "",
      c.snapshots > 1 ? ` · ${formatInt(c.snapshots)} snapshots taken` : "",
    ]),
    row("Base", shortCommit(c.baseCommit)),
    row("Head", shortCommit(c.headCommit)),
    c.ref ? row("Ref", h("code", {}, c.ref)) : null,
  );
}

/** "also changed by <run>: a, b and 3 more" for each overlapping run. */
function overlapWarning(c: RunChanges): Child {
  if (c.overlaps.length === 0) return null;
  return h(
    "section",
    { class: "overlap-warning", "aria-labelledby": "overlap-heading" },
    h("h4", { id: "overlap-heading" }, "Other runs changed the same files"),
    h(
      "ul",
      {},
      c.overlaps.map((o) => {
        const shown = o.files.slice(0, OVERLAP_NAMES);
        const more = o.fileCount - shown.length;
        return h(
          "li",
          { "data-agent-id": o.agent.agentId },
          "also changed by ",
          h("a", { href: agentTabHref(o.agent.agentId, "changes") }, o.agent.spec.label ?? o.agent.name),
          ` (${o.agent.status.toLowerCase()}): `,
          shown.map((f, i) => [i > 0 ? ", " : "", h("code", {}, f)]),
          more > 0 ? ` and ${formatInt(more)} more` : "",
        );
      }),
    ),
  );
}

/** The file list: status, path, lines added and deleted. */
function fileTable(files: ChangedFile[]): HTMLTableElement {
  return h(
    "table",
    { class: "changed-files" },
    h("caption", { class: "visually-hidden" }, "Files changed"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Status"),
        h("th", { scope: "col" }, "File"),
        h("th", { scope: "col", class: "num" }, "Added"),
        h("th", { scope: "col", class: "num" }, "Deleted"),
      ),
    ),
    h(
      "tbody",
      {},
      files.map((f) =>
        h(
          "tr",
          { "data-path": f.path, "data-status": f.status },
          h(
            "td",
            {},
            h("span", { class: `file-status file-${f.status.toLowerCase()}` }, fileStatusLabel(f.status)),
          ),
          h("th", { scope: "row", class: "path" }, h("code", {}, f.path)),
          lineCounts(f),
        ),
      ),
    ),
  );
}

/** The end of a connection (no page, or the last one). */
const NO_MORE: PageInfo = { hasNextPage: false, endCursor: null };

/** What is loaded of one run's changes. */
interface Loaded {
  agentId: string;
  workspace: string;
  terminal: boolean;
  changes: RunChanges;
  mayApply: boolean;
  files: ChangedFile[];
  filesPage: PageInfo;
  patches: FilePatch[];
  patchPage: PageInfo;
}

/** The changes tab. */
export class ChangesView extends LivePanel {
  private loaded: Loaded | null = null;
  private readonly status = h("p", { class: "muted changes-loading" });
  private readonly error = h("p", { class: "error", role: "alert", hidden: true });
  private readonly body = h("div", { class: "changes-body" });
  private readonly diff = h("div", { class: "diff", "aria-label": "Diff" });
  private readonly more = h("button", { type: "button", class: "button load-more" }, "Load more");
  private readonly moreFiles = h(
    "button",
    { type: "button", class: "button load-more-files" },
    "Show more files",
  );
  private sideBySide = false;
  /** The Create-branch form of the run shown, kept across re-renders (see branchBlock). */
  private applyForm: { agentId: string; loaded: Loaded; form: HTMLFormElement } | null = null;

  constructor() {
    super("changes-view");
    this.element.append(this.status, this.error, this.body);
    this.more.addEventListener("click", () => void this.loadMorePatch());
    this.moreFiles.addEventListener("click", () => void this.loadMoreFiles());
    // Side by side when the panel is wide enough, line by line below (e.g. 420 px).
    new ResizeObserver(() => {
      const wide = this.element.clientWidth >= SIDE_BY_SIDE_MIN_PX;
      if (wide !== this.sideBySide && this.loaded) {
        this.sideBySide = wide;
        this.renderDiff(this.loaded);
      }
    }).observe(this.element);
  }

  protected clear(): void {
    this.loaded = null;
    replaceChildren(this.body);
    this.setError(null);
    this.status.textContent = "Loading the run's changes…";
    this.status.hidden = false;
  }

  protected async read(agentId: string, generation: number): Promise<void> {
    try {
      const data = await request<AgentChangesResult>(AGENT_CHANGES_QUERY, { agentId });
      if (!this.current(generation)) return;
      if (!data.agent) {
        this.status.hidden = true;
        this.setError(`No agent with id ${agentId}.`);
        return;
      }
      const c = data.agent.changes;
      const loaded: Loaded = {
        agentId,
        workspace: data.agent.workspace.name,
        terminal: data.agent.terminal,
        changes: c,
        mayApply: data.viewer !== null && mayOperate(data.viewer, data.agent.workspace.name),
        files: [],
        filesPage: NO_MORE,
        patches: [],
        patchPage: NO_MORE,
      };
      if (c.state === "CAPTURED") {
        // A newer snapshot between the two reads is followed by its own ChangesCaptured (read again).
        const pages = await request<AgentChangesPagesResult>(AGENT_CHANGES_PAGES_QUERY, { agentId });
        if (!this.current(generation)) return;
        const p = pages.agent?.changes;
        loaded.files = p?.files?.edges.map((e) => e.node) ?? [];
        loaded.filesPage = p?.files?.pageInfo ?? NO_MORE;
        loaded.patches = p?.patch?.edges.map((e) => e.node) ?? [];
        loaded.patchPage = p?.patch?.pageInfo ?? NO_MORE;
      }
      this.status.hidden = true;
      this.setError(null);
      this.loaded = loaded;
      this.render(loaded);
    } catch (err) {
      if (!this.current(generation)) return;
      this.status.hidden = true;
      this.setError(
        `The run's changes could not be read: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  private setError(message: string | null): void {
    this.error.textContent = message ?? "";
    this.error.hidden = message === null;
  }

  private render(l: Loaded): void {
    const c = l.changes;
    const captured = c.state === "CAPTURED";
    this.sideBySide = this.element.clientWidth >= SIDE_BY_SIDE_MIN_PX;
    // A branch name being typed survives a live re-read.
    const typed = this.body.querySelector<HTMLInputElement>("#apply-branch")?.value;
    replaceChildren(
      this.body,
      h("p", { class: "changes-headline", "data-state": c.state }, changesHeadline(c, l.terminal)),
      notes(c, l.terminal),
      snapshotFacts(c),
      overlapWarning(c),
      captured ? this.branchBlock(l) : null,
      captured && l.files.length > 0
        ? [
            h("h4", {}, "Files"),
            h("div", { class: "table-scroll" }, fileTable(l.files)),
            l.filesPage.hasNextPage ? this.moreFiles : null,
            h("h4", {}, "Diff"),
            this.diff,
            this.more,
          ]
        : null,
    );
    const input = this.body.querySelector<HTMLInputElement>("#apply-branch");
    if (input && typed !== undefined) input.value = typed;
    if (captured) this.renderDiff(l);
  }

  /** The diff of the loaded patch pages, file by file; a file without text says why. */
  private renderDiff(l: Loaded): void {
    const outputFormat = this.sideBySide ? "side-by-side" : "line-by-line";
    const parts: Child[] = l.patches.map((p) => {
      if (p.text === null) {
        return h(
          "div",
          { class: "diff-omitted", "data-path": p.path },
          h("code", {}, p.path),
          ` (${fileStatusLabel(p.status)}): ${p.omitted ?? (p.binary ? "binary file" : "not shown")}`,
        );
      }
      const template = document.createElement("template");
      // Escaped by diff2html (see the module comment).
      template.innerHTML = html(p.text, {
        drawFileList: false,
        outputFormat,
        colorScheme: ColorSchemeType.AUTO,
        matching: "lines",
      });
      return h(
        "div",
        { class: "diff-file", "data-path": p.path },
        template.content,
        p.truncated
          ? h(
              "p",
              { class: "note" },
              "This file's diff is cut here (too long to show whole); `prospero diff` prints the same.",
            )
          : null,
      );
    });
    replaceChildren(this.diff, parts);
    this.diff.dataset["format"] = outputFormat;
    const shown = l.patches.length;
    this.more.hidden = !l.patchPage.hasNextPage;
    this.more.textContent = `Load more (${formatInt(shown)} of ${formatInt(l.changes.fileCount)} files shown)`;
  }

  /** The applied branch, or the form that makes one (operators), or nothing (viewers). */
  private branchBlock(l: Loaded): Child {
    const applied = l.changes.applied;
    if (applied) {
      return h(
        "p",
        { class: "applied", role: "status" },
        "Branch ",
        h("code", { class: "applied-branch" }, applied.branch),
        " created at ",
        shortCommit(applied.commit),
        ` by ${applied.by}, ${formatDateTime(applied.at)}.`,
      );
    }
    if (!l.mayApply || l.changes.fileCount === 0) return null;
    // One form per run, kept across re-renders (a live snapshot of the same run re-reads the tab
    // while a person types or reads an error): the typed name and the error stay.
    if (this.applyForm?.agentId === l.agentId) {
      this.applyForm.loaded = l;
      return this.applyForm.form;
    }
    const input = h("input", {
      id: "apply-branch",
      name: "branch",
      type: "text",
      required: true,
      maxlength: 200,
      autocomplete: "off",
      spellcheck: "false",
      value: `prospero/${l.agentId}`,
      "aria-describedby": "apply-branch-hint",
    });
    const submit = h("button", { type: "submit", class: "button primary" }, "Create branch");
    const error = h("div", { class: "error", role: "alert", hidden: true });
    const form = h(
      "form",
      { class: "apply-form", "aria-label": "Create a branch from these changes" },
      h("label", { for: "apply-branch" }, "Branch name"),
      h(
        "p",
        { id: "apply-branch-hint", class: "muted small" },
        "A new branch in the workspace's repository at the captured commit; your checkout is not touched.",
      ),
      h("div", { class: "apply-row" }, input, submit),
      error,
    );
    const kept = { agentId: l.agentId, loaded: l, form };
    this.applyForm = kept;
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.apply(kept.loaded, input, submit, error);
    });
    return form;
  }

  private async apply(
    l: Loaded,
    input: HTMLInputElement,
    submit: HTMLButtonElement,
    error: HTMLElement,
  ): Promise<void> {
    const branch = input.value.trim();
    if (!branch) return;
    submit.disabled = true;
    error.hidden = true;
    try {
      const outcome = await mutate<ApplyChangesPayload>(APPLY_CHANGES, { agentId: l.agentId, branch });
      // Another run opened meanwhile: nothing of this one to show.
      if (this.loaded?.agentId !== l.agentId) return;
      if (!outcome.ok) {
        // "CODE: message"; a ValidationError's field messages say it best (its message repeats them).
        const { message, fieldErrors } = outcome.failure;
        const code = /^[A-Z_]+(?=: )/.exec(message)?.[0];
        const text =
          fieldErrors.length && code ? `${code}: ${fieldErrors.map((f) => f.message).join("; ")}` : message;
        replaceChildren(error, h("p", {}, `Create branch failed: ${text}`));
        error.hidden = false;
        input.focus();
        return;
      }
      const current = this.loaded;
      current.changes.applied = outcome.payload.agent.changes.applied;
      this.render(current);
      // Read again: the stored capture is what is shown (also when the payload lacks `applied`).
      this.invalidate();
      announce(`Branch ${outcome.payload.branch} created.`);
    } finally {
      submit.disabled = false;
    }
  }

  private async loadMorePatch(): Promise<void> {
    const l = this.loaded;
    if (!l?.patchPage.hasNextPage) return;
    this.more.disabled = true;
    try {
      const data = await request<AgentPatchResult>(AGENT_PATCH_QUERY, {
        agentId: l.agentId,
        after: l.patchPage.endCursor,
      });
      if (this.loaded !== l || !data.agent) return;
      const page = data.agent.changes.patch;
      if (!page) throw new Error("the gateway returned no page");
      l.patches.push(...page.edges.map((e) => e.node));
      l.patchPage = page.pageInfo;
      this.renderDiff(l);
      announce(`${formatInt(page.edges.length)} more files of the diff shown.`);
    } catch (err) {
      if (this.loaded === l)
        this.setError(
          `More of the diff could not be read: ${err instanceof Error ? err.message : String(err)}`,
        );
    } finally {
      this.more.disabled = false;
    }
  }

  private async loadMoreFiles(): Promise<void> {
    const l = this.loaded;
    if (!l?.filesPage.hasNextPage) return;
    this.moreFiles.disabled = true;
    try {
      const data = await request<AgentChangedFilesResult>(AGENT_CHANGED_FILES_QUERY, {
        agentId: l.agentId,
        after: l.filesPage.endCursor,
      });
      if (this.loaded !== l || !data.agent) return;
      const page = data.agent.changes.files;
      if (!page) throw new Error("the gateway returned no page");
      l.files.push(...page.edges.map((e) => e.node));
      l.filesPage = page.pageInfo;
      this.render(l);
    } catch (err) {
      if (this.loaded === l)
        this.setError(`More files could not be read: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.moreFiles.disabled = false;
    }
  }
}
