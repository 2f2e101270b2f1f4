/** Queries and mutations over HTTP POST to the gateway's `/graphql`. */

/** Where the gateway answers GraphQL over HTTP (same origin as the page). */
export const GRAPHQL_PATH = "/graphql";

/** A request failed before a typed result could be read (network, HTTP status, GraphQL errors). */
export class RequestError extends Error {
  override name = "RequestError";
}

interface Response<T> {
  data?: T | null;
  errors?: { message: string }[];
}

/**
 * POST one operation and return its `data`.
 * @throws {RequestError} when the gateway cannot be reached, answers non-JSON or reports errors.
 */
export async function request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  let res: globalThis.Response;
  try {
    res = await fetch(GRAPHQL_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
      body: JSON.stringify({ query, variables }),
    });
  } catch (err) {
    throw new RequestError(
      `the gateway cannot be reached (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  let body: Response<T>;
  try {
    body = (await res.json()) as Response<T>;
  } catch {
    throw new RequestError(`the gateway answered HTTP ${res.status} without a GraphQL result`);
  }
  if (body.errors?.length) throw new RequestError(body.errors.map((e) => e.message).join("; "));
  if (body.data === undefined || body.data === null) {
    throw new RequestError(`the gateway answered HTTP ${res.status} without data`);
  }
  return body.data;
}
