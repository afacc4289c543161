// Redis first, the process's own buckets while Redis is unavailable (DECISIONS "Limits": Redis
// down). The API keeps answering, limited per process at the same rates; never unlimited. The
// outage is logged once when it starts and once when it ends; recovery needs nobody: the Redis
// client reconnects by itself and the next draw goes back to it.
import type { Logger } from '../log.js';
import { MemoryBucketStore } from './memory-store.js';
import type { RedisBucketStore } from './redis-store.js';
import type { BucketDraw, BucketStore, ChainResult } from './store.js';

export class FallbackBucketStore implements BucketStore {
  private outageSince?: number;

  constructor(
    private readonly primary: RedisBucketStore,
    private readonly fallback: MemoryBucketStore,
    private readonly logger: Logger,
    private readonly onModeChange?: (mode: 'redis' | 'fallback') => void,
  ) {}

  /** True while draws go to the per-process fallback. */
  get degraded(): boolean {
    return this.outageSince !== undefined;
  }

  async drawChain(draws: readonly BucketDraw[]): Promise<ChainResult> {
    // A disconnected client would reject at once anyway (no offline queue); skipping it saves a
    // rejected promise per request during an outage.
    if (this.primary.connected) {
      try {
        const result = await this.primary.drawChain(draws);
        if (this.outageSince !== undefined) this.recovered();
        return result;
      } catch (error) {
        this.failed(error);
      }
    } else {
      this.failed(new Error('Redis client not connected'));
    }
    return this.fallback.drawChainSync(draws);
  }

  private failed(error: unknown): void {
    if (this.outageSince !== undefined) return;
    this.outageSince = Date.now();
    this.logger.warn({ err: error }, 'rate buckets: Redis unavailable; limiting per process at the same rates until it returns');
    this.onModeChange?.('fallback');
  }

  private recovered(): void {
    const seconds = Math.round((Date.now() - (this.outageSince ?? Date.now())) / 1000);
    this.outageSince = undefined;
    this.logger.info({ outageSeconds: seconds }, 'rate buckets: Redis available again; buckets shared across replicas');
    this.onModeChange?.('redis');
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }
}
