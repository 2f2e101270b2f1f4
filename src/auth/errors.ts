/**
 * Authentication and authorization failures (issue 11). Both are typed results of every mutation
 * (`UnauthenticatedError`, `ForbiddenError`) and carry `extensions.code` on queries and
 * subscriptions; a request without valid credentials is refused before GraphQL with HTTP 401.
 */
import { ProsperoError } from "../errors.js";
import { NotFound } from "../errors.js";
import type { Role } from "./roles.js";

/** No valid credentials: missing, unknown, expired or revoked token. */
export class Unauthenticated extends ProsperoError {
  readonly code = "UNAUTHENTICATED";
}

/** The credentials are valid but do not allow this: a stronger role or another workspace is needed. */
export class Forbidden extends ProsperoError {
  readonly code = "FORBIDDEN";
  constructor(
    message: string,
    /** The role the operation needs, when the role is what is missing. */
    readonly requiredRole: Role | null = null,
    /** The workspace the token is not allowed to use, when the scope is what is missing. */
    readonly workspace: string | null = null,
  ) {
    super(message);
  }
}

/**
 * An agent outside the token's workspaces, answered as if it did not exist (`NotFoundError`), so a
 * token limited to workspaces cannot probe which agent ids exist elsewhere. The audit log still
 * records the attempt as denied (`scopeDenied`).
 */
export class AgentNotVisible extends NotFound {
  /** Marks the refusal for the audit log (clients see a plain NotFoundError). */
  readonly scopeDenied = true;
  constructor(agentId: string) {
    super("agent", agentId);
  }
}

/**
 * A launch or schedule (issue 14), or an inbox item (issue 15), outside the token's workspaces,
 * answered as if it did not exist (`NotFoundError`), as {@link AgentNotVisible} does for agents;
 * the audit log records the attempt as denied (`scopeDenied`).
 */
export class QueueItemNotVisible extends NotFound {
  /** Marks the refusal for the audit log (clients see a plain NotFoundError). */
  readonly scopeDenied = true;
  constructor(entity: "launch" | "schedule" | "inbox item", id: string) {
    super(entity, id);
  }
}
