/**
 * Root mutation fields, one shape (issue 13): each takes one `input:` object (validated with zod,
 * validation plugin) and returns a `<Name>Result` union of its own `<Name>Payload` and exactly the
 * typed errors it can produce (errors plugin; see src/schema/errors.ts `mutationErrors`): per
 * mutation below, plus UnauthenticatedError, ForbiddenError and ValidationError on every one.
 * Each declares who may call it (`authScopes`: admin for
 * workspaces and their configuration, operator for agents, always within the token's workspace
 * scope), is audited (src/schema/audit-plugin.ts), delegates to the fleet's lifecycle service and
 * changes nothing when it fails.
 */
import { z } from "zod";
import { builder } from "../schema/builder.js";
import { ProviderEnum } from "../schema/enums.js";
import { DAEMON_ERRORS, domain, mutationErrors as errors } from "../schema/errors.js";
import { baseUrlSecretReason, type ProviderConfigChange } from "../fleet/provider.js";
import type { GraphQLContext } from "../schema/context.js";
import { Conflict, InvalidState, NotFound, ProviderMisconfigured } from "../errors.js";
import { AGENT_ID as AGENT_ID_PATTERN } from "../caliband/wire.js";
import { WORKSPACE_NAME } from "../fleet/registry.js";
import { allowsWorkspace } from "../auth/roles.js";
import type { Provider } from "../fleet/provider.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const AGENT_ID = z.string().regex(AGENT_ID_PATTERN, "a caliband agent id is 12 lowercase hex characters");
const WORKSPACE = z.string().regex(WORKSPACE_NAME, "1–64 letters, digits, '.', '_' or '-'");

/**
 * The validators of SpawnAgentInput's fields, shared with the launch queue's inputs
 * (src/resolvers/queue-mutations.ts: EnqueueLaunchInput, LaunchTemplateInput) so a launch accepts
 * exactly what a spawn does.
 */
export const SPAWN_VALIDATORS = {
  workspace: WORKSPACE,
  prompt: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(512 * 1024),
  label: z.string().min(1).max(200),
  model: z.string().min(1).max(200),
  source: z
    .string()
    .min(1)
    .max(200)
    .refine((s) => !/[\\/]|\.\./.test(s), "must not contain '/', '\\\\' or '..'"),
} as const;

const EnvVarInput = builder.inputType("EnvVarInput", {
  description: "One environment variable.",
  fields: (t) => ({
    name: t.string({
      required: true,
      description: "Variable name.",
      validate: z.string().regex(ENV_NAME, "must be an environment variable name"),
    }),
    value: t.string({
      required: false,
      description:
        "Value. Write-only: queries never return it. Omit it to keep the value currently stored for this name (updateWorkspaceConfig).",
      extensions: { sensitive: true },
    }),
  }),
});

const ProviderConfigInputRef = builder.inputType("ProviderConfigInput", {
  description: "A workspace's provider configuration (replaces the whole configuration).",
  fields: (t) => ({
    provider: t.field({
      type: ProviderEnum,
      required: false,
      description: "Provider for every spawn; omit for caliban's default.",
    }),
    baseUrl: t.string({
      required: false,
      description: "Provider API base URL (http/https).",
      validate: z.url().superRefine((u, ctx) => {
        const reason = baseUrlSecretReason(u);
        if (reason !== null) ctx.addIssue({ code: "custom", message: reason });
      }),
    }),
    apiKeyFromEnv: t.string({
      required: false,
      description: "NAME of a gateway environment variable holding the API key (the value is never stored).",
      validate: z.string().regex(ENV_NAME, "must be an environment variable name"),
    }),
    env: t.field({ type: [EnvVarInput], required: false, description: "Extra environment for the daemon." }),
    model: t.string({
      required: false,
      description: "Default model (1–200 characters).",
      validate: z.string().min(1).max(200),
    }),
  }),
});

type ConfigArg = {
  provider?: Provider | null;
  baseUrl?: string | null;
  apiKeyFromEnv?: string | null;
  env?: readonly { name: string; value?: string | null }[] | null;
  model?: string | null;
};

/** The GraphQL config input as the fleet's change (an env entry without a value keeps the stored one). */
function toConfig(c: ConfigArg | null | undefined): ProviderConfigChange {
  if (!c) return {};
  return {
    provider: c.provider ?? null,
    baseUrl: c.baseUrl ?? null,
    apiKeyFromEnv: c.apiKeyFromEnv ?? null,
    env: (c.env ?? []).map((e) => ({ name: e.name, value: e.value ?? null })),
    model: c.model ?? null,
  };
}

