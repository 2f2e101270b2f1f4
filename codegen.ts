/**
 * GraphQL Code Generator configuration of the typed SDK: the client preset over the committed
 * `schema.graphql` and the operations in `src/sdk/operations/*.graphql`, generating
 * `src/sdk/generated/` (`npm run codegen`; `npm run codegen:check` fails when it is stale).
 *
 * Documents are `TypedDocumentString`s (plain strings carrying their result and variable types), so
 * the SDK needs no GraphQL parser at run time. Imports end in `.js` and are type-only where they
 * can be, as NodeNext requires; enums are string-literal unions (no runtime enum objects).
 */
import type { CodegenConfig } from "@graphql-codegen/cli";

/** Where the generated SDK files go (committed; checked fresh in CI). */
export const GENERATED_DIR = "src/sdk/generated/";

/** Code generator configuration (see the file comment). */
const config: CodegenConfig = {
  schema: "schema.graphql",
  documents: ["src/sdk/operations/*.graphql"],
  ignoreNoDocuments: false,
  silent: true,
  generates: {
    [GENERATED_DIR]: {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        documentMode: "string",
        emitLegacyCommonJSImports: false,
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars: { DateTime: "string", JSON: "unknown" },
        avoidOptionals: false,
        skipTypename: false,
        nonOptionalTypename: false,
      },
    },
    // Apollo Client's `possibleTypes` (which objects each union and interface stands for): its
    // default cache cannot read `... on Error { code }` of a mutation result without them.
    [`${GENERATED_DIR}possible-types.ts`]: {
      plugins: ["fragment-matcher"],
      config: { apolloClientVersion: 3, useExplicitTyping: true },
    },
  },
};

export default config;
