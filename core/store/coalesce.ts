// Fewer round trips under concurrency, without caching: what the hot path's profile asked for
// (docs/benchmarks.md "api"): two thirds of the api's CPU is socket writes, one per statement.
// Hand-written because the libraries at hand cache (p-memoize) or batch only within one tick
// (dataloader); these share a statement in flight, so nothing is ever older than one round trip.
import { isUnavailable } from '../faults/unavailable.js';

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

/** Items of one statement at most: a burst is carried by several statements, each of a bounded size. */
export const MAX_GROUPED_ITEMS = 1_000;

type Caller<T, R> = { items: T[]; resolve: (results: R[]) => void; reject: (e: unknown) => void };

/**
 * One statement for many callers (group commit, for writes): items submitted while the statement
 * runs go together in the next one, up to `maxItems`. `write` answers one result per item, in
 * order; each caller gets its own items' results. A statement that fails is all or nothing, so
 * when it carried several callers each is run again alone: a row PostgreSQL refuses fails only
 * its own caller. An outage fails them all at once (running each alone would only fail slower).
 */
export class GroupedStatement<T, R = void> {
  private waiting: Array<Caller<T, R>> = [];
  private running = false;

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxItems = MAX_GROUPED_ITEMS,
  ) {}

  submit(items: T[]): Promise<R[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length) {
      const batch = this.nextBatch();
      try {
        this.answer(batch, await this.write(batch.flatMap((b) => b.items)));
      } catch (error) {
        if (batch.length === 1 || isUnavailable(error)) for (const b of batch) b.reject(error);
        else for (const b of batch) await this.runAlone(b);
      }
    }
    this.running = false;
  }

  /** The oldest callers whose items fit in one statement (always at least one). */
  private nextBatch(): Array<Caller<T, R>> {
    let items = this.waiting[0].items.length;
    let n = 1;
    while (n < this.waiting.length && items + this.waiting[n].items.length <= this.maxItems) items += this.waiting[n++].items.length;
    return this.waiting.splice(0, n);
  }

  private answer(batch: Array<Caller<T, R>>, results: R[]): void {
    let at = 0;
    for (const b of batch) {
      b.resolve(results.slice(at, at + b.items.length));
      at += b.items.length;
    }
  }

  private async runAlone(caller: Caller<T, R>): Promise<void> {
    try {
      this.answer([caller], await this.write(caller.items));
    } catch (error) {
      caller.reject(error);
    }
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
