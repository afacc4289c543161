// The conditions of an app's API segments, read with the app (getApp) at the cost of their names.
// Every send and every planned chunk reads its app, and a segment's conditions can be large (up to
// SEGMENT_LIMITS.filter_entries entries, SEGMENT_LIMITS.per_app segments: ~1.4 MB of JSON, measured
// at p50 53 ms per getApp when read in full each time). So the app row brings each segment's id,
// name and version (updated_at), and the conditions come from this cache, keyed by id and version:
// a (segment, version) pair names one definition for ever, so a kept entry is never stale and
// needs no invalidation — an edit is a new version, read once. The database stays the one owner.
// Module-wide rather than per pool: the keys are random UUIDs and versions, never shared between
// databases, and an entry is a fact, not state.
import type { Queryable } from '../store/db.js';
import type { AudienceCondition } from '../send-model/request.js';

export interface SegmentRef {
  id: string;
  name: string;
  version: string;
  created_at: string;
  updated_at: string;
}

export interface StoredConditions {
  filters: Record<string, unknown>[];
  groups: AudienceCondition[][];
}

/** Definitions kept; past it the oldest read goes (each is at most one segment's JSON). */
export const DEFINITIONS_KEPT = 2_000;

const kept = new Map<string, StoredConditions>();
const keyOf = (id: string, version: string) => `${id}@${version}`;

/**
 * The definitions of `refs`, in order: kept ones at once, the others in one statement. A segment
 * deleted between the two reads has none (undefined: the caller leaves it out, as deleted); one
 * changed between them has its newest.
 */
export async function segmentDefinitions(db: Queryable, refs: SegmentRef[]): Promise<(StoredConditions | undefined)[]> {
  const missing = refs.filter((r) => !kept.has(keyOf(r.id, r.version)));
  const read = new Map<string, StoredConditions>();
  if (missing.length) {
    const res = await db.query<{ id: string; version: string; filters: StoredConditions['filters']; groups: StoredConditions['groups'] }>(
      `SELECT id, updated_at::text AS version, filters, groups FROM segments WHERE id = ANY($1::uuid[])`,
      [missing.map((r) => r.id)],
    );
    for (const row of res.rows) {
      const definition = { filters: row.filters, groups: row.groups };
      keep(keyOf(row.id, row.version), definition);
      read.set(row.id, definition);
    }
  }
  return refs.map((r) => kept.get(keyOf(r.id, r.version)) ?? read.get(r.id));
}

function keep(key: string, definition: StoredConditions): void {
  kept.delete(key);
  kept.set(key, definition);
  if (kept.size > DEFINITIONS_KEPT) kept.delete(kept.keys().next().value as string);
}
