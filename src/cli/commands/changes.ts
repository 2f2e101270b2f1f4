/**
 * What a run changed (issue 16 item 2): `prospero diff <agent> [--stat]` prints the run's captured
 * changes — the whole patch, every page of `Agent.changes.patch`, or a `git diff --stat` style
 * summary from `files` — and `prospero apply <agent> --branch <name>` turns them into a branch of
 * the run's repository (never checked out). A run whose changes are not captured is
 * `not captured: <why>` on stderr and exit 1.
 *
 * On a terminal the patch is colored and made terminal-safe (sanitize.ts: an agent's file could
 * hold escape sequences); written to a pipe or a file it is git's text as is, so
 * `prospero diff <agent> > run.patch` applies with `git apply`. Notes (a cap that left files out,
 * a file too large to show, a snapshot that is not the final one) go to stderr.
 */
import type { Command } from "commander";
import {
  AgentChangedFilesDocument,
  AgentChangesDocument,
  AgentPatchDocument,
  ApplyChangesDocument,
  type AgentChangedFilesQuery,
  type AgentChangesQuery,
  type AgentPatchQuery,
  type ChangedFileFieldsFragment,
  type FilePatchFieldsFragment,
} from "../../sdk/index.js";
import { clientAction, clientOptions, type CliContext } from "../context.js";
import { CliError, EXIT, present, unwrapResult } from "../exit.js";
import type { Colors } from "../output.js";
import { safeData, safeText, singleLine } from "../sanitize.js";

/** Files per `files` request of `diff --stat` (the connection's largest page). */
export const STAT_PAGE = 500;
/** Files per `patch` request of `diff` (the connection's largest page; a page also ends at 1 MiB). */
export const PATCH_PAGE = 100;
/** Width of `--stat` output when stdout is not a terminal (git's default). */
export const STAT_WIDTH = 80;

type RunView = NonNullable<AgentChangesQuery["agent"]>;

/** Why a run's changes cannot be shown, in words (`not captured: <why>`), or null when they can. */
export function notCapturedReason(changes: RunView["changes"]): string | null {
  if (changes.state === "CAPTURED") return null;
  if (changes.reason) return changes.reason;
  switch (changes.state) {
    case "PENDING":
      return "no snapshot has been taken yet (the run is live; try again after its next turn)";
    case "OFF":
      return "change capture is off for the workspace";
    case "EXPIRED":
      return "the snapshot was removed by retention";
    default:
      return `the capture state is ${changes.state}`;
  }
}

/** The run's changes, or a CliError: not found (3) for an unknown run, failure (1) when not captured. */
async function capturedRun(ctx: CliContext, id: string): Promise<RunView> {
  const data = await ctx.client.request(AgentChangesDocument, { agentId: id });
  if (!data.agent) {
    if (ctx.json) ctx.out.json(data);
    throw new CliError(EXIT.notFound, `agent not found: ${id}`);
  }
  const why = notCapturedReason(data.agent.changes);
  if (why !== null) {
    if (ctx.json) ctx.out.json(data);
    throw new CliError(EXIT.failure, `not captured: ${why}`);
  }
  return data.agent;
}

/** Notes on a captured run's changes for stderr: not final, a note, what the caps left out. */
function notesOf(run: RunView): string[] {
  const c = run.changes;
  const notes: string[] = [];
  if (c.reason) notes.push(c.reason);
  else if (!c.final)
    notes.push(`changes so far: the run is ${run.status.toLowerCase()}, this is not its final snapshot`);
  if (c.capNote) notes.push(c.capNote);
  return notes;
}

/** Every file of the run's latest snapshot, page by page. */
async function allFiles(ctx: CliContext, id: string): Promise<ChangedFileFieldsFragment[]> {
  const files: ChangedFileFieldsFragment[] = [];
  let after: string | null = null;
  for (;;) {
    const data: AgentChangedFilesQuery = await ctx.client.request(AgentChangedFilesDocument, {
      agentId: id,
      first: STAT_PAGE,
      after,
    });
    const page = present(present(data.agent, "agent").changes.files, "files");
    files.push(...page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return files;
    after = page.pageInfo.endCursor;
  }
}

/**
 * Every file's patch, page by page through `patch` to its end, each page handed to `onPage` as it
 * arrives (so a large patch is written while the next page loads).
 */
async function eachPatchPage(
  ctx: CliContext,
  id: string,
  onPage: (patches: FilePatchFieldsFragment[]) => void,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const data: AgentPatchQuery = await ctx.client.request(AgentPatchDocument, {
      agentId: id,
      first: PATCH_PAGE,
      after,
    });
    const page = present(present(data.agent, "agent").changes.patch, "patch");
    onPage(page.edges.map((e) => e.node));
    if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return;
    after = page.pageInfo.endCursor;
  }
}

