import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no "exports": Node loads index.js for dependencies while Vite would pick the
    // "module" build for our sources — two copies, "another module or realm" errors. Use one.
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Memory assertions measure after a full GC.
    execArgv: ["--expose-gc"],
  },
});