/**
 * True when `config` would change where the workspace's API key is read from or sent to
 * (`apiKeyFromEnv`, `baseUrl`) compared with its stored configuration (pending one included).
 */
function redirectsKeys(ctx: GraphQLContext, name: string, config: ConfigArg): boolean {
  const ws = ctx.fleet.registry.find(name);
  const current = ws?.pendingConfig ?? ws?.config;
  return (
    (config.baseUrl ?? null) !== (current?.baseUrl ?? null) ||
    (config.apiKeyFromEnv ?? null) !== (current?.apiKeyFromEnv ?? null)
  );
}

// Payload types ------------------------------------------------------------------------------

interface WorkspacePayload {
  name: string;
  created?: boolean;
  applied?: boolean;
  pendingOn?: string[];
  orphaned?: string[];
}

/** The field builder `implement({ fields })` passes for payload objects of type T. */
type FieldsOf<T> = Parameters<
  NonNullable<Parameters<ReturnType<typeof builder.objectRef<T>>["implement"]>[0]["fields"]>
>[0];

const WorkspaceField = (t: FieldsOf<WorkspacePayload>, description = "The workspace.") =>
  t.prismaField({
    type: "Workspace",
    description,
    resolve: (query, p, _a, ctx) =>
      ctx.prisma.workspace.findUniqueOrThrow({ ...query, where: { name: p.name } }),
  });

const AddWorkspacePayload = builder.objectRef<WorkspacePayload>("AddWorkspacePayload").implement({
  description: "A registered workspace.",
  fields: (t) => ({
    workspace: WorkspaceField(t),
    created: t.boolean({
      description: "False when it was already registered with this root.",
      resolve: (p) => p.created ?? false,
    }),
  }),
});

const UpdateConfigPayload = builder.objectRef<WorkspacePayload>("UpdateWorkspaceConfigPayload").implement({
  description: "Outcome of a configuration change.",
  fields: (t) => ({
    workspace: WorkspaceField(t),
    applied: t.boolean({
      description: "The new configuration is in effect.",
      resolve: (p) => p.applied ?? false,
    }),
    pendingOn: t.stringList({
      description:
        "Live agents (caliband agent ids) the change waits for (it needs a daemon restart); it applies when they end.",
      resolve: (p) => p.pendingOn ?? [],
    }),
    orphaned: t.stringList({
      description:
        "Agents (caliband agent ids) a forced restart turned into crashed (their workers keep running unobserved).",
      resolve: (p) => p.orphaned ?? [],
    }),
  }),
});

const RestartPayload = builder.objectRef<WorkspacePayload>("RestartWorkspaceDaemonPayload").implement({
  description: "A restarted workspace daemon.",
  fields: (t) => ({
    workspace: WorkspaceField(t),
    orphaned: t.stringList({
      description: "Agents (caliband agent ids) the restart orphaned (now crashed).",
      resolve: (p) => p.orphaned ?? [],
    }),
  }),
});

const RemoveWorkspacePayload = builder.objectRef<WorkspacePayload>("RemoveWorkspacePayload").implement({
  description: "An unregistered workspace (its caliband and agents keep running; its history stays).",
  fields: (t) => ({
    workspace: WorkspaceField(
      t,
      "The workspace, now unregistered (`registered: false`); its history stays queryable.",
    ),
  }),
});

interface AgentPayload {
  agentId: string;
  created?: boolean;
  killed?: boolean;
  status?: string;
}

const AgentField = (t: FieldsOf<AgentPayload>, description = "The agent run after the operation.") =>
  t.prismaField({
    type: "Agent",
    description,
    resolve: (query, p, _a, ctx) =>
      ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: p.agentId } }),
  });

const SpawnAgentPayload = builder.objectRef<AgentPayload>("SpawnAgentPayload").implement({
  description: "A spawned agent.",
  fields: (t) => ({
    agent: AgentField(t, "The new run."),
    created: t.boolean({
      description: "False when clientRequestId matched an earlier spawn (that run is returned).",
      resolve: (p) => p.created ?? true,
    }),
  }),
});

