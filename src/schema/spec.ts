/**
 * `AgentSpec`: the spawn spec of a run, typed — read from the spec caliband echoed (snake_case
 * SpawnSpec keys), as stored on the run row and in its AgentSpawnedEvent.
 */
import { builder } from "./builder.js";
import { PROVIDERS, type Provider } from "../fleet/provider.js";
import { ProviderEnum } from "./enums.js";

/** The spawn-spec fields an operator cares about. */
export interface AgentSpecView {
  prompt: string;
  model: string | null;
  provider: string | null;
  toolAllowlist: string[] | null;
  source: string | null;
  label: string | null;
  frontmatterPath: string | null;
  isolated: boolean;
  interactive: boolean;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/**
 * The view of a stored SpawnSpec (`initial_prompt`, `model`, `provider`, `tool_allowlist`,
 * `source`, `label`, `frontmatter_path`, `isolation_worktree`, `interactive`); `known` overrides
 * isolated/interactive with what the run row recorded. Missing or mistyped keys read as null/false.
 */
export function specView(
  raw: unknown,
  known: { isolated?: boolean; interactive?: boolean } = {},
): AgentSpecView {
  const s = (raw !== null && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  return {
    prompt: str(s.initial_prompt) ?? "",
    model: str(s.model),
    provider: str(s.provider),
    toolAllowlist: Array.isArray(s.tool_allowlist) ? s.tool_allowlist.map(String) : null,
    source: str(s.source),
    label: str(s.label),
    frontmatterPath: str(s.frontmatter_path),
    isolated: known.isolated ?? s.isolation_worktree === true,
    interactive: known.interactive ?? s.interactive === true,
  };
}

/** GraphQL type of a spawn spec. */
export const AgentSpecRef = builder.objectRef<AgentSpecView>("AgentSpec").implement({
  description: "What the agent was asked to do and with what (its spawn spec).",
  fields: (t) => ({
    prompt: t.exposeString("prompt", { description: "Initial prompt." }),
    model: t.exposeString("model", { nullable: true, description: "Model; null = the provider's default." }),
    provider: t.field({
      type: ProviderEnum,
      nullable: true,
      description: "Provider; null = caliban's default (anthropic) or a provider this gateway does not know.",
      resolve: (s) => (PROVIDERS.includes(s.provider as Provider) ? (s.provider as Provider) : null),
    }),
    toolAllowlist: t.exposeStringList("toolAllowlist", {
      nullable: true,
      description: "Allowed tools; null = caliban's defaults.",
    }),
    source: t.exposeString("source", {
      nullable: true,
      description: "Source checkout name; null = workspace root.",
    }),
    label: t.exposeString("label", { nullable: true, description: "Label (becomes the name)." }),
    frontmatterPath: t.exposeString("frontmatterPath", {
      nullable: true,
      description: "Agent template path (stored only).",
    }),
    isolated: t.exposeBoolean("isolated", { description: "Runs in its own git worktree." }),
    interactive: t.exposeBoolean("interactive", {
      description: "Waits for operator input at each end of turn.",
    }),
  }),
});
