/** `UsageGroup` rows: tokens, estimated cost and outcomes over a window (src/store/usage.ts). */
import type { UsageRow } from "../store/usage.js";
import { builder } from "./builder.js";

const OutcomesRef = builder.objectRef<UsageRow["outcomes"]>("Outcomes").implement({
  description: "Runs that reached each terminal status in the window.",
  fields: (t) => ({
    done: t.exposeInt("done", { description: "Runs that ended `done`." }),
    failed: t.exposeInt("failed", { description: "Runs that ended `failed`." }),
    killed: t.exposeInt("killed", { description: "Runs that ended `killed`." }),
    crashed: t.exposeInt("crashed", { description: "Runs that ended `crashed`." }),
  }),
});

/** GraphQL type of one usage row. */
export const UsageRowRef = builder.objectRef<UsageRow>("UsageGroup").implement({
  description:
    "Usage of one group over a window (token field names as TokenUsage's); grouping fields are null when not grouped by them.",
  fields: (t) => ({
    workspace: t.exposeString("workspace", { nullable: true, description: "Workspace name." }),
    model: t.exposeString("model", { nullable: true, description: "Model name." }),
    day: t.exposeString("day", { nullable: true, description: "UTC day, YYYY-MM-DD." }),
    inputTokens: t.exposeInt("inputTokens", {
      description: "Input tokens (cache reads and writes included).",
    }),
    outputTokens: t.exposeInt("outputTokens", { description: "Output tokens." }),
    cacheReadTokens: t.exposeInt("cacheReadTokens", {
      description: "Input tokens read from the prompt cache.",
    }),
    cacheCreationTokens: t.exposeInt("cacheCreationTokens", {
      description: "Input tokens written to the prompt cache.",
    }),
    estimatedCostUsd: t.exposeFloat("estimatedCostUsd", {
      description: "Estimated cost in USD of the turns whose model has a known price.",
    }),
    unpricedTurns: t.exposeInt("unpricedTurns", {
      description: "Turns whose model has no known price (not included in estimatedCostUsd).",
    }),
    turns: t.exposeInt("turns", { description: "Completed turns." }),
    outcomes: t.field({
      type: OutcomesRef,
      description: "Runs ended in the window, by status.",
      resolve: (r) => r.outcomes,
    }),
  }),
});