/**
 * The text `diff` writes for one file: git's text (with a final newline), or for a binary file
 * git's own `Binary files … differ` form; null for a file whose text is left out (too large).
 */
export function patchText(p: FilePatchFieldsFragment): string | null {
  if (p.text !== null) return p.text.endsWith("\n") ? p.text : `${p.text}\n`;
  if (!p.binary) return null;
  const a = p.status === "ADDED" ? "/dev/null" : `a/${p.path}`;
  const b = p.status === "DELETED" ? "/dev/null" : `b/${p.path}`;
  return `diff --git a/${p.path} b/${p.path}\nBinary files ${a} and ${b} differ\n`;
}

/** A patch colored line by line for a terminal (headers bold, hunks cyan, + green, - red). */
function colorPatch(c: Colors, text: string): string {
  return text
    .split("\n")
    .map((l) => {
      if (
        /^(diff --git|index |--- |\+\+\+ |new file|deleted file|old mode|new mode|similarity|Binary files)/.test(
          l,
        )
      )
        return c.bold(l);
      if (l.startsWith("@@")) return c.cyan(l);
      if (l.startsWith("+")) return c.green(l);
      if (l.startsWith("-")) return c.red(l);
      return l;
    })
    .join("\n");
}

/** One file of a `--stat` summary. */
interface StatFile {
  path: string;
  additions: number | null;
  deletions: number | null;
  binary: boolean;
}

/**
 * A `git diff --stat` summary of `files` for a line `width` columns wide, computed as git's
 * diff.c `show_stats` does: ` path | N +++--` per file, the name cut from the left (`.../rest`)
 * and the bars scaled when they do not fit (names get at least 5/8 of the width, the graph at
 * least 6 columns), `Bin` for a binary file (git adds the sizes, which a capture does not keep),
 * then ` N files changed, N insertions(+), N deletions(-)` with git's rules on which counts it
 * shows. `c` colors the bars. Paths must be terminal-safe already.
 */
export function statLines(files: readonly StatFile[], widthArg: number, c?: Colors): string[] {
  const plus = c?.green ?? ((s: string) => s);
  const minus = c?.red ?? ((s: string) => s);
  const changes = files.map((f) => (f.binary ? 0 : (f.additions ?? 0) + (f.deletions ?? 0)));
  const maxChange = Math.max(0, ...changes);
  const maxLen = Math.max(0, ...files.map((f) => f.path.length));
  const numberWidth = Math.max(files.some((f) => f.binary) ? 3 : 0, String(maxChange).length);
  // " " name " | " count " " graph, and one empty column at the end: 6 + the count.
  const width = Math.max(widthArg, 16 + 6 + numberWidth);
  let graphWidth = maxChange;
  let nameWidth = maxLen;
  if (nameWidth + numberWidth + 6 + graphWidth > width) {
    if (graphWidth > Math.floor((width * 3) / 8) - numberWidth - 6) {
      graphWidth = Math.max(6, Math.floor((width * 3) / 8) - numberWidth - 6);
    }
    if (nameWidth > width - numberWidth - 6 - graphWidth) nameWidth = width - numberWidth - 6 - graphWidth;
    else graphWidth = width - numberWidth - 6 - nameWidth;
  }
  const scale = (n: number) => (n === 0 ? 0 : 1 + Math.floor((n * (graphWidth - 1)) / maxChange));
  const lines = files.map((f, i) => {
    let name = f.path;
    let prefix = "";
    let len = nameWidth;
    if (nameWidth < name.length) {
      prefix = "...";
      len = Math.max(0, len - 3);
      name = name.slice(name.length - len);
      const slash = name.indexOf("/");
      if (slash >= 0) name = name.slice(slash);
    }
    const pad = " ".repeat(Math.max(0, len - name.length));
    if (f.binary) return ` ${prefix}${name}${pad} | ${"Bin".padStart(numberWidth)}`;
    let add = f.additions ?? 0;
    let del = f.deletions ?? 0;
    const total = changes[i]!;
    if (graphWidth <= maxChange) {
      let scaled = scale(total);
      if (scaled < 2 && add > 0 && del > 0) scaled = 2;
      if (add < del) {
        add = scale(add);
        del = scaled - add;
      } else {
        del = scale(del);
        add = scaled - del;
      }
    }
    const bars = plus("+".repeat(add)) + minus("-".repeat(del));
    return ` ${prefix}${name}${pad} | ${String(total).padStart(numberWidth)}${total > 0 ? ` ${bars}` : ""}`;
  });
  const ins = files.reduce((n, f) => n + (f.additions ?? 0), 0);
  const dels = files.reduce((n, f) => n + (f.deletions ?? 0), 0);
  let summary = ` ${files.length} file${files.length === 1 ? "" : "s"} changed`;
  if (ins > 0 || dels === 0) summary += `, ${ins} insertion${ins === 1 ? "" : "s"}(+)`;
  if (dels > 0 || ins === 0) summary += `, ${dels} deletion${dels === 1 ? "" : "s"}(-)`;
  return [...lines, summary];
}

