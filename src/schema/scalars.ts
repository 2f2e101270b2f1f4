/** Custom scalars: `DateTime` (RFC 3339 string, UTC) and `JSON` (any JSON value). */
import { GraphQLError } from "graphql";
import { builder } from "./builder.js";

builder.scalarType("DateTime", {
  description: "An instant as an RFC 3339 string in UTC, e.g. `2026-11-29T14:03:11.482Z`.",
  specifiedByURL: "https://scalars.graphql.org/chillicream/date-time.html",
  serialize: (d) => (d instanceof Date ? d.toISOString() : new Date(String(d)).toISOString()),
  parseValue: (v) => {
    const d = typeof v === "string" ? new Date(v) : null;
    if (!d || Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(String(v))) {
      throw new GraphQLError("DateTime must be an RFC 3339 string such as 2026-11-29T14:03:11Z");
    }
    return d;
  },
});

builder.scalarType("JSON", {
  description: "Any JSON value (object, array, string, number, boolean or null).",
  specifiedByURL: "https://www.rfc-editor.org/rfc/rfc8259",
  serialize: (v) => v,
  parseValue: (v) => v,
});
