// Audience sizes as the dashboard shows them: compose's review, its estimate.json and the Segments
// page. Counting a segment or tag reads every matching install: on a 10,000,000-install app it
// takes seconds and holds a pool connection for them. Those pages count on every click, on every
// load and 400 ms after each change of compose's audience fields, and a `read` key may load them at
// will; the REST API counts only when it sends, under the send's buckets. So a count in flight is
// shared, and its answer kept 30 s per (app, target): a size a person reads, for which half a
// minute of registrations does not matter (the Segments page says so). The send itself counts
// afresh (acceptSend → createSend), so what is recorded is never a kept size.
//
// Not the contract's `audience` bucket instead: that bucket is the app's, per segment or tag, and is
// drawn by its real sends; a reviewer's clicks would use it up and refuse the app's sends to that
// segment.
import type { AppRecord } from '../../core/apps/app-store.js';
import { measureAudience } from '../../core/audience/measure.js';
import { findSegment } from '../../core/audience/segments.js';
import type { SendTarget } from '../../core/send-model/request.js';
import { perPool } from '../../core/store/coalesce.js';
import type { Pool } from '../../core/store/db.js';
import { isListTarget, segmentsNamed } from '../../core/audience/target-kinds.js';

/** How long a size is shown before it is counted again. */
export const SIZE_KEPT_MS = 30_000;
/** Sizes kept per pool; past it the oldest goes (an entry is an app id and a short target). */
export const SIZES_KEPT = 1_000;

export interface AudienceSize {
  estimate: number;
  /** When the count that gave it started. */
  countedAt: Date;
}

type Count = (app: AppRecord, target: SendTarget) => Promise<number>;

export class AudienceSizes {
  // Insertion order is age order: a size kept again is deleted and set, so the first key is the oldest.
  private readonly kept = new Map<string, AudienceSize>();
  private readonly inFlight = new Map<string, Promise<AudienceSize>>();

  constructor(private readonly count: Count, private readonly max = SIZES_KEPT) {}

  /** The target's size: kept if counted less than 30 s before `now`, else the count in flight, else a new count. */
  get(app: AppRecord, target: SendTarget, now: Date): Promise<AudienceSize> {
    // A list's size is its length: nothing is counted, so nothing is kept.
    if (isListTarget(target)) return Promise.resolve({ estimate: target.ids.length, countedAt: now });
    const key = `${app.id} ${JSON.stringify(target)} ${definitionOf(app, target)}`;
    const kept = this.kept.get(key);
    if (kept && now.getTime() - kept.countedAt.getTime() < SIZE_KEPT_MS) return Promise.resolve(kept);
    const running = this.inFlight.get(key);
    if (running) return running;
    // A failed count is not kept: the next caller counts again.
    const started = this.count(app, target)
      .then((estimate) => this.keep(key, { estimate, countedAt: now }))
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  private keep(key: string, size: AudienceSize): AudienceSize {
    this.kept.delete(key);
    this.kept.set(key, size);
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string);
    return size;
  }
}

/**
 * The conditions of the segments a target names, through the one lookup (core/audience/segments.ts):
 * part of a size's key, so a segment edited (through the API or the dashboard) or changed in its
 * App resource is counted afresh instead of showing its old size for 30 s.
 */
function definitionOf(app: AppRecord, target: SendTarget): string {
  const names = segmentsNamed(target);
  // A hand-made record without segments (tests of this cache) names none.
  return app.segments ? names.map((name) => JSON.stringify(findSegment(app, name)?.groups ?? null)).join(' ') : '';
}

/** One AudienceSizes per pool (a process may hold several pools, tests do), counting with core/audience. */
export const audienceSizes = perPool((pool: Pool) => new AudienceSizes(async (app, target) => (await measureAudience(pool, app, target)).estimate));
