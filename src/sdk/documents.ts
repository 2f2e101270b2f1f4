/**
 * What the SDK accepts as an operation: anything carrying its result and variable types
 * (`DocumentTypeDecoration`) — the generated `TypedDocumentString`s, or typed `DocumentNode`s from
 * another code generator setup.
 */
import type { DocumentTypeDecoration } from "@graphql-typed-document-node/core";
import { print, type DocumentNode } from "graphql";

/** A typed GraphQL operation: result type `TResult`, variables `TVariables`. */
export type ProsperoDocument<TResult, TVariables> = DocumentTypeDecoration<TResult, TVariables> &
  (DocumentNode | { toString(): string });

/** Result type of a typed document. */
export type ResultOf<D> = D extends DocumentTypeDecoration<infer R, infer _V> ? R : never;

/** Variables type of a typed document. */
export type VariablesOf<D> = D extends DocumentTypeDecoration<infer _R, infer V> ? V : never;

/**
 * Arguments after the document: the variables are optional exactly when the operation has no
 * required variable; `options` may always follow.
 */
export type VariablesArgs<TVariables, TOptions> =
  Record<string, never> extends TVariables
    ? [variables?: TVariables, options?: TOptions]
    : [variables: TVariables, options?: TOptions];

/** The operation's source text (a `DocumentNode` is printed). */
export function documentText(document: DocumentNode | { toString(): string }): string {
  if (typeof document === "object" && "kind" in document && document.kind === "Document") {
    return print(document);
  }
  return document.toString();
}