/** A payload holding just the agent after the operation, one type per mutation. */
function agentPayload(name: string, description: string, agentDescription?: string) {
  return builder.objectRef<AgentPayload>(name).implement({
    description,
    fields: (t) => ({ agent: AgentField(t, agentDescription) }),
  });
}

const KillAgentPayload = agentPayload("KillAgentPayload", "A killed agent.");
const RespawnAgentPayload = agentPayload(
  "RespawnAgentPayload",
  "A respawned agent.",
  "The new run (its respawnedFrom is the old one).",
);
const SendAgentInputPayload = agentPayload(
  "SendAgentInputPayload",
  "A message recorded and sent to the agent.",
);
const EndAgentInputPayload = agentPayload("EndAgentInputPayload", "An agent told no more input will come.");
const RemoveAgentPayload = agentPayload(
  "RemoveAgentPayload",
  "A removed agent (its history stays queryable).",
);

const DrainAgentPayload = builder.objectRef<AgentPayload>("DrainAgentPayload").implement({
  description: "Outcome of a drain.",
  fields: (t) => ({
    agent: AgentField(t),
    killed: t.boolean({
      description: "The agent was still running at the deadline and was killed.",
      resolve: (p) => p.killed ?? false,
    }),
  }),
});

const SpawnAgentInput = builder.inputType("SpawnAgentInput", {
  description: "What to spawn (every field of caliband's spawn spec).",
  fields: (t) => ({
    workspace: t.string({
      required: true,
      description: "Workspace name.",
      validate: SPAWN_VALIDATORS.workspace,
    }),
    prompt: t.string({
      required: true,
      description: "Initial prompt.",
      validate: SPAWN_VALIDATORS.prompt,
    }),
    label: t.string({
      required: false,
      description: "Label (becomes the agent's name).",
      validate: SPAWN_VALIDATORS.label,
    }),
    model: t.string({
      required: false,
      description: "Model; default the workspace's.",
      validate: SPAWN_VALIDATORS.model,
    }),
    provider: t.field({
      type: ProviderEnum,
      required: false,
      description: "Provider; default the workspace's.",
    }),
    source: t.string({
      required: false,
      description: "Source checkout name (see Workspace.sources); default the workspace root.",
      validate: SPAWN_VALIDATORS.source,
    }),
    isolated: t.boolean({ required: false, description: "Run in its own git worktree. Default true." }),
    interactive: t.boolean({
      required: false,
      description: "Wait for operator input at each end of turn. Default false.",
    }),
    toolAllowlist: t.stringList({
      required: false,
      description: "Tools the agent may use; default caliban's set.",
    }),
    frontmatterPath: t.string({
      required: false,
      description: "Agent template path (stored only by caliband today).",
    }),
    clientRequestId: t.string({
      required: false,
      description:
        "Idempotency key: repeating a spawn with the same key returns the first agent with created: false.",
      validate: z.string().min(1).max(200),
    }),
  }),
});

const AGENT_ID_FIELD = "caliband's 12-hex agent id (Agent.agentId).";

const ABSOLUTE_PATH = z
  .string()
  .min(1, "must be an absolute path")
  .max(1024, "must be an absolute path of at most 1024 characters")
  .refine((r) => r.startsWith("/") && !r.includes("\0"), "must be an absolute path");

const RemoteCalibandInputRef = builder.inputType("RemoteCalibandInput", {
  description:
    "A caliband on another host, started with `--listen` (TCP + TLS + bearer token; caliban ADR 0051). Only the endpoint is named here: its CA and token are the operator's, read by the gateway from the endpoint's own directory in a credentials directory (`--caliband-credentials-dir`, default `<data dir>/calibands`): `<host>_<port>/ca.pem` and `<host>_<port>/token`, or the token from the variable PROSPERO_CALIBAND_TOKEN_<HOST>_<PORT> (docs/deploy.md). An endpoint the operator has not provisioned is a ValidationError.",
  fields: (t) => ({
    endpoint: t.string({
      required: true,
      description:
        "The daemon's control listener: `tcp://host:port` (a DNS name, an IPv4 address or a bracketed IPv6 address).",
      validate: z.string().min(1).max(300).startsWith("tcp://", "must be tcp://host:port"),
    }),
    serverName: t.string({
      required: false,
      description:
        "Name the daemon's certificate must match (SNI and verification). The operator's: the endpoint's `server-name` credentials file, else its host; given here, it must be that name (the default).",
      validate: z.string().min(1).max(253),
    }),
  }),
});