/** Register `diff` and `apply` on `program`. */
export function registerChangesCommands(program: Command): void {
  clientOptions(
    program
      .command("diff")
      .description(
        "show what a run changed in its repository (its latest snapshot, also after its worktree is gone): the patch, or --stat",
      )
      .argument("<agent>", "agent id (12 hex)")
      .option("--stat", "a summary per file, like git diff --stat"),
    "print the changes (and every page of the patch, or the files with --stat) as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string, flags: { stat?: boolean }) => {
      const run = await capturedRun(ctx, id);
      const notes = notesOf(run);
      const tty = process.stdout.isTTY === true;
      if (flags.stat) {
        const files = await allFiles(ctx, id);
        if (ctx.json) {
          ctx.out.json({ agent: { ...run, changes: { ...run.changes, files } } });
          return;
        }
        const width = tty && process.stdout.columns > 0 ? process.stdout.columns : STAT_WIDTH;
        const safe = files.map((f) => ({ ...f, path: singleLine(safeText(f.path)) }));
        for (const l of statLines(safe, width, ctx.out.c)) ctx.out.line(l);
      } else {
        const patch: FilePatchFieldsFragment[] = [];
        // Files whose full patch is not printed (cut, too large, binary): piped or redirected, the
        // output must stay a patch git can apply, so they are left out of it and said so.
        const missing: string[] = [];
        await eachPatchPage(ctx, id, (page) => {
          if (ctx.json) {
            patch.push(...page);
            return;
          }
          for (const p of page) {
            const text = patchText(p);
            if (text === null) {
              notes.push(`${p.path}: not shown: ${p.omitted ?? "left out"}`);
              missing.push(p.path);
              continue;
            }
            if (!tty && (p.truncated || p.binary)) {
              notes.push(
                `${p.path}: left out of the patch: ${p.binary ? "a binary file" : "its patch is cut at 256 KiB"}`,
              );
              missing.push(p.path);
              continue;
            }
            ctx.out.out(tty ? `${colorPatch(ctx.out.c, safeText(text).replace(/\n$/, ""))}\n` : text);
            if (p.truncated) {
              notes.push(`${p.path}: the patch is cut at 256 KiB (apply it as a branch to see all)`);
              missing.push(p.path);
            }
          }
        });
        if (ctx.json) {
          ctx.out.json({ agent: { ...run, changes: { ...run.changes, patch } } });
          return;
        }
        if (run.changes.fileCount === 0)
          notes.push("no changes: the run's snapshot equals the commit it started from");
        for (const n of notes) ctx.out.note(`${ctx.out.ce.yellow("note:")} ${safeText(n)}`);
        if (missing.length > 0)
          throw new CliError(
            EXIT.failure,
            `the patch is incomplete: ${missing.length} of ${run.changes.fileCount} files are not in it in full; make a branch of the whole snapshot instead: prospero apply ${id} --branch <name>`,
          );
        return;
      }
      for (const n of notes) ctx.out.note(`${ctx.out.ce.yellow("note:")} ${safeText(n)}`);
    }),
  );

  clientOptions(
    program
      .command("apply")
      .description(
        "create a branch in the run's repository at its captured changes (never checked out: your checkout is not touched)",
      )
      .argument("<agent>", "agent id (12 hex)")
      .requiredOption("--branch <name>", "the new branch's name (must not exist)"),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(async (ctx, id: string, flags: { branch: string }) => {
      const data = await ctx.out.spin(`creating branch ${flags.branch} from ${id}…`, () =>
        ctx.client.request(ApplyChangesDocument, { agentId: id, branch: flags.branch }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`apply ${id}`, data.applyChanges));
      if (ctx.json) return;
      const { c } = ctx.out;
      ctx.out.line(
        `created branch ${c.bold(r.branch)} at ${r.commit.slice(0, 12)} from the changes of ${c.bold(r.agent.agentId)} (${singleLine(r.agent.name)})`,
      );
      ctx.out.line(c.dim(`not checked out; review it in the workspace's repository: git log -p ${r.branch}`));
    }),
  );
}
