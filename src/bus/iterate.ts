/**
 * Small async-iterator adapters written against the iterator protocol (no `async function*`), so
 * `return()` reaches the source at once even while a `next()` is parked on a quiet stream —
 * which is what releases a subscription the moment its client goes away.
 */

/** Marker a mapping function returns to drop an item. */
export const SKIP: unique symbol = Symbol("skip");

/**
 * Yield `seed` items first, then the source's items mapped by `fn` (dropping SKIP), until the
 * source ends or `fn` asks to stop after an item (`{ value, last: true }`).
 */
export function seedThenMap<A, B>(
  seed: readonly B[],
  source: AsyncIterator<A>,
  fn: (a: A) => B | typeof SKIP | { value: B; last: true },
): AsyncIterableIterator<B> {
  let i = 0;
  let done = false;
  const finish = async (): Promise<IteratorResult<B>> => {
    if (!done) {
      done = true;
      await source.return?.();
    }
    return { done: true, value: undefined };
  };
  const it: AsyncIterableIterator<B> = {
    async next(): Promise<IteratorResult<B>> {
      if (done) return { done: true, value: undefined };
      if (i < seed.length) return { done: false, value: seed[i++]! };
      for (;;) {
        const r = await source.next();
        if (done) return { done: true, value: undefined };
        if (r.done) {
          done = true;
          return { done: true, value: undefined };
        }
        const out = fn(r.value);
        if (out === SKIP) continue;
        if (
          typeof out === "object" &&
          out !== null &&
          "last" in out &&
          (out as { last: unknown }).last === true
        ) {
          const value = (out as { value: B }).value;
          await finish();
          return { done: false, value };
        }
        return { done: false, value: out as B };
      }
    },
    return: finish,
    async throw(err?: unknown): Promise<IteratorResult<B>> {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}
