/**
 * SSE event ids (issue 13 item 8): every SSE frame of a subscription item carries `id: <its
 * cursor>` (a GapEvent's none), so that a client sending `Last-Event-ID` when it reconnects (as
 * EventSource does) resumes right after the last event it received. The cursor is the server's,
 * whether or not the client's selection asked for it.
 *
 * yoga's SSE writer (graphql-yoga, plugins/result-processor/sse.js) writes each result as
 * `event: next` and `data: <serialized result>` and has no field for an id; the one hook it
 * offers is the result's serializer (`stringify`, yoga's `ExecutionResultWithSerializer`), which
 * it calls for the data line. A subscription result over HTTP therefore gets a serializer that ends
 * the data line with the JSON of the result and adds the `id:` line of the same frame:
 * `event: next` / `data: {…}` / `id: <cursor>`. Nothing of the SSE text is parsed or rewritten.
 *
 * Which id belongs to which result: the subscription's items queue their ids as they are yielded
 * and this plugin takes one per result, in order (src/resolvers/resume.ts). The plugin must be the
 * first in the gateway's list, so that it maps the executor's own results before any other plugin
 * wraps the stream. Over graphql-ws (no `overHttp`) nothing is queued or attached.
 */
import { isAsyncIterable, mapAsyncIterator, type Plugin } from "graphql-yoga";
import type { ExecutionResult } from "graphql";
import { takeEventId, trackEventIds } from "../resolvers/resume.js";

/** A cursor as the gateway issues them (base64url): safe on an SSE line. */
const EVENT_ID = /^[A-Za-z0-9_-]+$/;

/**
 * True for the later parts of an incrementally delivered result (`@defer`/`@stream`: they carry
 * `incremental`, or only `hasNext: false`); their event id is the one of the first part.
 */
function isSubsequentPart(result: ExecutionResult): boolean {
  const r = result as ExecutionResult & { incremental?: unknown; hasNext?: unknown };
  return (
    r.incremental !== undefined || (r.data === undefined && r.errors === undefined && r.hasNext !== undefined)
  );
}

/**
 * `result` serialized by yoga's SSE writer with `id: <id>` in its frame.
 * @throws Error when `id` is not a cursor-shaped string (it would break the frame).
 */
export function withSseEventId<T extends ExecutionResult>(
  result: T,
  id: string,
): T & { stringify: (r: ExecutionResult) => string } {
  if (!EVENT_ID.test(id)) throw new Error(`not an SSE event id: ${JSON.stringify(id)}`);
  return { ...result, stringify: (r: ExecutionResult) => `${JSON.stringify(r)}\nid: ${id}` };
}

/**
 * The envelop/yoga plugin writing SSE event ids (see the module comment). It acts on operations
 * whose context has `overHttp: true` (the gateway's server context of HTTP requests).
 */
export function useSseEventIds(): Plugin {
  return {
    onSubscribe({ args }) {
      const ctx = args.contextValue as { overHttp?: boolean } | undefined;
      if (ctx === undefined || ctx === null || ctx.overHttp !== true) return;
      trackEventIds(ctx);
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          setResult(
            mapAsyncIterator(result, (r: ExecutionResult) => {
              if (isSubsequentPart(r)) return r;
              const id = takeEventId(ctx);
              return id === null ? r : withSseEventId(r, id);
            }),
          );
        },
      };
    },
  };
}
