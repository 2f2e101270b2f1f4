/**
 * The workspace registry: persisted workspaces (name, canonical root, provider config) with an
 * in-memory copy for the poll loop. Roots are canonicalized once (realpath) and that exact string
 * is used for the socket hash and `--workspace-root` (protocol §1.1, reference #45). Two names for
 * one canonical root, or one name for two roots, is a Conflict and nothing is written (#47).
 * Roots must pass the root policy (`roots.ts`: the gateway user's own, non-system directory) and
 * configs the env policy (`provider.ts`), both checked on input only: stored rows from before the
 * policies still load, and the env policy is enforced again when a daemon's environment is built.
 */
import path from "node:path";
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import type { StoreWriter } from "../store/writer.js";
import { Conflict, NotFound, ValidationFailed } from "../errors.js";
import {
  DEFAULT_ENV_POLICY,
  EMPTY_PROVIDER_CONFIG,
  parseStoredProviderConfig,
  resolveConfigChange,
  validateProviderConfig,
  type EnvPolicy,
  type ProviderConfig,
  type ProviderConfigChange,
  type ProviderConfigInput,
} from "./provider.js";
import {
  validateRemote,
  type RemoteCaliband,
  type RemoteCalibandInput,
  type RemotePolicy,
} from "./remote.js";
import { MAX_ROOT_LENGTH, checkWorkspaceRoot } from "./roots.js";
import { discoverSources, type Source } from "./sources.js";

/** A registered workspace. */
export interface Workspace {
  name: string;
  /** Canonical (realpath) root. */
  root: string;
  config: ProviderConfig;
  /** A config change waiting for the workspace's agents to end, or null. */
  pendingConfig: ProviderConfig | null;
  createdAt: Date;
  /**
   * The caliband on another host this workspace is served by (issue 18 item 5), or null for the
   * local daemon on the Unix socket derived from `root`. A remote workspace's `root` is a path on
   * that host: nothing of the gateway's file system is read for it.
   */
  remote: RemoteCaliband | null;
}

/** Workspace names: 1–64 chars of letters, digits, `.`, `_`, `-`, starting alphanumeric. */
export const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A stored row as a Workspace. Configs are parsed without the env policy (legacy rows must load). */
function fromRow(r: Prisma.WorkspaceModel): Workspace {
  const cfg = (json: Prisma.JsonValue | null, row: Partial<ProviderConfig>): ProviderConfig =>
    parseStoredProviderConfig({ ...row, env: (json ?? {}) as Record<string, string> });
  return {
    name: r.name,
    root: r.root,
    config: cfg(r.env, {
      provider: r.provider as ProviderConfig["provider"],
      baseUrl: r.baseUrl,
      apiKeyFromEnv: r.apiKeyFromEnv,
      model: r.model,
    }),
    pendingConfig: r.pendingConfig ? parseStoredProviderConfig(r.pendingConfig as ProviderConfigInput) : null,
    createdAt: r.createdAt,
    remote: remoteOfRow(r),
  };
}

/** A stored row's remote caliband, or null for a local workspace. */
export function remoteOfRow(r: {
  endpoint: string | null;
  serverName: string | null;
}): RemoteCaliband | null {
  if (r.endpoint === null) return null;
  return { addr: r.endpoint, serverName: r.serverName ?? "" };
}

function remoteColumns(r: RemoteCaliband | null) {
  return { endpoint: r?.addr ?? null, serverName: r?.serverName ?? null };
}

/** Same daemon, same server name. */
function sameRemote(a: RemoteCaliband | null, b: RemoteCaliband | null): boolean {
  if (a === null || b === null) return a === b;
  return a.addr === b.addr && a.serverName === b.serverName;
}

/**
 * A remote workspace's root: a path on the daemon's host, so only its form is checked (absolute,
 * at most {@link MAX_ROOT_LENGTH} characters, no NUL) and it is normalized, never resolved here.
 * @throws ValidationFailed
 */
function remoteRoot(root: string): string {
  if (!root.startsWith("/") || root.length > MAX_ROOT_LENGTH || root.includes("\0")) {
    throw new ValidationFailed([
      { path: ["root"], message: `expected an absolute path of at most ${MAX_ROOT_LENGTH} characters` },
    ]);
  }
  return path.posix.normalize(root).replace(/(.)\/+$/, "$1");
}

/**
 * A remote daemon's environment is set on its host: only what reaches agents through the spawn
 * spec (provider, model) applies to it. @throws ValidationFailed naming the fields that would not.
 */
