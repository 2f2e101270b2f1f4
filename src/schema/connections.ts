/**
 * The one rule of every connection's page arguments (Relay cursor connections): `first` and
 * `last` are whole numbers in 0..{@link PAGE}.max (0 = an empty page that still has its
 * pageInfo and totalCount), and not both at once. A violation is a ValidationError, which reaches
 * the client as BAD_USER_INPUT with the offending argument in `fieldErrors`.
 */
import { z } from "zod";
import { AGENT_ID } from "../caliband/wire.js";
import { PAGE } from "./builder.js";

const size = z
  .number()
  .int()
  .min(0, "must be 0 or more")
  .max(PAGE.max, `must be at most ${PAGE.max}`)
  .nullish();

/** Field-level `validate` of every connection field (other arguments pass through untouched). */
export const PAGE_ARGS = z
  .looseObject({ first: size, last: size })
  .refine((a) => a.first == null || a.last == null, {
    message: "give first (with after) or last (with before), not both",
    path: ["last"],
  });

/**
 * The `totalCount` of a Prisma connection result: Pothos passes it as a number (relation
 * connections) or as a function counting on demand (root connections with a `totalCount` option).
 */
export async function connectionTotal(connection: object): Promise<number> {
  const total = (connection as { totalCount?: number | (() => number | Promise<number>) }).totalCount;
  return typeof total === "function" ? await total() : (total ?? 0);
}

/**
 * Validation of a Prisma connection's `after`/`before` cursors: Pothos issues `GPC:<S|N>:<id>`
 * (base64) for a string or integer id; a cursor of any other shape (another connection's, a
 * forged one, an integer too big for the database) is a ValidationError (BAD_USER_INPUT), not a
 * database error. Includes {@link PAGE_ARGS}.
 */
export function prismaCursorArgs(id: "agent" | "int") {
  const shape =
    id === "agent" ? new RegExp(`^GPC:S:${AGENT_ID.source.slice(1, -1)}$`) : /^GPC:N:[1-9]\d{0,14}$/;
  const cursor = z
    .string()
    .refine((c) => shape.test(Buffer.from(c, "base64").toString("utf8")), "not a cursor of this connection")
    .nullish();
  return z.looseObject({ after: cursor, before: cursor }).and(PAGE_ARGS);
}

/** The agent id of a cursor {@link prismaCursorArgs}("agent") accepted. */
export function agentOfCursor(cursor: string): string {
  return Buffer.from(cursor, "base64").toString("utf8").slice("GPC:S:".length);
}
