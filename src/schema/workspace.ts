/**
 * `Workspace` (a Node): a registered caliband workspace with its health (from the poll loop),
 * sources (discovered as caliband does), provider configuration (the API key only as the
 * NAME of a gateway env var) and its agents (a connection over the run table).
 */
import type { WorkspaceHealth } from "../fleet/state.js";
import type { ProviderConfig } from "../fleet/provider.js";
import { displayBaseUrl, parseStoredProviderConfig, type ProviderConfigInput } from "../fleet/provider.js";
import { discoverSources, type Source } from "../fleet/sources.js";
import { WORKSPACE_NAME, remoteOfRow } from "../fleet/registry.js";
import { findRemoteCredentials, type RemoteCaliband, type RemoteCredentials } from "../fleet/remote.js";
import { aggregateUsage, emptyUsageRow } from "../store/usage.js";
import { builder, registerNode } from "./builder.js";
import { AgentConnectionRef, AgentFilterRef, agentFilterWhere } from "./agent.js";
import { prismaCursorArgs } from "./connections.js";
import { memoize } from "./context.js";
import { HealthStateEnum, ProviderEnum } from "./enums.js";
import { UsageRowRef } from "./usage.js";

const SourceRef = builder.objectRef<Source>("Source").implement({
  description: "A git checkout an agent can be spawned in (SpawnAgentInput.source).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Name to pass as `source` when spawning." }),
    path: t.exposeString("path", { description: "Absolute path of the checkout." }),
  }),
});

/** GraphQL `WorkspaceHealth` (state, reason, since) from the poll loop. */
export const WorkspaceHealthRef = builder.objectRef<WorkspaceHealth>("WorkspaceHealth").implement({
  description: "Health of the workspace's caliband.",
  fields: (t) => ({
    state: t.field({ type: HealthStateEnum, description: "Current state.", resolve: (h) => h.state }),
    reason: t.exposeString("reason", {
      nullable: true,
      description: "Why it is unreachable (null when healthy).",
    }),
    since: t.field({ type: "DateTime", description: "When this state began.", resolve: (h) => h.since }),
  }),
});

const EnvVarRef = builder.objectRef<{ name: string; value: string }>("EnvVar").implement({
  description:
    "An environment variable given to the workspace's daemon and its agents. Values are write-only: only the name and whether a value is set are returned.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Variable name." }),
    valueSet: t.boolean({
      description: "True when the variable has a non-empty value (the value itself is never returned).",
      resolve: (v) => v.value !== "",
    }),
  }),
});

/** GraphQL `ProviderConfig`: a workspace's provider configuration, never a secret value. */
export const ProviderConfigRef = builder.objectRef<ProviderConfig>("ProviderConfig").implement({
  description: "How the workspace's agents reach their LLM. The API key itself is never stored or returned.",
  fields: (t) => ({
    provider: t.field({
      type: ProviderEnum,
      nullable: true,
      description:
        "Provider passed to every spawn (SpawnSpec.provider); null = caliban's default (anthropic).",
      resolve: (c) => c.provider,
    }),
    baseUrl: t.string({
      nullable: true,
      description:
        "Provider API base URL given to the daemon (never with user info, query or fragment: those are refused on input and hidden for older stored configs).",
      resolve: (c) => displayBaseUrl(c.baseUrl),
    }),
    apiKeyFromEnv: t.exposeString("apiKeyFromEnv", {
      nullable: true,
      description: "NAME of the gateway environment variable that holds the API key.",
    }),
    apiKeySet: t.boolean({
      description:
        "True when apiKeyFromEnv names a variable that is set (non-empty) in the gateway's environment (its value is never returned).",
      resolve: (c, _a, ctx) => c.apiKeyFromEnv !== null && (ctx.fleet.env[c.apiKeyFromEnv] ?? "") !== "",
    }),
    env: t.field({
      type: [EnvVarRef],
      description: "Extra environment for the daemon, sorted by name.",
      resolve: (c) =>
        Object.entries(c.env)
          .sort()
          .map(([name, value]) => ({ name, value })),
    }),
    model: t.exposeString("model", {
      nullable: true,
      description: "Default model for spawns that name none.",
    }),
  }),
});

const RemoteCredentialsRef = builder.objectRef<RemoteCredentials>("RemoteCredentials").implement({
  description:
    "Where a remote daemon's credentials are on the gateway's machine (paths and a variable's name, never a value).",
  fields: (t) => ({
    directory: t.exposeString("dir", {
      description: "The endpoint's credentials directory, `<credentials dir>/<host>_<port>`.",
    }),
    caFile: t.exposeString("caFile", {
      description: "The CA certificate(s) the daemon's certificate must chain to.",
    }),
    tokenFile: t.exposeString("tokenFile", {
      nullable: true,
      description: "The file holding the bearer token, or null when it comes from tokenFromEnv.",
    }),
    tokenFromEnv: t.exposeString("tokenFromEnv", {
      nullable: true,
      description:
        "NAME of the gateway environment variable holding the token (when there is no token file), or null.",
    }),
  }),
});

