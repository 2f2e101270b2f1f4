/**
 * Incremental delivery (issue 13 item 9): `@defer` and `@stream` through yoga's defer-stream plugin.
 * A query with either answers in parts: `multipart/mixed` over HTTP (the client must accept it;
 * else yoga answers 406), `next` events over SSE, `next` messages over graphql-ws; each part after
 * the first carries `incremental: [{ data | items, path, errors? }]`, and `hasNext` is false on the
 * last. The selections that pay off are long lists below a short answer, such as an agent's events
 * (`... @defer { events(first: 500) { … } }`, or `edges @stream(initialCount: 20)`).
 *
 * The gateway's other plugins see the whole document: the query limits count deferred and streamed
 * selections like any other (a refused document sends no part at all), and scope rules and the
 * audit run per field as usual. Error masking needs one addition, {@link maskIncrementalErrors}:
 * envelop's masking looks only at a result's top-level `errors`, not at those inside
 * `incremental[]`.
 */
import type { GraphQLError } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { useDeferStream } from "@graphql-yoga/plugin-defer-stream";
import { withoutHttp } from "./error-codes.js";

/** One incremental result as the executor yields it (the fields this module touches). */
interface IncrementalPart {
  incremental?: readonly { errors?: readonly GraphQLError[] }[];
}

/**
 * A plugin applying `mask` (the gateway's maskError: a code on every error, unexpected errors
 * masked) to the errors of every `incremental[]` entry of a streamed execution result, and removing
 * `extensions.http` from them (the status of a multipart response is sent with its first part).
 */
export function maskIncrementalErrors(mask: (error: unknown) => GraphQLError): Plugin {
  const fix = (error: GraphQLError): GraphQLError => withoutHttp([mask(error)], "INTERNAL_SERVER_ERROR")[0]!;
  return {
    onExecute() {
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return;
          return {
            onNext({ result: part, setResult }) {
              const inc = (part as IncrementalPart).incremental;
              if (!inc?.some((i) => i.errors?.length)) return;
              setResult({
                ...part,
                incremental: inc.map((i) => (i.errors?.length ? { ...i, errors: i.errors.map(fix) } : i)),
              } as typeof part);
            },
          };
        },
      };
    },
  };
}

/** The gateway's incremental-delivery plugins: yoga's defer-stream, and {@link maskIncrementalErrors}. */
export function deferStreamPlugins(mask: (error: unknown) => GraphQLError): Plugin[] {
  return [useDeferStream(), maskIncrementalErrors(mask)];
}
