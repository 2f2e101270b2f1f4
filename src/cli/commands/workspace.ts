/**
 * `prospero workspace add|ls|rm|config|capture`: register, list, unregister and reconfigure
 * workspaces, and turn the capture of their runs' changes on or off (issue 16).
 */
import path from "node:path";
import { Argument, type Command } from "commander";
import {
  AddWorkspaceDocument,
  RemoveWorkspaceDocument,
  SetChangeCaptureDocument,
  UpdateWorkspaceConfigDocument,
  WorkspaceDocument,
  WorkspacesDocument,
  type ProviderConfigFieldsFragment,
  type ProviderConfigInput,
  type RemoteCalibandInput,
  type Provider,
  type WorkspaceSummaryFragment,
} from "../../sdk/index.js";
import { clientAction, clientOptions, type CliContext } from "../context.js";
import { CliError, EXIT, unwrapResult } from "../exit.js";
import { health } from "../format.js";
import { table } from "../output.js";
import { collectEnv, parseProvider } from "../parse.js";
import { safeData, safeText } from "../sanitize.js";

/** Provider options shared by `workspace add` and `workspace config`. */
interface ConfigFlags {
  provider?: Provider;
  baseUrl?: string;
  apiKeyEnv?: string;
  env?: { name: string; value: string }[];
  model?: string;
}

function configOptions(cmd: Command): Command {
  return cmd
    .option(
      "--provider <provider>",
      "anthropic|openai|ollama|google (default: caliban's, anthropic)",
      parseProvider,
    )
    .option("--base-url <url>", "provider API base URL")
    .option("--api-key-env <NAME>", "name of the gateway's environment variable holding the API key")
    .option("--env <KEY=VALUE>", "extra environment for the daemon (repeatable)", collectEnv)
    .option("--model <model>", "default model for spawns that name none");
}

/**
 * The flags as a ProviderConfigInput on top of `base` (flags win; env entries merge by name).
 * Env values are write-only, so entries kept from `base` are sent without a value: the gateway
 * keeps the value it stores for that name.
 */
export function configInput(
  flags: ConfigFlags,
  base: ProviderConfigFieldsFragment | null,
): ProviderConfigInput {
  const env = new Map<string, string | null>((base?.env ?? []).map((e) => [e.name, null]));
  for (const e of flags.env ?? []) env.set(e.name, e.value);
  return {
    provider: flags.provider ?? base?.provider ?? null,
    baseUrl: flags.baseUrl ?? base?.baseUrl ?? null,
    apiKeyFromEnv: flags.apiKeyEnv ?? base?.apiKeyFromEnv ?? null,
    model: flags.model ?? base?.model ?? null,
    env: [...env].map(([name, value]) => (value === null ? { name } : { name, value })),
  };
}

/** One-line description of a provider configuration. */
export function describeConfig(c: ProviderConfigFieldsFragment): string {
  const parts = [
    `provider ${c.provider?.toLowerCase() ?? "default"}`,
    `model ${c.model ?? "default"}`,
    ...(c.baseUrl ? [`base URL ${c.baseUrl}`] : []),
    ...(c.apiKeyFromEnv ? [`key from $${c.apiKeyFromEnv}`] : []),
    ...(c.env.length ? [`env ${c.env.map((e) => e.name).join(",")}`] : []),
  ];
  return parts.join(" · ");
}

/** `workspace add`'s flags for a caliband on another host (issue 18). */
interface RemoteFlags {
  endpoint?: string;
  serverName?: string;
}

/**
 * The remote flags as a RemoteCalibandInput, or null without `--endpoint`.
 * @throws CliError (usage) for `--server-name` without `--endpoint`.
 */
export function remoteInput(flags: RemoteFlags): RemoteCalibandInput | null {
  if (flags.endpoint === undefined) {
    if (flags.serverName !== undefined) throw new CliError(EXIT.usage, "--server-name needs --endpoint");
    return null;
  }
  return { endpoint: flags.endpoint, serverName: flags.serverName ?? null };
}

/** Where a workspace's daemon is: ` on tcp://host:port` for a remote one, "" for a local one. */
function whereOf(w: WorkspaceSummaryFragment): string {
  return w.remote ? ` on ${w.remote.endpoint}` : "";
}

function printWorkspaces(ctx: CliContext, list: readonly WorkspaceSummaryFragment[]): void {
  const { c } = ctx.out;
  if (list.length === 0) {
    ctx.out.line(c.dim("no workspaces registered (add one: prospero workspace add <name> <root>)"));
    return;
  }
  const rows = list.map((w) => [
    c.bold(w.name),
    health(c, w.health.state) + (w.health.reason ? c.dim(` (${w.health.reason})`) : ""),
    w.root + whereOf(w),
    describeConfig(w.config) +
      (w.pendingConfig ? c.yellow(` (pending: ${describeConfig(w.pendingConfig)})`) : ""),
  ]);
  ctx.out.line(table([c.dim("NAME"), c.dim("HEALTH"), c.dim("ROOT"), c.dim("CONFIG")], rows));
}

function printWorkspace(ctx: CliContext, verb: string, w: WorkspaceSummaryFragment): void {
  const { c } = ctx.out;
  ctx.out.line(
    `${verb} ${c.bold(w.name)} at ${w.root}${whereOf(w)} · ${health(c, w.health.state)} · ${describeConfig(w.config)}`,
  );
  if (w.pendingConfig) ctx.out.line(c.yellow(`pending configuration: ${describeConfig(w.pendingConfig)}`));
}

