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
  return new SeedThenMap(seed, source, fn);
}

/**
 * The iterator of {@link seedThenMap}. A class with prototype methods and one `then` per pending
 * call (no async function frame, no per-instance closures): a subscription parked on a quiet
 * stream is the common case, and every layer's resting cost is paid per subscriber.
 */
class SeedThenMap<A, B> implements AsyncIterableIterator<B> {
  private i = 0;
  private done = false;

  constructor(
    private readonly seed: readonly B[],
    private readonly source: AsyncIterator<A>,
    private readonly fn: (a: A) => B | typeof SKIP | { value: B; last: true },
  ) {}

  next(): Promise<IteratorResult<B>> {
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    if (this.i < this.seed.length) return Promise.resolve({ done: false, value: this.seed[this.i++]! });
    return this.source.next().then((r) => this.onItem(r));
  }

  async return(): Promise<IteratorResult<B>> {
    if (!this.done) {
      this.done = true;
      await this.source.return?.();
    }
    return { done: true, value: undefined };
  }

  async throw(err?: unknown): Promise<IteratorResult<B>> {
    await this.return();
    throw err;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private onItem(r: IteratorResult<A>): IteratorResult<B> | Promise<IteratorResult<B>> {
    if (this.done) return { done: true, value: undefined };
    if (r.done) {
      this.done = true;
      return { done: true, value: undefined };
    }
    const out = this.fn(r.value);
    if (out === SKIP) return this.next();
    if (
      typeof out === "object" &&
      out !== null &&
      "last" in out &&
      (out as { last: unknown }).last === true
    ) {
      const value = (out as { value: B }).value;
      return this.return().then(() => ({ done: false, value }));
    }
    return { done: false, value: out as B };
  }
}
