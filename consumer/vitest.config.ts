import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One gateway, a shared demo fleet and 2 cores: files one after another.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 45_000,
  },
});