function checkRemoteConfig(config: ProviderConfig): void {
  const issues: { path: string[]; message: string }[] = [];
  const why = "a remote caliband's environment is set on its own host (only provider and model apply)";
  if (config.baseUrl !== null) issues.push({ path: ["config", "baseUrl"], message: why });
  if (config.apiKeyFromEnv !== null) issues.push({ path: ["config", "apiKeyFromEnv"], message: why });
  if (Object.keys(config.env).length > 0) issues.push({ path: ["config", "env"], message: why });
  if (issues.length > 0) throw new ValidationFailed(issues);
}

function configColumns(c: ProviderConfig) {
  return {
    provider: c.provider,
    baseUrl: c.baseUrl,
    apiKeyFromEnv: c.apiKeyFromEnv,
    env: c.env as Prisma.InputJsonValue,
    model: c.model,
  };
}

/** The gateway's policies for what {@link WorkspaceRegistry.add} accepts. */
export interface RegistryPolicies {
  /** What configs may put into a process's environment (default: the built-in allowlist only). */
  envPolicy?: EnvPolicy;
  /** Operator root prefixes (`--allow-root`, validated by `parseAllowRoots`); empty = any allowed root. */
  allowRoots?: readonly string[];
  /** Directories of the gateway itself (its data dir): no root may be, contain or lie inside one. */
  protectedDirs?: readonly string[];
  /** Where remote workspaces' CA and token files may be (default: none, so no remote workspace). */
  remotePolicy?: RemotePolicy;
  /** Environment token variables are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Registered workspaces, durable and in memory. */
export class WorkspaceRegistry {
  private readonly byName = new Map<string, Workspace>();
  /** The env policy every config is checked against (on input and when a daemon's env is built). */
  readonly envPolicy: EnvPolicy;
  private readonly allowRoots: readonly string[];
  private readonly protectedDirs: readonly string[];
  /** The operator's rules for remote workspaces' credentials. */
  readonly remotePolicy: RemotePolicy;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    private readonly db: PrismaClient,
    private readonly writer: StoreWriter,
    policies: RegistryPolicies = {},
  ) {
    this.envPolicy = policies.envPolicy ?? DEFAULT_ENV_POLICY;
    this.allowRoots = policies.allowRoots ?? [];
    this.protectedDirs = policies.protectedDirs ?? [];
    this.remotePolicy = policies.remotePolicy ?? { credentialsDirs: [] };
    this.env = policies.env ?? process.env;
  }

  /**
   * Load the registered workspaces (call once at start). Removed rows (`removedAt` set) are history
   * only: they are not loaded, so nothing polls, autostarts, spawns in or counts them, their name
   * can be registered again and their root can be registered under another name (issue 12 item 3).
   * Their runs stay in the run table and remain queryable.
   */
  async load(): Promise<void> {
    this.byName.clear();
    for (const r of await this.db.workspace.findMany({
      where: { removedAt: null },
      orderBy: { name: "asc" },
    }))
      this.byName.set(r.name, fromRow(r));
  }

