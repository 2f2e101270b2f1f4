/** Root fields about the gateway itself: `version`, `readiness`. */
import { builder } from "../schema/builder.js";
import { VERSION } from "../version.js";
import type { Readiness } from "../server/readiness.js";

const ReadinessRef = builder.objectRef<Readiness>("Readiness").implement({
  description: "Whether the gateway can serve: migrations applied, store writable, workspace health counts.",
  fields: (t) => ({
    ready: t.exposeBoolean("ready", {
      description: "True when migrations are applied and the store is writable.",
    }),
    migrationsApplied: t.exposeBoolean("migrationsApplied", {
      description: "All committed migrations were applied at start.",
    }),
    storeWritable: t.exposeBoolean("storeWritable", {
      description: "The store accepted a write-lock probe.",
    }),
    workspacesTotal: t.exposeInt("workspacesTotal", { description: "Registered workspaces." }),
    workspacesHealthy: t.exposeInt("workspacesHealthy", {
      description: "Workspaces whose last poll succeeded.",
    }),
    workspacesUnreachable: t.exposeInt("workspacesUnreachable", {
      description: "Workspaces whose last poll failed (caliband unreachable).",
    }),
  }),
});

builder.queryType({ description: "Read the fleet and the gateway's state." });

builder.queryFields((t) => ({
  version: t.string({
    description: "Version of the Prospero gateway serving this API. Viewer role.",
    authScopes: { role: "viewer" },
    resolve: () => VERSION,
  }),
  readiness: t.field({
    type: ReadinessRef,
    description: "Readiness of the gateway (same data as GET /readyz). Viewer role.",
    authScopes: { role: "viewer" },
    resolve: (_root, _args, ctx) => ctx.readiness(),
  }),
}));
