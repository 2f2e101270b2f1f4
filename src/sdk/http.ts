/**
 * GraphQL over HTTP for queries and mutations: one POST per operation, the response envelope
 * parsed with zod, failures turned into {@link GraphQLRequestError} or {@link NetworkError}.
 */
import { z } from "zod";
import {
  GraphQLErrorItemSchema,
  GraphQLRequestError,
  NetworkError,
  describeNetworkFailure,
} from "./errors.js";

/** Headers to send, or a function giving them (called per request; may be async, e.g. a token refresh). */
export type HeadersOption =
  Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/** The `fetch` the SDK uses (the global one by default). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Everything one HTTP operation needs. */
export interface HttpRequest {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:7878/graphql`. */
  endpoint: string;
  /** Operation source text. */
  query: string;
  /** Variables (omitted when undefined). */
  variables?: unknown;
  headers?: HeadersOption;
  fetch: FetchLike;
  /** Aborts the request; the returned promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const Envelope = z.object({
  data: z.record(z.string(), z.unknown()).nullish(),
  errors: z.array(GraphQLErrorItemSchema).optional(),
});

/** Resolve a {@link HeadersOption} to a plain object. */
export async function resolveHeaders(headers: HeadersOption | undefined): Promise<Record<string, string>> {
  if (headers === undefined) return {};
  return typeof headers === "function" ? await headers() : headers;
}

/**
 * POST one operation and return its `data`.
 * @throws GraphQLRequestError when the response carries GraphQL errors (with any partial data).
 * @throws NetworkError when the gateway cannot be reached or the answer is not a GraphQL response.
 * @throws the signal's reason when aborted.
 */
export async function postGraphQL(req: HttpRequest): Promise<unknown> {
  const headers = {
    "content-type": "application/json",
    accept: "application/graphql-response+json, application/json",
    ...(await resolveHeaders(req.headers)),
  };
  const body = JSON.stringify(
    req.variables === undefined ? { query: req.query } : { query: req.query, variables: req.variables },
  );
  let res: Response;
  let text: string;
  try {
    res = await req.fetch(req.endpoint, { method: "POST", headers, body, signal: req.signal ?? null });
    text = await res.text();
  } catch (err) {
    if (req.signal?.aborted) throw req.signal.reason;
    throw new NetworkError(req.endpoint, describeNetworkFailure(err), { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new NetworkError(req.endpoint, `HTTP ${res.status}: not a GraphQL response`, {
      status: res.status,
    });
  }
  const parsed = Envelope.safeParse(json);
  if (!parsed.success || (parsed.data.data == null && !parsed.data.errors?.length)) {
    throw new NetworkError(req.endpoint, `HTTP ${res.status}: not a GraphQL response`, {
      status: res.status,
    });
  }
  if (parsed.data.errors?.length) {
    throw new GraphQLRequestError(parsed.data.errors, parsed.data.data ?? null, res.status);
  }
  return parsed.data.data;
}
