// Lint rules for Prospero: typescript-eslint's recommended set, strict about `any`.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      "src/generated/**",
      "src/sdk/generated/**",
      "tools/**/node_modules/**",
      "dist/**",
      "coverage/**",
      ".prospero/**",
      "dashboard/dist/**",
      "consumer/generated/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  // The dashboard runs in the browser.
  { files: ["dashboard/src/**"], languageOptions: { globals: { ...globals.browser } } },
  // The direction of the data flow (ARCHITECTURE: caliband → fleet → store/bus → schema →
  // clients). The ground floor — src/errors.ts, src/events/, src/log.ts — imports nothing of ours;
  // src/caliband imports only the ground floor; src/store and src/bus never import the fleet or
  // anything above them.
  {
    files: ["src/errors.ts", "src/events/**", "src/log.ts", "src/process-umask.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["./*", "../*"], message: "the ground floor imports nothing of ours" }] },
      ],
    },
  },
  {
    files: ["src/caliband/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["../*", "!../errors.js", "!../log.js", "!../process-umask.js", "!../events/*"],
              message: "src/caliband imports only the ground floor (errors, events, log) and itself",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/store/**", "src/bus/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "../fleet/*",
                "../schema/*",
                "../resolvers/*",
                "../server/*",
                "../cli/*",
                "../sdk/*",
                "../auth/*",
                "../app.js",
              ],
              message:
                "the store and the bus sit below the fleet and the schema: take what you need from src/events or src/errors",
            },
          ],
        },
      ],
    },
  },
);
