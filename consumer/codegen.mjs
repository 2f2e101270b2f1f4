// GraphQL Code Generator configuration of the consumer: everything is generated from the LIVE
// gateway's introspection (never from the repository's schema.graphql — an outside team has only
// the running API and a token), into generated/ (not committed; every run regenerates it).
// - typesConfig: the client preset over operations/*.graphql: result and variable types of every
//   operation, compiled with `tsc --strict` together with the tests that use them.
// - possibleTypesConfig: Apollo's `possibleTypes` (fragment matcher) for InMemoryCache; it needs
//   only the schema, so it is generated before the tests run (run.mjs).
// By hand: CONSUMER_GATEWAY_URL=http://127.0.0.1:7878 CONSUMER_TOKEN=... npx graphql-codegen --config codegen.mjs
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The consumer's folder. */
export const CONSUMER_DIR = path.dirname(fileURLToPath(import.meta.url));

/** Where generated files go (see .gitignore). */
export const GENERATED_DIR = "generated/";

/**
 * The schema source: the gateway's /graphql, introspected with the admin token.
 * @param {string} url Base URL of the gateway.
 * @param {string} token Bearer token.
 */
function liveSchema(url, token) {
  return [{ [`${url}/graphql`]: { headers: { authorization: `Bearer ${token}` } } }];
}

/**
 * Types of the consumer's operations (client preset, fragment masking off, enums as string unions,
 * imports NodeNext-style).
 * @param {string} url Base URL of the gateway.
 * @param {string} token Bearer token.
 * @returns {import("@graphql-codegen/cli").CodegenConfig}
 */
export function typesConfig(url, token) {
  return {
    schema: liveSchema(url, token),
    documents: ["operations/*.graphql"],
    ignoreNoDocuments: false,
    silent: true,
    generates: {
      [GENERATED_DIR]: {
        preset: "client",
        presetConfig: { fragmentMasking: false },
        config: {
          useTypeImports: true,
          enumsAsTypes: true,
          emitLegacyCommonJSImports: false,
          strictScalars: true,
          scalars: { DateTime: "string", JSON: "unknown" },
        },
      },
    },
  };
}

/**
 * Apollo Client's `possibleTypes` for every union and interface of the live schema: the reference
 * test/possible-types.test.ts compares the SDK's shipped ones (which test/apollo.test.ts uses) with.
 * @param {string} url Base URL of the gateway.
 * @param {string} token Bearer token.
 * @returns {import("@graphql-codegen/cli").CodegenConfig}
 */
export function possibleTypesConfig(url, token) {
  return {
    schema: liveSchema(url, token),
    silent: true,
    generates: {
      [`${GENERATED_DIR}possible-types.ts`]: {
        plugins: ["fragment-matcher"],
        config: { apolloClientVersion: 3, useExplicitTyping: true },
      },
    },
  };
}

/** For `graphql-codegen --config codegen.mjs`: both, from CONSUMER_GATEWAY_URL and CONSUMER_TOKEN. */
const url = process.env["CONSUMER_GATEWAY_URL"] ?? "http://127.0.0.1:7878";
const token = process.env["CONSUMER_TOKEN"] ?? "";
const types = typesConfig(url, token);
export default { ...types, generates: { ...types.generates, ...possibleTypesConfig(url, token).generates } };
