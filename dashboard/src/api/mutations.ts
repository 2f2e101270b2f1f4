/**
 * Mutations with typed results: every document aliases its field to `result`, which is either the
 * payload or an `Error` (`code`, `message`, and for validation the failing fields).
 */
import {
  ACKNOWLEDGE_INBOX_ITEM,
  ANSWER_INBOX_ITEM,
  APPROVE_INBOX_ITEM,
  DISMISS_INBOX_ITEM,
  SNOOZE_INBOX_ITEM,
} from "./documents.js";
import { request } from "./http.js";
import type { InboxItem, MutationError } from "./types.js";

/** Why a mutation did not happen, ready to show. */
export interface Failure {
  /** "CODE: message", or the transport's explanation. */
  message: string;
  /** Invalid input fields (ValidationError). */
  fieldErrors: { path: string[]; message: string }[];
}

/** A mutation's outcome. */
export type Outcome<P> = { ok: true; payload: P } | { ok: false; failure: Failure };

function isError(value: unknown): value is MutationError {
  return typeof value === "object" && value !== null && "code" in value && "message" in value;
}

/** Run a mutation whose field is aliased `result`; never throws. */
export async function mutate<P>(query: string, variables: Record<string, unknown>): Promise<Outcome<P>> {
  try {
    const data = await request<{ result: P | MutationError }>(query, variables);
    const result = data.result;
    if (isError(result)) {
      return {
        ok: false,
        failure: { message: `${result.code}: ${result.message}`, fieldErrors: result.fieldErrors ?? [] },
      };
    }
    return { ok: true, payload: result };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, failure: { message, fieldErrors: [] } };
  }
}

/**
 * What an inbox item's button asks for: answer (a QUESTION's input, or a PLAN's changes), approve
 * a PLAN, acknowledge, snooze until an instant, or dismiss.
 */
export type InboxAction =
  | { kind: "answer"; text: string }
  | { kind: "approve" }
  | { kind: "acknowledge" }
  | { kind: "snooze"; until: Date }
  | { kind: "dismiss" };

/**
 * Run one inbox mutation on the item with this id (the 12-hex `itemId` or its global id); the
 * payload is the item as stored after it (CLOSED, or SNOOZED). Typed errors (NotFound, InvalidState
 * for an item closed meanwhile or an agent no longer waiting, ValidationError for an empty or too
 * long text, Unreachable when the daemon cannot be told) come back as the failure; never throws.
 */
export function inboxAction(item: string, action: InboxAction): Promise<Outcome<{ item: InboxItem }>> {
  switch (action.kind) {
    case "answer":
      return mutate(ANSWER_INBOX_ITEM, { item, text: action.text });
    case "approve":
      return mutate(APPROVE_INBOX_ITEM, { item });
    case "acknowledge":
      return mutate(ACKNOWLEDGE_INBOX_ITEM, { item });
    case "snooze":
      return mutate(SNOOZE_INBOX_ITEM, { item, until: action.until.toISOString() });
    case "dismiss":
      return mutate(DISMISS_INBOX_ITEM, { item });
  }
}
