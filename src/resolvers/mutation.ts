/**
 * Root mutation fields. Inputs are validated with zod (validation plugin); every domain failure is
 * a typed result (errors plugin): NotFoundError, InvalidStateError, ConflictError,
 * ProviderMisconfiguredError, UnreachableError, CalibandNotInstalledError (the daemon was needed
 * and the caliband binary cannot be run), DaemonStartFailedError (it was started and died or did
 * not answer), ValidationError, DaemonRefusedError, UnauthenticatedError, ForbiddenError. Each declares who may call it (`authScopes`: admin for
 * workspaces and their configuration, operator for agents, always within the token's workspace
 * scope), is audited (src/schema/audit-plugin.ts), delegates to the fleet's lifecycle service and
 * changes nothing when it fails.
 */
import { z } from "zod";
import { builder } from "../schema/builder.js";
import { ProviderEnum } from "../schema/enums.js";
import { domain, mutationErrors as errors } from "../schema/errors.js";
import { baseUrlSecretReason, type ProviderConfigChange } from "../fleet/provider.js";
import type { GraphQLContext } from "../schema/context.js";
import { Conflict } from "../errors.js";
import { allowsWorkspace } from "../auth/roles.js";
import type { Provider } from "../fleet/provider.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const AGENT_ID = z.string().regex(/^[0-9a-f]{12}$/, "a caliband agent id is 12 lowercase hex characters");
const WORKSPACE = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1–64 letters, digits, '.', '_' or '-'");

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
    model: t.string({ required: false, description: "Default model.", validate: z.string().min(1) }),
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

const WorkspaceField = (t: FieldsOf<WorkspacePayload>) =>
  t.prismaField({
    type: "Workspace",
    description: "The workspace.",
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
      description: "Live agents the change waits for (it needs a daemon restart); it applies when they end.",
      resolve: (p) => p.pendingOn ?? [],
    }),
    orphaned: t.stringList({
      description: "Agents a forced restart turned into crashed (their workers keep running unobserved).",
      resolve: (p) => p.orphaned ?? [],
    }),
  }),
});

const RestartPayload = builder.objectRef<WorkspacePayload>("RestartWorkspaceDaemonPayload").implement({
  description: "A restarted workspace daemon.",
  fields: (t) => ({
    workspace: WorkspaceField(t),
    orphaned: t.stringList({
      description: "Agents the restart orphaned (now crashed).",
      resolve: (p) => p.orphaned ?? [],
    }),
  }),
});

const RemoveWorkspacePayload = builder.objectRef<{ name: string }>("RemoveWorkspacePayload").implement({
  description: "An unregistered workspace (its caliband and agents keep running; its history stays).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The workspace's name." }),
  }),
});

interface AgentPayload {
  agentId: string;
  created?: boolean;
  killed?: boolean;
  status?: string;
}

const AgentField = (t: FieldsOf<AgentPayload>) =>
  t.prismaField({
    type: "Agent",
    description: "The agent run.",
    resolve: (query, p, _a, ctx) =>
      ctx.prisma.agent.findUniqueOrThrow({ ...query, where: { id: p.agentId } }),
  });

const SpawnAgentPayload = builder.objectRef<AgentPayload>("SpawnAgentPayload").implement({
  description: "A spawned agent.",
  fields: (t) => ({
    agent: AgentField(t),
    created: t.boolean({
      description: "False when clientRequestId matched an earlier spawn.",
      resolve: (p) => p.created ?? true,
    }),
  }),
});

const AgentPayloadRef = builder.objectRef<AgentPayload>("AgentPayload").implement({
  description: "The agent after the operation.",
  fields: (t) => ({ agent: AgentField(t) }),
});

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

const RemoveAgentPayload = builder.objectRef<AgentPayload>("RemoveAgentPayload").implement({
  description: "A removed agent (its history stays queryable).",
  fields: (t) => ({ agent: AgentField(t) }),
});