/** Register `workspace` and its subcommands on `program`. */
export function registerWorkspaceCommands(program: Command): void {
  const ws = program.command("workspace").description("register, list, unregister and configure workspaces");

  clientOptions(
    ws.command("ls").description("list registered workspaces with health and configuration"),
  ).action(
    clientAction(async (ctx) => {
      const data = await ctx.client.request(WorkspacesDocument);
      if (ctx.json) ctx.out.json(data);
      else printWorkspaces(ctx, safeData(data.workspaces));
    }),
  );

  clientOptions(
    configOptions(
      ws
        .command("add")
        .description("register a workspace (a git checkout; its caliband is polled from now on)")
        .argument("<name>", "unique name (letters, digits, . _ -)")
        .argument(
          "<root>",
          "workspace root directory (relative paths are resolved here; with --endpoint, the absolute path on the daemon's host)",
        )
        .option(
          "--endpoint <tcp://host:port>",
          "serve it from a caliband on another host (started with --listen; its CA and token provisioned in the gateway's credentials directory, docs/deploy.md)",
        )
        .option(
          "--server-name <name>",
          "with --endpoint: name the certificate must match; must be the operator's (server-name in the endpoint's credentials directory, else its host), which is the default",
        ),
    ),
  ).action(
    clientAction(async (ctx, name: string, root: string, flags: ConfigFlags & RemoteFlags) => {
      const config = configInput(flags, null);
      const remote = remoteInput(flags);
      const data = await ctx.out.spin(`registering ${name}…`, () =>
        ctx.client.request(AddWorkspaceDocument, {
          name,
          // A remote root is a path on the daemon's host: sent as given.
          root: remote ? root : path.resolve(root),
          config,
          remote,
        }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = unwrapResult(`workspace add ${name}`, data.addWorkspace);
      if (!ctx.json)
        printWorkspace(ctx, r.created ? "registered" : "already registered:", safeData(r.workspace));
    }),
  );

  clientOptions(
    ws
      .command("rm")
      .description("unregister a workspace (its caliband and agents keep running; history stays)")
      .argument("<name>", "workspace name"),
  ).action(
    clientAction(async (ctx, name: string) => {
      const data = await ctx.out.spin(`unregistering ${name}…`, () =>
        ctx.client.request(RemoveWorkspaceDocument, { name }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = unwrapResult(`workspace rm ${name}`, data.removeWorkspace);
      if (!ctx.json) ctx.out.line(`unregistered ${ctx.out.c.bold(safeText(r.workspace.name))}`);
    }),
  );

  clientOptions(
    configOptions(
      ws
        .command("config")
        .description(
          "change a workspace's provider configuration: the given options replace those fields, the rest is kept (--replace starts from an empty configuration)",
        )
        .argument("<name>", "workspace name"),
    )
      .option("--replace", "do not keep the current configuration's other fields")
      .option("--force", "restart the daemon now even with live agents (they become crashed)"),
  ).action(
    clientAction(async (ctx, name: string, flags: ConfigFlags & { replace?: boolean; force?: boolean }) => {
      let base: ProviderConfigFieldsFragment | null = null;
      if (!flags.replace) {
        const current = await ctx.client.request(WorkspaceDocument, { name });
        if (!current.workspace) throw new CliError(EXIT.notFound, `workspace not found: ${name}`);
        base = current.workspace.config;
      }
      const config = configInput(flags, base);
      const data = await ctx.out.spin(`configuring ${name}…`, () =>
        ctx.client.request(UpdateWorkspaceConfigDocument, { name, config, force: flags.force ?? false }),
      );
      if (ctx.json) ctx.out.json(data);
      const r = unwrapResult(`workspace config ${name}`, data.updateWorkspaceConfig);
      if (ctx.json) return;
      const { c } = ctx.out;
      const view = safeData(r);
      printWorkspace(ctx, view.applied ? "configured" : "configuration saved for", view.workspace);
      if (!view.applied && view.pendingOn.length) {
        ctx.out.line(
          c.yellow(`applies when these agents end: ${view.pendingOn.join(", ")} (or use --force)`),
        );
      }
      if (view.orphaned.length) ctx.out.line(c.red(`orphaned (now crashed): ${view.orphaned.join(", ")}`));
    }),
  );

  clientOptions(
    ws
      .command("capture")
      .description(
        "turn the capture of a workspace's runs' changes on or off (off: no new snapshots; those taken are kept)",
      )
      .argument("<name>", "workspace name")
      .addArgument(new Argument("<state>", "on or off").choices(["on", "off"])),
    "print the mutation result as JSON on stdout",
  ).action(
    clientAction(async (ctx, name: string, state: "on" | "off") => {
      const data = await ctx.client.request(SetChangeCaptureDocument, {
        workspace: name,
        enabled: state === "on",
      });
      if (ctx.json) ctx.out.json(data);
      const r = safeData(unwrapResult(`workspace capture ${name}`, data.setChangeCapture));
      if (ctx.json) return;
      const { c } = ctx.out;
      const setting = r.workspace.changeCapture;
      const what = setting.enabled
        ? "on: runs' changes are snapshotted from their next turn"
        : "off: no new snapshots (those taken are kept)";
      ctx.out.line(`change capture of ${c.bold(r.workspace.name)} ${what}`);
      if (setting.enabled && !setting.active && setting.reason)
        ctx.out.line(c.yellow(`but not active: ${setting.reason}`));
    }),
  );
}
