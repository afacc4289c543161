// When each REST key was last used (the dashboard's Settings page), to the minute, without a write
// per request: every use is noted in memory, and each api process writes the keys it saw once a
// minute in one statement. A key used by several processes gets the latest of their times (a
// write never moves it back). A failed write keeps its entries for the next one: a database
// outage costs a minute of precision, never a request.
import type { Queryable } from '../../core/store/db.js';
import { perPool } from '../../core/store/coalesce.js';

export const KEY_USE_FLUSH_MS = 60_000;

export class KeyUse {
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Queryable, private readonly everyMs = KEY_USE_FLUSH_MS) {}

  /** A call or a dashboard page authenticated by this key now. */
  note(keyId: string, at = Date.now()): void {
    this.seen.set(keyId, Math.max(at, this.seen.get(keyId) ?? 0));
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.everyMs);
    this.timer.unref(); // a process with nothing else to do exits; the last minute's uses go with it
  }

  /** Writes the uses noted since the last write (the timer's, or a test's). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.seen.size) return;
    const batch = [...this.seen];
    this.seen.clear();
    try {
      await this.db.query(
        `UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
          WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
        [batch.map(([id]) => id), batch.map(([, at]) => new Date(at))],
      );
    } catch {
      // Kept for the next write, which the next use schedules; newer uses noted meanwhile win.
      for (const [id, at] of batch) this.seen.set(id, Math.max(at, this.seen.get(id) ?? 0));
    }
  }
}

/** The one KeyUse of a pool: the key cache (REST calls) and the dashboard's sessions note into it. */
export const keyUse = perPool((db: Queryable) => new KeyUse(db));