const SpawnAgentInput = builder.inputType("SpawnAgentInput", {
  description: "What to spawn (every SpawnSpec field, protocol §2.2).",
  fields: (t) => ({
    workspace: t.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
    prompt: t.string({
      required: true,
      description: "Initial prompt.",
      validate: z
        .string()
        .trim()
        .min(1, "must not be empty")
        .max(512 * 1024),
    }),
    label: t.string({
      required: false,
      description: "Label (becomes the agent's name).",
      validate: z.string().min(1).max(200),
    }),
    model: t.string({
      required: false,
      description: "Model; default the workspace's.",
      validate: z.string().min(1),
    }),
    provider: t.field({
      type: ProviderEnum,
      required: false,
      description: "Provider; default the workspace's.",
    }),
    source: t.string({
      required: false,
      description: "Source checkout name (see Workspace.sources); default the workspace root.",
      validate: z
        .string()
        .min(1)
        .refine((s) => !/[\\/]|\.\./.test(s), "must not contain '/', '\\\\' or '..'"),
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

builder.mutationType({ description: "Drive the fleet." });

builder.mutationFields((t) => ({
  addWorkspace: t.field({
    type: AddWorkspacePayload,
    description:
      "Register a workspace (root canonicalized once; a second name for one root is a Conflict, #47) and poll it. Admin role (within the token's workspaces).",
    errors: errors("AddWorkspace"),
    // Where API keys go (baseUrl, apiKeyFromEnv: the gateway's own keys) is fleet-wide business.
    authScopes: (_p, args) => ({
      role: "admin",
      workspace: args.name,
      ...(args.config?.baseUrl || args.config?.apiKeyFromEnv ? { allWorkspaces: true } : {}),
    }),
    args: {
      name: t.arg.string({ required: true, description: "Unique name.", validate: WORKSPACE }),
      root: t.arg.string({
        required: true,
        description: "Absolute path of the workspace root directory (must exist on the gateway's machine).",
        validate: z
          .string()
          .min(1)
          .refine((r) => r.startsWith("/"), "must be an absolute path"),
      }),
      config: t.arg({
        type: ProviderConfigInputRef,
        required: false,
        description: "Provider configuration.",
      }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => {
        try {
          const res = await ctx.fleet.addWorkspace({
            name: args.name,
            root: args.root,
            config: toConfig(args.config),
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
    errors: errors("UpdateWorkspaceConfig"),
    // Redirecting where API keys go (baseUrl, apiKeyFromEnv) needs an admin not limited to workspaces.
    authScopes: (_p, args, ctx) => ({
      role: "admin",
      workspace: args.name,
      ...(redirectsKeys(ctx, args.name, args.config) ? { allWorkspaces: true } : {}),
    }),
    args: {
      name: t.arg.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
      config: t.arg({
        type: ProviderConfigInputRef,
        required: true,
        description: "The whole new configuration.",
      }),
      force: t.arg.boolean({ required: false, description: "Restart the daemon now even with live agents." }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => {
        const res = await ctx.fleet.updateWorkspaceConfig(
          args.name,
          toConfig(args.config),
          args.force ?? false,
        );
        return { name: args.name, applied: res.applied, pendingOn: res.pendingOn, orphaned: res.orphaned };
      }),
  }),
  removeWorkspace: t.field({
    type: RemoveWorkspacePayload,
    description:
      "Unregister a workspace. Its caliband and agents keep running; its history stays. Admin role (within the token's workspaces).",
    errors: errors("RemoveWorkspace"),
    authScopes: (_p, args) => ({ role: "admin", workspace: args.name }),
    args: { name: t.arg.string({ required: true, description: "Workspace name.", validate: WORKSPACE }) },
    resolve: (_r, args, ctx) =>
      domain(async () => ({ name: (await ctx.fleet.removeWorkspace(args.name)).name })),
  }),
  restartWorkspaceDaemon: t.field({
    type: RestartPayload,
    description:
      "Restart a workspace's caliband. Refused while agents are live unless force. Admin role (within the token's workspaces).",
    errors: errors("RestartWorkspaceDaemon"),
    authScopes: (_p, args) => ({ role: "admin", workspace: args.name }),
    args: {
      name: t.arg.string({ required: true, description: "Workspace name.", validate: WORKSPACE }),
      force: t.arg.boolean({
        required: false,
        description: "Restart even with live agents (they become crashed).",
      }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => ({
        name: args.name,
        ...(await ctx.fleet.restartWorkspaceDaemon(args.name, args.force ?? false)),
      })),
  }),
  spawnAgent: t.field({
    type: SpawnAgentPayload,
    description: "Spawn an agent in a workspace. Operator role (within the token's workspaces).",
    errors: errors("SpawnAgent"),
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
    type: AgentPayloadRef,
    description:
      "Kill a live agent. Refused (InvalidStateError with the real status, which is recorded) when the agent's daemon, asked right before the kill, lists it as ended: caliband would overwrite its outcome. Operator role (within the token's workspaces).",
    errors: errors("KillAgent"),
    authScopes: (_p, args) => ({ role: "operator", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id.", validate: AGENT_ID }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => ({ agentId: (await ctx.fleet.lifecycle.kill(args.agentId)).id })),
  }),
  respawnAgent: t.field({
    type: AgentPayloadRef,
    description:
      "Run the agent's spec again as a new run (new id, linked). A live agent needs force, which kills it first. Operator role (within the token's workspaces).",
    errors: errors("RespawnAgent"),
    authScopes: (_p, args) => ({ role: "operator", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id.", validate: AGENT_ID }),
      force: t.arg.boolean({ required: false, description: "Kill a live agent first." }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => ({
        agentId: (await ctx.fleet.lifecycle.respawn(args.agentId, args.force ?? false)).id,
      })),
  }),
  removeAgent: t.field({
    type: RemoveAgentPayload,
    description:
      "Remove an agent from caliband after ingesting all its output (history stays). A live agent needs force: caliband stops it and the run is recorded KILLED (with finishedAt) before it is gone. Operator role (within the token's workspaces).",
    errors: errors("RemoveAgent"),
    authScopes: (_p, args) => ({ role: "operator", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id.", validate: AGENT_ID }),
      force: t.arg.boolean({ required: false, description: "Remove even a live agent (it is stopped)." }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => {
        await ctx.fleet.lifecycle.rm(args.agentId, args.force ?? false);
        return { agentId: args.agentId };
      }),
  }),
  drainAgent: t.field({
    type: DrainAgentPayload,
    description:
      "Stop gracefully: EndInput if interactive, wait up to timeoutMs for the end, kill only if still running. Operator role (within the token's workspaces).",
    errors: errors("DrainAgent"),
    authScopes: (_p, args) => ({ role: "operator", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id.", validate: AGENT_ID }),
      timeoutMs: t.arg.int({
        required: false,
        description: "How long to wait for the agent to end, ms (default 30000, at most 600000).",
        validate: z.number().int().min(0).max(600_000),
      }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => {
        const res = await ctx.fleet.lifecycle.drain(args.agentId, args.timeoutMs ?? 30_000);
        return { agentId: args.agentId, killed: res.killed, status: res.status };
      }),
  }),
  sendAgentInput: t.field({
    type: AgentPayloadRef,
    description:
      "Send a message to an interactive, non-terminal agent (consumed at its next end of turn). Operator role (within the token's workspaces).",
    errors: errors("SendAgentInput"),
    authScopes: (_p, args) => ({ role: "operator", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id.", validate: AGENT_ID }),
      text: t.arg.string({
        required: true,
        description: "The message.",
        validate: z
          .string()
          .min(1)
          .max(512 * 1024),
      }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => {
        await ctx.fleet.lifecycle.sendInput(args.agentId, args.text);
        return { agentId: args.agentId };
      }),
  }),
  endAgentInput: t.field({
    type: AgentPayloadRef,
    description:
      "Tell an interactive agent no more input will come; it finishes its run. Operator role (within the token's workspaces).",
    errors: errors("EndAgentInput"),
    authScopes: (_p, args) => ({ role: "operator", agent: args.agentId }),
    args: {
      agentId: t.arg.string({ required: true, description: "caliband agent id.", validate: AGENT_ID }),
    },
    resolve: (_r, args, ctx) =>
      domain(async () => {
        await ctx.fleet.lifecycle.endInput(args.agentId);
        return { agentId: args.agentId };
      }),
  }),
}));