const AddWorkspaceInput = builder.inputType("AddWorkspaceInput", {
  description: "A workspace to register.",
  fields: (t) => ({
    name: t.string({ required: true, description: "Unique name.", validate: WORKSPACE }),
    root: t.string({
      required: true,
      description:
        "Absolute path of the workspace root directory: on the gateway's machine (it must exist there), or with `remote` on the daemon's host (checked for form only).",
      validate: ABSOLUTE_PATH,
    }),
    config: t.field({
      type: ProviderConfigInputRef,
      required: false,
      description:
        "Provider configuration (for a remote workspace only provider and model: its environment is set on its host).",
    }),
    remote: t.field({
      type: RemoteCalibandInputRef,
      required: false,
      description:
        "Serve the workspace from a caliband on another host over TLS (issue 18); omit for the local daemon on the root's Unix socket. Needs an admin not limited to workspaces.",
    }),
  }),
});

const UpdateWorkspaceConfigInput = builder.inputType("UpdateWorkspaceConfigInput", {
  description: "A workspace's new provider configuration.",
  fields: (t) => ({
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
    config: t.field({
      type: ProviderConfigInputRef,
      required: true,
      description: "The whole new configuration.",
    }),
    force: t.boolean({ required: false, description: "Restart the daemon now even with live agents." }),
  }),
});

const RemoveWorkspaceInput = builder.inputType("RemoveWorkspaceInput", {
  description: "A workspace to unregister.",
  fields: (t) => ({
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
  }),
});

const RestartWorkspaceDaemonInput = builder.inputType("RestartWorkspaceDaemonInput", {
  description: "A workspace whose daemon to restart.",
  fields: (t) => ({
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
    force: t.boolean({
      required: false,
      description: "Restart even with live agents (they become crashed).",
    }),
  }),
});

/** An input naming just the agent, one type per mutation. */
const agentInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      agentId: t.string({ required: true, description: AGENT_ID_FIELD, validate: AGENT_ID }),
    }),
  });

const KillAgentInput = agentInput("KillAgentInput", "The agent to kill.");
const EndAgentInputInput = agentInput("EndAgentInputInput", "The interactive agent whose input ends.");

const RespawnAgentInput = builder.inputType("RespawnAgentInput", {
  description: "The run to spawn again.",
  fields: (t) => ({
    agentId: t.string({ required: true, description: AGENT_ID_FIELD, validate: AGENT_ID }),
    force: t.boolean({ required: false, description: "Kill a live agent first." }),
  }),
});

const RemoveAgentInput = builder.inputType("RemoveAgentInput", {
  description: "The agent to remove from its caliband.",
  fields: (t) => ({
    agentId: t.string({ required: true, description: AGENT_ID_FIELD, validate: AGENT_ID }),
    force: t.boolean({ required: false, description: "Remove even a live agent (it is stopped)." }),
  }),
});

const DrainAgentInput = builder.inputType("DrainAgentInput", {
  description: "The agent to stop gracefully.",
  fields: (t) => ({
    agentId: t.string({ required: true, description: AGENT_ID_FIELD, validate: AGENT_ID }),
    timeoutMs: t.int({
      required: false,
      description: "How long to wait for the agent to end, ms (default 30000, at most 600000).",
      validate: z.number().int().min(0).max(600_000),
    }),
  }),
});

const SendAgentInputInput = builder.inputType("SendAgentInputInput", {
  description: "A message for an interactive agent.",
  fields: (t) => ({
    agentId: t.string({ required: true, description: AGENT_ID_FIELD, validate: AGENT_ID }),
    text: t.string({
      required: true,
      description: "The message (at most 512 KiB).",
      validate: z
        .string()
        .min(1)
        .max(512 * 1024),
    }),
  }),
});

/** Errors of a call that acts on an agent through its workspace's caliband. */
const AGENT_CALL = [NotFound, InvalidState, ...DAEMON_ERRORS];

builder.mutationType({ description: "Drive the fleet." });

