// A keyed work queue in the manner of client-go's: a key waits at most once (adding it again
// while queued is a no-op), is worked by one worker at a time (added while in progress, it runs
// again afterwards), failures come back with per-key exponential back-off, and addAfter delays.
import type { Logger } from '../../core/log.js';
import { backoffMs, type Backoff } from '../../core/faults/backoff.js';

export type Reconcile = (key: string) => Promise<ReconcileResult | void>;

export interface ReconcileResult {
  /** Run this key again after so many ms (e.g. waiting for a send to progress). */
  requeueAfterMs?: number;
}

export interface WorkQueueOptions {
  name: string;
  reconcile: Reconcile;
  logger: Logger;
  concurrency?: number;
  /** Back-off of a failing key: first and largest delay. Defaults 500 ms and 60 s. */
  backoff?: { initialMs?: number; maxMs?: number };
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>(); // added while active
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private running = 0;
  private stopped = true;
  private idleWaiters: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly backoff: Backoff;

  constructor(private readonly opts: WorkQueueOptions) {
    this.concurrency = opts.concurrency ?? 2;
    this.backoff = { baseMs: opts.backoff?.initialMs ?? 500, maxMs: opts.backoff?.maxMs ?? 60_000 };
  }

  start(): void {
    this.stopped = false;
    this.pump();
  }

  /** Stops taking keys and waits for the ones in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (this.running > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  add(key: string): void {
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds the key after a delay; an earlier pending delay for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (this.timers.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.timers.set(key, timer);
  }

  get length(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (!this.stopped && this.running < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.active.add(key);
      this.running += 1;
      void this.work(key);
    }
  }

  private async work(key: string): Promise<void> {
    try {
      const result = await this.opts.reconcile(key);
      this.failures.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (error) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = backoffMs(n, this.backoff);
      this.opts.logger.warn({ err: error, queue: this.opts.name, key, attempt: n, retryInMs: delay }, 'reconcile failed');
      this.addAfter(key, delay);
    } finally {
      this.active.delete(key);
      this.running -= 1;
      if (this.dirty.delete(key)) this.add(key);
      if (this.running === 0 && this.idleWaiters.length) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
      this.pump();
    }
  }
}