/** GraphQL `RemoteCaliband`: where a remote workspace's daemon is and where its credentials are. */
export const RemoteCalibandRef = builder.objectRef<RemoteCaliband>("RemoteCaliband").implement({
  description:
    "A caliband on another host reached over TCP + TLS + bearer token (issue 18). Where its credentials are is returned, never the token.",
  fields: (t) => ({
    endpoint: t.string({
      description: "The daemon's control listener, `tcp://host:port` (normalized).",
      resolve: (r) => `tcp://${r.addr}`,
    }),
    serverName: t.exposeString("serverName", { description: "Name the daemon's certificate must match." }),
    credentials: t.field({
      type: RemoteCredentialsRef,
      nullable: true,
      description:
        "Where the gateway finds this endpoint's CA and token now, or null when the operator has not provisioned them (the health reason says where they are looked for).",
      resolve: (r, _a, ctx) => findRemoteCredentials(r, ctx.fleet.registry.remotePolicy).catch(() => null),
    }),
  }),
});

/** Parse a stored config column set into a ProviderConfig (tolerating legacy rows). */
function configOf(row: {
  provider: string | null;
  baseUrl: string | null;
  apiKeyFromEnv: string | null;
  env: unknown;
  model: string | null;
}): ProviderConfig {
  try {
    return parseStoredProviderConfig({ ...row, env: (row.env ?? {}) as Record<string, string> });
  } catch {
    return {
      provider: null,
      baseUrl: row.baseUrl,
      apiKeyFromEnv: row.apiKeyFromEnv,
      env: {},
      model: row.model,
    };
  }
}

registerNode("Workspace", WORKSPACE_NAME);

builder.prismaNode("Workspace", {
  id: { field: "name" },
  // node(id:)/nodes(ids:) answer null for an id that names no workspace.
  nullable: true,
  description: "A caliband workspace: one canonical root, one daemon, many agents.",
  // A token limited to workspaces can reach no other one, whatever the path (lists are filtered too).
  authScopes: (w, ctx) => ctx.auth.workspaces === null || { workspace: w.name },
  fields: (t) => ({
    name: t.exposeString("name", { description: "Unique name (use with workspace(name:) and mutations)." }),
    root: t.exposeString("root", {
      description:
        "Root directory: canonical (realpath) on the gateway's machine for a local workspace (one caliband per root); for a remote one, the path on its daemon's host as given.",
    }),
    remote: t.field({
      type: RemoteCalibandRef,
      nullable: true,
      description:
        "The caliband on another host serving this workspace, or null for the local daemon (Unix socket).",
      resolve: (w) => remoteOfRow(w),
    }),
    registered: t.boolean({
      description: "False once the workspace was unregistered (its runs stay in history).",
      resolve: (w) => w.removedAt === null,
    }),
    registeredAt: t.field({
      type: "DateTime",
      description: "When it was (last) registered.",
      resolve: (w) => w.createdAt,
    }),
    launchTimeoutMs: t.exposeInt("launchTimeoutMs", {
      nullable: true,
      description:
        "Default run timeout, ms, of launches enqueued here that name none (setWorkspaceLaunchTimeout); null = none.",
    }),
    sources: t.field({
      type: [SourceRef],
      description:
        "Checkouts agents can be spawned in, discovered now as caliband does; empty for a remote workspace (its root is on another host: name a source when spawning).",
      resolve: (w) => (w.endpoint !== null ? [] : discoverSources(w.root)),
    }),
    health: t.field({
      type: WorkspaceHealthRef,
      description: "Health of its caliband from the poll loop.",
      resolve: (w, _a, ctx) => ctx.fleet.state.healthOf(w.name),
    }),
    config: t.field({
      type: ProviderConfigRef,
      description: "Provider configuration in effect.",
      resolve: (w) => configOf(w),
    }),
    pendingConfig: t.field({
      type: ProviderConfigRef,
      nullable: true,
      description: "A configuration change waiting for live agents to end (needs a daemon restart), or null.",
      resolve: (w) =>
        w.pendingConfig ? parseStoredProviderConfig(w.pendingConfig as ProviderConfigInput) : null,
    }),
    agents: t.relatedConnection(
      "agents",
      {
        cursor: "id",
        totalCount: true,
        description:
          "Runs of this workspace, newest first (history included unless filter.includeGone is false).",
        args: { filter: t.arg({ type: AgentFilterRef, required: false, description: "Which runs." }) },
        validate: prismaCursorArgs("agent"),
        query: (args) => ({
          where: agentFilterWhere(args.filter),
          orderBy: [{ startedAt: "desc" }, { id: "asc" }],
        }),
      },
      AgentConnectionRef,
    ),
    usage: t.field({
      type: UsageRowRef,
      description:
        "Token usage, estimated cost (USD) and outcomes in [since, until) (default: the last 7 days).",
      args: {
        since: t.arg({ type: "DateTime", required: false, description: "Window start (inclusive)." }),
        until: t.arg({
          type: "DateTime",
          required: false,
          description: "Window end (exclusive); default now.",
        }),
      },
      resolve: async (w, args, ctx) => {
        // Default window ends at the operation's start, so every workspace shares one aggregation.
        const until = args.until ?? (await memoize(ctx, "now", () => Promise.resolve(new Date())));
        const since = args.since ?? new Date(until.getTime() - 7 * 86_400_000);
        // One aggregation for every workspace of the operation (no N+1).
        const rows = await memoize(ctx, `usage:${since.getTime()}:${until.getTime()}`, () =>
          aggregateUsage(ctx.prisma, { since, until, groupBy: ["workspace"] }),
        );
        return rows.find((r) => r.workspace === w.name) ?? emptyUsageRow({ workspace: w.name });
      },
    }),
  }),
});