builder.mutationFields((t) => ({
  addWorkspace: t.field({
    type: AddWorkspacePayload,
    description:
      "Register a workspace (its root is canonicalized once; a second name for one root is a ConflictError: one caliband per root; with `remote`, one workspace per remote endpoint) and poll it. Admin role (within the token's workspaces; a remote workspace, a baseUrl or an apiKeyFromEnv needs one not limited to workspaces).",
    errors: errors("AddWorkspace", [Conflict, ProviderMisconfigured]),
    // Where API keys go (baseUrl, apiKeyFromEnv: the gateway's own keys) and where a caliband token
    // is sent (remote) are fleet-wide business.
    authScopes: (_p, { input }) => ({
      role: "admin",
      workspace: input.name,
      ...(input.config?.baseUrl || input.config?.apiKeyFromEnv || input.remote
        ? { allWorkspaces: true }
        : {}),
    }),
    args: { input: t.arg({ type: AddWorkspaceInput, required: true, description: "The workspace." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        try {
          const res = await ctx.fleet.addWorkspace({
            name: input.name,
            root: input.root,
            config: toConfig(input.config),
            remote: input.remote ?? null,
          });
          return { name: res.workspace.name, created: res.created };
        } catch (err) {
          // A token limited to workspaces must not learn the names of the others.
          if (
            err instanceof Conflict &&
            err.workspace !== null &&
            !allowsWorkspace(ctx.auth, err.workspace)
          ) {
            throw new Conflict(
              "this root is already registered as another workspace (one caliband per root)",
            );
          }
          throw err;
        }
      }),
  }),
  updateWorkspaceConfig: t.field({
    type: UpdateConfigPayload,
    description:
      "Replace a workspace's provider configuration. Changes to the daemon's environment wait for live agents to end unless force (which reports the agents it orphans). Admin role (within the token's workspaces).",
    errors: errors("UpdateWorkspaceConfig", [NotFound, ProviderMisconfigured, ...DAEMON_ERRORS]),
    // Redirecting where API keys go (baseUrl, apiKeyFromEnv) needs an admin not limited to workspaces.
    authScopes: (_p, { input }, ctx) => ({
      role: "admin",
      workspace: input.workspace,
      ...(redirectsKeys(ctx, input.workspace, input.config) ? { allWorkspaces: true } : {}),
    }),
    args: {
      input: t.arg({ type: UpdateWorkspaceConfigInput, required: true, description: "The change." }),
    },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const res = await ctx.fleet.updateWorkspaceConfig(
          input.workspace,
          toConfig(input.config),
          input.force ?? false,
        );
        return {
          name: input.workspace,
          applied: res.applied,
          pendingOn: res.pendingOn,
          orphaned: res.orphaned,
        };
      }),
  }),
  removeWorkspace: t.field({
    type: RemoveWorkspacePayload,
    description:
      "Unregister a workspace. Its caliband and agents keep running; its history stays. Its unfinished launches end CANCELLED, its schedules are paused and its workspace caps and budgets removed. Admin role (within the token's workspaces).",
    errors: errors("RemoveWorkspace", [NotFound]),
    authScopes: (_p, { input }) => ({ role: "admin", workspace: input.workspace }),
    args: { input: t.arg({ type: RemoveWorkspaceInput, required: true, description: "The workspace." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const ws = await ctx.fleet.removeWorkspace(input.workspace);
        // Its launches can never run now, and its schedules must not fire into nothing.
        await ctx.queue.workspaceRemoved(ws.name, ctx.auth.name);
        await ctx.schedules.workspaceRemoved(ws.name, ctx.auth.name);
        return { name: ws.name };
      }),
  }),
  restartWorkspaceDaemon: t.field({
    type: RestartPayload,
    description:
      "Restart a workspace's caliband. Refused (InvalidStateError) while agents are live unless force. Admin role (within the token's workspaces).",
    errors: errors("RestartWorkspaceDaemon", [NotFound, InvalidState, ...DAEMON_ERRORS]),
    authScopes: (_p, { input }) => ({ role: "admin", workspace: input.workspace }),
    args: {
      input: t.arg({ type: RestartWorkspaceDaemonInput, required: true, description: "The workspace." }),
    },
    resolve: (_r, { input }, ctx) =>
      domain(async () => ({
        name: input.workspace,
        ...(await ctx.fleet.restartWorkspaceDaemon(input.workspace, input.force ?? false)),
      })),
  }),
  spawnAgent: t.field({
    type: SpawnAgentPayload,
    description:
      "Spawn an agent in a workspace, now: the immediate path, which bypasses the launch queue (enqueueLaunch) — no dedup key, priority, caps or budgets are checked and it is never retried. Its run still counts against the caps (as every live run on a daemon does), so queued launches wait while it runs. Operator role (within the token's workspaces).",
    errors: errors("SpawnAgent", [NotFound, Conflict, InvalidState, ProviderMisconfigured, ...DAEMON_ERRORS]),
    authScopes: (_p, args) => ({ role: "operator", workspace: args.input.workspace }),
    args: { input: t.arg({ type: SpawnAgentInput, required: true, description: "What to spawn." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const res = await ctx.fleet.lifecycle.spawn({
          workspace: input.workspace,
          prompt: input.prompt,
          label: input.label ?? null,
          model: input.model ?? null,
          provider: input.provider ?? null,
          source: input.source ?? null,
          isolated: input.isolated ?? true,
          interactive: input.interactive ?? false,
          toolAllowlist: input.toolAllowlist ? [...input.toolAllowlist] : null,
          frontmatterPath: input.frontmatterPath ?? null,
          clientRequestId: input.clientRequestId ?? null,
        });
        return { agentId: res.agent.id, created: res.created };
      }),
  }),
  killAgent: t.field({
    type: KillAgentPayload,
    description:
      "Kill a live agent. Refused (InvalidStateError with the real status, which is recorded) when the agent's daemon, asked right before the kill, lists it as ended: caliband would overwrite its outcome. Operator role (within the token's workspaces).",
    errors: errors("KillAgent", AGENT_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: { input: t.arg({ type: KillAgentInput, required: true, description: "The agent." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => ({ agentId: (await ctx.fleet.lifecycle.kill(input.agentId)).id })),
  }),
  respawnAgent: t.field({
    type: RespawnAgentPayload,
    description:
      "Run the agent's spec again as a new run (new id, linked). A live agent needs force, which kills it first. Operator role (within the token's workspaces).",
    errors: errors("RespawnAgent", [...AGENT_CALL, ProviderMisconfigured]),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: { input: t.arg({ type: RespawnAgentInput, required: true, description: "The run." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => ({
        agentId: (await ctx.fleet.lifecycle.respawn(input.agentId, input.force ?? false)).id,
      })),
  }),
  removeAgent: t.field({
    type: RemoveAgentPayload,
    description:
      "Remove an agent from caliband after ingesting all its output (history stays). A live agent needs force: caliband stops it and the run is recorded KILLED (with finishedAt) before it is gone. Operator role (within the token's workspaces).",
    errors: errors("RemoveAgent", AGENT_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: { input: t.arg({ type: RemoveAgentInput, required: true, description: "The agent." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        await ctx.fleet.lifecycle.rm(input.agentId, input.force ?? false);
        return { agentId: input.agentId };
      }),
  }),
  drainAgent: t.field({
    type: DrainAgentPayload,
    description:
      "Stop gracefully: EndInput if interactive, wait up to timeoutMs for the end, kill only if still running. Operator role (within the token's workspaces).",
    errors: errors("DrainAgent", AGENT_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: { input: t.arg({ type: DrainAgentInput, required: true, description: "The agent." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        const res = await ctx.fleet.lifecycle.drain(input.agentId, input.timeoutMs ?? 30_000);
        return { agentId: input.agentId, killed: res.killed, status: res.status };
      }),
  }),
  sendAgentInput: t.field({
    type: SendAgentInputPayload,
    description:
      "Send a message to an interactive, non-terminal agent (consumed at its next end of turn). Operator role (within the token's workspaces).",
    errors: errors("SendAgentInput", AGENT_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: { input: t.arg({ type: SendAgentInputInput, required: true, description: "The message." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        await ctx.fleet.lifecycle.sendInput(input.agentId, input.text);
        return { agentId: input.agentId };
      }),
  }),
  endAgentInput: t.field({
    type: EndAgentInputPayload,
    description:
      "Tell an interactive agent no more input will come; it finishes its run. Operator role (within the token's workspaces).",
    errors: errors("EndAgentInput", AGENT_CALL),
    authScopes: (_p, { input }) => ({ role: "operator", agent: input.agentId }),
    args: { input: t.arg({ type: EndAgentInputInput, required: true, description: "The agent." }) },
    resolve: (_r, { input }, ctx) =>
      domain(async () => {
        await ctx.fleet.lifecycle.endInput(input.agentId);
        return { agentId: input.agentId };
      }),
  }),
}));
