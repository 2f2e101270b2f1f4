/**
 * Teardown registry for tests: `onCleanup(fn)` runs `fn` after the current test, last registered
 * first (importing this module installs the `afterEach` hook in the test file).
 */
import { afterEach } from "vitest";

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Run `fn` after the current test. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}
