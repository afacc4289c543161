// Fewer round trips under concurrency, without caching: what the hot path's profile asked for
// (docs/benchmarks.md "api"): two thirds of the api's CPU is socket writes, one per statement.
// Hand-written because the libraries at hand cache (p-memoize) or batch only within one tick
// (dataloader); these share a statement in flight, so nothing is ever older than one round trip.

/**
 * Concurrent reads of one key share the query in flight. A caller arriving while it runs gets
 * its answer, a state read at most one round trip before the caller arrived; nothing is kept after.
 */
export class SharedRead<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(private readonly read: (key: string) => Promise<V>) {}

  get(key: string): Promise<V> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = this.read(key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}

/**
 * One statement for many callers (group commit, for writes): items submitted while the statement
 * runs go together in the next one. `write` answers one result per item, in order; each caller
 * gets its own items' results, or the error of the statement that carried them.
 */
export class GroupedStatement<T, R = void> {
  private waiting: Array<{ items: T[]; resolve: (results: R[]) => void; reject: (e: unknown) => void }> = [];
  private running = false;

  constructor(private readonly write: (items: T[]) => Promise<R[]>) {}

  submit(items: T[]): Promise<R[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const results = await this.write(batch.flatMap((b) => b.items));
        let at = 0;
        for (const b of batch) {
          b.resolve(results.slice(at, at + b.items.length));
          at += b.items.length;
        }
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.running = false;
  }
}

/** One grouped statement per pool (a process may hold several pools, tests do). */
export function perPool<P extends object, T>(make: (pool: P) => T): (pool: P) => T {
  const made = new WeakMap<P, T>();
  return (pool) => {
    let value = made.get(pool);
    if (value === undefined) {
      value = make(pool);
      made.set(pool, value);
    }
    return value;
  };
}
