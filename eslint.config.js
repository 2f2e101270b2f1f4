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
);