  /** All workspaces, sorted by name. */
  list(): Workspace[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** One workspace, or undefined. */
  find(name: string): Workspace | undefined {
    return this.byName.get(name);
  }

  /**
   * One workspace.
   * @throws NotFound
   */
  get(name: string): Workspace {
    const w = this.byName.get(name);
    if (!w) throw new NotFound("workspace", name);
    return w;
  }

  /**
   * Checkouts of a workspace (discovered now, as caliband does at every spawn, §2.6; capped, see
   * `SOURCE_LIMITS`).
   * @throws NotFound
   */
  async sources(name: string): Promise<Source[]> {
    const ws = this.get(name);
    // A remote root is a path on another host: the same path here is another directory.
    return ws.remote ? [] : discoverSources(ws.root);
  }

  /**
   * Validate a client's config for `current` (null when adding): values kept by name are taken
   * from the current pending config, then the applied one; then shape, coherence and env policy.
   * @throws ValidationFailed (incl. a kept value with none stored), ProviderMisconfigured.
   */
  validateConfig(input: ProviderConfigChange, current: Workspace | null): ProviderConfig {
    const full = resolveConfigChange(input, current ? [current.pendingConfig?.env, current.config.env] : []);
    const config = validateProviderConfig(full, this.envPolicy);
    if (current?.remote) checkRemoteConfig(config);
    return config;
  }

  /**
   * Register a workspace. Re-adding the same name with the same canonical root is idempotent and
   * leaves its stored config alone (unlike reference #111, which overwrote it); use setConfig.
   * Only registered workspaces count here: a removed workspace's name registers again with the new
   * root and config (`created: true`, its earlier runs stay linked to the name), and a removed
   * workspace's root is free for another name.
   * The root must pass `checkWorkspaceRoot` (with the operator's `allowRoots`), the config
   * {@link validateConfig} (nothing to keep: an env entry without a value is refused).
   * A remote workspace (`remote`, issue 18 item 5) names a caliband on another host: its settings
   * must pass `validateRemote` (the endpoint's form, and credentials the operator provisioned for
   * it: a CA that parses, a usable token, the server name they set), its root is a path on that host (form only, see `remoteRoot`), its config may not
   * set the daemon's environment, and one endpoint serves one workspace.
   * @returns the workspace and whether it was created.
   * @throws ValidationFailed (bad name, refused root, env entry without value, bad remote
   *   settings), Conflict (#47; an endpoint already registered), ProviderMisconfigured (incoherent
   *   config, a variable the env policy refuses).
   */
  async add(input: {
    name: string;
    root: string;
    config?: ProviderConfigChange;
    remote?: RemoteCalibandInput | null;
  }): Promise<{ workspace: Workspace; created: boolean }> {
    if (!WORKSPACE_NAME.test(input.name)) {
      throw new ValidationFailed([
        { path: ["name"], message: "1–64 letters, digits, '.', '_' or '-', starting with a letter or digit" },
      ]);
    }
    const remote = input.remote ? await validateRemote(input.remote, this.remotePolicy, this.env) : null;
    const root = remote
      ? remoteRoot(input.root)
      : await checkWorkspaceRoot(input.root, {
          allowRoots: this.allowRoots,
          protectedDirs: this.protectedDirs,
        });
    const config = input.config ? this.validateConfig(input.config, null) : EMPTY_PROVIDER_CONFIG;
    if (remote) checkRemoteConfig(config);
    const existing = this.byName.get(input.name);
    if (existing) {
      if (existing.root === root && sameRemote(existing.remote, remote))
        return { workspace: existing, created: false };
      const where = (w: { root: string; remote: RemoteCaliband | null }) =>
        w.remote ? `${w.root} on tls://${w.remote.addr}` : w.root;
      throw new Conflict(
        `workspace ${input.name} is already registered for ${where(existing)}, not ${where({ root, remote })}`,
      );
    }
    const alias = [...this.byName.values()].find((w) =>
      remote ? w.remote?.addr === remote.addr : w.remote === null && w.root === root,
    );
    if (alias) {
      throw new Conflict(
        remote
          ? `tcp://${remote.addr} is already registered as workspace ${alias.name} (one workspace per caliband)`
          : `${root} is already registered as workspace ${alias.name} (one caliband per root)`,
        alias.name,
      );
    }
    const createdAt = new Date();
    // A previously removed workspace of the same name is registered again (its runs stay linked).
    await this.writer.submit((db) => [
      db.workspace.upsert({
        where: { name: input.name },
        create: { name: input.name, root, ...configColumns(config), ...remoteColumns(remote), createdAt },
        update: {
          root,
          ...configColumns(config),
          ...remoteColumns(remote),
          pendingConfig: Prisma.DbNull,
          removedAt: null,
          createdAt,
        },
      }),
    ]);
    const ws: Workspace = { name: input.name, root, config, pendingConfig: null, createdAt, remote };
    this.byName.set(ws.name, ws);
    return { workspace: ws, created: true };
  }

  /**
   * Unregister a workspace (its caliband and agents keep running; its history stays, and the
   * row is kept with `removedAt` so runs keep their workspace).
   * @throws NotFound
   */
  async remove(name: string): Promise<Workspace> {
    const ws = this.get(name);
    await this.writer.submit((db) => [
      db.workspace.update({ where: { name }, data: { removedAt: new Date() } }),
    ]);
    this.byName.delete(name);
    return ws;
  }

  /**
   * Store a workspace's applied config and pending config (null clears the pending one).
   * @throws NotFound
   */
  async setConfig(
    name: string,
    config: ProviderConfig,
    pendingConfig: ProviderConfig | null,
  ): Promise<Workspace> {
    const ws = this.get(name);
    await this.writer.submit((db) => [
      db.workspace.update({
        where: { name },
        data: {
          ...configColumns(config),
          pendingConfig: pendingConfig ? (pendingConfig as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
        },
      }),
    ]);
    const updated: Workspace = { ...ws, config, pendingConfig };
    this.byName.set(name, updated);
    return updated;
  }
}
