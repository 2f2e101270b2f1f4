/**
 * Serialize once (issue 17): a result shared by many graphql-ws subscribers is turned into JSON
 * once, and each subscriber's `next` message is that JSON framed with its own id.
 *
 * graphql-ws builds the bytes itself: `emit.next` stringifies `{ id, type: "next", payload }`
 * (`stringifyMessage`: validate, then `JSON.stringify`) and hands the string straight to
 * `socket.send` (graphql-ws 6.4.2 server `emit.next`; use/ws `send`), synchronously back to back.
 * The gateway's `onNext` answers, for a shared result without errors, its {@link SharedPayload}.
 * `JSON.stringify` of the message calls its `toJSON`, which leaves the cached JSON in a module
 * slot and stands in a marker string; {@link spliceSharedPayload}, called by the connection's
 * `send` (src/server/coalescing-websocket.ts), swaps the marker for the JSON. The bytes equal
 * `JSON.stringify({ id, type: "next", payload: { ...result } })` (today's message): a result
 * without errors spreads to the same keys in the same order. Results with errors take today's
 * path. Pinned graphql-ws version: test/server/shared-frames.test.ts checks the bytes.
 */
import { randomUUID } from "node:crypto";
import type { ExecutionResult } from "graphql";

/** Stands for the payload in the stringified message (unguessable, JSON-safe). */
const MARKER = `prospero-shared-payload-${randomUUID()}`;
/** How a message with a marker payload ends. */
const SUFFIX = `"payload":"${MARKER}"}`;

/** The JSON of the last {@link SharedPayload} stringified, until the next send takes it. */
let pending: string | null = null;

/** A shared result's payload: its JSON, computed once (see the module comment). */
export class SharedPayload {
  constructor(readonly json: string) {}

  /** Called by `JSON.stringify` of the message: leaves the JSON for the send that follows. */
  toJSON(): string {
    pending = this.json;
    return MARKER;
  }
}

const payloads = new WeakMap<ExecutionResult, SharedPayload>();

/** The {@link SharedPayload} of `result` (one per result object; its JSON computed once). */
export function sharedPayloadOf(result: ExecutionResult): SharedPayload {
  let payload = payloads.get(result);
  if (payload === undefined) {
    payload = new SharedPayload(JSON.stringify(result));
    payloads.set(result, payload);
  }
  return payload;
}

/**
 * `data` with a {@link SharedPayload}'s marker replaced by its JSON; any other `data` unchanged.
 * Clears the slot either way, so a marker never outlives its message.
 */
export function spliceSharedPayload(data: string): string {
  const json = pending;
  if (json === null) return data;
  pending = null;
  if (!data.endsWith(SUFFIX)) return data;
  return `${data.slice(0, data.length - SUFFIX.length)}"payload":${json}}`;
}
