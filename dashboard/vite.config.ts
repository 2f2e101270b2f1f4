/**
 * Vite build of the dashboard: `npm run dashboard:build` writes `dashboard/dist`, which the
 * gateway serves at `/` (src/server/static.ts). Hashed assets under `assets/`, no inline code, so
 * the page runs under the gateway's strict CSP.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  publicDir: "public",
  logLevel: "warn",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    // Never inline assets as data: URLs or scripts; keep everything a file the CSP allows.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
