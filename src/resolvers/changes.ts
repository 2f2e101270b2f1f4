/**
 * Mutations on what runs changed (issue 16 item 2): `applyChanges` (a branch in the run's
 * repository at its captured commit — never checked out, the user's checkout untouched) and
 * `setChangeCapture` (capture on or off for a workspace). Types are in src/schema/changes.ts;
 * both delegate to the capture service (`ctx.capture`, src/capture/service.ts).
 *
 * Who may do what: applyChanges needs the operator role within the run's workspace (a run outside
 * the token's scope is a NotFoundError, like an unknown one, audited as denied); setChangeCapture
 * the admin role within the workspace. Each takes one `input:`, returns a `<Name>Result` union,
 * is audited by the audit plugin (the payload names the workspace and agent for the row) and
 * changes nothing when it fails.
 */
import { z } from "zod";
import { AGENT_ID } from "../caliband/wire.js";
import { Conflict, InvalidState, NotFound } from "../errors.js";
import { WORKSPACE_NAME } from "../fleet/registry.js";
import { BRANCH_MAX_CHARS } from "../capture/service.js";
import { builder } from "../schema/builder.js";
import { domain, mutationErrors as errors } from "../schema/errors.js";

const ApplyChangesInput = builder.inputType("ApplyChangesInput", {
  description: "The run whose captured changes become a branch, and the branch's name.",
  fields: (t) => ({
    agentId: t.string({
      required: true,
      description: "caliband's 12-hex agent id (Agent.agentId).",
      validate: z.string().regex(AGENT_ID, "a caliband agent id is 12 lowercase hex characters"),
    }),
    branch: t.string({
      required: true,
      description: `The new branch's name, without refs/heads/ (1–${BRANCH_MAX_CHARS} characters, a name \`git check-ref-format --branch\` accepts, not starting with '-', not \`@\`, its first part not HEAD, refs, heads, tags or remotes). It must not exist yet.`,
      validate: z
        .string()
        .min(1, "must not be empty")
        .max(BRANCH_MAX_CHARS, `must be at most ${BRANCH_MAX_CHARS} characters`),
    }),
  }),
});

const SetChangeCaptureInput = builder.inputType("SetChangeCaptureInput", {
  description: "A workspace and whether its runs' changes are captured.",
  fields: (t) => ({
    workspace: t.string({
      required: true,
      description: "Workspace name.",
      validate: z.string().regex(WORKSPACE_NAME, "1–64 letters, digits, '.', '_' or '-'"),
    }),
    enabled: t.boolean({
      required: true,
      description:
        "On (the default) or off. Applies from the next snapshot of each run; snapshots already taken are kept.",
    }),
  }),
});

/** What applyChanges' payload resolves from (workspace and agentId also name the audit row). */
interface ApplyPayload {
  agentId: string;
  workspace: string;
  branch: string;
  commit: string;
}

const ApplyChangesPayload = builder.objectRef<ApplyPayload>("ApplyChangesPayload").implement({
  description: "A branch created from a run's captured changes.",
  fields: (t) => ({
    agent: t.prismaField({
      type: "Agent",
      description: "The run (its changes.applied now names the branch).",
      resolve: (query, p, _a, ctx) =>
        ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: p.agentId } }),
    }),
    branch: t.exposeString("branch", { description: "The branch name (without refs/heads/)." }),
    commit: t.exposeString("commit", {
      description: "The commit it points at: the run's head commit (40 hex).",
    }),
  }),
});

const SetChangeCapturePayload = builder
  .objectRef<{ workspace: string }>("SetChangeCapturePayload")
  .implement({
    description: "A workspace's change capture setting, changed.",
    fields: (t) => ({
      workspace: t.prismaField({
        type: "Workspace",
        description: "The workspace (see changeCapture).",
        resolve: (query, p, _a, ctx) =>
          ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: p.workspace } }),
      }),
    }),
  });

builder.mutationFields((t) => ({
  applyChanges: t.field({
    type: ApplyChangesPayload,
    description:
      "Create a branch in the run's repository at its captured head commit (the run's changes on top of the commit it started from, its own commits as history), so a person can review, rebase or merge it like any branch. Never checks anything out and never moves a branch: the user's checkout, index and HEAD are untouched. ValidationError for a name git refuses; ConflictError when the branch exists; InvalidStateError when the run's changes are not captured (the message says why); NotFoundError for an unknown run. Operator role within the run's workspace.",
    errors: errors("ApplyChanges", [NotFound, InvalidState, Conflict]),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: {
      input: t.arg({ type: ApplyChangesInput, required: true, description: "The run and the branch." }),
    },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const agent = await ctx.prisma.agent.findUnique({
          where: { id: input.agentId },
          select: { workspace: true },
        });
        if (!agent) throw new NotFound("agent", input.agentId);
        const res = await ctx.capture.apply(input.agentId, input.branch, ctx.auth.name);
        return { agentId: res.agentId, workspace: agent.workspace, branch: res.branch, commit: res.commit };
      }),
  }),
  setChangeCapture: t.field({
    type: SetChangeCapturePayload,
    description:
      "Turn change capture on or off for a workspace. Off: no new snapshots are taken of its runs (their changes read OFF with the reason); the snapshots already taken stay. Admin role within the workspace.",
    errors: errors("SetChangeCapture", [NotFound]),
    authScopes: (_p, { input }) => ({ role: "admin", workspace: input.workspace }),
    args: {
      input: t.arg({
        type: SetChangeCaptureInput,
        required: true,
        description: "The workspace and setting.",
      }),
    },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const ws = await ctx.prisma.workspace.findUnique({ where: { name: input.workspace } });
        if (!ws) throw new NotFound("workspace", input.workspace);
        await ctx.capture.setEnabled(input.workspace, input.enabled);
        return { workspace: input.workspace };
      }),
  }),
}));
