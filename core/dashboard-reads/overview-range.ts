// The overview's time ranges (the dashboard's range picker): how far back each reaches and the
// width of its buckets, in UTC as every time the dashboard shows. One table, read by the reads of
// core/overview/ and the page's picker.
export const RANGES = {
  '24h': { label: '24 h', unit: 'hour', buckets: 24 },
  '7d': { label: '7 d', unit: 'day', buckets: 7 },
  '30d': { label: '30 d', unit: 'day', buckets: 30 },
} as const;
export type RangeName = keyof typeof RANGES;
export const RANGE_NAMES = Object.keys(RANGES) as RangeName[];
export const DEFAULT_RANGE: RangeName = '7d';

const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;

/** The starts of a range's buckets, oldest first: the last one holds `now`. */
export function bucketsOf(range: RangeName, now: Date): Date[] {
  const { unit, buckets } = RANGES[range];
  const ms = UNIT_MS[unit];
  const last = Math.floor(now.getTime() / ms) * ms;
  return Array.from({ length: buckets }, (_, i) => new Date(last - (buckets - 1 - i) * ms));
}

/** Values keyed by their bucket's start, spread over every bucket (a bucket with none is zero). */
export function fill<T>(starts: Date[], rows: Array<{ at: Date } & T>, zero: T): Array<{ at: Date } & T> {
  const byStart = new Map(rows.map((r) => [r.at.getTime(), r]));
  return starts.map((at) => byStart.get(at.getTime()) ?? { at, ...zero });
}
