/** Enums shared by several schema modules. */
import { AGENT_STATUSES } from "../caliband/wire.js";
import { builder } from "./builder.js";

/** GraphQL agent statuses: caliband's (protocol §2.1) upper-cased, plus UNKNOWN for future values. */
export const AgentStatusEnum = builder.enumType("AgentStatus", {
  description: "caliband's agent status (protocol §2.1); UNKNOWN for a status this gateway does not know.",
  values: {
    SPAWNING: { value: "spawning", description: "Registered, worker not launched yet." },
    RUNNING: { value: "running", description: "The worker is working on a turn." },
    IDLE: { value: "idle", description: "An interactive agent waiting for input." },
    KILLED: {
      value: "killed",
      description:
        "Stopped by a kill request, or removed with force while live (caliband stops the worker; terminal).",
    },
    DONE: { value: "done", description: "The worker exited 0 (terminal)." },
    FAILED: { value: "failed", description: "The worker exited non-zero or could not launch (terminal)." },
    CRASHED: {
      value: "crashed",
      description:
        "Was running when its daemon restarted, or disappeared from its daemon's list while live (removed on the daemon directly, lost record, respawned away): it ended without an outcome we could observe (terminal).",
    },
    UNKNOWN: { value: "unknown", description: "A status string this gateway does not know." },
  } as const,
});

/** Map a raw caliband status string onto the enum's internal values. */
export function statusValue(raw: string): (typeof AGENT_STATUSES)[number] | "unknown" {
  return (AGENT_STATUSES as readonly string[]).includes(raw)
    ? (raw as (typeof AGENT_STATUSES)[number])
    : "unknown";
}

export const HealthStateEnum = builder.enumType("HealthState", {
  description: "Health of a workspace's caliband as seen by the last poll.",
  values: {
    UNKNOWN: { value: "unknown", description: "Not polled yet." },
    HEALTHY: { value: "healthy", description: "The last `list` succeeded." },
    UNREACHABLE: { value: "unreachable", description: "The last `list` failed; see `reason`." },
  } as const,
});

export const ProviderEnum = builder.enumType("Provider", {
  description: "LLM providers caliband workers accept (protocol §2.2 SpawnSpec.provider).",
  values: {
    ANTHROPIC: { value: "anthropic" },
    OPENAI: { value: "openai" },
    OLLAMA: { value: "ollama" },
    GOOGLE: { value: "google" },
  } as const,
});

export const UsageGroupByEnum = builder.enumType("UsageGroupBy", {
  description: "Dimensions usage rows can be grouped by.",
  values: {
    WORKSPACE: { value: "workspace" },
    MODEL: { value: "model" },
    DAY: { value: "day", description: "UTC day." },
  } as const,
});

/** Roles of API tokens (issue 11); each includes the ones before it. */
export const RoleEnum = builder.enumType("Role", {
  description: "What a token may do. Each role includes the ones before it.",
  values: {
    VIEWER: { value: "viewer", description: "Queries and subscriptions." },
    OPERATOR: {
      value: "operator",
      description: "Viewer, plus spawn, kill, respawn, remove, drain and input of agents.",
    },
    ADMIN: {
      value: "admin",
      description:
        "Operator, plus workspaces, provider configuration, daemon restarts, tokens and the audit log.",
    },
  } as const,
});
